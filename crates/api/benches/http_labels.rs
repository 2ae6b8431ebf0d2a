//! Sync label creation over HTTP: the real `packdesk-server` binary on 127.0.0.1, 8 concurrent
//! clients on keep-alive connections, 1-parcel 4x6 PDF labels. `cargo bench -p packdesk-api --bench http_labels`.
//! Prints labels/s and latency p50/p99. `-- --named-key`: the calls carry a named integration key
//! (sandbox, scope `labels`) instead of the sandbox key, to see what its scope check costs.
//! `-- --backup-during`: `packdesk-server backup` runs again and again on the desk's data folder
//! while the labels are made, to see what a backup costs the desk's latency.

mod support;
use std::time::{Duration, Instant};
use support::{label_body, percentiles, post_labels, Conn, Server};

const CLIENTS: usize = 8;

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let per_client = if full { 1500 } else { 20 };
    let server = Server::start("bench");
    let mut c = Conn::open(&server.addr);
    let key = match std::env::args().any(|a| a == "--named-key") {
        false => server.sandbox_key.clone(),
        true => {
            let body = r#"{"name":"bench","environment":"sandbox","scopes":["labels"]}"#;
            let (_, made) = c.request("POST", "/desk/api-keys", &server.live_key, body);
            let made: serde_json::Value = serde_json::from_str(&made).unwrap();
            made["data"]["key"].as_str().expect("a named key").to_string()
        }
    };
    let addr = server.addr.clone();
    let id = server.yodel_account(&mut c);
    let body = label_body(&id, serde_json::json!({}));
    // Warm-up.
    for _ in 0..50 {
        assert_eq!(c.request("POST", "/v3/labels", &key, &body).0, 200);
    }
    let backups = std::env::args()
        .any(|a| a == "--backup-during")
        .then(|| server.backup_loop());
    let start = Instant::now();
    let answers = post_labels(&[addr], &key, CLIENTS, per_client, "\"code\":200", move |_, _| {
        body.clone()
    });
    let mut lat: Vec<Duration> = answers.into_iter().map(|(t, _)| t).collect();
    let wall = start.elapsed();
    if let Some((stop, made)) = backups {
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        println!("backups made while the labels were: {}", made.join().unwrap());
    }
    let n = lat.len();
    let (p50, p99, max) = percentiles(&mut lat);
    println!(
        "POST /v3/labels  {CLIENTS} clients  {n} labels in {:.2} s  =  {:.0} labels/s   p50 {p50:.2} ms   p99 {p99:.2} ms   max {max:.2} ms",
        wall.as_secs_f64(),
        n as f64 / wall.as_secs_f64(),
    );
}
