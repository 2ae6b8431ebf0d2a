//! Document files (labels, invoices, customs declarations, ...), stored as bytes so that a reprint
//! is the very same document.

use rusqlite::{params, Connection, OptionalExtension};

#[derive(Debug, Clone)]
pub struct FileRow {
    pub id: String,
    pub env: String,
    pub owner_id: String,
    /// label, invoice, customs_declaration, manifest, ...
    pub kind: String,
    pub file_type: String,
    pub paper_size: String,
    pub bytes: Vec<u8>,
    pub created_at: i64,
}

fn from_row(r: &rusqlite::Row) -> rusqlite::Result<FileRow> {
    Ok(FileRow {
        id: r.get(0)?,
        env: r.get(1)?,
        owner_id: r.get(2)?,
        kind: r.get(3)?,
        file_type: r.get(4)?,
        paper_size: r.get(5)?,
        bytes: r.get(6)?,
        created_at: r.get(7)?,
    })
}

pub fn insert(conn: &Connection, f: &FileRow) -> crate::Result<()> {
    conn.prepare_cached(
        "INSERT INTO files (id, env, owner_id, kind, file_type, paper_size, bytes, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        f.id,
        f.env,
        f.owner_id,
        f.kind,
        f.file_type,
        f.paper_size,
        f.bytes,
        f.created_at
    ])?;
    Ok(())
}

pub fn get(conn: &Connection, env: &str, id: &str) -> crate::Result<Option<FileRow>> {
    Ok(conn.prepare_cached(
        "SELECT id, env, owner_id, kind, file_type, paper_size, bytes, created_at FROM files WHERE id = ?1 AND env = ?2",
    )?
    .query_row(params![id, env], from_row)
    .optional()?)
}

/// A file by its id alone, whatever its environment (a signed file link names one file).
pub fn get_by_id(conn: &Connection, id: &str) -> crate::Result<Option<FileRow>> {
    Ok(conn
        .prepare_cached(
            "SELECT id, env, owner_id, kind, file_type, paper_size, bytes, created_at FROM files WHERE id = ?1",
        )?
        .query_row(params![id], from_row)
        .optional()?)
}

/// The file of `kind` that belongs to `owner_id` (a label's label document, say).
/// The owner's file of `kind` in `file_type` (a manifest has a PDF and a CSV).
pub fn of_owner_as(
    conn: &Connection,
    env: &str,
    owner_id: &str,
    kind: &str,
    file_type: &str,
) -> crate::Result<Option<FileRow>> {
    Ok(conn
        .prepare_cached(
            "SELECT id, env, owner_id, kind, file_type, paper_size, bytes, created_at FROM files
         WHERE owner_id = ?1 AND env = ?2 AND kind = ?3 AND file_type = ?4 ORDER BY created_at LIMIT 1",
        )?
        .query_row(params![owner_id, env, kind, file_type], from_row)
        .optional()?)
}

pub fn of_owner(conn: &Connection, env: &str, owner_id: &str, kind: &str) -> crate::Result<Option<FileRow>> {
    Ok(conn
        .prepare_cached(
            "SELECT id, env, owner_id, kind, file_type, paper_size, bytes, created_at FROM files
         WHERE owner_id = ?1 AND env = ?2 AND kind = ?3 ORDER BY created_at LIMIT 1",
        )?
        .query_row(params![owner_id, env, kind], from_row)
        .optional()?)
}

/// Document files in the shared database: a reprint at any desk is the very same document.
pub mod pg {
    use super::FileRow;
    use postgres::types::Type;
    use postgres::GenericClient;

    const COLS: &str = "id, env, owner_id, kind, file_type, paper_size, bytes, created_at";

    fn from_row(r: &postgres::Row) -> FileRow {
        FileRow {
            id: r.get(0),
            env: r.get(1),
            owner_id: r.get(2),
            kind: r.get(3),
            file_type: r.get(4),
            paper_size: r.get(5),
            bytes: r.get(6),
            created_at: r.get(7),
        }
    }

    /// Typed parameters: one round trip, no prepare (a file or more for every label).
    pub fn insert(tx: &mut impl GenericClient, f: &FileRow) -> crate::Result<()> {
        crate::pg::query(
            tx,
            &format!("INSERT INTO files ({COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"),
            &[
                (&f.id, Type::TEXT),
                (&f.env, Type::TEXT),
                (&f.owner_id, Type::TEXT),
                (&f.kind, Type::TEXT),
                (&f.file_type, Type::TEXT),
                (&f.paper_size, Type::TEXT),
                (&f.bytes, Type::BYTEA),
                (&f.created_at, Type::INT8),
            ],
        )?;
        Ok(())
    }

    pub fn get(client: &mut impl GenericClient, env: &str, id: &str) -> crate::Result<Option<FileRow>> {
        let sql = format!("SELECT {COLS} FROM files WHERE id = $1 AND env = $2");
        Ok(client.query_opt(&sql, &[&id, &env])?.as_ref().map(from_row))
    }

    /// A file by its id alone, whatever its environment (a signed file link names one file).
    pub fn get_by_id(client: &mut impl GenericClient, id: &str) -> crate::Result<Option<FileRow>> {
        let sql = format!("SELECT {COLS} FROM files WHERE id = $1");
        Ok(client.query_opt(&sql, &[&id])?.as_ref().map(from_row))
    }

    /// The owner's first file of `kind` (in `file_type`, when given).
    pub fn of_owner(
        client: &mut impl GenericClient,
        env: &str,
        owner_id: &str,
        kind: &str,
        file_type: Option<&str>,
    ) -> crate::Result<Option<FileRow>> {
        let sql = format!(
            "SELECT {COLS} FROM files WHERE owner_id = $1 AND env = $2 AND kind = $3
             AND ($4::text IS NULL OR file_type = $4) ORDER BY created_at LIMIT 1"
        );
        Ok(client
            .query_opt(&sql, &[&owner_id, &env, &kind, &file_type])?
            .as_ref()
            .map(from_row))
    }
}
