//! A shared database that fails over, black box: a primary and its synchronous streaming standby
//! (`tests/postgres.sh pair`: a commit answers once the standby has it), two real desks on the
//! address naming both servers with `target_session_attrs=read-write`, 8 clients making labels.
//! The primary is stopped as a crash would (`pg_ctl stop -m immediate`) and the standby promoted:
//! the desks find the new primary by themselves.

use crate::support::*;
use serde_json::Value;
use std::collections::HashSet;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The pair of `tests/postgres.sh pair`, stopped and removed when dropped.
struct Pair {
    dir: String,
    url: String,
}

fn script() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/postgres.sh")
}

impl Pair {
    fn start() -> Pair {
        let out = Command::new("bash").arg(script()).arg("pair").output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let var = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("{name}=")))
                .unwrap_or_else(|| panic!("{name} in {text}"))
                .to_string()
        };
        Pair {
            dir: var("PACKDESK_TEST_PAIR_DIR"),
            url: var("PACKDESK_TEST_PAIR_URL"),
        }
    }

    fn fail_over(&self) {
        let out = Command::new("bash")
            .arg(script())
            .args(["failover", &self.dir])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        let _ = Command::new("bash").arg(script()).args(["stop", &self.dir]).output();
    }
}

/// One answer a client got: when, from which desk, and what.
struct Answer {
    sent: Instant,
    at: Instant,
    desk: usize,
    meta: Value,
    label: Value,
}

#[test]
fn desks_find_the_promoted_standby_by_themselves_and_lose_no_label_answered() {
    let pair = Pair::start();
    let a = Server::start_on(Some((pair.url.clone(), "A".into())), None);
    let join = keys_text(&a.data_dir, a.shared.as_ref())
        .lines()
        .find_map(|l| l.strip_prefix("join "))
        .expect("a join code")
        .to_string();
    let b = Server::start_on(Some((pair.url.clone(), "B".into())), Some(&join));
    let account = yodel_account(&a);
    let desks = [&a, &b];

    let stop = AtomicBool::new(false);
    let answers = Mutex::new(Vec::<Answer>::new());
    let failed_over = Mutex::new(None::<(Instant, Instant)>);
    std::thread::scope(|scope| {
        for client in 0..8 {
            let (desk, account, stop, answers) = (desks[client % 2], &account, &stop, &answers);
            scope.spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    let sent = Instant::now();
                    let (_, v) = desk.call("POST", "/v3/labels", &desk.sandbox, Some(&yodel_label(account, 1)));
                    answers.lock().unwrap().push(Answer {
                        sent,
                        at: Instant::now(),
                        desk: client % 2,
                        meta: v["meta"].clone(),
                        label: v["data"].clone(),
                    });
                }
            });
        }
        // Labels flow; then the primary dies and the standby is promoted.
        std::thread::sleep(Duration::from_secs(2));
        // The gap counts from the primary's death.
        let at = Instant::now();
        pair.fail_over();
        *failed_over.lock().unwrap() = Some((at, Instant::now()));
        // Until each desk has made labels again for two seconds (at most 20 s).
        loop {
            std::thread::sleep(Duration::from_millis(200));
            let back = |d: usize| {
                answers
                    .lock()
                    .unwrap()
                    .iter()
                    .filter(|x| x.desk == d && x.meta["code"] == 200 && x.at > at)
                    .map(|x| x.at)
                    .min()
            };
            let both = back(0).zip(back(1));
            if both.is_some_and(|(x, y)| x.max(y).elapsed() > Duration::from_secs(2))
                || at.elapsed() > Duration::from_secs(20)
            {
                break;
            }
        }
        stop.store(true, Ordering::SeqCst);
    });
    let answers = answers.into_inner().unwrap();
    let (failed_over, promoted) = failed_over.into_inner().unwrap().unwrap();

    // Each desk carried on within 10 s of the primary's death.
    let errors = answers.iter().filter(|x| x.meta["code"] != 200).count();
    for d in 0..2 {
        let first = answers
            .iter()
            // A label asked for once the standby was promoted: the gap is at most its answer.
            .filter(|x| x.desk == d && x.meta["code"] == 200 && x.sent > promoted)
            .map(|x| x.at - failed_over)
            .min()
            .unwrap_or_else(|| panic!("desk {d} made no label after the failover"));
        assert!(first < Duration::from_secs(10), "desk {d} was back after {first:?}");
        eprintln!(
            "failover: desk {d} made a label again {} ms after the primary died",
            first.as_millis()
        );
    }
    eprintln!(
        "failover: {} answers, {errors} retryable errors in the gap",
        answers.len()
    );
    // A request in the gap got a retryable error in words, never anything else.
    let made: Vec<&Answer> = answers.iter().filter(|x| x.meta["code"] == 200).collect();
    let before = made.iter().filter(|x| x.at < failed_over).count();
    assert!(before > 0, "labels were made before the failover");
    for x in answers.iter().filter(|x| x.meta["code"] != 200) {
        assert_eq!(x.meta["retryable"], true, "{}", x.meta);
        let info = x.meta["details"][0]["info"].as_str().unwrap_or_default();
        assert!(info.contains("database") && info.contains("again"), "{info}");
    }
    let said: HashSet<&str> = answers
        .iter()
        .filter_map(|x| x.meta["details"][0]["info"].as_str())
        .collect();
    eprintln!("failover: said in the gap: {said:?}");
    // Every label answered (before the failover too) is on the new primary, whole; no tracking
    // number twice.
    let mut numbers = HashSet::new();
    for x in &made {
        let id = x.label["id"].as_str().unwrap();
        let stored = a.sandbox_ok("GET", &format!("/v3/labels/{id}"), None);
        assert_eq!(stored["tracking_numbers"], x.label["tracking_numbers"], "label {id}");
        for n in tracking_numbers(&x.label) {
            assert!(numbers.insert(n.clone()), "tracking number {n} twice");
        }
    }
    // Nothing half-made: every label the database holds (answered or not) has its numbers and
    // its document.
    let mut next: Option<String> = None;
    let mut held = 0;
    loop {
        let path = match &next {
            None => "/v3/labels?limit=200".to_string(),
            Some(t) => format!("/v3/labels?limit=200&next_token={t}"),
        };
        let list = a.sandbox_ok("GET", &path, None);
        let labels = list["labels"].as_array().unwrap().clone();
        for l in &labels {
            held += 1;
            assert!(!tracking_numbers(l).is_empty(), "a label without numbers: {l}");
            let url = l["files"]["label"]["url"].as_str().expect("a label file");
            let pdf = reqwest::blocking::get(url).unwrap().bytes().unwrap();
            assert!(pdf.starts_with(b"%PDF"), "label {} has its document", l["id"]);
        }
        match list["next_token"].as_str() {
            Some(t) => next = Some(t.to_string()),
            None => break,
        }
    }
    assert!(held >= made.len(), "{held} labels held, {} answered", made.len());
}
