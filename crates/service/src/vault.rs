//! Secrets at rest (carrier credentials, the API keys for display) are sealed with
//! XChaCha20-Poly1305 under a key kept outside the database: in the OS keyring (the desktop app,
//! where one is reachable), else a key file readable only by the user.

use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use packdesk_model::desk::{VaultKeyPlace, VaultKeyStore};
use packdesk_model::ServiceError;
use std::io::Write;
use std::path::Path;

pub struct Vault {
    cipher: XChaCha20Poly1305,
    /// The key itself, for the join code of a shared database (given to each further desk once).
    key: Vec<u8>,
}

const NONCE_LEN: usize = 24;

/// Where a start asks for the vault key to be kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPreference {
    /// `vault.key` in the data folder (the server). A key the desktop app moved into the OS
    /// keyring is still found there when the file is missing.
    File,
    /// The OS keyring where one is reachable (the desktop app); the file otherwise. A key file
    /// found in the folder is moved into the keyring, and removed once the keyring answers it back.
    Keyring,
}

/// Somewhere outside the data folder a vault key can be kept: the OS keyring ([`OsKeyring`]).
pub trait KeyKeeper {
    /// The entry, as Settings names it.
    fn describe(&self) -> String;
    /// The key, None when the entry does not exist; Err when the keyring cannot be reached.
    fn get(&self) -> Result<Option<Vec<u8>>, String>;
    fn set(&self, key: &[u8]) -> Result<(), String>;
}

impl Vault {
    /// Loads the key file, or creates it (mode 0600) on first start.
    pub fn open(key_file: &Path) -> Result<Vault, ServiceError> {
        Vault::open_with(key_file, true)
    }

    /// Loads the key file; creates it only when `may_create` (nothing sealed exists yet). A missing
    /// key with sealed secrets in the database is refused: a new key would open none of them.
    pub fn open_with(key_file: &Path, may_create: bool) -> Result<Vault, ServiceError> {
        Ok(Vault::from_key(&load_or_create_file(key_file, may_create, None)?))
    }

    /// Opens the vault with its key where `preference` says, the file as the fallback; answers
    /// where the key is now. The key is made only when `may_create`, and never made a second time:
    /// a key the keyring or the file holds is always taken first.
    pub fn open_kept(
        key_file: &Path,
        keeper: &dyn KeyKeeper,
        preference: KeyPreference,
        may_create: bool,
    ) -> Result<(Vault, VaultKeyPlace), ServiceError> {
        let in_file = |note: Option<String>| VaultKeyPlace {
            kept_in: VaultKeyStore::File,
            location: key_file.display().to_string(),
            note,
        };
        let in_keyring = || VaultKeyPlace {
            kept_in: VaultKeyStore::Keyring,
            location: keeper.describe(),
            note: None,
        };
        let from_file = read_key_file(key_file)?;
        if preference == KeyPreference::File {
            if let Some(key) = from_file {
                return Ok((Vault::from_key(&key), in_file(None)));
            }
            if !may_create {
                // The desktop app may have moved it into the keyring.
                if let Ok(Some(key)) = keeper.get() {
                    return Ok((Vault::from_key(&checked(key, &keeper.describe())?), in_keyring()));
                }
            }
            let key = load_or_create_file(key_file, may_create, Some(keeper))?;
            return Ok((Vault::from_key(&key), in_file(None)));
        }
        let kept = match keeper.get() {
            Ok(kept) => kept,
            Err(why) => {
                let note = format!("no OS keyring is reachable ({why}), so the key stays in this file");
                let key = load_or_create_file(key_file, may_create, Some(keeper))?;
                return Ok((Vault::from_key(&key), in_file(Some(note))));
            }
        };
        // A key file in the folder is the truth (it may be a restored backup): it goes into the
        // keyring, and the file goes only once the keyring gives the same key back.
        if let Some(key) = from_file {
            return match move_into(keeper, &key) {
                Ok(()) => {
                    std::fs::remove_file(key_file)
                        .map_err(|e| ServiceError::internal(format!("removing {}: {e}", key_file.display())))?;
                    Ok((Vault::from_key(&key), in_keyring()))
                }
                Err(why) => {
                    let note = format!("the OS keyring did not take the key ({why}), so it stays in this file");
                    Ok((Vault::from_key(&key), in_file(Some(note))))
                }
            };
        }
        if let Some(key) = kept {
            return Ok((Vault::from_key(&checked(key, &keeper.describe())?), in_keyring()));
        }
        if !may_create {
            return Err(missing_key(key_file, Some(keeper)));
        }
        let key = XChaCha20Poly1305::generate_key(&mut OsRng).to_vec();
        match move_into(keeper, &key) {
            Ok(()) => Ok((Vault::from_key(&key), in_keyring())),
            Err(why) => {
                write_private(key_file, &key)
                    .map_err(|e| ServiceError::internal(format!("writing {}: {e}", key_file.display())))?;
                let note = format!("the OS keyring did not take the key ({why}), so it is kept in this file");
                Ok((Vault::from_key(&key), in_file(Some(note))))
            }
        }
    }

    fn from_key(key: &[u8]) -> Vault {
        Vault {
            cipher: XChaCha20Poly1305::new(Key::from_slice(key)),
            key: key.to_vec(),
        }
    }

    /// The key as a join code: every desk of a shared database seals and opens the API keys and
    /// carrier credentials with the same key, which each further desk is given once.
    pub fn join_code(&self) -> String {
        hex::encode(&self.key)
    }

    /// Gives a desk the warehouse's key from its join code: written as the data folder's key file
    /// (the desktop app then moves it into the OS keyring). A desk holding that key already
    /// changes nothing; one holding another key is refused untouched.
    pub fn adopt_join_code(key_file: &Path, keeper: &dyn KeyKeeper, code: &str) -> Result<(), ServiceError> {
        let key = hex::decode(code.trim())
            .ok()
            .filter(|k| k.len() == 32)
            .ok_or_else(|| ServiceError::invalid("join_code", "a join code is 64 hexadecimal digits"))?;
        let held = match read_key_file(key_file)? {
            Some(k) => Some(k),
            None => keeper.get().ok().flatten(),
        };
        match held {
            Some(k) if k == key => Ok(()),
            Some(_) => Err(ServiceError::internal(format!(
                "this desk holds another shared database's vault key ({}): it was left as it is. Move that \
                 file away if this desk leaves that database for this one",
                key_file.display()
            ))),
            None => write_private(key_file, &key)
                .map_err(|e| ServiceError::internal(format!("writing {}: {e}", key_file.display()))),
        }
    }

    pub fn seal(&self, plain: &[u8]) -> Vec<u8> {
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        // Encryption with a fresh nonce and an in-memory buffer cannot fail.
        let mut out = nonce.to_vec();
        out.extend(self.cipher.encrypt(&nonce, plain).unwrap_or_default());
        out
    }

    pub fn open_sealed(&self, sealed: &[u8]) -> Result<Vec<u8>, ServiceError> {
        if sealed.len() < NONCE_LEN {
            return Err(ServiceError::internal("sealed value too short"));
        }
        let (nonce, body) = sealed.split_at(NONCE_LEN);
        self.cipher
            .decrypt(XNonce::from_slice(nonce), body)
            .map_err(|_| ServiceError::internal("a sealed value does not open with this vault key"))
    }
}

/// Writes the key whole or not at all: a private temporary file, synced, renamed over the name,
/// and the folder synced, so a crash never leaves a short or empty key.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)?;
    #[cfg(unix)]
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// The key file's key; None when there is no file.
fn read_key_file(key_file: &Path) -> Result<Option<Vec<u8>>, ServiceError> {
    match std::fs::read(key_file) {
        Ok(bytes) => checked(bytes, &key_file.display().to_string()).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ServiceError::internal(format!("reading {}: {e}", key_file.display()))),
    }
}

fn checked(key: Vec<u8>, place: &str) -> Result<Vec<u8>, ServiceError> {
    if key.len() == 32 {
        Ok(key)
    } else {
        Err(ServiceError::internal(format!("{place} is not a Packdesk vault key")))
    }
}

/// The file's key, or a new file when `may_create`.
fn load_or_create_file(
    key_file: &Path,
    may_create: bool,
    keeper: Option<&dyn KeyKeeper>,
) -> Result<Vec<u8>, ServiceError> {
    if let Some(key) = read_key_file(key_file)? {
        return Ok(key);
    }
    if !may_create {
        return Err(missing_key(key_file, keeper));
    }
    let key = XChaCha20Poly1305::generate_key(&mut OsRng).to_vec();
    write_private(key_file, &key)
        .map_err(|e| ServiceError::internal(format!("writing {}: {e}", key_file.display())))?;
    Ok(key)
}

fn missing_key(key_file: &Path, keeper: Option<&dyn KeyKeeper>) -> ServiceError {
    let keyring = keeper
        .map(|k| format!(" nor in the OS keyring ({})", k.describe()))
        .unwrap_or_default();
    ServiceError::internal(format!(
        "the vault key {}{keyring} is missing, but the database beside it holds secrets sealed with it \
         (the API keys, carrier credentials). Packdesk did not start and made no new key, which \
         would open none of them. Put the vault.key of this data folder back (from a backup), \
         or move the data folder away to start afresh",
        key_file.display()
    ))
}

/// Stores the key and reads it back: only a keyring that answers the same key holds it.
fn move_into(keeper: &dyn KeyKeeper, key: &[u8]) -> Result<(), String> {
    keeper.set(key)?;
    match keeper.get()? {
        Some(back) if back == key => Ok(()),
        _ => Err("it answered a different key back".into()),
    }
}

/// The OS keyring's entry for one data folder: Secret Service (GNOME Keyring, KWallet) on Linux,
/// the Keychain on macOS, the Credential Manager on Windows. The key is kept as hex.
pub struct OsKeyring {
    service: &'static str,
    user: String,
}

impl OsKeyring {
    pub fn for_data_dir(data_dir: &Path) -> OsKeyring {
        let folder = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
        OsKeyring {
            service: "app.packdesk.desk",
            user: format!("vault key for {}", folder.display()),
        }
    }

    /// The entry of the warehouse's key (the shared database) for the desk of `data_dir`.
    pub fn for_shared_database(data_dir: &Path) -> OsKeyring {
        let folder = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
        OsKeyring {
            service: "app.packdesk.desk",
            user: format!("shared database vault key for {}", folder.display()),
        }
    }

    /// Runs `f` on the entry in a thread of its own, for at most `KEYRING_WAIT`: a locked keyring
    /// shows its unlock prompt and waits for the user, who may not be there.
    fn with_entry<T: Send + 'static>(
        &self,
        f: impl FnOnce(keyring::Entry) -> Result<T, String> + Send + 'static,
    ) -> Result<T, String> {
        // Without a session bus libdbus would try to start one (X11 autolaunch): a desk started
        // over SSH or by a service has no keyring to reach.
        #[cfg(target_os = "linux")]
        if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
            return Err("no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set".into());
        }
        let (service, user) = (self.service, self.user.clone());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let answer = keyring::Entry::new(service, &user)
                .map_err(|e| e.to_string())
                .and_then(f);
            let _ = tx.send(answer);
        });
        rx.recv_timeout(KEYRING_WAIT).unwrap_or_else(|_| {
            Err(format!(
                "the OS keyring did not answer within {} s (locked, and its unlock prompt not answered)",
                KEYRING_WAIT.as_secs()
            ))
        })
    }
}

const KEYRING_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

impl KeyKeeper for OsKeyring {
    fn describe(&self) -> String {
        format!("{} / {}", self.service, self.user)
    }

    fn get(&self) -> Result<Option<Vec<u8>>, String> {
        self.with_entry(|entry| match entry.get_password() {
            Ok(hex) => Ok(Some(
                hex::decode(hex.trim()).map_err(|_| "the keyring entry is not a vault key")?,
            )),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(e.to_string()),
        })
    }

    fn set(&self, key: &[u8]) -> Result<(), String> {
        let hex = hex::encode(key);
        self.with_entry(move |entry| entry.set_password(&hex).map_err(|e| e.to_string()))
    }
}

/// Random bytes from the OS.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    use chacha20poly1305::aead::rand_core::RngCore;
    let mut b = [0u8; N];
    OsRng.fill_bytes(&mut b);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_only_with_the_same_key_and_the_key_file_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vault.key");
        let v = Vault::open(&path).unwrap();
        let sealed = v.seal(b"secret");
        assert!(!sealed.windows(6).any(|w| w == b"secret"));
        assert_eq!(Vault::open(&path).unwrap().open_sealed(&sealed).unwrap(), b"secret");
        let other = Vault::open(&dir.path().join("other.key")).unwrap();
        assert!(other.open_sealed(&sealed).is_err());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            2,
            "no temporary file is left behind"
        );
    }

    #[test]
    fn a_missing_key_is_not_made_again_when_sealed_secrets_exist() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vault.key");
        let e = Vault::open_with(&path, false).err().expect("refused");
        assert!(e.details[0].info.contains("is missing"), "{:?}", e.details);
        assert!(!path.exists());
    }

    /// Stands in for the OS keyring in these unit tests (the real one is tested by
    /// tests/keyring.sh against GNOME Keyring).
    #[derive(Default)]
    struct MemoryKeyring {
        key: std::cell::RefCell<Option<Vec<u8>>>,
        unreachable: bool,
        refuses_writes: bool,
    }

    impl KeyKeeper for MemoryKeyring {
        fn describe(&self) -> String {
            "memory".into()
        }
        fn get(&self) -> Result<Option<Vec<u8>>, String> {
            if self.unreachable {
                return Err("no keyring".into());
            }
            Ok(self.key.borrow().clone())
        }
        fn set(&self, key: &[u8]) -> Result<(), String> {
            if self.refuses_writes {
                return Err("locked".into());
            }
            *self.key.borrow_mut() = Some(key.to_vec());
            Ok(())
        }
    }

    #[test]
    fn the_desktop_app_keeps_a_new_key_in_the_keyring_and_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vault.key");
        let ring = MemoryKeyring::default();
        let (v, place) = Vault::open_kept(&path, &ring, KeyPreference::Keyring, true).unwrap();
        assert_eq!(place.kept_in, VaultKeyStore::Keyring);
        assert!(!path.exists());
        let sealed = v.seal(b"secret");
        // Later starts, as the app or as the server, open it from the keyring.
        for pref in [KeyPreference::Keyring, KeyPreference::File] {
            let (v, place) = Vault::open_kept(&path, &ring, pref, false).unwrap();
            assert_eq!(v.open_sealed(&sealed).unwrap(), b"secret");
            assert_eq!(place.kept_in, VaultKeyStore::Keyring);
        }
    }

    #[test]
    fn a_key_file_moves_into_the_keyring_and_stays_when_the_keyring_refuses_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vault.key");
        let sealed = Vault::open(&path).unwrap().seal(b"secret");
        let locked = MemoryKeyring {
            refuses_writes: true,
            ..Default::default()
        };
        let (v, place) = Vault::open_kept(&path, &locked, KeyPreference::Keyring, false).unwrap();
        assert_eq!(v.open_sealed(&sealed).unwrap(), b"secret");
        assert_eq!(place.kept_in, VaultKeyStore::File);
        assert!(place.note.unwrap().contains("locked"));
        assert!(path.exists(), "the file stays when the keyring did not take the key");

        // A keyring with a stale key of an older folder at this path: the file wins.
        let ring = MemoryKeyring::default();
        ring.set(&[7; 32]).unwrap();
        let (v, place) = Vault::open_kept(&path, &ring, KeyPreference::Keyring, false).unwrap();
        assert_eq!(v.open_sealed(&sealed).unwrap(), b"secret");
        assert_eq!(place.kept_in, VaultKeyStore::Keyring);
        assert!(!path.exists(), "moved");
        let (v, _) = Vault::open_kept(&path, &ring, KeyPreference::Keyring, false).unwrap();
        assert_eq!(v.open_sealed(&sealed).unwrap(), b"secret");
    }

    #[test]
    fn without_a_keyring_the_key_is_a_file_and_the_place_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vault.key");
        let none = MemoryKeyring {
            unreachable: true,
            ..Default::default()
        };
        let (v, place) = Vault::open_kept(&path, &none, KeyPreference::Keyring, true).unwrap();
        assert_eq!(place.kept_in, VaultKeyStore::File);
        assert_eq!(place.location, path.display().to_string());
        assert!(place.note.unwrap().contains("no OS keyring is reachable (no keyring)"));
        let sealed = v.seal(b"x");
        std::fs::remove_file(&path).unwrap();
        let e = Vault::open_kept(&path, &none, KeyPreference::Keyring, false)
            .err()
            .unwrap();
        assert!(
            e.details[0].info.contains("nor in the OS keyring (memory) is missing"),
            "{:?}",
            e.details
        );
        assert!(!path.exists(), "no new key");
        assert!(Vault::open(&path).unwrap().open_sealed(&sealed).is_err());
    }
}
