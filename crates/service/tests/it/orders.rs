//! Orders as a shop sends them: saved, updated by number, found by the start of a word,
//! cancelled; bad orders answered with the path of each problem and nothing saved.

use crate::common;

use packdesk_model::order::{OrderRequest, OrderSource};
use packdesk_model::request::ListQuery;
use packdesk_model::status::OrderStatus;
use packdesk_model::ToRequest;
use packdesk_service::keys::Env;
use serde_json::{json, Value};

fn order(number: &str, name: &str, country: &str) -> OrderRequest {
    json!({
        "order_number": number,
        "ship_to": {"contact_name": name, "street1": "Calle Mayor 1", "city": "Madrid", "postal_code": "28013", "country": country},
        "items": [{"description": "Mug", "quantity": 2, "sku": format!("MUG-{number}")}],
        "tags": ["web"]
    })
    .to_request()
    .unwrap()
}

fn search(s: &packdesk_service::Service, env: Env, text: &str) -> Vec<String> {
    let q = ListQuery {
        s: Some(text.into()),
        ..Default::default()
    };
    s.list_orders(env, &q)
        .unwrap()
        .orders
        .into_iter()
        .map(|o| o.order_number)
        .collect()
}

#[test]
fn orders_are_saved_updated_by_number_found_and_cancelled() {
    let h = common::harness();
    let s = &h.service;
    let saved = s
        .save_orders(
            Env::Live,
            vec![
                order("SO-1001", "Ana García", "Spain"),
                order("SO-1002", "Jan de Vries", "NL"),
            ],
            OrderSource::Api,
            true,
        )
        .unwrap();
    assert_eq!((saved.created, saved.updated), (2, 0));
    let first = &saved.orders[0];
    assert_eq!(first.status, OrderStatus::Open);
    assert_eq!(
        first.ship_to.country.as_deref(),
        Some("ESP"),
        "a country's name is kept as ISO alpha-3"
    );
    assert_eq!(saved.orders[1].ship_to.country.as_deref(), Some("NLD"));

    // The shop sends the order again with a new address: the same order, updated.
    let again = s
        .save_orders(
            Env::Live,
            vec![order("SO-1001", "Ana García López", "ESP")],
            OrderSource::Api,
            false,
        )
        .unwrap();
    assert_eq!((again.created, again.updated), (0, 1));
    assert_eq!(again.orders[0].id, first.id);
    assert_eq!(again.orders[0].created_at, first.created_at);
    assert_eq!(
        s.get_order(Env::Live, &first.id)
            .unwrap()
            .ship_to
            .contact_name
            .as_deref(),
        Some("Ana García López")
    );

    assert_eq!(search(s, Env::Live, "so-100"), vec!["SO-1002", "SO-1001"]);
    assert_eq!(search(s, Env::Live, "garcía"), vec!["SO-1001"], "a name, any case");
    assert_eq!(search(s, Env::Live, "mug-so-1002"), vec!["SO-1002"], "a SKU");
    assert_eq!(
        search(s, Env::Live, "28013"),
        vec!["SO-1002", "SO-1001"],
        "a postal code"
    );
    assert!(
        search(s, Env::Sandbox, "so-100").is_empty(),
        "sandbox keeps its own orders"
    );

    let cancelled = s.cancel_order(Env::Live, &first.id).unwrap();
    assert_eq!(cancelled.status, OrderStatus::Cancelled);
    let open = ListQuery {
        status: Some("open".into()),
        ..Default::default()
    };
    let open: Vec<String> = s
        .list_orders(Env::Live, &open)
        .unwrap()
        .orders
        .into_iter()
        .map(|o| o.order_number)
        .collect();
    assert_eq!(open, vec!["SO-1002"]);
}

#[test]
fn bad_orders_are_answered_with_each_problem_and_nothing_is_saved() {
    let h = common::harness();
    let s = &h.service;
    let mut bad = order("SO-2", "", "Atlantis");
    bad.items[0].quantity = 0;
    let e = s
        .save_orders(
            Env::Live,
            vec![order("SO-1", "Ana", "ES"), bad, order("SO-1", "Ana", "ES")],
            OrderSource::Api,
            true,
        )
        .unwrap_err();
    let paths: Vec<&str> = e.details.iter().map(|d| d.path.as_str()).collect();
    for want in [
        "orders[1].ship_to.country",
        "orders[1].ship_to.contact_name",
        "orders[1].items[0].quantity",
        "orders[2].order_number",
    ] {
        assert!(paths.contains(&want), "{want} missing in {:?}", e.details);
    }
    let country = e
        .details
        .iter()
        .find(|d| d.path == "orders[1].ship_to.country")
        .unwrap();
    assert!(country.info.contains("Atlantis"), "{}", country.info);
    assert!(
        search(s, Env::Live, "so").is_empty(),
        "no order of the refused call was saved"
    );

    let too_many: Vec<OrderRequest> = (0..1001).map(|i| order(&format!("B-{i}"), "A", "ES")).collect();
    let e = s.save_orders(Env::Live, too_many, OrderSource::Api, true).unwrap_err();
    assert_eq!(e.details[0].path, "orders");
    let wire: Value = serde_json::to_value(e.failure()).unwrap();
    assert!(wire["details"][0]["info"].as_str().unwrap().contains("1000"), "{wire}");
}
