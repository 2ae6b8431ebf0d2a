//! Table-driven over every carrier group of the registry: each service type makes a label; each
//! paper size, file type, option variant and optional field the group does not list is refused
//! with the contract's code and a path to the field.

use crate::common;
use common::*;
use packdesk_carriers::{registry, tracking};
use packdesk_model::ErrorCode;
use packdesk_model::ToRequest;
use packdesk_service::keys::Env;
use serde_json::{json, Value};

const PAPER: [&str; 5] = ["default", "4x4", "4x6", "4x8", "a4"];
const FILE_TYPES: [&str; 2] = ["pdf", "zpl"];
const VARIANTS: [&str; 4] = ["cod", "insurance", "pickup", "general"];
const OPTIONAL: [&str; 2] = ["order_number", "order_id"];

fn refused(h: &Harness, body: &Value) -> (ErrorCode, String) {
    let e = body
        .to_request()
        .and_then(|req| h.service.create_label(Env::Sandbox, req))
        .expect_err(&body.to_string());
    (e.code, e.details.first().map(|d| d.path.clone()).unwrap_or_default())
}

#[test]
fn every_service_type_of_every_group_makes_a_label_with_valid_tracking_numbers() {
    let h = harness();
    let mut seen = std::collections::HashSet::new();
    for c in &registry().carriers {
        let acct = create_account(&h.service, Env::Sandbox, c, json!({}));
        for s in &c.service_types {
            let body = label_request(&acct, c, s);
            let label = wire(
                h.service
                    .create_label(Env::Sandbox, body.to_request().unwrap())
                    .unwrap_or_else(|e| panic!("{}: {e}", s.service_type)),
            );
            assert_eq!(label["status"], "created");
            let tns = label["tracking_numbers"].as_array().unwrap();
            assert_eq!(tns.len(), 1);
            let tn = tns[0].as_str().unwrap();
            let pool = c.pool_for(false, body["shipment"]["ship_to"]["country"].as_str().unwrap());
            assert!(tracking::is_valid(&pool.scheme, tn), "{} {tn}", c.slug);
            if let Some(p) = &pool.pattern {
                assert!(regex_lite_match(p, tn), "{} {tn} !~ {p}", c.slug);
            }
            assert!(
                seen.insert((c.slug.clone(), tn.to_string())),
                "{tn} issued twice by {}",
                c.slug
            );
            assert_eq!(label["files"]["label"]["file_type"], "pdf");
            assert_eq!(label["files"]["label"]["paper_size"], c.default_paper_size.as_str());
            assert!(label["rate"]["total_charge"]["amount"].as_f64().unwrap() > 0.0);
            assert_eq!(label["rate"]["total_charge"]["currency"], c.currency.as_str());
        }
    }
}

/// The registry's patterns are `[0-9]{N}` or `[0-9]+`.
fn regex_lite_match(pattern: &str, s: &str) -> bool {
    let digits = s.bytes().all(|b| b.is_ascii_digit()) && !s.is_empty();
    match pattern.strip_prefix("[0-9]{").and_then(|r| r.strip_suffix('}')) {
        Some(n) => digits && s.len() == n.parse::<usize>().unwrap(),
        None => pattern == "[0-9]+" && digits,
    }
}

#[test]
fn paper_sizes_outside_a_group_are_refused_and_listed_ones_accepted() {
    let h = harness();
    for c in &registry().carriers {
        let acct = create_account(&h.service, Env::Sandbox, c, json!({}));
        let s = &c.service_types[0];
        for p in PAPER {
            let mut body = label_request(&acct, c, s);
            body["paper_size"] = json!(p);
            if c.paper_sizes.iter().any(|x| x == p) {
                let l = wire(
                    h.service
                        .create_label(Env::Sandbox, body.to_request().unwrap())
                        .unwrap_or_else(|e| panic!("{} {p}: {e}", c.slug)),
                );
                let want = if p == "default" {
                    c.default_paper_size.as_str()
                } else {
                    p
                };
                assert_eq!(l["files"]["label"]["paper_size"], want);
            } else {
                assert_eq!(
                    refused(&h, &body),
                    (ErrorCode::InvalidRequest, "paper_size".into()),
                    "{} {p}",
                    c.slug
                );
            }
        }
    }
}

#[test]
fn file_types_outside_a_group_are_refused_and_listed_ones_accepted() {
    let h = harness();
    for c in &registry().carriers {
        let acct = create_account(&h.service, Env::Sandbox, c, json!({}));
        let s = &c.service_types[0];
        for f in FILE_TYPES {
            let mut body = label_request(&acct, c, s);
            body["file_type"] = json!(f);
            let listed = c.file_types.as_ref().is_some_and(|l| l.iter().any(|x| x == f));
            if listed {
                let l = wire(
                    h.service
                        .create_label(Env::Sandbox, body.to_request().unwrap())
                        .unwrap(),
                );
                assert_eq!(l["files"]["label"]["file_type"], f);
            } else {
                assert_eq!(
                    refused(&h, &body),
                    (ErrorCode::InvalidRequest, "file_type".into()),
                    "{} {f}",
                    c.slug
                );
            }
        }
    }
}

#[test]
fn option_variants_outside_a_group_answer_4803_and_listed_ones_are_accepted() {
    let h = harness();
    for c in &registry().carriers {
        let acct = create_account(&h.service, Env::Sandbox, c, json!({}));
        let s = &c.service_types[0];
        for v in VARIANTS {
            let mut body = label_request(&acct, c, s);
            body["service_options"] = json!([option_of(v)]);
            if c.service_options.iter().any(|x| x == v) {
                let l = wire(
                    h.service
                        .create_label(Env::Sandbox, body.to_request().unwrap())
                        .unwrap_or_else(|e| panic!("{} {v}: {e}", c.slug)),
                );
                assert_eq!(l["service_options"][0], option_of(v));
                if v == "cod" || v == "insurance" {
                    let charges = l["rate"]["detailed_charges"].as_array().unwrap();
                    let t = option_of(v)["type"].clone();
                    assert!(charges.iter().any(|ch| ch["type"] == t), "{} has no {v} charge", c.slug);
                }
            } else {
                assert_eq!(
                    refused(&h, &body),
                    (ErrorCode::ServiceOptionUnavailable, "service_options[0].type".into()),
                    "{} {v}",
                    c.slug
                );
            }
        }
    }
}

#[test]
fn optional_fields_outside_a_group_are_refused_and_listed_ones_kept() {
    let h = harness();
    for c in &registry().carriers {
        let acct = create_account(&h.service, Env::Sandbox, c, json!({}));
        let s = &c.service_types[0];
        for f in OPTIONAL {
            let mut body = label_request(&acct, c, s);
            body[f] = json!(format!("{f}-{}", c.group));
            if c.optional_fields.iter().any(|x| x == f) {
                let l = wire(
                    h.service
                        .create_label(Env::Sandbox, body.to_request().unwrap())
                        .unwrap(),
                );
                assert_eq!(l[f], json!(format!("{f}-{}", c.group)));
            } else {
                assert_eq!(
                    refused(&h, &body),
                    (ErrorCode::InvalidRequest, f.to_string()),
                    "{} {f}",
                    c.slug
                );
            }
        }
    }
}
