//! Reports (issue 41), over HTTP against the real `packdesk-server`: the figures of the labels the
//! test makes, by carrier, service, operator and day, voids and a print that failed included; the
//! CSV; a packer may not read them. On SQLite, and on PostgreSQL with `PACKDESK_TEST_BACKEND`.

use crate::people::as_operator;
use crate::support::*;
use serde_json::{json, Value};

/// A port nothing listens on: a printer there is off.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// The report's row of `group`.
fn row<'a>(report: &'a Value, group: &str) -> &'a Value {
    report["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["group"] == group)
        .unwrap_or_else(|| panic!("no group {group}: {report}"))
}

#[test]
fn a_report_has_the_figures_of_the_labels_made_by_carrier_service_operator_and_day() {
    let s = Server::start();
    let account = yodel_account(&s);
    for (name, code, role) in [
        ("Ana Packer", "B-ANA", "packer"),
        ("Sam Supervisor", "B-SAM", "supervisor"),
    ] {
        s.live_ok(
            "POST",
            "/desk/operators",
            Some(&json!({"name": name, "code": code, "role": role})),
        );
    }
    let session = |code: &str| -> String {
        let v: Value = reqwest::blocking::Client::new()
            .post(s.url("/ui/sign-in?environment=sandbox"))
            .json(&json!({"code": code}))
            .send()
            .unwrap()
            .json()
            .unwrap();
        v["data"]["token"].as_str().unwrap().to_string()
    };
    let (ana, sam) = (session("B-ANA"), session("B-SAM"));
    let make = |token: &str, body: &Value| -> Value {
        let (_, v) = as_operator(&s, token, "POST", "/v3/labels", Some(body));
        assert_eq!(v["meta"]["code"], 200, "{v}");
        v["data"].clone()
    };
    // Ana: two labels of one parcel (1 kg); Sam: one of two parcels (1 + 2 kg), printed by a
    // printer that is off (a failed print job), and an express one.
    let a1 = make(&ana, &yodel_label(&account, 1));
    let a2 = make(&ana, &yodel_label(&account, 1));
    let printer = s.live_ok(
        "POST",
        "/desk/printers",
        Some(&json!({"name": "Zebra off", "transport": "raw", "address": format!("127.0.0.1:{}", closed_port()), "format": "zpl"})),
    );
    s.live_ok(
        "PUT",
        "/desk/print-profiles/label",
        Some(&json!({"printer_id": printer["id"], "stock": "4x6", "auto_print": true})),
    );
    let s1 = make(&sam, &yodel_label(&account, 2));
    let failed = (0..100).find_map(|_| {
        let jobs = s.sandbox_ok(
            "GET",
            &format!("/desk/print-jobs?record_id={}", s1["id"].as_str().unwrap()),
            None,
        );
        let failed = jobs["print_jobs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|j| j["status"] == "failed");
        std::thread::sleep(std::time::Duration::from_millis(50));
        failed.then_some(())
    });
    assert!(failed.is_some(), "the print to a printer that is off fails");
    s.live_ok(
        "PUT",
        "/desk/print-profiles/label",
        Some(&json!({"printer_id": printer["id"], "stock": "4x6", "auto_print": false})),
    );
    let mut express = yodel_label(&account, 1);
    express["service_type"] = json!("yodel_sat");
    let s2 = make(&sam, &express);
    // Sam voids one of Ana's.
    let (_, voided) = as_operator(
        &s,
        &sam,
        "POST",
        "/v3/cancel-labels",
        Some(&json!({"label": {"id": a2["id"]}})),
    );
    assert_eq!(voided["meta"]["code"], 200, "{voided}");

    let day = a1["ship_date"].as_str().unwrap().to_string();
    let report = |group: &str| {
        let (_, v) = as_operator(
            &s,
            &sam,
            "GET",
            &format!("/desk/reports/shipments?from={day}&to={day}&group_by={group}"),
            None,
        );
        assert_eq!(v["meta"]["code"], 200, "{v}");
        v["data"].clone()
    };
    let charge = |l: &Value| l["rate"]["total_charge"]["amount"].as_f64().unwrap_or(0.0);
    let by_carrier = report("carrier");
    let yodel = row(&by_carrier, "yodel");
    assert_eq!(yodel["name"], "Yodel");
    assert_eq!(
        (
            yodel["labels"].as_i64(),
            yodel["voided"].as_i64(),
            yodel["parcels"].as_i64()
        ),
        (Some(4), Some(1), Some(4)),
        "four labels made, one voided; the others' parcels: 1 + 2 + 1: {yodel}"
    );
    assert_eq!(yodel["weight_kg"], 5.0, "1 + (1 + 2) + 1 kg: {yodel}");
    assert_eq!(yodel["print_failures"], 1, "{yodel}");
    let charged: f64 = [&a1, &s1, &s2].iter().map(|l| charge(l)).sum();
    let reported: f64 = yodel["charges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["amount"].as_f64().unwrap())
        .sum();
    assert!(
        (reported - charged).abs() < 0.005,
        "charges {reported} = the rates of the labels not voided {charged}"
    );

    let by_service = report("service");
    assert_eq!(row(&by_service, "yodel_std")["labels"], 3);
    assert_eq!(row(&by_service, "yodel_sat")["labels"], 1);
    let by_operator = report("operator");
    let (ana_row, sam_row) = (row(&by_operator, "Ana Packer"), row(&by_operator, "Sam Supervisor"));
    assert_eq!(
        (ana_row["labels"].as_i64(), ana_row["voided"].as_i64()),
        (Some(2), Some(1))
    );
    assert_eq!(
        (sam_row["labels"].as_i64(), sam_row["parcels"].as_i64()),
        (Some(2), Some(3))
    );
    assert!(sam_row["labels_per_hour"].as_f64().unwrap() > 0.0, "{sam_row}");
    let by_day = report("day");
    assert_eq!(by_day["groups"].as_array().unwrap().len(), 1);
    assert_eq!(row(&by_day, &day)["labels"], 4);
    assert_eq!(by_day["total"]["labels"], 4);

    // The CSV has a row per group and the total.
    let (status, csv) = {
        let r = reqwest::blocking::Client::new()
            .get(s.url(&format!(
                "/desk/reports/shipments.csv?from={day}&to={day}&group_by=operator"
            )))
            .header("authorization", format!("Bearer {sam}"))
            .send()
            .unwrap();
        (r.status().as_u16(), r.text().unwrap())
    };
    assert_eq!(status, 200, "{csv}");
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].starts_with("group,name,labels,voided,parcels,weight_kg"),
        "{csv}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("Ana Packer,Ana Packer,2,1,1,1.000")),
        "{csv}"
    );
    assert!(lines.last().unwrap().starts_with("total,,4,1,4,5.000"), "{csv}");

    // A packer may not read the reports; a bad grouping is refused at its field.
    let (status, refused) = as_operator(&s, &ana, "GET", "/desk/reports/shipments", None);
    assert_eq!(
        (status, refused["meta"]["code"].as_i64()),
        (403, Some(403)),
        "{refused}"
    );
    let (_, bad) = as_operator(&s, &sam, "GET", "/desk/reports/shipments?group_by=month", None);
    assert_eq!(detail_paths(&bad), ["group_by"], "{bad}");
}
