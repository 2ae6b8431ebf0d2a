//! File links that work without the API key, as the real service's label, invoice and manifest URLs
//! do (a WMS hands them to any HTTP client or print service): `/v3/files/<id>?expires=<unix
//! seconds>&signature=<hex>`, the signature an HMAC-SHA256 over the file id and the expiry under a
//! random key kept in the store. It cannot be guessed, moved to another file or extended; it is
//! checked in constant time. The same path with the key header keeps working.

use hmac::{Hmac, Mac};
use packdesk_model::ServiceError;
use packdesk_store::db::Db;
use sha2::Sha256;
use std::sync::atomic::{AtomicI64, Ordering};

/// How long a file link works unless set otherwise: 30 days.
pub const DEFAULT_TTL_SECS: i64 = 30 * 24 * 3600;
const META_KEY: &str = "file_link_key";

pub struct FileLinks {
    key: Vec<u8>,
    ttl_secs: AtomicI64,
}

/// Why a link was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum LinkRefused {
    Expired,
    BadSignature,
}

impl FileLinks {
    /// Loads the store's link key, making it on first use (every process on the store shares it).
    pub fn load(store: &Db) -> Result<FileLinks, ServiceError> {
        let fresh = hex::encode(crate::vault::random_bytes::<32>());
        let hex = store.write(|tx| packdesk_store::meta::init(tx, META_KEY, &fresh))?;
        let key = hex::decode(&hex)
            .ok()
            .filter(|k| k.len() >= 32)
            .ok_or_else(|| ServiceError::internal("the file link key in the store is damaged"))?;
        Ok(FileLinks {
            key,
            ttl_secs: AtomicI64::new(DEFAULT_TTL_SECS),
        })
    }

    /// Sets how long new links work (existing links keep their own expiry).
    pub fn set_ttl_secs(&self, secs: i64) {
        self.ttl_secs.store(secs.max(60), Ordering::Relaxed);
    }

    fn mac(&self, file_id: &str, expires: i64) -> Hmac<Sha256> {
        // A key of any length is accepted by HMAC.
        let mut m = <Hmac<Sha256> as Mac>::new_from_slice(&self.key).expect("HMAC takes any key length");
        m.update(file_id.as_bytes());
        m.update(b"\n");
        m.update(expires.to_string().as_bytes());
        m
    }

    /// The query of a link to `file_id` made at `now_secs`: `expires=...&signature=...`.
    pub fn query(&self, file_id: &str, now_secs: i64) -> String {
        let expires = now_secs + self.ttl_secs.load(Ordering::Relaxed);
        let sig = hex::encode(self.mac(file_id, expires).finalize().into_bytes());
        format!("expires={expires}&signature={sig}")
    }

    /// Checks a link's expiry and signature (constant time).
    pub fn check(&self, file_id: &str, expires: i64, signature: &str, now_secs: i64) -> Result<(), LinkRefused> {
        let ok = hex::decode(signature)
            .ok()
            .is_some_and(|sig| sig.len() == 32 && self.mac(file_id, expires).verify_slice(&sig).is_ok());
        if !ok {
            return Err(LinkRefused::BadSignature);
        }
        if expires < now_secs {
            return Err(LinkRefused::Expired);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links() -> (tempfile::TempDir, FileLinks) {
        let dir = tempfile::tempdir().unwrap();
        let store = Db::open_file(&dir.path().join("db.sqlite3")).unwrap();
        let l = FileLinks::load(&store).unwrap();
        assert_eq!(FileLinks::load(&store).unwrap().key, l.key, "one key per store");
        (dir, l)
    }

    fn parts(q: &str) -> (i64, String) {
        let (e, s) = q.split_once('&').unwrap();
        (
            e.strip_prefix("expires=").unwrap().parse().unwrap(),
            s.strip_prefix("signature=").unwrap().to_string(),
        )
    }

    #[test]
    fn a_link_opens_its_file_until_it_expires_and_nothing_else() {
        let (_d, l) = links();
        let (expires, sig) = parts(&l.query("file-1", 1_000));
        assert_eq!(expires, 1_000 + DEFAULT_TTL_SECS);
        assert_eq!(l.check("file-1", expires, &sig, 2_000), Ok(()));
        assert_eq!(l.check("file-1", expires, &sig, expires + 1), Err(LinkRefused::Expired));
        assert_eq!(
            l.check("file-2", expires, &sig, 2_000),
            Err(LinkRefused::BadSignature),
            "another file"
        );
        assert_eq!(
            l.check("file-1", expires + 86_400, &sig, 2_000),
            Err(LinkRefused::BadSignature),
            "extended"
        );
        let mut flipped = sig.clone().into_bytes();
        flipped[10] = if flipped[10] == b'0' { b'1' } else { b'0' };
        assert_eq!(
            l.check("file-1", expires, std::str::from_utf8(&flipped).unwrap(), 2_000),
            Err(LinkRefused::BadSignature)
        );
        assert_eq!(l.check("file-1", expires, "zz", 2_000), Err(LinkRefused::BadSignature));
        assert_eq!(l.check("file-1", expires, "", 2_000), Err(LinkRefused::BadSignature));
        l.set_ttl_secs(3600);
        assert_eq!(parts(&l.query("file-1", 1_000)).0, 4_600);
    }
}
