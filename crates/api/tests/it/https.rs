//! HTTPS of a desk other machines reach, tried as a warehouse's IT would: a real `packdesk-server`
//! listening on 127.0.0.2, which the test switch `PACKDESK_TEST_NETWORK_ADDRESS` has the desk
//! treat as a network address (this machine's other addresses may not be used by tests), read by
//! clients that trust only the certificate they were given.

use crate::support::*;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const NETWORK: &str = "127.0.0.2";

/// A desk started with `args`, 127.0.0.2 treated as a network address: the process, its base URL
/// and the fingerprint it printed (if any).
struct Desk {
    child: Child,
    base: String,
    printed_fingerprint: Option<String>,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Drop for Desk {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn desk(data_dir: &Path, args: &[&str]) -> Desk {
    let mut child = Command::new(BIN)
        .args(["--data-dir", data_dir.to_str().unwrap()])
        .args(args)
        .env("PACKDESK_TEST_NETWORK_ADDRESS", NETWORK)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let err = child.stderr.take().unwrap();
    let into = stderr.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            into.lock().unwrap().push_str(&(line + "\n"));
        }
    });
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut printed_fingerprint = None;
    let base = loop {
        let Some(Ok(line)) = lines.next() else {
            panic!("the desk stopped: {}", stderr.lock().unwrap());
        };
        if let Some(rest) = line.strip_prefix("HTTPS certificate SHA-256 ") {
            printed_fingerprint = rest.split_whitespace().next().map(str::to_string);
        }
        if let Some(url) = line.strip_prefix("packdesk-server listening on ") {
            break url.to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    Desk {
        child,
        base,
        printed_fingerprint,
        stderr,
    }
}

/// A client trusting only `ca_pem` (no system roots).
fn trusting(ca_pem: &[u8]) -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(ca_pem).unwrap()])
        .tls_info(true)
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

fn get(client: &reqwest::blocking::Client, url: &str, key: &str) -> (u16, Value) {
    let r = client.get(url).header("service-api-key", key).send().unwrap();
    (r.status().as_u16(), r.json().unwrap_or(Value::Null))
}

/// The SHA-256 of the certificate a server presented, as the desk writes fingerprints.
fn presented(r: &reqwest::blocking::Response) -> String {
    use sha2::Digest;
    let der = r
        .extensions()
        .get::<reqwest::tls::TlsInfo>()
        .and_then(|i| i.peer_certificate())
        .expect("a TLS peer certificate")
        .to_vec();
    sha2::Sha256::digest(der)
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

#[test]
fn a_desk_on_the_network_answers_only_over_https_with_the_certificate_it_made() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let d = desk(&data, &["--listen", &format!("{NETWORK}:0")]);
    assert!(d.base.starts_with(&format!("https://{NETWORK}:")), "{}", d.base);
    let port = d.base.rsplit(':').next().unwrap().to_string();
    let (live, sandbox) = keys(&data);

    // The certificate it made is in the data folder, its key readable by the owner only.
    let cert = std::fs::read(data.join("tls/desk.crt")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(data.join("tls/desk.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "the key file's mode");
    }

    // A client trusting that certificate makes a label; its file links are https.
    let client = trusting(&cert);
    let r = client
        .get(format!("{}/desk/https", d.base))
        .header("service-api-key", &live)
        .send()
        .unwrap();
    let fingerprint = presented(&r);
    let https: Value = r.json().unwrap();
    assert_eq!(https["data"]["enabled"], true);
    let c = &https["data"]["certificate"];
    assert_eq!(c["source"], "made");
    assert_eq!(
        c["fingerprint_sha256"],
        fingerprint.as_str(),
        "Settings shows the served certificate"
    );
    assert_eq!(
        d.printed_fingerprint.as_deref(),
        Some(fingerprint.as_str()),
        "printed at start"
    );
    let names: Vec<&str> = c["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    for name in [NETWORK, "localhost", host.trim()] {
        assert!(names.contains(&name), "{name} among the certificate's names {names:?}");
    }
    let not_after = chrono::DateTime::parse_from_rfc3339(c["not_after"].as_str().unwrap()).unwrap();
    let days = (not_after.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_days();
    assert!((728..=730).contains(&days), "valid two years: {days} days");
    let download = client
        .get(format!("{}/desk/https/certificate", d.base))
        .header("service-api-key", &live)
        .send()
        .unwrap();
    assert_eq!(download.status().as_u16(), 200);
    assert_eq!(
        download.bytes().unwrap().as_ref(),
        cert.as_slice(),
        "the download is the certificate"
    );

    let post = |path: &str, body: Value| -> Value {
        let r = client
            .post(format!("{}{path}", d.base))
            .header("service-api-key", &sandbox)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .unwrap();
        assert_eq!(r.status().as_u16(), 200, "{path}");
        r.json().unwrap()
    };
    let account = post(
        "/v3/shipper-accounts",
        serde_json::json!({"slug": "yodel", "description": "Yodel desk", "credentials": {"identity": "i", "password": "p", "account_number": "1"}, "timezone": "Europe/London"}),
    );
    let label = post("/v3/labels", yodel_label(account["data"]["id"].as_str().unwrap(), 1));
    let url = label["data"]["files"]["label"]["url"].as_str().unwrap();
    assert!(url.starts_with(&format!("https://{NETWORK}:{port}/")), "{url}");
    let pdf = client.get(url).send().unwrap();
    assert_eq!(pdf.status().as_u16(), 200, "the file link opens over HTTPS");
    assert!(pdf.bytes().unwrap().starts_with(b"%PDF"));

    // curl with --cacert, as a WMS's script would.
    let out = Command::new("curl")
        .args(["-sS", "--cacert", data.join("tls/desk.crt").to_str().unwrap()])
        .args(["-H", &format!("service-api-key: {live}")])
        .arg(format!("{}/v3/shipper-accounts", d.base))
        .output()
        .unwrap();
    assert!(out.status.success(), "curl: {}", String::from_utf8_lossy(&out.stderr));
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["meta"]["code"], 200);

    // A client trusting nothing else refuses the desk's certificate.
    let stranger = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let refused = stranger.get(format!("{}/v3/shipper-accounts", d.base)).send();
    assert!(refused.is_err(), "a client that does not trust the desk refuses it");
    let out = Command::new("curl")
        .args(["-sS", "-o", "/dev/null"])
        .arg(format!("{}/v3/shipper-accounts", d.base))
        .output()
        .unwrap();
    assert!(!out.status.success(), "curl without --cacert refuses the desk");

    // Plain HTTP to it is answered in words saying where to go, and goes no further.
    let plain = reqwest::blocking::Client::new()
        .get(format!("http://{NETWORK}:{port}/v3/shipper-accounts"))
        .header("service-api-key", &live)
        .send()
        .unwrap();
    assert_eq!(plain.status().as_u16(), 400);
    let body: Value = plain.json().unwrap();
    let info = body["meta"]["details"][0]["info"].as_str().unwrap();
    assert!(info.contains(&format!("https://{NETWORK}:{port}/")), "{info}");

    // TLS 1.1 is refused by the desk (the client allowed to offer it: its alert comes from the
    // server); TLS 1.2 is taken.
    let handshake = |version: &str| {
        let mut child = Command::new("openssl")
            .args(["s_client", "-connect", &format!("{NETWORK}:{port}"), version])
            .args(["-cipher", "DEFAULT@SECLEVEL=0"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdin.take());
        let out = child.wait_with_output().unwrap();
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let old = handshake("-tls1_1");
    assert!(
        old.contains("alert handshake failure") || old.contains("alert protocol version"),
        "{old}"
    );
    let current = handshake("-tls1_2");
    assert!(current.contains("Protocol  : TLSv1.2"), "{current}");

    // Started again, the desk serves the same certificate (the WMS's trust store stays good).
    drop(d);
    let again = desk(&data, &["--listen", &format!("{NETWORK}:0")]);
    let r = client
        .get(format!("{}/desk/https", again.base))
        .header("service-api-key", &live)
        .send()
        .unwrap();
    assert_eq!(presented(&r), fingerprint);
}

#[test]
fn the_warehouse_certificate_is_served_and_replaced_without_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let pki = tmp.path().join("pki");
    std::fs::create_dir_all(&pki).unwrap();
    let ca = make_ca(&pki);
    issue(&pki, "first", NETWORK);
    issue(&pki, "second", NETWORK);
    let cert = tmp.path().join("desk.crt");
    let key = tmp.path().join("desk.key");
    std::fs::copy(pki.join("first.crt"), &cert).unwrap();
    std::fs::copy(pki.join("first.key"), &key).unwrap();
    let data = tmp.path().join("data");
    let d = desk(
        &data,
        &[
            "--listen",
            &format!("{NETWORK}:0"),
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
    );
    let (live, _) = keys(&data);
    let client = trusting(&std::fs::read(&ca).unwrap());
    let fingerprint = |c: &reqwest::blocking::Client| {
        let r = c
            .get(format!("{}/desk/https", d.base))
            .header("service-api-key", &live)
            .send()
            .unwrap();
        let served = presented(&r);
        let said: Value = r.json().unwrap();
        (served, said["data"]["certificate"].clone())
    };
    let (first, said) = fingerprint(&client);
    assert_eq!(said["source"], "files");
    assert_eq!(said["fingerprint_sha256"], first.as_str());
    assert!(
        !data.join("tls").exists(),
        "no certificate is made beside the warehouse's"
    );

    // The warehouse renews its certificate: the files are replaced, the desk keeps running.
    std::fs::copy(pki.join("second.key"), &key).unwrap();
    std::fs::copy(pki.join("second.crt"), &cert).unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    let second = loop {
        // A new client: a new connection and handshake.
        let (served, said) = fingerprint(&trusting(&std::fs::read(&ca).unwrap()));
        if served != first {
            assert_eq!(said["fingerprint_sha256"], served.as_str(), "Settings follows");
            break served;
        }
        assert!(
            Instant::now() < deadline,
            "the replaced certificate was not served within 15 s"
        );
        std::thread::sleep(Duration::from_millis(250));
    };
    assert_ne!(second, first);

    // A broken file keeps the certificate served, and says why in the log.
    std::fs::write(&cert, "not a certificate").unwrap();
    std::thread::sleep(Duration::from_secs(3));
    let (served, _) = fingerprint(&trusting(&std::fs::read(&ca).unwrap()));
    assert_eq!(served, second, "a broken file keeps the served certificate");
    let log = std::fs::read_dir(data.join("logs"))
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                .collect::<String>()
        })
        .unwrap_or_default()
        + &d.stderr.lock().unwrap();
    assert!(log.contains("the TLS certificate was not replaced"), "{log}");

    // A key that does not go with the certificate is refused at start, in words.
    let out = Command::new(BIN)
        .args(["--data-dir", tmp.path().join("other").to_str().unwrap()])
        .args(["--listen", &format!("{NETWORK}:0")])
        .args(["--tls-cert", pki.join("first.crt").to_str().unwrap()])
        .args(["--tls-key", pki.join("second.key").to_str().unwrap()])
        .env("PACKDESK_TEST_NETWORK_ADDRESS", NETWORK)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not go with"), "{err}");
}

#[test]
fn plain_http_beyond_this_machine_only_when_asked_and_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let d = desk(&data, &["--listen", &format!("{NETWORK}:0"), "--insecure-http"]);
    assert!(d.base.starts_with("http://"), "{}", d.base);
    let (live, _) = keys(&data);
    let (status, https) = get(
        &reqwest::blocking::Client::new(),
        &format!("{}/desk/https", d.base),
        &live,
    );
    assert_eq!(status, 200);
    assert_eq!(https["data"]["enabled"], false);
    assert_eq!(https["data"]["insecure_http"], true);
    assert!(!data.join("tls").exists());
    let deadline = Instant::now() + Duration::from_secs(5);
    while !d.stderr.lock().unwrap().contains("--insecure-http") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        d.stderr.lock().unwrap().contains("readable by anyone"),
        "warned: {}",
        d.stderr.lock().unwrap()
    );

    // On this machine the desk stays plain HTTP and makes no certificate.
    let local = Server::start();
    let (_, https) = local.call("GET", "/desk/https", &local.live.clone(), None);
    assert_eq!(https["data"]["enabled"], false);
    assert_eq!(https["data"]["insecure_http"], false);
    assert!(!local.data_dir.join("tls").exists());
}

/// A certificate authority of the test's own: its certificate's file.
fn make_ca(dir: &Path) -> std::path::PathBuf {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-days",
            "30",
            "-subj",
            "/CN=Warehouse test CA",
            "-keyout",
            "ca.key",
            "-out",
            "ca.crt",
        ],
    );
    dir.join("ca.crt")
}

/// A server certificate `name.crt`/`name.key` for the address `ip`, signed by the CA.
fn issue(dir: &Path, name: &str, ip: &str) {
    let ext = format!("subjectAltName=IP:{ip},DNS:localhost\nextendedKeyUsage=serverAuth\n");
    std::fs::write(dir.join(format!("{name}.ext")), ext).unwrap();
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-subj",
            &format!("/CN={name}"),
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.csr"),
        ],
    );
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &format!("{name}.csr"),
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "30",
            "-extfile",
            &format!("{name}.ext"),
            "-out",
            &format!("{name}.crt"),
        ],
    );
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl").current_dir(dir).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn python_and_node_clients_run_the_interface_over_https_trusting_the_desk_certificate() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let d = desk(&data, &["--listen", &format!("{NETWORK}:0")]);
    let (_, sandbox) = keys(&data);
    let ca = data.join("tls/desk.crt");
    let clients = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/clients");
    let run = |program: &str, script: &str, extra_env: &[(&str, &Path)]| -> Value {
        let mut cmd = Command::new(program);
        cmd.arg(clients.join(script))
            .env("BASE", &d.base)
            .env("KEY", &sandbox)
            .env("CA", &ca);
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap_or_else(|e| panic!("{program}: {e}"));
        assert!(
            out.status.success(),
            "{script}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{script} printed no JSON ({e})"))
    };
    let python = run("/usr/bin/python3", "flow.py", &[]);
    let node = run("node", "flow.mjs", &[("NODE_EXTRA_CA_CERTS", &ca)]);
    for (who, saw) in [("python", python), ("node", node)] {
        assert!(saw["rates"].as_u64().unwrap() >= 1, "{who}: {saw}");
        assert_eq!(saw["label"], "created", "{who}: {saw}");
        assert!(
            saw["file_url"].as_str().unwrap().starts_with("https://"),
            "{who}: {saw}"
        );
        assert_eq!(saw["pdf"], "%PDF", "{who}: {saw}");
        assert_eq!(saw["cancel"], "cancelled", "{who}: {saw}");
        assert_eq!(saw["manifest"], "manifested", "{who}: {saw}");
    }

    // The same clients without the certificate refuse the desk.
    let out = Command::new("/usr/bin/python3")
        .arg(clients.join("flow.py"))
        .env("BASE", &d.base)
        .env("KEY", &sandbox)
        .env("CA", "/etc/ssl/certs/ca-certificates.crt")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("CERTIFICATE_VERIFY_FAILED"));
}
