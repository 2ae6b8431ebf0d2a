//! Backups of a desk's own database (`packdesk-server backup` and `restore`): the store copies
//! and checks the file (`packdesk_store::backup`); here the vault key is sealed in under a
//! passphrase when asked (Argon2id, XChaCha20-Poly1305). Without the vault key a backup opens no
//! carrier credential and no API key: the commands say so.

use crate::vault::{random_bytes, KeyKeeper, Vault};
use crate::{DataDir, Database, KeyPreference, Service};
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use chrono::Timelike;
use packdesk_model::desk::{BackupFile, BackupList};
use packdesk_model::ServiceError;
use packdesk_store::backup as file;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// What a backup holds, as the commands report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupReport {
    pub bytes: u64,
    pub labels: i64,
    /// The schema version of the database in it.
    pub schema: usize,
    pub with_vault_key: bool,
}

fn failed(what: &str, e: impl std::fmt::Display) -> ServiceError {
    ServiceError::internal(format!("{what}: {e}"))
}

/// A store failure with its cause (the store's own words say only "database error").
fn store_failed(what: &str, e: packdesk_store::StoreError) -> ServiceError {
    let cause = std::error::Error::source(&e)
        .map(|c| format!(" ({c})"))
        .unwrap_or_default();
    failed(what, format!("{e}{cause}"))
}

/// The key a passphrase seals the vault key with.
fn passphrase_key(passphrase: &str, salt: &[u8]) -> Result<XChaCha20Poly1305, ServiceError> {
    let mut key = [0u8; 32];
    argon2::Argon2::default()
        .hash_password_into(passphrase.as_bytes(), salt, &mut key)
        .map_err(|e| failed("deriving the passphrase's key", e))?;
    Ok(XChaCha20Poly1305::new(Key::from_slice(&key)))
}

/// Backs the desk of `data_dir` up into the new file `to`. `vault_passphrase`: put the vault key
/// in, sealed under it.
pub fn backup(data_dir: &Path, to: &Path, vault_passphrase: Option<&str>) -> Result<BackupReport, ServiceError> {
    let dir = DataDir(data_dir.to_path_buf());
    let source = dir.existing_database()?;
    if to.exists() {
        return Err(ServiceError::invalid(
            "to",
            format!("{} exists: name a new file", to.display()),
        ));
    }
    let mut mark = file::Mark {
        made_at: chrono::Utc::now().to_rfc3339(),
        ..Default::default()
    };
    match vault_passphrase {
        None => {}
        Some("") => return Err(ServiceError::invalid("passphrase", "an empty passphrase seals nothing")),
        Some(passphrase) => {
            let (key_file, keyring) = Database::DataFolder.vault_places(&dir);
            let (vault, _) = Vault::open_kept(&key_file, &keyring, KeyPreference::File, false)?;
            let salt = random_bytes::<16>();
            let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
            let mut sealed = nonce.to_vec();
            sealed.extend(
                passphrase_key(passphrase, &salt)?
                    .encrypt(&nonce, vault.join_code().as_bytes())
                    .map_err(|e| failed("sealing the vault key", e))?,
            );
            mark.vault_salt = Some(salt.to_vec());
            mark.vault_sealed = Some(sealed);
        }
    }
    // Written beside the target and renamed when whole and checked: no half backup under the
    // asked name.
    let part = to.with_extension("part");
    let _ = std::fs::remove_file(&part);
    let made = (|| {
        file::copy(&source, &part).map_err(|e| store_failed("copying the database", e))?;
        file::mark(&part, &mark).map_err(|e| store_failed("marking the copy", e))?;
        file::check(&part).map_err(|e| store_failed("checking the copy", e))?;
        // Every label and address: readable by its owner only.
        packdesk_store::private_file(&part)?;
        std::fs::rename(&part, to).map_err(|e| failed(&format!("writing {}", to.display()), e))
    })();
    if let Err(e) = made {
        let _ = std::fs::remove_file(&part);
        return Err(e);
    }
    report(to, mark.vault_sealed.is_some())
}

fn report(path: &Path, with_vault_key: bool) -> Result<BackupReport, ServiceError> {
    let (schema, labels) = file::contents(path).map_err(|e| store_failed("reading the backup", e))?;
    Ok(BackupReport {
        bytes: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
        labels,
        schema,
        with_vault_key,
    })
}

/// Restores the backup `from` into the empty (or new) data folder `data_dir`. A backup holding
/// the vault key needs its passphrase; one without leaves the key to be copied in by hand.
pub fn restore(from: &Path, data_dir: &Path, vault_passphrase: Option<&str>) -> Result<BackupReport, ServiceError> {
    if std::fs::read_dir(data_dir).is_ok_and(|mut d| d.next().is_some()) {
        return Err(ServiceError::invalid(
            "data_dir",
            format!(
                "{} is not empty: restore into a new folder, then start the desk on it",
                data_dir.display()
            ),
        ));
    }
    let not_backup = || {
        ServiceError::invalid(
            "from",
            format!(
                "{} is not a Packdesk backup (packdesk-server backup makes one)",
                from.display()
            ),
        )
    };
    let mark = file::read_mark(from)
        .map_err(|_| not_backup())?
        .ok_or_else(not_backup)?;
    let (schema, _) = file::contents(from).map_err(|e| store_failed("reading the backup", e))?;
    if schema > packdesk_store::migrations::LATEST {
        return Err(ServiceError::invalid(
            "from",
            format!(
                "the backup was made by a newer Packdesk (schema {schema}, this one knows {}): restore it with that version",
                packdesk_store::migrations::LATEST
            ),
        ));
    }
    file::check(from).map_err(|e| store_failed("checking the backup", e))?;
    let join_code = match (mark.vault_salt, mark.vault_sealed) {
        (Some(salt), Some(sealed)) if sealed.len() > 24 => {
            let passphrase = vault_passphrase.ok_or_else(|| {
                ServiceError::invalid("passphrase", "the backup holds the vault key: give its passphrase")
            })?;
            let (nonce, body) = sealed.split_at(24);
            let plain = passphrase_key(passphrase, &salt)?
                .decrypt(XNonce::from_slice(nonce), body)
                .map_err(|_| ServiceError::invalid("passphrase", "not the passphrase the backup was made with"))?;
            Some(String::from_utf8(plain).map_err(|e| failed("reading the vault key", e))?)
        }
        _ => None,
    };
    let created_dir = !data_dir.exists();
    crate::private_dir(data_dir)?;
    let dir = DataDir(data_dir.to_path_buf());
    let target = dir.database();
    // The database is made whole beside its name, the vault key written, and only then the
    // database named: a restore that fails or is killed leaves no half desk to start.
    let part = target.with_extension("sqlite3.part");
    let (key_file, _) = Database::DataFolder.vault_places(&dir);
    let restored = (|| {
        file::copy(from, &part).map_err(|e| store_failed("copying the backup", e))?;
        file::unmark(&part).map_err(|e| store_failed("finishing the restored database", e))?;
        file::check(&part).map_err(|e| store_failed("checking the restored database", e))?;
        // Every label and address: readable by its owner only.
        packdesk_store::private_file(&part)?;
        if let Some(code) = &join_code {
            // Written as the folder's key file (0600), not into a keyring: the desktop app
            // moves it there at its start.
            Vault::adopt_join_code(&key_file, &NoKeyring, code)?;
        }
        std::fs::rename(&part, &target).map_err(|e| failed(&format!("writing {}", target.display()), e))
    })();
    if let Err(e) = restored {
        let _ = std::fs::remove_file(&part);
        if join_code.is_some() {
            let _ = std::fs::remove_file(&key_file);
        }
        if created_dir {
            let _ = std::fs::remove_dir(data_dir);
        }
        return Err(e);
    }
    report(&target, join_code.is_some())
}

/// A keyring that holds nothing: a restored folder takes its key from the backup only.
struct NoKeyring;

impl KeyKeeper for NoKeyring {
    fn describe(&self) -> String {
        "none".into()
    }
    fn get(&self) -> Result<Option<Vec<u8>>, String> {
        Ok(None)
    }
    fn set(&self, _: &[u8]) -> Result<(), String> {
        Err("no keyring".into())
    }
}

/// How often the backup worker looks whether the day's backup is due.
const CHECK_EVERY: std::time::Duration = std::time::Duration::from_secs(600);

/// A daily backup's file name, of the desk's day: `packdesk-2026-11-26.backup`.
fn daily_name(day: chrono::NaiveDate) -> String {
    format!("packdesk-{day}.backup")
}

/// Whether a file name is a daily backup's (not a `.part` of one being made).
pub(crate) fn is_daily_name(name: &str) -> bool {
    name.starts_with("packdesk-") && name.ends_with(".backup")
}

impl Service {
    /// The folder of the daily backups.
    pub fn backups_dir(&self) -> PathBuf {
        self.data_dir.join("backups")
    }

    /// Makes the day's backup when the settings ask for it and its hour has come (none made yet
    /// today), then keeps only the newest `backups_kept`. Answers the file made, if any. A desk on
    /// the shared database makes none (pg_dump backs that up).
    pub fn back_up_if_due(&self) -> Result<Option<PathBuf>, ServiceError> {
        let settings = self.desk_settings()?;
        if self.store.is_shared() || !settings.daily_backup {
            // No backup to make: none failing either.
            *self.backup_failure.lock().unwrap_or_else(|p| p.into_inner()) = None;
            return Ok(None);
        }
        let now = self.clock.now().with_timezone(&chrono::Local);
        if now.hour() < settings.backup_hour {
            return Ok(None);
        }
        let dir = self.backups_dir();
        let file = dir.join(daily_name(now.date_naive()));
        if file.exists() {
            return Ok(None);
        }
        let made = crate::private_dir(&dir).and_then(|()| backup(&self.data_dir, &file, None));
        *self.backup_failure.lock().unwrap_or_else(|p| p.into_inner()) = made
            .as_ref()
            .err()
            .map(|e| e.details.first().map_or_else(|| e.to_string(), |d| d.info.clone()));
        made?;
        // The oldest beyond the count go (names sort by day).
        let kept = self.daily_backups()?;
        let extra = kept.len().saturating_sub(settings.backups_kept as usize);
        for old in &kept[..extra] {
            if let Err(e) = std::fs::remove_file(old) {
                tracing::warn!(file = %old.display(), error = %e, "an old backup could not be removed");
            }
        }
        tracing::info!(file = %file.display(), "the day's backup is made");
        Ok(Some(file))
    }

    /// The daily backups' files, oldest first (names sort by day).
    fn daily_backups(&self) -> Result<Vec<PathBuf>, ServiceError> {
        let dir = self.backups_dir();
        let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(is_daily_name))
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(failed(&format!("reading {}", dir.display()), e)),
        };
        files.sort();
        Ok(files)
    }

    /// `GET /desk/backups`: the daily backups, newest first (Settings shows the last one).
    pub fn backup_list(&self) -> Result<BackupList, ServiceError> {
        let mut backups = Vec::new();
        for path in self.daily_backups()?.into_iter().rev() {
            let Ok(meta) = std::fs::metadata(&path) else { continue };
            let made_at = meta
                .modified()
                .map(|t| chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                .unwrap_or_default();
            backups.push(BackupFile {
                file: path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default()
                    .to_string(),
                bytes: meta.len(),
                made_at,
            });
        }
        Ok(BackupList {
            folder: self.backups_dir().display().to_string(),
            backups,
        })
    }

    /// Why the last daily backup failed, for the banner.
    pub fn backup_failure(&self) -> Option<String> {
        self.backup_failure.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The backup worker: looks every ten minutes whether the day's backup is due.
    pub(crate) fn back_up_daily_until(&self, stop: &AtomicBool) {
        while !stop.load(Ordering::SeqCst) {
            if let Err(e) = self.back_up_if_due() {
                tracing::error!(error = %e.chain(), "the day's backup failed; tried again in ten minutes");
            }
            let until = std::time::Instant::now() + CHECK_EVERY;
            while !stop.load(Ordering::SeqCst) && std::time::Instant::now() < until {
                std::thread::sleep(std::time::Duration::from_millis(250));
            }
        }
    }
}
