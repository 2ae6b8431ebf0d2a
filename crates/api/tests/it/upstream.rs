//! An account served by an upstream label service. The upstream is a second real
//! `packdesk-server` started here (it speaks the same `/v3`); between the desk and it, where a
//! slow network is needed, stands a TCP relay of the test's own that can hold the upstream's
//! answers back.

use crate::support::*;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A desk account of `desk` whose labels `upstream` makes (through `base`, the upstream's
/// address or a relay's), with the timeout given.
fn connected_account(desk: &Server, upstream: &Server, base: &str, timeout_s: u64) -> (String, String) {
    let remote = yodel_account(upstream);
    let body = json!({
        "slug": "yodel",
        "description": "Yodel via the head office",
        "credentials": {"identity": "i", "password": "p", "account_number": "1"},
        "timezone": "Europe/London",
        "settings": {"connection": {
            "kind": "upstream",
            "base_url": format!("{base}/v3"),
            "api_key": upstream.sandbox,
            "shipper_account_id": remote,
            "timeout_s": timeout_s,
        }},
    });
    let made = desk.sandbox_ok("POST", "/v3/shipper-accounts", Some(&body));
    let connection = &made["settings"]["connection"];
    assert_eq!(connection["api_key_set"], true, "{made}");
    assert!(connection.get("api_key").is_none(), "the key is never answered: {made}");
    assert!(
        !made.to_string().contains(&upstream.sandbox),
        "the key appears nowhere in the record"
    );
    (made["id"].as_str().unwrap().to_string(), remote)
}

/// The labels of `account` at `server`, newest first.
fn labels_of(server: &Server, account: &str) -> Vec<Value> {
    let all = server.sandbox_ok("GET", "/v3/labels?limit=200", None);
    all["labels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["shipper_account"]["id"] == account)
        .cloned()
        .collect()
}

fn document(server: &Server, label: &Value) -> Vec<u8> {
    server
        .download(label["files"]["label"]["url"].as_str().unwrap(), &server.sandbox)
        .1
}

#[test]
fn a_label_made_at_the_desk_is_made_upstream_and_kept_whole_at_the_desk() {
    let upstream = Server::start();
    let desk = Server::start();
    let (account, remote) = connected_account(&desk, &upstream, &upstream.base, 30);

    let test = desk.sandbox_ok(
        "POST",
        &format!("/desk/shipper-accounts/{account}/test-connection"),
        None,
    );
    assert_eq!(test["ok"], true, "{test}");
    assert!(test["message"].as_str().unwrap().contains("Connected to"), "{test}");

    // The desk's own Yodel account draws the same sandbox sample range as the upstream's: the
    // upstream's numbers are its own, and both labels are kept.
    let own = yodel_account(&desk);
    let mine = desk.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&own, 1)));

    let label = desk.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 2)));
    let numbers = tracking_numbers(&label);
    assert_eq!(numbers.len(), 2);
    assert!(
        numbers.contains(&tracking_numbers(&mine)[0]),
        "the same sample numbers: {numbers:?}"
    );
    // Found by number: the desk's own and the upstream's.
    let found = desk.sandbox_ok("GET", &format!("/v3/labels?tracking_numbers={}", numbers[0]), None);
    assert_eq!(found["labels"].as_array().map(Vec::len), Some(2), "{found}");
    assert_eq!(
        label["shipper_account"]["id"], account,
        "the desk's record names the desk's account"
    );
    assert_eq!(label["rate"]["shipper_account"]["id"], account, "{label}");

    let there = labels_of(&upstream, &remote);
    assert_eq!(there.len(), 1, "one label upstream");
    assert_eq!(tracking_numbers(&there[0]), numbers, "the upstream's numbers");
    assert_eq!(
        document(&desk, &label),
        document(&upstream, &there[0]),
        "the desk keeps the upstream's document byte for byte"
    );

    // Cancel at the desk: cancelled upstream too.
    let second = desk.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    desk.sandbox_ok(
        "POST",
        "/v3/cancel-labels",
        Some(&json!({"label": {"id": second["id"]}})),
    );
    let there = labels_of(&upstream, &remote);
    let cancelled: Vec<&Value> = there.iter().filter(|l| l["status"] == "cancelled").collect();
    assert_eq!(cancelled.len(), 1, "{there:?}");
    assert_eq!(tracking_numbers(cancelled[0]), tracking_numbers(&second));

    // Close-out at the desk: the upstream's label is manifested there as here.
    let manifest = desk.sandbox_ok(
        "POST",
        "/v3/manifests",
        Some(&json!({"shipper_account": {"id": account}})),
    );
    assert_eq!(manifest["labels"].as_array().map(Vec::len), Some(1), "{manifest}");
    let there = labels_of(&upstream, &remote);
    let first = there.iter().find(|l| tracking_numbers(l) == numbers).unwrap();
    assert_eq!(first["status"], "manifested", "{first}");
    let here = desk.sandbox_ok("GET", &format!("/v3/labels/{}", label["id"].as_str().unwrap()), None);
    assert_eq!(here["status"], "manifested");

    // Rates come from the upstream, naming the desk's account.
    let rates = desk.sandbox_ok(
        "POST",
        "/v3/rates",
        Some(&json!({"shipper_accounts": [{"id": account}], "shipment": yodel_label(&account, 1)["shipment"]})),
    );
    let entries = rates["rates"].as_array().unwrap();
    assert!(
        !entries.is_empty()
            && entries
                .iter()
                .all(|r| r["shipper_account"]["id"] == account && r["total_charge"].is_object()),
        "{rates}"
    );
}

#[test]
fn an_upstream_that_is_gone_is_a_retryable_error_and_the_history_still_works() {
    let mut upstream = Server::start();
    let desk = Server::start();
    let (account, _) = connected_account(&desk, &upstream, &upstream.base, 30);
    let label = desk.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    upstream.kill();

    let (status, answer) = desk.call("POST", "/v3/labels", &desk.sandbox, Some(&yodel_label(&account, 1)));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["meta"]["code"], 4101, "{answer}");
    assert_eq!(answer["meta"]["retryable"], true, "{answer}");
    let info = answer["meta"]["details"][0]["info"].as_str().unwrap();
    assert!(
        info.contains("cannot be reached") && info.contains(&upstream.base),
        "plain words naming the upstream: {info}"
    );
    assert_eq!(labels_of(&desk, &account).len(), 1, "nothing saved");

    // History opens and reprints what the upstream made, without it.
    let again = desk.sandbox_ok("GET", &format!("/v3/labels/{}", label["id"].as_str().unwrap()), None);
    let pdf = document(&desk, &again);
    assert!(pdf.starts_with(b"%PDF"), "the stored document");
}

#[test]
fn the_upstreams_refusal_comes_back_as_it_gave_it() {
    let upstream = Server::start();
    let desk = Server::start();
    let (account, remote) = connected_account(&desk, &upstream, &upstream.base, 30);
    // Disabled at the upstream: the desk accepts the request, the upstream refuses it.
    upstream.sandbox_ok(
        "PUT",
        &format!("/v3/shipper-accounts/{remote}"),
        Some(&json!({"status": "disabled"})),
    );
    let (_, direct) = upstream.call("POST", "/v3/labels", &upstream.sandbox, Some(&yodel_label(&remote, 1)));
    let (_, relayed) = desk.call("POST", "/v3/labels", &desk.sandbox, Some(&yodel_label(&account, 1)));
    assert_eq!(
        relayed["meta"], direct["meta"],
        "code, message, details and retryable as the upstream said"
    );
    assert!(labels_of(&desk, &account).is_empty(), "nothing saved");

    // A wrong key is the upstream's 401, answered with 200 and words on what to do.
    desk.sandbox_ok(
        "PUT",
        &format!("/v3/shipper-accounts/{account}"),
        Some(&json!({"settings": {"connection": {"kind": "upstream", "base_url": format!("{}/v3", upstream.base), "api_key": "wrong", "shipper_account_id": remote}}})),
    );
    let (status, refused) = desk.call("POST", "/v3/labels", &desk.sandbox, Some(&yodel_label(&account, 1)));
    assert_eq!(
        (status, refused["meta"]["code"].as_i64()),
        (200, Some(401)),
        "{refused}"
    );
    assert!(
        refused["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("API key"),
        "{refused}"
    );
    let test = desk.sandbox_ok(
        "POST",
        &format!("/desk/shipper-accounts/{account}/test-connection"),
        None,
    );
    assert_eq!(test["ok"], false, "{test}");
}

#[test]
fn a_connection_is_checked_and_its_key_kept_only_for_the_same_service() {
    let desk = Server::start();
    let account = yodel_account(&desk);
    let put = |connection: Value| {
        desk.call(
            "PUT",
            &format!("/v3/shipper-accounts/{account}"),
            &desk.sandbox,
            Some(&json!({"settings": {"connection": connection}})),
        )
        .1
    };
    let bad = put(json!({"kind": "upstream", "base_url": "http://labels.example.com/v3", "shipper_account_id": ""}));
    let paths = detail_paths(&bad);
    for p in [
        "settings.connection.base_url",
        "settings.connection.shipper_account_id",
        "settings.connection.api_key",
    ] {
        assert!(paths.contains(&p), "{p} in {bad}");
    }
    let good = json!({"kind": "upstream", "base_url": "https://labels.example.com/v3", "api_key": "k1", "shipper_account_id": "a"});
    assert_eq!(put(good)["data"]["settings"]["connection"]["api_key_set"], true);
    // The same service: the key stays when left out.
    let same = put(json!({"kind": "upstream", "base_url": "https://labels.example.com/v3", "shipper_account_id": "b"}));
    assert_eq!(same["data"]["settings"]["connection"]["api_key_set"], true, "{same}");
    // Another service never gets it.
    let other = put(json!({"kind": "upstream", "base_url": "https://other.example.com/v3", "shipper_account_id": "b"}));
    assert_eq!(detail_paths(&other), vec!["settings.connection.api_key"], "{other}");
    // Back to this desk's own ranges.
    let own = put(json!({"kind": "self_print"}));
    assert!(own["data"]["settings"].get("connection").is_none(), "{own}");
}

/// A TCP relay to `to` that, while `slow` is set, holds each answer back `delay` before passing it.
fn relay(to: String, slow: Arc<AtomicBool>, delay: Duration) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let at = format!("http://{}", l.local_addr().unwrap());
    let to = to.trim_start_matches("http://").to_string();
    std::thread::spawn(move || {
        for client in l.incoming().flatten() {
            let Ok(server) = TcpStream::connect(&to) else { continue };
            let (mut c_in, mut s_out) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut c_in, &mut s_out);
            });
            let (mut s_in, mut c_out) = (server, client);
            let slow = slow.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 16384];
                while let Ok(n) = s_in.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    if slow.load(Ordering::SeqCst) {
                        std::thread::sleep(delay);
                    }
                    if c_out.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            });
        }
    });
    at
}

#[test]
fn a_slow_upstream_times_out_and_the_retry_with_the_same_key_buys_one_label() {
    let upstream = Server::start();
    let desk = Server::start();
    let slow = Arc::new(AtomicBool::new(true));
    let via = relay(upstream.base.clone(), slow.clone(), Duration::from_secs(3));
    let (account, remote) = connected_account(&desk, &upstream, &via, 1);

    let send = || {
        let resp = reqwest::blocking::Client::new()
            .post(desk.url("/v3/labels"))
            .header("service-api-key", &desk.sandbox)
            .header("idempotency-key", "order-4711-attempt")
            .header("content-type", "application/json")
            .body(yodel_label(&account, 1).to_string())
            .send()
            .unwrap();
        resp.json::<Value>().unwrap()
    };
    let first = send();
    assert_eq!(first["meta"]["code"], 4101, "{first}");
    assert_eq!(first["meta"]["retryable"], true, "{first}");
    let info = first["meta"]["details"][0]["info"].as_str().unwrap();
    assert!(info.contains("did not answer within 1 s"), "{info}");
    assert!(labels_of(&desk, &account).is_empty(), "nothing saved at the desk");
    // The upstream made it meanwhile; the desk's retry meets that label instead of buying another.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(labels_of(&upstream, &remote).len(), 1, "the upstream made the first");

    slow.store(false, Ordering::SeqCst);
    let second = send();
    assert_eq!(second["meta"]["code"], 200, "{second}");
    let there = labels_of(&upstream, &remote);
    assert_eq!(there.len(), 1, "one label upstream: {there:?}");
    assert_eq!(tracking_numbers(&second["data"]), tracking_numbers(&there[0]));
    assert_eq!(labels_of(&desk, &account).len(), 1);
}

#[test]
fn an_async_label_is_made_upstream_inside_its_job() {
    let upstream = Server::start();
    let desk = Server::start();
    let (account, remote) = connected_account(&desk, &upstream, &upstream.base, 30);
    let mut body = yodel_label(&account, 1);
    body["async"] = json!(true);
    let (_, accepted) = desk.call("POST", "/v3/labels", &desk.sandbox, Some(&body));
    assert_eq!(accepted["meta"]["code"], 3001, "{accepted}");
    let id = accepted["data"]["id"].as_str().unwrap().to_string();
    let end = std::time::Instant::now() + Duration::from_secs(20);
    let label = loop {
        let l = desk.sandbox_ok("GET", &format!("/v3/labels/{id}"), None);
        if l["status"] != "creating" || std::time::Instant::now() > end {
            break l;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(label["status"], "created", "{label}");
    let there = labels_of(&upstream, &remote);
    assert_eq!(there.len(), 1);
    assert_eq!(tracking_numbers(&there[0]), tracking_numbers(&label));
}

#[test]
fn an_order_shipped_at_the_desk_again_after_a_timeout_buys_one_label_upstream() {
    let upstream = Server::start();
    let desk = Server::start();
    let slow = Arc::new(AtomicBool::new(true));
    let via = relay(upstream.base.clone(), slow.clone(), Duration::from_secs(3));
    let (account, remote) = connected_account(&desk, &upstream, &via, 1);
    let preset = json!({"name": "UK", "shipper_account": {"id": account}, "service_type": "yodel_std",
        "ship_from": address("Sender Co", "GBR", "E16 2AA"), "is_default": true});
    desk.sandbox_ok("POST", "/desk/presets", Some(&preset));
    let saved = desk.sandbox_ok(
        "POST",
        "/desk/orders",
        Some(&json!({"order_number": "SO-1", "ship_to": address("Jane Doe", "GBR", "M1 1AE"), "weight": {"value": 1, "unit": "kg"}})),
    );
    let id = saved["orders"][0]["id"].as_str().unwrap().to_string();
    let ship = || {
        desk.call(
            "POST",
            &format!("/desk/orders/{id}/ship"),
            &desk.sandbox,
            Some(&json!({})),
        )
        .1
    };

    let first = ship();
    assert_eq!(first["meta"]["retryable"], true, "{first}");
    let order = desk.sandbox_ok("GET", &format!("/desk/orders/{id}"), None);
    assert_eq!(order["status"], "open", "not shipped while the upstream did not answer");
    std::thread::sleep(Duration::from_millis(500));
    slow.store(false, Ordering::SeqCst);
    // The packer scans it again: the label the upstream made meanwhile, not a second one.
    let second = ship();
    assert_eq!(second["meta"]["code"], 200, "{second}");
    let there = labels_of(&upstream, &remote);
    assert_eq!(there.len(), 1, "one label upstream: {there:?}");
    assert_eq!(tracking_numbers(&second["data"]["label"]), tracking_numbers(&there[0]));
    let order = desk.sandbox_ok("GET", &format!("/desk/orders/{id}"), None);
    assert_eq!(order["status"], "shipped", "{order}");
}
