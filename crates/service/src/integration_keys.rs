//! Named integration keys: besides each environment's own key (the desk owner's), an admin makes
//! keys for one environment with scopes (`labels`, `orders`, `read`, `all`), shown once, listed
//! with their last use, revocable. A key is found by its hash; what a scope lets a key call is the
//! API's table (`roles.rs`).
//!
//! A desk keeps the keys it has seen for a few seconds, so a call costs no database read; a key
//! revoked at another desk of a shared database stops working there within `RECHECK_US`.

use crate::audit::{Caller, Via};
use crate::Service;
use packdesk_model::error::Problems;
use packdesk_model::people::{ApiKey, ApiKeyList, ApiKeyRequest};
use packdesk_model::status::{Env, Role};
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::integration_keys as table;
use packdesk_store::integration_keys::IntegrationKeyRow;
use serde_json::json;
use std::collections::HashMap;
use std::sync::Mutex;

/// How long a desk trusts what it read of a key.
const RECHECK_US: i64 = 10_000_000;
/// A key's last use is written at most this often (a call is not a write).
const TOUCH_US: i64 = 60_000_000;
/// The most keys a desk keeps in memory (beyond it, the cache starts again).
const CACHE_MAX: usize = 1_000;

struct Seen {
    row: IntegrationKeyRow,
    read_at: i64,
    touched_at: i64,
}

/// The keys this desk has seen, by hash.
#[derive(Default)]
pub(crate) struct KeyCache(Mutex<HashMap<[u8; 32], Seen>>);

impl KeyCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Seen>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn not_found(id: &str) -> ServiceError {
    ServiceError::at(ErrorCode::ItemNotFound, "id", format!("no API key {id}"))
}

/// Whether `key` has a key's shape (`pdk_<env>_` and 48 hexadecimal digits).
pub fn shaped_like_a_key(key: &str) -> bool {
    ["pdk_live_", "pdk_sandbox_"]
        .iter()
        .filter_map(|p| key.strip_prefix(p))
        .any(|hex| hex.len() == 48 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Who calls with the key `row`: an admin of its environment within its scopes.
fn caller_of(row: &IntegrationKeyRow) -> Caller {
    Caller {
        actor: actor(&row.name),
        operator_id: None,
        role: Role::Admin,
        env: row.env,
        via: Via::NamedKey {
            id: row.id.clone(),
            scopes: row.scopes.clone(),
        },
    }
}

/// How the log and the error messages name a key's caller.
fn actor(name: &str) -> String {
    format!("{name} (key)")
}

impl Service {
    fn api_key_record(&self, r: &IntegrationKeyRow) -> ApiKey {
        ApiKey {
            id: r.id.clone(),
            name: r.name.clone(),
            environment: r.env,
            scopes: r.scopes.clone(),
            prefix: r.prefix.clone(),
            created_at: crate::clock::iso_micros(r.created_at),
            created_by: r.created_by.clone(),
            last_used_at: r.last_used_at.map(crate::clock::iso_micros),
            revoked_at: r.revoked_at.map(crate::clock::iso_micros),
            key: None,
        }
    }

    pub fn list_api_keys(&self) -> Result<ApiKeyList, ServiceError> {
        let rows = self.store.read(table::list)?;
        Ok(ApiKeyList {
            api_keys: rows.iter().map(|r| self.api_key_record(r)).collect(),
        })
    }

    pub fn get_api_key(&self, id: &str) -> Result<ApiKey, ServiceError> {
        let row = self.store.read(|c| table::get(c, id))?.ok_or_else(|| not_found(id))?;
        Ok(self.api_key_record(&row))
    }

    /// Makes a key; the answer holds the key itself, this once.
    pub fn create_api_key(&self, req: ApiKeyRequest) -> Result<ApiKey, ServiceError> {
        let name = req.name.trim().to_string();
        let mut p = Problems::default();
        if !(1..=60).contains(&name.chars().count()) || name.chars().any(char::is_control) {
            p.invalid("name", "what calls with the key, 1 to 60 characters (e.g. WMS)");
        }
        let mut scopes = req.scopes.clone();
        scopes.sort();
        scopes.dedup();
        if scopes.is_empty() {
            p.invalid("scopes", "at least one of labels, orders, read, all");
        }
        p.into_result()?;
        let key = format!(
            "pdk_{}_{}",
            req.environment.as_str(),
            hex::encode(crate::vault::random_bytes::<24>())
        );
        let now = self.now_us();
        let row = IntegrationKeyRow {
            id: uuid::Uuid::new_v4().to_string(),
            name,
            env: req.environment,
            scopes,
            prefix: key
                .chars()
                .take(format!("pdk_{}_", req.environment.as_str()).len() + 6)
                .collect(),
            key_hash: crate::keys::hash(&key).to_vec(),
            created_at: now,
            created_by: crate::audit::actor(),
            last_used_at: None,
            revoked_at: None,
        };
        let mut record = self.api_key_record(&row);
        self.store.write(|tx| {
            if table::name_taken(tx, &row.name)? {
                return Err(ServiceError::invalid(
                    "name",
                    format!(
                        "a key named {} exists: revoke it first, or choose another name",
                        row.name
                    ),
                ));
            }
            table::insert(tx, &row)?;
            self.audit(
                tx,
                Some(row.env),
                "api_key.created",
                Some(&row.id),
                json!({"after": &record}),
            )
        })?;
        record.key = Some(key);
        Ok(record)
    }

    /// Revokes a key: it opens nothing from now on (at another desk of a shared database within
    /// seconds).
    pub fn revoke_api_key(&self, id: &str) -> Result<ApiKey, ServiceError> {
        let now = self.now_us();
        let row = self.store.write(|tx| {
            let before = table::get(tx, id)?.ok_or_else(|| not_found(id))?;
            table::revoke(tx, id, now)?;
            let after = table::get(tx, id)?.ok_or_else(|| not_found(id))?;
            if before.revoked_at.is_none() {
                self.audit(
                    tx,
                    Some(after.env),
                    "api_key.revoked",
                    Some(id),
                    json!({"name": after.name}),
                )?;
            }
            Ok::<_, ServiceError>(after)
        })?;
        self.named_keys.lock().retain(|_, seen| seen.row.id != id);
        Ok(self.api_key_record(&row))
    }

    /// The caller of a named key this desk has seen lately and whose use was noted lately: found
    /// in memory, no database (the async threads may ask). None: ask `named_key_caller`.
    pub fn named_key_caller_seen(&self, key: &str) -> Option<Caller> {
        let hash = crate::keys::hash(key);
        let now = self.now_us();
        let keys = self.named_keys.lock();
        let seen = keys
            .get(&hash)
            .filter(|s| now - s.read_at < RECHECK_US && now - s.touched_at < TOUCH_US && s.row.revoked_at.is_none())?;
        Some(caller_of(&seen.row))
    }

    /// The caller a named key is, if it is one not revoked. May read the database (a key this
    /// desk has not seen lately) and note the key's use: call it off the async threads.
    pub fn named_key_caller(&self, key: &str) -> Option<Caller> {
        let hash = crate::keys::hash(key);
        let now = self.now_us();
        let known = self
            .named_keys
            .lock()
            .get(&hash)
            .filter(|seen| now - seen.read_at < RECHECK_US)
            .map(|seen| (seen.row.clone(), seen.touched_at));
        let (row, touched_at) = match known {
            Some(known) => known,
            None => {
                let row = match self.store.read(|c| table::by_hash(c, &hash)) {
                    Ok(Some(row)) => row,
                    Ok(None) => return None,
                    Err(e) => {
                        tracing::warn!(error = %e, "could not read the integration keys");
                        return None;
                    }
                };
                let touched_at = row.last_used_at.unwrap_or(i64::MIN / 2);
                let mut cache = self.named_keys.lock();
                if cache.len() >= CACHE_MAX {
                    cache.clear();
                }
                cache.insert(
                    hash,
                    Seen {
                        row: row.clone(),
                        read_at: now,
                        touched_at,
                    },
                );
                (row, touched_at)
            }
        };
        if row.revoked_at.is_some() {
            return None;
        }
        if now - touched_at >= TOUCH_US {
            if let Some(seen) = self.named_keys.lock().get_mut(&hash) {
                seen.touched_at = now;
            }
            // The last use is a note: a failing write does not refuse the call.
            if let Err(e) = self.store.write(|tx| table::touch(tx, &row.id, now)) {
                tracing::warn!(error = %e, key = %row.name, "could not note the key's use");
            }
        }
        Some(caller_of(&row))
    }

    /// The caller an environment's own key is.
    pub fn environment_key_caller(&self, key: &str) -> Option<Caller> {
        let env: Env = self.authenticate(key)?;
        Some(Caller {
            actor: format!("{} key", env.as_str()),
            operator_id: None,
            role: Role::Admin,
            env,
            via: Via::EnvironmentKey,
        })
    }
}
