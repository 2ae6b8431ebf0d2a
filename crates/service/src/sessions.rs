//! Sessions of the desk UI. An operator signs in with the badge's code (and the PIN when they have
//! one) and gets a random token the UI sends as `Authorization: Bearer`; with sign-in off the
//! desk's page gets a session of the desk itself, an admin. Tokens live in memory only: a
//! restart, a sign-out or the desk's idle time signs everyone out. Five wrong PINs in a row lock
//! the operator out for five minutes.

use crate::audit::Caller;
use crate::keys::Env;
use crate::Service;
use packdesk_model::people::{OperatorRef, SignInRequest, SignedIn};
use packdesk_model::status::{Language, Role};
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::operators as table;
use serde_json::json;
use std::collections::HashMap;
use std::sync::Mutex;

const MINUTE_US: i64 = 60_000_000;
/// Wrong PINs in a row that lock an operator out, and for how long.
const PIN_TRIES: i64 = 5;
const LOCK_US: i64 = 5 * MINUTE_US;
/// The desk's own session (sign-in off) lasts while its page is open: a day without a call ends it.
const DESK_IDLE_US: i64 = 24 * 60 * MINUTE_US;

/// The id of the desk's own session "operator" (sign-in off): an admin, as whoever sits at a desk
/// without sign-in may change it.
pub const DESK_OPERATOR: &str = "desk";

struct Session {
    operator: OperatorRef,
    env: Env,
    last_seen: i64,
    idle_us: i64,
    /// When the operator's row was last read: on a shared database another desk may deactivate,
    /// demote or delete them.
    checked_at: i64,
}

/// How long a session trusts what it read of its operator.
const RECHECK_US: i64 = 30_000_000;

/// The open sessions, by token.
#[derive(Default)]
pub(crate) struct Sessions {
    open: Mutex<HashMap<String, Session>>,
    /// One sign-in at a time on this desk: the lock-out is checked, the PIN verified and a wrong
    /// one counted as one step, so guesses sent at once count each.
    signing_in: Mutex<()>,
}

impl Sessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A new token: 256 random bits, hex.
fn new_token() -> String {
    hex::encode(crate::vault::random_bytes::<32>())
}

fn caller_of(s: &Session) -> Caller {
    Caller {
        actor: s.operator.name.clone(),
        operator_id: Some(s.operator.id.clone()).filter(|id| id != DESK_OPERATOR),
        role: s.operator.role,
        env: s.env,
        via: crate::audit::Via::Session,
    }
}

fn refused(path: &str, info: impl Into<String>) -> ServiceError {
    ServiceError::at(ErrorCode::InvalidApiKey, path, info)
}

impl Service {
    /// Whether operators must sign in at this desk.
    pub fn sign_in_required(&self) -> Result<bool, ServiceError> {
        Ok(self.desk_settings()?.require_sign_in)
    }

    fn open_session(&self, operator: OperatorRef, env: Env, idle_us: i64) -> SignedIn {
        let token = new_token();
        let now = self.now_us();
        let mut sessions = self.sessions.lock();
        // Sessions idle past their time go as a new one opens (a page that was closed never
        // says so).
        sessions.retain(|_, s| now - s.last_seen <= s.idle_us);
        sessions.insert(
            token.clone(),
            Session {
                operator: operator.clone(),
                env,
                last_seen: now,
                idle_us,
                checked_at: now,
            },
        );
        drop(sessions);
        SignedIn {
            token,
            operator,
            environment: env,
        }
    }

    /// The desk's own session, when sign-in is off: an admin named after the desk.
    pub fn desk_session(&self, env: Env) -> Result<SignedIn, ServiceError> {
        if self.sign_in_required()? {
            return Err(refused("", "operators sign in at this desk: scan your badge"));
        }
        let desk = OperatorRef {
            id: DESK_OPERATOR.into(),
            name: "Desk".into(),
            role: Role::Admin,
            language: None,
        };
        Ok(self.open_session(desk, env, DESK_IDLE_US))
    }

    /// Signs an operator in by the badge's code and, when they have one, the PIN.
    pub fn sign_in(&self, req: &SignInRequest, env: Env) -> Result<SignedIn, ServiceError> {
        let _one_at_a_time = self.sessions.signing_in.lock().unwrap_or_else(|p| p.into_inner());
        let now = self.now_us();
        let code = req.code.trim();
        let row = self
            .store
            .read(|c| table::by_code(c, code))?
            .ok_or_else(|| refused("code", "no operator has this badge: ask a supervisor to add it"))?;
        if !row.active {
            return Err(refused("code", format!("{} is not active: ask an admin", row.name)));
        }
        if let Some(until) = row.locked_until.filter(|t| *t > now) {
            let minutes = ((until - now) + MINUTE_US - 1) / MINUTE_US;
            return Err(refused(
                "pin",
                format!(
                    "{} is locked after {PIN_TRIES} wrong PINs: try again in {minutes} min, or ask a supervisor",
                    row.name
                ),
            ));
        }
        let who = Caller {
            actor: row.name.clone(),
            operator_id: Some(row.id.clone()),
            role: row.role,
            env,
            via: crate::audit::Via::Session,
        };
        if let Some(hash) = &row.pin_hash {
            let Some(pin) = req.pin.as_deref().filter(|p| !p.is_empty()) else {
                return Err(refused("pin", format!("{}: enter your PIN", row.name)));
            };
            if !crate::operators::pin_matches(pin, hash) {
                let failed = self.store.write(|tx| {
                    // Deleted meanwhile: nothing to count.
                    let Some(mut r) = table::get(tx, &row.id)? else {
                        return Ok(false);
                    };
                    r.failed_pins += 1;
                    let locked = r.failed_pins >= PIN_TRIES;
                    if locked {
                        r.failed_pins = 0;
                        r.locked_until = Some(now + LOCK_US);
                    }
                    table::put(tx, &r)?;
                    let action = if locked { "operator.locked" } else { "operator.sign_in" };
                    self.write_audit(
                        tx,
                        self.audit_row(Some(&who), Some(env), action, Some(&row.id), "wrong PIN", json!({})),
                    )?;
                    Ok::<_, ServiceError>(locked)
                })?;
                return Err(refused(
                    "pin",
                    match failed {
                        true => format!("wrong PIN: {} is locked for 5 minutes", row.name),
                        false => "wrong PIN: try again".to_string(),
                    },
                ));
            }
        }
        let idle = i64::from(self.desk_settings()?.idle_sign_out_minutes.max(1)) * MINUTE_US;
        self.store.write(|tx| {
            if row.failed_pins > 0 || row.locked_until.is_some() {
                table::clear_failures(tx, &row.id)?;
            }
            self.write_audit(
                tx,
                self.audit_row(
                    Some(&who),
                    Some(env),
                    "operator.sign_in",
                    Some(&row.id),
                    "ok",
                    json!({}),
                ),
            )
        })?;
        let operator = OperatorRef {
            language: row.language.as_deref().and_then(Language::of_tag),
            id: row.id,
            name: row.name,
            role: row.role,
        };
        Ok(self.open_session(operator, env, idle))
    }

    /// The session of `token`, when it is open and has not been idle too long (this call counts
    /// as activity). Every 30 s it reads its operator again: call it off the async threads.
    pub fn session(&self, token: &str) -> Option<Caller> {
        let now = self.now_us();
        let mut sessions = self.sessions.lock();
        let s = sessions.get_mut(token)?;
        if now - s.last_seen > s.idle_us {
            let gone = sessions.remove(token)?;
            drop(sessions);
            let _ = self.audit_sign_out(&gone, "idle");
            return None;
        }
        s.last_seen = now;
        let stale = s.operator.id != DESK_OPERATOR && now - s.checked_at > RECHECK_US;
        let (operator, caller) = (s.operator.clone(), caller_of(s));
        drop(sessions);
        if stale {
            // One read in 30 s of a session (not one a call): deactivated, demoted or deleted at
            // any desk, the operator signs in again.
            let row = match self.store.read(|c| table::get(c, &operator.id)) {
                Ok(row) => row,
                // The database unreachable: the session goes on, checked again in 30 s.
                Err(_) => {
                    if let Some(s) = self.sessions.lock().get_mut(token) {
                        s.checked_at = now;
                    }
                    return Some(caller);
                }
            };
            let still = row.is_some_and(|r| r.active && r.role == operator.role);
            let mut sessions = self.sessions.lock();
            if !still {
                sessions.remove(token);
                return None;
            }
            if let Some(s) = sessions.get_mut(token) {
                s.checked_at = now;
            }
        }
        Some(caller)
    }

    /// The session's answer again (a page reloaded with its token).
    pub fn session_answer(&self, token: &str) -> Option<SignedIn> {
        self.session(token)?;
        let sessions = self.sessions.lock();
        let s = sessions.get(token)?;
        Some(SignedIn {
            token: token.to_string(),
            operator: s.operator.clone(),
            environment: s.env,
        })
    }

    /// The log's entry of a session that ended (`result`: how).
    fn audit_sign_out(&self, gone: &Session, result: &str) -> Result<(), ServiceError> {
        let who = caller_of(gone);
        self.store.write(|tx| {
            self.write_audit(
                tx,
                self.audit_row(
                    Some(&who),
                    Some(gone.env),
                    "operator.sign_out",
                    who.operator_id.as_deref(),
                    result,
                    json!({}),
                ),
            )
        })
    }

    pub fn sign_out(&self, token: &str) -> Result<(), ServiceError> {
        let Some(gone) = self.sessions.lock().remove(token) else {
            return Ok(());
        };
        if gone.operator.id != DESK_OPERATOR {
            self.audit_sign_out(&gone, "ok")?;
        }
        Ok(())
    }

    /// Switches a session between sandbox and live (a supervisor's action).
    pub fn set_session_environment(&self, token: &str, env: Env) -> Result<SignedIn, ServiceError> {
        let who = self
            .session(token)
            .ok_or_else(|| refused("", "the session has ended: sign in again"))?;
        if !who.role.may(Role::Supervisor) {
            return Err(ServiceError::at(
                ErrorCode::Forbidden,
                "environment",
                format!(
                    "only {} may switch between sandbox and live",
                    Role::Supervisor.who_may()
                ),
            ));
        }
        if let Some(s) = self.sessions.lock().get_mut(token) {
            s.env = env;
        }
        self.store.write(|tx| {
            self.write_audit(
                tx,
                self.audit_row(
                    Some(&who),
                    Some(env),
                    "desk.environment",
                    None,
                    "ok",
                    json!({"environment": env}),
                ),
            )
        })?;
        self.session_answer(token)
            .ok_or_else(|| refused("", "the session has ended: sign in again"))
    }

    /// Ends every session of an operator (deleted, deactivated, demoted: they sign in again).
    pub(crate) fn end_sessions_of(&self, operator_id: &str) {
        self.sessions.lock().retain(|_, s| s.operator.id != operator_id);
    }
}
