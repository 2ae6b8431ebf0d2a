//! Shipper accounts on the run's backend: stored, deleted (gone from reads and pages, kept among
//! the slugs), paged by carrier.

use crate::support::{self, assert_rows};
use packdesk_model::status::{AccountStatus, Env};
use packdesk_store::accounts::{self, AccountRow};

fn account(i: i64) -> AccountRow {
    AccountRow {
        id: format!("acct-{i}"),
        env: Env::Live,
        slug: ["yodel", "dpd"][(i % 2) as usize].into(),
        status: AccountStatus::Enabled,
        description: format!("Account {i}"),
        timezone: "Europe/London".into(),
        address: None,
        settings: "{}".into(),
        credentials: vec![i as u8],
        secrets: None,
        created_at: i,
        updated_at: i,
    }
}

#[test]
fn a_deleted_account_leaves_the_pages_but_not_the_slugs() {
    let db = support::store();
    for i in 0..4i64 {
        db.step(|c| accounts::insert(c, &account(i)));
    }
    assert_rows(
        db.look(|c| accounts::get(c, Env::Live, "acct-2")),
        Some(account(2)),
        "stored",
    );
    assert_rows(
        db.look(|c| accounts::get(c, Env::Sandbox, "acct-2")),
        None,
        "in its environment",
    );
    let deleted = AccountRow {
        status: AccountStatus::Deleted,
        updated_at: 9,
        ..account(2)
    };
    db.step(|c| accounts::update(c, &deleted));
    assert_rows(
        db.look(|c| accounts::get(c, Env::Live, "acct-2")),
        None,
        "deleted: not read",
    );
    assert_rows(
        db.look(|c| accounts::list(c, Env::Live, Some("yodel"), 5, None)),
        vec![account(0)],
        "a page of yodel: acct-2 deleted",
    );
    assert_rows(
        db.look(|c| accounts::list(c, Env::Live, None, 1, None)),
        vec![account(3), account(1)],
        "newest first, limit + 1, the deleted one passed over",
    );
    assert_eq!(
        db.look(|c| accounts::slugs(c, Env::Live)),
        [
            ("acct-0", "yodel"),
            ("acct-1", "dpd"),
            ("acct-2", "yodel"),
            ("acct-3", "dpd")
        ]
        .map(|(id, slug)| (id.to_string(), slug.to_string())),
        "slugs, the deleted one's too"
    );
}
