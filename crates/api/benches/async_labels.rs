//! Async acceptance and work-off over HTTP: the real `packdesk-server` on 127.0.0.1, 8 clients on
//! keep-alive connections send a burst of 10,000 async 1-parcel 4x6 PDF labels over 4 shipper
//! accounts; every answer must be 3001 (none refused). Then the time until the worker pool has
//! made every label and the dispatcher has delivered every create_a_label webhook to a receiver
//! on 127.0.0.1. `cargo bench -p packdesk-api --bench async_labels`.

#[path = "../../service/tests/it/common/receiver.rs"]
mod receiver;
mod support;

use std::time::{Duration, Instant};
use support::{label_body, percentiles, post_labels, Conn, Server};

const CLIENTS: usize = 8;
const ACCOUNTS: usize = 4;

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let total = if full { 10_000 } else { 200 };
    let server = Server::start("async-bench");
    let (addr, key) = (server.addr.clone(), server.sandbox_key.clone());
    let rx = receiver::Receiver::ok();
    let mut c = Conn::open(&addr);
    support::webhooks_to(&mut c, &key, &rx.url);
    let bodies: Vec<String> = (0..ACCOUNTS)
        .map(|_| label_body(&server.yodel_account(&mut c), serde_json::json!({"async": true})))
        .collect();
    let start = Instant::now();
    let answers = post_labels(
        None,
        &[addr],
        &key,
        CLIENTS,
        total / CLIENTS,
        "\"code\":3001",
        move |c, i| bodies[(c + i) % ACCOUNTS].clone(),
    );
    let mut lat: Vec<Duration> = answers.into_iter().map(|a| a.took).collect();
    let accepted = start.elapsed();
    let n = lat.len();
    let (p50, p99, max) = percentiles(&mut lat);
    assert!(rx.wait_for(n, 600), "only {} of {n} webhooks arrived", rx.posts());
    let all_done = start.elapsed();
    println!(
        "async POST /v3/labels  {CLIENTS} clients  {n} accepted (3001) in {:.2} s = {:.0}/s   p50 {p50:.2} ms   p99 {p99:.2} ms   max {max:.2} ms",
        accepted.as_secs_f64(),
        n as f64 / accepted.as_secs_f64()
    );
    println!(
        "  all {n} labels created and their webhooks delivered {:.2} s after the first request = {:.0} labels/s end to end",
        all_done.as_secs_f64(),
        n as f64 / all_done.as_secs_f64()
    );
}
