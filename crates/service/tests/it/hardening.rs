//! Hardening of the core, each as a user or an attacker would meet it: a private data folder, a
//! vault key that is never silently made again, a newer database refused, webhooks that follow no
//! redirect, money that must be finite, a client's own "today" as ship date, free credentials for
//! carriers whose fields are not listed, signed file links that expire.

use crate::common;
use common::receiver::Receiver;
use common::*;
use packdesk_carriers::carrier;
use packdesk_model::ToRequest;
use packdesk_service::clock::SystemClock;
use packdesk_service::keys::Env;
use packdesk_service::Service;
use serde_json::json;
use std::sync::Arc;

fn open(dir: &std::path::Path) -> Result<Service, packdesk_model::ServiceError> {
    Service::open(dir, "http://127.0.0.1:9", Arc::new(SystemClock)).map(|o| o.service)
}

#[cfg(unix)]
fn mode(p: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// The files of a data folder while Packdesk runs.
#[cfg(unix)]
const DATA_FILES: [&str; 5] = [
    "packdesk.sqlite3",
    "packdesk.sqlite3-wal",
    "packdesk.sqlite3-shm",
    "packdesk.lock",
    "vault.key",
];

#[cfg(unix)]
#[test]
fn the_data_folder_and_every_file_in_it_are_the_owners_only() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let s = open(&dir).unwrap();
    create_account(&s, Env::Sandbox, carrier("yodel").unwrap(), json!({}));
    assert_eq!(mode(&dir), 0o700, "the folder");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    for f in DATA_FILES {
        assert!(names.contains(&f.to_string()), "{f} in {names:?}");
    }
    for f in &names {
        assert_eq!(mode(&dir.join(f)), 0o600, "{f}");
    }
    // A folder made by an older Packdesk (0755, files 0644) is tightened at start.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    for f in &names {
        std::fs::set_permissions(dir.join(f), std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    drop(s);
    let s = open(&dir).unwrap();
    create_account(&s, Env::Sandbox, carrier("yodel").unwrap(), json!({}));
    assert_eq!(mode(&dir), 0o700);
    for f in DATA_FILES {
        assert_eq!(mode(&dir.join(f)), 0o600, "{f} tightened");
    }
}

#[test]
fn a_lost_vault_key_stops_the_start_instead_of_making_a_new_one() {
    let tmp = tempfile::tempdir().unwrap();
    let s = open(tmp.path()).unwrap();
    drop(s);
    std::fs::remove_file(tmp.path().join("vault.key")).unwrap();
    let e = open(tmp.path()).err().expect("refused");
    let info = &e.details[0].info;
    assert!(
        info.contains("vault key") && info.contains("is missing") && info.contains("backup"),
        "{info}"
    );
    assert!(!tmp.path().join("vault.key").exists(), "no new key was written");
}

#[test]
fn a_database_of_a_newer_packdesk_is_not_opened() {
    let tmp = tempfile::tempdir().unwrap();
    drop(open(tmp.path()).unwrap());
    let db = tmp.path().join("packdesk.sqlite3");
    let c = packdesk_store::rusqlite::Connection::open(&db).unwrap();
    c.pragma_update(None, "user_version", 999).unwrap();
    drop(c);
    let e = open(tmp.path()).err().expect("refused");
    assert!(
        e.details[0].info.contains("newer Packdesk") && e.details[0].info.contains("schema 999"),
        "{:?}",
        e.details
    );
    let c = packdesk_store::rusqlite::Connection::open(&db).unwrap();
    let v: i64 = c.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
    assert_eq!(v, 999, "left as it was");
}

#[tokio::test]
async fn a_webhook_answered_with_a_redirect_is_a_failed_attempt_not_a_delivery() {
    let (s, _clock, _dir) = manual_service();
    // The receiver redirects the first POST; a client that followed it would be answered 200.
    let rx = Receiver::start(|n| if n == 0 { 302 } else { 200 });
    s.set_webhook(
        Env::Sandbox,
        json!({"url": rx.url, "enabled": true}).to_request().unwrap(),
    )
    .unwrap();
    let c = carrier("yodel").unwrap();
    let acct = create_account(&s, Env::Sandbox, c, json!({}));
    let mut body = label_request(&acct, c, c.service("yodel_std").unwrap());
    body["async"] = json!(true);
    wire(s.create_label(Env::Sandbox, body.to_request().unwrap()).unwrap());
    s.run_queued_jobs();
    assert_eq!(s.deliver_due_webhooks().await, 1);
    assert_eq!(rx.posts(), 1, "the redirect was not followed");
    let q: packdesk_model::request::ListQuery =
        serde_json::from_value(json!({"created_at_min": "2000-01-01"})).unwrap();
    let list = wire(s.list_webhook_deliveries(Env::Sandbox, &q).unwrap());
    let d = &list["webhook_deliveries"][0];
    assert_eq!(d["status"], "pending", "to be tried again on the schedule: {d}");
    let full = wire(s.get_webhook_delivery(Env::Sandbox, d["id"].as_str().unwrap()).unwrap());
    let a = &full["attempts"][0];
    assert_eq!(a["status_code"], 302);
    assert!(a["error"].as_str().unwrap().contains("follow no redirects"), "{a}");
}

#[test]
fn money_must_be_a_finite_amount_up_to_a_trillion() {
    let h = harness();
    let c = carrier("dpd-uk").unwrap();
    let acct = create_account(&h.service, Env::Sandbox, c, json!({}));
    for (amount, ok) in [(1.7e308, false), (1e12 + 1.0, false), (1e12, true), (25.5, true)] {
        let mut body = label_request(&acct, c, c.service("dpd-uk_dpddirect").unwrap());
        body["service_options"] =
            json!([{"type": "insurance", "insured_value": {"amount": amount, "currency": "GBP"}}]);
        let r = h.service.create_label(Env::Sandbox, body.to_request().unwrap());
        if ok {
            let l = wire(r.unwrap_or_else(|e| panic!("{amount}: {e}")));
            assert!(
                l["rate"]["total_charge"]["amount"].is_number(),
                "{amount}: a number, never null: {}",
                l["rate"]
            );
        } else {
            let e = r.err().unwrap_or_else(|| panic!("{amount} must be refused"));
            assert_eq!(e.code.code(), 4104);
            assert_eq!(
                e.details[0].path, "service_options[0].insured_value.amount",
                "{:?}",
                e.details
            );
        }
    }
}

#[test]
fn a_ship_date_that_is_today_anywhere_on_earth_is_accepted() {
    // 2026-03-10 11:30 UTC: it is already 11 March in Kiritimati (UTC+14), and 9 March (23:30)
    // at UTC-12.
    let dir = tempfile::tempdir().unwrap();
    let start = chrono::DateTime::parse_from_rfc3339("2026-03-10T11:30:00Z")
        .unwrap()
        .to_utc();
    let clock = Arc::new(packdesk_service::clock::ManualClock::new(start));
    let s = Service::open(dir.path(), "http://127.0.0.1:9", clock).unwrap().service;
    let c = carrier("yodel").unwrap();
    let body = json!({"slug": "yodel", "description": "Kiritimati desk", "timezone": "Pacific/Kiritimati", "credentials": credentials(c)});
    let acct = wire(s.create_account(Env::Sandbox, body.to_request().unwrap()).unwrap())["id"]
        .as_str()
        .unwrap()
        .to_string();
    let label = |date: &str| {
        let mut body = label_request(&acct, c, c.service("yodel_std").unwrap());
        body["ship_date"] = json!(date);
        s.create_label(Env::Sandbox, body.to_request().unwrap())
    };
    // A client at UTC-12 says 2026-03-09 (its today, 23:30); the account's today is the 11th.
    assert!(label("2026-03-09").is_ok(), "a client's own today is not the past");
    assert!(label("2026-03-10").is_ok());
    let Err(e) = label("2026-03-08") else {
        panic!("the 8th is over everywhere")
    };
    assert_eq!((e.code.code(), e.details[0].path.as_str()), (4104, "ship_date"));
    assert!(
        e.details[0].info.contains("everywhere on earth"),
        "{}",
        e.details[0].info
    );
}

#[test]
fn carriers_without_listed_credential_fields_keep_any_string_credentials() {
    let h = harness();
    for slug in ["carrier-4", "carrier-10", "carrier-12"] {
        let body = json!({"slug": slug, "description": "real account", "credentials": {"api_user": "acme", "api_secret": "s3cr3t", "account": "000123"}});
        let v = wire(
            h.service
                .create_account(Env::Live, body.to_request().unwrap())
                .unwrap_or_else(|e| panic!("{slug}: {e}")),
        );
        let id = v["id"].as_str().unwrap();
        let creds = h.service.account_credentials(Env::Live, id).unwrap();
        assert_eq!(creds["api_secret"], "s3cr3t", "{slug}: kept (sealed) as given");
        assert!(
            v.get("credentials").is_none() || v["credentials"] != json!({"api_secret": "s3cr3t"}),
            "never answered back"
        );
        let bad = json!({"slug": slug, "description": "x", "credentials": {"api_user": 42}});
        let e = h
            .service
            .create_account(Env::Live, bad.to_request().unwrap())
            .unwrap_err();
        assert_eq!(e.details[0].path, "credentials.api_user");
    }
    // A carrier whose fields are known still refuses a field it does not have.
    let body = json!({"slug": "yodel", "description": "x", "credentials": {"made_up": "1"}});
    let e = h
        .service
        .create_account(Env::Live, body.to_request().unwrap())
        .unwrap_err();
    assert!(
        e.details.iter().any(|d| d.path == "credentials.made_up"),
        "{:?}",
        e.details
    );
}

#[test]
fn a_file_link_opens_its_file_without_a_key_until_it_expires() {
    let (s, clock, _dir) = manual_service();
    let c = carrier("yodel").unwrap();
    let acct = create_account(&s, Env::Sandbox, c, json!({}));
    let l = wire(
        s.create_label(
            Env::Sandbox,
            label_request(&acct, c, c.service("yodel_std").unwrap())
                .to_request()
                .unwrap(),
        )
        .unwrap(),
    );
    let url = l["files"]["label"]["url"].as_str().unwrap().to_string();
    let (path, query) = url.split_once('?').expect("a signed link");
    let id = path.rsplit('/').next().unwrap();
    let get = |k: &str| {
        query
            .split('&')
            .find_map(|p| p.strip_prefix(&format!("{k}=")))
            .unwrap()
            .to_string()
    };
    let (expires, signature) = (get("expires").parse::<i64>().unwrap(), get("signature"));
    let (bytes, mime, _) = s.file_by_link(id, expires, &signature).unwrap();
    assert!(bytes.starts_with(b"%PDF"), "{mime}");
    let e = s.file_by_link(id, expires + 1, &signature).unwrap_err();
    assert_eq!(
        (e.code.code(), e.details[0].path.as_str()),
        (401, "signature"),
        "an extended link is refused"
    );
    clock.advance(chrono::Duration::days(31));
    let e = s.file_by_link(id, expires, &signature).unwrap_err();
    assert_eq!((e.code.code(), e.details[0].path.as_str()), (401, "expires"));
    assert!(e.details[0].info.contains("expired"));
}

#[test]
fn a_slow_receiver_does_not_hold_the_deliveries_to_another() {
    let (s, _clock, _dir) = manual_service();
    let slow = Receiver::start(|_| {
        std::thread::sleep(std::time::Duration::from_secs(4));
        200
    });
    let fast = Receiver::ok();
    let c = carrier("yodel").unwrap();
    let acct = create_account(&s, Env::Sandbox, c, json!({}));
    let mut body = label_request(&acct, c, c.service("yodel_std").unwrap());
    body["async"] = json!(true);
    let async_labels = |n: usize| {
        for _ in 0..n {
            wire(s.create_label(Env::Sandbox, body.to_request().unwrap()).unwrap());
        }
        s.run_queued_jobs();
    };
    // Deliveries to the slow receiver are in flight...
    s.set_webhook(Env::Sandbox, json!({"url": slow.url}).to_request().unwrap())
        .unwrap();
    async_labels(12);
    let background = packdesk_service::workers::Workers::started(&s, 2).unwrap();
    assert!(slow.wait_for(8, 5), "the slow receiver got its first attempts");
    // ...when deliveries to another receiver fall due: they go out at once.
    s.set_webhook(Env::Sandbox, json!({"url": fast.url}).to_request().unwrap())
        .unwrap();
    let started = std::time::Instant::now();
    async_labels(5);
    assert!(
        fast.wait_for(5, 3),
        "the fast receiver got its 5 deliveries: {}",
        fast.posts()
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(
        slow.posts() < 12,
        "the slow receiver takes at most 8 at once, so some of its 12 still wait"
    );
    drop(background);
}
