//! Accounts served by an upstream label service (`settings.connection.kind = "upstream"`): the
//! desk checks a request against the carrier's rules as for its own labels, then the upstream
//! makes the label, cancel, manifest or rates, and the desk keeps what it made whole (the record
//! and its documents), so History, reprints, printing and the scan station work as for labels
//! made here, with the upstream reachable or not.
//!
//! Every POST to the upstream carries an `Idempotency-Key` derived from the desk's request: the
//! caller's own key when it sent one, else the desk's id of what is being made (an async job's
//! id, the label's id of a cancel). A retry after a timeout meets the upstream's first answer and
//! buys nothing twice.

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
                details.push(packdesk_model::Detail {
                    path: "shipper_account.id".into(),
                    info: "the upstream label service refused this account's API key: set the right key in the account's connection".into(),
                });
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

    /// The upstream's `Idempotency-Key` for `what` (a route) done for `request` (the caller's
    /// key, or the desk's id of what is made): the same desk request always sends the same key,
    /// and no two accounts or routes share one.
    pub(crate) fn key(&self, what: &str, request: &str) -> String {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(format!("{}\n{what}\n{request}", self.local_account_id));
        let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
        format!("packdesk-{hex}")
    }

    pub(crate) fn post(&self, path: &str, body: &Value, key: &str) -> Result<Answer, ServiceError> {
        self.client()
            .call(reqwest::Method::POST, path, Some(body), Some(key))
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

    /// The upstream's answer `data` read as `T`, or a retryable error saying it is not this
    /// interface's.
    pub(crate) fn read<T: serde::de::DeserializeOwned>(&self, answer: Answer, what: &str) -> Result<T, ServiceError> {
        serde_json::from_value(answer.data).map_err(|e| {
            ServiceError::at(
                ErrorCode::InternalRetry,
                "shipper_account.id",
                format!(
                    "the upstream label service {} answered a {what} this desk cannot read ({e}): check that it speaks this interface",
                    self.base_url
                ),
            )
        })
    }
}

impl Service {
    /// The account's upstream, when its labels are made by one (none: made on this desk).
    pub(crate) fn upstream_of(&self, account: &AccountRow) -> Result<Option<UpstreamAccount>, ServiceError> {
        let settings = crate::accounts::settings_of(account);
        let Some(AccountConnection::Upstream(u)) = settings.connection else {
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
        let remote = u
            .get(&format!("/shipper-accounts/{}", u.account_id))
            .and_then(|a| u.read::<packdesk_model::record::ShipperAccount>(a, "shipper account"));
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
                ok: r.status == packdesk_model::record::AccountStatus::Enabled,
                message: format!(
                    "Connected to {}: its account \"{}\" ({}) is {}.",
                    u.base_url, r.description, r.slug, r.status
                ),
            },
        })
    }
}
