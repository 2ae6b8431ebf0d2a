//! Which database a desk runs on (Settings, `--database`): its data folder's own SQLite file, or
//! the warehouse's shared PostgreSQL database. The choice made in Settings is kept in the data
//! folder (`database.json`, private like the vault key: its address may hold a password) and
//! takes effect at the next start; `--database` / PACKDESK_DATABASE_URL win over it.

use crate::vault::{self, KeyPreference, Vault};
use crate::{DataDir, Database, Service};
use packdesk_model::desk::{DatabaseRequest, DatabaseSetting};
use packdesk_model::{ErrorCode, ServiceError};
use std::path::Path;

/// What Settings saved: the shared database and the desk's name in it.
#[derive(serde::Serialize, serde::Deserialize)]
struct Saved {
    url: String,
    desk: Option<String>,
}

fn saved_file(data_dir: &Path) -> std::path::PathBuf {
    data_dir.join("database.json")
}

fn read_saved(data_dir: &Path) -> Option<Saved> {
    let text = std::fs::read_to_string(saved_file(data_dir)).ok()?;
    serde_json::from_str(&text).ok()
}

impl Database {
    /// The database Settings saved for the desk of `data_dir` (its own file when none), with
    /// `default_desk` as the desk's name when Settings left it empty.
    pub fn saved(data_dir: &Path, default_desk: &str) -> Database {
        match read_saved(data_dir) {
            Some(s) => Database::Shared {
                url: s.url,
                desk: s
                    .desk
                    .filter(|d| !d.trim().is_empty())
                    .unwrap_or_else(|| default_desk.to_string()),
                join_code: None,
            },
            None => Database::DataFolder,
        }
    }
}

impl Service {
    /// Said by a binary whose `--database` (or PACKDESK_DATABASE_URL) chose the database.
    pub fn note_database_from_command_line(&self) {
        self.database_from_command_line
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// What the desk runs on now, and what it starts on next. The join code (the warehouse's
    /// vault key, which opens every sealed secret) is shown to the live key only: a sandbox key
    /// is handed out for testing integrations. The route admits this machine only.
    pub fn database_setting(&self, env: crate::keys::Env) -> DatabaseSetting {
        let saved = read_saved(&self.data_dir);
        let (url, desk) = match &self.database {
            Database::Shared { url, desk, .. } => (Some(url.clone()), Some(desk.clone())),
            Database::DataFolder => (None, None),
        };
        let saved_desk = saved.as_ref().and_then(|s| s.desk.clone());
        let restart_needed = match (&saved, &url) {
            (Some(s), Some(u)) => &s.url != u || saved_desk.as_ref().is_some_and(|d| Some(d) != desk.as_ref()),
            (None, None) => false,
            _ => true,
        };
        DatabaseSetting {
            shared: url.is_some(),
            desk,
            join_code: (url.is_some() && env == crate::keys::Env::Live).then(|| self.vault.join_code()),
            url: url.as_deref().map(packdesk_store::pg::redacted),
            saved_url: saved.as_ref().map(|s| packdesk_store::pg::redacted(&s.url)),
            saved_desk,
            restart_needed,
            from_command_line: self
                .database_from_command_line
                .load(std::sync::atomic::Ordering::SeqCst),
        }
    }

    /// Restarts the desktop app onto the database Settings saved (`POST /desk/database/restart`),
    /// a moment after the answer: the app's workers stop as at any exit (jobs in hand are
    /// finished or stay queued) and the same app starts again on the saved database.
    pub fn restart_for_database(&self) -> Result<DatabaseSetting, ServiceError> {
        let setting = self.database_setting(crate::keys::Env::Live);
        let refuse = |why: &str| Err(ServiceError::at(ErrorCode::OperationNotAllowed, "", why));
        if setting.from_command_line {
            return refuse(
                "--database (or PACKDESK_DATABASE_URL) chose this desk's database when it started, and it \
                 wins over Settings: start Packdesk without it to use the database Settings saved",
            );
        }
        if !setting.restart_needed {
            return refuse("this desk already runs on the database Settings saved: nothing to restart for");
        }
        let Some(shell) = self.app_shell() else {
            return refuse(
                "packdesk-server is restarted by whoever runs it (its service manager, a terminal): \
                 restart it to use the database Settings saved",
            );
        };
        shell
            .restart()
            .map_err(|why| ServiceError::internal(format!("restarting the app failed: {why}")))?;
        tracing::info!(next = ?setting.saved_url, "restarting onto the database Settings saved");
        Ok(setting)
    }

    /// Saves the database the desk starts on next, once it is known to work: the shared database
    /// answers (its schema made or brought up to date), and this desk holds the key its secrets
    /// are sealed with (given now by the join code when other desks use it). Null: back to the
    /// data folder's own file (its data stayed there).
    pub fn set_database(&self, req: DatabaseRequest) -> Result<DatabaseSetting, ServiceError> {
        let file = saved_file(&self.data_dir);
        let Some(url) = req.url.map(|u| u.trim().to_string()).filter(|u| !u.is_empty()) else {
            match std::fs::remove_file(&file) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(ServiceError::internal(format!("removing {}: {e}", file.display()))),
            }
            self.store.write(|tx| {
                let detail = serde_json::json!({"url": null});
                self.audit(tx, None, "database.changed", None, detail)
            })?;
            return Ok(self.database_setting(crate::keys::Env::Live));
        };
        if !url.starts_with("postgres://") && !url.starts_with("postgresql://") {
            return Err(ServiceError::invalid(
                "url",
                "a PostgreSQL address: postgres://user:password@host:port/database",
            ));
        }
        let url = match req.ca_file.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
            None => url,
            Some(file) => {
                if let Err(e) = std::fs::read(file) {
                    return Err(ServiceError::invalid(
                        "ca_file",
                        format!("{file} cannot be read ({e}): give the PEM file of the CA that signed the database server's certificate"),
                    ));
                }
                packdesk_store::pg_tls::with_root_certificate(&url, file)
            }
        };
        let desk = req.desk.map(|d| d.trim().to_string()).filter(|d| !d.is_empty());
        let check = Database::Shared {
            url: url.clone(),
            desk: desk.clone().unwrap_or_else(|| "settings-check".into()),
            join_code: None,
        };
        let dir = DataDir(self.data_dir.clone());
        let store = check
            .open(&dir)
            .map_err(|e| ServiceError::invalid("url", format!("the database cannot be used: {}", first_info(&e))))?;
        let (key_file, keyring) = check.vault_places(&dir);
        if let Some(code) = req.join_code.as_deref().filter(|c| !c.trim().is_empty()) {
            Vault::adopt_join_code(&key_file, &keyring, code)
                .map_err(|e| ServiceError::invalid("join_code", first_info(&e)))?;
        }
        if crate::holds_sealed_secrets(&store)? {
            let opens = Vault::open_kept(&key_file, &keyring, KeyPreference::File, false)
                .and_then(|(v, _)| crate::keys::KeyRing::reveal(&store, &v).map(|_| ()));
            if opens.is_err() {
                return Err(ServiceError::invalid(
                    "join_code",
                    "other desks use this database: enter its join code (Settings at a desk on it, or \
                     `packdesk-server keys --database URL` there)",
                ));
            }
        }
        // The log of the database the desk leaves says where it went (the address without its
        // password).
        let detail = serde_json::json!({"url": packdesk_store::pg::redacted(&url), "desk": desk});
        let saved = serde_json::to_vec(&Saved { url, desk }).map_err(ServiceError::internal)?;
        vault::write_private(&file, &saved)
            .map_err(|e| ServiceError::internal(format!("writing {}: {e}", file.display())))?;
        self.store
            .write(|tx| self.audit(tx, None, "database.changed", None, detail))?;
        Ok(self.database_setting(crate::keys::Env::Live))
    }
}

/// A refusal's first reason, for the detail of the field it concerns.
fn first_info(e: &ServiceError) -> String {
    e.details
        .first()
        .map(|d| d.info.clone())
        .unwrap_or_else(|| e.to_string())
}
