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
        let key = match std::fs::read(key_file) {
            Ok(bytes) if bytes.len() == 32 => bytes,
            Ok(_) => return Err(ServiceError::internal(format!("{} is not a Packdesk vault key", key_file.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let key = XChaCha20Poly1305::generate_key(&mut OsRng).to_vec();
                write_private(key_file, &key).map_err(|e| ServiceError::internal(format!("writing {}: {e}", key_file.display())))?;
                key
            }
            Err(e) => return Err(ServiceError::internal(format!("reading {}: {e}", key_file.display()))),
        };
        Ok(Vault { cipher: XChaCha20Poly1305::new(Key::from_slice(&key)) })
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

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
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
    }
}
