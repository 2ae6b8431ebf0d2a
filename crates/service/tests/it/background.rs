//! The background loops when the store stops answering: the print worker says so in the log with
//! the cause and waits longer each round (1 s, 2 s, ...), never taking a failing database for
//! "nothing to print", and prints what waits once the store answers again.

use crate::common::*;
use packdesk_carriers::carrier;
use packdesk_model::ToRequest;
use packdesk_service::clock::SystemClock;
use packdesk_service::keys::Env;
use packdesk_service::workers::Workers;
use packdesk_service::Service;
use serde_json::json;
use std::io::Read;
use std::net::TcpListener;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// What the process logs (every test of this binary logs here; this one looks for its own lines).
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Log {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn log() -> &'static Log {
    static LOG: OnceLock<Log> = OnceLock::new();
    LOG.get_or_init(|| {
        let log = Log::default();
        let writer = log.clone();
        tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .init();
        log
    })
}

/// The lines logged so far that contain `text`.
fn lines_with(text: &str) -> Vec<String> {
    let bytes = log().0.lock().unwrap().clone();
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter(|l| l.contains(text))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_print_worker_logs_a_failing_store_backs_off_and_prints_once_it_answers() {
    log();
    let dir = tempfile::tempdir().unwrap();
    let s = Arc::new(
        Service::open(dir.path(), "http://127.0.0.1:9", Arc::new(SystemClock))
            .unwrap()
            .service,
    );
    let workers = Workers::started(&s, 1).unwrap();
    // The database loses the print jobs' table under the running desk.
    let db = rusqlite::Connection::open(dir.path().join("packdesk.sqlite3")).unwrap();
    db.execute_batch("ALTER TABLE print_jobs RENAME TO print_jobs_away")
        .unwrap();
    // Resuming the desk's printing wakes the worker to read its work (the answer, the desk's
    // status, cannot be read either: the resume itself is saved first).
    for paused in [true, false] {
        let _ = s.set_printing(json!({"paused": paused}).to_request().unwrap());
    }
    assert!(!s.printing_paused());
    let end = Instant::now() + Duration::from_secs(20);
    let failed = loop {
        let failed = lines_with("print jobs cannot be read");
        if failed.len() >= 2 || Instant::now() > end {
            break failed;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(failed.len() >= 2, "the failing reads are logged: {failed:?}");
    let field = |line: &str, f: &str| line.split_whitespace().any(|w| w == f);
    assert!(
        field(&failed[0], "retry_in_s=1") && field(&failed[1], "retry_in_s=2"),
        "{failed:?}"
    );
    assert!(failed[0].contains("print_jobs"), "the cause is named: {}", failed[0]);

    // Back: a label made now is printed by the worker.
    db.execute_batch("ALTER TABLE print_jobs_away RENAME TO print_jobs")
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let printer = s
        .add_printer(
            json!({"name": "Zebra", "transport": "raw", "address": format!("127.0.0.1:{port}"), "format": "zpl"})
                .to_request()
                .unwrap(),
        )
        .unwrap();
    s.set_print_profile(
        "label",
        json!({"printer_id": printer.id, "auto_print": true})
            .to_request()
            .unwrap(),
    )
    .unwrap();
    let c = carrier("tipsa").unwrap();
    let account = create_account(&s, Env::Sandbox, c, json!({}));
    let mut body = label_request(&account, c, &c.service_types[0]);
    body["file_type"] = json!("zpl");
    let label = s.create_label(Env::Sandbox, body.to_request().unwrap()).unwrap();
    listener.set_nonblocking(false).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        if let Some(mut c) = listener.incoming().flatten().next() {
            let mut all = Vec::new();
            let _ = c.read_to_end(&mut all);
            let _ = tx.send(all);
        }
    });
    let printed = rx.recv_timeout(Duration::from_secs(90)).expect("the label was printed");
    let zpl = String::from_utf8_lossy(&printed);
    assert!(zpl.contains(&label.tracking_numbers[0]), "{zpl:.200}");
    drop(workers);
}
