//! A fuzz target on stable Rust (proptest): request parsing and validation of every POST body of
//! the interface, fed with arbitrary JSON trees and with valid bodies whose leaves are replaced by
//! arbitrary values or whose keys are dropped. Each answer must be a record or an error whose
//! details say where (a path, or the body as a whole) and why; nothing may panic. `FUZZ_CASES`
//! sets the number of cases per target (256 by default, as CI runs it).

use crate::common;
use common::*;
use packdesk_carriers::carrier;
use packdesk_model::ToRequest;
use packdesk_model::{from_slice, ServiceError};
use packdesk_service::keys::Env;
use packdesk_service::Service;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::sync::OnceLock;

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(256)
}

/// One service for every case (opening a data folder per case would measure the disk, not parsing).
fn desk() -> &'static (Harness, String, String, String) {
    static DESK: OnceLock<(Harness, String, String, String)> = OnceLock::new();
    DESK.get_or_init(|| {
        let h = harness();
        let c = carrier("dpd-uk").unwrap();
        let account = create_account(&h.service, Env::Sandbox, c, json!({}));
        let make = || {
            let body = label_request(&account, c, c.service("dpd-uk_dpddirect").unwrap());
            wire(
                h.service
                    .create_label(Env::Sandbox, body.to_request().unwrap())
                    .unwrap(),
            )["id"]
                .as_str()
                .unwrap()
                .to_string()
        };
        let (one, two) = (make(), make());
        (h, account, one, two)
    })
}

/// A body as the HTTP edge takes it: read as the route's request type, then handed to the service.
type Call = fn(&Service, &[u8]) -> Result<(), ServiceError>;

/// Every POST body the interface takes, with a valid example of each.
fn targets() -> Vec<(&'static str, Call, Value)> {
    let (_, account, label, other) = desk();
    let c = carrier("dpd-uk").unwrap();
    let label_body = label_request(account, c, c.service("dpd-uk_dpddirect").unwrap());
    vec![
        (
            "labels",
            |s, b| s.create_label(Env::Sandbox, from_slice(b)?).map(drop),
            label_body.clone(),
        ),
        (
            "shipper-accounts",
            |s, b| s.create_account(Env::Sandbox, from_slice(b)?).map(drop),
            json!({"slug": "dpd-uk", "description": "desk", "credentials": credentials(c)}),
        ),
        (
            "cancel-labels",
            |s, b| s.cancel_label(Env::Sandbox, from_slice(b)?).map(drop),
            json!({"label": {"id": label}}),
        ),
        (
            "manifests",
            |s, b| s.create_manifest(Env::Sandbox, from_slice(b)?).map(drop),
            json!({"shipper_account": {"id": account}}),
        ),
        (
            "bulk-downloads",
            |s, b| s.create_bulk_download(Env::Sandbox, from_slice(b)?).map(drop),
            json!({"labels": [{"id": label}, {"id": other}]}),
        ),
        (
            "rates",
            |s, b| s.calculate_rates(Env::Sandbox, from_slice(b)?).map(drop),
            json!({"shipper_accounts": [{"id": account}], "shipment": label_body["shipment"]}),
        ),
        (
            "address-validations",
            |s, b| s.validate_address(Env::Sandbox, from_slice(b)?).map(drop),
            json!({"address": label_body["shipment"]["ship_to"]}),
        ),
        (
            "close-out",
            |s, b| s.close_out_accounts(Env::Sandbox, from_slice(b)?).map(drop),
            json!({"shipper_account_ids": [account]}),
        ),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("JSON numbers are finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        prop_oneof![Just(1e308), Just(-0.0), Just(1e-320), Just(9.007199254740993e15)].prop_map(|f| json!(f)),
        ".{0,40}".prop_map(Value::String),
        prop_oneof![
            Just("山田 太郎"),
            Just("\u{202e}\u{0}"),
            Just("9999-99-99"),
            Just("USA"),
            Just("kg"),
            Just("")
        ]
        .prop_map(|s| json!(s)),
    ]
}

fn any_json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,12}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Every path to a value in `v` (object keys and array indexes).
fn paths(v: &Value, here: Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(here.clone());
    match v {
        Value::Object(m) => m
            .iter()
            .for_each(|(k, x)| paths(x, [here.clone(), vec![k.clone()]].concat(), out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| paths(x, [here.clone(), vec![i.to_string()]].concat(), out)),
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, k| match v {
        Value::Object(m) => m.get_mut(k),
        Value::Array(a) => k.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
        _ => None,
    })
}

/// The valid body with the value at one of its paths replaced (or removed, when `drop`).
fn mutate(mut body: Value, pick: usize, with: Value, drop: bool) -> Value {
    let mut all = Vec::new();
    paths(&body, vec![], &mut all);
    let path = &all[pick % all.len()];
    if drop && !path.is_empty() {
        let (last, parent) = path.split_last().unwrap();
        if let Some(Value::Object(m)) = at(&mut body, parent) {
            m.remove(last);
        }
        return body;
    }
    if let Some(slot) = at(&mut body, path) {
        *slot = with;
    }
    body
}

fn check(name: &str, call: Call, body: &[u8]) -> Result<(), TestCaseError> {
    let (h, ..) = desk();
    match call(&h.service, body) {
        Ok(()) => Ok(()),
        Err(e) => {
            prop_assert!(
                e.code.code() != 4100,
                "{name}: an internal error for {}: {e}",
                String::from_utf8_lossy(body)
            );
            prop_assert!(
                !e.details.is_empty(),
                "{name}: an error that says nothing for {}",
                String::from_utf8_lossy(body)
            );
            for d in &e.details {
                prop_assert!(!d.info.is_empty(), "{name}: a detail without words: {e}");
            }
            Ok(())
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_bodies_get_errors_that_say_where(body in any_json(), target in 0usize..8) {
        let (name, call, _) = &targets()[target];
        check(name, *call, body.to_string().as_bytes())?;
    }

    #[test]
    fn valid_bodies_with_one_leaf_changed_or_dropped_are_answered_in_words(
        target in 0usize..8, pick in any::<usize>(), with in any_json(), drop in any::<bool>()
    ) {
        let (name, call, valid) = &targets()[target];
        let body = mutate(valid.clone(), pick, with, drop);
        check(name, *call, body.to_string().as_bytes())?;
    }

    #[test]
    fn arbitrary_bytes_are_refused_in_words(bytes in prop::collection::vec(any::<u8>(), 0..256), target in 0usize..8) {
        let (name, call, _) = &targets()[target];
        check(name, *call, &bytes)?;
    }
}

/// The mutations start from bodies the service accepts, so a changed leaf is what it answers to.
#[test]
fn the_valid_examples_are_accepted() {
    let (h, ..) = desk();
    for (name, call, valid) in targets() {
        if name == "cancel-labels" || name == "manifests" || name == "close-out" {
            continue; // they use up their label or account: the fuzz cases may try them too
        }
        call(&h.service, valid.to_string().as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
