//! The OpenAPI document: the copy in the repo is current, it is served without a key, and the
//! router has no route (path or method) that the document lacks, nor the other way round.

use axum::body::Body;
use axum::extract::connect_info::MockConnectInfo;
use axum::http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use packdesk_api::openapi::{document, pretty, OPS};
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
        "docs/openapi.json is out of date: run UPDATE_OPENAPI=1 cargo test -p packdesk-api --test openapi"
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

/// Every `.route("...")` path written in the router's source, with its nest prefix (the path
/// literal may stand on the line after `.route(`, as rustfmt writes long calls).
fn routes_in_source() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (file, text) in [
        ("routes.rs", include_str!("../../src/routes.rs")),
        ("ui.rs", include_str!("../../src/ui.rs")),
        ("lib.rs", include_str!("../../src/lib.rs")),
    ] {
        // Each `Router::new()` starts a router; the v3 and desk ones are nested under their prefix.
        for (i, part) in text.split("Router::new()").enumerate().skip(1) {
            let before = text.split("Router::new()").nth(i - 1).unwrap_or("").trim_end();
            let prefix = if before.ends_with("let v3 =") {
                "/v3"
            } else if before.ends_with("let desk =") {
                "/desk"
            } else {
                ""
            };
            for call in part.split(".route(").skip(1) {
                let Some(path) = call.trim_start().strip_prefix('"').and_then(|p| p.split('"').next()) else {
                    continue;
                };
                // The UI's own files (not API routes) are served by file services.
                if file == "ui.rs" && !path.starts_with("/ui/") {
                    continue;
                }
                out.insert(format!("{prefix}{path}"));
            }
        }
    }
    out
}

#[test]
fn every_route_written_in_the_router_is_in_the_document() {
    let documented: BTreeSet<String> = OPS.iter().map(|o| o.path.to_string()).collect();
    let written = routes_in_source();
    assert!(written.len() > 40, "the source scan found the routes: {written:?}");
    let missing: Vec<_> = written.difference(&documented).collect();
    assert!(
        missing.is_empty(),
        "routes without a place in the OpenAPI document: {missing:?}"
    );
    let stale: Vec<_> = documented.difference(&written).collect();
    assert!(
        stale.is_empty(),
        "documented routes the router does not have: {stale:?}"
    );
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
    let paths: BTreeSet<&str> = OPS.iter().map(|o| o.path).collect();
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
            let documented = OPS
                .iter()
                .any(|o| o.path == path && o.method.eq_ignore_ascii_case(method.as_str()));
            assert_eq!(
                routed, documented,
                "{method} {path}: routed {routed} ({status} {text}), documented {documented}"
            );
        }
    }
}
