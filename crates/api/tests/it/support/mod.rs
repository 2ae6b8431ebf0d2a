//! A real `packdesk-server` process on 127.0.0.1:0 with a temporary data folder, and a small
//! blocking HTTP client for it.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

pub struct Server {
    child: Child,
    pub base: String,
    pub live: String,
    pub sandbox: String,
    pub data_dir: PathBuf,
    /// The desk's shared database and name (None: the data folder's SQLite file).
    pub shared: Option<(String, String)>,
    _tmp: Option<tempfile::TempDir>,
}

/// A new database in the test cluster of `tests/postgres.sh` (`.ci/test` starts it).
pub fn shared_database() -> String {
    let cluster = std::env::var("PACKDESK_TEST_POSTGRES").expect(
        "PACKDESK_TEST_POSTGRES is not set: run the tests with the README's test command, or start a cluster \
         with `eval \"$(bash tests/postgres.sh start | sed 's/^/export /')\"`",
    );
    packdesk_store::pg::scratch_database(&cluster, "api").unwrap()
}

/// With PACKDESK_TEST_BACKEND=postgres every `Server::start` runs on a database of its own in
/// the test cluster: the black-box suites run once per backend (`.ci/test`).
fn backend_database() -> Option<(String, String)> {
    on_shared_database().then(|| (shared_database(), "desk-1".into()))
}

/// Whether this run's servers are on the shared database (PACKDESK_TEST_BACKEND=postgres).
pub fn on_shared_database() -> bool {
    std::env::var("PACKDESK_TEST_BACKEND").as_deref() == Ok("postgres")
}

pub const BIN: &str = env!("CARGO_BIN_EXE_packdesk-server");

fn start(data_dir: &Path, shared: Option<&(String, String)>, join_code: Option<&str>) -> (Child, String) {
    start_with(data_dir, shared, join_code, &[])
}

/// `extra`: more options of `packdesk-server` (with `--listen`, in place of 127.0.0.1:0).
fn start_with(
    data_dir: &Path,
    shared: Option<&(String, String)>,
    join_code: Option<&str>,
    extra: &[&str],
) -> (Child, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(["--data-dir", data_dir.to_str().unwrap()]);
    if !extra.contains(&"--listen") {
        cmd.args(["--listen", "127.0.0.1:0"]);
    }
    cmd.args(extra);
    if let Some((url, desk)) = shared {
        cmd.args(["--database", url, "--desk", desk]);
    }
    if let Some(code) = join_code {
        cmd.args(["--join-code", code]);
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start packdesk-server");
    let out = child.stdout.take().unwrap();
    let mut lines = BufReader::new(out).lines();
    let base = loop {
        let line = lines.next().expect("server printed its address").unwrap();
        if let Some(addr) = line.strip_prefix("packdesk-server listening on ") {
            break addr.to_string();
        }
    };
    // Keep draining stdout so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (child, base)
}

pub fn keys(data_dir: &Path) -> (String, String) {
    keys_on(data_dir, None)
}

/// `packdesk-server keys` of a desk: its text (with `--database`, a `join` line too).
pub fn keys_text(data_dir: &Path, shared: Option<&(String, String)>) -> String {
    let mut cmd = Command::new(BIN);
    cmd.args(["keys", "--data-dir", data_dir.to_str().unwrap()]);
    if let Some((url, _)) = shared {
        cmd.args(["--database", url]);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "keys: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

pub fn keys_on(data_dir: &Path, shared: Option<&(String, String)>) -> (String, String) {
    let text = keys_text(data_dir, shared);
    let find = |env: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{env} ")))
            .unwrap_or_else(|| panic!("no {env} key in {text}"))
            .to_string()
    };
    (find("live"), find("sandbox"))
}

impl Server {
    pub fn start() -> Server {
        Server::start_on(backend_database(), None)
    }

    /// A desk started with more options of `packdesk-server` (`--listen`, `--idle-timeout`, ...).
    pub fn start_with(extra: &[&str]) -> Server {
        Server::start_on_with(backend_database(), None, extra)
    }

    /// A desk on `shared` (database, desk name), or on its own file; `join_code` given once to a
    /// desk joining a shared database.
    pub fn start_on(shared: Option<(String, String)>, join_code: Option<&str>) -> Server {
        Server::start_on_with(shared, join_code, &[])
    }

    fn start_on_with(shared: Option<(String, String)>, join_code: Option<&str>, extra: &[&str]) -> Server {
        let tmp = tempfile::tempdir().unwrap();
        let data_dir = tmp.path().join("data");
        let (child, base) = start_with(&data_dir, shared.as_ref(), join_code, extra);
        let (live, sandbox) = keys_on(&data_dir, shared.as_ref());
        Server {
            child,
            base,
            live,
            sandbox,
            data_dir,
            shared,
            _tmp: Some(tmp),
        }
    }

    /// A desk on the existing data folder `data_dir` (its own database file), e.g. one restored.
    pub fn start_in(data_dir: &Path) -> Server {
        let (child, base) = start(data_dir, None, None);
        let (live, sandbox) = keys_on(data_dir, None);
        Server {
            child,
            base,
            live,
            sandbox,
            data_dir: data_dir.to_path_buf(),
            shared: None,
            _tmp: None,
        }
    }

    /// Kills the process (SIGKILL: no chance to tidy up) and starts it again on the same data.
    pub fn kill_and_restart(&mut self) {
        self.kill();
        self.restart();
    }

    /// SIGKILL, and wait for the process to be gone.
    pub fn kill(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// Stops this desk and starts it again on the same data folder with `shared` as its database.
    pub fn reopen_on(&mut self, shared: Option<(String, String)>) {
        self.kill();
        self.shared = shared;
        self.restart();
    }

    /// Starts the server again on the same data (a new port).
    pub fn restart(&mut self) {
        let (child, base) = start(&self.data_dir, self.shared.as_ref(), None);
        self.child = child;
        self.base = base;
    }

    /// `packdesk-server` with `args`, on this desk's data folder and database.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.args(args).args(["--data-dir", self.data_dir.to_str().unwrap()]);
        if let Some((url, _)) = &self.shared {
            cmd.args(["--database", url]);
        }
        cmd
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn call(&self, method: &str, path: &str, key: &str, body: Option<&Value>) -> (u16, Value) {
        let client = reqwest::blocking::Client::new();
        let mut req = client
            .request(method.parse().unwrap(), self.url(path))
            .header("service-api-key", key);
        if let Some(b) = body {
            req = req.header("content-type", "application/json").body(b.to_string());
        }
        let resp = req.send().expect("request");
        let status = resp.status().as_u16();
        let text = resp.text().unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}")),
        )
    }

    /// A body that is not JSON (a CSV file): the answer's status and envelope.
    pub fn send_raw(&self, method: &str, path: &str, key: &str, content_type: &str, body: Vec<u8>) -> (u16, Value) {
        let resp = reqwest::blocking::Client::new()
            .request(method.parse().unwrap(), self.url(path))
            .header("service-api-key", key)
            .header("content-type", content_type)
            .body(body)
            .send()
            .expect("request");
        let status = resp.status().as_u16();
        let text = resp.text().unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}")),
        )
    }

    pub fn sandbox_ok(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let (status, v) = self.call(method, path, &self.sandbox, body);
        assert_eq!(
            (status, &v["meta"]),
            (200, &json!({"code": 200})),
            "{method} {path}: {v}"
        );
        v["data"].clone()
    }

    /// The desk's machine-wide setup (printers, print profiles) changes with the live key only.
    pub fn live_ok(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let (status, v) = self.call(method, path, &self.live, body);
        assert_eq!(
            (status, &v["meta"]),
            (200, &json!({"code": 200})),
            "{method} {path}: {v}"
        );
        v["data"].clone()
    }

    pub fn download(&self, url: &str, key: &str) -> (String, Vec<u8>) {
        let resp = reqwest::blocking::Client::new()
            .get(url)
            .header("service-api-key", key)
            .send()
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200, "download {url}");
        let ct = resp
            .headers()
            .get("content-type")
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        (ct, resp.bytes().unwrap().to_vec())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A raw printer of the test's own on 127.0.0.1: each connection's bytes go to the channel.
pub fn raw_printer() -> (u16, std::sync::mpsc::Receiver<Vec<u8>>) {
    use std::io::Read;
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for c in l.incoming() {
            let mut all = Vec::new();
            if c.and_then(|mut c| c.read_to_end(&mut all)).is_ok() && tx.send(all).is_err() {
                return;
            }
        }
    });
    (port, rx)
}

/// The page count `pdfinfo` prints.
pub fn pdfinfo_pages(info: &str) -> usize {
    info.lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .expect("pdfinfo names the pages")
        .trim()
        .parse()
        .unwrap()
}

/// The text of a PDF, as `pdftotext` reads it; `layout`: each row of the page kept on one line
/// (a table's columns side by side).
pub fn pdf_text(pdf: &[u8], layout: bool) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.pdf");
    std::fs::write(&path, pdf).unwrap();
    let mut command = Command::new("pdftotext");
    if layout {
        command.arg("-layout");
    }
    let out = command.arg(&path).arg("-").output().expect("pdftotext (poppler-utils)");
    assert!(
        out.status.success(),
        "the PDF reads: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A label record's tracking numbers.
pub fn tracking_numbers(label: &Value) -> Vec<String> {
    label["tracking_numbers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect()
}

/// The `path` of every detail of an error envelope, in order.
pub fn detail_paths(v: &Value) -> Vec<&str> {
    v["meta"]["details"]
        .as_array()
        .map(|d| d.iter().filter_map(|d| d["path"].as_str()).collect())
        .unwrap_or_default()
}

pub fn address(name: &str, country: &str, postal: &str) -> Value {
    json!({"contact_name": name, "street1": "1 Test Street", "city": "Testville", "postal_code": postal, "country": country})
}

/// A Yodel sandbox account.
pub fn yodel_account(s: &Server) -> String {
    let body = json!({"slug": "yodel", "description": "Yodel desk", "credentials": {"identity": "i", "password": "p", "account_number": "1"}, "timezone": "Europe/London"});
    s.sandbox_ok("POST", "/v3/shipper-accounts", Some(&body))["id"]
        .as_str()
        .unwrap()
        .to_string()
}

pub fn yodel_label(account: &str, parcels: usize) -> Value {
    let parcels: Vec<Value> = (0..parcels)
        .map(|i| json!({"weight": {"value": 1.0 + i as f64, "unit": "kg"}}))
        .collect();
    json!({
        "service_type": "yodel_std",
        "shipper_account": {"id": account},
        "shipment": {"ship_from": address("Sender Co", "GBR", "E16 2AA"), "ship_to": address("Jane Doe", "GBR", "M1 1AE"), "parcels": parcels}
    })
}
