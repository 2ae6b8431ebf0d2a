//! The one error type of the core, and the contract's error codes.

use crate::said::Saying;
use serde::Serialize;

/// Declares the contract's error codes once: each variant with its `meta.code` number and fixed
/// message; `code`, `message` and `ALL` follow from it.
macro_rules! error_codes {
    ($($(#[$doc:meta])* $name:ident = $number:literal, $message:literal,)+) => {
        /// The contract's `meta.code` values with their fixed message and retryable flag.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum ErrorCode {
            $($(#[$doc])* $name,)+
        }

        impl ErrorCode {
            /// Every code, in the contract's order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$name),+];

            pub fn code(self) -> u32 {
                match self {
                    $(ErrorCode::$name => $number,)+
                }
            }

            pub fn message(self) -> &'static str {
                match self {
                    $(ErrorCode::$name => $message,)+
                }
            }
        }
    };
}

error_codes! {
    InvalidApiKey = 401, "Invalid API key.",
    /// The operator's role (or the key's scope) does not allow the action.
    Forbidden = 403, "Not allowed for this operator.",
    NotFoundRoute = 404, "The requested resource does not exist.",
    MethodNotAllowed = 405, "The method is not allowed on this resource.",
    PayloadTooLarge = 413, "The request body is too large.",
    Internal = 4100, "Internal Error.",
    InternalRetry = 4101, "Internal Error, please try again.",
    InvalidRequest = 4104, "The request was invalid or cannot be otherwise served.",
    InvalidJson = 4109, "Invalid JSON.",
    ShipperAccountNotFound = 4140, "Shipper account not found.",
    ItemNotFound = 4153, "Item does not exist.",
    AccountLocked = 4155, "Access to shipper_account locked during manifest/cancel-label operation.",
    OperationNotAllowed = 4171, "Operation is not allowed on this courier.",
    RatesPartiallyFailed = 4713, "All or partial failed in rate request.",
    AddressTooLong = 4716, "The address length is too long.",
    AlreadyCancelled = 4722, "The tracking number is already canceled, it can not be canceled again.",
    AlreadyManifested = 4724, "The tracking number is manifested, so can not be canceled.",
    NothingToManifest = 4725, "There is no shipments to manifest.",
    TrackingNumbersExhausted = 4730, "No more pre-assigned tracking numbers available in this shipper account. Please input the new tracking numbers in your shipper account setting page.",
    DuplicateOrderNumber = 4801, "Duplicate order_number, please specify a different order_number and try again.",
    ServiceTypeUnavailable = 4802, "The service_type is not available for this shipment.",
    ServiceOptionUnavailable = 4803, "The service_type and service_option are not available for this shipment.",
}

impl ErrorCode {
    pub fn retryable(self) -> bool {
        matches!(self, ErrorCode::InternalRetry | ErrorCode::AccountLocked)
    }

    /// The code of a `meta.code` number, when it is one of the contract's.
    pub fn of_number(n: i64) -> Option<ErrorCode> {
        ErrorCode::ALL.iter().copied().find(|c| c.code() as i64 == n)
    }

    /// The HTTP status that carries the envelope: transport errors keep their own status, business
    /// errors come with 200, as the real service does.
    pub fn http_status(self) -> u16 {
        use ErrorCode::*;
        match self {
            InvalidApiKey => 401,
            Forbidden => 403,
            NotFoundRoute => 404,
            MethodNotAllowed => 405,
            PayloadTooLarge => 413,
            _ => 200,
        }
    }
}

/// Where in the request a problem is (`shipment.parcels[0].weight.unit`) and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Detail {
    pub path: String,
    pub info: String,
    /// The saying `info` is made from (`crate::said`), for the desk's screens to say it in the
    /// operator's language: its stable key and its arguments by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub args: std::collections::BTreeMap<String, String>,
}

impl Detail {
    /// A problem at `path` in the service's words only.
    pub fn new(path: impl Into<String>, info: impl Into<String>) -> Detail {
        Detail {
            path: path.into(),
            info: info.into(),
            key: None,
            args: Default::default(),
        }
    }

    /// A problem at `path` as a saying says it: its English text, with its key and arguments.
    pub fn said(path: impl Into<String>, saying: Saying, args: std::collections::BTreeMap<String, String>) -> Detail {
        Detail {
            path: path.into(),
            info: saying.english_with(&args),
            key: Some(saying.key().to_string()),
            args,
        }
    }
}

/// The envelope's `meta` of an answer that is not a plain failure: 200, 3001 (accepted, with its
/// message), or a code that still carries data (rates: 4713, with its details and `retryable`).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Meta {
    pub code: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Vec<Detail>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
}

/// A failure as the envelope's `meta` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Failure {
    pub code: i64,
    pub message: String,
    pub details: Vec<Detail>,
    pub retryable: bool,
}

/// The core's single failure type; the HTTP face turns it into the error envelope.
#[derive(Debug, Clone)]
pub struct ServiceError {
    pub code: ErrorCode,
    pub details: Vec<Detail>,
    /// What went wrong underneath (a database or I/O error with its own causes), for the log: the
    /// caller sees only the code and details.
    pub cause: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
    /// An upstream label service's own failure, passed on as it gave it: its code, message and
    /// retryable replace `code`'s in the envelope (`code` is the nearest of ours, for the desk's
    /// own decisions).
    pub relayed: Option<std::sync::Arc<Relayed>>,
}

/// What an upstream said of its failure (its details are the error's `details`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relayed {
    pub code: i64,
    pub message: String,
    pub retryable: bool,
}

/// Two failures are the same when the caller sees the same (the cause is only for the log).
impl PartialEq for ServiceError {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code && self.details == other.details && self.relayed == other.relayed
    }
}
impl Eq for ServiceError {}

impl std::error::Error for ServiceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.as_deref().map(|c| c as &(dyn std::error::Error + 'static))
    }
}

impl ServiceError {
    pub fn new(code: ErrorCode) -> Self {
        ServiceError {
            code,
            details: Vec::new(),
            cause: None,
            relayed: None,
        }
    }

    pub fn at(code: ErrorCode, path: impl Into<String>, info: impl Into<String>) -> Self {
        ServiceError {
            code,
            details: vec![Detail::new(path, info)],
            cause: None,
            relayed: None,
        }
    }

    /// A failure of one problem, as a saying says it.
    pub fn said(
        code: ErrorCode,
        path: impl Into<String>,
        saying: Saying,
        args: std::collections::BTreeMap<String, String>,
    ) -> Self {
        ServiceError {
            code,
            details: vec![Detail::said(path, saying, args)],
            cause: None,
            relayed: None,
        }
    }

    /// An upstream service's failure as it gave it. Its HTTP status stays 200 (the envelope
    /// carries the failure), whatever its code: the desk's caller was not refused by the desk.
    pub fn relayed(code: i64, message: String, details: Vec<Detail>, retryable: bool) -> Self {
        let ours = ErrorCode::of_number(code)
            .filter(|c| c.http_status() == 200)
            .unwrap_or(match retryable {
                true => ErrorCode::InternalRetry,
                false => ErrorCode::InvalidRequest,
            });
        ServiceError {
            code: ours,
            details,
            cause: None,
            relayed: Some(std::sync::Arc::new(Relayed {
                code,
                message,
                retryable,
            })),
        }
    }

    /// The envelope's `meta.code`.
    pub fn number(&self) -> i64 {
        self.relayed.as_ref().map_or(self.code.code() as i64, |r| r.code)
    }

    /// The envelope's `meta.message`.
    pub fn message(&self) -> &str {
        self.relayed
            .as_ref()
            .map_or(self.code.message(), |r| r.message.as_str())
    }

    /// The envelope's `meta.retryable`: sending the same request again may succeed.
    pub fn retryable(&self) -> bool {
        self.relayed.as_ref().map_or(self.code.retryable(), |r| r.retryable)
    }

    pub fn invalid(path: impl Into<String>, info: impl Into<String>) -> Self {
        Self::at(ErrorCode::InvalidRequest, path, info)
    }

    pub fn internal(why: impl std::fmt::Display) -> Self {
        Self::at(ErrorCode::Internal, "", why.to_string())
    }

    /// This failure, caused by `cause` (kept for the log).
    pub fn caused_by(mut self, cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.cause = Some(std::sync::Arc::new(cause));
        self
    }

    /// This failure and every cause beneath it, on one line (`a: b: c`), for the log.
    pub fn chain(&self) -> String {
        let mut text = self.to_string();
        let mut next = std::error::Error::source(self);
        while let Some(e) = next {
            text.push_str(": ");
            text.push_str(&e.to_string());
            next = e.source();
        }
        text
    }

    /// The envelope's `meta` of this failure, typed (for records that carry a failure of their own).
    pub fn failure(&self) -> Failure {
        Failure {
            code: self.number(),
            message: self.message().to_string(),
            details: self.details.clone(),
            retryable: self.retryable(),
        }
    }

    /// The `meta` object of the envelope.
    pub fn meta(&self) -> serde_json::Value {
        serde_json::json!({
            "code": self.number(),
            "message": self.message(),
            "details": self.details,
            "retryable": self.retryable(),
        })
    }

    /// The whole failure envelope: `meta` plus an empty `data`.
    pub fn envelope(&self) -> serde_json::Value {
        serde_json::json!({ "meta": self.meta(), "data": {} })
    }
}

impl std::fmt::Display for ServiceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.number(), self.message())?;
        for d in &self.details {
            write!(f, " [{}: {}]", d.path, d.info)?;
        }
        Ok(())
    }
}

/// Collects every problem of a request before answering, so a user fixes them all in one go.
/// The code of the answer is the first business code found (4716, 4803, ...) or 4104.
#[derive(Debug, Default)]
pub struct Problems {
    code: Option<ErrorCode>,
    details: Vec<Detail>,
}

impl Problems {
    pub fn add(&mut self, code: ErrorCode, path: impl Into<String>, info: impl Into<String>) {
        // 4104 is the generic code; a more specific one found later takes its place.
        if self.code.is_none() || self.code == Some(ErrorCode::InvalidRequest) {
            self.code = Some(code);
        }
        self.details.push(Detail::new(path, info));
    }

    /// A problem as a saying says it (`code`: 4104 unless the problem has a business code).
    pub fn say(
        &mut self,
        code: ErrorCode,
        path: impl Into<String>,
        saying: Saying,
        args: std::collections::BTreeMap<String, String>,
    ) {
        if self.code.is_none() || self.code == Some(ErrorCode::InvalidRequest) {
            self.code = Some(code);
        }
        self.details.push(Detail::said(path, saying, args));
    }

    pub fn invalid(&mut self, path: impl Into<String>, info: impl Into<String>) {
        self.add(ErrorCode::InvalidRequest, path, info)
    }

    pub fn is_empty(&self) -> bool {
        self.details.is_empty()
    }

    /// Keeps only the first problem found at `path` (two checks of one field say one thing).
    pub fn keep_first_at(&mut self, path: &str) {
        let mut seen = false;
        self.details.retain(|d| {
            let repeat = d.path == path && seen;
            seen |= d.path == path;
            !repeat
        });
    }

    pub fn into_result(self) -> Result<(), ServiceError> {
        match self.code {
            None => Ok(()),
            Some(code) => Err(ServiceError {
                code,
                details: self.details,
                cause: None,
                relayed: None,
            }),
        }
    }
}
