//! `Idempotency-Key` on POST requests, as Stripe, EasyPost and Shippo clients send it: the same key
//! with the same request within 24 hours answers the first answer again (no second label, no second
//! tracking number); the same key with another request is refused. Keys are per environment.
//!
//! The key is taken (a row without an answer) before the request runs and given its answer after,
//! so two requests with one key never both run. A row left without an answer by a crash is taken
//! again after `STALE`.

use crate::keys::Env;
use crate::Service;
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::idempotency as table;
use sha2::{Digest, Sha256};

/// How long a key answers its first answer.
pub const TTL_US: i64 = 24 * 3600 * 1_000_000;
/// After this, a key whose request never finished (the process died) may run again.
pub const STALE_US: i64 = 120 * 1_000_000;
/// Longest key taken.
pub const MAX_KEY_LEN: usize = 255;

/// What to do with a request that carries an idempotency key.
#[derive(Debug, PartialEq, Eq)]
pub enum Claim {
    /// First time: run it, then `finish_idempotent`.
    Run,
    /// Answer this again: HTTP status and body.
    Replay(u16, String),
}

/// The key as sent: printable ASCII, 1..255 characters.
pub fn check_key(key: &str) -> Result<(), ServiceError> {
    if key.is_empty() || key.len() > MAX_KEY_LEN || !key.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        return Err(ServiceError::invalid(
            "headers.idempotency-key",
            format!("an Idempotency-Key is 1..{MAX_KEY_LEN} printable ASCII characters without spaces (a UUID, say)"),
        ));
    }
    Ok(())
}

/// What identifies a request under its key: a digest of its path and body, so a key sent again
/// with another request is refused rather than answered with the first request's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestFingerprint(Vec<u8>);

impl RequestFingerprint {
    pub fn of(path: &str, body: &[u8]) -> RequestFingerprint {
        let mut h = Sha256::new();
        h.update(path.as_bytes());
        h.update([0]);
        h.update(body);
        RequestFingerprint(h.finalize().to_vec())
    }
}

fn still_running() -> ServiceError {
    ServiceError::at(
        ErrorCode::InternalRetry,
        "headers.idempotency-key",
        "the first request with this Idempotency-Key is still running; send it again in a moment",
    )
}

impl Service {
    /// Takes `key` for the request, or says which earlier answer to give again.
    pub fn claim_idempotent(&self, env: Env, key: &str, request: &RequestFingerprint) -> Result<Claim, ServiceError> {
        check_key(key)?;
        let hash = &request.0;
        let now = self.now_us();
        self.store.write(|tx| {
            table::purge(tx, now - TTL_US)?;
            match table::get(tx, env, key)? {
                Some(row) if &row.request_hash != hash => Err(ServiceError::invalid(
                    "headers.idempotency-key",
                    "this Idempotency-Key was used with another request in the last 24 hours; send a new key for a new request",
                )),
                Some(row) => match row.answer {
                    Some((status, body)) => Ok(Claim::Replay(status, body)),
                    None if now - row.created_at < STALE_US => Err(still_running()),
                    None if table::take_over(tx, env, key, hash, row.created_at, now)? => Ok(Claim::Run),
                    // Another desk took it over meanwhile.
                    None => Err(still_running()),
                },
                None if table::reserve(tx, env, key, hash, now)? => Ok(Claim::Run),
                // Another desk took the key since it was read.
                None => Err(still_running()),
            }
        })
    }

    /// Keeps the answer of a request that ran under `key`. `keep` false (a transient failure: the
    /// request may be sent again and should run then) lets the key go instead.
    pub fn finish_idempotent(
        &self,
        env: Env,
        key: &str,
        keep: bool,
        http_status: u16,
        body: &str,
    ) -> Result<(), ServiceError> {
        self.store.write(|tx| match keep {
            true => table::finish(tx, env, key, http_status, body),
            false => table::release(tx, env, key),
        })?;
        Ok(())
    }
}
