//! Create, list and retrieve labels.
//!
//! Creating a label: validate; price it from the rate card; reserve tracking serials (in memory);
//! render the documents (outside any lock, so labels render in parallel); then one transaction
//! registers the numbers, writes the label and its files. A number found issued already (an
//! overlapping range) is skipped and the label is drawn again.
//!
//! An account served by an upstream label service (`crate::upstream`) is checked the same way;
//! then the upstream makes the label, and its numbers and documents are written as ours are.

use crate::accounts::{pool_ranges, settings_of, tracking_scope};
use crate::allocator::Pool;
use crate::jobs::{Job, JobKind};
use crate::keys::Env;
use crate::reply::Reply;
use crate::validate::check_label_request;
use crate::Service;
use chrono::{Datelike, NaiveDate};
use packdesk_carriers::countries::country;
use packdesk_carriers::rates::{quote, ParcelMeasure, Quote};
use packdesk_carriers::{carrier, tracking, Carrier, ServiceTypeDef};
use packdesk_documents::customs::{render_customs_pdf, CustomsDoc};
use packdesk_documents::invoice::{render_invoice_pdf, DocItem, InvoiceDoc};
use packdesk_documents::{render_label_pdf, render_label_zpl, LabelPage, Paper};
use packdesk_model::record::*;
use packdesk_model::request::*;
use packdesk_model::status::{AccountStatus, FileKind};
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::accounts::AccountRow;
use packdesk_store::db::Tx;
use packdesk_store::files::FileRow;
use packdesk_store::labels as table;
use packdesk_store::labels::{InsertError, LabelFilter, LabelRow, OwnedMade};
use packdesk_store::paging;
use packdesk_store::timing::{time, Phase};
use serde_json::{json, Value};

pub const LABEL_STATUSES: &[&str] = LabelStatus::NAMES;

/// Why a label was not made.
enum Unmade {
    /// Its account changed since it was read: read it again and make the label anew.
    AccountChanged,
    Failed(ServiceError),
}

impl From<ServiceError> for Unmade {
    fn from(e: ServiceError) -> Self {
        Unmade::Failed(e)
    }
}

impl From<Unmade> for ServiceError {
    fn from(e: Unmade) -> Self {
        match e {
            Unmade::AccountChanged => account_changed(),
            Unmade::Failed(e) => e,
        }
    }
}

/// Why a label write did not commit.
enum WriteError {
    /// The serial was issued before (overlapping ranges): skip it and draw again.
    Taken(u64),
    /// The account changed since it was read (at another desk): read it again and make the
    /// label anew.
    AccountChanged,
    Service(ServiceError),
}

impl From<packdesk_store::StoreError> for WriteError {
    fn from(e: packdesk_store::StoreError) -> Self {
        WriteError::Service(e.into())
    }
}

impl From<ServiceError> for WriteError {
    fn from(e: ServiceError) -> Self {
        WriteError::Service(e)
    }
}

impl From<InsertError> for WriteError {
    fn from(e: InsertError) -> Self {
        match e {
            InsertError::NumberTaken(serial) => WriteError::Taken(serial),
            InsertError::AccountChanged => WriteError::AccountChanged,
            e => WriteError::Service(insert_error(e)),
        }
    }
}

fn insert_error(e: InsertError) -> ServiceError {
    match e {
        InsertError::DuplicateOrderNumber => ServiceError::at(
            ErrorCode::DuplicateOrderNumber,
            "order_number",
            "this order_number is on another label of this shipper account",
        ),
        InsertError::NumberTaken(_) => ServiceError::at(
            ErrorCode::InternalRetry,
            "shipper_account.id",
            "a tracking number drawn for this label was issued before; try again",
        ),
        InsertError::AccountChanged => account_changed(),
        InsertError::Db(e) => e.into(),
    }
}

/// A label whose account changed while it was made, again after the account was read anew.
fn account_changed() -> ServiceError {
    ServiceError::at(
        ErrorCode::InternalRetry,
        "shipper_account.id",
        "the shipper account changed while the label was made (at another desk); send the label again",
    )
}

/// The address as printed. `latin`: an international document, where each line in another script
/// gets its Latin transliteration beside it (for the carriers and customs along the way).
fn address_lines(a: &Address, latin: bool) -> Vec<String> {
    let mut lines: Vec<String> = [&a.contact_name, &a.company_name, &a.street1, &a.street2, &a.street3]
        .into_iter()
        .flatten()
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().to_string())
        .collect();
    let city_line = [a.postal_code.as_deref(), a.city.as_deref(), a.state.as_deref()]
        .into_iter()
        .flatten()
        .filter(|s| !s.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if !city_line.is_empty() {
        lines.push(city_line);
    }
    if latin {
        lines = lines.iter().map(|l| packdesk_documents::translit::beside(l)).collect();
    }
    lines
}

/// The sort code hubs route by: the country's two letters and the postcode's outward part (the
/// part before a space, as UK and Irish postcodes are sorted; the whole code elsewhere).
fn routing_code(a: &Address) -> String {
    let alpha3 = a.country.as_deref().unwrap_or("");
    let cc = country(alpha3)
        .map(|c| c.alpha2.to_string())
        .unwrap_or_else(|| alpha3.to_string());
    let postcode = a.postal_code.as_deref().unwrap_or("").trim();
    let outward = postcode.split_whitespace().next().unwrap_or("");
    format!("{cc} {outward}").trim().to_uppercase()
}

/// The service in the box sorters read first: the service type without the carrier's prefix,
/// its initials when long ("uk_express_24" -> "UE24").
fn service_code(service_type: &str, slug: &str) -> String {
    let own = service_type
        .strip_prefix(slug)
        .map(|s| s.trim_start_matches(['_', '-']))
        .unwrap_or(service_type);
    if own.len() <= 5 {
        return own.to_uppercase();
    }
    own.split(['_', '-'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            if w.chars().all(|c| c.is_ascii_digit()) {
                w.to_string()
            } else {
                w.chars().next().unwrap().to_ascii_uppercase().to_string()
            }
        })
        .collect::<String>()
        .chars()
        .take(6)
        .collect()
}

/// The 2D code a carrier's labels carry: Data Matrix where postal operators and European parcel
/// carriers use it (Mailmark, Deutsche Post, Correos, DPD), QR elsewhere.
fn two_d_symbology(slug: &str) -> packdesk_documents::matrix::Symbology {
    use packdesk_documents::matrix::Symbology;
    match slug {
        "dhl-germany" | "whistl" | "spain-correos-es" | "dpd-uk" | "yodel" | "apc-overnight" | "quantium"
        | "asendia-hk" | "ups-mi" | "mondialrelay" | "tipsa" => Symbology::DataMatrix,
        _ => Symbology::Qr,
    }
}

fn country_name(alpha3: &str) -> String {
    country(alpha3)
        .map(|c| c.name.to_uppercase())
        .unwrap_or_else(|| alpha3.to_string())
}

/// Address lines followed by the country's name, as documents show a full address.
pub(crate) fn address_with_country(a: &Address, latin: bool) -> Vec<String> {
    let mut l = address_lines(a, latin);
    l.push(country_name(a.country.as_deref().unwrap_or("")));
    l
}

fn fmt_weight(w: &Weight) -> String {
    let v = if w.value.fract() == 0.0 {
        format!("{}", w.value)
    } else {
        format!("{:.2}", w.value)
    };
    format!("{v} {}", w.unit.as_str())
}

fn notes(req: &LabelRequest) -> Vec<String> {
    let mut out = Vec::new();
    for o in req.service_options.iter().flatten() {
        match o.variant() {
            "cod" => {
                if let Some(m) = &o.cod_value {
                    out.push(format!("CASH ON DELIVERY {:.2} {}", m.amount, m.currency));
                }
            }
            "insurance" => {
                if let Some(m) = &o.insured_value {
                    out.push(format!("INSURED {:.2} {}", m.amount, m.currency));
                }
            }
            "pickup" => out.push(format!(
                "PICKUP {}-{}",
                o.start_time.as_deref().unwrap_or(""),
                o.end_time.as_deref().unwrap_or("")
            )),
            _ if o.enabled == Some(true) => out.push(o.option_type.replace('_', " ").to_uppercase()),
            _ => {}
        }
    }
    if req.return_shipment {
        out.push("RETURN SHIPMENT".into());
    }
    if req.is_document {
        out.push("DOCUMENTS".into());
    }
    out
}

fn paper_of(size: PaperSize) -> Paper {
    let (w, h) = size.size_mm().unwrap_or((101.6, 152.4));
    Paper {
        width_mm: w,
        height_mm: h,
    }
}

fn doc_items(req: &LabelRequest) -> Vec<DocItem> {
    req.shipment
        .parcels
        .iter()
        .flat_map(|p| p.items.iter().flatten())
        .map(|it| DocItem {
            description: it.description.clone(),
            quantity: it.quantity,
            unit_price: it.price.amount,
            currency: it.price.currency.clone(),
            weight_kg: it.weight.kg(),
            hs_code: it.hs_code.clone(),
            origin_country: it.origin_country.clone(),
            sku: it.sku.clone(),
        })
        .collect()
}

/// A new label's or document's id: a UUID whose first bits are the time (version 7), so the
/// indexes on ids (the label's, its files', its numbers', its log entries') grow at their end,
/// where labels made together share their pages, instead of each label changing pages all over
/// them (issue 42: five of a label's twenty-four WAL pages).
fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// The rate entry of a quote.
pub fn rate_entry(account: &AccountRow, service: &ServiceTypeDef, q: &Quote, ship_date: NaiveDate) -> RateEntry {
    let mut delivery = ship_date;
    let mut days = q.transit_days;
    // Transit days are working days.
    while days > 0 {
        delivery = delivery.succ_opt().unwrap_or(delivery);
        if delivery.weekday().number_from_monday() <= 5 {
            days -= 1;
        }
    }
    RateEntry {
        shipper_account: AccountRefDescribed {
            id: account.id.clone(),
            slug: account.slug.clone(),
            description: account.description.clone(),
        },
        service_type: Some(service.service_type.clone()),
        service_name: Some(service.name.clone()),
        pickup_deadline: None,
        booking_cut_off: None,
        delivery_date: Some(delivery.format("%Y-%m-%d").to_string()),
        transit_time: Some(q.transit_days),
        error_message: None,
        info_message: None,
        charge_weight: Some(WeightValue {
            value: q.charge_weight_kg,
            unit: "kg".into(),
        }),
        total_charge: Some(Amount {
            amount: q.total,
            currency: q.currency.clone(),
        }),
        detailed_charges: q
            .charges
            .iter()
            .map(|(t, a)| DetailedCharge {
                charge_type: t.clone(),
                charge: Amount {
                    amount: *a,
                    currency: q.currency.clone(),
                },
            })
            .collect(),
    }
}

pub fn parcel_measures(s: &Shipment) -> Vec<ParcelMeasure> {
    s.parcels
        .iter()
        .map(|p| ParcelMeasure {
            kg: p.weight.kg(),
            volume_cm3: p.dimension.as_ref().map(|d| d.volume_cm3()),
        })
        .collect()
}

/// Everything a label needs once its numbers are known.
struct Draft<'a> {
    env: Env,
    req: &'a LabelRequest,
    account: AccountRow,
    carrier: &'static Carrier,
    service: &'static ServiceTypeDef,
    ship_date: NaiveDate,
    paper: PaperSize,
    file_type: FileType,
    rate: RateEntry,
    /// Where its tracking numbers come from.
    scheme: &'static packdesk_carriers::registry::Scheme,
    /// The pool's ranges, in the order they are used, and the pool's name.
    ranges: Vec<TrackingRange>,
    pool: &'static str,
    scope: String,
    /// The desk order this label ships (marked shipped in the label's own transaction).
    ships_order: Option<crate::orders::OrderShipment>,
    /// The upstream label service that makes it (none: this desk does).
    upstream: Option<crate::upstream::UpstreamAccount>,
    /// What names the request for an upstream's `Idempotency-Key` (the caller's key, an order's
    /// shipment); none: the job's id, or nothing (a one-off request).
    upstream_name: Option<crate::upstream::Name<'a>>,
    /// The account as this desk read it a while ago (`accounts::AccountsSeen`): a refusal on
    /// what it says is checked against the account read now.
    account_kept: bool,
}

/// A label's content, whoever made it: its numbers (and, made here, their serials), documents
/// and rate.
struct Made {
    id: String,
    serials: Vec<u64>,
    numbers: Vec<String>,
    /// (kind, file_type, paper_size, bytes) of every document.
    documents: Vec<(FileKind, String, String, Vec<u8>)>,
    rate: Option<RateEntry>,
    /// The ship date the label carries (an upstream may have chosen its own).
    ship_date: String,
    /// The label's id at the upstream that made it.
    upstream_id: Option<String>,
    /// Whose numbers they are, each issued once: the carrier's slug for numbers drawn here; for
    /// an upstream's, the slug at that upstream (its numbers may coincide with this desk's own
    /// ranges, as sandbox sample ranges do, and are still found by number).
    issuer: String,
}

impl Draft<'_> {
    /// What History's search finds a label by: tracking numbers, references, order number and id,
    /// the recipient's name, company and postal code (space separated; its words are indexed).
    fn search_text(&self, numbers: &[String]) -> String {
        let to = &self.req.shipment.ship_to;
        let mut words: Vec<&str> = numbers.iter().map(String::as_str).collect();
        words.extend(self.req.references.iter().flatten().map(String::as_str));
        for s in [
            &self.req.order_number,
            &self.req.order_id,
            &to.contact_name,
            &to.company_name,
            &to.postal_code,
        ]
        .into_iter()
        .flatten()
        {
            words.push(s);
        }
        // Names are found without their accents and, in another script, by their Latin
        // spelling (the label prints it): "Chloe" finds Chloé, "Petrov" finds Петров.
        let spellings: Vec<String> = [&to.contact_name, &to.company_name]
            .into_iter()
            .flatten()
            .flat_map(|name| packdesk_documents::translit::search_spellings(name))
            .collect();
        words.extend(spellings.iter().map(String::as_str));
        packdesk_store::labels::plain_words(words)
    }

    /// The label record in `status`, with what is known of it so far.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        id: &str,
        status: LabelStatus,
        numbers: &[String],
        files: Option<LabelFiles>,
        rate: Option<RateEntry>,
        created: i64,
        now: i64,
    ) -> Label {
        Label {
            id: id.to_string(),
            status,
            ship_date: self.ship_date.to_string(),
            tracking_numbers: numbers.to_vec(),
            files,
            rate,
            references: self.req.references.clone().unwrap_or_default(),
            shipper_account: AccountRef {
                id: self.account.id.clone(),
                slug: self.account.slug.clone(),
            },
            service_type: self.req.service_type.clone(),
            service_options: self.req.service_options.clone().unwrap_or_default(),
            order_number: self.req.order_number.clone(),
            order_id: self.req.order_id.clone(),
            postal_code_override: self.req.postal_code_override,
            return_shipment: self.req.return_shipment,
            created_at: crate::clock::iso_micros(created),
            updated_at: crate::clock::iso_micros(now),
        }
    }

    /// The total weight of the parcels, kilograms.
    fn weight_kg(&self) -> f64 {
        self.req.shipment.parcels.iter().map(|p| p.weight.kg()).sum()
    }

    /// Sender and recipient in different countries.
    fn international(&self) -> bool {
        let s = &self.req.shipment;
        s.ship_from.country.as_deref().unwrap_or("") != s.ship_to.country.as_deref().unwrap_or("")
    }

    fn label_pages(&self, numbers: &[String]) -> Vec<LabelPage> {
        let s = &self.req.shipment;
        let international = self.international();
        let n = s.parcels.len();
        s.parcels
            .iter()
            .zip(numbers)
            .enumerate()
            .map(|(i, (p, tn))| LabelPage {
                carrier_name: self.carrier.name.clone(),
                service_name: self.service.name.clone(),
                tracking_number: tn.clone(),
                parcel_index: i + 1,
                parcel_count: n,
                weight: fmt_weight(&p.weight),
                ship_from: address_with_country(&s.ship_from, international),
                ship_to: address_lines(&s.ship_to, international),
                ship_to_country: country_name(s.ship_to.country.as_deref().unwrap_or("")),
                ship_to_phone: s.ship_to.phone.clone(),
                routing_code: routing_code(&s.ship_to),
                service_code: service_code(&self.service.service_type, &self.carrier.slug),
                two_d: Some((
                    two_d_symbology(&self.carrier.slug),
                    // Characters of QR's alphanumeric mode, which a printer's automatic mode picks.
                    format!(
                        "{tn}/{}/{}",
                        s.ship_to.postal_code.as_deref().unwrap_or("").trim(),
                        s.ship_to.country.as_deref().unwrap_or("")
                    )
                    .to_uppercase(),
                )),
                references: self.req.references.clone().unwrap_or_default(),
                ship_date: self.ship_date.to_string(),
                order_number: self.req.order_number.clone(),
                notes: notes(self.req),
                sample: self.env == Env::Sandbox,
                paper: paper_of(self.paper),
            })
            .collect()
    }

    /// (kind, file_type, paper_size, bytes) of every document of the label.
    fn render(&self, numbers: &[String], label_id: &str) -> Vec<(FileKind, String, String, Vec<u8>)> {
        let pages = self.label_pages(numbers);
        let mut files = Vec::new();
        match self.file_type {
            FileType::Pdf => files.push((FileKind::Label, "pdf", self.paper.as_str(), render_label_pdf(&pages))),
            FileType::Zpl => files.push((
                FileKind::Label,
                "zpl",
                self.paper.as_str(),
                render_label_zpl(&pages, 203).into_bytes(),
            )),
        }
        let s = &self.req.shipment;
        if let Some(inv) = &self.req.invoice {
            let inv = inv.clone().unwrap_or(Invoice {
                date: None,
                number: None,
                invoice_type: None,
                number_of_copies: None,
            });
            let doc = InvoiceDoc {
                title: if inv.invoice_type == Some(InvoiceType::Proforma) {
                    "PRO FORMA INVOICE"
                } else {
                    "COMMERCIAL INVOICE"
                }
                .into(),
                number: inv
                    .number
                    .or_else(|| self.req.order_number.clone())
                    .unwrap_or_else(|| label_id[..8].to_uppercase()),
                date: inv.date.unwrap_or_else(|| self.ship_date.to_string()),
                copies: inv.number_of_copies.unwrap_or(1).clamp(1, 4) as u32,
                seller: address_with_country(&s.ship_from, true),
                buyer: address_with_country(&s.ship_to, true),
                carrier_service: format!("{} {}", self.carrier.name, self.service.name),
                tracking_numbers: numbers.to_vec(),
                terms_of_trade: self
                    .req
                    .customs
                    .as_ref()
                    .and_then(|c| c.terms_of_trade)
                    .map(|t| t.as_str().to_string()),
                reason: self.req.customs.as_ref().map(|c| c.purpose.as_str().to_string()),
                items: doc_items(self.req),
                sample: self.env == Env::Sandbox,
            };
            files.push((FileKind::Invoice, "pdf", "a4", render_invoice_pdf(&doc)));
        }
        if let (Some(c), true) = (&self.req.customs, self.international()) {
            let doc = CustomsDoc {
                tracking_number: numbers.first().cloned().unwrap_or_default(),
                sender: address_with_country(&s.ship_from, true),
                addressee: address_with_country(&s.ship_to, true),
                importer: c
                    .importer_address
                    .as_ref()
                    .map(|a| address_with_country(a, true))
                    .unwrap_or_default(),
                purpose: c.purpose.as_str().into(),
                terms_of_trade: c.terms_of_trade.map(|t| t.as_str().to_string()),
                duties_paid_by: c.billing.as_ref().map(|b| format!("{:?}", b.paid_by).to_lowercase()),
                items: doc_items(self.req),
                date: self.ship_date.to_string(),
                sample: self.env == Env::Sandbox,
            };
            files.push((FileKind::CustomsDeclaration, "pdf", "a4", render_customs_pdf(&doc)));
        }
        files
            .into_iter()
            .map(|(kind, file_type, paper, bytes)| (kind, file_type.into(), paper.into(), bytes))
            .collect()
    }
}

impl Service {
    /// Creates a label now, or (with `async: true`) accepts it in status `creating` and lets a
    /// worker create it.
    pub fn create_label(&self, env: Env, req: LabelRequest) -> Result<Reply<Label>, ServiceError> {
        self.create_label_keyed(env, req, None)
    }

    /// `create_label` for a request that came with an `Idempotency-Key` (an upstream gets one
    /// derived from it).
    pub fn create_label_keyed(
        &self,
        env: Env,
        req: LabelRequest,
        key: Option<&str>,
    ) -> Result<Reply<Label>, ServiceError> {
        let prepare = || {
            let mut draft = time(Phase::Check, || self.prepare_label(env, &req, None, None))?;
            draft.upstream_name = key.map(crate::upstream::Name::Caller);
            Ok::<_, ServiceError>(draft)
        };
        let draft = prepare()?;
        if req.is_async {
            // The job keeps the ship date of the day it was accepted, whenever it runs.
            let mut stored = req.clone();
            stored.ship_date = Some(draft.ship_date.to_string());
            return self.accept_label(&draft, &stored)?.typed();
        }
        let label = match self.produce_label(&draft, None) {
            // Changed at another desk since this desk read it (`accounts::AccountsSeen`), or its
            // ranges as read used up: read anew, checked again, made again.
            Err(Unmade::AccountChanged) => self.produce_label(&prepare()?, None)?,
            Err(Unmade::Failed(e)) if draft.account_kept && e.code == ErrorCode::TrackingNumbersExhausted => {
                self.accounts_seen.forget(&draft.account.id);
                self.produce_label(&prepare()?, None)?
            }
            made => made?,
        };
        Ok(Reply::done(label))
    }

    /// Checks a label request against the account, the carrier's rules and its rate card, and
    /// resolves what the label will be. For a job, "today" is the day it was accepted and its own
    /// row already holds the order_number.
    fn prepare_label<'a>(
        &self,
        env: Env,
        req: &'a LabelRequest,
        job: Option<&Job>,
        ships_order: Option<crate::orders::OrderShipment>,
    ) -> Result<Draft<'a>, ServiceError> {
        let id = &req.shipper_account.id;
        // A label of no job or order is made with the account as this desk read it last (its
        // write makes sure it is still so); the others read it now.
        // (An async label is only accepted here: it is written without its account checked.)
        let (account, kept) = match (job, &ships_order) {
            (None, None) if !req.is_async => self.label_account(env, id, "shipper_account.id")?,
            _ => {
                let account = self.account_row(env, id, "shipper_account.id")?;
                return self.prepare_label_for(env, req, job, ships_order, account, false);
            }
        };
        match self.prepare_label_for(env, req, job, None, account, kept) {
            // Refused on the account as read a while ago: on the account as it is now.
            Err(_) if kept => {
                self.accounts_seen.forget(id);
                let (account, _) = self.label_account(env, id, "shipper_account.id")?;
                self.prepare_label_for(env, req, job, None, account, false)
            }
            prepared => prepared,
        }
    }

    fn prepare_label_for<'a>(
        &self,
        env: Env,
        req: &'a LabelRequest,
        job: Option<&Job>,
        ships_order: Option<crate::orders::OrderShipment>,
        account: AccountRow,
        account_kept: bool,
    ) -> Result<Draft<'a>, ServiceError> {
        if account.status != AccountStatus::Enabled {
            return Err(ServiceError::invalid(
                "shipper_account.id",
                "the shipper account is disabled",
            ));
        }
        let c = carrier(&account.slug).ok_or_else(|| ServiceError::internal("account of an unknown carrier"))?;
        let tz = crate::ship_dates::timezone_of(&account);
        let now = match job {
            Some(j) => chrono::DateTime::from_timestamp_micros(j.accepted_at).unwrap_or_else(|| self.clock.now()),
            None => self.clock.now(),
        };
        let settings = settings_of(&account);
        let (today, default_ship_date, _) = crate::ship_dates::default_ship_date(&settings, tz, now);
        check_label_request(req, c, today, crate::validate::earliest_today(now))?;
        let service = c
            .service(&req.service_type)
            .ok_or_else(|| ServiceError::internal("service vanished after validation"))?;
        // A label that ships an order skips this early look: the order's lock in the label's
        // transaction decides, so a second desk scanning it learns where it was shipped.
        if let (Some(o), None, None) = (&req.order_number, job, &ships_order) {
            let taken = self
                .store
                .read(|conn| table::order_number_taken(conn, &account.id, o))?;
            if taken {
                return Err(ServiceError::at(
                    ErrorCode::DuplicateOrderNumber,
                    "order_number",
                    format!("`{o}` is on another label of this shipper account"),
                ));
            }
        }
        let ship_date = req
            .ship_date
            .as_deref()
            .and_then(crate::validate::parse_date)
            .unwrap_or(default_ship_date);
        let from = req.shipment.ship_from.country.as_deref().unwrap_or("");
        let to = req.shipment.ship_to.country.as_deref().unwrap_or("");
        let options = req.service_options.clone().unwrap_or_default();
        let q = quote(c, service, from, to, &parcel_measures(&req.shipment), &options)
            .map_err(|why| ServiceError::at(ErrorCode::ServiceTypeUnavailable, "service_type", why))?;
        let paper = c.resolve_paper(
            req.paper_size
                .or(settings.default_paper_size)
                .unwrap_or(PaperSize::Default),
        );
        let cod = options.iter().any(|o| o.variant() == "cod");
        let pool = c.pool_for(cod, to);
        let ranges = pool_ranges(env, &settings, pool);
        let upstream = self.upstream_in(&account, &settings)?;
        // An upstream draws its own numbers: the account needs no ranges here.
        if ranges.is_empty() && upstream.is_none() {
            let none = Pool {
                account: &account.description,
                pool: &pool.name,
                ranges: &[],
            };
            return Err(crate::allocator::exhausted(none, 0, req.shipment.parcels.len() as u64));
        }
        let scope = tracking_scope(env, &account.id, &account.slug, &pool.name);
        let rate = rate_entry(&account, service, &q, ship_date);
        Ok(Draft {
            env,
            req,
            account,
            carrier: c,
            service,
            ship_date,
            paper,
            file_type: req.file_type.unwrap_or(FileType::Pdf),
            rate,
            scheme: &pool.scheme,
            ranges,
            pool: &pool.name,
            scope,
            ships_order,
            upstream,
            upstream_name: None,
            account_kept,
        })
    }

    /// Makes the label of a desk order: the same path as `create_label` (synchronous), with the
    /// order marked shipped in the label's transaction, so a crash leaves both or neither. `key`
    /// names this shipment of the order (an upstream's key is derived from it).
    pub(crate) fn create_label_for_order(
        &self,
        env: Env,
        req: &LabelRequest,
        shipment: crate::orders::OrderShipment,
        key: &str,
    ) -> Result<Label, ServiceError> {
        let planned = [(req.clone(), shipment, key.to_string())];
        match self.create_labels_for_order(env, &planned)? {
            (_, Some(e)) => Err(e),
            (mut labels, None) => labels.pop().ok_or_else(|| ServiceError::internal("no label made")),
        }
    }

    /// Makes the labels of one shipment of a desk order (one, or one per box): each request is
    /// checked whole (carrier rules, its quote, the account's ranges) before the first label is
    /// made, so a box that cannot be labelled stops the order untouched. Answers the labels made
    /// and, when one failed after others were made, why the rest were not.
    pub(crate) fn create_labels_for_order(
        &self,
        env: Env,
        planned: &[(LabelRequest, crate::orders::OrderShipment, String)],
    ) -> Result<(Vec<Label>, Option<ServiceError>), ServiceError> {
        let mut drafts = Vec::with_capacity(planned.len());
        for (req, shipment, key) in planned {
            let mut draft = self.prepare_label(env, req, None, Some(shipment.clone()))?;
            draft.upstream_name = Some(crate::upstream::Name::Desk(key.clone()));
            drafts.push(draft);
        }
        let mut labels = Vec::with_capacity(drafts.len());
        for draft in &drafts {
            match self.produce_label(draft, None) {
                Ok(label) => labels.push(label),
                Err(e) if labels.is_empty() => return Err(e.into()),
                Err(e) => return Ok((labels, Some(e.into()))),
            }
        }
        Ok((labels, None))
    }

    /// Draws the label's tracking numbers and writes it (retrying past numbers issued elsewhere),
    /// or has its upstream make it.
    fn produce_label(&self, draft: &Draft, job: Option<&Job>) -> Result<Label, Unmade> {
        // An async label keeps the id it was accepted with.
        let id = job.map(|j| j.id.clone()).unwrap_or_else(new_id);
        if let Some(u) = &draft.upstream {
            return Ok(self.produce_upstream(draft, u, id, job)?);
        }
        let count = draft.req.shipment.parcels.len() as u64;
        let scope = &draft.scope;
        for _ in 0..16 {
            let pool = Pool {
                account: &draft.account.description,
                pool: draft.pool,
                ranges: &draft.ranges,
            };
            let serials = time(Phase::Reserve, || self.reserve_serials(scope, count, pool))?;
            let numbers: Vec<String> = serials.iter().map(|s| tracking::format(draft.scheme, *s)).collect();
            let made = Made {
                documents: time(Phase::Render, || draft.render(&numbers, &id)),
                id: id.clone(),
                serials,
                numbers,
                rate: Some(draft.rate.clone()),
                ship_date: draft.ship_date.to_string(),
                upstream_id: None,
                issuer: draft.account.slug.clone(),
            };
            match self.write_label(draft, &made, job) {
                Ok(v) => return Ok(v),
                Err(WriteError::Taken(serial)) => self.allocator.skip_past(scope, serial),
                Err(WriteError::AccountChanged) => return Err(Unmade::AccountChanged),
                Err(WriteError::Service(e)) => return Err(e.into()),
            }
        }
        Err(ServiceError::at(
            ErrorCode::InternalRetry,
            "shipper_account.id",
            "the tracking-number range overlaps numbers issued elsewhere; try again",
        )
        .into())
    }

    /// Reserves `count` serials of a range. One desk's file: in memory (`Allocator`; the label's
    /// transaction advances the stored counter). A shared database: under the counter's row lock
    /// in one statement of its own, so desks never draw the same serial, a busy desk some ahead
    /// (`Allocator::reserve_ahead`); a desk that dies before its label commits leaves a gap,
    /// never a number twice.
    fn reserve_serials(&self, scope: &str, count: u64, pool: Pool<'_>) -> Result<Vec<u64>, ServiceError> {
        let packdesk_store::db::Db::Postgres { store: shared, desk } = &self.store else {
            return self.allocator.reserve(scope, count, pool, || {
                self.store
                    .read(|conn| packdesk_store::tracking::counter(conn, scope))
                    .map_err(ServiceError::from)
            });
        };
        let reserve = |n: u64, r: TrackingRange| {
            shared.autocommit(|client| {
                let c = &mut Tx::Postgres { client, desk };
                packdesk_store::tracking::reserve(c, scope, n, r.start, r.end)
            })
        };
        // One range (the usual case): its one statement takes all or nothing.
        if let [r] = pool.ranges {
            let now = std::time::Instant::now();
            return match self
                .allocator
                .reserve_ahead(scope, count, *r, now, |n| reserve(n, *r))?
            {
                Ok(got) => Ok(got),
                Err(left) => Err(crate::allocator::exhausted(pool, left, count)),
            };
        }
        // Several: not enough in all of them is refused before any is taken.
        let next = self
            .store
            .read(|conn| packdesk_store::tracking::counter(conn, scope))?
            .unwrap_or(0);
        let have = crate::allocator::left(next, pool.ranges);
        if have < count {
            return Err(crate::allocator::exhausted(pool, have, count));
        }
        // Range by range, in order, each step one locked statement: a range that ends takes what
        // it has and the next one the rest. Another desk drawing at the same time can leave a
        // range's last numbers unused (a gap), never a number twice.
        let mut serials = Vec::new();
        for r in pool.ranges {
            loop {
                let need = count - serials.len() as u64;
                if need == 0 {
                    return Ok(serials);
                }
                match reserve(need, *r)? {
                    Ok(got) => {
                        serials.extend(got);
                        break;
                    }
                    Err(0) => break,
                    // Fewer than needed left here: take those, the next range gives the rest.
                    Err(left) => match reserve(left.min(need), *r)? {
                        Ok(got) => serials.extend(got),
                        // Another desk took some meanwhile: look again.
                        Err(_) => continue,
                    },
                }
            }
        }
        if serials.len() as u64 == count {
            return Ok(serials);
        }
        Err(crate::allocator::exhausted(pool, 0, count))
    }

    /// Stores an async label in status `creating` with its job.
    fn accept_label(&self, d: &Draft, stored: &LabelRequest) -> Result<Reply, ServiceError> {
        let id = new_id();
        let request = serde_json::to_string(stored).map_err(ServiceError::internal)?;
        // Deflated before the writer (the record, which needs the writer's time, is made in it).
        let stored_request = self.store.json(request.clone());
        self.accept_job(d.env, JobKind::Label, &id, &d.account.id, &request, |tx, now| {
            let record = d.record(&id, LabelStatus::Creating, &[], None, None, now, now);
            let record_json = serde_json::to_value(&record).map_err(ServiceError::internal)?;
            let row = LabelRow {
                id: id.clone(),
                env: d.env,
                shipper_account_id: d.account.id.clone(),
                status: LabelStatus::Creating,
                order_number: d.req.order_number.clone(),
                search_text: d.search_text(&[]),
                manifest_id: None,
                request: stored_request.clone(),
                record: self.store.json(record_json.to_string()),
                ship_date: d.ship_date.to_string(),
                service_type: d.req.service_type.clone(),
                weight_kg: d.weight_kg(),
                created_at: now,
                updated_at: now,
            };
            table::insert(tx, &row).map_err(insert_error)?;
            Ok(record_json)
        })
    }

    /// Completes an async label (a worker runs this).
    pub(crate) fn finish_label(&self, job: &Job) -> Result<(), ServiceError> {
        let req: LabelRequest = job.request()?;
        let draft = self.prepare_label(job.env, &req, Some(job), None)?;
        self.produce_label(&draft, Some(job))?;
        Ok(())
    }

    /// The upstream makes the label; the desk downloads its documents and writes it as its own.
    /// A one-off request (no caller key, job or order names it) that then fails here has its
    /// upstream label cancelled: nothing could ever take it up. A named one is left as it is: the
    /// retry sends the same key and meets it.
    fn produce_upstream(
        &self,
        draft: &Draft,
        u: &crate::upstream::UpstreamAccount,
        id: String,
        job: Option<&Job>,
    ) -> Result<Label, ServiceError> {
        use crate::upstream::Name;
        let (name, one_off) = match (&draft.upstream_name, job) {
            (Some(Name::Caller(k)), _) => (Name::Caller(k), false),
            (Some(Name::Desk(n)), _) => (Name::Desk(n.clone()), false),
            (None, Some(j)) => (Name::Desk(format!("job:{}", j.id)), false),
            (None, None) => (Name::Desk(format!("label:{id}")), true),
        };
        let mut body = serde_json::to_value(draft.req).map_err(ServiceError::internal)?;
        body["shipper_account"] = json!({"id": u.account_id});
        // The desk's job is the asynchronous part; the upstream answers at once.
        if let Some(b) = body.as_object_mut() {
            b.remove("async");
        }
        let answer = u.post("/labels", &body, &name)?;
        let remote_id = answer.data["id"].as_str().map(str::to_string);
        let kept = self.upstream_made(draft, u, id, &answer.data).and_then(|mine| {
            self.write_label(draft, &mine, job)
                .map_err(|e| self.write_failure(e, u, &mine))
        });
        if let (Err(e), true, Some(remote)) = (&kept, one_off, &remote_id) {
            let cancel = json!({"label": {"id": remote}});
            if let Err(c) = u.post("/cancel-labels", &cancel, &Name::Desk(format!("label:{remote}"))) {
                tracing::error!(upstream_label = %remote, error = %c.chain(), cause = %e.chain(), "a label made upstream could not be kept here nor cancelled there");
            }
        }
        kept
    }

    /// The label the upstream answered, with its documents, as this desk keeps it.
    fn upstream_made(
        &self,
        draft: &Draft,
        u: &crate::upstream::UpstreamAccount,
        id: String,
        data: &Value,
    ) -> Result<Made, ServiceError> {
        let remote_id = u.text(data, "id", "label")?;
        let status = u.text(data, "status", "label")?;
        if status != LabelStatus::Created.as_str() {
            return Err(ServiceError::at(
                ErrorCode::InternalRetry,
                "shipper_account.id",
                format!(
                    "the upstream label service {} answered the label in status {status} instead of making it: try again",
                    u.base_url
                ),
            ));
        }
        let numbers: Vec<String> = data["tracking_numbers"]
            .as_array()
            .map(|a| a.iter().filter_map(|n| n.as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        if numbers.is_empty() {
            return Err(u.unreadable("label"));
        }
        let mut documents = Vec::new();
        for kind in [FileKind::Label, FileKind::Invoice, FileKind::CustomsDeclaration] {
            let f = &data["files"][kind.as_str()];
            if f.is_null() {
                continue;
            }
            documents.push((
                kind,
                u.text(f, "file_type", "label")?,
                u.text(f, "paper_size", "label")?,
                u.download(&u.text(f, "url", "label")?)?,
            ));
        }
        if documents.is_empty() {
            return Err(u.unreadable("label"));
        }
        // The rate as this interface gives it, naming this desk's account (a rate this desk
        // cannot read is left out: the label stands without it).
        let rate = serde_json::from_value::<RateEntry>(data["rate"].clone())
            .ok()
            .map(|mut r| {
                r.shipper_account = draft.rate.shipper_account.clone();
                r
            });
        Ok(Made {
            id,
            serials: Vec::new(),
            numbers,
            documents,
            rate,
            ship_date: data["ship_date"]
                .as_str()
                .map_or_else(|| draft.ship_date.to_string(), str::to_string),
            upstream_id: Some(remote_id),
            issuer: format!("{}@{}", draft.account.slug, u.base_url),
        })
    }

    /// A failed write of an upstream's label, in words.
    fn write_failure(&self, e: WriteError, u: &crate::upstream::UpstreamAccount, made: &Made) -> ServiceError {
        match e {
            WriteError::Service(e) => e,
            WriteError::AccountChanged => account_changed(),
            WriteError::Taken(_) => ServiceError::at(
                ErrorCode::InternalRetry,
                "shipper_account.id",
                format!(
                    "the upstream label service {} gave tracking numbers ({}) it gave another label of this desk before",
                    u.base_url,
                    made.numbers.join(", ")
                ),
            ),
        }
    }

    /// Writes the label made, unless its account changed since it was read: then the account is
    /// read anew next time (`accounts::AccountsSeen`).
    fn write_label(&self, d: &Draft, made: &Made, job: Option<&Job>) -> Result<Label, WriteError> {
        let written = self.write_made_label(d, made, job);
        if let Err(WriteError::AccountChanged) = &written {
            self.accounts_seen.forget(&d.account.id);
        }
        written
    }

    fn write_made_label(&self, d: &Draft, made: &Made, job: Option<&Job>) -> Result<Label, WriteError> {
        let id = made.id.clone();
        let _span = tracing::debug_span!("label", label_id = %id).entered();
        let numbers = &made.numbers;
        let now = self.now_us();
        // An async label keeps the time it was accepted as its created_at.
        let created = job.map(|j| j.accepted_at).unwrap_or(now);
        let mut files = LabelFiles::default();
        let mut rows = Vec::new();
        for (kind, file_type, paper, bytes) in &made.documents {
            let file_id = new_id();
            let r = Some(FileRef {
                paper_size: paper.clone(),
                url: Service::file_path(&file_id),
                file_type: file_type.clone(),
            });
            match kind {
                FileKind::Label => files.label = r,
                FileKind::Invoice => files.invoice = r,
                _ => files.customs_declaration = r,
            }
            rows.push(FileRow {
                id: file_id,
                env: d.env,
                owner_id: id.clone(),
                kind: *kind,
                file_type: file_type.clone(),
                paper_size: paper.clone(),
                bytes: bytes.clone(),
                created_at: now,
            });
        }
        let mut record = d.record(
            &id,
            LabelStatus::Created,
            numbers,
            Some(files),
            made.rate.clone(),
            created,
            now,
        );
        record.ship_date = made.ship_date.clone();
        let record_text = serde_json::to_string(&record).map_err(ServiceError::internal)?;
        let row = LabelRow {
            id: id.clone(),
            env: d.env,
            shipper_account_id: d.account.id.clone(),
            status: LabelStatus::Created,
            order_number: d.req.order_number.clone(),
            search_text: d.search_text(numbers),
            manifest_id: None,
            request: self
                .store
                .json(serde_json::to_string(d.req).map_err(ServiceError::internal)?),
            record: self.store.json(record_text),
            ship_date: made.ship_date.clone(),
            service_type: d.req.service_type.clone(),
            weight_kg: d.weight_kg(),
            created_at: created,
            updated_at: now,
        };
        // The label holds the rest (its numbers, account, order).
        let created_entry = self.audit_row(
            crate::audit::caller().as_ref(),
            Some(d.env),
            "label.created",
            Some(&id),
            "ok",
            json!({}),
        );
        let owned = OwnedMade {
            row,
            slug: made.issuer.clone(),
            scope: d.scope.clone(),
            serials: made.serials.clone(),
            numbers: numbers.clone(),
            files: rows,
            completes: job.is_some(),
            audit: created_entry,
            account_updated_at: d.account_kept.then_some(d.account.updated_at),
        };
        let label = owned.made();
        let prints = self.label_print_jobs(d.env, &id, record.return_shipment, &owned.files);
        // A label of no order, upstream or async job is one statement on a shared database
        // (`write_made`: its numbers, files and audit entry in it): sent without BEGIN and COMMIT.
        let one_statement = d.ships_order.is_none() && made.upstream_id.is_none() && job.is_none();
        let write = |tx: &mut Tx<'_>| {
            // The order first: its row stays locked to the end (shared database), so a second
            // desk scanning it waits here and then finds it shipped, before its label is written.
            if let Some(shipment) = &d.ships_order {
                let items = self.mark_order_shipped(tx, d.env, shipment, &id, numbers, now)?;
                let (action, detail) = match shipment.return_label {
                    true => (
                        "order.return_label",
                        json!({"label_id": id, "tracking_numbers": numbers}),
                    ),
                    false => (
                        "order.shipped",
                        match shipment.boxes {
                            // Today counts the order once, at its last box.
                            Some((n, of)) => {
                                json!({"label_id": id, "tracking_numbers": numbers, "items": items, "box": n, "boxes": of})
                            }
                            None => json!({"label_id": id, "tracking_numbers": numbers, "items": items}),
                        },
                    ),
                };
                self.audit(tx, Some(d.env), action, Some(&shipment.id), detail)?;
            }
            table::write_made(tx, &label)?;
            if let Some(upstream_id) = &made.upstream_id {
                packdesk_store::upstream_refs::insert(tx, d.env, &id, upstream_id)?;
            }
            if let Some(job) = job {
                let data = serde_json::to_value(&record).map_err(ServiceError::internal)?;
                self.complete_job_in(tx, job, json!({"code": 200}), data, now)?;
            }
            self.queue_auto_prints(tx, &prints)?;
            Ok::<_, WriteError>(())
        };
        match (one_statement, &self.store) {
            // On a shared database with the labels made meanwhile at this desk, in one statement;
            // its print jobs after it, in a commit of their own (they would not be in it).
            (true, packdesk_store::db::Db::Postgres { store, desk }) => {
                time(Phase::Write, || {
                    table::write_made_shared(store, desk, &self.label_writes, owned)
                })?;
                if !prints.is_empty() {
                    if let Err(e) = self.store.write(|tx| self.queue_auto_prints(tx, &prints)) {
                        tracing::error!(label_id = %id, error = %e.chain(), "print jobs could not be written: not printed automatically");
                    }
                }
            }
            (true, _) => self.store.write(|tx| {
                table::write_made(tx, &label)?;
                self.queue_auto_prints(tx, &prints)?;
                Ok::<_, WriteError>(())
            })?,
            (false, _) => self.store.write(write)?,
        }
        if !prints.is_empty() {
            self.wake_printer();
        }
        crate::gauges::label_made(&d.account.slug, d.env);
        self.absolute_label_urls(&mut record);
        Ok(record)
    }

    /// A stored label as a failed job's webhook carries it. Read as JSON, not as its type: a
    /// record that drifted from its type must not keep its job from being marked failed.
    pub(crate) fn label_value(&self, row: &LabelRow) -> Result<Value, ServiceError> {
        let mut v: Value = serde_json::from_str(&row.record).map_err(ServiceError::internal)?;
        v["status"] = Value::String(row.status.as_str().into());
        v["updated_at"] = Value::String(crate::clock::iso_micros(row.updated_at));
        self.absolute_urls(&mut v);
        Ok(v)
    }

    /// A stored label as the interface answers it: its row's status and time, its links signed
    /// now.
    pub(crate) fn label_of(&self, row: &LabelRow) -> Result<Label, ServiceError> {
        let mut label: Label = crate::records::typed_text(&row.record)?;
        label.status = row.status;
        label.updated_at = crate::clock::iso_micros(row.updated_at);
        self.absolute_label_urls(&mut label);
        Ok(label)
    }

    pub fn get_label(&self, env: Env, id: &str) -> Result<Label, ServiceError> {
        let row = self
            .store
            .read(|c| table::get(c, env, id))?
            .ok_or_else(|| ServiceError::at(ErrorCode::ItemNotFound, "id", format!("no label {id}")))?;
        self.label_of(&row)
    }

    /// Brings History's word index up to date with the labels made since it last caught up (a
    /// search does this first; the background does it at start), in transactions of a size that
    /// holds the writer about `CATCH_UP_HOLD` each, so label writes never wait behind more: the
    /// words of a label go to places all over a large index, and one transaction of a second's
    /// labels (500 in the soak) held the writer longer as the index grew (issue 42). Stops early
    /// when `go_on` says so.
    pub fn catch_up_search(&self, go_on: impl Fn() -> bool) -> Result<usize, ServiceError> {
        const CATCH_UP_HOLD: std::time::Duration = std::time::Duration::from_millis(2);
        const MOST: usize = 5_000;
        let mut batch = 64;
        let mut total = 0;
        while go_on() {
            // Not waiting for the disk: the index is made again from the labels, durable, when a
            // power cut takes its last transactions (their catch-up mark with them).
            let (n, held) = self.store.write_long_relaxed(|tx| {
                let start = std::time::Instant::now();
                let n = table::catch_up_words(tx, batch)?;
                Ok::<_, ServiceError>((n, start.elapsed()))
            })?;
            total += n;
            if n < batch {
                break;
            }
            batch = match held {
                h if h < CATCH_UP_HOLD / 2 => (batch * 2).min(MOST),
                h if h > CATCH_UP_HOLD => (batch / 2).max(16),
                _ => batch,
            };
        }
        Ok(total)
    }

    /// A page of label rows by the list query of `GET /labels` (History's too).
    pub(crate) fn label_rows(&self, env: Env, q: &ListQuery) -> Result<LabelsPage, ServiceError> {
        let w = crate::list::window(q, self.clock.now())?;
        crate::list::check_status(q.status.as_deref(), LABEL_STATUSES)?;
        let filter = LabelFilter {
            shipper_account_id: q.shipper_account_id.clone().filter(|s| !s.is_empty()),
            status: q.status.as_deref().and_then(LabelStatus::parse),
            created_at_min: w.created_at_min.timestamp_micros(),
            created_at_max: w.created_at_max.timestamp_micros(),
            tracking_numbers: q
                .tracking_numbers
                .as_deref()
                .map(|t| {
                    t.split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default(),
            // Compared as the search text's folded spellings are (see `Draft::search_text`).
            search: q
                .s
                .as_deref()
                .filter(|s| !s.trim().is_empty())
                .map(packdesk_documents::translit::fold),
            limits: *self.search_limits.read().unwrap_or_else(|p| p.into_inner()),
        };
        if filter.search.is_some() {
            self.catch_up_search(|| true)?;
        }
        let listed = self
            .store
            .read(|c| table::list(c, env, &filter, w.limit, w.after.as_ref()))?;
        let mut page = paging::page(listed.rows, w.limit, |r| paging::Cursor {
            created_at: r.created_at,
            id: r.id.clone(),
        });
        // A search of common words read so many labels and left the older for the next page
        // (only ever on a page that is not full, so with no token of its own).
        let searched_to = listed.searched_to;
        if let Some(last) = &searched_to {
            page.next_token = Some(paging::encode(last));
        }
        Ok(LabelsPage {
            window: w.window(page.next_token),
            rows: page.items,
            searched_back_to: searched_to.map(|c| c.created_at),
        })
    }

    pub fn list_labels(&self, env: Env, q: &ListQuery) -> Result<LabelList, ServiceError> {
        let LabelsPage { window, rows, .. } = self.label_rows(env, q)?;
        let labels = rows.iter().map(|r| self.label_of(r)).collect::<Result<Vec<_>, _>>()?;
        Ok(LabelList { window, labels })
    }
}

/// A page of labels (`GET /labels`, History).
pub(crate) struct LabelsPage {
    pub window: packdesk_model::record::ListWindow,
    pub rows: Vec<LabelRow>,
    /// A search of only common words stopped at the label made then (microseconds), older ones
    /// left for the next page (`labels::Listed::searched_to`).
    pub searched_back_to: Option<i64>,
}
