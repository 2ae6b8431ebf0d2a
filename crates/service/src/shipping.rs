//! Shipping an order: its preset (named, the order's, a rule's, the default) and the order make a
//! label request that goes through the same path as `POST /v3/labels`; then a packing slip, both
//! printed by their profiles, and the order marked shipped.
//!
//! The order is marked shipped in the label's own transaction: a crash leaves both or neither, and
//! two desks scanning one order make one label (the second is refused inside that transaction).

use crate::jobs::{Job, JobKind};
use crate::keys::Env;
use crate::orders::{cancelled, order_of, shipped_before, OrderShipment};
use crate::presets::{find, order_weight, packed_weight, resolve, ChosenBy};
use crate::Service;
use packdesk_carriers::registry::Carrier;
use packdesk_documents::packing_slip::{render_packing_slip_pdf, PackingSlip, SlipItem};
use packdesk_model::error::Problems;
use packdesk_model::order::{Order, OrderItem};
use packdesk_model::pack::{PackedBox, Weighed};
use packdesk_model::preset::{BatchOrder, Preset, ShipBatch, ShipBatchRequest, ShipOrderRequest, ShippedOrder};
use packdesk_model::record::{FileRef, Label};
use packdesk_model::request::{
    Address, Customs, CustomsPurpose, IdRef, Item, LabelRequest, Parcel, Shipment, TermsOfTrade, Weight,
};
use packdesk_model::said::{args, Saying};
use packdesk_model::status::{BatchOrderStatus, BatchStatus, OrderStatus, ReturnLabelWhen};
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::accounts::AccountRow;
use packdesk_store::batches::Outcome;

/// A weight a label may carry at the desk: above 0 (NaN is not).
fn weighed(w: &Weight) -> bool {
    w.value > 0.0
}

/// A weight as the operator reads it: `0 kg`.
fn weight_words(w: &Weight) -> String {
    format!("{} {}", w.value, w.unit.as_str())
}

/// Every parcel weighed, else a problem for each that is not, `saying` naming it (a parcel, or
/// the packed box it stands for) by its place, counted from 1.
fn all_weighed(parcels: &[Parcel], order: &Order, saying: Saying) -> Result<(), ServiceError> {
    let mut problems = Problems::default();
    for (i, parcel) in parcels.iter().enumerate().filter(|(_, x)| !weighed(&x.weight)) {
        problems.say(
            ErrorCode::InvalidRequest,
            format!("parcels[{i}].weight.value"),
            saying,
            args([
                ("n", &(i + 1)),
                ("order", &order.order_number),
                ("weight", &weight_words(&parcel.weight)),
            ]),
        );
    }
    problems.into_result()
}

/// The label's order number: the order's own for its first label, `-2`, `-3`... for more
/// (`made_before`: the order's labels before it).
fn label_order_number(o: &Order, made_before: usize) -> String {
    match made_before {
        0 => o.order_number.clone(),
        n => format!("{}-{}", o.order_number, n + 1),
    }
}

/// The order's items as /v3 items, when every one has a price and a weight (customs needs both;
/// a shop's order lines often have neither, and a domestic label needs no items).
fn label_items(o: &Order) -> Option<Vec<Item>> {
    let items: Vec<Item> = o
        .items
        .iter()
        .filter_map(|i| {
            Some(Item {
                description: i.description.clone(),
                origin_country: i.origin_country.clone(),
                quantity: i.quantity,
                price: i.price.clone()?,
                weight: i.weight?,
                sku: i.sku.clone(),
                hs_code: i.hs_code.clone(),
                item_id: i.item_id.clone(),
            })
        })
        .collect();
    (!items.is_empty() && items.len() == o.items.len()).then_some(items)
}

/// The customs declaration of an order shipped across a customs border, by its preset (purpose
/// merchandise and terms DDU unless the preset says otherwise), with its items as the declared
/// lines; refused naming what the items lack.
fn customs_of(order: &Order, preset: &Preset, from: &str, to: &str) -> Result<(Customs, Vec<Item>), ServiceError> {
    let mut missing = Vec::new();
    for (i, item) in order.items.iter().enumerate() {
        let name = match &item.sku {
            Some(sku) => format!("item {} ({sku})", i + 1),
            None => format!("item {}", i + 1),
        };
        let lacks: Vec<&str> = [
            (item.description.trim().is_empty(), "a description"),
            (item.price.is_none(), "a price"),
            (item.weight.is_none(), "a weight"),
        ]
        .into_iter()
        .filter_map(|(lacking, what)| lacking.then_some(what))
        .collect();
        if !lacks.is_empty() {
            missing.push(format!("{name} has no {}", lacks.join(" and no ")));
        }
    }
    if order.items.is_empty() {
        missing.push("it has no items to declare".into());
    }
    let items = match (missing.is_empty(), label_items(order)) {
        (true, Some(items)) => items,
        _ => {
            return Err(ServiceError::invalid(
                "items",
                format!(
                    "order {} goes from {from} to {to}, across a customs border: its customs declaration needs \
                     each item's description, price and weight, and {}. Edit the order's items, then ship it",
                    order.order_number,
                    missing.join("; ")
                ),
            ))
        }
    };
    let setting = preset.customs.clone().unwrap_or_default();
    let customs = Customs {
        purpose: setting.purpose.unwrap_or(CustomsPurpose::Merchandise),
        terms_of_trade: Some(setting.terms_of_trade.unwrap_or(TermsOfTrade::Ddu)),
        billing: None,
        importer_address: setting.importer_address,
    };
    Ok((customs, items))
}

/// The refusal of a cancelled order.
/// A preset's service must be able to carry the order where it goes (the carrier's countries,
/// a domestic or an international service) before a label is made: the refusal names the order,
/// the preset, how it was chosen and what the service cannot do, so a batch shows it per order.
fn check_route(
    order: &Order,
    preset: &Preset,
    by: &ChosenBy,
    carrier: &Carrier,
    ship_from: &Address,
) -> Result<(), ServiceError> {
    let from = ship_from.country.as_deref().unwrap_or("");
    let to = order.ship_to.country.as_deref().unwrap_or("");
    if from.is_empty() || to.is_empty() {
        // A country missing is the label's own check to name ("Sender country is required").
        return Ok(());
    }
    let why = carrier
        .route_refusal(&preset.service_type, from, to)
        .map(|refusal| refusal.words());
    match why {
        None => Ok(()),
        Some(why) => Err(ServiceError::at(
            ErrorCode::ServiceTypeUnavailable,
            "preset",
            format!(
                "order {} cannot ship with preset `{}` ({by}): {why}; choose a preset whose service goes there, or add a rule for it",
                order.order_number, preset.name
            ),
        )),
    }
}

/// The order as this label ships it: the items of `part` (how many of each), else what is left
/// after parts shipped before; the order's own weight and parcels were for the whole of it.
fn contents_of(mut order: Order, part: Option<&[i64]>) -> Order {
    if part.is_none() && order.partial_shipments.is_empty() {
        return order;
    }
    let quantities = part.map_or_else(|| order.remaining(), <[i64]>::to_vec);
    order.items = std::mem::take(&mut order.items)
        .into_iter()
        .zip(quantities)
        .filter(|(_, q)| *q > 0)
        .map(|(item, quantity)| OrderItem { quantity, ..item })
        .collect();
    order.weight = None;
    order.parcels = None;
    order
}

/// The parcels of an order packed into several boxes (how many of each of its items each holds):
/// each box a parcel with its items, weighing what the request's parcel for it says (one per box),
/// else what the box weighed on the scale, else its items with the preset's tare, else the
/// preset's weight; of the preset's box type.
fn box_parcels(
    order: &Order,
    boxes: &[PackedBox],
    preset: &Preset,
    given: Option<Vec<Parcel>>,
) -> Result<Vec<Parcel>, ServiceError> {
    if let Some(g) = given.as_ref().filter(|g| g.len() != boxes.len()) {
        return Err(ServiceError::invalid(
            "parcels",
            format!(
                "order {} is packed in {} boxes: give one parcel for each box ({} given)",
                order.order_number,
                boxes.len(),
                g.len()
            ),
        ));
    }
    let template = preset.parcel.clone().unwrap_or_default();
    let mut given = given.map(Vec::into_iter);
    let parcels = boxes
        .iter()
        .enumerate()
        .map(|(n, packed)| {
            let contents = contents_of(order.clone(), Some(&packed.quantities));
            let own = given.as_mut().and_then(|g| g.next());
            let weight = match (&own, packed.weight) {
                (Some(p), _) => p.weight,
                (None, Some(scale)) => scale,
                (None, None) => packed_weight(&contents, template.tare)
                    .or(template.weight)
                    .ok_or_else(|| {
                        ServiceError::said(
                            ErrorCode::InvalidRequest,
                            "parcels",
                            match packed.weighed {
                                // The open box: the packer has it in hand, the scale just read nothing.
                                Weighed::AsShipped => Saying::BoxNotOnScale,
                                Weighed::AsClosed => Saying::BoxOffScale,
                            },
                            args([
                                ("n", &(n + 1)),
                                ("order", &order.order_number),
                                ("preset", &preset.name),
                            ]),
                        )
                    })?,
            };
            Ok(Parcel {
                description: Some(format!("Box {} of {}", n + 1, boxes.len())),
                box_type: own.as_ref().and_then(|p| p.box_type).or(template.box_type),
                weight,
                dimension: own.and_then(|p| p.dimension).or(template.dimension),
                items: label_items(&contents),
            })
        })
        .collect::<Result<Vec<_>, ServiceError>>()?;
    // Checked here, where each parcel is still its box: a box labelled on its own is the
    // only parcel of its label, and "parcel 1" would not say which box.
    all_weighed(&parcels, order, Saying::BoxNotWeighed)?;
    Ok(parcels)
}

/// The packing slip's lines: each box's items in turn, else the label's items.
fn slip_items(whole: &Order, order: &Order, boxes: Option<&[Vec<i64>]>) -> Vec<SlipItem> {
    let line = |i: &OrderItem, quantity: i64, box_number: Option<usize>| SlipItem {
        sku: i.sku.clone(),
        description: i.description.clone(),
        quantity,
        box_number,
    };
    match boxes {
        None => order.items.iter().map(|i| line(i, i.quantity, None)).collect(),
        Some(boxes) => boxes
            .iter()
            .enumerate()
            .flat_map(|(b, quantities)| {
                whole
                    .items
                    .iter()
                    .zip(quantities)
                    .filter(|(_, q)| **q > 0)
                    .map(move |(i, q)| line(i, *q, Some(b + 1)))
            })
            .collect(),
    }
}

/// The label request of an order shipped by a preset (on its `account`); `made_before`: the
/// order's labels before this one (its order number's suffix).
fn label_request(
    account: &AccountRow,
    order: &Order,
    preset: &Preset,
    by: &ChosenBy,
    parcels: Option<Vec<Parcel>>,
    made_before: usize,
) -> Result<LabelRequest, ServiceError> {
    let carrier = packdesk_carriers::carrier(&account.slug);
    let ship_from = match &preset.ship_from {
        Some(a) => a.clone(),
        None => account
            .address
            .as_deref()
            .and_then(|a| serde_json::from_str::<Address>(a).ok())
            .ok_or_else(|| {
                ServiceError::invalid(
                    "preset",
                    format!("preset `{}` has no ship_from and its account no address", preset.name),
                )
            })?,
    };
    if let Some(c) = carrier {
        check_route(order, preset, by, c, &ship_from)?;
    }
    let parcels = match parcels.or_else(|| order.parcels.clone()).filter(|p| !p.is_empty()) {
        Some(p) => {
            // The desk labels weighed parcels only (the /v3 contract still takes 0 from API
            // clients): a label reading 0 kg is a parcel nobody weighed.
            all_weighed(&p, order, Saying::ParcelNotWeighed)?;
            p
        }
        None => {
            let template = preset.parcel.clone().unwrap_or_default();
            let weight = packed_weight(order, template.tare).or(template.weight).ok_or_else(|| {
                ServiceError::invalid(
                    "parcels",
                    format!(
                        "order {} has no weight and preset `{}` none to assume: weigh the parcel",
                        order.order_number, preset.name
                    ),
                )
            })?;
            if !weighed(&weight) {
                let from = match order_weight(order) {
                    Some(_) => "the order's weights".to_string(),
                    None => format!("preset `{}`", preset.name),
                };
                return Err(ServiceError::invalid(
                    "parcels",
                    format!(
                        "order {} weighs {} by {from}: weigh the parcel and give its weight above 0",
                        order.order_number,
                        weight_words(&weight),
                    ),
                ));
            }
            vec![Parcel {
                description: None,
                box_type: template.box_type,
                weight,
                dimension: template.dimension,
                items: label_items(order),
            }]
        }
    };
    // Across a customs border the parcel carries its declaration (and the invoice the preset
    // asks for), as the same shipment made at the Ship form or over /v3 does.
    let (from, to) = (
        ship_from.country.as_deref().unwrap_or(""),
        order.ship_to.country.as_deref().unwrap_or(""),
    );
    let mut parcels = parcels;
    let (customs, invoice) = match packdesk_carriers::countries::crosses_customs_border(from, to) {
        true => {
            let (customs, items) = customs_of(order, preset, from, to)?;
            if parcels.iter().all(|p| p.items.is_none()) {
                parcels[0].items = Some(items);
            }
            let invoice = preset.customs.as_ref().is_some_and(|c| c.invoice).then_some(None);
            (Some(customs), invoice)
        }
        false => (None, None),
    };
    // The order number goes on the label where the carrier takes it.
    let allows = |field: &str| carrier.is_some_and(|c| c.allows_field(field));
    Ok(LabelRequest {
        service_type: preset.service_type.clone(),
        shipper_account: IdRef {
            id: preset.shipper_account.id.clone(),
        },
        shipment: Shipment {
            ship_from,
            ship_to: order.ship_to.clone(),
            parcels,
            delivery_instructions: None,
        },
        is_async: false,
        return_shipment: false,
        paper_size: preset.paper_size,
        file_type: preset.file_type,
        ship_date: None,
        service_options: preset.service_options.clone(),
        is_document: false,
        invoice,
        references: allows("references").then(|| vec![order.order_number.clone()]),
        billing: None,
        customs,
        order_number: allows("order_number").then(|| label_order_number(order, made_before)),
        order_id: allows("order_id").then(|| order.id.clone()),
        postal_code_override: false,
    })
}

impl Service {
    /// Makes the label of an order by its preset, prints it and the packing slip, marks the order
    /// shipped (in the label's transaction). An order already shipped needs `again`; with
    /// `packed_only`, the label takes what is packed and the order stays partially shipped.
    pub fn ship_order(&self, env: Env, id: &str, req: ShipOrderRequest) -> Result<ShippedOrder, ServiceError> {
        let order = self.stored_order(env, id)?;
        match order.status {
            OrderStatus::Cancelled => return Err(cancelled(&order)),
            OrderStatus::Shipped if !req.again => return Err(self.store.read(|c| shipped_before(c, &order))?),
            _ => {}
        }
        let packing = self.packing_state(&order)?;
        let part = match req.packed_only {
            true => self.packed_part(&order, &packing)?,
            false => None,
        };
        if part.is_none() {
            self.check_packed(&order, &packing)?;
        }
        let shipped = order.clone();
        // What this label takes: the part packed, else what is left of the order.
        let order = contents_of(order, part.as_deref());
        let (presets, rules) = self.shipping_setup(env)?;
        let (preset, by) = match (&req.preset, &order.preset) {
            (Some(p), _) => (
                find(&presets, p).ok_or_else(|| ServiceError::invalid("preset", format!("no preset `{p}`")))?,
                ChosenBy::Asked,
            ),
            (None, Some(p)) => resolve(&presets, &rules, &order).ok_or_else(|| {
                ServiceError::invalid(
                    "preset",
                    format!(
                        "order {} names preset `{p}`, which this desk does not have",
                        order.order_number
                    ),
                )
            })?,
            (None, None) => resolve(&presets, &rules, &order).ok_or_else(|| {
                ServiceError::invalid(
                    "preset",
                    format!(
                        "no preset fits order {}: name one, add a rule, or make a preset the default",
                        order.order_number
                    ),
                )
            })?,
        };
        // Packed into several boxes (when the boxes hold what this shipment takes): each box a
        // parcel of the label, or a label of its own where the carrier takes one parcel a label.
        let taken = part.clone().unwrap_or_else(|| shipped.remaining());
        let boxes = self
            .packed_boxes(&shipped, &packing)?
            .filter(|b| (0..taken.len()).all(|n| b.iter().map(|x| x.quantities[n]).sum::<i64>() == taken[n]));
        let parcels = match &boxes {
            Some(b) => Some(box_parcels(&shipped, b, preset, req.parcels)?),
            None => req.parcels,
        };
        // Where the carrier puts fewer parcels under a label than there are boxes, the boxes go
        // in labels of as many as it takes (one each, mostly); not for an order shipped again,
        // whose boxes are no part of what it shipped before.
        let account = self.account_row(env, &preset.shipper_account.id, "preset")?;
        let per_label = packdesk_carriers::carrier(&account.slug).map_or(usize::MAX, |c| c.parcels_per_label as usize);
        let plan: Vec<PlannedLabel> = match (&boxes, parcels) {
            (Some(b), Some(p)) if b.len() > per_label && !req.again => b
                .chunks(per_label)
                .zip(p.chunks(per_label))
                .map(|(b, p)| PlannedLabel {
                    part: Some(
                        (0..taken.len())
                            .map(|n| b.iter().map(|x| x.quantities[n]).sum())
                            .collect(),
                    ),
                    parcels: Some(p.to_vec()),
                })
                .collect(),
            (_, parcels) => vec![PlannedLabel {
                part: part.clone(),
                parcels,
            }],
        };
        let count = plan.len();
        let mut planned = Vec::with_capacity(count);
        for (n, PlannedLabel { part, parcels }) in plan.into_iter().enumerate() {
            let contents = contents_of(shipped.clone(), part.as_deref());
            let made_before = shipped.label_ids.len() + n;
            let mut label_req = label_request(&account, &contents, preset, &by, parcels, made_before)?;
            label_req.postal_code_override = req.postal_code_override;
            let shipment = OrderShipment {
                id: shipped.id.clone(),
                again: req.again,
                part,
                return_label: false,
                boxes: (count > 1).then_some((n + 1, count)),
            };
            // An upstream's key for this shipment of the order: a scan sent again after its
            // timeout meets the label made meanwhile; shipping it again ("again") is another.
            let key = format!("order:{}:{made_before}", shipped.id);
            planned.push((label_req, shipment, key));
        }
        let (labels, stopped) = self.create_labels_for_order(env, &planned)?;
        if let Some(e) = stopped {
            return Err(boxes_labelled_before(e, &labels, count, &shipped));
        }
        let slip_boxes: Option<Vec<Vec<i64>>> = boxes.map(|b| b.into_iter().map(|b| b.quantities).collect());
        self.packing_slip(env, &shipped, &order, slip_boxes.as_deref(), &labels, &planned[0].0)?;
        // The return label goes in the box: made after the outbound, which stands whatever
        // becomes of it.
        let (return_label, return_label_error) = match preset.return_label {
            Some(ReturnLabelWhen::WithOutbound) => match self.make_return_label(env, &labels[0].id) {
                Ok(r) => (Some(r), None),
                Err(e) => {
                    tracing::warn!(order = %order.order_number, error = %e.chain(), "return label not made");
                    (None, Some(plain(&e)))
                }
            },
            None => (None, None),
        };
        let labels = labels
            .iter()
            .map(|l| self.get_label(env, &l.id))
            .collect::<Result<Vec<_>, _>>()?;
        let order = self.stored_order(env, id)?;
        Ok(ShippedOrder {
            order,
            label: labels[0].clone(),
            labels,
            return_label,
            return_label_error,
        })
    }

    /// Makes (once) the packing slip of an order's shipment and prints it by its profile: the
    /// items the labels take (`order`), or, packed into several `boxes`, each box's items of
    /// `whole`. It belongs to the first label and names every label's tracking numbers.
    fn packing_slip(
        &self,
        env: Env,
        whole: &Order,
        order: &Order,
        boxes: Option<&[Vec<i64>]>,
        labels: &[Label],
        req: &LabelRequest,
    ) -> Result<(), ServiceError> {
        let label = &labels[0];
        let document = packdesk_model::status::DocumentType::PackingSlip;
        let kind = packdesk_model::status::FileKind::PackingSlip;
        if self
            .store
            .read(|c| packdesk_store::files::of_owner(c, env, &label.id, kind))?
            .is_some()
        {
            return Ok(());
        }
        let doc = PackingSlip {
            order_number: order.order_number.clone(),
            date: label.ship_date.clone(),
            ship_from: crate::labels::address_with_country(&req.shipment.ship_from, false),
            ship_to: crate::labels::address_with_country(&order.ship_to, false),
            carrier_service: packdesk_carriers::service_type(&label.service_type)
                .map(|(c, s)| format!("{} {}", c.name, s.name))
                .unwrap_or_else(|| label.service_type.clone()),
            tracking_numbers: labels.iter().flat_map(|l| l.tracking_numbers.clone()).collect(),
            items: slip_items(whole, order, boxes),
            notes: order.notes.clone(),
            sample: env == Env::Sandbox,
            language: self.store.read(crate::settings::document_language)?,
        };
        let row = packdesk_store::files::FileRow {
            id: uuid::Uuid::new_v4().to_string(),
            env,
            owner_id: label.id.clone(),
            kind,
            file_type: "pdf".into(),
            paper_size: "a4".into(),
            bytes: render_packing_slip_pdf(&doc),
            created_at: self.now_us(),
        };
        // The label's record names its packing slip like its other documents (History offers it).
        let file_ref = FileRef {
            paper_size: row.paper_size.clone(),
            url: Service::file_path(&row.id),
            file_type: row.file_type.clone(),
        };
        let file_ref = serde_json::to_string(&file_ref).map_err(ServiceError::internal)?;
        // Its print job, when its profile prints on its own, in the slip's commit: a crash
        // leaves both or neither.
        let prints = self.auto_print_jobs(env, &label.id, false, &[document], |_| Some(row.id.clone()));
        self.store.write(|tx| {
            packdesk_store::files::insert(tx, &row)?;
            packdesk_store::labels::add_file(tx, &label.id, kind, &file_ref)?;
            self.queue_auto_prints(tx, &prints)
        })?;
        if !prints.is_empty() {
            self.wake_printer();
        }
        Ok(())
    }
}

/// Orders one batch may ship.
pub const MAX_ORDERS_PER_BATCH: usize = 5_000;

/// The stored request of one order's job in a batch.
#[derive(serde::Serialize, serde::Deserialize)]
struct ShipJob {
    batch_id: String,
    position: i64,
    order_id: String,
    preset: Option<String>,
    /// Labels the order had when the batch was made: more means this job shipped it already
    /// (a crash between the order being marked and the job being finished).
    labels_before: usize,
}

/// One label of an order's shipment: the part of the order it takes (none: all that is left)
/// and its parcels (none: the order's, or one by the preset).
struct PlannedLabel {
    part: Option<Vec<i64>>,
    parcels: Option<Vec<Parcel>>,
}

/// A box's label that failed after the boxes before it were labelled: the error says which
/// labels stand and what to do. The rest of the order keeps its boxes and their weights (its
/// packing starts again only once its last box is labelled): shipping it again labels them.
fn boxes_labelled_before(mut e: ServiceError, made: &[Label], count: usize, order: &Order) -> ServiceError {
    if made.is_empty() {
        return e;
    }
    let tracking: Vec<&str> = made
        .iter()
        .flat_map(|l| l.tracking_numbers.iter().map(String::as_str))
        .collect();
    let info = format!(
        "order {} is packed for {count} labels and {} of them were made (tracking {}); the rest were not, for the reason below. Its packing is kept: mend the cause and ship the order again to label the rest",
        order.order_number,
        made.len(),
        tracking.join(", "),
    );
    e.details.insert(0, packdesk_model::error::Detail::new("id", info));
    e
}

/// A failure in one line: each detail as `path: info`.
fn plain(e: &ServiceError) -> String {
    let parts: Vec<String> = e
        .details
        .iter()
        .map(|d| match d.path.is_empty() {
            true => d.info.clone(),
            false => format!("{}: {}", d.path, d.info),
        })
        .collect();
    match parts.is_empty() {
        true => e.message().to_string(),
        false => parts.join("; "),
    }
}

impl Service {
    /// Accepts a batch: answers it at once (every order `queued`) and ships the orders in the
    /// background, in the order given, through the job queue (a crash resumes where it stopped).
    pub fn ship_orders(&self, env: Env, req: ShipBatchRequest) -> Result<ShipBatch, ServiceError> {
        if req.order_ids.is_empty() {
            return Err(ServiceError::invalid("order_ids", "at least one order"));
        }
        if req.order_ids.len() > MAX_ORDERS_PER_BATCH {
            return Err(ServiceError::invalid(
                "order_ids",
                format!(
                    "{} orders; at most {MAX_ORDERS_PER_BATCH} in one batch",
                    req.order_ids.len()
                ),
            ));
        }
        let mut p = packdesk_model::error::Problems::default();
        let mut orders = Vec::with_capacity(req.order_ids.len());
        let mut seen = std::collections::HashSet::new();
        for (i, id) in req.order_ids.iter().enumerate() {
            if !seen.insert(id.as_str()) {
                p.invalid(format!("order_ids[{i}]"), format!("{id} is in the batch twice"));
                continue;
            }
            match self.store.read(|c| packdesk_store::orders::get(c, env, id))? {
                None => p.say(
                    ErrorCode::ItemNotFound,
                    format!("order_ids[{i}]"),
                    Saying::NoSuchOrder,
                    args([("id", &id)]),
                ),
                Some(row) => orders.push((
                    row.id.clone(),
                    row.order_number.clone(),
                    order_of(&row)?.label_ids.len(),
                )),
            }
        }
        if let Some(name) = &req.preset {
            let (presets, _) = self.shipping_setup(env)?;
            if find(&presets, name).is_none() {
                p.invalid("preset", format!("no preset `{name}`"));
            }
        }
        p.into_result()?;
        let batch_id = uuid::Uuid::new_v4().to_string();
        let jobs: Vec<(String, String)> = orders
            .iter()
            .enumerate()
            .map(|(i, (order_id, _, labels_before))| {
                let job = ShipJob {
                    batch_id: batch_id.clone(),
                    position: i as i64,
                    order_id: order_id.clone(),
                    preset: req.preset.clone(),
                    labels_before: *labels_before,
                };
                (
                    uuid::Uuid::new_v4().to_string(),
                    serde_json::to_string(&job).unwrap_or_default(),
                )
            })
            .collect();
        let numbers: Vec<(String, String)> = orders.into_iter().map(|(id, n, _)| (id, n)).collect();
        // One lane per batch: its orders ship one after another, in the order given.
        let lane = format!("batch:{batch_id}");
        self.accept_jobs(env, JobKind::ShipOrder, &lane, &jobs, |tx, now| {
            packdesk_store::batches::insert(tx, &batch_id, env, &numbers, now)?;
            let detail = serde_json::json!({"orders": numbers.len()});
            self.audit(tx, Some(env), "batch.started", Some(&batch_id), detail)
        })?;
        self.get_ship_batch(env, &batch_id)
    }

    pub fn get_ship_batch(&self, env: Env, id: &str) -> Result<ShipBatch, ServiceError> {
        let (created, rows) = self.store.read(|c| {
            let created = packdesk_store::batches::created_at(c, env, id)?;
            let rows = match created {
                Some(_) => packdesk_store::batches::orders(c, id)?,
                None => Vec::new(),
            };
            Ok::<_, ServiceError>((created, rows))
        })?;
        let created =
            created.ok_or_else(|| ServiceError::at(ErrorCode::ItemNotFound, "id", format!("no batch {id}")))?;
        let count = |s: BatchOrderStatus| rows.iter().filter(|r| r.status == s).count();
        let (shipped, failed) = (count(BatchOrderStatus::Shipped), count(BatchOrderStatus::Failed));
        let updated = rows.iter().map(|r| r.updated_at).max().unwrap_or(created);
        Ok(ShipBatch {
            id: id.into(),
            status: match shipped + failed == rows.len() {
                true => BatchStatus::Done,
                false => BatchStatus::Running,
            },
            total: rows.len(),
            shipped,
            failed,
            orders: rows
                .into_iter()
                .map(|r| BatchOrder {
                    order_id: r.order_id,
                    order_number: r.order_number,
                    status: r.status,
                    label_id: r.label_id,
                    tracking_numbers: r.tracking_numbers.split_whitespace().map(String::from).collect(),
                    info: r.info,
                })
                .collect(),
            created_at: crate::clock::iso_micros(created),
            updated_at: crate::clock::iso_micros(updated),
        })
    }

    /// Ships one order of a batch (a job worker runs this). A failure the operator must fix is
    /// the order's result, not the job's: the batch goes on.
    pub(crate) fn finish_ship_order(&self, job: &Job) -> Result<(), ServiceError> {
        let r: ShipJob = serde_json::from_str(&job.request).map_err(ServiceError::internal)?;
        let env = job.env;
        let done_before = self
            .stored_order(env, &r.order_id)
            .ok()
            .filter(|o| o.status == OrderStatus::Shipped && o.label_ids.len() > r.labels_before);
        let outcome = match done_before {
            // Its first label of this batch, as a run that was not cut short answers.
            Some(o) => Ok((
                o.label_ids.get(r.labels_before).cloned().unwrap_or_default(),
                o.tracking_numbers,
            )),
            None => {
                let req = ShipOrderRequest {
                    preset: r.preset.clone(),
                    parcels: None,
                    again: false,
                    postal_code_override: false,
                    packed_only: false,
                };
                self.ship_order(env, &r.order_id, req).map(|s| {
                    (
                        s.label.id,
                        s.labels.into_iter().flat_map(|l| l.tracking_numbers).collect(),
                    )
                })
            }
        };
        match outcome {
            Ok((label, tracking)) => self.finish_batch_order(
                job,
                &r,
                Outcome {
                    status: BatchOrderStatus::Shipped,
                    label_id: Some(&label),
                    tracking_numbers: &tracking.join(" "),
                    info: None,
                },
            ),
            Err(e) if e.retryable() => Err(e),
            Err(e) => self.fail_ship_order(job, &e),
        }
    }

    /// Finishes a batch order's job and records its result, in one transaction.
    fn finish_batch_order(&self, job: &Job, r: &ShipJob, o: Outcome) -> Result<(), ServiceError> {
        let now = self.now_us();
        self.store.write(|tx| {
            if !packdesk_store::jobs::finish(tx, &job.id, now)? {
                return Err(ServiceError::internal(format!("job {} was finished already", job.id)));
            }
            packdesk_store::batches::set_result(tx, &r.batch_id, r.position, o, now)?;
            Ok(())
        })
    }

    /// A batch order that failed (one the operator must fix, or a job failing after its retries):
    /// its result says why.
    pub(crate) fn fail_ship_order(&self, job: &Job, err: &ServiceError) -> Result<(), ServiceError> {
        let r: ShipJob = serde_json::from_str(&job.request).map_err(ServiceError::internal)?;
        let failed = Outcome {
            status: BatchOrderStatus::Failed,
            label_id: None,
            tracking_numbers: "",
            info: Some(&plain(err)),
        };
        self.finish_batch_order(job, &r, failed)
    }
}
