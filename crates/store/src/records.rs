//! The records of cancel labels, manifests, bulk downloads, rates and address validations. They
//! share one shape: the record as JSON plus the columns lists filter and page on.

use crate::db::Tx;
use crate::paging::Cursor;
use crate::sql::{FromRow, Row};
use packdesk_model::status::Env;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    CancelLabel,
    Manifest,
    BulkDownload,
    Rate,
    AddressValidation,
}

impl Kind {
    fn table(self) -> &'static str {
        match self {
            Kind::CancelLabel => "cancel_labels",
            Kind::Manifest => "manifests",
            Kind::BulkDownload => "bulk_downloads",
            Kind::Rate => "rates",
            Kind::AddressValidation => "address_validations",
        }
    }
}

#[derive(Debug, Clone)]
pub struct RecordRow {
    pub id: String,
    pub env: Env,
    pub shipper_account_id: Option<String>,
    /// The record's status word. A word, not one enum: each kind has its own statuses
    /// (`CancelStatus`, `ManifestStatus`, `BulkDownloadStatus`, `RateStatus`, `ValidationStatus`).
    pub status: String,
    pub record: String,
    pub created_at: i64,
    pub updated_at: i64,
}

const COLS: &str = "id, env, shipper_account_id, status, record, created_at, updated_at";

impl FromRow for RecordRow {
    fn from_row(r: &Row<'_>) -> crate::Result<Self> {
        Ok(RecordRow {
            id: r.get(0)?,
            env: r.get(1)?,
            shipper_account_id: r.get(2)?,
            status: r.get(3)?,
            record: r.get(4)?,
            created_at: r.get(5)?,
            updated_at: r.get(6)?,
        })
    }
}

pub fn insert(c: &mut Tx<'_>, kind: Kind, r: &RecordRow) -> crate::Result<()> {
    c.execute(
        &format!(
            "INSERT INTO {} ({COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            kind.table()
        ),
        &[
            &r.id,
            &r.env,
            &r.shipper_account_id,
            &r.status,
            &r.record,
            &r.created_at,
            &r.updated_at,
        ],
    )?;
    Ok(())
}

/// Inserts the record, or replaces status, record and updated_at of the one with its id (an
/// async record reaching its final state keeps its created_at).
pub fn put(c: &mut Tx<'_>, kind: Kind, r: &RecordRow) -> crate::Result<()> {
    c.execute(
        &format!(
            "INSERT INTO {} ({COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (id) DO UPDATE SET status = excluded.status, record = excluded.record, updated_at = excluded.updated_at",
            kind.table()
        ),
        &[
            &r.id,
            &r.env,
            &r.shipper_account_id,
            &r.status,
            &r.record,
            &r.created_at,
            &r.updated_at,
        ],
    )?;
    Ok(())
}

pub fn get(c: &mut Tx<'_>, kind: Kind, env: Env, id: &str) -> crate::Result<Option<RecordRow>> {
    c.row(
        &format!("SELECT {COLS} FROM {} WHERE id = ?1 AND env = ?2", kind.table()),
        &[&id, &env],
    )
}

/// Filters of the list routes of these records.
#[derive(Debug, Clone, Default)]
pub struct RecordFilter {
    pub shipper_account_id: Option<String>,
    pub status: Option<String>,
    pub created_at_min: i64,
    pub created_at_max: i64,
}

/// Newest first, `limit + 1` rows so the caller knows whether there is a next page.
pub fn list(
    c: &mut Tx<'_>,
    kind: Kind,
    env: Env,
    f: &RecordFilter,
    limit: usize,
    after: Option<&Cursor>,
) -> crate::Result<Vec<RecordRow>> {
    let (t, id) = after.map(|c| (c.created_at, c.id.as_str())).unwrap_or((i64::MAX, ""));
    // An absent filter is a NULL PostgreSQL cannot type by itself: hence the casts.
    c.rows(
        &format!(
            "SELECT {COLS} FROM {} WHERE env = ?1 AND created_at >= ?2 AND created_at <= ?3
             AND (CAST(?4 AS TEXT) IS NULL OR shipper_account_id = ?4) AND (CAST(?5 AS TEXT) IS NULL OR status = ?5)
             AND (created_at, id) < (?6, ?7) ORDER BY created_at DESC, id DESC LIMIT ?8",
            kind.table()
        ),
        &[
            &env,
            &f.created_at_min,
            &f.created_at_max,
            &f.shipper_account_id,
            &f.status,
            &t,
            &id,
            &((limit + 1) as i64),
        ],
    )
}
