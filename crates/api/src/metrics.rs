//! `GET /metrics`: the desk's numbers in Prometheus' text format, for the live key or a request
//! from this machine (a Prometheus beside the desk, or one that holds the live key). The
//! recorder is the process's (`metrics`' global one); request times are recorded by `observe`
//! around every route of the interface, the queues' gauges read at each scrape
//! (`Service::record_gauges`).

use crate::envelope::error;
use crate::ui::{ThisMachine, Ui};
use axum::extract::{FromRequestParts, MatchedPath, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use packdesk_model::ErrorCode;
use packdesk_service::keys::Env;
use std::sync::OnceLock;

const REQUEST_SECONDS: &str = "packdesk_http_request_duration_seconds";

/// The process's recorder, installed at its first use.
fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        // From a millisecond to ten seconds: a label takes a few, a bulk download seconds.
        let buckets = [
            0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
        ];
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Full(REQUEST_SECONDS.into()), &buckets)
            .expect("buckets that are not empty")
            .build_recorder();
        let handle = recorder.handle();
        // Another recorder installed first (a test harness) keeps its place; this one then
        // renders what it was given.
        let _ = metrics::set_global_recorder(recorder);
        handle
    })
}

/// Times each request of a route, by its path pattern (`/v3/labels/{id}`), method and status.
pub(crate) async fn observe(req: Request, next: Next) -> Response {
    handle();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "other".to_string(), |m| m.as_str().to_string());
    let method = req.method().to_string();
    let started = std::time::Instant::now();
    let res = next.run(req).await;
    metrics::histogram!(
        REQUEST_SECONDS,
        "route" => route,
        "method" => method,
        "status" => res.status().as_u16().to_string()
    )
    .record(started.elapsed().as_secs_f64());
    res
}

/// `GET /metrics`.
pub(crate) async fn scrape(State(ui): State<Ui>, req: Request) -> Response {
    let (mut parts, _) = req.into_parts();
    let here = ThisMachine::from_request_parts(&mut parts, &()).await.is_ok();
    let live_key = parts
        .headers
        .get("service-api-key")
        .and_then(|v| v.to_str().ok())
        .and_then(|k| ui.service.environment_key_caller(k))
        .is_some_and(|c| c.env == Env::Live);
    if !here && !live_key {
        return error(
            ErrorCode::InvalidApiKey,
            "headers.service-api-key",
            "/metrics answers the live key, or a request from this machine",
        );
    }
    let handle = handle();
    crate::memory::record_gauges();
    let service = ui.service.clone();
    match tokio::task::spawn_blocking(move || service.record_gauges()).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!(error = %e.chain(), "the metrics' gauges could not be read"),
        Err(_) => tracing::warn!("the metrics' gauges could not be read"),
    }
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        handle.render(),
    )
        .into_response()
}
