//! Async jobs: one row per accepted async request, written in the same transaction as the record
//! in its in-progress state. A job is `queued` until the transaction that completes its record
//! marks it `done`, so a crash at any moment leaves either a queued job (run again) or a done one.

use packdesk_model::status::JobState;
use rusqlite::{params, Connection, OptionalExtension, Row};

#[derive(Debug, Clone)]
pub struct JobRow {
    /// Order of acceptance.
    pub seq: i64,
    /// The id of the record the job completes.
    pub id: String,
    pub env: String,
    /// label, cancel_label, manifest, bulk_download, rate
    pub kind: String,
    /// Jobs of one lane (a shipper account) run one at a time, in order of acceptance.
    pub lane: String,
    /// The request as accepted (JSON).
    pub request: String,
    pub state: JobState,
    pub accepted_at: i64,
    pub finished_at: Option<i64>,
}

const COLS: &str = "seq, id, env, kind, lane, request, state, accepted_at, finished_at";

fn from_row(r: &Row) -> rusqlite::Result<JobRow> {
    Ok(JobRow {
        seq: r.get(0)?,
        id: r.get(1)?,
        env: r.get(2)?,
        kind: r.get(3)?,
        lane: r.get(4)?,
        request: r.get(5)?,
        state: r.get(6)?,
        accepted_at: r.get(7)?,
        finished_at: r.get(8)?,
    })
}

/// Queues a job; answers its seq.
pub fn insert(
    conn: &Connection,
    id: &str,
    env: &str,
    kind: &str,
    lane: &str,
    request: &str,
    accepted_at: i64,
) -> crate::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO jobs (id, env, kind, lane, request, state, accepted_at) VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6)",
    )?
    .execute(params![id, env, kind, lane, request, accepted_at])?;
    Ok(conn.last_insert_rowid())
}

pub fn get(conn: &Connection, id: &str) -> crate::Result<Option<JobRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLS} FROM jobs WHERE id = ?1"))?
        .query_row([id], from_row)
        .optional()?)
}

/// Marks a queued job done. False when it was done already (the caller must then not commit).
pub fn finish(conn: &Connection, id: &str, finished_at: i64) -> crate::Result<bool> {
    let n = conn
        .prepare_cached("UPDATE jobs SET state = 'done', finished_at = ?2 WHERE id = ?1 AND state = 'queued'")?
        .execute(params![id, finished_at])?;
    Ok(n == 1)
}

/// (seq, id, lane) of every queued job, in order of acceptance: what a restart runs again.
pub fn queued(conn: &Connection) -> crate::Result<Vec<(i64, String, String)>> {
    let mut st = conn.prepare_cached("SELECT seq, id, lane FROM jobs WHERE state = 'queued' ORDER BY seq")?;
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
}

/// Counts of jobs by state: (queued, done).
pub fn counts(conn: &Connection) -> crate::Result<(i64, i64)> {
    Ok(conn.query_row(
        "SELECT COALESCE(SUM(state = 'queued'), 0), COALESCE(SUM(state = 'done'), 0) FROM jobs",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

/// Async jobs in the shared database of many desks: any desk's worker claims the next job under a
/// lease; a job whose desk died is claimed again once its lease ends. A job still runs once: its
/// `finish` is in the transaction that completes its record, and only one such transaction finds
/// it queued (the other rolls back).
pub mod pg {
    use super::JobRow;
    use postgres::types::Type;
    use postgres::{GenericClient, Row};

    const COLS: &str = "seq, id, env, kind, lane, request, state, accepted_at, finished_at";

    fn from_row(r: &Row) -> JobRow {
        JobRow {
            seq: r.get(0),
            id: r.get(1),
            env: r.get(2),
            kind: r.get(3),
            lane: r.get(4),
            request: r.get(5),
            state: r.get(6),
            accepted_at: r.get(7),
            finished_at: r.get(8),
        }
    }

    pub fn get(client: &mut impl GenericClient, id: &str) -> crate::Result<Option<JobRow>> {
        let sql = format!("SELECT {COLS} FROM jobs WHERE id = $1");
        Ok(client.query_opt(&sql, &[&id])?.as_ref().map(from_row))
    }

    /// Queues a job; answers its seq.
    pub fn insert(
        tx: &mut impl GenericClient,
        id: &str,
        env: &str,
        kind: &str,
        lane: &str,
        request: &str,
        accepted_at: i64,
    ) -> crate::Result<i64> {
        Ok(tx
            .query_typed_one(
                "INSERT INTO jobs (id, env, kind, lane, request, state, accepted_at)
                 VALUES ($1, $2, $3, $4, $5, 'queued', $6) RETURNING seq",
                &[
                    (&id, Type::TEXT),
                    (&env, Type::TEXT),
                    (&kind, Type::TEXT),
                    (&lane, Type::TEXT),
                    (&request, Type::TEXT),
                    (&accepted_at, Type::INT8),
                ],
            )?
            .get(0))
    }

    /// Leases the next job to `desk` until `now + lease_us`: the oldest queued job of a lane whose
    /// oldest queued job is not leased to a live desk (a lane's jobs run one at a time, in order
    /// of acceptance, whichever desk runs them). Rows another desk is claiming are skipped, not
    /// waited for.
    pub fn claim(tx: &mut impl GenericClient, desk: &str, now: i64, lease_us: i64) -> crate::Result<Option<JobRow>> {
        let row = tx.query_typed_opt(
            &format!(
                "UPDATE jobs SET leased_by = $1, leased_until = $2 + $3
                 WHERE seq = (
                     SELECT j.seq FROM jobs j
                     WHERE j.state = 'queued' AND (j.leased_until IS NULL OR j.leased_until <= $2)
                       AND NOT EXISTS (SELECT 1 FROM jobs o WHERE o.lane = j.lane AND o.state = 'queued' AND o.seq < j.seq)
                     ORDER BY j.seq LIMIT 1 FOR UPDATE SKIP LOCKED)
                 RETURNING {COLS}"
            ),
            &[(&desk, Type::TEXT), (&now, Type::INT8), (&lease_us, Type::INT8)],
        )?;
        Ok(row.as_ref().map(from_row))
    }

    /// Extends `desk`'s lease of a job it is still running; false when the job is no longer its.
    pub fn renew(tx: &mut impl GenericClient, id: &str, desk: &str, until: i64) -> crate::Result<bool> {
        Ok(tx
            .query_typed_opt(
                "UPDATE jobs SET leased_until = $3 WHERE id = $1 AND leased_by = $2 AND state = 'queued' RETURNING 1",
                &[(&id, Type::TEXT), (&desk, Type::TEXT), (&until, Type::INT8)],
            )?
            .is_some())
    }

    /// Marks a queued job done. False when it was done already (by this or another desk): the
    /// caller must then not commit.
    pub fn finish(tx: &mut impl GenericClient, id: &str, finished_at: i64) -> crate::Result<bool> {
        Ok(tx
            .query_typed_opt(
                "UPDATE jobs SET state = 'done', finished_at = $2, leased_until = NULL
                 WHERE id = $1 AND state = 'queued' RETURNING 1",
                &[(&id, Type::TEXT), (&finished_at, Type::INT8)],
            )?
            .is_some())
    }

    /// Counts of jobs by state: (queued, done).
    pub fn counts(client: &mut impl GenericClient) -> crate::Result<(i64, i64)> {
        let r = client.query_typed_one(
            "SELECT count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state = 'done') FROM jobs",
            &[],
        )?;
        Ok((r.get(0), r.get(1)))
    }
}
