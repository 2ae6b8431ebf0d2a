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

/// Store-wide values (`meta`). `desk_*` are this desk's own (its scale, its printing paused):
/// on a shared database their key carries the desk's name.
pub mod meta {
    use super::Tx;

    pub fn get(c: &mut Tx<'_>, key: &str) -> crate::Result<Option<String>> {
        match c {
            Tx::Sqlite(conn) => crate::meta_get(conn, key),
            Tx::Postgres { client, .. } => crate::pg::meta_get(&mut **client, key),
        }
    }

    pub fn set(c: &mut Tx<'_>, key: &str, value: &str) -> crate::Result<()> {
        match c {
            Tx::Sqlite(conn) => crate::meta_set(conn, key, value),
            Tx::Postgres { client, .. } => crate::pg::meta_set(&mut **client, key, value),
        }
    }

    pub fn init(c: &mut Tx<'_>, key: &str, value: &str) -> crate::Result<String> {
        match c {
            Tx::Sqlite(conn) => crate::meta_init(conn, key, value),
            Tx::Postgres { client, .. } => crate::pg::meta_init(&mut **client, key, value),
        }
    }

    fn desk_key(c: &Tx<'_>, key: &str) -> String {
        match c {
            Tx::Sqlite(_) => key.to_string(),
            Tx::Postgres { desk, .. } => format!("desk:{desk}:{key}"),
        }
    }

    pub fn desk_get(c: &mut Tx<'_>, key: &str) -> crate::Result<Option<String>> {
        let key = desk_key(c, key);
        get(c, &key)
    }

    pub fn desk_set(c: &mut Tx<'_>, key: &str, value: &str) -> crate::Result<()> {
        let key = desk_key(c, key);
        set(c, &key, value)
    }
}

pub mod accounts {
    use super::Tx;
    use crate::accounts::AccountRow;
    use crate::paging::Cursor;
    both!(accounts::insert(a: &AccountRow) -> crate::Result<()>);
    both!(accounts::update(a: &AccountRow) -> crate::Result<()>);
    both!(accounts::get(env: &str, id: &str) -> crate::Result<Option<AccountRow>>);
    both!(accounts::list(env: &str, slug: Option<&str>, limit: usize, after: Option<&Cursor>) -> crate::Result<Vec<AccountRow>>);
    both!(accounts::slugs(env: &str) -> crate::Result<Vec<(String, String)>>);
}

pub mod batches {
    use super::Tx;
    use crate::batches::{BatchOrderRow, Outcome};
    both!(batches::insert(id: &str, env: &str, orders: &[(String, String)], now: i64) -> crate::Result<()>);
    both!(batches::created_at(env: &str, id: &str) -> crate::Result<Option<i64>>);
    both!(batches::orders(id: &str) -> crate::Result<Vec<BatchOrderRow>>);
    both!(batches::set_result(id: &str, position: i64, o: Outcome, now: i64) -> crate::Result<()>);
}

pub mod files {
    use super::Tx;
    use crate::files::FileRow;
    both!(files::insert(f: &FileRow) -> crate::Result<()>);
    both!(files::get(env: &str, id: &str) -> crate::Result<Option<FileRow>>);
    both!(files::get_by_id(id: &str) -> crate::Result<Option<FileRow>>);

    pub fn of_owner(c: &mut Tx<'_>, env: &str, owner_id: &str, kind: &str) -> crate::Result<Option<FileRow>> {
        match c {
            Tx::Sqlite(conn) => crate::files::of_owner(conn, env, owner_id, kind),
            Tx::Postgres { client, .. } => crate::files::pg::of_owner(&mut **client, env, owner_id, kind, None),
        }
    }

    pub fn of_owner_as(
        c: &mut Tx<'_>,
        env: &str,
        owner_id: &str,
        kind: &str,
        file_type: &str,
    ) -> crate::Result<Option<FileRow>> {
        match c {
            Tx::Sqlite(conn) => crate::files::of_owner_as(conn, env, owner_id, kind, file_type),
            Tx::Postgres { client, .. } => {
                crate::files::pg::of_owner(&mut **client, env, owner_id, kind, Some(file_type))
            }
        }
    }
}

pub mod idempotency {
    use super::Tx;
    use crate::idempotency::IdempotencyRow;
    both!(idempotency::get(env: &str, key: &str) -> crate::Result<Option<IdempotencyRow>>);
    both!(idempotency::reserve(env: &str, key: &str, request_hash: &[u8], now: i64) -> crate::Result<()>);
    both!(idempotency::finish(env: &str, key: &str, http_status: u16, response: &str) -> crate::Result<()>);
    both!(idempotency::release(env: &str, key: &str) -> crate::Result<()>);
    both!(idempotency::purge(before: i64) -> crate::Result<usize>);
}

pub mod jobs {
    use super::Tx;
    use crate::jobs::JobRow;
    both!(jobs::insert(id: &str, env: &str, kind: &str, lane: &str, request: &str, accepted_at: i64) -> crate::Result<i64>);
    both!(jobs::get(id: &str) -> crate::Result<Option<JobRow>>);
    both!(jobs::finish(id: &str, finished_at: i64) -> crate::Result<bool>);
    both!(jobs::counts() -> crate::Result<(i64, i64)>);

    /// Leases the next runnable job to this desk (shared database only: one desk's file keeps
    /// its queue in memory and never calls this).
    pub fn claim(c: &mut Tx<'_>, now: i64, lease_us: i64) -> crate::Result<Option<JobRow>> {
        match c {
            Tx::Sqlite(_) => Ok(None),
            Tx::Postgres { client, desk } => crate::jobs::pg::claim(&mut **client, desk, now, lease_us),
        }
    }

    /// Extends this desk's lease of a job it still runs; false when the job is no longer its.
    pub fn renew(c: &mut Tx<'_>, id: &str, until: i64) -> crate::Result<bool> {
        match c {
            Tx::Sqlite(_) => Ok(true),
            Tx::Postgres { client, desk } => crate::jobs::pg::renew(&mut **client, id, desk, until),
        }
    }

    /// (seq, id, lane) of every queued job in order of acceptance: what a restart of one desk
    /// runs again (a shared database's desks claim them instead: none here).
    pub fn queued(c: &mut Tx<'_>) -> crate::Result<Vec<(i64, String, String)>> {
        match c {
            Tx::Sqlite(conn) => crate::jobs::queued(conn),
            Tx::Postgres { .. } => Ok(Vec::new()),
        }
    }
}

pub mod keys {
    use super::Tx;
    use crate::keys::KeyRow;
    both!(keys::all() -> crate::Result<Vec<KeyRow>>);
    both!(keys::put(k: &KeyRow) -> crate::Result<()>);
    both!(keys::any_sealed() -> crate::Result<bool>);
}

pub use crate::labels;

pub mod orders {
    use super::Tx;
    use crate::orders::{OrderFilter, OrderRow};
    use crate::paging::Cursor;
    both!(orders::get(env: &str, id: &str) -> crate::Result<Option<OrderRow>>);
    both!(orders::by_number(env: &str, order_number: &str) -> crate::Result<Option<OrderRow>>);
    both!(orders::put(o: &OrderRow, search_text: &str) -> crate::Result<()>);
    both!(orders::list(env: &str, f: &OrderFilter, limit: usize, after: Option<&Cursor>) -> crate::Result<Vec<OrderRow>>);
    both!(orders::link_label(label_id: &str, order_id: &str) -> crate::Result<()>);
    both!(orders::order_of_label(label_id: &str) -> crate::Result<Option<String>>);
    both!(orders::mapping(name: &str) -> crate::Result<Option<String>>);
    both!(orders::put_mapping(name: &str, columns: &str, now: i64) -> crate::Result<()>);

    /// An order read to be shipped: on a shared database its row stays locked until the
    /// transaction ends, so a second desk scanning it waits and then finds it shipped (on one
    /// desk's file the writer is alone anyway).
    pub fn get_for_update(c: &mut Tx<'_>, env: &str, id: &str) -> crate::Result<Option<OrderRow>> {
        match c {
            Tx::Sqlite(conn) => crate::orders::get(conn, env, id),
            Tx::Postgres { client, .. } => crate::orders::pg::get_for_update(&mut **client, env, id),
        }
    }

    /// Order numbers about to be saved: on a shared database, locked until the transaction ends,
    /// so two desks saving the same new order at once make it once (the second waits, then finds
    /// it and updates it). One desk's file has one writer: nothing to do.
    pub fn lock_numbers(c: &mut Tx<'_>, env: &str, numbers: &[&str]) -> crate::Result<()> {
        match c {
            Tx::Sqlite(_) => Ok(()),
            Tx::Postgres { client, .. } => crate::orders::pg::lock_numbers(&mut **client, env, numbers),
        }
    }
}

pub use crate::presets;

/// Printers and print profiles are the desk's own; print jobs are shared, each going to the desk
/// of its printer.
pub mod printing {
    use super::Tx;
    use crate::paging::Cursor;
    use crate::printing::{JobFilter, PrintJobRow, PrinterRow, ProfileRow};
    use packdesk_model::status::PrintJobStatus;

    /// Calls SQLite's `$name(conn, args)` or PostgreSQL's `$name(client, desk, args)`.
    macro_rules! of_desk {
        ($name:ident ( $($arg:ident : $ty:ty),* ) -> $ret:ty) => {
            pub fn $name(c: &mut Tx<'_>, $($arg: $ty),*) -> $ret {
                match c {
                    Tx::Sqlite(conn) => crate::printing::$name(conn, $($arg),*),
                    Tx::Postgres { client, desk } => crate::printing::pg::$name(&mut **client, desk, $($arg),*),
                }
            }
        };
    }

    of_desk!(put_printer(p: &PrinterRow) -> crate::Result<()>);
    of_desk!(printers() -> crate::Result<Vec<PrinterRow>>);
    of_desk!(delete_printer(id: &str) -> crate::Result<bool>);
    of_desk!(put_profile(p: &ProfileRow) -> crate::Result<()>);
    of_desk!(profile(document_type: &str) -> crate::Result<Option<ProfileRow>>);
    of_desk!(profiles() -> crate::Result<Vec<ProfileRow>>);
    of_desk!(delete_profile(document_type: &str) -> crate::Result<bool>);
    of_desk!(jobs_in(status: PrintJobStatus, limit: usize) -> crate::Result<Vec<PrintJobRow>>);
    of_desk!(retry_due(max_attempts: i64, cutoff: i64, limit: usize) -> crate::Result<Vec<PrintJobRow>>);
    of_desk!(waiting_jobs() -> crate::Result<i64>);
    of_desk!(newest_failures() -> crate::Result<Vec<(String, i64, Option<String>)>>);
    both!(printing::job(id: &str) -> crate::Result<Option<PrintJobRow>>);
    both!(printing::backlog(printer_id: &str) -> crate::Result<(i64, i64, Option<String>)>);
    both!(printing::last_job_of(owner_id: &str, document_type: &str) -> crate::Result<Option<(PrintJobStatus, Option<String>)>>);
    both!(printing::list_jobs(env: &str, f: &JobFilter, limit: usize, after: Option<&Cursor>) -> crate::Result<Vec<PrintJobRow>>);
    both!(printing::printed_since(printer_id: &str, since: i64) -> crate::Result<bool>);

    /// A printer by id: this desk's, or (shared database) another desk's, whose worker sends its jobs.
    pub fn printer(c: &mut Tx<'_>, id: &str) -> crate::Result<Option<PrinterRow>> {
        match c {
            Tx::Sqlite(conn) => crate::printing::printer(conn, id),
            Tx::Postgres { client, .. } => Ok(crate::printing::pg::printer(&mut **client, id)?.map(|(p, _)| p)),
        }
    }

    /// Writes a print job; on a shared database it belongs to the desk of its printer, whichever
    /// desk made or retried it.
    pub fn put_job(c: &mut Tx<'_>, j: &PrintJobRow) -> crate::Result<()> {
        match c {
            Tx::Sqlite(conn) => crate::printing::put_job(conn, j),
            Tx::Postgres { client, desk } => {
                let owner = crate::printing::pg::printer(&mut **client, &j.printer_id)?
                    .map(|(_, d)| d)
                    .unwrap_or_else(|| desk.to_string());
                crate::printing::pg::put_job(&mut **client, &owner, j)
            }
        }
    }
}

pub mod records {
    use super::Tx;
    use crate::paging::Cursor;
    use crate::records::{Kind, RecordFilter, RecordRow};
    both!(records::insert(kind: Kind, r: &RecordRow) -> crate::Result<()>);
    both!(records::put(kind: Kind, r: &RecordRow) -> crate::Result<()>);
    both!(records::get(kind: Kind, env: &str, id: &str) -> crate::Result<Option<RecordRow>>);
    both!(records::list(kind: Kind, env: &str, f: &RecordFilter, limit: usize, after: Option<&Cursor>) -> crate::Result<Vec<RecordRow>>);
}

pub use crate::tracking;

pub mod webhooks {
    use super::Tx;
    use crate::paging::Cursor;
    use crate::webhooks::{AttemptRow, DeliveryFilter, DeliveryRow, WebhookSetting};
    both!(webhooks::setting(env: &str) -> crate::Result<Option<WebhookSetting>>);
    both!(webhooks::set_setting(env: &str, s: &WebhookSetting) -> crate::Result<()>);
    both!(webhooks::insert_delivery(d: &DeliveryRow) -> crate::Result<()>);
    both!(webhooks::get_delivery(env: &str, id: &str) -> crate::Result<Option<DeliveryRow>>);
    both!(webhooks::due(now: i64, limit: usize) -> crate::Result<Vec<DeliveryRow>>);
    both!(webhooks::next_due_at() -> crate::Result<Option<i64>>);
    both!(webhooks::update_delivery(d: &DeliveryRow) -> crate::Result<()>);
    both!(webhooks::insert_attempt(a: &AttemptRow) -> crate::Result<()>);
    both!(webhooks::attempts(delivery_id: &str) -> crate::Result<Vec<AttemptRow>>);
    both!(webhooks::list(env: &str, f: &DeliveryFilter, limit: usize, after: Option<&Cursor>) -> crate::Result<Vec<DeliveryRow>>);
}
