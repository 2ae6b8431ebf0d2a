//! Presets, rules and desk settings: how the desk ships an order without a form. A preset is a
//! saved account, service and parcel (ShipWorks' profiles); rules pick the preset of an order
//! (Sendcloud's shipping rules); the desk settings hold scan-station behaviour and units.

use crate::order::Order;
use crate::record::Label;
use crate::request::{
    Address, BoxType, CustomsPurpose, Dimension, DimensionUnit, FileType, IdRef, PaperSize, Parcel, TermsOfTrade,
};
use crate::request::{ServiceOption, Weight, WeightUnit};
use crate::status::ReturnLabelWhen;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The parcel a preset starts from; an order's own weight and items fill it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ParcelTemplate {
    #[serde(default)]
    pub box_type: Option<BoxType>,
    /// The weight assumed for an order that gives none (neither its own nor its items').
    #[serde(default)]
    pub weight: Option<Weight>,
    #[serde(default)]
    pub dimension: Option<Dimension>,
    /// The empty box's own weight, added to an order weighed by its items.
    #[serde(default)]
    pub tare: Option<Weight>,
}

/// `POST /desk/presets`, `PUT /desk/presets/{id}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PresetRequest {
    pub name: String,
    pub shipper_account: IdRef,
    pub service_type: String,
    #[serde(default)]
    pub paper_size: Option<PaperSize>,
    #[serde(default)]
    pub file_type: Option<FileType>,
    #[serde(default)]
    pub service_options: Option<Vec<ServiceOption>>,
    #[serde(default)]
    pub parcel: Option<ParcelTemplate>,
    /// Else the shipper account's address.
    #[serde(default)]
    pub ship_from: Option<Address>,
    /// The preset of orders no rule matches (one per environment).
    #[serde(default)]
    pub is_default: bool,
    /// How an order shipped across a customs border is declared (default: merchandise, DDU, no
    /// invoice).
    #[serde(default)]
    pub customs: Option<PresetCustoms>,
    /// `with_outbound`: shipping an order also makes its return label (sender and recipient
    /// swapped), printed by the `return_label` profile.
    #[serde(default)]
    pub return_label: Option<ReturnLabelWhen>,
}

/// A preset's customs declaration of orders that cross a customs border.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PresetCustoms {
    /// Default: merchandise.
    #[serde(default)]
    pub purpose: Option<CustomsPurpose>,
    /// Default: ddu.
    #[serde(default)]
    pub terms_of_trade: Option<TermsOfTrade>,
    /// Make a commercial invoice with the label.
    #[serde(default)]
    pub invoice: bool,
    #[serde(default)]
    pub importer_address: Option<Address>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    pub id: String,
    pub name: String,
    pub shipper_account: IdRef,
    pub service_type: String,
    pub paper_size: Option<PaperSize>,
    pub file_type: Option<FileType>,
    pub service_options: Option<Vec<ServiceOption>>,
    pub parcel: Option<ParcelTemplate>,
    pub ship_from: Option<Address>,
    pub is_default: bool,
    #[serde(default)]
    pub customs: Option<PresetCustoms>,
    #[serde(default)]
    pub return_label: Option<ReturnLabelWhen>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PresetList {
    pub presets: Vec<Preset>,
}

/// When a rule applies; every condition given must hold (none given: every order).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RuleWhen {
    /// Alpha-3, alpha-2 or English name; kept as alpha-3.
    #[serde(default)]
    pub ship_to_country: Option<String>,
    /// Ship-to in the country of the preset's ship-from.
    #[serde(default)]
    pub domestic: Option<bool>,
    /// In `weight_unit` (kg when not given).
    #[serde(default)]
    pub weight_min: Option<f64>,
    #[serde(default)]
    pub weight_max: Option<f64>,
    #[serde(default)]
    pub weight_unit: Option<WeightUnit>,
    #[serde(default)]
    pub tag: Option<String>,
    /// Items counted by quantity.
    #[serde(default)]
    pub items_min: Option<i64>,
    #[serde(default)]
    pub items_max: Option<i64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub name: String,
    #[serde(default)]
    pub when: RuleWhen,
    /// The preset's id or name.
    pub preset: String,
}

/// `GET/PUT /desk/rules`: the first rule that matches an order picks its preset.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    pub rules: Vec<Rule>,
}

/// `GET/PUT /desk/settings`: the whole desk's behaviour (live key to change).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DeskSettings {
    /// Enter on a scanned order with a complete shipment makes and prints its label at once.
    #[serde(default)]
    pub ship_on_scan: bool,
    /// Every item of an order is scanned into its packing list before its label is made.
    #[serde(default)]
    pub verify_items: bool,
    #[serde(default = "default_weight_unit")]
    pub weight_unit: WeightUnit,
    /// The currency of order items that come without one (ISO 4217); none: the currency of the
    /// desk's country (its locale).
    #[serde(default)]
    pub default_currency: Option<String>,
    #[serde(default = "default_dimension_unit")]
    pub dimension_unit: DimensionUnit,
    /// The Ship screen takes the scale's weight into the parcel by itself once it is stable
    /// (otherwise the operator takes it with F2).
    #[serde(default)]
    pub scale_auto_weight: bool,
    /// Closing the desktop app's window keeps the desk running in the tray (printing, the API);
    /// otherwise closing it quits.
    #[serde(default)]
    pub close_to_tray: bool,
    /// The desktop app starts when the user logs in.
    #[serde(default)]
    pub start_at_login: bool,
    /// The warehouse's update server for the desktop app (an https URL; `{{target}}`, `{{arch}}`
    /// and `{{current_version}}` are filled in); none: updates are off.
    #[serde(default)]
    pub update_url: Option<String>,
    /// The scan station sounds each scan's result (success, warning, error).
    #[serde(default = "default_true")]
    pub scan_sounds: bool,
    /// Operators sign in (badge, PIN) before they work; turning it on needs an active admin.
    #[serde(default)]
    pub require_sign_in: bool,
    /// A signed-in operator without input for this long is signed out.
    #[serde(default = "default_idle_sign_out")]
    pub idle_sign_out_minutes: u32,
    /// A backup of the desk's database every day into `<data folder>/backups` (a desk on its own
    /// database; the shared one is backed up with pg_dump).
    #[serde(default = "default_true")]
    pub daily_backup: bool,
    /// The hour (0 to 23, the desk's time) from which the day's backup is made; a desk off then
    /// makes it once it runs again that day.
    #[serde(default = "default_backup_hour")]
    pub backup_hour: u32,
    /// How many daily backups are kept (1 to 90): the oldest go.
    #[serde(default = "default_backups_kept")]
    pub backups_kept: u32,
    /// Why parcels come back: the reasons the Returns screen offers for each returned item.
    #[serde(default = "default_return_reasons")]
    pub return_reasons: Vec<String>,
    /// The desk's language: its screens (for operators without one of their own) and its
    /// documents (packing slips, the end-of-day sheet, the manifest); none: the system's.
    #[serde(default)]
    pub language: Option<crate::status::Language>,
}

fn default_return_reasons() -> Vec<String> {
    [
        "No longer wanted",
        "Wrong size",
        "Not as described",
        "Damaged in transit",
        "Wrong item sent",
        "Not delivered",
    ]
    .map(String::from)
    .to_vec()
}

fn default_backup_hour() -> u32 {
    2
}

fn default_backups_kept() -> u32 {
    7
}

fn default_idle_sign_out() -> u32 {
    15
}

fn default_weight_unit() -> WeightUnit {
    WeightUnit::Kg
}
fn default_dimension_unit() -> DimensionUnit {
    DimensionUnit::Cm
}
fn default_true() -> bool {
    true
}

impl Default for DeskSettings {
    fn default() -> Self {
        DeskSettings {
            ship_on_scan: false,
            verify_items: false,
            weight_unit: WeightUnit::Kg,
            default_currency: None,
            dimension_unit: DimensionUnit::Cm,
            scale_auto_weight: false,
            close_to_tray: false,
            start_at_login: false,
            update_url: None,
            scan_sounds: true,
            require_sign_in: false,
            idle_sign_out_minutes: 15,
            daily_backup: true,
            backup_hour: default_backup_hour(),
            backups_kept: default_backups_kept(),
            return_reasons: default_return_reasons(),
            language: None,
        }
    }
}

/// `POST /desk/orders/{id}/ship`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShipOrderRequest {
    /// A preset's id or name (else the order's own, then the rules, then the default preset).
    #[serde(default)]
    pub preset: Option<String>,
    /// Else the order's parcels, else one parcel of the preset's template with the order's weight.
    #[serde(default)]
    pub parcels: Option<Vec<Parcel>>,
    /// Ship an order that is already shipped once more (a second label).
    #[serde(default)]
    pub again: bool,
    /// The operator confirmed a recipient postal code that fits no format of its country.
    #[serde(default)]
    pub postal_code_override: bool,
    /// Ship the items packed so far (its packing list) and leave the rest of the order to ship
    /// later ("Ship what is packed"; a supervisor's action when operators sign in).
    #[serde(default)]
    pub packed_only: bool,
}

/// The answer of shipping an order: the order (now shipped) and its new label.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShippedOrder {
    pub order: Order,
    /// The label made (the first of `labels`).
    pub label: Label,
    /// Every label made: one, or one per box of an order packed into several boxes for a
    /// carrier that takes one parcel a label (`parcels_per_label` of `/desk/carriers`).
    pub labels: Vec<Label>,
    /// The return label made with it (a preset with `return_label: "with_outbound"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_label: Option<Label>,
    /// Why that return label could not be made (the outbound label stands; make the return
    /// label again from the order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_label_error: Option<String>,
}

/// `POST /desk/orders/ship`: ship these orders in the background, in this order.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShipBatchRequest {
    pub order_ids: Vec<String>,
    /// One preset for all (else each order's own resolution).
    #[serde(default)]
    pub preset: Option<String>,
}

/// One order of a batch: `queued`, `shipped` (with its label) or `failed` (with why).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BatchOrder {
    pub order_id: String,
    pub order_number: String,
    pub status: crate::status::BatchOrderStatus,
    pub label_id: Option<String>,
    pub tracking_numbers: Vec<String>,
    /// Why it failed, in plain words, with the field at fault when there is one.
    pub info: Option<String>,
}

/// `GET /desk/batches/{id}`: progress and each order's result.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ShipBatch {
    pub id: String,
    /// `running` until every order is shipped or failed, then `done`.
    pub status: crate::status::BatchStatus,
    pub total: usize,
    pub shipped: usize,
    pub failed: usize,
    pub orders: Vec<BatchOrder>,
    pub created_at: String,
    pub updated_at: String,
}
