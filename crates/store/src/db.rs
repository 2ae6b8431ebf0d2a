//! The store the service runs on: one desk's SQLite file or the shared PostgreSQL database of
//! many desks (issue 16; docs/decisions.md, "Many desks on PostgreSQL"). `Db` opens either;
//! `Db::write` and `Db::read` hand their closure a `Tx`, on which every table function (one per
//! table module, written once for both databases: `sql.rs`) runs. The service never names a
//! driver.

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

    /// `write`, for a write that may run long (an order import, the search index's catch-up): on
    /// the desk's own file the labels waiting in the batch open before it commit first
    /// (`Store::write_long`); PostgreSQL commits each write on its own anyway.
    pub fn write_long<T, E: From<StoreError>>(&self, f: impl FnOnce(&mut Tx<'_>) -> Result<T, E>) -> Result<T, E> {
        match self {
            Db::Sqlite(s) => s.write_long(|tx| f(&mut Tx::Sqlite(tx))),
            Db::Postgres { store, desk } => store.write(|client| f(&mut Tx::Postgres { client, desk })),
        }
    }

    /// `write`, for a write that is one statement on a shared database (`f` sends exactly one
    /// there: two would commit one by one): PostgreSQL runs it without BEGIN and COMMIT, two
    /// round trips fewer (`PgStore::write_one_statement`). A label's is (`labels::write_made`; on
    /// a shared database the service sends it with the labels that arrive meanwhile,
    /// `labels::write_made_shared`).
    pub fn write_one_statement<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut Tx<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        match self {
            Db::Sqlite(s) => s.write(|tx| f(&mut Tx::Sqlite(tx))),
            Db::Postgres { store, desk } => store.write_one_statement(|client| f(&mut Tx::Postgres { client, desk })),
        }
    }

    /// Like `write`, for what a repeat makes good (webhook attempt records): not waiting for the disk.
    pub fn write_relaxed<T, E: From<StoreError>>(&self, f: impl FnOnce(&mut Tx<'_>) -> Result<T, E>) -> Result<T, E> {
        match self {
            Db::Sqlite(s) => s.write_relaxed(|tx| f(&mut Tx::Sqlite(tx))),
            Db::Postgres { store, desk } => store.write_relaxed(|client| f(&mut Tx::Postgres { client, desk })),
        }
    }

    /// `write_long` without waiting for the disk, for records made again from durable ones when
    /// lost (History's word index, whose catch-up mark moves in the same transaction).
    pub fn write_long_relaxed<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut Tx<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        match self {
            Db::Sqlite(s) => s.write_long_relaxed(|tx| f(&mut Tx::Sqlite(tx))),
            Db::Postgres { store, desk } => store.write_relaxed(|client| f(&mut Tx::Postgres { client, desk })),
        }
    }

    /// Returns once every commit made so far, `write_relaxed`'s too, is on disk; on SQLite by
    /// the next durable commit's sync if one ends within `grace` (`Store::sync_within`).
    pub fn sync_within(&self, grace: std::time::Duration) -> Result<(), StoreError> {
        match self {
            Db::Sqlite(s) => s.sync_within(grace),
            // A commit that waits for the disk has PostgreSQL flush its log up to it, the relaxed
            // commits before it with it; only a transaction that has an id writes a commit.
            Db::Postgres { store, .. } => store.write(|client| {
                client.query_one("SELECT txid_current()", &[])?;
                Ok(())
            }),
        }
    }

    /// Runs `f` on a reading connection (each statement sees the latest commits).
    #[track_caller]
    pub fn read<T, E: From<StoreError>>(&self, f: impl FnOnce(&mut Tx<'_>) -> Result<T, E>) -> Result<T, E> {
        match self {
            Db::Sqlite(s) => s.read(|c| f(&mut Tx::Sqlite(c))),
            Db::Postgres { store, desk } => store.read(|client| f(&mut Tx::Postgres { client, desk })),
        }
    }

    /// A label's JSON as this database keeps it (`StoredJson`): called before the write, SQLite's
    /// deflated form is made off the writer's thread.
    pub fn json(&self, text: String) -> crate::stored_json::StoredJson {
        match self {
            Db::Sqlite(_) => crate::stored_json::StoredJson::deflated_ahead(text),
            Db::Postgres { .. } => text.into(),
        }
    }

    /// How long writes have held this desk's one writer since it opened (SQLite; a shared
    /// database has no one writer).
    pub fn writer_held(&self) -> Option<std::time::Duration> {
        match self {
            Db::Sqlite(s) => Some(s.writer_held()),
            Db::Postgres { .. } => None,
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
