//! The shared store of many desks on PostgreSQL (issue 16; see docs/decisions.md, "Many desks on
//! PostgreSQL"). The blocking client over tokio-postgres, a small pool of connections, the schema
//! at the same version line as SQLite's.
//!
//! Each table's statements are written once for both databases in its module (`sql.rs`). Here:
//! opening (schema created or checked under an advisory lock, so desks starting at once do not
//! race), the pool, transactions, session locks, and the prepared statements: each statement is
//! prepared once per pooled connection and kept with it.
//!
//! The blocking client runs its own small runtime: call it from plain or blocking threads, never
//! from inside an async task (as the service already calls its store).

use crate::sql::Dialect;
use crate::timing::{self, Phase};
use crate::{migrations, StoreError};
use packdesk_model::ServiceError;
use postgres::{Client, GenericClient, NoTls};
// NoTls: the test clusters' scratch databases (`scratch_database`).
use crate::file_parts::Kept;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One desk's handle on the shared database.
pub struct PgStore {
    config: postgres::Config,
    /// TLS as the address's `sslmode` and `sslrootcert` ask (see `pg_tls`).
    connector: crate::pg_tls::Connector,
    idle: Mutex<Vec<Pooled>>,
    /// Connections kept open whose statements take their generic plan (`Plans::Generic`).
    idle_generic: Mutex<Vec<Pooled>>,
    /// The shared parts of files this database is known to keep (`file_parts::Kept`).
    kept_parts: Arc<Kept>,
}

/// A connection kept open between calls, the statements prepared on it, and when it was last
/// given back.
struct Pooled {
    client: Client,
    prepared: Prepared,
    last_used: Instant,
}

/// How PostgreSQL plans the statements of a connection.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Plans {
    /// As it chooses: a plan for the values sent until a generic one looks as cheap (a search's
    /// pattern decides its plan).
    Chosen,
    /// The generic plan, made once per connection (PostgreSQL 12 or later). For the batch
    /// statement of the labels written on their own (`labels::write_made_shared`): the lengths
    /// of its arrays make a plan for the values sent look cheaper than the generic one every
    /// time, so it was planned anew at every batch (a sixth of PostgreSQL's CPU a label;
    /// docs/measurements.md, 2026-11-28 evening). A label written in a transaction (of an order,
    /// an upstream, a job) still gets PostgreSQL's choice: those come at a packer's pace.
    Generic,
}

/// Statements prepared on one connection, by their SQL: PostgreSQL parses and plans each once
/// per connection instead of at every label (half its work before).
#[derive(Default)]
struct Prepared(std::collections::HashMap<String, postgres::Statement>);

/// Statements a connection keeps prepared at most: the store sends about a hundred different
/// ones (every statement but the searches is prepared), so the cache is cleared only when
/// something goes wrong (a statement built from a growing list, such as a close-out's ids).
const PREPARED_PER_CONNECTION: usize = 512;

thread_local! {
    /// The connections this thread has borrowed from the pool right now, by address, with their
    /// prepared statements (`query` finds a statement's connection this way: the store's
    /// functions get the bare `Client`) and, for one lent outside a transaction, the parts the
    /// database is known to keep (`kept_parts`).
    static LENT: std::cell::RefCell<Vec<LentConnection>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A connection lent now: its address, its prepared statements, and the parts kept (`LENT`).
type LentConnection = (usize, Prepared, Option<Arc<Kept>>);

/// Runs `f` on `client` with its prepared statements (and `kept`) lent to `query`, and answers
/// them back with `f`'s result. The client's address is stable meanwhile (`f` borrows it).
fn lending<T>(
    client: &mut Client,
    prepared: Prepared,
    kept: Option<Arc<Kept>>,
    f: impl FnOnce(&mut Client) -> T,
) -> (T, Prepared) {
    /// Takes the statements back when dropped, even while `f` unwinds.
    struct Lent(usize);
    impl Lent {
        fn take(&self) -> Prepared {
            LENT.with_borrow_mut(|lent| match lent.iter().rposition(|(a, _, _)| *a == self.0) {
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
    LENT.with_borrow_mut(|lent| lent.push((address, prepared, kept)));
    let lent = Lent(address);
    let out = f(client);
    let prepared = lent.take();
    // Taken back already: nothing left for the drop to do.
    std::mem::forget(lent);
    (out, prepared)
}

/// The parts the database is known to keep, when `client` was lent outside a transaction (each
/// statement commits before its answer, so what it wrote is kept once it succeeded); None inside
/// a transaction, which may still roll back, and on a connection not lent by the pool.
pub(crate) fn kept_parts(client: &mut impl GenericClient) -> Option<Arc<Kept>> {
    let address = client as *mut _ as *const () as usize;
    LENT.with_borrow(|lent| {
        lent.iter()
            .rev()
            .find(|(a, _, _)| *a == address)
            .and_then(|(_, _, kept)| kept.clone())
    })
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
            .find(|(a, _, _)| *a == address)
            .map(|(_, p, _)| p.0.get(sql).cloned())
    });
    Ok(match known {
        None => None,
        Some(Some(statement)) => Some(statement),
        Some(None) => {
            let statement = client.prepare_typed(sql, types)?;
            LENT.with_borrow_mut(|lent| {
                if let Some((_, p, _)) = lent.iter_mut().rev().find(|(a, _, _)| *a == address) {
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

/// Connections kept open between calls, in each pool (more are opened while clients wait, then
/// closed; the generic plans' pool holds about one: one batch is written at a time).
const IDLE_CONNECTIONS: usize = 8;

/// A pooled connection unused this long is checked (an empty query) before it is lent: the
/// database may have restarted, or the network dropped it, meanwhile.
const CHECK_IDLE_AFTER: Duration = Duration::from_secs(2);

/// How long a connection to one server of the address may take unless the address says
/// (`connect_timeout`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The advisory lock held while a desk creates or checks the schema.
const SCHEMA_LOCK: i64 = 0x7061_636b_6465_736b; // "packdesk"

impl PgStore {
    /// Connects to `url` (`postgres://user@host:port/database`), creates the schema in an empty
    /// database and refuses one written by a newer Packdesk (leaving it untouched).
    pub fn open(url: &str) -> Result<PgStore, ServiceError> {
        let (rest, connector) = crate::pg_tls::connector_for(url)
            .map_err(|e| ServiceError::internal(format!("the database address `{}`: {e}", redacted(url))))?;
        let mut config: postgres::Config = rest.parse().map_err(|e: postgres::Error| {
            ServiceError::internal(format!("the database address `{}` is not one: {e}", redacted(url)))
        })?;
        // An `sslmode` this module did not take out (`sslmode = require`, spaced) would be
        // overruled by the connector: refused rather than weakened.
        if config.get_ssl_mode() != postgres::config::SslMode::Prefer {
            return Err(ServiceError::internal(format!(
                "the database address `{}`: write sslmode=MODE without spaces",
                redacted(url)
            )));
        }
        // A server that does not take the connection (a host down, not refusing) is given up
        // after this, so the next host of the address is tried.
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        // A server gone silent mid-statement (its machine died, no reset sent) is noticed in
        // about half a minute, not after the system's two hours of TCP keepalive.
        // (Unless the address sets its own keepalives.)
        let default_keepalives =
            config.get_keepalives_idle() == Duration::from_secs(7200) && config.get_keepalives_interval().is_none();
        if config.get_keepalives() && default_keepalives {
            config
                .keepalives_idle(Duration::from_secs(10))
                .keepalives_interval(Duration::from_secs(5))
                .keepalives_retries(3);
        }
        if config.get_tcp_user_timeout().is_none() {
            config.tcp_user_timeout(Duration::from_secs(30));
        }
        let store = PgStore {
            config,
            connector,
            idle: Mutex::new(Vec::new()),
            idle_generic: Mutex::new(Vec::new()),
            kept_parts: Arc::default(),
        };
        let mut client = store.connect(Plans::Chosen)?;
        migrate(&mut client)?;
        store.give_back(client, Prepared::default(), Plans::Chosen);
        Ok(store)
    }

    fn connect(&self, plans: Plans) -> Result<Client, StoreError> {
        let mut client = self
            .connector
            .connect(&self.config)
            .map_err(|e| match self.connector.explain(&e) {
                Some(words) => StoreError::Tls(words),
                None => StoreError::Postgres(e),
            })?;
        if plans == Plans::Generic {
            client.batch_execute("SET plan_cache_mode = force_generic_plan")?;
        }
        Ok(client)
    }

    fn idle(&self, plans: Plans) -> std::sync::MutexGuard<'_, Vec<Pooled>> {
        let idle = match plans {
            Plans::Chosen => &self.idle,
            Plans::Generic => &self.idle_generic,
        };
        idle.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A live connection and its prepared statements: from the pool (checked first when it sat
    /// unused a while), else new.
    fn take(&self, plans: Plans) -> Result<(Client, Prepared), StoreError> {
        let idle = self.idle(plans).pop();
        let fresh = |c| (c, Prepared::default());
        match idle {
            Some(p) if p.client.is_closed() => self.reconnect(plans).map(fresh),
            Some(mut p) if p.last_used.elapsed() > CHECK_IDLE_AFTER => {
                if p.client.is_valid(Duration::from_secs(5)).is_ok() {
                    Ok((p.client, p.prepared))
                } else {
                    self.reconnect(plans).map(fresh)
                }
            }
            Some(p) => Ok((p.client, p.prepared)),
            None => self.connect(plans).map(fresh),
        }
    }

    /// A new connection after a pooled one was found dead: the others most likely died with it
    /// (the database restarted), so they go too.
    fn reconnect(&self, plans: Plans) -> Result<Client, StoreError> {
        self.forget_idle();
        self.connect(plans)
    }

    /// Drops the idle connections of both pools: one was found dead, and a restart or a lost
    /// network took the others too. Both: a connection of the other pool, used less than
    /// `CHECK_IDLE_AFTER` ago, would otherwise be taken unchecked and fail the next label.
    fn forget_idle(&self) {
        self.idle(Plans::Chosen).clear();
        self.idle(Plans::Generic).clear();
    }

    fn give_back(&self, client: Client, prepared: Prepared, plans: Plans) {
        if client.is_closed() {
            self.forget_idle();
            return;
        }
        let mut idle = self.idle(plans);
        if idle.len() < IDLE_CONNECTIONS {
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
        let (mut client, mut prepared) = timing::time(Phase::Lock, || self.take(Plans::Chosen))?;
        let began = Instant::now();
        if let Err(e) = client.batch_execute(begin) {
            // A dropped connection fails at BEGIN, before anything of `f` was sent: once more, anew.
            if !client.is_closed() {
                self.give_back(client, prepared, Plans::Chosen);
                return Err(StoreError::from(e).into());
            }
            client = self.reconnect(Plans::Chosen)?;
            prepared = Prepared::default();
            client.batch_execute(begin).map_err(StoreError::from)?;
        }
        let (out, prepared) = lending(&mut client, prepared, None, f);
        timing::spent(Phase::Write, began.elapsed());
        match out {
            // The commit waits for the server's flush of its log (unless `relaxed`).
            Ok(out) => match timing::time(Phase::Sync, || client.batch_execute("COMMIT")) {
                Ok(()) => {
                    self.give_back(client, prepared, Plans::Chosen);
                    Ok(out)
                }
                Err(e) => {
                    self.give_back(client, prepared, Plans::Chosen);
                    Err(StoreError::from(e).into())
                }
            },
            Err(e) => {
                let _ = client.batch_execute("ROLLBACK");
                self.give_back(client, prepared, Plans::Chosen);
                Err(e)
            }
        }
    }

    /// Runs `f`, which sends exactly one statement, as a transaction of its own: no BEGIN and
    /// no COMMIT (two round trips fewer), and the statement's answer comes once its commit is
    /// durable (`synchronous_commit` on). It is all or nothing as a transaction is. A pooled
    /// connection known closed, or idle long and not answering, is replaced before it is sent
    /// (`take`); one lost while the statement is out fails it, committed or not, as a lost
    /// COMMIT leaves `write` (sent again, its numbers and id are refused as taken).
    pub fn write_one_statement<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut Client) -> Result<T, E>,
    ) -> Result<T, E> {
        timing::time(Phase::Write, || self.autocommit(f))
    }

    /// Runs `f` on a connection of the pool (each statement sees the latest commits).
    pub fn read<T, E: From<StoreError>>(&self, f: impl FnOnce(&mut Client) -> Result<T, E>) -> Result<T, E> {
        self.autocommit(f)
    }

    /// Runs `f` on a connection of the pool outside any transaction: each statement it sends is a
    /// transaction of its own, committed before its answer comes back (a write that is whole in
    /// one statement, such as `tracking::reserve`).
    pub fn autocommit<T, E: From<StoreError>>(&self, f: impl FnOnce(&mut Client) -> Result<T, E>) -> Result<T, E> {
        self.autocommit_planned(Plans::Chosen, f)
    }

    /// `autocommit` on a connection whose statements are planned as `plans` says.
    pub fn autocommit_planned<T, E: From<StoreError>>(
        &self,
        plans: Plans,
        f: impl FnOnce(&mut Client) -> Result<T, E>,
    ) -> Result<T, E> {
        let (mut client, prepared) = self.take(plans)?;
        let (out, prepared) = lending(&mut client, prepared, Some(self.kept_parts.clone()), f);
        self.give_back(client, prepared, plans);
        out
    }
}

/// Writes of one statement each that arrive at a desk together, sent as one (issue 42; the
/// labels made at once: `labels::write_made_shared`): the first finds nobody writing and writes
/// what is waiting, itself included; those that come meanwhile wait, and the next of them writes
/// them all. A write alone goes at once; each is answered its own outcome once its statement is
/// done (committed: every statement runs on its own, `PgStore::autocommit_planned`).
pub struct Together<T, R> {
    state: Mutex<Waiting<T, R>>,
    written: std::sync::Condvar,
}

struct Waiting<T, R> {
    writes: Vec<(u64, T)>,
    writing: bool,
    next_ticket: u64,
    /// Each write's outcome, by its ticket; none: the write of its batch panicked.
    outcomes: std::collections::HashMap<u64, Option<R>>,
}

/// At most this many writes in one statement (a bound on its size and on the first one's wait).
const MOST_TOGETHER: usize = 32;

impl<T, R> Default for Together<T, R> {
    fn default() -> Self {
        Together {
            state: Mutex::new(Waiting {
                writes: Vec::new(),
                writing: false,
                next_ticket: 0,
                outcomes: Default::default(),
            }),
            written: Default::default(),
        }
    }
}

impl<T, R> Together<T, R> {
    /// Writes `item` with the others waiting: `write_all` gets them (in the order they came)
    /// and answers an outcome for each, in that order.
    pub fn write(&self, item: T, write_all: impl Fn(&[T]) -> Vec<R>) -> R {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        state.writes.push((ticket, item));
        loop {
            if let Some(outcome) = state.outcomes.remove(&ticket) {
                return outcome.expect("the write of this one's batch panicked");
            }
            if state.writing {
                state = self.written.wait(state).unwrap_or_else(|p| p.into_inner());
                continue;
            }
            let take = state.writes.len().min(MOST_TOGETHER);
            let (tickets, items): (Vec<u64>, Vec<T>) = state.writes.drain(..take).unzip();
            state.writing = true;
            drop(state);
            /// Answers the batch's writes, and lets the next batch go, even if `write_all` panics.
            struct Answer<'a, T, R> {
                together: &'a Together<T, R>,
                tickets: Vec<u64>,
                outcomes: Vec<R>,
            }
            impl<T, R> Drop for Answer<'_, T, R> {
                fn drop(&mut self) {
                    let mut state = self.together.state.lock().unwrap_or_else(|p| p.into_inner());
                    let mut outcomes = std::mem::take(&mut self.outcomes).into_iter();
                    for t in &self.tickets {
                        state.outcomes.insert(*t, outcomes.next());
                    }
                    state.writing = false;
                    self.together.written.notify_all();
                }
            }
            let mut answer = Answer {
                together: self,
                tickets,
                outcomes: Vec::new(),
            };
            answer.outcomes = write_all(&items);
            drop(answer);
            state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        }
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
        let mut client = self.connect(Plans::Chosen)?;
        let got: bool = client.query_one("SELECT pg_try_advisory_lock($1)", &[&key])?.get(0);
        Ok(got.then_some(SessionLock { client, key }))
    }
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

/// Whether PostgreSQL refused a NULL in `table` (in `column`, if named): how a statement's
/// guards say no without another round trip (a kept font part missing, a label's account changed).
pub(crate) fn null_refused(e: &postgres::Error, table: &str, column: Option<&str>) -> bool {
    e.as_db_error().is_some_and(|d| {
        *d.code() == postgres::error::SqlState::NOT_NULL_VIOLATION
            && d.table() == Some(table)
            && column.is_none_or(|c| d.column() == Some(c))
    })
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

/// The address without its password, for messages, Settings and the log: a URL's user
/// `user:password@`, a `password=` option of its query, and a key=value address's `password=`.
pub fn redacted(url: &str) -> String {
    // A password in the query or among key=value words goes as the TLS options are taken out.
    let (url, _password) = crate::pg_tls::take_options(url, &["password"]);
    let Some((scheme, rest)) = url.split_once("://") else {
        return url;
    };
    let (authority, tail) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    let authority = match authority.rsplit_once('@') {
        Some((user, hosts)) => format!("{}@{hosts}", user.split(':').next().unwrap_or_default()),
        None => authority.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
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
    for (to, script) in migrations::scripts(Dialect::Postgres) {
        if to > version {
            tx.batch_execute(&script).map_err(crate::db_error)?;
            version = to;
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_database_address_is_logged_without_its_password() {
        for (address, logged) in [
            (
                "postgres://desk:s3cret@db.lan:5432/packdesk",
                "postgres://desk@db.lan:5432/packdesk",
            ),
            ("postgres://desk@db.lan/packdesk", "postgres://desk@db.lan/packdesk"),
            // libpq also reads the password from the query and from key=value words.
            (
                "postgres://desk@db1,db2/packdesk?password=s3cret&sslrootcert=/ca@x.crt",
                "postgres://desk@db1,db2/packdesk?sslrootcert=/ca@x.crt",
            ),
            (
                "postgres://desk:s3cret@db1/packdesk?password=s3cret",
                "postgres://desk@db1/packdesk",
            ),
            (
                "host=db1 user=desk password=s3cret dbname=packdesk",
                "host=db1 user=desk dbname=packdesk",
            ),
        ] {
            assert_eq!(super::redacted(address), logged, "{address}");
        }
    }
}

#[cfg(test)]
mod together_tests {
    use super::Together;
    use std::sync::Mutex;
    use std::time::Duration;

    #[test]
    fn writes_that_come_while_one_is_written_go_together_each_answered_its_own() {
        let together = Together::default();
        let batches = Mutex::new(Vec::new());
        let answers: Vec<(u32, u32)> = std::thread::scope(|s| {
            let writers: Vec<_> = (0..8u32)
                .map(|n| {
                    let (together, batches) = (&together, &batches);
                    s.spawn(move || {
                        // The first waits a little, so the others come while it is written.
                        std::thread::sleep(Duration::from_millis(if n == 0 { 0 } else { 20 }));
                        let answer = together.write(n, |items: &[u32]| {
                            batches.lock().unwrap().push(items.len());
                            std::thread::sleep(Duration::from_millis(200));
                            items.iter().map(|i| i * 10).collect()
                        });
                        (n, answer)
                    })
                })
                .collect();
            writers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        for (n, answer) in answers {
            assert_eq!(answer, n * 10, "each its own outcome");
        }
        let batches = batches.into_inner().unwrap();
        assert_eq!(batches.iter().sum::<usize>(), 8);
        assert!(batches.len() < 8, "the others together: {batches:?}");
    }
}
