//! The one writer connection of a desk's SQLite file, and its commits shared (issue 42).
//!
//! Each write is all or nothing to its caller. Under the writer, though, the writes of several
//! threads that arrive together share one SQLite transaction: each after the first runs in a
//! savepoint of it (rolled back alone when it fails; the first, alone in the batch so far, rolls
//! the batch back), and the last one in commits them all. A write sees what the writes before it
//! in its batch wrote (as it would had they committed first); they commit or fail together, and a
//! write refused on what it saw waits for the batch too: if the batch fails, it is told to send
//! again rather than given a reason that may be gone. A commit writes every page it changed into
//! the WAL, and a label touches some twenty pages (each table and index it goes into, the database
//! header, the counters); shared, a page that several labels change (a table's right-most leaf,
//! the header) is written once for all of them.
//!
//! Who commits: a write that finishes with nobody waiting for the writer commits the batch at
//! once (a lone write is committed as before); one that finishes with others on their way
//! leaves the batch open for them and waits for its outcome. Every write finishes under the writer
//! lock, and the last of a batch always sees nobody coming, so a batch is always committed (or a
//! batch of `MOST_IN_A_BATCH` writes is, whoever is coming). A write that may hold the writer
//! long (`Length::Long`) commits the batch open before it first. A caller returns only after the
//! batch's commit (and, for `Store::write`, the WAL's sync after it; `write_relaxed` does not wait
//! for the sync), so what is answered is on disk as before.

use crate::timing::{self, time, Phase};
use crate::{Store, StoreError};
use rusqlite::Connection;
use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Undoes one write of a batch, and only it.
const UNDO_WRITE: &str = "ROLLBACK TO write; RELEASE write";

/// At most this many writes share a commit (a bound on how long the first of them waits).
const MOST_IN_A_BATCH: usize = 32;

/// How long a write may hold the writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Length {
    /// Milliseconds at most (a label, a scan): it joins the batch open, if any.
    Short,
    /// Maybe long (an import of a thousand orders, the search index's catch-up): the batch open
    /// commits first, so that the labels in it do not wait for this write to end.
    Long,
}

/// How a write is undone, alone, when it fails or panics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Undo {
    /// The first write of a batch: by rolling the batch back, which holds nothing else yet. No
    /// savepoint, whose copy of every page the write changes (SQLite's sub-journal) was a sixth
    /// of the writer's time (issue 42).
    Batch,
    /// A later write: by its savepoint of the batch.
    Savepoint,
}

/// Who looks at the open batch, deciding whether it commits now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Looking {
    /// A write of the batch, done: it reads the batch's outcome.
    Member,
    /// A write that panicked (undone): it reads nothing.
    Panicked,
    /// A long write about to run: the batch commits before it.
    BeforeLongWrite,
}

/// The writer connection and the batch open on it.
pub(crate) struct Writer {
    pub(crate) conn: Connection,
    /// The batch begun and not yet committed: its number and the writes it holds.
    open: Option<(u64, usize)>,
    next_batch: u64,
}

impl Writer {
    pub(crate) fn new(conn: Connection) -> Writer {
        Writer {
            conn,
            open: None,
            next_batch: 1,
        }
    }
}

/// The batches' outcomes, for the writes waiting on them.
#[derive(Default)]
pub(crate) struct Batches {
    /// Writes on their way to the writer (counted before they wait for its lock).
    coming: AtomicUsize,
    decided: Mutex<HashMap<u64, Decided>>,
    changed: Condvar,
    /// Nanoseconds the writer has been held by writes, in all: the part of a second it is held
    /// is how near the desk is to the most labels one writer can take (issue 42).
    held_nanos: AtomicU64,
}

/// The writer, held by a write: counts the time it is held when let go.
struct Held<'a> {
    writer: MutexGuard<'a, Writer>,
    since: Instant,
    held_nanos: &'a AtomicU64,
}

impl Deref for Held<'_> {
    type Target = Writer;
    fn deref(&self) -> &Writer {
        &self.writer
    }
}

impl DerefMut for Held<'_> {
    fn deref_mut(&mut self) -> &mut Writer {
        &mut self.writer
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let nanos = u64::try_from(self.since.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.held_nanos.fetch_add(nanos, Ordering::Relaxed);
    }
}

/// A batch's outcome: its commit's number (for the sync), or why it failed; and how many of its
/// writes have still to read it.
struct Decided {
    outcome: Result<u64, StoreError>,
    unread: usize,
}

impl Store {
    /// Runs `f` as one transaction (in a batch: see the module) and commits it, to the WAL, not
    /// yet synced; answers its commit number.
    pub(crate) fn commit<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, E>,
        length: Length,
    ) -> Result<(T, u64), E> {
        let batches = &self.batches;
        batches.coming.fetch_add(1, Ordering::SeqCst);
        let writer = time(Phase::Lock, || self.writer.lock().unwrap_or_else(|p| p.into_inner()));
        batches.coming.fetch_sub(1, Ordering::SeqCst);
        let writing = Instant::now();
        let mut w = Held {
            writer,
            since: writing,
            held_nanos: &batches.held_nanos,
        };
        if let (Length::Long, Some((open, _))) = (length, w.open) {
            // The writes of the open batch commit now rather than after this one.
            self.decide(&mut w, open, Looking::BeforeLongWrite);
        }
        let (batch, undo) = match w.open {
            Some((batch, _)) => (batch, Undo::Savepoint),
            None => {
                end_a_transaction_left_open(&w.conn)?;
                w.conn.execute_batch("BEGIN IMMEDIATE").map_err(StoreError::from)?;
                let batch = w.next_batch;
                w.next_batch += 1;
                w.open = Some((batch, 0));
                (batch, Undo::Batch)
            }
        };
        let undo_this_write = |w: &mut Writer| match undo {
            Undo::Savepoint => {
                let _ = w.conn.execute_batch(UNDO_WRITE);
            }
            Undo::Batch => {
                let _ = w.conn.execute_batch("ROLLBACK");
                w.open = None;
            }
        };
        let begun = match undo {
            Undo::Savepoint => w.conn.execute_batch("SAVEPOINT write"),
            Undo::Batch => Ok(()),
        };
        let out = match begun {
            Err(e) => Err(E::from(StoreError::from(e))),
            Ok(()) => match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&w.conn))) {
                Ok(Err(e)) => {
                    undo_this_write(&mut w);
                    Err(e)
                }
                Ok(Ok(out)) if undo == Undo::Batch => Ok(out),
                Ok(Ok(out)) => match w.conn.execute_batch("RELEASE write") {
                    Ok(()) => Ok(out),
                    Err(e) => {
                        // Not released: undone, so the batch does not commit it.
                        undo_this_write(&mut w);
                        Err(E::from(StoreError::from(e)))
                    }
                },
                Err(panic) => {
                    undo_this_write(&mut w);
                    self.decide(&mut w, batch, Looking::Panicked);
                    drop(w);
                    std::panic::resume_unwind(panic);
                }
            },
        };
        let out = match (out, undo) {
            // The first write of its batch, refused: the batch it rolled back held nothing else,
            // so its refusal stands at once.
            (Err(e), Undo::Batch) => {
                timing::spent(Phase::Write, writing.elapsed());
                return Err(e);
            }
            (out, _) => out,
        };
        let decided = self.decide(&mut w, batch, Looking::Member);
        timing::spent(Phase::Write, writing.elapsed());
        let by_this_write = decided.is_some();
        let outcome = match decided {
            Some(outcome) => {
                // Told first (`decide`), the batch's other writes go on to their sync meanwhile.
                if outcome.is_ok() {
                    self.restart_wal_when_copied(&w.conn);
                }
                outcome
            }
            None => {
                drop(w);
                time(Phase::Commit, || self.outcome_of(batch))
            }
        };
        match (out, outcome) {
            (Ok(out), Ok(seq)) => Ok((out, seq)),
            (Ok(_), Err(e)) => Err(e.into()),
            // A refusal stands once its batch does.
            (Err(e), Ok(_)) => Err(e),
            // The batch failed: what a refused write saw of the batch's earlier writes may be
            // gone with it, so it is told to send again (the write whose own failure ended the
            // batch keeps its own words).
            (Err(e), Err(_)) if by_this_write => Err(e),
            (Err(_), Err(e)) => Err(e.into()),
        }
    }

    /// How long writes have held the writer since the store opened.
    pub fn writer_held(&self) -> Duration {
        Duration::from_nanos(self.batches.held_nanos.load(Ordering::Relaxed))
    }

    /// After a write of `batch` (or before a long one): commits the batch when nobody is coming
    /// to join it (at once before a long write), answering its outcome for this write; else
    /// leaves it open (`None`).
    fn decide(&self, w: &mut Writer, batch: u64, looking: Looking) -> Option<Result<u64, StoreError>> {
        // Only a member of the batch reads its outcome (a write that panicked does not).
        let waits = looking == Looking::Member;
        let now = looking == Looking::BeforeLongWrite;
        let (_, members) = w.open.as_mut()?;
        *members += usize::from(waits);
        let members = *members;
        // SQLite rolled the whole transaction back (an I/O error, a full disk): every write of the
        // batch is lost, the others' too.
        let lost = w.conn.is_autocommit();
        let coming = self.batches.coming.load(Ordering::SeqCst);
        if !now && !lost && coming > 0 && members < MOST_IN_A_BATCH {
            return None;
        }
        w.open = None;
        let outcome = match lost {
            true => Err(StoreError::Busy(rolled_back(
                "a write of its batch failed and SQLite rolled the batch back: send the request again",
            ))),
            false => match w.conn.execute_batch("COMMIT") {
                // Numbered while the writer is held, so commit numbers follow the WAL's order.
                Ok(()) => Ok(self.durability.committed()),
                Err(e) => {
                    let _ = w.conn.execute_batch("ROLLBACK");
                    Err(StoreError::from(e))
                }
            },
        };
        // This write reads its own outcome now; the others (if any) wait for it.
        let others = members - usize::from(waits);
        if others > 0 {
            let mut decided = self.batches.decided.lock().unwrap_or_else(|p| p.into_inner());
            decided.insert(
                batch,
                Decided {
                    outcome: outcome.as_ref().copied().map_err(StoreError::again),
                    unread: others,
                },
            );
            self.batches.changed.notify_all();
        }
        Some(outcome)
    }

    /// Waits for the outcome of `batch`, which another write commits.
    fn outcome_of(&self, batch: u64) -> Result<u64, StoreError> {
        let mut decided = self.batches.decided.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(d) = decided.get_mut(&batch) {
                d.unread -= 1;
                let outcome = d.outcome.as_ref().copied().map_err(StoreError::again);
                if d.unread == 0 {
                    decided.remove(&batch);
                }
                return outcome;
            }
            decided = self.batches.changed.wait(decided).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// Rolls back a transaction a failed `ROLLBACK` left open on the writer (its writes were never
/// answered as written), so that the next batch can begin rather than every write failing on
/// "cannot start a transaction within a transaction".
fn end_a_transaction_left_open(conn: &Connection) -> Result<(), StoreError> {
    if conn.is_autocommit() {
        return Ok(());
    }
    tracing::warn!("the writer was left in a transaction by a rollback that failed: rolling it back now");
    conn.execute_batch("ROLLBACK").map_err(StoreError::from)
}

/// An SQLite error saying the transaction was rolled back, with why.
fn rolled_back(why: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ABORT),
        Some(why.to_string()),
    )
}

impl StoreError {
    /// The same failure again, for each write of a batch whose commit failed.
    fn again(&self) -> StoreError {
        let copy = |e: &rusqlite::Error| match e {
            rusqlite::Error::SqliteFailure(code, message) => rusqlite::Error::SqliteFailure(*code, message.clone()),
            other => rolled_back(&other.to_string()),
        };
        match self {
            StoreError::Busy(e) => StoreError::Busy(copy(e)),
            StoreError::DiskFull(e) => StoreError::DiskFull(copy(e)),
            StoreError::Sqlite(e) => StoreError::Sqlite(copy(e)),
            StoreError::Unsynced(e) => StoreError::Unsynced(std::io::Error::new(e.kind(), e.to_string())),
            StoreError::Unreadable(what) => StoreError::Unreadable(what.clone()),
            StoreError::Tls(what) => StoreError::Tls(what.clone()),
            StoreError::Postgres(e) => StoreError::Sqlite(rolled_back(&e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db_error;
    use packdesk_model::ErrorCode;
    use std::sync::Arc;

    fn store() -> (tempfile::TempDir, Arc<Store>) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite3")).unwrap();
        store
            .write(|c| c.execute_batch("CREATE TABLE t (x INTEGER)").map_err(db_error))
            .unwrap();
        (dir, Arc::new(store))
    }

    fn rows(store: &Store) -> Vec<i64> {
        store
            .read(|c| {
                let mut st = c.prepare("SELECT x FROM t ORDER BY x").map_err(db_error)?;
                let rows = st.query_map([], |r| r.get(0)).map_err(db_error)?;
                rows.collect::<Result<Vec<i64>, _>>().map_err(db_error)
            })
            .unwrap()
    }

    /// Writes 1 on another thread while one more write is said to be coming, so it leaves its
    /// batch open and waits; answers once it does.
    fn first_of_a_batch(store: &Arc<Store>) -> std::thread::JoinHandle<Result<(), packdesk_model::ServiceError>> {
        store.batches.coming.fetch_add(1, Ordering::SeqCst);
        let first = {
            let store = store.clone();
            std::thread::spawn(move || {
                store.write(|c| c.execute("INSERT INTO t VALUES (1)", []).map(|_| ()).map_err(db_error))
            })
        };
        // Its write is in and the batch open: the commit is left to the one coming.
        while store.writer.lock().unwrap().open.is_none_or(|(_, n)| n != 1) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        store.batches.coming.fetch_sub(1, Ordering::SeqCst);
        first
    }

    #[test]
    fn a_write_that_fails_in_a_shared_batch_is_undone_alone_and_the_others_commit() {
        let (_dir, store) = store();
        let first = first_of_a_batch(&store);
        let failed = store.write(|c| {
            c.execute("INSERT INTO t VALUES (2)", []).map_err(db_error)?;
            Err::<(), _>(packdesk_model::ServiceError::internal("refused after writing"))
        });
        assert!(failed.is_err());
        first.join().unwrap().expect("the first write committed with the batch");
        assert_eq!(rows(&store), [1]);
        let st = store.durability.state.lock().unwrap();
        assert_eq!(st.synced, st.committed, "the first write returned once synced");
    }

    /// A write that inserts 2 and is then refused, on another thread, joining the open batch
    /// while one more is said to be coming; answers once it waits for the batch.
    fn refused_in_the_batch(store: &Arc<Store>) -> std::thread::JoinHandle<Result<(), packdesk_model::ServiceError>> {
        store.batches.coming.fetch_add(1, Ordering::SeqCst);
        let refused = {
            let store = store.clone();
            std::thread::spawn(move || {
                store.write(|c| {
                    c.execute("INSERT INTO t VALUES (2)", []).map_err(db_error)?;
                    Err::<(), _>(packdesk_model::ServiceError::internal("refused after writing"))
                })
            })
        };
        while store.writer.lock().unwrap().open.is_none_or(|(_, n)| n != 2) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        store.batches.coming.fetch_sub(1, Ordering::SeqCst);
        refused
    }

    /// Runs `write` on another thread while one more write is said to be coming, and answers
    /// what it returned: a write that only undid itself would leave its batch open for the one
    /// coming and wait for it, which fails here instead of hanging the run.
    fn first_write_with_one_coming<T: Send + 'static>(
        store: &Arc<Store>,
        write: impl FnOnce(&Store) -> T + Send + 'static,
    ) -> std::thread::Result<T> {
        store.batches.coming.fetch_add(1, Ordering::SeqCst);
        let (done, answer) = std::sync::mpsc::channel();
        let on_its_own = store.clone();
        std::thread::spawn(move || {
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| write(&on_its_own)));
            let _ = done.send(out);
        });
        let out = answer.recv_timeout(std::time::Duration::from_secs(10));
        store.batches.coming.fetch_sub(1, Ordering::SeqCst);
        out.expect("the first write waited for a batch only it was in")
    }

    /// After a first write undone with its batch: no batch is left open, and the next write (2)
    /// commits alone.
    fn the_batch_is_gone_and_the_next_write_commits_alone(store: &Store) {
        assert!(store.writer.lock().unwrap().open.is_none(), "no batch left open");
        store
            .write(|c| c.execute("INSERT INTO t VALUES (2)", []).map(|_| ()).map_err(db_error))
            .unwrap();
        assert_eq!(rows(store), [2]);
    }

    #[test]
    fn the_first_write_of_a_batch_refused_rolls_the_batch_back_and_the_next_begins_anew() {
        let (_dir, store) = store();
        let refused = first_write_with_one_coming(&store, |store| {
            store.write(|c| {
                c.execute("INSERT INTO t VALUES (1)", []).map_err(db_error)?;
                Err::<(), _>(packdesk_model::ServiceError::internal("refused after writing"))
            })
        });
        let refused = refused.unwrap().unwrap_err();
        assert!(refused.chain().contains("refused after writing"), "{}", refused.chain());
        the_batch_is_gone_and_the_next_write_commits_alone(&store);
    }

    #[test]
    fn the_first_write_of_a_batch_that_panics_leaves_nothing_and_the_next_begins_anew() {
        let (_dir, store) = store();
        let panicked = first_write_with_one_coming(&store, |store| {
            store.write(|c| -> Result<(), packdesk_model::ServiceError> {
                c.execute("INSERT INTO t VALUES (1)", []).map_err(db_error)?;
                panic!("a bug mid-write")
            })
        });
        assert!(panicked.is_err(), "the panic reaches the caller");
        the_batch_is_gone_and_the_next_write_commits_alone(&store);
    }

    #[test]
    fn a_transaction_a_failed_rollback_left_open_is_rolled_back_before_the_next_write() {
        let (_dir, store) = store();
        {
            // As a `ROLLBACK` that failed leaves it: a transaction open, holding a write nobody
            // was told had been made, and no batch.
            let w = store.writer.lock().unwrap();
            w.conn.execute_batch("BEGIN; INSERT INTO t VALUES (1)").unwrap();
        }
        the_batch_is_gone_and_the_next_write_commits_alone(&store);
    }

    #[test]
    fn a_write_refused_in_a_batch_waits_for_it_and_keeps_its_reason_once_it_commits() {
        let (_dir, store) = store();
        let first = first_of_a_batch(&store);
        let refused = refused_in_the_batch(&store);
        assert!(
            !refused.is_finished() && !first.is_finished(),
            "both wait for the batch's commit"
        );
        store
            .write(|c| c.execute("INSERT INTO t VALUES (3)", []).map(|_| ()).map_err(db_error))
            .unwrap();
        first.join().unwrap().expect("the first write committed with the last");
        let refused = refused.join().unwrap().unwrap_err();
        assert!(refused.chain().contains("refused after writing"), "{}", refused.chain());
        assert_eq!(rows(&store), [1, 3]);
    }

    #[test]
    fn a_long_write_lets_the_batch_open_before_it_commit_first() {
        let (_dir, store) = store();
        let first = first_of_a_batch(&store);
        store
            .write_long(|c| {
                // The first write is answered while this one still holds the writer.
                let waited = std::time::Instant::now();
                while !first.is_finished() && waited.elapsed() < std::time::Duration::from_secs(10) {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                assert!(first.is_finished(), "the first write waited for the long one");
                c.execute("INSERT INTO t VALUES (2)", []).map(|_| ()).map_err(db_error)
            })
            .unwrap();
        first
            .join()
            .unwrap()
            .expect("the first write committed before the long one");
        assert_eq!(rows(&store), [1, 2]);
    }

    #[test]
    fn a_write_that_panics_in_a_shared_batch_leaves_nothing_and_the_others_commit() {
        let (_dir, store) = store();
        let first = first_of_a_batch(&store);
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            store.write(|c| {
                c.execute("INSERT INTO t VALUES (2)", []).map_err(db_error)?;
                panic!("a bug mid-write");
                #[allow(unreachable_code)]
                Ok::<(), packdesk_model::ServiceError>(())
            })
        }));
        assert!(panicked.is_err());
        first.join().unwrap().expect("the first write committed with the batch");
        assert_eq!(rows(&store), [1]);
        // The writer goes on.
        store
            .write(|c| c.execute("INSERT INTO t VALUES (3)", []).map(|_| ()).map_err(db_error))
            .unwrap();
        assert_eq!(rows(&store), [1, 3]);
    }

    #[test]
    fn a_full_disk_that_rolls_a_shared_batch_back_fails_every_write_of_it_to_be_sent_again() {
        let (_dir, store) = store();
        let first = first_of_a_batch(&store);
        let refused = refused_in_the_batch(&store);
        {
            // SQLite answers SQLITE_FULL when the file may not grow: the same code as a full disk.
            let w = store.writer.lock().unwrap();
            let pages: i64 = w.conn.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
            w.conn.pragma_update(None, "max_page_count", pages).unwrap();
        }
        let full = store
            .write(|c| {
                c.execute("INSERT INTO t VALUES (zeroblob(10000000))", [])
                    .map(|_| ())
                    .map_err(db_error)
            })
            .unwrap_err();
        assert!(full.details[0].info.contains("full"), "{full}");
        let first = first
            .join()
            .unwrap()
            .expect_err("the batch was rolled back with its first write");
        assert_eq!(first.code, ErrorCode::InternalRetry, "{first}");
        // What it was refused on may be gone with the batch: it is told to send again.
        let refused = refused.join().unwrap().unwrap_err();
        assert_eq!(refused.code, ErrorCode::InternalRetry, "{refused}");
        assert!(
            !refused.chain().contains("refused after writing"),
            "{}",
            refused.chain()
        );
        assert!(rows(&store).is_empty(), "nothing of the batch was written");
    }
}
