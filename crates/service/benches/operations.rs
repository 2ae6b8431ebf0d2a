//! Close-out of 10,000 labels, bulk download of 100 labels, rates for 10 accounts:
//! `cargo bench -p packdesk-service`. Each is timed end to end through the service (SQLite on a
//! temporary folder, documents rendered), several rounds; prints the median and the worst.

mod support;

use packdesk_model::ToRequest;
use packdesk_service::keys::Env;
use packdesk_service::Service;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn account(s: &Service, slug: &str, creds: Value) -> String {
    let v = s
        .create_account(
            Env::Sandbox,
            json!({"slug": slug, "description": "bench", "credentials": creds})
                .to_request()
                .unwrap(),
        )
        .unwrap();
    v.id
}

fn label_body(acct: &str) -> String {
    json!({
        "service_type": "yodel_std", "shipper_account": {"id": acct}, "references": ["BENCH"],
        "shipment": {
            "ship_from": {"contact_name": "Packdesk Ltd", "street1": "1 Dock Road", "city": "London", "postal_code": "E16 2AA", "country": "GBR"},
            "ship_to": {"contact_name": "Jane Doe", "street1": "22 High Street", "city": "Manchester", "postal_code": "M1 1AE", "country": "GBR"},
            "parcels": [{"weight": {"value": 1.5, "unit": "kg"}}]
        }
    })
    .to_string()
}

fn report(name: &str, mut times: Vec<Duration>) {
    let (median, worst) = support::median_and_worst(&mut times);
    println!(
        "{name:<34} rounds {:<3} median {:>8.2} ms   worst {:>8.2} ms",
        times.len(),
        median,
        worst
    );
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (manifest_size, rounds) = if full { (10_000, 3) } else { (50, 1) };
    let (_dir, s) = support::service();
    let yodel = || json!({"identity": "i", "password": "p", "account_number": "1"});

    // Close-out: a fresh account with `manifest_size` labels per round.
    let mut times = Vec::new();
    for _ in 0..rounds {
        let acct = account(&s, "yodel", yodel());
        let body = label_body(&acct);
        for _ in 0..manifest_size {
            s.create_label(Env::Sandbox, body.to_request().unwrap()).unwrap();
        }
        let t = Instant::now();
        let m = s
            .create_manifest(
                Env::Sandbox,
                json!({"shipper_account": {"id": acct}}).to_request().unwrap(),
            )
            .unwrap();
        times.push(t.elapsed());
        assert_eq!(m.labels.len(), manifest_size);
    }
    report(&format!("manifest of {manifest_size} labels"), times);

    // Bulk download of 100 one-page labels.
    let acct = account(&s, "yodel", yodel());
    let body = label_body(&acct);
    let ids: Vec<Value> = (0..100)
        .map(|_| json!({"id": s.create_label(Env::Sandbox, body.to_request().unwrap()).unwrap().data.id}))
        .collect();
    let req = json!({"labels": ids}).to_string();
    let times = (0..rounds * 3)
        .map(|_| {
            let t = Instant::now();
            s.create_bulk_download(Env::Sandbox, req.to_request().unwrap()).unwrap();
            t.elapsed()
        })
        .collect();
    report("bulk download of 100 labels", times);

    // Rates for 10 accounts of 10 carriers that serve GBR -> GBR.
    let accounts: Vec<Value> = [
        ("yodel", yodel()),
        ("dpd-uk", json!({"username": "u", "password": "p"})),
        ("whistl", json!({"client_code": "c", "site_code": "s", "customer_number": "n"})),
        ("apc-overnight", json!({"password": "p", "user_email": "e"})),
        ("skynetworldwide", json!({"username": "u", "password": "p", "entity_id": "e", "entity_pin": "p", "account_code": "a"})),
        ("ups-mi", json!({"account_number": "a", "access_key": "k", "password": "p", "user_identifier": "u", "cost_center": "c", "usps_endorsement": "e"})),
        ("carrier-4", json!({})),
        ("carrier-10", json!({})),
        ("carrier-12", json!({})),
        ("yodel", yodel()),
    ]
    .into_iter()
    .map(|(slug, c)| json!({"id": account(&s, slug, c)}))
    .collect();
    let req = json!({"shipper_accounts": accounts, "shipment": {
        "ship_from": {"contact_name": "S", "street1": "1 Dock Road", "city": "London", "postal_code": "E16 2AA", "country": "GBR"},
        "ship_to": {"contact_name": "R", "street1": "2 High St", "city": "Leeds", "postal_code": "LS1 1AA", "country": "GBR"},
        "parcels": [{"weight": {"value": 2, "unit": "kg"}, "dimension": {"width": 30, "height": 20, "depth": 10, "unit": "cm"}}]}})
    .to_string();
    let times = (0..rounds * 30)
        .map(|_| {
            let t = Instant::now();
            let r = s.calculate_rates(Env::Sandbox, req.to_request().unwrap()).unwrap();
            assert_eq!(r.outcome, packdesk_service::Outcome::Done);
            t.elapsed()
        })
        .collect();
    report("rates for 10 accounts", times);
}
