//! Request extractors with the contract's errors. `ContractJson<T>` reads a JSON body as the
//! interface type `T` and, when it cannot, answers the envelope with the path of the first problem
//! (`meta.details[].path`), the way axum's own `Json` cannot.

use crate::envelope::ApiError;
use axum::body::{to_bytes, Bytes};
use axum::extract::{FromRequest, Request};
use axum::http::header;
use packdesk_model::{ErrorCode, ServiceError};
use serde::de::DeserializeOwned;

/// Largest request body accepted (a 50-parcel, 100-item-per-parcel label fits easily).
pub(crate) const MAX_BODY: usize = 8 * 1024 * 1024;

/// A JSON body read as `T` (UTF-8 only, at most `MAX_BODY` bytes).
pub struct ContractJson<T>(pub T);

/// Like `ContractJson`, but an empty body means `T::default()` (routes whose body is optional).
pub struct ContractJsonOrEmpty<T>(pub T);

/// The body's bytes, after the charset and size checks.
async fn body_bytes(req: Request) -> Result<Bytes, ApiError> {
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
    to_bytes(req.into_body(), MAX_BODY).await.map_err(|_| {
        ApiError(ServiceError::at(
            ErrorCode::PayloadTooLarge,
            "",
            format!("the body is over {MAX_BODY} bytes"),
        ))
    })
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ContractJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        let bytes = body_bytes(req).await?;
        packdesk_model::from_slice(&bytes).map(ContractJson).map_err(ApiError)
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
