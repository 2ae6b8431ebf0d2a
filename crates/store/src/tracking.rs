//! Tracking-number counters and the register of issued numbers.
//!
//! On the shared database of many desks, serials are reserved under the counter's row lock
//! (`reserve`), so two desks never draw the same one; the register's key stays the guarantee that
//! a number is issued once. One desk's file draws its serials in memory and moves the counter in
//! the label's transaction (`advance`).

use crate::db::Tx;
use crate::sql::Dialect;
use packdesk_model::status::Env;

/// The next serial `scope` would draw (None: never drawn from).
pub fn counter(c: &mut Tx<'_>, scope: &str) -> crate::Result<Option<u64>> {
    Ok(
        c.value::<i64>("SELECT next_serial FROM tracking_counters WHERE scope = ?1", &[&scope])?
            .map(|n| n as u64),
    )
}

/// Moves the counter forward to `next` (never back).
pub fn advance(c: &mut Tx<'_>, scope: &str, next: u64) -> crate::Result<()> {
    // A CASE rather than SQLite's max(a, b) or PostgreSQL's GREATEST: both read it; the counter
    // named, as PostgreSQL has both it and `excluded` in scope there.
    c.execute(
        "INSERT INTO tracking_counters (scope, next_serial) VALUES (?1, ?2)
         ON CONFLICT (scope) DO UPDATE SET next_serial = CASE
             WHEN excluded.next_serial > tracking_counters.next_serial THEN excluded.next_serial
             ELSE tracking_counters.next_serial END",
        &[&scope, &(next as i64)],
    )?;
    Ok(())
}

/// Registers `number` as issued to `label_id`; false when it was issued before (by any desk).
pub fn register(c: &mut Tx<'_>, env: Env, slug: &str, number: &str, label_id: &str) -> crate::Result<bool> {
    let n = c.execute(
        "INSERT INTO tracking_numbers (env, slug, number, label_id) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
        &[&env, &slug, &number, &label_id],
    )?;
    Ok(n == 1)
}

/// `n` consecutive serials of `scope` within `start..=end`, in one statement. `Err(left)`: the
/// range has only `left` numbers left, and nothing moved.
///
/// On the shared database it is its own transaction: call it outside a transaction
/// (`PgStore::autocommit`). The counter's row is locked only while PostgreSQL runs the statement,
/// never across a round trip to the desk, so the desks' labels queue on it for microseconds. Its
/// commit does not wait for the disk (`set_config(.., true)` for this transaction): a label that
/// registers the serials commits durably after it, and PostgreSQL's log is flushed in order, so a
/// serial issued durably was reserved durably; a reservation lost in a crash is only drawn again.
/// (One desk's file draws in memory instead; there this is the same reservation in the caller's
/// transaction.)
pub fn reserve(c: &mut Tx<'_>, scope: &str, n: u64, start: u64, end: u64) -> crate::Result<Result<Vec<u64>, u64>> {
    let (n_, start_, end_) = (n as i64, start as i64, end as i64);
    let fits_at_all = start.checked_add(n.saturating_sub(1)).is_some_and(|last| last <= end);
    if fits_at_all {
        let sql = match c.dialect() {
            // PostgreSQL: the relaxed commit of this statement's own transaction; the types of the
            // numbers, which it cannot infer from a sum of two parameters.
            Dialect::Postgres => {
                "WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
                 INSERT INTO tracking_counters AS t (scope, next_serial)
                     SELECT ?1, CAST(?2 AS BIGINT) + CAST(?3 AS BIGINT) FROM relaxed
                 ON CONFLICT (scope) DO UPDATE SET next_serial = GREATEST(t.next_serial, ?2) + ?3
                     WHERE GREATEST(t.next_serial, ?2) + ?3 - 1 <= CAST(?4 AS BIGINT)
                 RETURNING next_serial - ?3"
            }
            // SQLite: max(a, b) is its GREATEST.
            Dialect::Sqlite => {
                "INSERT INTO tracking_counters AS t (scope, next_serial) VALUES (?1, ?2 + ?3)
                 ON CONFLICT (scope) DO UPDATE SET next_serial = max(t.next_serial, ?2) + ?3
                     WHERE max(t.next_serial, ?2) + ?3 - 1 <= ?4
                 RETURNING next_serial - ?3"
            }
        };
        if let Some(first) = c.value::<i64>(sql, &[&scope, &start_, &n_, &end_])? {
            let first = first as u64;
            return Ok(Ok((first..first + n).collect()));
        }
    }
    let next = counter(c, scope)?.unwrap_or(start).max(start);
    Ok(Err(end.saturating_add(1).saturating_sub(next)))
}
