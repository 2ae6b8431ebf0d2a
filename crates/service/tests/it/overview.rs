//! The desk's overview: today's counts, labels per day in the desk's time zone, the accounts
//! waiting for their close-out, and closing out many accounts in one call (with the manifest
//! printed to the manifest profile's printer, a raw port listener of the test's own).

use crate::common;
use chrono::{TimeZone, Utc};
use common::*;
use packdesk_carriers::carrier;
use packdesk_model::desk::PrintJobStatus;
use packdesk_model::record::ManifestStatus;
use packdesk_model::ToRequest;
use packdesk_service::clock::ManualClock;
use packdesk_service::keys::Env;
use packdesk_service::Service;
use serde_json::{json, Value};
use std::io::Read;
use std::net::TcpListener;
use std::sync::Arc;

fn label(s: &Service, account: &str, slug: &str) -> Value {
    let c = carrier(slug).unwrap();
    let body = label_request(account, c, &c.service_types[0]);
    wire(s.create_label(Env::Sandbox, body.to_request().unwrap()).unwrap())
}

/// A desk whose clock stands at `at`, with a Yodel sandbox account: its folder (removed when
/// dropped), the service, the clock and the account's id.
fn desk_at(at: chrono::DateTime<Utc>) -> (tempfile::TempDir, Service, Arc<ManualClock>, String) {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(at));
    let s = Service::open(dir.path(), "http://127.0.0.1:9", clock.clone())
        .unwrap()
        .service;
    let yodel = create_account(&s, Env::Sandbox, carrier("yodel").unwrap(), json!({}));
    (dir, s, clock, yodel)
}

#[test]
fn labels_are_counted_on_the_desks_day_by_carrier_and_status() {
    // 23:30 UTC on the 20th is already the 21st at UTC+01:00.
    let (_dir, s, clock, yodel) = desk_at(Utc.with_ymd_and_hms(2026, 11, 20, 23, 30, 0).unwrap());
    let tipsa = create_account(&s, Env::Sandbox, carrier("tipsa").unwrap(), json!({}));
    label(&s, &yodel, "yodel");
    clock.advance(chrono::Duration::hours(24));
    let a = label(&s, &yodel, "yodel");
    label(&s, &tipsa, "tipsa");
    label(&s, &tipsa, "tipsa");
    wire(
        s.cancel_label(Env::Sandbox, json!({"label": {"id": a["id"]}}).to_request().unwrap())
            .unwrap(),
    );
    // A deleted account's labels still count, under its carrier.
    wire(s.delete_account(Env::Sandbox, &tipsa).unwrap());

    let t = wire(s.today(Env::Sandbox, 60, 3).unwrap());
    assert_eq!(t["date"], "2026-11-22");
    assert_eq!(t["total"], 3);
    assert_eq!(t["by_status"], json!({"cancelled": 1, "created": 2}));
    let tipsa_row = t["by_carrier"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["slug"] == "tipsa")
        .unwrap();
    assert_eq!(tipsa_row["total"], 2);
    assert_eq!(
        t["days"],
        json!([
            {"date": "2026-11-20", "labels": 0},
            {"date": "2026-11-21", "labels": 1},
            {"date": "2026-11-22", "labels": 3},
        ])
    );
    // At UTC the first label was made on the 20th.
    let utc = wire(s.today(Env::Sandbox, 0, 3).unwrap());
    assert_eq!(utc["days"][1], json!({"date": "2026-11-20", "labels": 1}));
    // Live sees none of the sandbox labels.
    assert_eq!(wire(s.today(Env::Live, 60, 3).unwrap())["total"], 0);
    assert_eq!(
        s.today(Env::Sandbox, 900, 3).unwrap_err().details[0].path,
        "utc_offset_minutes"
    );
}

#[test]
fn one_call_closes_out_every_account_waiting_and_prints_each_manifest() {
    let h = harness();
    let s = &h.service;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let printed = std::thread::spawn(move || {
        let mut jobs = Vec::new();
        for c in listener.incoming().take(2) {
            let mut bytes = Vec::new();
            c.unwrap().read_to_end(&mut bytes).unwrap();
            jobs.push(bytes);
        }
        jobs
    });
    let printer = wire(s.add_printer(json!({"name": "Office", "transport": "raw", "address": format!("127.0.0.1:{port}"), "format": "pdf", "dpi": 300}).to_request().unwrap()).unwrap());
    s.set_print_profile("manifest", json!({"printer_id": printer["id"]}).to_request().unwrap())
        .unwrap();

    let yodel = create_account(s, Env::Sandbox, carrier("yodel").unwrap(), json!({}));
    let tipsa = create_account(s, Env::Sandbox, carrier("tipsa").unwrap(), json!({}));
    let idle = create_account(s, Env::Sandbox, carrier("dpd-uk").unwrap(), json!({}));
    for _ in 0..3 {
        label(s, &yodel, "yodel");
    }
    label(s, &tipsa, "tipsa");

    let eod = wire(s.end_of_day(Env::Sandbox).unwrap());
    let waiting: Vec<(String, i64)> = eod["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["shipper_account"]["id"].as_str().unwrap().to_string(),
                a["labels_waiting"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(waiting, vec![(yodel.clone(), 3), (tipsa.clone(), 1), (idle.clone(), 0)]);

    let out = s.close_out_accounts(Env::Sandbox, Default::default()).unwrap();
    let results = &out.results;
    assert_eq!(results.len(), 2, "the idle account is not closed out: {out:?}");
    for r in results {
        assert_eq!(r.manifest.as_ref().unwrap().status, ManifestStatus::Manifested);
        assert_eq!(
            r.print_job.as_ref().map(|j| j.status),
            Some(PrintJobStatus::Printed),
            "{r:?}"
        );
    }
    assert_eq!(results[0].manifest.as_ref().unwrap().labels.len(), 3);
    let jobs = printed.join().unwrap();
    assert!(
        jobs.iter().all(|j| j.starts_with(b"%PDF")),
        "each manifest's PDF reached the printer"
    );
    for a in wire(s.end_of_day(Env::Sandbox).unwrap())["accounts"]
        .as_array()
        .unwrap()
    {
        assert_eq!(a["labels_waiting"], 0);
    }
    // Named accounts with nothing left: each gets its reason; the call itself answers.
    let again = s
        .close_out_accounts(
            Env::Sandbox,
            json!({"shipper_account_ids": [yodel, tipsa]}).to_request().unwrap(),
        )
        .unwrap();
    for r in &again.results {
        assert_eq!(r.error.as_ref().map(|e| e.code), Some(4725));
        assert!(r.manifest.is_none());
    }
    let bad = s
        .close_out_accounts(
            Env::Sandbox,
            json!({"shipper_account_ids": ["nope"]}).to_request().unwrap(),
        )
        .unwrap_err();
    assert_eq!(bad.details[0].path, "shipper_account_ids[0]");
}

#[test]
fn today_counts_each_operators_labels_hour_by_hour_on_the_desks_day() {
    use packdesk_model::status::Role;
    use packdesk_service::audit::{as_caller, Caller, Via};
    // 08:10 at UTC+01:00.
    let (_dir, s, clock, yodel) = desk_at(Utc.with_ymd_and_hms(2026, 11, 20, 7, 10, 0).unwrap());
    let who = |name: &str| Caller {
        actor: name.into(),
        operator_id: Some(format!("op-{name}")),
        role: Role::Packer,
        env: Env::Sandbox,
        via: Via::Session,
    };
    as_caller(Some(who("Pat")), || label(&s, &yodel, "yodel"));
    as_caller(Some(who("Pat")), || label(&s, &yodel, "yodel"));
    as_caller(Some(who("Lou")), || label(&s, &yodel, "yodel"));
    clock.advance(chrono::Duration::hours(2));
    as_caller(Some(who("Pat")), || label(&s, &yodel, "yodel"));
    // A label made by an integration's call without an operator is the desk's.
    label(&s, &yodel, "yodel");

    let t = wire(s.today(Env::Sandbox, 60, 1).unwrap());
    let days = t["by_operator"].as_array().unwrap();
    let names: Vec<&str> = days.iter().map(|d| d["operator"].as_str().unwrap()).collect();
    assert_eq!(names, ["Pat", "Lou", "desk"], "most labels first");
    let pat = &days[0];
    assert_eq!((pat["labels"].as_i64(), pat["orders"].as_i64()), (Some(3), Some(0)));
    assert_eq!(pat["hours"].as_array().unwrap().len(), 24);
    assert_eq!(pat["hours"][8]["labels"], 2, "{pat}");
    assert_eq!(pat["hours"][10]["labels"], 1, "{pat}");
    // Another environment's work is not counted.
    assert_eq!(wire(s.today(Env::Live, 60, 1).unwrap())["by_operator"], json!([]));
}

#[test]
fn a_report_counts_a_closed_day_once_and_a_label_voided_later_counts_it_again() {
    let (_dir, s, clock, yodel) = desk_at(Utc.with_ymd_and_hms(2026, 11, 20, 10, 0, 0).unwrap());
    let tipsa = create_account(&s, Env::Sandbox, carrier("tipsa").unwrap(), json!({}));
    let first = label(&s, &yodel, "yodel");
    label(&s, &yodel, "yodel");
    label(&s, &tipsa, "tipsa");
    let day = first["ship_date"].as_str().unwrap().to_string();
    // Three days on, the 20th is closed: counted once, its figures kept.
    clock.advance(chrono::Duration::days(3));
    label(&s, &tipsa, "tipsa");
    let report = |group: &str| {
        wire(
            s.shipments_report(Env::Sandbox, Some(&day), Some("2026-11-23"), Some(group))
                .unwrap(),
        )
    };
    let by_carrier = report("carrier");
    let counts: Vec<(String, i64)> = by_carrier["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["group"].as_str().unwrap().to_string(), g["labels"].as_i64().unwrap()))
        .collect();
    assert_eq!(counts, [("tipsa".to_string(), 2), ("yodel".to_string(), 2)]);
    assert_eq!(by_carrier["total"]["labels"], 4);
    assert_eq!(by_carrier["total"]["weight_kg"], 4.8, "four parcels of 1.2 kg");
    let by_day = report("day");
    let days: Vec<(&str, i64)> = by_day["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["group"].as_str().unwrap(), g["labels"].as_i64().unwrap()))
        .collect();
    assert_eq!(
        days,
        [
            (day.as_str(), 3),
            ("2026-11-21", 0),
            ("2026-11-22", 0),
            ("2026-11-23", 1)
        ],
        "every day of the span, those without labels too"
    );

    // A label of the closed day voided now: its day is counted again, the void with it.
    wire(
        s.cancel_label(
            Env::Sandbox,
            json!({"label": {"id": first["id"]}}).to_request().unwrap(),
        )
        .unwrap(),
    );
    let again = report("carrier");
    let yodel_row = again["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["group"] == "yodel")
        .unwrap();
    assert_eq!(
        (yodel_row["labels"].as_i64(), yodel_row["voided"].as_i64()),
        (Some(2), Some(1))
    );
    assert_eq!(
        yodel_row["weight_kg"], 1.2,
        "a voided label's parcel weighs nothing in the report"
    );
    assert_eq!(again["total"]["voided"], 1);
    // The week groups both days; live sees none of these.
    assert_eq!(report("week")["groups"][0]["group"], "2026-W47");
    let live = wire(
        s.shipments_report(Env::Live, Some(&day), Some("2026-11-23"), None)
            .unwrap(),
    );
    assert_eq!(live["total"]["labels"], 0);
    // Bad input says where.
    let bad = s
        .shipments_report(Env::Sandbox, Some("2026-13-01"), None, Some("month"))
        .unwrap_err();
    let paths: Vec<&str> = bad.details.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, ["from", "group_by"]);
}

#[test]
fn the_reports_worker_keeps_the_closed_days_with_labels_once() {
    let (_dir, s, clock, yodel) = desk_at(Utc.with_ymd_and_hms(2026, 11, 20, 10, 0, 0).unwrap());
    label(&s, &yodel, "yodel");
    assert_eq!(s.keep_closed_report_days(|| true).unwrap(), 0, "the 20th is still open");
    clock.advance(chrono::Duration::days(3));
    label(&s, &yodel, "yodel");
    assert_eq!(
        s.keep_closed_report_days(|| true).unwrap(),
        1,
        "the 20th closed; the 23rd open"
    );
    assert_eq!(s.keep_closed_report_days(|| true).unwrap(), 0, "kept once");
    let r = s
        .shipments_report(Env::Sandbox, Some("2026-11-20"), Some("2026-11-23"), None)
        .unwrap();
    assert_eq!(r.total.labels, 2);
}
