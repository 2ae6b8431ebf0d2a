//! Print latency to a raw 9100 printer: from `print` (the desk route's service call) to the last
//! byte accepted by a listener on 127.0.0.1, for one 1-parcel ZPL label and for a bulk download
//! of 100; and from a PDF-only carrier's label being made to its raster (converted for the ZPL
//! printer) at the printer, printed automatically by the print worker.
//! `cargo bench -p packdesk-service --bench printing`.

mod support;

use packdesk_model::desk::PrintJobStatus;
use packdesk_model::ToRequest;
use packdesk_service::keys::Env;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let rounds = if full { 50 } else { 2 };
    let (_dir, s) = support::service();
    // The printer: reads each job to its end and reports when the last byte arrived.
    let (printer, rx) = support::raw_printer(&s);
    let acct = s
        .create_account(Env::Sandbox, json!({"slug": "tipsa", "description": "bench", "credentials": {"password": "p", "agency_code": "1", "customer_code": "2", "department_code": "3"}}).to_request().unwrap())
        .unwrap()
        .id;
    let address = |pc: &str| json!({"contact_name": "A", "street1": "Calle 1", "city": "Madrid", "postal_code": pc, "country": "ESP"});
    let body = json!({"service_type": "tipsa_10_horas", "shipper_account": {"id": acct}, "file_type": "zpl",
        "shipment": {"ship_from": address("28001"), "ship_to": address("08001"), "parcels": [{"weight": {"value": 1, "unit": "kg"}}]}})
    .to_string();
    let labels: Vec<String> = (0..100)
        .map(|_| {
            s.create_label(Env::Sandbox, body.to_request().unwrap())
                .unwrap()
                .data
                .id
        })
        .collect();
    let bulk = s
        .create_bulk_download(
            Env::Sandbox,
            json!({"labels": labels.iter().map(|id| json!({"id": id})).collect::<Vec<_>>()})
                .to_request()
                .unwrap(),
        )
        .unwrap()
        .data
        .id;
    for (name, req) in [
        (
            "1 label (1 parcel)",
            json!({"label_id": labels[0], "printer_id": printer}),
        ),
        (
            "bulk download of 100 labels",
            json!({"bulk_download_id": bulk, "printer_id": printer}),
        ),
    ] {
        let mut times: Vec<Duration> = Vec::new();
        let mut size = 0;
        for _ in 0..rounds {
            let t = Instant::now();
            let job = s.print(Env::Sandbox, req.to_request().unwrap()).unwrap();
            assert_eq!(job.status, PrintJobStatus::Printed, "{job:?}");
            let (last_byte, n) = rx.recv().unwrap();
            size = n;
            times.push(last_byte - t);
        }
        let (median, worst) = support::median_and_worst(&mut times);
        println!(
            "print to raw 9100, {name:<28} {size:>7} bytes   median {:>7.2} ms   worst {:>7.2} ms",
            median, worst
        );
    }

    // A Yodel label (PDF only) made, auto-printed to the ZPL printer by the print worker.
    s.set_print_profile(
        "label",
        json!({"printer_id": printer, "stock": "4x6", "auto_print": true})
            .to_request()
            .unwrap(),
    )
    .unwrap();
    let s = Arc::new(s);
    let _workers = packdesk_service::workers::Workers::started(&s, 1).unwrap();
    let yodel = s
        .create_account(Env::Sandbox, json!({"slug": "yodel", "description": "bench", "credentials": {"identity": "u", "password": "p", "account_number": "1"}}).to_request().unwrap())
        .unwrap()
        .id;
    let uk = |pc: &str| json!({"contact_name": "A", "street1": "1 High St", "city": "London", "postal_code": pc, "country": "GBR"});
    let body = json!({"service_type": "yodel_hdn", "shipper_account": {"id": yodel},
        "shipment": {"ship_from": uk("E16 2AA"), "ship_to": uk("M1 1AE"), "parcels": [{"weight": {"value": 1, "unit": "kg"}}]}})
    .to_string();
    let mut times: Vec<Duration> = Vec::new();
    let mut size = 0;
    for _ in 0..rounds * 2 {
        let t = Instant::now();
        s.create_label(Env::Sandbox, body.to_request().unwrap()).unwrap();
        let (last_byte, n) = rx.recv_timeout(Duration::from_secs(10)).expect("the label printed");
        size = n;
        times.push(last_byte - t);
    }
    let (median, worst) = support::median_and_worst(&mut times);
    println!(
        "label made -> at raw 9100 (PDF -> ZPL raster) {size:>7} bytes   median {:>7.2} ms   worst {:>7.2} ms",
        median, worst
    );
}
