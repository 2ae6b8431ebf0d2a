//! Returns (issue 40): a preset that puts a return label in the box, the return label made later
//! from a label, and returned parcels scanned back in against their order.

use crate::people::{as_operator, operator_session};
use crate::support::{self, raw_printer, tracking_numbers, Server};
use serde_json::{json, Value};
use std::time::Duration;

/// A ZPL printer of the test's own, registered at the desk; answers its id and what it receives.
fn zpl_printer(s: &Server, name: &str) -> (String, std::sync::mpsc::Receiver<Vec<u8>>) {
    let (port, printed) = raw_printer();
    let p = s.live_ok(
        "POST",
        "/desk/printers",
        Some(&json!({"name": name, "transport": "raw", "address": format!("127.0.0.1:{port}"), "format": "zpl"})),
    );
    (p["id"].as_str().unwrap().to_string(), printed)
}

/// What a printer received next, as text.
fn next_print(printed: &std::sync::mpsc::Receiver<Vec<u8>>, what: &str) -> String {
    let bytes = printed
        .recv_timeout(Duration::from_secs(15))
        .unwrap_or_else(|_| panic!("{what} was not printed"));
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A Spanish address (TIPSA makes ZPL labels, whose text the test reads at the printer).
fn es(name: &str, postal: &str) -> Value {
    json!({"contact_name": name, "street1": "Calle Mayor 1", "city": "Madrid", "postal_code": postal, "country": "ESP"})
}

/// A TIPSA account, a default preset (`return_label` as given) and order `number`: 2 mugs, 1
/// shirt.
fn desk_with_an_order(s: &Server, number: &str, return_label: Option<&str>) -> String {
    let account = s.sandbox_ok(
        "POST",
        "/v3/shipper-accounts",
        Some(&json!({"slug": "tipsa", "description": "Tipsa",
        "credentials": {"password": "p", "agency_code": "1", "customer_code": "2", "department_code": "3"}})),
    );
    let mut preset = json!({"name": "Spain", "shipper_account": {"id": account["id"]}, "service_type": "tipsa_10_horas",
        "file_type": "zpl", "ship_from": es("Almacén Sur", "28001"), "is_default": true});
    if let Some(when) = return_label {
        preset["return_label"] = json!(when);
    }
    s.sandbox_ok("POST", "/desk/presets", Some(&preset));
    let kg = |v: f64| json!({"value": v, "unit": "kg"});
    let order = json!({"order_number": number, "ship_to": es("Lucía Pérez", "08001"),
        "items": [
            {"description": "Blue mug", "quantity": 2, "sku": "MUG-1", "weight": kg(0.4)},
            {"description": "Shirt", "quantity": 1, "sku": "SHIRT-1", "weight": kg(0.3)}]});
    let saved = s.sandbox_ok("POST", "/desk/orders", Some(&order));
    saved["orders"][0]["id"].as_str().unwrap().to_string()
}

fn ship(s: &Server, order_id: &str) -> Value {
    s.sandbox_ok("POST", &format!("/desk/orders/{order_id}/ship"), Some(&json!({})))
}

#[test]
fn a_preset_puts_the_return_label_in_the_box_printed_by_its_own_profile_and_it_can_be_made_again_later() {
    let s = Server::start();
    let (labels_printer, labels) = zpl_printer(&s, "Zebra labels");
    let (returns_printer, returns) = zpl_printer(&s, "Zebra returns");
    for (document, printer) in [("label", &labels_printer), ("return_label", &returns_printer)] {
        s.live_ok(
            "PUT",
            &format!("/desk/print-profiles/{document}"),
            Some(&json!({"printer_id": printer, "stock": "4x6", "auto_print": true})),
        );
    }
    let id = desk_with_an_order(&s, "R-100", Some("with_outbound"));
    // Yodel makes no return labels: a preset that would ask it for one in every box is refused
    // when it is saved, not at each order.
    let yodel = support::yodel_account(&s);
    let preset = json!({"name": "UK with returns", "shipper_account": {"id": yodel}, "service_type": "yodel_std",
        "ship_from": support::address("Sender Co", "GBR", "E16 2AA"), "return_label": "with_outbound"});
    let (_, v) = s.call("POST", "/desk/presets", &s.sandbox, Some(&preset));
    assert_eq!(support::detail_paths(&v), ["return_label"], "{v}");
    assert!(v["meta"]["details"][0]["info"]
        .as_str()
        .unwrap()
        .starts_with("Yodel does not offer return shipments"));

    let shipped = ship(&s, &id);
    let (outbound, back) = (&shipped["label"], &shipped["return_label"]);
    assert_eq!(
        outbound["return_shipment"],
        Value::Null,
        "the outbound is no return: {outbound}"
    );
    assert_eq!(back["return_shipment"], true, "{shipped}");
    assert_eq!(back["status"], "created");
    if outbound["order_number"] == "R-100" {
        assert_eq!(
            back["order_number"], "R-100-R",
            "an order number of its own, per account"
        );
    }
    assert_eq!(back["service_type"], outbound["service_type"]);
    let (out_numbers, back_numbers) = (tracking_numbers(outbound), tracking_numbers(back));
    assert_ne!(out_numbers, back_numbers);
    // The same range: both numbers are the account's, of one length and prefix.
    assert_eq!(out_numbers[0].len(), back_numbers[0].len());
    assert_eq!(out_numbers[0][..2], back_numbers[0][..2]);
    assert_eq!(shipped["order"]["status"], "shipped");
    assert_eq!(shipped["order"]["return_label_ids"], json!([back["id"]]));
    assert_eq!(
        shipped["order"]["tracking_numbers"],
        json!(out_numbers),
        "the order's tracking is its outbound's"
    );

    // Each goes to its own printer: the outbound to the labels', the return label (saying so)
    // to the returns'.
    let first = next_print(&labels, "the outbound label");
    assert!(
        first.contains(&out_numbers[0]) && !first.contains("RETURN SHIPMENT"),
        "{first}"
    );
    let second = next_print(&returns, "the return label");
    assert!(
        second.contains(&back_numbers[0]) && second.contains("RETURN SHIPMENT"),
        "{second}"
    );

    // A return label is a label of the account: on the close-out with the outbound.
    let account = outbound["shipper_account"]["id"].clone();
    let m = s.sandbox_ok(
        "POST",
        "/v3/manifests",
        Some(&json!({"shipper_account": {"id": account}})),
    );
    let mut manifested: Vec<&str> = m["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    manifested.sort();
    let mut both = vec![outbound["id"].as_str().unwrap(), back["id"].as_str().unwrap()];
    both.sort();
    assert_eq!(manifested, both, "{m}");

    // A return label of a return label makes no sense; it is refused in words.
    let path = |label: &Value| format!("/desk/labels/{}/return-label", label["id"].as_str().unwrap());
    let (_, v) = s.call("POST", &path(back), &s.sandbox, None);
    let info = v["meta"]["details"][0]["info"].as_str().unwrap_or_default();
    assert!(info.contains("is a return label already"), "{v}");
    // Later (the customer asks for another): made from the outbound label, linked to the order.
    let again = s.sandbox_ok("POST", &path(outbound), None);
    assert_eq!(again["return_shipment"], true);
    if outbound["order_number"] == "R-100" {
        assert_eq!(again["order_number"], "R-100-R2");
    }
    let order = s.sandbox_ok("GET", &format!("/desk/orders/{id}"), None);
    assert_eq!(order["return_label_ids"], json!([back["id"], again["id"]]));
    assert!(next_print(&returns, "the later return label").contains(&tracking_numbers(&again)[0]));
    assert_eq!(order["status"], "shipped", "a return label ships nothing of the order");
}

#[test]
fn a_return_label_prints_where_labels_do_until_it_has_a_profile_and_a_voided_one_leaves_its_order() {
    let s = Server::start();
    let (printer, printed) = zpl_printer(&s, "Zebra desk");
    s.live_ok(
        "PUT",
        "/desk/print-profiles/label",
        Some(&json!({"printer_id": printer, "stock": "4x6", "auto_print": true})),
    );
    let id = desk_with_an_order(&s, "R-200", None);
    let shipped = ship(&s, &id);
    assert_eq!(shipped["return_label"], Value::Null, "the preset makes none by itself");
    assert!(!next_print(&printed, "the outbound label").contains("RETURN SHIPMENT"));
    let outbound = shipped["label"]["id"].as_str().unwrap();

    let back = s.sandbox_ok("POST", &format!("/desk/labels/{outbound}/return-label"), None);
    assert!(next_print(&printed, "the return label").contains("RETURN SHIPMENT"));
    let order = s.sandbox_ok("GET", &format!("/desk/orders/{id}"), None);
    assert_eq!(order["return_label_ids"], json!([back["id"]]));

    // Voided, it leaves the order, which stays shipped.
    s.sandbox_ok("POST", "/v3/cancel-labels", Some(&json!({"label": {"id": back["id"]}})));
    let order = s.sandbox_ok("GET", &format!("/desk/orders/{id}"), None);
    assert_eq!(
        (order["return_label_ids"].clone(), order["status"].clone()),
        (Value::Null, json!("shipped")),
        "{order}"
    );

    // A label made at the Ship form (no order) has its return label too; a voided one has none.
    let account = shipped["label"]["shipper_account"]["id"].as_str().unwrap();
    let mut body = support::yodel_label(account, 1);
    body["service_type"] = json!("tipsa_10_horas");
    body["shipment"]["ship_from"] = es("Almacén Sur", "28001");
    body["shipment"]["ship_to"] = es("Lucía Pérez", "08001");
    let loose = s.sandbox_ok("POST", "/v3/labels", Some(&body));
    let loose_back = s.sandbox_ok(
        "POST",
        &format!("/desk/labels/{}/return-label", loose["id"].as_str().unwrap()),
        None,
    );
    assert_eq!(loose_back["return_shipment"], true);
    s.sandbox_ok(
        "POST",
        "/v3/cancel-labels",
        Some(&json!({"label": {"id": loose["id"]}})),
    );
    let (_, v) = s.call(
        "POST",
        &format!("/desk/labels/{}/return-label", loose["id"].as_str().unwrap()),
        &s.sandbox,
        None,
    );
    assert!(
        v["meta"]["details"][0]["info"]
            .as_str()
            .unwrap_or_default()
            .contains("is voided"),
        "{v}"
    );
}

#[test]
fn a_returned_parcel_is_scanned_in_by_any_of_its_numbers_and_recorded_per_item_with_who_and_why() {
    let s = Server::start();
    let id = desk_with_an_order(&s, "R-300", Some("with_outbound"));
    let open = desk_open_order(&s, "R-301");
    let shipped = ship(&s, &id);
    let outbound = tracking_numbers(&shipped["label"])[0].clone();
    let back = tracking_numbers(&shipped["return_label"])[0].clone();
    let lookup = |code: &str| {
        s.call("GET", &format!("/desk/returns/lookup?code={code}"), &s.sandbox, None)
            .1
    };

    for (code, by) in [
        (&back, "return_label"),
        (&outbound, "outbound_label"),
        (&"R-300".to_string(), "order_number"),
    ] {
        let v = lookup(code);
        assert_eq!(
            (v["data"]["found_by"].as_str(), v["data"]["order"]["id"].as_str()),
            (Some(by), Some(id.as_str())),
            "{code}: {v}"
        );
    }
    let found = lookup(&back)["data"].clone();
    assert_eq!(
        (found["shipped"].clone(), found["returned"].clone()),
        (json!([2, 1]), json!([0, 0]))
    );
    assert!(
        found["reasons"].as_array().unwrap().contains(&json!("Wrong size")),
        "{found}"
    );

    // A number nobody knows, and an order that never left, are told as such.
    let v = lookup("JJD0000000000");
    assert_eq!(v["meta"]["code"], 4153, "{v}");
    assert!(
        v["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("type the order number"),
        "{v}"
    );
    let v = lookup("R-301");
    assert!(
        v["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("nothing of it was shipped"),
        "{v} {open}"
    );

    // Recorded by a signed-in packer: one mug back resellable, the shirt damaged.
    let packer = operator_session(&s, "packer");
    let body = json!({"order_id": id, "scanned": back, "items": [
        {"line": 1, "quantity": 1, "reason": "Wrong size", "condition": "resellable"},
        {"line": 2, "quantity": 1, "reason": "Damaged in transit", "condition": "damaged"}]});
    let (status, v) = as_operator(&s, &packer, "POST", "/desk/returns", Some(&body));
    assert_eq!((status, v["meta"]["code"].as_i64()), (200, Some(200)), "{v}");
    let recorded = v["data"].clone();
    assert_eq!(recorded["order_number"], "R-300");
    assert_eq!(recorded["operator"], "packer one");
    assert_eq!(recorded["return_label_ids"], json!([shipped["return_label"]["id"]]));
    assert_eq!(recorded["items"][1]["sku"], "SHIRT-1");

    // What came back counts: a second mug may follow, a second shirt may not; a reason the desk
    // does not keep is named with the ones it does.
    assert_eq!(lookup("R-300")["data"]["returned"], json!([1, 1]));
    let (_, v) = s.call(
        "POST",
        "/desk/returns",
        &s.sandbox,
        Some(&json!({"order_id": id, "items": [
        {"line": 2, "quantity": 1, "reason": "Wrong size", "condition": "resellable"},
        {"line": 1, "quantity": 1, "reason": "Too blue", "condition": "resellable"}]})),
    );
    let infos: Vec<&str> = v["meta"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["info"].as_str().unwrap())
        .collect();
    assert!(
        infos[0].contains("line 2 (SHIRT-1): 1 shipped and 1 came back before, so 0 to 0"),
        "{infos:?}"
    );
    assert!(
        infos[1].contains("choose a reason the desk keeps") && infos[1].contains("No longer wanted"),
        "{infos:?}"
    );
    let (_, v) = s.call(
        "POST",
        "/desk/returns",
        &s.sandbox,
        Some(&json!({"order_id": id, "items": []})),
    );
    assert!(
        v["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("at least one item"),
        "{v}"
    );
    s.sandbox_ok(
        "POST",
        "/desk/returns",
        Some(&json!({"order_id": id, "items": [
        {"line": 1, "quantity": 1, "reason": "No longer wanted", "condition": "missing"}]})),
    );

    let list = s.sandbox_ok("GET", "/desk/returns", None);
    assert_eq!(list["returns"].as_array().unwrap().len(), 2);
    assert_eq!(list["returns"][1]["id"], recorded["id"], "newest first");
    assert_eq!(
        s.sandbox_ok("GET", "/desk/returns?from=2000-01-01&to=2000-01-02", None)["returns"],
        json!([])
    );
    let (_, csv) = s.download(&s.url("/desk/returns/export.csv"), &s.sandbox);
    let csv = String::from_utf8(csv).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4, "a header and a row per item returned: {csv}");
    assert!(
        lines[0].starts_with("returned_at,order_number,sku,description,quantity,reason,condition"),
        "{csv}"
    );
    assert!(
        lines[1].contains(",R-300,MUG-1,Blue mug,1,Wrong size,resellable,packer one,"),
        "{csv}"
    );
    assert!(lines[3].contains(",1,No longer wanted,missing,"), "{csv}");
    // Nothing of the sandbox's returns in the live environment.
    assert_eq!(s.live_ok("GET", "/desk/returns", None)["returns"], json!([]));
}

/// An order that is never shipped (its preset is the desk's default).
fn desk_open_order(s: &Server, number: &str) -> String {
    let order = json!({"order_number": number, "ship_to": es("Juan Roe", "08001"),
        "items": [{"description": "Mug", "quantity": 1, "sku": "MUG-1"}]});
    s.sandbox_ok("POST", "/desk/orders", Some(&order))["orders"][0]["id"]
        .as_str()
        .unwrap()
        .to_string()
}
