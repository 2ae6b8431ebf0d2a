//! Packing an order as a desk that checks every item does it (issue 40): the packer scans the
//! order, then each item's code; a wrong item or one too many is refused and counted; the label
//! waits until every line is complete, and the order then says its contents were verified.

use crate::people::{as_operator, operator_session};
use crate::support::{self, Server};
use serde_json::{json, Value};

/// A desk that packs: an account, a default preset on it, and `verify_items` on.
fn packing_desk(s: &Server) {
    let account = support::yodel_account(s);
    let preset = json!({"name": "Parcels", "shipper_account": {"id": account}, "service_type": "yodel_std",
        "ship_from": support::address("Sender Co", "GBR", "E16 2AA"), "is_default": true});
    s.sandbox_ok("POST", "/desk/presets", Some(&preset));
    let mut settings = s.live_ok("GET", "/desk/settings", None);
    settings["verify_items"] = json!(true);
    s.live_ok("PUT", "/desk/settings", Some(&settings));
}

/// A packing desk and order `number`: 2 × a mug (its barcode), 1 × a shirt (its SKU only), 1 × a
/// card with no code at all, each with its weight. Answers the order's id.
fn desk_with_an_order(s: &Server, number: &str) -> String {
    packing_desk(s);
    let kg = |v: f64| json!({"value": v, "unit": "kg"});
    let order = json!({"order_number": number, "ship_to": support::address("Jane Doe", "GBR", "M1 1AE"),
        "items": [
            {"description": "Blue mug", "quantity": 2, "sku": "MUG-1", "barcode": "5012345678900", "weight": kg(0.4)},
            {"description": "Shirt", "quantity": 1, "sku": "SHIRT-1", "weight": kg(0.3)},
            {"description": "Gift card", "quantity": 1, "weight": kg(0.05)}]});
    let saved = s.sandbox_ok("POST", "/desk/orders", Some(&order));
    saved["orders"][0]["id"].as_str().unwrap().to_string()
}

fn scan(s: &Server, id: &str, code: &str) -> Value {
    s.sandbox_ok("POST", &format!("/desk/orders/{id}/pack"), Some(&json!({"scan": code})))
}

fn packed(v: &Value) -> Vec<i64> {
    v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["packed"].as_i64().unwrap())
        .collect()
}

#[test]
fn an_order_ships_once_every_item_is_scanned_and_a_wrong_item_is_refused_and_counted() {
    let mut s = Server::start();
    let id = desk_with_an_order(&s, "P-100");
    let pack = format!("/desk/orders/{id}/pack");

    // Nothing packed yet: the label is refused, saying what is missing.
    let (_, v) = s.call("POST", &format!("/desk/orders/{id}/ship"), &s.sandbox, Some(&json!({})));
    assert_eq!(v["meta"]["code"], 4171, "{v}");
    let info = v["meta"]["details"][0]["info"].as_str().unwrap();
    assert!(
        info.contains("not packed yet") && info.contains("2 × Blue mug"),
        "{info}"
    );
    assert_eq!(
        s.sandbox_ok("GET", "/v3/labels", None)["labels"],
        json!([]),
        "no label made"
    );

    let state = s.sandbox_ok("GET", &pack, None);
    assert_eq!(packed(&state), [0, 0, 0]);
    assert_eq!(state["lines"][0]["code"], "5012345678900");
    assert_eq!(
        state["lines"][1]["code"], "SHIRT-1",
        "without a barcode the SKU is the code"
    );
    assert_eq!(state["lines"][2]["code"], Value::Null, "no code: added by hand");

    let a = scan(&s, &id, "5012345678900");
    assert_eq!(
        (a["result"].clone(), a["line"].clone()),
        (json!("added"), json!(1)),
        "{a}"
    );
    assert_eq!(a["message"], "Blue mug: 1 of 2 packed.");
    let wrong = scan(&s, &id, "4006381333931");
    assert_eq!(wrong["result"], "not_in_order", "{wrong}");
    assert!(
        wrong["message"]
            .as_str()
            .unwrap()
            .contains("not an item of order P-100"),
        "{wrong}"
    );
    assert_eq!(packed(&wrong["state"]), [1, 0, 0], "a refused code changes nothing");
    assert_eq!(wrong["state"]["refused"], 1);
    assert_eq!(
        scan(&s, &id, "shirt-1")["result"],
        "added",
        "codes are read in any case"
    );
    // A line with a code is scanned, not counted by hand; the card has none.
    let (_, v) = s.call("POST", &pack, &s.sandbox, Some(&json!({"line": 1, "add": 1})));
    assert!(
        v["meta"]["details"][0]["info"].as_str().unwrap().contains("scan it"),
        "{v}"
    );
    let card = s.sandbox_ok("POST", &pack, Some(&json!({"line": 3, "add": 1})));
    assert_eq!(
        (card["result"].clone(), card["state"]["lines"][2]["by_hand"].clone()),
        (json!("added"), json!(1))
    );
    assert_eq!(card["state"]["complete"], false);

    // The desk goes down mid-packing: the scans are still there.
    s.kill_and_restart();
    assert_eq!(packed(&s.sandbox_ok("GET", &pack, None)), [1, 1, 1]);

    let last = scan(&s, &id, "5012345678900");
    assert_eq!(last["result"], "complete", "{last}");
    assert_eq!(last["message"], "Every item of order P-100 is packed.");
    let extra = scan(&s, &id, "5012345678900");
    assert_eq!(extra["result"], "too_many", "{extra}");
    assert!(
        extra["message"].as_str().unwrap().contains("take the extra one out"),
        "{extra}"
    );
    assert_eq!(
        (packed(&extra["state"]), extra["state"]["refused"].clone()),
        (vec![2, 1, 1], json!(2))
    );

    let shipped = s.sandbox_ok("POST", &format!("/desk/orders/{id}/ship"), Some(&json!({})));
    assert_eq!(shipped["order"]["status"], "shipped");
    assert_eq!(shipped["order"]["contents_verified"], true);
    let (_, v) = s.call("POST", &pack, &s.sandbox, Some(&json!({"scan": "5012345678900"})));
    assert_eq!(v["meta"]["code"], 4171, "a shipped order has nothing to pack: {v}");
}

#[test]
fn packing_started_again_counts_from_nothing_and_the_desk_without_verify_items_ships_unscanned() {
    let s = Server::start();
    let id = desk_with_an_order(&s, "P-200");
    let pack = format!("/desk/orders/{id}/pack");
    scan(&s, &id, "5012345678900");
    scan(&s, &id, "nope");
    let again = s.sandbox_ok("DELETE", &pack, None);
    assert_eq!(
        (packed(&again), again["refused"].clone(), again["complete"].clone()),
        (vec![0, 0, 0], json!(0), json!(false))
    );
    // The restart is in the log, with who did it.
    let log = s.live_ok("GET", &format!("/desk/audit?object_id={id}"), None);
    assert!(log.to_string().contains("order.packing_restarted"), "{log}");

    // Bad scans say what to send.
    let (_, v) = s.call("POST", &pack, &s.sandbox, Some(&json!({"scan": "  "})));
    assert_eq!(
        (&v["meta"]["code"], &v["meta"]["details"][0]["path"]),
        (&json!(4104), &json!("scan")),
        "{v}"
    );
    let (_, v) = s.call("POST", &pack, &s.sandbox, Some(&json!({})));
    assert_eq!(v["meta"]["code"], 4104, "{v}");
    let (_, v) = s.call("POST", &pack, &s.sandbox, Some(&json!({"line": 9})));
    assert_eq!(
        (&v["meta"]["code"], &v["meta"]["details"][0]["path"]),
        (&json!(4104), &json!("line")),
        "{v}"
    );

    // A desk that does not check items ships as before, and the order does not claim it was checked.
    let mut settings = s.live_ok("GET", "/desk/settings", None);
    settings["verify_items"] = json!(false);
    s.live_ok("PUT", "/desk/settings", Some(&settings));
    let shipped = s.sandbox_ok("POST", &format!("/desk/orders/{id}/ship"), Some(&json!({})));
    assert_eq!(
        (
            shipped["order"]["status"].clone(),
            shipped["order"]["contents_verified"].clone()
        ),
        (json!("shipped"), json!(false))
    );
}

#[test]
fn a_shops_csv_gives_items_their_barcodes() {
    let s = Server::start();
    let csv = "Order Number,Name,Street,City,Postcode,Country,Product,Qty,SKU,EAN\r\n\
               C-1,Jane Doe,1 High St,Manchester,M1 1AE,GB,Blue mug,2,MUG-1,5012345678900\r\n";
    let (imported, failed, v) = crate::orders::import(&s, csv);
    assert_eq!((imported, failed), (1, vec![]), "{v}");
    let list = s.sandbox_ok("GET", "/desk/orders?s=C-1", None);
    assert_eq!(list["orders"][0]["items"][0]["barcode"], "5012345678900", "{list}");
}

#[test]
fn an_order_packed_at_one_desk_is_refused_at_another_naming_it() {
    let (a, b) = crate::desks::two_desks();
    let id = desk_with_an_order(&a, "P-300");
    assert_eq!(scan(&a, &id, "5012345678900")["result"], "added");
    let (_, v) = b.call(
        "POST",
        &format!("/desk/orders/{id}/pack"),
        &b.sandbox,
        Some(&json!({"scan": "SHIRT-1"})),
    );
    assert_eq!(v["meta"]["code"], 4171, "{v}");
    assert!(
        v["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("being packed at A"),
        "{v}"
    );
    // Desk B sees the same packing list, and may take it over by starting again.
    assert_eq!(
        packed(&b.sandbox_ok("GET", &format!("/desk/orders/{id}/pack"), None)),
        [1, 0, 0]
    );
    b.sandbox_ok("DELETE", &format!("/desk/orders/{id}/pack"), None);
    assert_eq!(scan(&b, &id, "SHIRT-1")["result"], "added");
}

#[test]
fn what_is_packed_ships_now_the_rest_later_and_a_voided_part_is_to_ship_again() {
    let s = Server::start();
    let id = desk_with_an_order(&s, "P-400");
    let pack = format!("/desk/orders/{id}/pack");
    let ship = format!("/desk/orders/{id}/ship");
    // Nothing packed: nothing to ship.
    let (_, v) = s.call("POST", &ship, &s.sandbox, Some(&json!({"packed_only": true})));
    assert_eq!(v["meta"]["details"][0]["path"], "packed_only", "{v}");

    // One mug and the card are in the box; the second mug and the shirt are out of stock.
    scan(&s, &id, "5012345678900");
    s.sandbox_ok("POST", &pack, Some(&json!({"line": 3, "add": 1})));
    let first = s.sandbox_ok("POST", &ship, Some(&json!({"packed_only": true})));
    let order = &first["order"];
    assert_eq!(order["status"], "partially_shipped", "{order}");
    assert_eq!(order["partial_shipments"][0]["quantities"], json!([1, 0, 1]));
    assert_eq!(order["partial_shipments"][0]["label_id"], first["label"]["id"]);
    let first_numbers = first["label"]["tracking_numbers"].clone();
    assert_eq!(order["tracking_numbers"], first_numbers);
    // The label's customs and weight are the part's: 0.4 + 0.05 kg of items.
    let h = s.sandbox_ok("GET", "/desk/history?created_at_min=2000-01-01&s=P-400", None);
    assert_eq!(
        h["rows"][0]["weight"]["value"]
            .as_f64()
            .map(|v| (v * 1000.0).round() / 1000.0),
        Some(0.45),
        "{h}"
    );

    // The rest is packed from an empty box: what is left of each line.
    let rest = s.sandbox_ok("GET", &pack, None);
    let left: Vec<(i64, i64)> = rest["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["line"].as_i64().unwrap(), l["ordered"].as_i64().unwrap()))
        .collect();
    assert_eq!(left, [(1, 1), (2, 1)], "{rest}");
    let (_, v) = s.call("POST", &ship, &s.sandbox, Some(&json!({})));
    assert!(
        v["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("1 × Blue mug, 1 × Shirt"),
        "{v}"
    );
    scan(&s, &id, "5012345678900");
    assert_eq!(scan(&s, &id, "SHIRT-1")["result"], "complete");
    let second = s.sandbox_ok("POST", &ship, Some(&json!({})));
    assert_eq!(second["order"]["status"], "shipped");
    assert_eq!(second["order"]["label_ids"].as_array().unwrap().len(), 2);
    assert_eq!(
        second["order"]["tracking_numbers"].as_array().unwrap().len(),
        2,
        "both labels' numbers"
    );

    // The first part's label voided: its mug and card are to ship again, the rest stays shipped.
    let voided = s.sandbox_ok(
        "POST",
        "/v3/cancel-labels",
        Some(&json!({"label": {"id": first["label"]["id"]}})),
    );
    assert_eq!(voided["status"], "cancelled", "{voided}");
    let o = s.sandbox_ok("GET", &format!("/desk/orders/{id}"), None);
    assert_eq!(o["status"], "partially_shipped", "{o}");
    assert!(
        !o["tracking_numbers"].as_array().unwrap().contains(&first_numbers[0]),
        "{o}"
    );
    let again = s.sandbox_ok("GET", &pack, None);
    let left: Vec<i64> = again["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["ordered"].as_i64().unwrap())
        .collect();
    assert_eq!(left, [1, 1], "one mug and the card: {again}");
}

#[test]
fn only_a_supervisor_ships_what_is_packed_when_operators_sign_in() {
    let s = Server::start();
    let id = desk_with_an_order(&s, "P-500");
    scan(&s, &id, "5012345678900");
    let packer = operator_session(&s, "packer");
    let ship = format!("/desk/orders/{id}/ship");
    let (status, v) = as_operator(&s, &packer, "POST", &ship, Some(&json!({"packed_only": true})));
    assert_eq!((status, &v["meta"]["code"]), (403, &json!(403)), "{v}");
    assert!(
        v["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("a supervisor or an admin"),
        "{v}"
    );
    let supervisor = operator_session(&s, "supervisor");
    let (_, v) = as_operator(&s, &supervisor, "POST", &ship, Some(&json!({"packed_only": true})));
    assert_eq!(v["data"]["order"]["status"], "partially_shipped", "{v}");
}

#[test]
fn the_command_sheet_holds_a_barcode_for_each_command_the_ship_screen_obeys() {
    let s = Server::start();
    let (kind, pdf) = s.download(&s.url("/desk/command-sheet.pdf"), &s.sandbox);
    assert_eq!(kind, "application/pdf");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("commands.pdf");
    std::fs::write(&path, pdf).unwrap();
    // Decoded from the printed page, as a scanner reads it.
    let mut codes = crate::documents::pdf_barcodes(&path).concat();
    codes.sort();
    let mut commands = packdesk_model::status::ScanCommand::NAMES.to_vec();
    commands.sort();
    assert_eq!(codes, commands);
}

#[test]
fn a_line_shipped_whole_in_a_part_leaves_the_list_and_the_others_keep_their_numbers() {
    let s = Server::start();
    let id = desk_with_an_order(&s, "P-600");
    let pack = format!("/desk/orders/{id}/pack");
    // Both mugs go out first: line 1 is shipped whole.
    scan(&s, &id, "5012345678900");
    scan(&s, &id, "5012345678900");
    let part = s.sandbox_ok(
        "POST",
        &format!("/desk/orders/{id}/ship"),
        Some(&json!({"packed_only": true})),
    );
    assert_eq!(part["order"]["partial_shipments"][0]["quantities"], json!([2, 0, 0]));
    let shirt = scan(&s, &id, "SHIRT-1");
    assert_eq!(
        (shirt["line"].clone(), shirt["message"].clone()),
        (json!(2), json!("Shirt: 1 of 1 packed."))
    );
    let card = s.sandbox_ok("POST", &pack, Some(&json!({"line": 3, "add": 1})));
    assert_eq!(
        (card["result"].clone(), card["message"].clone()),
        (json!("complete"), json!("Every item of order P-600 is packed."))
    );
    let (_, v) = s.call("POST", &pack, &s.sandbox, Some(&json!({"line": 1, "add": 1})));
    assert_eq!(v["meta"]["details"][0]["path"], "line", "{v}");
    assert!(
        v["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("nothing left to pack on line 1"),
        "{v}"
    );
    assert_eq!(
        scan(&s, &id, "5012345678900")["result"],
        "not_in_order",
        "the mugs are shipped"
    );
}

#[test]
fn an_order_packed_in_two_boxes_ships_as_two_parcels_each_with_its_items_and_the_slip_says_which_box() {
    let s = Server::start();
    let id = desk_with_an_order(&s, "P-700");
    let pack = format!("/desk/orders/{id}/pack");
    let next_box = json!({"next_box": true});
    // An empty box is not closed.
    let (_, v) = s.call("POST", &pack, &s.sandbox, Some(&next_box));
    assert!(
        v["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("box 1 of order P-700 is empty"),
        "{v}"
    );
    // Both mugs in box 1; the shirt and the card in box 2.
    scan(&s, &id, "5012345678900");
    scan(&s, &id, "5012345678900");
    let started = s.sandbox_ok("POST", &pack, Some(&next_box));
    assert_eq!(started["result"], "box_started", "{started}");
    assert_eq!(
        started["message"],
        "Box 2 of order P-700 started: the items scanned now go into it."
    );
    scan(&s, &id, "SHIRT-1");
    let done = s.sandbox_ok("POST", &pack, Some(&json!({"line": 3, "add": 1})));
    assert_eq!(done["result"], "complete");
    let boxes: Vec<Value> = done["state"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["in_boxes"].clone())
        .collect();
    assert_eq!(boxes, [json!([2, 0]), json!([0, 1]), json!([0, 1])]);
    assert_eq!(done["state"]["boxes"], 2);

    // One parcel for two boxes is refused; none given: each box weighs its items.
    let ship = format!("/desk/orders/{id}/ship");
    let one = json!({"parcels": [{"weight": {"value": 2.0, "unit": "kg"}, "box_type": "custom",
        "dimension": {"width": 20.0, "height": 20.0, "depth": 20.0, "unit": "cm"}}]});
    let (_, v) = s.call("POST", &ship, &s.sandbox, Some(&one));
    assert!(
        v["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("packed in 2 boxes: give one parcel for each box (1 given)"),
        "{v}"
    );
    let shipped = s.sandbox_ok("POST", &ship, Some(&json!({})));
    assert_eq!(shipped["order"]["status"], "shipped");
    assert_eq!(shipped["order"]["contents_verified"], true);
    let label = &shipped["label"];
    assert_eq!(
        label["tracking_numbers"].as_array().unwrap().len(),
        2,
        "a parcel a box: {label}"
    );
    let h = s.sandbox_ok("GET", "/desk/history?created_at_min=2000-01-01&s=P-700", None);
    let kg = h["rows"][0]["weight"]["value"].as_f64().unwrap();
    assert!(
        (kg - 1.15).abs() < 1e-9,
        "0.8 kg of mugs and 0.35 kg of shirt and card: {h}"
    );

    // The packing slip says which item is in which box.
    let (_, slip) = s.download(label["files"]["packing_slip"]["url"].as_str().unwrap(), &s.sandbox);
    let text = support::pdf_text(&slip, true);
    let row = |what: &str| {
        text.lines()
            .find(|l| l.contains(what))
            .unwrap_or_default()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert!(row("Blue mug").ends_with("Blue mug 1"), "{text}");
    assert!(row("Shirt").ends_with("Shirt 2"), "{text}");
    assert!(row("Gift card").ends_with("Gift card 2"), "{text}");
    assert!(text.contains("4 items in 2 boxes"), "{text}");
}

#[test]
fn boxes_for_a_carrier_of_one_parcel_a_label_get_a_label_each_weighed_on_the_scale_as_closed() {
    let s = Server::start();
    // Whistl labels one parcel a shipment: each box is a label of its own.
    let carriers = s.sandbox_ok("GET", "/desk/carriers", None);
    let per_label = |slug: &str| {
        carriers["carriers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["slug"] == slug)
            .unwrap()["parcels_per_label"]
            .clone()
    };
    assert_eq!((per_label("whistl"), per_label("yodel")), (json!(1), json!(50)));
    let id = desk_with_an_order(&s, "P-800");
    let body = json!({"slug": "whistl", "description": "Whistl desk", "timezone": "Europe/London",
        "credentials": {"client_code": "c", "site_code": "s", "customer_number": "1"}});
    let whistl = s.sandbox_ok("POST", "/v3/shipper-accounts", Some(&body))["id"].clone();
    let preset = json!({"name": "Whistl", "shipper_account": {"id": whistl}, "service_type": "whistl_tracked48",
        "ship_from": support::address("Sender Co", "GBR", "E16 2AA")});
    s.sandbox_ok("POST", "/desk/presets", Some(&preset));

    // The desk scale (a FIFO standing in for its /dev/hidrawN).
    let dir = tempfile::tempdir().unwrap();
    let path = crate::scale::fifo(dir.path());
    s.live_ok("PUT", "/desk/scale", Some(&json!({"device": path})));
    let mut scale = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    let mut weigh = |centi_kg: u8, reports: u64| {
        // Stable, in kg, exponent -2; a weight counts once the scale repeats it.
        for _ in 0..2 {
            std::io::Write::write_all(&mut scale, &[3, 4, 3, 0xFE, centi_kg, 0]).unwrap();
        }
        crate::scale::scale_until(&s, "a stable weight", |v| {
            v["reports"] == json!(reports) && v["stable"] == json!(true)
        });
    };

    // Both mugs in box 1, closed on the scale at 1.20 kg; the shirt and the card in box 2.
    let pack = format!("/desk/orders/{id}/pack");
    scan(&s, &id, "5012345678900");
    scan(&s, &id, "5012345678900");
    weigh(120, 2);
    let closed = s.sandbox_ok("POST", &pack, Some(&json!({"next_box": true})));
    assert_eq!(
        closed["state"]["box_weights"],
        json!([{"value": 1.2, "unit": "kg"}, null]),
        "{closed}"
    );
    // A weight belongs to a box being closed.
    let (_, v) = s.call(
        "POST",
        &pack,
        &s.sandbox,
        Some(&json!({"scan": "SHIRT-1", "weight": {"value": 1, "unit": "kg"}})),
    );
    assert_eq!(support::detail_paths(&v), ["weight"], "{v}");
    scan(&s, &id, "SHIRT-1");
    s.sandbox_ok("POST", &pack, Some(&json!({"line": 3, "add": 1})));
    // The scale shows 0.45 kg as the labels are made; a script's call (not the desk's screen)
    // takes no weight off a scale it cannot see: box 2 weighs its items.
    weigh(45, 4);

    // A box given no weight is named as the box it is, though it would be its label's only
    // parcel; no label is made.
    let ship = format!("/desk/orders/{id}/ship");
    let unweighed = json!({"preset": "Whistl", "parcels": [{"weight": {"value": 1.2, "unit": "kg"}},
        {"weight": {"value": 0, "unit": "kg"}}]});
    let (_, v) = s.call("POST", &ship, &s.sandbox, Some(&unweighed));
    assert_eq!(support::detail_paths(&v), ["parcels[1].weight.value"], "{v}");
    let info = v["meta"]["details"][0]["info"].as_str().unwrap();
    assert!(info.contains("box 2 of order P-800 weighs 0 kg"), "{info}");
    assert_eq!(
        s.sandbox_ok("GET", &format!("/desk/orders/{id}"), None)["label_ids"],
        json!([])
    );

    let shipped = s.sandbox_ok("POST", &ship, Some(&json!({"preset": "Whistl"})));
    let labels = shipped["labels"].as_array().unwrap();
    assert_eq!(labels.len(), 2, "a label per box: {shipped}");
    assert_eq!(shipped["label"]["id"], labels[0]["id"]);
    for l in labels {
        assert_eq!(l["tracking_numbers"].as_array().unwrap().len(), 1, "{l}");
    }
    let o = &shipped["order"];
    assert_eq!(o["status"], "shipped", "{o}");
    assert_eq!(o["contents_verified"], true, "{o}");
    assert_eq!(o["label_ids"].as_array().unwrap().len(), 2);
    assert_eq!(o["tracking_numbers"].as_array().unwrap().len(), 2);
    // The day's work: two labels, one order of four items.
    let today = s.sandbox_ok("GET", "/desk/today", None);
    let day = &today["by_operator"][0];
    assert_eq!(
        (day["labels"].clone(), day["orders"].clone(), day["items"].clone()),
        (json!(2), json!(1), json!(4)),
        "{today}"
    );

    // Each label: its order number, its box's weight from the scale.
    let h = s.sandbox_ok("GET", "/desk/history?created_at_min=2000-01-01&s=P-800", None);
    let mut rows: Vec<(String, f64)> = h["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["label"]["order_number"].as_str().unwrap().to_string(),
                r["weight"]["value"].as_f64().unwrap(),
            )
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(rows, [("P-800".to_string(), 1.2), ("P-800-2".to_string(), 0.35)], "{h}");

    // One packing slip, with the first label, naming both boxes' tracking numbers.
    let (_, slip) = s.download(labels[0]["files"]["packing_slip"]["url"].as_str().unwrap(), &s.sandbox);
    let text = support::pdf_text(&slip, true);
    for l in labels {
        let number = l["tracking_numbers"][0].as_str().unwrap();
        assert!(text.contains(number), "{number} on the slip: {text}");
    }
    assert!(text.contains("4 items in 2 boxes"), "{text}");
    assert!(labels[1]["files"]["packing_slip"].is_null(), "{}", labels[1]);
}

#[test]
fn boxes_closed_off_the_scale_with_nothing_to_weigh_them_by_are_named_and_no_label_made() {
    let s = Server::start();
    packing_desk(&s);
    // Items without weights, a preset without a parcel weight, no scale: nothing to weigh by.
    let order = json!({"order_number": "P-901", "ship_to": support::address("Jane Doe", "GBR", "M1 1AE"),
        "items": [{"description": "Blue mug", "quantity": 1, "sku": "MUG-1"},
            {"description": "Shirt", "quantity": 1, "sku": "SHIRT-1"}]});
    let id = s.sandbox_ok("POST", "/desk/orders", Some(&order))["orders"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    scan(&s, &id, "MUG-1");
    s.sandbox_ok(
        "POST",
        &format!("/desk/orders/{id}/pack"),
        Some(&json!({"next_box": true})),
    );
    scan(&s, &id, "SHIRT-1");
    let (_, v) = s.call("POST", &format!("/desk/orders/{id}/ship"), &s.sandbox, Some(&json!({})));
    assert_eq!(support::detail_paths(&v), ["parcels"], "{v}");
    let detail = &v["meta"]["details"][0];
    assert_eq!(detail["key"], "boxOffScale", "{v}");
    let info = detail["info"].as_str().unwrap();
    assert!(
        info.starts_with("box 1 of order P-901 was closed off the scale") && info.contains("preset `Parcels`"),
        "{info}"
    );
    assert_eq!(
        s.sandbox_ok("GET", &format!("/desk/orders/{id}"), None)["label_ids"],
        json!([])
    );
}
