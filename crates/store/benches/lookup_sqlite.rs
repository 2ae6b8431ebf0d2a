//! A desk's SQLite store: labels found by a scanned tracking number (`GET /v3/labels?
//! tracking_numbers=`) in a history of a million labels from 20 carriers, and History's search of
//! two words every label has that no label has side by side (each page reads at most 50,000
//! labels: `labels::Listed::searched_to`).
//! `cargo bench -p packdesk-store --bench lookup_sqlite`: 1,000,000 labels; without `--bench` (as
//! `cargo test` runs benches) 20,000, once. A label's row as a desk stores it: its request and
//! record deflated, about 250 bytes each.

use packdesk_model::status::Env;
use packdesk_store::db::Tx;
use packdesk_store::labels::{self, LabelFilter, LabelRow, SearchLimits};
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
                        search_text: format!("TN{i:012} Cliente {i} M1 1AE cliente {i}"),
                        manifest_id: None,
                        request: stored(i, 'q').into(),
                        record: stored(i, 'r').into(),
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
            .read(|c| labels::list(&mut Tx::Sqlite(c), Env::Live, &f, 10, None).map(|l| l.rows))
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
    history_search(&store, history);
}

/// Deflated-sized text (about 250 bytes, unlike its neighbours'): a label's request or record.
fn stored(i: u64, kind: char) -> String {
    let mut x = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..250)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'!' + (x % 90) as u8)
        })
        .chain([kind])
        .collect()
}

/// History's search of "Cliente M1": both words in every label (common), never side by side. Each
/// page reads the newest 50,000 labels it has not read yet and finds none; History pages on.
fn history_search(store: &Store, history: u64) {
    let started = Instant::now();
    while store
        .write_relaxed(|tx| labels::catch_up_words(&mut Tx::Sqlite(tx), 50_000))
        .unwrap()
        > 0
    {}
    println!(
        "the word index of {history} labels caught up in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // The database as at a desk, whose WAL stays within 48 MiB (the writes above left a large one).
    store
        .read(|c| {
            c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get::<_, i64>(0))
                .map_err(StoreError::from)
        })
        .unwrap();
    // A desk's limits; in the quick run (20,000 labels, whose words fall short of being common)
    // a tenth of them, so `cargo test` runs the same path.
    let limits = match history >= 100_000 {
        true => SearchLimits::default(),
        false => SearchLimits {
            common_word_entries: 5_000,
            reads_at_most: 5_000,
        },
    };
    let f = LabelFilter {
        created_at_max: i64::MAX,
        search: Some("Cliente M1".into()),
        limits,
        ..Default::default()
    };
    let (mut pages, mut longest, mut after) = (Vec::new(), Duration::ZERO, None);
    let started = Instant::now();
    loop {
        let t = Instant::now();
        let page = store
            .read(|c| labels::list(&mut Tx::Sqlite(c), Env::Live, &f, 50, after.as_ref()))
            .unwrap();
        longest = longest.max(t.elapsed());
        assert!(page.rows.is_empty(), "no label has \"Cliente M1\"");
        assert!(
            pages.len() as u64 <= history / limits.reads_at_most as u64,
            "a page reads at most {limits:?}"
        );
        pages.push(page.searched_to.is_some());
        match page.searched_to {
            Some(last) => after = Some(last),
            None => break,
        }
    }
    let all = started.elapsed();
    // What one page did before: read every label.
    let t = Instant::now();
    let every: i64 = store
        .read(|c| {
            c.query_row(
                "SELECT count(*) FROM labels WHERE env = 'live' AND search_text LIKE '%Cliente M1%'",
                [],
                |r| r.get(0),
            )
            .map_err(StoreError::from)
        })
        .unwrap();
    assert_eq!(every, 0);
    println!(
        "History's search of two common words no label has side by side, among {history}, {} labels a page: {} pages, the longest {:.1} ms, all {:.2} s; reading every label at once (what its one page did before): {:.2} s",
        limits.reads_at_most,
        pages.len(),
        longest.as_secs_f64() * 1e3,
        all.as_secs_f64(),
        t.elapsed().as_secs_f64()
    );
}
