//! Reports (issue 41): the work of a span of days, grouped, for supervisors. Labels count by
//! their ship date; on a shared database they cover every desk.

use crate::request::Money;
use crate::status::ReportGroup;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `GET /desk/reports/shipments?from&to&group_by`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ShipmentsReport {
    /// The first ship date counted (YYYY-MM-DD).
    pub from: String,
    /// The last ship date counted.
    pub to: String,
    pub group_by: ReportGroup,
    /// One row per group with labels, in the group's order (days and weeks oldest first,
    /// the others most labels first).
    pub groups: Vec<ReportRow>,
    /// Every label of the span.
    pub total: ReportRow,
}

/// The figures of one group of labels.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq, Default)]
pub struct ReportRow {
    /// What the group is: a day (`2026-11-27`), an ISO week (`2026-W48`), a carrier's slug, a
    /// service type, an operator's name, a desk's name; empty for the total.
    pub group: String,
    /// How the desk names it (a carrier's or a service's name; otherwise as `group`).
    pub name: String,
    /// Labels made (voided ones included).
    pub labels: i64,
    /// Of those, voided.
    pub voided: i64,
    /// Parcels of the labels not voided.
    pub parcels: i64,
    /// Their weight, kg.
    pub weight_kg: f64,
    /// Their charges (from the rates), per currency.
    pub charges: Vec<Money>,
    /// Print jobs of these labels that did not print.
    pub print_failures: i64,
    /// Items of the orders these labels shipped.
    pub items: i64,
    /// Hours the operators worked on them: each operator's first to last label of a day (at
    /// least a quarter of an hour), summed.
    pub hours: f64,
    pub labels_per_hour: Option<f64>,
    pub items_per_hour: Option<f64>,
}
