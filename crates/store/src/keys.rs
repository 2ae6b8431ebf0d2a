//! API keys: a hash to authenticate with, and the key sealed by the vault so the desk can show it.
//! On a shared database every desk answers to the same keys.

use crate::db::Tx;
use crate::sql::{table_row, TableRow};
use packdesk_model::status::Env;

table_row! {
#[derive(Debug, Clone)]
pub struct KeyRow in "api_keys" {
    pub env: Env,
    pub key_hash: Vec<u8>,
    pub key_sealed: Vec<u8>,
    pub created_at: i64,
}
}

pub fn all(c: &mut Tx<'_>) -> crate::Result<Vec<KeyRow>> {
    c.rows(&format!("SELECT {} FROM api_keys ORDER BY env", KeyRow::COLUMNS), &[])
}

/// Inserts or replaces (rotation) the key of one environment.
pub fn put(c: &mut Tx<'_>, k: &KeyRow) -> crate::Result<()> {
    c.insert_with(
        k,
        " ON CONFLICT (env) DO UPDATE SET key_hash = excluded.key_hash, key_sealed = excluded.key_sealed, \
         created_at = excluded.created_at",
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
