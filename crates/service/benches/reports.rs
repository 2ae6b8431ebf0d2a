//! Reports over a million labels (issue 41): `cargo bench -p packdesk-service --bench reports`.
//! A year of labels (1,000,000 rows on 4 accounts, 2 services, 10 operators at 3 desks, one in
//! twenty voided), each with the audit entry of who made it, written straight through the store
//! (making them one by one would take hours); then, timed: the first report of the year (every
//! closed day counted once and kept), the year again by day, by carrier and by operator (kept days
//! read, the two open days counted from their labels), and the last seven days. On the data
//! folder's SQLite (WAL, durable group commit), and with PACKDESK_TEST_POSTGRES set (the cluster
//! of `tests/postgres.sh`, started with PACKDESK_TEST_POSTGRES_DURABLE=1 for durable commits) on a
//! shared PostgreSQL database too. Without `--bench` (as `cargo test` runs benches): 20,000 rows,
//! once.

mod support;

use packdesk_model::status::{Env, LabelStatus};
use packdesk_model::ServiceError;
use packdesk_model::ToRequest;
use packdesk_service::clock::SystemClock;
use packdesk_service::{DataDir, Database, KeyPreference, Service};
use packdesk_store::audit::AuditRow;
use packdesk_store::db::Tx;
use packdesk_store::labels::{self, LabelRow};
use serde_json::json;
use std::sync::Arc;
use std::time::Instant;

const DAY_US: i64 = 86_400_000_000;
const OPERATORS: usize = 10;
const DESKS: usize = 3;

/// The `i`th of `rows` labels over the last 365 days, and the audit entry of who made it.
fn label(i: usize, rows: usize, accounts: &[String], now: i64) -> (LabelRow, AuditRow) {
    let span = 365 * DAY_US;
    let created = now - span + (i as i64) * (span / rows as i64);
    let day = chrono::DateTime::from_timestamp_micros(created)
        .unwrap()
        .date_naive()
        .to_string();
    let id = format!("bench-{i:08}");
    let parcels = 1 + i.is_multiple_of(7) as usize;
    let tracking: Vec<String> = (0..parcels).map(|p| format!("JD{i:012}{p}")).collect();
    let record =
        json!({"id": id, "tracking_numbers": tracking, "rate": {"total_charge": {"amount": 4.25, "currency": "GBP"}}});
    let label = LabelRow {
        id: id.clone(),
        env: Env::Sandbox,
        shipper_account_id: accounts[i % accounts.len()].clone(),
        status: if i % 20 == 7 {
            LabelStatus::Cancelled
        } else {
            LabelStatus::Created
        },
        order_number: None,
        search_text: format!("JD{i:012}"),
        manifest_id: None,
        request: "{}".into(),
        record: record.to_string().into(),
        ship_date: day,
        service_type: if i.is_multiple_of(3) { "yodel_sat" } else { "yodel_std" }.into(),
        weight_kg: 1.5 * parcels as f64,
        created_at: created,
        updated_at: created,
    };
    let audit = AuditRow {
        id: format!("a-{i:08}"),
        at: created,
        desk: format!("desk {}", i % DESKS + 1),
        env: Env::Sandbox,
        actor: format!("operator {}", i % OPERATORS + 1),
        operator_id: None,
        action: "label.created".into(),
        object_id: Some(id),
        result: "ok".into(),
        detail: "{}".into(),
    };
    (label, audit)
}

/// Writes `rows` labels in transactions of 1,000.
fn fill(
    rows: usize,
    accounts: &[String],
    mut write: impl FnMut(&mut dyn FnMut(&mut Tx<'_>) -> Result<(), ServiceError>),
) {
    let now = chrono::Utc::now().timestamp_micros();
    let t = Instant::now();
    for chunk in (0..rows).collect::<Vec<_>>().chunks(1000) {
        write(&mut |c| {
            for &i in chunk {
                let (l, a) = label(i, rows, accounts, now);
                labels::insert(c, &l).map_err(|_| ServiceError::internal("insert"))?;
                packdesk_store::audit::insert(c, &a)?;
            }
            Ok(())
        });
    }
    println!(
        "  filled {rows} labels and their audit entries in {:.1} s",
        t.elapsed().as_secs_f64()
    );
}

fn accounts(s: &Service) -> Vec<String> {
    (1..=4)
        .map(|n| {
            let creds = json!({"identity": "i", "password": "p", "account_number": "1"});
            s.create_account(
                Env::Sandbox,
                json!({"slug": "yodel", "description": format!("Yodel {n}"), "credentials": creds})
                    .to_request()
                    .unwrap(),
            )
            .unwrap()
            .id
        })
        .collect()
}

fn reports(s: &Service, rows: usize, rounds: usize) {
    let today = chrono::Utc::now().date_naive();
    let year = (today - chrono::Duration::days(365)).to_string();
    let week = (today - chrono::Duration::days(6)).to_string();
    let to = today.to_string();
    let t = Instant::now();
    let first = s
        .shipments_report(Env::Sandbox, Some(&year), Some(&to), Some("carrier"))
        .unwrap();
    println!(
        "  {:<52} {:>8.1} ms (once: every closed day counted and kept)",
        "first report of the year, by carrier",
        t.elapsed().as_secs_f64() * 1e3
    );
    assert_eq!(first.total.labels as usize, rows, "every label counted");
    for group in ["day", "carrier", "operator"] {
        support::time(&format!("the year ({rows} labels) by {group}"), rounds, || {
            s.shipments_report(Env::Sandbox, Some(&year), Some(&to), Some(group))
                .unwrap();
        });
    }
    support::time("the last seven days by day", rounds, || {
        s.shipments_report(Env::Sandbox, Some(&week), Some(&to), Some("day"))
            .unwrap();
    });
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (rows, rounds) = if full { (1_000_000usize, 7) } else { (20_000, 1) };

    println!("SQLite (the data folder's file, WAL, durable group commit)");
    let (dir, s) = support::service();
    let ids = accounts(&s);
    let store = packdesk_store::Store::open(&DataDir(dir.path().to_path_buf()).database()).unwrap();
    fill(rows, &ids, |f| {
        store.write(|tx| f(&mut Tx::Sqlite(tx))).unwrap();
    });
    reports(&s, rows, rounds);

    let Ok(cluster) = std::env::var("PACKDESK_TEST_POSTGRES") else {
        println!("PostgreSQL: PACKDESK_TEST_POSTGRES not set (tests/postgres.sh start), not measured");
        return;
    };
    println!("PostgreSQL (a shared database, durable commits as the cluster is set)");
    let url = packdesk_store::pg::scratch_database(&cluster, "reports").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let database = Database::Shared {
        url: url.clone(),
        desk: "desk 1".into(),
        join_code: None,
    };
    let s = Service::open_on(
        dir.path(),
        &database,
        "http://127.0.0.1:9",
        Arc::new(SystemClock),
        KeyPreference::File,
    )
    .unwrap()
    .service;
    let ids = accounts(&s);
    let pg = packdesk_store::pg::PgStore::open(&url).unwrap();
    fill(rows, &ids, |f| {
        pg.write(|client| f(&mut Tx::Postgres { client, desk: "desk 1" }))
            .unwrap();
    });
    reports(&s, rows, rounds);
}
