//! Sync label creation over HTTP: the real `packdesk-server` binary on 127.0.0.1, 8 concurrent
//! clients on keep-alive connections, 1-parcel 4x6 PDF labels. `cargo bench -p packdesk-api --bench http_labels`.
//! The full run makes labels for a minute (`.ci/bench --quick`: six seconds) and prints labels/s,
//! latency p50/p99, the p99 of each 5-second window, where the desk spent its time (each phase
//! of its `Server-Timing` header) and the data folder's growth per label. `-- --named-key`: the calls carry a named integration key
//! (sandbox, scope `labels`) instead of the sandbox key, to see what its scope check costs.
//! `-- --backup-during`: `packdesk-server backup` runs again and again on the desk's data folder
//! while the labels are made, to see what a backup costs the desk's latency.
//! `-- --backup-large`: labels are made until the desk's database holds 1 GiB
//! (`PACKDESK_BENCH_DB_BYTES` says another size), then rounds of labels run for as long as one
//! backup of it takes, and as many rounds without one: the latency with and without the backup.
//! `-- --tls`: the desk serves a certificate of the bench's own; rounds alternate over TLS and
//! over plain HTTP on the same desk (three of each), to see what HTTPS costs. The quick run (no
//! `--bench`) makes one small round of each.

mod support;
use std::time::{Duration, Instant};
use support::{
    bench_certificate, cpu_a_label, cpu_time, label_body, percentiles, phase_report, post_labels, post_labels_for,
    window_p99s, window_range, Answer, Conn, Server,
};

const CLIENTS: usize = 8;

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let tls_rounds = std::env::args().any(|a| a == "--tls") || !full;
    // `.ci/bench --quick` runs the full path with a tenth of the labels.
    let quick = std::env::var_os("PACKDESK_BENCH_QUICK").is_some();
    let per_client = match (full, quick) {
        (true, false) => 1500,
        (true, true) => 150,
        (false, _) => 20,
    };
    let cert_dir = std::env::temp_dir().join(format!("packdesk-bench-tls-{}", std::process::id()));
    let (extra, client_tls) = match tls_rounds {
        true => {
            let (args, config) = bench_certificate(&cert_dir);
            (args, Some(config))
        }
        false => (Vec::new(), None),
    };
    let server = Server::start_on("bench", &[], &extra.iter().map(String::as_str).collect::<Vec<_>>());
    let mut c = Conn::open(&server.addr);
    let key = match std::env::args().any(|a| a == "--named-key") {
        false => server.sandbox_key.clone(),
        true => {
            let body = r#"{"name":"bench","environment":"sandbox","scopes":["labels"]}"#;
            let (_, made) = c.request("POST", "/desk/api-keys", &server.live_key, body);
            let made: serde_json::Value = serde_json::from_str(&made).unwrap();
            made["data"]["key"].as_str().expect("a named key").to_string()
        }
    };
    let addr = server.addr.clone();
    let id = server.yodel_account(&mut c);
    let body = label_body(&id, serde_json::json!({}));
    // Warm-up.
    for _ in 0..50 {
        assert_eq!(c.request("POST", "/v3/labels", &key, &body).0, 200);
    }
    if let Some(tls) = client_tls {
        // TLS first in each pair (the desk's data grows through the run: it weighs on the later).
        for _ in 0..if full { 3 } else { 1 } {
            for (name, tls) in [("TLS", Some(tls.clone())), ("plain", None)] {
                let start = Instant::now();
                let body = body.clone();
                let answers = post_labels(
                    tls,
                    std::slice::from_ref(&addr),
                    &key,
                    CLIENTS,
                    per_client / 2,
                    "\"code\":200",
                    move |_, _| body.clone(),
                );
                report(&format!("POST /v3/labels over {name:5}"), answers, start.elapsed());
            }
        }
        let _ = std::fs::remove_dir_all(&cert_dir);
        return;
    }
    if std::env::args().any(|a| a == "--backup-large") {
        let target: u64 = std::env::var("PACKDESK_BENCH_DB_BYTES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(if full { 1 << 30 } else { 8 << 20 });
        let fill = Instant::now();
        assert!(
            server.database_bytes() > 0,
            "the desk's database file is where the bench looks"
        );
        // `n` labels from each client at once.
        let batch = |n: usize| {
            let body = body.clone();
            post_labels(
                None,
                std::slice::from_ref(&addr),
                &key,
                CLIENTS,
                n,
                "\"code\":200",
                move |_, _| body.clone(),
            )
        };
        let mut made = 0;
        while server.database_bytes() < target {
            made += batch(250).len();
        }
        println!(
            "filled: {made} labels, database {:.0} MiB, in {:.0} s",
            server.database_bytes() as f64 / (1 << 20) as f64,
            fill.elapsed().as_secs_f64()
        );
        let round = |label: &str, during: &dyn Fn() -> bool| {
            let (start, mut answers) = (Instant::now(), Vec::new());
            while during() {
                answers.extend(batch(25));
            }
            report(label, answers, start.elapsed());
        };
        let backup = server.backup_once();
        round("POST /v3/labels during a backup ", &|| !backup.is_finished());
        let took = backup.join().unwrap();
        println!(
            "the backup of {:.0} MiB took {:.1} s",
            server.database_bytes() as f64 / (1 << 20) as f64,
            took.as_secs_f64()
        );
        let until = Instant::now() + took;
        round("POST /v3/labels without a backup", &|| Instant::now() < until);
        return;
    }
    let backups = std::env::args()
        .any(|a| a == "--backup-during")
        .then(|| server.backup_loop());
    let (folder_before, wal_before) = (server.data_folder_bytes(), server.wal_bytes());
    // The desk's CPU and this load generator's, apart: throughput here swings with the
    // machine's mood, the CPU a label less.
    let (desk, generator) = (server.pid(), std::process::id());
    let cpu = || (cpu_time(|pid, _| pid == desk), cpu_time(|pid, _| pid == generator));
    let cpu_before = cpu();
    let writer_held = || server.metric("packdesk_writer_held_seconds").unwrap_or(0.0);
    let held_before = writer_held();
    let start = Instant::now();
    // The full run goes on for a minute (issue 42: every 5-second window's p99 counts).
    let answers = match full {
        true => post_labels_for(&addr, &key, CLIENTS, run_length(quick), move |_, _| body.clone()),
        false => post_labels(None, &[addr], &key, CLIENTS, per_client, "\"code\":200", move |_, _| {
            body.clone()
        }),
    };
    let wall = start.elapsed();
    let cpu_after = cpu();
    let held = writer_held() - held_before;
    let windows = window_p99s(&answers, start, Duration::from_secs(5));
    if let Some((stop, made)) = backups {
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        println!("backups made while the labels were: {}", made.join().unwrap());
    }
    let labels = answers.len() as u64;
    phase_report(&answers);
    let (rate, p99) = report("POST /v3/labels", answers, wall);
    let spent = [
        ("the desk", cpu_after.0 - cpu_before.0),
        ("the load generator", cpu_after.1 - cpu_before.1),
    ];
    println!("{}", cpu_a_label(&spent, labels as usize, wall));
    // The one part of a label that cannot run on two cores at once: the ceiling of one desk.
    let held_a_label = held / labels.max(1) as f64;
    println!(
        "the writer: held {:.0} % of the run, {:.3} ms a label (alone it would take {:.0} labels/s)",
        100.0 * held / wall.as_secs_f64(),
        held_a_label * 1e3,
        1.0 / held_a_label.max(1e-9),
    );
    let (_, worst_window) = window_range(&windows);
    println!(
        "p99 of each 5-second window (ms): {}",
        windows
            .iter()
            .map(|(_, p99)| format!("{p99:.1}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    // The search index is written behind the labels: a moment for it to catch up.
    std::thread::sleep(Duration::from_secs(2));
    let wal = server.wal_bytes();
    let grown = (server.data_folder_bytes() - wal).saturating_sub(folder_before - wal_before);
    let per_label = grown as f64 / labels.max(1) as f64 / 1e3;
    println!(
        "data folder: +{:.1} MB for {labels} labels = {per_label:.1} KB a label (the database and the logs; the \
         write-ahead log beside it is reused from its start, {:.1} MB now)",
        grown as f64 / 1e6,
        wal as f64 / 1e6,
    );
    // What `.ci/bench` reads.
    println!("BENCH one_desk_labels_per_s={rate:.0}");
    println!("BENCH one_desk_p99_ms={p99:.2}");
    println!("BENCH one_desk_worst_window_p99_ms={worst_window:.2}");
    println!("BENCH kb_per_label={per_label:.1}");
}

/// The full run's length: a minute (`.ci/bench --quick`: six seconds).
fn run_length(quick: bool) -> Duration {
    match quick {
        true => Duration::from_secs(6),
        false => Duration::from_secs(60),
    }
}

/// Prints a round's figures; answers its labels/s and p99 (ms).
fn report(what: &str, answers: Vec<Answer>, wall: Duration) -> (f64, f64) {
    let mut lat: Vec<Duration> = answers.iter().map(|a| a.took).collect();
    let n = lat.len();
    let (p50, p99, max) = percentiles(&mut lat);
    let rate = n as f64 / wall.as_secs_f64();
    println!(
        "{what}  {CLIENTS} clients  {n} labels in {:.2} s  =  {rate:.0} labels/s   p50 {p50:.2} ms   p99 {p99:.2} ms   max {max:.2} ms",
        wall.as_secs_f64(),
    );
    (rate, p99)
}
