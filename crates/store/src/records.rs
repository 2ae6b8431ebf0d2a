//! The records of cancel labels, manifests, bulk downloads, rates and address validations. They
//! share one shape: the record as JSON plus the columns lists filter and page on.

use crate::db::Tx;
use crate::paging::Cursor;
use crate::sql::{FromRow, Row};
use crate::StoreError;
use packdesk_model::status::{BulkDownloadStatus, CancelStatus, Env, ManifestStatus, RateStatus, ValidationStatus};

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

/// A record's status: each kind has its own, and the status says the kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordStatus {
    CancelLabel(CancelStatus),
    Manifest(ManifestStatus),
    BulkDownload(BulkDownloadStatus),
    Rate(RateStatus),
    AddressValidation(ValidationStatus),
}

impl RecordStatus {
    pub fn kind(self) -> Kind {
        match self {
            RecordStatus::CancelLabel(_) => Kind::CancelLabel,
            RecordStatus::Manifest(_) => Kind::Manifest,
            RecordStatus::BulkDownload(_) => Kind::BulkDownload,
            RecordStatus::Rate(_) => Kind::Rate,
            RecordStatus::AddressValidation(_) => Kind::AddressValidation,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RecordStatus::CancelLabel(s) => s.as_str(),
            RecordStatus::Manifest(s) => s.as_str(),
            RecordStatus::BulkDownload(s) => s.as_str(),
            RecordStatus::Rate(s) => s.as_str(),
            RecordStatus::AddressValidation(s) => s.as_str(),
        }
    }

    /// The status of a record of `kind` whose job failed (an address validation is never a job).
    pub fn failed(kind: Kind) -> Option<RecordStatus> {
        match kind {
            Kind::CancelLabel => Some(RecordStatus::CancelLabel(CancelStatus::Failed)),
            Kind::Manifest => Some(RecordStatus::Manifest(ManifestStatus::Failed)),
            Kind::BulkDownload => Some(RecordStatus::BulkDownload(BulkDownloadStatus::Failed)),
            Kind::Rate => Some(RecordStatus::Rate(RateStatus::Failed)),
            Kind::AddressValidation => None,
        }
    }

    fn parse(kind: Kind, word: &str) -> Option<RecordStatus> {
        match kind {
            Kind::CancelLabel => CancelStatus::parse(word).map(RecordStatus::CancelLabel),
            Kind::Manifest => ManifestStatus::parse(word).map(RecordStatus::Manifest),
            Kind::BulkDownload => BulkDownloadStatus::parse(word).map(RecordStatus::BulkDownload),
            Kind::Rate => RateStatus::parse(word).map(RecordStatus::Rate),
            Kind::AddressValidation => ValidationStatus::parse(word).map(RecordStatus::AddressValidation),
        }
    }
}

#[derive(Debug, Clone)]
pub struct RecordRow {
    pub id: String,
    pub env: Env,
    pub shipper_account_id: Option<String>,
    pub status: RecordStatus,
    pub record: String,
    pub created_at: i64,
    pub updated_at: i64,
}

const COLS: &str = "id, env, shipper_account_id, status, record, created_at, updated_at";

/// A row as read, its status still a word: which enum reads it depends on the table.
struct Stored {
    row: (String, Env, Option<String>),
    status: String,
    record: String,
    times: (i64, i64),
}

impl FromRow for Stored {
    fn from_row(r: &Row<'_>) -> crate::Result<Self> {
        Ok(Stored {
            row: (r.get(0)?, r.get(1)?, r.get(2)?),
            status: r.get(3)?,
            record: r.get(4)?,
            times: (r.get(5)?, r.get(6)?),
        })
    }
}

impl Stored {
    fn of(self, kind: Kind) -> crate::Result<RecordRow> {
        let status = RecordStatus::parse(kind, &self.status)
            .ok_or_else(|| StoreError::Unreadable(format!("`{}` as the status of a {kind:?}", self.status)))?;
        let (id, env, shipper_account_id) = self.row;
        Ok(RecordRow {
            id,
            env,
            shipper_account_id,
            status,
            record: self.record,
            created_at: self.times.0,
            updated_at: self.times.1,
        })
    }
}

/// A new record, in the table of its status's kind.
pub fn insert(c: &mut Tx<'_>, r: &RecordRow) -> crate::Result<()> {
    write(c, r, "")
}

/// Inserts the record, or replaces status, record and updated_at of the one with its id (an
/// async record reaching its final state keeps its created_at).
pub fn put(c: &mut Tx<'_>, r: &RecordRow) -> crate::Result<()> {
    write(
        c,
        r,
        "ON CONFLICT (id) DO UPDATE SET status = excluded.status, record = excluded.record, updated_at = excluded.updated_at",
    )
}

fn write(c: &mut Tx<'_>, r: &RecordRow, on_conflict: &str) -> crate::Result<()> {
    c.execute(
        &format!(
            "INSERT INTO {} ({COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) {on_conflict}",
            r.status.kind().table()
        ),
        &[
            &r.id,
            &r.env,
            &r.shipper_account_id,
            &r.status.as_str(),
            &r.record,
            &r.created_at,
            &r.updated_at,
        ],
    )?;
    Ok(())
}

pub fn get(c: &mut Tx<'_>, kind: Kind, env: Env, id: &str) -> crate::Result<Option<RecordRow>> {
    c.row::<Stored>(
        &format!("SELECT {COLS} FROM {} WHERE id = ?1 AND env = ?2", kind.table()),
        &[&id, &env],
    )?
    .map(|s| s.of(kind))
    .transpose()
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
    // A list with optional filters and a time window: planned for its values each time.
    c.rows_planned_each_time::<Stored>(
        &format!(
            "SELECT {COLS} FROM {} WHERE env = ?1 AND created_at >= ?2 AND created_at <= ?3
             AND (CAST(?4 AS TEXT) IS NULL OR shipper_account_id = ?4) AND (CAST(?5 AS TEXT) IS NULL OR status = ?5)
             AND (created_at, id) < (?6, ?7) ORDER BY created_at DESC, id DESC LIMIT ?8",
            kind.table()
        ),
        &[
            &env,
            &f.created_at_min,
            &crate::paging::newest(f.created_at_max, after),
            &f.shipper_account_id,
            &f.status,
            &t,
            &id,
            &((limit + 1) as i64),
        ],
    )?
    .into_iter()
    .map(|s| s.of(kind))
    .collect()
}
