//! Orders over HTTP, as a shop or an ERP pushes them: one or many at once, found, cancelled; bad
//! input answered with the path of each problem.

use crate::support;

use serde_json::json;
use support::{detail_paths, Server};

#[test]
fn a_shop_pushes_orders_and_the_desk_finds_and_cancels_them() {
    let s = Server::start();
    let one = json!({
        "order_number": "SO-1",
        "ship_to": {"contact_name": "Jane Doe", "street1": "22 High Street", "city": "Manchester", "postal_code": "M1 1AE", "country": "United Kingdom"},
        "items": [{"description": "Mug", "quantity": 1, "sku": "MUG-RED", "price": {"amount": 9.5, "currency": "GBP"}}]
    });
    let saved = s.sandbox_ok("POST", "/desk/orders", Some(&one));
    assert_eq!(saved["created"], 1);
    let id = saved["orders"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(saved["orders"][0]["ship_to"]["country"], "GBR");
    assert_eq!(saved["orders"][0]["status"], "open");
    assert_eq!(saved["orders"][0]["source"], "api");

    let many = json!({"orders": [
        {"order_number": "SO-2", "ship_to": {"contact_name": "Hans Müller", "street1": "Unter den Linden 1", "city": "Berlin", "postal_code": "10117", "country": "DE"}},
        {"order_number": "SO-1", "ship_to": {"contact_name": "Jane Smith", "street1": "22 High Street", "city": "Manchester", "postal_code": "M1 1AE", "country": "GBR"}}
    ]});
    let saved = s.sandbox_ok("POST", "/desk/orders", Some(&many));
    assert_eq!(
        (saved["created"].clone(), saved["updated"].clone()),
        (json!(1), json!(1))
    );

    let found = s.sandbox_ok("GET", "/desk/orders?s=m%C3%BCller", None);
    assert_eq!(found["orders"].as_array().unwrap().len(), 1);
    assert_eq!(found["orders"][0]["order_number"], "SO-2");
    let all = s.sandbox_ok("GET", "/desk/orders?limit=1", None);
    assert_eq!(all["orders"][0]["order_number"], "SO-2", "newest first");
    let token = all["next_token"].as_str().unwrap();
    let next = s.sandbox_ok("GET", &format!("/desk/orders?limit=1&next_token={token}"), None);
    assert_eq!(next["orders"][0]["order_number"], "SO-1");
    assert_eq!(
        next["orders"][0]["ship_to"]["contact_name"], "Jane Smith",
        "updated by its number"
    );

    let got = s.sandbox_ok("GET", &format!("/desk/orders/{id}"), None);
    assert_eq!(got["order_number"], "SO-1");
    let cancelled = s.sandbox_ok("DELETE", &format!("/desk/orders/{id}"), None);
    assert_eq!(cancelled["status"], "cancelled");
    let open = s.sandbox_ok("GET", "/desk/orders?status=open", None);
    assert_eq!(open["orders"].as_array().unwrap().len(), 1);
    let (_, live) = s.call("GET", "/desk/orders", &s.live, None);
    assert_eq!(live["data"]["orders"], json!([]), "live keeps its own orders");
}

#[test]
fn bad_orders_say_what_and_where() {
    let s = Server::start();
    let (status, v) = s.call(
        "POST",
        "/desk/orders",
        &s.sandbox,
        Some(&json!({"orders": [{"order_number": "A", "ship_to": {"country": "Spain"}, "items": [{"description": "x", "quantity": "two"}]}]})),
    );
    assert_eq!(status, 200);
    assert_eq!(v["meta"]["code"], 4104, "{v}");
    assert_eq!(v["meta"]["details"][0]["path"], "orders[0].items[0].quantity", "{v}");
    let (_, v) = s.call(
        "POST",
        "/desk/orders",
        &s.sandbox,
        Some(&json!({"order_number": "A", "ship_to": {"country": "Narnia", "city": "x"}})),
    );
    let paths = detail_paths(&v);
    assert!(
        paths.contains(&"ship_to.country") && paths.contains(&"ship_to.street1"),
        "{v}"
    );
    let (_, v) = s.call("GET", "/desk/orders?status=sent", &s.sandbox, None);
    assert_eq!(v["meta"]["details"][0]["path"], "status", "{v}");
    let (_, v) = s.call("GET", "/desk/orders/nope", &s.sandbox, None);
    assert_eq!(v["meta"]["code"], 4153, "{v}");
}

#[test]
fn a_csv_file_imports_with_a_saved_mapping_and_names_its_bad_rows() {
    let s = Server::start();
    let mapping = json!({"columns": {"Bestellnr": "order_number", "Empfänger": "ship_to.contact_name", "Straße": "ship_to.street1", "Ort": "ship_to.city", "PLZ": "ship_to.postal_code", "Land": "ship_to.country", "Artikel": "items.description", "Menge": "items.quantity"}});
    s.live_ok("PUT", "/desk/import-mappings/shop-de", Some(&mapping));
    assert_eq!(s.sandbox_ok("GET", "/desk/import-mappings/shop-de", None), mapping);

    let file = "Bestellnr;Empfänger;Straße;Ort;PLZ;Land;Artikel;Menge\r\n\
                B-1;Jörg Müller;Hauptstraße 5;Köln;50667;Deutschland;Tasse;3\r\n\
                B-2;Eva Braun;Ring 2;Wien;1010;Atlantis;Teller;1\r\n";
    let path = "/desk/orders/import?mapping=shop-de";
    let (status, dry) = s.send_raw(
        "POST",
        &format!("{path}&dry_run=true"),
        &s.sandbox,
        "text/csv",
        file.into(),
    );
    assert_eq!((status, dry["data"]["imported"].clone()), (200, json!(1)), "{dry}");
    assert_eq!(
        s.sandbox_ok("GET", "/desk/orders", None)["orders"],
        json!([]),
        "dry run wrote nothing"
    );

    let (_, v) = s.send_raw("POST", path, &s.sandbox, "text/csv; charset=utf-8", file.into());
    let r = &v["data"];
    assert_eq!(
        (r["imported"].clone(), r["updated"].clone()),
        (json!(1), json!(0)),
        "{v}"
    );
    assert_eq!(r["failed"][0]["row"], 3, "{v}");
    assert_eq!(r["failed"][0]["column"], "Land");
    assert!(r["failed"][0]["info"].as_str().unwrap().contains("Atlantis"), "{v}");
    let found = s.sandbox_ok("GET", "/desk/orders?s=50667", None);
    assert_eq!(found["orders"][0]["ship_to"]["country"], "DEU");
    assert_eq!(found["orders"][0]["items"][0]["quantity"], 3);
    assert_eq!(found["orders"][0]["source"], "csv");

    // An unknown mapping, a mapping to a field that does not exist, a file without an order column.
    let (_, v) = s.send_raw(
        "POST",
        "/desk/orders/import?mapping=nope",
        &s.sandbox,
        "text/csv",
        file.into(),
    );
    assert_eq!(v["meta"]["details"][0]["path"], "mapping", "{v}");
    let bad = json!({"columns": {"PLZ": "ship_to.zip"}});
    let (_, v) = s.call("PUT", "/desk/import-mappings/x", &s.live, Some(&bad));
    assert_eq!(v["meta"]["details"][0]["path"], "columns.PLZ", "{v}");
    let (_, v) = s.send_raw(
        "POST",
        "/desk/orders/import",
        &s.sandbox,
        "text/csv",
        b"a,b\n1,2\n".to_vec(),
    );
    assert!(
        v["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("order number"),
        "{v}"
    );
}

/// What an import answered: (imported, failures as (row, column, info)).
pub(crate) fn import(s: &Server, csv: &str) -> (i64, Vec<(i64, String, String)>, serde_json::Value) {
    let (_, v) = s.send_raw(
        "POST",
        "/desk/orders/import",
        &s.sandbox,
        "text/csv",
        csv.as_bytes().to_vec(),
    );
    let failed = v["data"]["failed"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|f| {
            (
                f["row"].as_i64().unwrap(),
                f["column"].as_str().unwrap_or("").to_string(),
                f["info"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (v["data"]["imported"].as_i64().unwrap(), failed, v["data"].clone())
}

#[test]
fn every_item_price_has_a_currency_from_the_order_its_symbol_or_the_desk() {
    let s = Server::start();
    s.live_ok("PUT", "/desk/settings", Some(&json!({"default_currency": "eur"})));
    assert_eq!(s.live_ok("GET", "/desk/settings", None)["default_currency"], "EUR");
    let ship_to = json!({"contact_name": "Ana", "street1": "Calle Mayor 1", "city": "Madrid", "postal_code": "28001", "country": "ES"});
    let order = |number: &str, currency: &str| json!({"order_number": number, "ship_to": ship_to, "items": [{"description": "Mug", "quantity": 1, "price": {"amount": 9.5, "currency": currency}}]});
    let saved = s.sandbox_ok("POST", "/desk/orders", Some(&order("C-1", "")));
    assert_eq!(saved["orders"][0]["items"][0]["price"]["currency"], "EUR");
    let saved = s.sandbox_ok("POST", "/desk/orders", Some(&order("C-2", "$")));
    assert_eq!(saved["orders"][0]["items"][0]["price"]["currency"], "USD");
    let (_, v) = s.call("POST", "/desk/orders", &s.sandbox, Some(&order("C-3", "EURO")));
    assert_eq!(detail_paths(&v), ["items[0].price.currency"], "{v}");
    let (_, v) = s.call(
        "PUT",
        "/desk/settings",
        &s.live,
        Some(&json!({"default_currency": "XX"})),
    );
    assert_eq!(detail_paths(&v), ["default_currency"]);

    let csv = "Order number,Name,Street,City,Postcode,Country,Item,Qty,Price\n\
               D-1,Ana,Calle Mayor 1,Madrid,28001,ES,Mug,1,$19.99\n\
               D-2,Ana,Calle Mayor 1,Madrid,28001,ES,Cup,1,5.00\n";
    let (imported, failed, data) = import(&s, csv);
    assert_eq!((imported, failed.len()), (2, 0), "{data}");
    let notes = data["notes"].to_string();
    assert!(
        notes.contains("1 item") && notes.contains("EUR"),
        "the answer says the default was used: {notes}"
    );
    let all = s.sandbox_ok("GET", "/desk/orders?limit=200", None);
    let price = |number: &str| {
        all["orders"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["order_number"] == number)
            .unwrap()["items"][0]["price"]
            .clone()
    };
    assert_eq!(price("D-1"), json!({"amount": 19.99, "currency": "USD"}));
    assert_eq!(price("D-2")["currency"], "EUR");
}

#[test]
fn rows_of_one_order_that_disagree_fail_with_the_line_and_column() {
    let s = Server::start();
    let csv = "Order number,Name,Street,City,Postcode,Country,Item,Qty,Price,Currency\n\
               M-1,Ana,Calle Mayor 1,Madrid,28001,ES,Mug,1,5,EUR\n\
               M-1,Ana,Calle Mayor 1,Sevilla,28001,ES,Cup,1,5,EUR\n\
               M-2,Ben,1 High St,Leeds,LS1 1AA,GB,Mug,1,5,GBP\n\
               M-2,Ben,1 High St,Leeds,LS1 1AA,GB,Cup,1,5,EUR\n";
    let (imported, failed, data) = import(&s, csv);
    assert_eq!(imported, 0, "{data}");
    assert!(
        failed
            .iter()
            .any(|(row, col, info)| *row == 3 && col == "City" && info.contains("Madrid")),
        "{failed:?}"
    );
    assert!(
        failed.iter().any(|(row, col, _)| *row == 5 && col == "Currency"),
        "{failed:?}"
    );
}

#[test]
fn an_order_shipped_across_a_customs_border_carries_its_declaration() {
    let s = Server::start();
    let account = support::yodel_account(&s);
    // Yodel's "UK Express 24 (NI INT)" also crosses the border (its UK services stay at home).
    let preset = json!({"name": "UK", "shipper_account": {"id": account}, "service_type": "yodel_1eb",
        "ship_from": support::address("Sender Co", "GBR", "E16 2AA"), "is_default": true,
        "customs": {"invoice": true}});
    s.sandbox_ok("POST", "/desk/presets", Some(&preset));
    let item = json!({"description": "Mug", "quantity": 2, "sku": "MUG-1", "price": {"amount": 9.5, "currency": "GBP"}, "weight": {"value": 0.4, "unit": "kg"}});
    let ship = |number: &str, to: serde_json::Value, items: serde_json::Value| {
        let saved = s.sandbox_ok(
            "POST",
            "/desk/orders",
            Some(&json!({"order_number": number, "ship_to": to, "items": items, "weight": {"value": 1, "unit": "kg"}})),
        );
        let id = saved["orders"][0]["id"].as_str().unwrap().to_string();
        s.call("POST", &format!("/desk/orders/{id}/ship"), &s.sandbox, Some(&json!({})))
    };
    // From the UK to Germany: across the customs border since 2021.
    let germany = support::address("Hans Weber", "DEU", "10117");
    let (_, v) = ship("X-1", germany.clone(), json!([item]));
    assert_eq!(v["meta"]["code"], 200, "{v}");
    let files = &v["data"]["label"]["files"];
    assert!(!files["customs_declaration"].is_null(), "{v}");
    assert!(!files["invoice"].is_null(), "the preset asks for an invoice: {v}");
    // Items that cannot make a declaration: refused, saying what is missing.
    let (_, v) = ship(
        "X-2",
        germany,
        json!([{"description": "Mug", "quantity": 1, "sku": "MUG-1"}]),
    );
    let info = v["meta"]["details"][0]["info"].as_str().unwrap_or_default();
    assert_eq!(v["meta"]["code"], 4104, "{v}");
    assert!(
        info.contains("customs") && info.contains("MUG-1") && info.contains("price"),
        "{info}"
    );
    // At home (on a UK service): no declaration.
    let home = json!({"name": "Home", "shipper_account": {"id": account}, "service_type": "yodel_std",
        "ship_from": support::address("Sender Co", "GBR", "E16 2AA")});
    s.sandbox_ok("POST", "/desk/presets", Some(&home));
    s.sandbox_ok(
        "PUT",
        "/desk/rules",
        Some(&json!({"rules": [{"name": "UK", "when": {"ship_to_country": "GBR"}, "preset": "Home"}]})),
    );
    let (_, v) = ship("X-3", support::address("Jane Doe", "GBR", "M1 1AE"), json!([item]));
    assert_eq!(v["meta"]["code"], 200, "{v}");
    assert!(v["data"]["label"]["files"]["customs_declaration"].is_null(), "{v}");
}

#[test]
fn a_preset_whose_service_cannot_go_where_the_order_goes_is_refused_before_the_label() {
    let s = Server::start();
    let account = support::yodel_account(&s);
    let from = support::address("Sender Co", "GBR", "E16 2AA");
    let uk48 = json!({"name": "UK 48", "shipper_account": {"id": account}, "service_type": "yodel_eco",
        "ship_from": from, "is_default": true});
    s.sandbox_ok("POST", "/desk/presets", Some(&uk48));
    let uk24 =
        json!({"name": "UK 24", "shipper_account": {"id": account}, "service_type": "yodel_1eu", "ship_from": from});
    s.sandbox_ok("POST", "/desk/presets", Some(&uk24));
    let order = |number: &str, to: serde_json::Value, preset: Option<&str>| {
        let mut o = json!({"order_number": number, "ship_to": to, "weight": {"value": 1, "unit": "kg"},
            "items": [{"description": "Mug", "quantity": 1, "sku": "MUG-1", "price": {"amount": 9.5, "currency": "GBP"}, "weight": {"value": 1, "unit": "kg"}}]});
        if let Some(p) = preset {
            o["preset"] = json!(p);
        }
        let saved = s.sandbox_ok("POST", "/desk/orders", Some(&o));
        saved["orders"][0]["id"].as_str().unwrap().to_string()
    };
    // Scanned to Paris with the default "UK 48" (a UK-only service): refused, no label made.
    let paris = order("P-1", support::address("Claire Dubois", "FRA", "75001"), None);
    let (_, v) = s.call(
        "POST",
        &format!("/desk/orders/{paris}/ship"),
        &s.sandbox,
        Some(&json!({})),
    );
    assert_eq!(v["meta"]["code"], 4802, "{v}");
    let info = v["meta"]["details"][0]["info"].as_str().unwrap_or_default();
    for said in [
        "P-1",
        "`UK 48`",
        "the default preset",
        "UK Express 48",
        "within one country",
        "FRA",
    ] {
        assert!(info.contains(said), "{said} in {info}");
    }
    let labels = s.sandbox_ok("GET", "/v3/labels", None);
    assert_eq!(labels["labels"], json!([]), "no label was made");
    // A batch names it beside the order that shipped.
    let manchester = order("P-2", support::address("Jane Doe", "GBR", "M1 1AE"), None);
    let batch = s.sandbox_ok(
        "POST",
        "/desk/orders/ship",
        Some(&json!({"order_ids": [paris, manchester]})),
    );
    let path = format!("/desk/batches/{}", batch["id"].as_str().unwrap());
    let end = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let done = loop {
        let b = s.sandbox_ok("GET", &path, None);
        if b["status"] == "done" || std::time::Instant::now() > end {
            break b;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(
        (
            done["orders"][0]["status"].as_str(),
            done["orders"][1]["status"].as_str()
        ),
        (Some("failed"), Some("shipped")),
        "{done}"
    );
    assert!(
        done["orders"][0]["info"].as_str().unwrap().contains("`UK 48`"),
        "{done}"
    );
    // "UK Express 24 (UK)" carries a Manchester parcel.
    let home = order("P-3", support::address("Jane Doe", "GBR", "M1 1AE"), Some("UK 24"));
    let (_, v) = s.call(
        "POST",
        &format!("/desk/orders/{home}/ship"),
        &s.sandbox,
        Some(&json!({})),
    );
    assert_eq!(v["meta"]["code"], 200, "{v}");
}

#[test]
fn an_order_changed_later_keeps_where_it_came_from() {
    let s = Server::start();
    let csv = "Order number,Name,Street,City,Postcode,Country\nC-1,Jane Doe,22 High Street,Manchester,M1 1AE,GB\n";
    let (imported, failed, v) = import(&s, csv);
    assert_eq!((imported, failed.len()), (1, 0), "{v}");
    let changed = json!({"order_number": "C-1", "ship_to": {"contact_name": "Jane Doe", "street1": "23 High Street", "city": "Manchester", "postal_code": "M1 1AE", "country": "GB"}});
    let saved = s.sandbox_ok("POST", "/desk/orders", Some(&changed));
    assert_eq!(
        (saved["updated"].clone(), saved["orders"][0]["source"].clone()),
        (json!(1), json!("csv")),
        "{saved}"
    );
    assert_eq!(saved["orders"][0]["ship_to"]["street1"], "23 High Street");
}

#[test]
fn an_order_weighed_by_its_items_ships_with_the_box_tare_of_its_preset() {
    let s = Server::start();
    let account = support::yodel_account(&s);
    let preset = json!({"name": "Mugs", "shipper_account": {"id": account}, "service_type": "yodel_std",
        "ship_from": support::address("Sender Co", "GBR", "E16 2AA"), "is_default": true,
        "parcel": {"tare": {"value": 200, "unit": "g"}}});
    s.sandbox_ok("POST", "/desk/presets", Some(&preset));
    let item = |sku: &str, qty: u32, kg: f64| json!({"description": "Mug", "quantity": qty, "sku": sku, "weight": {"value": kg, "unit": "kg"}});
    let ship = |number: &str, extra: serde_json::Value| {
        let mut o = json!({"order_number": number, "ship_to": support::address("Jane Doe", "GBR", "M1 1AE"),
            "items": [item("MUG-1", 2, 0.4), item("SHIRT-1", 1, 0.35)]});
        if let serde_json::Value::Object(m) = extra {
            o.as_object_mut().unwrap().extend(m);
        }
        let saved = s.sandbox_ok("POST", "/desk/orders", Some(&o));
        let id = saved["orders"][0]["id"].as_str().unwrap().to_string();
        s.sandbox_ok("POST", &format!("/desk/orders/{id}/ship"), Some(&json!({})));
        let h = s.sandbox_ok(
            "GET",
            &format!("/desk/history?created_at_min=2000-01-01&s={number}"),
            None,
        );
        h["rows"][0]["weight"].clone()
    };
    // 2 x 0.4 + 1 x 0.35 kg of items and the 200 g box.
    let w = ship("T-1", json!({}));
    assert_eq!(
        (w["value"].as_f64().map(|v| (v * 1000.0).round() / 1000.0), &w["unit"]),
        (Some(1.35), &json!("kg")),
        "{w}"
    );
    // An order weighed already (its own weight) is not given the box twice.
    let w = ship("T-2", json!({"weight": {"value": 2, "unit": "kg"}}));
    assert_eq!(w, json!({"value": 2.0, "unit": "kg"}));
    // A rule's weight weighs the order as it would ship with the rule's preset, box and all:
    // 1.15 kg of items in a 100 g box is over "up to 1.2 kg".
    let small = json!({"name": "Small box", "shipper_account": {"id": account}, "service_type": "yodel_std",
        "ship_from": support::address("Sender Co", "GBR", "E16 2AA"), "parcel": {"tare": {"value": 100, "unit": "g"}}});
    s.sandbox_ok("POST", "/desk/presets", Some(&small));
    s.sandbox_ok(
        "PUT",
        "/desk/rules",
        Some(&json!({"rules": [{"name": "light", "when": {"weight_max": 1.2}, "preset": "Small box"}]})),
    );
    let order = |number: &str, kg: f64| {
        let o = json!({"order_number": number, "ship_to": support::address("Jane Doe", "GBR", "M1 1AE"),
            "items": [item("MUG-1", 1, kg)]});
        let saved = s.sandbox_ok("POST", "/desk/orders", Some(&o));
        let id = saved["orders"][0]["id"].as_str().unwrap().to_string();
        s.sandbox_ok("GET", &format!("/desk/orders/{id}"), None)["resolved_preset"].clone()
    };
    assert_eq!(order("T-3", 1.15), json!("Mugs"), "1.25 kg boxed: over the rule");
    assert_eq!(order("T-4", 1.0), json!("Small box"), "1.1 kg boxed: the rule's");
    let (_, v) = s.call(
        "POST",
        "/desk/presets",
        &s.sandbox,
        Some(&json!({"name": "Bad", "shipper_account": {"id": account},
        "service_type": "yodel_std", "ship_from": support::address("Sender Co", "GBR", "E16 2AA"),
        "parcel": {"tare": {"value": -1, "unit": "kg"}}})),
    );
    assert_eq!(detail_paths(&v), ["parcel.tare.value"], "{v}");
}
