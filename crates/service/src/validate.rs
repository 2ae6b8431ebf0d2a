//! Request validation. Structure and types come from serde (first problem, with its path); value
//! rules and carrier rules are checked here, every problem reported with its path.

use packdesk_carriers::countries::{country, has_postal_codes, is_currency};
use packdesk_carriers::registry::RouteFault;
use packdesk_carriers::Carrier;
use packdesk_model::error::Problems;
use packdesk_model::request::*;
use packdesk_model::said::{args, Saying};
use packdesk_model::{ErrorCode, ServiceError};

/// The code of a problem that has no business code of its own.
const E: ErrorCode = ErrorCode::InvalidRequest;

pub fn is_uuid(s: &str) -> bool {
    uuid::Uuid::parse_str(s).is_ok()
}

/// YYYY-MM-DD that is a real date.
pub fn parse_date(s: &str) -> Option<chrono::NaiveDate> {
    if s.len() != 10 {
        return None;
    }
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
}

/// A time of day as the desk writes a cut-off: `HH:MM`, 24 hours.
pub fn parse_cutoff(t: &str) -> Option<chrono::NaiveTime> {
    let (h, m) = t.split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    chrono::NaiveTime::from_hms_opt(h.parse().ok()?, m.parse().ok()?, 0)
}

/// Puts a typed country in ISO alpha-3 ("Spain", "ES" and "ESP" are all Spain; "UK" and
/// "England" are GBR), or says at `path` that it is none. An empty one is left to the
/// caller's "is required".
pub fn normalize_country(p: &mut Problems, path: &str, country: &mut Option<String>) {
    if let Some(typed) = country.clone().filter(|c| !c.trim().is_empty()) {
        match packdesk_carriers::countries::find(&typed) {
            Some(c) => *country = Some(c.alpha3.to_string()),
            None => p.say(E, path, Saying::NotACountry, args([("typed", &typed)])),
        }
    }
}

fn is_time(s: &str) -> bool {
    s.len() == 8 && chrono::NaiveTime::parse_from_str(s, "%H:%M:%S").is_ok()
}

fn check_len(p: &mut Problems, path: &str, value: Option<&str>, min: usize, max: usize) {
    if let Some(v) = value {
        let n = v.chars().count();
        if n < min || n > max {
            p.say(E, path, Saying::Length, args([("min", &min), ("max", &max), ("n", &n)]));
        }
    }
}

fn check_country(p: &mut Problems, path: &str, c: &str) {
    if country(c).is_none() {
        p.say(E, path, Saying::NotACountryCode, args([("code", &c)]));
    }
}

/// The largest money amount taken: far above any parcel's value, far below where f64 loses cents.
pub const MAX_AMOUNT: f64 = 1e12;

fn check_money(p: &mut Problems, path: &str, m: &Money) {
    // Written so that NaN (not from JSON, but from arithmetic) is refused too.
    if !(m.amount.is_finite() && (0.0..=MAX_AMOUNT).contains(&m.amount)) {
        p.say(
            E,
            format!("{path}.amount"),
            Saying::AmountRange,
            args([("max", &format!("{MAX_AMOUNT:e}"))]),
        );
    }
    if !is_currency(&m.currency) {
        p.say(
            E,
            format!("{path}.currency"),
            Saying::NotACurrency,
            args([("code", &m.currency)]),
        );
    }
}

fn check_weight(p: &mut Problems, path: &str, w: &Weight) {
    if !(w.value >= 0.0 && w.value <= w.unit.max()) {
        p.say(
            E,
            format!("{path}.value"),
            Saying::WeightRange,
            args([("max", &w.unit.max()), ("unit", &w.unit.as_str())]),
        );
    }
}

/// Checks an address. `required` addresses (sender, recipient) need a name, street, city and
/// country, and a postal code where the country has them. Lengths over the carrier's limits are 4716.
pub fn check_address(p: &mut Problems, path: &str, a: &Address, carrier: Option<&Carrier>, required: bool) {
    if required {
        for (field, value) in [
            ("contact_name", &a.contact_name),
            ("street1", &a.street1),
            ("city", &a.city),
            ("country", &a.country),
        ] {
            if value.as_deref().map(str::trim).unwrap_or("").is_empty() {
                p.say(E, format!("{path}.{field}"), Saying::Required, args([]));
            }
        }
        if let Some(c) = a.country.as_deref() {
            if has_postal_codes(c) && a.postal_code.as_deref().map(str::trim).unwrap_or("").is_empty() {
                p.say(
                    E,
                    format!("{path}.postal_code"),
                    Saying::RequiredFor,
                    args([("country", &c)]),
                );
            }
        }
    }
    if let Some(c) = a.country.as_deref() {
        if !c.is_empty() {
            check_country(p, &format!("{path}.country"), c);
        }
    }
    if let Some(e) = a.email.as_deref() {
        if !e.is_empty() && (!e.contains('@') || e.starts_with('@') || e.ends_with('@')) {
            p.say(E, format!("{path}.email"), Saying::NotAnEmail, args([]));
        }
    }
    for (field, value) in a.text_fields() {
        let Some(v) = value else { continue };
        let limit = carrier.and_then(|c| c.max_len(field)).unwrap_or(255);
        let n = v.chars().count();
        if n > limit {
            let who = carrier.map(|c| c.name.as_str()).unwrap_or("Packdesk");
            p.say(
                ErrorCode::AddressTooLong,
                format!("{path}.{field}"),
                Saying::TooLongFor,
                args([("n", &n), ("carrier", &who), ("max", &limit)]),
            );
        }
    }
}

fn check_billing(p: &mut Problems, path: &str, b: &Billing) {
    if b.paid_by == PaidBy::ThirdParty && b.method.is_none() {
        p.say(E, format!("{path}.method"), Saying::RequiredForThirdParty, args([]));
    }
    if let Some(m) = &b.method {
        check_len(
            p,
            &format!("{path}.method.account_number"),
            Some(&m.account_number),
            1,
            50,
        );
    }
}

/// The earliest date that is today somewhere on earth (UTC-12). Clients send their own local
/// date as `ship_date`; any date that is today anywhere is not in the past for them.
pub fn earliest_today(now: chrono::DateTime<chrono::Utc>) -> chrono::NaiveDate {
    (now - chrono::Duration::hours(12)).date_naive()
}

/// Every rule of a label request that does not need the store. `today` (the account's timezone) is
/// the ship date default; a ship date from `earliest` (see `earliest_today`) on is accepted.
pub fn check_label_request(
    req: &LabelRequest,
    carrier: &Carrier,
    today: chrono::NaiveDate,
    earliest: chrono::NaiveDate,
) -> Result<(), ServiceError> {
    let mut p = Problems::default();
    let name = &carrier.name;

    match carrier.service(&req.service_type) {
        Some(_) => {}
        None => match packdesk_carriers::service_type(&req.service_type) {
            Some((other, _)) => p.say(
                E,
                "service_type",
                Saying::ServiceOfOtherCarrier,
                args([
                    ("service", &req.service_type),
                    ("other", &other.name),
                    ("carrier", name),
                    ("slug", &carrier.slug),
                ]),
            ),
            None => p.say(
                E,
                "service_type",
                Saying::UnknownService,
                args([
                    ("service", &req.service_type),
                    ("carrier", name),
                    (
                        "services",
                        &carrier
                            .service_types
                            .iter()
                            .map(|s| s.service_type.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
                ]),
            ),
        },
    }
    if let Some(ps) = req.paper_size {
        if !carrier.allows_paper(ps) {
            p.say(
                E,
                "paper_size",
                Saying::NotAvailableFor,
                args([
                    ("value", &ps.as_str()),
                    ("carrier", name),
                    ("allowed", &carrier.paper_sizes.join(", ")),
                ]),
            );
        }
    }
    if let Some(ft) = req.file_type {
        match &carrier.file_types {
            None => p.say(E, "file_type", Saying::PdfOnly, args([("carrier", name)])),
            Some(list) if !carrier.allows_file_type(ft) => p.say(
                E,
                "file_type",
                Saying::NotAvailableFor,
                args([
                    ("value", &ft.as_str()),
                    ("carrier", name),
                    ("allowed", &list.join(", ")),
                ]),
            ),
            _ => {}
        }
    }
    if let Some(d) = &req.ship_date {
        match parse_date(d) {
            None => p.say(E, "ship_date", Saying::NotADate, args([])),
            Some(d) if d < earliest.min(today) => p.say(
                E,
                "ship_date",
                Saying::InThePast,
                args([("date", &d), ("today", &today), ("earliest", &earliest.min(today))]),
            ),
            Some(d) if d > today + chrono::Duration::days(30) => p.say(E, "ship_date", Saying::TooFarAhead, args([])),
            _ => {}
        }
    }
    if req.return_shipment && !carrier.return_shipment {
        p.say(
            E,
            "return_shipment",
            Saying::NoReturnShipments,
            args([("carrier", name)]),
        );
    }
    for field in ["order_number", "order_id"] {
        let value = if field == "order_number" {
            &req.order_number
        } else {
            &req.order_id
        };
        if let Some(v) = value {
            if !carrier.allows_field(field) {
                let accepted = if carrier.optional_fields.is_empty() {
                    "none".to_string()
                } else {
                    carrier.optional_fields.join(", ")
                };
                p.say(
                    E,
                    field,
                    Saying::FieldNotAccepted,
                    args([("carrier", name), ("field", &field), ("accepted", &accepted)]),
                );
            } else {
                check_len(&mut p, field, Some(v), 1, 50);
            }
        }
    }
    if let Some(refs) = &req.references {
        if refs.len() > 3 {
            p.say(E, "references", Saying::TooManyReferences, args([("n", &refs.len())]));
        }
        for (i, r) in refs.iter().enumerate() {
            check_len(&mut p, &format!("references[{i}]"), Some(r), 1, 100);
        }
    }
    if let Some(opts) = &req.service_options {
        if opts.len() > 5 {
            p.say(E, "service_options", Saying::TooManyOptions, args([("n", &opts.len())]));
        }
        for (i, o) in opts.iter().enumerate() {
            check_service_option(&mut p, &format!("service_options[{i}]"), o, carrier);
            if opts[..i].iter().any(|prev| prev.option_type == o.option_type) {
                p.say(
                    E,
                    format!("service_options[{i}].type"),
                    Saying::GivenTwice,
                    args([("option", &o.option_type)]),
                );
            }
        }
    }
    if let Some(Some(inv)) = &req.invoice {
        if let Some(d) = &inv.date {
            if parse_date(d).is_none() {
                p.say(E, "invoice.date", Saying::NotADate, args([]));
            }
        }
        check_len(&mut p, "invoice.number", inv.number.as_deref(), 1, 50);
        if let Some(n) = inv.number_of_copies {
            if !(1..=4).contains(&n) {
                p.say(E, "invoice.number_of_copies", Saying::CopiesRange, args([]));
            }
        }
    }
    if let Some(b) = &req.billing {
        check_billing(&mut p, "billing", b);
    }
    if let Some(c) = &req.customs {
        if let Some(b) = &c.billing {
            check_billing(&mut p, "customs.billing", b);
        }
        if let Some(a) = &c.importer_address {
            // An importer is a place customs must find: its street, city and country.
            for (field, value) in [("street1", &a.street1), ("city", &a.city), ("country", &a.country)] {
                if value.as_deref().map(str::trim).unwrap_or("").is_empty() {
                    p.say(
                        E,
                        format!("customs.importer_address.{field}"),
                        Saying::Required,
                        args([]),
                    );
                }
            }
            check_address(&mut p, "customs.importer_address", a, Some(carrier), false);
        }
    }
    check_shipment(&mut p, &req.shipment, Some(carrier));

    // Route checks last: they only mean something for a well-formed request.
    if p.is_empty() {
        let from = req.shipment.ship_from.country.as_deref().unwrap_or("");
        let to = req.shipment.ship_to.country.as_deref().unwrap_or("");
        if let Some(refusal) = carrier.route_refusal(&req.service_type, from, to) {
            let path = match refusal.fault {
                RouteFault::ShipFrom => "shipment.ship_from.country",
                RouteFault::ShipTo => "shipment.ship_to.country",
                RouteFault::Service => "service_type",
            };
            p.say(ErrorCode::ServiceTypeUnavailable, path, refusal.saying, refusal.args);
        }
    }
    // A postal code is checked against its country once the country is one the label can go to.
    if p.is_empty() && !req.postal_code_override {
        check_postal_code(&mut p, "shipment.ship_to", &req.shipment.ship_to);
    }
    p.into_result()
}

/// A postal code that cannot exist in its country (it fits none of the country's formats) is
/// refused: the parcel would be labelled, manifested and lost. Countries Packdesk has no rule for
/// pass; the operator can confirm an override (`postal_code_override`).
pub fn check_postal_code(p: &mut Problems, path: &str, a: &Address) {
    let (Some(country), Some(code)) = (a.country.as_deref(), a.postal_code.as_deref()) else {
        return;
    };
    if code.trim().is_empty() {
        return;
    }
    if let Err(not) = packdesk_carriers::postal::normalise_postal_code(country, code) {
        p.say(
            ErrorCode::InvalidRequest,
            format!("{path}.postal_code"),
            Saying::NotAPostcode,
            args([
                ("code", &code.trim()),
                ("country", &not.country),
                ("formats", &not.formats),
            ]),
        );
    }
}

fn check_service_option(p: &mut Problems, path: &str, o: &ServiceOption, carrier: &Carrier) {
    let variant = o.variant();
    if variant == "general" && !GENERAL_OPTION_TYPES.contains(&o.option_type.as_str()) {
        p.say(
            E,
            format!("{path}.type"),
            Saying::UnknownOption,
            args([
                ("option", &o.option_type),
                (
                    "known",
                    &format!("cod, insurance, pickup, {}", GENERAL_OPTION_TYPES.join(", ")),
                ),
            ]),
        );
        return;
    }
    if !carrier.allows_option_variant(variant) {
        let allowed = if carrier.service_options.is_empty() {
            "none".to_string()
        } else {
            carrier.service_options.join(", ")
        };
        p.say(
            ErrorCode::ServiceOptionUnavailable,
            format!("{path}.type"),
            Saying::OptionNotOffered,
            args([
                ("carrier", &carrier.name),
                ("option", &o.option_type),
                ("offers", &allowed),
            ]),
        );
    }
    let needs = |p: &mut Problems, field: &str, present: bool| {
        if !present {
            p.say(
                E,
                format!("{path}.{field}"),
                Saying::RequiredForOption,
                args([("option", &o.option_type)]),
            );
        }
    };
    let stray = |p: &mut Problems, field: &str, present: bool| {
        if present {
            p.say(
                E,
                format!("{path}.{field}"),
                Saying::NotForOption,
                args([("option", &o.option_type)]),
            );
        }
    };
    match variant {
        "cod" => {
            needs(p, "cod_value", o.cod_value.is_some());
            if let Some(m) = &o.cod_value {
                check_money(p, &format!("{path}.cod_value"), m);
            }
            stray(p, "insured_value", o.insured_value.is_some());
        }
        "insurance" => {
            needs(p, "insured_value", o.insured_value.is_some());
            if let Some(m) = &o.insured_value {
                check_money(p, &format!("{path}.insured_value"), m);
            }
            stray(p, "cod_value", o.cod_value.is_some());
        }
        "pickup" => {
            for (field, v) in [("start_time", &o.start_time), ("end_time", &o.end_time)] {
                match v {
                    None => needs(p, field, false),
                    Some(t) if !is_time(t) => p.say(E, format!("{path}.{field}"), Saying::NotATime, args([])),
                    _ => {}
                }
            }
            if let (Some(a), Some(b)) = (&o.start_time, &o.end_time) {
                if is_time(a) && is_time(b) && a >= b {
                    p.say(E, format!("{path}.end_time"), Saying::AfterStart, args([]));
                }
            }
        }
        _ => needs(p, "enabled", o.enabled.is_some()),
    }
}

pub fn check_shipment(p: &mut Problems, s: &Shipment, carrier: Option<&Carrier>) {
    check_address(p, "shipment.ship_from", &s.ship_from, carrier, true);
    check_address(p, "shipment.ship_to", &s.ship_to, carrier, true);
    check_len(
        p,
        "shipment.delivery_instructions",
        s.delivery_instructions.as_deref(),
        0,
        128,
    );
    if s.parcels.is_empty() || s.parcels.len() > 50 {
        p.say(
            E,
            "shipment.parcels",
            Saying::ParcelCount,
            args([("n", &s.parcels.len())]),
        );
    }
    for (i, parcel) in s.parcels.iter().enumerate().take(50) {
        let path = format!("shipment.parcels[{i}]");
        check_weight(p, &format!("{path}.weight"), &parcel.weight);
        check_len(p, &format!("{path}.description"), parcel.description.as_deref(), 0, 255);
        if let Some(d) = &parcel.dimension {
            for (field, v) in [("width", d.width), ("height", d.height), ("depth", d.depth)] {
                if !(v > 0.0 && v < 100_000.0) {
                    p.say(E, format!("{path}.dimension.{field}"), Saying::DimensionRange, args([]));
                }
            }
        }
        if let Some(items) = &parcel.items {
            if items.is_empty() || items.len() > 100 {
                p.say(
                    E,
                    format!("{path}.items"),
                    Saying::ItemCount,
                    args([("n", &items.len())]),
                );
            }
            for (j, it) in items.iter().enumerate().take(100) {
                let ipath = format!("{path}.items[{j}]");
                check_len(p, &format!("{ipath}.description"), Some(&it.description), 1, 255);
                if it.quantity < 1 {
                    p.say(E, format!("{ipath}.quantity"), Saying::QuantityMin, args([]));
                }
                check_money(p, &format!("{ipath}.price"), &it.price);
                check_weight(p, &format!("{ipath}.weight"), &it.weight);
                if let Some(c) = &it.origin_country {
                    check_country(p, &format!("{ipath}.origin_country"), c);
                }
                if let Some(hs) = &it.hs_code {
                    let digits = hs.chars().filter(|c| c.is_ascii_digit()).count();
                    if !hs.chars().all(|c| c.is_ascii_digit() || c == '.') || !(6..=14).contains(&digits) {
                        p.say(E, format!("{ipath}.hs_code"), Saying::HsCode, args([]));
                    }
                }
                check_len(p, &format!("{ipath}.sku"), it.sku.as_deref(), 0, 100);
                check_len(p, &format!("{ipath}.item_id"), it.item_id.as_deref(), 0, 100);
            }
        }
    }
}
