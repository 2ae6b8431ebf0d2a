//! The desk under a working day's load for a long time (issue 42): the real `packdesk-server` on
//! 127.0.0.1 making 500 labels a second (1-parcel 4x6 ZPL labels; one in ten async, its webhook
//! delivered to a receiver of the bench's own), each printed on a raw 9100 printer of the bench's
//! own, and History searched every second. Every 5 seconds the p99 of the labels answered in
//! them (and where the slowest labels spent their time, from their `Server-Timing`); every
//! sample, the server's memory (the lowest RSS read over one of its periods of giving freed
//! memory back, `RSS_READ_FOR`), its write-ahead log and its data folder.
//! `cargo bench -p packdesk-api --bench soak` runs 30 minutes (`PACKDESK_SOAK_MINUTES` says
//! otherwise); the quick run (no `--bench`, as the test command runs it) one minute.
//! It says whether memory grew by at most 10 % after the first minute, the 5-second p99 stayed
//! steady, the log stayed bounded and the folder grew linearly with the labels.

#[path = "../../service/tests/it/common/receiver.rs"]
mod receiver;
mod support;

use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::{Answer, Conn, Server};

const RATE: f64 = 500.0;
const CLIENTS: usize = 6;
const WINDOW: Duration = Duration::from_secs(5);
/// A window's p99 past this is listed (goal 1's bound for one desk's minute).
const SLOW_WINDOW_MS: f64 = 15.0;
/// A memory sample is the lowest of reads of the RSS this far apart over `RSS_READ_FOR`: a
/// little longer than the server's period of giving freed memory back (`memory::TRIM_EVERY`,
/// 5 s), so it includes a moment just after one. Between two, the RSS also holds what was freed
/// since the last (on 2026-12-02 single reads a few seconds apart differed by 5 MB and more, as
/// did a median of five reads 20 ms apart), and a search in flight or a label's buffers for a
/// moment; a leak raises the lowest read as much as any.
const RSS_READ_EVERY: Duration = Duration::from_millis(100);
const RSS_READ_FOR: Duration = Duration::from_millis(5_600);

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let minutes: f64 = std::env::var("PACKDESK_SOAK_MINUTES")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(if full { 30.0 } else { 1.0 });
    let length = Duration::from_secs_f64(minutes * 60.0);
    // Samples of memory, log and folder: every minute, or every 10 s in a short run.
    let every = if minutes >= 5.0 {
        Duration::from_secs(60)
    } else {
        Duration::from_secs(10)
    };

    let server = Server::start("soak");
    let (addr, key, live) = (server.addr.clone(), server.sandbox_key.clone(), server.live_key.clone());
    let mut c = Conn::open(&addr);

    // The printer: each connection is a job, read to its end.
    let printer = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = printer.local_addr().unwrap().port();
    let printed = Arc::new(AtomicUsize::new(0));
    let jobs = printed.clone();
    std::thread::spawn(move || {
        for conn in printer.incoming().flatten() {
            let jobs = jobs.clone();
            std::thread::spawn(move || {
                let mut conn = conn;
                let mut sink = Vec::new();
                if conn.read_to_end(&mut sink).is_ok() && !sink.is_empty() {
                    jobs.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    let (code, made) = c.request(
        "POST",
        "/desk/printers",
        &live,
        &serde_json::json!({"name": "Soak Zebra", "transport": "raw", "address": format!("127.0.0.1:{port}"), "format": "zpl"}).to_string(),
    );
    assert_eq!(code, 200, "{made}");
    let printer_id = serde_json::from_str::<serde_json::Value>(&made).unwrap()["data"]["id"].clone();
    let (code, text) = c.request(
        "PUT",
        "/desk/print-profiles/label",
        &live,
        &serde_json::json!({"printer_id": printer_id, "stock": "4x6", "auto_print": true}).to_string(),
    );
    assert_eq!(code, 200, "{text}");

    // Webhooks on.
    let rx = receiver::Receiver::ok();
    support::webhooks_to(&mut c, &key, &rx.url);

    // A Tipsa account (ZPL labels: the printer takes them as they are).
    let body = r#"{"slug":"tipsa","description":"Soak","credentials":{"password":"p","agency_code":"1","customer_code":"2","department_code":"3"}}"#;
    let (code, text) = c.request("POST", "/v3/shipper-accounts", &key, body);
    assert_eq!(code, 200, "{text}");
    let account = serde_json::from_str::<serde_json::Value>(&text).unwrap()["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let label = move |n: usize| {
        serde_json::json!({
            "service_type": "tipsa_10_horas", "shipper_account": {"id": account}, "file_type": "zpl",
            "paper_size": "4x6", "async": n % 10 == 9,
            "shipment": {
                "ship_from": {"contact_name": "Almacén Central", "street1": "Calle Mayor 1", "city": "Madrid", "postal_code": "28001", "country": "ESP"},
                "ship_to": {"contact_name": format!("Cliente {n}"), "street1": "Gran Via 2", "city": "Barcelona", "postal_code": "08001", "country": "ESP"},
                "parcels": [{"weight": {"value": 1.5, "unit": "kg"}}]
            }
        })
        .to_string()
    };

    // The desk's daily backup copies the database in one read, and the WAL holds every write of
    // its time: a soak that passes the backup hour (2:00 by default) has one (counted below).
    let backups = |c: &mut Conn| {
        let (code, text) = c.request("GET", "/desk/backups", &live, "");
        assert_eq!(code, 200, "{text}");
        serde_json::from_str::<serde_json::Value>(&text).unwrap()["data"]["backups"]
            .as_array()
            .map_or(0, Vec::len)
    };
    let backups_before = backups(&mut c);

    // The load: each client sends at its share of the rate, on schedule.
    let start = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let answers: Arc<Mutex<Vec<Answer>>> = Arc::default();
    let sent = Arc::new(AtomicUsize::new(0));
    let interval = Duration::from_secs_f64(CLIENTS as f64 / RATE);
    let clients: Vec<_> = (0..CLIENTS)
        .map(|client| {
            let (addr, key, stop, answers, sent) =
                (addr.clone(), key.clone(), stop.clone(), answers.clone(), sent.clone());
            let label = label.clone();
            std::thread::spawn(move || {
                let mut conn = Conn::open(&addr);
                let first = start + interval.mul_f64(client as f64 / CLIENTS as f64);
                for i in 0.. {
                    let due = first + interval * i;
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    if let Some(wait) = due.checked_duration_since(Instant::now()) {
                        std::thread::sleep(wait);
                    }
                    let n = sent.fetch_add(1, Ordering::Relaxed);
                    let t = Instant::now();
                    let (code, text) = conn.request("POST", "/v3/labels", &key, &label(n));
                    let took = t.elapsed();
                    assert!(
                        code == 200 && (text.contains("\"code\":200") || text.contains("\"code\":3001")),
                        "{text:.300}"
                    );
                    let timing = std::mem::take(&mut conn.last_timing);
                    answers.lock().unwrap().push(Answer {
                        sent: t,
                        took,
                        body: String::new(),
                        timing,
                    });
                }
            })
        })
        .collect();

    // History, searched every second as an operator would.
    // Each search: when it was sent (from the start), how long it took.
    let searches: Arc<Mutex<Vec<(Duration, Duration)>>> = Arc::default();
    let searcher = {
        let (addr, key, stop, searches) = (addr.clone(), key.clone(), stop.clone(), searches.clone());
        std::thread::spawn(move || {
            let mut conn = Conn::open(&addr);
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let t = Instant::now();
                let (code, _) = conn.request("GET", &format!("/desk/history?s=Cliente%20{n}&limit=50"), &key, "");
                assert_eq!(code, 200);
                searches.lock().unwrap().push((t - start, t.elapsed()));
                std::thread::sleep(Duration::from_secs(1));
            }
        })
    };

    // Samples: (at, labels answered, RSS, write-ahead log, data folder).
    let mut samples: Vec<(Duration, usize, u64, u64, u64)> = Vec::new();
    let folder_at_start = server.data_folder_bytes();
    let mut sample_at = Duration::ZERO;
    while sample_at < length {
        // Each sample ends at its minute (or the run's end), its reads of the RSS before it.
        sample_at = (sample_at + every).min(length);
        std::thread::sleep(sample_at.saturating_sub(RSS_READ_FOR).saturating_sub(start.elapsed()));
        let mut lowest = server.rss_bytes();
        while start.elapsed() < sample_at {
            std::thread::sleep(RSS_READ_EVERY);
            lowest = lowest.min(server.rss_bytes());
        }
        let done = answers.lock().unwrap().len();
        samples.push((
            start.elapsed(),
            done,
            lowest,
            server.wal_bytes(),
            server.data_folder_bytes(),
        ));
        let s = samples.last().unwrap();
        // What holds the memory, from the server's /metrics.
        let (_, metrics) = Conn::open(&addr).request("GET", "/metrics", &live, "");
        let part = |name: &str| {
            let line = format!("packdesk_memory_bytes{{part=\"{name}\"}} ");
            metrics
                .lines()
                .find_map(|l| l.strip_prefix(line.as_str()))
                .and_then(|v| v.trim().parse::<f64>().ok())
                .map_or(f64::NAN, |b| b / 1e6)
        };
        println!(
            "{:>6.0} s  {:>8} labels  RSS {:>6.1} MB (anon {:.1}, file {:.1}, {} threads; SQLite {:.1}, heap in use {:.1}, heap free {:.1})  WAL {:>6.1} MB  folder {:>8.1} MB  printed {:>8}  webhooks {:>7}",
            s.0.as_secs_f64(),
            s.1,
            s.2 as f64 / 1e6,
            server.status("RssAnon") as f64 * 1024.0 / 1e6,
            server.status("RssFile") as f64 * 1024.0 / 1e6,
            server.status("Threads"),
            part("sqlite"),
            part("heap_in_use"),
            part("heap_free"),
            s.3 as f64 / 1e6,
            s.4 as f64 / 1e6,
            printed.load(Ordering::Relaxed),
            rx.posts()
        );
    }
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        client.join().unwrap();
    }
    searcher.join().unwrap();

    // The p99 of each 5-second window, and the windows past the goal of one desk's minute.
    let answers = std::mem::take(&mut *answers.lock().unwrap());
    let window_p99 = support::window_p99s(&answers, start, WINDOW);
    let slow_windows: Vec<String> = window_p99
        .iter()
        .filter(|(_, p99)| *p99 > SLOW_WINDOW_MS)
        .map(|(w, p99)| format!("{}s {p99:.1}", w * WINDOW.as_secs()))
        .collect();
    let mut all: Vec<Duration> = answers.iter().map(|a| a.took).collect();
    let (p50, p99, max) = support::percentiles(&mut all);
    let rate = answers.len() as f64 / length.as_secs_f64();
    let (best_window, worst_window) = support::window_range(&window_p99);
    // Where the desk spent the slowest labels' time (their `Server-Timing`).
    support::phase_report(&answers);
    println!(
        "5-s windows with a p99 over {SLOW_WINDOW_MS} ms ({} of {}), from the start: {}",
        slow_windows.len(),
        window_p99.len(),
        slow_windows.join(", ")
    );
    let searched = searches.lock().unwrap().clone();
    // What the slow windows' labels waited for, and the searches that ran long (a long read
    // keeps the WAL from being written from its start again).
    let slow_numbers: Vec<u64> = window_p99
        .iter()
        .filter(|(_, p99)| *p99 > SLOW_WINDOW_MS)
        .map(|(w, _)| *w)
        .collect();
    if !slow_numbers.is_empty() {
        let in_slow: Vec<&Answer> = answers
            .iter()
            .filter(|a| slow_numbers.contains(&(a.sent.saturating_duration_since(start).as_secs() / WINDOW.as_secs())))
            .collect();
        println!("in those windows:");
        support::phase_report(&in_slow);
    }
    let mut longest = searched.clone();
    longest.sort_by_key(|(_, took)| std::cmp::Reverse(*took));
    println!(
        "the longest History searches (sent at: took): {}",
        longest
            .iter()
            .take(5)
            .map(|(at, took)| format!("{:.0}s: {:.0} ms", at.as_secs_f64(), took.as_secs_f64() * 1e3))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (s50, s99, _) = support::percentiles(&mut searched.iter().map(|(_, took)| *took).collect::<Vec<_>>());
    println!(
        "soak {minutes} min: {} labels = {rate:.0}/s  p50 {p50:.2} ms  p99 {p99:.2} ms  max {max:.2} ms; the 5-s windows' p99 {best_window:.2}..{worst_window:.2} ms; History search p50 {s50:.1} ms p99 {s99:.1} ms",
        answers.len(),
    );

    // Memory after the first minute (in a run of two minutes or less, after its first half).
    let settled_at = match length > Duration::from_secs(120) {
        true => Duration::from_secs(60),
        false => length / 2,
    };
    let settled = samples
        .iter()
        .find(|s| s.0 >= settled_at)
        .or(samples.first())
        .copied()
        .unwrap();
    let last = *samples.last().unwrap();
    let growth = (last.2 as f64 / settled.2 as f64 - 1.0) * 100.0;
    let wal_max = samples.iter().map(|s| s.3).max().unwrap_or(0);
    let per_label_all = (last.4 - folder_at_start) as f64 / last.1.max(1) as f64;
    let per_label_late = (last.4 as f64 - settled.4 as f64) / (last.1 - settled.1).max(1) as f64;
    println!(
        "memory {:.1} -> {:.1} MB ({growth:+.1} % after the first minute, or the first half of a short run); WAL at most {:.1} MB; data folder {:.1} KB a label overall, {:.1} KB a label since the first minute; {} printed, {} webhooks",
        settled.2 as f64 / 1e6,
        last.2 as f64 / 1e6,
        wal_max as f64 / 1e6,
        per_label_all / 1e3,
        per_label_late / 1e3,
        printed.load(Ordering::Relaxed),
        rx.posts()
    );
    let backups_made = backups(&mut Conn::open(&addr)).saturating_sub(backups_before);
    if backups_made > 0 {
        println!(
            "the day's backup was made during the soak ({backups_made}): the WAL grew by the writes of its copy's time"
        );
    }
    // What `.ci/bench` reads.
    println!("BENCH soak_labels_per_s={rate:.0}");
    println!("BENCH soak_rss_growth_pct={growth:.1}");
    println!("BENCH soak_worst_window_p99_ms={worst_window:.2}");
    println!("BENCH soak_wal_max_mb={:.1}", wal_max as f64 / 1e6);
}
