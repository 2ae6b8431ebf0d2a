//! The HTTP face of Packdesk: the spec's `/v3` interface and the desk's own routes (`/desk/...`).
//! Handlers are thin: authenticate, hand the body to the service on a blocking thread, wrap the
//! answer in the envelope.
// Unsafe code only in `memory` (one call into glibc), allowed there by name.
#![deny(unsafe_code)]

pub mod cli;
pub mod connections;
mod envelope;
mod extract;
mod file_links;
mod idempotency;
pub mod logging;
pub mod memory;
mod metrics;
pub mod openapi;
pub mod paths;
pub mod roles;
mod routes;
mod server_timing;
mod table;
pub mod tls;
mod ui;

pub use routes::router;
pub use ui::CONTENT_SECURITY_POLICY;

use packdesk_service::Service;
use std::sync::Arc;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

/// The whole HTTP face: the desk UI's files and session, and the key-checked routes.
pub fn app(service: Arc<Service>, ui_dir: Option<std::path::PathBuf>) -> axum::Router {
    // The table's routes outside the interface and the UI's session (this document).
    let mut doc = axum::Router::new();
    for route in routes::table() {
        if let table::Endpoint::Plain(handler) = route.handler {
            doc = doc.route(route.path, handler);
        }
    }
    ui::routes(service.clone(), ui_dir)
        .merge(doc)
        .merge(router(service.clone()))
        .layer(axum::middleware::from_fn_with_state(
            service,
            file_links::for_the_request,
        ))
        // Outermost last: each request gets an `x-request-id` (kept when the caller sent one),
        // its log span carries it, and the answer echoes it so a caller can quote it.
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(TraceLayer::new_for_http().make_span_with(request_span))
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
}

/// Every route of the server (the table's): method and path.
pub fn routes() -> Vec<(axum::http::Method, &'static str)> {
    routes::table().into_iter().map(|r| (r.method, r.path)).collect()
}

/// The log span of a request (debug level: `--log debug` shows one line per request).
fn request_span(req: &axum::http::Request<axum::body::Body>) -> tracing::Span {
    let id = req
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    tracing::debug_span!("request", request_id = %id, method = %req.method(), path = %req.uri().path())
}

/// The OpenAPI document (no key: it describes the interface, it holds no data).
pub(crate) async fn openapi_json() -> axum::response::Response {
    use axum::response::IntoResponse;
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        openapi::pretty(),
    )
        .into_response()
}

/// Serves `service` (and the desk UI from `ui_dir`, when built) on `listener` until
/// `shutdown` resolves, with the connection limits of `limits` (`packdesk-server
/// --idle-timeout` and others), and HTTPS with `tls` (`tls::Tls::for_listener`).
pub async fn serve_with(
    listener: tokio::net::TcpListener,
    service: Arc<Service>,
    ui_dir: Option<std::path::PathBuf>,
    limits: connections::ConnectionLimits,
    tls: Option<Arc<tls::Tls>>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    memory::keep_memory_bounded();
    // Each request carries its connection's peer (the UI session answers loopback peers only)
    // and local address (file links name the address the request came to).
    connections::serve_with(listener, app(service, ui_dir), limits, tls, shutdown).await
}
