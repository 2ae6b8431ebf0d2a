//! Reserves tracking-number serials in memory, so documents can be rendered outside the write
//! transaction. A reservation is only a promise: the number is issued when the label's transaction
//! registers it (the register's key refuses a second issue), and the stored counter moves with it.
//! After a crash, unissued reservations are simply offered again.

use packdesk_model::request::TrackingRange;
use packdesk_model::{ErrorCode, ServiceError};
use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Default)]
pub struct Allocator {
    next: Mutex<HashMap<String, u64>>,
}

impl Allocator {
    /// `n` consecutive serials of `scope` within `range`. `stored` reads the stored counter the
    /// first time a scope is used.
    pub fn reserve(
        &self,
        scope: &str,
        n: u64,
        range: TrackingRange,
        stored: impl FnOnce() -> Result<Option<u64>, ServiceError>,
    ) -> Result<Vec<u64>, ServiceError> {
        let mut map = self.next.lock().unwrap_or_else(|p| p.into_inner());
        let next = match map.get(scope) {
            Some(v) => *v,
            None => stored()?.unwrap_or(0),
        }
        .max(range.start);
        let last = next
            .checked_add(n.saturating_sub(1))
            .filter(|l| *l <= range.end)
            .ok_or_else(|| exhausted(range, if next > range.end { 0 } else { range.end - next + 1 }, n))?;
        map.insert(scope.to_string(), last + 1);
        Ok((next..=last).collect())
    }

    /// A serial found issued already: never offer it (or anything below it) again.
    pub fn skip_past(&self, scope: &str, serial: u64) {
        let mut map = self.next.lock().unwrap_or_else(|p| p.into_inner());
        let e = map.entry(scope.to_string()).or_insert(0);
        *e = (*e).max(serial + 1);
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

/// The range has `left` numbers, `needed` were asked for.
pub(crate) fn exhausted(range: TrackingRange, left: u64, needed: u64) -> ServiceError {
    ServiceError::at(
        ErrorCode::TrackingNumbersExhausted,
        "shipper_account.id",
        format!(
            "the tracking-number range {}..{} has {left} numbers left, {needed} needed",
            range.start, range.end
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_are_consecutive_disjoint_and_stop_at_the_end_of_the_range() {
        let a = Allocator::default();
        let r = TrackingRange { start: 10, end: 14 };
        assert_eq!(a.reserve("s", 2, r, || Ok(None)).unwrap(), vec![10, 11]);
        assert_eq!(a.reserve("s", 3, r, || unreachable!()).unwrap(), vec![12, 13, 14]);
        let e = a.reserve("s", 1, r, || unreachable!()).unwrap_err();
        assert_eq!(e.code, ErrorCode::TrackingNumbersExhausted);
        // A stored counter ahead of the range start wins.
        assert_eq!(a.reserve("t", 1, r, || Ok(Some(13))).unwrap(), vec![13]);
        a.skip_past("t", 13);
        assert_eq!(a.reserve("t", 1, r, || unreachable!()).unwrap(), vec![14]);
    }
}
