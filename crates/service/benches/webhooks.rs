//! Webhook dispatch rate: 10,000 deliveries (of async rate jobs) POSTed to a receiver on
//! 127.0.0.1 that answers 200, through the service's own dispatcher (`deliver_due_webhooks`,
//! 64 in flight, each attempt recorded). `cargo bench -p packdesk-service --bench webhooks`.
//! Also times the worker pool completing the jobs.

#[path = "../tests/it/common/receiver.rs"]
mod receiver;

mod support;

use packdesk_model::ToRequest;
use packdesk_service::keys::Env;
use packdesk_service::Outcome;
use serde_json::json;
use std::time::Instant;

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let n = if full { 10_000 } else { 200 };
    let (_dir, s) = support::service();
    let rx = receiver::Receiver::ok();
    s.set_webhook(Env::Sandbox, json!({"url": rx.url}).to_request().unwrap())
        .unwrap();
    let acct = s
        .create_account(Env::Sandbox, json!({"slug": "yodel", "description": "bench", "credentials": {"identity": "i", "password": "p", "account_number": "1"}}).to_request().unwrap())
        .unwrap()
        .id;
    let req = json!({"async": true, "shipper_accounts": [{"id": acct}], "shipment": {
        "ship_from": {"contact_name": "S", "street1": "1 Dock Road", "city": "London", "postal_code": "E16 2AA", "country": "GBR"},
        "ship_to": {"contact_name": "R", "street1": "2 High St", "city": "Leeds", "postal_code": "LS1 1AA", "country": "GBR"},
        "parcels": [{"weight": {"value": 2, "unit": "kg"}}]}})
    .to_string();
    let sync_req = req.replace("\"async\":true", "\"async\":false");
    let t = Instant::now();
    for _ in 0..n / 10 {
        assert_eq!(
            s.calculate_rates(Env::Sandbox, sync_req.to_request().unwrap())
                .unwrap()
                .outcome,
            Outcome::Done
        );
    }
    let sync = t.elapsed() * 10;
    let t = Instant::now();
    for _ in 0..n {
        assert_eq!(
            s.calculate_rates(Env::Sandbox, req.to_request().unwrap())
                .unwrap()
                .outcome,
            Outcome::Accepted
        );
    }
    let accept = t.elapsed();
    let t = Instant::now();
    assert_eq!(s.run_queued_jobs(), n);
    let run = t.elapsed();
    let t = Instant::now();
    let mut sent = 0;
    // The app's runtime, as the dispatcher has it (no worker threads are started).
    let io = packdesk_service::workers::Workers::new().unwrap();
    loop {
        let k = io.runtime().block_on(s.deliver_due_webhooks());
        if k == 0 {
            break;
        }
        sent += k;
    }
    let dispatch = t.elapsed();
    assert_eq!(sent, n);
    assert_eq!(rx.posts(), n);
    let rate = |d: std::time::Duration| n as f64 / d.as_secs_f64();
    println!(
        "sync rates, for comparison           {n} in {:>7.3} s = {:>7.0}/s",
        sync.as_secs_f64(),
        rate(sync)
    );
    println!(
        "async rates accepted (service)      {n} in {:>7.3} s = {:>7.0}/s",
        accept.as_secs_f64(),
        rate(accept)
    );
    println!(
        "async rate jobs completed (1 thread) {n} in {:>7.3} s = {:>7.0}/s",
        run.as_secs_f64(),
        rate(run)
    );
    println!(
        "webhooks delivered and recorded      {n} in {:>7.3} s = {:>7.0}/s",
        dispatch.as_secs_f64(),
        rate(dispatch)
    );
}
