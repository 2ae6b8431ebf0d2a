//! Many desks, one warehouse (issue 16): real `packdesk-server` processes on one PostgreSQL
//! database of the test cluster (`tests/postgres.sh`), each with its own data folder and desk
//! name, as packing desks on a warehouse network would run.

mod support;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::process::Command;
use std::time::{Duration, Instant};
use support::*;

/// Desk A on a fresh shared database; B joins it with A's join code.
fn two_desks() -> (Server, Server) {
    let url = shared_database();
    let a = Server::start_on(Some((url.clone(), "A".into())), None);
    let text = keys_text(&a.data_dir, a.shared.as_ref());
    let join = text
        .lines()
        .find_map(|l| l.strip_prefix("join "))
        .expect("keys --database prints the join code")
        .to_string();
    let b = Server::start_on(Some((url, "B".into())), Some(&join));
    (a, b)
}

fn tracking_numbers(label: &Value) -> Vec<String> {
    label["tracking_numbers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_desk_without_the_join_code_is_refused_and_one_with_it_opens_the_same_keys() {
    let url = shared_database();
    let a = Server::start_on(Some((url.clone(), "A".into())), None);
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_packdesk-server"))
        .args(["--data-dir", dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"])
        .args(["--database", &url, "--desk", "B"])
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "a desk without the warehouse's vault key must not start"
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("--join-code") && said.contains("keys --database"),
        "{said}"
    );

    let text = keys_text(&a.data_dir, a.shared.as_ref());
    let join = text.lines().find_map(|l| l.strip_prefix("join ")).unwrap();
    let b = Server::start_on(Some((url, "B".into())), Some(join));
    assert_eq!(
        (&a.live, &a.sandbox),
        (&b.live, &b.sandbox),
        "one warehouse, one pair of keys"
    );
    let (_, v) = b.call("GET", "/v3/shipper-accounts", &b.sandbox, None);
    assert_eq!(v["meta"]["code"], 200, "{v}");
}

#[test]
fn labels_made_at_two_desks_at_once_share_one_range_one_history_and_one_close_out() {
    let (a, b) = two_desks();
    // The account made at A is B's too.
    let account = yodel_account(&a);
    let listed = b.sandbox_ok("GET", "/v3/shipper-accounts", None);
    assert_eq!(listed["shipper_accounts"][0]["id"], account.as_str(), "{listed}");

    // Three clients at each desk, at once.
    let desks = [&a, &b];
    let made: Vec<(String, Vec<String>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..6)
            .map(|i| {
                let desk = desks[i % 2];
                let account = account.clone();
                scope.spawn(move || {
                    (0..12)
                        .map(|_| {
                            let l = desk.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 2)));
                            (l["id"].as_str().unwrap().to_string(), tracking_numbers(&l))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    let numbers: Vec<&String> = made.iter().flat_map(|(_, n)| n).collect();
    let distinct: HashSet<&&String> = numbers.iter().collect();
    assert_eq!(numbers.len(), 144);
    assert_eq!(
        distinct.len(),
        numbers.len(),
        "a tracking number was issued twice across desks"
    );

    // Either desk's history holds every label; a search at B finds a label made at A.
    let page = b.sandbox_ok("GET", "/v3/labels?limit=200", None);
    assert_eq!(page["labels"].as_array().unwrap().len(), 72);
    let first_of_a = a.sandbox_ok("GET", &format!("/v3/labels/{}", made[0].0), None);
    let number = tracking_numbers(&first_of_a)[0].clone();
    let found = b.sandbox_ok("GET", &format!("/v3/labels?tracking_numbers={number}"), None);
    assert_eq!(found["labels"][0]["id"], made[0].0.as_str(), "{found}");

    // One close-out at B manifests every desk's labels of the account.
    let manifest = b.sandbox_ok(
        "POST",
        "/v3/manifests",
        Some(&json!({"shipper_account": {"id": account}})),
    );
    assert_eq!(manifest["status"], "manifested", "{manifest}");
    assert_eq!(manifest["labels"].as_array().unwrap().len(), 72, "{manifest}");
    let again = a.call(
        "POST",
        "/v3/manifests",
        &a.sandbox,
        Some(&json!({"shipper_account": {"id": account}})),
    );
    assert_ne!(
        again.1["meta"]["code"], 200,
        "nothing is left for a second close-out: {}",
        again.1
    );
}

#[test]
fn an_order_scanned_at_two_desks_at_once_ships_once_and_the_other_desk_says_where() {
    let (a, b) = two_desks();
    let account = yodel_account(&a);
    let preset = json!({"name": "UK", "shipper_account": {"id": account}, "service_type": "yodel_std",
        "ship_from": address("Sender Co", "GBR", "E16 2AA"), "parcel": {"weight": {"value": 1, "unit": "kg"}}, "is_default": true});
    a.sandbox_ok("POST", "/desk/presets", Some(&preset));
    let order = json!({"order_number": "W-1001", "ship_to": address("Jane Doe", "GBR", "M1 1AE"),
        "items": [{"description": "Mug", "quantity": 1}]});
    let saved = a.sandbox_ok("POST", "/desk/orders", Some(&order));
    let id = saved["orders"][0]["id"].as_str().unwrap().to_string();

    let answers: Vec<(u16, Value)> = std::thread::scope(|scope| {
        let both: Vec<_> = [&a, &b]
            .into_iter()
            .map(|desk| {
                let path = format!("/desk/orders/{id}/ship");
                scope.spawn(move || desk.call("POST", &path, &desk.sandbox, None))
            })
            .collect();
        both.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let shipped: Vec<&Value> = answers
        .iter()
        .filter(|(_, v)| v["meta"]["code"] == 200)
        .map(|(_, v)| v)
        .collect();
    assert_eq!(shipped.len(), 1, "one scan makes one label: {answers:?}");
    let refused = answers.iter().find(|(_, v)| v["meta"]["code"] != 200).unwrap();
    let info = refused.1["meta"]["details"][0]["info"].as_str().unwrap_or_default();
    assert!(info.contains("was shipped at desk "), "{}", refused.1);
    let labels = a.sandbox_ok("GET", "/v3/labels", None);
    assert_eq!(labels["labels"].as_array().unwrap().len(), 1, "{labels}");
}

#[test]
fn async_labels_accepted_at_a_desk_killed_mid_work_are_finished_by_another_desk_once() {
    let (mut a, b) = two_desks();
    let account = yodel_account(&a);
    let mut ids = Vec::new();
    for _ in 0..60 {
        let mut body = yodel_label(&account, 1);
        body["async"] = json!(true);
        let (_, v) = a.call("POST", "/v3/labels", &a.sandbox, Some(&body));
        assert_eq!(v["meta"]["code"], 3001, "{v}");
        ids.push(v["data"]["id"].as_str().unwrap().to_string());
    }
    // kill -9 while its workers are at the queue: the jobs it holds leased run out at B.
    a.kill();
    let end = Instant::now() + Duration::from_secs(60);
    let mut numbers = Vec::new();
    for id in &ids {
        let label = loop {
            let l = b.sandbox_ok("GET", &format!("/v3/labels/{id}"), None);
            if l["status"] != "creating" || Instant::now() > end {
                break l;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        assert_eq!(label["status"], "created", "{label}");
        numbers.extend(tracking_numbers(&label));
    }
    let distinct: HashSet<&String> = numbers.iter().collect();
    assert_eq!((numbers.len(), distinct.len()), (60, 60), "every job ran, none twice");
}
