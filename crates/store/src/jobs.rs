//! Async jobs: one row per accepted async request, written in the same transaction as the record
//! in its in-progress state. A job is `queued` until the transaction that completes its record
//! marks it `done`, so a crash at any moment leaves either a queued job (run again) or a done one.
//!
//! One desk's file keeps its queue in memory and runs again, after a restart, what is still
//! queued (`queued`). In the shared database of many desks, any desk's worker claims the next job
//! under a lease (`claim`); a job whose desk died is claimed again once its lease ends. A job
//! still runs once: its `finish` is in the transaction that completes its record, and only one
//! such transaction finds it queued (the other rolls back).

use crate::db::Tx;
use crate::sql::{table_row, Dialect, TableRow};
use packdesk_model::status::Env;
use packdesk_model::status::{JobKind, JobState};

table_row! {
#[derive(Debug, Clone)]
pub struct JobRow {
    /// Order of acceptance.
    pub seq: i64,
    /// The id of the record the job completes.
    pub id: String,
    pub env: Env,
    pub kind: JobKind,
    /// Jobs of one lane (a shipper account) run one at a time, in order of acceptance.
    pub lane: String,
    /// The request as accepted (JSON).
    pub request: String,
    pub state: JobState,
    pub accepted_at: i64,
    pub finished_at: Option<i64>,
    /// Who asked for it (JSON; none: the desk's own work): the job runs, and is audited, as them.
    pub caller: Option<String>,
}
}

const COLS: &str = JobRow::COLUMNS;

/// Queues a job; answers its seq. `caller` (JSON): whose request it runs (none: the desk's own
/// work).
#[allow(clippy::too_many_arguments)]
pub fn insert(
    c: &mut Tx<'_>,
    id: &str,
    env: Env,
    kind: JobKind,
    lane: &str,
    request: &str,
    accepted_at: i64,
    caller: Option<&str>,
) -> crate::Result<i64> {
    let seq = c.value(
        "INSERT INTO jobs (id, env, kind, lane, request, state, accepted_at, caller) \
         VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6, ?7) RETURNING seq",
        &[&id, &env, &kind, &lane, &request, &accepted_at, &caller],
    )?;
    Ok(seq.expect("an INSERT ... RETURNING answers its row"))
}

pub fn get(c: &mut Tx<'_>, id: &str) -> crate::Result<Option<JobRow>> {
    c.row(&format!("SELECT {COLS} FROM jobs WHERE id = ?1"), &[&id])
}

/// Marks a queued job done. False when it was done already (by this or, on a shared database,
/// another desk): the caller must then not commit.
pub fn finish(c: &mut Tx<'_>, id: &str, finished_at: i64) -> crate::Result<bool> {
    let sql = match c.dialect() {
        Dialect::Sqlite => "UPDATE jobs SET state = 'done', finished_at = ?2 WHERE id = ?1 AND state = 'queued'",
        // The shared database's lease ends with the job (one desk's file has no leases).
        Dialect::Postgres => {
            "UPDATE jobs SET state = 'done', finished_at = ?2, leased_until = NULL \
             WHERE id = ?1 AND state = 'queued'"
        }
    };
    Ok(c.execute(sql, &[&id, &finished_at])? == 1)
}

/// (seq, id, lane) of every queued job in order of acceptance: what a restart of one desk runs
/// again (a shared database's desks claim them instead: none there).
pub fn queued(c: &mut Tx<'_>) -> crate::Result<Vec<(i64, String, String)>> {
    match c.dialect() {
        Dialect::Sqlite => c.rows(
            "SELECT seq, id, lane FROM jobs WHERE state = 'queued' ORDER BY seq",
            &[],
        ),
        Dialect::Postgres => Ok(Vec::new()),
    }
}

/// Counts of jobs by state: (queued, done).
pub fn counts(c: &mut Tx<'_>) -> crate::Result<(i64, i64)> {
    let counts = c.row(
        "SELECT COUNT(*) FILTER (WHERE state = 'queued'), COUNT(*) FILTER (WHERE state = 'done') FROM jobs",
        &[],
    )?;
    Ok(counts.unwrap_or((0, 0)))
}

/// Leases the next runnable job to this desk until `now + lease_us` (shared database only: one
/// desk's file keeps its queue in memory and never calls this). The next job is the oldest queued
/// job of a lane whose oldest queued job is not leased to a live desk (a lane's jobs run one at a
/// time, in order of acceptance, whichever desk runs them). Rows another desk is claiming are
/// skipped, not waited for (PostgreSQL's `FOR UPDATE SKIP LOCKED`).
pub fn claim(c: &mut Tx<'_>, now: i64, lease_us: i64) -> crate::Result<Option<JobRow>> {
    let Some(desk) = c.desk().map(str::to_owned) else {
        return Ok(None);
    };
    c.row(
        &format!(
            "UPDATE jobs SET leased_by = ?1, leased_until = CAST(?2 AS BIGINT) + CAST(?3 AS BIGINT)
             WHERE seq = (
                 SELECT j.seq FROM jobs j
                 WHERE j.state = 'queued' AND (j.leased_until IS NULL OR j.leased_until <= ?2)
                   AND NOT EXISTS (SELECT 1 FROM jobs o WHERE o.lane = j.lane AND o.state = 'queued' AND o.seq < j.seq)
                 ORDER BY j.seq LIMIT 1 FOR UPDATE SKIP LOCKED)
             RETURNING {COLS}"
        ),
        &[&desk, &now, &lease_us],
    )
}

/// Extends this desk's lease of a job it still runs; false when the job is no longer its (one
/// desk's file has no leases: its job is always its own).
pub fn renew(c: &mut Tx<'_>, id: &str, until: i64) -> crate::Result<bool> {
    let Some(desk) = c.desk().map(str::to_owned) else {
        return Ok(true);
    };
    let renewed = c.execute(
        "UPDATE jobs SET leased_until = ?3 WHERE id = ?1 AND leased_by = ?2 AND state = 'queued'",
        &[&id, &desk, &until],
    )?;
    Ok(renewed == 1)
}
