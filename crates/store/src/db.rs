//! The store the service runs on: one desk's SQLite file or the shared PostgreSQL database of
//! many desks (issue 16; docs/decisions.md, "Many desks on PostgreSQL"). `Db` opens either;
//! `Db::write` and `Db::read` hand their closure a `Tx`, and every table function the service
//! calls is here once, with the same name and types as the table module's, sending the call to
//! SQLite's statements or to PostgreSQL's (`<table>::pg`). The service never names a driver.
//!
//! Each function below only chooses; the SQL lives in the table modules, where tests compare the
//! two dialects' answers.

use crate::pg::PgStore;
use crate::{Store, StoreError};
use packdesk_model::ServiceError;

/// Which database the desk runs on.
pub enum Db {
    /// One desk: the SQLite file of its data folder.
    Sqlite(Store),
    /// Many desks: the shared PostgreSQL database, and this desk's name in it.
    Postgres { store: PgStore, desk: String },
}

/// The connection a store function runs on: inside `Db::write`, one transaction.
pub enum Tx<'a> {
    Sqlite(&'a rusqlite::Connection),
    Postgres {
        client: &'a mut postgres::Client,
        /// The desk this process is: printers, profiles and per-desk settings are its own.
        desk: &'a str,
    },
}

impl Db {
    /// One desk's own SQLite file (created when missing).
    pub fn open_file(path: &std::path::Path) -> Result<Db, ServiceError> {
        Ok(Db::Sqlite(Store::open(path)?))
    }

    /// The shared database at `url`, as the desk named `desk` (schema created or brought up to
    /// date; one written by a newer Packdesk refused untouched).
    pub fn open_shared(url: &str, desk: &str) -> Result<Db, ServiceError> {
        Ok(Db::Postgres {
            store: PgStore::open(url)?,
            desk: desk.to_string(),
        })
    }

    /// Runs `f` in one write transaction; it commits only if `f` returns Ok (durably: it survives
    /// a power cut once this returns).
    pub fn write<T, E: From<StoreError>>(&self, f: impl FnOnce(&mut Tx<'_>) -> Result<T, E>) -> Result<T, E> {
        match self {
            Db::Sqlite(s) => s.write(|tx| f(&mut Tx::Sqlite(tx))),
            Db::Postgres { store, desk } => store.write(|client| f(&mut Tx::Postgres { client, desk })),
        }
    }

    /// Like `write`, for what a repeat makes good (webhook attempt records): not waiting for the disk.
    pub fn write_relaxed<T, E: From<StoreError>>(&self, f: impl FnOnce(&mut Tx<'_>) -> Result<T, E>) -> Result<T, E> {
        match self {
            Db::Sqlite(s) => s.write_relaxed(|tx| f(&mut Tx::Sqlite(tx))),
            Db::Postgres { store, desk } => store.write_relaxed(|client| f(&mut Tx::Postgres { client, desk })),
        }
    }

    /// Runs `f` on a reading connection (each statement sees the latest commits).
    pub fn read<T, E: From<StoreError>>(&self, f: impl FnOnce(&mut Tx<'_>) -> Result<T, E>) -> Result<T, E> {
        match self {
            Db::Sqlite(s) => s.read(|c| f(&mut Tx::Sqlite(c))),
            Db::Postgres { store, desk } => store.read(|client| f(&mut Tx::Postgres { client, desk })),
        }
    }

    pub fn is_shared(&self) -> bool {
        matches!(self, Db::Postgres { .. })
    }

    /// The shared database, for what only it does (leases, the dispatcher's lock).
    pub fn shared(&self) -> Option<&PgStore> {
        match self {
            Db::Sqlite(_) => None,
            Db::Postgres { store, .. } => Some(store),
        }
    }
}

/// One function per table function: `$module::$name` on SQLite, `$module::pg::$name` on
/// PostgreSQL, when both take the same arguments.
macro_rules! both {
    ($module:ident :: $name:ident ( $($arg:ident : $ty:ty),* ) -> $ret:ty) => {
        pub fn $name(c: &mut Tx<'_>, $($arg: $ty),*) -> $ret {
            match c {
                Tx::Sqlite(conn) => crate::$module::$name(conn, $($arg),*),
                Tx::Postgres { client, .. } => crate::$module::pg::$name(&mut **client, $($arg),*),
            }
        }
    };
}

pub use crate::accounts;
pub use crate::meta;

pub use crate::batches;

pub use crate::files;

pub use crate::idempotency;

pub use crate::jobs;

pub use crate::keys;

pub mod labels {
    use super::Tx;
    use crate::labels::{InsertError, LabelFilter, LabelRow, Waiting};
    use crate::paging::Cursor;
    use packdesk_model::status::LabelStatus;

    /// A new label, of this desk.
    pub fn insert(c: &mut Tx<'_>, l: &LabelRow) -> Result<(), InsertError> {
        match c {
            Tx::Sqlite(conn) => crate::labels::insert(conn, l),
            Tx::Postgres { client, desk } => crate::labels::pg::insert(&mut **client, desk, l),
        }
    }

    /// A label as made, with its numbers and files, written whole (`labels::write_made`).
    pub fn write_made(c: &mut Tx<'_>, m: &crate::labels::MadeLabel) -> Result<(), InsertError> {
        match c {
            Tx::Sqlite(conn) => crate::labels::write_made(conn, m),
            Tx::Postgres { client, desk } => crate::labels::pg::write_made(&mut **client, desk, m),
        }
    }

    /// A label read to change its status: locked to the end of the transaction on a shared
    /// database, so a cancel and a close-out never both take it (one desk's writer is alone).
    pub fn get_for_update(c: &mut Tx<'_>, env: &str, id: &str) -> crate::Result<Option<LabelRow>> {
        match c {
            Tx::Sqlite(conn) => crate::labels::get(conn, env, id),
            Tx::Postgres { client, .. } => crate::labels::pg::get_for_update(&mut **client, env, id),
        }
    }

    /// The desk that made a label (None on one desk's own file).
    pub fn desk_of(c: &mut Tx<'_>, id: &str) -> crate::Result<Option<String>> {
        match c {
            Tx::Sqlite(_) => Ok(None),
            Tx::Postgres { client, .. } => crate::labels::pg::desk_of(&mut **client, id),
        }
    }

    both!(labels::order_number_taken(account_id: &str, order_number: &str) -> crate::Result<bool>);
    both!(labels::get(env: &str, id: &str) -> crate::Result<Option<LabelRow>>);
    both!(labels::list(env: &str, f: &LabelFilter, limit: usize, after: Option<&Cursor>) -> crate::Result<Vec<LabelRow>>);
    both!(labels::add_file(id: &str, kind: &str, file: &str) -> crate::Result<()>);
    both!(labels::set_status(id: &str, status: LabelStatus, updated_at: i64) -> crate::Result<()>);
    both!(labels::manifestable(account_id: &str, day: &str) -> crate::Result<Vec<LabelRow>>);
    both!(labels::of_manifest(manifest_id: &str) -> crate::Result<Vec<LabelRow>>);
    both!(labels::release_manifest(manifest_id: &str, updated_at: i64) -> crate::Result<()>);
    both!(labels::waiting(account_id: &str) -> crate::Result<Vec<Waiting>>);
    both!(labels::counts_since(env: &str, since: i64) -> crate::Result<Vec<(String, LabelStatus, i64)>>);
    both!(labels::per_day(env: &str, since: i64, offset_us: i64) -> crate::Result<Vec<(i64, i64)>>);

    pub fn set_manifested(c: &mut Tx<'_>, ids: &[String], manifest_id: &str, updated_at: i64) -> crate::Result<()> {
        match c {
            Tx::Sqlite(conn) => crate::labels::set_manifested(conn, ids, manifest_id, updated_at),
            Tx::Postgres { client, .. } => {
                crate::labels::pg::set_manifest(&mut **client, ids, manifest_id, LabelStatus::Manifested, updated_at)
            }
        }
    }

    pub fn set_manifesting(c: &mut Tx<'_>, ids: &[String], manifest_id: &str, updated_at: i64) -> crate::Result<()> {
        match c {
            Tx::Sqlite(conn) => crate::labels::set_manifesting(conn, ids, manifest_id, updated_at),
            Tx::Postgres { client, .. } => {
                crate::labels::pg::set_manifest(&mut **client, ids, manifest_id, LabelStatus::Manifesting, updated_at)
            }
        }
    }

    /// Brings SQLite's word index up to date (at most `max` labels); PostgreSQL's trigram index
    /// is kept by the database itself, so there it has nothing to do.
    pub fn catch_up_words(c: &mut Tx<'_>, max: usize) -> crate::Result<usize> {
        match c {
            Tx::Sqlite(conn) => crate::labels::catch_up_words(conn, max),
            Tx::Postgres { .. } => Ok(0),
        }
    }
}

pub use crate::orders;

pub use crate::presets;

pub use crate::printing;

pub use crate::records;

pub mod tracking {
    use super::Tx;
    both!(tracking::counter(scope: &str) -> crate::Result<Option<u64>>);
}

pub use crate::webhooks;
