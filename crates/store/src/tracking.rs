//! Tracking-number counters and the register of issued numbers.

use rusqlite::{params, Connection, OptionalExtension};

pub fn counter(conn: &Connection, scope: &str) -> crate::Result<Option<u64>> {
    Ok(conn
        .prepare_cached("SELECT next_serial FROM tracking_counters WHERE scope = ?1")?
        .query_row([scope], |r| r.get::<_, i64>(0))
        .optional()
        .map(|v| v.map(|n| n as u64))?)
}

/// Moves the counter forward to `next` (never back).
pub fn advance(conn: &Connection, scope: &str, next: u64) -> crate::Result<()> {
    conn.prepare_cached(
        "INSERT INTO tracking_counters (scope, next_serial) VALUES (?1, ?2)
         ON CONFLICT (scope) DO UPDATE SET next_serial = max(next_serial, excluded.next_serial)",
    )?
    .execute(params![scope, next as i64])?;
    Ok(())
}

/// Registers `number` as issued to `label_id`; false when it was issued before.
pub fn register(conn: &Connection, env: &str, slug: &str, number: &str, label_id: &str) -> crate::Result<bool> {
    let n = conn
        .prepare_cached("INSERT OR IGNORE INTO tracking_numbers (env, slug, number, label_id) VALUES (?1, ?2, ?3, ?4)")?
        .execute(params![env, slug, number, label_id])?;
    Ok(n == 1)
}
