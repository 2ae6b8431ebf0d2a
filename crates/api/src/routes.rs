//! Routes. Every route, known or not, needs a valid `service-api-key`; the key decides the
//! environment (live or sandbox) the request sees.

use crate::envelope::{error, ok, reply, ApiError};
use crate::extract::{ContractJson, ContractJsonOrEmpty};
use axum::body::Body;
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Router};
use packdesk_model::desk::{
    CloseOutRequest, DatabaseRequest, PrintProfileRequest, PrintRequest, PrinterRequest, PrintingRequest, ScaleRequest,
    TestPageRequest, WebhookChange,
};
use packdesk_model::preset::{DeskSettings, PresetRequest, Rules, ShipBatchRequest, ShipOrderRequest};
use packdesk_model::request::{
    AddressValidationRequest, BulkDownloadRequest, CancelLabelRequest, LabelRequest, ListQuery, ManifestRequest,
    RatesRequest, ShipperAccountCreate, ShipperAccountCredentialsUpdate, ShipperAccountInfoUpdate,
    ShipperAccountSettingsUpdate,
};
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_service::keys::Env;
use packdesk_service::{Reply, Service};
use std::sync::Arc;

type Shared = Arc<Service>;

pub fn router(service: Shared) -> Router {
    let v3 = Router::new()
        .route("/labels", get(list_labels).post(create_label))
        .route("/labels/{id}", get(get_label))
        .route("/shipper-accounts", get(list_accounts).post(create_account))
        .route(
            "/shipper-accounts/{id}",
            get(get_account).delete(delete_account).put(update_settings),
        )
        .route("/shipper-accounts/{id}/info", axum::routing::put(update_info))
        .route(
            "/shipper-accounts/{id}/credentials",
            axum::routing::put(replace_credentials).patch(merge_credentials),
        )
        .route("/cancel-labels", get(list_cancel_labels).post(cancel_label))
        .route("/cancel-labels/{id}", get(get_cancel_label))
        .route("/manifests", get(list_manifests).post(create_manifest))
        .route("/manifests/{id}", get(get_manifest))
        .route("/bulk-downloads", get(list_bulk_downloads).post(create_bulk_download))
        .route("/bulk-downloads/{id}", get(get_bulk_download))
        .route("/rates", get(list_rates).post(calculate_rates))
        .route("/rates/{id}", get(get_rate))
        .route(
            "/address-validations",
            get(list_address_validations).post(validate_address),
        )
        .route("/address-validations/{id}", get(get_address_validation))
        .route("/files/{id}", get(download_file))
        .route("/schemas", get(list_schemas))
        .route("/schemas/{name}", get(get_schema))
        .layer(middleware::from_fn_with_state(
            service.clone(),
            crate::idempotency::idempotent,
        ));
    let desk = Router::new()
        .route("/carriers", get(carriers))
        .route("/countries", get(countries))
        .route("/orders", get(list_orders).post(save_orders))
        .route("/orders/{id}", get(get_order).delete(cancel_order))
        .route(
            "/orders/import",
            axum::routing::post(import_orders).layer(axum::extract::DefaultBodyLimit::disable()),
        )
        .route("/orders/export.csv", get(export_orders))
        .route("/orders/ship", axum::routing::post(ship_orders_batch))
        .route("/orders/{id}/ship", axum::routing::post(ship_order))
        .route("/batches/{id}", get(get_batch))
        .route(
            "/import-mappings/{name}",
            get(get_import_mapping).put(set_import_mapping),
        )
        .route("/presets", get(list_presets).post(create_preset))
        .route(
            "/presets/{id}",
            get(get_preset).put(update_preset).delete(delete_preset),
        )
        .route("/rules", get(get_rules).put(set_rules))
        .route("/settings", get(get_settings).put(set_settings))
        .route("/database", get(get_database).put(set_database))
        .route("/database/restart", axum::routing::post(restart_for_database))
        .route("/scale", get(get_scale).put(set_scale))
        .route("/status", get(desk_status))
        .route("/printing", axum::routing::put(set_printing))
        .route("/update", get(update_status))
        .route("/update/check", axum::routing::post(check_for_update))
        .route("/update/download", axum::routing::post(download_update))
        .route("/update/install", axum::routing::post(install_update))
        .route("/webhook", get(get_webhook).put(set_webhook))
        .route("/webhook-deliveries", get(list_webhook_deliveries))
        .route("/webhook-deliveries/{id}", get(get_webhook_delivery))
        .route(
            "/webhook-deliveries/{id}/resend",
            axum::routing::post(resend_webhook_delivery),
        )
        .route("/system-printers", get(system_printers))
        .route("/printers", get(list_printers).post(add_printer))
        .route(
            "/printers/{id}",
            get(get_printer).put(update_printer).delete(delete_printer),
        )
        .route("/printers/{id}/test-page", axum::routing::post(print_test_page))
        .route("/printers/{id}/status", get(printer_status))
        .route("/print-profiles", get(list_print_profiles))
        .route(
            "/print-profiles/{document_type}",
            axum::routing::put(set_print_profile).delete(delete_print_profile),
        )
        .route("/print", axum::routing::post(print))
        .route("/print-jobs", get(list_print_jobs))
        .route("/print-jobs/{id}", get(get_print_job))
        .route("/print-jobs/{id}/retry", axum::routing::post(retry_print_job))
        .route("/files/{id}/preview.png", get(preview))
        .route("/today", get(today))
        .route("/end-of-day", get(end_of_day))
        .route("/history", get(history))
        .route("/shipper-accounts/{id}/ship-date", get(ship_date))
        .route("/close-out", axum::routing::post(close_out))
        .layer(middleware::from_fn(machine_wide_changes_need_live));
    Router::new()
        .nest("/v3", v3)
        .nest("/desk", desk)
        .fallback(|| async { error(ErrorCode::NotFoundRoute, "", "no such route") })
        .method_not_allowed_fallback(|| async {
            error(ErrorCode::MethodNotAllowed, "", "this route does not take that method")
        })
        .layer(middleware::from_fn_with_state(service.clone(), authenticate))
        .with_state(service)
}

/// Checks `service-api-key` and puts the key's environment into the request. A GET of a file with
/// a signed link and no key goes on without an environment: the link itself is checked there.
async fn authenticate(State(s): State<Shared>, mut req: Request, next: Next) -> Response {
    let header = req.headers().get("service-api-key");
    let env = header.and_then(|v| v.to_str().ok()).and_then(|k| s.authenticate(k));
    match env {
        Some(env) => {
            req.extensions_mut().insert(env);
            next.run(req).await
        }
        None if header.is_none() && is_signed_file_link(&req) => next.run(req).await,
        // Outside the interface there is nothing to protect: a path no UI file answers (a
        // browser's /favicon.ico, /robots.txt) gets its 404, not a 401 asking for a key.
        None if !is_interface_path(req.uri().path()) => next.run(req).await,
        None => ApiError(ServiceError::new(ErrorCode::InvalidApiKey)).into_response(),
    }
}

/// The key-checked part of the server: `/v3` and `/desk`.
fn is_interface_path(path: &str) -> bool {
    ["/v3", "/desk"].iter().any(|p| {
        path.strip_prefix(p)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

fn is_signed_file_link(req: &Request) -> bool {
    // HEAD answers like GET without the body (a client checking a link before downloading it).
    matches!(*req.method(), axum::http::Method::GET | axum::http::Method::HEAD)
        && req.uri().path().starts_with("/v3/files/")
        && req
            .uri()
            .query()
            .is_some_and(|q| q.split('&').any(|p| p.starts_with("signature=")))
}

/// Runs a service call on a blocking thread (SQLite, rendering) and wraps its answer.
async fn run<T: serde::Serialize + Send + 'static>(
    s: Shared,
    f: impl FnOnce(&Service) -> Result<T, ServiceError> + Send + 'static,
) -> Response {
    match tokio::task::spawn_blocking(move || f(&s)).await {
        Ok(Ok(data)) => match serde_json::to_value(data) {
            Ok(data) => ok(data),
            Err(_) => error(ErrorCode::Internal, "", "the answer could not be written as JSON"),
        },
        Ok(Err(e)) => ApiError(e).into_response(),
        Err(_) => error(ErrorCode::Internal, "", "the operation failed unexpectedly"),
    }
}

/// Runs an operation that may be accepted for async work (3001) or partly fail (4713).
async fn run_reply<T: serde::Serialize + Send + 'static>(
    s: Shared,
    f: impl FnOnce(&Service) -> Result<Reply<T>, ServiceError> + Send + 'static,
) -> Response {
    match tokio::task::spawn_blocking(move || f(&s)).await {
        Ok(Ok(r)) => reply(r),
        Ok(Err(e)) => ApiError(e).into_response(),
        Err(_) => error(ErrorCode::Internal, "", "the operation failed unexpectedly"),
    }
}

fn query(q: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>) -> Result<ListQuery, ApiError> {
    q.map(|Query(q)| q)
        .map_err(|e| ApiError(ServiceError::invalid("query", e.body_text())))
}

type Q = Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>;

// ----- /v3 and /desk: one service call each -----

async fn create_label(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<LabelRequest>,
) -> Response {
    run_reply(s, move |s| s.create_label(env, req)).await
}

async fn create_account(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<ShipperAccountCreate>,
) -> Response {
    run(s, move |s| s.create_account(env, req)).await
}

async fn cancel_label(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<CancelLabelRequest>,
) -> Response {
    run_reply(s, move |s| s.cancel_label(env, req)).await
}

async fn create_manifest(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<ManifestRequest>,
) -> Response {
    run_reply(s, move |s| s.create_manifest(env, req)).await
}

async fn create_bulk_download(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<BulkDownloadRequest>,
) -> Response {
    run_reply(s, move |s| s.create_bulk_download(env, req)).await
}

async fn calculate_rates(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<RatesRequest>,
) -> Response {
    run_reply(s, move |s| s.calculate_rates(env, req)).await
}

async fn validate_address(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<AddressValidationRequest>,
) -> Response {
    run(s, move |s| s.validate_address(env, req)).await
}

async fn set_webhook(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<WebhookChange>,
) -> Response {
    run(s, move |s| s.set_webhook(env, req)).await
}

async fn print(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<PrintRequest>,
) -> Response {
    run(s, move |s| s.print(env, req)).await
}

async fn list_labels(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_labels(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_accounts(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_accounts(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_cancel_labels(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_cancel_labels(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_manifests(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_manifests(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_bulk_downloads(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_bulk_downloads(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_rates(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_rates(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_address_validations(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_address_validations(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_webhook_deliveries(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_webhook_deliveries(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_print_jobs(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_print_jobs(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn get_label(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_label(env, &id)).await
}

async fn get_account(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_account(env, &id)).await
}

async fn get_cancel_label(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_cancel_label(env, &id)).await
}

async fn get_manifest(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_manifest(env, &id)).await
}

async fn get_bulk_download(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
) -> Response {
    run(s, move |s| s.get_bulk_download(env, &id)).await
}

async fn get_rate(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_rate(env, &id)).await
}

async fn get_address_validation(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
) -> Response {
    run(s, move |s| s.get_address_validation(env, &id)).await
}

async fn get_webhook_delivery(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
) -> Response {
    run(s, move |s| s.get_webhook_delivery(env, &id)).await
}

async fn resend_webhook_delivery(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
) -> Response {
    run(s, move |s| s.resend_webhook_delivery(env, &id)).await
}

async fn get_print_job(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_print_job(env, &id)).await
}

async fn retry_print_job(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.retry_print_job(env, &id)).await
}

/// Reads of the desk's machine-wide printing setup: open to both keys.
async fn system_printers(State(s): State<Shared>) -> Response {
    run(s, |s| Ok(s.system_printers())).await
}

/// One order, or `{"orders": [...]}` (up to 1,000).
async fn save_orders(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(body): ContractJson<serde_json::Value>,
) -> Response {
    use packdesk_model::order::{OrderBatchRequest, OrderRequest, OrderSource};
    let batch = body.get("orders").is_some();
    let orders = match batch {
        true => packdesk_model::from_value::<OrderBatchRequest>(body).map(|b| b.orders),
        false => packdesk_model::from_value::<OrderRequest>(body).map(|o| vec![o]),
    };
    match orders {
        Ok(orders) => run(s, move |s| s.save_orders(env, orders, OrderSource::Api, batch)).await,
        Err(e) => ApiError(e).into_response(),
    }
}

/// `?status=` of the export.
#[derive(serde::Deserialize)]
struct ExportQuery {
    status: Option<String>,
}

/// Orders with their carrier, service and tracking numbers, for writing back to the shop.
async fn export_orders(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    q: Result<Query<ExportQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let status = match q {
        Ok(Query(q)) => q.status,
        Err(e) => return ApiError(ServiceError::invalid("query", e.body_text())).into_response(),
    };
    match tokio::task::spawn_blocking(move || s.export_orders_csv(env, status.as_deref())).await {
        Ok(Ok(csv)) => (
            [
                (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
                (header::CONTENT_DISPOSITION, "attachment; filename=\"orders.csv\""),
            ],
            csv,
        )
            .into_response(),
        Ok(Err(e)) => ApiError(e).into_response(),
        Err(_) => error(ErrorCode::Internal, "", "the operation failed unexpectedly"),
    }
}

async fn ship_order(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractJsonOrEmpty(req): ContractJsonOrEmpty<ShipOrderRequest>,
) -> Response {
    run(s, move |s| s.ship_order(env, &id, req)).await
}

async fn ship_orders_batch(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<ShipBatchRequest>,
) -> Response {
    run(s, move |s| s.ship_orders(env, req)).await
}

async fn get_batch(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_ship_batch(env, &id)).await
}

async fn list_presets(State(s): State<Shared>, Extension(env): Extension<Env>) -> Response {
    run(s, move |s| s.list_presets(env)).await
}

async fn get_preset(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_preset(env, &id)).await
}

async fn create_preset(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<PresetRequest>,
) -> Response {
    run(s, move |s| s.create_preset(env, req)).await
}

async fn update_preset(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<PresetRequest>,
) -> Response {
    run(s, move |s| s.update_preset(env, &id, req)).await
}

async fn delete_preset(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.delete_preset(env, &id)).await
}

async fn get_rules(State(s): State<Shared>, Extension(env): Extension<Env>) -> Response {
    run(s, move |s| s.rules(env)).await
}

async fn set_rules(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(rules): ContractJson<Rules>,
) -> Response {
    run(s, move |s| s.set_rules(env, rules)).await
}

async fn get_settings(State(s): State<Shared>) -> Response {
    run(s, |s| s.desk_settings()).await
}

async fn set_settings(State(s): State<Shared>, ContractJson(settings): ContractJson<DeskSettings>) -> Response {
    run(s, move |s| s.set_desk_settings(settings)).await
}

/// The desk's database: for this machine only (its answer holds the join code, the warehouse's
/// vault key, for the live key only; its change points the desk elsewhere).
async fn get_database(State(s): State<Shared>, Extension(env): Extension<Env>, _: crate::ui::ThisMachine) -> Response {
    run(s, move |s| Ok(s.database_setting(env))).await
}

async fn set_database(
    State(s): State<Shared>,
    _: crate::ui::ThisMachine,
    ContractJson(body): ContractJson<DatabaseRequest>,
) -> Response {
    run(s, move |s| s.set_database(body)).await
}

/// The desktop app restarts onto the database Settings saved (this machine only).
async fn restart_for_database(State(s): State<Shared>, _: crate::ui::ThisMachine) -> Response {
    run(s, |s| s.restart_for_database()).await
}

async fn get_scale(State(s): State<Shared>) -> Response {
    run(s, |s| Ok(s.scale_state())).await
}

async fn set_scale(State(s): State<Shared>, ContractJson(req): ContractJson<ScaleRequest>) -> Response {
    run(s, move |s| s.set_scale(req)).await
}

async fn desk_status(State(s): State<Shared>) -> Response {
    run(s, |s| s.desk_status()).await
}

async fn set_printing(State(s): State<Shared>, ContractJson(req): ContractJson<PrintingRequest>) -> Response {
    run(s, move |s| s.set_printing(req)).await
}

async fn update_status(State(s): State<Shared>) -> Response {
    run(s, |s| s.update_status()).await
}

async fn check_for_update(State(s): State<Shared>) -> Response {
    run(s, |s| s.check_for_update()).await
}

async fn download_update(State(s): State<Shared>) -> Response {
    run(s, |s| s.download_update()).await
}

async fn install_update(State(s): State<Shared>) -> Response {
    run(s, |s| s.install_update()).await
}

/// The largest CSV file an import takes (read as a stream: memory does not grow with it).
const IMPORT_MAX_BYTES: u64 = 1024 * 1024 * 1024;

#[derive(serde::Deserialize)]
struct ImportQuery {
    mapping: Option<String>,
    dry_run: Option<bool>,
}

/// The file is the body (`Content-Type: text/csv`), read as it arrives; `?mapping=name`,
/// `?dry_run=true`.
async fn import_orders(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    q: Result<Query<ImportQuery>, axum::extract::rejection::QueryRejection>,
    body: Body,
) -> Response {
    use futures_util::TryStreamExt;
    let q = match q {
        Ok(Query(q)) => q,
        Err(e) => return ApiError(ServiceError::invalid("query", e.body_text())).into_response(),
    };
    let mapping = q.mapping.filter(|m| !m.is_empty());
    let dry_run = q.dry_run.unwrap_or(false);
    let mut seen = 0u64;
    let stream = body
        .into_data_stream()
        .map_err(std::io::Error::other)
        .and_then(move |chunk| {
            seen += chunk.len() as u64;
            futures_util::future::ready(match seen > IMPORT_MAX_BYTES {
                true => Err(std::io::Error::other(format!(
                    "the file is over {} MiB",
                    IMPORT_MAX_BYTES >> 20
                ))),
                false => Ok(chunk),
            })
        });
    // The blocking import reads the body as it arrives through this bridge.
    let file = tokio_util::io::SyncIoBridge::new(tokio_util::io::StreamReader::new(stream));
    run(s, move |s| s.import_orders(env, file, mapping.as_deref(), dry_run)).await
}

async fn get_import_mapping(State(s): State<Shared>, Path(name): Path<String>) -> Response {
    run(s, move |s| s.import_mapping(&name)).await
}

async fn set_import_mapping(
    State(s): State<Shared>,
    Path(name): Path<String>,
    ContractJson(m): ContractJson<packdesk_model::order::ImportMapping>,
) -> Response {
    run(s, move |s| s.set_import_mapping(&name, m)).await
}

async fn list_orders(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_orders(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn get_order(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_order(env, &id)).await
}

async fn cancel_order(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.cancel_order(env, &id)).await
}

async fn list_printers(State(s): State<Shared>) -> Response {
    run(s, |s| s.list_printers()).await
}

async fn list_print_profiles(State(s): State<Shared>) -> Response {
    run(s, |s| s.list_print_profiles()).await
}

async fn get_printer(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_printer(&id)).await
}

/// Printers and print profiles are the machine's, used by live labels too: only the live key
/// changes them (a sandbox key handed out for testing an integration must not re-point them).
/// Both keys read them; printing a test page is no change.
async fn machine_wide_changes_need_live(req: Request, next: Next) -> Response {
    // Inside the /desk nest the path has lost its prefix.
    let path = req.uri().path();
    let setup = [
        "/printers",
        "/print-profiles",
        "/import-mappings",
        "/settings",
        "/scale",
        "/database",
        "/printing",
        "/update",
    ]
    .iter()
    .any(|p| path.starts_with(p));
    let change = req.method() != axum::http::Method::GET && !path.ends_with("/test-page");
    if setup && change && req.extensions().get::<Env>() == Some(&Env::Sandbox) {
        return error(
            ErrorCode::InvalidApiKey,
            "headers.service-api-key",
            "printers, print profiles, import mappings, desk settings, the scale and pausing the printing belong to the whole desk (live labels print by them \
             too): change them with the live key; the sandbox key may read them",
        );
    }
    next.run(req).await
}

async fn add_printer(State(s): State<Shared>, ContractJson(req): ContractJson<PrinterRequest>) -> Response {
    run(s, move |s| s.add_printer(req)).await
}

async fn update_printer(
    State(s): State<Shared>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<PrinterRequest>,
) -> Response {
    run(s, move |s| s.update_printer(&id, req)).await
}

async fn delete_printer(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.delete_printer(&id)).await
}

async fn set_print_profile(
    State(s): State<Shared>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<PrintProfileRequest>,
) -> Response {
    run(s, move |s| s.set_print_profile(&id, req)).await
}

async fn delete_print_profile(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.delete_print_profile(&id)).await
}

async fn printer_status(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.printer_status(&id)).await
}

async fn print_test_page(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractJsonOrEmpty(req): ContractJsonOrEmpty<TestPageRequest>,
) -> Response {
    run(s, move |s| s.print_test_page(env, &id, req)).await
}

#[derive(serde::Deserialize)]
struct TodayQuery {
    utc_offset_minutes: Option<i64>,
    days: Option<i64>,
}

/// Today's counts by carrier and status, and labels per day (the desk's Today screen).
async fn today(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    q: Result<Query<TodayQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(Query(q)) = q else {
        return ApiError(ServiceError::invalid(
            "query",
            "utc_offset_minutes and days are whole numbers",
        ))
        .into_response();
    };
    run(s, move |s| {
        s.today(env, q.utc_offset_minutes.unwrap_or(0), q.days.unwrap_or(30))
    })
    .await
}

async fn history(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.history(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn ship_date(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.ship_date(env, &id)).await
}

async fn end_of_day(State(s): State<Shared>, Extension(env): Extension<Env>) -> Response {
    run(s, move |s| s.end_of_day(env)).await
}

async fn close_out(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJsonOrEmpty(req): ContractJsonOrEmpty<CloseOutRequest>,
) -> Response {
    run(s, move |s| s.close_out_accounts(env, req)).await
}

#[derive(serde::Deserialize)]
struct PreviewQuery {
    page: Option<u32>,
    dpi: Option<u32>,
}

/// A PNG of a stored document's page, rendered here (no address leaves the machine).
async fn preview(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    q: Result<Query<PreviewQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(Query(q)) = q else {
        return ApiError(ServiceError::invalid("query", "page and dpi are whole numbers")).into_response();
    };
    match tokio::task::spawn_blocking(move || s.preview(env, &id, q.page.unwrap_or(1), q.dpi)).await {
        Ok(Ok(png)) => {
            let mut r = (StatusCode::OK, Body::from(png)).into_response();
            r.headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
            r
        }
        Ok(Err(e)) => ApiError(e).into_response(),
        Err(_) => error(ErrorCode::Internal, "", "the preview failed unexpectedly"),
    }
}

async fn get_webhook(State(s): State<Shared>, Extension(env): Extension<Env>) -> Response {
    run(s, move |s| s.webhook_setting(env)).await
}

async fn delete_account(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.delete_account(env, &id)).await
}

async fn update_settings(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<ShipperAccountSettingsUpdate>,
) -> Response {
    run(s, move |s| s.update_account_settings(env, &id, req)).await
}

async fn update_info(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<ShipperAccountInfoUpdate>,
) -> Response {
    run(s, move |s| s.update_account_info(env, &id, req)).await
}

async fn replace_credentials(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<ShipperAccountCredentialsUpdate>,
) -> Response {
    run(s, move |s| s.update_account_credentials(env, &id, req, false)).await
}

async fn merge_credentials(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<ShipperAccountCredentialsUpdate>,
) -> Response {
    run(s, move |s| s.update_account_credentials(env, &id, req, true)).await
}

#[derive(serde::Deserialize)]
struct FileLinkQuery {
    expires: Option<String>,
    signature: Option<String>,
}

/// A document's bytes, as the file URLs of records point to: with the key, or by the link's
/// signature alone (see `packdesk_service::links`).
async fn download_file(
    State(s): State<Shared>,
    env: Option<Extension<Env>>,
    Path(id): Path<String>,
    q: Result<Query<FileLinkQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let link = q.map(|Query(q)| q).unwrap_or(FileLinkQuery {
        expires: None,
        signature: None,
    });
    let found = tokio::task::spawn_blocking(move || match env {
        Some(Extension(env)) => s.file(env, &id),
        None => {
            let expires = link.expires.as_deref().and_then(|e| e.parse::<i64>().ok());
            let Some(expires) = expires else {
                return Err(ServiceError::at(
                    ErrorCode::InvalidApiKey,
                    "expires",
                    "a file link needs its expires (unix seconds)",
                ));
            };
            s.file_by_link(&id, expires, link.signature.as_deref().unwrap_or(""))
        }
    });
    match found.await {
        Ok(Ok((bytes, mime, name))) => {
            let mut r = (StatusCode::OK, Body::from(bytes)).into_response();
            r.headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
            if let Ok(v) = HeaderValue::from_str(&format!("inline; filename=\"{name}\"")) {
                r.headers_mut().insert(header::CONTENT_DISPOSITION, v);
            }
            r
        }
        Ok(Err(e)) => ApiError(e).into_response(),
        Err(_) => error(ErrorCode::Internal, "", "the download failed unexpectedly"),
    }
}

async fn list_schemas(State(s): State<Shared>) -> Response {
    let base = s.base_url().to_string();
    let names: Vec<serde_json::Value> = packdesk_model::schema::all()
        .into_iter()
        .map(|(n, _)| serde_json::json!({ "name": n, "url": format!("{base}/v3/schemas/{n}.json") }))
        .collect();
    ok(serde_json::json!({ "schemas": names }))
}

/// A published JSON Schema file, as is (not enveloped).
async fn get_schema(Path(name): Path<String>) -> Response {
    match packdesk_model::schema::by_name(name.trim_end_matches(".json")) {
        Some(text) => {
            let mut r = (StatusCode::OK, text).into_response();
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/schema+json"),
            );
            r
        }
        None => error(ErrorCode::NotFoundRoute, "name", "no such schema; see GET /v3/schemas"),
    }
}

/// The carrier registry, for the desk UI: it builds its forms from this and never hard-codes a rule.
/// Countries for completion: a name or alpha-2 typed at the desk becomes the alpha-3 the /v3
/// interface takes.
async fn countries() -> Response {
    let list = packdesk_model::desk::CountryList {
        countries: packdesk_carriers::countries::all()
            .into_iter()
            .map(|c| packdesk_model::desk::CountryName {
                alpha3: c.alpha3.into(),
                alpha2: c.alpha2.into(),
                name: c.name.into(),
                postal_formats: packdesk_carriers::postal::masks(c.alpha3)
                    .map(|m| m.into_iter().map(String::from).collect()),
                also_called: packdesk_carriers::countries::also_called(c.alpha3)
                    .into_iter()
                    .map(String::from)
                    .collect(),
            })
            .collect(),
    };
    ok(serde_json::to_value(list).unwrap_or_default())
}

async fn carriers() -> Response {
    ok(serde_json::to_value(packdesk_carriers::registry()).unwrap_or_default())
}
