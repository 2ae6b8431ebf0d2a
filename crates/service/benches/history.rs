//! History at a million labels: `cargo bench -p packdesk-service --bench history`.
//! Fills a data folder with 1,000,000 label rows over 30 days (copies of one real label, written
//! straight through the store: making them one by one would take ten minutes), then times the
//! word index catching up and what the desk's History, Today and End of day screens ask for
//! (End of day: the labels waiting by ship date and service with their weight, from the index).
//! Without `--bench` (as `cargo test` runs benches) it uses 20,000 rows, once.

mod support;

use packdesk_model::request::ListQuery;
use packdesk_model::ToRequest;
use packdesk_service::keys::Env;
use packdesk_service::{DataDir, Service};
use packdesk_store::db::Tx;
use packdesk_store::labels::{self, LabelRow};
use serde_json::json;
use std::time::Instant;

fn account(s: &Service, description: &str) -> String {
    let creds = json!({"identity": "i", "password": "p", "account_number": "1"});
    let v = s
        .create_account(
            Env::Sandbox,
            json!({"slug": "yodel", "description": description, "credentials": creds})
                .to_request()
                .unwrap(),
        )
        .unwrap();
    v.id
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (rows, rounds) = if full { (1_000_000usize, 7) } else { (20_000, 1) };
    let (dir, s) = support::service();
    let big = account(&s, "Main desk");
    let small = account(&s, "Returns desk");
    let body = json!({
        "service_type": "yodel_std", "shipper_account": {"id": big}, "references": ["TEMPLATE"],
        "shipment": {
            "ship_from": {"contact_name": "Packdesk Ltd", "street1": "1 Dock Road", "city": "London", "postal_code": "E16 2AA", "country": "GBR"},
            "ship_to": {"contact_name": "Jane Doe", "street1": "22 High Street", "city": "Manchester", "postal_code": "M1 1AE", "country": "GBR"},
            "parcels": [{"weight": {"value": 1.5, "unit": "kg"}}]
        }
    });
    let made = s
        .create_label(Env::Sandbox, body.to_request().unwrap())
        .unwrap()
        .into_data();
    // The rows are written straight into the data folder's database, beside the service (SQLite
    // serializes the two writers): a million labels through the API would take the bench's hour.
    let store = packdesk_store::Store::open(&DataDir(dir.path().to_path_buf()).database()).unwrap();
    let template = store
        .read(|c| labels::get(&mut Tx::Sqlite(c), Env::Sandbox, &made.id).map(Option::unwrap))
        .unwrap();

    // Rows over the last 30 days, newest last; one in ten on the small account, one in twenty
    // cancelled, the older half manifested.
    let now = chrono::Utc::now().timestamp_micros();
    let span = 30 * 86_400_000_000i64;
    let t = Instant::now();
    store
        .write(|tx| -> Result<(), packdesk_model::ServiceError> {
            for i in 0..rows {
                let created = now - span + (i as i64) * (span / rows as i64);
                use packdesk_model::status::LabelStatus;
                let status = if i % 20 == 7 {
                    LabelStatus::Cancelled
                } else if i < rows / 2 {
                    LabelStatus::Manifested
                } else {
                    LabelStatus::Created
                };
                let row = LabelRow {
                    id: uuid::Uuid::new_v4().to_string(),
                    shipper_account_id: if i % 10 == 3 { small.clone() } else { big.clone() },
                    status,
                    order_number: None,
                    search_text: format!("JD{:014} ORD-{i} Jane Doe M1 1AE", i),
                    manifest_id: None,
                    created_at: created,
                    updated_at: created,
                    ..template.clone()
                };
                labels::insert(&mut Tx::Sqlite(tx), &row)
                    .map_err(|_| packdesk_model::ServiceError::internal("insert"))?;
            }
            Ok(())
        })
        .unwrap();
    println!("filled {rows} label rows in {:.1} s", t.elapsed().as_secs_f64());
    // What a search does first after the labels were made (in use: those since the last search).
    let t = Instant::now();
    s.catch_up_search(|| true).unwrap();
    println!(
        "word index caught up with {rows} labels in {:.1} s",
        t.elapsed().as_secs_f64()
    );

    let q = |f: &dyn Fn(&mut ListQuery)| {
        let mut q = ListQuery {
            limit: Some("50".into()),
            created_at_min: Some("2000-01-01".into()),
            ..Default::default()
        };
        f(&mut q);
        q
    };
    let first = q(&|_| {});
    support::time("History first page (50 newest)", rounds, || {
        s.list_labels(Env::Sandbox, &first).unwrap();
    });
    let token = s
        .list_labels(Env::Sandbox, &first)
        .unwrap()
        .window
        .next_token
        .unwrap()
        .to_string();
    support::time(
        "History first page as the desk shows it (/desk/history)",
        rounds,
        || {
            assert_eq!(s.history(Env::Sandbox, &first).unwrap().rows.len(), 50);
        },
    );
    let second = q(&|q| q.next_token = Some(token.clone()));
    support::time("History next page (next_token)", rounds, || {
        s.list_labels(Env::Sandbox, &second).unwrap();
    });
    let mid = chrono::DateTime::from_timestamp_micros(now - span / 2)
        .unwrap()
        .to_rfc3339();
    let deep = q(&|q| q.created_at_max = Some(mid.clone()));
    support::time("History page 15 days back (date filter)", rounds, || {
        s.list_labels(Env::Sandbox, &deep).unwrap();
    });
    let by_account = q(&|q| q.shipper_account_id = Some(small.clone()));
    support::time("History filtered by account (1 in 10)", rounds, || {
        assert_eq!(s.list_labels(Env::Sandbox, &by_account).unwrap().labels.len(), 50);
    });
    let cancelled = q(&|q| q.status = Some("cancelled".into()));
    support::time("History filtered by status (1 in 20)", rounds, || {
        s.list_labels(Env::Sandbox, &cancelled).unwrap();
    });
    let wanted = format!("ORD-{}", rows / 3);
    let search = q(&|q| q.s = Some(wanted.clone()));
    support::time("History search by order number (whole table)", rounds.min(3), || {
        assert!(!s.list_labels(Env::Sandbox, &search).unwrap().labels.is_empty());
    });
    support::time("Today (counts + 30 days)", rounds.min(3), || {
        s.today(Env::Sandbox, 60, 30).unwrap();
    });
    support::time("End of day (waiting by ship date and service)", rounds.min(3), || {
        let eod = s.end_of_day(Env::Sandbox).unwrap();
        assert!(eod
            .accounts
            .iter()
            .any(|a| a.labels_waiting > 0 && !a.by_service.is_empty()));
    });
}
