//! Webhook settings (one URL and an on/off switch per environment), deliveries (one per completed
//! async job while webhooks are on) and every attempt made to deliver them.
//!
//! In the shared database of many desks, one desk sends them at a time: the one holding the
//! dispatcher's session lock (`PgStore::try_session_lock` with `DISPATCHER_LOCK`), which goes
//! with its connection when the desk dies.

use crate::db::Tx;
use crate::paging::Cursor;
use crate::sql::{table_row, FromRow, Row, TableRow};
use packdesk_model::status::Env;
use packdesk_model::status::{DeliveryStatus, WebhookEvent};

/// The session lock of the desk that sends the webhooks (shared database only).
pub const DISPATCHER_LOCK: i64 = 0x7061_636b_7765_6268; // "packwebh"

#[derive(Debug, Clone, PartialEq)]
pub struct WebhookSetting {
    pub url: String,
    pub enabled: bool,
    pub updated_at: i64,
}

impl FromRow for WebhookSetting {
    fn from_row(r: &Row<'_>) -> crate::Result<Self> {
        Ok(WebhookSetting {
            url: r.get(0)?,
            enabled: r.get(1)?,
            updated_at: r.get(2)?,
        })
    }
}

pub fn setting(c: &mut Tx<'_>, env: Env) -> crate::Result<Option<WebhookSetting>> {
    c.row(
        "SELECT url, enabled, updated_at FROM webhook_settings WHERE env = ?1",
        &[&env],
    )
}

pub fn set_setting(c: &mut Tx<'_>, env: Env, s: &WebhookSetting) -> crate::Result<()> {
    c.execute(
        "INSERT INTO webhook_settings (env, url, enabled, updated_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (env) DO UPDATE SET url = excluded.url, enabled = excluded.enabled, updated_at = excluded.updated_at",
        &[&env, &s.url, &s.enabled, &s.updated_at],
    )?;
    Ok(())
}

table_row! {
#[derive(Debug, Clone)]
pub struct DeliveryRow in "webhook_deliveries" {
    pub id: String,
    pub env: Env,
    pub event: WebhookEvent,
    pub record_id: String,
    pub url: String,
    /// The JSON body POSTed: {event, date_time, meta, data}.
    pub body: String,
    pub status: DeliveryStatus,
    /// Attempts made so far (all rounds).
    pub attempts: i64,
    /// Failed attempts of the current round: the k of the retry delay 2^k x 30 s.
    pub round_failures: i64,
    pub next_attempt_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}
}

const COLS: &str = DeliveryRow::COLUMNS;

pub fn insert_delivery(c: &mut Tx<'_>, d: &DeliveryRow) -> crate::Result<()> {
    c.insert(d)?;
    Ok(())
}

pub fn get_delivery(c: &mut Tx<'_>, env: Env, id: &str) -> crate::Result<Option<DeliveryRow>> {
    c.row(
        &format!("SELECT {COLS} FROM webhook_deliveries WHERE id = ?1 AND env = ?2"),
        &[&id, &env],
    )
}

/// A pending delivery goes out only while its environment's webhook is enabled, and to the URL
/// set now (not the one it was first written for): these are the columns of a due delivery.
const DUE_COLS: &str = "d.id, d.env, d.event, d.record_id, s.url, d.body, d.status, d.attempts, d.round_failures,
     d.next_attempt_at, d.created_at, d.updated_at";
const DUE_FROM: &str = "webhook_deliveries d JOIN webhook_settings s ON s.env = d.env AND s.enabled
     WHERE d.status = 'pending'";

/// Pending deliveries due at `now` whose webhook is enabled, the most overdue first, with its URL
/// now.
pub fn due(c: &mut Tx<'_>, now: i64, limit: usize) -> crate::Result<Vec<DeliveryRow>> {
    c.rows(
        &format!(
            "SELECT {DUE_COLS} FROM {DUE_FROM} AND d.next_attempt_at <= ?1
             ORDER BY d.next_attempt_at, d.created_at LIMIT ?2"
        ),
        &[&now, &(limit as i64)],
    )
}

/// When the next pending delivery of an enabled webhook falls due (None: nothing pending).
pub fn next_due_at(c: &mut Tx<'_>) -> crate::Result<Option<i64>> {
    Ok(
        c.value::<Option<i64>>(&format!("SELECT MIN(d.next_attempt_at) FROM {DUE_FROM}"), &[])?
            .flatten(),
    )
}

/// The new state of a delivery after an attempt (or a manual resend).
pub fn update_delivery(c: &mut Tx<'_>, d: &DeliveryRow) -> crate::Result<()> {
    c.execute(
        "UPDATE webhook_deliveries SET url = ?2, status = ?3, attempts = ?4, round_failures = ?5, next_attempt_at = ?6,
         updated_at = ?7 WHERE id = ?1",
        &[
            &d.id,
            &d.url,
            &d.status,
            &d.attempts,
            &d.round_failures,
            &d.next_attempt_at,
            &d.updated_at,
        ],
    )?;
    Ok(())
}

table_row! {
#[derive(Debug, Clone)]
pub struct AttemptRow in "webhook_attempts" {
    pub delivery_id: String,
    /// 0 for the first delivery, then 1.. for retries (numbering continues over manual resends).
    pub attempt: i64,
    pub at: i64,
    pub url: String,
    pub status_code: Option<i64>,
    pub error: Option<String>,
    pub duration_us: i64,
}
}

pub fn insert_attempt(c: &mut Tx<'_>, a: &AttemptRow) -> crate::Result<()> {
    c.insert(a)?;
    Ok(())
}

pub fn attempts(c: &mut Tx<'_>, delivery_id: &str) -> crate::Result<Vec<AttemptRow>> {
    c.rows(
        &format!(
            "SELECT {} FROM webhook_attempts WHERE delivery_id = ?1 ORDER BY attempt",
            AttemptRow::COLUMNS
        ),
        &[&delivery_id],
    )
}

#[derive(Debug, Clone, Default)]
pub struct DeliveryFilter {
    pub status: Option<DeliveryStatus>,
    pub event: Option<WebhookEvent>,
    pub record_id: Option<String>,
    pub created_at_min: i64,
    pub created_at_max: i64,
}

/// `list`'s statement: environment, window (?1-?3), status, event, record, the page's start,
/// limit.
pub(crate) fn list_sql() -> String {
    format!(
        "SELECT {COLS} FROM webhook_deliveries WHERE env = ?1 AND created_at >= ?2 AND created_at <= ?3
         AND (CAST(?4 AS TEXT) IS NULL OR status = ?4) AND (CAST(?5 AS TEXT) IS NULL OR event = ?5)
         AND (CAST(?6 AS TEXT) IS NULL OR record_id = ?6)
         AND (created_at, id) < (?7, ?8) ORDER BY created_at DESC, id DESC LIMIT ?9"
    )
}

/// Newest first, `limit + 1` rows so the caller knows whether there is a next page.
pub fn list(
    c: &mut Tx<'_>,
    env: Env,
    f: &DeliveryFilter,
    limit: usize,
    after: Option<&Cursor>,
) -> crate::Result<Vec<DeliveryRow>> {
    let (t, id) = after.map(|c| (c.created_at, c.id.as_str())).unwrap_or((i64::MAX, ""));
    // An absent filter is a NULL PostgreSQL cannot type by itself: hence the casts.
    // A list with optional filters and a time window: planned for its values each time.
    c.rows_planned_each_time(
        &list_sql(),
        &[
            &env,
            &f.created_at_min,
            &crate::paging::newest(f.created_at_max, after),
            &f.status,
            &f.event,
            &f.record_id,
            &t,
            &id,
            &((limit + 1) as i64),
        ],
    )
}
