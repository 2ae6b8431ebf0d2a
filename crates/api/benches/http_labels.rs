//! Sync label creation over HTTP: the real `packdesk-server` binary on 127.0.0.1, 8 concurrent
//! clients on keep-alive connections, 1-parcel 4x6 PDF labels. `cargo bench -p packdesk-api`.
//! Prints labels/s and latency p50/p99.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CLIENTS: usize = 8;

/// A minimal HTTP/1.1 keep-alive client: enough for a load test, and cheap on the CPU the server
/// needs.
struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Conn {
    fn open(addr: &str) -> Conn {
        let s = TcpStream::connect(addr).unwrap();
        s.set_nodelay(true).unwrap();
        Conn { reader: BufReader::new(s.try_clone().unwrap()), writer: s }
    }

    fn request(&mut self, method: &str, path: &str, key: &str, body: &str) -> (u16, String) {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nhost: bench\r\nservice-api-key: {key}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        self.writer.write_all(head.as_bytes()).unwrap();
        self.writer.write_all(body.as_bytes()).unwrap();
        let mut status = String::new();
        self.reader.read_line(&mut status).unwrap();
        let code: u16 = status.split_whitespace().nth(1).unwrap().parse().unwrap();
        let mut len = 0usize;
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                len = v.trim().parse().unwrap();
            }
        }
        let mut buf = vec![0; len];
        self.reader.read_exact(&mut buf).unwrap();
        (code, String::from_utf8(buf).unwrap())
    }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let per_client = if full { 1500 } else { 20 };
    let dir = std::env::temp_dir().join(format!("packdesk-bench-{}", std::process::id()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_packdesk-server"))
        .args(["--data-dir", dir.to_str().unwrap(), "--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = loop {
        let l = lines.next().unwrap().unwrap();
        if let Some(a) = l.strip_prefix("packdesk-server listening on http://") {
            break a.to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    let keys = Command::new(env!("CARGO_BIN_EXE_packdesk-server")).args(["keys", "--data-dir", dir.to_str().unwrap()]).output().unwrap();
    let keys = String::from_utf8(keys.stdout).unwrap();
    let key = keys.lines().find_map(|l| l.strip_prefix("sandbox ")).unwrap().to_string();

    let mut c = Conn::open(&addr);
    let (_, acct) = c.request("POST", "/v3/shipper-accounts", &key, r#"{"slug":"yodel","description":"bench","credentials":{"identity":"i","password":"p","account_number":"1"}}"#);
    let acct: serde_json::Value = serde_json::from_str(&acct).unwrap();
    let id = acct["data"]["id"].as_str().unwrap().to_string();
    let body = serde_json::json!({
        "service_type": "yodel_std", "shipper_account": {"id": id}, "paper_size": "4x6",
        "references": ["BENCH"],
        "shipment": {
            "ship_from": {"contact_name": "Packdesk Ltd", "street1": "1 Dock Road", "city": "London", "postal_code": "E16 2AA", "country": "GBR"},
            "ship_to": {"contact_name": "Jane Doe", "street1": "22 High Street", "city": "Manchester", "postal_code": "M1 1AE", "country": "GBR"},
            "parcels": [{"weight": {"value": 1.5, "unit": "kg"}}]
        }
    })
    .to_string();
    // Warm-up.
    for _ in 0..50 {
        assert_eq!(c.request("POST", "/v3/labels", &key, &body).0, 200);
    }
    let start = Instant::now();
    let handles: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let (addr, key, body) = (addr.clone(), key.clone(), body.clone());
            std::thread::spawn(move || {
                let mut c = Conn::open(&addr);
                let mut lat = Vec::with_capacity(per_client);
                for _ in 0..per_client {
                    let t = Instant::now();
                    let (code, text) = c.request("POST", "/v3/labels", &key, &body);
                    lat.push(t.elapsed());
                    assert!(code == 200 && text.contains("\"code\":200"), "{text}");
                }
                lat
            })
        })
        .collect();
    let mut lat: Vec<Duration> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
    let wall = start.elapsed();
    lat.sort();
    let n = lat.len();
    let p = |q: f64| lat[((n as f64 * q) as usize).min(n - 1)].as_secs_f64() * 1e3;
    println!(
        "POST /v3/labels  {CLIENTS} clients  {n} labels in {:.2} s  =  {:.0} labels/s   p50 {:.2} ms   p99 {:.2} ms   max {:.2} ms",
        wall.as_secs_f64(),
        n as f64 / wall.as_secs_f64(),
        p(0.50),
        p(0.99),
        lat[n - 1].as_secs_f64() * 1e3
    );
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}
