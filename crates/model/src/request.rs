//! Request bodies of the operations. Unknown keys are refused everywhere (`deny_unknown_fields`), so
//! a typo in a field name is an error with its path instead of a silently ignored value.
//! Structural rules (types, enums) live here; value rules (lengths, ranges, carrier rules) live in the
//! service's validation, which reports every problem with its path.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct IdRef {
    pub id: String,
}

/// Body of `POST /labels`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LabelRequest {
    pub service_type: String,
    pub shipper_account: IdRef,
    pub shipment: Shipment,
    #[serde(default, rename = "async")]
    pub is_async: bool,
    #[serde(default)]
    pub return_shipment: bool,
    #[serde(default)]
    pub paper_size: Option<PaperSize>,
    #[serde(default)]
    pub file_type: Option<FileType>,
    #[serde(default)]
    pub ship_date: Option<String>,
    #[serde(default)]
    pub service_options: Option<Vec<ServiceOption>>,
    #[serde(default)]
    pub is_document: bool,
    /// Present-but-null means "make an invoice with defaults"; absent means no invoice.
    /// Written back only when present (a queued job's stored request), so absent stays absent.
    #[serde(
        default,
        deserialize_with = "present_or_null",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<Invoice>")]
    pub invoice: Option<Option<Invoice>>,
    #[serde(default)]
    pub references: Option<Vec<String>>,
    #[serde(default)]
    pub billing: Option<Billing>,
    #[serde(default)]
    pub customs: Option<Customs>,
    #[serde(default)]
    pub order_number: Option<String>,
    #[serde(default)]
    pub order_id: Option<String>,
    /// Packdesk: the operator confirmed a recipient postal code that does not fit its country's
    /// format (without it such a label is refused with 4104); the label records it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub postal_code_override: bool,
}

/// Deserializes a key that may be absent (`None`), null (`Some(None)`) or a value (`Some(Some(v))`).
fn present_or_null<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Shipment {
    pub ship_from: Address,
    pub ship_to: Address,
    pub parcels: Vec<Parcel>,
    #[serde(default)]
    pub delivery_instructions: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Address {
    #[serde(default)]
    pub contact_name: Option<String>,
    #[serde(default)]
    pub company_name: Option<String>,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub phone: Option<String>,
    #[serde(default)]
    pub fax: Option<String>,
    #[serde(default)]
    pub street1: Option<String>,
    #[serde(default)]
    pub street2: Option<String>,
    #[serde(default)]
    pub street3: Option<String>,
    #[serde(default)]
    pub city: Option<String>,
    #[serde(default)]
    pub state: Option<String>,
    #[serde(default)]
    pub postal_code: Option<String>,
    #[serde(default)]
    pub country: Option<String>,
    #[serde(default, rename = "type")]
    pub address_type: Option<AddressType>,
    #[serde(default)]
    pub tax_id: Option<String>,
    #[serde(default)]
    pub eori_number: Option<String>,
}

impl Address {
    /// The string fields with their names, in a fixed order, for rules that apply to all of them.
    pub fn text_fields(&self) -> [(&'static str, Option<&str>); 14] {
        [
            ("contact_name", self.contact_name.as_deref()),
            ("company_name", self.company_name.as_deref()),
            ("email", self.email.as_deref()),
            ("phone", self.phone.as_deref()),
            ("fax", self.fax.as_deref()),
            ("street1", self.street1.as_deref()),
            ("street2", self.street2.as_deref()),
            ("street3", self.street3.as_deref()),
            ("city", self.city.as_deref()),
            ("state", self.state.as_deref()),
            ("postal_code", self.postal_code.as_deref()),
            ("country", self.country.as_deref()),
            ("tax_id", self.tax_id.as_deref()),
            ("eori_number", self.eori_number.as_deref()),
        ]
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum AddressType {
    Business,
    Residential,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Parcel {
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub box_type: Option<BoxType>,
    pub weight: Weight,
    #[serde(default)]
    pub dimension: Option<Dimension>,
    #[serde(default)]
    pub items: Option<Vec<Item>>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum BoxType {
    Custom,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Weight {
    pub value: f64,
    pub unit: WeightUnit,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WeightUnit {
    Lb,
    Kg,
    Oz,
    G,
}

impl WeightUnit {
    pub fn to_kg(self, v: f64) -> f64 {
        match self {
            WeightUnit::Kg => v,
            WeightUnit::G => v / 1000.0,
            WeightUnit::Lb => v * 0.453_592_37,
            WeightUnit::Oz => v * 0.028_349_523_125,
        }
    }

    /// The contract's upper bound for one weight in this unit.
    pub fn max(self) -> f64 {
        match self {
            WeightUnit::Lb => 4400.0,
            WeightUnit::Kg => 2000.0,
            WeightUnit::G => 440_000.0,
            WeightUnit::Oz => 155_205.0,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            WeightUnit::Lb => "lb",
            WeightUnit::Kg => "kg",
            WeightUnit::Oz => "oz",
            WeightUnit::G => "g",
        }
    }
}

impl Weight {
    pub fn kg(&self) -> f64 {
        self.unit.to_kg(self.value)
    }

    /// A weight a parcel's label may carry at the desk: above 0 and at most the contract's
    /// bound for its unit (NaN is neither).
    pub fn is_labellable(&self) -> bool {
        self.value > 0.0 && self.value <= self.unit.max()
    }

    /// The sum of weights, in the first one's unit (rounded to the gram or its equivalent).
    pub fn total(weights: &[Weight]) -> Option<Weight> {
        let unit = weights.first()?.unit;
        let kg: f64 = weights.iter().map(Weight::kg).sum();
        let value = kg / unit.to_kg(1.0);
        Some(Weight {
            value: (value * 1000.0).round() / 1000.0,
            unit,
        })
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Dimension {
    pub width: f64,
    pub height: f64,
    pub depth: f64,
    pub unit: DimensionUnit,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum DimensionUnit {
    Cm,
    In,
    Mm,
    M,
    Ft,
    Yd,
}

impl DimensionUnit {
    pub fn to_cm(self, v: f64) -> f64 {
        match self {
            DimensionUnit::Cm => v,
            DimensionUnit::Mm => v / 10.0,
            DimensionUnit::M => v * 100.0,
            DimensionUnit::In => v * 2.54,
            DimensionUnit::Ft => v * 30.48,
            DimensionUnit::Yd => v * 91.44,
        }
    }
}

impl Dimension {
    pub fn volume_cm3(&self) -> f64 {
        self.unit.to_cm(self.width) * self.unit.to_cm(self.height) * self.unit.to_cm(self.depth)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Item {
    pub description: String,
    #[serde(default)]
    pub origin_country: Option<String>,
    pub quantity: i64,
    pub price: Money,
    pub weight: Weight,
    #[serde(default)]
    pub sku: Option<String>,
    #[serde(default)]
    pub hs_code: Option<String>,
    #[serde(default)]
    pub item_id: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Money {
    pub amount: f64,
    pub currency: String,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq, Hash)]
pub enum PaperSize {
    #[serde(rename = "default")]
    Default,
    #[serde(rename = "4x4")]
    In4x4,
    #[serde(rename = "4x6")]
    In4x6,
    #[serde(rename = "4x8")]
    In4x8,
    #[serde(rename = "a4")]
    A4,
}

impl PaperSize {
    pub fn as_str(self) -> &'static str {
        match self {
            PaperSize::Default => "default",
            PaperSize::In4x4 => "4x4",
            PaperSize::In4x6 => "4x6",
            PaperSize::In4x8 => "4x8",
            PaperSize::A4 => "a4",
        }
    }

    pub fn parse(s: &str) -> Option<PaperSize> {
        [
            PaperSize::Default,
            PaperSize::In4x4,
            PaperSize::In4x6,
            PaperSize::In4x8,
            PaperSize::A4,
        ]
        .into_iter()
        .find(|p| p.as_str() == s)
    }

    /// Width and height in millimetres; `None` for `default`, which a carrier resolves first.
    pub fn size_mm(self) -> Option<(f32, f32)> {
        match self {
            PaperSize::Default => None,
            PaperSize::In4x4 => Some((101.6, 101.6)),
            PaperSize::In4x6 => Some((101.6, 152.4)),
            PaperSize::In4x8 => Some((101.6, 203.2)),
            PaperSize::A4 => Some((210.0, 297.0)),
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum FileType {
    Pdf,
    Zpl,
}

impl FileType {
    pub fn as_str(self) -> &'static str {
        match self {
            FileType::Pdf => "pdf",
            FileType::Zpl => "zpl",
        }
    }

    pub fn parse(s: &str) -> Option<FileType> {
        match s {
            "pdf" => Some(FileType::Pdf),
            "zpl" => Some(FileType::Zpl),
            _ => None,
        }
    }
}

/// One element of `service_options`. The variant is told by `type`: `cod`, `insurance`, `pickup`,
/// or a general option (`saturday_delivery`, ...) with `enabled`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ServiceOption {
    #[serde(rename = "type")]
    pub option_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cod_value: Option<Money>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insured_value: Option<Money>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// The general option types Packdesk knows (variant `general`).
pub const GENERAL_OPTION_TYPES: &[&str] = &["saturday_delivery"];

impl ServiceOption {
    /// The spec's variant name of this option: cod, insurance, pickup or general.
    pub fn variant(&self) -> &'static str {
        match self.option_type.as_str() {
            "cod" => "cod",
            "insurance" => "insurance",
            "pickup" => "pickup",
            _ => "general",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Invoice {
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub number: Option<String>,
    #[serde(default, rename = "type")]
    pub invoice_type: Option<InvoiceType>,
    #[serde(default)]
    pub number_of_copies: Option<i64>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum InvoiceType {
    Commercial,
    Proforma,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Billing {
    pub paid_by: PaidBy,
    #[serde(default)]
    pub method: Option<BillingMethod>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PaidBy {
    Shipper,
    Recipient,
    ThirdParty,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BillingMethod {
    #[serde(rename = "type")]
    pub method_type: BillingMethodType,
    pub account_number: String,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum BillingMethodType {
    Account,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Customs {
    pub purpose: CustomsPurpose,
    #[serde(default)]
    pub terms_of_trade: Option<TermsOfTrade>,
    #[serde(default)]
    pub billing: Option<Billing>,
    #[serde(default)]
    pub importer_address: Option<Address>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CustomsPurpose {
    Gift,
    Merchandise,
    Personal,
    Sample,
    Return,
    Repair,
}

impl CustomsPurpose {
    pub fn as_str(self) -> &'static str {
        match self {
            CustomsPurpose::Gift => "gift",
            CustomsPurpose::Merchandise => "merchandise",
            CustomsPurpose::Personal => "personal",
            CustomsPurpose::Sample => "sample",
            CustomsPurpose::Return => "return",
            CustomsPurpose::Repair => "repair",
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TermsOfTrade {
    Dat,
    Ddu,
    Ddp,
    Dap,
}

impl TermsOfTrade {
    pub fn as_str(self) -> &'static str {
        match self {
            TermsOfTrade::Dat => "DAT",
            TermsOfTrade::Ddu => "DDU",
            TermsOfTrade::Ddp => "DDP",
            TermsOfTrade::Dap => "DAP",
        }
    }
}

/// Body of `POST /shipper-accounts`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShipperAccountCreate {
    pub slug: String,
    pub description: String,
    pub credentials: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    pub address: Option<Address>,
    #[serde(default)]
    pub timezone: Option<String>,
    #[serde(default)]
    pub settings: Option<ShipperAccountSettings>,
}

/// Body of `PUT /shipper-accounts/:id/info`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShipperAccountInfoUpdate {
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub address: Option<Address>,
    #[serde(default)]
    pub timezone: Option<String>,
}

/// Body of `PUT|PATCH /shipper-accounts/:id/credentials`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShipperAccountCredentialsUpdate {
    pub credentials: serde_json::Map<String, serde_json::Value>,
}

/// Body of `PUT /shipper-accounts/:id` (settings).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShipperAccountSettingsUpdate {
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub timezone: Option<String>,
    #[serde(default)]
    pub settings: Option<ShipperAccountSettings>,
}

/// Settings of a shipper account: the carrier-assigned tracking-number ranges (per pool of the
/// carrier; most carriers have one pool, `default`), when to warn that they run low, and the
/// default paper size.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ShipperAccountSettings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking_ranges: Option<std::collections::BTreeMap<String, TrackingRanges>>,
    /// A pool with fewer numbers left than this is flagged (Accounts, the banner, the tray,
    /// `GET /desk/status`); default a tenth of the pool's ranges, at least 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_warning: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_paper_size: Option<PaperSize>,
    /// The last time of day (HH:MM, the account's timezone) a label ships the same day; a label
    /// made later gets the next collection day as its default ship date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cutoff_time: Option<String>,
    /// The days the carrier collects (default Monday to Friday); default ship dates fall on them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection_days: Option<Vec<Weekday>>,
    /// Who makes the account's labels: this desk (`self_print`, the default) or an upstream
    /// label service. The upstream's API key is sealed and never answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<crate::transport::AccountConnection>,
    /// How the close-out's data file reaches the carrier (none, SFTP, HTTPS or a folder). Its
    /// secrets are sealed and never answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest_transport: Option<crate::transport::ManifestTransport>,
}

/// A day of the week.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Weekday {
    Mon,
    Tue,
    Wed,
    Thu,
    Fri,
    Sat,
    Sun,
}

impl Weekday {
    pub const WORKING: [Weekday; 5] = [Weekday::Mon, Weekday::Tue, Weekday::Wed, Weekday::Thu, Weekday::Fri];

    /// Monday is 0.
    pub fn index(self) -> u32 {
        self as u32
    }
}

/// An inclusive range of serial numbers (the tracking number without prefix, suffix or check digit).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct TrackingRange {
    pub start: u64,
    pub end: u64,
}

/// A pool's ranges: one range, or a list used in order (ascending, not overlapping), so the
/// carrier's next range can be added before the current one runs out. A single range stays an
/// object on the wire.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
// Untagged is unambiguous here: a range is an object refusing unknown keys, a list is an array.
#[serde(untagged)]
pub enum TrackingRanges {
    One(TrackingRange),
    List(Vec<TrackingRange>),
}

/// By hand rather than untagged, so a wrong range says what is wrong with it (`unknown field
/// `stop``) where it is, not only that it matched no variant.
impl<'de> Deserialize<'de> for TrackingRanges {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Ranges;
        impl<'de> serde::de::Visitor<'de> for Ranges {
            type Value = TrackingRanges;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a range {\"start\", \"end\"} or a list of them")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                TrackingRange::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(TrackingRanges::One)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Vec::<TrackingRange>::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))
                    .map(TrackingRanges::List)
            }
        }
        d.deserialize_any(Ranges)
    }
}

impl TrackingRanges {
    pub fn as_slice(&self) -> &[TrackingRange] {
        match self {
            TrackingRanges::One(r) => std::slice::from_ref(r),
            TrackingRanges::List(l) => l,
        }
    }
}

impl From<TrackingRange> for TrackingRanges {
    fn from(r: TrackingRange) -> Self {
        TrackingRanges::One(r)
    }
}

/// Query of list routes, as given on the URL.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ListQuery {
    pub shipper_account_id: Option<String>,
    pub status: Option<String>,
    pub limit: Option<String>,
    pub created_at_min: Option<String>,
    pub created_at_max: Option<String>,
    pub tracking_numbers: Option<String>,
    pub s: Option<String>,
    pub slug: Option<String>,
    pub next_token: Option<String>,
    /// Webhook deliveries (a desk route): the event name and the record the delivery is about.
    pub event: Option<String>,
    pub record_id: Option<String>,
}

/// Body of `POST /cancel-labels`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CancelLabelRequest {
    #[serde(default, rename = "async")]
    pub is_async: bool,
    pub label: IdRef,
}

/// Body of `POST /manifests`: without `label_ids`, every manifestable label of the account.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManifestRequest {
    #[serde(default, rename = "async")]
    pub is_async: bool,
    pub shipper_account: IdRef,
    #[serde(default)]
    pub label_ids: Option<Vec<String>>,
}

/// Body of `POST /bulk-downloads` (2..100 labels).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BulkDownloadRequest {
    #[serde(default, rename = "async")]
    pub is_async: bool,
    pub labels: Vec<IdRef>,
}

/// Body of `POST /rates` (1..50 shipper accounts).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RatesRequest {
    #[serde(default, rename = "async")]
    pub is_async: bool,
    #[serde(default)]
    pub is_document: bool,
    pub shipper_accounts: Vec<IdRef>,
    #[serde(default)]
    pub ship_date: Option<String>,
    pub shipment: Shipment,
}

/// Body of `POST /address-validations` (beta).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddressValidationRequest {
    pub address: Address,
}
