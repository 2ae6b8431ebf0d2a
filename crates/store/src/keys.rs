//! API keys: a hash to authenticate with, and the key sealed by the vault so the desk can show it.

use rusqlite::{params, Connection};

#[derive(Debug, Clone)]
pub struct KeyRow {
    pub env: String,
    pub key_hash: Vec<u8>,
    pub key_sealed: Vec<u8>,
    pub created_at: i64,
}

pub fn all(conn: &Connection) -> crate::Result<Vec<KeyRow>> {
    let mut st = conn.prepare_cached("SELECT env, key_hash, key_sealed, created_at FROM api_keys ORDER BY env")?;
    let rows = st.query_map([], |r| {
        Ok(KeyRow {
            env: r.get(0)?,
            key_hash: r.get(1)?,
            key_sealed: r.get(2)?,
            created_at: r.get(3)?,
        })
    })?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
}

/// Inserts or replaces (rotation) the key of one environment.
pub fn put(conn: &Connection, k: &KeyRow) -> crate::Result<()> {
    conn.execute(
        "INSERT INTO api_keys (env, key_hash, key_sealed, created_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (env) DO UPDATE SET key_hash = excluded.key_hash, key_sealed = excluded.key_sealed,
         created_at = excluded.created_at",
        params![k.env, k.key_hash, k.key_sealed, k.created_at],
    )?;
    Ok(())
}

/// Whether the database holds anything sealed by the vault (API keys, carrier credentials).
pub fn any_sealed(conn: &Connection) -> crate::Result<bool> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM api_keys) OR EXISTS (SELECT 1 FROM shipper_accounts)",
        [],
        |r| r.get(0),
    )?)
}

/// The API keys in the shared database: every desk answers to the same keys.
pub mod pg {
    use super::KeyRow;
    use postgres::GenericClient;

    pub fn all(client: &mut impl GenericClient) -> crate::Result<Vec<KeyRow>> {
        let rows = client.query(
            "SELECT env, key_hash, key_sealed, created_at FROM api_keys ORDER BY env",
            &[],
        )?;
        Ok(rows
            .iter()
            .map(|r| KeyRow {
                env: r.get(0),
                key_hash: r.get(1),
                key_sealed: r.get(2),
                created_at: r.get(3),
            })
            .collect())
    }

    /// Inserts or replaces (rotation) the key of one environment.
    pub fn put(tx: &mut impl GenericClient, k: &KeyRow) -> crate::Result<()> {
        tx.execute(
            "INSERT INTO api_keys (env, key_hash, key_sealed, created_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (env) DO UPDATE SET key_hash = excluded.key_hash, key_sealed = excluded.key_sealed,
             created_at = excluded.created_at",
            &[&k.env, &k.key_hash, &k.key_sealed, &k.created_at],
        )?;
        Ok(())
    }

    /// Whether the database holds anything sealed by the vault (API keys, carrier credentials).
    pub fn any_sealed(client: &mut impl GenericClient) -> crate::Result<bool> {
        Ok(client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM api_keys) OR EXISTS (SELECT 1 FROM shipper_accounts)",
                &[],
            )?
            .get(0))
    }
}
