//! The `Idempotency-Key` header on every POST of /v3 (see `packdesk_service::idempotency`): a
//! request sent again with its key answers the first answer, marked `Idempotent-Replayed: true`.

use crate::envelope::ApiError;
use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_service::idempotency::{Claim, RequestFingerprint};
use packdesk_service::keys::Env;
use packdesk_service::Service;
use std::sync::Arc;

/// The request's `Idempotency-Key`, for a handler whose work an upstream label service does (it
/// gets a key derived from this one, so a retry buys nothing twice there either).
#[derive(Debug, Clone)]
pub struct RequestKey(pub String);

pub async fn idempotent(State(s): State<Arc<Service>>, req: Request, next: Next) -> Response {
    if req.method() != Method::POST {
        return next.run(req).await;
    }
    let (Some(key), Some(env)) = (
        req.headers().get("idempotency-key"),
        req.extensions().get::<Env>().copied(),
    ) else {
        return next.run(req).await;
    };
    let key = match key.to_str() {
        Ok(k) => k.to_string(),
        Err(_) => {
            return ApiError(ServiceError::invalid(
                "headers.idempotency-key",
                "must be printable ASCII",
            ))
            .into_response()
        }
    };
    let (mut parts, body) = req.into_parts();
    parts.extensions.insert(RequestKey(key.clone()));
    let bytes = match to_bytes(body, crate::extract::MAX_BODY).await {
        Ok(b) => b,
        Err(_) => {
            return ApiError(ServiceError::at(
                ErrorCode::PayloadTooLarge,
                "",
                format!("the body is over {} bytes", crate::extract::MAX_BODY),
            ))
            .into_response()
        }
    };
    let path = parts.uri.path().to_string();
    let claim = {
        let (s, key, bytes) = (s.clone(), key.clone(), bytes.clone());
        tokio::task::spawn_blocking(move || s.claim_idempotent(env, &key, &RequestFingerprint::of(&path, &bytes))).await
    };
    match claim {
        Ok(Ok(Claim::Run)) => {}
        Ok(Ok(Claim::Replay(status, body))) => {
            let mut r = (StatusCode::from_u16(status).unwrap_or(StatusCode::OK), body).into_response();
            r.headers_mut().insert(
                "content-type",
                HeaderValue::from_static("application/json; charset=utf-8"),
            );
            r.headers_mut()
                .insert("idempotent-replayed", HeaderValue::from_static("true"));
            return r;
        }
        Ok(Err(e)) => return ApiError(e).into_response(),
        Err(_) => return ApiError(ServiceError::internal("the idempotency check failed unexpectedly")).into_response(),
    }
    let answer = next.run(Request::from_parts(parts, Body::from(bytes))).await;
    let (head, body) = answer.into_parts();
    let body = to_bytes(body, usize::MAX).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&body).to_string();
    // Keep every answer of a request that was carried out or refused for what it is; let the key go
    // after a transient failure (internal, retry, transport, or one an upstream label service
    // says is worth trying again), so sending it again runs it.
    let meta = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .map(|v| v["meta"].clone());
    let code = meta.as_ref().and_then(|m| m["code"].as_u64());
    let retryable = meta.as_ref().is_some_and(|m| m["retryable"] == true);
    let keep = head.status == StatusCode::OK && !retryable && !matches!(code, Some(4100) | Some(4101) | None);
    let status = head.status.as_u16();
    let _ = tokio::task::spawn_blocking(move || s.finish_idempotent(env, &key, keep, status, &text)).await;
    Response::from_parts(head, Body::from(body))
}
