//! How data leaves the desk for a carrier (the `Connector` seam of `docs/decisions.md`). An
//! account served by an upstream label service is called through `upstream`. A manifest's data
//! file goes by the account's `settings.manifest_transport`: SFTP (the server's host key pinned
//! by its fingerprint), HTTPS (POST, the file as the body) or a folder a carrier's upload tool
//! watches. Every way writes the file under a temporary name and renames it, so the carrier never
//! sees a partial file, and a second sending of one manifest replaces its file instead of adding
//! one.
//!
//! Everything here blocks: the desk calls it from threads of its own (the transmission worker,
//! the request's blocking thread), never from an async task.
#![forbid(unsafe_code)]

mod folder;
mod https;
mod sftp;
pub mod upstream;

use packdesk_model::transport::{ManifestTransport, TransportSecrets};
use std::time::Duration;

/// One data file on its way.
pub struct Outgoing<'a> {
    pub manifest_id: &'a str,
    /// The name the carrier sees (`<slug>_<account>_<yyyymmdd>_<seq>.csv`).
    pub file_name: &'a str,
    pub bytes: &'a [u8],
}

/// Why a sending or a test failed, in words an operator can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkError(pub String);

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LinkError {}

pub(crate) fn fail<T>(message: impl Into<String>) -> Result<T, LinkError> {
    Err(LinkError(message.into()))
}

/// How long one attempt may take before it counts as failed.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// Sends `file` by `transport`; Ok once the carrier's side has the whole file under its name.
pub fn send(
    transport: &ManifestTransport,
    secrets: &TransportSecrets,
    file: &Outgoing<'_>,
    timeout: Duration,
) -> Result<(), LinkError> {
    match transport {
        ManifestTransport::None => fail("no manifest transport is set for this account"),
        ManifestTransport::Sftp(t) => sftp::send(t, secrets, file, timeout),
        ManifestTransport::Https(t) => https::send(t, secrets, file, timeout),
        ManifestTransport::Folder(t) => folder::send(t, file),
    }
}

/// Tries the transport without sending anything: SFTP connects, checks the host key, signs in and
/// lists the folder; HTTPS connects and checks the certificate; a folder must be writable.
/// Answers what it found, in words.
pub fn test(transport: &ManifestTransport, secrets: &TransportSecrets, timeout: Duration) -> Result<String, LinkError> {
    match transport {
        ManifestTransport::None => Ok("No transport is set: the data file stays on this desk.".into()),
        ManifestTransport::Sftp(t) => sftp::test(t, secrets, timeout),
        ManifestTransport::Https(t) => https::test(t, secrets, timeout),
        ManifestTransport::Folder(t) => folder::test(t),
    }
}

/// A host key's fingerprint as `ssh-keygen -lf` prints it: `SHA256:` and the unpadded base64 of
/// the key blob's SHA-256.
pub fn host_key_fingerprint(key_blob: &[u8]) -> String {
    use base64::Engine;
    use sha2::Digest;
    format!(
        "SHA256:{}",
        base64::engine::general_purpose::STANDARD_NO_PAD.encode(sha2::Sha256::digest(key_blob))
    )
}

/// Whether `s` looks like such a fingerprint (43 base64 characters after `SHA256:`).
pub fn is_fingerprint(s: &str) -> bool {
    s.strip_prefix("SHA256:")
        .is_some_and(|b| b.len() == 43 && b.chars().all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/'))
}

/// The temporary name a file is written under before its rename (hidden from a folder watcher
/// that skips dot files, and never the final name).
pub(crate) fn part_name(file_name: &str) -> String {
    format!(".{file_name}.part")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_written_as_ssh_keygen_prints_them() {
        let f = host_key_fingerprint(b"a key blob");
        assert!(is_fingerprint(&f), "{f}");
        assert!(!is_fingerprint("SHA256:short"));
        assert!(!is_fingerprint("MD5:aa:bb"));
    }
}
