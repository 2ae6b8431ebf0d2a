//! Backups of a desk's own database with the real `packdesk-server`: `backup` while 8 clients
//! make labels, `restore` into a new folder, and the restored desk serving every label answered
//! before the backup began, with its documents, its API keys and credentials opened by the vault
//! key the backup carried under its passphrase.

use crate::support::*;
use serde_json::Value;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const PASSPHRASE: &str = "correct horse battery staple";

fn run(args: &[&str], passphrase: Option<&str>) -> (bool, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(args).env_remove("PACKDESK_BACKUP_PASSPHRASE");
    if let Some(p) = passphrase {
        cmd.env("PACKDESK_BACKUP_PASSPHRASE", p);
    }
    let out = cmd.stdin(std::process::Stdio::null()).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn a_backup_made_while_labels_are_made_restores_every_label_before_it_with_documents_keys_and_credentials() {
    // The desk's own database file, whichever backend the suite runs on.
    let s = Arc::new(Server::start_on(None, None));
    let account = yodel_account(&s);
    let stop = Arc::new(AtomicBool::new(false));
    let answered: Arc<Mutex<Vec<(Instant, String)>>> = Arc::default();
    let start = Instant::now();
    let clients: Vec<_> = (0..8)
        .map(|_| {
            let (s, stop, answered, account) = (s.clone(), stop.clone(), answered.clone(), account.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    let (status, v) = s.call("POST", "/v3/labels", &s.sandbox, Some(&yodel_label(&account, 1)));
                    if status == 200 && v["meta"]["code"] == 200 {
                        let id = v["data"]["id"].as_str().unwrap().to_string();
                        answered.lock().unwrap().push((Instant::now(), id));
                    }
                }
            })
        })
        .collect();
    // Labels are being made when the backup starts (however slowly this machine makes them).
    let answered_at_least = |n: usize, after: Instant| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while answered.lock().unwrap().iter().filter(|(at, _)| *at >= after).count() < n && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    answered_at_least(8, start);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("desk.backup");
    let began = Instant::now();
    let data = s.data_dir.to_str().unwrap();
    let (ok, said) = run(
        &[
            "backup",
            "--data-dir",
            data,
            "--to",
            file.to_str().unwrap(),
            "--with-vault-key",
        ],
        Some(PASSPHRASE),
    );
    assert!(ok, "{said}");
    answered_at_least(1, began);
    stop.store(true, Ordering::SeqCst);
    clients.into_iter().for_each(|c| c.join().unwrap());
    let before: Vec<String> = answered
        .lock()
        .unwrap()
        .iter()
        .filter(|(at, _)| *at < began)
        .map(|(_, id)| id.clone())
        .collect();
    assert!(
        before.len() >= 8,
        "labels were made before the backup: {}",
        before.len()
    );
    assert!(
        answered.lock().unwrap().len() > before.len(),
        "the desk kept making labels while the backup ran"
    );
    // A second backup to the same file is refused; the first is untouched.
    let (ok, said) = run(&["backup", "--data-dir", data, "--to", file.to_str().unwrap()], None);
    assert!(!ok && said.contains("exists"), "{said}");

    // Restore: a folder that is not empty is refused, a wrong passphrase too.
    let restored = dir.path().join("restored");
    let busy = dir.path().join("busy");
    std::fs::create_dir_all(&busy).unwrap();
    std::fs::write(busy.join("something"), b"x").unwrap();
    let from = file.to_str().unwrap();
    let (ok, said) = run(
        &["restore", "--from", from, "--data-dir", busy.to_str().unwrap()],
        Some(PASSPHRASE),
    );
    assert!(!ok && said.contains("not empty"), "{said}");
    let (ok, said) = run(
        &["restore", "--from", from, "--data-dir", restored.to_str().unwrap()],
        Some("wrong"),
    );
    assert!(!ok && said.contains("not the passphrase"), "{said}");
    let (ok, said) = run(
        &["restore", "--from", from, "--data-dir", restored.to_str().unwrap()],
        Some(PASSPHRASE),
    );
    assert!(ok, "{said}");

    // The restored desk: the same keys (sealed in the database, opened by the restored vault key),
    // every label answered before the backup with its label document, byte for byte.
    let r = Server::start_in(&restored);
    assert_eq!((&r.live, &r.sandbox), (&s.live, &s.sandbox));
    for id in &before {
        let original: Value = s.sandbox_ok("GET", &format!("/v3/labels/{id}"), None);
        let copy: Value = r.sandbox_ok("GET", &format!("/v3/labels/{id}"), None);
        assert_eq!(copy["tracking_numbers"], original["tracking_numbers"]);
        let url = |v: &Value| v["files"]["label"]["url"].as_str().unwrap().to_string();
        assert_eq!(
            r.download(&url(&copy), &r.sandbox).1,
            s.download(&url(&original), &s.sandbox).1
        );
    }
    // The account's credentials open: a new label on the restored desk is made with them.
    let (status, made) = r.call("POST", "/v3/labels", &r.sandbox, Some(&yodel_label(&account, 1)));
    assert_eq!(
        (status, &made["meta"]["code"]),
        (200, &serde_json::json!(200)),
        "{made}"
    );
}

#[test]
fn a_file_that_is_no_backup_is_refused_and_restore_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-backup");
    std::fs::write(&file, b"hello").unwrap();
    let (ok, said) = run(
        &[
            "restore",
            "--from",
            file.to_str().unwrap(),
            "--data-dir",
            dir.path().join("d").to_str().unwrap(),
        ],
        None,
    );
    assert!(!ok, "{said}");
    assert!(
        said.contains("not a Packdesk backup") || said.contains("opening"),
        "{said}"
    );
}

#[test]
fn a_passphrase_typed_at_a_terminal_is_not_shown_and_is_asked_twice() {
    // `script` gives the command a terminal; what is typed goes to it as a person's keys would.
    let s = Server::start_on(None, None);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("desk.backup");
    let command = format!(
        "{BIN} backup --data-dir {} --to {} --with-vault-key",
        s.data_dir.display(),
        file.display()
    );
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env_remove("PACKDESK_BACKUP_PASSPHRASE")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut keys = child.stdin.take().unwrap();
        for _ in 0..2 {
            // Typed when asked: the terminal would drop keys typed before the echo is off.
            std::thread::sleep(Duration::from_millis(700));
            keys.write_all(format!("{PASSPHRASE}\n").as_bytes()).unwrap();
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    let out = child.wait_with_output().unwrap();
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{shown}");
    assert!(
        shown.contains("Passphrase for the vault key") && shown.contains("The same passphrase again"),
        "{shown}"
    );
    assert!(!shown.contains(PASSPHRASE), "the passphrase was shown: {shown}");
    assert!(file.exists());
}

#[test]
fn settings_list_the_daily_backups_newest_first() {
    let mut s = Server::start_on(None, None);
    // From hour 0: the day's backup is due whenever the desk starts.
    s.live_ok("PUT", "/desk/settings", Some(&serde_json::json!({"backup_hour": 0})));
    s.kill();
    s.restart();
    let deadline = Instant::now() + Duration::from_secs(10);
    let listed = loop {
        let listed = s.live_ok("GET", "/desk/backups", None);
        if !listed["backups"].as_array().unwrap().is_empty() || Instant::now() > deadline {
            break listed;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let backups = listed["backups"].as_array().unwrap();
    assert_eq!(backups.len(), 1, "{listed}");
    let today = chrono::Local::now().date_naive();
    assert_eq!(backups[0]["file"], format!("packdesk-{today}.backup"));
    assert!(backups[0]["bytes"].as_u64().unwrap() > 0);
    assert!(listed["folder"].as_str().unwrap().ends_with("backups"), "{listed}");
    let file = s.data_dir.join("backups").join(backups[0]["file"].as_str().unwrap());
    assert_eq!(
        std::fs::metadata(file).unwrap().len(),
        backups[0]["bytes"].as_u64().unwrap()
    );
}
