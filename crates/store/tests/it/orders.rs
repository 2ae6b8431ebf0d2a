//! Orders on the run's backend: read, locked, found by their words (SQLite's word index,
//! PostgreSQL's trigram search), paged, linked to the label that ships them; import mappings.

use crate::support;
use packdesk_model::status::{Env, OrderStatus};
use packdesk_store::orders::{self, OrderFilter, OrderRow};
use packdesk_store::paging::Cursor;

fn order(i: i64, status: OrderStatus) -> OrderRow {
    OrderRow {
        id: format!("order-{i}"),
        env: Env::Live,
        order_number: format!("SO-100{i}"),
        status,
        record: format!("{{\"n\":{i}}}"),
        created_at: i,
        updated_at: i,
    }
}

#[test]
fn orders_are_read_locked_found_by_the_start_of_their_words_paged_and_linked_to_their_label() {
    let db = support::store();
    // The numbers an import is about to save, locked (an advisory lock on PostgreSQL, the one
    // writer on SQLite); a number twice is locked once.
    db.step(|c| orders::lock_numbers(c, Env::Live, &["SO-1001", "SO-1002", "SO-1001"]));
    db.step(|c| {
        orders::put(c, &order(1, OrderStatus::Open), "SO-1001 Jane Doe M1 1AE MUG-RED")?;
        orders::put(c, &order(2, OrderStatus::Open), "SO-1002 Hans Müller 10115 MUG-BLUE")?;
        orders::put(c, &order(3, OrderStatus::Shipped), "SO-1003 Jane Smith LS1 MUG-RED")
    });
    db.step(|c| orders::put(c, &order(1, OrderStatus::Open), "SO-1001 Jane Roe M1 1AE MUG-RED"));
    assert_eq!(
        db.look(|c| orders::get(c, Env::Live, "order-2")),
        Some(order(2, OrderStatus::Open)),
        "by id"
    );
    assert_eq!(
        db.step(|c| orders::get_for_update(c, Env::Live, "order-2")),
        Some(order(2, OrderStatus::Open)),
        "locked"
    );
    assert_eq!(
        db.look(|c| orders::by_number(c, Env::Live, "SO-1003")),
        Some(order(3, OrderStatus::Shipped)),
        "by number"
    );
    assert_eq!(
        db.look(|c| orders::get(c, Env::Sandbox, "order-2")),
        None,
        "another env"
    );
    assert_eq!(db.look(|c| orders::by_number(c, Env::Live, "SO-1009")), None);

    let found = |search: &str, status: Option<OrderStatus>, after: Option<Cursor>| -> Vec<String> {
        let f = OrderFilter {
            search: Some(search.into()),
            status,
        };
        db.look(|c| orders::list(c, Env::Live, &f, 10, after.as_ref()))
            .into_iter()
            .map(|o| o.id)
            .collect()
    };
    assert_eq!(found("", None, None), ["order-3", "order-2", "order-1"], "newest first");
    assert_eq!(found("mug-r", None, None), ["order-3", "order-1"]);
    assert_eq!(found("JANE m1", None, None), ["order-1"], "any case, every word");
    assert!(found("doe", None, None).is_empty(), "the old words are gone");
    assert_eq!(found("roe", None, None), ["order-1"], "the new ones found");
    assert_eq!(found("müll", None, None), ["order-2"]);
    assert!(
        found("ane", None, None).is_empty(),
        "the start of a word, not its middle"
    );
    assert_eq!(found("mug", Some(OrderStatus::Open), None), ["order-2", "order-1"]);
    let cursor = Cursor {
        created_at: 3,
        id: "order-3".into(),
    };
    assert_eq!(
        found("mug", None, Some(cursor)),
        ["order-2", "order-1"],
        "after the cursor"
    );
    let page: Vec<String> = db
        .look(|c| orders::list(c, Env::Live, &OrderFilter::default(), 1, None))
        .into_iter()
        .map(|o| o.id)
        .collect();
    assert_eq!(page, ["order-3", "order-2"], "limit + 1");

    db.step(|c| orders::link_label(c, "lbl-1", "order-3"));
    assert_eq!(
        db.look(|c| Ok((orders::order_of_label(c, "lbl-1")?, orders::order_of_label(c, "lbl-2")?))),
        (Some("order-3".to_string()), None)
    );
}

#[test]
fn an_import_mapping_is_kept_by_its_name() {
    let db = support::store();
    assert_eq!(db.look(|c| orders::mapping(c, "shop")), None);
    db.step(|c| orders::put_mapping(c, "shop", "{\"Order\":\"order_number\"}", 5));
    assert_eq!(
        db.look(|c| orders::mapping(c, "shop")),
        Some("{\"Order\":\"order_number\"}".to_string())
    );
    db.step(|c| orders::put_mapping(c, "shop", "{\"Ref\":\"order_number\"}", 6));
    assert_eq!(
        db.look(|c| orders::mapping(c, "shop")),
        Some("{\"Ref\":\"order_number\"}".to_string()),
        "saved again under its name: replaced"
    );
}
