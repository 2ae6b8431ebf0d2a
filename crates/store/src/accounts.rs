//! Shipper accounts. A deleted account stays as a row (its labels point at it) with status
//! `deleted`, and is invisible to every lookup.

use crate::paging::Cursor;
use packdesk_model::status::AccountStatus;
use rusqlite::{params, Connection, OptionalExtension, Row};

#[derive(Debug, Clone)]
pub struct AccountRow {
    pub id: String,
    pub env: String,
    pub slug: String,
    pub status: AccountStatus,
    pub description: String,
    pub timezone: String,
    /// JSON of the address, if any.
    pub address: Option<String>,
    /// JSON of the settings.
    pub settings: String,
    /// Credentials sealed by the vault.
    pub credentials: Vec<u8>,
    pub created_at: i64,
    pub updated_at: i64,
}

const COLS: &str =
    "id, env, slug, status, description, timezone, address, settings, credentials, created_at, updated_at";

fn from_row(r: &Row) -> rusqlite::Result<AccountRow> {
    Ok(AccountRow {
        id: r.get(0)?,
        env: r.get(1)?,
        slug: r.get(2)?,
        status: r.get(3)?,
        description: r.get(4)?,
        timezone: r.get(5)?,
        address: r.get(6)?,
        settings: r.get(7)?,
        credentials: r.get(8)?,
        created_at: r.get(9)?,
        updated_at: r.get(10)?,
    })
}

pub fn insert(conn: &Connection, a: &AccountRow) -> crate::Result<()> {
    conn.prepare_cached(&format!(
        "INSERT INTO shipper_accounts ({COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
    ))?
    .execute(params![
        a.id,
        a.env,
        a.slug,
        a.status,
        a.description,
        a.timezone,
        a.address,
        a.settings,
        a.credentials,
        a.created_at,
        a.updated_at
    ])?;
    Ok(())
}

/// Writes every mutable column of `a` back.
pub fn update(conn: &Connection, a: &AccountRow) -> crate::Result<()> {
    conn.prepare_cached(
        "UPDATE shipper_accounts SET status = ?2, description = ?3, timezone = ?4, address = ?5, settings = ?6,
         credentials = ?7, updated_at = ?8 WHERE id = ?1",
    )?
    .execute(params![
        a.id,
        a.status,
        a.description,
        a.timezone,
        a.address,
        a.settings,
        a.credentials,
        a.updated_at
    ])?;
    Ok(())
}

/// The account `id` of environment `env`, unless deleted.
pub fn get(conn: &Connection, env: &str, id: &str) -> crate::Result<Option<AccountRow>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {COLS} FROM shipper_accounts WHERE id = ?1 AND env = ?2 AND status <> 'deleted'"
        ))?
        .query_row(params![id, env], from_row)
        .optional()?)
}

/// Newest first, `limit + 1` rows so the caller knows whether there is a next page.
pub fn list(
    conn: &Connection,
    env: &str,
    slug: Option<&str>,
    limit: usize,
    after: Option<&Cursor>,
) -> crate::Result<Vec<AccountRow>> {
    let (t, id) = after.map(|c| (c.created_at, c.id.as_str())).unwrap_or((i64::MAX, ""));
    let mut st = conn.prepare_cached(&format!(
        "SELECT {COLS} FROM shipper_accounts WHERE env = ?1 AND status <> 'deleted' AND (?2 IS NULL OR slug = ?2)
         AND (created_at, id) < (?3, ?4) ORDER BY created_at DESC, id DESC LIMIT ?5"
    ))?;
    // With no cursor, (i64::MAX, "") is above every real row.
    let rows = st.query_map(params![env, slug, t, id, (limit + 1) as i64], from_row)?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
}

/// Every account of the environment that ever was (deleted ones too) with its carrier: their
/// labels stay in the history and in the day's counts.
pub fn slugs(conn: &Connection, env: &str) -> crate::Result<Vec<(String, String)>> {
    let mut st = conn.prepare_cached("SELECT id, slug FROM shipper_accounts WHERE env = ?1")?;
    let rows = st.query_map([env], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
}

/// Shipper accounts in the shared database of many desks: the same rows, shared by every desk.
pub mod pg {
    use super::AccountRow;
    use postgres::types::Type;
    use postgres::GenericClient;

    fn from_row(r: &postgres::Row) -> AccountRow {
        AccountRow {
            id: r.get(0),
            env: r.get(1),
            slug: r.get(2),
            status: r.get(3),
            description: r.get(4),
            timezone: r.get(5),
            address: r.get(6),
            settings: r.get(7),
            credentials: r.get(8),
            created_at: r.get(9),
            updated_at: r.get(10),
        }
    }

    pub fn insert(tx: &mut impl GenericClient, a: &AccountRow) -> crate::Result<()> {
        tx.execute(
            &format!(
                "INSERT INTO shipper_accounts ({}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                super::COLS
            ),
            &[
                &a.id,
                &a.env,
                &a.slug,
                &a.status,
                &a.description,
                &a.timezone,
                &a.address,
                &a.settings,
                &a.credentials,
                &a.created_at,
                &a.updated_at,
            ],
        )?;
        Ok(())
    }

    /// Writes every mutable column of `a` back.
    pub fn update(tx: &mut impl GenericClient, a: &AccountRow) -> crate::Result<()> {
        tx.execute(
            "UPDATE shipper_accounts SET status = $2, description = $3, timezone = $4, address = $5, settings = $6,
             credentials = $7, updated_at = $8 WHERE id = $1",
            &[
                &a.id,
                &a.status,
                &a.description,
                &a.timezone,
                &a.address,
                &a.settings,
                &a.credentials,
                &a.updated_at,
            ],
        )?;
        Ok(())
    }

    /// Newest first, `limit + 1` rows so the caller knows whether there is a next page.
    pub fn list(
        client: &mut impl GenericClient,
        env: &str,
        slug: Option<&str>,
        limit: usize,
        after: Option<&crate::paging::Cursor>,
    ) -> crate::Result<Vec<AccountRow>> {
        let (t, id) = after.map(|c| (c.created_at, c.id.as_str())).unwrap_or((i64::MAX, ""));
        let sql = format!(
            "SELECT {} FROM shipper_accounts WHERE env = $1 AND status <> 'deleted' AND ($2::text IS NULL OR slug = $2)
             AND (created_at, id) < ($3, $4) ORDER BY created_at DESC, id DESC LIMIT $5",
            super::COLS
        );
        let rows = client.query(&sql, &[&env, &slug, &t, &id, &((limit + 1) as i64)])?;
        Ok(rows.iter().map(from_row).collect())
    }

    /// Every account of the environment that ever was (deleted ones too) with its carrier.
    pub fn slugs(client: &mut impl GenericClient, env: &str) -> crate::Result<Vec<(String, String)>> {
        let rows = client.query(
            "SELECT id, slug FROM shipper_accounts WHERE env = $1 ORDER BY id",
            &[&env],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// The account `id` of environment `env`, unless deleted.
    /// Read for every label: typed parameters, one round trip (no prepare).
    pub fn get(client: &mut impl GenericClient, env: &str, id: &str) -> crate::Result<Option<AccountRow>> {
        let row = crate::pg::query_opt(
            client,
            &format!(
                "SELECT {} FROM shipper_accounts WHERE id = $1 AND env = $2 AND status <> 'deleted'",
                super::COLS
            ),
            &[(&id, Type::TEXT), (&env, Type::TEXT)],
        )?;
        Ok(row.as_ref().map(from_row))
    }
}
