//! Accepting connections, each bounded in time and all of them in number: a client that opens
//! connections and sends nothing, or a byte every few seconds, must not hold the desk's
//! connections (or its memory) for as long as it likes.
//!
//! - a new connection must send a whole request head (request line and headers) within `head`;
//!   a later request's head, within `head` of its first byte;
//! - a keep-alive connection with no request under way is closed after `idle`;
//! - a request body that stalls for `body_stall` ends the request;
//! - at most `max` connections at once: one more is answered 503 (the envelope, retryable) and
//!   closed.
//!
//! HTTP/1.1 only (hyper's server, as axum's `serve` uses it), with the peer's and the local
//! address of each connection in the request (`ConnectInfo`, `LocalAddr`).
//!
//! With TLS (`tls`), a connection whose first byte opens a TLS handshake is served over TLS (its
//! handshake due within `head`); a plain one only from this machine. Plain HTTP from another
//! machine is answered 400 in words saying the https:// address to use, then closed.

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::Router;
use packdesk_model::{ErrorCode, ServiceError};
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};
use tower::ServiceExt;

/// The limits of `serve_with` (the defaults are what `packdesk-server` and the desktop app use).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConnectionLimits {
    pub head: Duration,
    pub idle: Duration,
    pub body_stall: Duration,
    pub max: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            head: Duration::from_secs(30),
            idle: Duration::from_secs(120),
            body_stall: Duration::from_secs(30),
            max: 1024,
        }
    }
}

/// The address a request came to (this machine's end of its connection), and whether over TLS.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalAddr {
    pub addr: SocketAddr,
    pub https: bool,
}

impl LocalAddr {
    /// The base URL of this end: `https://192.168.1.20:4780`.
    pub fn base_url(&self) -> String {
        let scheme = if self.https { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }
}

/// The first byte of a TLS connection: a handshake record.
const TLS_HANDSHAKE: u8 = 0x16;

/// Serves `app` on `listener` until `shutdown` resolves; then stops accepting, lets requests under
/// way finish and closes idle connections.
pub async fn serve_with(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: ConnectionLimits,
    tls: Option<Arc<crate::tls::Tls>>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let permits = Arc::new(tokio::sync::Semaphore::new(limits.max));
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let tracker = tokio_util::task::TaskTracker::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors or a connection reset before it was accepted: wait a
                    // moment rather than spin, and go on.
                    tracing::warn!(error = %e, "a connection could not be accepted");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            tracker.spawn(refuse(stream, limits.max));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let local = stream.local_addr().unwrap_or(peer);
        let app = app.clone();
        let stopping = stopping.clone();
        let tls = tls.clone();
        tracker.spawn(async move {
            let _permit = permit;
            let Some(tls) = tls else {
                let local = LocalAddr {
                    addr: local,
                    https: false,
                };
                return serve_one(stream, app, peer, local, limits, stopping).await;
            };
            // The first byte and the handshake share one deadline from the connection's start.
            let due = Instant::now() + limits.head;
            let mut first = [0u8; 1];
            let tls_first = match tokio::time::timeout_at(due, stream.peek(&mut first)).await {
                Ok(Ok(1)) => first[0] == TLS_HANDSHAKE,
                // Closed, failed or silent before its first byte.
                _ => return,
            };
            if tls_first {
                let accepted = tokio::time::timeout_at(due, tls.acceptor().accept(stream)).await;
                match accepted {
                    Ok(Ok(stream)) => {
                        let local = LocalAddr {
                            addr: local,
                            https: true,
                        };
                        serve_one(stream, app, peer, local, limits, stopping).await
                    }
                    Ok(Err(e)) => tracing::debug!(error = %e, %peer, "a TLS handshake failed"),
                    Err(_) => tracing::debug!(%peer, "a TLS handshake did not end in time"),
                }
            } else if crate::tls::is_network(local.ip()) {
                refuse_plain(stream, local).await
            } else {
                let local = LocalAddr {
                    addr: local,
                    https: false,
                };
                serve_one(stream, app, peer, local, limits, stopping).await
            }
        });
    }
    drop(listener);
    let _ = stop.send(true);
    tracker.close();
    tracker.wait().await;
    Ok(())
}

/// Serves the requests of one connection (plain or TLS) until it ends or the server stops.
async fn serve_one<S>(
    stream: S,
    app: Router,
    peer: SocketAddr,
    local: LocalAddr,
    limits: ConnectionLimits,
    mut stopping: tokio::sync::watch::Receiver<bool>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = hyper::service::service_fn(move |mut req: hyper::Request<hyper::body::Incoming>| {
        req.extensions_mut().insert(ConnectInfo(peer));
        req.extensions_mut().insert(local);
        lower_case_ids(req.uri_mut());
        let req = req.map(|b| Body::new(tower_http::timeout::TimeoutBody::new(limits.body_stall, b)));
        app.clone().oneshot(req)
    });
    let io = hyper_util::rt::TokioIo::new(Deadlines::new(stream, limits));
    let conn = hyper::server::conn::http1::Builder::new().serve_connection(io, service);
    tokio::pin!(conn);
    let ended = tokio::select! {
        ended = conn.as_mut() => ended,
        _ = async { stopping.wait_for(|s| *s).await.is_ok() } => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(e) = ended {
        tracing::debug!(error = %e, %peer, "connection ended");
    }
}

/// Ids in the path and the query in the lower case they are issued in, before routing: a record
/// is found whatever the case of its id's hex digits (bodies are read so by the contract).
fn lower_case_ids(uri: &mut axum::http::Uri) {
    use packdesk_model::contract::lower_case_uuid;
    let Some(pq) = uri.path_and_query() else { return };
    if !pq.as_str().bytes().any(|b| b.is_ascii_uppercase()) {
        return;
    }
    let path: Vec<String> = pq
        .path()
        .split('/')
        .map(|seg| lower_case_uuid(seg).unwrap_or_else(|| seg.to_string()))
        .collect();
    let mut rewritten = path.join("/");
    if let Some(q) = pq.query() {
        let pairs: Vec<String> = q
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((k, v)) => format!("{k}={}", lower_case_uuid(v).unwrap_or_else(|| v.to_string())),
                None => pair.to_string(),
            })
            .collect();
        rewritten = format!("{rewritten}?{}", pairs.join("&"));
    }
    if rewritten != pq.as_str() {
        let mut parts = uri.clone().into_parts();
        if let Ok(pq) = rewritten.parse() {
            parts.path_and_query = Some(pq);
            if let Ok(u) = axum::http::Uri::from_parts(parts) {
                *uri = u;
            }
        }
    }
}

/// One connection over the limit: told so in the interface's words, then closed.
async fn refuse(stream: TcpStream, max: usize) {
    let said = ServiceError::at(
        ErrorCode::InternalRetry,
        "",
        format!("this desk is serving {max} connections, its most at once; try again in a moment"),
    );
    answer_and_close(stream, "503 Service Unavailable", "retry-after: 1\r\n", said).await
}

/// Plain HTTP from another machine to a desk serving HTTPS: the address to use, then closed.
async fn refuse_plain(stream: TcpStream, local: SocketAddr) {
    let url = LocalAddr {
        addr: local,
        https: true,
    }
    .base_url();
    let said = ServiceError::at(
        ErrorCode::InvalidRequest,
        "",
        format!("this desk answers other machines over HTTPS only: use {url}/ (its certificate is in the desk's Settings, Integrations)"),
    );
    answer_and_close(stream, "400 Bad Request", "", said).await
}

/// Writes one whole answer outside hyper (the connection is not served) and closes.
async fn answer_and_close(mut stream: TcpStream, status: &str, headers: &str, said: ServiceError) {
    let body = said.envelope().to_string();
    let answer = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json; charset=utf-8\r\n\
         content-length: {}\r\n{headers}connection: close\r\n\r\n{body}",
        body.len()
    );
    let send = async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await?;
        // What the client sent is read before the socket closes: closed with unread bytes, it
        // would be reset, and the client could lose the answer.
        let mut sink = [0u8; 4096];
        let mut left = 64 * 1024;
        while left > 0 {
            match stream.read(&mut sink).await? {
                0 => break,
                n => left -= n.min(left),
            }
        }
        Ok::<_, io::Error>(())
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), send).await;
}

/// Where a connection is between requests, as its bytes show.
#[derive(Debug, Clone, Copy)]
enum Phase {
    /// No request under way since this instant (the last answer written).
    Idle(Instant),
    /// A request head began at this instant (or the connection was opened); `tail` holds its
    /// last bytes read, to find its end.
    Head(Instant, u32),
    /// The head is complete: the body, the handler, the answer. Body stalls end the body
    /// (`TimeoutBody`); a handler takes the time it needs.
    Busy,
}

/// A connection's stream that fails a read waiting past its phase's deadline (`head` after a
/// head's first byte, `idle` after the last answer), which closes the connection.
struct Deadlines<S> {
    io: S,
    phase: Phase,
    limits: ConnectionLimits,
    timer: Pin<Box<Sleep>>,
    armed: Option<Instant>,
}

impl<S> Deadlines<S> {
    fn new(io: S, limits: ConnectionLimits) -> Self {
        let now = Instant::now();
        Deadlines {
            io,
            // A connection is opened to send a request: its head is due from the start.
            phase: Phase::Head(now, 0),
            limits,
            timer: Box::pin(tokio::time::sleep_until(now)),
            armed: None,
        }
    }

    /// Follows the request head through the bytes read: its end is the first empty line.
    fn read(&mut self, bytes: &[u8]) {
        let (started, mut tail) = match self.phase {
            Phase::Busy => return,
            Phase::Idle(_) => (Instant::now(), 0),
            Phase::Head(started, tail) => (started, tail),
        };
        for &b in bytes {
            tail = (tail << 8) | b as u32;
            if tail == u32::from_be_bytes(*b"\r\n\r\n") || tail & 0xffff == u32::from(u16::from_be_bytes(*b"\n\n")) {
                self.phase = Phase::Busy;
                return;
            }
        }
        self.phase = Phase::Head(started, tail);
    }

    /// Sets the timer to the phase's deadline, its wake-up going to `cx`'s task: Ready when the
    /// deadline has passed. The task must be woken then even if hyper is not reading (after an
    /// answer it waits for the socket alone), so both reads and writes arm it.
    fn arm(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some(deadline) = self.deadline() else {
            return Poll::Pending;
        };
        if self.armed != Some(deadline) {
            self.timer.as_mut().reset(deadline);
            self.armed = Some(deadline);
        }
        self.timer.as_mut().poll(cx)
    }

    fn deadline(&self) -> Option<Instant> {
        match self.phase {
            Phase::Idle(since) => Some(since + self.limits.idle),
            Phase::Head(started, _) => Some(started + self.limits.head),
            Phase::Busy => None,
        }
    }
}

fn timed_out(phase: Phase) -> io::Error {
    let what = match phase {
        Phase::Head(..) => "the request head did not arrive in time",
        _ => "the connection was idle too long",
    };
    io::Error::new(io::ErrorKind::TimedOut, what)
}

impl<S: AsyncRead + Unpin> AsyncRead for Deadlines<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.io).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                this.read(&buf.filled()[before..]);
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => match this.arm(cx) {
                Poll::Ready(()) => Poll::Ready(Err(timed_out(this.phase))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Deadlines<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let written = Pin::new(&mut this.io).poll_write(cx, buf);
        // An answer (not an interim `100 Continue`) ends the request: the idle time starts.
        if matches!(written, Poll::Ready(Ok(n)) if n > 0) && !buf.starts_with(b"HTTP/1.1 1") {
            this.phase = Phase::Idle(Instant::now());
            // Only to be woken at the deadline: the read that follows reports it.
            let _ = this.arm(cx);
        }
        written
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_head_ends_at_its_empty_line_even_across_reads() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = tokio::spawn(async move { TcpStream::connect(addr).await.unwrap() });
        let (server, _) = listener.accept().await.unwrap();
        let _client = client.await.unwrap();
        let mut d = Deadlines::new(server, ConnectionLimits::default());
        assert!(matches!(d.phase, Phase::Head(..)), "a new connection owes a head");
        d.read(b"GET / HTTP/1.1\r\nHost: x\r\n\r");
        assert!(matches!(d.phase, Phase::Head(..)));
        d.read(b"\n");
        assert!(matches!(d.phase, Phase::Busy));
        assert_eq!(d.deadline(), None);
    }
}
