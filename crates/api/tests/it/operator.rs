//! What the operator of a desk sees of the running program: its command line (one definition,
//! unknown flags refused with help) and its logs (a daily file in the data folder, a request id
//! on every answer and in the log lines of that request).

use crate::support;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::Server;

const BIN: &str = env!("CARGO_BIN_EXE_packdesk-server");

#[test]
fn an_unknown_flag_is_refused_with_its_name_and_help_lists_the_options() {
    let out = Command::new(BIN).args(["--data-dri", "/tmp/x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--data-dri"), "{err}");
    let help = Command::new(BIN).arg("--help").output().unwrap();
    assert!(help.status.success());
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--data-dir",
        "--listen",
        "--ui-dir",
        "--file-link-days",
        "--log",
        "keys",
        "webhook",
    ] {
        assert!(help.contains(flag), "{flag} missing from --help:\n{help}");
    }
    let bad = Command::new(BIN).args(["--listen", "localhost"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2), "an address without a port is refused");
}

/// The text of the day's log files, once it contains `want` (the file writer runs on its own thread).
fn log_with(dir: &std::path::Path, want: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut text = String::new();
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            text += &std::fs::read_to_string(e.path()).unwrap_or_default();
        }
        if text.contains(want) || Instant::now() > deadline {
            return text;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_log_file_is_in_the_data_folder_and_requests_carry_their_id() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut child = Command::new(BIN)
        .args([
            "--data-dir",
            data.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
            "--log",
            "debug",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let base = loop {
        let l = lines.next().expect("server printed its address").unwrap();
        if let Some(a) = l.strip_prefix("packdesk-server listening on ") {
            break a.to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    let logs = data.join("logs");
    let started = log_with(&logs, "packdesk-server started");
    assert!(started.contains("packdesk-server started"), "{started}");
    let name = std::fs::read_dir(&logs).unwrap().next().unwrap().unwrap().file_name();
    let name = name.to_string_lossy();
    assert!(name.starts_with("packdesk.") && name.ends_with(".log"), "{name}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&logs).unwrap().permissions().mode() & 0o777, 0o700);
    }

    // An id the caller sends is kept and echoed; without one, the desk makes one.
    let client = reqwest::blocking::Client::new();
    let r = client
        .get(format!("{base}/v3/labels"))
        .header("x-request-id", "wms-7f3a")
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    assert_eq!(r.headers()["x-request-id"], "wms-7f3a");
    let made = client.get(format!("{base}/v3/labels")).send().unwrap();
    let made = made.headers()["x-request-id"].to_str().unwrap().to_string();
    assert_eq!(made.len(), 36, "a UUID: {made}");
    let text = log_with(&logs, "wms-7f3a");
    assert!(
        text.lines()
            .any(|l| l.contains("request_id=wms-7f3a") && l.contains("/v3/labels")),
        "no log line of the request with its id:\n{text}"
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn the_desk_session_says_where_the_logs_are() {
    let s = Server::start();
    let v: serde_json::Value = reqwest::blocking::get(s.url("/ui/session")).unwrap().json().unwrap();
    assert_eq!(v["data"]["log_dir"], s.data_dir.join("logs").display().to_string());
}
