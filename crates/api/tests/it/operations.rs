//! Cancel labels, manifests, bulk downloads, rates and address validations over real HTTP.

use crate::support;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::process::Command;
use support::*;

fn ids(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap().to_string())
        .collect()
}

fn code(v: &Value) -> (i64, String) {
    (
        v["meta"]["code"].as_i64().unwrap(),
        v["meta"]["details"][0]["path"].as_str().unwrap_or("").to_string(),
    )
}

#[test]
fn cancel_a_label_once_and_never_reuse_its_numbers() {
    let s = Server::start();
    let a = yodel_account(&s);
    let mut body = yodel_label(&a, 1);
    body["order_number"] = json!("ORD-1");
    let l = s.sandbox_ok("POST", "/v3/labels", Some(&body));
    let lid = l["id"].as_str().unwrap();
    let c = s.sandbox_ok("POST", "/v3/cancel-labels", Some(&json!({"label": {"id": lid}})));
    assert_eq!(
        (c["status"].clone(), c["label"]["id"].clone()),
        (json!("cancelled"), json!(lid))
    );
    assert_eq!(
        s.sandbox_ok("GET", &format!("/v3/labels/{lid}"), None)["status"],
        "cancelled"
    );
    let (_, again) = s.call(
        "POST",
        "/v3/cancel-labels",
        &s.sandbox,
        Some(&json!({"label": {"id": lid}})),
    );
    assert_eq!(code(&again), (4722, "label.id".into()));
    let (_, unknown) = s.call(
        "POST",
        "/v3/cancel-labels",
        &s.sandbox,
        Some(&json!({"label": {"id": "0b8f5e3c-1d2a-4c5b-9e7f-123456789abc"}})),
    );
    assert_eq!(code(&unknown), (4153, "label.id".into()));
    // The order number is free again; the new label gets new numbers.
    let l2 = s.sandbox_ok("POST", "/v3/labels", Some(&body));
    assert_ne!(l2["tracking_numbers"], l["tracking_numbers"]);
    let got = s.sandbox_ok("GET", &format!("/v3/cancel-labels/{}", c["id"].as_str().unwrap()), None);
    assert_eq!(got, c);
    let list = s.sandbox_ok("GET", "/v3/cancel-labels", None);
    assert_eq!(ids(&list, "cancel_labels"), vec![c["id"].as_str().unwrap().to_string()]);
    // A manifested label cannot be cancelled.
    s.sandbox_ok("POST", "/v3/manifests", Some(&json!({"shipper_account": {"id": a}})));
    let (_, m) = s.call(
        "POST",
        "/v3/cancel-labels",
        &s.sandbox,
        Some(&json!({"label": {"id": l2["id"]}})),
    );
    assert_eq!(code(&m), (4724, "label.id".into()));
}

fn decode_pdf(bytes: &[u8]) -> (usize, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("doc.pdf");
    std::fs::write(&pdf, bytes).unwrap();
    let info = String::from_utf8(Command::new("pdfinfo").arg(&pdf).output().unwrap().stdout).unwrap();
    let pages = pdfinfo_pages(&info);
    Command::new("pdftoppm")
        .args(["-r", "200", "-png"])
        .arg(&pdf)
        .arg(dir.path().join("p"))
        .status()
        .unwrap();
    let mut pngs: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "png"))
        .collect();
    pngs.sort();
    let mut codes = Vec::new();
    for p in pngs {
        let out = Command::new("zbarimg")
            .args(["--raw", "-q", "-Sdisable", "-Scode128.enable"])
            .arg(&p)
            .output()
            .unwrap();
        codes.extend(String::from_utf8(out.stdout).unwrap().lines().map(String::from));
    }
    (pages, codes)
}

#[test]
fn close_out_takes_the_created_labels_once_with_a_pdf_and_a_csv() {
    let s = Server::start();
    let a = yodel_account(&s);
    let b = yodel_account(&s);
    let mut made = Vec::new();
    for n in [1, 2, 1] {
        made.push(s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&a, n))));
    }
    let other = s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&b, 1)));
    s.sandbox_ok(
        "POST",
        "/v3/cancel-labels",
        Some(&json!({"label": {"id": made[2]["id"]}})),
    );
    // label_ids naming another account's label is refused, naming the id.
    let (_, e) = s.call(
        "POST",
        "/v3/manifests",
        &s.sandbox,
        Some(&json!({"shipper_account": {"id": a}, "label_ids": [other["id"]]})),
    );
    assert_eq!(code(&e), (4104, "label_ids[0]".into()));
    let m = s.sandbox_ok("POST", "/v3/manifests", Some(&json!({"shipper_account": {"id": a}})));
    assert_eq!(m["status"], "manifested");
    let got: HashSet<String> = ids(&m, "labels").into_iter().collect();
    let want: HashSet<String> = made[..2]
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(got, want);
    for l in &made[..2] {
        assert_eq!(
            s.sandbox_ok("GET", &format!("/v3/labels/{}", l["id"].as_str().unwrap()), None)["status"],
            "manifested"
        );
    }
    let (_, again) = s.call(
        "POST",
        "/v3/manifests",
        &s.sandbox,
        Some(&json!({"shipper_account": {"id": a}})),
    );
    assert_eq!(again["meta"]["code"], 4725);
    // The PDF: its barcode is the manifest id; the CSV: one line per parcel (1 + 2).
    let (_, pdf) = s.download(m["files"]["manifest"]["url"].as_str().unwrap(), &s.sandbox);
    let (pages, codes) = decode_pdf(&pdf);
    assert_eq!((pages, codes), (1, vec![m["id"].as_str().unwrap().to_string()]));
    let (ct, csv) = s.download(m["files"]["manifest_data"]["url"].as_str().unwrap(), &s.sandbox);
    assert!(ct.starts_with("text/csv"));
    let csv = String::from_utf8(csv).unwrap();
    let lines: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(lines.len(), 3);
    let tns: Vec<String> = made[..2].iter().flat_map(tracking_numbers).collect();
    for t in &tns {
        assert!(
            lines.iter().any(|l| l.split(',').nth(2) == Some(t.as_str())),
            "{t} missing from the CSV"
        );
    }
    assert_eq!(
        s.sandbox_ok("GET", &format!("/v3/manifests/{}", m["id"].as_str().unwrap()), None)["labels"],
        m["labels"]
    );
    assert_eq!(
        ids(
            &s.sandbox_ok("GET", &format!("/v3/manifests?shipper_account_id={a}"), None),
            "manifests"
        )
        .len(),
        1
    );
}

#[test]
fn eight_clients_closing_out_and_cancelling_leave_every_label_in_one_place() {
    let s = Server::start();
    let a = yodel_account(&s);
    let labels: Vec<String> = (0..40)
        .map(|_| {
            s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&a, 1)))["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let (base, key) = (s.base.clone(), s.sandbox.clone());
    let handles: Vec<_> = (0..8)
        .map(|c| {
            let (base, key, a, labels) = (base.clone(), key.clone(), a.clone(), labels.clone());
            std::thread::spawn(move || {
                let client = reqwest::blocking::Client::new();
                let post = |path: &str, body: Value| -> Value {
                    client
                        .post(format!("{base}{path}"))
                        .header("service-api-key", &key)
                        .json(&body)
                        .send()
                        .unwrap()
                        .json()
                        .unwrap()
                };
                let mut manifests = Vec::new();
                for (i, l) in labels.iter().enumerate() {
                    if i % 8 == c {
                        post("/v3/cancel-labels", json!({"label": {"id": l}}));
                    }
                    if i % 10 == c {
                        let m = post("/v3/manifests", json!({"shipper_account": {"id": a}}));
                        let code = m["meta"]["code"].as_i64().unwrap();
                        assert!(code == 200 || code == 4725 || code == 4155, "{m}");
                        if code == 200 {
                            manifests.push(m["data"].clone());
                        }
                    }
                }
                manifests
            })
        })
        .collect();
    let manifests: Vec<Value> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
    let mut in_manifest: HashMap<String, usize> = HashMap::new();
    for m in &manifests {
        for id in ids(m, "labels") {
            *in_manifest.entry(id).or_default() += 1;
        }
    }
    for l in &labels {
        let status = s.sandbox_ok("GET", &format!("/v3/labels/{l}"), None)["status"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            ["created", "cancelled", "manifested"].contains(&status.as_str()),
            "{l}: {status}"
        );
        let times = in_manifest.get(l).copied().unwrap_or(0);
        assert_eq!(
            times,
            usize::from(status == "manifested"),
            "{l} is {status} and in {times} manifests"
        );
    }
}

#[test]
fn bulk_download_merges_labels_in_request_order() {
    let s = Server::start();
    let a = yodel_account(&s);
    let l1 = s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&a, 1)));
    let l2 = s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&a, 2)));
    let l3 = s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&a, 1)));
    let gone = s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&a, 1)));
    s.sandbox_ok("POST", "/v3/cancel-labels", Some(&json!({"label": {"id": gone["id"]}})));
    let unknown = "0b8f5e3c-1d2a-4c5b-9e7f-123456789abc";
    let body =
        json!({"labels": [{"id": l3["id"]}, {"id": gone["id"]}, {"id": l1["id"]}, {"id": unknown}, {"id": l2["id"]}]});
    let b = s.sandbox_ok("POST", "/v3/bulk-downloads", Some(&body));
    assert_eq!(
        ids(&b, "labels"),
        [&l3, &l1, &l2]
            .iter()
            .map(|l| l["id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    );
    assert_eq!(
        ids(&b, "invalid_labels"),
        vec![gone["id"].as_str().unwrap().to_string(), unknown.to_string()]
    );
    let (_, pdf) = s.download(b["files"]["label"]["url"].as_str().unwrap(), &s.sandbox);
    let (pages, codes) = decode_pdf(&pdf);
    let want: Vec<String> = [&l3, &l1, &l2].iter().flat_map(|l| tracking_numbers(l)).collect();
    assert_eq!(pages, 4, "1 + 1 + 2 pages");
    assert_eq!(codes, want, "pages in request order");
    // Mixing PDF and ZPL is refused; one label is too few.
    let tipsa = s.sandbox_ok("POST", "/v3/shipper-accounts", Some(&json!({"slug": "tipsa", "description": "t", "credentials": {"password": "p", "agency_code": "a", "customer_code": "c"}})))["id"].clone();
    let zpl = s.sandbox_ok("POST", "/v3/labels", Some(&json!({"service_type": "tipsa_standard", "shipper_account": {"id": tipsa}, "file_type": "zpl",
        "shipment": {"ship_from": address("S", "ESP", "28013"), "ship_to": address("R", "ESP", "08001"), "parcels": [{"weight": {"value": 1, "unit": "kg"}}]}})));
    let (_, e) = s.call(
        "POST",
        "/v3/bulk-downloads",
        &s.sandbox,
        Some(&json!({"labels": [{"id": l1["id"]}, {"id": zpl["id"]}]})),
    );
    assert_eq!(code(&e), (4104, "labels".into()));
    let (_, e) = s.call(
        "POST",
        "/v3/bulk-downloads",
        &s.sandbox,
        Some(&json!({"labels": [{"id": l1["id"]}]})),
    );
    assert_eq!(code(&e), (4104, "labels".into()));
    assert_eq!(
        s.sandbox_ok(
            "GET",
            &format!("/v3/bulk-downloads/{}", b["id"].as_str().unwrap()),
            None
        )["labels"],
        b["labels"]
    );
}

#[test]
fn rates_price_every_service_and_flag_accounts_that_fail_with_4713() {
    let s = Server::start();
    let a = yodel_account(&s);
    let dpd = s.sandbox_ok(
        "POST",
        "/v3/shipper-accounts",
        Some(&json!({"slug": "dpd-uk", "description": "DPD", "credentials": {"username": "u", "password": "p"}})),
    )["id"]
        .clone();
    let shipment = json!({"ship_from": address("S", "GBR", "E16 2AA"), "ship_to": address("R", "GBR", "M1 1AE"), "parcels": [{"weight": {"value": 2, "unit": "kg"}}]});
    let ok = s.sandbox_ok(
        "POST",
        "/v3/rates",
        Some(&json!({"shipper_accounts": [{"id": a}, {"id": dpd}], "shipment": shipment})),
    );
    let rates = ok["rates"].as_array().unwrap();
    let yodel_domestic = packdesk_carriers::carrier("yodel")
        .unwrap()
        .service_types
        .iter()
        .filter(|s| s.scope != packdesk_carriers::registry::Scope::International)
        .count();
    let dpd_domestic = packdesk_carriers::carrier("dpd-uk")
        .unwrap()
        .service_types
        .iter()
        .filter(|s| s.scope != packdesk_carriers::registry::Scope::International)
        .count();
    assert_eq!(rates.len(), yodel_domestic + dpd_domestic);
    for r in rates {
        let sum: f64 = r["detailed_charges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["charge"]["amount"].as_f64().unwrap())
            .sum();
        assert!(
            (sum - r["total_charge"]["amount"].as_f64().unwrap()).abs() < 0.011,
            "{r}"
        );
    }
    // An unknown account: an entry whose every field but the account is null (the contract), and
    // meta 4713 with the data, the entry's reason in the details at its path.
    let unknown = "0b8f5e3c-1d2a-4c5b-9e7f-123456789abc";
    let (_, partial) = s.call(
        "POST",
        "/v3/rates",
        &s.sandbox,
        Some(&json!({"shipper_accounts": [{"id": a}, {"id": unknown}], "shipment": shipment})),
    );
    assert_eq!(partial["meta"]["code"], 4713);
    assert_eq!(partial["meta"]["message"], "All or partial failed in rate request.");
    assert_eq!(partial["meta"]["retryable"], false);
    let rates = partial["data"]["rates"].as_array().unwrap();
    let failed: Vec<(usize, &Value)> = rates
        .iter()
        .enumerate()
        .filter(|(_, r)| r["total_charge"].is_null())
        .collect();
    assert_eq!(failed.len(), 1);
    let (at, entry) = failed[0];
    for (key, value) in entry.as_object().unwrap() {
        match key.as_str() {
            "shipper_account" => assert_eq!(value["id"], unknown),
            "detailed_charges" => assert_eq!(value, &json!([])),
            _ => assert!(value.is_null(), "{key} of a failed entry is {value}"),
        }
    }
    let details = partial["meta"]["details"].as_array().unwrap();
    assert_eq!(details.len(), 1, "{details:?}");
    assert_eq!(details[0]["path"], format!("data.rates[{at}]"));
    assert!(
        details[0]["info"].as_str().unwrap().contains("not found"),
        "{details:?}"
    );
    let id = partial["data"]["id"].as_str().unwrap();
    assert_eq!(
        s.sandbox_ok("GET", &format!("/v3/rates/{id}"), None)["rates"],
        partial["data"]["rates"]
    );
}

#[test]
fn address_validation_recommends_a_normalised_address() {
    let s = Server::start();
    let v = s.sandbox_ok("POST", "/v3/address-validations", Some(&json!({"address": {"contact_name": " Jane   Doe", "street1": "22  High Street", "city": "mANCHESTER", "postal_code": "m11ae", "country": "GBR"}})));
    assert_eq!(v["status"], "valid");
    assert_eq!(v["recommended_address"]["postal_code"], "M1 1AE");
    assert_eq!(v["recommended_address"]["city"], "Manchester");
    assert_eq!(v["recommended_address"]["street1"], "22 High Street");
    let bad = s.sandbox_ok("POST", "/v3/address-validations", Some(&json!({"address": {"contact_name": "J", "street1": "1 Main St", "city": "Austin", "postal_code": "7870", "country": "USA"}})));
    assert_eq!(bad["status"], "invalid");
    let paths: HashSet<&str> = bad["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["address.postal_code", "address.state"].into_iter().collect());
    let list = s.sandbox_ok("GET", "/v3/address-validations?status=invalid", None);
    assert_eq!(
        ids(&list, "address_validations"),
        vec![bad["id"].as_str().unwrap().to_string()]
    );
}
