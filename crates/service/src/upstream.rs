//! Accounts served by an upstream label service (`settings.connection.kind = "upstream"`): the
//! desk checks a request against the carrier's rules as for its own labels, then the upstream
//! makes the label, cancel, manifest or rates, and the desk keeps what it made whole (the record
//! and its documents), so History, reprints, printing and the scan station work as for labels
//! made here, with the upstream reachable or not.
//!
//! Every POST to the upstream carries an `Idempotency-Key` derived from the desk's request: what
//! names it (the caller's own key, an async job's id, an order's shipment, the label of a cancel;
//! none for a request named by nothing) and the body sent, so a retry after a timeout meets the
//! upstream's first answer and buys nothing twice, and a corrected request is a new one.
//!
//! The upstream's answers are read leniently (the fields the desk keeps; a real service answers
//! more than this desk's own records hold).

use crate::keys::Env;
use crate::Service;
use packdesk_link::upstream::{Answer, Upstream, UpstreamError};
use packdesk_model::transport::{AccountConnection, TransportTest};
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::accounts::AccountRow;
use serde_json::Value;
use std::time::Duration;

/// An account's upstream, its key opened by the vault.
pub(crate) struct UpstreamAccount {
    pub base_url: String,
    api_key: String,
    /// The account's id at the upstream.
    pub account_id: String,
    timeout: Duration,
    /// The desk's account (its id keys the derived idempotency keys).
    local_account_id: String,
}

/// An upstream's failure as the desk answers it: a refusal passed on as the upstream gave it, an
/// unreachable upstream as a retryable error in words naming it.
fn error_of(e: UpstreamError) -> ServiceError {
    match e {
        UpstreamError::Refused {
            code,
            message,
            mut details,
            retryable,
        } => {
            if code == 401 && details.is_empty() {
                details.push(packdesk_model::Detail::new(
                    "shipper_account.id",
                    "the upstream label service refused this account's API key: set the right key in the account's connection",
                ));
            }
            ServiceError::relayed(code, message, details, retryable)
        }
        UpstreamError::Unreachable(words) => ServiceError::at(ErrorCode::InternalRetry, "shipper_account.id", words),
    }
}

/// A failure in words for a person: its details' words, else its message.
fn words_of(e: &ServiceError) -> String {
    let words: Vec<&str> = e.details.iter().map(|d| d.info.as_str()).collect();
    match words.is_empty() {
        true => e.message().to_string(),
        false => words.join("; "),
    }
}

impl UpstreamAccount {
    fn client(&self) -> Upstream<'_> {
        Upstream {
            base_url: &self.base_url,
            api_key: &self.api_key,
            timeout: self.timeout,
        }
    }

    /// The upstream's `Idempotency-Key` for POST `path` with `body`, the desk's request named by
    /// `name` (a caller's key is marked apart from the desk's own names, so none can pose as
    /// another): the same request always sends the same key; another account, route, name or
    /// body, another key.
    fn key(&self, path: &str, name: &Name<'_>, body: &Value) -> String {
        use sha2::Digest;
        let (kind, name) = match name {
            Name::Caller(k) => ("caller", *k),
            Name::Desk(n) => ("desk", n.as_str()),
        };
        let digest = sha2::Sha256::digest(format!("{}\n{path}\n{kind}\n{name}\n{body}", self.local_account_id));
        format!("packdesk-{}", hex::encode(&digest[..16]))
    }

    /// POSTs `body` with the key derived from `name` and the body.
    pub(crate) fn post(&self, path: &str, body: &Value, name: &Name<'_>) -> Result<Answer, ServiceError> {
        let key = self.key(path, name, body);
        self.client()
            .call(reqwest::Method::POST, path, Some(body), Some(&key))
            .map_err(error_of)
    }

    pub(crate) fn get(&self, path: &str) -> Result<Answer, ServiceError> {
        self.client()
            .call(reqwest::Method::GET, path, None, None)
            .map_err(error_of)
    }

    pub(crate) fn download(&self, url: &str) -> Result<Vec<u8>, ServiceError> {
        self.client().download(url).map_err(error_of)
    }

    /// A retryable error saying the upstream's answer lacks what the desk needs.
    pub(crate) fn unreadable(&self, what: &str) -> ServiceError {
        ServiceError::at(
            ErrorCode::InternalRetry,
            "shipper_account.id",
            format!(
                "the upstream label service {} answered a {what} this desk cannot read: check that it speaks this interface",
                self.base_url
            ),
        )
    }

    /// A text field of an answer's `data`.
    pub(crate) fn text(&self, data: &Value, field: &str, what: &str) -> Result<String, ServiceError> {
        data[field]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| self.unreadable(what))
    }
}

/// What names a desk request for its upstream key.
pub(crate) enum Name<'a> {
    /// The caller's own `Idempotency-Key`.
    Caller(&'a str),
    /// The desk's own name of it (a job's id, an order's shipment, the label of a cancel); empty:
    /// named by its body alone.
    Desk(String),
}

impl<'a> Name<'a> {
    /// The caller's key if it sent one, else the desk's `name`.
    pub(crate) fn of(caller: Option<&'a str>, desk: impl Into<String>) -> Name<'a> {
        match caller {
            Some(k) => Name::Caller(k),
            None => Name::Desk(desk.into()),
        }
    }
}

impl Service {
    /// The account's upstream, when its labels are made by one (none: made on this desk).
    pub(crate) fn upstream_of(&self, account: &AccountRow) -> Result<Option<UpstreamAccount>, ServiceError> {
        self.upstream_in(account, &crate::accounts::settings_of(account))
    }

    /// `upstream_of`, with the account's settings already read (a label reads them once).
    pub(crate) fn upstream_in(
        &self,
        account: &AccountRow,
        settings: &packdesk_model::request::ShipperAccountSettings,
    ) -> Result<Option<UpstreamAccount>, ServiceError> {
        let Some(AccountConnection::Upstream(u)) = settings.connection.clone() else {
            return Ok(None);
        };
        let api_key = self.account_secrets(account)?.upstream_api_key.ok_or_else(|| {
            ServiceError::invalid(
                "shipper_account.id",
                "the account's upstream label service has no API key: set it in the account's connection",
            )
        })?;
        Ok(Some(UpstreamAccount {
            base_url: u.base_url,
            api_key,
            account_id: u.shipper_account_id,
            timeout: Duration::from_secs(u.timeout_s),
            local_account_id: account.id.clone(),
        }))
    }

    /// The upstream's id of the desk's label or manifest `id` (none: made on this desk).
    pub(crate) fn upstream_id(&self, env: Env, id: &str) -> Result<Option<String>, ServiceError> {
        Ok(self.store.read(|c| packdesk_store::upstream_refs::get(c, env, id))?)
    }

    /// "Test connection" of the account's connection: reads the account at the upstream and says
    /// what it found (a self-printing account has nothing to reach).
    pub fn test_connection(&self, env: Env, id: &str) -> Result<TransportTest, ServiceError> {
        let account = self.account_row(env, id, "id")?;
        let Some(u) = self.upstream_of(&account)? else {
            return Ok(TransportTest {
                ok: true,
                message: "This desk makes the account's labels from its number ranges: there is nothing to connect to."
                    .into(),
            });
        };
        let id: String = url_path_segment(&u.account_id);
        let remote = u.get(&format!("/shipper-accounts/{id}")).and_then(|a| {
            let d = &a.data;
            Ok(RemoteAccount {
                id: u.text(d, "id", "shipper account")?,
                slug: u.text(d, "slug", "shipper account")?,
                description: u.text(d, "description", "shipper account").unwrap_or_default(),
                status: u.text(d, "status", "shipper account")?,
            })
        });
        Ok(match remote {
            Err(e) => TransportTest {
                ok: false,
                message: words_of(&e),
            },
            Ok(r) if r.slug != account.slug => TransportTest {
                ok: false,
                message: format!(
                    "{} answered, but its account {} is of carrier `{}`, this one of `{}`: give the id of the upstream's {} account",
                    u.base_url, r.id, r.slug, account.slug, account.slug
                ),
            },
            Ok(r) => TransportTest {
                ok: r.status == "enabled",
                message: format!(
                    "Connected to {}: its account \"{}\" ({}) is {}.",
                    u.base_url, r.description, r.slug, r.status
                ),
            },
        })
    }
}

/// What "Test connection" reads of the upstream's account.
struct RemoteAccount {
    id: String,
    slug: String,
    description: String,
    status: String,
}

/// A value as one path segment (`/`, `?`, `#`, `%` and the rest escaped).
fn url_path_segment(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
