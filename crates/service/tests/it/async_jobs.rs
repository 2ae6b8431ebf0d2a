//! Async mode: 3001 with the in-progress record, jobs that finish exactly once, webhooks with the
//! spec's events and the contract's retry schedule, measured against a real receiver on 127.0.0.1.

use crate::common;
use common::receiver::Receiver;
use common::*;
use packdesk_carriers::carrier;
use packdesk_model::request::LabelRequest;
use packdesk_model::ToRequest;
use packdesk_service::keys::Env;
use packdesk_service::{Outcome, Service};
use serde_json::{json, Value};
use std::sync::Arc;

fn yodel(s: &Service) -> (String, Value) {
    let c = carrier("yodel").unwrap();
    let acct = create_account(s, Env::Sandbox, c, json!({}));
    let body = label_request(&acct, c, c.service("yodel_std").unwrap());
    (acct, body)
}

fn with_async(mut body: Value) -> LabelRequest {
    body["async"] = json!(true);
    body.to_request().unwrap()
}

fn webhook_on(s: &Service, url: &str) {
    s.set_webhook(Env::Sandbox, json!({"url": url, "enabled": true}).to_request().unwrap())
        .unwrap();
}

fn deliveries(s: &Service, query: &str) -> Vec<Value> {
    // From long ago: schedule tests move the clock by weeks.
    let q: packdesk_model::request::ListQuery =
        serde_json::from_value(json!({"limit": "200", "status": query, "created_at_min": "2000-01-01"})).unwrap();
    wire(s.list_webhook_deliveries(Env::Sandbox, &q).unwrap())["webhook_deliveries"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn an_async_label_answers_3001_in_creating_then_is_created_by_a_worker() {
    let (s, _clock, _dir) = manual_service();
    let (_, body) = yodel(&s);
    let reply = s.create_label(Env::Sandbox, with_async(body)).unwrap();
    assert_eq!(reply.outcome, Outcome::Accepted);
    assert_eq!(
        wire(reply.meta()),
        json!({"code": 3001, "message": "The request has been accepted for processing, but the processing has not been completed."})
    );
    let r = wire(&reply);
    assert_eq!(r["status"], "creating");
    assert_eq!(r["tracking_numbers"], json!([]));
    assert_eq!(r["files"], Value::Null);
    assert_eq!(r["rate"], Value::Null);
    let id = r["id"].as_str().unwrap().to_string();
    assert_eq!(wire(s.get_label(Env::Sandbox, &id).unwrap())["status"], "creating");
    assert_eq!(s.run_queued_jobs(), 1);
    let l = wire(s.get_label(Env::Sandbox, &id).unwrap());
    assert_eq!(l["status"], "created");
    assert_eq!(l["tracking_numbers"].as_array().unwrap().len(), 1);
    assert!(l["files"]["label"]["url"]
        .as_str()
        .unwrap()
        .starts_with("http://127.0.0.1:9/v3/files/"));
    assert_eq!(
        l["created_at"], r["created_at"],
        "the label keeps the time it was accepted"
    );
    // Nothing is left to run, and no webhook was written while webhooks are off.
    assert_eq!(s.run_queued_jobs(), 0);
    assert!(deliveries(&s, "").is_empty());
}

#[test]
fn bad_async_requests_are_refused_at_once_with_their_paths() {
    let (s, _clock, _dir) = manual_service();
    let (_, mut body) = yodel(&s);
    body["paper_size"] = json!("a5");
    body["async"] = json!(true);
    // A value outside the contract is refused where the body is read, before anything is queued.
    let e = body.to_request::<LabelRequest>().unwrap_err();
    assert_eq!(e.details[0].path, "paper_size");
    let e = s
        .cancel_label(
            Env::Sandbox,
            json!({"async": true, "label": {"id": uuid::Uuid::new_v4()}})
                .to_request()
                .unwrap(),
        )
        .unwrap_err();
    assert_eq!((e.code.code(), e.details[0].path.as_str()), (4153, "label.id"));
    let e = s
        .create_bulk_download(
            Env::Sandbox,
            json!({"async": true, "labels": [{"id": "x"}]}).to_request().unwrap(),
        )
        .unwrap_err();
    assert_eq!(e.details[0].path, "labels");
    assert_eq!(s.run_queued_jobs(), 0, "no job was queued for a refused request");
}

#[tokio::test]
async fn the_five_events_reach_a_real_receiver_with_the_synchronous_answers() {
    let (s, _clock, _dir) = manual_service();
    let rx = Receiver::ok();
    webhook_on(&s, &rx.url);
    let (acct, body) = yodel(&s);
    // create_a_label, twice (one to cancel, one to close out)
    let l1 = wire(s.create_label(Env::Sandbox, with_async(body.clone())).unwrap());
    let l2 = wire(s.create_label(Env::Sandbox, with_async(body.clone())).unwrap());
    let l3 = wire(s.create_label(Env::Sandbox, with_async(body)).unwrap());
    s.run_queued_jobs();
    let ids: Vec<String> = [&l1, &l2, &l3]
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    // cancel_a_label
    let c = s
        .cancel_label(
            Env::Sandbox,
            json!({"async": true, "label": {"id": ids[0]}}).to_request().unwrap(),
        )
        .unwrap();
    assert_eq!((c.outcome, c.status.as_str()), (Outcome::Accepted, "cancelling"));
    assert_eq!(
        wire(s.get_label(Env::Sandbox, &ids[0]).unwrap())["status"],
        "cancelling"
    );
    // create_a_bulk_download
    let b = wire(
        s.create_bulk_download(
            Env::Sandbox,
            json!({"async": true, "labels": [{"id": ids[1]}, {"id": ids[2]}]})
                .to_request()
                .unwrap(),
        )
        .unwrap(),
    );
    assert_eq!(b["status"], "creating");
    // manifest_a_label: takes the two created labels; the cancelling one is not among them
    let m = wire(
        s.create_manifest(
            Env::Sandbox,
            json!({"async": true, "shipper_account": {"id": acct}})
                .to_request()
                .unwrap(),
        )
        .unwrap(),
    );
    assert_eq!(m["status"], "manifesting");
    assert_eq!(
        m["labels"],
        json!([{"id": ids[1], "manifested": false}, {"id": ids[2], "manifested": false}])
    );
    assert_eq!(
        wire(s.get_label(Env::Sandbox, &ids[1]).unwrap())["status"],
        "manifesting"
    );
    // calculate_rates with one unknown account: 4713 with the record
    let unknown = uuid::Uuid::new_v4().to_string();
    let rates = json!({"async": true, "shipper_accounts": [{"id": acct}, {"id": unknown}], "shipment": {
        "ship_from": address("S", "GBR"), "ship_to": address("R", "GBR"), "parcels": [{"weight": {"value": 1, "unit": "kg"}}]}});
    let r = s.calculate_rates(Env::Sandbox, rates.to_request().unwrap()).unwrap();
    assert_eq!((r.outcome, r.status.as_str()), (Outcome::Accepted, "calculating"));
    s.run_queued_jobs();
    while s.deliver_due_webhooks().await > 0 {}
    let bodies = rx.bodies();
    let events: Vec<&str> = bodies.iter().map(|b| b["event"].as_str().unwrap()).collect();
    assert_eq!(
        events.iter().filter(|e| **e == "create_a_label").count(),
        3,
        "{events:?}"
    );
    for e in [
        "cancel_a_label",
        "create_a_bulk_download",
        "manifest_a_label",
        "calculate_rates",
    ] {
        assert_eq!(events.iter().filter(|x| **x == e).count(), 1, "{e} in {events:?}");
    }
    let by = |e: &str, id: &str| {
        bodies
            .iter()
            .find(|b| b["event"] == e && b["data"]["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no {e} for {id}"))
    };
    for b in &bodies {
        assert!(chrono::DateTime::parse_from_rfc3339(b["date_time"].as_str().unwrap()).is_ok());
        assert_eq!(
            b.as_object().unwrap().keys().collect::<Vec<_>>(),
            vec!["event", "date_time", "meta", "data"]
        );
    }
    // Each data is what a GET of the record shows now.
    let label = by("create_a_label", &ids[1]);
    assert_eq!(label["meta"], json!({"code": 200}));
    assert_eq!(
        label["data"]["tracking_numbers"],
        wire(s.get_label(Env::Sandbox, &ids[1]).unwrap())["tracking_numbers"]
    );
    assert!(label["data"]["files"]["label"]["url"]
        .as_str()
        .unwrap()
        .starts_with("http://127.0.0.1:9/v3/files/"));
    let cancel = by("cancel_a_label", &c.id);
    assert_eq!(
        (cancel["meta"].clone(), cancel["data"]["status"].clone()),
        (json!({"code": 200}), json!("cancelled"))
    );
    assert_eq!(wire(s.get_label(Env::Sandbox, &ids[0]).unwrap())["status"], "cancelled");
    let bulk = by("create_a_bulk_download", b["id"].as_str().unwrap());
    assert_eq!(bulk["data"]["status"], "created");
    assert_eq!(bulk["data"]["labels"], json!([{"id": ids[1]}, {"id": ids[2]}]));
    let manifest = by("manifest_a_label", m["id"].as_str().unwrap());
    assert_eq!(manifest["data"]["status"], "manifested");
    assert_eq!(
        manifest["data"]["labels"],
        json!([{"id": ids[1], "manifested": true}, {"id": ids[2], "manifested": true}])
    );
    assert_eq!(
        wire(s.get_manifest(Env::Sandbox, m["id"].as_str().unwrap()).unwrap()),
        manifest["data"]
    );
    assert_eq!(
        wire(s.get_label(Env::Sandbox, &ids[2]).unwrap())["status"],
        "manifested"
    );
    let rate = by("calculate_rates", &r.id);
    assert_eq!(rate["meta"]["code"], 4713);
    assert_eq!(rate["meta"]["details"], json!([]));
    assert_eq!(rate["data"]["status"], "calculated");
    let failed = rate["data"]["rates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["shipper_account"]["id"] == unknown.as_str())
        .unwrap();
    assert_eq!(failed["total_charge"], Value::Null);
    assert!(rate["data"]["rates"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["total_charge"]["amount"].as_f64().is_some()));
    // Every delivery is recorded as delivered, each after one attempt with its 200.
    let all = deliveries(&s, "delivered");
    assert_eq!(all.len(), 7);
    assert!(all
        .iter()
        .all(|d| d["attempt_count"] == 1 && d["attempts"][0]["status_code"] == 200));
}

#[tokio::test]
async fn a_receiver_that_always_fails_gets_fifteen_posts_on_the_contract_schedule() {
    let (s, clock, _dir) = manual_service();
    let rx = Receiver::start(|_| 500);
    webhook_on(&s, &rx.url);
    let (_, body) = yodel(&s);
    wire(s.create_label(Env::Sandbox, with_async(body)).unwrap());
    s.run_queued_jobs();
    assert_eq!(s.deliver_due_webhooks().await, 1, "attempt 0 goes out at completion");
    for k in 0..14u32 {
        let delay = 30i64 << k;
        clock.advance(chrono::Duration::seconds(delay - 1));
        assert_eq!(
            s.deliver_due_webhooks().await,
            0,
            "retry {} is not due 1 s early",
            k + 1
        );
        clock.advance(chrono::Duration::seconds(1));
        assert_eq!(
            s.deliver_due_webhooks().await,
            1,
            "retry {} is due {delay} s after attempt {k} failed",
            k + 1
        );
        assert_eq!(rx.posts(), k as usize + 2);
    }
    clock.advance(chrono::Duration::days(30));
    assert_eq!(s.deliver_due_webhooks().await, 0, "attempt 14 was the last");
    assert_eq!(rx.posts(), 15);
    let failed = deliveries(&s, "failed");
    assert_eq!(failed.len(), 1);
    let d = wire(
        s.get_webhook_delivery(Env::Sandbox, failed[0]["id"].as_str().unwrap())
            .unwrap(),
    );
    let attempts = d["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 15);
    assert_eq!(d["next_attempt_at"], Value::Null);
    let at: Vec<i64> = attempts
        .iter()
        .map(|a| {
            chrono::DateTime::parse_from_rfc3339(a["at"].as_str().unwrap())
                .unwrap()
                .timestamp()
        })
        .collect();
    for k in 0..14 {
        let gap = at[k + 1] - at[k];
        assert!((gap - (30 << k)).abs() <= 1, "gap {k}: {gap}");
    }
    assert!(attempts
        .iter()
        .all(|a| a["status_code"] == 500 && a["error"].as_str().unwrap().contains("500")));
    assert_eq!(d["body"]["event"], "create_a_label");
}

#[tokio::test]
async fn a_receiver_that_recovers_at_attempt_6_gets_nothing_after_its_200() {
    let (s, clock, _dir) = manual_service();
    let rx = Receiver::start(|n| if n < 6 { 503 } else { 200 });
    webhook_on(&s, &rx.url);
    let (_, body) = yodel(&s);
    wire(s.create_label(Env::Sandbox, with_async(body)).unwrap());
    s.run_queued_jobs();
    s.deliver_due_webhooks().await;
    for k in 0..20 {
        clock.advance(chrono::Duration::seconds(30 << k.min(13)));
        s.deliver_due_webhooks().await;
    }
    assert_eq!(rx.posts(), 7, "attempts 0..5 failed, attempt 6 delivered");
    let d = &deliveries(&s, "delivered")[0];
    assert_eq!(d["attempt_count"], 7);
    // The 5th failed retry was followed 960 s later by the 6th (the spec's example).
    let full = wire(s.get_webhook_delivery(Env::Sandbox, d["id"].as_str().unwrap()).unwrap());
    let at = |i: usize| {
        chrono::DateTime::parse_from_rfc3339(full["attempts"][i]["at"].as_str().unwrap())
            .unwrap()
            .timestamp()
    };
    assert!((at(6) - at(5) - 960).abs() <= 1);
}

#[tokio::test]
async fn an_unreachable_receiver_is_recorded_and_a_delivery_can_be_resent_to_the_new_url() {
    let (s, clock, _dir) = manual_service();
    // A privileged port nobody listens on: never handed out as a free port, so no receiver of a
    // test running beside this one can be there (a closed ephemeral port could be).
    let dead = "127.0.0.1:9";
    webhook_on(&s, &format!("http://{dead}/hook"));
    let (_, body) = yodel(&s);
    wire(s.create_label(Env::Sandbox, with_async(body)).unwrap());
    s.run_queued_jobs();
    s.deliver_due_webhooks().await;
    let d = &deliveries(&s, "pending")[0];
    assert_eq!(d["attempts"][0]["status_code"], Value::Null);
    assert!(
        d["attempts"][0]["error"]
            .as_str()
            .unwrap()
            .starts_with("cannot connect"),
        "{d}"
    );
    // The operator fixes the URL and resends by hand: it goes out at once, to the new URL.
    let rx = Receiver::ok();
    webhook_on(&s, &rx.url);
    let id = d["id"].as_str().unwrap();
    let again = wire(s.resend_webhook_delivery(Env::Sandbox, id).unwrap());
    assert_eq!(
        (again["status"].as_str(), again["url"].as_str()),
        (Some("pending"), Some(rx.url.as_str()))
    );
    assert_eq!(s.deliver_due_webhooks().await, 1);
    assert_eq!(rx.posts(), 1);
    let done = wire(s.get_webhook_delivery(Env::Sandbox, id).unwrap());
    assert_eq!(
        (done["status"].as_str(), done["attempt_count"].as_i64()),
        (Some("delivered"), Some(2))
    );
    clock.advance(chrono::Duration::days(1));
    assert_eq!(s.deliver_due_webhooks().await, 0);
}

#[test]
fn webhook_settings_take_http_and_https_only_and_off_means_no_delivery() {
    let (s, _clock, _dir) = manual_service();
    for bad in ["ftp://example.test/x", "not a url", "http://"] {
        let e = s
            .set_webhook(Env::Sandbox, json!({"url": bad}).to_request().unwrap())
            .unwrap_err();
        assert_eq!(e.details[0].path, "url", "{bad}");
    }
    let e = s
        .set_webhook(Env::Sandbox, json!({"enabled": true}).to_request().unwrap())
        .unwrap_err();
    assert_eq!(e.details[0].path, "url");
    let set = wire(
        s.set_webhook(
            Env::Sandbox,
            json!({"url": "https://example.test/hook?secret=1"})
                .to_request()
                .unwrap(),
        )
        .unwrap(),
    );
    assert_eq!(
        (set["url"].as_str(), set["enabled"].as_bool()),
        (Some("https://example.test/hook?secret=1"), Some(true))
    );
    let off = wire(
        s.set_webhook(Env::Sandbox, json!({"enabled": false}).to_request().unwrap())
            .unwrap(),
    );
    assert_eq!(
        (off["url"].as_str(), off["enabled"].as_bool()),
        (Some("https://example.test/hook?secret=1"), Some(false))
    );
    assert_eq!(
        wire(s.webhook_setting(Env::Live).unwrap())["enabled"],
        false,
        "each environment has its own"
    );
    let (_, body) = yodel(&s);
    wire(s.create_label(Env::Sandbox, with_async(body)).unwrap());
    s.run_queued_jobs();
    assert!(deliveries(&s, "").is_empty());
}

#[tokio::test]
async fn a_job_that_cannot_finish_fails_its_label_frees_its_order_number_and_says_why() {
    let (s, _clock, _dir) = manual_service();
    let rx = Receiver::ok();
    s.set_webhook(Env::Live, json!({"url": rx.url}).to_request().unwrap())
        .unwrap();
    let c = carrier("yodel").unwrap();
    let acct = create_account(
        &s,
        Env::Live,
        c,
        json!({"tracking_ranges": {"default": {"start": 100, "end": 101}}}),
    );
    let mut body = label_request(&acct, c, c.service("yodel_std").unwrap());
    let mut ids = Vec::new();
    for i in 0..3 {
        body["order_number"] = json!(format!("ORDER-{i}"));
        ids.push(
            wire(s.create_label(Env::Live, with_async(body.clone())).unwrap())["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    s.run_queued_jobs();
    let status = |id: &str| {
        wire(s.get_label(Env::Live, id).unwrap())["status"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        [status(&ids[0]), status(&ids[1]), status(&ids[2])],
        ["created", "created", "failed"]
    );
    while s.deliver_due_webhooks().await > 0 {}
    let failed = rx
        .bodies()
        .into_iter()
        .find(|b| b["data"]["id"] == ids[2].as_str())
        .unwrap();
    assert_eq!(failed["meta"]["code"], 4730);
    assert_eq!(failed["meta"]["details"][0]["path"], "shipper_account.id");
    assert_eq!(failed["data"]["status"], "failed");
    // The failed label's order number can be used again once the range is extended.
    wire(
        s.update_account_settings(
            Env::Live,
            &acct,
            json!({"settings": {"tracking_ranges": {"default": {"start": 100, "end": 200}}}})
                .to_request()
                .unwrap(),
        )
        .unwrap(),
    );
    assert_eq!(
        wire(s.create_label(Env::Live, body.to_request().unwrap()).unwrap())["status"],
        "created"
    );
}

#[tokio::test]
async fn jobs_left_by_a_crash_run_once_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(packdesk_service::clock::SystemClock);
    let rx = Receiver::ok();
    let ids: Vec<String> = {
        let s = Service::open(dir.path(), "http://127.0.0.1:9", clock.clone())
            .unwrap()
            .service;
        webhook_on(&s, &rx.url);
        let (_, body) = yodel(&s);
        // Accepted, never run: the process "dies" here (dropped without a worker).
        (0..5)
            .map(|_| {
                wire(s.create_label(Env::Sandbox, with_async(body.clone())).unwrap())["id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    let s = Service::open(dir.path(), "http://127.0.0.1:9", clock).unwrap().service;
    assert_eq!(s.waiting_jobs(), 5, "the restart queues what was left");
    assert_eq!(s.run_queued_jobs(), 5);
    while s.deliver_due_webhooks().await > 0 {}
    let mut numbers: Vec<Value> = ids
        .iter()
        .map(|id| wire(s.get_label(Env::Sandbox, id).unwrap())["tracking_numbers"][0].clone())
        .collect();
    numbers.sort_by_key(|n| n.to_string());
    numbers.dedup();
    assert_eq!(numbers.len(), 5);
    assert_eq!(rx.posts(), 5);
    // A job already done is never run again (a worker that took it twice changes nothing).
    let before = wire(s.get_label(Env::Sandbox, &ids[0]).unwrap());
    s.run_job(&ids[0]);
    assert_eq!(wire(s.get_label(Env::Sandbox, &ids[0]).unwrap()), before);
    assert_eq!(deliveries(&s, "").len(), 5);
}

#[test]
fn the_worker_pool_keeps_each_accounts_order_of_acceptance() {
    let (s, _clock, _dir) = manual_service();
    let a = carrier("yodel").unwrap();
    let b = carrier("dpd-uk").unwrap();
    let acct_a = create_account(&s, Env::Sandbox, a, json!({}));
    let acct_b = create_account(&s, Env::Sandbox, b, json!({}));
    let body_a = label_request(&acct_a, a, &a.service_types[0]);
    let body_b = label_request(&acct_b, b, &b.service_types[0]);
    let mut accepted: Vec<(bool, String)> = Vec::new();
    for i in 0..120 {
        let (is_a, body) = if i % 3 == 0 { (false, &body_b) } else { (true, &body_a) };
        accepted.push((
            is_a,
            wire(s.create_label(Env::Sandbox, with_async(body.clone())).unwrap())["id"]
                .as_str()
                .unwrap()
                .to_string(),
        ));
    }
    let bg = packdesk_service::workers::Workers::started(&s, 4).unwrap();
    let wait_until = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while accepted
        .iter()
        .any(|(_, id)| wire(s.get_label(Env::Sandbox, id).unwrap())["status"] != "created")
    {
        assert!(std::time::Instant::now() < wait_until, "jobs did not finish");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    drop(bg);
    // Sample numbers come from one counter per carrier: acceptance order = number order.
    for want_a in [true, false] {
        let numbers: Vec<String> = accepted
            .iter()
            .filter(|(is_a, _)| *is_a == want_a)
            .map(|(_, id)| {
                wire(s.get_label(Env::Sandbox, id).unwrap())["tracking_numbers"][0]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        let mut sorted = numbers.clone();
        sorted.sort_by_key(|n| (n.len(), n.clone()));
        assert_eq!(numbers, sorted, "labels of one account are made in order of acceptance");
    }
}

/// A record with what differs between two makings of one body taken out: ids, times, links and
/// the tracking numbers themselves (their count stays).
fn comparable(mut label: Value) -> Value {
    let o = label.as_object_mut().unwrap();
    for key in ["id", "created_at", "updated_at"] {
        o.remove(key);
    }
    let n = o["tracking_numbers"].as_array().unwrap().len();
    o.insert("tracking_numbers".into(), json!(n));
    if let Some(files) = o.get_mut("files").and_then(Value::as_object_mut) {
        for f in files.values_mut().filter_map(Value::as_object_mut) {
            f.remove("url");
        }
    }
    label
}

#[test]
fn an_async_label_is_the_label_the_same_body_makes_synchronously() {
    let (s, _clock, _dir) = manual_service();
    let c = carrier("yodel").unwrap();
    let acct = create_account(&s, Env::Sandbox, c, json!({}));
    let domestic = label_request(&acct, c, c.service("yodel_std").unwrap());
    let without_invoice = domestic.clone();
    let mut invoice_null = domestic.clone();
    invoice_null["invoice"] = Value::Null;
    let mut invoice_given = domestic.clone();
    invoice_given["invoice"] = json!({"number_of_copies": 2});
    for (what, body) in [
        ("no invoice key", without_invoice),
        ("invoice: null", invoice_null),
        ("an invoice object", invoice_given),
        ("the plain body", domestic),
    ] {
        let sync = wire(
            s.create_label(Env::Sandbox, body.clone().to_request().unwrap())
                .unwrap(),
        );
        let accepted = wire(s.create_label(Env::Sandbox, with_async(body.clone())).unwrap());
        assert_eq!(s.run_queued_jobs(), 1);
        let id = accepted["id"].as_str().unwrap();
        let made = wire(s.get_label(Env::Sandbox, id).unwrap());
        let sync_stored = wire(s.get_label(Env::Sandbox, sync["id"].as_str().unwrap()).unwrap());
        assert_eq!(
            comparable(made),
            comparable(sync_stored),
            "{what}: async and sync differ"
        );
        let has_invoice = !sync["files"]["invoice"].is_null();
        assert_eq!(
            has_invoice,
            body.get("invoice").is_some(),
            "{what}: an invoice only when asked"
        );
    }
}

#[tokio::test]
async fn deliveries_wait_while_the_webhook_is_off_and_then_go_to_the_url_set_then() {
    let (s, clock, _dir) = manual_service();
    let first = Receiver::start(|_| 500);
    let second = Receiver::ok();
    webhook_on(&s, &first.url);
    let (_, body) = yodel(&s);
    wire(s.create_label(Env::Sandbox, with_async(body)).unwrap());
    s.run_queued_jobs();
    assert_eq!(s.deliver_due_webhooks().await, 1, "attempt 0 goes out at completion");
    assert_eq!(first.posts(), 1);
    // Turned off: the retry falls due and does not go out, however long it waits.
    s.set_webhook(Env::Sandbox, json!({"enabled": false}).to_request().unwrap())
        .unwrap();
    clock.advance(chrono::Duration::hours(2));
    assert_eq!(
        s.deliver_due_webhooks().await,
        0,
        "nothing goes out while the webhook is off"
    );
    assert_eq!(first.posts(), 1);
    assert_eq!(deliveries(&s, "pending").len(), 1, "the delivery waits, pending");
    // A new URL while off: still nothing. On again: the next attempt goes to the new URL.
    s.set_webhook(Env::Sandbox, json!({"url": second.url}).to_request().unwrap())
        .unwrap();
    assert_eq!(s.deliver_due_webhooks().await, 0);
    s.set_webhook(Env::Sandbox, json!({"enabled": true}).to_request().unwrap())
        .unwrap();
    assert_eq!(s.deliver_due_webhooks().await, 1);
    assert_eq!(
        (first.posts(), second.posts()),
        (1, 1),
        "the retry went to the URL set now"
    );
    let delivered = deliveries(&s, "delivered");
    assert_eq!(delivered.len(), 1);
    assert_eq!(delivered[0]["url"], second.url.as_str());
}
