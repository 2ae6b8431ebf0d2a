//! How an account reaches its carrier: who makes its labels (`settings.connection`: this desk,
//! or an upstream label service speaking this same `/v3`), how a manifest's data file reaches
//! the carrier (`settings.manifest_transport`), and where that file is on its way
//! (`transmission` of a manifest record).
//!
//! Secrets (an upstream's API key, an SFTP password or private key, an HTTPS Authorization
//! header) are accepted in a request and never serialized: the service seals them apart from the
//! settings and answers `*_set: true` instead.

use crate::status::{TransmissionStatus, TransportKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Who makes the account's labels, cancels, manifests and rates.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AccountConnection {
    /// This desk, from the carrier's number ranges (the default).
    SelfPrint,
    /// A remote label service speaking this same `/v3` interface (the real service, or another
    /// Packdesk); what it makes is kept whole on this desk.
    Upstream(UpstreamConnection),
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UpstreamConnection {
    /// The service's `/v3` address, e.g. `https://labels.example.com/v3` (http:// only to this
    /// machine).
    pub base_url: String,
    /// Its `service-api-key` for this environment, write only: answered as `api_key_set`. Kept
    /// when a change to the same service leaves it out.
    #[serde(default, skip_serializing)]
    pub api_key: Option<String>,
    /// The account's id at the upstream.
    pub shipper_account_id: String,
    /// How long one call may take, seconds (default 30).
    #[serde(default = "default_timeout_s")]
    pub timeout_s: u64,
    /// Answer only (ignored in a request).
    #[serde(default)]
    pub api_key_set: bool,
}

fn default_timeout_s() -> u64 {
    30
}

impl AccountConnection {
    /// The upstream, when the account has one.
    pub fn upstream(&self) -> Option<&UpstreamConnection> {
        match self {
            AccountConnection::SelfPrint => None,
            AccountConnection::Upstream(u) => Some(u),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ManifestTransport {
    /// The data file stays on the desk (the default).
    None,
    /// Uploaded to the carrier's SFTP server.
    Sftp(SftpTransport),
    /// POSTed to the carrier's HTTPS endpoint, the file as the body.
    Https(HttpsTransport),
    /// Written to a folder the carrier's own upload tool watches.
    Folder(FolderTransport),
}

impl ManifestTransport {
    pub fn kind(&self) -> TransportKind {
        match self {
            ManifestTransport::None => TransportKind::None,
            ManifestTransport::Sftp(_) => TransportKind::Sftp,
            ManifestTransport::Https(_) => TransportKind::Https,
            ManifestTransport::Folder(_) => TransportKind::Folder,
        }
    }

    /// The secrets a request carries (taken out before the settings are stored).
    pub fn take_secrets(&mut self) -> TransportSecrets {
        match self {
            ManifestTransport::Sftp(s) => TransportSecrets {
                password: s.password.take(),
                private_key: s.private_key.take(),
                authorization: None,
            },
            ManifestTransport::Https(h) => TransportSecrets {
                authorization: h.authorization.take(),
                ..TransportSecrets::default()
            },
            ManifestTransport::None | ManifestTransport::Folder(_) => TransportSecrets::default(),
        }
    }

    /// Marks which secrets are kept (the `*_set` flags of the answer).
    pub fn mark_secrets(&mut self, kept: &TransportSecrets) {
        match self {
            ManifestTransport::Sftp(s) => {
                s.password_set = kept.password.is_some();
                s.private_key_set = kept.private_key.is_some();
            }
            ManifestTransport::Https(h) => h.authorization_set = kept.authorization.is_some(),
            ManifestTransport::None | ManifestTransport::Folder(_) => {}
        }
    }
}

/// The sealed part of a transport.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct TransportSecrets {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SftpTransport {
    pub host: String,
    /// 22 when not given.
    #[serde(default = "default_ssh_port")]
    pub port: u16,
    pub username: String,
    /// Write only: answered as `password_set`. Kept when a change of the transport leaves it out.
    #[serde(default, skip_serializing)]
    pub password: Option<String>,
    /// An OpenSSH private key (`-----BEGIN OPENSSH PRIVATE KEY-----`), write only: answered as
    /// `private_key_set`.
    #[serde(default, skip_serializing)]
    pub private_key: Option<String>,
    /// The folder on the server the file goes to.
    pub remote_dir: String,
    /// The server's host key fingerprint as `ssh-keygen -lf` prints it (`SHA256:…`): any other key
    /// is refused.
    pub host_key_sha256: String,
    /// Answer only (ignored in a request).
    #[serde(default)]
    pub password_set: bool,
    /// Answer only (ignored in a request).
    #[serde(default)]
    pub private_key_set: bool,
}

fn default_ssh_port() -> u16 {
    22
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HttpsTransport {
    /// https:// (http:// only to this machine).
    pub url: String,
    /// The Authorization header's value, write only: answered as `authorization_set`.
    #[serde(default, skip_serializing)]
    pub authorization: Option<String>,
    /// The receiver's certificate or its CA (PEM): when given, the only one trusted (a
    /// self-signed receiver is pinned so); else the system's roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_certificate: Option<String>,
    /// Answer only (ignored in a request).
    #[serde(default)]
    pub authorization_set: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FolderTransport {
    /// An absolute path on this machine (or a mounted share).
    pub path: String,
}

/// `transmission` of a manifest record.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Transmission {
    pub status: TransmissionStatus,
    /// Attempts made so far.
    pub attempts: i64,
    /// The data file's name at the carrier, fixed when the manifest is made.
    pub file_name: Option<String>,
    /// The transport it goes by (none while not required).
    pub transport: Option<TransportKind>,
    pub sent_at: Option<String>,
    /// Why the last attempt failed, in words.
    pub last_error: Option<String>,
    /// When it is tried again by itself (none: sent, or given up after 24 hours).
    pub next_attempt_at: Option<String>,
}

/// The answer of `POST /desk/shipper-accounts/{id}/test-transport` and `.../test-connection`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TransportTest {
    pub ok: bool,
    /// What was tried and what happened, in words.
    pub message: String,
}

/// One attempt to send a manifest's data file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct TransmissionAttempt {
    /// 1 for the first.
    pub attempt: i64,
    pub at: String,
    pub transport: TransportKind,
    /// Why it failed, in words (none: it arrived).
    pub error: Option<String>,
    pub duration_ms: f64,
}

/// `GET /desk/manifests/{id}/transmission`: where the data file is, and every attempt made.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct TransmissionLog {
    pub manifest_id: String,
    pub transmission: Transmission,
    pub attempts: Vec<TransmissionAttempt>,
}
