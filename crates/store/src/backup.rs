//! A desk's database copied to a backup file and back (`packdesk-server backup`, `restore`): the
//! copy by SQLite's online backup API in one read transaction (in WAL mode the desk's writer does
//! not wait for it, and a write meanwhile does not make it start again), checked by
//! `PRAGMA integrity_check`, marked with a `packdesk_backup` row (when it was made, and the vault
//! key when the service seals one in).

use crate::{Result, StoreError};
use rusqlite::{Connection, OpenFlags};
use std::path::Path;

/// What a backup's mark holds: the vault key sealed under a passphrase, when one was put in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mark {
    pub made_at: String,
    pub vault_salt: Option<Vec<u8>>,
    pub vault_sealed: Option<Vec<u8>>,
}

fn read_only(file: &Path) -> Result<Connection> {
    let conn = Connection::open_with_flags(file, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.busy_timeout(std::time::Duration::from_secs(30))?;
    Ok(conn)
}

/// Copies the database `from` into the new file `to`, whole, in one step.
pub fn copy(from: &Path, to: &Path) -> Result<()> {
    let src = read_only(from)?;
    let mut dst = Connection::open(to)?;
    let backup = rusqlite::backup::Backup::new(&src, &mut dst)?;
    loop {
        match backup.step(-1)? {
            rusqlite::backup::StepResult::Done => return Ok(()),
            // A lock the copy needs was held: a moment, then again.
            _ => std::thread::sleep(std::time::Duration::from_millis(50)),
        }
    }
}

/// SQLite's own check of a whole file.
pub fn check(file: &Path) -> Result<()> {
    let verdict: String = read_only(file)?.query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
    match verdict.as_str() {
        "ok" => Ok(()),
        other => Err(StoreError::Unreadable(format!("a damaged copy ({other})"))),
    }
}

/// Marks a copy as a backup (one file, journal in it: nothing beside it to lose).
pub fn mark(file: &Path, m: &Mark) -> Result<()> {
    let conn = Connection::open(file)?;
    conn.execute_batch(
        "PRAGMA journal_mode = DELETE;
         CREATE TABLE packdesk_backup (made_at TEXT NOT NULL, vault_salt BLOB, vault_sealed BLOB);",
    )?;
    conn.execute(
        "INSERT INTO packdesk_backup (made_at, vault_salt, vault_sealed) VALUES (?1, ?2, ?3)",
        rusqlite::params![m.made_at, m.vault_salt, m.vault_sealed],
    )?;
    Ok(())
}

/// The mark of a backup file; None when the file is no backup (no mark, or no database at all).
pub fn read_mark(file: &Path) -> Result<Option<Mark>> {
    let conn = read_only(file)?;
    let row = conn.query_row(
        "SELECT made_at, vault_salt, vault_sealed FROM packdesk_backup",
        [],
        |r| {
            Ok(Mark {
                made_at: r.get(0)?,
                vault_salt: r.get(1)?,
                vault_sealed: r.get(2)?,
            })
        },
    );
    match row {
        Ok(m) => Ok(Some(m)),
        Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::NotADatabase => Ok(None),
        Err(rusqlite::Error::SqliteFailure(_, Some(msg))) if msg.contains("no such table") => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// A restored copy made a desk's database again: the mark gone, WAL as the desk runs it.
pub fn unmark(file: &Path) -> Result<()> {
    Connection::open(file)?.execute_batch("DROP TABLE packdesk_backup; PRAGMA journal_mode = WAL;")?;
    Ok(())
}

/// The schema version of a database file and the labels in it.
pub fn contents(file: &Path) -> Result<(usize, i64)> {
    let conn = read_only(file)?;
    let labels = conn.query_row("SELECT COUNT(*) FROM labels", [], |r| r.get(0))?;
    Ok((crate::migrations::version(&conn)?, labels))
}
