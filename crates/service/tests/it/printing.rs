//! Printing against printers of the test's own: a raw TCP 9100 listener on 127.0.0.1 (a thermal
//! printer's raw port: it takes bytes and answers nothing). Previews are decoded with zbarimg.

use crate::common;
use common::*;
use packdesk_carriers::carrier;
use packdesk_model::ToRequest;
use packdesk_service::keys::Env;
use packdesk_service::Service;
use serde_json::{json, Value};
use std::io::Read;
use std::net::TcpListener;
use std::sync::mpsc;

/// A raw printer port: every connection's bytes, one message per job.
fn raw_printer() -> (u16, mpsc::Receiver<Vec<u8>>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for c in l.incoming().flatten() {
            let mut c = c;
            let mut all = Vec::new();
            let _ = c.read_to_end(&mut all);
            if tx.send(all).is_err() {
                return;
            }
        }
    });
    (port, rx)
}

fn add_printer(s: &Service, port: u16, format: &str, dpi: u32) -> String {
    let body = json!({"name": format!("Desk {format} {dpi}"), "transport": "raw", "address": format!("127.0.0.1:{port}"), "format": format, "dpi": dpi});
    wire(s.add_printer(body.to_request().unwrap()).unwrap())["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A sandbox Yodel label (Yodel gives PDF only).
fn pdf_label(s: &Service) -> Value {
    let c = carrier("yodel").unwrap();
    let acct = create_account(s, Env::Sandbox, c, json!({}));
    wire(
        s.create_label(
            Env::Sandbox,
            label_request(&acct, c, &c.service_types[0]).to_request().unwrap(),
        )
        .unwrap(),
    )
}

/// A sandbox Tipsa label (Tipsa prints ZPL) with `parcels` parcels.
fn zpl_label(s: &Service, parcels: usize) -> Value {
    let c = carrier("tipsa").unwrap();
    let acct = create_account(s, Env::Sandbox, c, json!({}));
    let mut body = label_request(&acct, c, &c.service_types[0]);
    body["file_type"] = json!("zpl");
    body["shipment"]["parcels"] = json!(vec![json!({"weight": {"value": 1.0, "unit": "kg"}}); parcels]);
    wire(s.create_label(Env::Sandbox, body.to_request().unwrap()).unwrap())
}

/// The file id of a record's file URL (a signed link: `.../v3/files/<id>?expires=...`).
fn file_id(url: &Value) -> String {
    url.as_str()
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string()
}

fn stored(s: &Service, label: &Value) -> Vec<u8> {
    s.file(Env::Sandbox, &file_id(&label["files"]["label"]["url"]))
        .unwrap()
        .0
}

/// The desk's labels print on `printer` as they are made.
fn labels_print_on(s: &Service, printer: &str) {
    s.set_print_profile(
        "label",
        json!({"printer_id": printer, "auto_print": true}).to_request().unwrap(),
    )
    .unwrap();
}

/// The status and attempts of the desk's one print job.
fn only_job(s: &Service) -> (String, i64) {
    let q = packdesk_model::request::ListQuery::default();
    let jobs = wire(s.list_print_jobs(Env::Sandbox, &q).unwrap())["print_jobs"].clone();
    assert_eq!(jobs.as_array().map(Vec::len), Some(1), "{jobs}");
    (
        jobs[0]["status"].as_str().unwrap().to_string(),
        jobs[0]["attempts"].as_i64().unwrap(),
    )
}

fn print(s: &Service, body: Value) -> Value {
    wire(s.print(Env::Sandbox, body.to_request().unwrap()).unwrap())
}

#[test]
fn zpl_goes_raw_to_the_printer_byte_for_byte_and_scaled_for_300_dpi() {
    let h = harness();
    let s = &h.service;
    let (port, got) = raw_printer();
    let p203 = add_printer(s, port, "zpl", 203);
    let label = zpl_label(s, 2);
    let job = print(s, json!({"label_id": label["id"], "printer_id": p203}));
    assert_eq!(
        (job["status"].as_str(), job["error"].clone()),
        (Some("printed"), Value::Null),
        "{job}"
    );
    let bytes = got.recv().unwrap();
    assert_eq!(bytes, stored(s, &label), "no driver, no change: the stored ZPL");
    assert_eq!(job["bytes_sent"], bytes.len());
    // A 300 dpi printer gets the same label in its own dots.
    let p300 = add_printer(s, port, "zpl", 300);
    print(s, json!({"label_id": label["id"], "printer_id": p300, "copies": 2}));
    let text = String::from_utf8(got.recv().unwrap()).unwrap();
    assert_eq!(text.matches("^XA").count(), 4, "2 parcels x 2 copies");
    assert!(text.contains("^PW1200") && !text.contains("^PW812"), "{text:.200}");
}

#[test]
fn a_bulk_download_of_100_labels_prints_as_one_raw_job() {
    let h = harness();
    let s = &h.service;
    let (port, got) = raw_printer();
    let printer = add_printer(s, port, "zpl", 203);
    let first = zpl_label(s, 1);
    let mut body: Value = serde_json::from_value(json!({})).unwrap();
    let c = carrier("tipsa").unwrap();
    let acct = first["shipper_account"]["id"].as_str().unwrap();
    let mut request = label_request(acct, c, &c.service_types[0]);
    request["file_type"] = json!("zpl");
    let mut ids = vec![json!({"id": first["id"]})];
    for _ in 1..100 {
        ids.push(json!({"id": wire(s.create_label(Env::Sandbox, request.to_request().unwrap()).unwrap())["id"]}));
    }
    body["labels"] = json!(ids);
    let bulk = wire(
        s.create_bulk_download(Env::Sandbox, body.to_request().unwrap())
            .unwrap(),
    );
    let job = print(s, json!({"bulk_download_id": bulk["id"], "printer_id": printer}));
    assert_eq!(job["status"], "printed", "{job}");
    let bytes = got.recv().unwrap();
    assert_eq!(bytes, stored(s, &bulk), "the merged stream, as stored");
    assert_eq!(String::from_utf8_lossy(&bytes).matches("^XA").count(), 100);
}

#[test]
fn a_printer_that_is_off_leaves_the_label_created_and_a_failed_job_that_retries() {
    let h = harness();
    let s = &h.service;
    // A port nobody listens on yet.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let printer = add_printer(s, port, "zpl", 203);
    labels_print_on(s, &printer);
    let label = zpl_label(s, 1);
    assert_eq!(label["status"], "created");
    assert_eq!(s.run_print_jobs(), 1, "the label was queued for printing");
    let q: packdesk_model::request::ListQuery = serde_json::from_value(json!({"record_id": label["id"]})).unwrap();
    let jobs = wire(s.list_print_jobs(Env::Sandbox, &q).unwrap())["print_jobs"].clone();
    let job = &jobs[0];
    assert_eq!(job["status"], "failed");
    assert!(job["error"].as_str().unwrap().contains("refused"), "{job}");
    assert_eq!(
        wire(s.get_label(Env::Sandbox, label["id"].as_str().unwrap()).unwrap())["status"],
        "created"
    );
    // The Printers screen shows it off, with the job that waits for it and why.
    let status = wire(s.printer_status(&printer).unwrap());
    assert_eq!(status["state"], "off", "{status}");
    assert!(status["detail"].as_str().unwrap().contains("refused"), "{status}");
    assert_eq!(
        (status["waiting"].as_i64(), status["failed"].as_i64()),
        (Some(0), Some(1))
    );
    assert_eq!(status["last_error"], job["error"]);
    // The printer comes back on its port: a retry prints the stored bytes.
    let l = TcpListener::bind(("127.0.0.1", port)).unwrap();
    let got = std::thread::spawn(move || {
        let (mut c, _) = l.accept().unwrap();
        let mut all = Vec::new();
        c.read_to_end(&mut all).unwrap();
        all
    });
    let again = wire(s.retry_print_job(Env::Sandbox, job["id"].as_str().unwrap()).unwrap());
    assert_eq!(
        (again["status"].as_str(), again["attempts"].as_i64()),
        (Some("printed"), Some(2))
    );
    assert_eq!(got.join().unwrap(), stored(s, &label));
    let status = wire(s.printer_status(&printer).unwrap());
    assert_eq!(
        (status["failed"].as_i64(), &status["last_error"]),
        (Some(0), &Value::Null),
        "{status}"
    );
}

#[test]
fn print_requests_and_profiles_are_checked() {
    let h = harness();
    let s = &h.service;
    let (port, _got) = raw_printer();
    let zebra = add_printer(s, port, "zpl", 203);
    let pdf = pdf_label(s);
    let e = s
        .print(
            Env::Sandbox,
            json!({"label_id": pdf["id"], "document": "invoice"})
                .to_request()
                .unwrap(),
        )
        .unwrap_err();
    assert_eq!(e.details[0].path, "label_id", "{e}");
    let e = s
        .print(Env::Sandbox, json!({"label_id": pdf["id"]}).to_request().unwrap())
        .unwrap_err();
    assert!(e.details[0].info.contains("no printer profile for label"), "{e}");
    let e = s
        .set_print_profile(
            "label",
            json!({"printer_id": zebra, "stock": "a5", "copies": 0})
                .to_request()
                .unwrap(),
        )
        .unwrap_err();
    let paths: Vec<&str> = e.details.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, ["stock", "copies"]);
    let e = s
        .add_printer(
            json!({"name": "x", "transport": "raw", "address": "host:99999", "format": "zpl", "dpi": 250})
                .to_request()
                .unwrap(),
        )
        .unwrap_err();
    let paths: Vec<&str> = e.details.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, ["address", "dpi"]);
    // A format or transport the desk does not know is refused as the request is read, by name.
    for (field, body) in [
        (
            "format",
            json!({"name": "x", "transport": "raw", "address": "host:9100", "format": "eps"}),
        ),
        (
            "transport",
            json!({"name": "x", "transport": "fax", "address": "host:9100", "format": "zpl"}),
        ),
    ] {
        let e = body.to_request::<packdesk_model::desk::PrinterRequest>().unwrap_err();
        assert_eq!(e.details[0].path, field, "{e}");
        assert!(e.details[0].info.contains("expected"), "{e}");
    }
}

#[test]
fn a_manifest_prints_its_pdf_to_an_office_printer_on_the_raw_port() {
    let h = harness();
    let s = &h.service;
    let (port, got) = raw_printer();
    let office = add_printer(s, port, "pdf", 600);
    s.set_print_profile("manifest", json!({"printer_id": office}).to_request().unwrap())
        .unwrap();
    let label = zpl_label(s, 1);
    let m = wire(
        s.create_manifest(
            Env::Sandbox,
            json!({"shipper_account": {"id": label["shipper_account"]["id"]}})
                .to_request()
                .unwrap(),
        )
        .unwrap(),
    );
    let job = print(s, json!({"manifest_id": m["id"]}));
    assert_eq!(
        (job["status"].as_str(), job["stock"].as_str()),
        (Some("printed"), Some("a4")),
        "{job}"
    );
    let pdf_id = file_id(&m["files"]["manifest"]["url"]);
    assert_eq!(
        got.recv().unwrap(),
        s.file(Env::Sandbox, &pdf_id).unwrap().0,
        "the manifest PDF, not its CSV"
    );
}

/// What a ZPL printer would print from the raster labels it received, as images barcode readers open.
fn printed_rasters(zpl: &[u8]) -> Vec<packdesk_print::convert::Bitmap> {
    let zpl = String::from_utf8(zpl.to_vec()).expect("ZPL is text");
    assert!(zpl.starts_with("^XA\n^CI28\n"), "a label in UTF-8 mode: {}", &zpl[..20]);
    packdesk_print::convert::zpl_bitmaps(&zpl).expect("the raster decodes")
}

fn decode_bitmap(b: &packdesk_print::convert::Bitmap) -> String {
    read_code128("label.pbm", &b.to_pbm())
}

/// The Code 128 zbarimg reads in an image file of these bytes (named for its format).
fn read_code128(file_name: &str, image: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(file_name);
    std::fs::write(&path, image).unwrap();
    let out = std::process::Command::new("zbarimg")
        .args([
            "--quiet",
            "--raw",
            "-Sdisable",
            "-Scode128.enable",
            path.to_str().unwrap(),
        ])
        .output()
        .expect("zbarimg (zbar-tools) is needed");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn a_pdf_only_carriers_label_prints_on_a_zpl_printer_as_a_raster_whose_barcode_reads() {
    let h = harness();
    let s = &h.service;
    let label = pdf_label(s);
    assert_eq!(label["files"]["label"]["file_type"], "pdf");
    let tracking = label["tracking_numbers"][0].as_str().unwrap().to_string();
    for (dpi, dots) in [(203, (812u32, 1218u32)), (300, (1200, 1800))] {
        let (port, got) = raw_printer();
        let zebra = add_printer(s, port, "zpl", dpi);
        let job = print(s, json!({"label_id": label["id"], "printer_id": zebra}));
        assert_eq!(job["status"], "printed", "{job}");
        let sent = got.recv_timeout(std::time::Duration::from_secs(5)).unwrap();
        assert!(sent.len() < 150_000, "{} bytes sent at {dpi} dpi", sent.len());
        let rasters = printed_rasters(&sent);
        assert_eq!(rasters.len(), 1, "one label");
        // The stock in dots (the ^GFA width is whole bytes: 812 dots travel as 102 bytes a row).
        assert_eq!(rasters[0].height, dots.1, "{dpi} dpi");
        assert_eq!(rasters[0].width, dots.0.div_ceil(8) * 8, "{dpi} dpi");
        assert_eq!(decode_bitmap(&rasters[0]), tracking, "the barcode printed at {dpi} dpi");
    }
}

#[test]
fn a_zpl_label_prints_on_an_office_printer_as_a_pdf_page_per_parcel() {
    let h = harness();
    let s = &h.service;
    let label = zpl_label(s, 2);
    let (port, got) = raw_printer();
    let office = add_printer(s, port, "pdf", 300);
    let job = print(s, json!({"label_id": label["id"], "printer_id": office}));
    assert_eq!(job["status"], "printed", "{job}");
    let pdf = got.recv_timeout(std::time::Duration::from_secs(5)).unwrap();
    assert!(pdf.starts_with(b"%PDF"), "a PDF was sent");
    let png1 = packdesk_print::preview::pdf_page_png(&pdf, 1, 203).unwrap();
    let png2 = packdesk_print::preview::pdf_page_png(&pdf, 2, 203).unwrap();
    let numbers: Vec<String> = label["tracking_numbers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    assert_eq!(vec![decode_png(&png1), decode_png(&png2)], numbers);
}

#[test]
fn a_test_page_has_a_one_inch_ruler_in_the_printers_dots() {
    let h = harness();
    let s = &h.service;
    let (port, got) = raw_printer();
    let p = add_printer(s, port, "zpl", 300);
    let job = wire(s.print_test_page(Env::Sandbox, &p, Default::default()).unwrap());
    assert_eq!(
        (job["status"].as_str(), job["document_type"].as_str()),
        (Some("printed"), Some("test_page"))
    );
    let text = String::from_utf8(got.recv().unwrap()).unwrap();
    assert!(text.contains("^GB300,"), "the ruler is 300 dots = 1 inch: {text}");
    assert!(text.contains("Desk zpl 300"));
}

fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[1..4], b"PNG");
    (
        u32::from_be_bytes(png[16..20].try_into().unwrap()),
        u32::from_be_bytes(png[20..24].try_into().unwrap()),
    )
}

fn decode_png(png: &[u8]) -> String {
    read_code128("p.png", png)
}

#[test]
fn previews_render_offline_and_decode_to_the_tracking_number() {
    let h = harness();
    let s = &h.service;
    let label = zpl_label(s, 2);
    let file = file_id(&label["files"]["label"]["url"]);
    let tn: Vec<&str> = label["tracking_numbers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    let p203 = s.preview(Env::Sandbox, &file, 1, None).unwrap();
    let p300 = s.preview(Env::Sandbox, &file, 2, Some(300)).unwrap();
    assert_eq!(png_size(&p203), (812, 1218), "4x6 at 8 dots/mm");
    assert_eq!(png_size(&p300), (1200, 1800), "4x6 at 12 dots/mm");
    assert_eq!(decode_png(&p203), tn[0]);
    assert_eq!(decode_png(&p300), tn[1]);
    assert!(
        s.preview(Env::Sandbox, &file, 3, None).is_err(),
        "there is no third label"
    );
    // A PDF label's page, through pdftoppm.
    let pdf = pdf_label(s);
    let pdf_file = file_id(&pdf["files"]["label"]["url"]);
    let png = s.preview(Env::Sandbox, &pdf_file, 1, Some(203)).unwrap();
    assert_eq!(decode_png(&png), pdf["tracking_numbers"][0].as_str().unwrap());
}

/// A printer that never answers a connection (as one switched off behind a switch does): a
/// listener whose accept queue is full, so the kernel drops the printer's SYNs and the send waits
/// for its time limit.
fn unanswering_printer() -> (u16, TcpListener, Vec<std::net::TcpStream>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let mut held = Vec::new();
    for _ in 0..1024 {
        match std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_millis(300)) {
            Ok(c) => held.push(c),
            Err(_) => break,
        }
    }
    (addr.port(), l, held)
}

#[test]
fn a_printer_that_hangs_does_not_hold_the_jobs_of_another_printer() {
    let (s, _clock, _dir) = manual_service();
    let (dead_port, _listener, _held) = unanswering_printer();
    let dead = add_printer(&s, dead_port, "zpl", 203);
    s.set_print_profile(
        "label",
        json!({"printer_id": dead, "auto_print": true}).to_request().unwrap(),
    )
    .unwrap();
    zpl_label(&s, 1);
    let (port, got) = raw_printer();
    let alive = add_printer(&s, port, "zpl", 203);
    s.set_print_profile(
        "label",
        json!({"printer_id": alive, "auto_print": true}).to_request().unwrap(),
    )
    .unwrap();
    let label = zpl_label(&s, 1);
    let background = packdesk_service::workers::Workers::started(&s, 1).unwrap();
    let bytes = got
        .recv_timeout(std::time::Duration::from_secs(4))
        .expect("the working printer printed while the other hangs");
    assert_eq!(bytes, stored(&s, &label));
    let count = |status: &str| {
        let q: packdesk_model::request::ListQuery = serde_json::from_value(json!({"status": status})).unwrap();
        wire(s.list_print_jobs(Env::Sandbox, &q).unwrap())["print_jobs"]
            .as_array()
            .unwrap()
            .len()
    };
    // The sender of the hanging printer may start after the other one's job is done.
    for _ in 0..100 {
        if count("printed") == 1 && count("printing") == 1 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(count("printed"), 1, "the working printer's job is recorded printed");
    assert_eq!(
        count("printing"),
        1,
        "the job of the hanging printer is still being sent"
    );
    drop(background);
}

#[test]
fn every_document_a_label_makes_prints_by_its_own_profile() {
    let h = harness();
    let s = &h.service;
    let (zpl_port, at_zebra) = raw_printer();
    let (pdf_port, at_office) = raw_printer();
    let zebra = add_printer(s, zpl_port, "zpl", 203);
    let office = add_printer(s, pdf_port, "pdf", 300);
    for (document, printer) in [
        ("label", &zebra),
        ("invoice", &office),
        ("customs_declaration", &office),
    ] {
        s.set_print_profile(
            document,
            json!({"printer_id": printer, "auto_print": true}).to_request().unwrap(),
        )
        .unwrap();
    }
    let c = carrier("yodel").unwrap();
    let acct = create_account(s, Env::Sandbox, c, json!({}));
    let service = c.service_types.iter().find(|t| t.service_type == "yodel_1eb").unwrap();
    let mut body = label_request(&acct, c, service);
    body["shipment"]["ship_to"] = json!({"contact_name": "Marie Curie", "street1": "1 Rue de Rivoli", "city": "Paris", "postal_code": "75001", "country": "FRA"});
    body["invoice"] = Value::Null;
    body["customs"] = json!({"purpose": "merchandise"});
    let label = wire(s.create_label(Env::Sandbox, body.to_request().unwrap()).unwrap());
    assert_eq!(label["files"]["customs_declaration"]["file_type"], "pdf", "{label}");
    assert_eq!(s.run_print_jobs(), 3, "label, invoice and customs declaration queued");
    let q: packdesk_model::request::ListQuery = serde_json::from_value(json!({"record_id": label["id"]})).unwrap();
    let jobs = wire(s.list_print_jobs(Env::Sandbox, &q).unwrap())["print_jobs"].clone();
    let mut printed: Vec<(String, String)> = jobs
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["document_type"].as_str().unwrap().into(),
                j["status"].as_str().unwrap().into(),
            )
        })
        .collect();
    printed.sort();
    assert_eq!(
        printed,
        [
            ("customs_declaration", "printed"),
            ("invoice", "printed"),
            ("label", "printed")
        ]
        .map(|(d, st)| (d.to_string(), st.to_string()))
    );
    let raster = printed_rasters(&at_zebra.recv_timeout(std::time::Duration::from_secs(5)).unwrap());
    assert_eq!(
        decode_bitmap(&raster[0]),
        label["tracking_numbers"][0].as_str().unwrap()
    );
    for _ in 0..2 {
        let pdf = at_office.recv_timeout(std::time::Duration::from_secs(5)).unwrap();
        assert!(pdf.starts_with(b"%PDF"), "the office printer got PDFs");
    }
}

#[test]
fn a_failed_job_printed_since_by_a_reprint_is_not_retried_into_a_second_copy() {
    let (s, clock, _dir) = manual_service();
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let printer = add_printer(&s, port, "zpl", 203);
    labels_print_on(&s, &printer);
    let label = zpl_label(&s, 1);
    assert_eq!(s.run_print_jobs(), 1);
    // The printer comes back and the operator prints the label again by hand.
    let l = TcpListener::bind(("127.0.0.1", port)).unwrap();
    let (tx, copies) = mpsc::channel();
    std::thread::spawn(move || {
        for mut c in l.incoming().flatten() {
            let mut all = Vec::new();
            let _ = c.read_to_end(&mut all);
            let _ = tx.send(all);
        }
    });
    print(&s, json!({"label_id": label["id"]}));
    s.run_print_jobs();
    assert_eq!(
        copies.recv_timeout(std::time::Duration::from_secs(10)).unwrap(),
        stored(&s, &label)
    );
    // The automatic retries come round: the failed job's document has printed since.
    clock.advance(chrono::Duration::hours(1));
    assert_eq!(s.run_print_jobs(), 0, "nothing to retry");
    assert!(
        copies.recv_timeout(std::time::Duration::from_millis(500)).is_err(),
        "no second copy"
    );
}

/// The worker reads the queue while a printer's round may still be sending: its next round's
/// list can hold a job that round printed (on a shared database a batch's label printed twice).
#[test]
fn a_round_given_a_job_printed_since_its_list_was_read_does_not_print_it_again() {
    let (s, _clock, _dir) = manual_service();
    let (port, copies) = raw_printer();
    let printer = add_printer(&s, port, "zpl", 203);
    labels_print_on(&s, &printer);
    let label = zpl_label(&s, 1);
    let listed = s.print_work_ids();
    assert_eq!(listed.len(), 1, "the label's job is queued");
    assert_eq!(s.run_print_round(&listed), 1);
    assert_eq!(
        copies.recv_timeout(std::time::Duration::from_secs(10)).unwrap(),
        stored(&s, &label)
    );
    // The next round got the list read before the first one ended.
    assert_eq!(s.run_print_round(&listed), 0, "nothing sent");
    assert!(
        copies.recv_timeout(std::time::Duration::from_millis(500)).is_err(),
        "no second copy"
    );
    assert_eq!(only_job(&s), ("printed".to_string(), 1));
}

/// Likewise a failed job listed as due again, which a round tried since: not tried again at once.
#[test]
fn a_round_given_a_failed_job_tried_since_its_list_was_read_waits_for_the_next_retry() {
    let (s, clock, _dir) = manual_service();
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let printer = add_printer(&s, port, "zpl", 203);
    labels_print_on(&s, &printer);
    zpl_label(&s, 1);
    assert_eq!(s.run_print_jobs(), 1, "the printer is off: the job fails");
    clock.advance(chrono::Duration::hours(1));
    let listed = s.print_work_ids();
    assert_eq!(listed.len(), 1, "due again");
    assert_eq!(s.run_print_round(&listed), 1, "tried again, fails again");
    assert_eq!(s.run_print_round(&listed), 0, "just tried: not due");
    assert_eq!(only_job(&s), ("failed".to_string(), 2));
}

#[test]
fn a_packer_reprints_the_days_labels_and_a_supervisor_an_older_one() {
    use packdesk_model::status::Role;
    use packdesk_service::audit::{as_caller, Caller};
    let (s, clock, _dir) = manual_service();
    let (port, _jobs) = raw_printer();
    let printer = add_printer(&s, port, "zpl", 203);
    let label = zpl_label(&s, 1);
    let who = |role: Role| Caller {
        actor: format!("a {role}"),
        operator_id: Some(format!("op-{role}")),
        role,
        env: Env::Sandbox,
        via: packdesk_service::audit::Via::Session,
    };
    let print = |role: Role| {
        let req = json!({"label_id": label["id"], "printer_id": printer})
            .to_request()
            .unwrap();
        as_caller(Some(who(role)), || s.print(Env::Sandbox, req))
    };
    assert!(print(Role::Packer).is_ok(), "today's label");
    clock.advance(chrono::Duration::days(2));
    let refused = print(Role::Packer).unwrap_err();
    assert_eq!(refused.code, packdesk_model::ErrorCode::Forbidden);
    assert!(
        refused.details[0].info.contains("a supervisor or an admin"),
        "{refused}"
    );
    let reprinted = print(Role::Supervisor).expect("a supervisor reprints it");
    // The job says who sent it; the log says who printed and who printed again.
    assert_eq!(reprinted.operator.as_deref(), Some("a supervisor"));
    let q = packdesk_service::audit::AuditQuery {
        object_id: label["id"].as_str().map(str::to_string),
        ..Default::default()
    };
    let log: Vec<(String, String)> = s
        .list_audit(&q)
        .unwrap()
        .entries
        .into_iter()
        .map(|e| (e.action, e.actor))
        .collect();
    let printed = |action: &str, who: &str| log.contains(&(action.to_string(), who.to_string()));
    assert!(printed("label.printed", "a packer"), "{log:?}");
    assert!(printed("label.reprinted", "a supervisor"), "{log:?}");
}

#[test]
fn a_print_profile_changed_or_its_printer_removed_applies_to_the_very_next_label() {
    let h = harness();
    let s = &h.service;
    let (first_port, at_first) = raw_printer();
    let (second_port, at_second) = raw_printer();
    let first = add_printer(s, first_port, "zpl", 203);
    let second = add_printer(s, second_port, "zpl", 203);
    let label_profile = |printer: &str, auto_print: bool| {
        s.set_print_profile(
            "label",
            json!({"printer_id": printer, "auto_print": auto_print})
                .to_request()
                .unwrap(),
        )
        .unwrap();
    };
    let wait = std::time::Duration::from_secs(5);
    // No profile: the label waits in History, to print by hand.
    zpl_label(s, 1);
    assert_eq!(s.run_print_jobs(), 0, "no profile, nothing printed");
    label_profile(&first, true);
    let label = zpl_label(s, 1);
    assert_eq!(s.run_print_jobs(), 1);
    assert_eq!(at_first.recv_timeout(wait).unwrap(), stored(s, &label));
    // Moved to the second printer: the next label goes there.
    label_profile(&second, true);
    let label = zpl_label(s, 1);
    assert_eq!(s.run_print_jobs(), 1);
    assert_eq!(at_second.recv_timeout(wait).unwrap(), stored(s, &label));
    assert!(at_first.try_recv().is_err(), "nothing more at the first printer");
    // Automatic printing turned off, then on, then the profile deleted.
    label_profile(&second, false);
    zpl_label(s, 1);
    assert_eq!(s.run_print_jobs(), 0, "auto print off");
    label_profile(&second, true);
    zpl_label(s, 1);
    assert_eq!(s.run_print_jobs(), 1, "auto print on again");
    s.delete_print_profile("label").unwrap();
    zpl_label(s, 1);
    assert_eq!(s.run_print_jobs(), 0, "profile deleted");
    // A printer removed takes its profile along.
    label_profile(&first, true);
    assert_eq!(
        wire(s.list_print_profiles().unwrap())["print_profiles"][0]["printer_id"],
        first.as_str()
    );
    s.delete_printer(&first).unwrap();
    zpl_label(s, 1);
    assert_eq!(s.run_print_jobs(), 0, "the profile's printer is gone");
    assert_eq!(wire(s.list_print_profiles().unwrap())["print_profiles"], json!([]));
}
