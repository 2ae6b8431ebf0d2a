//! Request bodies of the desk's own routes (`/desk/...`): webhook setting, printers, print
//! profiles, printing, close-out. Like the /v3 bodies, unknown keys are refused.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `PUT /desk/webhook` (and `packdesk-server webhook`): either key may be left out (keeps its
/// value); a new URL turns webhooks on unless `enabled` says otherwise.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WebhookChange {
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// `POST /desk/printers`, `PUT /desk/printers/{id}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PrinterRequest {
    pub name: String,
    /// raw (TCP 9100), cups or ipp
    pub transport: String,
    pub address: String,
    /// pdf or zpl: what the printer takes
    pub format: String,
    /// 203, 300 or 600 (default 203)
    #[serde(default)]
    pub dpi: Option<i64>,
    /// Drop the setup commands of ZPL files (default: on for zpl printers).
    #[serde(default)]
    pub strip_zpl_setup: Option<bool>,
}

/// `PUT /desk/print-profiles/{document_type}`: which printer a document type goes to.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PrintProfileRequest {
    pub printer_id: String,
    #[serde(default)]
    pub stock: Option<String>,
    #[serde(default)]
    pub copies: Option<i64>,
    /// Print labels of this type as soon as they are created.
    #[serde(default)]
    pub auto_print: Option<bool>,
}

/// `POST /desk/print`: exactly one of `label_id`, `manifest_id`, `bulk_download_id`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PrintRequest {
    #[serde(default)]
    pub label_id: Option<String>,
    #[serde(default)]
    pub manifest_id: Option<String>,
    #[serde(default)]
    pub bulk_download_id: Option<String>,
    /// Of a label: label, invoice, customs_declaration, packing_slip (default label).
    #[serde(default)]
    pub document: Option<String>,
    /// Default: the document type's print profile.
    #[serde(default)]
    pub printer_id: Option<String>,
    #[serde(default)]
    pub copies: Option<i64>,
}

/// `POST /desk/printers/{id}/test-page` (the body may be empty).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TestPageRequest {
    #[serde(default)]
    pub stock: Option<String>,
}

/// `POST /desk/close-out` (the body may be empty): without ids, every account with labels waiting.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CloseOutRequest {
    #[serde(default)]
    pub shipper_account_ids: Option<Vec<String>>,
}
