//! Ship dates decide the manifest: a close-out takes the labels shipping today or earlier in the
//! account's timezone; a label made after the account's cut-off ships on the next collection day;
//! End of day shows the later ones apart, counts by service with their weight, warns of labels
//! never manifested on their day, and lists today's manifests to reprint. Time is a manual clock.

use crate::common;
use chrono::{TimeZone, Utc};
use common::*;
use packdesk_carriers::carrier;
use packdesk_model::ToRequest;
use packdesk_service::clock::ManualClock;
use packdesk_service::keys::Env;
use packdesk_service::Service;
use serde_json::{json, Value};
use std::sync::Arc;

const SANDBOX: Env = Env::Sandbox;

fn yodel_label(s: &Service, account: &str, kg: f64, extra: Value) -> Value {
    let c = carrier("yodel").unwrap();
    let mut body = label_request(account, c, &c.service_types[0]);
    body["shipment"]["parcels"][0]["weight"]["value"] = json!(kg);
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    wire(s.create_label(SANDBOX, body.to_request().unwrap()).unwrap())
}

fn account_eod(s: &Service, account: &str) -> Value {
    let eod = wire(s.end_of_day(SANDBOX).unwrap());
    eod["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["shipper_account"]["id"] == account)
        .cloned()
        .unwrap()
}

fn close_out(s: &Service, account: &str) -> Result<Value, packdesk_model::ServiceError> {
    s.create_manifest(
        SANDBOX,
        json!({"shipper_account": {"id": account}}).to_request().unwrap(),
    )
    .map(|r| wire(r.into_data()))
}

fn manifested_ids(m: &Value) -> Vec<String> {
    m["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect()
}

/// A London account on Monday 23 November 2026 at `hh:mm` London time (UTC in November).
fn london_desk(hh: u32, mm: u32, settings: Value) -> (Service, Arc<ManualClock>, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(Utc.with_ymd_and_hms(2026, 11, 23, hh, mm, 0).unwrap()));
    let s = Service::open(dir.path(), "http://127.0.0.1:9", clock.clone())
        .unwrap()
        .service;
    let id = create_account(&s, SANDBOX, carrier("yodel").unwrap(), settings);
    s.update_account_settings(SANDBOX, &id, json!({"timezone": "Europe/London"}).to_request().unwrap())
        .unwrap();
    (s, clock, id, dir)
}

#[test]
fn a_label_shipping_later_waits_for_its_days_close_out() {
    let (s, clock, yodel, _dir) = london_desk(10, 0, json!({}));
    let today = yodel_label(&s, &yodel, 1.5, json!({}));
    let tuesday = yodel_label(&s, &yodel, 2.0, json!({"ship_date": "2026-11-24"}));
    let wednesday = yodel_label(&s, &yodel, 3.0, json!({"ship_date": "2026-11-25"}));
    assert_eq!(today["ship_date"], "2026-11-23");

    let eod = account_eod(&s, &yodel);
    assert_eq!(eod["today"], "2026-11-23");
    assert_eq!(eod["labels_waiting"], 1);
    assert_eq!(
        eod["later"],
        json!([{"ship_date": "2026-11-24", "labels": 1}, {"ship_date": "2026-11-25", "labels": 1}])
    );
    let m = close_out(&s, &yodel).unwrap();
    assert_eq!(
        manifested_ids(&m),
        vec![today["id"].as_str().unwrap()],
        "only today's label"
    );
    // Nothing else ships today: the close-out says so, and the later labels stay as they were.
    let e = close_out(&s, &yodel).unwrap_err();
    assert_eq!(e.code.code(), 4725);
    assert!(e.details[0].info.contains("2026-11-23"), "{e}");
    assert_eq!(account_eod(&s, &yodel)["manifests_today"][0]["id"], m["id"]);

    // Tuesday: the Tuesday label goes; Wednesday's still waits.
    clock.advance(chrono::Duration::days(1));
    let m = close_out(&s, &yodel).unwrap();
    assert_eq!(manifested_ids(&m), vec![tuesday["id"].as_str().unwrap()]);
    assert!(
        account_eod(&s, &yodel)["manifests_today"].as_array().unwrap().len() == 1,
        "Monday's manifest is not today's"
    );
    // Thursday: Wednesday's label was never manifested; End of day warns, the close-out takes it.
    clock.advance(chrono::Duration::days(2));
    let eod = account_eod(&s, &yodel);
    assert_eq!(
        (eod["labels_waiting"].clone(), eod["labels_overdue"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(
        manifested_ids(&close_out(&s, &yodel).unwrap()),
        vec![wednesday["id"].as_str().unwrap()]
    );
    // Labels named by id are taken whatever their ship date.
    let friday = yodel_label(&s, &yodel, 1.0, json!({"ship_date": "2026-11-27"}));
    let m = s
        .create_manifest(
            SANDBOX,
            json!({"shipper_account": {"id": yodel}, "label_ids": [friday["id"]]})
                .to_request()
                .unwrap(),
        )
        .unwrap();
    assert_eq!(m.into_data().labels.len(), 1);
}

#[test]
fn after_the_cutoff_labels_ship_on_the_next_collection_day() {
    let (s, clock, yodel, _dir) = london_desk(17, 0, json!({"cutoff_time": "17:30"}));
    let ship = s.ship_date(SANDBOX, &yodel).unwrap();
    assert_eq!((ship.ship_date.as_str(), ship.reason.as_deref()), ("2026-11-23", None));
    let before = yodel_label(&s, &yodel, 1.0, json!({}));
    assert_eq!(before["ship_date"], "2026-11-23");

    clock.advance(chrono::Duration::minutes(45)); // 17:45
    let ship = s.ship_date(SANDBOX, &yodel).unwrap();
    assert_eq!(
        (
            ship.today.as_str(),
            ship.ship_date.as_str(),
            ship.reason.as_deref(),
            ship.cutoff_time.as_deref()
        ),
        ("2026-11-23", "2026-11-24", Some("after_cutoff"), Some("17:30"))
    );
    let after = yodel_label(&s, &yodel, 1.0, json!({}));
    assert_eq!(after["ship_date"], "2026-11-24");
    // The operator can still name today: the label then goes on today's manifest.
    let named = yodel_label(&s, &yodel, 1.0, json!({"ship_date": "2026-11-23"}));
    let m = close_out(&s, &yodel).unwrap();
    assert_eq!(
        manifested_ids(&m),
        vec![before["id"].as_str().unwrap(), named["id"].as_str().unwrap()]
    );
    assert_eq!(
        account_eod(&s, &yodel)["later"],
        json!([{"ship_date": "2026-11-24", "labels": 1}])
    );

    // Friday 27th after the cut-off: Monday 30th (no weekend collection by default) ...
    clock.advance(chrono::Duration::days(4));
    assert_eq!(yodel_label(&s, &yodel, 1.0, json!({}))["ship_date"], "2026-11-30");
    // ... unless the carrier collects on Saturdays.
    s.update_account_settings(
        SANDBOX,
        &yodel,
        json!({"settings": {"collection_days": ["mon", "tue", "wed", "thu", "fri", "sat"]}})
            .to_request()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(yodel_label(&s, &yodel, 1.0, json!({}))["ship_date"], "2026-11-28");
    // Saturday morning, before the cut-off, with Saturday collection: today. Without: Monday.
    clock.advance(chrono::Duration::hours(15)); // Saturday 08:45
    assert_eq!(yodel_label(&s, &yodel, 1.0, json!({}))["ship_date"], "2026-11-28");
    s.update_account_settings(
        SANDBOX,
        &yodel,
        json!({"settings": {"collection_days": ["mon", "tue", "wed", "thu", "fri"]}})
            .to_request()
            .unwrap(),
    )
    .unwrap();
    let ship = s.ship_date(SANDBOX, &yodel).unwrap();
    assert_eq!(
        (ship.ship_date.as_str(), ship.reason.as_deref()),
        ("2026-11-30", Some("no_collection"))
    );

    // Taking the cut-off away: every label ships the day it is made.
    s.update_account_settings(
        SANDBOX,
        &yodel,
        json!({"settings": {"cutoff_time": ""}}).to_request().unwrap(),
    )
    .unwrap();
    assert_eq!(yodel_label(&s, &yodel, 1.0, json!({}))["ship_date"], "2026-11-28");
}

#[test]
fn cutoffs_and_collection_days_are_checked() {
    let (s, _clock, yodel, _dir) = london_desk(9, 0, json!({}));
    for (settings, path) in [
        (json!({"cutoff_time": "25:00"}), "settings.cutoff_time"),
        (json!({"cutoff_time": "5pm"}), "settings.cutoff_time"),
        (json!({"collection_days": []}), "settings.collection_days"),
    ] {
        let e = s
            .update_account_settings(SANDBOX, &yodel, json!({ "settings": settings }).to_request().unwrap())
            .unwrap_err();
        assert_eq!(e.details[0].path, path, "{settings}");
    }
    let e = json!({"settings": {"collection_days": ["someday"]}})
        .to_request::<packdesk_model::request::ShipperAccountSettingsUpdate>()
        .unwrap_err();
    assert!(e.details[0].path.starts_with("settings.collection_days"), "{e}");
}

#[test]
fn end_of_day_counts_by_service_with_the_weight() {
    let (s, _clock, yodel, _dir) = london_desk(10, 0, json!({}));
    let c = carrier("yodel").unwrap();
    let (first, second) = (&c.service_types[0], &c.service_types[1]);
    yodel_label(&s, &yodel, 1.25, json!({}));
    yodel_label(&s, &yodel, 2.5, json!({}));
    let mut body = label_request(&yodel, c, second);
    body["shipment"]["parcels"][0]["weight"]["value"] = json!(4.0);
    s.create_label(SANDBOX, body.to_request().unwrap()).unwrap();
    yodel_label(&s, &yodel, 9.0, json!({"ship_date": "2026-11-24"}));

    let eod = account_eod(&s, &yodel);
    assert_eq!(eod["labels_waiting"], 3);
    assert_eq!(eod["weight_kg"], 7.75, "the later label's weight is not today's");
    let mut by_service = eod["by_service"].as_array().unwrap().clone();
    by_service.sort_by_key(|r| r["labels"].as_i64());
    assert_eq!(
        by_service,
        vec![
            json!({"service_type": second.service_type, "name": second.name, "labels": 1, "weight_kg": 4.0}),
            json!({"service_type": first.service_type, "name": first.name, "labels": 2, "weight_kg": 3.75}),
        ]
    );
}
