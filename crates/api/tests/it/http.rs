//! Black-box tests over real HTTP against the `packdesk-server` binary.

use crate::support;
use serde_json::{json, Value};
use std::collections::HashSet;
use support::*;

#[test]
fn every_route_answers_401_without_a_valid_key() {
    let s = Server::start();
    let id = "0b8f5e3c-1d2a-4c5b-9e7f-123456789abc";
    let routes = [
        ("GET", "/v3/labels".to_string()),
        ("POST", "/v3/labels".to_string()),
        ("GET", format!("/v3/labels/{id}")),
        ("GET", "/v3/shipper-accounts".to_string()),
        ("POST", "/v3/shipper-accounts".to_string()),
        ("GET", format!("/v3/shipper-accounts/{id}")),
        ("DELETE", format!("/v3/shipper-accounts/{id}")),
        ("PUT", format!("/v3/shipper-accounts/{id}")),
        ("PUT", format!("/v3/shipper-accounts/{id}/info")),
        ("PATCH", format!("/v3/shipper-accounts/{id}/credentials")),
        ("GET", format!("/v3/files/{id}")),
        ("GET", "/v3/schemas".to_string()),
        ("GET", "/desk/carriers".to_string()),
        ("GET", "/v3/no-such-route".to_string()),
    ];
    let want =
        json!({"meta": {"code": 401, "message": "Invalid API key.", "details": [], "retryable": false}, "data": {}});
    for (method, path) in &routes {
        for key in ["", "pdk_live_wrong", &s.live[..s.live.len() - 1]] {
            let (status, v) = s.call(method, path, key, Some(&json!({})));
            assert_eq!((status, &v), (401, &want), "{method} {path} with key {key:?}");
        }
    }
    // The keys work, each in its environment.
    assert_eq!(s.call("GET", "/v3/labels", &s.live, None).0, 200);
    assert_eq!(s.call("GET", "/v3/labels", &s.sandbox, None).0, 200);
}

#[test]
fn transport_errors_carry_the_envelope() {
    let s = Server::start();
    let client = reqwest::blocking::Client::new();
    let post = |ct: &str, body: Vec<u8>| {
        let r = client
            .post(s.url("/v3/labels"))
            .header("service-api-key", &s.sandbox)
            .header("content-type", ct)
            .body(body)
            .send()
            .unwrap();
        (r.status().as_u16(), r.json::<Value>().unwrap())
    };
    let (st, v) = post("application/json", b"{not json".to_vec());
    assert_eq!(
        (st, v["meta"]["code"].clone(), v["meta"]["message"].clone()),
        (200, json!(4109), json!("Invalid JSON."))
    );
    assert_eq!(v["data"], json!({}));
    let (st, v) = post("application/json; charset=ISO-8859-1", b"{}".to_vec());
    assert_eq!(
        (st, v["meta"]["code"].clone(), v["meta"]["details"][0]["path"].clone()),
        (200, json!(4104), json!("headers.content-type"))
    );
    let (st, v) = post("application/json", vec![b' '; 9 * 1024 * 1024]);
    assert_eq!((st, v["meta"]["code"].clone()), (413, json!(413)));
    let (st, v) = s.call("GET", "/v3/nothing-here", &s.sandbox, None);
    assert_eq!((st, v["meta"]["code"].clone()), (404, json!(404)));
    let (st, v) = s.call("DELETE", "/v3/labels", &s.sandbox, None);
    assert_eq!((st, v["meta"]["code"].clone()), (405, json!(405)));
    let (_, v) = s.call(
        "GET",
        "/v3/labels/0b8f5e3c-1d2a-4c5b-9e7f-123456789abc",
        &s.sandbox,
        None,
    );
    assert_eq!(v["meta"]["code"], 4153);
    let body = yodel_label("0b8f5e3c-1d2a-4c5b-9e7f-123456789abc", 1);
    let (_, v) = s.call("POST", "/v3/labels", &s.sandbox, Some(&body));
    assert_eq!(
        (v["meta"]["code"].clone(), v["meta"]["details"][0]["path"].clone()),
        (json!(4140), json!("shipper_account.id"))
    );
    let (_, v) = s.call("GET", "/v3/labels?limit=500", &s.sandbox, None);
    assert_eq!(v["meta"]["details"][0]["path"], "limit");
}

#[test]
fn shipper_accounts_over_http() {
    let s = Server::start();
    let a = yodel_account(&s);
    let b = s.sandbox_ok(
        "POST",
        "/v3/shipper-accounts",
        Some(
            &json!({"slug": "dpd-uk", "description": "DPD", "credentials": {"username": "u", "password": "secret-pw"}}),
        ),
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    let list = s.sandbox_ok("GET", "/v3/shipper-accounts", None);
    let ids: Vec<&str> = list["shipper_accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec![b.as_str(), a.as_str()], "newest first");
    assert!(
        !list.to_string().contains("secret-pw"),
        "credentials are never returned"
    );
    let only = s.sandbox_ok("GET", "/v3/shipper-accounts?slug=dpd-uk", None);
    assert_eq!(only["shipper_accounts"].as_array().unwrap().len(), 1);
    // Paging of one per page returns each once.
    let p1 = s.sandbox_ok("GET", "/v3/shipper-accounts?limit=1", None);
    let t = p1["next_token"].as_str().unwrap();
    let p2 = s.sandbox_ok("GET", &format!("/v3/shipper-accounts?limit=1&next_token={t}"), None);
    assert_eq!(p2["shipper_accounts"][0]["id"], a.as_str());
    assert!(p2["next_token"].is_null());
    // Info, settings, credentials, delete.
    let v = s.sandbox_ok(
        "PUT",
        &format!("/v3/shipper-accounts/{a}/info"),
        Some(&json!({"description": "Yodel night shift", "timezone": "Europe/Dublin"})),
    );
    assert_eq!(
        (v["description"].clone(), v["timezone"].clone()),
        (json!("Yodel night shift"), json!("Europe/Dublin"))
    );
    let v = s.sandbox_ok(
        "PUT",
        &format!("/v3/shipper-accounts/{a}"),
        Some(&json!({"status": "disabled", "settings": {"default_paper_size": "4x6"}})),
    );
    assert_eq!(
        (v["status"].clone(), v["settings"]["default_paper_size"].clone()),
        (json!("disabled"), json!("4x6"))
    );
    let (_, e) = s.call("POST", "/v3/labels", &s.sandbox, Some(&yodel_label(&a, 1)));
    assert_eq!(
        e["meta"]["details"][0]["path"], "shipper_account.id",
        "a disabled account makes no labels"
    );
    let v = s.sandbox_ok(
        "PATCH",
        &format!("/v3/shipper-accounts/{a}/credentials"),
        Some(&json!({"credentials": {"password": "p2"}})),
    );
    assert_eq!(v, json!({"id": a}));
    let (_, e) = s.call(
        "PUT",
        &format!("/v3/shipper-accounts/{a}/credentials"),
        &s.sandbox,
        Some(&json!({"credentials": {"password": "p2"}})),
    );
    assert_eq!(e["meta"]["code"], 4104);
    assert_eq!(
        s.sandbox_ok("DELETE", &format!("/v3/shipper-accounts/{b}"), None),
        json!({"id": b})
    );
    let (_, e) = s.call("GET", &format!("/v3/shipper-accounts/{b}"), &s.sandbox, None);
    assert_eq!(e["meta"]["code"], 4140);
    // Live sees none of the sandbox accounts.
    let (_, v) = s.call("GET", "/v3/shipper-accounts", &s.live, None);
    assert_eq!(v["data"]["shipper_accounts"], json!([]));
}

#[test]
fn labels_survive_a_kill_and_page_each_once_with_every_filter() {
    let mut s = Server::start();
    let a = yodel_account(&s);
    let mut made = Vec::new();
    for i in 0..25 {
        let mut body = yodel_label(&a, 1 + i % 2);
        body["references"] = json!([format!("REF-{i:03}")]);
        let l = s.sandbox_ok("POST", "/v3/labels", Some(&body));
        made.push(l);
    }
    s.kill_and_restart();
    // Every label comes back once over pages of 7, newest first.
    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let q = match &token {
            Some(t) => format!("/v3/labels?limit=7&next_token={t}"),
            None => "/v3/labels?limit=7".into(),
        };
        let page = s.sandbox_ok("GET", &q, None);
        assert_eq!(page["limit"], 7);
        for l in page["labels"].as_array().unwrap() {
            seen.push(l["id"].as_str().unwrap().to_string());
        }
        match page["next_token"].as_str() {
            Some(t) => token = Some(t.to_string()),
            None => break,
        }
    }
    let want: Vec<String> = made
        .iter()
        .rev()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(seen, want);
    // After the restart a label reads back as it was made, with links on the new address.
    let first = &made[3];
    let back = s.sandbox_ok("GET", &format!("/v3/labels/{}", first["id"].as_str().unwrap()), None);
    assert_eq!(back["tracking_numbers"], first["tracking_numbers"]);
    assert!(back["files"]["label"]["url"].as_str().unwrap().starts_with(&s.base));
    let (ct, pdf) = s.download(back["files"]["label"]["url"].as_str().unwrap(), &s.sandbox);
    assert_eq!(ct, "application/pdf");
    assert!(pdf.starts_with(b"%PDF-"));
    // The other environment cannot download it.
    let r = reqwest::blocking::Client::new()
        .get(back["files"]["label"]["url"].as_str().unwrap())
        .header("service-api-key", &s.live)
        .send()
        .unwrap();
    assert_eq!(r.json::<Value>().unwrap()["meta"]["code"], 4153);
    // New labels after the restart never reuse a number.
    let mut numbers = HashSet::new();
    for l in &made {
        for t in l["tracking_numbers"].as_array().unwrap() {
            assert!(numbers.insert(t.as_str().unwrap().to_string()));
        }
    }
    for _ in 0..5 {
        let l = s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&a, 2)));
        for t in l["tracking_numbers"].as_array().unwrap() {
            assert!(
                numbers.insert(t.as_str().unwrap().to_string()),
                "{t} reused after restart"
            );
        }
    }
    // Filters.
    let tn0 = made[0]["tracking_numbers"][0].as_str().unwrap();
    let tn1 = made[1]["tracking_numbers"][1].as_str().unwrap();
    let v = s.sandbox_ok("GET", &format!("/v3/labels?tracking_numbers={tn0},{tn1}"), None);
    let ids: HashSet<&str> = v["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [made[0]["id"].as_str().unwrap(), made[1]["id"].as_str().unwrap()]
            .into_iter()
            .collect()
    );
    let v = s.sandbox_ok("GET", "/v3/labels?s=REF-01", None);
    assert_eq!(v["labels"].as_array().unwrap().len(), 10, "REF-010..REF-019");
    let v = s.sandbox_ok("GET", &format!("/v3/labels?s={}", &tn0[tn0.len() - 6..]), None);
    assert!(v["labels"].as_array().unwrap().iter().any(|l| l["id"] == made[0]["id"]));
    let v = s.sandbox_ok("GET", "/v3/labels?status=cancelled", None);
    assert_eq!(v["labels"], json!([]));
    let v = s.sandbox_ok("GET", &format!("/v3/labels?shipper_account_id={a}&limit=200"), None);
    assert_eq!(v["labels"].as_array().unwrap().len(), 30);
    let v = s.sandbox_ok(
        "GET",
        "/v3/labels?created_at_max=2020-01-01T00:00:00Z&created_at_min=2019-01-01",
        None,
    );
    assert_eq!(v["labels"], json!([]));
    let (_, v) = s.call("GET", "/v3/labels?next_token=zz", &s.sandbox, None);
    assert_eq!(v["meta"]["details"][0]["path"], "next_token");
}

#[test]
fn schemas_are_served_as_published() {
    let s = Server::start();
    let list = s.sandbox_ok("GET", "/v3/schemas", None);
    assert!(list["schemas"].as_array().unwrap().iter().any(|x| x["name"] == "label"));
    let resp = reqwest::blocking::Client::new()
        .get(s.url("/v3/schemas/label.json"))
        .header("service-api-key", &s.sandbox)
        .send()
        .unwrap();
    let served = resp.text().unwrap();
    let published =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../model/schemas/label.json")).unwrap();
    assert_eq!(served, published);
    let reg = s.sandbox_ok("GET", "/desk/carriers", None);
    assert_eq!(reg["carriers"].as_array().unwrap().len(), 20);
}

#[test]
fn the_ui_session_is_for_this_machine_only_and_assets_stay_in_their_folder() {
    let s = Server::start();
    let client = reqwest::blocking::Client::new();
    let session: Value = client.get(s.url("/ui/session")).send().unwrap().json().unwrap();
    let text = session.to_string();
    assert!(
        !text.contains(&s.sandbox) && !text.contains(&s.live) && session["data"].get("keys").is_none(),
        "the page never sees a key: {session}"
    );
    // Sign-in off: the page works as the desk itself, with a session token.
    let token = session["data"]["session"]["token"].as_str().unwrap();
    assert_eq!(session["data"]["session"]["operator"]["role"], "admin");
    let labels = client
        .get(s.url("/v3/labels"))
        .header("authorization", format!("Bearer {token}"))
        .send()
        .unwrap();
    assert_eq!(labels.status().as_u16(), 200);
    let wrong = client
        .get(s.url("/v3/labels"))
        .header("authorization", "Bearer not-a-session")
        .send()
        .unwrap();
    assert_eq!(wrong.status().as_u16(), 401);
    // A page that reached this server under another name (DNS rebinding) gets nothing.
    let r = client
        .get(s.url("/ui/session"))
        .header("host", "evil.example:4780")
        .send()
        .unwrap();
    let v: Value = r.json().unwrap();
    assert_eq!(v["meta"]["code"], 401);
    assert!(v["data"]["session"].is_null());
    for path in [
        "/assets/../../Cargo.toml",
        "/assets/%2e%2e/Cargo.toml",
        "/assets/.hidden",
    ] {
        let r = client.get(s.url(path)).send().unwrap();
        assert_ne!(r.status().as_u16(), 200, "{path}");
    }
    // The API itself still needs its key.
    assert_eq!(client.get(s.url("/v3/labels")).send().unwrap().status().as_u16(), 401);
}
