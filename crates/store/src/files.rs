//! Document files (labels, invoices, customs declarations, ...), stored as bytes so that a reprint
//! is the very same document (on a shared database, at any desk). The runs many files share (font
//! objects) are kept once, in `file_parts`: a file is written split and read whole.

use crate::db::Tx;
use crate::file_parts::{self, PartHash};
use crate::sql::{table_row, Dialect, TableRow};
use crate::StoreError;
use packdesk_model::status::{Env, FileKind};
use std::sync::Arc;

/// A document file, whole.
#[derive(Debug, Clone)]
pub struct FileRow {
    pub id: String,
    pub env: Env,
    pub owner_id: String,
    pub kind: FileKind,
    pub file_type: String,
    pub paper_size: String,
    pub bytes: Vec<u8>,
    pub created_at: i64,
}

table_row! {
/// A row of `files`: the file's own bytes, and where the parts it shares go back.
struct StoredFile in "files" {
    id: String,
    env: Env,
    owner_id: String,
    kind: FileKind,
    file_type: String,
    paper_size: String,
    bytes: Vec<u8>,
    created_at: i64,
    /// `file_parts::Split::column`; none: the bytes are the whole file.
    parts: Option<String>,
}
}

/// A file as written: its row and the parts to keep once.
pub struct Written<'a> {
    pub own: Vec<u8>,
    pub parts_column: Option<String>,
    pub parts: Vec<(PartHash, &'a [u8])>,
}

/// `f` split for storing.
pub fn written(f: &FileRow) -> Written<'_> {
    let split = file_parts::split(&f.bytes);
    Written {
        parts_column: split.column(),
        parts: split.parts.iter().map(|(_, hash, bytes)| (*hash, *bytes)).collect(),
        own: split.own,
    }
}

/// Written for every label made (a file or more): the file's row and each part it shares that
/// is not kept yet, on statements prepared once per pooled connection (`Tx::execute`).
pub fn insert(c: &mut Tx<'_>, f: &FileRow) -> crate::Result<()> {
    let w = written(f);
    // In hash order, as every desk writes them: two desks keeping the same new parts at once
    // wait for each other instead of deadlocking.
    let mut parts = w.parts.clone();
    parts.sort_unstable_by_key(|(hash, _)| *hash);
    parts.dedup_by_key(|(hash, _)| *hash);
    for (hash, bytes) in &parts {
        keep_part(c, hash, bytes)?;
    }
    c.insert(&StoredFile {
        id: f.id.clone(),
        env: f.env,
        owner_id: f.owner_id.clone(),
        kind: f.kind,
        file_type: f.file_type.clone(),
        paper_size: f.paper_size.clone(),
        bytes: w.own,
        created_at: f.created_at,
        parts: w.parts_column,
    })
}

/// Keeps a part (once: another file wrote it before, or another desk writes it now).
fn keep_part(c: &mut Tx<'_>, hash: &PartHash, bytes: &[u8]) -> crate::Result<()> {
    // Mostly kept already (a font's subset, in every label of that font): on SQLite looked up
    // first, so that its bytes are not copied into a statement only to be dropped on the
    // conflict, under the writer (issue 42). (On PostgreSQL the lookup would be a round trip.)
    if c.dialect() == Dialect::Sqlite && c.exists("SELECT 1 FROM file_parts WHERE hash = ?1", &[&hash.to_vec()])? {
        return Ok(());
    }
    c.execute(
        "INSERT INTO file_parts (hash, bytes) VALUES (?1, ?2) ON CONFLICT (hash) DO NOTHING",
        &[&hash.to_vec(), &bytes.to_vec()],
    )?;
    Ok(())
}

/// The whole file of a row: its parts put back.
fn whole(c: &mut Tx<'_>, row: StoredFile) -> crate::Result<FileRow> {
    let bytes = match &row.parts {
        None => row.bytes,
        Some(column) => {
            let damaged =
                |why: String| StoreError::Unreadable(format!("file {} that cannot be put together: {why}", row.id));
            let places = file_parts::places(column).map_err(damaged)?;
            let mut parts = Vec::with_capacity(places.len());
            for (at, hash) in places {
                parts.push((
                    at,
                    part(c, &hash)?.ok_or_else(|| damaged("a part it shares is missing".into()))?,
                ));
            }
            file_parts::join(&row.bytes, &parts).map_err(damaged)?
        }
    };
    Ok(FileRow {
        id: row.id,
        env: row.env,
        owner_id: row.owner_id,
        kind: row.kind,
        file_type: row.file_type,
        paper_size: row.paper_size,
        bytes,
        created_at: row.created_at,
    })
}

/// A part by its hash: read once per process (it never changes).
fn part(c: &mut Tx<'_>, hash: &PartHash) -> crate::Result<Option<Arc<[u8]>>> {
    if let Some(bytes) = file_parts::remembered(hash) {
        return Ok(Some(bytes));
    }
    let read: Option<Vec<u8>> = c.value("SELECT bytes FROM file_parts WHERE hash = ?1", &[&hash.to_vec()])?;
    let Some(bytes) = read else {
        return Ok(None);
    };
    // A damaged part must fail the read, never give a wrong document.
    if !file_parts::holds(hash, &bytes) {
        return Err(StoreError::Unreadable(
            "a file part whose bytes are not its hash's".into(),
        ));
    }
    let bytes: Arc<[u8]> = Arc::from(bytes);
    file_parts::remember(*hash, bytes.clone());
    Ok(Some(bytes))
}

/// The first row a query finds, whole.
fn one(c: &mut Tx<'_>, sql: &str, params: &[&dyn crate::sql::Param]) -> crate::Result<Option<FileRow>> {
    match c.row::<StoredFile>(sql, params)? {
        Some(row) => Ok(Some(whole(c, row)?)),
        None => Ok(None),
    }
}

pub fn get(c: &mut Tx<'_>, env: Env, id: &str) -> crate::Result<Option<FileRow>> {
    one(
        c,
        &format!("SELECT {} FROM files WHERE id = ?1 AND env = ?2", StoredFile::COLUMNS),
        &[&id, &env],
    )
}

/// A file by its id alone, whatever its environment (a signed file link names one file).
pub fn get_by_id(c: &mut Tx<'_>, id: &str) -> crate::Result<Option<FileRow>> {
    one(
        c,
        &format!("SELECT {} FROM files WHERE id = ?1", StoredFile::COLUMNS),
        &[&id],
    )
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
    one(
        c,
        &format!(
            "SELECT {} FROM files
         WHERE owner_id = ?1 AND env = ?2 AND kind = ?3 AND (CAST(?4 AS TEXT) IS NULL OR file_type = ?4)
         ORDER BY created_at LIMIT 1",
            StoredFile::COLUMNS
        ),
        &[&owner_id, &env, &kind, &file_type],
    )
}
