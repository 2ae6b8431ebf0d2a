//! Orders: what the desk ships from. Saved one by one or a thousand at a time (a shop's push, a
//! CSV import), found by the start of a word, cancelled by the shop, exported with their tracking
//! numbers for writing back.

use crate::keys::Env;
use crate::validate::{check_address, normalize_country};
use crate::Service;
use packdesk_model::error::Problems;
use packdesk_model::order::{Order, OrderList, OrderRequest, OrderSource, OrdersSaved, PartialShipment};
use packdesk_model::request::ListQuery;
use packdesk_model::said::{args, Saying};
use packdesk_model::status::OrderStatus;
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::db::Tx;
use packdesk_store::orders as table;
use packdesk_store::orders::{OrderFilter, OrderRow};
use packdesk_store::paging;

/// What saving one order did.
pub(crate) enum Upserted {
    Saved {
        order: Box<Order>,
        updated: bool,
    },
    /// The number belongs to a shipped order: why it was not changed.
    Shipped(String),
}

/// An order row's record.
pub(crate) fn order_of(row: &OrderRow) -> Result<Order, ServiceError> {
    serde_json::from_str(&row.record)
        .map_err(|e| ServiceError::internal(format!("order {} does not match its type: {e}", row.id)))
}

/// Orders one call may save.
pub const MAX_ORDERS_PER_CALL: usize = 1_000;

pub(crate) fn not_found(id: &str) -> ServiceError {
    ServiceError::said(ErrorCode::ItemNotFound, "id", Saying::NoSuchOrder, args([("id", &id)]))
}

/// The words an order is found by: its number, the recipient's name and company, postal code and
/// the items' SKUs.
fn search_text(o: &Order) -> String {
    let a = &o.ship_to;
    let mut words = vec![o.order_number.clone()];
    for v in [&a.contact_name, &a.company_name, &a.postal_code].into_iter().flatten() {
        words.push(v.clone());
    }
    words.extend(o.items.iter().filter_map(|i| i.sku.clone()));
    words.join(" ")
}

/// The refusal of a cancelled order.
pub(crate) fn cancelled(o: &Order) -> ServiceError {
    ServiceError::at(
        ErrorCode::OperationNotAllowed,
        "id",
        format!("order {} is cancelled", o.order_number),
    )
}

/// The refusal of an order shipped before, naming its label.
pub(crate) fn shipped_before(c: &mut Tx<'_>, o: &Order) -> Result<ServiceError, ServiceError> {
    // On a shared database the operator learns where too: another desk may have packed it.
    let desk = match o.label_ids.last() {
        Some(label) => packdesk_store::labels::desk_of(c, label)?,
        None => None,
    };
    let at_desk = desk
        .filter(|d| !d.is_empty())
        .map(|d| format!(" at desk {d}"))
        .unwrap_or_default();
    Ok(ServiceError::at(
        ErrorCode::OperationNotAllowed,
        "again",
        format!(
            "order {} was shipped{at_desk} on {} with label {} (tracking {}); send \"again\": true to ship it once more",
            o.order_number,
            o.shipped_at.as_deref().unwrap_or("?"),
            o.label_ids.last().map(String::as_str).unwrap_or("?"),
            o.tracking_numbers.join(", ")
        ),
    ))
}

/// The currency order items get when they come without one, and what chose it (said in an
/// import's answer).
#[derive(Debug, Clone)]
pub(crate) struct DefaultCurrency {
    pub code: String,
    pub chosen_by: String,
}

/// A currency as shops write it: a code in any case, or the symbol of one of the common three.
fn currency_code(typed: &str) -> String {
    match typed.trim() {
        "$" => "USD".into(),
        "€" => "EUR".into(),
        "£" => "GBP".into(),
        other => other.to_uppercase(),
    }
}

/// The country of this machine's locale (`de_DE.UTF-8` -> DEU), the desk's country when no
/// setting says.
fn locale_country() -> Option<&'static str> {
    ["LC_ALL", "LC_MONETARY", "LANG"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.is_empty())
        .and_then(|l| {
            let region = l.split(['.', '@']).next()?.split_once('_')?.1.to_string();
            packdesk_carriers::countries::find(&region).map(|c| c.alpha3)
        })
}

/// Checks one order, puts its country in ISO alpha-3 (a shop sends "Spain", "ES" or "ESP") and
/// its items' currencies in ISO 4217 (a missing one is `default_currency`'s). Answers how many
/// items got the default currency.
pub(crate) fn check_order(
    p: &mut Problems,
    path: &str,
    o: &mut OrderRequest,
    default_currency: Option<&DefaultCurrency>,
) -> usize {
    let mut filled = 0;
    let mut first_currency: Option<(usize, String)> = None;
    for (i, item) in o.items.iter_mut().enumerate() {
        let Some(price) = item.price.as_mut() else { continue };
        let at = format!("{path}items[{i}].price.currency");
        price.currency = currency_code(&price.currency);
        if price.currency.is_empty() {
            match default_currency {
                Some(d) => {
                    price.currency = d.code.clone();
                    filled += 1;
                }
                None => {
                    p.invalid(
                        at,
                        "is missing: give the item's currency (a three-letter code such as EUR), or set the desk \
                         setting default_currency",
                    );
                    continue;
                }
            }
        } else if !packdesk_carriers::countries::is_currency(&price.currency) {
            p.invalid(
                at,
                format!(
                    "`{}` is not a currency: use a three-letter ISO 4217 code such as EUR, GBP or USD",
                    price.currency
                ),
            );
            continue;
        }
        match &first_currency {
            None => first_currency = Some((i, price.currency.clone())),
            Some((j, c)) if *c != price.currency => p.invalid(
                at,
                format!(
                    "is {} while item {} is in {c}: an order's items are priced in one currency",
                    price.currency,
                    j + 1
                ),
            ),
            Some(_) => {}
        }
    }
    o.order_number = o.order_number.trim().to_string();
    let n = o.order_number.chars().count();
    if n == 0 {
        p.invalid(format!("{path}order_number"), "is required");
    } else if n > 64 {
        p.invalid(format!("{path}order_number"), format!("{n} characters; at most 64"));
    }
    normalize_country(p, &format!("{path}ship_to.country"), &mut o.ship_to.country);
    check_address(p, &format!("{path}ship_to"), &o.ship_to, None, true);
    p.keep_first_at(&format!("{path}ship_to.country"));
    for (i, item) in o.items.iter_mut().enumerate() {
        // A customs line's origin as any country is typed ("GB", "UK", "England" are GBR).
        normalize_country(p, &format!("{path}items[{i}].origin_country"), &mut item.origin_country);
        if item.description.trim().is_empty() {
            p.invalid(format!("{path}items[{i}].description"), "is required");
        }
        if item.quantity < 1 {
            p.invalid(format!("{path}items[{i}].quantity"), "must be 1 or more");
        }
    }
    if o.tags.len() > 20 {
        p.invalid(format!("{path}tags"), "at most 20 tags");
    }
    filled
}

impl Service {
    /// The currency of order items that come without one: the desk setting `default_currency`,
    /// else the currency of the desk's country (its locale); none when neither says.
    pub(crate) fn default_currency(&self) -> Result<Option<DefaultCurrency>, ServiceError> {
        if let Some(code) = self.desk_settings()?.default_currency {
            return Ok(Some(DefaultCurrency {
                code,
                chosen_by: "the desk setting default_currency".into(),
            }));
        }
        Ok(locale_country().and_then(|country| {
            packdesk_carriers::countries::currency_of(country).map(|code| DefaultCurrency {
                code: code.to_string(),
                chosen_by: format!("the currency of the desk's country, {country}; set default_currency to change it"),
            })
        }))
    }

    /// Saves orders: a new order number makes an order, an open (or cancelled) order with the
    /// number is updated, a shipped one is refused naming its label. All or none: a problem in
    /// any order is answered with its path (`orders[3].ship_to.country`) and nothing is saved.
    pub fn save_orders(
        &self,
        env: Env,
        mut orders: Vec<OrderRequest>,
        source: OrderSource,
        batch: bool,
    ) -> Result<OrdersSaved, ServiceError> {
        if orders.is_empty() {
            return Err(ServiceError::invalid("orders", "at least one order"));
        }
        if orders.len() > MAX_ORDERS_PER_CALL {
            return Err(ServiceError::invalid(
                "orders",
                format!("{} orders; at most {MAX_ORDERS_PER_CALL} at once", orders.len()),
            ));
        }
        let mut p = Problems::default();
        let mut seen = std::collections::HashMap::new();
        let default_currency = self.default_currency()?;
        for (i, o) in orders.iter_mut().enumerate() {
            let path = if batch { format!("orders[{i}].") } else { String::new() };
            check_order(&mut p, &path, o, default_currency.as_ref());
            if let Some(first) = seen.insert(o.order_number.clone(), i) {
                p.invalid(
                    format!("{path}order_number"),
                    format!("{} is also orders[{first}]", o.order_number),
                );
            }
        }
        p.into_result()?;
        let now = self.now_us();
        let (created, updated, saved) = self.store.write_long(|tx| {
            let numbers: Vec<&str> = orders.iter().map(|o| o.order_number.as_str()).collect();
            table::lock_numbers(tx, env, &numbers)?;
            let (mut created, mut updated, mut saved) = (0, 0, Vec::new());
            for (i, o) in orders.into_iter().enumerate() {
                // A microsecond apart: the orders of one call keep their order in the list.
                match self.upsert_order(tx, env, o, source, now + i as i64, true)? {
                    Upserted::Saved { order, updated: was } => {
                        match was {
                            true => updated += 1,
                            false => created += 1,
                        }
                        saved.push(*order);
                    }
                    Upserted::Shipped(why) => {
                        let path = if batch {
                            format!("orders[{i}].order_number")
                        } else {
                            "order_number".into()
                        };
                        return Err(ServiceError::at(ErrorCode::OperationNotAllowed, path, why));
                    }
                }
            }
            Ok((created, updated, saved))
        })?;
        Ok(OrdersSaved {
            created,
            updated,
            orders: saved,
        })
    }

    /// Makes or updates the order with this number (a checked request); `write` false only
    /// answers what it would do (a dry run). The caller has locked the numbers of all the
    /// orders its transaction saves, at once (`lock_numbers`: on a shared database two desks
    /// saving the same new number then make it once, and overlapping batches wait instead of
    /// deadlocking).
    pub(crate) fn upsert_order(
        &self,
        tx: &mut packdesk_store::db::Tx<'_>,
        env: Env,
        o: OrderRequest,
        source: OrderSource,
        now: i64,
        write: bool,
    ) -> Result<Upserted, ServiceError> {
        let old_row = table::by_number(tx, env, &o.order_number)?;
        let old = old_row.as_ref().map(order_of).transpose()?;
        if let Some(old) = old
            .as_ref()
            .filter(|o| matches!(o.status, OrderStatus::Shipped | OrderStatus::PartiallyShipped))
        {
            return Ok(Upserted::Shipped(format!(
                "order {} was shipped with label {}; void that label to change it",
                old.order_number,
                old.label_ids.last().map(String::as_str).unwrap_or("?")
            )));
        }
        let order = Order {
            id: old
                .as_ref()
                .map(|o| o.id.clone())
                .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
            order_number: o.order_number,
            status: OrderStatus::Open,
            ship_to: o.ship_to,
            items: o.items,
            parcels: o.parcels,
            weight: o.weight,
            tags: o.tags,
            notes: o.notes,
            preset: o.preset,
            // An order keeps where it came from when the desk or a later import changes it.
            source: old.as_ref().map(|o| o.source).unwrap_or(source),
            created_at: old
                .as_ref()
                .map(|o| o.created_at.clone())
                .unwrap_or_else(|| crate::clock::iso_micros(now)),
            updated_at: crate::clock::iso_micros(now),
            shipped_at: None,
            operator: old.as_ref().and_then(|o| o.operator.clone()),
            label_ids: old.as_ref().map(|o| o.label_ids.clone()).unwrap_or_default(),
            tracking_numbers: old.as_ref().map(|o| o.tracking_numbers.clone()).unwrap_or_default(),
            contents_verified: false,
            partial_shipments: Vec::new(),
            return_label_ids: old.as_ref().map(|o| o.return_label_ids.clone()).unwrap_or_default(),
            resolved_preset: None,
        };
        if write {
            let created_at = old_row.map(|r| r.created_at).unwrap_or(now);
            self.put_order(tx, env, &order, created_at, now)?;
        }
        Ok(Upserted::Saved {
            order: Box::new(order),
            updated: old.is_some(),
        })
    }

    fn put_order(
        &self,
        tx: &mut packdesk_store::db::Tx<'_>,
        env: Env,
        o: &Order,
        created_at: i64,
        now: i64,
    ) -> Result<(), ServiceError> {
        let row = OrderRow {
            id: o.id.clone(),
            env,
            order_number: o.order_number.clone(),
            status: o.status,
            record: serde_json::to_string(o).map_err(ServiceError::internal)?,
            created_at,
            updated_at: now,
        };
        table::put(tx, &row, &search_text(o))?;
        Ok(())
    }

    /// An order as stored (no preset resolved: what shipping and batches work from).
    pub(crate) fn stored_order(&self, env: Env, id: &str) -> Result<Order, ServiceError> {
        let row = self
            .store
            .read(|c| table::get(c, env, id))?
            .ok_or_else(|| not_found(id))?;
        order_of(&row)
    }

    /// Fills in the preset each open order would ship with now.
    fn resolve_presets(&self, env: Env, orders: &mut [Order]) -> Result<(), ServiceError> {
        let (presets, rules) = self.shipping_setup(env)?;
        for o in orders.iter_mut().filter(|o| o.to_ship()) {
            o.resolved_preset = crate::presets::resolve(&presets, &rules, o).map(|(p, _)| p.name.clone());
        }
        Ok(())
    }

    pub fn get_order(&self, env: Env, id: &str) -> Result<Order, ServiceError> {
        let mut o = [self.stored_order(env, id)?];
        self.resolve_presets(env, &mut o)?;
        let [o] = o;
        Ok(o)
    }

    /// The open order with this number (what a scan at the desk asks for).
    pub fn order_by_number(&self, env: Env, order_number: &str) -> Result<Option<Order>, ServiceError> {
        let row = self.store.read(|c| table::by_number(c, env, order_number.trim()))?;
        row.map(|r| order_of(&r)).transpose()
    }

    /// A page of orders, newest first: `status`, `s` (the start of a word of the order number,
    /// recipient, postal code or a SKU), `limit` (1..200, default 20), `next_token`.
    pub fn list_orders(&self, env: Env, q: &ListQuery) -> Result<OrderList, ServiceError> {
        let nonempty = |o: &Option<String>| o.clone().filter(|s| !s.trim().is_empty());
        let status = nonempty(&q.status);
        crate::list::check_status(status.as_deref(), OrderStatus::NAMES)?;
        let limit = crate::list::limit(q)?;
        let after = nonempty(&q.next_token).map(|t| paging::decode(&t)).transpose()?;
        let f = OrderFilter {
            status: status.as_deref().and_then(OrderStatus::parse),
            search: nonempty(&q.s),
        };
        let rows = self.store.read(|c| table::list(c, env, &f, limit, after.as_ref()))?;
        let page = paging::page(rows, limit, |r| paging::Cursor {
            created_at: r.created_at,
            id: r.id.clone(),
        });
        let mut orders: Vec<Order> = page.items.iter().map(order_of).collect::<Result<_, _>>()?;
        self.resolve_presets(env, &mut orders)?;
        Ok(OrderList {
            next_token: page.next_token,
            limit: limit as u32,
            orders,
        })
    }

    /// Cancels an open order (the shop cancelled it); a shipped order's label is voided first.
    pub fn cancel_order(&self, env: Env, id: &str) -> Result<Order, ServiceError> {
        let now = self.now_us();
        self.store.write(|tx| {
            // Locked: a desk shipping it meanwhile is waited for, then seen.
            let row = table::get_for_update(tx, env, id)?.ok_or_else(|| not_found(id))?;
            let mut o = order_of(&row)?;
            if matches!(o.status, OrderStatus::Shipped | OrderStatus::PartiallyShipped) {
                return Err(ServiceError::at(
                    ErrorCode::OperationNotAllowed,
                    "id",
                    format!(
                        "order {} is {} (label {}); void the label first",
                        o.order_number,
                        o.status.as_str().replace('_', " "),
                        o.label_ids.last().map(String::as_str).unwrap_or("?")
                    ),
                ));
            }
            o.status = OrderStatus::Cancelled;
            o.updated_at = crate::clock::iso_micros(now);
            self.put_order(tx, env, &o, row.created_at, now)?;
            let detail = serde_json::json!({"order_number": o.order_number});
            self.audit(tx, Some(env), "order.cancelled", Some(&o.id), detail)?;
            Ok(o)
        })
    }

    /// Marks the order shipped by the label (or, for a part, partially shipped), in the label's
    /// own transaction; refuses (rolling the label back) an order another desk shipped or
    /// cancelled meanwhile. Answers how many items the label took.
    pub(crate) fn mark_order_shipped(
        &self,
        tx: &mut packdesk_store::db::Tx<'_>,
        env: Env,
        shipment: &OrderShipment,
        label_id: &str,
        tracking_numbers: &[String],
        now: i64,
    ) -> Result<i64, ServiceError> {
        // Locked until the label commits (shared database): a second desk scanning the order
        // waits here, then finds it shipped.
        let order_id = shipment.id.as_str();
        let row = table::get_for_update(tx, env, order_id)?.ok_or_else(|| not_found(order_id))?;
        let mut o = order_of(&row)?;
        if shipment.return_label {
            o.return_label_ids.push(label_id.to_string());
            o.updated_at = crate::clock::iso_micros(now);
            self.put_order(tx, env, &o, row.created_at, now)?;
            table::link_label(tx, label_id, order_id)?;
            return Ok(0);
        }
        match o.status {
            OrderStatus::Cancelled => return Err(cancelled(&o)),
            OrderStatus::Shipped if !shipment.again => return Err(shipped_before(tx, &o)?),
            _ => {}
        }
        let items = match &shipment.part {
            Some(part) => {
                o.partial_shipments.push(PartialShipment {
                    label_id: label_id.to_string(),
                    quantities: part.clone(),
                });
                let done = o.remaining().iter().all(|left| *left <= 0);
                o.status = if done {
                    OrderStatus::Shipped
                } else {
                    OrderStatus::PartiallyShipped
                };
                // Labelled box by box, all of it: every item went through the packing list.
                o.contents_verified = done && shipment.boxes.is_some();
                // The rest is packed from an empty box; boxes labelled one by one keep the
                // packing until the last, so a failure between them loses no box's scans.
                if shipment.boxes.is_none_or(|(n, of)| n == of) {
                    self.keep_scan(tx, env, order_id, now, crate::packing::Kept::restart())?;
                }
                o.tracking_numbers.extend_from_slice(tracking_numbers);
                part.iter().sum()
            }
            None => {
                // Every item scanned at its packing list (issue 40): the order says its contents
                // were checked.
                o.contents_verified = !o.items.is_empty() && packdesk_store::packing::state(tx, &o)?.complete;
                let items = o.remaining().iter().sum();
                o.status = OrderStatus::Shipped;
                match o.partial_shipments.is_empty() {
                    true => o.tracking_numbers = tracking_numbers.to_vec(),
                    false => o.tracking_numbers.extend_from_slice(tracking_numbers),
                }
                items
            }
        };
        o.shipped_at = Some(crate::clock::iso_micros(now));
        o.operator = Some(crate::audit::actor());
        o.updated_at = crate::clock::iso_micros(now);
        o.label_ids.push(label_id.to_string());
        self.put_order(tx, env, &o, row.created_at, now)?;
        table::link_label(tx, label_id, order_id)?;
        // Its items, for the operator's day (Today).
        Ok(items)
    }

    /// A voided label gives its order back to the desk: open again, to ship with another label.
    pub(crate) fn reopen_order_of(
        &self,
        tx: &mut packdesk_store::db::Tx<'_>,
        env: Env,
        label: &packdesk_store::labels::LabelRow,
        now: i64,
    ) -> Result<(), ServiceError> {
        let Some(order_id) = table::order_of_label(tx, &label.id)? else {
            return Ok(());
        };
        let Some(row) = table::get_for_update(tx, env, &order_id)? else {
            return Ok(());
        };
        let mut o = order_of(&row)?;
        if let Some(at) = o.return_label_ids.iter().position(|l| *l == label.id) {
            // A voided return label leaves the order (another can be made).
            o.return_label_ids.remove(at);
            o.updated_at = crate::clock::iso_micros(now);
            return self.put_order(tx, env, &o, row.created_at, now);
        }
        // The voided label's numbers leave the order (its record holds them).
        let numbers: Vec<String> = serde_json::from_str::<serde_json::Value>(&label.record)
            .ok()
            .and_then(|r| serde_json::from_value(r["tracking_numbers"].clone()).ok())
            .unwrap_or_default();
        if let Some(part) = o.partial_shipments.iter().position(|p| p.label_id == label.id) {
            // A part's label voided: its items are to ship again. When the rest went out since,
            // the last label becomes a part of its own (what was left when it shipped).
            if o.status == OrderStatus::Shipped {
                if let Some(last) = o.label_ids.last().filter(|l| **l != label.id).cloned() {
                    let rest = o.remaining();
                    o.partial_shipments.push(PartialShipment {
                        label_id: last,
                        quantities: rest,
                    });
                }
            }
            o.partial_shipments.remove(part);
            o.status = OrderStatus::PartiallyShipped;
        } else if o.status == OrderStatus::Shipped && o.label_ids.last() == Some(&label.id) {
            o.status = OrderStatus::PartiallyShipped;
        } else {
            return Ok(());
        }
        if o.partial_shipments.is_empty() {
            o.status = OrderStatus::Open;
            o.shipped_at = None;
            o.operator = None;
        }
        o.contents_verified = false;
        o.tracking_numbers.retain(|n| !numbers.contains(n));
        o.updated_at = crate::clock::iso_micros(now);
        self.put_order(tx, env, &o, row.created_at, now)
    }
}

/// The order a label ships, as the label's transaction marks it.
#[derive(Debug, Clone)]
pub(crate) struct OrderShipment {
    pub id: String,
    /// It may have shipped before (a second label).
    pub again: bool,
    /// The part this label ships ("Ship what is packed"): how many of each item; none: all that
    /// is left.
    pub part: Option<Vec<i64>>,
    /// The label is the order's return label: it ships nothing of the order.
    pub return_label: bool,
    /// The label is box `n` of `of` (or a group of boxes) of an order labelled box by box, for a
    /// carrier that takes fewer parcels a label: the last one ends its packing.
    pub boxes: Option<(usize, usize)>,
}

/// Columns of `GET /desk/orders/export.csv`, what a shop's import of shipments reads back.
const EXPORT_COLUMNS: [&str; 10] = [
    "order_number",
    "status",
    "shipped_at",
    "carrier",
    "service_type",
    "tracking_numbers",
    "label_ids",
    "recipient",
    "country",
    "updated_at",
];

impl Service {
    /// Every order (or those of `status`), oldest first, as CSV with the carrier, service and
    /// tracking numbers of its last label; tracking numbers of a parcel set are joined by spaces.
    pub fn export_orders_csv(&self, env: Env, status: Option<&str>) -> Result<String, ServiceError> {
        let status = status.filter(|s| !s.trim().is_empty());
        crate::list::check_status(status, OrderStatus::NAMES)?;
        let f = OrderFilter {
            status: status.and_then(OrderStatus::parse),
            search: None,
        };
        let mut rows = Vec::new();
        let mut after = None;
        loop {
            let page = self.store.read(|c| table::list(c, env, &f, 500, after.as_ref()))?;
            let more = page.len() > 500;
            for r in page.into_iter().take(500) {
                after = Some(paging::Cursor {
                    created_at: r.created_at,
                    id: r.id.clone(),
                });
                rows.push(r);
            }
            if !more {
                break;
            }
        }
        use packdesk_documents::csv::{push_header, push_row, Cell};
        let mut out = String::new();
        push_header(&mut out, &EXPORT_COLUMNS);
        for r in rows.iter().rev() {
            let o = order_of(r)?;
            let label = o.label_ids.last().and_then(|id| self.get_label(env, id).ok());
            let (carrier, service) = match &label {
                Some(l) => (l.shipper_account.slug.clone(), l.service_type.clone()),
                None => (String::new(), String::new()),
            };
            let (tracking, labels) = (o.tracking_numbers.join(" "), o.label_ids.join(" "));
            push_row(
                &mut out,
                &[
                    Cell::Text(&o.order_number),
                    Cell::Text(o.status.as_str()),
                    Cell::Text(o.shipped_at.as_deref().unwrap_or_default()),
                    Cell::Text(&carrier),
                    Cell::Text(&service),
                    Cell::Text(&tracking),
                    Cell::Text(&labels),
                    Cell::Text(o.ship_to.contact_name.as_deref().unwrap_or_default()),
                    Cell::Text(o.ship_to.country.as_deref().unwrap_or_default()),
                    Cell::Text(&o.updated_at),
                ],
            );
        }
        Ok(out)
    }
}
