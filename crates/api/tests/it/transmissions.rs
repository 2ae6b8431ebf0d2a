//! Every manifest's data file reaches its carrier, against real servers: a folder, an HTTPS
//! receiver of the test's own (a self-signed certificate, pinned on the account; it stands where a
//! carrier's endpoint would be), and a real OpenSSH server (Debian's `sshd`, started here on
//! loopback with its own host key and `internal-sftp`, signing in a non-root user by password or
//! key). The desk under test is the real `packdesk-server`.

use crate::sshd::Sshd;
use crate::support::*;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A sandbox account with two labels, its transport set to `transport`.
fn account_with(s: &Server, transport: Value) -> (String, Vec<String>) {
    let account = yodel_account(s);
    let set = s.sandbox_ok(
        "PUT",
        &format!("/v3/shipper-accounts/{account}"),
        Some(&json!({"settings": {"manifest_transport": transport}})),
    );
    let kept = &set["settings"]["manifest_transport"];
    for secret in ["password", "private_key", "authorization"] {
        assert!(kept.get(secret).is_none(), "a secret is never answered: {kept}");
    }
    let mut numbers = Vec::new();
    for parcels in [1, 2] {
        let l = s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, parcels)));
        numbers.extend(tracking_numbers(&l));
    }
    (account, numbers)
}

fn close_out(s: &Server, account: &str) -> Value {
    s.sandbox_ok(
        "POST",
        "/v3/manifests",
        Some(&json!({"shipper_account": {"id": account}})),
    )
}

/// The manifest once its transmission is no longer pending (or after `secs`).
fn settled(s: &Server, manifest_id: &str, secs: u64) -> Value {
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        let m = s.sandbox_ok("GET", &format!("/v3/manifests/{manifest_id}"), None);
        if m["transmission"]["status"] != "pending" || Instant::now() > end {
            return m;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn assert_holds_every_number(csv: &str, numbers: &[String]) {
    assert_eq!(
        csv.lines().count(),
        numbers.len() + 1,
        "a header and a line per parcel:\n{csv}"
    );
    for n in numbers {
        assert!(csv.contains(n.as_str()), "{n} is in the data file:\n{csv}");
    }
}

#[test]
fn a_close_out_writes_its_data_file_once_into_the_carriers_folder() {
    let s = Server::start();
    let outbox = tempfile::tempdir().unwrap();
    let (account, numbers) = account_with(&s, json!({"kind": "folder", "path": outbox.path()}));
    let m = close_out(&s, &account);
    let t = &m["transmission"];
    let name = t["file_name"].as_str().unwrap().to_string();
    assert!(name.starts_with("yodel_") && name.ends_with("_001.csv"), "{name}");
    let m = settled(&s, m["id"].as_str().unwrap(), 20);
    assert_eq!(m["transmission"]["status"], "sent", "{m}");
    assert_eq!(m["transmission"]["attempts"], 1);
    let files: Vec<String> = std::fs::read_dir(outbox.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(files, vec![name.clone()], "one whole file, no partial one");
    let csv = std::fs::read_to_string(outbox.path().join(&name)).unwrap();
    assert_holds_every_number(&csv, &numbers);
    // What a carrier's data needs beside the number: the ship date, both addresses, the parcel.
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let first: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    let cell = |name: &str| {
        first[header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no {name}"))]
    };
    assert_eq!(cell("sender_postal_code"), "E16 2AA");
    assert_eq!(cell("recipient_name"), "Jane Doe");
    assert_eq!(cell("recipient_city"), "Testville");
    assert_eq!(cell("ship_date").len(), 10, "a yyyy-mm-dd date: {csv}");
    assert_eq!(cell("weight_kg"), "1.000");
    // The same bytes as the manifest's own data file.
    let (_, stored) = s.download(m["files"]["manifest_data"]["url"].as_str().unwrap(), &s.sandbox);
    assert_eq!(stored, csv.as_bytes());

    // "Send again" replaces the file: the carrier still sees one file for the manifest.
    let again = s.sandbox_ok(
        "POST",
        &format!("/desk/manifests/{}/transmit", m["id"].as_str().unwrap()),
        None,
    );
    assert_eq!(again["transmission"]["status"], "sent");
    assert_eq!(again["transmission"]["attempts"], 2);
    assert_eq!(std::fs::read_dir(outbox.path()).unwrap().count(), 1);
}

#[test]
fn an_async_close_out_queues_its_data_file_with_the_manifest_it_completes() {
    let s = Server::start();
    let outbox = tempfile::tempdir().unwrap();
    let (account, numbers) = account_with(&s, json!({"kind": "folder", "path": outbox.path()}));
    let (_, v) = s.call(
        "POST",
        "/v3/manifests",
        &s.sandbox,
        Some(&json!({"shipper_account": {"id": account}, "async": true})),
    );
    assert_eq!(v["meta"]["code"], 3001, "{v}");
    let id = v["data"]["id"].as_str().unwrap().to_string();
    let end = Instant::now() + Duration::from_secs(20);
    let m = loop {
        let m = s.sandbox_ok("GET", &format!("/v3/manifests/{id}"), None);
        if m["transmission"]["status"] == "sent" || Instant::now() > end {
            break m;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(m["status"], "manifested", "{m}");
    assert_eq!(m["transmission"]["status"], "sent", "{m}");
    let name = m["transmission"]["file_name"].as_str().unwrap();
    assert_holds_every_number(&std::fs::read_to_string(outbox.path().join(name)).unwrap(), &numbers);
}

#[test]
fn a_folder_that_is_not_there_fails_in_words_shows_on_the_banner_and_is_sent_again() {
    let s = Server::start();
    let place = tempfile::tempdir().unwrap();
    let outbox = place.path().join("outbox");
    let (account, numbers) = account_with(&s, json!({"kind": "folder", "path": outbox}));
    let test = s.sandbox_ok(
        "POST",
        &format!("/desk/shipper-accounts/{account}/test-transport"),
        None,
    );
    assert_eq!(test["ok"], false);
    assert!(test["message"].as_str().unwrap().contains("does not exist"), "{test}");

    let m = close_out(&s, &account);
    let id = m["id"].as_str().unwrap().to_string();
    let m = settled(&s, &id, 20);
    assert_eq!(m["transmission"]["status"], "failed", "{m}");
    let why = m["transmission"]["last_error"].as_str().unwrap();
    assert!(why.contains("does not exist"), "{why}");
    assert!(
        m["transmission"]["next_attempt_at"].is_string(),
        "it is tried again by itself"
    );
    let status = s.sandbox_ok("GET", "/desk/status", None);
    assert_eq!(status["state"], "manifest_not_sent", "{status}");
    assert!(
        status["message"]
            .as_str()
            .unwrap()
            .contains("has not reached its carrier"),
        "{status}"
    );

    std::fs::create_dir(&outbox).unwrap();
    let test = s.sandbox_ok(
        "POST",
        &format!("/desk/shipper-accounts/{account}/test-transport"),
        None,
    );
    assert_eq!(test["ok"], true, "{test}");
    let sent = s.sandbox_ok("POST", &format!("/desk/manifests/{id}/transmit"), None);
    assert_eq!(sent["transmission"]["status"], "sent", "{sent}");
    let name = sent["transmission"]["file_name"].as_str().unwrap();
    assert_holds_every_number(&std::fs::read_to_string(outbox.join(name)).unwrap(), &numbers);
    let status = s.sandbox_ok("GET", "/desk/status", None);
    assert_ne!(status["state"], "manifest_not_sent", "{status}");
}

#[test]
fn a_transport_without_what_it_needs_is_refused_beside_its_fields() {
    let s = Server::start();
    let account = yodel_account(&s);
    let (_, v) = s.call(
        "PUT",
        &format!("/v3/shipper-accounts/{account}"),
        &s.sandbox,
        Some(&json!({"settings": {"manifest_transport": {"kind": "sftp", "host": "", "username": "u", "remote_dir": "/in", "host_key_sha256": "abc"}}})),
    );
    assert_eq!(v["meta"]["code"], 4104, "{v}");
    let paths = detail_paths(&v);
    for p in ["host", "host_key_sha256", "password"] {
        assert!(
            paths.contains(&format!("settings.manifest_transport.{p}").as_str()),
            "{paths:?}"
        );
    }
    let (_, v) = s.call(
        "PUT",
        &format!("/v3/shipper-accounts/{account}"),
        &s.sandbox,
        Some(&json!({"settings": {"manifest_transport": {"kind": "https", "url": "http://carrier.example/in"}}})),
    );
    assert_eq!(detail_paths(&v), ["settings.manifest_transport.url"], "{v}");
    // A password in the address would be shown and logged: refused.
    let (_, v) = s.call(
        "PUT",
        &format!("/v3/shipper-accounts/{account}"),
        &s.sandbox,
        Some(&json!({"settings": {"manifest_transport": {"kind": "https", "url": "https://user:secret@carrier.example/in"}}})),
    );
    assert_eq!(detail_paths(&v), ["settings.manifest_transport.url"], "{v}");
    assert!(!v.to_string().contains("secret"), "{v}");
}

#[test]
fn a_transport_taken_away_leaves_no_manifest_waiting_to_be_sent() {
    let s = Server::start();
    let place = tempfile::tempdir().unwrap();
    let (account, _) = account_with(&s, json!({"kind": "folder", "path": place.path().join("missing")}));
    let m = close_out(&s, &account);
    let id = m["id"].as_str().unwrap().to_string();
    assert_eq!(settled(&s, &id, 20)["transmission"]["status"], "failed");
    assert_eq!(s.sandbox_ok("GET", "/desk/status", None)["state"], "manifest_not_sent");
    s.sandbox_ok(
        "PUT",
        &format!("/v3/shipper-accounts/{account}"),
        Some(&json!({"settings": {"manifest_transport": {"kind": "none"}}})),
    );
    let m = s.sandbox_ok("GET", &format!("/v3/manifests/{id}"), None);
    assert_eq!(m["transmission"]["status"], "not_required", "{m}");
    assert_eq!(m["transmission"]["next_attempt_at"], Value::Null);
    assert_ne!(s.sandbox_ok("GET", "/desk/status", None)["state"], "manifest_not_sent");
}

// ---------------------------------------------------------------------------------------------
// HTTPS: a receiver of the test's own with a self-signed certificate.

/// Headers (names in lower case) and body of a POST received.
type Post = (Vec<(String, String)>, Vec<u8>);

struct HttpsReceiver {
    url: String,
    cert_pem: String,
    /// (headers in lower case, body) of every POST.
    posts: Arc<Mutex<Vec<Post>>>,
    status: Arc<Mutex<u16>>,
    _dir: tempfile::TempDir,
}

impl HttpsReceiver {
    fn start() -> HttpsReceiver {
        let dir = tempfile::tempdir().unwrap();
        let (key, cert) = (dir.path().join("key.pem"), dir.path().join("cert.pem"));
        let ok = Command::new("openssl")
            .args([
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
            ])
            .args([
                "-days",
                "2",
                "-subj",
                "/CN=localhost",
                "-addext",
                "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ])
            .arg("-keyout")
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .output()
            .expect("openssl makes the receiver's certificate");
        assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
        let cert_pem = std::fs::read_to_string(&cert).unwrap();
        let identity = native_tls::Identity::from_pkcs8(cert_pem.as_bytes(), &std::fs::read(&key).unwrap()).unwrap();
        let acceptor = Arc::new(native_tls::TlsAcceptor::new(identity).unwrap());
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!(
            "https://127.0.0.1:{}/edi/manifests",
            listener.local_addr().unwrap().port()
        );
        let posts = Arc::new(Mutex::new(Vec::new()));
        let status = Arc::new(Mutex::new(200u16));
        let (p, st) = (posts.clone(), status.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let (a, p, st) = (acceptor.clone(), p.clone(), st.clone());
                std::thread::spawn(move || {
                    let Ok(tls) = a.accept(conn) else { return };
                    let mut r = BufReader::new(tls);
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut headers = Vec::new();
                    loop {
                        let mut h = String::new();
                        r.read_line(&mut h).unwrap();
                        if h.trim().is_empty() {
                            break;
                        }
                        let (k, v) = h.split_once(':').unwrap();
                        headers.push((k.trim().to_lowercase(), v.trim().to_string()));
                    }
                    let len: usize = headers
                        .iter()
                        .find(|(k, _)| k == "content-length")
                        .map_or(0, |(_, v)| v.parse().unwrap());
                    let mut body = vec![0; len];
                    r.read_exact(&mut body).unwrap();
                    let code = *st.lock().unwrap();
                    if line.starts_with("POST") {
                        p.lock().unwrap().push((headers, body));
                    }
                    let reply = format!("HTTP/1.1 {code} X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno");
                    let _ = r.get_mut().write_all(reply.as_bytes());
                });
            }
        });
        HttpsReceiver {
            url,
            cert_pem,
            posts,
            status,
            _dir: dir,
        }
    }
}

#[test]
fn a_close_out_posts_its_data_file_to_a_pinned_https_receiver() {
    let s = Server::start();
    let rx = HttpsReceiver::start();
    let (account, numbers) = account_with(
        &s,
        json!({"kind": "https", "url": rx.url, "authorization": "Bearer carrier-token", "ca_certificate": rx.cert_pem}),
    );
    let a = s.sandbox_ok("GET", &format!("/v3/shipper-accounts/{account}"), None);
    assert_eq!(a["settings"]["manifest_transport"]["authorization_set"], true, "{a}");
    let test = s.sandbox_ok(
        "POST",
        &format!("/desk/shipper-accounts/{account}/test-transport"),
        None,
    );
    assert_eq!(test["ok"], true, "{test}");

    // The receiver is down (503): failed, in words, kept for a retry.
    *rx.status.lock().unwrap() = 503;
    let m = close_out(&s, &account);
    let id = m["id"].as_str().unwrap().to_string();
    let m = settled(&s, &id, 20);
    assert_eq!(m["transmission"]["status"], "failed", "{m}");
    assert!(m["transmission"]["last_error"].as_str().unwrap().contains("503"), "{m}");

    *rx.status.lock().unwrap() = 200;
    let sent = s.sandbox_ok("POST", &format!("/desk/manifests/{id}/transmit"), None);
    assert_eq!(sent["transmission"]["status"], "sent", "{sent}");
    let posts = rx.posts.lock().unwrap();
    let (headers, body) = posts.last().unwrap();
    let header = |k: &str| headers.iter().find(|(h, _)| h == k).map(|(_, v)| v.as_str());
    assert_eq!(header("authorization"), Some("Bearer carrier-token"));
    assert_eq!(header("x-packdesk-manifest-id"), Some(id.as_str()));
    assert_eq!(
        header("x-packdesk-file-name"),
        sent["transmission"]["file_name"].as_str()
    );
    assert_holds_every_number(std::str::from_utf8(body).unwrap(), &numbers);
    drop(posts);

    // Pointed at another address, the transport does not take the old one's Authorization along.
    let other = HttpsReceiver::start();
    let a = s.sandbox_ok(
        "PUT",
        &format!("/v3/shipper-accounts/{account}"),
        Some(&json!({"settings": {"manifest_transport": {"kind": "https", "url": other.url, "ca_certificate": other.cert_pem}}})),
    );
    assert_eq!(a["settings"]["manifest_transport"]["authorization_set"], false, "{a}");
}

#[test]
fn an_https_receiver_whose_certificate_is_not_the_pinned_one_gets_nothing() {
    let s = Server::start();
    let rx = HttpsReceiver::start();
    let other = HttpsReceiver::start();
    let (account, _) = account_with(
        &s,
        json!({"kind": "https", "url": rx.url, "ca_certificate": other.cert_pem}),
    );
    let test = s.sandbox_ok(
        "POST",
        &format!("/desk/shipper-accounts/{account}/test-transport"),
        None,
    );
    assert_eq!(test["ok"], false, "{test}");
    let m = close_out(&s, &account);
    let m = settled(&s, m["id"].as_str().unwrap(), 20);
    assert_eq!(m["transmission"]["status"], "failed", "{m}");
    assert!(
        rx.posts.lock().unwrap().is_empty(),
        "nothing reached an unpinned receiver"
    );
}

// ---------------------------------------------------------------------------------------------
// SFTP: Debian's OpenSSH server, started by the test (`crate::sshd`).

#[test]
fn a_close_out_uploads_its_data_file_to_the_carriers_sftp_server_by_password_and_by_key() {
    let sshd = Sshd::start();
    let s = Server::start();
    let mut t = sshd.transport();
    t["password"] = json!(sshd.password);
    let (account, numbers) = account_with(&s, t);
    let a = s.sandbox_ok("GET", &format!("/v3/shipper-accounts/{account}"), None);
    assert_eq!(a["settings"]["manifest_transport"]["password_set"], true, "{a}");
    let test = s.sandbox_ok(
        "POST",
        &format!("/desk/shipper-accounts/{account}/test-transport"),
        None,
    );
    assert_eq!(test["ok"], true, "{test}");
    assert!(test["message"].as_str().unwrap().contains(&sshd.fingerprint), "{test}");

    let m = close_out(&s, &account);
    let m = settled(&s, m["id"].as_str().unwrap(), 30);
    assert_eq!(m["transmission"]["status"], "sent", "{m}");
    let name = m["transmission"]["file_name"].as_str().unwrap().to_string();
    assert_eq!(sshd.files(), vec![name.clone()], "one whole file, no partial one");
    assert_holds_every_number(&std::fs::read_to_string(sshd.inbox.join(&name)).unwrap(), &numbers);

    // The same account signing in by key (the password kept from before is not needed).
    let mut t = sshd.transport();
    t["private_key"] = json!(sshd.private_key());
    s.sandbox_ok(
        "PUT",
        &format!("/v3/shipper-accounts/{account}"),
        Some(&json!({"settings": {"manifest_transport": t}})),
    );
    for parcels in [1, 3] {
        s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, parcels)));
    }
    let second = close_out(&s, &account);
    let second = settled(&s, second["id"].as_str().unwrap(), 30);
    assert_eq!(second["transmission"]["status"], "sent", "{second}");
    let second_name = second["transmission"]["file_name"].as_str().unwrap();
    assert!(
        second_name.ends_with("_002.csv"),
        "the day's second file: {second_name}"
    );
    assert_eq!(sshd.files().len(), 2);
}

#[test]
fn an_sftp_server_with_another_host_key_is_refused_and_recorded() {
    let sshd = Sshd::start();
    let s = Server::start();
    let mut t = sshd.transport();
    t["password"] = json!(sshd.password);
    t["host_key_sha256"] = json!("SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    let (account, _) = account_with(&s, t);
    let test = s.sandbox_ok(
        "POST",
        &format!("/desk/shipper-accounts/{account}/test-transport"),
        None,
    );
    assert_eq!(test["ok"], false);
    assert!(
        test["message"].as_str().unwrap().contains(&sshd.fingerprint),
        "names the key it saw: {test}"
    );
    let m = close_out(&s, &account);
    let m = settled(&s, m["id"].as_str().unwrap(), 30);
    assert_eq!(m["transmission"]["status"], "failed", "{m}");
    let why = m["transmission"]["last_error"].as_str().unwrap();
    assert!(why.contains("host key") && why.contains("nothing was sent"), "{why}");
    assert!(sshd.files().is_empty(), "nothing reached a server with another key");
    // The attempt is recorded with its reason.
    let log = s.sandbox_ok(
        "GET",
        &format!("/desk/manifests/{}/transmission", m["id"].as_str().unwrap()),
        None,
    );
    assert_eq!(log["attempts"][0]["attempt"], 1, "{log}");
    assert_eq!(log["attempts"][0]["transport"], "sftp");
    assert_eq!(log["attempts"][0]["error"].as_str(), Some(why));
}

#[test]
fn a_desk_killed_around_a_transmission_sends_the_file_once_whole_after_it_starts_again() {
    let sshd = Sshd::start();
    let mut s = Server::start();
    let mut t = sshd.transport();
    t["password"] = json!(sshd.password);
    let (account, numbers) = account_with(&s, t);
    let m = close_out(&s, &account);
    let id = m["id"].as_str().unwrap().to_string();
    // Killed at once: the transmission may be queued, in flight or done.
    s.kill_and_restart();
    let m = settled(&s, &id, 30);
    assert_eq!(m["transmission"]["status"], "sent", "{m}");
    let name = m["transmission"]["file_name"].as_str().unwrap().to_string();
    assert_eq!(sshd.files(), vec![name.clone()], "one file, no partial one");
    assert_holds_every_number(&std::fs::read_to_string(sshd.inbox.join(&name)).unwrap(), &numbers);
}
