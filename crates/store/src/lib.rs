//! The SQLite store. One writer connection (every write is one `BEGIN IMMEDIATE` transaction) and a
//! small pool of readers; WAL mode, so readers never wait for the writer.

pub mod accounts;
pub mod files;
pub mod jobs;
pub mod keys;
pub mod labels;
pub mod migrations;
pub mod paging;
pub mod printing;
pub mod records;
pub mod tracking;
pub mod webhooks;

use packdesk_model::{ErrorCode, ServiceError};
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub use rusqlite;

pub struct Store {
    path: PathBuf,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
    /// Held for its Drop, which stops the thread.
    _checkpointer: Option<Checkpointer>,
}

/// Copies the WAL back into the database from a thread of its own (PASSIVE: never waits for or
/// blocks a writer), so no label's commit pays for a checkpoint.
struct Checkpointer {
    stop: std::sync::mpsc::Sender<()>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Checkpointer {
    fn start(path: &Path) -> Option<Checkpointer> {
        let conn = open_conn(path).ok()?;
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("packdesk-checkpoint".into())
            .spawn(move || {
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(std::time::Duration::from_millis(200)) {
                    let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                }
            })
            .ok()?;
        Some(Checkpointer { stop, thread: Some(thread) })
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        let _ = self.stop.send(());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Turns a database error into the core error: "busy" is worth a retry, anything else is a fault.
pub fn db_error(e: rusqlite::Error) -> ServiceError {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy) | Some(rusqlite::ErrorCode::DatabaseLocked) => {
            ServiceError::at(ErrorCode::InternalRetry, "", "the database is busy")
        }
        _ => ServiceError::internal(format!("database: {e}")),
    }
}

fn open_conn(path: &Path) -> rusqlite::Result<Connection> {
    let c = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    c.busy_timeout(std::time::Duration::from_secs(5))?;
    // WAL + NORMAL: a committed transaction survives a process crash; an OS crash may lose the
    // last commits but never corrupts the file.
    c.pragma_update(None, "journal_mode", "WAL")?;
    c.pragma_update(None, "synchronous", "NORMAL")?;
    c.pragma_update(None, "foreign_keys", "ON")?;
    Ok(c)
}

impl Store {
    pub fn open(path: &Path) -> Result<Store, ServiceError> {
        let mut writer = open_conn(path).map_err(db_error)?;
        migrations::migrate(&mut writer).map_err(db_error)?;
        // Commits never checkpoint while the checkpointer thread does (see `Checkpointer`).
        let checkpointer = Checkpointer::start(path);
        if checkpointer.is_some() {
            writer.pragma_update(None, "wal_autocheckpoint", 0).map_err(db_error)?;
        }
        Ok(Store { path: path.to_path_buf(), writer: Mutex::new(writer), readers: Mutex::new(Vec::new()), _checkpointer: checkpointer })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` in one write transaction; it commits only if `f` returns Ok, else rolls back.
    pub fn write<T, E: From<ServiceError>>(&self, f: impl FnOnce(&Transaction) -> Result<T, E>) -> Result<T, E> {
        let mut conn = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_error)?;
        let out = f(&tx)?;
        tx.commit().map_err(db_error)?;
        Ok(out)
    }

    /// Runs `f` on a reader connection (a consistent snapshot for the statements it runs in one
    /// transaction; plain statements see the latest commit).
    pub fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T, ServiceError>) -> Result<T, ServiceError> {
        let conn = {
            let mut pool = self.readers.lock().unwrap_or_else(|p| p.into_inner());
            pool.pop()
        };
        let conn = match conn {
            Some(c) => c,
            None => open_conn(&self.path).map_err(db_error)?,
        };
        let out = f(&conn);
        let mut pool = self.readers.lock().unwrap_or_else(|p| p.into_inner());
        if pool.len() < 8 {
            pool.push(conn);
        }
        out
    }
}

/// Microseconds since the Unix epoch: the store's time unit (ordering and paging).
pub type Micros = i64;
