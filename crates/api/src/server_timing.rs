//! The `Server-Timing` header of every interface answer (issue 42): where the request's time went
//! (`packdesk_store::timing`'s phases: auth, parse, queue, check, reserve, render, lock, write,
//! checkpoint, commit, sync, answer) and its `total`. A browser's developer tools show it; the benchmarks
//! read it to find where a slow label spent its time.

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use packdesk_service::timing::{Phase, Phases};
use std::cell::RefCell;
use std::time::{Duration, Instant};

tokio::task_local! {
    /// The phases of the request this task serves.
    static REQUEST: RefCell<Phases>;
}

/// Times the request and writes the header on its answer.
pub(crate) async fn layer(req: Request, next: Next) -> Response {
    let started = Instant::now();
    REQUEST
        .scope(RefCell::new(Phases::default()), async move {
            let mut res = next.run(req).await;
            let header = REQUEST.with(|p| p.borrow().header(started.elapsed()));
            if let Ok(v) = HeaderValue::from_str(&header) {
                res.headers_mut().insert("server-timing", v);
            }
            res
        })
        .await
}

/// Counts `d` as `phase` of this task's request (nothing outside a request).
pub(crate) fn spent(phase: Phase, d: Duration) {
    let _ = REQUEST.try_with(|p| p.borrow_mut().add(phase, d));
}

/// Adds what a service call spent on its blocking thread.
pub(crate) fn merge(phases: &Phases) {
    let _ = REQUEST.try_with(|p| p.borrow_mut().merge(phases));
}

/// Runs `f` (on this task) and counts its time as `phase`.
pub(crate) fn time<T>(phase: Phase, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    spent(phase, start.elapsed());
    out
}
