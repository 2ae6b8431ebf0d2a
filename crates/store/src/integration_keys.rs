//! Named integration keys: each for one environment, with its scopes, kept as a SHA-256 hash (the
//! key is shown once, at its creation). On a shared database every desk answers to them.

use crate::db::Tx;
use crate::sql::{FromRow, Row};
use packdesk_model::status::{Env, KeyScope};

#[derive(Debug, Clone, PartialEq)]
pub struct IntegrationKeyRow {
    pub id: String,
    pub name: String,
    pub env: Env,
    pub scopes: Vec<KeyScope>,
    pub prefix: String,
    pub key_hash: Vec<u8>,
    pub created_at: i64,
    pub created_by: String,
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

const COLS: &str = "id, name, env, scopes, prefix, key_hash, created_at, created_by, last_used_at, revoked_at";

/// The scopes as a column: their words, comma-separated.
fn scopes_text(scopes: &[KeyScope]) -> String {
    scopes.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(",")
}

impl FromRow for IntegrationKeyRow {
    fn from_row(r: &Row<'_>) -> crate::Result<Self> {
        let words: String = r.get(3)?;
        let scopes = words
            .split(',')
            .map(|w| {
                KeyScope::parse(w)
                    .ok_or_else(|| crate::StoreError::Unreadable(format!("`{w}`, which is not a key scope")))
            })
            .collect::<crate::Result<_>>()?;
        Ok(IntegrationKeyRow {
            id: r.get(0)?,
            name: r.get(1)?,
            env: r.get(2)?,
            scopes,
            prefix: r.get(4)?,
            key_hash: r.get(5)?,
            created_at: r.get(6)?,
            created_by: r.get(7)?,
            last_used_at: r.get(8)?,
            revoked_at: r.get(9)?,
        })
    }
}

pub fn insert(c: &mut Tx<'_>, k: &IntegrationKeyRow) -> crate::Result<()> {
    c.execute(
        &format!("INSERT INTO integration_keys ({COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"),
        &[
            &k.id,
            &k.name,
            &k.env,
            &scopes_text(&k.scopes),
            &k.prefix,
            &k.key_hash,
            &k.created_at,
            &k.created_by,
            &k.last_used_at,
            &k.revoked_at,
        ],
    )?;
    Ok(())
}

pub fn get(c: &mut Tx<'_>, id: &str) -> crate::Result<Option<IntegrationKeyRow>> {
    c.row(&format!("SELECT {COLS} FROM integration_keys WHERE id = ?1"), &[&id])
}

pub fn by_hash(c: &mut Tx<'_>, key_hash: &[u8]) -> crate::Result<Option<IntegrationKeyRow>> {
    c.row(
        &format!("SELECT {COLS} FROM integration_keys WHERE key_hash = ?1"),
        &[&key_hash],
    )
}

/// Every key, newest first.
pub fn list(c: &mut Tx<'_>) -> crate::Result<Vec<IntegrationKeyRow>> {
    c.rows(
        &format!("SELECT {COLS} FROM integration_keys ORDER BY created_at DESC, id"),
        &[],
    )
}

/// Whether a key not revoked has the name.
pub fn name_taken(c: &mut Tx<'_>, name: &str) -> crate::Result<bool> {
    Ok(c.value(
        "SELECT EXISTS (SELECT 1 FROM integration_keys WHERE name = ?1 AND revoked_at IS NULL)",
        &[&name],
    )?
    .unwrap_or_default())
}

/// Revokes a key (once: a revoked key keeps its first time). False: no such key.
pub fn revoke(c: &mut Tx<'_>, id: &str, at: i64) -> crate::Result<bool> {
    Ok(c.execute(
        "UPDATE integration_keys SET revoked_at = COALESCE(revoked_at, ?2) WHERE id = ?1",
        &[&id, &at],
    )? > 0)
}

/// Notes a call made with the key.
pub fn touch(c: &mut Tx<'_>, id: &str, at: i64) -> crate::Result<()> {
    c.execute(
        "UPDATE integration_keys SET last_used_at = ?2 WHERE id = ?1",
        &[&id, &at],
    )?;
    Ok(())
}
