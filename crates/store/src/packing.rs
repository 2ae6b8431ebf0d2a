//! The scans of orders' packing lists (issue 40): every scan at the desk, kept (who, where, what
//! it read, what it did). An order's packing list is its scans since its last `restarted`.

use crate::db::Tx;
use crate::sql::{table_row, TableRow};
use packdesk_model::order::Order;
use packdesk_model::pack::{CountedScan, PackState};
use packdesk_model::status::{Env, PackEvent};

table_row! {
#[derive(Debug, Clone, PartialEq)]
pub struct PackScanRow in "pack_scans" {
    pub order_id: String,
    /// 1, 2, ... in the order they were made, per order.
    pub seq: i64,
    pub env: Env,
    pub at: i64,
    pub desk: String,
    pub operator: Option<String>,
    /// What was scanned; none: added by hand, or a restart.
    pub code: Option<String>,
    /// The order's line (1 for its first item) an item went to; none: refused, or a restart.
    pub line: Option<i64>,
    pub event: PackEvent,
    /// A box closed (`next_box`): what it weighed, as the interface writes a weight
    /// (`{"value": 2.35, "unit": "kg"}`); none: not weighed.
    pub box_weight: Option<String>,
}
}

const COLS: &str = PackScanRow::COLUMNS;

pub fn insert(c: &mut Tx<'_>, row: &PackScanRow) -> crate::Result<()> {
    c.insert(row)
}

/// The number the order's next scan takes. The caller holds the order's row (`orders::get_for_update`),
/// so two scans of one order never take the same number.
pub fn next_seq(c: &mut Tx<'_>, order_id: &str) -> crate::Result<i64> {
    Ok(c.value::<i64>(
        "SELECT COALESCE(MAX(seq), 0) + 1 FROM pack_scans WHERE order_id = ?1",
        &[&order_id],
    )?
    .unwrap_or(1))
}

/// The order's scans since its packing last started again, in the order they were made.
pub fn current(c: &mut Tx<'_>, order_id: &str) -> crate::Result<Vec<PackScanRow>> {
    c.rows(
        &format!(
            "SELECT {COLS} FROM pack_scans WHERE order_id = ?1 AND seq > COALESCE(
               (SELECT MAX(seq) FROM pack_scans WHERE order_id = ?1 AND event = ?2), 0)
             ORDER BY seq"
        ),
        &[&order_id, &PackEvent::Restarted],
    )
}

impl PackScanRow {
    /// The scan as the packing list counts it.
    pub fn counted(&self) -> CountedScan<'_> {
        CountedScan {
            event: self.event,
            line: self.line,
            desk: &self.desk,
            // Written by `keep_scan` from a `Weight`: a text that is none is no weight.
            weight: self.box_weight.as_deref().and_then(|w| serde_json::from_str(w).ok()),
        }
    }
}

/// The packing list of `order` now.
pub fn state(c: &mut Tx<'_>, order: &Order) -> crate::Result<PackState> {
    let scans = current(c, &order.id)?;
    let counted: Vec<CountedScan<'_>> = scans.iter().map(PackScanRow::counted).collect();
    Ok(PackState::of(order, &counted))
}
