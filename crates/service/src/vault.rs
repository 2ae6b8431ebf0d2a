//! Secrets at rest (carrier credentials, the API keys for display) are sealed with
//! XChaCha20-Poly1305 under a key kept outside the database: a key file readable only by the user.

use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use packdesk_model::ServiceError;
use std::io::Write;
use std::path::Path;

pub struct Vault {
    cipher: XChaCha20Poly1305,
}

const NONCE_LEN: usize = 24;

impl Vault {
    /// Loads the key file, or creates it (mode 0600) on first start.
    pub fn open(key_file: &Path) -> Result<Vault, ServiceError> {
        Vault::open_with(key_file, true)
    }

    /// Loads the key file; creates it only when `may_create` (nothing sealed exists yet). A missing
    /// key with sealed secrets in the database is refused: a new key would open none of them.
    pub fn open_with(key_file: &Path, may_create: bool) -> Result<Vault, ServiceError> {
        let key = match std::fs::read(key_file) {
            Ok(bytes) if bytes.len() == 32 => bytes,
            Ok(_) => {
                return Err(ServiceError::internal(format!(
                    "{} is not a Packdesk vault key",
                    key_file.display()
                )))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !may_create => {
                return Err(ServiceError::internal(format!(
                    "the vault key {} is missing, but the database beside it holds secrets sealed with it \
                     (the API keys, carrier credentials). Packdesk did not start and made no new key, which \
                     would open none of them. Put the vault.key of this data folder back (from a backup), \
                     or move the data folder away to start afresh",
                    key_file.display()
                )));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let key = XChaCha20Poly1305::generate_key(&mut OsRng).to_vec();
                write_private(key_file, &key)
                    .map_err(|e| ServiceError::internal(format!("writing {}: {e}", key_file.display())))?;
                key
            }
            Err(e) => return Err(ServiceError::internal(format!("reading {}: {e}", key_file.display()))),
        };
        Ok(Vault {
            cipher: XChaCha20Poly1305::new(Key::from_slice(&key)),
        })
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
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
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

/// Bytes as lowercase hex.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hex to bytes; None unless every pair is a hex byte.
pub fn from_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| hex.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
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
    fn hex_goes_both_ways_and_refuses_what_is_not_hex() {
        assert_eq!(to_hex(&[0, 0xab, 0x7f]), "00ab7f");
        assert_eq!(from_hex("00ab7f"), Some(vec![0, 0xab, 0x7f]));
        for bad in ["0", "zz", "0g", "ab c"] {
            assert_eq!(from_hex(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_missing_key_is_not_made_again_when_sealed_secrets_exist() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vault.key");
        let e = Vault::open_with(&path, false).err().expect("refused");
        assert!(e.details[0].info.contains("is missing"), "{:?}", e.details);
        assert!(!path.exists());
    }
}
