//! Packing an order at the desk (issue 40): each item's code is scanned into its line of the
//! order's packing list; a code the order does not have, or one item too many, is refused and
//! counted. With the desk setting `verify_items` an order's label waits until every line is
//! complete. Every scan is kept with its desk and operator (`packdesk_store::packing`); on a
//! shared database one desk packs an order at a time.

use crate::audit::Via;
use crate::orders::{not_found, order_of};
use crate::Service;
use packdesk_model::order::Order;
use packdesk_model::pack::{PackRequest, PackScan, PackState, PackedBox, Weighed};
use packdesk_model::request::Weight;
use packdesk_model::status::{Env, OrderStatus, PackEvent, PackResult, Role, ScanCommand};
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::db::Tx;
use packdesk_store::orders as order_table;
use packdesk_store::packing::{self as table, PackScanRow};

/// The longest code a scan may be (a GS1 DataMatrix holds up to 2,335 characters; scanners of
/// item codes send far less).
const MAX_CODE: usize = 200;

/// An order shipped whole or cancelled has nothing to pack.
fn packable(o: &Order) -> Result<(), ServiceError> {
    match o.status {
        OrderStatus::Open | OrderStatus::PartiallyShipped => Ok(()),
        status => Err(ServiceError::at(
            ErrorCode::OperationNotAllowed,
            "id",
            format!("order {} is {status}: there is nothing to pack", o.order_number),
        )),
    }
}

/// The order `id`, locked to the end of `tx` so that two scans of it at once (two desks, or a
/// scanner sending twice) count one after the other; refused when there is nothing to pack.
fn packable_locked(tx: &mut Tx<'_>, env: Env, id: &str) -> Result<Order, ServiceError> {
    let row = order_table::get_for_update(tx, env, id)?.ok_or_else(|| not_found(id))?;
    let order = order_of(&row)?;
    packable(&order)?;
    Ok(order)
}

/// What a scan of `code` does to `state`: the event kept, the line it went to, the result.
fn scan_of(state: &PackState, code: &str) -> (PackEvent, Option<usize>, PackResult) {
    let mut matching = state
        .lines
        .iter()
        .filter(|l| l.code.as_deref().is_some_and(|c| c.eq_ignore_ascii_case(code)))
        .peekable();
    if matching.peek().is_none() {
        return (PackEvent::NotInOrder, None, PackResult::NotInOrder);
    }
    match matching.find(|l| l.packed < l.ordered) {
        Some(l) => (PackEvent::Added, Some(l.line), PackResult::Added),
        None => (PackEvent::TooMany, None, PackResult::TooMany),
    }
}

/// What the desk says of a scan, in the operator's words.
fn message(state: &PackState, code: &str, line: Option<usize>, result: PackResult) -> String {
    match (result, line.and_then(|n| state.line(n))) {
        (PackResult::Complete, _) => format!("Every item of order {} is packed.", state.order_number),
        (PackResult::BoxStarted, _) => format!(
            "Box {} of order {} started: the items scanned now go into it.",
            state.boxes, state.order_number
        ),
        (PackResult::Added, Some(l)) => format!("{}: {} of {} packed.", l.description, l.packed, l.ordered),
        (PackResult::TooMany, _) => {
            let l = state
                .lines
                .iter()
                .find(|l| l.code.as_deref().is_some_and(|c| c.eq_ignore_ascii_case(code)));
            format!(
                "Order {} has {} × {}, all packed already: take the extra one out of the box.",
                state.order_number,
                l.map_or(0, |l| l.ordered),
                l.map_or("that item", |l| l.description.as_str())
            )
        }
        _ => format!(
            "“{code}” is not an item of order {}: take it out of the box.",
            state.order_number
        ),
    }
}

impl Service {
    /// The order's packing list as scanned so far.
    pub fn pack_state(&self, env: Env, id: &str) -> Result<PackState, ServiceError> {
        self.store.read(|c| {
            let row = order_table::get(c, env, id)?.ok_or_else(|| not_found(id))?;
            Ok(table::state(c, &order_of(&row)?)?)
        })
    }

    /// One scan of an item's code into the order's packing list, or `+1` by hand on a line whose
    /// item has no code. A refused code is kept and counted, and changes nothing else.
    pub fn pack_scan(&self, env: Env, id: &str, req: PackRequest) -> Result<PackScan, ServiceError> {
        let code = req.scan.as_deref().map(str::trim);
        if req.next_box && (code.is_some() || req.line.is_some()) {
            return Err(ServiceError::invalid(
                "next_box",
                "send `next_box` alone: it closes the box, and the items scanned next go into a new one",
            ));
        }
        match (code, req.line) {
            _ if req.next_box => {}
            (Some(""), _) => return Err(ServiceError::invalid("scan", "the scan is empty: scan the item's code")),
            (Some(c), _) if c.chars().count() > MAX_CODE => {
                return Err(ServiceError::invalid(
                    "scan",
                    format!("a code is at most {MAX_CODE} characters"),
                ))
            }
            (Some(_), Some(_)) | (None, None) => {
                return Err(ServiceError::invalid(
                    "scan",
                    "send either `scan` (an item's code) or `line` (an item without a code, added by hand)",
                ))
            }
            _ => {}
        }
        if req.weight.is_some() && !req.next_box {
            return Err(ServiceError::invalid(
                "weight",
                "a weight goes with `next_box`: it is what the box being closed weighs",
            ));
        }
        if let Some(w) = req.weight.filter(|w| !w.is_labellable()) {
            return Err(ServiceError::invalid(
                "weight.value",
                format!(
                    "a box weighs above 0 and at most {} {}: {} is not a weight to put on its label",
                    w.unit.max(),
                    w.unit.as_str(),
                    w.value
                ),
            ));
        }
        // The box closed weighs what was given, else what the desk scale shows now.
        let box_weight = match req.next_box {
            true => req.weight.or_else(|| self.scale_weight()),
            false => None,
        };
        let add = req.add.unwrap_or(1);
        if req.line.is_some() && add != 1 {
            return Err(ServiceError::invalid(
                "add",
                "items are added by hand one at a time: `add` is 1",
            ));
        }
        let now = self.now_us();
        let desk = self.desk_name();
        self.store.write(|tx| {
            let order = packable_locked(tx, env, id)?;
            let before = table::state(tx, &order)?;
            self.packed_here(&before, &desk)?;
            let (event, line, result) = match (code, req.line) {
                _ if req.next_box => {
                    if before.in_box(before.boxes) == 0 {
                        return Err(ServiceError::invalid(
                            "next_box",
                            format!(
                                "box {} of order {} is empty: scan an item into it before starting the next box",
                                before.boxes, order.order_number
                            ),
                        ));
                    }
                    (PackEvent::NextBox, None, PackResult::BoxStarted)
                }
                (Some(code), _) => scan_of(&before, code),
                (None, Some(n)) => {
                    let l = before.line(n).ok_or_else(|| {
                        let lines: Vec<String> = before.lines.iter().map(|l| l.line.to_string()).collect();
                        ServiceError::invalid(
                            "line",
                            format!(
                                "order {} has nothing left to pack on line {n}; its lines to pack: {}",
                                order.order_number,
                                lines.join(", ")
                            ),
                        )
                    })?;
                    if let Some(c) = &l.code {
                        return Err(ServiceError::invalid(
                            "line",
                            format!("{} has a code ({c}): scan it", l.description),
                        ));
                    }
                    match l.packed < l.ordered {
                        true => (PackEvent::AddedByHand, Some(n), PackResult::Added),
                        false => (PackEvent::TooMany, None, PackResult::TooMany),
                    }
                }
                (None, None) => unreachable!("checked above"),
            };
            let kept = Kept {
                code,
                line,
                event,
                box_weight,
            };
            self.keep_scan(tx, env, &order.id, now, kept)?;
            let state = table::state(tx, &order)?;
            let result = match result {
                PackResult::Added if state.complete => PackResult::Complete,
                r => r,
            };
            let message = message(&state, code.unwrap_or_default(), line, result);
            Ok(PackScan {
                result,
                line,
                message,
                state,
            })
        })
    }

    /// Starts the order's packing again: the scans so far no longer count (they stay kept).
    pub fn pack_restart(&self, env: Env, id: &str) -> Result<PackState, ServiceError> {
        let now = self.now_us();
        self.store.write(|tx| {
            let order = packable_locked(tx, env, id)?;
            self.keep_scan(tx, env, &order.id, now, Kept::restart())?;
            let detail = serde_json::json!({"order_number": order.order_number});
            self.audit(tx, Some(env), "order.packing_restarted", Some(&order.id), detail)?;
            Ok(table::state(tx, &order)?)
        })
    }

    /// The order's packing as it stands (read once by a shipping, for each of its checks).
    pub(crate) fn packing_state(&self, order: &Order) -> Result<PackState, ServiceError> {
        Ok(self.store.read(|c| table::state(c, order))?)
    }

    /// "Ship what is packed": how many of each item the packing list holds, for a label of its
    /// own (a supervisor's action when operators sign in); none: every item is packed, the order
    /// ships whole.
    pub(crate) fn packed_part(&self, order: &Order, state: &PackState) -> Result<Option<Vec<i64>>, ServiceError> {
        if let Some(c) = crate::audit::caller().filter(|c| c.via == Via::Session) {
            if !c.role.may(Role::Supervisor) {
                return Err(ServiceError::at(
                    ErrorCode::Forbidden,
                    "packed_only",
                    format!(
                        "shipping what is packed leaves the rest of order {} for later: only {} may do this, and {} is a {}; ask one to sign in (Switch operator)",
                        order.order_number,
                        Role::Supervisor.who_may(),
                        c.actor,
                        c.role
                    ),
                ));
            }
        }
        if state.complete {
            return Ok(None);
        }
        if state.lines.iter().all(|l| l.packed == 0) {
            return Err(ServiceError::invalid(
                "packed_only",
                format!(
                    "nothing of order {} is packed yet: scan its items first",
                    order.order_number
                ),
            ));
        }
        Ok(Some(state.packed_quantities(order.items.len())))
    }

    /// The boxes the order was packed into, when more than one holds items: how many of each
    /// item each box holds, and its weight. Each becomes a parcel of the label (or a label of its
    /// own). Shipped from the desk's own screen where it was packed, the box still open weighs
    /// what this desk's scale shows then (a batch, a script or another desk weigh nothing).
    pub(crate) fn packed_boxes(
        &self,
        order: &Order,
        state: &PackState,
    ) -> Result<Option<Vec<PackedBox>>, ServiceError> {
        let mut boxes = state.packed_boxes(order.items.len());
        if boxes.len() < 2 {
            return Ok(None);
        }
        let at_this_desk = state.desk.as_deref() == Some(self.desk_name().as_str())
            && crate::audit::caller().is_some_and(|c| c.via == Via::Session);
        let open_box_packed = state.in_box(state.boxes) > 0;
        if at_this_desk && open_box_packed {
            if let Some(open) = boxes.last_mut().filter(|b| b.weight.is_none()) {
                open.weight = self.scale_weight();
                open.weighed = Weighed::AsShipped;
            }
        }
        Ok(Some(boxes))
    }

    /// With `verify_items`, an order with items ships only once every item is packed.
    pub(crate) fn check_packed(&self, order: &Order, state: &PackState) -> Result<(), ServiceError> {
        if order.items.is_empty() || !order.to_ship() || !self.desk_settings()?.verify_items {
            return Ok(());
        }
        match state.complete {
            true => Ok(()),
            false => Err(ServiceError::at(
                ErrorCode::OperationNotAllowed,
                "id",
                format!(
                    "order {} is not packed yet: {} still to scan (this desk checks every item before the label)",
                    order.order_number,
                    state.missing()
                ),
            )),
        }
    }

    /// One desk packs an order at a time: another desk's packing is refused, naming it.
    fn packed_here(&self, state: &PackState, desk: &str) -> Result<(), ServiceError> {
        match &state.desk {
            Some(other) if other != desk => Err(ServiceError::at(
                ErrorCode::OperationNotAllowed,
                "id",
                format!(
                    "order {} is being packed at {other}: finish it there, or start its packing again here",
                    state.order_number
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Keeps one scan of the order's packing list (a restart too: the partial shipment of
    /// `orders` starts the rest's packing with one), with this desk and its operator.
    pub(crate) fn keep_scan(
        &self,
        tx: &mut Tx<'_>,
        env: Env,
        order_id: &str,
        now: i64,
        scan: Kept<'_>,
    ) -> Result<(), ServiceError> {
        let seq = table::next_seq(tx, order_id)?;
        let box_weight = match scan.box_weight {
            Some(w) => Some(serde_json::to_string(&w).map_err(ServiceError::internal)?),
            None => None,
        };
        table::insert(
            tx,
            &PackScanRow {
                order_id: order_id.to_string(),
                seq,
                env,
                at: now,
                desk: self.desk_name(),
                operator: crate::audit::caller().map(|c| c.actor),
                code: scan.code.map(str::to_string),
                line: scan.line.map(|l| l as i64),
                event: scan.event,
                box_weight,
            },
        )?;
        Ok(())
    }
}

/// One scan of a packing list as it is kept: what was read, the line it went to, what it did,
/// and (a box closed) what the box weighed.
pub(crate) struct Kept<'a> {
    pub code: Option<&'a str>,
    pub line: Option<usize>,
    pub event: PackEvent,
    pub box_weight: Option<Weight>,
}

impl Kept<'_> {
    /// The packing started again: the scans before no longer count.
    pub(crate) fn restart() -> Kept<'static> {
        Kept {
            code: None,
            line: None,
            event: PackEvent::Restarted,
            box_weight: None,
        }
    }
}

/// The desk's command sheet: a PDF of the command barcodes the Ship screen obeys.
pub fn command_sheet_pdf() -> Vec<u8> {
    use packdesk_documents::command_sheet::{render_command_sheet_pdf, Command};
    let commands: Vec<Command<'_>> = ScanCommand::ALL
        .iter()
        .map(|c| {
            let (name, what) = c.words();
            Command {
                code: c.as_str(),
                name,
                what,
            }
        })
        .collect();
    render_command_sheet_pdf(&commands)
}
