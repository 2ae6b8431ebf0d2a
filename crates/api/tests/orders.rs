//! Orders over HTTP, as a shop or an ERP pushes them: one or many at once, found, cancelled; bad
//! input answered with the path of each problem.

mod support;

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
