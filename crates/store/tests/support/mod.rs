//! What the shared store's tests and its benchmark share: the test cluster, and a label's
//! tracking numbers drawn as the service draws them.

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

/// One label's numbers at one desk: reserved in a transaction of their own, registered in the
/// label's (durable) one; each must be new.
pub fn draw_label(desk: &PgStore, scope: &str, parcels: u64, label: &str) -> Vec<u64> {
    let serials = desk
        .write_relaxed(|tx| tracking::pg::reserve(tx, scope, parcels, RANGE_START, 10_000_000))
        .unwrap()
        .expect("the range has numbers left");
    desk.write(|tx| {
        for s in &serials {
            let fresh = tracking::pg::register(tx, "live", "yodel", &format!("JD{s:012}"), label)?;
            assert!(fresh, "{s} was issued before");
        }
        Ok::<_, StoreError>(())
    })
    .unwrap();
    serials
}
