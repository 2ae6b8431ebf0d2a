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
    match tokio::task::spawn_blocking(move || KeyRing::reveal(&ui.service.store, &ui.service.vault)).await {
        Ok(Ok(keys)) => {
            let mut m = serde_json::Map::new();
            for (env, key) in keys {
                m.insert(env.as_str().into(), serde_json::Value::String(key));
            }
            ok(serde_json::json!({ "keys": m }))
        }
        _ => error(ErrorCode::Internal, "", "the keys cannot be read"),
    }
}

/// Whether a UI has started a session with this process (no keys in it).
async fn status(State(ui): State<Ui>) -> Response {
    ok(serde_json::json!({ "ui_sessions": ui.sessions.load(Ordering::SeqCst), "ui_built": ui.dir.is_some() }))
}
