//! Request extractors with the contract's errors. `ContractJson<T>` reads a JSON body as the
//! interface type `T` and, when it cannot, answers the envelope with the path of the first problem
//! (`meta.details[].path`), the way axum's own `Json` cannot.

use crate::envelope::ApiError;
use axum::body::{to_bytes, Bytes};
use axum::extract::{FromRequest, FromRequestParts, Query, Request};
use axum::http::header;
use axum::http::request::Parts;
use packdesk_model::{ErrorCode, ServiceError};
use serde::de::DeserializeOwned;

/// Largest request body accepted (a 50-parcel, 100-item-per-parcel label fits easily).
pub(crate) const MAX_BODY: usize = 8 * 1024 * 1024;

/// A JSON body read as `T` (UTF-8 only, at most `MAX_BODY` bytes).
pub struct ContractJson<T>(pub T);

/// Like `ContractJson`, but an empty body means `T::default()` (routes whose body is optional).
pub struct ContractJsonOrEmpty<T>(pub T);

/// Why a body's `Content-Type` is not JSON in UTF-8, if it is not: the media type must be
/// `application/json`, with at most a `charset=utf-8` parameter.
fn content_type_problem(ct: Option<&header::HeaderValue>) -> Option<String> {
    const SEND: &str = "send Content-Type: application/json (optionally with charset=utf-8)";
    let Some(ct) = ct else {
        return Some(format!("is missing; {SEND}"));
    };
    let ct = ct.to_str().unwrap_or("").to_ascii_lowercase();
    let mut parts = ct.split(';');
    let media = parts.next().unwrap_or("").trim();
    if media != "application/json" {
        return Some(format!("`{media}` is not JSON; {SEND}"));
    }
    for param in parts.map(str::trim).filter(|p| !p.is_empty()) {
        match param.strip_prefix("charset=").map(|cs| cs.trim_matches('"')) {
            Some("utf-8" | "utf8") => {}
            Some(cs) => {
                return Some(format!(
                    "charset `{cs}` is not supported; send UTF-8 (application/json; charset=utf-8)"
                ))
            }
            None => return Some(format!("the parameter `{param}` is not taken; {SEND}")),
        }
    }
    None
}

/// The body's bytes, after the size check and, when there is a body, the Content-Type check.
async fn body_bytes(req: Request) -> Result<Bytes, ApiError> {
    let problem = content_type_problem(req.headers().get(header::CONTENT_TYPE));
    let bytes = to_bytes(req.into_body(), MAX_BODY).await.map_err(|_| {
        ApiError(ServiceError::at(
            ErrorCode::PayloadTooLarge,
            "",
            format!("the body is over {MAX_BODY} bytes"),
        ))
    })?;
    match problem {
        // An empty body says nothing of its type (routes whose body is optional take none).
        Some(why) if !bytes.iter().all(u8::is_ascii_whitespace) => {
            Err(ApiError(ServiceError::invalid("headers.content-type", why)))
        }
        _ => Ok(bytes),
    }
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ContractJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        let reading = std::time::Instant::now();
        let bytes = body_bytes(req).await?;
        let parsed = packdesk_model::from_slice(&bytes).map(ContractJson).map_err(ApiError);
        crate::server_timing::spent(packdesk_service::timing::Phase::Parse, reading.elapsed());
        parsed
    }
}

impl<S: Send + Sync, T: DeserializeOwned + Default> FromRequest<S> for ContractJsonOrEmpty<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        let bytes = body_bytes(req).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(ContractJsonOrEmpty(T::default()));
        }
        packdesk_model::from_slice(&bytes)
            .map(ContractJsonOrEmpty)
            .map_err(ApiError)
    }
}

/// A query string read as `T`; one that is not (a word where a number belongs) is refused with the
/// contract's 4104 at `query`, saying why.
pub struct ContractQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ContractQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(q)| ContractQuery(q))
            .map_err(|e| ApiError(ServiceError::invalid("query", e.body_text())))
    }
}
