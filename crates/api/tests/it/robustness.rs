//! Bad input gets an error envelope and loses nothing: a battery of malformed bodies on every POST
//! route, then the server still answers and the data is intact.

use crate::support;
use serde_json::{json, Value};
use support::*;

#[test]
fn malformed_bodies_get_envelopes_and_the_server_keeps_serving() {
    let s = Server::start();
    let a = yodel_account(&s);
    let label = s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&a, 1)));
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let mut valid = yodel_label(&a, 1);
    valid["shipment"]["parcels"][0]["weight"]["value"] = json!(1e308);
    let mut dims = yodel_label(&a, 1);
    dims["shipment"]["parcels"][0]["dimension"] = json!({"width": -1, "height": 0, "depth": 1e300, "unit": "cm"});
    let mut unicode = yodel_label(&a, 1);
    unicode["shipment"]["ship_to"]["contact_name"] = json!("山田 太郎 \u{202e}");
    let bodies: Vec<String> = vec![
        "".into(),
        "null".into(),
        "[]".into(),
        "\"text\"".into(),
        "{\"a\":".into(),
        deep,
        "{\"service_type\": 7}".into(),
        json!({"service_type": "yodel_std", "shipper_account": {"id": "not-a-uuid"}, "shipment": {"ship_from": {}, "ship_to": {}, "parcels": []}}).to_string(),
        json!({"service_type": "yodel_std", "shipper_account": {"id": a}, "shipment": {"ship_from": {}, "ship_to": {}, "parcels": [{"weight": {"value": "heavy", "unit": "kg"}}]}}).to_string(),
        valid.to_string(),
        dims.to_string(),
        json!({"labels": "all"}).to_string(),
        json!({"label": {"id": 12}}).to_string(),
        json!({"shipper_accounts": [], "shipment": {}}).to_string(),
        json!({"address": {"country": "XX", "postal_code": "\u{ffff}"}}).to_string(),
        json!({"slug": "yodel", "description": "", "credentials": []}).to_string(),
        json!({"async": "yes"}).to_string(),
        json!({"async": true, "label": {"id": 12}, "labels": [{"id": "x"}]}).to_string(),
    ];
    let routes = [
        "/v3/labels",
        "/v3/cancel-labels",
        "/v3/manifests",
        "/v3/bulk-downloads",
        "/v3/rates",
        "/v3/address-validations",
        "/v3/shipper-accounts",
    ];
    let client = reqwest::blocking::Client::new();
    for route in routes {
        for b in &bodies {
            let r = client
                .post(s.url(route))
                .header("service-api-key", &s.sandbox)
                .header("content-type", "application/json")
                .body(b.clone())
                .send()
                .unwrap();
            let status = r.status().as_u16();
            let v: Value = r
                .json()
                .unwrap_or_else(|_| panic!("{route} answered a non-JSON body to {b:.60}"));
            let code = v["meta"]["code"].as_i64().unwrap();
            assert_eq!(status, 200, "{route} {b:.60}: {v}");
            assert!(code >= 4000 && code != 4100, "{route} {b:.60}: {v}");
            assert_eq!(v["data"], json!({}), "{route}");
            assert!(
                v["meta"]["details"].as_array().is_some_and(|d| !d.is_empty()),
                "{route} {b:.60}: details say where"
            );
        }
    }
    // The desk's webhook setting takes the same battery (PUT) and stays unset.
    for b in &bodies {
        let r = client
            .put(s.url("/desk/webhook"))
            .header("service-api-key", &s.sandbox)
            .header("content-type", "application/json")
            .body(b.clone())
            .send()
            .unwrap();
        let v: Value = r.json().unwrap();
        assert!(
            v["meta"]["code"].as_i64().unwrap() >= 4000 && v["meta"]["details"][0]["path"].is_string(),
            "{b:.60}: {v}"
        );
    }
    assert_eq!(s.sandbox_ok("GET", "/desk/webhook", None)["url"], Value::Null);
    // A non-Latin name is accepted (the PDF shows what its font can), and nothing was lost.
    s.sandbox_ok("POST", "/v3/labels", Some(&unicode));
    let back = s.sandbox_ok("GET", &format!("/v3/labels/{}", label["id"].as_str().unwrap()), None);
    assert_eq!(back["tracking_numbers"], label["tracking_numbers"]);
}
