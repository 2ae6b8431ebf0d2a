//! Reserves tracking-number serials in memory, so documents can be rendered outside the write
//! transaction. A reservation is only a promise: the number is issued when the label's transaction
//! registers it (the register's key refuses a second issue), and the stored counter moves with it.
//! After a crash, unissued reservations are simply offered again.
//!
//! A pool may have several ranges, used in order (ascending, not overlapping): the counter stays
//! "the next serial", and a next serial in a gap or past a range's end moves on to the next range.

use packdesk_model::request::TrackingRange;
use packdesk_model::said::{args, Saying};
use packdesk_model::{ErrorCode, ServiceError};
use std::collections::HashMap;
use std::sync::Mutex;

/// The ranges a label draws from, and whose they are (for the error that says they are used up).
#[derive(Debug, Clone, Copy)]
pub struct Pool<'a> {
    /// The account's description.
    pub account: &'a str,
    pub pool: &'a str,
    pub ranges: &'a [TrackingRange],
}

#[derive(Default)]
pub struct Allocator {
    next: Mutex<HashMap<String, u64>>,
}

/// `n` serials from `next` on through `ranges` (in order), and the next serial after them;
/// `Err(left)` when the ranges hold fewer than `n` from `next` on.
pub(crate) fn take(next: u64, n: u64, ranges: &[TrackingRange]) -> Result<(Vec<u64>, u64), u64> {
    let have = left(next, ranges);
    if have < n {
        return Err(have);
    }
    let mut out = Vec::new();
    let mut next = next;
    for r in ranges {
        let need = n - out.len() as u64;
        if need == 0 {
            break;
        }
        let from = next.max(r.start);
        if from > r.end {
            continue;
        }
        // `need` is at most what is left, so `last` stays within the range.
        let last = from.saturating_add(need - 1).min(r.end);
        out.extend(from..=last);
        next = last.saturating_add(1);
    }
    Ok((out, next))
}

/// How many serials `ranges` hold from `next` on.
pub(crate) fn left(next: u64, ranges: &[TrackingRange]) -> u64 {
    ranges
        .iter()
        .map(|r| {
            let from = next.max(r.start);
            if from > r.end {
                0
            } else {
                (r.end - from).saturating_add(1)
            }
        })
        .fold(0, u64::saturating_add)
}

impl Allocator {
    /// `n` serials of `scope` from the pool's ranges (consecutive within a range, continuing in
    /// the next range when one ends). `stored` reads the stored counter the first time a scope is
    /// used. Not enough left in all ranges: the 4730 error, and nothing is reserved.
    pub fn reserve(
        &self,
        scope: &str,
        n: u64,
        pool: Pool<'_>,
        stored: impl FnOnce() -> Result<Option<u64>, ServiceError>,
    ) -> Result<Vec<u64>, ServiceError> {
        let mut map = self.next.lock().unwrap_or_else(|p| p.into_inner());
        let next = match map.get(scope) {
            Some(v) => *v,
            None => stored()?.unwrap_or(0),
        };
        let (serials, after) = take(next, n, pool.ranges).map_err(|have| exhausted(pool, have, n))?;
        map.insert(scope.to_string(), after.max(next));
        Ok(serials)
    }

    /// A serial found issued already: never offer it (or anything below it) again.
    pub fn skip_past(&self, scope: &str, serial: u64) {
        let mut map = self.next.lock().unwrap_or_else(|p| p.into_inner());
        let e = map.entry(scope.to_string()).or_insert(0);
        *e = (*e).max(serial.saturating_add(1));
    }

    /// Forget the scopes starting with `prefix` (after a range change): reread on next use.
    pub fn forget(&self, prefix: &str) {
        let mut map = self.next.lock().unwrap_or_else(|p| p.into_inner());
        map.retain(|k, _| !k.starts_with(prefix));
    }

    /// Where the next reservation of `scope` would start, if the scope is in use.
    pub fn peek(&self, scope: &str) -> Option<u64> {
        self.next.lock().unwrap_or_else(|p| p.into_inner()).get(scope).copied()
    }
}

/// The pool has `left` numbers, `needed` were asked for: what the operator does about it.
pub(crate) fn exhausted(pool: Pool<'_>, left: u64, needed: u64) -> ServiceError {
    let saying = match pool.ranges.is_empty() {
        true => Saying::NoRange,
        false => Saying::RangeUsedUp,
    };
    ServiceError::said(
        ErrorCode::TrackingNumbersExhausted,
        "shipper_account.id",
        saying,
        args([
            ("account", &pool.account),
            ("pool", &pool.pool),
            ("left", &left),
            ("needed", &needed),
        ]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(ranges: &[TrackingRange]) -> Pool<'_> {
        Pool {
            account: "DPD Main",
            pool: "default",
            ranges,
        }
    }

    #[test]
    fn reservations_are_consecutive_disjoint_and_stop_at_the_end_of_the_range() {
        let a = Allocator::default();
        let r = [TrackingRange { start: 10, end: 14 }];
        assert_eq!(a.reserve("s", 2, pool(&r), || Ok(None)).unwrap(), vec![10, 11]);
        assert_eq!(
            a.reserve("s", 3, pool(&r), || unreachable!()).unwrap(),
            vec![12, 13, 14]
        );
        let e = a.reserve("s", 1, pool(&r), || unreachable!()).unwrap_err();
        assert_eq!(e.code, ErrorCode::TrackingNumbersExhausted);
        // A stored counter ahead of the range start wins.
        assert_eq!(a.reserve("t", 1, pool(&r), || Ok(Some(13))).unwrap(), vec![13]);
        a.skip_past("t", 13);
        assert_eq!(a.reserve("t", 1, pool(&r), || unreachable!()).unwrap(), vec![14]);
    }

    #[test]
    fn a_label_continues_in_the_next_range_across_the_gap() {
        let a = Allocator::default();
        let r = [
            TrackingRange { start: 10, end: 12 },
            TrackingRange { start: 20, end: 21 },
            TrackingRange { start: 30, end: 39 },
        ];
        assert_eq!(left(0, &r), 15);
        assert_eq!(a.reserve("s", 2, pool(&r), || Ok(None)).unwrap(), vec![10, 11]);
        // Three parcels: the last of the first range, then the whole second one.
        assert_eq!(
            a.reserve("s", 3, pool(&r), || unreachable!()).unwrap(),
            vec![12, 20, 21]
        );
        assert_eq!(a.reserve("s", 1, pool(&r), || unreachable!()).unwrap(), vec![30]);
        assert_eq!(left(a.peek("s").unwrap(), &r), 9);
    }

    #[test]
    fn a_counter_in_a_gap_or_past_a_range_moves_to_the_next_range() {
        let a = Allocator::default();
        let r = [
            TrackingRange { start: 10, end: 12 },
            TrackingRange { start: 20, end: 25 },
        ];
        // Stored counter in the gap (the old range ended at 12, a label took 12).
        assert_eq!(a.reserve("gap", 1, pool(&r), || Ok(Some(13))).unwrap(), vec![20]);
        // A number found issued elsewhere in the first range: skip past it into the next.
        assert_eq!(a.reserve("skip", 1, pool(&r), || Ok(None)).unwrap(), vec![10]);
        a.skip_past("skip", 12);
        assert_eq!(a.reserve("skip", 2, pool(&r), || unreachable!()).unwrap(), vec![20, 21]);
        // Past every range: nothing left.
        assert_eq!(left(26, &r), 0);
        let e = a.reserve("past", 1, pool(&r), || Ok(Some(26))).unwrap_err();
        assert_eq!(e.code, ErrorCode::TrackingNumbersExhausted);
    }

    #[test]
    fn not_enough_in_all_ranges_reserves_nothing_and_names_the_account() {
        let a = Allocator::default();
        let r = [TrackingRange { start: 1, end: 2 }, TrackingRange { start: 5, end: 5 }];
        let e = a.reserve("s", 4, pool(&r), || Ok(None)).unwrap_err();
        assert_eq!(e.code, ErrorCode::TrackingNumbersExhausted);
        assert_eq!(
            e.details[0].info,
            "The tracking-number range of DPD Main (pool default) is used up: 3 left, 4 needed. Add the \
             carrier's next range to this account (Accounts → the account → Tracking ranges)"
        );
        // Nothing was taken: all three are still there.
        assert_eq!(a.reserve("s", 3, pool(&r), || Ok(None)).unwrap(), vec![1, 2, 5]);
        // After forget (a new list PUT), the stored counter is read again.
        a.forget("s");
        assert_eq!(a.reserve("s", 1, pool(&r), || Ok(Some(2))).unwrap(), vec![2]);
    }

    #[test]
    fn ranges_at_the_top_of_u64_do_not_overflow() {
        let r = [TrackingRange {
            start: u64::MAX - 1,
            end: u64::MAX,
        }];
        assert_eq!(left(0, &r), 2);
        assert_eq!(take(0, 2, &r), Ok((vec![u64::MAX - 1, u64::MAX], u64::MAX)));
        assert_eq!(
            left(
                u64::MAX,
                &[TrackingRange {
                    start: 0,
                    end: u64::MAX
                }]
            ),
            1
        );
        assert_eq!(
            left(
                0,
                &[TrackingRange {
                    start: 0,
                    end: u64::MAX
                }]
            ),
            u64::MAX
        );
    }
}
