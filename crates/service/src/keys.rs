//! The live and the sandbox API key. Stored as a SHA-256 hash (to authenticate, compared in constant
//! time) and sealed by the vault (so `packdesk-server keys` and the desk can show them).

use crate::vault::{random_bytes, Vault};
use packdesk_model::ServiceError;
use packdesk_store::db::Db;
use packdesk_store::keys;
use sha2::{Digest, Sha256};
use std::sync::RwLock;

pub use packdesk_model::status::Env;

pub struct KeyRing {
    hashes: RwLock<Vec<(Env, [u8; 32])>>,
}

pub(crate) fn hash(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// A fresh key for `env` and the row that stores it (hash to authenticate, sealed to show).
fn new_key(env: Env, vault: &Vault, now_us: i64) -> (String, packdesk_store::keys::KeyRow) {
    let hex = hex::encode(random_bytes::<24>());
    let key = format!("pdk_{}_{hex}", env.as_str());
    let row = packdesk_store::keys::KeyRow {
        env,
        key_hash: hash(&key).to_vec(),
        key_sealed: vault.seal(key.as_bytes()),
        created_at: now_us,
    };
    (key, row)
}

/// Equal-time comparison, so the time of a refusal says nothing about how close a guess was.
fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl KeyRing {
    /// Loads the keys, creating the missing ones; returns the keys created now (to tell the user).
    pub fn load(store: &Db, vault: &Vault, now_us: i64) -> Result<(KeyRing, Vec<Env>), ServiceError> {
        let mut created = Vec::new();
        let rows = store.write(|tx| {
            let mut rows = keys::all(tx)?;
            for env in [Env::Live, Env::Sandbox] {
                if !rows.iter().any(|r| r.env == env) {
                    let (_, row) = new_key(env, vault, now_us);
                    keys::put(tx, &row)?;
                    rows.push(row);
                    created.push(env);
                }
            }
            Ok::<_, ServiceError>(rows)
        })?;
        let hashes = rows
            .iter()
            .filter_map(|r| Some((r.env, <[u8; 32]>::try_from(r.key_hash.as_slice()).ok()?)))
            .collect();
        Ok((
            KeyRing {
                hashes: RwLock::new(hashes),
            },
            created,
        ))
    }

    /// The environment of `key`, or None for an unknown key.
    pub fn authenticate(&self, key: &str) -> Option<Env> {
        let h = hash(key);
        let hashes = self.hashes.read().unwrap_or_else(|p| p.into_inner());
        // Compare with every key, found or not.
        hashes
            .iter()
            .fold(None, |found, (env, kh)| if same(&h, kh) { Some(*env) } else { found })
    }

    /// The keys in clear: (env, key).
    pub fn reveal(store: &Db, vault: &Vault) -> Result<Vec<(Env, String)>, ServiceError> {
        let rows = store.read(keys::all)?;
        rows.iter()
            .map(|r| {
                let env = r.env;
                let key = vault.open_sealed(&r.key_sealed)?;
                Ok((env, String::from_utf8_lossy(&key).into_owned()))
            })
            .collect()
    }

    /// Replaces the key of `env`; the old one stops working at once.
    /// `also` runs in the key's transaction (its audit entry).
    pub fn rotate(
        &self,
        store: &Db,
        vault: &Vault,
        env: Env,
        now_us: i64,
        also: impl FnOnce(&mut packdesk_store::db::Tx<'_>) -> Result<(), ServiceError>,
    ) -> Result<String, ServiceError> {
        let (key, row) = new_key(env, vault, now_us);
        store.write(|tx| {
            keys::put(tx, &row)?;
            also(tx)
        })?;
        let mut hashes = self.hashes.write().unwrap_or_else(|p| p.into_inner());
        hashes.retain(|(e, _)| *e != env);
        hashes.push((env, hash(&key)));
        Ok(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_opens_its_environment_and_a_rotated_key_stops_working_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Db::open_file(&dir.path().join("db.sqlite3")).unwrap();
        let vault = Vault::open(&dir.path().join("vault.key")).unwrap();
        let (ring, created) = KeyRing::load(&store, &vault, 0).unwrap();
        assert_eq!(created, vec![Env::Live, Env::Sandbox]);
        let keys = KeyRing::reveal(&store, &vault).unwrap();
        for (env, key) in &keys {
            assert_eq!(ring.authenticate(key), Some(*env));
        }
        assert_eq!(ring.authenticate("pdk_live_guess"), None);
        let old = keys.iter().find(|(e, _)| *e == Env::Sandbox).unwrap().1.clone();
        let new = ring.rotate(&store, &vault, Env::Sandbox, 1, |_| Ok(())).unwrap();
        assert_eq!(ring.authenticate(&old), None);
        assert_eq!(ring.authenticate(&new), Some(Env::Sandbox));
        // A second load creates nothing and knows the rotated key.
        let (again, created) = KeyRing::load(&store, &vault, 2).unwrap();
        assert!(created.is_empty());
        assert_eq!(again.authenticate(&new), Some(Env::Sandbox));
    }
}
