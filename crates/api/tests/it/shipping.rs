//! Shipping orders over HTTP: presets, rules, one order shipped with its label and packing slip
//! printed on the desk's printers (raw 9100 listeners of the test's own), refused a second time
//! without `again`, reopened by a void; batches in the background; the export for the shop.

use crate::support;
use serde_json::{json, Value};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use support::*;

fn spanish(name: &str, postal: &str) -> Value {
    json!({"contact_name": name, "street1": "Calle Mayor 1", "city": "Madrid", "postal_code": postal, "country": "ESP"})
}

/// A Tipsa sandbox account, presets "Spain" (default, ZPL, 1 kg assumed) and "Heavy" (another
/// service) with a rule sending orders over 20 kg to it, and printers for labels and slips.
struct Desk {
    s: Server,
    labels: mpsc::Receiver<Vec<u8>>,
    slips: mpsc::Receiver<Vec<u8>>,
}

fn desk() -> Desk {
    let s = Server::start();
    let (label_port, labels) = raw_printer();
    let (slip_port, slips) = raw_printer();
    let zebra = s.live_ok("POST", "/desk/printers", Some(&json!({"name": "Zebra", "transport": "raw", "address": format!("127.0.0.1:{label_port}"), "format": "zpl"})));
    let office = s.live_ok("POST", "/desk/printers", Some(&json!({"name": "Office", "transport": "raw", "address": format!("127.0.0.1:{slip_port}"), "format": "pdf"})));
    s.live_ok(
        "PUT",
        "/desk/print-profiles/label",
        Some(&json!({"printer_id": zebra["id"], "stock": "4x6", "auto_print": true})),
    );
    s.live_ok(
        "PUT",
        "/desk/print-profiles/packing_slip",
        Some(&json!({"printer_id": office["id"], "auto_print": true})),
    );
    let account = s.sandbox_ok("POST", "/v3/shipper-accounts", Some(&json!({"slug": "tipsa", "description": "Tipsa", "credentials": {"password": "p", "agency_code": "1", "customer_code": "2", "department_code": "3"}})));
    let spain = json!({"name": "Spain", "shipper_account": {"id": account["id"]}, "service_type": "tipsa_10_horas", "file_type": "zpl", "ship_from": spanish("Almacén Sur", "28001"), "parcel": {"weight": {"value": 1, "unit": "kg"}}, "is_default": true});
    s.sandbox_ok("POST", "/desk/presets", Some(&spain));
    let mut heavy = spain.clone();
    heavy["name"] = json!("Heavy");
    heavy["service_type"] = json!("tipsa_14_horas");
    heavy["is_default"] = json!(false);
    s.sandbox_ok("POST", "/desk/presets", Some(&heavy));
    s.sandbox_ok(
        "PUT",
        "/desk/rules",
        Some(&json!({"rules": [{"name": "over 20 kg", "when": {"weight_min": 20}, "preset": "Heavy"}]})),
    );
    Desk { s, labels, slips }
}

fn order(number: &str, weight_kg: Option<f64>) -> Value {
    let mut o = json!({"order_number": number, "ship_to": spanish("Ana García", "08001"), "items": [{"description": "Mug", "quantity": 2, "sku": "MUG-1"}]});
    if let Some(w) = weight_kg {
        o["weight"] = json!({"value": w, "unit": "kg"});
    }
    o
}

/// The ids of the orders a `POST /desk/orders` saved, in order.
fn order_ids(saved: &Value) -> Vec<Value> {
    saved["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].clone())
        .collect()
}

/// The batch at `path` once it is done (or after 30 s, as it then stands).
fn batch_done(s: &Server, path: &str) -> Value {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let b = s.sandbox_ok("GET", path, None);
        if b["status"] == "done" || Instant::now() > end {
            return b;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn received(rx: &mpsc::Receiver<Vec<u8>>) -> Vec<u8> {
    rx.recv_timeout(Duration::from_secs(10))
        .expect("the printer received a document")
}

#[test]
fn an_order_ships_by_its_rule_prints_label_and_slip_and_is_not_shipped_twice() {
    let d = desk();
    let s = &d.s;
    let saved = s.sandbox_ok(
        "POST",
        "/desk/orders",
        Some(&json!({"orders": [order("SO-1", None), order("SO-2", Some(25.0))]})),
    );
    let (light, heavy) = (
        saved["orders"][0]["id"].as_str().unwrap(),
        saved["orders"][1]["id"].as_str().unwrap(),
    );
    let list = s.sandbox_ok("GET", "/desk/orders?status=open", None);
    let presets: Vec<&str> = list["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["resolved_preset"].as_str().unwrap())
        .collect();
    assert_eq!(
        presets,
        ["Heavy", "Spain"],
        "newest first: SO-2 by the rule, SO-1 by the default"
    );

    let shipped = s.sandbox_ok("POST", &format!("/desk/orders/{light}/ship"), None);
    assert_eq!(shipped["order"]["status"], "shipped");
    assert_eq!(shipped["label"]["service_type"], "tipsa_10_horas");
    assert_eq!(shipped["label"]["order_number"], "SO-1");
    assert_eq!(
        shipped["order"]["tracking_numbers"],
        shipped["label"]["tracking_numbers"]
    );
    let zpl = received(&d.labels);
    assert!(
        String::from_utf8_lossy(&zpl).contains("^XA"),
        "the label went to the ZPL printer"
    );
    let slip = received(&d.slips);
    assert!(
        slip.starts_with(b"%PDF-"),
        "the packing slip went to the office printer"
    );
    let text = support::pdf_text(&slip, false);
    assert!(
        text.contains("PACKING SLIP") && text.contains("SO-1") && text.contains("MUG-1"),
        "{text}"
    );
    // The label names its packing slip beside its other documents: History offers it.
    let slip_url = shipped["label"]["files"]["packing_slip"]["url"]
        .as_str()
        .expect("a packing slip link");
    assert_eq!(
        s.download(slip_url, &s.sandbox).1,
        slip,
        "the link gives the slip that printed"
    );

    // Shipping it again is refused with the label named, unless asked for.
    let (_, v) = s.call(
        "POST",
        &format!("/desk/orders/{light}/ship"),
        &s.sandbox,
        Some(&json!({})),
    );
    assert_eq!(v["meta"]["details"][0]["path"], "again", "{v}");
    let label_id = shipped["label"]["id"].as_str().unwrap();
    assert!(
        v["meta"]["details"][0]["info"].as_str().unwrap().contains(label_id),
        "{v}"
    );
    let again = s.sandbox_ok(
        "POST",
        &format!("/desk/orders/{light}/ship"),
        Some(&json!({"again": true})),
    );
    assert_eq!(again["label"]["order_number"], "SO-1-2");
    assert_eq!(again["order"]["label_ids"].as_array().unwrap().len(), 2);
    // A shop re-posting a shipped order is refused, naming its label.
    let (_, v) = s.call("POST", "/desk/orders", &s.sandbox, Some(&order("SO-1", None)));
    assert!(
        v["meta"]["details"][0]["info"].as_str().unwrap().contains("label"),
        "{v}"
    );

    // The heavy one takes the rule's preset; voiding its label opens the order again.
    let shipped = s.sandbox_ok("POST", &format!("/desk/orders/{heavy}/ship"), None);
    assert_eq!(shipped["label"]["service_type"], "tipsa_14_horas");
    let void = json!({"label": {"id": shipped["label"]["id"]}});
    s.sandbox_ok("POST", "/v3/cancel-labels", Some(&void));
    let reopened = s.sandbox_ok("GET", &format!("/desk/orders/{heavy}"), None);
    assert_eq!(
        (reopened["status"].clone(), reopened["tracking_numbers"].clone()),
        (json!("open"), json!([]))
    );

    // The export for the shop: carrier, service and tracking of each shipped order.
    let resp = reqwest::blocking::Client::new()
        .get(s.url("/desk/orders/export.csv?status=shipped"))
        .header("service-api-key", &s.sandbox)
        .send()
        .unwrap();
    assert_eq!(resp.headers()["content-type"], "text/csv; charset=utf-8");
    let csv = resp.text().unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 2, "{csv}");
    assert!(lines[0].starts_with("order_number,status,shipped_at,carrier,service_type,tracking_numbers"));
    let tracking = again["label"]["tracking_numbers"][0].as_str().unwrap();
    assert!(
        lines[1].starts_with("SO-1,shipped,")
            && lines[1].contains(",tipsa,tipsa_10_horas,")
            && lines[1].contains(tracking),
        "{csv}"
    );
}

#[test]
fn presets_rules_and_settings_refuse_bad_input_with_its_path() {
    let d = desk();
    let s = &d.s;
    let account = s.sandbox_ok("GET", "/v3/shipper-accounts", None)["shipper_accounts"][0]["id"].clone();
    let bad = json!({"name": "X", "shipper_account": {"id": account}, "service_type": "yodel_std"});
    let (_, v) = s.call("POST", "/desk/presets", &s.sandbox, Some(&bad));
    let paths = detail_paths(&v);
    assert_eq!(paths, ["service_type", "ship_from"], "{v}");
    let dup = json!({"name": "Spain", "shipper_account": {"id": account}, "service_type": "tipsa_10_horas", "ship_from": spanish("A", "28001")});
    let (_, v) = s.call("POST", "/desk/presets", &s.sandbox, Some(&dup));
    assert_eq!(v["meta"]["details"][0]["path"], "name", "{v}");

    let rules = json!({"rules": [
        {"name": "a", "when": {"ship_to_country": "Atlantis"}, "preset": "Spain"},
        {"name": "a", "when": {"weight_min": 5, "weight_max": 1}, "preset": "Nope"}
    ]});
    let (_, v) = s.call("PUT", "/desk/rules", &s.sandbox, Some(&rules));
    let paths = detail_paths(&v);
    assert_eq!(
        paths,
        [
            "rules[0].when.ship_to_country",
            "rules[1].name",
            "rules[1].preset",
            "rules[1].when.weight_max"
        ],
        "{v}"
    );
    assert_eq!(
        s.sandbox_ok("GET", "/desk/rules", None)["rules"][0]["name"],
        "over 20 kg",
        "nothing changed"
    );
    // A preset a rule uses cannot go; an empty rule list frees it.
    let heavy = s.sandbox_ok("GET", "/desk/presets", None)["presets"][1]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, v) = s.call("DELETE", &format!("/desk/presets/{heavy}"), &s.sandbox, None);
    assert!(
        v["meta"]["details"][0]["info"].as_str().unwrap().contains("over 20 kg"),
        "{v}"
    );
    s.sandbox_ok("PUT", "/desk/rules", Some(&json!({"rules": []})));
    s.sandbox_ok("DELETE", &format!("/desk/presets/{heavy}"), None);

    // Settings: whole-desk, so the sandbox key may read but not change them.
    assert_eq!(
        s.sandbox_ok("GET", "/desk/settings", None),
        json!({"ship_on_scan": false, "verify_items": false, "weight_unit": "kg", "dimension_unit": "cm", "scale_auto_weight": false,
               "close_to_tray": false, "start_at_login": false, "update_url": null, "default_currency": null,
               "scan_sounds": true, "require_sign_in": false, "idle_sign_out_minutes": 15,
               "daily_backup": true, "backup_hour": 2, "backups_kept": 7,
               "return_reasons": ["No longer wanted", "Wrong size", "Not as described", "Damaged in transit", "Wrong item sent", "Not delivered"],
               "language": null})
    );
    let change = json!({"ship_on_scan": true, "verify_items": false, "weight_unit": "lb", "dimension_unit": "in", "scale_auto_weight": true,
                        "close_to_tray": true, "start_at_login": true, "default_currency": "GBP", "scan_sounds": false,
                        "update_url": "https://updates.warehouse.example/packdesk/{{target}}/{{arch}}/{{current_version}}",
                        "require_sign_in": false, "idle_sign_out_minutes": 30,
                        "daily_backup": false, "backup_hour": 22, "backups_kept": 30,
                        "return_reasons": ["Too small", "Changed my mind"], "language": "pl"});
    let (status, _) = s.call("PUT", "/desk/settings", &s.sandbox, Some(&change));
    assert_eq!(status, 401);
    assert_eq!(s.live_ok("PUT", "/desk/settings", Some(&change)), change);
    let (_, v) = s.call("PUT", "/desk/settings", &s.live, Some(&json!({"weight_unit": "stone"})));
    assert_eq!(v["meta"]["details"][0]["path"], "weight_unit", "{v}");
    // Return reasons: blank lines go, an empty list is no list.
    let mut reasons = change.clone();
    reasons["return_reasons"] = json!([" ", ""]);
    let (_, v) = s.call("PUT", "/desk/settings", &s.live, Some(&reasons));
    assert_eq!(v["meta"]["details"][0]["path"], "return_reasons", "{v}");
    // An update server in clear text (anyone on the way could offer anything) is refused.
    let (_, v) = s.call(
        "PUT",
        "/desk/settings",
        &s.live,
        Some(&json!({"update_url": "http://updates.warehouse.example/latest.json"})),
    );
    assert_eq!(v["meta"]["code"], 4104, "{v}");
    assert_eq!(v["meta"]["details"][0]["path"], "update_url", "{v}");
    assert!(
        v["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("must be https"),
        "{v}"
    );
    // The server has no updater: it says so, and asking for an update is refused.
    let update = s.sandbox_ok("GET", "/desk/update", None);
    assert_eq!(update["state"], "off", "{update}");
    assert!(update["message"]
        .as_str()
        .unwrap()
        .contains("packdesk-server is updated with its package"));
    let (_, v) = s.call("POST", "/desk/update/check", &s.live, None);
    assert_eq!(v["meta"]["code"], 4171, "{v}");

    // An order without a weight and a preset without one to assume: the answer says what to do.
    let mut no_weight = s.sandbox_ok("GET", "/desk/presets", None)["presets"][0].clone();
    for k in ["id", "created_at", "updated_at"] {
        no_weight.as_object_mut().unwrap().remove(k);
    }
    no_weight["parcel"] = json!(null);
    let id = no_weight_preset(s, &no_weight);
    let saved = s.sandbox_ok("POST", "/desk/orders", Some(&order("SO-9", None)));
    let order_id = saved["orders"][0]["id"].as_str().unwrap();
    let (_, v) = s.call(
        "POST",
        &format!("/desk/orders/{order_id}/ship"),
        &s.sandbox,
        Some(&json!({"preset": id})),
    );
    assert_eq!(v["meta"]["details"][0]["path"], "parcels", "{v}");
    let (_, v) = s.call(
        "POST",
        &format!("/desk/orders/{order_id}/ship"),
        &s.sandbox,
        Some(&json!({"preset": "Nope"})),
    );
    assert_eq!(v["meta"]["details"][0]["path"], "preset", "{v}");
    assert_eq!(
        s.sandbox_ok("GET", &format!("/desk/orders/{order_id}"), None)["status"],
        "open"
    );
}

#[test]
fn the_desk_ships_no_parcel_weighing_nothing() {
    let d = desk();
    let s = &d.s;
    let mut zero = order("Z-1", Some(0.0));
    zero["items"][0]["weight"] = json!({"value": 0.4, "unit": "kg"});
    let saved = s.sandbox_ok("POST", "/desk/orders", Some(&json!({"orders": [zero]})));
    let id = saved["orders"][0]["id"].as_str().unwrap();
    let ship = format!("/desk/orders/{id}/ship");
    let refused = |body: Value, path: &str| {
        let (status, v) = s.call("POST", &ship, &s.sandbox, Some(&body));
        assert_eq!((status, &v["meta"]["code"]), (200, &json!(4104)), "{v}");
        assert_eq!(v["meta"]["details"].as_array().unwrap().len(), 1, "{v}");
        assert_eq!(v["meta"]["details"][0]["path"], path, "{v}");
        let info = v["meta"]["details"][0]["info"].as_str().unwrap().to_string();
        assert!(
            info.contains("weigh") && info.contains("above 0"),
            "says what to do: {info}"
        );
        info
    };
    // The form's second parcel emptied (0), the first weighed.
    let parcels = json!([{"weight": {"value": 1.5, "unit": "kg"}}, {"weight": {"value": 0, "unit": "kg"}}]);
    let info = refused(json!({"parcels": parcels}), "parcels[1].weight.value");
    assert!(info.contains("parcel 2 of order Z-1 weighs 0 kg"), "{info}");
    // No parcels given: the order's own weight (0) is the parcel's.
    let info = refused(json!({}), "parcels");
    assert!(info.contains("order Z-1 weighs 0 kg"), "{info}");
    assert!(d.labels.try_recv().is_err(), "nothing reached the printer");
    assert_eq!(
        s.sandbox_ok("GET", &format!("/desk/orders/{id}"), None)["status"],
        "open"
    );
    // Weighed, the order ships.
    let shipped = s.sandbox_ok(
        "POST",
        &ship,
        Some(&json!({"parcels": [{"weight": {"value": 1.5, "unit": "kg"}}]})),
    );
    assert_eq!(shipped["order"]["status"], "shipped");
    // The /v3 contract still takes 0 from API clients.
    let account = s.sandbox_ok("GET", "/desk/presets", None)["presets"][0]["shipper_account"].clone();
    let parcels = json!([{"weight": {"value": 0, "unit": "kg"}}]);
    let shipment = json!({"ship_from": spanish("Almacén Sur", "28001"), "ship_to": spanish("Ana García", "08001"), "parcels": parcels});
    let body = json!({"service_type": "tipsa_10_horas", "shipper_account": account, "shipment": shipment});
    s.sandbox_ok("POST", "/v3/labels", Some(&body));
}

fn no_weight_preset(s: &Server, p: &Value) -> String {
    let mut p = p.clone();
    p["name"] = json!("No weight");
    p["is_default"] = json!(false);
    s.sandbox_ok("POST", "/desk/presets", Some(&p))["id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_batch_ships_in_order_in_the_background_and_names_the_orders_it_could_not_ship() {
    let d = desk();
    let s = &d.s;
    let mut orders: Vec<Value> = (1..=6).map(|i| order(&format!("B-{i}"), Some(2.0))).collect();
    // A preset the desk does not have (a shop's typo): only shipping can tell.
    orders[3]["preset"] = json!("Express");
    let saved = s.sandbox_ok("POST", "/desk/orders", Some(&json!({"orders": orders})));
    let ids = order_ids(&saved);
    let batch = s.sandbox_ok("POST", "/desk/orders/ship", Some(&json!({"order_ids": ids})));
    assert_eq!(
        (batch["total"].clone(), batch["orders"][0]["order_number"].clone()),
        (json!(6), json!("B-1"))
    );
    let done = batch_done(s, &format!("/desk/batches/{}", batch["id"].as_str().unwrap()));
    assert_eq!(
        (done["shipped"].clone(), done["failed"].clone()),
        (json!(5), json!(1)),
        "{done}"
    );
    assert_eq!(done["orders"][3]["status"], "failed");
    assert!(
        done["orders"][3]["info"].as_str().unwrap().contains("`Express`"),
        "{done}"
    );
    // Printed in the order of the batch.
    let mut printed = Vec::new();
    for _ in 0..5 {
        let zpl = String::from_utf8_lossy(&received(&d.labels)).to_string();
        printed.push(zpl);
    }
    let numbers: Vec<String> = done["orders"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["status"] == "shipped")
        .map(|o| o["tracking_numbers"][0].as_str().unwrap().to_string())
        .collect();
    for (zpl, n) in printed.iter().zip(&numbers) {
        assert!(zpl.contains(n.as_str()), "labels printed in batch order");
    }
    let (_, v) = s.call(
        "POST",
        "/desk/orders/ship",
        &s.sandbox,
        Some(&json!({"order_ids": ["nope", ids[0]]})),
    );
    assert_eq!(v["meta"]["details"][0]["path"], "order_ids[0]", "{v}");
}

#[test]
fn a_kill_during_a_batch_neither_loses_nor_doubles_a_label() {
    let mut d = desk();
    let orders: Vec<Value> = (1..=40).map(|i| order(&format!("K-{i}"), Some(1.0))).collect();
    let saved = d.s.sandbox_ok("POST", "/desk/orders", Some(&json!({"orders": orders})));
    let ids = order_ids(&saved);
    let batch =
        d.s.sandbox_ok("POST", "/desk/orders/ship", Some(&json!({"order_ids": ids})));
    let path = format!("/desk/batches/{}", batch["id"].as_str().unwrap());
    // Kill it mid-batch (SIGKILL: nothing is tidied up), once a few orders are through.
    let end = Instant::now() + Duration::from_secs(30);
    while d.s.sandbox_ok("GET", &path, None)["shipped"].as_u64().unwrap() < 3 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(5));
    }
    d.s.kill_and_restart();
    let s = &d.s;
    let done = batch_done(s, &path);
    assert_eq!(
        (done["shipped"].clone(), done["failed"].clone()),
        (json!(40), json!(0)),
        "{done}"
    );
    let labels = s.sandbox_ok("GET", "/v3/labels?limit=100&created_at_min=2000-01-01", None);
    let labels = labels["labels"].as_array().unwrap();
    assert_eq!(labels.len(), 40, "one label per order, none lost, none doubled");
    for id in &ids {
        let o = s.sandbox_ok("GET", &format!("/desk/orders/{}", id.as_str().unwrap()), None);
        assert_eq!(
            (o["status"].clone(), o["label_ids"].as_array().unwrap().len()),
            (json!("shipped"), 1),
            "{o}"
        );
    }
    drop(d.labels);
    drop(d.slips);
}

#[test]
fn a_preset_is_read_and_renamed_by_id_and_the_desk_lists_countries() {
    let d = desk();
    let s = &d.s;
    let spain = s.sandbox_ok("GET", "/desk/presets", None)["presets"][0].clone();
    let id = spain["id"].as_str().unwrap();
    assert_eq!(
        s.sandbox_ok("GET", &format!("/desk/presets/{id}"), None)["name"],
        "Spain"
    );
    let mut change = spain.clone();
    for k in ["id", "created_at", "updated_at"] {
        change.as_object_mut().unwrap().remove(k);
    }
    change["name"] = json!("Spain ZPL");
    let renamed = s.sandbox_ok("PUT", &format!("/desk/presets/{id}"), Some(&change));
    assert_eq!(
        (renamed["name"].clone(), renamed["created_at"].clone()),
        (json!("Spain ZPL"), spain["created_at"].clone())
    );
    let (_, v) = s.call("GET", "/desk/presets/nope", &s.sandbox, None);
    assert_eq!(
        (v["meta"]["code"].clone(), v["meta"]["details"][0]["path"].clone()),
        (json!(4153), json!("id")),
        "{v}"
    );
    let (_, v) = s.call("GET", "/desk/batches/nope", &s.sandbox, None);
    assert_eq!(v["meta"]["details"][0]["path"], "id", "{v}");
    let (_, v) = s.call("GET", "/desk/presets", &s.live, None);
    assert_eq!(v["data"]["presets"], json!([]), "live keeps its own presets");
    let countries = s.sandbox_ok("GET", "/desk/countries", None)["countries"].clone();
    let spain = countries
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["alpha3"] == "ESP")
        .unwrap();
    assert_eq!(
        (spain["alpha2"].clone(), spain["name"].clone()),
        (json!("ES"), json!("Spain"))
    );
}
