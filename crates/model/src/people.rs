//! The people at a desk: operators (signed in by their badge, a PIN when they have one), their
//! sessions, and the audit log of who did what.

use crate::status::Role;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `GET /desk/operators/{id}`: an operator. The PIN is never answered (`pin_set` says there is one).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Operator {
    pub id: String,
    pub name: String,
    /// The value of the operator's badge barcode (unique).
    pub code: String,
    pub role: Role,
    pub active: bool,
    /// The operator's language (a BCP 47 tag such as `de`); none: the desk's.
    pub language: Option<String>,
    pub pin_set: bool,
    /// Until when sign-in is refused after 5 wrong PINs in a row.
    pub locked_until: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// `GET /desk/operators`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct OperatorList {
    pub operators: Vec<Operator>,
}

/// `POST /desk/operators`, and `PUT /desk/operators/{id}` (there every field may be left out: it
/// stays; a `pin` of `""` takes the PIN away).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OperatorRequest {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub code: Option<String>,
    /// 4 to 8 digits, kept as an Argon2 hash.
    #[serde(default)]
    pub pin: Option<String>,
    #[serde(default)]
    pub role: Option<Role>,
    #[serde(default)]
    pub active: Option<bool>,
    #[serde(default)]
    pub language: Option<String>,
}

/// Who a session is.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct OperatorRef {
    pub id: String,
    pub name: String,
    pub role: Role,
    /// The operator's language, when they have one of the desk's: the screens speak it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<crate::status::Language>,
}

/// `POST /ui/sign-in`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SignInRequest {
    /// The badge's code, as scanned.
    pub code: String,
    #[serde(default)]
    pub pin: Option<String>,
}

/// The answer of `POST /ui/sign-in` and `GET /ui/session`: the session's token (sent as
/// `Authorization: Bearer <token>`), who it is and its environment.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SignedIn {
    pub token: String,
    pub operator: OperatorRef,
    pub environment: crate::status::Env,
}

/// `PUT /ui/environment`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EnvironmentRequest {
    pub environment: crate::status::Env,
}

/// One entry of the audit log: who did what to which object, when, at which desk, and how it
/// ended.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct AuditEntry {
    pub id: String,
    pub at: String,
    pub desk: String,
    pub environment: crate::status::Env,
    /// The operator, or the integration key (`live key`, `sandbox key`), or `desk` for the desk's
    /// own work (a job, a retry).
    pub actor: String,
    pub operator_id: Option<String>,
    /// What was done, e.g. `label.created`, `label.voided`, `operator.changed`.
    pub action: String,
    pub object_id: Option<String>,
    pub result: String,
    /// What changed (before and after; never a secret's value).
    pub detail: serde_json::Value,
}

/// `GET /desk/audit`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct AuditList {
    pub entries: Vec<AuditEntry>,
    pub next_token: Option<String>,
}

/// `GET /desk/api-keys/{id}`: a named integration key. The key itself is answered once, by its
/// creation (`key`); afterwards only its first characters (`prefix`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ApiKey {
    pub id: String,
    pub name: String,
    pub environment: crate::status::Env,
    pub scopes: Vec<crate::status::KeyScope>,
    /// The key's first characters, to tell keys apart.
    pub prefix: String,
    pub created_at: String,
    /// Who made it (an operator's name, or a key).
    pub created_by: String,
    /// The last call made with it (to the minute).
    pub last_used_at: Option<String>,
    /// When it was revoked: it opens nothing since.
    pub revoked_at: Option<String>,
    /// The key, in the answer to its creation only: keep it now, it is never shown again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// `GET /desk/api-keys`: every named key, newest first (revoked ones too).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ApiKeyList {
    pub api_keys: Vec<ApiKey>,
}

/// `POST /desk/api-keys`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ApiKeyRequest {
    /// What calls with it, e.g. `WMS` (1 to 60 characters; unique among keys not revoked).
    pub name: String,
    pub environment: crate::status::Env,
    /// At least one of `labels`, `orders`, `read`, `all`.
    pub scopes: Vec<crate::status::KeyScope>,
}
