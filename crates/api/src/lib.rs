//! The HTTP face of Packdesk: the spec's `/v3` interface and the desk's own routes (`/desk/...`).
//! Handlers are thin: authenticate, hand the body to the service on a blocking thread, wrap the
//! answer in the envelope.

mod envelope;
pub mod paths;
mod routes;
mod ui;

pub use routes::router;

use packdesk_service::Service;
use std::net::SocketAddr;
use std::sync::Arc;

/// Serves `service` (and the desk UI from `ui_dir`, when built) on `listener` until the process ends or `shutdown` resolves.
pub async fn serve(
    listener: tokio::net::TcpListener,
    service: Arc<Service>,
    ui_dir: Option<std::path::PathBuf>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = ui::routes(service.clone(), ui_dir).merge(router(service));
    axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(shutdown)
        .await
}
