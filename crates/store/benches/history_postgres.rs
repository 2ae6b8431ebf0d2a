//! The shared history on one PostgreSQL (issue 16), at the store: a close-out at one desk of the
//! labels 3 desks made (the labels locked, read and moved into the manifest in one transaction),
//! and searches of the history by any desk (trigram index). Needs the cluster of
//! `tests/postgres.sh` (PACKDESK_TEST_POSTGRES).
//! `cargo bench -p packdesk-store --bench history_postgres`: a close-out of 10,000 labels, searches
//! over 1,000,000; without `--bench` (as `cargo test` runs benches) 1,000 and 20,000, once.

use packdesk_model::status::Env;
use packdesk_store::db::Tx;
use packdesk_store::labels::{self, LabelFilter};
use packdesk_store::pg::{self, PgStore};
use packdesk_store::StoreError;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "../tests/it/support.rs"]
mod support;

const DESKS: usize = 3;

/// A search of one kind, from a random number.
type SearchText = Box<dyn Fn(u64) -> String>;

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (closed_out, history): (usize, usize) = if full { (10_000, 1_000_000) } else { (1_000, 20_000) };
    let url = pg::scratch_database(&support::cluster(), "bench").unwrap();
    let desks: Vec<Arc<PgStore>> = (0..DESKS).map(|_| Arc::new(PgStore::open(&url).unwrap())).collect();
    support::account(&desks[0], "acct-day");
    support::account(&desks[0], "acct-old");

    // The day's labels, made at 3 desks at once, 100 to a transaction.
    let per_desk = closed_out.div_ceil(DESKS);
    let makers: Vec<_> = desks
        .iter()
        .enumerate()
        .map(|(d, desk)| {
            let desk = desk.clone();
            std::thread::spawn(move || {
                for chunk in (0..per_desk).collect::<Vec<_>>().chunks(100) {
                    desk.write(|tx| {
                        for &i in chunk {
                            let serial = (d * per_desk + i) as u64;
                            let row = support::label(
                                &format!("day-{serial}"),
                                "acct-day",
                                serial,
                                "2026-11-24",
                                serial as i64,
                            );
                            let c = &mut Tx::Postgres {
                                client: tx,
                                desk: &format!("desk-{d}"),
                            };
                            labels::insert(c, &row).map_err(support::refused)?;
                        }
                        Ok::<_, StoreError>(())
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    makers.into_iter().for_each(|m| m.join().unwrap());

    let started = Instant::now();
    let taken = support::close_out(&desks[1], "acct-day", "2026-11-24", "manifest-day");
    let close_out = started.elapsed();
    assert_eq!(taken.len(), per_desk * DESKS, "every desk's labels");
    println!(
        "close-out on PostgreSQL: {} labels of {DESKS} desks locked, read and manifested in {:.0} ms",
        taken.len(),
        close_out.as_secs_f64() * 1e3
    );

    // The history: older labels, one every 30 seconds for a year, written by the database itself
    // (as a migration would), then analyzed as autovacuum would.
    let started = Instant::now();
    desks[0]
        .write(|tx| {
            tx.execute(
                "INSERT INTO labels (id, env, shipper_account_id, status, search_text, request, record,
                     created_at, updated_at, ship_date, service_type, weight_kg, desk)
                 SELECT 'old-' || s, 'live', 'acct-old', 'manifested',
                     'JD' || lpad(s::text, 12, '0') || ' ref-' || s || ' ' || (ARRAY['Smith','Jones','Müller','Dupont','Rossi'])[1 + s % 5],
                     '{}', '{}', s * 30000000, s * 30000000, '2025-01-01', 'yodel_48', 1.5, 'desk-' || (s % 3)
                 FROM generate_series(1, $1::bigint) AS s",
                &[&(history as i64)],
            )?;
            Ok::<_, StoreError>(())
        })
        .unwrap();
    desks[0]
        .read(|c| Ok::<_, StoreError>(c.batch_execute("ANALYZE labels")?))
        .unwrap();
    println!(
        "history of {history} labels written and indexed in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let searches: [(&str, SearchText); 4] = [
        (
            "a whole tracking number",
            Box::new(move |r| format!("JD{:012}", 1 + r % history as u64)),
        ),
        (
            "the end of a tracking number",
            Box::new(move |r| format!("{:06}", 1 + r % history as u64)),
        ),
        (
            "a reference",
            Box::new(move |r| format!("REF-{}", 1 + r % history as u64)),
        ),
        (
            "a common name",
            Box::new(move |r| ["smith", "müller", "rossi"][(r % 3) as usize].to_string()),
        ),
    ];
    for (what, text) in &searches {
        let mut times: Vec<Duration> = Vec::new();
        let mut found = 0;
        for i in 0..200 {
            let desk = &desks[i % DESKS];
            let f = LabelFilter {
                search: Some(text(next())),
                created_at_max: i64::MAX,
                ..Default::default()
            };
            let name = format!("desk-{}", i % DESKS);
            let t = Instant::now();
            let page = desk
                .read(|client| {
                    labels::list(&mut Tx::Postgres { client, desk: &name }, Env::Live, &f, 50, None).map(|l| l.rows)
                })
                .unwrap();
            times.push(t.elapsed());
            found += usize::from(!page.is_empty());
        }
        assert!(found > 150, "{what}: the searches find labels ({found} of 200 did)");
        times.sort();
        let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)].as_secs_f64() * 1e3;
        println!(
            "search over {history} labels on PostgreSQL, {what}: first page of 50, p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
            at(0.5),
            at(0.95),
            at(1.0)
        );
    }
}
