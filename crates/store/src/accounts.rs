//! Shipper accounts. A deleted account stays as a row (its labels point at it) with status
//! `deleted`, and is invisible to every lookup. On a shared database every desk has the same
//! accounts.

use crate::db::Tx;
use crate::paging::Cursor;
use crate::sql::{table_row, Dialect, TableRow};
use packdesk_model::status::AccountStatus;
use packdesk_model::status::Env;

table_row! {
#[derive(Debug, Clone)]
pub struct AccountRow in "shipper_accounts" {
    pub id: String,
    pub env: Env,
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
    /// The connection's and the manifest transport's secrets, sealed by the vault (none set).
    pub secrets: Option<Vec<u8>>,
}
}

const COLS: &str = AccountRow::COLUMNS;

pub fn insert(c: &mut Tx<'_>, a: &AccountRow) -> crate::Result<()> {
    c.insert(a)?;
    Ok(())
}

/// Writes every mutable column of `a` back.
pub fn update(c: &mut Tx<'_>, a: &AccountRow) -> crate::Result<()> {
    c.execute(
        "UPDATE shipper_accounts SET status = ?2, description = ?3, timezone = ?4, address = ?5, settings = ?6,
         credentials = ?7, updated_at = ?8, secrets = ?9 WHERE id = ?1",
        &[
            &a.id,
            &a.status,
            &a.description,
            &a.timezone,
            &a.address,
            &a.settings,
            &a.credentials,
            &a.updated_at,
            &a.secrets,
        ],
    )?;
    Ok(())
}

/// The account `id` of environment `env`, unless deleted (read for every label).
pub fn get(c: &mut Tx<'_>, env: Env, id: &str) -> crate::Result<Option<AccountRow>> {
    c.row(
        &format!("SELECT {COLS} FROM shipper_accounts WHERE id = ?1 AND env = ?2 AND status <> 'deleted'"),
        &[&id, &env],
    )
}

/// Newest first, `limit + 1` rows so the caller knows whether there is a next page.
pub fn list(
    c: &mut Tx<'_>,
    env: Env,
    slug: Option<&str>,
    limit: usize,
    after: Option<&Cursor>,
) -> crate::Result<Vec<AccountRow>> {
    // With no cursor, (i64::MAX, "") is above every real row.
    let (t, id) = after.map(|c| (c.created_at, c.id.as_str())).unwrap_or((i64::MAX, ""));
    c.rows(
        &format!(
            "SELECT {COLS} FROM shipper_accounts WHERE env = ?1 AND status <> 'deleted' \
             AND (CAST(?2 AS TEXT) IS NULL OR slug = ?2) \
             AND (created_at, id) < (?3, ?4) ORDER BY created_at DESC, id DESC LIMIT ?5"
        ),
        &[&env, &slug, &t, &id, &((limit + 1) as i64)],
    )
}

/// Holds the account's row to the end of the transaction on a shared database, so two desks
/// closing it out at once number their day's data files one after the other (one desk's SQLite
/// file has one writer: nothing to hold).
pub fn lock(c: &mut Tx<'_>, id: &str) -> crate::Result<()> {
    if c.dialect() == Dialect::Postgres {
        // NO KEY UPDATE: labels inserted meanwhile (their key's check) do not wait for it.
        c.rows::<(String,)>(
            "SELECT id FROM shipper_accounts WHERE id = ?1 FOR NO KEY UPDATE",
            &[&id],
        )?;
    }
    Ok(())
}

/// Every account of the environment that ever was (deleted ones too) with its carrier: their
/// labels stay in the history and in the day's counts.
pub fn slugs(c: &mut Tx<'_>, env: Env) -> crate::Result<Vec<(String, String)>> {
    c.rows(
        "SELECT id, slug FROM shipper_accounts WHERE env = ?1 ORDER BY id",
        &[&env],
    )
}
