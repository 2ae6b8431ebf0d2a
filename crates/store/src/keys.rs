//! API keys: a hash to authenticate with, and the key sealed by the vault so the desk can show it.
//! On a shared database every desk answers to the same keys.

use crate::db::Tx;
use crate::sql::{FromRow, Row};
use packdesk_model::status::Env;

#[derive(Debug, Clone)]
pub struct KeyRow {
    pub env: Env,
    pub key_hash: Vec<u8>,
    pub key_sealed: Vec<u8>,
    pub created_at: i64,
}

impl FromRow for KeyRow {
    fn from_row(r: &Row<'_>) -> crate::Result<Self> {
        Ok(KeyRow {
            env: r.get(0)?,
            key_hash: r.get(1)?,
            key_sealed: r.get(2)?,
            created_at: r.get(3)?,
        })
    }
}

pub fn all(c: &mut Tx<'_>) -> crate::Result<Vec<KeyRow>> {
    c.rows(
        "SELECT env, key_hash, key_sealed, created_at FROM api_keys ORDER BY env",
        &[],
    )
}

/// Inserts or replaces (rotation) the key of one environment.
pub fn put(c: &mut Tx<'_>, k: &KeyRow) -> crate::Result<()> {
    c.execute(
        "INSERT INTO api_keys (env, key_hash, key_sealed, created_at) VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (env) DO UPDATE SET key_hash = excluded.key_hash, key_sealed = excluded.key_sealed, \
         created_at = excluded.created_at",
        &[&k.env, &k.key_hash, &k.key_sealed, &k.created_at],
    )?;
    Ok(())
}

/// Whether the database holds anything sealed by the vault (API keys, carrier credentials).
pub fn any_sealed(c: &mut Tx<'_>) -> crate::Result<bool> {
    Ok(c.value(
        "SELECT EXISTS (SELECT 1 FROM api_keys) OR EXISTS (SELECT 1 FROM shipper_accounts)",
        &[],
    )?
    .unwrap_or_default())
}
