//! The response envelope: `{meta: {code: 200}, data}` or the error envelope of `ServiceError`.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use packdesk_model::{ErrorCode, ServiceError};

pub struct ApiError(pub ServiceError);

impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> Self {
        ApiError(e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.0.code.http_status()).unwrap_or(StatusCode::OK);
        // A fault of the desk (not of the request) goes to the log with its causes, inside the
        // request's span (its x-request-id); the caller sees the code and plain words.
        if matches!(self.0.code, ErrorCode::Internal | ErrorCode::InternalRetry) {
            tracing::error!(error = %self.0.chain(), "the request failed");
        }
        json_response(status, self.0.envelope().to_string())
    }
}

pub fn ok(data: serde_json::Value) -> Response {
    json_response(
        StatusCode::OK,
        serde_json::json!({ "meta": { "code": 200 }, "data": data }).to_string(),
    )
}

/// An operation's answer: meta 200, 3001 (accepted for async work) or a partial failure with data.
pub fn reply<T: serde::Serialize>(r: packdesk_service::Reply<T>) -> Response {
    // Written straight from the answer's types: a JSON tree built first cost a label's answer
    // a map and a string for each of its fields.
    #[derive(serde::Serialize)]
    struct Envelope<'a, T> {
        meta: packdesk_model::error::Meta,
        data: &'a T,
    }
    match serde_json::to_string(&Envelope {
        meta: r.meta(),
        data: &r.data,
    }) {
        Ok(body) => json_response(StatusCode::OK, body),
        Err(e) => ApiError(ServiceError::internal(format!("an answer not written as JSON: {e}"))).into_response(),
    }
}

pub fn error(code: ErrorCode, path: &str, info: &str) -> Response {
    ApiError(ServiceError::at(code, path, info)).into_response()
}

fn json_response(status: StatusCode, body: String) -> Response {
    let mut r = (status, body).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json; charset=utf-8"),
    );
    r
}
