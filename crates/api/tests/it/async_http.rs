//! Async mode over real HTTP against the `packdesk-server` binary: 3001 answers, the desk's webhook
//! routes and command, and a SIGKILL in the middle of 1,000 async labels.

use crate::receiver;
use crate::support;

use receiver::Receiver;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::*;

fn async_label(account: &str, order: Option<String>) -> Value {
    let mut body = yodel_label(account, 1);
    body["async"] = json!(true);
    if let Some(o) = order {
        body["order_number"] = json!(o);
    }
    body
}

/// Every label of the sandbox, paging through `GET /v3/labels`.
fn all_labels(s: &Server, status: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut token = String::new();
    loop {
        let path = format!("/v3/labels?limit=200&status={status}&created_at_min=2000-01-01&next_token={token}");
        let d = s.sandbox_ok("GET", &path, None);
        out.extend(d["labels"].as_array().unwrap().iter().cloned());
        match d["next_token"].as_str() {
            Some(t) => token = t.to_string(),
            None => return out,
        }
    }
}

#[test]
fn async_requests_answer_3001_and_the_desk_routes_show_the_webhook_log() {
    let s = Server::start();
    let rx = Receiver::ok();
    let set = s.sandbox_ok("PUT", "/desk/webhook", Some(&json!({"url": rx.url, "enabled": true})));
    assert_eq!(
        (set["url"].as_str(), set["enabled"].as_bool()),
        (Some(rx.url.as_str()), Some(true))
    );
    assert_eq!(s.sandbox_ok("GET", "/desk/webhook", None)["url"], rx.url.as_str());
    let (_, bad) = s.call("PUT", "/desk/webhook", &s.sandbox, Some(&json!({"url": "gopher://x"})));
    assert_eq!(
        (bad["meta"]["code"].clone(), bad["meta"]["details"][0]["path"].clone()),
        (json!(4104), json!("url"))
    );
    let account = yodel_account(&s);
    let (status, v) = s.call("POST", "/v3/labels", &s.sandbox, Some(&async_label(&account, None)));
    assert_eq!(status, 200);
    assert_eq!(
        v["meta"],
        json!({"code": 3001, "message": "The request has been accepted for processing, but the processing has not been completed."})
    );
    assert_eq!(
        (v["data"]["status"].as_str(), v["data"]["files"].clone()),
        (Some("creating"), Value::Null)
    );
    let id = v["data"]["id"].as_str().unwrap();
    assert!(rx.wait_for(1, 30), "the webhook arrived");
    let label = s.sandbox_ok("GET", &format!("/v3/labels/{id}"), None);
    assert_eq!(label["status"], "created");
    let hook = &rx.bodies()[0];
    assert_eq!(
        (hook["event"].as_str(), hook["meta"].clone()),
        (Some("create_a_label"), json!({"code": 200}))
    );
    assert_eq!(hook["data"]["tracking_numbers"], label["tracking_numbers"]);
    // The file URL in the webhook works with the key.
    let (ct, bytes) = s.download(hook["data"]["files"]["label"]["url"].as_str().unwrap(), &s.sandbox);
    assert_eq!(ct, "application/pdf");
    assert!(bytes.starts_with(b"%PDF"));
    // The delivery log: the list, one delivery with its attempts, a resend.
    let list = s.sandbox_ok("GET", "/desk/webhook-deliveries?status=delivered", None);
    let d = &list["webhook_deliveries"][0];
    assert_eq!(
        (
            d["event"].as_str(),
            d["record_id"].as_str(),
            d["attempts"][0]["status_code"].as_i64()
        ),
        (Some("create_a_label"), Some(id), Some(200))
    );
    let one = s.sandbox_ok(
        "GET",
        &format!("/desk/webhook-deliveries/{}", d["id"].as_str().unwrap()),
        None,
    );
    assert_eq!(one["body"], *hook);
    s.sandbox_ok(
        "POST",
        &format!("/desk/webhook-deliveries/{}/resend", d["id"].as_str().unwrap()),
        None,
    );
    assert!(rx.wait_for(2, 30), "the resend arrived");
    assert_eq!(rx.bodies()[1], *hook, "a resend sends the same body");
    // The live key sees none of the sandbox's deliveries.
    let (_, live) = s.call("GET", "/desk/webhook-deliveries", &s.live, None);
    assert_eq!(live["data"]["webhook_deliveries"], json!([]));
}

#[test]
fn the_webhook_command_sets_the_url_beside_a_running_server() {
    let s = Server::start();
    let rx = Receiver::ok();
    let out = s
        .command(&["webhook", "sandbox", "--url", &rx.url, "--on"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let shown: Value = serde_json::from_slice(&s.command(&["webhook", "sandbox"]).output().unwrap().stdout).unwrap();
    assert_eq!(
        (shown["url"].as_str(), shown["enabled"].as_bool()),
        (Some(rx.url.as_str()), Some(true))
    );
    let bad = s.command(&["webhook", "sandbox", "--url", "ftp://x"]).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("url"));
    let account = yodel_account(&s);
    let (_, v) = s.call("POST", "/v3/labels", &s.sandbox, Some(&async_label(&account, None)));
    assert_eq!(v["meta"]["code"], 3001);
    assert!(rx.wait_for(1, 30), "the server used the URL the command set");
}

#[test]
fn a_sigkill_in_the_middle_of_1000_async_labels_loses_and_repeats_nothing() {
    let mut s = Server::start();
    let rx = Receiver::ok();
    s.sandbox_ok("PUT", "/desk/webhook", Some(&json!({"url": rx.url})));
    let account = yodel_account(&s);
    let base = Arc::new(Mutex::new(s.base.clone()));
    let answered = Arc::new(AtomicUsize::new(0));
    let before_crash = Arc::new(AtomicUsize::new(0));
    // Four clients send 1,000 async labels, each with its own order number. A request cut off by
    // the crash is sent again, as a warehouse system would: the order number makes that safe (an
    // order accepted before the crash answers 4801 and is not made twice).
    let senders: Vec<_> = (0..4)
        .map(|t| {
            let (base, answered, before_crash, key, account) = (
                base.clone(),
                answered.clone(),
                before_crash.clone(),
                s.sandbox.clone(),
                account.clone(),
            );
            std::thread::spawn(move || {
                let client = reqwest::blocking::Client::builder()
                    .timeout(Duration::from_secs(30))
                    .build()
                    .unwrap();
                for i in 0..250 {
                    let body = async_label(&account, Some(format!("ORDER-{t}-{i}"))).to_string();
                    loop {
                        let url = format!("{}/v3/labels", base.lock().unwrap());
                        let sent = client
                            .post(url)
                            .header("service-api-key", &key)
                            .header("content-type", "application/json")
                            .body(body.clone())
                            .send();
                        let Ok(resp) = sent.and_then(|r| r.json::<Value>()) else {
                            std::thread::sleep(Duration::from_millis(50));
                            continue;
                        };
                        match resp["meta"]["code"].as_i64() {
                            Some(3001) => {}
                            Some(4801) => {
                                before_crash.fetch_add(1, Ordering::SeqCst);
                            }
                            _ => panic!("unexpected answer {resp}"),
                        }
                        answered.fetch_add(1, Ordering::SeqCst);
                        break;
                    }
                }
            })
        })
        .collect();
    // SIGKILL when about 300 requests are answered, while requests and jobs are in flight.
    while answered.load(Ordering::SeqCst) < 300 {
        std::thread::sleep(Duration::from_millis(5));
    }
    s.kill();
    let at_kill = answered.load(Ordering::SeqCst);
    s.restart();
    *base.lock().unwrap() = s.base.clone();
    for h in senders {
        h.join().unwrap();
    }
    assert!(at_kill < 1000, "the kill came in the middle ({at_kill} answered)");
    // After the restart every job finishes.
    let end = Instant::now() + Duration::from_secs(300);
    loop {
        let creating = all_labels(&s, "creating").len();
        if creating == 0 {
            break;
        }
        assert!(Instant::now() < end, "{creating} labels still creating");
        std::thread::sleep(Duration::from_millis(200));
    }
    let created = all_labels(&s, "created");
    assert_eq!(created.len(), 1000, "one label per order, none lost, none twice");
    let orders: HashSet<&str> = created.iter().map(|l| l["order_number"].as_str().unwrap()).collect();
    assert_eq!(orders.len(), 1000);
    let numbers: HashSet<&str> = created
        .iter()
        .flat_map(|l| l["tracking_numbers"].as_array().unwrap())
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(numbers.len(), 1000, "no tracking number twice, one per label");
    // Every label's webhook arrived; each delivery is recorded as delivered exactly once.
    assert!(rx.wait_for(1000, 120), "{} webhooks", rx.posts());
    let ids: HashSet<&str> = created.iter().map(|l| l["id"].as_str().unwrap()).collect();
    let end = Instant::now() + Duration::from_secs(60);
    let delivered = loop {
        let mut delivered = 0;
        let mut token = String::new();
        loop {
            let d = s.sandbox_ok(
                "GET",
                &format!("/desk/webhook-deliveries?limit=200&status=delivered&next_token={token}"),
                None,
            );
            delivered += d["webhook_deliveries"].as_array().unwrap().len();
            match d["next_token"].as_str() {
                Some(t) => token = t.to_string(),
                None => break,
            }
        }
        if delivered == 1000 || Instant::now() > end {
            break delivered;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(delivered, 1000);
    let hooked: HashSet<String> = rx
        .bodies()
        .iter()
        .map(|b| b["data"]["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(hooked, ids.iter().map(|i| i.to_string()).collect::<HashSet<_>>());
    eprintln!("killed after {at_kill} answers; {} orders were accepted just before the crash and answered 4801 when sent again", before_crash.load(Ordering::SeqCst));
}
