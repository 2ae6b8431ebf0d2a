//! `GET /metrics` of the real `packdesk-server`, read as Prometheus reads it: every sample line
//! is `name{labels} value` under its `# TYPE`, and the counters move as labels are made.

use crate::support::*;
use std::collections::HashMap;

/// The samples of a scrape: `name{labels}` to value; panics on a line Prometheus would refuse.
fn samples(text: &str) -> HashMap<String, f64> {
    let mut typed = std::collections::HashSet::new();
    let mut out = HashMap::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let mut words = rest.split_whitespace();
            let name = words.next().unwrap().to_string();
            let kind = words.next().unwrap();
            assert!(
                ["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind),
                "{line}"
            );
            typed.insert(name);
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("no value: {line}"));
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("not a number: {line}"));
        let name = series.split('{').next().unwrap();
        assert!(
            name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'),
            "a metric name: {line}"
        );
        if let Some(labels) = series.strip_prefix(name) {
            assert!(
                labels.is_empty() || (labels.starts_with('{') && labels.ends_with('}')),
                "{line}"
            );
        }
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|s| name.strip_suffix(s))
            .filter(|f| typed.contains(*f))
            .unwrap_or(name);
        assert!(typed.contains(family), "a sample without its # TYPE: {line}");
        out.insert(series.to_string(), value);
    }
    out
}

fn scrape(s: &Server) -> HashMap<String, f64> {
    let r = reqwest::blocking::get(s.url("/metrics")).unwrap();
    assert_eq!(r.status().as_u16(), 200);
    samples(&r.text().unwrap())
}

#[test]
fn metrics_parse_and_their_counters_move_as_labels_are_made() {
    let s = Server::start();
    let account = yodel_account(&s);
    let made = |m: &HashMap<String, f64>| {
        m.get(r#"packdesk_labels_created_total{carrier="yodel",environment="sandbox"}"#)
            .copied()
            .unwrap_or(0.0)
    };
    let before = scrape(&s);
    for _ in 0..3 {
        s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    }
    let after = scrape(&s);
    assert_eq!(made(&after) - made(&before), 3.0);
    let timed = after
        .iter()
        .find(|(k, _)| {
            k.starts_with("packdesk_http_request_duration_seconds_count")
                && k.contains(r#"route="/v3/labels""#)
                && k.contains(r#"method="POST""#)
        })
        .map(|(_, v)| *v);
    assert!(timed.is_some_and(|n| n >= 3.0), "{after:?}");
    for gauge in [
        "packdesk_async_jobs_queued",
        "packdesk_manifests_not_transmitted",
        r#"packdesk_webhook_deliveries{state="pending"}"#,
        r#"packdesk_webhook_deliveries{state="failed"}"#,
        r#"packdesk_print_jobs{state="failed"}"#,
    ] {
        assert!(after.contains_key(gauge), "{gauge} in {after:?}");
    }
    // One desk's writer: held by the three labels' writes (none on a shared database).
    let held = |m: &HashMap<String, f64>| m.get("packdesk_writer_held_seconds").copied();
    match on_shared_database() {
        true => assert_eq!(held(&after), None, "{after:?}"),
        false => assert!(held(&after).unwrap_or(0.0) > held(&before).unwrap_or(0.0), "{after:?}"),
    }
    // The account's pools and what is left in them.
    assert!(
        after
            .keys()
            .any(|k| k.starts_with("packdesk_tracking_numbers_left{") && k.contains(&account)),
        "{after:?}"
    );
}

/// The phases of one `Server-Timing` header, by name (ms).
fn phases(header: &str) -> HashMap<String, f64> {
    header
        .split(", ")
        .map(|p| {
            let (name, dur) = p.split_once(";dur=").unwrap_or_else(|| panic!("{p} in {header}"));
            (
                name.to_string(),
                dur.parse().unwrap_or_else(|_| panic!("{dur} in {header}")),
            )
        })
        .collect()
}

#[test]
fn every_answer_says_where_its_time_went_in_server_timing() {
    let s = Server::start();
    let account = yodel_account(&s);
    let client = reqwest::blocking::Client::new();
    let r = client
        .post(s.url("/v3/labels"))
        .header("service-api-key", &s.sandbox)
        .json(&yodel_label(&account, 1))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let header = r.headers()["server-timing"].to_str().unwrap().to_string();
    let label = phases(&header);
    // A label is checked, numbered, rendered, written and made durable: each phase is named, and
    // the whole holds its parts. (On a shared database its one statement commits as it is
    // answered: its write holds the sync.)
    let mut named = vec![
        "auth", "parse", "queue", "check", "reserve", "render", "write", "answer",
    ];
    if !on_shared_database() {
        named.push("sync");
    }
    for phase in named {
        assert!(label.contains_key(phase), "{phase} in {header}");
    }
    assert!(label["render"] > 0.0 && label["total"] > 0.0, "{header}");
    let parts: f64 = label.iter().filter(|(n, _)| *n != "total").map(|(_, ms)| ms).sum();
    assert!(parts <= label["total"] + 0.01, "{header}");
    // A refused request says it too (no key: only the check of it).
    let refused = client.get(s.url("/v3/labels")).send().unwrap();
    assert_eq!(refused.status().as_u16(), 401);
    let refused = phases(refused.headers()["server-timing"].to_str().unwrap());
    assert!(
        refused.contains_key("total") && !refused.contains_key("render"),
        "{refused:?}"
    );
}
