//! An upstream label service: a remote `/v3` of this same interface (the real service, or another
//! Packdesk) that makes an account's labels, cancels, manifests and rates. One call is one HTTP
//! request with the account's `service-api-key`; every POST carries the `Idempotency-Key` the
//! desk derived from its own request, so a call sent again after a timeout never buys a second
//! label.

use packdesk_model::Detail;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// The account's upstream, as the vault opened it.
pub struct Upstream<'a> {
    /// `https://host/v3` (no trailing slash needed).
    pub base_url: &'a str,
    pub api_key: &'a str,
    pub timeout: Duration,
}

/// What the upstream answered: its envelope's `meta` and `data`, for a code of success (200,
/// 3001) or one that still carries data (4713).
#[derive(Debug)]
pub struct Answer {
    pub code: i64,
    pub details: Vec<Detail>,
    pub data: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub enum UpstreamError {
    /// It answered with a failure of its own, passed on as it is.
    Refused {
        code: i64,
        message: String,
        details: Vec<Detail>,
        retryable: bool,
    },
    /// It could not be reached, did not answer in time, failed itself (5xx), or did not answer
    /// with this interface's envelope: worth trying again. In words naming the upstream.
    Unreachable(String),
}

/// One client per timeout, kept: a client holds its connections open between calls (a label
/// through the upstream does not pay a new TCP and TLS handshake each time).
fn client(timeout: Duration) -> Result<reqwest::blocking::Client, UpstreamError> {
    static CLIENTS: OnceLock<Mutex<HashMap<Duration, reqwest::blocking::Client>>> = OnceLock::new();
    let mut clients = CLIENTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(c) = clients.get(&timeout) {
        return Ok(c.clone());
    }
    let c = reqwest::blocking::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        // A label service that redirects is not followed with the account's key.
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| UpstreamError::Unreachable(format!("no HTTP client: {e}")))?;
    clients.insert(timeout, c.clone());
    Ok(c)
}

/// The deepest cause of an error, which says what actually happened.
fn cause(e: &reqwest::Error) -> String {
    let mut cause = e.to_string();
    let mut source: Option<&dyn std::error::Error> = Some(e);
    while let Some(s) = source {
        cause = s.to_string();
        source = s.source();
    }
    cause
}

impl Upstream<'_> {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url.trim_end_matches('/'))
    }

    /// The upstream's origin (scheme, host, port): only its own file links get the API key.
    fn origin(&self) -> Option<String> {
        reqwest::Url::parse(self.base_url)
            .ok()
            .map(|u| u.origin().ascii_serialization())
    }

    fn unreachable(&self, e: &reqwest::Error) -> UpstreamError {
        let at = self.base_url;
        UpstreamError::Unreachable(if e.is_timeout() {
            format!(
                "the upstream label service {at} did not answer within {} s: try again (a label it made meanwhile is not bought twice)",
                self.timeout.as_secs()
            )
        } else if e.is_connect() {
            format!(
                "the upstream label service {at} cannot be reached ({}): check that it runs and this desk's network, then try again",
                cause(e)
            )
        } else {
            format!("the upstream label service {at} failed to answer: {}", cause(e))
        })
    }

    /// `method path` with `body`, answered by the upstream's envelope.
    pub fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
        idempotency_key: Option<&str>,
    ) -> Result<Answer, UpstreamError> {
        let mut req = client(self.timeout)?
            .request(method, self.url(path))
            .header("service-api-key", self.api_key)
            .header("accept", "application/json");
        if let Some(b) = body {
            req = req
                .header("content-type", "application/json")
                .body(serde_json::to_vec(b).unwrap_or_default());
        }
        if let Some(k) = idempotency_key {
            req = req.header("idempotency-key", k);
        }
        let res = req.send().map_err(|e| self.unreachable(&e))?;
        let status = res.status();
        let bytes = res.bytes().map_err(|e| self.unreachable(&e))?;
        let envelope: Option<Value> = serde_json::from_slice(&bytes).ok();
        let Some(meta) = envelope.as_ref().map(|e| &e["meta"]).filter(|m| m["code"].is_i64()) else {
            return Err(UpstreamError::Unreachable(format!(
                "the upstream label service {} answered HTTP {status} without this interface's answer: check its address (it ends in /v3), then try again",
                self.base_url
            )));
        };
        let code = meta["code"].as_i64().unwrap_or(0);
        let details: Vec<Detail> = serde_json::from_value(meta["details"].clone()).unwrap_or_default();
        if status.is_server_error() {
            return Err(UpstreamError::Unreachable(format!(
                "the upstream label service {} failed (HTTP {status}, {code} {}): try again",
                self.base_url,
                meta["message"].as_str().unwrap_or("")
            )));
        }
        if matches!(code, 200 | 3001 | 4713) {
            let data = envelope.map(|mut e| e["data"].take()).unwrap_or(Value::Null);
            return Ok(Answer { code, details, data });
        }
        Err(UpstreamError::Refused {
            code,
            message: meta["message"].as_str().unwrap_or("").to_string(),
            details,
            retryable: meta["retryable"].as_bool().unwrap_or(false),
        })
    }

    /// A document the upstream made, by the link it gave.
    pub fn download(&self, url: &str) -> Result<Vec<u8>, UpstreamError> {
        let mut req = client(self.timeout)?.get(url);
        let own = reqwest::Url::parse(url).ok().map(|u| u.origin().ascii_serialization());
        if own.is_some() && own == self.origin() {
            req = req.header("service-api-key", self.api_key);
        }
        let res = req.send().map_err(|e| self.unreachable(&e))?;
        let status = res.status();
        if !status.is_success() {
            return Err(UpstreamError::Unreachable(format!(
                "the upstream label service {} did not hand over a document (HTTP {status} for {url}): try again",
                self.base_url
            )));
        }
        Ok(res.bytes().map_err(|e| self.unreachable(&e))?.to_vec())
    }
}
