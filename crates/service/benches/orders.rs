//! Orders at a warehouse's scale: `cargo bench -p packdesk-service --bench orders`.
//! - CSV import of 10,000 rows (one order each) through `import_orders`.
//! - A batch of 1,000 orders shipped through the job queue by the workers, until the last label
//!   has reached a raw 9100 printer (a listener on 127.0.0.1).
//! - Order search over 1,000,000 orders (saved through `save_orders`, 1,000 a call): p50/p95 of
//!   an order number, a recipient's name, a postal code and a SKU.
//!
//! Without `--bench` (as `cargo test` runs benches) it uses 1,000 rows, 30 orders and 20,000.

mod support;

use packdesk_model::order::{OrderRequest, OrderSource};
use packdesk_model::preset::ShipBatchRequest;
use packdesk_model::request::ListQuery;
use packdesk_model::ToRequest;
use packdesk_service::keys::Env;
use packdesk_service::workers::Workers;
use serde_json::json;
use std::io::Read;
use std::sync::Arc;
use std::time::{Duration, Instant};

const NAMES: [&str; 8] = [
    "García", "Müller", "Smith", "Rossi", "Dubois", "Nowak", "Silva", "Jensen",
];

fn order(i: usize) -> OrderRequest {
    json!({
        "order_number": format!("SO-{i:07}"),
        "ship_to": {"contact_name": format!("{} {}", NAMES[i % 8], i), "street1": "Calle Mayor 1", "city": "Madrid", "postal_code": format!("{:05}", 28000 + i % 900), "country": "ESP"},
        "items": [{"description": "Mug", "quantity": 1 + (i % 3) as i64, "sku": format!("SKU-{}", i % 5000)}],
        "weight": {"value": 1.2, "unit": "kg"}
    })
    .to_request()
    .unwrap()
}

fn percentile(times: &mut [Duration], p: f64) -> f64 {
    times.sort();
    let i = ((times.len() as f64 * p).ceil() as usize).clamp(1, times.len()) - 1;
    times[i].as_secs_f64() * 1e3
}

/// A CSV file of `bytes` made as it is read (the bench never holds it).
struct BigFile {
    bytes: usize,
    made: usize,
    row: usize,
    pending: Vec<u8>,
}

impl Read for BigFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pending.is_empty() {
            if self.made >= self.bytes {
                return Ok(0);
            }
            let i = self.row;
            self.row += 1;
            self.pending = match i {
                0 => b"Order number,Recipient,Street,City,ZIP,Country,SKU,Item,Qty,Weight (kg)\r\n".to_vec(),
                _ => format!(
                    "BIG-{i},\"{} {i}\",Calle Mayor {i},Madrid,{:05},Spain,SKU-{},Mug with a long description,2,1.5\r\n",
                    NAMES[i % 8],
                    28000 + i % 900,
                    i % 500
                )
                .into_bytes(),
            };
            self.made += self.pending.len();
        }
        let n = buf.len().min(self.pending.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        Ok(n)
    }
}

/// The process's peak resident memory so far (Linux), in MB.
fn peak_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (rows, batch, many, big) = if full {
        (10_000, 1_000, 1_000_000, 50_000_000)
    } else {
        (1_000, 30, 20_000, 2_000_000)
    };
    let (_dir, s) = support::service();
    let s = Arc::new(s);

    // 1. CSV import.
    let mut csv = String::from("Order number,Recipient,Street,City,ZIP,Country,SKU,Item,Qty,Weight (kg)\r\n");
    for i in 0..rows {
        csv.push_str(&format!(
            "IMP-{i},\"{} {i}\",Calle Mayor 1,Madrid,{:05},Spain,SKU-{},Mug,2,\"1.5\"\r\n",
            NAMES[i % 8],
            28000 + i % 900,
            i % 500
        ));
    }
    let t = Instant::now();
    let r = s.import_orders(Env::Sandbox, csv.as_bytes(), None, false).unwrap();
    assert_eq!((r.imported, r.failed.len()), (rows, 0));
    println!(
        "import {rows} CSV rows ({:.1} MB)            {:>8.0} ms",
        csv.len() as f64 / 1e6,
        t.elapsed().as_secs_f64() * 1e3
    );

    // 1b. A 50 MB file, streamed into a store that has the orders above: the peak memory before
    // and after.
    let before = peak_mb();
    let t = Instant::now();
    let file = BigFile {
        bytes: big,
        made: 0,
        row: 0,
        pending: Vec::new(),
    };
    let r = s.import_orders(Env::Sandbox, file, None, false).unwrap();
    assert!(r.failed.is_empty(), "{:?}", r.failed.first());
    println!(
        "import a {} MB file ({} orders), streamed   {:>8.0} ms   peak memory {:.0} -> {:.0} MB",
        big / 1_000_000,
        r.imported,
        t.elapsed().as_secs_f64() * 1e3,
        before,
        peak_mb()
    );

    // 2. A batch shipped by the workers, to the last label at a raw printer.
    let (printer, at_printer) = support::raw_printer(&s);
    s.set_print_profile(
        "label",
        json!({"printer_id": printer, "stock": "4x6", "auto_print": true})
            .to_request()
            .unwrap(),
    )
    .unwrap();
    let acct = s
        .create_account(Env::Sandbox, json!({"slug": "tipsa", "description": "bench", "credentials": {"password": "p", "agency_code": "1", "customer_code": "2", "department_code": "3"}}).to_request().unwrap())
        .unwrap()
        .id;
    s.create_preset(
        Env::Sandbox,
        json!({"name": "Spain", "shipper_account": {"id": acct}, "service_type": "tipsa_10_horas", "file_type": "zpl", "is_default": true,
               "ship_from": {"contact_name": "Almacén", "street1": "Calle 1", "city": "Madrid", "postal_code": "28001", "country": "ESP"}})
        .to_request()
        .unwrap(),
    )
    .unwrap();
    let ids: Vec<String> = s
        .save_orders(
            Env::Sandbox,
            (0..batch).map(|i| order(900_000_000 + i)).collect(),
            OrderSource::Api,
            true,
        )
        .unwrap()
        .orders
        .into_iter()
        .map(|o| o.id)
        .collect();
    let workers = Workers::started(&s, packdesk_service::workers::default_job_workers()).unwrap();
    let t = Instant::now();
    let b = s
        .ship_orders(
            Env::Sandbox,
            ShipBatchRequest {
                order_ids: ids,
                preset: None,
            },
        )
        .unwrap();
    // Done when every label is at the printer and every order's result is recorded (a label
    // prints from its own transaction, a moment before its job records the order shipped).
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut printed = 0;
    while printed < batch {
        match at_printer.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(_) => printed += 1,
            Err(_) => break,
        }
    }
    let mut done = s.get_ship_batch(Env::Sandbox, &b.id).unwrap();
    while done.status != packdesk_model::status::BatchStatus::Done && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
        done = s.get_ship_batch(Env::Sandbox, &b.id).unwrap();
    }
    let took = t.elapsed();
    assert_eq!(
        (done.shipped, printed),
        (batch, batch),
        "{:?}",
        done.orders.iter().find(|o| o.info.is_some())
    );
    println!(
        "batch of {batch} orders, shipped and printed     {:>8.0} ms   ({:.0} orders/s)",
        took.as_secs_f64() * 1e3,
        batch as f64 / took.as_secs_f64()
    );
    drop(workers);

    // 3. Search over many orders.
    let t = Instant::now();
    for chunk in (0..many).collect::<Vec<_>>().chunks(1_000) {
        s.save_orders(
            Env::Live,
            chunk.iter().map(|i| order(*i)).collect(),
            OrderSource::Api,
            true,
        )
        .unwrap();
    }
    println!(
        "save {many} orders (1,000 a call)            {:>8.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let searches = [
        ("order number", format!("so-{:07}", many / 2)),
        ("order number start", format!("so-{:05}", many / 300)),
        ("recipient's common name", "jensen".to_string()),
        ("recipient's full name", format!("jensen {}", many / 8 * 8 - 1)),
        ("postal code", "28417".to_string()),
        ("SKU", "sku-4321".to_string()),
    ];
    for (what, q) in searches {
        let mut times = Vec::new();
        let mut found = 0;
        for _ in 0..if full { 200 } else { 20 } {
            let query = ListQuery {
                s: Some(q.clone()),
                limit: Some("50".into()),
                ..Default::default()
            };
            let t = Instant::now();
            found = s.list_orders(Env::Live, &query).unwrap().orders.len();
            times.push(t.elapsed());
        }
        println!(
            "search {what:<24} ({found:>2} of 50 shown)   p50 {:>6.2} ms   p95 {:>6.2} ms",
            percentile(&mut times, 0.5),
            percentile(&mut times, 0.95)
        );
    }
}
