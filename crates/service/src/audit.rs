//! The audit log: who did what. Each entry is written in the transaction of the change it
//! records (a change that rolls back leaves no entry), for the caller of the request: the signed-in
//! operator, or the integration key. The API sets the caller around each service call
//! (`as_caller`) on the thread that runs it, so the service's signatures stay about the work; the
//! desk's own work (a job, a retry by itself) has no caller and is written as the desk's.

use crate::keys::Env;
use crate::Service;
use packdesk_model::people::{AuditEntry, AuditList};
use packdesk_model::status::{KeyScope, Role};
use packdesk_model::ServiceError;
use packdesk_store::audit as table;
use packdesk_store::audit::{AuditFilter, AuditRow};
use packdesk_store::db::Tx;
use serde_json::Value;
use std::cell::RefCell;

/// Who a request is: an operator's session or an integration key. Kept with an async job, which
/// runs as the caller that asked for it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Caller {
    /// In the log: the operator's name, or `live key` / `sandbox key`.
    pub actor: String,
    pub operator_id: Option<String>,
    pub role: Role,
    pub env: Env,
    pub via: Via,
}

/// How a caller proved who it is.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Via {
    /// An operator's session of the desk UI: its role decides.
    Session,
    /// An environment's own key (`live key`, `sandbox key`): an admin of its environment.
    EnvironmentKey,
    /// A named integration key: an admin of its environment within its scopes.
    NamedKey { id: String, scopes: Vec<KeyScope> },
}

thread_local! {
    static CALLER: RefCell<Option<Caller>> = const { RefCell::new(None) };
}

/// Puts the caller back as it was when `f` ends, even by a panic.
struct Restore(Option<Caller>);

impl Drop for Restore {
    fn drop(&mut self) {
        let before = self.0.take();
        CALLER.with(|c| *c.borrow_mut() = before);
    }
}

/// Runs `f` (a service call) as `caller`.
pub fn as_caller<T>(caller: Option<Caller>, f: impl FnOnce() -> T) -> T {
    let _restore = Restore(CALLER.with(|c| c.replace(caller)));
    f()
}

/// The caller of the service call running on this thread (none: the desk's own work).
pub fn caller() -> Option<Caller> {
    CALLER.with(|c| c.borrow().clone())
}

/// Who works now, as the log names them: the operator, the key, or `desk` (its own work).
pub fn actor() -> String {
    caller().map_or_else(|| DESK_ACTOR.to_string(), |c| c.actor)
}

/// The actor of the desk's own work (a job, a retry by itself).
pub const DESK_ACTOR: &str = "desk";

/// The most entries one page holds.
const PAGE_MAX: i64 = 500;

fn entry(r: AuditRow) -> AuditEntry {
    AuditEntry {
        id: r.id,
        at: crate::clock::iso_micros(r.at),
        desk: r.desk,
        environment: r.env,
        actor: r.actor,
        operator_id: r.operator_id,
        action: r.action,
        object_id: r.object_id,
        result: r.result,
        detail: serde_json::from_str(&r.detail).unwrap_or(Value::Null),
    }
}

/// `GET /desk/audit`'s query.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct AuditQuery {
    pub operator: Option<String>,
    pub action: Option<String>,
    pub object_id: Option<String>,
    /// ISO 8601 date or time (a date: from its start).
    pub from: Option<String>,
    /// ISO 8601 date or time (a date: to its end).
    pub to: Option<String>,
    pub limit: Option<String>,
    pub next_token: Option<String>,
}

/// A date (`2026-11-26`) or a time (`2026-11-26T08:00:00Z`) as microseconds; a date is its start,
/// or with `end` its last microsecond.
fn instant(path: &str, s: &str, end: bool) -> Result<i64, ServiceError> {
    if let Ok(d) = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        let t = d.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc().timestamp_micros();
        return Ok(if end { t + 86_400_000_000 - 1 } else { t });
    }
    chrono::DateTime::parse_from_rfc3339(s)
        .map(|t| t.timestamp_micros())
        .map_err(|_| ServiceError::invalid(path, "a date (2026-11-26) or a time (2026-11-26T08:00:00Z)"))
}

impl Service {
    /// The desk's name in the log: its name on the shared database, else `this desk`.
    pub(crate) fn desk_name(&self) -> String {
        match &self.store {
            packdesk_store::db::Db::Postgres { desk, .. } => desk.clone(),
            _ => "this desk".into(),
        }
    }

    /// Appends an entry for the current caller in `tx` (the change's own transaction). `env`:
    /// the environment of the object (else the caller's; else live, the desk's own setup).
    pub(crate) fn audit(
        &self,
        tx: &mut Tx<'_>,
        env: Option<Env>,
        action: &str,
        object_id: Option<&str>,
        detail: Value,
    ) -> Result<(), ServiceError> {
        let entry = self.audit_row(caller().as_ref(), env, action, object_id, "ok", detail);
        self.write_audit(tx, entry)
    }

    /// Appends `entry` (made by `audit_row`) in `tx`.
    pub(crate) fn write_audit(&self, tx: &mut Tx<'_>, entry: AuditRow) -> Result<(), ServiceError> {
        Ok(table::insert(tx, &entry)?)
    }

    /// An entry for `who` (none: the desk) with its result, for `write_audit` or for a write
    /// that carries it (a label's own, `labels::write_made`).
    pub(crate) fn audit_row(
        &self,
        who: Option<&Caller>,
        env: Option<Env>,
        action: &str,
        object_id: Option<&str>,
        result: &str,
        detail: Value,
    ) -> AuditRow {
        AuditRow {
            id: uuid::Uuid::new_v4().to_string(),
            at: self.now_us(),
            desk: self.desk_name(),
            env: env.or(who.map(|c| c.env)).unwrap_or(Env::Live),
            actor: who.map_or_else(|| DESK_ACTOR.to_string(), |c| c.actor.clone()),
            operator_id: who.and_then(|c| c.operator_id.clone()),
            action: action.to_string(),
            object_id: object_id.map(str::to_string),
            result: result.to_string(),
            detail: detail.to_string(),
        }
    }

    /// The log, newest first, filtered.
    pub fn list_audit(&self, q: &AuditQuery) -> Result<AuditList, ServiceError> {
        let limit = match q.limit.as_deref() {
            None => 100,
            Some(l) => l
                .parse::<i64>()
                .ok()
                .filter(|n| (1..=PAGE_MAX).contains(n))
                .ok_or_else(|| ServiceError::invalid("limit", format!("a whole number 1..{PAGE_MAX}")))?,
        };
        let after = match q.next_token.as_deref() {
            None => None,
            Some(t) => Some(
                t.split_once(':')
                    .and_then(|(at, id)| Some((at.parse::<i64>().ok()?, id.to_string())))
                    .ok_or_else(|| ServiceError::invalid("next_token", "the next_token of the page before"))?,
            ),
        };
        let f = AuditFilter {
            operator_id: q.operator.clone(),
            action: q.action.clone(),
            object_id: q.object_id.clone(),
            from: q.from.as_deref().map(|s| instant("from", s, false)).transpose()?,
            to: q.to.as_deref().map(|s| instant("to", s, true)).transpose()?,
            after,
            limit: limit + 1,
        };
        let mut rows = self.store.read(|c| table::list(c, &f))?;
        let more = rows.len() as i64 > limit;
        rows.truncate(limit as usize);
        let next_token = more
            .then(|| rows.last().map(|r| format!("{}:{}", r.at, r.id)))
            .flatten();
        Ok(AuditList {
            entries: rows.into_iter().map(entry).collect(),
            next_token,
        })
    }

    /// The log as CSV (RFC 4180), newest first: what `list_audit` finds, every page.
    pub fn audit_csv(&self, q: &AuditQuery) -> Result<String, ServiceError> {
        let mut q = q.clone();
        q.limit = Some(PAGE_MAX.to_string());
        use packdesk_documents::csv::{push_header, push_row, Cell};
        let mut out = String::new();
        push_header(
            &mut out,
            &[
                "time",
                "desk",
                "environment",
                "actor",
                "operator_id",
                "action",
                "object_id",
                "result",
                "detail",
            ],
        );
        loop {
            let page = self.list_audit(&q)?;
            for e in &page.entries {
                let detail = e.detail.to_string();
                push_row(
                    &mut out,
                    &[
                        Cell::Text(&e.at),
                        Cell::Text(&e.desk),
                        Cell::Text(e.environment.as_str()),
                        Cell::Text(&e.actor),
                        Cell::Text(e.operator_id.as_deref().unwrap_or("")),
                        Cell::Text(&e.action),
                        Cell::Text(e.object_id.as_deref().unwrap_or("")),
                        Cell::Text(&e.result),
                        Cell::Text(&detail),
                    ],
                );
            }
            match page.next_token {
                Some(t) => q.next_token = Some(t),
                None => return Ok(out),
            }
        }
    }
}
