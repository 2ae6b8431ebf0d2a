//! Hardening of the HTTP face, tried as a machine on the same network would (its requests reach
//! the real router with a LAN peer address: axum's `MockConnectInfo` stands for the TCP
//! connection, which is the only thing simulated) and as an existing client of the real service
//! (over a real server on 127.0.0.1).

mod support;
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
    let keys = json_of(&body)["data"]["keys"].clone();
    let live = keys["live"].as_str().unwrap().to_string();
    assert!(live.starts_with("pdk_live_"));
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
    let (_, _, body) = send(&d, LOOPBACK_PEER, get("/ui/session", "127.0.0.1")).await;
    let keys = json_of(&body)["data"]["keys"].clone();
    let (live, sandbox) = (keys["live"].as_str().unwrap(), keys["sandbox"].as_str().unwrap());
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
