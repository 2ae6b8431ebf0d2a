//! The OpenAPI document: the copy in the repo is current, every `$ref` in it resolves, it has every
//! route of the table and no other, and the server answers every documented (path, method) and no
//! other method on those paths.

use axum::body::Body;
use axum::extract::connect_info::MockConnectInfo;
use axum::http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use packdesk_api::openapi::{document, pretty};
use packdesk_service::clock::SystemClock;
use packdesk_service::Service;
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;
use tower::ServiceExt;

const IN_REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json");

#[test]
fn the_document_in_the_repo_is_the_one_the_code_makes() {
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(IN_REPO, pretty()).unwrap();
    }
    let kept = std::fs::read_to_string(IN_REPO).unwrap_or_default();
    assert!(
        kept == pretty(),
        "docs/openapi.json is out of date: run UPDATE_OPENAPI=1 cargo test -p packdesk-api --test it openapi::"
    );
    let doc = document();
    assert_eq!(doc["openapi"], "3.1.0");
    // Every schema reference resolves to a component.
    let text = pretty();
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for r in text.split("\"$ref\": \"#/components/schemas/").skip(1) {
        let name = r.split('"').next().unwrap();
        assert!(schemas.contains_key(name), "unresolved $ref {name}");
    }
    for record in [
        "LabelRequest",
        "Label",
        "ShipperAccount",
        "Manifest",
        "RatesRequest",
        "Envelope",
    ] {
        assert!(schemas.contains_key(record), "{record}");
    }
}

/// Every (method, path) of the document's `paths`.
fn documented() -> BTreeSet<(String, String)> {
    let doc = document();
    let mut out = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            out.insert((method.to_uppercase(), path.clone()));
        }
    }
    out
}

#[test]
fn every_route_of_the_table_is_in_the_document_and_no_other() {
    let routes: BTreeSet<(String, String)> = packdesk_api::routes()
        .into_iter()
        .map(|(m, p)| (m.as_str().to_string(), p.to_string()))
        .collect();
    assert!(routes.len() > 80, "the table: {routes:?}");
    assert_eq!(routes, documented());
}

/// Every success answer of the envelope names its `data` type, but the few whose `data` is not a
/// record of the interface.
#[test]
fn every_envelope_answer_says_what_its_data_is() {
    let doc = document();
    let mut untyped = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let ok = &op["responses"]["200"]["content"];
            if ok.as_object().unwrap().len() == 1
                && ok["application/json"]["schema"]["$ref"] == "#/components/schemas/Envelope"
            {
                untyped.push(format!("{method} {path}"));
            }
            if ["post", "put", "patch"].contains(&method.as_str()) {
                let body = &op["requestBody"]["content"]["application/json"]["schema"];
                assert!(
                    op["requestBody"]["content"]["text/csv"].is_object()
                        || body != &serde_json::json!({"type": "object"})
                        || op["requestBody"]["required"] == false,
                    "{method} {path}: its body is documented as any object"
                );
            }
        }
    }
    assert!(untyped.is_empty(), "answers without a data type: {untyped:?}");
}

#[tokio::test]
async fn every_method_the_router_takes_is_in_the_document_and_no_other() {
    let data = tempfile::tempdir().unwrap();
    let service = Arc::new(
        Service::open(data.path(), "http://127.0.0.1:4780", Arc::new(SystemClock))
            .unwrap()
            .service,
    );
    let live = service
        .reveal_own_keys()
        .unwrap()
        .into_iter()
        .find(|(e, _)| e.as_str() == "live")
        .unwrap()
        .1;
    let app = packdesk_api::app(service, None).layer(MockConnectInfo(SocketAddr::from(([127, 0, 0, 1], 5000))));
    let documented = documented();
    let paths: BTreeSet<&str> = documented.iter().map(|(_, p)| p.as_str()).collect();
    for path in paths {
        let concrete = path
            .replace("{env}", "sandbox")
            .replace("{document_type}", "label")
            .replace("{name}", "label")
            .replace("{id}", "no-such-id");
        for method in [Method::GET, Method::POST, Method::PUT, Method::PATCH, Method::DELETE] {
            let req = Request::builder()
                .method(method.clone())
                .uri(&concrete)
                .header("host", "127.0.0.1")
                .header("service-api-key", &live)
                .header("content-type", "application/json")
                .body(Body::from("{}"))
                .unwrap();
            let r = app.clone().oneshot(req).await.unwrap();
            let status = r.status();
            let body = r.into_body().collect().await.unwrap().to_bytes();
            let text = String::from_utf8_lossy(&body);
            let routed = status != StatusCode::METHOD_NOT_ALLOWED
                && !(status == StatusCode::NOT_FOUND && text.contains("no such route"));
            let documented = documented.contains(&(method.as_str().to_string(), path.to_string()));
            assert_eq!(
                routed, documented,
                "{method} {path}: routed {routed} ({status} {text}), documented {documented}"
            );
        }
    }
}
