//! What the service's benchmarks share: a service on a fresh data folder, a raw 9100 printer on
//! loopback, and the figures of a set of timings.
#![allow(dead_code)] // each benchmark uses its part

use packdesk_model::ToRequest;
use packdesk_service::clock::SystemClock;
use packdesk_service::Service;
use serde_json::json;
use std::io::Read;
use std::net::TcpListener;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A service on a new data folder (removed when the folder guard is dropped).
pub fn service() -> (tempfile::TempDir, Service) {
    let dir = tempfile::tempdir().unwrap();
    let s = Service::open(dir.path(), "http://127.0.0.1:9", Arc::new(SystemClock))
        .unwrap()
        .service;
    (dir, s)
}

/// A ZPL printer on 127.0.0.1:9100's like, added to `s`: answers its id and, for each job it
/// read to its end, when its last byte arrived and how many bytes it had.
pub fn raw_printer(s: &Service) -> (String, mpsc::Receiver<(Instant, usize)>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for mut c in l.incoming().flatten() {
            let mut all = Vec::new();
            let _ = c.read_to_end(&mut all);
            let _ = tx.send((Instant::now(), all.len()));
        }
    });
    let printer = s
        .add_printer(
            json!({"name": "bench", "transport": "raw", "address": format!("127.0.0.1:{port}"), "format": "zpl"})
                .to_request()
                .unwrap(),
        )
        .unwrap()
        .id;
    (printer, rx)
}

/// (median, worst) of `times`, in ms.
pub fn median_and_worst(times: &mut [Duration]) -> (f64, f64) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (ms(times[times.len() / 2]), ms(times[times.len() - 1]))
}

/// Times `f` `rounds` times and prints the median and the worst, named.
pub fn time(name: &str, rounds: usize, mut f: impl FnMut()) {
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    let (median, worst) = median_and_worst(&mut times);
    println!("  {name:<52} median {median:>8.2} ms   worst {worst:>8.2} ms");
}
