//! A webhook receiver of the test's own: a small HTTP/1.1 server on 127.0.0.1 that keeps every
//! body it is sent and answers each POST with the status `answer(n)` gives for the n-th POST
//! (0-based). It stands where a warehouse system's endpoint would be; it is not a mock of
//! Packdesk. Connections are kept alive, as a real receiver's would be.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

type Answer = dyn Fn(usize) -> u16 + Send + Sync;

pub struct Receiver {
    pub url: String,
    bodies: Arc<Mutex<Vec<Vec<u8>>>>,
    posts: Arc<AtomicUsize>,
}

impl Receiver {
    pub fn start(answer: impl Fn(usize) -> u16 + Send + Sync + 'static) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/hooks/packdesk?secret=s3cret", listener.local_addr().unwrap());
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let posts = Arc::new(AtomicUsize::new(0));
        let answer: Arc<Answer> = Arc::new(answer);
        let (b, p) = (bodies.clone(), posts.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let (b, p, a) = (b.clone(), p.clone(), answer.clone());
                std::thread::spawn(move || serve(conn, &b, &p, &*a));
            }
        });
        Receiver { url, bodies, posts }
    }

    /// A receiver that answers 200 to everything.
    pub fn ok() -> Receiver {
        Receiver::start(|_| 200)
    }

    pub fn posts(&self) -> usize {
        self.posts.load(Ordering::SeqCst)
    }

    /// The bodies received, parsed (kept raw until asked, so the receiver stays cheap).
    pub fn bodies(&self) -> Vec<serde_json::Value> {
        self.bodies
            .lock()
            .unwrap()
            .iter()
            .map(|b| serde_json::from_slice(b).unwrap_or(serde_json::Value::Null))
            .collect()
    }

    /// Waits (up to `secs`) until at least `n` POSTs arrived.
    pub fn wait_for(&self, n: usize, secs: u64) -> bool {
        let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
        while self.posts() < n {
            if std::time::Instant::now() > end {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        true
    }
}

fn serve(conn: TcpStream, bodies: &Mutex<Vec<Vec<u8>>>, posts: &AtomicUsize, answer: &Answer) {
    let _ = conn.set_nodelay(true);
    let mut writer = conn.try_clone().unwrap();
    let mut reader = BufReader::new(conn);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0u8; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let n = posts.fetch_add(1, Ordering::SeqCst);
        bodies.lock().unwrap().push(body);
        let code = answer(n);
        // A redirect points at another page of this receiver (a client that followed it would
        // come back here).
        let location = if (300..400).contains(&code) {
            "location: /moved-here\r\n"
        } else {
            ""
        };
        let reply = format!("HTTP/1.1 {code} X\r\n{location}content-length: 2\r\n\r\nok");
        if writer.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}
