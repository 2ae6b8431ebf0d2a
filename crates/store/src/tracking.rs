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

/// Tracking numbers in the shared database of many desks: serials are reserved under the
/// counter's row lock, so two desks never draw the same one; the register's key stays the
/// guarantee that a number is issued once. Each statement is one round trip (typed parameters,
/// no prepare).
pub mod pg {
    use postgres::types::Type;
    use postgres::GenericClient;

    /// `n` consecutive serials of `scope` within `start..=end`, in one statement that is its own
    /// transaction: call it outside a transaction (`PgStore::autocommit`). The counter's row is
    /// locked only while PostgreSQL runs the statement, never across a round trip to the desk, so
    /// the desks' labels queue on it for microseconds. Its commit does not wait for the disk
    /// (`set_config(.., true)` for this transaction): a label that registers the serials commits
    /// durably after it, and PostgreSQL's log is flushed in order, so a serial issued durably was
    /// reserved durably; a reservation lost in a crash is only drawn again. `Err(left)`: the range
    /// has only `left` numbers left, and nothing moved.
    pub fn reserve(
        client: &mut impl GenericClient,
        scope: &str,
        n: u64,
        start: u64,
        end: u64,
    ) -> crate::Result<Result<Vec<u64>, u64>> {
        let (n_, start_, end_) = (n as i64, start as i64, end as i64);
        let fits_at_all = start.checked_add(n.saturating_sub(1)).is_some_and(|last| last <= end);
        if fits_at_all {
            let row = crate::pg::query_opt(
                client,
                "WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
                 INSERT INTO tracking_counters AS t (scope, next_serial) SELECT $1, $2 + $3 FROM relaxed
                 ON CONFLICT (scope) DO UPDATE SET next_serial = GREATEST(t.next_serial, $2) + $3
                     WHERE GREATEST(t.next_serial, $2) + $3 - 1 <= $4
                 RETURNING next_serial - $3",
                &[
                    (&scope, Type::TEXT),
                    (&start_, Type::INT8),
                    (&n_, Type::INT8),
                    (&end_, Type::INT8),
                ],
            )?;
            if let Some(row) = row {
                let first = row.get::<_, i64>(0) as u64;
                return Ok(Ok((first..first + n).collect()));
            }
        }
        let next = counter(client, scope)?.unwrap_or(start).max(start);
        Ok(Err(end.saturating_add(1).saturating_sub(next)))
    }

    /// The next serial `scope` would draw (None: never drawn from).
    pub fn counter(client: &mut impl GenericClient, scope: &str) -> crate::Result<Option<u64>> {
        Ok(client
            .query_typed_opt(
                "SELECT next_serial FROM tracking_counters WHERE scope = $1",
                &[(&scope, Type::TEXT)],
            )?
            .map(|r| r.get::<_, i64>(0) as u64))
    }

    /// Registers `number` as issued to `label_id`; false when it was issued before (by any desk).
    pub fn register(
        tx: &mut impl GenericClient,
        env: &str,
        slug: &str,
        number: &str,
        label_id: &str,
    ) -> crate::Result<bool> {
        let row = crate::pg::query_opt(
            tx,
            "INSERT INTO tracking_numbers (env, slug, number, label_id) VALUES ($1, $2, $3, $4)
             ON CONFLICT DO NOTHING RETURNING 1",
            &[
                (&env, Type::TEXT),
                (&slug, Type::TEXT),
                (&number, Type::TEXT),
                (&label_id, Type::TEXT),
            ],
        )?;
        Ok(row.is_some())
    }
}
