//! File links that work for whoever asked. The service writes records' file links on its base URL
//! (`--public-url`, else the listening address, or the host name when listening on every
//! address). A request that came to another address of this machine (a desk listening on
//! `0.0.0.0`, reached at `192.168.1.20`) gets links on that address instead, so a client can
//! always open what it is given. A Host header is trusted only when it names the base URL's own
//! host: any other name could be a rebinding attacker's.

use crate::connections::LocalAddr;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;
use packdesk_service::Service;
use std::sync::Arc;

/// The host and port of a base URL (`http://host:port/...` -> `host:port`).
fn authority(base: &str) -> &str {
    let rest = base.split_once("://").map_or(base, |(_, r)| r);
    rest.split('/').next().unwrap_or(rest)
}

/// The base this request's links should use, when it is not the service's own.
fn request_base(req: &Request, service_base: &str) -> Option<String> {
    let host = req.headers().get(header::HOST).and_then(|h| h.to_str().ok());
    if host.is_some_and(|h| h.eq_ignore_ascii_case(authority(service_base))) {
        return None;
    }
    let base = req.extensions().get::<LocalAddr>()?.base_url();
    (base != service_base).then_some(base)
}

/// Rewrites the file links of a JSON answer onto the address the request came to.
pub(crate) async fn for_the_request(State(s): State<Arc<Service>>, req: Request, next: Next) -> Response {
    let service_base = s.base_url().to_string();
    let Some(base) = request_base(&req, &service_base) else {
        return next.run(req).await;
    };
    let response = next.run(req).await;
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/json"));
    if !json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let text = String::from_utf8_lossy(&bytes);
    let from = format!("\"{service_base}/v3/files/");
    if !text.contains(&from) {
        return Response::from_parts(parts, Body::from(bytes));
    }
    let rewritten = text.replace(&from, &format!("\"{base}/v3/files/"));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(rewritten))
}

#[cfg(test)]
mod tests {
    use super::authority;

    #[test]
    fn the_authority_of_a_base_url() {
        assert_eq!(authority("http://127.0.0.1:4780"), "127.0.0.1:4780");
        assert_eq!(authority("https://desk.example/packdesk"), "desk.example");
        assert_eq!(authority("http://[::1]:80"), "[::1]:80");
    }
}
