//! Ranges that warn before they run out, over HTTP: a live account's pool below its warning is
//! flagged on the account and in `/desk/status`; a used-up pool's 4730 names the account; a longer
//! list of ranges PUT while 16 clients make labels continues into the new range, no number twice.

use crate::support;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use support::*;

/// A live Yodel account drawing from `ranges`.
fn live_account(s: &Server, description: &str, ranges: Value) -> String {
    let body = json!({"slug": "yodel", "description": description, "credentials": {"identity": "i", "password": "p", "account_number": "1"}, "timezone": "Europe/London", "settings": {"tracking_ranges": {"default": ranges}}});
    s.live_ok("POST", "/v3/shipper-accounts", Some(&body))["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A label of `parcels` 1 kg parcels.
fn label(account: &str, parcels: usize) -> Value {
    let mut l = yodel_label(account, 1);
    l["shipment"]["parcels"] = json!(vec![json!({"weight": {"value": 1, "unit": "kg"}}); parcels]);
    l
}

/// Yodel's numbers are the 15-digit serial and a check digit.
fn serial(number: &str) -> u64 {
    number[..number.len() - 1].parse().unwrap()
}

fn make(s: &Server, account: &str, parcels: usize) -> Vec<u64> {
    let l = s.live_ok("POST", "/v3/labels", Some(&label(account, parcels)));
    tracking_numbers(&l).iter().map(|n| serial(n)).collect()
}

fn account(s: &Server, id: &str) -> Value {
    s.live_ok("GET", &format!("/v3/shipper-accounts/{id}"), None)
}

#[test]
fn a_pool_running_low_is_flagged_a_used_up_one_names_the_account_and_a_longer_list_continues() {
    let s = Server::start();
    let id = live_account(&s, "Yodel live", json!({"start": 1000, "end": 1109}));
    let a = account(&s, &id);
    assert_eq!(a["tracking_numbers_left"]["default"], 110);
    // One range stays an object.
    assert_eq!(
        a["settings"]["tracking_ranges"]["default"],
        json!({"start": 1000, "end": 1109})
    );
    assert_eq!(a["tracking_numbers_low"], json!([]));
    assert_eq!(s.live_ok("GET", "/desk/status", None)["ranges_low"], json!([]));

    // 110 numbers: the warning is 100 (a tenth, at least 100). At 100 left nothing is flagged…
    assert_eq!(make(&s, &id, 10), (1000..1010).collect::<Vec<_>>());
    assert_eq!(account(&s, &id)["tracking_numbers_low"], json!([]));
    // …at 99 the account, the desk's status and its message say so.
    make(&s, &id, 1);
    let a = account(&s, &id);
    assert_eq!(a["tracking_numbers_left"]["default"], 99);
    assert_eq!(a["tracking_numbers_low"], json!(["default"]));
    let st = s.live_ok("GET", "/desk/status", None);
    assert_eq!(
        st["ranges_low"],
        json!([{"account_id": id, "account": "Yodel live", "slug": "yodel", "pool": "default", "left": 99, "warning": 100}])
    );
    assert_eq!(st["state"], "ranges_low");
    assert_eq!(
        st["message"],
        "Tracking numbers running low: Yodel live (default) has 99 left"
    );

    // A warning of the account's own.
    let a = s.live_ok(
        "PUT",
        &format!("/v3/shipper-accounts/{id}"),
        Some(&json!({"settings": {"range_warning": 50}})),
    );
    assert_eq!(a["tracking_numbers_low"], json!([]));
    assert_eq!(s.live_ok("GET", "/desk/status", None)["state"], "ready");

    // Down to 9: a label of 10 parcels is refused, naming the account and what to do, and takes
    // nothing.
    make(&s, &id, 45);
    make(&s, &id, 45);
    let (_, e) = s.call("POST", "/v3/labels", &s.live, Some(&label(&id, 10)));
    assert_eq!(e["meta"]["code"], 4730, "{e}");
    assert_eq!(
        e["meta"]["details"][0]["info"],
        "The tracking-number range of Yodel live (pool default) is used up: 9 left, 10 needed. Add the carrier's \
         next range to this account (Accounts → the account → Tracking ranges)"
    );
    let a = account(&s, &id);
    assert_eq!(a["tracking_numbers_left"]["default"], 9);
    assert_eq!(a["tracking_numbers_low"], json!(["default"]));

    // The carrier's next range added: both ranges count, and an 11-parcel label takes the old
    // range's last 9 and the new one's first 2.
    let two = json!([{"start": 1000, "end": 1109}, {"start": 5000, "end": 5009}]);
    let a = s.live_ok(
        "PUT",
        &format!("/v3/shipper-accounts/{id}"),
        Some(&json!({"settings": {"tracking_ranges": {"default": two}}})),
    );
    assert_eq!(a["tracking_numbers_left"]["default"], 19);
    assert_eq!(a["settings"]["tracking_ranges"]["default"], two);
    let mut expected: Vec<u64> = (1101..=1109).collect();
    expected.extend([5000, 5001]);
    assert_eq!(make(&s, &id, 11), expected);
    assert_eq!(account(&s, &id)["tracking_numbers_left"]["default"], 8);

    // 16 clients make 8 labels each (128) while 8 numbers are left: they run out, the test adds a
    // third range, and they carry on in it.
    let three = json!([{"start": 1000, "end": 1109}, {"start": 5000, "end": 5009}, {"start": 6000, "end": 6199}]);
    let refused = AtomicUsize::new(0);
    let made: Vec<u64> = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..16)
            .map(|_| {
                let (s, id, refused) = (&s, &id, &refused);
                scope.spawn(move || {
                    let mut mine = Vec::new();
                    let end = Instant::now() + Duration::from_secs(120);
                    while mine.len() < 8 {
                        assert!(Instant::now() < end, "no numbers after the new range was added");
                        let (status, v) = s.call("POST", "/v3/labels", &s.live, Some(&label(id, 1)));
                        match v["meta"]["code"].as_i64() {
                            Some(200) => mine.extend(tracking_numbers(&v["data"]).iter().map(|n| serial(n))),
                            Some(4730) => {
                                refused.fetch_add(1, Ordering::SeqCst);
                                std::thread::sleep(Duration::from_millis(20));
                            }
                            _ => panic!("{status}: {v}"),
                        }
                    }
                    mine
                })
            })
            .collect();
        // The range runs out while the clients are at work; then the longer list comes.
        let end = Instant::now() + Duration::from_secs(60);
        while refused.load(Ordering::SeqCst) == 0 {
            assert!(Instant::now() < end, "the clients never ran out");
            std::thread::sleep(Duration::from_millis(10));
        }
        let (status, v) = s.call(
            "PUT",
            &format!("/v3/shipper-accounts/{id}"),
            &s.live,
            Some(&json!({"settings": {"tracking_ranges": {"default": three}}})),
        );
        assert_eq!(v["meta"]["code"], 200, "{status}: {v}");
        clients.into_iter().flat_map(|c| c.join().unwrap()).collect()
    });
    assert_eq!(made.len(), 128);
    let distinct: HashSet<u64> = made.iter().copied().collect();
    assert_eq!(distinct.len(), 128, "a number was issued twice");
    // The second range's last 8, then the new range from its start, nothing outside them.
    let mut want: HashSet<u64> = (5002..=5009).collect();
    want.extend(6000..6120);
    assert_eq!(distinct, want);
    let a = account(&s, &id);
    assert_eq!(a["tracking_numbers_left"]["default"], 80);
    assert_eq!(a["tracking_numbers_low"], json!([]));
    assert_eq!(s.live_ok("GET", "/desk/status", None)["ranges_low"], json!([]));
}

#[test]
fn a_list_of_ranges_out_of_order_or_overlapping_is_refused_where_it_is_wrong() {
    let s = Server::start();
    let id = live_account(&s, "Yodel live", json!([{"start": 1, "end": 10}]));
    let put = |ranges: Value| {
        s.call(
            "PUT",
            &format!("/v3/shipper-accounts/{id}"),
            &s.live,
            Some(&json!({"settings": {"tracking_ranges": {"default": ranges}}})),
        )
    };
    let (_, e) = put(json!([{"start": 1, "end": 10}, {"start": 10, "end": 20}]));
    assert_eq!(e["meta"]["code"], 4104, "{e}");
    assert_eq!(detail_paths(&e), ["settings.tracking_ranges.default[1].start"]);
    let (_, e) = put(json!([{"start": 1, "end": 10}, {"start": 30, "end": 20}]));
    assert_eq!(detail_paths(&e), ["settings.tracking_ranges.default[1].end"]);
    let (_, e) = put(json!([{"start": 1, "stop": 2}]));
    assert_eq!(detail_paths(&e), ["settings.tracking_ranges.default[0].stop"]);
    assert_eq!(
        e["meta"]["details"][0]["info"],
        "unknown field `stop`, expected `start` or `end`"
    );
    let (_, e) = put(json!([]));
    assert_eq!(detail_paths(&e), ["settings.tracking_ranges.default"]);
    // Nothing changed.
    assert_eq!(
        account(&s, &id)["settings"]["tracking_ranges"]["default"],
        json!([{"start": 1, "end": 10}])
    );
    // A sandbox account draws from the carrier's sample range and is never flagged.
    let sandbox = yodel_account(&s);
    let a = s.sandbox_ok("GET", &format!("/v3/shipper-accounts/{sandbox}"), None);
    assert_eq!(a["tracking_numbers_low"], json!([]));
}
