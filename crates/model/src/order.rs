//! Orders: what the desk ships from. An order arrives from a shop or ERP (`POST /desk/orders`, a
//! CSV import) or is typed at the desk, and becomes a label when it is shipped.

use crate::request::{Address, Money, Parcel, Weight};
use crate::status::OrderStatus;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A line of an order: the /v3 item's fields, with price and weight optional (shops often export
/// order lines without them; the label's customs data needs them only across borders).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OrderItem {
    pub description: String,
    pub quantity: i64,
    #[serde(default)]
    pub sku: Option<String>,
    /// The code printed on the item (UPC, EAN, GTIN or any other) that scanning it at the packing
    /// list reads; without one, the `sku` is its code.
    #[serde(default)]
    pub barcode: Option<String>,
    #[serde(default)]
    pub price: Option<Money>,
    #[serde(default)]
    pub weight: Option<Weight>,
    #[serde(default)]
    pub origin_country: Option<String>,
    #[serde(default)]
    pub hs_code: Option<String>,
    #[serde(default)]
    pub item_id: Option<String>,
}

/// One order as a shop sends it (`POST /desk/orders`). An open order with the same
/// `order_number` is updated; a shipped one is refused.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OrderRequest {
    pub order_number: String,
    pub ship_to: Address,
    #[serde(default)]
    pub items: Vec<OrderItem>,
    #[serde(default)]
    pub parcels: Option<Vec<Parcel>>,
    /// The whole shipment's weight, when the shop knows it (else the items' or the preset's).
    #[serde(default)]
    pub weight: Option<Weight>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub notes: Option<String>,
    /// The preset to ship with (else the rules choose).
    #[serde(default)]
    pub preset: Option<String>,
}

/// `POST /desk/orders` with several orders at once (up to 1,000).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OrderBatchRequest {
    pub orders: Vec<OrderRequest>,
}

/// Where an order came from.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum OrderSource {
    Api,
    Csv,
    Ui,
}

impl OrderSource {
    pub fn as_str(self) -> &'static str {
        match self {
            OrderSource::Api => "api",
            OrderSource::Csv => "csv",
            OrderSource::Ui => "ui",
        }
    }
}

/// An order record.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Order {
    pub id: String,
    pub order_number: String,
    pub status: OrderStatus,
    pub ship_to: Address,
    pub items: Vec<OrderItem>,
    pub parcels: Option<Vec<Parcel>>,
    pub weight: Option<Weight>,
    pub tags: Vec<String>,
    pub notes: Option<String>,
    pub preset: Option<String>,
    pub source: OrderSource,
    pub created_at: String,
    pub updated_at: String,
    pub shipped_at: Option<String>,
    /// Who shipped it: the operator, the integration key, or `desk` (a batch's own work).
    #[serde(default)]
    pub operator: Option<String>,
    pub label_ids: Vec<String>,
    pub tracking_numbers: Vec<String>,
    /// Shipped after every item was scanned at the packing list (`verify_items`).
    #[serde(default)]
    pub contents_verified: bool,
    /// Items that went out before the rest, each part with its own label ("Ship what is
    /// packed"): the order is `partially_shipped` until the rest follows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partial_shipments: Vec<PartialShipment>,
    /// Its return labels (made with the outbound by a preset, or later from History or
    /// Orders), oldest first; a voided one leaves the list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub return_label_ids: Vec<String>,
    /// The name of the preset an open order would ship with now (its own, a rule's, the
    /// default); answered, never stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_preset: Option<String>,
}

/// A part of an order that went out with a label of its own.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PartialShipment {
    pub label_id: String,
    /// How many of each of the order's items (in the order of `items`).
    pub quantities: Vec<i64>,
}

impl Order {
    /// How many of each item are still to ship (all of them, but for parts shipped already).
    pub fn remaining(&self) -> Vec<i64> {
        (0..self.items.len())
            .map(|n| {
                let shipped: i64 = self
                    .partial_shipments
                    .iter()
                    .map(|p| p.quantities.get(n).copied().unwrap_or(0))
                    .sum();
                self.items[n].quantity - shipped
            })
            .collect()
    }

    /// Whether the desk may still pack and ship it (open, or some of it shipped).
    pub fn to_ship(&self) -> bool {
        matches!(self.status, OrderStatus::Open | OrderStatus::PartiallyShipped)
    }
}

/// `POST /desk/orders`: what one call did.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OrdersSaved {
    pub created: usize,
    pub updated: usize,
    pub orders: Vec<Order>,
}

/// `GET /desk/orders`: a page of orders, newest first.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OrderList {
    pub next_token: Option<String>,
    pub limit: u32,
    pub orders: Vec<Order>,
}

/// `PUT /desk/import-mappings/{name}`: which field each column of a shop's CSV fills,
/// `{"PLZ": "ship_to.postal_code"}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportMapping {
    pub columns: std::collections::BTreeMap<String, String>,
}

/// A row of a CSV import that was not imported: its line in the file (the header is line 1),
/// the column at fault when one is, and why.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ImportFailure {
    pub row: u64,
    pub column: Option<String>,
    pub info: String,
}

/// `POST /desk/orders/import`: what the file did (or, with `dry_run`, would do).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ImportResult {
    pub imported: usize,
    pub updated: usize,
    pub failed: Vec<ImportFailure>,
    /// What the import assumed where the file said nothing (a currency filled in), once each.
    #[serde(default)]
    pub notes: Vec<String>,
    /// How each column of the file was read (`null`: ignored).
    pub columns: std::collections::BTreeMap<String, Option<String>>,
    /// The file's headers in their order.
    pub headers: Vec<String>,
    /// Every field a column can fill (what a mapping may name).
    pub fields: Vec<String>,
}
