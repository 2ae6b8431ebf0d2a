//! What the store's tests and its benchmarks share: the backend a run is on and a desk's store on
//! it, the test cluster, and a label's tracking numbers drawn as the service draws them. The
//! benchmarks take this file by its path (`#[path = "../tests/it/support.rs"]`).
// Each test module and bench uses a part of it.
#![allow(dead_code)]

use packdesk_model::status::Env;
use packdesk_store::db::{Db, Tx};
use packdesk_store::pg::{self, PgStore};
use packdesk_store::{tracking, StoreError};

/// The backend the suite written against `Db` runs on, as the api crate's suite chooses it:
/// `PACKDESK_TEST_BACKEND` unset or `sqlite`, a desk's own SQLite file; `postgres`, a database of
/// its own in the cluster of PACKDESK_TEST_POSTGRES. Any other value stops the run rather than
/// run on a backend nobody asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

pub fn backend() -> Backend {
    match std::env::var("PACKDESK_TEST_BACKEND") {
        Err(std::env::VarError::NotPresent) => Backend::Sqlite,
        Ok(v) if v == "sqlite" => Backend::Sqlite,
        Ok(v) if v == "postgres" => Backend::Postgres,
        other => panic!("PACKDESK_TEST_BACKEND={other:?}: `sqlite` (the default) or `postgres`"),
    }
}

/// The desk's name on a shared database.
pub const DESK: &str = "desk-a";

/// A desk's store on this run's backend, fresh for each test (with the folder of its file).
pub struct TestDb {
    pub db: Db,
    _dir: Option<tempfile::TempDir>,
}

impl std::ops::Deref for TestDb {
    type Target = Db;
    fn deref(&self) -> &Db {
        &self.db
    }
}

impl TestDb {
    /// One step in a write transaction that commits: what it answers (it must not fail).
    #[track_caller]
    pub fn step<T>(&self, f: impl FnOnce(&mut Tx<'_>) -> Result<T, StoreError>) -> T {
        self.db.write(f).unwrap()
    }

    /// One step on a reading connection: what it answers (it must not fail).
    #[track_caller]
    pub fn look<T>(&self, f: impl FnOnce(&mut Tx<'_>) -> Result<T, StoreError>) -> T {
        self.db.read(f).unwrap()
    }
}

/// A new store on this run's backend: a SQLite file in a temporary folder, or a new database in
/// the test cluster as desk `DESK`.
pub fn store() -> TestDb {
    match backend() {
        Backend::Sqlite => {
            let dir = tempfile::tempdir().unwrap();
            let db = Db::open_file(&dir.path().join("packdesk.sqlite3")).unwrap();
            TestDb { db, _dir: Some(dir) }
        }
        Backend::Postgres => {
            let url = pg::scratch_database(&cluster(), "store").unwrap();
            TestDb {
                db: Db::open_shared(&url, DESK).unwrap(),
                _dir: None,
            }
        }
    }
}

/// `store()`, holding the live account `acct-1`.
pub fn store_with_an_account() -> TestDb {
    let db = store();
    db.step(|c| packdesk_store::accounts::insert(c, &account_row("acct-1")));
    db
}

/// The first serial of the range the tests and the bench draw from.
pub const RANGE_START: u64 = 1_000;

/// The cluster of `tests/postgres.sh` (`.ci/test` starts it before `cargo test`).
pub fn cluster() -> String {
    std::env::var("PACKDESK_TEST_POSTGRES").expect(
        "PACKDESK_TEST_POSTGRES is not set: run the tests with the README's test command, or start a cluster \
         with `eval \"$(bash tests/postgres.sh start | sed 's/^/export /')\"`",
    )
}

/// One label's numbers at one desk: reserved in a statement of their own, registered in the
/// label's (durable) one; each must be new.
pub fn draw_label(desk: &PgStore, scope: &str, parcels: u64, label: &str) -> Vec<u64> {
    let serials = desk
        .autocommit(|client| {
            let c = &mut Tx::Postgres { client, desk: DESK };
            tracking::reserve(c, scope, parcels, RANGE_START, 10_000_000)
        })
        .unwrap()
        .expect("the range has numbers left");
    desk.write(|client| {
        let c = &mut Tx::Postgres { client, desk: DESK };
        for s in &serials {
            let fresh = tracking::register(c, Env::Live, "yodel", &format!("JD{s:012}"), label)?;
            assert!(fresh, "{s} was issued before");
        }
        Ok::<_, StoreError>(())
    })
    .unwrap();
    serials
}

/// A live account of the carrier the tests draw for, stored at `desk` (as desk `DESK`).
pub fn account(desk: &PgStore, id: &str) {
    let row = account_row(id);
    desk.write(|client| packdesk_store::accounts::insert(&mut Tx::Postgres { client, desk: DESK }, &row))
        .unwrap();
}

/// A live account of the carrier the tests draw for.
pub fn account_row(id: &str) -> packdesk_store::accounts::AccountRow {
    packdesk_store::accounts::AccountRow {
        id: id.into(),
        env: Env::Live,
        slug: "yodel".into(),
        status: packdesk_model::status::AccountStatus::Enabled,
        description: format!("Account {id}"),
        timezone: "Europe/London".into(),
        address: None,
        settings: "{}".into(),
        credentials: vec![1, 2, 3],
        secrets: None,
        created_at: 1,
        updated_at: 1,
    }
}

/// A created label of `account`, shipping on `ship_date`, found by its tracking number
/// `JD<serial>` and reference `ref-<serial>`.
pub fn label(
    id: &str,
    account: &str,
    serial: u64,
    ship_date: &str,
    created_at: i64,
) -> packdesk_store::labels::LabelRow {
    packdesk_store::labels::LabelRow {
        id: id.into(),
        env: Env::Live,
        shipper_account_id: account.into(),
        status: packdesk_model::status::LabelStatus::Created,
        order_number: None,
        search_text: format!("JD{serial:012} ref-{serial}"),
        manifest_id: None,
        request: "{}".into(),
        record: "{}".into(),
        ship_date: ship_date.into(),
        service_type: "yodel_48".into(),
        weight_kg: 1.5,
        created_at,
        updated_at: created_at,
    }
}

/// One close-out of `account` for `day` at `desk`, as the service makes it: the labels it takes,
/// moved into manifest `manifest_id` in the same transaction.
pub fn close_out(desk: &PgStore, account: &str, day: &str, manifest_id: &str) -> Vec<String> {
    desk.write(|client| {
        let c = &mut Tx::Postgres { client, desk: DESK };
        let ids: Vec<String> = packdesk_store::labels::manifestable(c, account, day)?
            .into_iter()
            .map(|l| l.id)
            .collect();
        packdesk_store::labels::set_manifested(c, &ids, manifest_id, 2)?;
        Ok::<_, StoreError>(ids)
    })
    .unwrap()
}

/// The store's error of a label insert, which these tests never expect refused.
pub fn refused(e: packdesk_store::labels::InsertError) -> StoreError {
    match e {
        packdesk_store::labels::InsertError::Db(e) => e,
        other => panic!("the label was refused: {other:?}"),
    }
}

/// Asserts that `got` is `expected`, for the store's row types that have no `PartialEq`: compared
/// by their Debug text, which names every field.
#[track_caller]
pub fn assert_rows<T: std::fmt::Debug>(got: T, expected: T, what: &str) {
    assert_eq!(format!("{got:#?}"), format!("{expected:#?}"), "{what}");
}

/// The raw ZPL printer the printing tests send to.
pub fn zebra_printer() -> packdesk_store::printing::PrinterRow {
    packdesk_store::printing::PrinterRow {
        id: "printer-1".into(),
        name: "Zebra".into(),
        transport: packdesk_model::status::PrinterTransport::Raw,
        address: "127.0.0.1:9100".into(),
        format: packdesk_model::status::PrinterFormat::Zpl,
        dpi: 203,
        strip_zpl_setup: true,
        created_at: 1,
        updated_at: 1,
    }
}
