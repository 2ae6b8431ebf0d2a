//! Tracking numbers drawn by 3 desks of 6 clients each on one PostgreSQL (issue 16): each label
//! reserves its serials under the counter's row lock in one statement (not waiting for the disk:
//! see `tracking::reserve`) and registers them in a durable transaction, as a label is made. Needs the cluster of `tests/postgres.sh` (PACKDESK_TEST_POSTGRES).
//! `cargo bench -p packdesk-store --bench tracking_postgres`: 6,000 labels; without `--bench`
//! (as `cargo test` runs benches) 360, once.

use packdesk_store::pg::{self, PgStore};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "../tests/it/support.rs"]
mod support;

const DESKS: usize = 3;
const CLIENTS: usize = 6;

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let per_client = if full { 6_000 / (DESKS * CLIENTS) } else { 20 };
    let url = pg::scratch_database(&support::cluster(), "bench").unwrap();
    let desks: Vec<Arc<PgStore>> = (0..DESKS).map(|_| Arc::new(PgStore::open(&url).unwrap())).collect();

    let started = Instant::now();
    let mut threads = Vec::new();
    for (d, desk) in desks.iter().enumerate() {
        for c in 0..CLIENTS {
            let desk = desk.clone();
            threads.push(std::thread::spawn(move || {
                let mut times = Vec::with_capacity(per_client);
                let mut drawn = Vec::new();
                for i in 0..per_client {
                    let t = Instant::now();
                    let parcels = 1 + ((d + c + i) % 3) as u64;
                    let serials = support::draw_label(&desk, "acct/pool", parcels, &format!("lbl-{d}-{c}-{i}"));
                    times.push(t.elapsed());
                    drawn.extend(serials);
                }
                (times, drawn)
            }));
        }
    }
    let mut times: Vec<Duration> = Vec::new();
    let mut drawn = Vec::new();
    for t in threads {
        let (ts, ds) = t.join().unwrap();
        times.extend(ts);
        drawn.extend(ds);
    }
    let elapsed = started.elapsed();
    let distinct: HashSet<u64> = drawn.iter().copied().collect();
    assert_eq!(distinct.len(), drawn.len(), "a number was drawn twice");
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)].as_secs_f64() * 1e3;
    println!(
        "tracking numbers on PostgreSQL, {DESKS} desks x {CLIENTS} clients: {} labels ({} numbers, none twice) in {:.2} s = {:.0} labels/s; per label p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        times.len(),
        drawn.len(),
        elapsed.as_secs_f64(),
        times.len() as f64 / elapsed.as_secs_f64(),
        at(0.5),
        at(0.99),
        at(1.0)
    );
}
