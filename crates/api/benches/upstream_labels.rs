//! A label through an upstream label service: two real `packdesk-server`s on 127.0.0.1 (SQLite,
//! durable commits), the upstream and a desk whose Yodel sandbox account it serves. One
//! keep-alive client makes 1-parcel 4x6 labels, alternating rounds straight at the upstream and
//! through the desk (which checks the request, calls the upstream, downloads the label's PDF and
//! writes it whole); the desk's cost is the difference of the medians.
//! `cargo bench -p packdesk-api --bench upstream_labels`.

mod support;

use support::{label_body, percentiles, Conn, Server};

/// `n` labels of `account` one after another on `c`: their latencies.
fn labels(c: &mut Conn, key: &str, account: &str, n: usize) -> Vec<std::time::Duration> {
    let body = label_body(account, serde_json::json!({}));
    (0..n)
        .map(|_| {
            let t = std::time::Instant::now();
            let (code, text) = c.request("POST", "/v3/labels", key, &body);
            let took = t.elapsed();
            assert!(code == 200 && text.contains("\"code\":200"), "{text}");
            took
        })
        .collect()
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (per_round, rounds) = if full { (500, 3) } else { (20, 1) };
    let upstream = Server::start("upstream-bench-upstream");
    let desk = Server::start("upstream-bench-desk");
    let mut up = Conn::open(&upstream.addr);
    let mut at_desk = Conn::open(&desk.addr);
    let remote = upstream.yodel_account(&mut up);
    let body = serde_json::json!({
        "slug": "yodel", "description": "bench via upstream",
        "credentials": {"identity": "i", "password": "p", "account_number": "1"},
        "settings": {"connection": {
            "kind": "upstream", "base_url": format!("http://{}/v3", upstream.addr),
            "api_key": upstream.sandbox_key, "shipper_account_id": remote,
        }},
    });
    let (_, made) = at_desk.request("POST", "/v3/shipper-accounts", &desk.sandbox_key, &body.to_string());
    let made: serde_json::Value = serde_json::from_str(&made).unwrap();
    let account = made["data"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{made}"))
        .to_string();
    // Warm both (connections, statements, the font cache).
    labels(&mut up, &upstream.sandbox_key, &remote, 10);
    labels(&mut at_desk, &desk.sandbox_key, &account, 10);
    for round in 1..=rounds {
        let (d50, d99, _) = percentiles(&mut labels(&mut up, &upstream.sandbox_key, &remote, per_round));
        let (t50, t99, _) = percentiles(&mut labels(&mut at_desk, &desk.sandbox_key, &account, per_round));
        println!(
            "round {round}: {per_round} labels each; the upstream alone p50 {d50:.2} ms p99 {d99:.2} ms; through the desk p50 {t50:.2} ms p99 {t99:.2} ms; the desk adds {:.2} ms at p50",
            t50 - d50
        );
    }
}
