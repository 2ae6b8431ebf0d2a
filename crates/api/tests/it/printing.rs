//! Printing over the desk routes of the real server: a raw 9100 listener of the test's own, and
//! CUPS with a virtual PDF printer (cups-pdf) through the system spooler and over IPP. The CUPS
//! test needs the printer `tests/cups-setup.sh` sets up (the README's test command runs it and
//! sets PACKDESK_CUPS_PRINTER); without it that test fails, saying what to run.

use crate::support;
use serde_json::{json, Value};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use support::*;

#[test]
fn a_label_prints_over_http_to_a_raw_printer_and_its_preview_is_a_png() {
    let s = Server::start();
    let (port, got) = support::raw_printer();
    let printer = s.live_ok("POST", "/desk/printers", Some(&json!({"name": "Zebra desk 1", "transport": "raw", "address": format!("127.0.0.1:{port}"), "format": "zpl"})));
    assert_eq!(
        (printer["dpi"].as_i64(), printer["strip_zpl_setup"].as_bool()),
        (Some(203), Some(true))
    );
    s.live_ok(
        "PUT",
        "/desk/print-profiles/label",
        Some(&json!({"printer_id": printer["id"], "stock": "4x6", "auto_print": true})),
    );
    let account = s.sandbox_ok("POST", "/v3/shipper-accounts", Some(&json!({"slug": "tipsa", "description": "Tipsa", "credentials": {"password": "p", "agency_code": "1", "customer_code": "2", "department_code": "3"}})));
    let mut body = yodel_label(account["id"].as_str().unwrap(), 1);
    body["service_type"] = json!("tipsa_10_horas");
    body["file_type"] = json!("zpl");
    body["shipment"]["ship_from"]["country"] = json!("ESP");
    body["shipment"]["ship_from"]["postal_code"] = json!("28001");
    body["shipment"]["ship_to"]["country"] = json!("ESP");
    body["shipment"]["ship_to"]["postal_code"] = json!("08001");
    let label = s.sandbox_ok("POST", "/v3/labels", Some(&body));
    // Printed automatically by the print worker, with the stored bytes.
    let bytes = got.recv_timeout(Duration::from_secs(10)).unwrap();
    let url = label["files"]["label"]["url"].as_str().unwrap();
    assert_eq!(bytes, s.download(url, &s.sandbox).1);
    let end = Instant::now() + Duration::from_secs(10);
    let jobs = loop {
        let j = s.sandbox_ok(
            "GET",
            &format!("/desk/print-jobs?record_id={}", label["id"].as_str().unwrap()),
            None,
        );
        if j["print_jobs"][0]["status"] == "printed" || Instant::now() > end {
            break j;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(jobs["print_jobs"][0]["status"], "printed", "{jobs}");
    let file_id = url.split('?').next().unwrap().rsplit('/').next().unwrap();
    let resp = reqwest::blocking::Client::new()
        .get(s.url(&format!("/desk/files/{file_id}/preview.png?page=1&dpi=300")))
        .header("service-api-key", &s.sandbox)
        .send()
        .unwrap();
    assert_eq!(resp.headers()["content-type"], "image/png");
    assert_eq!(&resp.bytes().unwrap()[1..4], b"PNG");
}

fn newest_pdf(dir: &Path, after: &[PathBuf]) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "pdf") && !after.contains(p))
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
}

fn wait_for_output(dir: &Path, before: &[PathBuf]) -> PathBuf {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(p) = newest_pdf(dir, before) {
            // cups-pdf writes then closes; wait until the size settles.
            std::thread::sleep(Duration::from_millis(300));
            return p;
        }
        assert!(Instant::now() < end, "cups-pdf wrote nothing to {}", dir.display());
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn check_4x6_with_barcode(pdf: &Path, tracking: &str) {
    let info = String::from_utf8(Command::new("pdfinfo").arg(pdf).output().unwrap().stdout).unwrap();
    assert!(
        info.contains("Page size:       288 x 432 pts"),
        "4x6 inches, not scaled onto a letter page:\n{info}"
    );
    let png = pdf.with_extension("png-dir");
    std::fs::create_dir_all(&png).unwrap();
    Command::new("pdftoppm")
        .args(["-png", "-r", "200", "-f", "1", "-l", "1"])
        .arg(pdf)
        .arg(png.join("p"))
        .status()
        .unwrap();
    let page = std::fs::read_dir(&png).unwrap().flatten().next().unwrap().path();
    let out = Command::new("zbarimg")
        .args(["--quiet", "--raw", "-Sdisable", "-Scode128.enable"])
        .arg(&page)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), tracking);
    let _ = std::fs::remove_dir_all(&png);
}

#[test]
fn a_4x6_pdf_label_prints_through_cups_and_ipp_at_its_size() {
    let (Ok(queue), Ok(out)) = (
        std::env::var("PACKDESK_CUPS_PRINTER"),
        std::env::var("PACKDESK_CUPS_OUT"),
    ) else {
        // Never "ok" without printing: a missing printer is a failed test, with what to do.
        panic!(
            "PACKDESK_CUPS_PRINTER and PACKDESK_CUPS_OUT are not set: run the tests with the README's test \
             command, or export what `bash tests/cups-setup.sh` prints"
        );
    };
    let out = PathBuf::from(out);
    let s = Server::start();
    let account = yodel_account(&s);
    let mut body = yodel_label(&account, 1);
    body["paper_size"] = json!("4x6");
    let label = s.sandbox_ok("POST", "/v3/labels", Some(&body));
    let tracking = label["tracking_numbers"][0].as_str().unwrap();
    for (transport, address) in [
        ("spooler", queue.clone()),
        ("ipp", format!("ipp://localhost:631/printers/{queue}")),
    ] {
        let printer = s.live_ok("POST", "/desk/printers", Some(&json!({"name": format!("CUPS {transport}"), "transport": transport, "address": address, "format": "pdf"})));
        let before: Vec<PathBuf> = std::fs::read_dir(&out)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        let job = s.sandbox_ok(
            "POST",
            "/desk/print",
            Some(&json!({"label_id": label["id"], "printer_id": printer["id"]})),
        );
        assert_eq!(job["status"], "printed", "{transport}: {job}");
        assert!(
            job["reference"].is_string(),
            "{transport}: the spooler's job id is kept: {job}"
        );
        let pdf = wait_for_output(&out, &before);
        check_4x6_with_barcode(&pdf, tracking);
    }
    // The system printers list shows the queue.
    let system = s.sandbox_ok("GET", "/desk/system-printers", None);
    assert!(
        system["printers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == queue.as_str()),
        "{system}"
    );
    let _: Value = system;
}

fn status_when(s: &Server, want: &str) -> Value {
    let end = Instant::now() + Duration::from_secs(15);
    loop {
        let v = s.sandbox_ok("GET", "/desk/status", None);
        if v["state"] == want || Instant::now() > end {
            assert_eq!(v["state"], want, "{v}");
            return v;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_paused_desk_prints_nothing_until_resumed_even_across_a_restart_and_a_failing_printer_shows() {
    let mut s = Server::start();
    assert_eq!(
        s.sandbox_ok("GET", "/desk/status", None),
        json!({"state": "ready", "message": "Ready", "printing_paused": false, "jobs_waiting": 0, "failing_printers": [], "ranges_low": [], "manifests_not_sent": [], "backup_failed": null})
    );
    let (port, printed) = raw_printer();
    let printer = s.live_ok("POST", "/desk/printers", Some(&json!({"name": "Zebra desk 1", "transport": "raw", "address": format!("127.0.0.1:{port}"), "format": "zpl"})));
    let printer_id = printer["id"].as_str().unwrap().to_string();
    s.live_ok(
        "PUT",
        "/desk/print-profiles/label",
        Some(&json!({"printer_id": printer_id, "stock": "4x6", "auto_print": true})),
    );
    let account = yodel_account(&s);

    // The whole desk's: the sandbox key may not pause it; a body that is not a boolean is named.
    let (status, _) = s.call("PUT", "/desk/printing", &s.sandbox, Some(&json!({"paused": true})));
    assert_eq!(status, 401);
    let (_, v) = s.call("PUT", "/desk/printing", &s.live, Some(&json!({"paused": "yes"})));
    assert_eq!(detail_paths(&v), ["paused"], "{v}");
    let paused = s.live_ok("PUT", "/desk/printing", Some(&json!({"paused": true})));
    assert_eq!(
        (paused["state"].as_str(), paused["printing_paused"].as_bool()),
        (Some("printing_paused"), Some(true))
    );

    // Two labels made while paused, and one printed by hand: all three wait.
    let first = s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    let by_hand = s.sandbox_ok("POST", "/desk/print", Some(&json!({"label_id": first["id"]})));
    assert_eq!(by_hand["status"], "queued", "{by_hand}");
    let v = s.sandbox_ok("GET", "/desk/status", None);
    assert_eq!(v["message"], "Printing paused: 3 print jobs waiting", "{v}");
    // The worker would have sent them within milliseconds; nothing reached the printer.
    assert!(printed.recv_timeout(Duration::from_millis(800)).is_err());

    // A restart (kill -9) keeps the pause and the queue.
    s.kill_and_restart();
    let v = s.sandbox_ok("GET", "/desk/status", None);
    assert_eq!(
        (v["state"].as_str(), v["jobs_waiting"].as_i64()),
        (Some("printing_paused"), Some(3)),
        "{v}"
    );
    assert!(printed.recv_timeout(Duration::from_millis(800)).is_err());

    // Resumed: the three print, and the desk is ready.
    let resumed = s.live_ok("PUT", "/desk/printing", Some(&json!({"paused": false})));
    assert_eq!(resumed["printing_paused"], false);
    for _ in 0..3 {
        let zpl = printed
            .recv_timeout(Duration::from_secs(10))
            .expect("a held job printed");
        assert!(zpl.starts_with(b"^XA") || String::from_utf8_lossy(&zpl).contains("^XA"));
    }
    status_when(&s, "ready");

    // The printer goes away: its failed job makes the desk say so, by name and reason.
    let gone = TcpListener::bind("127.0.0.1:0").unwrap();
    let closed = gone.local_addr().unwrap().port();
    drop(gone);
    let mut change = printer.clone();
    for k in ["id", "created_at", "updated_at"] {
        change.as_object_mut().unwrap().remove(k);
    }
    change["address"] = json!(format!("127.0.0.1:{closed}"));
    s.live_ok("PUT", &format!("/desk/printers/{printer_id}"), Some(&change));
    let label = s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    let v = status_when(&s, "printer_failing");
    assert_eq!(v["failing_printers"][0]["name"], "Zebra desk 1", "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with("Printer Zebra desk 1 failing: "),
        "{v}"
    );
    // Back at its address, the failed job printed again: ready.
    change["address"] = json!(format!("127.0.0.1:{port}"));
    s.live_ok("PUT", &format!("/desk/printers/{printer_id}"), Some(&change));
    let job = s.sandbox_ok(
        "GET",
        &format!("/desk/print-jobs?record_id={}", label["id"].as_str().unwrap()),
        None,
    );
    let job_id = job["print_jobs"][0]["id"].as_str().unwrap();
    assert_eq!(
        s.sandbox_ok("POST", &format!("/desk/print-jobs/{job_id}/retry"), None)["status"],
        "printed"
    );
    printed
        .recv_timeout(Duration::from_secs(10))
        .expect("the retried job printed");
    status_when(&s, "ready");
}
