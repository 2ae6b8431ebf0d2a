//! Request validation. Structure and types come from serde (first problem, with its path); value
//! rules and carrier rules are checked here, every problem reported with its path.

use packdesk_carriers::countries::{country, has_postal_codes, is_currency};
use packdesk_carriers::registry::RouteFault;
use packdesk_carriers::Carrier;
use packdesk_model::error::Problems;
use packdesk_model::request::*;
use packdesk_model::{ErrorCode, ServiceError};

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
            None => p.invalid(
                path,
                format!("`{typed}` is not a country (a name, or an ISO code such as ES or ESP)"),
            ),
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
            p.invalid(path, format!("length must be {min}..{max} characters, is {n}"));
        }
    }
}

fn check_country(p: &mut Problems, path: &str, c: &str) {
    if country(c).is_none() {
        p.invalid(
            path,
            format!("`{c}` is not an ISO 3166 alpha-3 country code (e.g. USA, GBR, DEU)"),
        );
    }
}

/// The largest money amount taken: far above any parcel's value, far below where f64 loses cents.
pub const MAX_AMOUNT: f64 = 1e12;

fn check_money(p: &mut Problems, path: &str, m: &Money) {
    // Written so that NaN (not from JSON, but from arithmetic) is refused too.
    if !(m.amount.is_finite() && (0.0..=MAX_AMOUNT).contains(&m.amount)) {
        p.invalid(
            format!("{path}.amount"),
            format!("must be a number from 0 to {MAX_AMOUNT:e}"),
        );
    }
    if !is_currency(&m.currency) {
        p.invalid(
            format!("{path}.currency"),
            format!("`{}` is not an ISO 4217 currency code", m.currency),
        );
    }
}

fn check_weight(p: &mut Problems, path: &str, w: &Weight) {
    if !(w.value >= 0.0 && w.value <= w.unit.max()) {
        p.invalid(
            format!("{path}.value"),
            format!("must be 0..{} {}", w.unit.max(), w.unit.as_str()),
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
                p.invalid(format!("{path}.{field}"), "is required");
            }
        }
        if let Some(c) = a.country.as_deref() {
            if has_postal_codes(c) && a.postal_code.as_deref().map(str::trim).unwrap_or("").is_empty() {
                p.invalid(format!("{path}.postal_code"), format!("is required for {c}"));
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
            p.invalid(format!("{path}.email"), "is not an email address");
        }
    }
    for (field, value) in a.text_fields() {
        let Some(v) = value else { continue };
        let limit = carrier.and_then(|c| c.max_len(field)).unwrap_or(255);
        let n = v.chars().count();
        if n > limit {
            let who = carrier.map(|c| c.name.as_str()).unwrap_or("Packdesk");
            p.add(
                ErrorCode::AddressTooLong,
                format!("{path}.{field}"),
                format!("{n} characters; {who} allows at most {limit}"),
            );
        }
    }
}

fn check_billing(p: &mut Problems, path: &str, b: &Billing) {
    if b.paid_by == PaidBy::ThirdParty && b.method.is_none() {
        p.invalid(
            format!("{path}.method"),
            "is required when paid_by is third_party ({type: account, account_number})",
        );
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
            Some((other, _)) => p.invalid(
                "service_type",
                format!(
                    "`{}` is a service of {}, but the shipper account is {} ({})",
                    req.service_type, other.name, name, carrier.slug
                ),
            ),
            None => p.invalid(
                "service_type",
                format!(
                    "unknown service_type `{}`; {} offers: {}",
                    req.service_type,
                    name,
                    carrier
                        .service_types
                        .iter()
                        .map(|s| s.service_type.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        },
    }
    if let Some(ps) = req.paper_size {
        if !carrier.allows_paper(ps) {
            p.invalid(
                "paper_size",
                format!(
                    "`{}` is not available for {name}; allowed: {}",
                    ps.as_str(),
                    carrier.paper_sizes.join(", ")
                ),
            );
        }
    }
    if let Some(ft) = req.file_type {
        match &carrier.file_types {
            None => p.invalid(
                "file_type",
                format!("{name} does not accept file_type (labels are PDF); leave it out"),
            ),
            Some(list) if !carrier.allows_file_type(ft) => p.invalid(
                "file_type",
                format!(
                    "`{}` is not available for {name}; allowed: {}",
                    ft.as_str(),
                    list.join(", ")
                ),
            ),
            _ => {}
        }
    }
    if let Some(d) = &req.ship_date {
        match parse_date(d) {
            None => p.invalid("ship_date", "must be a date YYYY-MM-DD"),
            Some(d) if d < earliest.min(today) => p.invalid(
                "ship_date",
                format!(
                    "{d} is in the past everywhere on earth (today is {today} in the shipper account's timezone; \
                     the earliest date that is still today somewhere, at UTC-12, is {})",
                    earliest.min(today)
                ),
            ),
            Some(d) if d > today + chrono::Duration::days(30) => p.invalid("ship_date", "is more than 30 days ahead"),
            _ => {}
        }
    }
    if req.return_shipment && !carrier.return_shipment {
        p.invalid("return_shipment", format!("{name} does not offer return shipments"));
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
                p.invalid(
                    field,
                    format!("{name} does not accept {field} (accepted optional fields: {accepted})"),
                );
            } else {
                check_len(&mut p, field, Some(v), 1, 50);
            }
        }
    }
    if let Some(refs) = &req.references {
        if refs.len() > 3 {
            p.invalid("references", format!("at most 3 references, got {}", refs.len()));
        }
        for (i, r) in refs.iter().enumerate() {
            check_len(&mut p, &format!("references[{i}]"), Some(r), 1, 100);
        }
    }
    if let Some(opts) = &req.service_options {
        if opts.len() > 5 {
            p.invalid(
                "service_options",
                format!("at most 5 service options, got {}", opts.len()),
            );
        }
        for (i, o) in opts.iter().enumerate() {
            check_service_option(&mut p, &format!("service_options[{i}]"), o, carrier);
            if opts[..i].iter().any(|prev| prev.option_type == o.option_type) {
                p.invalid(
                    format!("service_options[{i}].type"),
                    format!("`{}` is given twice", o.option_type),
                );
            }
        }
    }
    if let Some(Some(inv)) = &req.invoice {
        if let Some(d) = &inv.date {
            if parse_date(d).is_none() {
                p.invalid("invoice.date", "must be a date YYYY-MM-DD");
            }
        }
        check_len(&mut p, "invoice.number", inv.number.as_deref(), 1, 50);
        if let Some(n) = inv.number_of_copies {
            if !(1..=4).contains(&n) {
                p.invalid("invoice.number_of_copies", "must be 1..4");
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
                    p.invalid(format!("customs.importer_address.{field}"), "is required");
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
        if let Some((fault, why)) = carrier.route_refusal(&req.service_type, from, to) {
            let path = match fault {
                RouteFault::ShipFrom => "shipment.ship_from.country",
                RouteFault::ShipTo => "shipment.ship_to.country",
                RouteFault::Service => "service_type",
            };
            p.add(ErrorCode::ServiceTypeUnavailable, path, why);
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
    if let Err(why) = packdesk_carriers::postal::normalise_postal_code(country, code) {
        p.invalid(
            format!("{path}.postal_code"),
            format!(
                "`{}` is {why}; correct it, or confirm it with postal_code_override: true",
                code.trim()
            ),
        );
    }
}

fn check_service_option(p: &mut Problems, path: &str, o: &ServiceOption, carrier: &Carrier) {
    let variant = o.variant();
    if variant == "general" && !GENERAL_OPTION_TYPES.contains(&o.option_type.as_str()) {
        p.invalid(
            format!("{path}.type"),
            format!(
                "unknown service option `{}`; known: cod, insurance, pickup, {}",
                o.option_type,
                GENERAL_OPTION_TYPES.join(", ")
            ),
        );
        return;
    }
    if !carrier.allows_option_variant(variant) {
        let allowed = if carrier.service_options.is_empty() {
            "none".to_string()
        } else {
            carrier.service_options.join(", ")
        };
        p.add(
            ErrorCode::ServiceOptionUnavailable,
            format!("{path}.type"),
            format!(
                "{} does not offer `{}` options (offers: {allowed})",
                carrier.name, o.option_type
            ),
        );
    }
    let needs = |p: &mut Problems, field: &str, present: bool| {
        if !present {
            p.invalid(
                format!("{path}.{field}"),
                format!("is required for a {} option", o.option_type),
            );
        }
    };
    let stray = |p: &mut Problems, field: &str, present: bool| {
        if present {
            p.invalid(
                format!("{path}.{field}"),
                format!("does not belong to a {} option", o.option_type),
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
                    Some(t) if !is_time(t) => p.invalid(format!("{path}.{field}"), "must be a time of day HH:MM:SS"),
                    _ => {}
                }
            }
            if let (Some(a), Some(b)) = (&o.start_time, &o.end_time) {
                if is_time(a) && is_time(b) && a >= b {
                    p.invalid(format!("{path}.end_time"), "must be after start_time");
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
        p.invalid(
            "shipment.parcels",
            format!("must hold 1..50 parcels, holds {}", s.parcels.len()),
        );
    }
    for (i, parcel) in s.parcels.iter().enumerate().take(50) {
        let path = format!("shipment.parcels[{i}]");
        check_weight(p, &format!("{path}.weight"), &parcel.weight);
        check_len(p, &format!("{path}.description"), parcel.description.as_deref(), 0, 255);
        if let Some(d) = &parcel.dimension {
            for (field, v) in [("width", d.width), ("height", d.height), ("depth", d.depth)] {
                if !(v > 0.0 && v < 100_000.0) {
                    p.invalid(
                        format!("{path}.dimension.{field}"),
                        "must be more than 0 and less than 100000",
                    );
                }
            }
        }
        if let Some(items) = &parcel.items {
            if items.is_empty() || items.len() > 100 {
                p.invalid(
                    format!("{path}.items"),
                    format!("must hold 1..100 items, holds {}", items.len()),
                );
            }
            for (j, it) in items.iter().enumerate().take(100) {
                let ipath = format!("{path}.items[{j}]");
                check_len(p, &format!("{ipath}.description"), Some(&it.description), 1, 255);
                if it.quantity < 1 {
                    p.invalid(format!("{ipath}.quantity"), "must be 1 or more");
                }
                check_money(p, &format!("{ipath}.price"), &it.price);
                check_weight(p, &format!("{ipath}.weight"), &it.weight);
                if let Some(c) = &it.origin_country {
                    check_country(p, &format!("{ipath}.origin_country"), c);
                }
                if let Some(hs) = &it.hs_code {
                    let digits = hs.chars().filter(|c| c.is_ascii_digit()).count();
                    if !hs.chars().all(|c| c.is_ascii_digit() || c == '.') || !(6..=14).contains(&digits) {
                        p.invalid(
                            format!("{ipath}.hs_code"),
                            "must be 6 to 14 digits, dots allowed (e.g. 6109.10 or 61091000)",
                        );
                    }
                }
                check_len(p, &format!("{ipath}.sku"), it.sku.as_deref(), 0, 100);
                check_len(p, &format!("{ipath}.item_id"), it.item_id.as_deref(), 0, 100);
            }
        }
    }
}
