//! The HTTP face of Packdesk: the spec's `/v3` interface and the desk's own routes (`/desk/...`).
//! Handlers are thin: authenticate, hand the body to the service on a blocking thread, wrap the
//! answer in the envelope.

mod envelope;
mod idempotency;
pub mod openapi;
pub mod paths;
mod routes;
mod ui;

pub use routes::router;
pub use ui::CONTENT_SECURITY_POLICY;

use packdesk_service::Service;
use std::net::SocketAddr;
use std::sync::Arc;

/// The whole HTTP face: the desk UI's files and session, and the key-checked routes.
pub fn app(service: Arc<Service>, ui_dir: Option<std::path::PathBuf>) -> axum::Router {
    let doc = axum::Router::new().route("/openapi.json", axum::routing::get(openapi_json));
    ui::routes(service.clone(), ui_dir).merge(doc).merge(router(service))
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
