//! Document files (labels, invoices, customs declarations, ...), stored as bytes so that a reprint
//! is the very same document (on a shared database, at any desk).

use crate::db::Tx;
use crate::sql::{table_row, TableRow};
use packdesk_model::status::{Env, FileKind};

table_row! {
#[derive(Debug, Clone)]
pub struct FileRow in "files" {
    pub id: String,
    pub env: Env,
    pub owner_id: String,
    pub kind: FileKind,
    pub file_type: String,
    pub paper_size: String,
    pub bytes: Vec<u8>,
    pub created_at: i64,
}
}

/// Written for every label made (a file or more): one round trip on a statement prepared once per
/// pooled connection (`Tx::execute`).
pub fn insert(c: &mut Tx<'_>, f: &FileRow) -> crate::Result<()> {
    c.insert(f)?;
    Ok(())
}

pub fn get(c: &mut Tx<'_>, env: Env, id: &str) -> crate::Result<Option<FileRow>> {
    c.row(
        &format!("SELECT {} FROM files WHERE id = ?1 AND env = ?2", FileRow::COLUMNS),
        &[&id, &env],
    )
}

/// A file by its id alone, whatever its environment (a signed file link names one file).
pub fn get_by_id(c: &mut Tx<'_>, id: &str) -> crate::Result<Option<FileRow>> {
    c.row(&format!("SELECT {} FROM files WHERE id = ?1", FileRow::COLUMNS), &[&id])
}

/// The file of `kind` that belongs to `owner_id` (a label's label document, say).
pub fn of_owner(c: &mut Tx<'_>, env: Env, owner_id: &str, kind: FileKind) -> crate::Result<Option<FileRow>> {
    first_of_owner(c, env, owner_id, kind, None)
}

/// The owner's file of `kind` in `file_type` (a manifest has a PDF and a CSV).
pub fn of_owner_as(
    c: &mut Tx<'_>,
    env: Env,
    owner_id: &str,
    kind: FileKind,
    file_type: &str,
) -> crate::Result<Option<FileRow>> {
    first_of_owner(c, env, owner_id, kind, Some(file_type))
}

/// The owner's first file of `kind` (in `file_type`, when given).
fn first_of_owner(
    c: &mut Tx<'_>,
    env: Env,
    owner_id: &str,
    kind: FileKind,
    file_type: Option<&str>,
) -> crate::Result<Option<FileRow>> {
    c.row(
        &format!(
            "SELECT {} FROM files
         WHERE owner_id = ?1 AND env = ?2 AND kind = ?3 AND (CAST(?4 AS TEXT) IS NULL OR file_type = ?4)
         ORDER BY created_at LIMIT 1",
            FileRow::COLUMNS
        ),
        &[&owner_id, &env, &kind, &file_type],
    )
}
