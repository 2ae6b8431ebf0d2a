//! The rules of the spec and the contract, one by one, with the code and path a client sees.

use crate::common;
use common::*;
use packdesk_carriers::carrier;
use packdesk_model::ErrorCode;
use packdesk_model::ToRequest;
use packdesk_service::keys::Env;
use serde_json::{json, Value};

fn yodel_request(h: &Harness) -> (String, Value) {
    let c = carrier("yodel").unwrap();
    let acct = create_account(&h.service, Env::Sandbox, c, json!({}));
    let s = c.service("yodel_std").unwrap();
    let body = label_request(&acct, c, s);
    (acct, body)
}

/// The body read as the HTTP edge reads it, then handed to the service: the first refusal.
fn err(h: &Harness, body: &Value) -> packdesk_model::ServiceError {
    body.to_request()
        .and_then(|req| h.service.create_label(Env::Sandbox, req))
        .expect_err("refused")
}

fn paths(e: &packdesk_model::ServiceError) -> Vec<String> {
    e.details.iter().map(|d| d.path.clone()).collect()
}

#[test]
fn enum_format_and_length_rules_answer_4104_with_every_path() {
    let h = harness();
    let (_, mut body) = yodel_request(&h);
    body["ship_date"] = json!("22/11/2026");
    body["references"] = json!(["a", "b", "c", "d"]);
    body["shipment"]["parcels"][0]["weight"]["value"] = json!(-1);
    body["shipment"]["ship_to"]["country"] = json!("FR");
    body["shipment"]["ship_to"]["email"] = json!("not-an-email");
    let e = err(&h, &body);
    assert_eq!(e.code, ErrorCode::InvalidRequest);
    let p = paths(&e);
    for want in [
        "ship_date",
        "references",
        "shipment.parcels[0].weight.value",
        "shipment.ship_to.country",
        "shipment.ship_to.email",
    ] {
        assert!(p.iter().any(|x| x == want), "{want} missing from {p:?}");
    }
    // Enum value outside the list: serde's answer names the path and the allowed values.
    let (_, mut body) = yodel_request(&h);
    body["shipment"]["parcels"][0]["dimension"]["unit"] = json!("furlong");
    let e = err(&h, &body);
    assert_eq!(paths(&e), vec!["shipment.parcels[0].dimension.unit"]);
    assert!(e.details[0].info.contains("cm"));
    // An unknown top-level key.
    let (_, mut body) = yodel_request(&h);
    body["colour"] = json!("red");
    assert_eq!(paths(&err(&h, &body)), vec!["colour"]);
}

#[test]
fn an_address_field_over_the_carrier_limit_answers_4716() {
    let h = harness();
    let (_, mut body) = yodel_request(&h);
    body["shipment"]["ship_to"]["street1"] = json!("x".repeat(256));
    let e = err(&h, &body);
    assert_eq!(e.code, ErrorCode::AddressTooLong);
    assert_eq!(paths(&e), vec!["shipment.ship_to.street1"]);
}

#[test]
fn a_missing_recipient_field_is_named() {
    let h = harness();
    let (_, mut body) = yodel_request(&h);
    body["shipment"]["ship_to"].as_object_mut().unwrap().remove("city");
    body["shipment"]["ship_to"]
        .as_object_mut()
        .unwrap()
        .remove("postal_code");
    let e = err(&h, &body);
    assert_eq!(paths(&e), vec!["shipment.ship_to.city", "shipment.ship_to.postal_code"]);
}

#[test]
fn duplicate_order_number_on_one_account_answers_4801() {
    let h = harness();
    let (_, mut body) = yodel_request(&h);
    body["order_number"] = json!("A-1");
    wire(
        h.service
            .create_label(Env::Sandbox, body.to_request().unwrap())
            .unwrap(),
    );
    let e = err(&h, &body);
    assert_eq!(
        (e.code, paths(&e)),
        (ErrorCode::DuplicateOrderNumber, vec!["order_number".to_string()])
    );
}

#[test]
fn unknown_or_other_environment_accounts_answer_4140() {
    let h = harness();
    let (acct, mut body) = yodel_request(&h);
    body["shipper_account"]["id"] = json!(uuid_like());
    let e = err(&h, &body);
    assert_eq!(
        (e.code, paths(&e)),
        (
            ErrorCode::ShipperAccountNotFound,
            vec!["shipper_account.id".to_string()]
        )
    );
    // The sandbox account does not exist for the live key.
    body["shipper_account"]["id"] = json!(acct);
    let e = h
        .service
        .create_label(Env::Live, body.to_request().unwrap())
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::ShipperAccountNotFound);
    assert_eq!(
        h.service.get_account(Env::Live, &acct).unwrap_err().code,
        ErrorCode::ShipperAccountNotFound
    );
}

fn uuid_like() -> String {
    "0b8f5e3c-1d2a-4c5b-9e7f-123456789abc".into()
}

#[test]
fn a_service_type_of_another_carrier_or_route_is_refused() {
    let h = harness();
    let (_, mut body) = yodel_request(&h);
    body["service_type"] = json!("dpd-uk_parcel_1d");
    let e = err(&h, &body);
    assert_eq!(
        (e.code, paths(&e)),
        (ErrorCode::InvalidRequest, vec!["service_type".to_string()])
    );
    assert!(e.details[0].info.contains("DPD UK"));
    body["service_type"] = json!("yodel_nope");
    assert_eq!(paths(&err(&h, &body)), vec!["service_type"]);
    // Delhivery ships within India only.
    let c = carrier("delhivery").unwrap();
    let acct = create_account(&h.service, Env::Sandbox, c, json!({}));
    let mut body = label_request(&acct, c, &c.service_types[0]);
    body["shipment"]["ship_to"]["country"] = json!("USA");
    let e = err(&h, &body);
    assert_eq!(
        (e.code, paths(&e)),
        (
            ErrorCode::ServiceTypeUnavailable,
            vec!["shipment.ship_to.country".to_string()]
        )
    );
}

#[test]
fn live_accounts_draw_from_their_range_until_it_is_used_up() {
    let h = harness();
    let c = carrier("spain-correos-es").unwrap();
    let acct = create_account(&h.service, Env::Live, c, json!({}));
    let mut body = label_request(&acct, c, &c.service_types[0]);
    // No range set yet: nothing to draw from.
    let e = h
        .service
        .create_label(Env::Live, body.to_request().unwrap())
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::TrackingNumbersExhausted);
    let put = json!({"settings": {"tracking_ranges": {"default": {"start": 123400, "end": 123402}}}});
    let a = wire(
        h.service
            .update_account_settings(Env::Live, &acct, put.to_request().unwrap())
            .unwrap(),
    );
    assert_eq!(a["tracking_numbers_left"]["default"], 3);
    // Two parcels, then one: the range is used up exactly.
    body["shipment"]["parcels"] =
        json!([{"weight": {"value": 1, "unit": "kg"}}, {"weight": {"value": 2, "unit": "kg"}}]);
    let l = wire(h.service.create_label(Env::Live, body.to_request().unwrap()).unwrap());
    let tns: Vec<&str> = l["tracking_numbers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(tns.len(), 2);
    assert!(tns[0].starts_with("123400") && tns[1].starts_with("123401"), "{tns:?}");
    let e = h
        .service
        .create_label(Env::Live, body.to_request().unwrap())
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::TrackingNumbersExhausted);
    body["shipment"]["parcels"] = json!([{"weight": {"value": 1, "unit": "kg"}}]);
    let l = wire(h.service.create_label(Env::Live, body.to_request().unwrap()).unwrap());
    assert!(l["tracking_numbers"][0].as_str().unwrap().starts_with("123402"));
    let e = h
        .service
        .create_label(Env::Live, body.to_request().unwrap())
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::TrackingNumbersExhausted);
    assert_eq!(
        wire(h.service.get_account(Env::Live, &acct).unwrap())["tracking_numbers_left"]["default"],
        0
    );
}

#[test]
fn overlapping_ranges_of_two_accounts_never_issue_a_number_twice() {
    let h = harness();
    let c = carrier("mondialrelay").unwrap();
    let range = |a, b| json!({"tracking_ranges": {"default": {"start": a, "end": b}}});
    let a1 = create_account(&h.service, Env::Live, c, range(100, 104));
    let a2 = create_account(&h.service, Env::Live, c, range(102, 106));
    let mut all = std::collections::HashSet::new();
    for _ in 0..3 {
        for a in [&a1, &a2] {
            let body = label_request(a, c, &c.service_types[0]);
            if let Ok(l) = h.service.create_label(Env::Live, body.to_request().unwrap()) {
                let tn = l.tracking_numbers[0].clone();
                assert!(all.insert(tn.clone()), "{tn} issued twice");
            }
        }
    }
    assert_eq!(all.len(), 6, "{all:?}");
}

#[test]
fn account_credentials_are_checked_per_field_sealed_and_never_returned() {
    let h = harness();
    let body = json!({"slug": "dhl-germany", "description": "DHL", "credentials": {"username": "u", "pin": "1"}});
    let e = h
        .service
        .create_account(Env::Sandbox, body.to_request().unwrap())
        .unwrap_err();
    assert_eq!(
        paths(&e),
        vec!["credentials.account_number", "credentials.password", "credentials.pin"]
    );
    let body = json!({"slug": "dhl-germany", "description": "DHL", "credentials": {"username": "u", "password": "hunter2-secret", "account_number": "22"}, "timezone": "Mars/Olympus"});
    let e = h
        .service
        .create_account(Env::Sandbox, body.to_request().unwrap())
        .unwrap_err();
    assert_eq!(paths(&e), vec!["timezone"]);
    let body = json!({"slug": "dhl-germany", "description": "DHL", "credentials": {"username": "u", "password": "hunter2-secret", "account_number": "22"}, "timezone": "Europe/Berlin"});
    let a = wire(
        h.service
            .create_account(Env::Sandbox, body.to_request().unwrap())
            .unwrap(),
    );
    assert!(!a.to_string().contains("hunter2"));
    let id = a["id"].as_str().unwrap();
    assert_eq!(
        h.service.account_credentials(Env::Sandbox, id).unwrap()["password"],
        "hunter2-secret"
    );
    // The database file holds the credentials only sealed.
    let db = std::fs::read(h.dir.path().join("packdesk.sqlite3")).unwrap();
    let wal = std::fs::read(h.dir.path().join("packdesk.sqlite3-wal")).unwrap_or_default();
    assert!(!db.windows(14).chain(wal.windows(14)).any(|w| w == b"hunter2-secret"));
    // PATCH merges, PUT replaces (and must be complete).
    wire(
        h.service
            .update_account_credentials(
                Env::Sandbox,
                id,
                json!({"credentials": {"password": "new-pass"}}).to_request().unwrap(),
                true,
            )
            .unwrap(),
    );
    assert_eq!(
        h.service.account_credentials(Env::Sandbox, id).unwrap()["username"],
        "u"
    );
    let e = h
        .service
        .update_account_credentials(
            Env::Sandbox,
            id,
            json!({"credentials": {"password": "x"}}).to_request().unwrap(),
            false,
        )
        .unwrap_err();
    assert_eq!(paths(&e), vec!["credentials.account_number", "credentials.username"]);
    // Delete: gone for every lookup.
    wire(h.service.delete_account(Env::Sandbox, id).unwrap());
    assert_eq!(
        h.service.get_account(Env::Sandbox, id).unwrap_err().code,
        ErrorCode::ShipperAccountNotFound
    );
}

#[test]
fn invoice_present_even_null_makes_an_invoice_and_customs_only_across_borders() {
    let h = harness();
    let (_, mut body) = yodel_request(&h);
    let l = wire(
        h.service
            .create_label(Env::Sandbox, body.to_request().unwrap())
            .unwrap(),
    );
    assert!(l["files"]["invoice"].is_null() && l["files"]["customs_declaration"].is_null());
    body["invoice"] = Value::Null;
    body["customs"] = json!({"purpose": "gift"});
    let l = wire(
        h.service
            .create_label(Env::Sandbox, body.to_request().unwrap())
            .unwrap(),
    );
    assert_eq!(l["files"]["invoice"]["file_type"], "pdf");
    assert!(
        l["files"]["customs_declaration"].is_null(),
        "GBR to GBR crosses no border"
    );
    // To France on Yodel's service that crosses a border.
    body["service_type"] = json!("yodel_1eb");
    body["shipment"]["ship_to"]["country"] = json!("FRA");
    body["shipment"]["ship_to"]["postal_code"] = json!("75001");
    let l = wire(
        h.service
            .create_label(Env::Sandbox, body.to_request().unwrap())
            .unwrap(),
    );
    assert_eq!(l["files"]["customs_declaration"]["file_type"], "pdf");
}
