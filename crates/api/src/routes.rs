//! Routes. Every route, known or not, needs a valid `service-api-key`; the key decides the
//! environment (live or sandbox) the request sees.

use crate::envelope::{error, ok, reply, ApiError};
use axum::body::{to_bytes, Body, Bytes};
use axum::extract::{FromRequest, Path, Query, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Router};
use packdesk_model::request::ListQuery;
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_service::keys::Env;
use packdesk_service::{Reply, Service};
use std::sync::Arc;

type Shared = Arc<Service>;

/// Largest request body accepted (a 50-parcel, 100-item-per-parcel label fits easily).
pub(crate) const MAX_BODY: usize = 8 * 1024 * 1024;

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
        None => ApiError(ServiceError::new(ErrorCode::InvalidApiKey)).into_response(),
    }
}

fn is_signed_file_link(req: &Request) -> bool {
    req.method() == axum::http::Method::GET
        && req.uri().path().starts_with("/v3/files/")
        && req
            .uri()
            .query()
            .is_some_and(|q| q.split('&').any(|p| p.starts_with("signature=")))
}

/// A JSON request body: UTF-8 only, at most `MAX_BODY` bytes.
struct JsonBody(Bytes);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        if let Some(ct) = req.headers().get(header::CONTENT_TYPE) {
            let ct = ct.to_str().unwrap_or("").to_ascii_lowercase();
            for param in ct.split(';').skip(1) {
                if let Some(cs) = param.trim().strip_prefix("charset=") {
                    let cs = cs.trim_matches('"');
                    if cs != "utf-8" && cs != "utf8" {
                        return Err(ApiError(ServiceError::invalid(
                            "headers.content-type",
                            format!("charset `{cs}` is not supported; send UTF-8 (application/json; charset=utf-8)"),
                        )));
                    }
                }
            }
        }
        let bytes = to_bytes(req.into_body(), MAX_BODY).await.map_err(|_| {
            ApiError(ServiceError::at(
                ErrorCode::PayloadTooLarge,
                "",
                format!("the body is over {MAX_BODY} bytes"),
            ))
        })?;
        Ok(JsonBody(bytes))
    }
}

/// Runs a service call on a blocking thread (SQLite, rendering) and wraps its answer.
async fn run(
    s: Shared,
    f: impl FnOnce(&Service) -> Result<serde_json::Value, ServiceError> + Send + 'static,
) -> Response {
    match tokio::task::spawn_blocking(move || f(&s)).await {
        Ok(Ok(data)) => ok(data),
        Ok(Err(e)) => ApiError(e).into_response(),
        Err(_) => error(ErrorCode::Internal, "", "the operation failed unexpectedly"),
    }
}

/// Runs an operation that may be accepted for async work (3001) or partly fail (4713).
async fn run_reply(s: Shared, f: impl FnOnce(&Service) -> Result<Reply, ServiceError> + Send + 'static) -> Response {
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

/// Handlers that hand a JSON body, a list query or an id to one service method.
macro_rules! with_body {
    ($name:ident, $method:ident) => {
        async fn $name(State(s): State<Shared>, Extension(env): Extension<Env>, JsonBody(b): JsonBody) -> Response {
            run(s, move |s| s.$method(env, &b)).await
        }
    };
}
macro_rules! with_body_reply {
    ($name:ident, $method:ident) => {
        async fn $name(State(s): State<Shared>, Extension(env): Extension<Env>, JsonBody(b): JsonBody) -> Response {
            run_reply(s, move |s| s.$method(env, &b)).await
        }
    };
}
macro_rules! with_query {
    ($name:ident, $method:ident) => {
        async fn $name(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
            match query(q) {
                Ok(q) => run(s, move |s| s.$method(env, &q)).await,
                Err(e) => e.into_response(),
            }
        }
    };
}
macro_rules! with_id {
    ($name:ident, $method:ident) => {
        async fn $name(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
            run(s, move |s| s.$method(env, &id)).await
        }
    };
}

with_body_reply!(create_label, create_label);
with_query!(list_labels, list_labels);
with_id!(get_label, get_label);
with_body!(create_account, create_account);
with_query!(list_accounts, list_accounts);
with_id!(get_account, get_account);
with_body_reply!(cancel_label, cancel_label);
with_query!(list_cancel_labels, list_cancel_labels);
with_id!(get_cancel_label, get_cancel_label);
with_body_reply!(create_manifest, create_manifest);
with_query!(list_manifests, list_manifests);
with_id!(get_manifest, get_manifest);
with_body_reply!(create_bulk_download, create_bulk_download);
with_query!(list_bulk_downloads, list_bulk_downloads);
with_id!(get_bulk_download, get_bulk_download);
with_query!(list_rates, list_rates);
with_id!(get_rate, get_rate);
with_body!(validate_address, validate_address);
with_query!(list_address_validations, list_address_validations);
with_id!(get_address_validation, get_address_validation);

with_body_reply!(calculate_rates, calculate_rates);
with_body!(set_webhook, set_webhook);
with_query!(list_webhook_deliveries, list_webhook_deliveries);
with_id!(get_webhook_delivery, get_webhook_delivery);
with_id!(resend_webhook_delivery, resend_webhook_delivery);

with_body!(print, print);
with_query!(list_print_jobs, list_print_jobs);
with_id!(get_print_job, get_print_job);
with_id!(retry_print_job, retry_print_job);

/// Reads of the desk's machine-wide printing setup: open to both keys.
async fn system_printers(State(s): State<Shared>) -> Response {
    run(s, |s| s.system_printers()).await
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
    let setup = path.starts_with("/printers") || path.starts_with("/print-profiles");
    let change = req.method() != axum::http::Method::GET && !path.ends_with("/test-page");
    if setup && change && req.extensions().get::<Env>() == Some(&Env::Sandbox) {
        return error(
            ErrorCode::InvalidApiKey,
            "headers.service-api-key",
            "printers, print profiles and desk settings belong to the whole desk (live labels print by them \
             too): change them with the live key; the sandbox key may read them",
        );
    }
    next.run(req).await
}

async fn add_printer(State(s): State<Shared>, JsonBody(b): JsonBody) -> Response {
    run(s, move |s| s.add_printer(&b)).await
}

async fn update_printer(State(s): State<Shared>, Path(id): Path<String>, JsonBody(b): JsonBody) -> Response {
    run(s, move |s| s.update_printer(&id, &b)).await
}

async fn delete_printer(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.delete_printer(&id)).await
}

async fn set_print_profile(State(s): State<Shared>, Path(id): Path<String>, JsonBody(b): JsonBody) -> Response {
    run(s, move |s| s.set_print_profile(&id, &b)).await
}

async fn delete_print_profile(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.delete_print_profile(&id)).await
}

async fn print_test_page(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    JsonBody(b): JsonBody,
) -> Response {
    run(s, move |s| s.print_test_page(env, &id, &b)).await
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

async fn end_of_day(State(s): State<Shared>, Extension(env): Extension<Env>) -> Response {
    run(s, move |s| s.end_of_day(env)).await
}

async fn close_out(State(s): State<Shared>, Extension(env): Extension<Env>, JsonBody(b): JsonBody) -> Response {
    run(s, move |s| s.close_out_accounts(env, &b)).await
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
    JsonBody(b): JsonBody,
) -> Response {
    run(s, move |s| s.update_account_settings(env, &id, &b)).await
}

async fn update_info(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    JsonBody(b): JsonBody,
) -> Response {
    run(s, move |s| s.update_account_info(env, &id, &b)).await
}

async fn replace_credentials(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    JsonBody(b): JsonBody,
) -> Response {
    run(s, move |s| s.update_account_credentials(env, &id, &b, false)).await
}

async fn merge_credentials(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    JsonBody(b): JsonBody,
) -> Response {
    run(s, move |s| s.update_account_credentials(env, &id, &b, true)).await
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
    let base = s.base_url.clone();
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
async fn carriers() -> Response {
    ok(serde_json::to_value(packdesk_carriers::registry()).unwrap_or_default())
}
