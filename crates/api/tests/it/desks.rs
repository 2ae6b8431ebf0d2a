//! Many desks, one warehouse (issue 16): real `packdesk-server` processes on one PostgreSQL
//! database of the test cluster (`tests/postgres.sh`), each with its own data folder and desk
//! name, as packing desks on a warehouse network would run.

use crate::receiver;
use crate::support;
use receiver::Receiver;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::process::Command;
use std::time::{Duration, Instant};
use support::*;

/// Desk A on a fresh shared database; B joins it with A's join code.
pub(crate) fn two_desks() -> (Server, Server) {
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
fn the_join_code_is_shown_to_the_live_key_only_never_to_the_sandbox_key() {
    let url = shared_database();
    let a = Server::start_on(Some((url, "A".into())), None);
    let join = keys_text(&a.data_dir, a.shared.as_ref())
        .lines()
        .find_map(|l| l.strip_prefix("join "))
        .unwrap()
        .to_string();
    // The live key on this machine (the desk UI's Settings) is shown the warehouse's vault key.
    let live = a.live_ok("GET", "/desk/database", None);
    assert_eq!(live["join_code"], join.as_str());
    // The sandbox key, handed out to test an integration, sees the database but not the key.
    let (status, v) = a.call("GET", "/desk/database", &a.sandbox, None);
    assert_eq!((status, v["meta"]["code"].as_i64()), (200, Some(200)), "{v}");
    assert_eq!(v["data"]["shared"], true);
    assert!(v["data"]["join_code"].is_null(), "{v}");
    assert!(
        !v.to_string().contains(&join),
        "the join code must not appear anywhere in {v}"
    );
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
fn an_order_saved_at_two_desks_at_once_is_one_order() {
    let (a, b) = two_desks();
    for round in 0..24 {
        let order = json!({"order_number": format!("W-2{round:03}"), "ship_to": address("Jane Doe", "GBR", "M1 1AE"),
            "items": [{"description": "Mug", "quantity": 1 + round}]});
        let answers: Vec<(u16, Value)> = std::thread::scope(|scope| {
            let both: Vec<_> = [&a, &b]
                .into_iter()
                .map(|desk| {
                    let order = &order;
                    scope.spawn(move || desk.call("POST", "/desk/orders", &desk.sandbox, Some(order)))
                })
                .collect();
            both.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (status, v) in &answers {
            assert_eq!(
                (*status, &v["meta"]["code"]),
                (200, &json!(200)),
                "both desks save it (one makes it, one updates it): {v}"
            );
        }
        let ids: HashSet<&str> = answers
            .iter()
            .map(|(_, v)| v["data"]["orders"][0]["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids.len(), 1, "one order: {answers:?}");
    }
    let listed = b.sandbox_ok("GET", "/desk/orders?limit=100", None);
    assert_eq!(listed["orders"].as_array().unwrap().len(), 24, "{listed}");

    // The same file imported at both desks at once (and another with the rows the other way
    // round): every order once, each desk counting it as imported or updated, none failed.
    let rows: Vec<String> = (0..40)
        .map(|i| format!("F-{i:03},Jane Doe,1 High St,Manchester,M1 1AE,GB,Mug,1"))
        .collect();
    let head = "Order ID,Recipient,Address 1,City,ZIP,Country,Item,Qty\n";
    let forward = format!("{head}{}\n", rows.join("\n"));
    let backward = format!("{head}{}\n", rows.iter().rev().cloned().collect::<Vec<_>>().join("\n"));
    let answers: Vec<(u16, Value)> = std::thread::scope(|scope| {
        let both: Vec<_> = [(&a, &forward), (&b, &forward), (&a, &backward)]
            .into_iter()
            .map(|(desk, file)| {
                scope.spawn(move || {
                    desk.send_raw(
                        "POST",
                        "/desk/orders/import",
                        &desk.sandbox,
                        "text/csv",
                        file.clone().into_bytes(),
                    )
                })
            })
            .collect();
        both.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (status, v) in &answers {
        assert_eq!((*status, &v["data"]["failed"]), (200, &json!([])), "{v}");
        let saved = v["data"]["imported"].as_u64().unwrap() + v["data"]["updated"].as_u64().unwrap();
        assert_eq!(saved, 40, "{v}");
    }
    let made: u64 = answers
        .iter()
        .map(|(_, v)| v["data"]["imported"].as_u64().unwrap())
        .sum();
    assert_eq!(made, 40, "each order made once: {answers:?}");
    let listed = a.sandbox_ok("GET", "/desk/orders?limit=100", None);
    assert_eq!(listed["orders"].as_array().unwrap().len(), 64, "{listed}");
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

/// A loopback TCP relay to the test cluster that the test can cut (every connection dropped, new
/// ones refused at once) and restore: the network between a desk and its database blinking.
struct Relay {
    port: u16,
    open: std::sync::Arc<std::sync::atomic::AtomicBool>,
    streams: std::sync::Arc<std::sync::Mutex<Vec<std::net::TcpStream>>>,
}

impl Relay {
    fn to(upstream: u16) -> Relay {
        use std::net::{TcpListener, TcpStream};
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let open = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let streams = std::sync::Arc::new(std::sync::Mutex::new(Vec::<TcpStream>::new()));
        let (o, s) = (open.clone(), streams.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if !o.load(std::sync::atomic::Ordering::SeqCst) {
                    continue; // dropped: the desk's connect fails at once
                }
                let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
                    continue;
                };
                let mut kept = s.lock().unwrap();
                kept.push(client.try_clone().unwrap());
                kept.push(server.try_clone().unwrap());
                for (mut from, mut to) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server, client),
                ] {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(std::net::Shutdown::Both);
                    });
                }
            }
        });
        Relay { port, open, streams }
    }

    fn cut(&self) {
        self.open.store(false, std::sync::atomic::Ordering::SeqCst);
        for s in self.streams.lock().unwrap().drain(..) {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }

    fn restore(&self) {
        self.open.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// The port of a `postgres://user@host:port/db` address, and the address with another port.
fn with_port(url: &str, port: u16) -> (u16, String) {
    let (head, tail) = url.rsplit_once('/').unwrap();
    let (host, old) = head.rsplit_once(':').unwrap();
    (old.parse().unwrap(), format!("{host}:{port}/{tail}"))
}

#[test]
fn a_desk_that_loses_the_database_says_so_and_goes_on_when_it_is_back() {
    let url = shared_database();
    let (cluster_port, _) = with_port(&url, 0);
    let relay = Relay::to(cluster_port);
    let (_, through_relay) = with_port(&url, relay.port);
    let a = Server::start_on(Some((through_relay, "A".into())), None);
    let account = yodel_account(&a);
    a.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    assert_eq!(a.sandbox_ok("GET", "/desk/status", None)["state"], "ready");

    relay.cut();
    // Every screen's banner (and the tray) says it; a label is refused as worth a retry and the
    // desk stays up.
    let end = Instant::now() + Duration::from_secs(20);
    let status = loop {
        let s = a.sandbox_ok("GET", "/desk/status", None);
        if s["state"] == "database_unreachable" || Instant::now() > end {
            break s;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(status["state"], "database_unreachable", "{status}");
    assert!(
        status["message"]
            .as_str()
            .unwrap()
            .contains("shared database cannot be reached"),
        "{status}"
    );
    assert!(
        status["message"].as_str().unwrap().contains("looking for it"),
        "{status}"
    );
    let (_, refused) = a.call("POST", "/v3/labels", &a.sandbox, Some(&yodel_label(&account, 1)));
    assert_eq!(refused["meta"]["code"], 4101, "{refused}");

    relay.restore();
    let end = Instant::now() + Duration::from_secs(20);
    while a.sandbox_ok("GET", "/desk/status", None)["state"] != "ready" && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(a.sandbox_ok("GET", "/desk/status", None)["state"], "ready");
    a.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    let labels = a.sandbox_ok("GET", "/v3/labels", None);
    assert_eq!(
        labels["labels"].as_array().unwrap().len(),
        2,
        "nothing half-made while it was away"
    );
}

#[test]
fn webhooks_of_jobs_accepted_at_two_desks_are_sent_once_each() {
    let (a, b) = two_desks();
    let rx = Receiver::ok();
    // The setting is the warehouse's: set at A, B's jobs use it too.
    a.sandbox_ok("PUT", "/desk/webhook", Some(&json!({"url": rx.url, "enabled": true})));
    let account = yodel_account(&a);
    let mut ids = HashSet::new();
    for desk in [&a, &b, &a, &b, &a, &b, &a, &b] {
        let mut body = yodel_label(&account, 1);
        body["async"] = json!(true);
        let (_, v) = desk.call("POST", "/v3/labels", &desk.sandbox, Some(&body));
        assert_eq!(v["meta"]["code"], 3001, "{v}");
        ids.insert(v["data"]["id"].as_str().unwrap().to_string());
    }
    assert!(rx.wait_for(8, 30), "8 webhooks arrived: {}", rx.posts());
    // Both desks' dispatchers ran all along; a second send would show within their next rounds.
    std::thread::sleep(Duration::from_secs(3));
    let got: Vec<String> = rx
        .bodies()
        .iter()
        .map(|b| b["data"]["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(got.len(), 8, "each webhook once, from one desk: {got:?}");
    assert_eq!(got.into_iter().collect::<HashSet<_>>(), ids);
}

#[test]
fn each_desk_prints_on_its_own_printers() {
    let (a, b) = two_desks();
    let (port, printed) = raw_printer();
    let zebra = a.live_ok(
        "POST",
        "/desk/printers",
        Some(&json!({"name": "Zebra A", "transport": "raw",
        "address": format!("127.0.0.1:{port}"), "format": "zpl"})),
    );
    a.live_ok(
        "PUT",
        "/desk/print-profiles/label",
        Some(&json!({"printer_id": zebra["id"], "stock": "4x6", "auto_print": true})),
    );
    // B's printers and profiles are its own: none.
    assert_eq!(b.live_ok("GET", "/desk/printers", None)["printers"], json!([]));
    assert_eq!(
        b.live_ok("GET", "/desk/print-profiles", None)["print_profiles"],
        json!([])
    );
    let account = yodel_account(&a);
    // A PDF label: the ZPL printer gets it as a raster (any label on any printer).
    let body = yodel_label(&account, 1);
    b.sandbox_ok("POST", "/v3/labels", Some(&body));
    a.sandbox_ok("POST", "/v3/labels", Some(&body));
    let first = printed
        .recv_timeout(Duration::from_secs(20))
        .expect("A's label printed on A's printer");
    assert!(String::from_utf8_lossy(&first).contains("^XA"));
    assert!(
        printed.recv_timeout(Duration::from_secs(3)).is_err(),
        "B's label is not printed on A's printer"
    );
}

#[test]
fn a_profile_on_another_desks_printer_goes_when_that_desk_removes_the_printer() {
    let (a, b) = two_desks();
    let (port, _printed) = raw_printer();
    let zebra = a.live_ok(
        "POST",
        "/desk/printers",
        Some(&json!({"name": "Zebra A", "transport": "raw",
        "address": format!("127.0.0.1:{port}"), "format": "zpl"})),
    );
    // B prints its labels on A's printer, then A removes it.
    b.live_ok(
        "PUT",
        "/desk/print-profiles/label",
        Some(&json!({"printer_id": zebra["id"], "stock": "4x6", "auto_print": true})),
    );
    let profiles = || b.live_ok("GET", "/desk/print-profiles", None)["print_profiles"].clone();
    assert_eq!(profiles()[0]["printer_id"], zebra["id"]);
    a.live_ok(
        "DELETE",
        &format!("/desk/printers/{}", zebra["id"].as_str().unwrap()),
        None,
    );
    // B reads its profiles again within seconds (it keeps them, read for every label).
    let gone = std::time::Instant::now();
    while profiles() != json!([]) {
        assert!(
            gone.elapsed() < Duration::from_secs(30),
            "B still lists the profile of a removed printer"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn an_account_changed_at_another_desk_holds_for_the_next_label_made_here() {
    let (a, b) = two_desks();
    let account = yodel_account(&a);
    // A makes labels with the account as it read it...
    a.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    let set = |status: &str| {
        b.sandbox_ok(
            "PUT",
            &format!("/v3/shipper-accounts/{account}"),
            Some(&json!({"status": status})),
        )
    };
    // ...until B disables it: A's next label is refused as B's would be, nothing made.
    set("disabled");
    let (_, e) = a.call("POST", "/v3/labels", &a.sandbox, Some(&yodel_label(&account, 1)));
    assert_eq!(e["meta"]["code"], 4104, "{e}");
    assert_eq!(e["meta"]["details"][0]["path"], "shipper_account.id", "{e}");
    assert_eq!(
        b.sandbox_ok("GET", "/v3/labels?limit=10", None)["labels"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // Enabled again at B: A makes labels again.
    set("enabled");
    let l = a.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    assert_eq!(l["status"], "created", "{l}");
}

#[test]
fn a_desk_sends_each_font_part_once_and_again_whole_when_the_database_lost_it() {
    let url = shared_database();
    let a = Server::start_on(Some((url.clone(), "A".into())), None);
    let account = yodel_account(&a);
    let psql = |sql: &str| {
        let out = Command::new("psql").args([url.as_str(), "-tAc", sql]).output().unwrap();
        assert!(out.status.success(), "psql: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    // What the desk sends of each part, seen by the database (a trigger on the parts' rows).
    psql(
        "CREATE TABLE parts_sent (with_bytes boolean NOT NULL);
         CREATE FUNCTION note_part_sent() RETURNS trigger LANGUAGE plpgsql AS
             $$ BEGIN INSERT INTO parts_sent VALUES (NEW.bytes IS NOT NULL); RETURN NEW; END $$;
         CREATE TRIGGER note_part_sent BEFORE INSERT ON file_parts FOR EACH ROW EXECUTE FUNCTION note_part_sent();",
    );
    let sent = || psql("SELECT count(*) FROM parts_sent WHERE with_bytes");
    a.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    let first = sent();
    assert_ne!(first, "0", "the first label sends its fonts");
    // After the first label the desk knows the database keeps its fonts and sends them no more.
    for _ in 0..2 {
        a.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    }
    // (A part sent with its bytes is offered to the table, and so seen, even when kept already.)
    assert_eq!(sent(), first, "no font sent twice");
    // The database loses them (as a restore of an older copy under a running desk would).
    psql("DELETE FROM file_parts");
    let l = a.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    assert_ne!(
        psql("SELECT count(*) FROM file_parts"),
        "0",
        "the fonts were sent again"
    );
    let (_, pdf) = a.download(l["files"]["label"]["url"].as_str().unwrap(), &a.sandbox);
    let words: String = support::pdf_text(&pdf, false).split_whitespace().collect();
    assert!(words.contains(&tracking_numbers(&l)[0]), "{words}");
}

#[test]
fn a_desk_moves_its_folder_into_the_shared_database_once_and_goes_on_there() {
    // A desk that ran on its own file: an account and two labels.
    let own = Server::start_on(None, None);
    let account = yodel_account(&own);
    let before: Vec<Value> = (0..2)
        .map(|_| own.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1))))
        .collect();
    let mut own = own;
    own.kill();
    let url = shared_database();
    let migrate = |from: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_packdesk-server"))
            .args([
                "migrate",
                "--from",
                from.to_str().unwrap(),
                "--to",
                &url,
                "--desk",
                "old-desk",
            ])
            .output()
            .unwrap()
    };
    let out = migrate(&own.data_dir);
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("labels: 2 copied") && said.contains("join "), "{said}");
    // A second move adds nothing; another desk's folder (other keys) is refused.
    let again = String::from_utf8_lossy(&migrate(&own.data_dir).stdout).to_string();
    assert!(again.contains("labels: 0 copied, 2 there already"), "{again}");
    let mut other = Server::start_on(None, None);
    other.kill();
    let refused = migrate(&other.data_dir);
    assert!(
        !refused.status.success(),
        "a database holding other keys takes no other desk's data"
    );

    // The moved desk runs on the shared database: same keys, its history, numbers go on.
    own.reopen_on(Some((url.clone(), "old-desk".into())));
    let moved = own;
    let (live, sandbox) = keys_on(&moved.data_dir, moved.shared.as_ref());
    assert_eq!(
        (moved.live.as_str(), moved.sandbox.as_str()),
        (live.as_str(), sandbox.as_str())
    );
    let after = moved.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    let history = moved.sandbox_ok("GET", "/v3/labels", None);
    assert_eq!(history["labels"].as_array().unwrap().len(), 3, "{history}");
    let mut numbers: Vec<String> = before.iter().flat_map(tracking_numbers).collect();
    numbers.extend(tracking_numbers(&after));
    assert_eq!(
        numbers.iter().collect::<HashSet<_>>().len(),
        3,
        "no number again: {numbers:?}"
    );
}

#[test]
fn an_operator_made_at_one_desk_signs_in_at_another_and_the_log_names_each_desk() {
    let (a, b) = two_desks();
    a.live_ok(
        "POST",
        "/desk/operators",
        Some(&json!({"name": "Dana", "code": "B-DANA", "role": "packer", "pin": "2580"})),
    );
    for desk in [&a, &b] {
        let v: Value = reqwest::blocking::Client::new()
            .post(desk.url("/ui/sign-in"))
            .json(&json!({"code": "B-DANA", "pin": "2580"}))
            .send()
            .unwrap()
            .json()
            .unwrap();
        assert_eq!(v["data"]["operator"]["name"], "Dana", "{v}");
    }
    let log = b.live_ok("GET", "/desk/audit?action=operator.sign_in", None);
    let desks: HashSet<&str> = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["desk"].as_str().unwrap())
        .collect();
    assert_eq!(desks, HashSet::from(["A", "B"]), "{log}");
}

#[test]
fn settings_take_the_database_ca_and_the_desk_then_runs_on_a_checked_tls_connection() {
    // The test cluster serves TLS with a certificate for 127.0.0.1 from a CA of the run's own.
    let ca = std::env::var("PACKDESK_TEST_POSTGRES_CA").expect("PACKDESK_TEST_POSTGRES_CA (tests/postgres.sh)");
    let url = shared_database();
    let mut s = Server::start_on(None, None);
    let put = |body: serde_json::Value| s.call("PUT", "/desk/database", &s.live, Some(&body));

    // A CA file that is not there: said beside the field.
    let (_, v) = put(serde_json::json!({"url": url, "ca_file": "/nonexistent/warehouse-ca.crt"}));
    assert_eq!(v["meta"]["code"], 4104, "{v}");
    assert_eq!(detail_paths(&v), ["ca_file"]);
    // A name the server's certificate does not carry: refused in words, nothing saved.
    let (_, v) = put(serde_json::json!({"url": url.replacen("127.0.0.1", "localhost", 1), "ca_file": ca}));
    assert_eq!(v["meta"]["code"], 4104, "{v}");
    let info = v["meta"]["details"][0]["info"].as_str().unwrap();
    assert!(info.contains("does not name the host"), "{info}");
    assert!(s.live_ok("GET", "/desk/database", None)["saved_url"].is_null());

    // The right name: saved with the CA and full checking, and the desk runs on it.
    let (_, v) = put(serde_json::json!({"url": url, "ca_file": ca}));
    assert_eq!(v["meta"]["code"], 200, "{v}");
    let saved = v["data"]["saved_url"].as_str().unwrap();
    assert!(
        saved.contains("sslmode=verify-full") && saved.contains("sslrootcert="),
        "{saved}"
    );
    s.reopen_on(None);
    // The shared database has keys of its own.
    (s.live, s.sandbox) = keys(&s.data_dir);
    let now = s.live_ok("GET", "/desk/database", None);
    assert_eq!(now["shared"], true, "{now}");
    let account = yodel_account(&s);
    s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
}
