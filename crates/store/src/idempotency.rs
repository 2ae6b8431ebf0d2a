//! Idempotency keys of POST requests (`Idempotency-Key` header): per environment, the hash of the
//! first request and its answer.

use rusqlite::{params, Connection, OptionalExtension};

#[derive(Debug, Clone, PartialEq)]
pub struct IdempotencyRow {
    pub request_hash: Vec<u8>,
    /// None while the first request runs.
    pub answer: Option<(u16, String)>,
    pub created_at: i64,
}

pub fn get(conn: &Connection, env: &str, key: &str) -> crate::Result<Option<IdempotencyRow>> {
    Ok(conn
        .prepare_cached(
            "SELECT request_hash, http_status, response, created_at FROM idempotency_keys WHERE env = ?1 AND key = ?2",
        )?
        .query_row(params![env, key], |r| {
            let status: Option<i64> = r.get(1)?;
            let body: Option<String> = r.get(2)?;
            Ok(IdempotencyRow {
                request_hash: r.get(0)?,
                answer: status.zip(body).map(|(s, b)| (s as u16, b)),
                created_at: r.get(3)?,
            })
        })
        .optional()?)
}

/// Takes the key for a request about to run (replacing a row given up on).
pub fn reserve(conn: &Connection, env: &str, key: &str, request_hash: &[u8], now: i64) -> crate::Result<()> {
    conn.prepare_cached(
        "INSERT INTO idempotency_keys (env, key, request_hash, http_status, response, created_at) VALUES (?1, ?2, ?3, NULL, NULL, ?4)
         ON CONFLICT (env, key) DO UPDATE SET request_hash = excluded.request_hash, http_status = NULL, response = NULL,
         created_at = excluded.created_at",
    )?
    .execute(params![env, key, request_hash, now])?;
    Ok(())
}

pub fn finish(conn: &Connection, env: &str, key: &str, http_status: u16, response: &str) -> crate::Result<()> {
    conn.prepare_cached("UPDATE idempotency_keys SET http_status = ?3, response = ?4 WHERE env = ?1 AND key = ?2")?
        .execute(params![env, key, http_status as i64, response])?;
    Ok(())
}

/// Forgets a key whose request should be tried afresh (it failed before doing anything).
pub fn release(conn: &Connection, env: &str, key: &str) -> crate::Result<()> {
    conn.prepare_cached("DELETE FROM idempotency_keys WHERE env = ?1 AND key = ?2")?
        .execute(params![env, key])?;
    Ok(())
}

/// Deletes the keys made before `before`; answers how many.
pub fn purge(conn: &Connection, before: i64) -> crate::Result<usize> {
    Ok(conn
        .prepare_cached("DELETE FROM idempotency_keys WHERE created_at < ?1")?
        .execute(params![before])?)
}

/// Idempotency keys in the shared database: a retry sent to another desk finds the first answer.
/// `reserve` takes the key only when it is free (or given up on), so two desks receiving the same
/// key at once run the request once.
pub mod pg {
    use super::IdempotencyRow;
    use postgres::GenericClient;

    pub fn get(client: &mut impl GenericClient, env: &str, key: &str) -> crate::Result<Option<IdempotencyRow>> {
        Ok(client
            .query_opt(
                "SELECT request_hash, http_status, response, created_at FROM idempotency_keys WHERE env = $1 AND key = $2",
                &[&env, &key],
            )?
            .map(|r| {
                let status: Option<i64> = r.get(1);
                let body: Option<String> = r.get(2);
                IdempotencyRow {
                    request_hash: r.get(0),
                    answer: status.zip(body).map(|(s, b)| (s as u16, b)),
                    created_at: r.get(3),
                }
            }))
    }

    /// Takes the key for a request about to run (replacing a row given up on).
    pub fn reserve(
        tx: &mut impl GenericClient,
        env: &str,
        key: &str,
        request_hash: &[u8],
        now: i64,
    ) -> crate::Result<()> {
        tx.execute(
            "INSERT INTO idempotency_keys (env, key, request_hash, http_status, response, created_at)
             VALUES ($1, $2, $3, NULL, NULL, $4)
             ON CONFLICT (env, key) DO UPDATE SET request_hash = excluded.request_hash, http_status = NULL,
             response = NULL, created_at = excluded.created_at",
            &[&env, &key, &request_hash, &now],
        )?;
        Ok(())
    }

    pub fn finish(
        tx: &mut impl GenericClient,
        env: &str,
        key: &str,
        http_status: u16,
        response: &str,
    ) -> crate::Result<()> {
        tx.execute(
            "UPDATE idempotency_keys SET http_status = $3, response = $4 WHERE env = $1 AND key = $2",
            &[&env, &key, &i64::from(http_status), &response],
        )?;
        Ok(())
    }

    /// Forgets a key whose request should be tried afresh (it failed before doing anything).
    pub fn release(tx: &mut impl GenericClient, env: &str, key: &str) -> crate::Result<()> {
        tx.execute(
            "DELETE FROM idempotency_keys WHERE env = $1 AND key = $2",
            &[&env, &key],
        )?;
        Ok(())
    }

    /// Deletes the keys made before `before`; answers how many.
    pub fn purge(tx: &mut impl GenericClient, before: i64) -> crate::Result<usize> {
        Ok(tx.execute("DELETE FROM idempotency_keys WHERE created_at < $1", &[&before])? as usize)
    }
}
