//! A close-out's data file to the carrier's SFTP server: the real `packdesk-server` on 127.0.0.1
//! (SQLite, durable commits), 1,000 one-parcel labels of one sandbox account, then
//! `POST /v3/manifests`; the time of the close-out's answer, and from the request until the
//! manifest says `sent` (the file renamed into place on Debian's OpenSSH server on loopback,
//! password login, host key checked). Three rounds. Needs root (it starts sshd).
//! `cargo bench -p packdesk-api --bench manifest_transmission`.

#[path = "../tests/it/sshd.rs"]
mod sshd;
mod support;

use std::time::{Duration, Instant};
use support::{label_body, post_labels, Conn, Server};

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (labels, rounds) = if full { (1_000, 3) } else { (40, 1) };
    let sshd = sshd::Sshd::start();
    let server = Server::start("transmission-bench");
    let (addr, key) = (server.addr.clone(), server.sandbox_key.clone());
    let mut c = Conn::open(&addr);
    for round in 1..=rounds {
        let account = server.yodel_account(&mut c);
        let mut t = sshd.transport();
        t["password"] = serde_json::json!(sshd.password);
        let (code, text) = c.request(
            "PUT",
            &format!("/v3/shipper-accounts/{account}"),
            &key,
            &serde_json::json!({"settings": {"manifest_transport": t}}).to_string(),
        );
        assert!(code == 200 && text.contains("\"code\":200"), "{text}");
        let body = label_body(&account, serde_json::json!({}));
        post_labels(
            None,
            std::slice::from_ref(&addr),
            &key,
            8,
            labels / 8,
            "\"code\":200",
            move |_, _| body.clone(),
        );

        let start = Instant::now();
        let (_, made) = c.request(
            "POST",
            "/v3/manifests",
            &key,
            &serde_json::json!({"shipper_account": {"id": account}}).to_string(),
        );
        let answered = start.elapsed();
        let made: serde_json::Value = serde_json::from_str(&made).unwrap();
        let id = made["data"]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{made}"))
            .to_string();
        let sent = loop {
            let (_, m) = c.request("GET", &format!("/v3/manifests/{id}"), &key, "");
            let m: serde_json::Value = serde_json::from_str(&m).unwrap();
            match m["data"]["transmission"]["status"].as_str() {
                Some("sent") => break start.elapsed(),
                Some("pending") if start.elapsed() < Duration::from_secs(60) => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                other => panic!("the transmission did not arrive: {other:?} {m}"),
            }
        };
        let lines = made["data"]["labels"].as_array().map_or(0, Vec::len);
        println!(
            "round {round}: close-out of {lines} labels answered in {:.0} ms; its data file on the SFTP server {:.0} ms after the request",
            answered.as_secs_f64() * 1e3,
            sent.as_secs_f64() * 1e3
        );
    }
}
