//! Tracking numbers on the run's backend: serials reserved within a range (never past its end),
//! the counter moved on and never back, a number registered once.

use crate::support;
use packdesk_model::status::Env;
use packdesk_store::tracking;

#[test]
fn serials_are_drawn_within_their_range_and_a_number_is_issued_once() {
    let db = support::store();
    assert_eq!(db.look(|c| tracking::counter(c, "small")), None, "never drawn from");
    assert_eq!(
        db.step(|c| tracking::reserve(c, "small", 3, 10, 14)),
        Ok(vec![10, 11, 12])
    );
    assert_eq!(
        db.step(|c| tracking::reserve(c, "small", 3, 10, 14)),
        Err(2),
        "two numbers left, three asked for"
    );
    assert_eq!(db.look(|c| tracking::counter(c, "small")), Some(13), "nothing moved");
    assert_eq!(
        db.step(|c| tracking::reserve(c, "small", 2, 10, 14)),
        Ok(vec![13, 14]),
        "the rest"
    );
    assert_eq!(
        db.step(|c| tracking::reserve(c, "small", 1, 10, 14)),
        Err(0),
        "none left"
    );
    db.step(|c| {
        tracking::advance(c, "small", 20)?;
        tracking::advance(c, "small", 16)?;
        tracking::advance(c, "fresh", 5)
    });
    assert_eq!(
        db.look(|c| Ok((tracking::counter(c, "small")?, tracking::counter(c, "fresh")?))),
        (Some(20), Some(5)),
        "moved on, never back; a new counter where it was set"
    );
    assert_eq!(
        db.step(|c| tracking::reserve(c, "fresh", 2, 1, 100)),
        Ok(vec![5, 6]),
        "drawn from where it was moved to"
    );

    assert!(
        db.step(|c| tracking::register(c, Env::Live, "yodel", "JD9", "lbl-01")),
        "registered"
    );
    assert!(
        !db.step(|c| tracking::register(c, Env::Live, "yodel", "JD9", "lbl-02")),
        "issued before"
    );
    assert!(
        db.step(|c| tracking::register(c, Env::Live, "dpd", "JD9", "lbl-03")),
        "numbers are per issuer"
    );
    assert!(
        db.step(|c| tracking::register(c, Env::Sandbox, "yodel", "JD9", "lbl-04")),
        "and per environment"
    );
}
