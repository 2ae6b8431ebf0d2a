//! Reserves tracking-number serials in memory, so documents can be rendered outside the write
//! transaction. A reservation is only a promise: the number is issued when the label's transaction
//! registers it (the register's key refuses a second issue), and the stored counter moves with it.
//! After a crash, unissued reservations are simply offered again.
//!
//! A pool may have several ranges, used in order (ascending, not overlapping): the counter stays
//! "the next serial", and a next serial in a gap or past a range's end moves on to the next range.
//!
//! On a shared database the serials are reserved in the database (one statement under the
//! counter's row lock), and a busy desk reserves some ahead (`Allocator::reserve_ahead`), as
//! PostgreSQL's sequences cache theirs.

use packdesk_model::request::TrackingRange;
use packdesk_model::said::{args, Saying};
use packdesk_model::{ErrorCode, ServiceError};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    /// One desk's file: the next serial of each scope.
    next: Mutex<HashMap<String, u64>>,
    /// A shared database: the serials of each scope this desk reserved ahead, each scope behind
    /// a lock of its own (held across a reservation's round trip, so accounts reserve at once).
    ahead: Mutex<HashMap<String, Arc<Mutex<Option<Block>>>>>,
}

/// Serials reserved in the database and not used yet: `left` from `next` on.
struct Block {
    next: u64,
    left: u64,
    /// How many the reservation took.
    size: u64,
    reserved_at: Instant,
}

impl Block {
    /// Whether every serial left lies in `range`.
    fn within(&self, range: &TrackingRange) -> bool {
        self.left == 0 || (range.start <= self.next && self.next.saturating_add(self.left - 1) <= range.end)
    }

    /// The first `n` serials left (no more than are left).
    fn first(&self, n: u64) -> Vec<u64> {
        (self.next..).take(n.min(self.left) as usize).collect()
    }
}

/// The most serials a desk reserves ahead: what it leaves unused when it stops (a gap in the
/// range, never a number twice).
pub const MOST_AHEAD: u64 = 32;

/// A block used up sooner than this after it was reserved: the next one is twice as large (up to
/// `MOST_AHEAD`); later, the desk is not busy and reserves only what a label needs.
const BUSY: Duration = Duration::from_secs(1);

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

    /// `n` serials of `scope` from `range` on a shared database: from the serials this desk
    /// reserved ahead while they last, the rest from a new reservation, `draw(size)` (the serials,
    /// or `Err(left)`: the range holds fewer). A desk making labels one now and then reserves
    /// what each needs; a busy one twice as many each time its block lasted less than `BUSY`, up
    /// to `MOST_AHEAD`: under load one statement serves many labels. Not enough left for `n`:
    /// `Err(left)`, nothing taken.
    pub fn reserve_ahead<E>(
        &self,
        scope: &str,
        n: u64,
        range: TrackingRange,
        now: Instant,
        mut draw: impl FnMut(u64) -> Result<Result<Vec<u64>, u64>, E>,
    ) -> Result<Result<Vec<u64>, u64>, E> {
        let scope_lock = self.ahead_of(scope);
        let mut block = scope_lock.lock().unwrap_or_else(|p| p.into_inner());
        // Serials outside the account's range now (changed since) are left unused.
        let kept = block.as_mut().filter(|b| b.within(&range));
        let (have, size) = match kept {
            Some(b) if b.left >= n => {
                let got = b.first(n);
                b.next = b.next.saturating_add(n);
                b.left -= n;
                return Ok(Ok(got));
            }
            Some(b) => {
                let busy = now.saturating_duration_since(b.reserved_at) < BUSY;
                let size = if busy {
                    b.size.saturating_mul(2).min(MOST_AHEAD)
                } else {
                    1
                };
                (b.first(b.left), size)
            }
            None => (Vec::new(), 1),
        };
        // What the block still has, and the rest from the new one.
        let need = n - have.len() as u64;
        let got = match draw(size.max(need))? {
            Ok(got) => got,
            // The range's end is near: as many as are left, if this label's fit.
            Err(left) if left >= need && size > need => match draw(left)? {
                Ok(got) => got,
                // Another desk took some meanwhile.
                Err(_) => match draw(need)? {
                    Ok(got) => got,
                    Err(left) => return Ok(Err(left + have.len() as u64)),
                },
            },
            Err(left) => return Ok(Err(left + have.len() as u64)),
        };
        let Some(&first) = got.first().filter(|_| got.len() as u64 >= need) else {
            return Ok(Err(have.len() as u64));
        };
        *block = Some(Block {
            next: first.saturating_add(need),
            left: got.len() as u64 - need,
            size: got.len() as u64,
            reserved_at: now,
        });
        Ok(Ok(have
            .into_iter()
            .chain(got.into_iter().take(need as usize))
            .collect()))
    }

    /// How many serials of `scope` this desk reserved ahead and has not used yet, from a range
    /// of `ranges` (they are left in the range, though past its stored counter).
    /// Only a pool of one range reserves ahead (`labels::reserve_serials`).
    pub fn ahead_left(&self, scope: &str, ranges: &[TrackingRange]) -> u64 {
        let [range] = ranges else {
            return 0;
        };
        let scope_lock = self.ahead_of(scope);
        let block = scope_lock.lock().unwrap_or_else(|p| p.into_inner());
        block.as_ref().filter(|b| b.within(range)).map_or(0, |b| b.left)
    }

    /// The lock of `scope`'s serials reserved ahead.
    fn ahead_of(&self, scope: &str) -> Arc<Mutex<Option<Block>>> {
        let mut scopes = self.ahead.lock().unwrap_or_else(|p| p.into_inner());
        // The scope's name is copied only the first time (this runs for every label).
        if let Some(block) = scopes.get(scope) {
            return block.clone();
        }
        scopes.entry(scope.to_string()).or_default().clone()
    }

    /// A serial found issued already: never offer it (or anything below it) again.
    pub fn skip_past(&self, scope: &str, serial: u64) {
        let mut map = self.next.lock().unwrap_or_else(|p| p.into_inner());
        let e = map.entry(scope.to_string()).or_insert(0);
        *e = (*e).max(serial.saturating_add(1));
        drop(map);
        // What this desk reserved ahead lies past the counter, which is past the serial.
        *self.ahead_of(scope).lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// Forget the scopes starting with `prefix` (after a range change): reread on next use.
    pub fn forget(&self, prefix: &str) {
        let mut map = self.next.lock().unwrap_or_else(|p| p.into_inner());
        map.retain(|k, _| !k.starts_with(prefix));
        // What was reserved ahead stays this desk's: used while the new ranges hold it.
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

    /// The shared database's counter, as `tracking::reserve` keeps it: `n` serials from it, or
    /// how many are left.
    struct Counter {
        next: u64,
        end: u64,
        statements: usize,
    }

    impl Counter {
        fn draw(&mut self, n: u64) -> Result<Result<Vec<u64>, u64>, ()> {
            self.statements += 1;
            let left = self.end + 1 - self.next;
            if n > left {
                return Ok(Err(left));
            }
            let got = (self.next..self.next + n).collect();
            self.next += n;
            Ok(Ok(got))
        }
    }

    #[test]
    fn one_accounts_reservation_waiting_for_the_database_holds_up_no_other_account() {
        use std::sync::atomic::Ordering;
        let a = Allocator::default();
        let r = TrackingRange { start: 1, end: 99 };
        let (in_draw, told_in_draw) = std::sync::mpsc::channel();
        let (other_done, told_other_done) = std::sync::mpsc::channel::<()>();
        let other_came_meanwhile = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            let (a, other_came_meanwhile) = (&a, &other_came_meanwhile);
            let slow = s.spawn(move || {
                a.reserve_ahead("slow", 1, r, Instant::now(), |_| {
                    in_draw.send(()).unwrap();
                    // The database answers once the other account's label has its number (or
                    // after 10 s, when that waits for this).
                    let came = told_other_done.recv_timeout(Duration::from_secs(10)).is_ok();
                    other_came_meanwhile.store(came, Ordering::Relaxed);
                    Ok::<_, ()>(Ok(vec![1]))
                })
            });
            told_in_draw.recv().unwrap();
            let other = a.reserve_ahead("other", 1, r, Instant::now(), |_| Ok::<_, ()>(Ok(vec![7])));
            assert_eq!(other, Ok(Ok(vec![7])));
            let _ = other_done.send(());
            assert_eq!(slow.join().unwrap(), Ok(Ok(vec![1])));
        });
        assert!(
            other_came_meanwhile.load(Ordering::Relaxed),
            "the other account's number came while this one waited"
        );
    }

    #[test]
    fn a_busy_desk_reserves_ahead_an_idle_one_only_what_a_label_needs() {
        let a = Allocator::default();
        let r = TrackingRange { start: 100, end: 999 };
        let db = std::cell::RefCell::new(Counter {
            next: 100,
            end: 999,
            statements: 0,
        });
        let t0 = Instant::now();
        let take = |n: u64, at: Duration| {
            a.reserve_ahead("s", n, r, t0 + at, |k| db.borrow_mut().draw(k))
                .unwrap()
                .unwrap()
        };
        // Labels of 1, 2 or 3 parcels in quick succession: blocks of 1, 2, 4, ... up to
        // MOST_AHEAD, every number used in order (a block's last ones go to the next label).
        let mut serials = Vec::new();
        for i in 0..50 {
            serials.extend(take(1 + i % 3, Duration::from_millis(i)));
        }
        // 16 rounds of 1, 2 and 3, then 1 and 2: 99 numbers, then one more label of 1.
        serials.extend(take(1, Duration::from_millis(50)));
        assert_eq!(serials, (100..200).collect::<Vec<_>>());
        let statements = db.borrow().statements;
        assert!(statements <= 8, "{statements} reservations for 50 labels");
        let reserved = db.borrow().next;
        assert!(reserved - 200 < MOST_AHEAD, "at most MOST_AHEAD ahead: {reserved}");
        assert_eq!(a.ahead_left("s", &[r]), reserved - 200, "counted as left in the range");
        assert_eq!(a.ahead_left("s", &[TrackingRange { start: 1, end: 5 }]), 0);
        // A label a minute later takes what is left of the block, then the next only its own.
        let left = reserved - 200;
        for i in 0..left {
            assert_eq!(take(1, Duration::from_secs(60)), vec![200 + i]);
        }
        let before = db.borrow().statements;
        assert_eq!(take(2, Duration::from_secs(120)), vec![reserved, reserved + 1]);
        assert_eq!(db.borrow().next, reserved + 2, "an idle desk reserves nothing ahead");
        assert_eq!(db.borrow().statements, before + 1);
    }

    #[test]
    fn serials_reserved_ahead_stop_at_the_range_end_and_go_with_a_range_change() {
        let a = Allocator::default();
        let r = TrackingRange { start: 10, end: 20 };
        let mut db = Counter {
            next: 10,
            end: 20,
            statements: 0,
        };
        let t0 = Instant::now();
        let mut got = Vec::new();
        loop {
            match a.reserve_ahead("s", 2, r, t0, |k| db.draw(k)).unwrap() {
                Ok(s) => got.extend(s),
                Err(left) => {
                    assert_eq!(left, 1, "one number left, two needed");
                    break;
                }
            }
        }
        assert_eq!(
            got,
            (10..20).collect::<Vec<_>>(),
            "every number of the range, in order, once"
        );
        assert_eq!(a.ahead_left("s", &[r]), 1, "the last number, reserved, still left");
        // The account's range changes: what was reserved from the old one is not handed out
        // nor counted; a range extended keeps it.
        let mut db = Counter {
            next: 500,
            end: 600,
            statements: 0,
        };
        let new = TrackingRange { start: 500, end: 600 };
        assert_eq!(a.ahead_left("s", &[new]), 0);
        assert_eq!(a.reserve_ahead("s", 1, new, t0, |k| db.draw(k)).unwrap(), Ok(vec![500]));
        let b = Allocator::default();
        let mut db = Counter {
            next: 10,
            end: 20,
            statements: 0,
        };
        b.reserve_ahead("s", 2, r, t0, |k| db.draw(k)).unwrap().unwrap();
        b.reserve_ahead("s", 1, r, t0, |k| db.draw(k)).unwrap().unwrap();
        let longer = TrackingRange { start: 10, end: 30 };
        b.forget("s");
        assert_eq!(b.ahead_left("s", &[longer]), 3);
        let taken = b.reserve_ahead("s", 1, longer, t0, |_| -> Result<_, ()> { unreachable!() });
        assert_eq!(taken.unwrap(), Ok(vec![13]));
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
