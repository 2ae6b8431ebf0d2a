//! The operators of the desk: who they are, their badge code, PIN (an Argon2 hash) and role. On a
//! shared database every desk has the same operators. The last active admin cannot be deleted,
//! demoted or deactivated: someone must be able to change the desk.

use crate::Service;
use packdesk_model::error::Problems;
use packdesk_model::people::{Operator, OperatorList, OperatorRequest};
use packdesk_model::record::Deleted;
use packdesk_model::status::{Language, Role};
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::operators as table;
use packdesk_store::operators::OperatorRow;
use serde_json::json;

/// A PIN is 4 to 8 digits.
fn check_pin(p: &mut Problems, pin: &str) {
    if !(4..=8).contains(&pin.len()) || !pin.bytes().all(|b| b.is_ascii_digit()) {
        p.invalid("pin", "4 to 8 digits");
    }
}

/// The PIN's Argon2 hash (a PHC string with its own random salt).
pub(crate) fn hash_pin(pin: &str) -> Result<String, ServiceError> {
    use argon2::password_hash::{PasswordHasher, SaltString};
    let salt = SaltString::encode_b64(&crate::vault::random_bytes::<16>()).map_err(ServiceError::internal)?;
    argon2::Argon2::default()
        .hash_password(pin.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(ServiceError::internal)
}

/// Whether `pin` is the one `hash` was made of.
pub(crate) fn pin_matches(pin: &str, hash: &str) -> bool {
    use argon2::password_hash::{PasswordHash, PasswordVerifier};
    PasswordHash::new(hash).is_ok_and(|h| argon2::Argon2::default().verify_password(pin.as_bytes(), &h).is_ok())
}

fn not_found(id: &str) -> ServiceError {
    ServiceError::at(ErrorCode::ItemNotFound, "id", format!("no operator {id}"))
}

impl Service {
    /// An operator as the audit log keeps it: without the badge's code (a supervisor reads the
    /// log; a code is what signs one in).
    fn audited(&self, o: &OperatorRow) -> serde_json::Value {
        let mut v = serde_json::to_value(self.operator_record(o)).unwrap_or_default();
        if let Some(m) = v.as_object_mut() {
            m.remove("code");
        }
        v
    }

    pub(crate) fn operator_record(&self, o: &OperatorRow) -> Operator {
        let now = self.now_us();
        Operator {
            id: o.id.clone(),
            name: o.name.clone(),
            code: o.code.clone(),
            role: o.role,
            active: o.active,
            language: o.language.clone(),
            pin_set: o.pin_hash.is_some(),
            locked_until: o.locked_until.filter(|t| *t > now).map(crate::clock::iso_micros),
            created_at: crate::clock::iso_micros(o.created_at),
            updated_at: crate::clock::iso_micros(o.updated_at),
        }
    }

    pub fn list_operators(&self) -> Result<OperatorList, ServiceError> {
        let rows = self.store.read(table::list)?;
        Ok(OperatorList {
            operators: rows.iter().map(|o| self.operator_record(o)).collect(),
        })
    }

    pub fn get_operator(&self, id: &str) -> Result<Operator, ServiceError> {
        let row = self.store.read(|c| table::get(c, id))?.ok_or_else(|| not_found(id))?;
        Ok(self.operator_record(&row))
    }

    pub fn create_operator(&self, req: OperatorRequest) -> Result<Operator, ServiceError> {
        let now = self.now_us();
        let mut p = Problems::default();
        if req.name.is_none() {
            p.invalid("name", "the operator's name is needed");
        }
        if req.code.is_none() {
            p.invalid(
                "code",
                "the operator's badge code is needed (scan the badge into the field)",
            );
        }
        if req.role.is_none() {
            p.invalid("role", "packer, supervisor or admin");
        }
        p.into_result()?;
        let row = OperatorRow {
            id: uuid::Uuid::new_v4().to_string(),
            name: String::new(),
            code: String::new(),
            pin_hash: None,
            role: Role::Packer,
            active: true,
            language: None,
            failed_pins: 0,
            locked_until: None,
            created_at: now,
            updated_at: now,
        };
        self.save_operator(row, req, true)
    }

    pub fn update_operator(&self, id: &str, req: OperatorRequest) -> Result<Operator, ServiceError> {
        let row = self.store.read(|c| table::get(c, id))?.ok_or_else(|| not_found(id))?;
        self.save_operator(row, req, false)
    }

    /// Applies a request to an operator's row and writes it, checked; audited with what changed
    /// (a PIN only as set or taken away).
    fn save_operator(&self, mut row: OperatorRow, req: OperatorRequest, new: bool) -> Result<Operator, ServiceError> {
        let before = (!new).then(|| self.operator_record(&row));
        let before_audited = (!new).then(|| self.audited(&row));
        let code_before = row.code.clone();
        let mut p = Problems::default();
        if let Some(name) = &req.name {
            let n = name.trim().chars().count();
            if !(1..=100).contains(&n) {
                p.invalid("name", "1 to 100 characters");
            }
            row.name = name.trim().to_string();
        }
        if let Some(code) = &req.code {
            let c = code.trim();
            if c.is_empty() || c.chars().count() > 64 || c.chars().any(char::is_control) {
                p.invalid("code", "the badge's code: 1 to 64 characters, as the scanner reads it");
            }
            row.code = c.to_string();
        }
        match req.pin.as_deref() {
            Some("") => row.pin_hash = None,
            Some(pin) => {
                check_pin(&mut p, pin);
                if p.is_empty() {
                    row.pin_hash = Some(hash_pin(pin)?);
                }
            }
            None => {}
        }
        if let Some(role) = req.role {
            row.role = role;
        }
        if let Some(active) = req.active {
            row.active = active;
            if active {
                row.failed_pins = 0;
                row.locked_until = None;
            }
        }
        if let Some(lang) = &req.language {
            let ok = lang.is_empty()
                || (lang.len() <= 16
                    && lang
                        .split('-')
                        .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric()))
                    && Language::of_tag(lang).is_some());
            if !ok {
                p.invalid(
                    "language",
                    format!(
                        "one of the desk's languages ({}), such as de or pt-BR (empty: the desk's)",
                        Language::NAMES.join(", ")
                    ),
                );
            }
            row.language = Some(lang.clone()).filter(|l| !l.is_empty());
        }
        p.into_result()?;
        row.updated_at = self.now_us();
        let after = self.operator_record(&row);
        self.store.write(|tx| {
            let still_admin = row.role == Role::Admin && row.active;
            if !new && !still_admin && table::other_active_admins(tx, &row.id)? == 0 {
                let was_admin = before.as_ref().is_some_and(|b| b.role == Role::Admin && b.active);
                if was_admin {
                    return Err(ServiceError::invalid(
                        "role",
                        "this is the last active admin: make another operator an admin first",
                    ));
                }
            }
            if !table::put(tx, &row)? {
                return Err(ServiceError::invalid(
                    "code",
                    "another operator has this badge code: scan this operator's own badge",
                ));
            }
            let action = if new { "operator.created" } else { "operator.changed" };
            // Whoever changed role or left must sign in again as what they are now.
            if !new {
                self.end_sessions_of(&row.id);
            }
            self.audit(
                tx,
                None,
                action,
                Some(&row.id),
                json!({
                    "before": before_audited,
                    "after": self.audited(&row),
                    "code_changed": !new && code_before != row.code,
                }),
            )?;
            Ok(())
        })?;
        Ok(after)
    }

    /// Deletes an operator (what they did stays in the audit log, under their name).
    pub fn delete_operator(&self, id: &str) -> Result<Deleted, ServiceError> {
        self.store.write(|tx| {
            let row = table::get(tx, id)?.ok_or_else(|| not_found(id))?;
            if row.role == Role::Admin && row.active && table::other_active_admins(tx, id)? == 0 {
                return Err(ServiceError::invalid(
                    "id",
                    "this is the last active admin: make another operator an admin first",
                ));
            }
            table::delete(tx, id)?;
            self.end_sessions_of(id);
            self.audit(
                tx,
                None,
                "operator.deleted",
                Some(id),
                json!({"before": self.audited(&row)}),
            )?;
            Ok(Deleted { id: id.to_string() })
        })
    }

    /// Whether an active admin exists (sign-in can be required only then).
    pub(crate) fn has_active_admin(&self) -> Result<bool, ServiceError> {
        Ok(self.store.read(|c| table::other_active_admins(c, ""))? > 0)
    }
}
