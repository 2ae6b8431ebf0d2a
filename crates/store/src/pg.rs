//! The shared store of many desks on PostgreSQL (issue 16; see docs/decisions.md, "Many desks on
//! PostgreSQL"). The blocking client over tokio-postgres, a small pool of connections, the schema
//! at the same version line as SQLite's.
//!
//! Each table's statements live beside SQLite's, in the `pg` module of its file (`labels::pg`,
//! `tracking::pg`, ...); the service reaches either through `db::Tx`. Here: opening (schema
//! created or checked under an advisory lock, so desks starting at once do not race), the pool,
//! transactions, session locks, and `query`: the statements run for every label are prepared
//! once per pooled connection and kept with it.
//!
//! The blocking client runs its own small runtime: call it from plain or blocking threads, never
//! from inside an async task (as the service already calls its store).

use crate::{migrations, StoreError};
use packdesk_model::ServiceError;
use postgres::{Client, GenericClient, NoTls};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One desk's handle on the shared database.
pub struct PgStore {
    config: postgres::Config,
    idle: Mutex<Vec<Pooled>>,
}

/// A connection kept open between calls, the statements prepared on it, and when it was last
/// given back.
struct Pooled {
    client: Client,
    prepared: Prepared,
    last_used: Instant,
}

/// Statements prepared on one connection, by their SQL: PostgreSQL parses and plans each once
/// per connection instead of at every label (half its work before).
#[derive(Default)]
struct Prepared(std::collections::HashMap<String, postgres::Statement>);

/// Statements a connection keeps prepared at most (the store sends a few dozen different ones).
const PREPARED_PER_CONNECTION: usize = 128;

thread_local! {
    /// The connections this thread has borrowed from the pool right now, by address, with their
    /// prepared statements (`query` finds a statement's connection this way: the store's
    /// functions get the bare `Client`).
    static LENT: std::cell::RefCell<Vec<(usize, Prepared)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` on `client` with its prepared statements lent to `query`, and answers them back
/// with `f`'s result. The client's address is stable meanwhile (`f` borrows it).
fn lending<T>(client: &mut Client, prepared: Prepared, f: impl FnOnce(&mut Client) -> T) -> (T, Prepared) {
    /// Takes the statements back when dropped, even while `f` unwinds.
    struct Lent(usize);
    impl Lent {
        fn take(&self) -> Prepared {
            LENT.with_borrow_mut(|lent| match lent.iter().rposition(|(a, _)| *a == self.0) {
                Some(at) => lent.remove(at).1,
                None => Prepared::default(),
            })
        }
    }
    impl Drop for Lent {
        fn drop(&mut self) {
            self.take();
        }
    }
    let address = client as *const Client as usize;
    LENT.with_borrow_mut(|lent| lent.push((address, prepared)));
    let lent = Lent(address);
    let out = f(client);
    let prepared = lent.take();
    // Taken back already: nothing left for the drop to do.
    std::mem::forget(lent);
    (out, prepared)
}

/// The statement of `sql` prepared on `client` (parameter types inferred by PostgreSQL when
/// `types` is empty), kept with a pooled connection so each is parsed and planned once per
/// connection; None on a connection not lent by the pool (a test's own).
fn prepared(
    client: &mut impl GenericClient,
    sql: &str,
    types: &[postgres::types::Type],
) -> Result<Option<postgres::Statement>, postgres::Error> {
    let address = client as *mut _ as *const () as usize;
    let known = LENT.with_borrow(|lent| {
        lent.iter()
            .rev()
            .find(|(a, _)| *a == address)
            .map(|(_, p)| p.0.get(sql).cloned())
    });
    Ok(match known {
        None => None,
        Some(Some(statement)) => Some(statement),
        Some(None) => {
            let statement = client.prepare_typed(sql, types)?;
            LENT.with_borrow_mut(|lent| {
                if let Some((_, p)) = lent.iter_mut().rev().find(|(a, _)| *a == address) {
                    if p.0.len() >= PREPARED_PER_CONNECTION {
                        p.0.clear();
                    }
                    p.0.insert(sql.to_string(), statement.clone());
                }
            });
            Some(statement)
        }
    })
}

/// `sql` with its typed parameters, as `query_typed`, on a statement prepared once per pooled
/// connection (one round trip either way). On a connection not lent by the pool (a test's own,
/// a `Transaction`) it is `query_typed` itself.
pub(crate) fn query(
    client: &mut impl GenericClient,
    sql: &str,
    params: &[(&(dyn postgres::types::ToSql + Sync), postgres::types::Type)],
) -> Result<Vec<postgres::Row>, postgres::Error> {
    let types: Vec<_> = params.iter().map(|(_, t)| t.clone()).collect();
    match prepared(client, sql, &types)? {
        None => client.query_typed(sql, params),
        Some(statement) => {
            let values: Vec<&(dyn postgres::types::ToSql + Sync)> = params.iter().map(|(v, _)| *v).collect();
            client.query(&statement, &values)
        }
    }
}

/// `sql` with parameters whose types PostgreSQL infers, on a statement prepared once per pooled
/// connection (`sql::Tx::rows`).
pub(crate) fn query_prepared(
    client: &mut impl GenericClient,
    sql: &str,
    values: &[&(dyn postgres::types::ToSql + Sync)],
) -> Result<Vec<postgres::Row>, postgres::Error> {
    match prepared(client, sql, &[])? {
        None => client.query(sql, values),
        Some(statement) => client.query(&statement, values),
    }
}

/// As `query_prepared`, answering how many rows changed (`sql::Tx::execute`).
pub(crate) fn execute_prepared(
    client: &mut impl GenericClient,
    sql: &str,
    values: &[&(dyn postgres::types::ToSql + Sync)],
) -> Result<u64, postgres::Error> {
    match prepared(client, sql, &[])? {
        None => client.execute(sql, values),
        Some(statement) => client.execute(&statement, values),
    }
}

/// `query` answering the one row, if any (as `query_typed_opt`).
pub(crate) fn query_opt(
    client: &mut impl GenericClient,
    sql: &str,
    params: &[(&(dyn postgres::types::ToSql + Sync), postgres::types::Type)],
) -> Result<Option<postgres::Row>, postgres::Error> {
    let mut rows = query(client, sql, params)?;
    // As `query_typed_opt`: more than one row is the caller's mistake, shown as the first.
    Ok(if rows.is_empty() {
        None
    } else {
        Some(rows.swap_remove(0))
    })
}

/// Connections kept open between calls (more are opened while clients wait, then closed).
const IDLE_CONNECTIONS: usize = 8;

/// A pooled connection unused this long is checked (an empty query) before it is lent: the
/// database may have restarted, or the network dropped it, meanwhile.
const CHECK_IDLE_AFTER: Duration = Duration::from_secs(2);

/// The advisory lock held while a desk creates or checks the schema.
const SCHEMA_LOCK: i64 = 0x7061_636b_6465_736b; // "packdesk"

impl PgStore {
    /// Connects to `url` (`postgres://user@host:port/database`), creates the schema in an empty
    /// database and refuses one written by a newer Packdesk (leaving it untouched).
    pub fn open(url: &str) -> Result<PgStore, ServiceError> {
        let config: postgres::Config = url.parse().map_err(|e: postgres::Error| {
            ServiceError::internal(format!("the database address `{}` is not one: {e}", redacted(url)))
        })?;
        let store = PgStore {
            config,
            idle: Mutex::new(Vec::new()),
        };
        let mut client = store.connect()?;
        migrate(&mut client)?;
        store.give_back(client, Prepared::default());
        Ok(store)
    }

    fn connect(&self) -> Result<Client, StoreError> {
        Ok(self.config.connect(NoTls)?)
    }

    /// A live connection and its prepared statements: from the pool (checked first when it sat
    /// unused a while), else new.
    fn take(&self) -> Result<(Client, Prepared), StoreError> {
        let idle = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let fresh = |c| (c, Prepared::default());
        match idle {
            Some(p) if p.client.is_closed() => self.reconnect().map(fresh),
            Some(mut p) if p.last_used.elapsed() > CHECK_IDLE_AFTER => {
                if p.client.is_valid(Duration::from_secs(5)).is_ok() {
                    Ok((p.client, p.prepared))
                } else {
                    self.reconnect().map(fresh)
                }
            }
            Some(p) => Ok((p.client, p.prepared)),
            None => self.connect().map(fresh),
        }
    }

    /// A new connection after a pooled one was found dead: the others most likely died with it
    /// (the database restarted), so they go too.
    fn reconnect(&self) -> Result<Client, StoreError> {
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).clear();
        self.connect()
    }

    fn give_back(&self, client: Client, prepared: Prepared) {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if client.is_closed() {
            idle.clear();
        } else if idle.len() < IDLE_CONNECTIONS {
            idle.push(Pooled {
                client,
                prepared,
                last_used: Instant::now(),
            });
        }
    }

    /// Runs `f` in one transaction (READ COMMITTED; rows it must not share are locked with
    /// `FOR UPDATE`); it commits only if `f` returns Ok. The commit is durable when it returns.
    /// `f` gets the connection itself inside the transaction (BEGIN and COMMIT are sent here), so
    /// the service's `db::Tx` has one lifetime; a savepoint inside it is named in SQL, since the
    /// client's own `transaction()` would send a second BEGIN. A pooled connection the database
    /// dropped fails at BEGIN, before anything of `f` was sent: the transaction then starts on a
    /// new connection. A connection lost later fails the write whole (rolled back: nothing
    /// half-written) with an error worth a retry. A connection left mid-transaction by a panic in
    /// `f` is dropped with it, and PostgreSQL rolls the transaction back.
    pub fn write<T, E: From<StoreError>>(&self, f: impl FnOnce(&mut Client) -> Result<T, E>) -> Result<T, E> {
        self.write_on(false, f)
    }

    /// Like `write`, for what a later durable commit covers (reserved tracking serials: a label
    /// that registers them commits after, and PostgreSQL's log is flushed in order, so a serial
    /// issued durably was reserved durably; a reservation lost in a crash is only drawn again).
    /// It does not wait for the disk.
    pub fn write_relaxed<T, E: From<StoreError>>(&self, f: impl FnOnce(&mut Client) -> Result<T, E>) -> Result<T, E> {
        self.write_on(true, f)
    }

    fn write_on<T, E: From<StoreError>>(
        &self,
        relaxed: bool,
        f: impl FnOnce(&mut Client) -> Result<T, E>,
    ) -> Result<T, E> {
        let begin = if relaxed {
            "BEGIN; SET LOCAL synchronous_commit TO OFF"
        } else {
            "BEGIN"
        };
        let (mut client, mut prepared) = self.take()?;
        if let Err(e) = client.batch_execute(begin) {
            // A dropped connection fails at BEGIN, before anything of `f` was sent: once more, anew.
            if !client.is_closed() {
                self.give_back(client, prepared);
                return Err(StoreError::from(e).into());
            }
            client = self.reconnect()?;
            prepared = Prepared::default();
            client.batch_execute(begin).map_err(StoreError::from)?;
        }
        let (out, prepared) = lending(&mut client, prepared, f);
        match out {
            Ok(out) => match client.batch_execute("COMMIT") {
                Ok(()) => {
                    self.give_back(client, prepared);
                    Ok(out)
                }
                Err(e) => {
                    self.give_back(client, prepared);
                    Err(StoreError::from(e).into())
                }
            },
            Err(e) => {
                let _ = client.batch_execute("ROLLBACK");
                self.give_back(client, prepared);
                Err(e)
            }
        }
    }

    /// Runs `f` on a connection of the pool (each statement sees the latest commits).
    pub fn read<T, E: From<StoreError>>(&self, f: impl FnOnce(&mut Client) -> Result<T, E>) -> Result<T, E> {
        self.autocommit(f)
    }

    /// Runs `f` on a connection of the pool outside any transaction: each statement it sends is a
    /// transaction of its own, committed before its answer comes back (a write that is whole in
    /// one statement, such as `tracking::reserve`).
    pub fn autocommit<T, E: From<StoreError>>(&self, f: impl FnOnce(&mut Client) -> Result<T, E>) -> Result<T, E> {
        let (mut client, prepared) = self.take()?;
        let (out, prepared) = lending(&mut client, prepared, f);
        self.give_back(client, prepared);
        out
    }
}

/// A lock held by one desk at a time for as long as its connection lives (PostgreSQL's session
/// advisory lock): when the desk stops, dies or loses the database, its connection ends and the
/// lock is free for another desk. Dropping it lets go.
pub struct SessionLock {
    client: Client,
    key: i64,
}

impl SessionLock {
    /// Whether this desk still holds the lock: false once its connection is gone (the database
    /// restarted, the network dropped), when another desk may have taken it.
    pub fn held(&mut self) -> bool {
        self.client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
                 AND granted AND ((classid::bigint << 32) | objid::bigint) = $1)",
                &[&self.key],
            )
            .map(|r| r.get::<_, bool>(0))
            .unwrap_or(false)
    }
}

impl PgStore {
    /// Takes the session lock `key` on a connection of its own, unless another desk holds it.
    pub fn try_session_lock(&self, key: i64) -> Result<Option<SessionLock>, StoreError> {
        let mut client = self.connect()?;
        let got: bool = client.query_one("SELECT pg_try_advisory_lock($1)", &[&key])?.get(0);
        Ok(got.then_some(SessionLock { client, key }))
    }
}

/// A value of the `meta` table (store-wide settings and secrets such as the file link key).
pub fn meta_get(client: &mut impl GenericClient, key: &str) -> crate::Result<Option<String>> {
    Ok(client
        .query_opt("SELECT value FROM meta WHERE key = $1", &[&key])?
        .map(|r| r.get(0)))
}

/// Sets `key` to `value`, replacing what it was.
pub fn meta_set(tx: &mut impl GenericClient, key: &str, value: &str) -> crate::Result<()> {
    tx.execute(
        "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        &[&key, &value],
    )?;
    Ok(())
}

/// Sets `key` unless another desk set it first; answers the value in force (the file link key
/// every desk signs with, made by whichever desk starts first).
pub fn meta_init(tx: &mut impl GenericClient, key: &str, value: &str) -> crate::Result<String> {
    tx.execute(
        "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
        &[&key, &value],
    )?;
    Ok(tx.query_one("SELECT value FROM meta WHERE key = $1", &[&key])?.get(0))
}

/// Creates an empty database named `<prefix>_<pid>_<n>` in the cluster `admin_url` points to and
/// answers its address (tests and benchmarks make one per case in one shared cluster).
pub fn scratch_database(admin_url: &str, prefix: &str) -> Result<String, ServiceError> {
    static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() % 1_000_000_000);
    let name = format!("{prefix}_{}_{stamp}_{n}", std::process::id());
    let mut admin = Client::connect(admin_url, NoTls).map_err(crate::db_error)?;
    // A name cannot be a parameter; this one is made of ASCII letters, digits and `_` only.
    assert!(name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .map_err(crate::db_error)?;
    // `postgres://user@host:port/database`: the same server, the new database.
    let base = admin_url.rsplit_once('/').map_or(admin_url, |(b, _)| b);
    Ok(format!("{base}/{name}"))
}

/// A search text as PostgreSQL's TEXT can keep it: without NUL characters, which it refuses
/// (SQLite keeps them; a search never looks for one). Records are JSON, where NUL is escaped.
pub(crate) fn searchable(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\0') {
        std::borrow::Cow::Owned(text.replace('\0', ""))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// The address without its password, for messages and the log.
pub fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let user = &url[scheme + 3..at];
            let user = user.split(':').next().unwrap_or_default();
            format!("{}{user}{}", &url[..scheme + 3], &url[at..])
        }
        _ => url.to_string(),
    }
}

/// The schema version the database holds (0: empty).
pub fn version(client: &mut impl GenericClient) -> crate::Result<usize> {
    let has_meta: bool = client.query_one("SELECT to_regclass('meta') IS NOT NULL", &[])?.get(0);
    if !has_meta {
        return Ok(0);
    }
    let row = client.query_opt("SELECT value FROM meta WHERE key = 'schema_version'", &[])?;
    Ok(row.and_then(|r| r.get::<_, String>(0).parse().ok()).unwrap_or(0))
}

/// Creates the schema in an empty database or brings an older one up to `migrations::LATEST`,
/// under an advisory lock (two desks starting at once: one migrates, the other waits and finds it
/// done).
fn migrate(client: &mut Client) -> Result<(), ServiceError> {
    let mut tx = client.transaction().map_err(crate::db_error)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])
        .map_err(crate::db_error)?;
    let mut version = version(&mut tx)?;
    if version > migrations::LATEST {
        return Err(ServiceError::internal(format!(
            "the shared database was written by a newer Packdesk (schema {version}; this one knows up to {}): \
             nothing in it changed. Update this desk to the version the other desks run",
            migrations::LATEST
        )));
    }
    for (to, script) in MIGRATIONS {
        if *to > version {
            tx.batch_execute(script).map_err(crate::db_error)?;
            version = *to;
        }
    }
    tx.execute(
        "INSERT INTO meta (key, value) VALUES ('schema_version', $1)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        &[&version.to_string()],
    )
    .map_err(crate::db_error)?;
    tx.commit().map_err(crate::db_error)
}

/// PostgreSQL's scripts, each with the version it brings the schema to. The shared database
/// starts at SQLite's schema 8 (the first version with many desks): the same tables and columns,
/// plus what sharing needs (the desk of printers, profiles and print jobs; leases of jobs; a
/// trigram index for searching the shared history). Every integer is BIGINT (Rust's i64;
/// times in microseconds).
const MIGRATIONS: &[(usize, &str)] = &[
    (
        8,
        r#"
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE api_keys (
        env TEXT PRIMARY KEY CHECK (env IN ('live', 'sandbox')),
        key_hash BYTEA NOT NULL,
        key_sealed BYTEA NOT NULL,
        created_at BIGINT NOT NULL
    );
    CREATE TABLE shipper_accounts (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        slug TEXT NOT NULL,
        status TEXT NOT NULL,
        description TEXT NOT NULL,
        timezone TEXT NOT NULL,
        address TEXT,
        settings TEXT NOT NULL,
        credentials BYTEA NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
    );
    CREATE INDEX shipper_accounts_page ON shipper_accounts (env, created_at DESC, id DESC);
    CREATE TABLE tracking_counters (scope TEXT PRIMARY KEY, next_serial BIGINT NOT NULL);
    CREATE TABLE tracking_numbers (
        env TEXT NOT NULL,
        slug TEXT NOT NULL,
        number TEXT NOT NULL,
        label_id TEXT NOT NULL,
        PRIMARY KEY (env, slug, number)
    );
    CREATE INDEX tracking_numbers_label ON tracking_numbers (label_id);
    CREATE TABLE labels (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        shipper_account_id TEXT NOT NULL REFERENCES shipper_accounts (id),
        status TEXT NOT NULL,
        order_number TEXT,
        search_text TEXT NOT NULL,
        manifest_id TEXT,
        request TEXT NOT NULL,
        record TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        ship_date TEXT NOT NULL DEFAULT '',
        service_type TEXT NOT NULL DEFAULT '',
        weight_kg DOUBLE PRECISION NOT NULL DEFAULT 0,
        desk TEXT NOT NULL DEFAULT ''
    );
    CREATE UNIQUE INDEX labels_order_number ON labels (shipper_account_id, order_number)
        WHERE order_number IS NOT NULL AND status NOT IN ('cancelled', 'failed');
    CREATE INDEX labels_page ON labels (env, created_at DESC, id DESC);
    CREATE INDEX labels_account ON labels (shipper_account_id, status, created_at);
    CREATE INDEX labels_manifestable ON labels
        (shipper_account_id, status, manifest_id, ship_date, service_type, weight_kg, created_at);
    CREATE INDEX labels_search ON labels USING gin (search_text gin_trgm_ops);
    CREATE TABLE files (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        file_type TEXT NOT NULL,
        paper_size TEXT NOT NULL,
        bytes BYTEA NOT NULL,
        created_at BIGINT NOT NULL
    );
    CREATE INDEX files_owner ON files (owner_id);
    -- PDF and PNG streams are deflated already: PostgreSQL's own compression of them only costs.
    ALTER TABLE files ALTER COLUMN bytes SET STORAGE EXTERNAL;
    CREATE TABLE cancel_labels (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, shipper_account_id TEXT, status TEXT NOT NULL,
        record TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL
    );
    CREATE INDEX cancel_labels_page ON cancel_labels (env, created_at DESC, id DESC);
    CREATE TABLE manifests (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, shipper_account_id TEXT, status TEXT NOT NULL,
        record TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL
    );
    CREATE INDEX manifests_page ON manifests (env, created_at DESC, id DESC);
    CREATE TABLE bulk_downloads (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, shipper_account_id TEXT, status TEXT NOT NULL,
        record TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL
    );
    CREATE INDEX bulk_downloads_page ON bulk_downloads (env, created_at DESC, id DESC);
    CREATE TABLE rates (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, shipper_account_id TEXT, status TEXT NOT NULL,
        record TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL
    );
    CREATE INDEX rates_page ON rates (env, created_at DESC, id DESC);
    CREATE TABLE address_validations (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, shipper_account_id TEXT, status TEXT NOT NULL,
        record TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL
    );
    CREATE INDEX address_validations_page ON address_validations (env, created_at DESC, id DESC);
    -- Async jobs: claimed with FOR UPDATE SKIP LOCKED under a lease, so a job of a desk that died
    -- is taken over once the lease ends.
    CREATE TABLE jobs (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        env TEXT NOT NULL,
        kind TEXT NOT NULL,
        lane TEXT NOT NULL,
        request TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('queued', 'done')),
        accepted_at BIGINT NOT NULL,
        finished_at BIGINT,
        leased_by TEXT,
        leased_until BIGINT
    );
    CREATE INDEX jobs_queued ON jobs (state, seq);
    CREATE TABLE webhook_settings (
        env TEXT PRIMARY KEY CHECK (env IN ('live', 'sandbox')),
        url TEXT NOT NULL,
        enabled BOOLEAN NOT NULL,
        updated_at BIGINT NOT NULL
    );
    CREATE TABLE webhook_deliveries (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        event TEXT NOT NULL,
        record_id TEXT NOT NULL,
        url TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts BIGINT NOT NULL,
        round_failures BIGINT NOT NULL,
        next_attempt_at BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
    );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
    CREATE INDEX webhook_deliveries_page ON webhook_deliveries (env, created_at DESC, id DESC);
    CREATE TABLE webhook_attempts (
        delivery_id TEXT NOT NULL,
        attempt BIGINT NOT NULL,
        at BIGINT NOT NULL,
        url TEXT NOT NULL,
        status_code BIGINT,
        error TEXT,
        duration_us BIGINT NOT NULL,
        PRIMARY KEY (delivery_id, attempt)
    );
    -- Printers and profiles belong to a desk; print jobs are shared, each going to its printer's desk.
    CREATE TABLE printers (
        id TEXT PRIMARY KEY,
        desk TEXT NOT NULL,
        name TEXT NOT NULL,
        transport TEXT NOT NULL,
        address TEXT NOT NULL,
        format TEXT NOT NULL CHECK (format IN ('pdf', 'zpl')),
        dpi BIGINT NOT NULL,
        strip_zpl_setup BOOLEAN NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
    );
    CREATE TABLE print_profiles (
        desk TEXT NOT NULL,
        document_type TEXT NOT NULL,
        printer_id TEXT NOT NULL REFERENCES printers (id) ON DELETE CASCADE,
        stock TEXT NOT NULL,
        copies BIGINT NOT NULL,
        auto_print BOOLEAN NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (desk, document_type)
    );
    CREATE TABLE print_jobs (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        desk TEXT NOT NULL,
        printer_id TEXT NOT NULL,
        document_type TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        file_id TEXT NOT NULL,
        copies BIGINT NOT NULL,
        stock TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'printing', 'printed', 'failed')),
        error TEXT,
        attempts BIGINT NOT NULL,
        bytes_sent BIGINT,
        reference TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        printed_at BIGINT
    );
    CREATE INDEX print_jobs_page ON print_jobs (env, created_at DESC, id DESC);
    CREATE INDEX print_jobs_status ON print_jobs (desk, status, updated_at);
    CREATE INDEX print_jobs_owner ON print_jobs (owner_id, document_type, created_at);
    -- No per-quarter-hour counts kept by a trigger here (SQLite's label_quarters): every label of
    -- every desk would update the same counter row and wait for the others' commits. Today's
    -- counts read the labels' (env, created_at) index instead.
    CREATE TABLE idempotency_keys (
        env TEXT NOT NULL,
        key TEXT NOT NULL,
        request_hash BYTEA NOT NULL,
        http_status BIGINT,
        response TEXT,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (env, key)
    );
    CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);
    CREATE TABLE orders (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        order_number TEXT NOT NULL,
        status TEXT NOT NULL,
        record TEXT NOT NULL,
        search_text TEXT NOT NULL DEFAULT '',
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        UNIQUE (env, order_number)
    );
    CREATE INDEX orders_page ON orders (env, created_at DESC, id DESC);
    CREATE INDEX orders_status_page ON orders (env, status, created_at DESC, id DESC);
    CREATE INDEX orders_search ON orders USING gin (search_text gin_trgm_ops);
    CREATE TABLE order_labels (
        label_id TEXT PRIMARY KEY,
        order_id TEXT NOT NULL
    );
    CREATE TABLE import_mappings (
        name TEXT PRIMARY KEY,
        columns TEXT NOT NULL,
        updated_at BIGINT NOT NULL
    );
    CREATE TABLE presets (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        name TEXT NOT NULL,
        record TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        UNIQUE (env, name)
    );
    CREATE TABLE ship_batches (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        created_at BIGINT NOT NULL
    );
    CREATE TABLE ship_batch_orders (
        batch_id TEXT NOT NULL,
        position BIGINT NOT NULL,
        order_id TEXT NOT NULL,
        order_number TEXT NOT NULL,
        status TEXT NOT NULL,
        label_id TEXT,
        tracking_numbers TEXT NOT NULL,
        info TEXT,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (batch_id, position)
    );
    "#,
    ),
    (
        9,
        r#"
    CREATE INDEX tracking_numbers_number ON tracking_numbers (number);
    "#,
    ),
];

#[cfg(test)]
mod tests {
    #[test]
    fn the_shared_schema_reaches_the_version_sqlite_writes() {
        assert_eq!(super::MIGRATIONS.last().map(|m| m.0), Some(crate::migrations::LATEST));
    }

    #[test]
    fn a_database_address_is_logged_without_its_password() {
        assert_eq!(
            super::redacted("postgres://desk:s3cret@db.lan:5432/packdesk"),
            "postgres://desk@db.lan:5432/packdesk"
        );
        assert_eq!(
            super::redacted("postgres://desk@db.lan/packdesk"),
            "postgres://desk@db.lan/packdesk"
        );
    }
}
