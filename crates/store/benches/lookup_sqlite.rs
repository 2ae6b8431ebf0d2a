//! A desk's SQLite store: labels found by a scanned tracking number (`GET /v3/labels?
//! tracking_numbers=`) in a history of a million labels from 20 carriers.
//! `cargo bench -p packdesk-store --bench lookup_sqlite`: 1,000,000 labels; without `--bench` (as
//! `cargo test` runs benches) 20,000, once.

use packdesk_model::status::Env;
use packdesk_store::db::Tx;
use packdesk_store::labels::{self, LabelFilter, LabelRow};
use packdesk_store::{tracking, Store, StoreError};
use std::time::{Duration, Instant};

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let history: u64 = if full { 1_000_000 } else { 20_000 };
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("packdesk.sqlite3")).unwrap();
    let started = Instant::now();
    store
        .write(|tx| {
            tx.execute(
                "INSERT INTO shipper_accounts VALUES ('acct', 'live', 'yodel', 'enabled', 'A', 'UTC', NULL, '{}', x'00', 0, 0, NULL)",
                [],
            )?;
            Ok::<_, StoreError>(())
        })
        .unwrap();
    for chunk in (0..history).collect::<Vec<_>>().chunks(10_000) {
        store
            .write_relaxed(|tx| {
                for &i in chunk {
                    let id = format!("lbl-{i}");
                    let row = LabelRow {
                        id: id.clone(),
                        env: Env::Live,
                        shipper_account_id: "acct".into(),
                        status: packdesk_model::status::LabelStatus::Created,
                        order_number: None,
                        search_text: format!("TN{i:012}"),
                        manifest_id: None,
                        request: "{}".into(),
                        record: "{}".into(),
                        ship_date: "2026-11-24".into(),
                        service_type: "std".into(),
                        weight_kg: 1.0,
                        created_at: i as i64,
                        updated_at: i as i64,
                    };
                    let c = &mut Tx::Sqlite(tx);
                    labels::insert(c, &row).map_err(|e| match e {
                        labels::InsertError::Db(e) => e,
                        other => panic!("{other:?}"),
                    })?;
                    // 20 carriers, as the key (env, slug, number) has them.
                    tracking::register(c, Env::Live, &format!("carrier-{}", i % 20), &format!("TN{i:012}"), &id)?;
                }
                Ok::<_, StoreError>(())
            })
            .unwrap();
    }
    println!(
        "{history} labels with their tracking numbers written in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut times: Vec<Duration> = Vec::new();
    for _ in 0..200 {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let n = rng % history;
        let f = LabelFilter {
            created_at_max: i64::MAX,
            tracking_numbers: vec![format!("TN{n:012}")],
            ..Default::default()
        };
        let t = Instant::now();
        let found = store
            .read(|c| labels::list(&mut Tx::Sqlite(c), Env::Live, &f, 10, None))
            .unwrap();
        times.push(t.elapsed());
        assert_eq!(found.len(), 1, "the label of TN{n:012}");
    }
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)].as_secs_f64() * 1e3;
    println!(
        "a label by its tracking number among {history}: p50 {:.3} ms, p95 {:.3} ms, max {:.3} ms",
        at(0.5),
        at(0.95),
        at(1.0)
    );
}
