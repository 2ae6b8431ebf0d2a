//! The desk UI (ui/dist, built by Vite) served from the same origin as the API, and its sessions.
//! Static files need no key (tower-http's `ServeDir`, behind a check that every path component is
//! a plain name). The UI never holds an API key: it works with a session token (an operator
//! signed in by badge and PIN, or with sign-in off the desk itself, an admin). The session routes
//! answer only a connection from this machine (its peer address is loopback, whatever address the
//! server listens on) that also names this machine in its Host header (so a page of another site
//! cannot reach it through DNS rebinding); without CORS headers no other origin can read them.

use crate::envelope::{error, ok};
use axum::extract::{ConnectInfo, FromRequestParts, Path, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, get_service};
use axum::Router;
use packdesk_model::ErrorCode;
use packdesk_service::Service;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

/// What a UI page may load and who may frame it: only this origin, and nobody.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' blob: data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'";

#[derive(Clone)]
pub(crate) struct Ui {
    pub(crate) service: Arc<Service>,
    /// UI sessions started since this process began (the desktop smoke test reads it).
    sessions: Arc<AtomicU64>,
    built: bool,
}

pub fn routes(service: Arc<Service>, dir: Option<PathBuf>) -> Router {
    let state = Ui {
        service,
        sessions: Arc::new(AtomicU64::new(0)),
        built: dir.is_some(),
    };
    // The table's routes of the UI's session.
    let mut api = Router::new();
    for route in crate::routes::table() {
        let crate::table::Endpoint::Ui(handler) = route.handler else {
            continue;
        };
        let handler = match route.access.this_machine() {
            true => handler.route_layer(middleware::from_fn(this_machine_only)),
            false => handler,
        };
        api = api.route(route.path, handler);
    }
    let api = api.with_state(state);
    let files = match dir {
        Some(dir) => static_files(&dir),
        None => Router::new().route("/", get(not_built)),
    };
    api.merge(files)
}

/// `/`, `/assets/...` and the files at the top of ui/dist (favicon and the like).
fn static_files(dir: &std::path::Path) -> Router {
    let mut r = Router::new()
        .route_service("/", get_service(ServeFile::new(dir.join("index.html"))))
        .nest_service("/assets", ServeDir::new(dir.join("assets")));
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if entry.path().is_file() && is_plain_name(&name) {
            r = r.route_service(&format!("/{name}"), get_service(ServeFile::new(entry.path())));
        }
    }
    r.layer(middleware::from_fn(plain_paths_only))
        .layer(SetResponseHeaderLayer::overriding(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ))
}

/// A path component that names a file in the folder itself: no `.`/`..`, no separator of any OS,
/// no drive prefix, no hidden file, no control character.
fn is_plain_name(c: &str) -> bool {
    !c.is_empty()
        && !c.starts_with('.')
        && !c
            .chars()
            .any(|ch| matches!(ch, '/' | '\\' | ':' | '%') || ch.is_control())
}

/// Decodes `%XX` escapes; None when an escape is malformed or the result is not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Whether every component of a request path (after one round of percent-decoding, so `%2e%2e`,
/// `%2f` and `%5c` count as what they decode to; a second `%` is refused) is a plain name.
pub fn is_plain_path(path: &str) -> bool {
    if path == "/" {
        return true;
    }
    let Some(rest) = path.strip_prefix('/') else {
        return false;
    };
    rest.split('/')
        .all(|raw| percent_decode(raw).is_some_and(|c| is_plain_name(&c)))
}

async fn plain_paths_only(req: Request, next: Next) -> Response {
    if !is_plain_path(req.uri().path()) {
        return error(ErrorCode::NotFoundRoute, "", "no such file");
    }
    next.run(req).await
}

async fn not_built() -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        "<h1>Packdesk</h1><p>The desk UI is not built. Start Packdesk with <code>bash .ci/app</code>, which builds it.</p>",
    )
        .into_response()
}

fn loopback_host(headers: &HeaderMap) -> bool {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let name = if host.starts_with('[') {
        host.split(']').next().map(|h| format!("{h}]")).unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or("").to_string()
    };
    matches!(name.as_str(), "127.0.0.1" | "localhost" | "[::1]")
}

/// Whether the request comes from this machine: the connection's peer is a loopback address (the
/// Host header alone proves nothing: any client may write `Host: 127.0.0.1`), and the Host names
/// this machine too (a browser tricked by DNS rebinding sends the attacker's host name).
fn from_this_machine(peer: SocketAddr, req: &Parts) -> bool {
    peer.ip().to_canonical().is_loopback() && loopback_host(&req.headers)
}

/// Admits requests from this machine only (`from_this_machine`): the routes whose access (in the
/// table) is `ThisMachine` (the desk UI's session, key rotation) or
/// `LiveKeyForChangesOnThisMachine` (the desk's database). Any other request is answered with an
/// InvalidApiKey envelope naming the path.
pub(crate) struct ThisMachine;

impl<S: Send + Sync> FromRequestParts<S> for ThisMachine {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        // Through the extractor: tests stand in for the TCP peer with axum's MockConnectInfo.
        match ConnectInfo::<SocketAddr>::from_request_parts(parts, state).await {
            Ok(ConnectInfo(peer)) if from_this_machine(peer, parts) => Ok(ThisMachine),
            _ => Err(error(
                ErrorCode::InvalidApiKey,
                "",
                // The path as sent (a nested router sees only its own part of it).
                &format!(
                    "{} is answered on this machine only",
                    parts
                        .extensions
                        .get::<axum::extract::OriginalUri>()
                        .map_or(parts.uri.path(), |u| u.0.path())
                ),
            )),
        }
    }
}

/// The access check of `Access::ThisMachine` routes (`ThisMachine`, as middleware).
pub(crate) async fn this_machine_only(req: Request, next: Next) -> Response {
    let (mut parts, body) = req.into_parts();
    match ThisMachine::from_request_parts(&mut parts, &()).await {
        Ok(ThisMachine) => next.run(Request::from_parts(parts, body)).await,
        Err(refusal) => refusal,
    }
}

/// `GET /ui/session`: the page's session (none while an operator must sign in) and where the desk
/// keeps its data.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Session {
    /// Operators sign in at this desk (`POST /ui/sign-in`) before anything else.
    sign_in_required: bool,
    /// The session the page works with: the one its `Authorization: Bearer` token names, else
    /// (sign-in off) a new one of the desk itself.
    session: Option<packdesk_model::people::SignedIn>,
    /// A signed-in operator without input for this long is signed out.
    idle_sign_out_minutes: u32,
    data_dir: String,
    log_dir: String,
    desktop_app: bool,
    vault_key: packdesk_model::desk::VaultKeyPlace,
    /// The desk's language setting (an operator's own comes with their session); none: the system's.
    language: Option<packdesk_model::status::Language>,
}

/// `GET /ui/status`.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(crate) struct UiStatus {
    ui_sessions: u64,
    ui_built: bool,
}

/// `POST /ui/keys/{env}/rotate`: the environment's new key.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(crate) struct RotatedKey {
    env: String,
    key: String,
}

/// The bearer token of a request, if it carries one.
pub(crate) fn bearer(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|t| t.trim().to_string())
}

/// `?environment=`: where a new session starts (sandbox when not said).
#[derive(serde::Deserialize, Default)]
pub(crate) struct Start {
    environment: Option<String>,
}

impl Start {
    fn env(&self) -> packdesk_service::keys::Env {
        self.environment
            .as_deref()
            .and_then(packdesk_service::keys::Env::parse)
            .unwrap_or(packdesk_service::keys::Env::Sandbox)
    }
}

pub(crate) async fn session(
    State(ui): State<Ui>,
    headers: HeaderMap,
    axum::extract::Query(start): axum::extract::Query<Start>,
) -> Response {
    ui.sessions.fetch_add(1, Ordering::SeqCst);
    let data_dir = ui.service.data_dir().display().to_string();
    let log_dir = crate::logging::log_dir(ui.service.data_dir()).display().to_string();
    let desktop_app = ui.service.is_desktop_app();
    let vault_key = ui.service.vault_key_place().clone();
    let token = bearer(&headers);
    crate::routes::run(ui.service.clone(), move |s| {
        let settings = s.desk_settings()?;
        let session = match token.and_then(|t| s.session_answer(&t)) {
            Some(open) => Some(open),
            None if settings.require_sign_in => None,
            None => Some(s.desk_session(start.env())?),
        };
        Ok(Session {
            sign_in_required: settings.require_sign_in,
            session,
            idle_sign_out_minutes: settings.idle_sign_out_minutes,
            data_dir,
            log_dir,
            desktop_app,
            vault_key,
            language: settings.language,
        })
    })
    .await
}

/// `POST /ui/sign-in`: an operator's badge (and PIN) opens a session.
pub(crate) async fn sign_in(
    State(ui): State<Ui>,
    axum::extract::Query(start): axum::extract::Query<Start>,
    crate::extract::ContractJson(req): crate::extract::ContractJson<packdesk_model::people::SignInRequest>,
) -> Response {
    crate::routes::run(ui.service.clone(), move |s| s.sign_in(&req, start.env())).await
}

/// `POST /ui/sign-out`: ends the request's session.
pub(crate) async fn sign_out(State(ui): State<Ui>, headers: HeaderMap) -> Response {
    let token = bearer(&headers).unwrap_or_default();
    crate::routes::run(ui.service.clone(), move |s| {
        s.sign_out(&token)?;
        Ok(serde_json::json!({}))
    })
    .await
}

/// `PUT /ui/environment`: switches the session between sandbox and live (a supervisor's action).
pub(crate) async fn set_environment(
    State(ui): State<Ui>,
    headers: HeaderMap,
    crate::extract::ContractJson(req): crate::extract::ContractJson<packdesk_model::people::EnvironmentRequest>,
) -> Response {
    let token = bearer(&headers).unwrap_or_default();
    crate::routes::run(ui.service.clone(), move |s| {
        s.set_session_environment(&token, req.environment)
    })
    .await
}

/// Replaces an environment's key (Settings): the old key stops working at once, and the new one is
/// shown this once. For this machine only, and only for an admin's session or with the current
/// key of that environment, so a page elsewhere cannot do it.
pub(crate) async fn rotate_key(State(ui): State<Ui>, Path(env): Path<String>, headers: HeaderMap) -> Response {
    let Some(env) = packdesk_service::keys::Env::parse(&env) else {
        return error(ErrorCode::NotFoundRoute, "env", "live or sandbox");
    };
    let admin = bearer(&headers)
        .and_then(|t| ui.service.session(&t))
        .filter(|c| c.role.may(packdesk_model::status::Role::Admin));
    let by_key = headers
        .get("service-api-key")
        .and_then(|v| v.to_str().ok())
        .and_then(|k| ui.service.environment_key_caller(k))
        .filter(|c| c.env == env);
    let Some(caller) = admin.or(by_key) else {
        return error(
            ErrorCode::InvalidApiKey,
            "headers.service-api-key",
            "an admin's session, or the current key of the environment to rotate",
        );
    };
    let s = ui.service.clone();
    match tokio::task::spawn_blocking(move || packdesk_service::audit::as_caller(Some(caller), || s.rotate_key(env)))
        .await
    {
        Ok(Ok(key)) => ok(serde_json::to_value(RotatedKey {
            env: env.as_str().into(),
            key,
        })
        .unwrap_or_default()),
        _ => error(ErrorCode::Internal, "", "the key could not be replaced"),
    }
}

/// Whether a UI has started a session with this process (no keys in it).
pub(crate) async fn status(State(ui): State<Ui>) -> Response {
    let status = UiStatus {
        ui_sessions: ui.sessions.load(Ordering::SeqCst),
        ui_built: ui.built,
    };
    ok(serde_json::to_value(status).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::is_plain_path;

    #[test]
    fn only_paths_of_plain_names_are_served() {
        for ok in [
            "/",
            "/index.html",
            "/assets/index-abc.js",
            "/favicon.svg",
            "/assets/a%20b.css",
        ] {
            assert!(is_plain_path(ok), "{ok} should be served");
        }
        for bad in [
            "/assets/../vault.key",
            "/assets/%2e%2e/vault.key",
            "/assets/%2E%2E%2Fvault.key",
            "/assets/..%5cvault.key",
            "/assets/a\\..\\b",
            "/assets/C:/Windows/win.ini",
            "/assets/c%3a%5cwin.ini",
            "/assets//etc/passwd",
            "/assets/%252e%252e/x",
            "/assets/.hidden",
            "/assets/%00",
            "/assets/%zz",
            "/assets/./index.js",
            "relative",
        ] {
            assert!(!is_plain_path(bad), "{bad} must be refused");
        }
    }
}
