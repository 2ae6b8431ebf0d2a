//! The desk UI (ui/dist, built by Vite) served from the same origin as the API, and the session
//! it starts with. Static files need no key; the session route gives the UI the keys, and answers
//! only requests addressed to this machine by name (loopback Host), so a page of another site
//! cannot use it through DNS rebinding, and without CORS headers no other origin can read it.

use crate::envelope::{error, ok};
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use packdesk_model::ErrorCode;
use packdesk_service::keys::KeyRing;
use packdesk_service::Service;
use std::path::{Path as FsPath, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Clone)]
struct Ui {
    service: Arc<Service>,
    dir: Option<PathBuf>,
    /// UI sessions started since this process began (the desktop smoke test reads it).
    sessions: Arc<AtomicU64>,
}

pub fn routes(service: Arc<Service>, dir: Option<PathBuf>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/assets/{*path}", get(asset))
        .route("/ui/session", get(session))
        .route("/ui/status", get(status))
        .route("/ui/keys/{env}/rotate", axum::routing::post(rotate_key))
        .with_state(Ui { service, dir, sessions: Arc::new(AtomicU64::new(0)) })
}

fn content_type(path: &FsPath) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("woff2") => "font/woff2",
        _ => "application/octet-stream",
    }
}

fn file(path: PathBuf) -> Response {
    match std::fs::read(&path) {
        Ok(bytes) => {
            let mut r = (StatusCode::OK, Body::from(bytes)).into_response();
            r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type(&path)));
            r
        }
        Err(_) => error(ErrorCode::NotFoundRoute, "", "no such file"),
    }
}

async fn index(State(ui): State<Ui>) -> Response {
    match ui.dir {
        Some(d) => file(d.join("index.html")),
        None => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            "<h1>Packdesk</h1><p>The desk UI is not built. Start Packdesk with <code>bash .ci/app</code>, which builds it.</p>",
        )
            .into_response(),
    }
}

async fn asset(State(ui): State<Ui>, Path(path): Path<String>) -> Response {
    // Only plain names under assets/: no way out of the folder.
    let Some(dir) = ui.dir else { return error(ErrorCode::NotFoundRoute, "", "no UI") };
    if path.split('/').any(|p| p.is_empty() || p == ".." || p.starts_with('.')) {
        return error(ErrorCode::NotFoundRoute, "", "no such file");
    }
    file(dir.join("assets").join(path))
}

fn loopback_host(headers: &HeaderMap) -> bool {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let name = if host.starts_with('[') { host.split(']').next().map(|h| format!("{h}]")).unwrap_or_default() } else { host.split(':').next().unwrap_or("").to_string() };
    matches!(name.as_str(), "127.0.0.1" | "localhost" | "[::1]")
}

async fn session(State(ui): State<Ui>, headers: HeaderMap) -> Response {
    if !loopback_host(&headers) {
        return error(ErrorCode::InvalidApiKey, "", "the desk session is for this machine only");
    }
    ui.sessions.fetch_add(1, Ordering::SeqCst);
    let data_dir = ui.service.data_dir.display().to_string();
    match tokio::task::spawn_blocking(move || KeyRing::reveal(&ui.service.store, &ui.service.vault)).await {
        Ok(Ok(keys)) => {
            let mut m = serde_json::Map::new();
            for (env, key) in keys {
                m.insert(env.as_str().into(), serde_json::Value::String(key));
            }
            ok(serde_json::json!({ "keys": m, "data_dir": data_dir }))
        }
        _ => error(ErrorCode::Internal, "", "the keys cannot be read"),
    }
}

/// Replaces an environment's key (Settings): the old key stops working at once. For this machine
/// only, and only with the current key of that environment, so a page elsewhere cannot do it.
async fn rotate_key(State(ui): State<Ui>, headers: HeaderMap, Path(env): Path<String>) -> Response {
    if !loopback_host(&headers) {
        return error(ErrorCode::InvalidApiKey, "", "keys are rotated on this machine only");
    }
    let Some(env) = packdesk_service::keys::Env::parse(&env) else {
        return error(ErrorCode::NotFoundRoute, "env", "live or sandbox");
    };
    let current = headers.get("service-api-key").and_then(|v| v.to_str().ok()).and_then(|k| ui.service.authenticate(k));
    if current != Some(env) {
        return error(ErrorCode::InvalidApiKey, "headers.service-api-key", "send the current key of the environment to rotate");
    }
    let s = ui.service.clone();
    match tokio::task::spawn_blocking(move || s.keys.rotate(&s.store, &s.vault, env, s.clock.now().timestamp_micros())).await {
        Ok(Ok(key)) => ok(serde_json::json!({ "env": env.as_str(), "key": key })),
        _ => error(ErrorCode::Internal, "", "the key could not be replaced"),
    }
}

/// Whether a UI has started a session with this process (no keys in it).
async fn status(State(ui): State<Ui>) -> Response {
    ok(serde_json::json!({ "ui_sessions": ui.sessions.load(Ordering::SeqCst), "ui_built": ui.dir.is_some() }))
}
