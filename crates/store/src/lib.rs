//! The SQLite store. One writer connection (every write is one `BEGIN IMMEDIATE` transaction) and a
//! small pool of readers; WAL mode, so readers never wait for the writer. `pg` is the shared store
//! of many desks on PostgreSQL; `db` chooses one; each table module's functions run on either
//! (`sql`).
#![forbid(unsafe_code)]

pub mod accounts;
pub mod audit;
pub mod backup;
pub mod batches;
pub mod copy;
pub mod db;
pub mod file_parts;
pub mod files;
pub mod gauges;
pub mod idempotency;
pub mod integration_keys;
pub mod jobs;
pub mod keys;
pub mod labels;
pub mod meta;
pub mod migrations;
pub mod operators;
pub mod orders;
pub mod packing;
pub mod paging;
pub mod pg;
pub mod pg_tls;
pub mod presets;
pub mod printing;
pub mod records;
pub mod reports;
pub mod returns;
pub mod sql;
pub mod stored_json;
pub mod timing;
pub mod tracking;
pub mod transmissions;
pub mod upstream_refs;
pub mod webhooks;
mod writer;
use writer::Length;

use packdesk_model::{ErrorCode, ServiceError};
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use timing::{time, Phase};

pub use rusqlite;

pub struct Store {
    path: PathBuf,
    writer: Mutex<writer::Writer>,
    /// Writes waiting for the commit of the batch they joined (`writer`).
    batches: writer::Batches,
    /// Group commit: makes commits durable with one shared fsync of the WAL.
    durability: Durability,
    readers: Mutex<Readers>,
    /// Held for its Drop, which stops the thread: after the connections above (fields drop in
    /// order), since the thread's own descriptor of the database must close last.
    _checkpointer: Option<Checkpointer>,
    /// How far the checkpointer has copied the WAL back, and the size of a WAL frame.
    wal_progress: std::sync::Arc<WalProgress>,
    wal_frame_bytes: u64,
}

/// Copies the WAL back into the database from a thread of its own (PASSIVE: never waits for or
/// blocks a writer), so no label's commit pays for copying it. While it finds frames to copy it
/// goes on at once; idle, it looks five times a second. What it has copied is told to the writer
/// (`WalProgress`), which restarts the WAL once little of it is left to copy
/// (`Store::restart_wal_when_copied`).
struct Checkpointer {
    stop: std::sync::mpsc::Sender<()>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// How far the background checkpointer has copied the WAL back (in frames from its start), for
/// the writer's choice of when to restart it.
#[derive(Default)]
struct WalProgress {
    /// The restarts so far and the frames copied since the last: a pass that began before a
    /// restart reports the old WAL's count, which must not pass for the new one's.
    copied: Mutex<Copied>,
    /// Frames in the WAL after the last commit (SQLite's WAL hook on the writer).
    logged_frames: std::sync::atomic::AtomicU64,
    /// When the writer last waited for readers to restart a WAL past its bound.
    last_wait: Mutex<Option<std::time::Instant>>,
    /// When a WAL that cannot restart was last told of.
    last_told_held: Mutex<Option<std::time::Instant>>,
}

/// The reader connections: those idle, and the reads in progress (when each began and where it
/// was asked for): a read holds its snapshot, and the WAL cannot restart past it, so the warning
/// of a WAL that cannot restart names the oldest.
#[derive(Default)]
struct Readers {
    idle: Vec<Connection>,
    reading: Vec<Reading>,
    next_id: u64,
}

struct Reading {
    id: u64,
    since: std::time::Instant,
    caller: &'static std::panic::Location<'static>,
}

/// A read counted in `Readers::reading` while it lasts: gone when dropped, when the read ends or
/// fails or panics; a read longer than `SLOW_READ` is logged then, with where it was asked for
/// (the WAL grows while it holds its snapshot).
struct ReadInProgress<'a> {
    readers: &'a Mutex<Readers>,
    id: u64,
    since: std::time::Instant,
    caller: &'static std::panic::Location<'static>,
}

impl<'a> ReadInProgress<'a> {
    fn begin(readers: &'a Mutex<Readers>, caller: &'static std::panic::Location<'static>) -> Self {
        let since = std::time::Instant::now();
        let mut pool = readers.lock().unwrap_or_else(|p| p.into_inner());
        pool.next_id += 1;
        let id = pool.next_id;
        pool.reading.push(Reading { id, since, caller });
        ReadInProgress {
            readers,
            id,
            since,
            caller,
        }
    }
}

impl Drop for ReadInProgress<'_> {
    fn drop(&mut self) {
        let id = self.id;
        self.readers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .reading
            .retain(|r| r.id != id);
        let took = self.since.elapsed();
        if took >= SLOW_READ {
            tracing::warn!(caller = %self.caller, seconds = took.as_secs_f64(), "a read of the database took long: the write-ahead log grows while one lasts");
        }
    }
}

#[derive(Default, Clone, Copy)]
struct Copied {
    restarts: u64,
    frames: u64,
}

impl WalProgress {
    fn copied(&self) -> Copied {
        *self.copied.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A checkpointer pass that began at `restarts` copied `frames`: the count before it, or None
    /// if the WAL was restarted meanwhile (the count is the old WAL's, and dropped).
    /// (A pass after a restart and before the next commit still reads the old WAL's header: its
    /// count is held to the frames logged since the restart.)
    fn copied_since(&self, restarts: u64, frames: u64) -> Option<u64> {
        let mut copied = self.copied.lock().unwrap_or_else(|p| p.into_inner());
        let frames = frames.min(self.logged_frames.load(Ordering::Relaxed));
        (copied.restarts == restarts).then(|| std::mem::replace(&mut copied.frames, frames))
    }

    fn restarted(&self) {
        let mut copied = self.copied.lock().unwrap_or_else(|p| p.into_inner());
        *copied = Copied {
            restarts: copied.restarts + 1,
            frames: 0,
        };
        self.logged_frames.store(0, Ordering::Relaxed);
    }

    /// Whether the writer may wait for readers now: once in `WAL_WAIT_EVERY` at most, as every
    /// label waits with it.
    fn may_wait_now(&self) -> bool {
        let last = self.last_wait.lock().unwrap_or_else(|p| p.into_inner());
        last.is_none_or(|at| at.elapsed() >= WAL_WAIT_EVERY)
    }

    /// Whether to tell of a held WAL now (once in `WAL_HELD_TOLD_EVERY`); counts it told.
    fn may_tell_held_now(&self) -> bool {
        let mut last = self.last_told_held.lock().unwrap_or_else(|p| p.into_inner());
        let now = std::time::Instant::now();
        let may = last.is_none_or(|at| now - at >= WAL_HELD_TOLD_EVERY);
        if may {
            *last = Some(now);
        }
        may
    }

    fn waited(&self) {
        *self.last_wait.lock().unwrap_or_else(|p| p.into_inner()) = Some(std::time::Instant::now());
    }
}

impl Checkpointer {
    fn start(path: &Path, progress: std::sync::Arc<WalProgress>) -> Option<Checkpointer> {
        let conn = open_conn(path).ok()?;
        let path = path.to_path_buf();
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("packdesk-checkpoint".into())
            .spawn(move || {
                // Closing any descriptor of the database drops every POSIX lock this process holds
                // on it (SQLite's too): this one is closed only after its own connection, and the
                // store's connections are closed before this thread stops (`Store`'s fields).
                let database = std::fs::OpenOptions::new().write(true).open(&path).ok();
                let mut pause = CHECKPOINT_IDLE;
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(pause) {
                    let restarts = progress.copied().restarts;
                    // (busy, frames in the WAL, frames copied back)
                    let pass = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                        Ok((r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
                    });
                    let pass = pass.ok().filter(|(logged, copied)| *logged >= 0 && *copied >= 0);
                    pause = match pass
                        .map(|(logged, copied)| (logged, copied, progress.copied_since(restarts, copied as u64)))
                    {
                        // The writer restarted the WAL meanwhile: a new one to copy.
                        Some((_, _, None)) => CHECKPOINT_BUSY,
                        Some((logged, copied, Some(before))) => {
                            // SQLite syncs the database after a pass only when it copied the
                            // whole WAL, which back-to-back commits never let it: what it copied
                            // stays in the page cache, and the writer's restart would flush all of
                            // it under the writer (20-50 ms in a minute of labels). Synced here,
                            // off any lock, the restart flushes only its own little.
                            if let (true, Some(database)) = (copied as u64 != before, &database) {
                                let _ = database.sync_data();
                            }
                            // More came while it copied: go on soon.
                            match copied as u64 != before && copied < logged {
                                true => CHECKPOINT_BUSY,
                                false => CHECKPOINT_IDLE,
                            }
                        }
                        None => CHECKPOINT_IDLE,
                    };
                }
                drop(conn);
                drop(database);
            })
            .ok()?;
        Some(Checkpointer {
            stop,
            thread: Some(thread),
        })
    }
}

/// The background checkpointer's pause when it found nothing to copy, and between passes while
/// labels keep coming.
const CHECKPOINT_IDLE: std::time::Duration = std::time::Duration::from_millis(200);
const CHECKPOINT_BUSY: std::time::Duration = std::time::Duration::from_millis(1);

impl Drop for Checkpointer {
    fn drop(&mut self) {
        let _ = self.stop.send(());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A failure of the database, with SQLite's own error as its cause.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another connection holds a lock longer than the busy timeout: worth a retry.
    #[error("the database is busy")]
    Busy(#[source] rusqlite::Error),
    /// The transaction rolled back whole; nothing was half-written.
    #[error("the disk of the data folder is full")]
    DiskFull(#[source] rusqlite::Error),
    #[error("database error")]
    Sqlite(#[source] rusqlite::Error),
    /// The disk did not confirm a commit's sync: it may be lost in a power cut.
    #[error("the data folder's disk did not confirm the write")]
    Unsynced(#[source] std::io::Error),
    /// A value in the database that none of its type's words are: written by something else.
    #[error("the database holds {0}")]
    Unreadable(String),
    /// The shared PostgreSQL database refused or lost the statement.
    #[error("shared database error")]
    Postgres(#[source] postgres::Error),
    /// The shared database's TLS refused the connection, said in words (see `pg_tls`).
    #[error("{0}")]
    Tls(String),
}

impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> Self {
        StoreError::Postgres(e)
    }
}

/// What PostgreSQL said (its own message; the client's Display of a database error is only
/// "db error").
fn postgres_text(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => db.message().to_string(),
        None => e.to_string(),
    }
}

/// The way to the database failed (a connection refused, dropped or lost mid-statement): the
/// database is restarting, failing over, or the network is down.
fn postgres_unreachable(e: &postgres::Error) -> bool {
    e.is_closed() || std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>())
}

/// A PostgreSQL failure worth sending again: the transaction lost a serialization or deadlock
/// check, or the database (or the way to it) went away; it rolled back whole.
fn postgres_retryable(e: &postgres::Error) -> bool {
    use postgres::error::SqlState;
    postgres_unreachable(e)
        || e.code().is_some_and(|c| {
            [
                SqlState::T_R_SERIALIZATION_FAILURE,
                SqlState::T_R_DEADLOCK_DETECTED,
                SqlState::LOCK_NOT_AVAILABLE,
                SqlState::ADMIN_SHUTDOWN,
                SqlState::CANNOT_CONNECT_NOW,
                SqlState::TOO_MANY_CONNECTIONS,
            ]
            .contains(c)
        })
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy) | Some(rusqlite::ErrorCode::DatabaseLocked) => StoreError::Busy(e),
            Some(rusqlite::ErrorCode::DiskFull) => StoreError::DiskFull(e),
            _ => StoreError::Sqlite(e),
        }
    }
}

/// The core error a caller sees: "busy" and "disk full" are worth a retry, anything else is a
/// fault; the database's error stays attached as the cause (the log shows it).
impl From<StoreError> for ServiceError {
    fn from(e: StoreError) -> Self {
        let seen = match &e {
            StoreError::Busy(_) => ServiceError::at(ErrorCode::InternalRetry, "", "the database is busy"),
            StoreError::DiskFull(_) => ServiceError::at(
                ErrorCode::InternalRetry,
                "",
                "the disk of the data folder is full: nothing was saved; free some space and send the request again",
            ),
            StoreError::Sqlite(cause) => ServiceError::internal(format!("database: {cause}")),
            StoreError::Unreadable(what) => ServiceError::internal(format!("database: it holds {what}")),
            StoreError::Unsynced(cause) => ServiceError::at(
                ErrorCode::InternalRetry,
                "",
                format!("the data folder's disk did not confirm the write ({cause}); send the request again"),
            ),
            StoreError::Postgres(cause) if postgres_unreachable(cause) => ServiceError::at(
                ErrorCode::InternalRetry,
                "",
                format!(
                    "the shared database cannot be reached right now ({}): send the request again in a moment; \
                     the desk looks for it by itself",
                    postgres_text(cause)
                ),
            ),
            StoreError::Postgres(cause) if postgres_retryable(cause) => ServiceError::at(
                ErrorCode::InternalRetry,
                "",
                format!(
                    "the shared database did not take the write ({}); send the request again",
                    postgres_text(cause)
                ),
            ),
            StoreError::Postgres(cause) => ServiceError::internal(format!("shared database: {}", postgres_text(cause))),
            StoreError::Tls(words) => ServiceError::internal(format!("shared database: {words}")),
        };
        seen.caused_by(e)
    }
}

/// What the store's functions answer.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Turns a database error into the core error (for the few statements the service runs itself).
pub fn db_error(e: impl Into<StoreError>) -> ServiceError {
    e.into().into()
}

fn open_conn(path: &Path) -> rusqlite::Result<Connection> {
    let c = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    c.busy_timeout(BUSY_TIMEOUT)?;
    // WAL + FULL: a committed transaction survives a process crash and a power cut alike. The
    // writer connection commits at NORMAL instead and `Store::write` syncs the WAL itself after
    // the commit, once for every commit waiting (group commit: see `Durability`).
    c.pragma_update(None, "journal_mode", "WAL")?;
    c.pragma_update(None, "synchronous", "FULL")?;
    c.pragma_update(None, "foreign_keys", "ON")?;
    // 8 MiB of page cache (SQLite's default is 2): searches over a million orders or labels keep
    // their index pages; the writer gets more below.
    c.pragma_update(None, "cache_size", -8192)?;
    // Every statement of the store stays prepared (rusqlite keeps 16 by default: the writer runs
    // more than that in turn, so a label's statements were prepared again and again).
    c.set_prepared_statement_cache_capacity(STATEMENTS_KEPT);
    Ok(c)
}

/// How many prepared statements a connection keeps: more than the store has.
const STATEMENTS_KEPT: usize = 512;

impl Store {
    pub fn open(path: &Path) -> Result<Store, ServiceError> {
        private_file(path)?;
        let mut writer = open_conn(path).map_err(db_error)?;
        let version = migrations::version(&writer)?;
        if version > migrations::LATEST {
            return Err(ServiceError::internal(format!(
                "the database {} was written by a newer Packdesk (schema {version}; this one knows up to {}): \
                 it was not opened, so nothing in it changed. Start the newer Packdesk, or restore a backup made \
                 with this version",
                path.display(),
                migrations::LATEST
            )));
        }
        migrations::migrate(&mut writer)?;
        // SQLite gives the WAL and shared-memory files the database file's mode (files left by an
        // older Packdesk are tightened with the whole data folder by the service at start).
        // Commits never checkpoint while the checkpointer thread does (see `Checkpointer`).
        let wal_progress = std::sync::Arc::new(WalProgress::default());
        let checkpointer = Checkpointer::start(path, wal_progress.clone());
        if checkpointer.is_some() {
            writer.pragma_update(None, "wal_autocheckpoint", 0).map_err(db_error)?;
        }
        writer.pragma_update(None, "synchronous", "NORMAL").map_err(db_error)?;
        // The writer updates every index of a big table (an import of 10,000 orders into a store
        // of half a million): 32 MiB keeps their pages warm.
        writer.pragma_update(None, "cache_size", -32768).map_err(db_error)?;
        // Each write of a batch runs in a savepoint (`writer.rs`), which keeps the earlier
        // contents of the pages it changes (SQLite's sub-journal) to roll back to: in memory, not
        // in a temporary file made and written page by page once it passed 64 KiB (7 % of the
        // desk's CPU at 1,450 labels/s). Freed at each commit.
        writer.pragma_update(None, "temp_store", "MEMORY").map_err(db_error)?;
        // A WAL that a long read let grow past its bound (the daily backup's copy, under load) is
        // cut back to this at its next restart instead of staying at its largest. Never cut in
        // ordinary work (it stays under `WAL_MOST_BYTES` and a little): see
        // `restart_wal_when_copied` for what cutting and growing again costs.
        writer
            .pragma_update(None, "journal_size_limit", WAL_KEPT_BYTES as i64)
            .map_err(db_error)?;
        // The WAL's length after each commit, for the restart (a hook replaces SQLite's automatic
        // checkpoint: without the checkpointer thread that one stays in charge).
        if checkpointer.is_some() {
            let logged = wal_progress.clone();
            writer
                .wal_hook(Some(move |_: &mut rusqlite::hooks::Wal, frames: std::ffi::c_int| {
                    logged.logged_frames.store(frames.max(0) as u64, Ordering::Relaxed);
                    Ok(())
                }))
                .map_err(db_error)?;
        }
        let page_size: u32 = writer
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .map_err(db_error)?;
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        Ok(Store {
            path: path.to_path_buf(),
            writer: Mutex::new(writer::Writer::new(writer)),
            batches: writer::Batches::default(),
            durability: Durability::new(PathBuf::from(wal)),
            readers: Mutex::new(Readers::default()),
            _checkpointer: checkpointer,
            wal_progress,
            wal_frame_bytes: u64::from(page_size) + 24,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` in one write transaction; it commits only if `f` returns Ok, else rolls back.
    /// It returns once the commit is on disk (it survives a power cut).
    pub fn write<T, E: From<StoreError>>(&self, f: impl FnOnce(&Connection) -> Result<T, E>) -> Result<T, E> {
        self.write_durably(f, Length::Short)
    }

    /// `write`, for a write that may hold the writer long (`Length::Long`): the writes of the
    /// batch open before it commit first instead of waiting for it.
    pub fn write_long<T, E: From<StoreError>>(&self, f: impl FnOnce(&Connection) -> Result<T, E>) -> Result<T, E> {
        self.write_durably(f, Length::Long)
    }

    /// Commits `f` (see `writer.rs`) and returns once the commit is on disk.
    fn write_durably<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, E>,
        length: Length,
    ) -> Result<T, E> {
        let (out, seq) = self.commit(f, length)?;
        time(Phase::Sync, || self.durability.wait_for(seq))?;
        Ok(out)
    }

    /// Like `write`, for records whose loss in a power cut costs nothing but a repeat (webhook
    /// attempts: a delivery is at least once anyway): it does not wait for the disk (the next
    /// durable commit's sync covers it), so such records never slow a label.
    pub fn write_relaxed<T, E: From<StoreError>>(&self, f: impl FnOnce(&Connection) -> Result<T, E>) -> Result<T, E> {
        self.commit(f, Length::Short).map(|(out, _)| out)
    }

    /// `write_relaxed`, for a write that may hold the writer long (`Length::Long`): derived
    /// records made again from durable ones after a power cut (History's word index).
    pub fn write_long_relaxed<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        self.commit(f, Length::Long).map(|(out, _)| out)
    }

    /// Returns once every commit made so far, relaxed ones too, is on disk: one sync for many
    /// relaxed writes whose loss would cost more than a repeat of a few milliseconds' worth.
    /// A sync of the WAL covers every commit before it, so this first waits up to `grace` for
    /// a durable commit's (under load a label's comes every few milliseconds) and syncs itself
    /// only if none came: a sync of their own for the print outcomes was every other flush of
    /// the disk at 500 labels/s (issue 42).
    pub fn sync_within(&self, grace: std::time::Duration) -> Result<(), StoreError> {
        let latest = self.durability.latest();
        time(Phase::Sync, || self.durability.wait_for_within(latest, grace))
    }

    /// Back-to-back commits never let the background checkpointer finish, and a WAL that was
    /// never wholly copied back is never reused: it grows without end. Past a size, the writer
    /// (holding the writer, so nothing is added meanwhile) copies back what is left and has the
    /// next commit write the WAL from its start again (RESTART): once the background
    /// checkpointer has copied all but a little of it, so the commits waiting for the writer wait
    /// for that little only. The file is reused, not truncated: truncating it and growing it
    /// again cost the file system a journal commit each time (issue 42: 20 to 30 ms under the
    /// writer, docs/label-latency.md). The checkpoint syncs the database, so the commits waiting
    /// for a sync of the WAL lose nothing. Busy readers: try again at the next commit.
    fn restart_wal_when_copied(&self, conn: &Connection) {
        let frames = self.wal_progress.logged_frames.load(Ordering::Relaxed);
        if frames * self.wal_frame_bytes <= WAL_RESET_BYTES {
            return;
        }
        let left = frames.saturating_sub(self.wal_progress.copied().frames);
        let past_the_bound = frames * self.wal_frame_bytes > WAL_MOST_BYTES;
        if left * self.wal_frame_bytes > WAL_LEFT_TO_COPY_BYTES && !past_the_bound {
            return;
        }
        // A reader on an older snapshot makes the restart busy. Mostly it does not wait: a long
        // reader (a backup copying the database, History's search) would hold every label's
        // commit up until it ends. Past the bound, where short reads (a label's lookups, the
        // print and webhook workers') always left one in the way (the 5-minute soak's WAL reached
        // 90 MB), it waits a few milliseconds for them, once in a while.
        let wait = match past_the_bound && self.wal_progress.may_wait_now() {
            true => WAL_READERS_WAIT,
            false => std::time::Duration::ZERO,
        };
        time(Phase::Checkpoint, || {
            let _ = conn.busy_timeout(wait);
            let started = std::time::Instant::now();
            let done = conn.query_row("PRAGMA wal_checkpoint(RESTART)", [], |r| r.get::<_, i64>(0));
            match done {
                Ok(0) => self.wal_progress.restarted(),
                // Busy after waiting for readers (the busy handler's first sleep is 1 ms): not
                // again for a while. Busy at once (the checkpointer's pass held the checkpoint
                // lock, which SQLite takes without waiting) counts as no wait.
                _ if started.elapsed() >= std::time::Duration::from_millis(1) && !wait.is_zero() => {
                    self.wal_progress.waited()
                }
                _ => {}
            }
            let _ = conn.busy_timeout(BUSY_TIMEOUT);
            if past_the_bound && !matches!(done, Ok(0)) {
                self.tell_wal_held(frames);
            }
        });
    }

    /// Runs `f` on a reader connection (a consistent snapshot for the statements it runs in one
    /// transaction; plain statements see the latest commit). A read longer than `SLOW_READ` is
    /// logged with where it was asked for: the WAL grows while it holds its snapshot.
    #[track_caller]
    pub fn read<T, E: From<StoreError>>(&self, f: impl FnOnce(&Connection) -> Result<T, E>) -> Result<T, E> {
        let reading = ReadInProgress::begin(&self.readers, std::panic::Location::caller());
        let idle = self.readers.lock().unwrap_or_else(|p| p.into_inner()).idle.pop();
        let conn = match idle {
            Some(c) => c,
            None => open_conn(&self.path).map_err(StoreError::from)?,
        };
        let out = f(&conn);
        drop(reading);
        let mut pool = self.readers.lock().unwrap_or_else(|p| p.into_inner());
        // A connection left inside a transaction (a statement that failed to end one) would
        // serve an old snapshot and hold the WAL: not kept.
        if pool.idle.len() < 8 && conn.is_autocommit() {
            pool.idle.push(conn);
        }
        out
    }

    /// The WAL is past its bound and cannot restart: says so once in a while, with the oldest
    /// read in progress (the likeliest to hold it).
    fn tell_wal_held(&self, frames: u64) {
        let bytes = frames * self.wal_frame_bytes;
        if bytes < WAL_HELD_TOLD_BYTES || !self.wal_progress.may_tell_held_now() {
            return;
        }
        let (oldest, reads) = {
            let pool = self.readers.lock().unwrap_or_else(|p| p.into_inner());
            let oldest = pool.reading.iter().min_by_key(|r| r.since).map(|r| (r.since, r.caller));
            (oldest, pool.reading.len())
        };
        let megabytes = bytes / (1024 * 1024);
        match oldest {
            Some((since, caller)) => tracing::warn!(
                wal_mb = megabytes,
                reads_in_progress = reads,
                oldest_read_caller = %caller,
                oldest_read_seconds = since.elapsed().as_secs_f64(),
                "the write-ahead log cannot be restarted: reads hold it"
            ),
            None => tracing::warn!(
                wal_mb = megabytes,
                "the write-ahead log cannot be restarted, and no read of the store is in progress: a backup's copy holds it (or another connection to the file, or the checkpointer's pass)"
            ),
        }
    }
}

/// A read this long is logged (`Store::read`).
const SLOW_READ: std::time::Duration = std::time::Duration::from_secs(1);
/// A WAL this big that cannot restart is told of (`Store::tell_wal_held`), once in `WAL_HELD_TOLD_EVERY`.
const WAL_HELD_TOLD_BYTES: u64 = 2 * WAL_MOST_BYTES;
const WAL_HELD_TOLD_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// How long a statement waits for a lock another connection holds.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// A WAL past this size is restarted by the writer once the background checkpointer has copied
/// all but `WAL_LEFT_TO_COPY_BYTES` of it, or at `WAL_MOST_BYTES` whatever is left
/// (`Store::restart_wal_when_copied`).
const WAL_RESET_BYTES: u64 = 32 * 1024 * 1024;
const WAL_LEFT_TO_COPY_BYTES: u64 = 512 * 1024;
const WAL_MOST_BYTES: u64 = 48 * 1024 * 1024;
/// The largest WAL file kept after a restart (`PRAGMA journal_size_limit`).
const WAL_KEPT_BYTES: u64 = 60 * 1024 * 1024;
/// Past `WAL_MOST_BYTES`, how long the restart waits for readers, and how seldom.
const WAL_READERS_WAIT: std::time::Duration = std::time::Duration::from_millis(5);
const WAL_WAIT_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// Group commit. Commits go to the WAL without a sync (writer at `synchronous=NORMAL`), one after
/// another under the writer lock; then each waits outside the lock until an fsync of the WAL taken
/// after its commit has finished. One thread syncs at a time and its sync covers every commit made
/// before it started, so 8 clients share one fsync instead of queueing for 8. An fsync flushes the
/// file whatever descriptor it comes through, so this is the same guarantee as `synchronous=FULL`.
struct Durability {
    wal: PathBuf,
    state: Mutex<SyncState>,
    synced_cv: std::sync::Condvar,
}

#[derive(Default)]
struct SyncState {
    committed: u64,
    synced: u64,
    syncing: bool,
    /// Syncs of the WAL made (each a flush of the disk).
    syncs: u64,
}

impl Durability {
    fn new(wal: PathBuf) -> Durability {
        Durability {
            wal,
            state: Mutex::new(SyncState::default()),
            synced_cv: std::sync::Condvar::new(),
        }
    }

    /// Counts a commit just made; answers its number.
    fn committed(&self) -> u64 {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        st.committed += 1;
        st.committed
    }

    /// The number of the latest commit.
    fn latest(&self) -> u64 {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).committed
    }

    /// `wait_for`, letting another thread's sync that ends within `grace` cover `seq`.
    fn wait_for_within(&self, seq: u64, grace: std::time::Duration) -> Result<(), StoreError> {
        let st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        drop(self.synced_cv.wait_timeout_while(st, grace, |st| st.synced < seq));
        self.wait_for(seq)
    }

    /// Returns once commit `seq` is on disk.
    fn wait_for(&self, seq: u64) -> Result<(), StoreError> {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if st.synced >= seq {
                return Ok(());
            }
            if st.syncing {
                st = self.synced_cv.wait(st).unwrap_or_else(|p| p.into_inner());
                continue;
            }
            st.syncing = true;
            let upto = st.committed;
            drop(st);
            let synced = std::fs::OpenOptions::new()
                .write(true)
                .open(&self.wal)
                .and_then(|f| f.sync_data());
            st = self.state.lock().unwrap_or_else(|p| p.into_inner());
            st.syncing = false;
            st.syncs += 1;
            self.synced_cv.notify_all();
            match synced {
                Ok(()) => st.synced = st.synced.max(upto),
                Err(e) => return Err(StoreError::Unsynced(e)),
            }
        }
    }
}

/// Creates `path` readable and writable by its owner only (0600 on Unix), or tightens it when it
/// exists: the database holds the desk's records and sealed secrets.
pub fn private_file(path: &Path) -> Result<(), ServiceError> {
    let fail = |e: std::io::Error| ServiceError::internal(format!("cannot make {} private: {e}", path.display()));
    let mut opts = std::fs::OpenOptions::new();
    opts.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        opts.mode(0o600);
        opts.open(path).map_err(fail)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(fail)?;
    }
    #[cfg(not(unix))]
    opts.open(path).map_err(fail)?;
    Ok(())
}

/// Microseconds since the Unix epoch: the store's time unit (ordering and paging).
pub type Micros = i64;

#[cfg(test)]
mod disk_full_tests {
    use super::*;

    #[test]
    fn a_full_disk_is_a_retryable_error_in_plain_words_and_the_transaction_is_rolled_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite3")).unwrap();
        store
            .write(|tx| tx.execute_batch("CREATE TABLE t (x BLOB)").map_err(db_error))
            .unwrap();
        // SQLite answers SQLITE_FULL when the file may not grow: the same code as a full disk.
        {
            let c = &store.writer.lock().unwrap().conn;
            let pages: i64 = c.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
            c.pragma_update(None, "max_page_count", pages).unwrap();
        }
        let e = store
            .write(|tx| {
                tx.execute("INSERT INTO t VALUES (zeroblob(1000))", [])
                    .map_err(db_error)?;
                tx.execute("INSERT INTO t VALUES (zeroblob(10000000))", [])
                    .map_err(db_error)
            })
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::InternalRetry, "{e}");
        assert!(
            e.details[0].info.contains("disk")
                && e.details[0].info.contains("full")
                && !e.details[0].info.contains("SQL"),
            "{e}"
        );
        // The log gets SQLite's own words beneath the plain ones.
        assert!(e.chain().contains("database or disk is full"), "{}", e.chain());
        let n: i64 = store
            .read(|c| {
                c.query_row("SELECT COUNT(*) FROM t", [], |r| r.get(0))
                    .map_err(db_error)
            })
            .unwrap();
        assert_eq!(n, 0, "nothing of the transaction was written");
    }
}

#[cfg(test)]
mod group_commit_tests {
    use super::*;

    #[test]
    fn concurrent_writers_share_syncs_and_every_write_returns_only_once_synced() {
        let dir = tempfile::tempdir().unwrap();
        let store = std::sync::Arc::new(Store::open(&dir.path().join("db.sqlite3")).unwrap());
        store
            .write(|tx| tx.execute_batch("CREATE TABLE t (x INTEGER)").map_err(db_error))
            .unwrap();
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let store = store.clone();
                std::thread::spawn(move || {
                    for j in 0..100 {
                        store
                            .write(|tx| {
                                tx.execute("INSERT INTO t VALUES (?1)", [i * 1000 + j])
                                    .map_err(db_error)
                            })
                            .unwrap();
                        // Once write returned, its commit is covered by a finished sync.
                        let st = store.durability.state.lock().unwrap();
                        assert!(st.synced >= 1 && st.synced <= st.committed);
                    }
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        let n: i64 = store
            .read(|c| {
                c.query_row("SELECT COUNT(*) FROM t", [], |r| r.get(0))
                    .map_err(db_error)
            })
            .unwrap();
        assert_eq!(n, 800);
        let st = store.durability.state.lock().unwrap();
        assert_eq!(st.synced, st.committed, "the last writer waited for the last sync");
        // Writes that came together shared commits (`writer`): never more commits than writes.
        assert!(st.committed <= 801, "{} commits", st.committed);
    }

    #[test]
    fn relaxed_writes_ride_the_next_durable_sync_and_sync_themselves_when_none_comes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite3")).unwrap();
        store
            .write(|tx| tx.execute_batch("CREATE TABLE t (x INTEGER)").map_err(db_error))
            .unwrap();
        let insert = |x: i64| move |tx: &Connection| tx.execute("INSERT INTO t VALUES (?1)", [x]).map_err(db_error);
        let syncs = || store.durability.state.lock().unwrap().syncs;
        let all_synced = || {
            let st = store.durability.state.lock().unwrap();
            st.synced == st.committed
        };

        // Nothing else writes: after the grace, a sync of their own.
        store.write_relaxed(insert(1)).unwrap();
        let before = syncs();
        store.sync_within(std::time::Duration::from_millis(1)).unwrap();
        assert!(all_synced());
        assert_eq!(syncs(), before + 1);

        // A label's durable write comes within the grace: its sync covers them, none more.
        store.write_relaxed(insert(2)).unwrap();
        let before = syncs();
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(20));
                store.write(insert(3)).unwrap();
            });
            store.sync_within(std::time::Duration::from_secs(60)).unwrap();
        });
        assert!(all_synced());
        assert_eq!(syncs(), before + 1, "only the durable write's sync");
    }
}

#[cfg(test)]
mod wal_size_tests {
    use super::*;

    /// A store in `dir` (its file `db.sqlite3`) with a table of blobs `t (k, x)`.
    fn a_store_of_blobs(dir: &Path) -> Store {
        let store = Store::open(&dir.join("db.sqlite3")).unwrap();
        store
            .write(|tx| {
                tx.execute_batch("CREATE TABLE t (k INTEGER PRIMARY KEY, x BLOB)")
                    .map_err(db_error)
            })
            .unwrap();
        store
    }

    /// One of these tests at a time: each measures a WAL whose restarts depend on timing, and
    /// another's 100 MiB of writes beside it slowed its checkpoints past the bound.
    fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
        static RUNNING: Mutex<()> = Mutex::new(());
        RUNNING.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes back to back never leave the checkpointer a moment to finish, so without a reset the
    /// WAL only grows (a million labels' word index once filled 25 GB of disk).
    #[test]
    fn back_to_back_writes_keep_the_wal_bounded() {
        let _alone = one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let store = a_store_of_blobs(dir.path());
        let mut biggest = 0;
        for i in 0..800 {
            store
                .write_relaxed(|tx| {
                    tx.execute("INSERT OR REPLACE INTO t VALUES (?1, randomblob(262144))", [i % 50])
                        .map_err(db_error)
                })
                .unwrap();
            biggest = biggest.max(std::fs::metadata(dir.path().join("db.sqlite3-wal")).map_or(0, |m| m.len()));
        }
        // 800 writes of 256 KiB: 200 MiB went through the WAL. Past `WAL_MOST_BYTES` a restart
        // still waits for the checkpointer's pass to end, and the writes made meanwhile grow the
        // WAL on (a debug build beside the other tests' work: to 70-74 MiB).
        assert!(biggest < 2 * WAL_MOST_BYTES, "the WAL grew to {biggest} bytes");
    }

    /// Short reads one after another, as a busy desk's lookups and workers make them, always left
    /// a reader in the restart's way: past its bound the restart waits for them a little.
    #[test]
    fn the_wal_stays_bounded_while_short_reads_keep_coming() {
        let _alone = one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let store = std::sync::Arc::new(a_store_of_blobs(dir.path()));
        let writing = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (store, writing) = (store.clone(), writing.clone());
                std::thread::spawn(move || {
                    let mut reads = 0;
                    while writing.load(Ordering::Relaxed) {
                        store
                            .read(|c| {
                                c.execute_batch("BEGIN")?;
                                c.query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0))?;
                                std::thread::sleep(std::time::Duration::from_millis(1));
                                c.execute_batch("COMMIT").map_err(StoreError::from)
                            })
                            .unwrap();
                        reads += 1;
                    }
                    reads
                })
            })
            .collect();
        let mut biggest = 0;
        for i in 0..600 {
            store
                .write(|tx| {
                    tx.execute("INSERT OR REPLACE INTO t VALUES (?1, randomblob(262144))", [i % 50])
                        .map_err(db_error)
                })
                .unwrap();
            biggest = biggest.max(std::fs::metadata(dir.path().join("db.sqlite3-wal")).map_or(0, |m| m.len()));
        }
        writing.store(false, Ordering::Relaxed);
        let reads: usize = readers.into_iter().map(|r| r.join().unwrap()).sum();
        assert!(reads > 100, "the readers read {reads} times");
        // 600 writes of 256 KiB: 150 MiB went through the WAL; without the wait it grew to 100 to
        // 160 MB. A wait can miss a reader the machine did not run in time (the CI's tests beside
        // this one: 58 MiB once), and the next comes 100 ms later (8 MiB of writes here), so the
        // bound allows a few.
        assert!(
            biggest <= WAL_MOST_BYTES + 20 * 1024 * 1024,
            "the WAL grew to {biggest} bytes"
        );
    }

    /// A long read (the daily backup's copy) holds the WAL: it grows by every write meanwhile.
    /// Once the read ends, the file is cut back to `WAL_KEPT_BYTES` instead of staying at its
    /// largest (a 30-minute soak kept a WAL of 455 MB after its backup).
    #[test]
    fn a_wal_grown_under_a_long_read_is_cut_back_once_it_ends() {
        let _alone = one_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite3");
        let wal = dir.path().join("db.sqlite3-wal");
        let store = a_store_of_blobs(dir.path());
        let write = |i: i64| {
            let _ = store
                .write_relaxed(|tx| {
                    tx.execute("INSERT OR REPLACE INTO t VALUES (?1, randomblob(262144))", [i % 50])
                        .map_err(db_error)
                })
                .unwrap();
        };
        // The long read: a snapshot held by a connection of its own, as the backup's copy is.
        let long_read = open_conn(&path).unwrap();
        long_read.execute_batch("BEGIN; SELECT count(*) FROM t;").unwrap();
        (0..320).for_each(write);
        let grown = std::fs::metadata(&wal).unwrap().len();
        assert!(
            grown > WAL_KEPT_BYTES + 8 * 1024 * 1024,
            "the read held the WAL: {grown} bytes"
        );
        long_read.execute_batch("COMMIT").unwrap();
        (320..640).for_each(write);
        let after = std::fs::metadata(&wal).unwrap().len();
        assert!(after <= WAL_KEPT_BYTES, "the WAL stayed at {after} bytes");
    }
}
