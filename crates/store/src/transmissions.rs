//! The transmission of each manifest's data file to its carrier (one row a manifest whose account
//! has a transport), and every attempt made. The row is written in the close-out's transaction, so
//! a manifest made is a manifest sent, whatever happens to the desk after.
//!
//! A desk claims a due transmission with a lease (`lease_until`, `leased_by`) before it sends: on
//! a shared database two desks never send one file at the same time, and a desk that died while
//! sending leaves a lease that runs out (or that it lets go of when it starts again).

use crate::db::Tx;
use crate::sql::{table_row, TableRow};
use packdesk_model::status::{Env, TransmissionStatus, TransportKind};

table_row! {
#[derive(Debug, Clone, PartialEq)]
pub struct TransmissionRow in "transmissions" {
    pub manifest_id: String,
    pub env: Env,
    pub account_id: String,
    /// The data file (files table).
    pub file_id: String,
    /// Its name at the carrier, fixed when the manifest is made.
    pub file_name: String,
    pub status: TransmissionStatus,
    pub attempts: i64,
    /// Failed attempts since the last success or "Send again": the k of the delay 30 s x 2^k.
    pub round_failures: i64,
    pub last_error: Option<String>,
    /// When it is due (none: sent, or given up).
    pub next_attempt_at: Option<i64>,
    /// After this no attempt is made by itself (24 hours after the manifest or "Send again").
    pub give_up_at: i64,
    pub sent_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}
}

const COLS: &str = TransmissionRow::COLUMNS;

pub fn insert(c: &mut Tx<'_>, t: &TransmissionRow) -> crate::Result<()> {
    c.insert(t)?;
    Ok(())
}

/// The state after this desk's attempt; lets go of its lease. False (nothing written) when this
/// desk no longer holds the lease: another desk or "Send again" took it over, and its outcome is
/// the one that counts.
pub fn finish(c: &mut Tx<'_>, t: &TransmissionRow) -> crate::Result<bool> {
    let desk = holder(c);
    Ok(c.execute(
        "UPDATE transmissions SET status = ?2, attempts = ?3, round_failures = ?4, last_error = ?5,
         next_attempt_at = ?6, give_up_at = ?7, sent_at = ?8, updated_at = ?9, lease_until = NULL, leased_by = NULL
         WHERE manifest_id = ?1 AND leased_by = ?10",
        &[
            &t.manifest_id,
            &t.status,
            &t.attempts,
            &t.round_failures,
            &t.last_error,
            &t.next_attempt_at,
            &t.give_up_at,
            &t.sent_at,
            &t.updated_at,
            &desk,
        ],
    )? == 1)
}

/// "Send again": due now, with another 24 hours, unless a desk is sending it at this moment
/// (false: that sending goes on).
pub fn reschedule(c: &mut Tx<'_>, manifest_id: &str, now: i64, give_up_at: i64) -> crate::Result<bool> {
    Ok(c.execute(
        "UPDATE transmissions SET next_attempt_at = ?2, round_failures = 0, give_up_at = ?3, updated_at = ?2
         WHERE manifest_id = ?1 AND (lease_until IS NULL OR lease_until < ?2)",
        &[&manifest_id, &now, &give_up_at],
    )? == 1)
}

/// An account whose transport is taken away: what it had not sent is no longer expected to go.
pub fn not_required_for(c: &mut Tx<'_>, account_id: &str, now: i64) -> crate::Result<usize> {
    c.execute(
        "UPDATE transmissions SET status = 'not_required', next_attempt_at = NULL, updated_at = ?2
         WHERE account_id = ?1 AND status IN ('pending', 'failed')",
        &[&account_id, &now],
    )
}

pub fn get(c: &mut Tx<'_>, env: Env, manifest_id: &str) -> crate::Result<Option<TransmissionRow>> {
    c.row(
        &format!("SELECT {COLS} FROM transmissions WHERE manifest_id = ?1 AND env = ?2"),
        &[&manifest_id, &env],
    )
}

/// How many data files of the account have names starting with `prefix` (the day's sequence).
pub fn count_named(c: &mut Tx<'_>, account_id: &str, prefix: &str) -> crate::Result<i64> {
    c.value(
        "SELECT COUNT(*) FROM transmissions WHERE account_id = ?1 AND substr(file_name, 1, length(CAST(?2 AS TEXT))) = CAST(?2 AS TEXT)",
        &[&account_id, &prefix],
    )
    .map(|n: Option<i64>| n.unwrap_or(0))
}

/// The transmissions due at `now` that no desk holds, the most overdue first.
pub fn due(c: &mut Tx<'_>, now: i64, limit: usize) -> crate::Result<Vec<TransmissionRow>> {
    c.rows(
        &format!(
            "SELECT {COLS} FROM transmissions WHERE next_attempt_at <= ?1 AND (lease_until IS NULL OR lease_until < ?1)
             ORDER BY next_attempt_at LIMIT ?2"
        ),
        &[&now, &(limit as i64)],
    )
}

/// Who holds a lease: the desk's name on a shared database, this desk on its own file.
fn holder(c: &Tx<'_>) -> String {
    c.desk().unwrap_or("this desk").to_string()
}

/// Takes a due transmission for this desk until `until`; false when another desk has it.
pub fn claim(c: &mut Tx<'_>, manifest_id: &str, now: i64, until: i64) -> crate::Result<bool> {
    let desk = holder(c);
    Ok(c.execute(
        "UPDATE transmissions SET lease_until = ?3, leased_by = ?2
         WHERE manifest_id = ?1 AND next_attempt_at <= ?4 AND (lease_until IS NULL OR lease_until < ?4)",
        &[&manifest_id, &desk, &until, &now],
    )? == 1)
}

/// A desk starting again lets go of what it held when it stopped (it is sent again at once).
pub fn release_own_leases(c: &mut Tx<'_>) -> crate::Result<usize> {
    let desk = holder(c);
    c.execute(
        "UPDATE transmissions SET lease_until = NULL, leased_by = NULL WHERE leased_by = ?1",
        &[&desk],
    )
}

/// Transmissions whose file has not reached the carrier: failed ones (still retried or given up).
pub fn failing(c: &mut Tx<'_>, limit: usize) -> crate::Result<Vec<TransmissionRow>> {
    c.rows(
        &format!("SELECT {COLS} FROM transmissions WHERE status = 'failed' ORDER BY created_at DESC LIMIT ?1"),
        &[&(limit as i64)],
    )
}

table_row! {
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptRow in "transmission_attempts" {
    pub manifest_id: String,
    /// 1 for the first.
    pub attempt: i64,
    pub at: i64,
    pub transport: TransportKind,
    pub error: Option<String>,
    pub duration_us: i64,
}
}

pub fn insert_attempt(c: &mut Tx<'_>, a: &AttemptRow) -> crate::Result<()> {
    c.insert(a)?;
    Ok(())
}

pub fn attempts(c: &mut Tx<'_>, manifest_id: &str) -> crate::Result<Vec<AttemptRow>> {
    c.rows(
        &format!(
            "SELECT {} FROM transmission_attempts
         WHERE manifest_id = ?1 ORDER BY attempt",
            AttemptRow::COLUMNS
        ),
        &[&manifest_id],
    )
}
