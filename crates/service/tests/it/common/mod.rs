//! Helpers shared by the service tests: a service on a temporary data folder and request builders
//! that satisfy a carrier's rules.
#![allow(dead_code)]

pub mod receiver;

use packdesk_carriers::{Carrier, ServiceTypeDef};
use packdesk_model::ToRequest;
use packdesk_service::clock::SystemClock;
use packdesk_service::keys::Env;
use packdesk_service::Service;
use serde_json::{json, Value};
use std::sync::Arc;

pub struct Harness {
    pub service: Service,
    pub dir: tempfile::TempDir,
}

pub fn harness() -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::open(dir.path(), "http://127.0.0.1:9", Arc::new(SystemClock))
        .unwrap()
        .service;
    Harness { service, dir }
}

/// Credentials with every field of the carrier filled in.
pub fn credentials(c: &Carrier) -> Value {
    let mut m = serde_json::Map::new();
    for f in &c.credential_fields {
        m.insert(f.name.clone(), json!(format!("test-{}", f.name)));
    }
    Value::Object(m)
}

pub fn create_account(s: &Service, env: Env, c: &Carrier, settings: Value) -> String {
    let body = json!({"slug": c.slug, "description": format!("{} desk", c.name), "credentials": credentials(c), "settings": settings});
    s.create_account(env, body.to_request().unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", c.slug))
        .id
}

/// A route the carrier and the service both serve: (from, to).
use packdesk_carriers::registry::Scope;

pub fn route(c: &Carrier, s: &ServiceTypeDef) -> (String, String) {
    let from = match &c.ship_from {
        packdesk_carriers::registry::Countries::List(l) => l[0].clone(),
        _ => "USA".to_string(),
    };
    let candidates: Vec<String> = match &c.ship_to {
        packdesk_carriers::registry::Countries::List(l) => l.clone(),
        _ => vec![from.clone(), "DEU".into(), "USA".into(), "FRA".into()],
    };
    let to = match s.scope {
        Scope::International => candidates.iter().find(|t| **t != from).cloned().unwrap(),
        Scope::Domestic => from.clone(),
        Scope::Any => candidates
            .iter()
            .find(|t| **t == from)
            .cloned()
            .unwrap_or_else(|| candidates[0].clone()),
    };
    (from, to)
}

/// An address in `country` with a postal code of the country's format.
pub fn address(name: &str, country: &str) -> Value {
    let postal = packdesk_carriers::postal::example_postal_code(country).unwrap_or_else(|| "12345".into());
    json!({"contact_name": name, "street1": "1 Test Street", "city": "Testville", "postal_code": postal, "country": country})
}

/// A valid one-parcel label request for `service_type` on account `id`.
pub fn label_request(account: &str, c: &Carrier, s: &ServiceTypeDef) -> Value {
    let (from, to) = route(c, s);
    json!({
        "service_type": s.service_type,
        "shipper_account": {"id": account},
        "shipment": {
            "ship_from": address("Sender Co", &from),
            "ship_to": address("Jane Doe", &to),
            "parcels": [{"weight": {"value": 1.2, "unit": "kg"}, "dimension": {"width": 20, "height": 10, "depth": 15, "unit": "cm"}}]
        }
    })
}

/// A valid option of each spec variant.
pub fn option_of(variant: &str) -> Value {
    match variant {
        "cod" => json!({"type": "cod", "cod_value": {"amount": 25.0, "currency": "EUR"}}),
        "insurance" => json!({"type": "insurance", "insured_value": {"amount": 100.0, "currency": "EUR"}}),
        "pickup" => json!({"type": "pickup", "start_time": "09:00:00", "end_time": "17:00:00"}),
        _ => json!({"type": "saturday_delivery", "enabled": true}),
    }
}

/// A service whose time moves only when the test says (schedules), shared for background threads.
pub fn manual_service() -> (
    Arc<Service>,
    Arc<packdesk_service::clock::ManualClock>,
    tempfile::TempDir,
) {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(packdesk_service::clock::ManualClock::new(chrono::Utc::now()));
    let service = Service::open(dir.path(), "http://127.0.0.1:9", clock.clone())
        .unwrap()
        .service;
    (Arc::new(service), clock, dir)
}

/// A typed record as the JSON a caller receives (the assertions read the wire shape).
#[allow(dead_code)]
pub fn wire<T: serde::Serialize>(record: T) -> Value {
    serde_json::to_value(record).unwrap()
}
