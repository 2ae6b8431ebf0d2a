//! Returns (issue 40): a parcel that comes back is scanned in at the Returns screen (its return
//! label's tracking number, the outbound one, or the order number), and what is in it is recorded
//! against its order: per item how many, why, and in what state.

use crate::order::Order;
use crate::status::ReturnCondition;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a scan at the Returns screen found its order.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ReturnFoundBy {
    ReturnLabel,
    OutboundLabel,
    OrderNumber,
}

/// `GET /desk/returns/lookup?code=`: the order a returned parcel belongs to, and what of it can
/// still come back.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReturnLookup {
    pub order: Order,
    pub found_by: ReturnFoundBy,
    /// Per item of the order (in its order): how many shipped.
    pub shipped: Vec<i64>,
    /// Per item: how many came back already (returns recorded before).
    pub returned: Vec<i64>,
    /// The reasons the desk offers (its setting `return_reasons`).
    pub reasons: Vec<String>,
}

/// One item of `POST /desk/returns`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReturnLineRequest {
    /// The order's line: 1 for its first item.
    pub line: i64,
    pub quantity: i64,
    /// One of the desk's `return_reasons`.
    pub reason: String,
    pub condition: ReturnCondition,
}

/// `POST /desk/returns`: a returned parcel's contents, recorded against its order.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReturnRequest {
    pub order_id: String,
    /// The items that came back (a line with quantity 0 may be left out).
    pub items: Vec<ReturnLineRequest>,
    /// What was scanned to find the order (a tracking or order number).
    #[serde(default)]
    pub scanned: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
}

/// A returned item as recorded.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReturnedItem {
    pub line: i64,
    pub sku: Option<String>,
    pub description: String,
    pub quantity: i64,
    pub reason: String,
    pub condition: ReturnCondition,
}

/// A return recorded at the desk.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Return {
    pub id: String,
    pub order_id: String,
    pub order_number: String,
    /// The order's outbound labels and its return labels when the return was recorded.
    pub label_ids: Vec<String>,
    pub return_label_ids: Vec<String>,
    pub scanned: Option<String>,
    pub items: Vec<ReturnedItem>,
    pub notes: Option<String>,
    /// Who recorded it (the operator, the integration key, or `desk`).
    pub operator: String,
    pub desk: String,
    pub created_at: String,
}

/// `GET /desk/returns`: newest first.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReturnList {
    pub returns: Vec<Return>,
}

impl Order {
    /// How many of each item went out: all of a shipped order, else its parts shipped.
    pub fn shipped_quantities(&self) -> Vec<i64> {
        match self.status {
            crate::status::OrderStatus::Shipped => self.items.iter().map(|i| i.quantity).collect(),
            _ => {
                let left = self.remaining();
                self.items.iter().zip(left).map(|(i, l)| i.quantity - l).collect()
            }
        }
    }
}
