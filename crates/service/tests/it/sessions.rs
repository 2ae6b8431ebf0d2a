//! Sessions against the operator's row: on a shared database another desk may deactivate, demote
//! or delete an operator signed in here. This desk reads the row again at most every 30 s of a
//! session; the change is made here by another connection to the same database file (as another
//! desk's would be), not through this service.

use crate::common::*;
use packdesk_model::people::{OperatorRequest, SignInRequest};
use packdesk_model::status::Role;
use packdesk_service::keys::Env;

#[test]
fn an_operator_deactivated_by_another_connection_is_signed_out_within_30_seconds() {
    let (s, clock, dir) = manual_service();
    s.create_operator(OperatorRequest {
        name: Some("Pat".into()),
        code: Some("B-PAT".into()),
        role: Some(Role::Packer),
        ..Default::default()
    })
    .unwrap();
    let signed = s
        .sign_in(
            &SignInRequest {
                code: "B-PAT".into(),
                pin: None,
            },
            Env::Sandbox,
        )
        .unwrap();
    assert!(s.session(&signed.token).is_some());

    let other = rusqlite::Connection::open(dir.path().join("packdesk.sqlite3")).unwrap();
    other.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
    other
        .execute("UPDATE operators SET active = 0 WHERE code = 'B-PAT'", [])
        .unwrap();
    // Within the 30 s the session trusts what it read...
    clock.advance(chrono::Duration::seconds(10));
    assert!(s.session(&signed.token).is_some());
    // ...then it reads the row again, and the operator is signed out.
    clock.advance(chrono::Duration::seconds(25));
    assert!(s.session(&signed.token).is_none());
}
