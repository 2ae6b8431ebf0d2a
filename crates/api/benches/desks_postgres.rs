//! Three desks on one PostgreSQL database (issue 16): three real `packdesk-server` processes on
//! 127.0.0.1, 6 keep-alive clients each, 1-parcel 4x6 PDF labels of one shared account, so every
//! label's number comes from one range under its row lock. Prints labels/s in total and latency
//! p50/p99, and checks no number was issued twice; then one desk closes out the account: every
//! desk's labels (10,860 in full mode) in one manifest, timed. Needs the cluster of `tests/postgres.sh`
//! (PACKDESK_TEST_POSTGRES; start it with PACKDESK_TEST_POSTGRES_DURABLE=1 for real commits).
//! `cargo bench -p packdesk-api --bench desks_postgres`.

mod support;
use std::collections::HashSet;
use std::time::{Duration, Instant};
use support::{cpu_a_label, cpu_time, label_body, percentiles, phase_report, post_labels, Conn, Server};

const DESKS: usize = 3;
const CLIENTS_PER_DESK: usize = 6;

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    // `.ci/bench --quick` runs the full path with a tenth of the labels.
    let quick = std::env::var_os("PACKDESK_BENCH_QUICK").is_some();
    let per_client = match (full, quick) {
        (true, false) => 600,
        (true, true) => 60,
        (false, _) => 10,
    };
    let cluster = std::env::var("PACKDESK_TEST_POSTGRES").expect("PACKDESK_TEST_POSTGRES: see tests/postgres.sh");
    let url = packdesk_store::pg::scratch_database(&cluster, "bench_desks").unwrap();
    let first = Server::start_shared("desk-bench-1", &url, "desk-1", None);
    let join = first.join_code(&url);
    let mut desks = vec![first];
    for n in 2..=DESKS {
        desks.push(Server::start_shared(
            &format!("desk-bench-{n}"),
            &url,
            &format!("desk-{n}"),
            Some(&join),
        ));
    }
    let key = desks[0].sandbox_key.clone();
    let mut c = Conn::open(&desks[0].addr);
    let id = desks[0].yodel_account(&mut c);
    let body = label_body(&id, serde_json::json!({}));
    for d in &desks {
        let mut c = Conn::open(&d.addr);
        for _ in 0..20 {
            assert_eq!(c.request("POST", "/v3/labels", &key, &body).0, 200);
        }
    }
    // Where the machine's CPU goes: the desks, PostgreSQL (every process of the cluster), this
    // load generator.
    let desk_pids: Vec<u32> = desks.iter().map(|d| d.pid()).collect();
    let me = std::process::id();
    let cpu = || {
        (
            cpu_time(|pid, _| desk_pids.contains(&pid)),
            cpu_time(|_, name| name == "postgres"),
            cpu_time(|pid, _| pid == me),
        )
    };
    let cpu_before = cpu();
    let start = Instant::now();
    let addrs: Vec<String> = desks.iter().map(|d| d.addr.clone()).collect();
    let answers = post_labels(
        None,
        &addrs,
        &key,
        DESKS * CLIENTS_PER_DESK,
        per_client,
        "\"code\":200",
        {
            let body = body.clone();
            move |_, _| body.clone()
        },
    );
    let wall = start.elapsed();
    let cpu_after = cpu();
    let mut lat: Vec<Duration> = answers.iter().map(|a| a.took).collect();
    let numbers: Vec<String> = answers
        .iter()
        .map(|a| {
            let v: serde_json::Value = serde_json::from_str(&a.body).unwrap();
            v["data"]["tracking_numbers"][0].as_str().unwrap().to_string()
        })
        .collect();
    let distinct: HashSet<&String> = numbers.iter().collect();
    assert_eq!(
        distinct.len(),
        numbers.len(),
        "a tracking number was issued twice across desks"
    );
    let n = lat.len();
    phase_report(&answers);
    let (p50, p99, max) = percentiles(&mut lat);
    println!(
        "POST /v3/labels  {DESKS} desks x {CLIENTS_PER_DESK} clients on one PostgreSQL  {n} labels in {:.2} s  =  {:.0} labels/s   p50 {p50:.2} ms   p99 {p99:.2} ms   max {max:.2} ms   (no number twice)",
        wall.as_secs_f64(),
        n as f64 / wall.as_secs_f64(),
    );
    let spent = [
        ("desks", cpu_after.0 - cpu_before.0),
        ("PostgreSQL", cpu_after.1 - cpu_before.1),
        ("the load generator", cpu_after.2 - cpu_before.2),
    ];
    println!("{}", cpu_a_label(&spent, n, wall));
    // What `.ci/bench` reads.
    println!("BENCH three_desks_labels_per_s={:.0}", n as f64 / wall.as_secs_f64());
    println!("BENCH three_desks_p99_ms={p99:.2}");

    // The close-out at the last desk takes every desk's labels of the account.
    let mut c = Conn::open(&desks[DESKS - 1].addr);
    let t = Instant::now();
    let (code, text) = c.request(
        "POST",
        "/v3/manifests",
        &key,
        &format!(r#"{{"shipper_account":{{"id":"{id}"}}}}"#),
    );
    let took = t.elapsed();
    assert!(code == 200 && text.contains("\"code\":200"), "{text:.300}");
    let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
    let taken = manifest["data"]["labels"].as_array().map_or(0, |l| l.len());
    assert_eq!(taken, n + DESKS * 20, "every desk's labels are in the one manifest");
    println!(
        "POST /v3/manifests  close-out at one desk of {taken} labels made at {DESKS} desks  {:.0} ms",
        took.as_secs_f64() * 1000.0
    );
}
