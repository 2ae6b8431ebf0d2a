//! What the shared store's tests and its benchmark share: the test cluster, and a label's
//! tracking numbers drawn as the service draws them.
// Each test binary and bench uses a part of it.
#![allow(dead_code)]

use packdesk_model::status::Env;
use packdesk_store::db::Tx;
use packdesk_store::pg::PgStore;
use packdesk_store::{tracking, StoreError};

/// The first serial of the range the tests and the bench draw from.
pub const RANGE_START: u64 = 1_000;

/// The cluster of `tests/postgres.sh` (`.ci/test` starts it before `cargo test`).
pub fn cluster() -> String {
    std::env::var("PACKDESK_TEST_POSTGRES").expect(
        "PACKDESK_TEST_POSTGRES is not set: run the tests with the README's test command, or start a cluster \
         with `eval \"$(bash tests/postgres.sh start | sed 's/^/export /')\"`",
    )
}

/// One label's numbers at one desk: reserved in a statement of their own, registered in the
/// label's (durable) one; each must be new.
pub fn draw_label(desk: &PgStore, scope: &str, parcels: u64, label: &str) -> Vec<u64> {
    let serials = desk
        .autocommit(|client| {
            let c = &mut Tx::Postgres { client, desk: "desk-a" };
            tracking::reserve(c, scope, parcels, RANGE_START, 10_000_000)
        })
        .unwrap()
        .expect("the range has numbers left");
    desk.write(|client| {
        let c = &mut Tx::Postgres { client, desk: "desk-a" };
        for s in &serials {
            let fresh = tracking::register(c, Env::Live, "yodel", &format!("JD{s:012}"), label)?;
            assert!(fresh, "{s} was issued before");
        }
        Ok::<_, StoreError>(())
    })
    .unwrap();
    serials
}

/// A live account of the carrier the tests draw for, stored at `desk`.
pub fn account(desk: &PgStore, id: &str) {
    let row = account_row(id);
    desk.write(|client| {
        packdesk_store::accounts::insert(&mut packdesk_store::db::Tx::Postgres { client, desk: "desk-a" }, &row)
    })
    .unwrap();
}

/// A live account of the carrier the tests draw for.
pub fn account_row(id: &str) -> packdesk_store::accounts::AccountRow {
    packdesk_store::accounts::AccountRow {
        id: id.into(),
        env: Env::Live,
        slug: "yodel".into(),
        status: packdesk_model::status::AccountStatus::Enabled,
        description: format!("Account {id}"),
        timezone: "Europe/London".into(),
        address: None,
        settings: "{}".into(),
        credentials: vec![1, 2, 3],
        secrets: None,
        created_at: 1,
        updated_at: 1,
    }
}

/// A created label of `account`, shipping on `ship_date`, found by its tracking number
/// `JD<serial>` and reference `ref-<serial>`.
pub fn label(
    id: &str,
    account: &str,
    serial: u64,
    ship_date: &str,
    created_at: i64,
) -> packdesk_store::labels::LabelRow {
    packdesk_store::labels::LabelRow {
        id: id.into(),
        env: Env::Live,
        shipper_account_id: account.into(),
        status: packdesk_model::status::LabelStatus::Created,
        order_number: None,
        search_text: format!("JD{serial:012} ref-{serial}"),
        manifest_id: None,
        request: "{}".into(),
        record: "{}".into(),
        ship_date: ship_date.into(),
        service_type: "yodel_48".into(),
        weight_kg: 1.5,
        created_at,
        updated_at: created_at,
    }
}

/// One close-out of `account` for `day` at `desk`, as the service makes it: the labels it takes,
/// moved into manifest `manifest_id` in the same transaction.
pub fn close_out(desk: &PgStore, account: &str, day: &str, manifest_id: &str) -> Vec<String> {
    desk.write(|client| {
        let c = &mut Tx::Postgres { client, desk: "desk-a" };
        let ids: Vec<String> = packdesk_store::labels::manifestable(c, account, day)?
            .into_iter()
            .map(|l| l.id)
            .collect();
        packdesk_store::labels::set_manifested(c, &ids, manifest_id, 2)?;
        Ok::<_, StoreError>(ids)
    })
    .unwrap()
}

/// The store's error of a label insert, which these tests never expect refused.
pub fn refused(e: packdesk_store::labels::InsertError) -> StoreError {
    match e {
        packdesk_store::labels::InsertError::Db(e) => e,
        other => panic!("the label was refused: {other:?}"),
    }
}
