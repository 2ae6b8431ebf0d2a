//! Packing an order at the desk (issue 40): each item's code scanned into its line of the packing
//! list before the label is made (the desk setting `verify_items`).

use crate::order::{Order, OrderItem};
use crate::request::Weight;
use crate::status::{PackEvent, PackResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `POST /desk/orders/{id}/pack`: one scan of an item's code, or `+1` by hand on a line (for an
/// item without a code).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PackRequest {
    /// What the scanner read.
    #[serde(default)]
    pub scan: Option<String>,
    /// The line (1 for the order's first item) an item is added to by hand.
    #[serde(default)]
    pub line: Option<usize>,
    /// How many are added by hand (1).
    #[serde(default)]
    pub add: Option<i64>,
    /// Close the box being packed: the items scanned next go into a new box, a parcel of the
    /// label of its own.
    #[serde(default)]
    pub next_box: bool,
    /// With `next_box`: what the box being closed weighs. None given: the desk scale's weight
    /// when it shows a stable one; else the box is weighed by its items when the label is made.
    #[serde(default)]
    pub weight: Option<Weight>,
}

/// A line of the packing list: an item of the order, how many are ordered and how many are in
/// the box.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PackLine {
    /// 1 for the order's first item.
    pub line: usize,
    pub description: String,
    pub sku: Option<String>,
    /// The code a scan of the item reads (its barcode, else its SKU); none: added by hand.
    pub code: Option<String>,
    pub ordered: i64,
    pub packed: i64,
    /// How many of `packed` were added by hand.
    pub by_hand: i64,
    /// How many of `packed` are in each box (box 1 first), as many as the list's `boxes`.
    pub in_boxes: Vec<i64>,
}

/// `GET /desk/orders/{id}/pack`: the order's packing list as scanned so far.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PackState {
    pub order_id: String,
    pub order_number: String,
    pub lines: Vec<PackLine>,
    /// Every line has all it ordered.
    pub complete: bool,
    /// Codes refused since the packing started (not in the order, or one too many).
    pub refused: i64,
    /// The desk packing it (the one that scanned first since it started); none: not started.
    pub desk: Option<String>,
    /// The boxes started ("Next box"): items scanned now go into the last one.
    pub boxes: usize,
    /// What each box weighed as it was closed (given, or the desk scale's), as many as `boxes`;
    /// null: not weighed (the box being packed, or closed with nothing on the scale).
    pub box_weights: Vec<Option<Weight>>,
}

/// What one scan did, and the packing list after it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PackScan {
    pub result: PackResult,
    /// The line the item went to (none: refused).
    pub line: Option<usize>,
    /// What happened, in the operator's words.
    pub message: String,
    pub state: PackState,
}

/// The code a scan of `item` reads: its barcode, else its SKU; none: it is added by hand.
pub fn item_code(item: &OrderItem) -> Option<&str> {
    item.barcode
        .as_deref()
        .or(item.sku.as_deref())
        .map(str::trim)
        .filter(|c| !c.is_empty())
}

/// One kept scan, as the packing list counts it.
#[derive(Debug, Clone, Copy)]
pub struct CountedScan<'a> {
    pub event: PackEvent,
    /// 1 for the order's first item; none: refused.
    pub line: Option<i64>,
    pub desk: &'a str,
    /// A box closed (`NextBox`): what it weighed.
    pub weight: Option<Weight>,
}

/// A box of an order packed into several: how many of each of the order's items it holds (in
/// the order of its `items`), and what it weighed as it was closed.
#[derive(Debug, Clone, PartialEq)]
pub struct PackedBox {
    pub quantities: Vec<i64>,
    pub weight: Option<Weight>,
    /// When `weight` was read off the scale (none: nothing stable on it then).
    pub weighed: Weighed,
}

/// When a packed box was weighed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weighed {
    /// As it was closed (`NextBox`).
    AsClosed,
    /// The box still open, shipped at the desk where it was packed: what the desk's scale showed
    /// as the order shipped.
    AsShipped,
}

impl PackState {
    /// The packing list of `order` after its scans since its packing last started.
    pub fn of(order: &Order, scans: &[CountedScan<'_>]) -> PackState {
        // What parts shipped already took is not packed again.
        let remaining = order.remaining();
        let mut lines: Vec<PackLine> = order
            .items
            .iter()
            .zip(remaining)
            .enumerate()
            .filter(|(_, (_, left))| *left > 0)
            .map(|(n, (i, left))| PackLine {
                line: n + 1,
                description: i.description.clone(),
                sku: i.sku.clone(),
                code: item_code(i).map(str::to_string),
                ordered: left,
                packed: 0,
                by_hand: 0,
                in_boxes: vec![0],
            })
            .collect();
        let (mut refused, mut boxes) = (0, 1);
        let mut box_weights = vec![None];
        for s in scans {
            match s.event {
                PackEvent::Added | PackEvent::AddedByHand => {
                    // A line the order no longer has (it was changed since) counts for nothing.
                    if let Some(l) = lines.iter_mut().find(|l| Some(l.line as i64) == s.line) {
                        l.packed += 1;
                        l.by_hand += i64::from(s.event == PackEvent::AddedByHand);
                        l.in_boxes[boxes - 1] += 1;
                    }
                }
                PackEvent::NotInOrder | PackEvent::TooMany => refused += 1,
                PackEvent::NextBox => {
                    box_weights[boxes - 1] = s.weight;
                    box_weights.push(None);
                    boxes += 1;
                    lines.iter_mut().for_each(|l| l.in_boxes.push(0));
                }
                PackEvent::Restarted => {}
            }
        }
        PackState {
            order_id: order.id.clone(),
            order_number: order.order_number.clone(),
            complete: !lines.is_empty() && lines.iter().all(|l| l.packed >= l.ordered),
            lines,
            refused,
            desk: scans.first().map(|s| s.desk.to_string()),
            boxes,
            box_weights,
        }
    }

    /// How many items are in box `n` (1 for the first).
    pub fn in_box(&self, n: usize) -> i64 {
        self.lines
            .iter()
            .map(|l| l.in_boxes.get(n - 1).copied().unwrap_or(0))
            .sum()
    }

    /// Each box that holds items, with how many of each of the order's `items` it holds.
    pub fn packed_boxes(&self, items: usize) -> Vec<PackedBox> {
        (1..=self.boxes)
            .filter(|&b| self.in_box(b) > 0)
            .map(|b| {
                let mut q = vec![0; items];
                for l in &self.lines {
                    if let Some(n) = q.get_mut(l.line - 1) {
                        *n = l.in_boxes[b - 1];
                    }
                }
                PackedBox {
                    quantities: q,
                    weight: self.box_weights.get(b - 1).copied().flatten(),
                    weighed: Weighed::AsClosed,
                }
            })
            .collect()
    }

    /// The line of the order's `n`th item (1 for the first); none when nothing of it is left to
    /// pack (lines that parts shipped before took whole are not on the list).
    pub fn line(&self, n: usize) -> Option<&PackLine> {
        self.lines.iter().find(|l| l.line == n)
    }

    /// How many of each of the order's items are packed (in the order of its `items`).
    pub fn packed_quantities(&self, items: usize) -> Vec<i64> {
        let mut q = vec![0; items];
        for l in &self.lines {
            if let Some(n) = q.get_mut(l.line - 1) {
                *n = l.packed;
            }
        }
        q
    }

    /// What is still to pack, in the operator's words ("1 × Blue mug, 2 × Red cup").
    pub fn missing(&self) -> String {
        self.lines
            .iter()
            .filter(|l| l.packed < l.ordered)
            .map(|l| format!("{} × {}", l.ordered - l.packed, l.description))
            .collect::<Vec<_>>()
            .join(", ")
    }
}
