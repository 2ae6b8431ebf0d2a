//! Idempotency keys of POST requests (`Idempotency-Key` header): per environment, the hash of the
//! first request and its answer. On a shared database a retry sent to another desk finds the
//! first answer; `reserve` takes the key only when it is free and `take_over` only when it was
//! given up on, each answering whether it did, so two desks receiving the same key at once run
//! the request once.

use crate::db::Tx;
use crate::sql::{FromRow, Row};
use packdesk_model::status::Env;

#[derive(Debug, Clone, PartialEq)]
pub struct IdempotencyRow {
    pub request_hash: Vec<u8>,
    /// None while the first request runs.
    pub answer: Option<(u16, String)>,
    pub created_at: i64,
}

impl FromRow for IdempotencyRow {
    fn from_row(r: &Row<'_>) -> crate::Result<Self> {
        let status: Option<i64> = r.get(1)?;
        let body: Option<String> = r.get(2)?;
        Ok(IdempotencyRow {
            request_hash: r.get(0)?,
            answer: status.zip(body).map(|(s, b)| (s as u16, b)),
            created_at: r.get(3)?,
        })
    }
}

pub fn get(c: &mut Tx<'_>, env: Env, key: &str) -> crate::Result<Option<IdempotencyRow>> {
    c.row(
        "SELECT request_hash, http_status, response, created_at FROM idempotency_keys WHERE env = ?1 AND key = ?2",
        &[&env, &key],
    )
}

/// Takes a free key for a request about to run; false when another desk took it first (on a
/// shared database the second insert waits for the first's commit, then inserts nothing).
pub fn reserve(c: &mut Tx<'_>, env: Env, key: &str, request_hash: &[u8], now: i64) -> crate::Result<bool> {
    Ok(c.execute(
        "INSERT INTO idempotency_keys (env, key, request_hash, http_status, response, created_at) \
         VALUES (?1, ?2, ?3, NULL, NULL, ?4) ON CONFLICT (env, key) DO NOTHING",
        &[&env, &key, &request_hash, &now],
    )? == 1)
}

/// Takes over a key whose request was given up on (taken at `given_up_at`, never answered);
/// false when another desk took it over first.
pub fn take_over(
    c: &mut Tx<'_>,
    env: Env,
    key: &str,
    request_hash: &[u8],
    given_up_at: i64,
    now: i64,
) -> crate::Result<bool> {
    Ok(c.execute(
        "UPDATE idempotency_keys SET request_hash = ?3, created_at = ?5 \
         WHERE env = ?1 AND key = ?2 AND created_at = ?4 AND http_status IS NULL",
        &[&env, &key, &request_hash, &given_up_at, &now],
    )? == 1)
}

pub fn finish(c: &mut Tx<'_>, env: Env, key: &str, http_status: u16, response: &str) -> crate::Result<()> {
    c.execute(
        "UPDATE idempotency_keys SET http_status = ?3, response = ?4 WHERE env = ?1 AND key = ?2",
        &[&env, &key, &i64::from(http_status), &response],
    )?;
    Ok(())
}

/// Forgets a key whose request should be tried afresh (it failed before doing anything).
pub fn release(c: &mut Tx<'_>, env: Env, key: &str) -> crate::Result<()> {
    c.execute(
        "DELETE FROM idempotency_keys WHERE env = ?1 AND key = ?2",
        &[&env, &key],
    )?;
    Ok(())
}

/// Deletes the keys made before `before`; answers how many.
pub fn purge(c: &mut Tx<'_>, before: i64) -> crate::Result<usize> {
    c.execute("DELETE FROM idempotency_keys WHERE created_at < ?1", &[&before])
}
