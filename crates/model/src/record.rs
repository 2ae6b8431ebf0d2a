//! Records returned by the interface (the `data` of an envelope).

use crate::request::{Address, IdRef, ServiceOption, ShipperAccountSettings};
pub use crate::status::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FileRef {
    pub paper_size: String,
    pub url: String,
    pub file_type: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LabelFiles {
    pub label: Option<FileRef>,
    pub qr_code: Option<FileRef>,
    pub invoice: Option<FileRef>,
    pub customs_declaration: Option<FileRef>,
    pub packing_slip: Option<FileRef>,
    pub manifest: Option<FileRef>,
}

impl LabelFiles {
    /// Each file the label has.
    pub fn each_mut(&mut self) -> impl Iterator<Item = &mut FileRef> {
        [
            &mut self.label,
            &mut self.qr_code,
            &mut self.invoice,
            &mut self.customs_declaration,
            &mut self.packing_slip,
            &mut self.manifest,
        ]
        .into_iter()
        .flatten()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AccountRef {
    pub id: String,
    pub slug: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AccountRefDescribed {
    pub id: String,
    pub slug: String,
    pub description: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Amount {
    pub amount: f64,
    pub currency: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WeightValue {
    pub value: f64,
    pub unit: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DetailedCharge {
    #[serde(rename = "type")]
    pub charge_type: String,
    pub charge: Amount,
}

/// One priced service of one shipper account. A failed entry has every field but
/// `shipper_account` null and `detailed_charges` empty.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RateEntry {
    pub shipper_account: AccountRefDescribed,
    pub service_type: Option<String>,
    pub service_name: Option<String>,
    pub pickup_deadline: Option<String>,
    pub booking_cut_off: Option<String>,
    pub delivery_date: Option<String>,
    /// Days in transit.
    pub transit_time: Option<u32>,
    pub error_message: Option<String>,
    pub info_message: Option<String>,
    pub charge_weight: Option<WeightValue>,
    pub total_charge: Option<Amount>,
    pub detailed_charges: Vec<DetailedCharge>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Label {
    pub id: String,
    pub status: LabelStatus,
    pub ship_date: String,
    pub tracking_numbers: Vec<String>,
    pub files: Option<LabelFiles>,
    pub rate: Option<RateEntry>,
    pub references: Vec<String>,
    pub shipper_account: AccountRef,
    pub service_type: String,
    pub service_options: Vec<ServiceOption>,
    pub order_number: Option<String>,
    pub order_id: Option<String>,
    /// Packdesk: made over a postal code that does not fit its country's format, confirmed by
    /// the operator.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub postal_code_override: bool,
    /// Packdesk: a return label (made with `return_shipment`: the parcel comes back).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub return_shipment: bool,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ShipperAccount {
    pub id: String,
    pub slug: String,
    pub status: AccountStatus,
    pub description: String,
    /// `user`: the account links the user's own carrier account.
    #[serde(rename = "type")]
    pub account_type: String,
    pub timezone: String,
    pub address: Option<Address>,
    pub settings: ShipperAccountSettings,
    /// How many tracking numbers are left in each pool (sandbox: the sample range).
    pub tracking_numbers_left: std::collections::BTreeMap<String, u64>,
    /// The pools with fewer numbers left than `settings.range_warning` (live accounts only: the
    /// sandbox draws from the carrier's sample range).
    pub tracking_numbers_low: Vec<String>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CancelLabel {
    pub id: String,
    pub status: CancelStatus,
    pub label: IdRef,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ManifestedLabel {
    pub id: String,
    pub manifested: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ManifestFiles {
    pub manifest: Option<FileRef>,
    /// The same lines as CSV, for upload to the carrier.
    pub manifest_data: Option<FileRef>,
    /// Packdesk: the driver's copy to sign (parcels and weight per service; A4, or 4x6 when the
    /// `collection_sheet` print profile's stock is 4x6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection_sheet: Option<FileRef>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub id: String,
    pub status: ManifestStatus,
    pub shipper_account: AccountRefDescribed,
    pub labels: Vec<ManifestedLabel>,
    /// Null while the manifest is `manifesting`.
    pub files: Option<ManifestFiles>,
    /// Where its data file is on its way to the carrier (`settings.manifest_transport`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transmission: Option<crate::transport::Transmission>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BulkFiles {
    pub label: Option<FileRef>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BulkDownload {
    pub id: String,
    pub status: BulkDownloadStatus,
    pub labels: Vec<IdRef>,
    pub invalid_labels: Vec<IdRef>,
    /// Null while the bulk download is `creating`.
    pub files: Option<BulkFiles>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RateRecord {
    pub id: String,
    pub status: RateStatus,
    pub rates: Vec<RateEntry>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AddressValidation {
    pub id: String,
    pub status: ValidationStatus,
    pub address: Address,
    pub recommended_address: Option<Address>,
    /// Why the status is `invalid`: each problem with its path (`address.postal_code`).
    #[serde(default)]
    pub problems: Vec<crate::error::Detail>,
    pub created_at: String,
    pub updated_at: String,
}

/// Where a list stands: the page's limit and time window, and the token of the next page.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ListWindow {
    pub next_token: Option<String>,
    pub limit: u32,
    pub created_at_min: String,
    pub created_at_max: String,
}

/// `GET /labels`: a page of labels, newest first.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct LabelList {
    #[serde(flatten)]
    pub window: ListWindow,
    pub labels: Vec<Label>,
}

/// `GET /shipper-accounts`: a page of accounts.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ShipperAccountList {
    pub next_token: Option<String>,
    pub limit: u32,
    pub shipper_accounts: Vec<ShipperAccount>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CancelLabelList {
    #[serde(flatten)]
    pub window: ListWindow,
    pub cancel_labels: Vec<CancelLabel>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ManifestList {
    #[serde(flatten)]
    pub window: ListWindow,
    pub manifests: Vec<Manifest>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct BulkDownloadList {
    #[serde(flatten)]
    pub window: ListWindow,
    pub bulk_downloads: Vec<BulkDownload>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct RateRecordList {
    #[serde(flatten)]
    pub window: ListWindow,
    pub rates: Vec<RateRecord>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct AddressValidationList {
    #[serde(flatten)]
    pub window: ListWindow,
    pub address_validations: Vec<AddressValidation>,
}

/// `{"id": ...}`: what a delete (or a credentials change) answers.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Deleted {
    pub id: String,
}
