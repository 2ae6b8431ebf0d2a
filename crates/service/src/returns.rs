//! Returns (issue 40): return labels (the outbound label's addresses swapped, `return_shipment`,
//! made with the outbound by a preset or later from History and Orders) and returned parcels
//! scanned in at the Returns screen, recorded against their order.

use crate::keys::Env;
use crate::orders::{not_found, OrderShipment};
use crate::Service;
use packdesk_model::order::Order;
use packdesk_model::record::Label;
use packdesk_model::request::{CustomsPurpose, LabelRequest};
use packdesk_model::returns::{Return, ReturnFoundBy, ReturnList, ReturnLookup, ReturnRequest, ReturnedItem};
use packdesk_model::said::{args, Saying};
use packdesk_model::status::{LabelStatus, OrderStatus};
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::labels::{LabelFilter, LabelRow};
use packdesk_store::returns::ReturnRow;

/// Returns one `GET /desk/returns` lists at most.
const MAX_LISTED: i64 = 1_000;

/// The return label's request: the outbound's, its parcel coming back (sender and recipient
/// swapped), without the outbound's service options (cash on delivery is not the customer's to
/// pay back), declared as a return where it crosses a customs border.
fn return_request(outbound: &LabelRequest, order_number: Option<String>) -> LabelRequest {
    let mut req = outbound.clone();
    std::mem::swap(&mut req.shipment.ship_from, &mut req.shipment.ship_to);
    req.return_shipment = true;
    req.is_async = false;
    req.ship_date = None;
    req.service_options = None;
    req.invoice = None;
    req.order_number = order_number;
    if let Some(customs) = req.customs.as_mut() {
        customs.purpose = CustomsPurpose::Return;
        customs.importer_address = None;
    }
    req
}

/// The record of a stored label, or why a return label cannot be made of it.
fn outbound_of(row: Option<LabelRow>, id: &str) -> Result<(LabelRow, Label), ServiceError> {
    let row = row.ok_or_else(|| ServiceError::at(ErrorCode::ItemNotFound, "id", format!("no label {id}")))?;
    let label: Label = serde_json::from_str(&row.record).map_err(ServiceError::internal)?;
    if label.return_shipment {
        return Err(ServiceError::at(
            ErrorCode::OperationNotAllowed,
            "id",
            format!("label {id} is a return label already: make the return label of the outbound label"),
        ));
    }
    // The row holds the status (the stored record is the label as made). Made, on a manifest or
    // not: the parcel may come back long after the close-out.
    match row.status {
        LabelStatus::Created | LabelStatus::Manifesting | LabelStatus::Manifested => {}
        LabelStatus::Cancelled | LabelStatus::Cancelling => {
            return Err(ServiceError::at(
                ErrorCode::OperationNotAllowed,
                "id",
                format!("label {id} is voided: a parcel that never left has nothing to come back"),
            ))
        }
        LabelStatus::Failed => {
            return Err(ServiceError::at(
                ErrorCode::OperationNotAllowed,
                "id",
                format!("label {id} failed to be made: there is no parcel to come back"),
            ))
        }
        _ => {
            return Err(ServiceError::at(
                ErrorCode::OperationNotAllowed,
                "id",
                format!("label {id} is still being made: try again in a moment"),
            ))
        }
    }
    Ok((row, label))
}

/// What an item is called on a return line: its SKU, else its description.
fn item_name(order: &Order, line: usize) -> String {
    let item = &order.items[line];
    match &item.sku {
        Some(sku) => format!("line {} ({sku})", line + 1),
        None => format!("line {} ({})", line + 1, item.description),
    }
}

impl Service {
    /// Makes the return label of label `id`: the same account and service, the parcel coming
    /// back. A label of an order is linked to it (`return_label_ids`); the label prints by the
    /// `return_label` profile (else the label's).
    pub fn make_return_label(&self, env: Env, id: &str) -> Result<Label, ServiceError> {
        let (row, outbound) = outbound_of(self.store.read(|c| packdesk_store::labels::get(c, env, id))?, id)?;
        let stored: LabelRequest = serde_json::from_str(&row.request).map_err(ServiceError::internal)?;
        let order_id = self.store.read(|c| packdesk_store::orders::order_of_label(c, id))?;
        let Some(order_id) = order_id else {
            // A label made at the Ship form or over /v3: its return label stands on its own.
            let req = return_request(&stored, None);
            return Ok(self.create_label(env, req)?.into_data());
        };
        let order = self.stored_order(env, &order_id)?;
        // The order number of a label is unique per account: the return label's is the
        // order's with `-R` (`-R2`, ... for more).
        let number = match order.return_label_ids.len() {
            0 => format!("{}-R", order.order_number),
            n => format!("{}-R{}", order.order_number, n + 1),
        };
        let number = stored.order_number.as_ref().map(|_| number);
        let req = return_request(&stored, number);
        let shipment = OrderShipment {
            id: order.id.clone(),
            again: true,
            part: None,
            return_label: true,
            boxes: None,
        };
        let key = format!(
            "order:{}:return:{}:{}",
            order.id,
            outbound.id,
            order.return_label_ids.len()
        );
        self.create_label_for_order(env, &req, shipment, &key)
    }

    /// The order a returned parcel belongs to, by what its scan read: a return label's tracking
    /// number, the outbound label's, or the order number.
    pub fn lookup_return(&self, env: Env, code: &str) -> Result<ReturnLookup, ServiceError> {
        let code = code.trim();
        if code.is_empty() {
            return Err(ServiceError::invalid(
                "code",
                "scan the parcel's label or type its order number",
            ));
        }
        let (order, found_by) = match self.order_by_number(env, code)? {
            Some(o) => (o, ReturnFoundBy::OrderNumber),
            None => self.order_by_tracking_number(env, code)?,
        };
        self.returnable(order, found_by)
    }

    /// What of `order` can come back: refused when nothing of it was shipped.
    fn returnable(&self, order: Order, found_by: ReturnFoundBy) -> Result<ReturnLookup, ServiceError> {
        if !matches!(order.status, OrderStatus::Shipped | OrderStatus::PartiallyShipped) {
            return Err(ServiceError::at(
                ErrorCode::OperationNotAllowed,
                "code",
                format!(
                    "order {} is {}: nothing of it was shipped, so nothing can come back",
                    order.order_number,
                    order.status.as_str().replace('_', " ")
                ),
            ));
        }
        let returned = self.returned_quantities(&order)?;
        Ok(ReturnLookup {
            shipped: order.shipped_quantities(),
            returned,
            reasons: self.desk_settings()?.return_reasons,
            found_by,
            order,
        })
    }

    /// The order of the label with tracking number `number`.
    fn order_by_tracking_number(&self, env: Env, number: &str) -> Result<(Order, ReturnFoundBy), ServiceError> {
        let filter = LabelFilter {
            created_at_min: 0,
            created_at_max: i64::MAX,
            tracking_numbers: vec![number.to_string()],
            ..LabelFilter::default()
        };
        let found = self.store.read(|c| {
            for row in packdesk_store::labels::list(c, env, &filter, 5, None)?.rows {
                if let Some(order_id) = packdesk_store::orders::order_of_label(c, &row.id)? {
                    return Ok(Some((row, order_id)));
                }
            }
            Ok::<_, packdesk_store::StoreError>(None)
        })?;
        let Some((row, order_id)) = found else {
            return Err(ServiceError::said(
                ErrorCode::ItemNotFound,
                "code",
                Saying::NoOrderWithNumber,
                args([("number", &number)]),
            ));
        };
        let label: Label = serde_json::from_str(&row.record).map_err(ServiceError::internal)?;
        let by = match label.return_shipment {
            true => ReturnFoundBy::ReturnLabel,
            false => ReturnFoundBy::OutboundLabel,
        };
        Ok((self.stored_order(env, &order_id)?, by))
    }

    /// How many of each of the order's items came back already.
    fn returned_quantities(&self, order: &Order) -> Result<Vec<i64>, ServiceError> {
        let rows = self.store.read(|c| packdesk_store::returns::of_order(c, &order.id))?;
        let mut returned = vec![0; order.items.len()];
        for row in rows {
            let r: Return = serde_json::from_str(&row.record).map_err(ServiceError::internal)?;
            for item in r.items {
                if let Some(n) = returned.get_mut((item.line - 1) as usize) {
                    *n += item.quantity;
                }
            }
        }
        Ok(returned)
    }

    /// Records a returned parcel's contents against its order, with who and where.
    pub fn record_return(&self, env: Env, req: ReturnRequest) -> Result<Return, ServiceError> {
        let order = self.stored_order(env, &req.order_id).map_err(|e| match e.code {
            ErrorCode::ItemNotFound => not_found(&req.order_id),
            _ => e,
        })?;
        let lookup = self.returnable(order.clone(), ReturnFoundBy::OrderNumber)?;
        let mut p = packdesk_model::error::Problems::default();
        let mut items = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (i, line) in req.items.iter().enumerate() {
            let at = |field: &str| format!("items[{i}].{field}");
            let n = line.line - 1;
            if n < 0 || n as usize >= order.items.len() {
                p.invalid(
                    at("line"),
                    format!("order {} has lines 1 to {}", order.order_number, order.items.len()),
                );
                continue;
            }
            let n = n as usize;
            if !seen.insert(n) {
                p.invalid(at("line"), format!("{} is in the return twice", item_name(&order, n)));
                continue;
            }
            if line.quantity == 0 {
                continue;
            }
            let may = lookup.shipped[n] - lookup.returned[n];
            if line.quantity < 0 || line.quantity > may {
                p.invalid(
                    at("quantity"),
                    format!(
                        "{}: {} shipped and {} came back before, so 0 to {may} can come back now",
                        item_name(&order, n),
                        lookup.shipped[n],
                        lookup.returned[n]
                    ),
                );
            }
            let reason = line.reason.trim();
            if !lookup.reasons.iter().any(|r| r == reason) {
                p.invalid(
                    at("reason"),
                    format!(
                        "{}: choose a reason the desk keeps ({})",
                        item_name(&order, n),
                        lookup.reasons.join(", ")
                    ),
                );
            }
            let item = &order.items[n];
            items.push(ReturnedItem {
                line: line.line,
                sku: item.sku.clone(),
                description: item.description.clone(),
                quantity: line.quantity,
                reason: reason.to_string(),
                condition: line.condition,
            });
        }
        if items.is_empty() && p.is_empty() {
            p.invalid("items", "give the quantity of at least one item that came back");
        }
        p.into_result()?;
        let now = self.now_us();
        let record = Return {
            id: uuid::Uuid::new_v4().to_string(),
            order_id: order.id.clone(),
            order_number: order.order_number.clone(),
            label_ids: order.label_ids.clone(),
            return_label_ids: order.return_label_ids.clone(),
            scanned: req.scanned.map(|s| s.trim().to_string()).filter(|s| !s.is_empty()),
            items,
            notes: req.notes.map(|s| s.trim().to_string()).filter(|s| !s.is_empty()),
            operator: crate::audit::actor(),
            desk: self.desk_name(),
            created_at: crate::clock::iso_micros(now),
        };
        let row = ReturnRow {
            id: record.id.clone(),
            env,
            order_id: order.id.clone(),
            created_at: now,
            record: serde_json::to_string(&record).map_err(ServiceError::internal)?,
        };
        self.store.write(|tx| {
            packdesk_store::returns::insert(tx, &row)?;
            let count: i64 = record.items.iter().map(|i| i.quantity).sum();
            let detail = serde_json::json!({"order_number": record.order_number, "items": count});
            self.audit(tx, Some(env), "return.recorded", Some(&record.id), detail)
        })?;
        Ok(record)
    }

    /// The returns recorded from `from` to `to` (a date or an ISO 8601 time; a date `to` takes
    /// that whole day; default: all), newest first.
    pub fn list_returns(&self, env: Env, from: Option<&str>, to: Option<&str>) -> Result<ReturnList, ServiceError> {
        let bound = |field: &str, s: Option<&str>, end: bool| -> Result<Option<i64>, ServiceError> {
            let Some(s) = s.map(str::trim).filter(|s| !s.is_empty()) else {
                return Ok(None);
            };
            let t = crate::list::parse_time(field, s)?;
            let whole_day = end && crate::validate::parse_date(s).is_some();
            Ok(Some(t.timestamp_micros() + if whole_day { 86_400_000_000 } else { 0 }))
        };
        let (from, to) = (bound("from", from, false)?, bound("to", to, true)?);
        let rows = self
            .store
            .read(|c| packdesk_store::returns::list(c, env, from.unwrap_or(0), to.unwrap_or(i64::MAX), MAX_LISTED))?;
        let returns = rows
            .iter()
            .map(|r| serde_json::from_str(&r.record).map_err(ServiceError::internal))
            .collect::<Result<Vec<Return>, _>>()?;
        Ok(ReturnList { returns })
    }

    /// The returns as CSV for the shop's refunds: a row per returned item, oldest first.
    pub fn export_returns_csv(&self, env: Env, from: Option<&str>, to: Option<&str>) -> Result<String, ServiceError> {
        let mut list = self.list_returns(env, from, to)?.returns;
        list.reverse();
        use packdesk_documents::csv::{push_header, push_row, Cell};
        let mut out = String::new();
        push_header(&mut out, &RETURN_COLUMNS);
        for r in &list {
            for item in &r.items {
                push_row(
                    &mut out,
                    &[
                        Cell::Text(&r.created_at),
                        Cell::Text(&r.order_number),
                        Cell::Text(item.sku.as_deref().unwrap_or_default()),
                        Cell::Text(&item.description),
                        Cell::Count(item.quantity),
                        Cell::Text(&item.reason),
                        Cell::Text(item.condition.as_str()),
                        Cell::Text(&r.operator),
                        Cell::Text(&r.desk),
                        Cell::Text(r.scanned.as_deref().unwrap_or_default()),
                        Cell::Text(r.notes.as_deref().unwrap_or_default()),
                        Cell::Text(&r.id),
                    ],
                );
            }
        }
        Ok(out)
    }
}

/// Columns of `GET /desk/returns/export.csv`.
const RETURN_COLUMNS: [&str; 12] = [
    "returned_at",
    "order_number",
    "sku",
    "description",
    "quantity",
    "reason",
    "condition",
    "operator",
    "desk",
    "scanned",
    "notes",
    "return_id",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_return_request_swaps_the_addresses_and_drops_what_the_outbound_paid_for() {
        let outbound: LabelRequest = serde_json::from_value(serde_json::json!({
            "service_type": "yodel_48", "shipper_account": {"id": "a"},
            "shipment": {
                "ship_from": {"country": "GBR", "contact_name": "Shop"},
                "ship_to": {"country": "GBR", "contact_name": "Customer"},
                "parcels": [{"box_type": "custom", "weight": {"value": 1.0, "unit": "kg"},
                             "dimension": {"width": 1.0, "height": 1.0, "depth": 1.0, "unit": "cm"}, "items": []}]
            },
            "service_options": [{"type": "cod", "cod_value": {"amount": 10.0, "currency": "GBP"}}],
            "order_number": "1001"
        }))
        .unwrap();
        let r = return_request(&outbound, Some("1001-R".into()));
        assert_eq!(r.shipment.ship_from.contact_name.as_deref(), Some("Customer"));
        assert_eq!(r.shipment.ship_to.contact_name.as_deref(), Some("Shop"));
        assert!(r.return_shipment);
        assert!(r.service_options.is_none());
        assert_eq!(r.order_number.as_deref(), Some("1001-R"));
    }
}
