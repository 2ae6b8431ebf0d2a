//! The operations of the interface, over the store, the carrier registry and the documents. Every
//! face calls these; each takes the caller's environment (from its key) and a request type of
//! `packdesk_model`, and answers a record type or a `ServiceError`. Background work and the one
//! tokio runtime belong to `workers`.
#![forbid(unsafe_code)]

pub mod accounts;
pub mod addresses;
pub mod allocator;
pub mod audit;
pub mod backup;
pub mod bulk;
pub mod cancels;
pub mod clock;
pub mod database;
pub mod gauges;
pub mod history;
pub mod idempotency;
pub mod import;
pub mod integration_keys;
pub mod jobs;
pub mod keys;
pub mod labels;
pub mod links;
pub mod list;
pub mod manifests;
pub mod operators;
pub mod orders;
pub mod overview;
pub mod packing;
pub mod presets;
pub mod printing;
pub mod rates;
pub mod records;
pub mod reply;
pub mod reports;
pub mod returns;
pub mod scale;
pub mod sessions;
pub mod settings;
pub mod ship_dates;
pub mod shipping;
pub mod status;
pub mod transmissions;
pub mod updates;
pub mod upstream;
pub mod validate;
pub mod vault;
pub mod webhooks;
pub mod workers;

use clock::Clock;
use keys::{Env, KeyRing};
use packdesk_model::ServiceError;
use packdesk_store::db::Db;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use vault::Vault;

pub use packdesk_store::private_file;
/// Where a request's time goes (the `Server-Timing` header's phases).
pub use packdesk_store::timing;
pub use vault::KeyPreference;

pub use packdesk_model as model;
pub use reply::{Outcome, Reply};

/// The files of a data folder.
pub struct DataDir(pub PathBuf);

impl DataDir {
    pub fn database(&self) -> PathBuf {
        self.0.join("packdesk.sqlite3")
    }
    pub fn vault_key(&self) -> PathBuf {
        self.0.join("vault.key")
    }
    /// The warehouse's vault key, for the shared database (beside the desk's own, which its own
    /// file's secrets stay sealed with: a desk can go back to it).
    pub fn shared_vault_key(&self) -> PathBuf {
        self.0.join("shared-vault.key")
    }
    pub fn lock_file(&self) -> PathBuf {
        self.0.join("packdesk.lock")
    }
    /// The database file, refused when the folder has none (a command on a folder never started).
    fn existing_database(&self) -> Result<PathBuf, ServiceError> {
        let file = self.database();
        if !file.exists() {
            return Err(ServiceError::internal(format!(
                "no Packdesk data in {} (start the server once first)",
                self.0.display()
            )));
        }
        Ok(file)
    }
}

/// The API keys in clear, and (shared database) the join code: the warehouse's vault key as
/// text, given once to each further desk.
pub type RevealedKeys = (Vec<(Env, String)>, Option<String>);

/// Where a desk keeps its records.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Database {
    /// The SQLite file in the data folder: one desk, nothing to install.
    #[default]
    DataFolder,
    /// The shared PostgreSQL database of a warehouse's desks, as the desk named `desk`. The data
    /// folder still holds the desk's vault key, lock and log.
    Shared {
        url: String,
        desk: String,
        /// The warehouse's vault key for a desk joining (`keys --database` prints it).
        join_code: Option<String>,
    },
}

impl Database {
    fn open(&self, dir: &DataDir) -> Result<Db, ServiceError> {
        match self {
            Database::DataFolder => Db::open_file(&dir.database()),
            Database::Shared { url, desk, .. } => Db::open_shared(url, desk),
        }
    }

    /// Opens the database of an existing desk for a command beside the running server (`keys`,
    /// `webhook`): its own file must be there already (nothing is created by a command).
    fn open_existing(&self, dir: &DataDir) -> Result<Db, ServiceError> {
        if let Database::DataFolder = self {
            dir.existing_database()?;
        }
        self.open(dir)
    }

    /// Where the vault key of this database's secrets is kept for the desk of `dir`: its own key
    /// (`vault.key`, or its keyring entry) for its own file, the warehouse's key for the shared
    /// database (`shared-vault.key`, or an entry of its own).
    fn vault_places(&self, dir: &DataDir) -> (PathBuf, vault::OsKeyring) {
        match self {
            Database::DataFolder => (dir.vault_key(), vault::OsKeyring::for_data_dir(&dir.0)),
            Database::Shared { .. } => (dir.shared_vault_key(), vault::OsKeyring::for_shared_database(&dir.0)),
        }
    }
}

/// Creates the data folder for its owner only (0700 on Unix), or tightens an existing one: it holds
/// the database, the vault key and the lock.
fn private_dir(dir: &Path) -> Result<(), ServiceError> {
    let fail =
        |e: std::io::Error| ServiceError::internal(format!("cannot create the data folder {}: {e}", dir.display()));
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        builder.mode(0o700);
        builder.create(dir).map_err(fail)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(fail)?;
        // Files left readable by an older Packdesk (or copied in) are tightened too.
        for entry in std::fs::read_dir(dir).map_err(fail)?.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_file()) {
                std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(0o600)).map_err(fail)?;
            }
        }
    }
    #[cfg(not(unix))]
    builder.create(dir).map_err(fail)?;
    Ok(())
}

/// A desk on the shared database without the warehouse's vault key (missing, or one of its own).
fn warehouse_key_needed() -> ServiceError {
    ServiceError::internal(
        "this desk does not hold the vault key the shared database's secrets are sealed with \
         (nothing was changed). A desk joining is given it once: run `packdesk-server keys \
         --database URL` at a desk that runs on the database and start this one with \
         `--join-code CODE`",
    )
}

/// Whether the database holds anything sealed by the vault (API keys, carrier credentials).
fn holds_sealed_secrets(store: &Db) -> Result<bool, ServiceError> {
    store.read(packdesk_store::keys::any_sealed).map_err(Into::into)
}

/// The desk's operations over one data folder. Callers reach the store, vault and keys only
/// through its functions (one module per domain adds its own).
pub struct Service {
    store: Db,
    vault: Vault,
    keys: KeyRing,
    clock: Arc<dyn Clock>,
    /// Where file URLs point: `http://127.0.0.1:PORT`.
    base_url: String,
    data_dir: PathBuf,
    /// Signs the file URLs of records (they work without the key header).
    links: links::FileLinks,
    allocator: allocator::Allocator,
    /// Async jobs waiting for a worker (see `jobs`).
    jobs: jobs::JobQueue,
    dispatcher: webhooks::DispatcherSignal,
    sender: webhooks::SenderCell,
    print_signal: printing::PrintSignal,
    /// Wakes the worker that sends manifests' data files to their carriers.
    transmit_bell: transmissions::TransmitBell,
    /// The desk's USB scale (see `scale`).
    scale: packdesk_scale::Scale,
    /// Runs inside the desktop app (tray, login item): Settings shows its part.
    desktop_app: std::sync::atomic::AtomicBool,
    /// The desktop app's updater and what it said (see `updates`).
    updates: updates::Updates,
    /// Where the vault key is (Settings shows it).
    vault_key_place: model::desk::VaultKeyPlace,
    /// The database this desk runs on (see `database`).
    database: Database,
    database_from_command_line: std::sync::atomic::AtomicBool,
    /// The desk UI's open sessions (see `sessions`).
    sessions: sessions::Sessions,
    /// The named integration keys seen lately (see `integration_keys`).
    named_keys: integration_keys::KeyCache,
    /// Why the last daily backup failed (see `backup`); none: it did not.
    backup_failure: std::sync::Mutex<Option<String>>,
    /// The accounts of the labels made lately, as read (see `accounts::AccountsSeen`).
    accounts_seen: accounts::AccountsSeen,
    /// How far History's search goes before it pages (`set_search_limits`).
    search_limits: std::sync::RwLock<packdesk_store::labels::SearchLimits>,
    /// The labels this desk makes on a shared database, written together as they come
    /// (`labels::write_made_shared`).
    label_writes: packdesk_store::pg::Together<
        packdesk_store::labels::OwnedMade,
        Result<(), packdesk_store::labels::InsertError>,
    >,
    /// The desk's print profiles as last read (see `printing::ProfileCache`).
    print_profiles: printing::ProfileCache,
    /// How other machines reach the desk (said by the server that listens; see `https`): the
    /// certificate served (none: plain HTTP) and whether plain HTTP goes beyond this machine
    /// (`--insecure-http`).
    https: std::sync::RwLock<(Option<model::desk::CertificateInfo>, bool)>,
    _lock: std::fs::File,
}

/// What `Service::open` found or made.
pub struct Opened {
    pub service: Service,
    /// Keys created at this start (first start: both).
    pub created_keys: Vec<Env>,
}

impl Service {
    /// Opens (or creates) the data folder. Only one Packdesk may use a data folder at a time.
    pub fn open(data_dir: &Path, base_url: &str, clock: Arc<dyn Clock>) -> Result<Opened, ServiceError> {
        Service::open_with(data_dir, base_url, clock, KeyPreference::File)
    }

    /// As `open`, with the vault key kept where `key_preference` says (the desktop app asks for the
    /// OS keyring).
    pub fn open_with(
        data_dir: &Path,
        base_url: &str,
        clock: Arc<dyn Clock>,
        key_preference: KeyPreference,
    ) -> Result<Opened, ServiceError> {
        Service::open_on(data_dir, &Database::DataFolder, base_url, clock, key_preference)
    }

    /// As `open_with`, on the database `database` names (a shared PostgreSQL database of many
    /// desks, or the data folder's own file).
    pub fn open_on(
        data_dir: &Path,
        database: &Database,
        base_url: &str,
        clock: Arc<dyn Clock>,
        key_preference: KeyPreference,
    ) -> Result<Opened, ServiceError> {
        private_dir(data_dir)?;
        let dir = DataDir(data_dir.to_path_buf());
        packdesk_store::private_file(&dir.lock_file())?;
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.lock_file())
            .map_err(|e| ServiceError::internal(format!("cannot open {}: {e}", dir.lock_file().display())))?;
        lock.try_lock().map_err(|_| {
            ServiceError::internal(format!(
                "another Packdesk is already using the data folder {}",
                data_dir.display()
            ))
        })?;
        let store = database.open(&dir)?;
        let (key_file, keyring) = database.vault_places(&dir);
        if let Database::Shared {
            join_code: Some(code), ..
        } = database
        {
            Vault::adopt_join_code(&key_file, &keyring, code)?;
        }
        let may_create = !holds_sealed_secrets(&store)?;
        let (vault, vault_key_place) =
            Vault::open_kept(&key_file, &keyring, key_preference, may_create).map_err(|e| match database {
                Database::Shared { .. } => warehouse_key_needed().caused_by(e),
                Database::DataFolder => e,
            })?;
        let now = clock.now().timestamp_micros();
        let (keys, created_keys) = KeyRing::load(&store, &vault, now)?;
        if store.is_shared() {
            // Every desk opens the same sealed keys: a desk with a key of its own would serve
            // nothing sealed, so it does not start.
            KeyRing::reveal(&store, &vault).map_err(|e| warehouse_key_needed().caused_by(e))?;
        }
        let links = links::FileLinks::load(&store)?;
        let service = Service {
            store,
            vault,
            keys,
            clock,
            base_url: base_url.trim_end_matches('/').to_string(),
            data_dir: data_dir.to_path_buf(),
            links,
            allocator: allocator::Allocator::default(),
            jobs: jobs::JobQueue::default(),
            dispatcher: webhooks::DispatcherSignal::default(),
            sender: webhooks::SenderCell::new(),
            print_signal: printing::PrintSignal::default(),
            transmit_bell: transmissions::TransmitBell::default(),
            scale: packdesk_scale::Scale::default(),
            desktop_app: Default::default(),
            vault_key_place,
            database: database.clone(),
            database_from_command_line: Default::default(),
            updates: Default::default(),
            sessions: Default::default(),
            named_keys: Default::default(),
            backup_failure: Default::default(),
            print_profiles: Default::default(),
            label_writes: Default::default(),
            accounts_seen: Default::default(),
            search_limits: Default::default(),
            https: Default::default(),
            _lock: lock,
        };
        service.requeue_unfinished()?;
        service.requeue_interrupted_prints()?;
        service.load_printing_pause()?;
        Ok(Opened { service, created_keys })
    }

    /// The keys of a data folder in clear, without taking the folder's lock (the server may run).
    #[cfg(any(test, feature = "testing"))]
    pub fn reveal_keys(data_dir: &Path) -> Result<Vec<(Env, String)>, ServiceError> {
        Service::reveal_keys_on(data_dir, &Database::DataFolder).map(|(keys, _)| keys)
    }

    /// The keys of a desk in clear, and (shared database) the join code that lets a further desk
    /// open them: the vault key of the desk whose data folder this is.
    pub fn reveal_keys_on(data_dir: &Path, database: &Database) -> Result<RevealedKeys, ServiceError> {
        let dir = DataDir(data_dir.to_path_buf());
        let store = database.open_existing(&dir)?;
        let (key_file, keyring) = database.vault_places(&dir);
        let (vault, _) = Vault::open_kept(&key_file, &keyring, KeyPreference::File, false)?;
        let join_code = store.is_shared().then(|| vault.join_code());
        Ok((KeyRing::reveal(&store, &vault)?, join_code))
    }

    /// Moves one desk's data (the SQLite file of `data_dir`: keys, accounts and their ranges,
    /// labels and files, orders, jobs, webhooks, printers) into the shared database at `url`, as
    /// the desk `desk`, in one transaction. A shared database holding other API keys is refused
    /// untouched; a second move of the same desk adds nothing. The moved desk's vault key becomes
    /// the warehouse's: its join code is answered for the further desks.
    pub fn migrate_folder(
        data_dir: &Path,
        url: &str,
        desk: &str,
    ) -> Result<(packdesk_store::copy::CopyReport, String), ServiceError> {
        let dir = DataDir(data_dir.to_path_buf());
        let from = packdesk_store::Store::open(&dir.existing_database()?)?;
        let (key_file, keyring) = Database::DataFolder.vault_places(&dir);
        let (vault, _) = Vault::open_kept(&key_file, &keyring, KeyPreference::File, false)?;
        let to = packdesk_store::pg::PgStore::open(url)?;
        let report = packdesk_store::copy::sqlite_to_postgres(&from, &to, desk)?;
        // The moved secrets are sealed with this desk's key: it becomes the warehouse's, kept
        // for the shared database beside the desk's own.
        let shared = vault::OsKeyring::for_shared_database(data_dir);
        Vault::adopt_join_code(&dir.shared_vault_key(), &shared, &vault.join_code())?;
        Ok((report, vault.join_code()))
    }

    /// Shows (`set` None) or changes the webhook of `env` in a data folder, without taking the
    /// folder's lock: the running server reads the setting at each completion.
    pub fn webhook_command(
        data_dir: &Path,
        env: Env,
        change: Option<webhooks::WebhookChange>,
    ) -> Result<model::desk::WebhookSetting, ServiceError> {
        Service::webhook_command_on(data_dir, &Database::DataFolder, env, change)
    }

    /// As `webhook_command`, on the database `database` names (the shared one: every desk's).
    pub fn webhook_command_on(
        data_dir: &Path,
        database: &Database,
        env: Env,
        change: Option<webhooks::WebhookChange>,
    ) -> Result<model::desk::WebhookSetting, ServiceError> {
        let store = database.open_existing(&DataDir(data_dir.to_path_buf()))?;
        let now = chrono::Utc::now().timestamp_micros();
        webhooks::command(&store, env, change, now)
    }

    /// This service's keys in clear (tests; `packdesk-server keys` reads them from the folder).
    pub fn reveal_own_keys(&self) -> Result<Vec<(Env, String)>, ServiceError> {
        KeyRing::reveal(&self.store, &self.vault)
    }

    /// Replaces the key of `env`; the old one stops working now. Answers the new key in clear.
    pub fn rotate_key(&self, env: Env) -> Result<String, ServiceError> {
        self.keys.rotate(&self.store, &self.vault, env, self.now_us(), |tx| {
            // Which key, never its value.
            self.audit(
                tx,
                Some(env),
                "key.rotated",
                None,
                serde_json::json!({"environment": env}),
            )
        })
    }

    /// The data folder this service uses.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// Where the file URLs of records point (`http://127.0.0.1:PORT`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// How far History's search goes before it reads the newest labels a page at a time (a desk
    /// keeps the defaults; a test sets small ones).
    pub fn set_search_limits(&self, limits: packdesk_store::labels::SearchLimits) {
        *self.search_limits.write().unwrap_or_else(|p| p.into_inner()) = limits;
    }

    /// How long signed file links stay valid (the default is in `links`).
    pub fn set_file_link_days(&self, days: i64) {
        self.links.set_ttl_secs(days * 24 * 3600);
    }

    /// Said by the server that listens: the certificate it serves to other machines (again each
    /// time it is renewed or replaced), or none and whether plain HTTP goes beyond this machine.
    pub fn set_https(&self, certificate: Option<model::desk::CertificateInfo>, insecure_http: bool) {
        *self.https.write().unwrap_or_else(|p| p.into_inner()) = (certificate, insecure_http);
    }

    /// How other machines reach the desk: `GET /desk/https`. A desk not served over HTTP (a
    /// test's service alone) says it listens on its base URL without HTTPS.
    pub fn https(&self) -> model::desk::HttpsStatus {
        let (certificate, insecure_http) = self.https.read().unwrap_or_else(|p| p.into_inner()).clone();
        model::desk::HttpsStatus {
            enabled: certificate.is_some(),
            insecure_http,
            url: self.base_url.clone(),
            certificate,
        }
    }

    /// Said by the desktop shell: `close_to_tray` and `start_at_login` take effect here.
    pub fn mark_desktop_app(&self) {
        self.desktop_app.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Where the vault key is kept, and why when it is not where it was asked to be.
    pub fn vault_key_place(&self) -> &model::desk::VaultKeyPlace {
        &self.vault_key_place
    }

    pub fn is_desktop_app(&self) -> bool {
        self.desktop_app.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub fn authenticate(&self, key: &str) -> Option<Env> {
        self.keys.authenticate(key)
    }

    pub(crate) fn now_us(&self) -> i64 {
        self.clock.now().timestamp_micros()
    }

    /// Records store file URLs as paths (`/v3/files/<id>`); they get the server's current address
    /// when read, so a restart on another port breaks no link.
    pub(crate) fn file_path(file_id: &str) -> String {
        format!("/v3/files/{file_id}")
    }

    /// Makes every `files.*.url` path of a record a signed link on the base URL (see `links`).
    pub(crate) fn absolute_urls(&self, record: &mut serde_json::Value) {
        let now = self.clock.now().timestamp();
        if let Some(files) = record.get_mut("files").and_then(|f| f.as_object_mut()) {
            for f in files.values_mut() {
                if let Some(url) = f.get_mut("url") {
                    if let Some(link) = url.as_str().and_then(|path| self.absolute_url(path, now)) {
                        *url = serde_json::Value::String(link);
                    }
                }
            }
        }
    }

    /// `absolute_urls` of a label kept as its type.
    pub(crate) fn absolute_label_urls(&self, label: &mut packdesk_model::record::Label) {
        let now = self.clock.now().timestamp();
        for f in label.files.iter_mut().flat_map(|f| f.each_mut()) {
            if let Some(link) = self.absolute_url(&f.url, now) {
                f.url = link;
            }
        }
    }

    /// A stored file path (`/v3/files/<id>`) as a signed link on the base URL; none for a URL
    /// that is absolute already.
    fn absolute_url(&self, path: &str, now: i64) -> Option<String> {
        if !path.starts_with('/') {
            return None;
        }
        let id = path.rsplit('/').next().unwrap_or("");
        let query = self.links.query(id, now);
        Some(format!("{}{path}?{query}", self.base_url))
    }

    /// A stored document by a signed link (no key): refused when the signature is wrong or the
    /// link has expired, in words that say which.
    pub fn file_by_link(
        &self,
        id: &str,
        expires: i64,
        signature: &str,
    ) -> Result<(Vec<u8>, &'static str, String), ServiceError> {
        match self.links.check(id, expires, signature, self.clock.now().timestamp()) {
            Ok(()) => {}
            Err(links::LinkRefused::Expired) => {
                return Err(ServiceError::at(
                    model::ErrorCode::InvalidApiKey,
                    "expires",
                    "this file link has expired; read the record again for a fresh link, or send the service-api-key header",
                ))
            }
            Err(links::LinkRefused::BadSignature) => {
                return Err(ServiceError::at(model::ErrorCode::InvalidApiKey, "signature", "this file link is not valid"))
            }
        }
        let row = self
            .store
            .read(|c| packdesk_store::files::get_by_id(c, id))?
            .ok_or_else(|| ServiceError::at(model::ErrorCode::ItemNotFound, "id", format!("no file {id}")))?;
        Ok(file_answer(row))
    }

    /// A stored document: (bytes, content type, file name).
    pub fn file(&self, env: Env, id: &str) -> Result<(Vec<u8>, &'static str, String), ServiceError> {
        let row = self
            .store
            .read(|c| packdesk_store::files::get(c, env, id))?
            .ok_or_else(|| ServiceError::at(model::ErrorCode::ItemNotFound, "id", format!("no file {id}")))?;
        Ok(file_answer(row))
    }
}

/// A file's bytes, content type and download name.
fn file_answer(row: packdesk_store::files::FileRow) -> (Vec<u8>, &'static str, String) {
    let mime = match row.file_type.as_str() {
        "zpl" => "application/zpl",
        "csv" => "text/csv; charset=utf-8",
        _ => "application/pdf",
    };
    let name = format!("{}-{}.{}", row.kind, row.owner_id, row.file_type);
    (row.bytes, mime, name)
}
