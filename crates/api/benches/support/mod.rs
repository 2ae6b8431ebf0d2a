//! What the HTTP benchmarks share: the real `packdesk-server` on 127.0.0.1 with a temporary data
//! folder, and a minimal keep-alive client.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

/// A connection's bytes: plain TCP or TLS (rustls) over it.
pub trait Stream: Read + Write + Send {}
impl<S: Read + Write + Send> Stream for S {}

/// A minimal HTTP/1.1 keep-alive client: enough for a load test, and cheap on the CPU the server
/// needs.
pub struct Conn {
    stream: BufReader<Box<dyn Stream>>,
    /// The last answer's `Server-Timing` header (where the desk spent its time).
    pub last_timing: String,
}

impl Conn {
    pub fn open(addr: &str) -> Conn {
        Conn::open_with(addr, None)
    }

    /// Over TLS when `tls` is given (a client trusting the desk's certificate), else plain.
    pub fn open_with(addr: &str, tls: Option<&std::sync::Arc<rustls::ClientConfig>>) -> Conn {
        let s = TcpStream::connect(addr).unwrap();
        s.set_nodelay(true).unwrap();
        let stream: Box<dyn Stream> = match tls {
            None => Box::new(s),
            Some(config) => {
                let ip: std::net::IpAddr = addr.rsplit_once(':').unwrap().0.parse().unwrap();
                let tls = rustls::ClientConnection::new(config.clone(), ip.into()).unwrap();
                Box::new(rustls::StreamOwned::new(tls, s))
            }
        };
        Conn {
            stream: BufReader::new(stream),
            last_timing: String::new(),
        }
    }

    pub fn request(&mut self, method: &str, path: &str, key: &str, body: &str) -> (u16, String) {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nhost: bench\r\nservice-api-key: {key}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        let mut request = head.into_bytes();
        request.extend_from_slice(body.as_bytes());
        // One write: over TLS, one record.
        self.stream.get_mut().write_all(&request).unwrap();
        self.stream.get_mut().flush().unwrap();
        let mut status = String::new();
        self.stream.read_line(&mut status).unwrap();
        let code: u16 = status.split_whitespace().nth(1).unwrap().parse().unwrap();
        let mut len = 0usize;
        loop {
            let mut line = String::new();
            self.stream.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            let lower = line.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                len = v.trim().parse().unwrap();
            }
            if let Some(v) = lower.strip_prefix("server-timing:") {
                self.last_timing = v.trim().to_string();
            }
        }
        let mut buf = vec![0; len];
        self.stream.read_exact(&mut buf).unwrap();
        (code, String::from_utf8(buf).unwrap())
    }
}

pub struct Server {
    child: Child,
    dir: std::path::PathBuf,
    /// host:port
    pub addr: String,
    pub sandbox_key: String,
    pub live_key: String,
}

impl Server {
    pub fn start(name: &str) -> Server {
        Server::start_on(name, &[], &[])
    }

    /// A desk of the shared database `url` named `desk` (`join`: the join code of a further desk).
    pub fn start_shared(name: &str, url: &str, desk: &str, join: Option<&str>) -> Server {
        let mut args = vec!["--database", url, "--desk", desk];
        if let Some(code) = join {
            args.extend(["--join-code", code]);
        }
        Server::start_on(name, &args, &[])
    }

    /// The join code a further desk of this desk's shared database starts with.
    pub fn join_code(&self, url: &str) -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_packdesk-server"))
            .args(["keys", "--data-dir", self.dir.to_str().unwrap(), "--database", url])
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("join ").map(String::from))
            .expect("a join code")
    }

    /// A desk with the global options `extra` (its database) and the server's own `serving`
    /// (`--tls-cert`, ...).
    pub fn start_on(name: &str, extra: &[&str], serving: &[&str]) -> Server {
        let dir = std::env::temp_dir().join(format!("packdesk-{name}-{}", std::process::id()));
        let mut child = Command::new(env!("CARGO_BIN_EXE_packdesk-server"))
            .args(["--data-dir", dir.to_str().unwrap(), "--listen", "127.0.0.1:0"])
            .args(extra)
            .args(serving)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let addr = loop {
            let l = lines.next().unwrap().unwrap();
            let listening = l.strip_prefix("packdesk-server listening on ");
            if let Some(a) = listening.and_then(|u| u.strip_prefix("http://").or(u.strip_prefix("https://"))) {
                break a.to_string();
            }
        };
        std::thread::spawn(move || for _ in lines {});
        // Held from here, so a failure below still stops the process (Drop).
        let mut server = Server {
            child,
            dir,
            addr,
            sandbox_key: String::new(),
            live_key: String::new(),
        };
        // `extra` (the database, the desk) are global options: `keys` takes them too.
        let keys = Command::new(env!("CARGO_BIN_EXE_packdesk-server"))
            .args(["keys", "--data-dir", server.dir.to_str().unwrap()])
            .args(extra)
            .output()
            .unwrap();
        let keys = String::from_utf8(keys.stdout).unwrap();
        server.sandbox_key = keys
            .lines()
            .find_map(|l| l.strip_prefix("sandbox "))
            .unwrap_or_else(|| panic!("no sandbox key in: {keys}"))
            .to_string();
        server.live_key = keys
            .lines()
            .find_map(|l| l.strip_prefix("live "))
            .unwrap_or_else(|| panic!("no live key in: {keys}"))
            .to_string();
        server
    }

    /// The size of the desk's database file (SQLite) and its write-ahead log.
    pub fn database_bytes(&self) -> u64 {
        ["packdesk.sqlite3", "packdesk.sqlite3-wal"]
            .iter()
            .filter_map(|f| std::fs::metadata(self.dir.join(f)).ok())
            .map(|m| m.len())
            .sum()
    }

    /// The server process's resident memory, in bytes (Linux).
    pub fn rss_bytes(&self) -> u64 {
        self.status("VmRSS") * 1024
    }

    /// The process id of the desk's server.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A sample of the desk's `/metrics` without labels (`packdesk_writer_held_seconds`), if it
    /// has one.
    pub fn metric(&self, name: &str) -> Option<f64> {
        let (code, text) = Conn::open(&self.addr).request("GET", "/metrics", &self.live_key, "");
        assert_eq!(code, 200, "{text}");
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
            .and_then(|v| v.trim().parse().ok())
    }

    /// A number of the server process's `/proc/<pid>/status` (`VmRSS`, `RssAnon`, `RssFile`
    /// in kB; `Threads`); 0 when unknown.
    pub fn status(&self, field: &str) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            })
            .unwrap_or(0)
    }

    /// The size of the desk database's write-ahead log.
    pub fn wal_bytes(&self) -> u64 {
        std::fs::metadata(self.dir.join("packdesk.sqlite3-wal")).map_or(0, |m| m.len())
    }

    /// Everything in the desk's data folder (database, its log, logs, keys), in bytes.
    pub fn data_folder_bytes(&self) -> u64 {
        fn size(path: &std::path::Path) -> u64 {
            match std::fs::symlink_metadata(path) {
                Ok(m) if m.is_dir() => std::fs::read_dir(path)
                    .map(|entries| entries.flatten().map(|e| size(&e.path())).sum())
                    .unwrap_or(0),
                Ok(m) => m.len(),
                Err(_) => 0,
            }
        }
        size(&self.dir)
    }

    /// One `packdesk-server backup` of this desk in a thread; it answers how long it took.
    pub fn backup_once(&self) -> std::thread::JoinHandle<std::time::Duration> {
        let dir = self.dir.clone();
        std::thread::spawn(move || {
            let start = std::time::Instant::now();
            back_up(&dir, "large");
            start.elapsed()
        })
    }

    /// `packdesk-server backup` of this desk, one after another until told to stop; the thread
    /// answers how many it made.
    pub fn backup_loop(
        &self,
    ) -> (
        std::sync::Arc<std::sync::atomic::AtomicBool>,
        std::thread::JoinHandle<usize>,
    ) {
        use std::sync::atomic::Ordering;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (dir, halt) = (self.dir.clone(), stop.clone());
        let made = std::thread::spawn(move || {
            let mut n = 0;
            while !halt.load(Ordering::SeqCst) {
                back_up(&dir, &n.to_string());
                n += 1;
            }
            n
        });
        (stop, made)
    }

    /// A Yodel sandbox account; answers its id.
    pub fn yodel_account(&self, c: &mut Conn) -> String {
        let (_, acct) = c.request("POST", "/v3/shipper-accounts", &self.sandbox_key, r#"{"slug":"yodel","description":"bench","credentials":{"identity":"i","password":"p","account_number":"1"}}"#);
        let acct: serde_json::Value = serde_json::from_str(&acct).unwrap();
        acct["data"]["id"].as_str().unwrap().to_string()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // `PACKDESK_BENCH_KEEP=1`: the data folder stays, to be looked into (sizes, `dbstat`).
        match std::env::var_os("PACKDESK_BENCH_KEEP") {
            None => {
                let _ = std::fs::remove_dir_all(&self.dir);
            }
            Some(_) => eprintln!("kept the desk's data folder: {}", self.dir.display()),
        }
    }
}

/// `packdesk-server backup` of the desk in `dir` into a file named by `name`, removed after.
fn back_up(dir: &std::path::Path, name: &str) {
    let to = std::env::temp_dir().join(format!("packdesk-bench-backup-{}-{name}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_packdesk-server"))
        .args([
            "backup",
            "--data-dir",
            dir.to_str().unwrap(),
            "--to",
            to.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_file(&to);
}

/// Sends the webhooks of `key`'s environment to `url` (a receiver of the bench's own).
pub fn webhooks_to(c: &mut Conn, key: &str, url: &str) {
    let (code, text) = c.request(
        "PUT",
        "/desk/webhook",
        key,
        &serde_json::json!({"url": url}).to_string(),
    );
    assert_eq!(code, 200, "{text}");
}

/// A 1-parcel 4x6 label request of `account`.
pub fn label_body(account: &str, extra: serde_json::Value) -> String {
    let mut body = serde_json::json!({
        "service_type": "yodel_std", "shipper_account": {"id": account}, "paper_size": "4x6",
        "references": ["BENCH"],
        "shipment": {
            "ship_from": {"contact_name": "Packdesk Ltd", "street1": "1 Dock Road", "city": "London", "postal_code": "E16 2AA", "country": "GBR"},
            "ship_to": {"contact_name": "Jane Doe", "street1": "22 High Street", "city": "Manchester", "postal_code": "M1 1AE", "country": "GBR"},
            "parcels": [{"weight": {"value": 1.5, "unit": "kg"}}]
        }
    });
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        b.extend(e.clone());
    }
    body.to_string()
}

/// (p50, p99, max) in ms of sorted latencies.
pub fn percentiles(lat: &mut [std::time::Duration]) -> (f64, f64, f64) {
    lat.sort();
    let n = lat.len();
    let p = |q: f64| lat[((n as f64 * q) as usize).min(n - 1)].as_secs_f64() * 1e3;
    (p(0.50), p(0.99), lat[n - 1].as_secs_f64() * 1e3)
}

/// One answer of `post_labels`.
pub struct Answer {
    /// When it was sent.
    pub sent: std::time::Instant,
    /// From sending the request to its last byte.
    pub took: std::time::Duration,
    pub body: String,
    /// Its `Server-Timing` header: `phase;dur=ms, ...`.
    pub timing: String,
}

impl Answer {
    /// The milliseconds the desk says it spent in each phase of this answer.
    pub fn phases(&self) -> impl Iterator<Item = (&str, f64)> {
        self.timing.split(',').filter_map(|p| {
            let (name, dur) = p.trim().split_once(";dur=")?;
            Some((name, dur.parse().ok()?))
        })
    }
}

/// Where the desk's time went, phase by phase (the `Server-Timing` headers): each phase's p50 and
/// p99 over every answer, and its mean over the slowest 1 %, beside what the client measured
/// (`client`: the time outside the desk's handler: the network, the client's and the desk's
/// scheduling).
pub fn phase_report<A: std::borrow::Borrow<Answer>>(answers: &[A]) {
    let answers: Vec<&Answer> = answers.iter().map(|a| a.borrow()).collect();
    let mut by_phase: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    let mut slow: Vec<&Answer> = answers.clone();
    slow.sort_by_key(|a| std::cmp::Reverse(a.took));
    slow.truncate((answers.len() / 100).max(1));
    for a in &answers {
        for (name, ms) in a.phases() {
            by_phase.entry(name.to_string()).or_default().push(ms);
        }
    }
    println!("phase        p50 ms   p99 ms   mean of the slowest 1 % (ms)");
    // Each phase the desk names, in a label's order, then the whole.
    let order = packdesk_store::timing::Phase::ALL
        .map(|p| p.name())
        .into_iter()
        .chain(["total"]);
    for name in order {
        let Some(v) = by_phase.get_mut(name) else { continue };
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() as f64 * q) as usize).min(v.len() - 1)];
        // A phase absent from an answer took no time there.
        let in_slow: f64 = slow
            .iter()
            .map(|a| a.phases().find(|(n, _)| *n == name).map_or(0.0, |(_, ms)| ms))
            .sum::<f64>()
            / slow.len() as f64;
        let share = format!("{in_slow:.2}");
        println!(
            "{name:<10} {:>8.3} {:>8.3}   {share:>8}   ({} of {} answers)",
            at(0.5),
            at(0.99),
            v.len(),
            answers.len()
        );
    }
    let outside: Vec<f64> = slow
        .iter()
        .map(|a| {
            let total = a.phases().find(|(n, _)| *n == "total").map_or(0.0, |(_, ms)| ms);
            a.took.as_secs_f64() * 1e3 - total
        })
        .collect();
    println!(
        "client     outside the desk's handler, the slowest 1 %: mean {:.2} ms (of {:.2} ms each)",
        outside.iter().sum::<f64>() / outside.len() as f64,
        slow.iter().map(|a| a.took.as_secs_f64() * 1e3).sum::<f64>() / slow.len() as f64
    );
}

/// `clients` keep-alive clients at once, client `c` on `addrs[c % addrs.len()]`, each sending
/// `per_client` times `POST /v3/labels` with `body(c, i)`; every answer must hold `expect` (a
/// meta code such as `"code":200`); over TLS when `tls` is given. Answers each request's latency,
/// answer body and where the desk spent its time.
pub fn post_labels(
    tls: Option<std::sync::Arc<rustls::ClientConfig>>,
    addrs: &[String],
    key: &str,
    clients: usize,
    per_client: usize,
    expect: &'static str,
    body: impl Fn(usize, usize) -> String + Send + Sync + 'static,
) -> Vec<Answer> {
    let clients = (0..clients).map(|c| addrs[c % addrs.len()].clone()).collect();
    labels_from(tls, clients, key, Until::Each(per_client), expect, body)
}

/// `post_labels` from `clients` clients on `addr` for `length` (as many labels as they make).
pub fn post_labels_for(
    addr: &str,
    key: &str,
    clients: usize,
    length: std::time::Duration,
    body: impl Fn(usize, usize) -> String + Send + Sync + 'static,
) -> Vec<Answer> {
    let until = Until::Time(std::time::Instant::now() + length);
    labels_from(None, vec![addr.to_string(); clients], key, until, "\"code\":200", body)
}

/// How long each client of `labels_from` goes on.
#[derive(Clone, Copy)]
enum Until {
    Each(usize),
    Time(std::time::Instant),
}

/// Client `c` on `addrs[c]`, sending `POST /v3/labels` with `body(c, i)` until `until`.
fn labels_from(
    tls: Option<std::sync::Arc<rustls::ClientConfig>>,
    addrs: Vec<String>,
    key: &str,
    until: Until,
    expect: &'static str,
    body: impl Fn(usize, usize) -> String + Send + Sync + 'static,
) -> Vec<Answer> {
    let body = std::sync::Arc::new(body);
    let handles: Vec<_> = addrs
        .into_iter()
        .enumerate()
        .map(|(c, addr)| {
            let (key, body, tls) = (key.to_string(), body.clone(), tls.clone());
            std::thread::spawn(move || {
                let mut conn = Conn::open_with(&addr, tls.as_ref());
                let mut answers = Vec::new();
                for i in 0.. {
                    match until {
                        Until::Each(n) if i >= n => break,
                        Until::Time(end) if std::time::Instant::now() >= end => break,
                        _ => {}
                    }
                    let sent = std::time::Instant::now();
                    let (code, text) = conn.request("POST", "/v3/labels", &key, &body(c, i));
                    let took = sent.elapsed();
                    assert!(code == 200 && text.contains(expect), "{text}");
                    answers.push(Answer {
                        sent,
                        took,
                        body: text,
                        timing: std::mem::take(&mut conn.last_timing),
                    });
                }
                answers
            })
        })
        .collect();
    handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
}

/// The p99 (ms) of each `window` of the answers, by when they were sent from `start`, with the
/// window's number (from 0 at `start`): a window with fewer than 100 answers is left out (its p99
/// would be its maximum), so the number, not the place in the list, says when a window was.
pub fn window_p99s(answers: &[Answer], start: std::time::Instant, window: std::time::Duration) -> Vec<(u64, f64)> {
    let mut windows: std::collections::BTreeMap<u64, Vec<std::time::Duration>> = Default::default();
    for a in answers {
        let at = a.sent.saturating_duration_since(start).as_nanos() / window.as_nanos();
        windows.entry(at as u64).or_default().push(a.took);
    }
    windows
        .into_iter()
        .filter(|(_, w)| w.len() >= 100)
        .map(|(n, mut w)| (n, percentiles(&mut w).1))
        .collect()
}

/// The lowest and the highest of the windows' p99s (`window_p99s`), in ms; (0, 0) for none.
pub fn window_range(windows: &[(u64, f64)]) -> (f64, f64) {
    let p99s = windows.iter().map(|(_, p99)| *p99);
    let best = p99s.clone().fold(f64::MAX, f64::min);
    (if windows.is_empty() { 0.0 } else { best }, p99s.fold(0.0, f64::max))
}

/// A certificate for 127.0.0.1 made for the benchmark (`dir/desk.crt`, `dir/desk.key`, given to
/// the desk as the warehouse's), and a TLS client trusting it alone.
pub fn bench_certificate(dir: &std::path::Path) -> (Vec<String>, std::sync::Arc<rustls::ClientConfig>) {
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let cert = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()])
        .unwrap()
        .self_signed(&key)
        .unwrap();
    std::fs::create_dir_all(dir).unwrap();
    let (cert_file, key_file) = (dir.join("desk.crt"), dir.join("desk.key"));
    std::fs::write(&cert_file, cert.pem()).unwrap();
    std::fs::write(&key_file, key.serialize_pem()).unwrap();
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert.der().clone()).unwrap();
    let config =
        rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
    let args = vec![
        "--tls-cert".to_string(),
        cert_file.to_str().unwrap().to_string(),
        "--tls-key".to_string(),
        key_file.to_str().unwrap().to_string(),
    ];
    (args, std::sync::Arc::new(config))
}

/// "CPU a label: desks 0.640 ms, ... (of 1.206 ms the machine's 2 cores had a label)": each
/// part's CPU time (spent between two `cpu_time` readings) over `labels`, beside the time the
/// machine's cores had for each label over `wall`.
pub fn cpu_a_label(spent: &[(&str, std::time::Duration)], labels: usize, wall: std::time::Duration) -> String {
    let labels = labels.max(1) as f64;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let parts: Vec<String> = spent
        .iter()
        .map(|(who, cpu)| format!("{who} {:.3} ms", cpu.as_secs_f64() * 1000.0 / labels))
        .collect();
    format!(
        "CPU a label: {} (of {:.3} ms the machine's {cores} cores had a label)",
        parts.join(", "),
        wall.as_secs_f64() * 1000.0 * cores as f64 / labels,
    )
}

/// CPU time (user and system) the processes `of` (by process id and name) have spent so far.
pub fn cpu_time(of: impl Fn(u32, &str) -> bool) -> std::time::Duration {
    // SAFETY: sysconf reads a constant of the system.
    let ticks_per_s = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let mut ticks = 0u64;
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (name) state ...`: the name may hold spaces, so the fields count from its `)`.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        if !of(pid, &stat[open + 1..close]) {
            continue;
        }
        let fields: Vec<&str> = stat[close + 2..].split(' ').collect();
        // utime and stime: the 14th and 15th fields of the line, 12th and 13th after the name.
        ticks += fields.get(11).and_then(|t| t.parse::<u64>().ok()).unwrap_or(0);
        ticks += fields.get(12).and_then(|t| t.parse::<u64>().ok()).unwrap_or(0);
    }
    std::time::Duration::from_secs_f64(ticks as f64 / ticks_per_s)
}
