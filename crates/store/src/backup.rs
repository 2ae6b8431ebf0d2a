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

/// Pages a copy step takes (4 KB each), and the pause after it.
const PAGES_A_STEP: u64 = 512;
const PAUSE: std::time::Duration = std::time::Duration::from_millis(4);

fn read_only(file: &Path) -> Result<Connection> {
    let conn = Connection::open_with_flags(file, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.busy_timeout(std::time::Duration::from_secs(30))?;
    Ok(conn)
}

/// Copies the database `from` into the new file `to`, whole, in one step.
pub fn copy(from: &Path, to: &Path) -> Result<()> {
    let src = read_only(from)?;
    // One read transaction for the whole copy: every step reads the same snapshot, so the desk's
    // commits meanwhile neither change the copy nor make it start again (WAL: they go on).
    src.execute_batch("BEGIN; SELECT COUNT(*) FROM sqlite_master;")?;
    let mut dst = Connection::open(to)?;
    // The copy is a new file, synced once when whole (below): no journal and no sync per page,
    // whose flushes would hold up the desk's own commits on the same disk.
    dst.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")?;
    {
        let backup = rusqlite::backup::Backup::new(&src, &mut dst)?;
        let mut steps = 0u64;
        loop {
            // A few MB at a time with a pause between: the desk's requests keep the processor
            // (a copy in one go takes a core for its whole time). Should the copy start again
            // after all, past three times its steps it goes in one.
            let pages = if steps > 3 * (backup.progress().pagecount as u64 / PAGES_A_STEP + 1) {
                -1
            } else {
                PAGES_A_STEP as i32
            };
            steps += 1;
            match backup.step(pages)? {
                rusqlite::backup::StepResult::Done => break,
                rusqlite::backup::StepResult::More => std::thread::sleep(PAUSE),
                // A lock the copy needs was held: a moment, then again.
                _ => std::thread::sleep(std::time::Duration::from_millis(50)),
            }
        }
    }
    src.execute_batch("COMMIT")?;
    drop(dst);
    std::fs::File::open(to)
        .and_then(|f| f.sync_all())
        .map_err(|e| StoreError::Unreadable(format!("the copy could not be synced: {e}")))
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
