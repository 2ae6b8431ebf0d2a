//! The HTTP face of Packdesk: the spec's `/v3` interface and the desk's own routes (`/desk/...`).
//! Handlers are thin: authenticate, hand the body to the service on a blocking thread, wrap the
//! answer in the envelope.

pub mod cli;
mod envelope;
mod extract;
mod idempotency;
pub mod logging;
pub mod openapi;
pub mod paths;
mod routes;
mod ui;

pub use routes::router;
pub use ui::CONTENT_SECURITY_POLICY;

use packdesk_service::Service;
use std::net::SocketAddr;
use std::sync::Arc;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

/// The whole HTTP face: the desk UI's files and session, and the key-checked routes.
pub fn app(service: Arc<Service>, ui_dir: Option<std::path::PathBuf>) -> axum::Router {
    let doc = axum::Router::new().route("/openapi.json", axum::routing::get(openapi_json));
    ui::routes(service.clone(), ui_dir)
        .merge(doc)
        .merge(router(service))
        // Outermost last: each request gets an `x-request-id` (kept when the caller sent one),
        // its log span carries it, and the answer echoes it so a caller can quote it.
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(TraceLayer::new_for_http().make_span_with(request_span))
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
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
async fn openapi_json() -> axum::response::Response {
    use axum::response::IntoResponse;
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        openapi::pretty(),
    )
        .into_response()
}

/// Serves `service` (and the desk UI from `ui_dir`, when built) on `listener` until the process ends or `shutdown` resolves.
pub async fn serve(
    listener: tokio::net::TcpListener,
    service: Arc<Service>,
    ui_dir: Option<std::path::PathBuf>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    // The peer address travels with each request: the UI session answers loopback peers only.
    axum::serve(
        listener,
        app(service, ui_dir).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await
}
