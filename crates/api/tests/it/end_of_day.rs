//! End of day and the desk's checks over HTTP, against the real server binary: a label shipping
//! later is not on today's close-out and End of day shows it apart; a recipient postal code that
//! cannot exist answers 4104 at `shipment.ship_to.postal_code` unless the operator confirms an
//! override, which the label records; History shows recipient, service name and print state.

use crate::support;
use serde_json::json;
use support::*;

fn today_london() -> chrono::NaiveDate {
    chrono::Utc::now()
        .with_timezone(&chrono_tz::Europe::London)
        .date_naive()
}

#[test]
fn a_label_shipping_in_two_days_waits_for_that_days_close_out() {
    let s = Server::start();
    let account = yodel_account(&s);
    let now = s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    let later_date = (today_london() + chrono::Duration::days(2)).to_string();
    let mut body = yodel_label(&account, 2);
    body["ship_date"] = json!(later_date);
    let later = s.sandbox_ok("POST", "/v3/labels", Some(&body));
    assert_eq!(later["ship_date"], later_date);

    let eod = s.sandbox_ok("GET", "/desk/end-of-day", None);
    let row = &eod["accounts"][0];
    assert_eq!(row["labels_waiting"], 1);
    assert_eq!(row["later"], json!([{"ship_date": later_date, "labels": 1}]));
    assert_eq!(row["weight_kg"], 1.0);
    assert_eq!(row["by_service"][0]["name"], "UK Express 24");

    let m = s.sandbox_ok(
        "POST",
        "/v3/manifests",
        Some(&json!({"shipper_account": {"id": account}})),
    );
    assert_eq!(m["labels"], json!([{"id": now["id"], "manifested": true}]));
    let l = s.sandbox_ok("GET", &format!("/v3/labels/{}", later["id"].as_str().unwrap()), None);
    assert_eq!(l["status"], "created", "the later label waits for its day");
    let (_, v) = s.call("POST", "/desk/close-out", &s.sandbox, Some(&json!({})));
    assert_eq!(v["data"]["results"], json!([]), "nothing else ships today: {v}");
    let eod = s.sandbox_ok("GET", "/desk/end-of-day", None);
    assert_eq!(eod["accounts"][0]["manifests_today"][0]["id"], m["id"]);
}

#[test]
fn a_postal_code_that_cannot_exist_is_refused_unless_the_operator_overrides() {
    let s = Server::start();
    let account = yodel_account(&s);
    let mut body = yodel_label(&account, 1);
    body["shipment"]["ship_to"]["postal_code"] = json!("12345");
    let (status, v) = s.call("POST", "/v3/labels", &s.sandbox, Some(&body));
    assert_eq!((status, v["meta"]["code"].as_i64()), (200, Some(4104)), "{v}");
    assert_eq!(detail_paths(&v), ["shipment.ship_to.postal_code"]);
    let info = v["meta"]["details"][0]["info"].as_str().unwrap();
    assert!(info.contains("not a postal code of GBR"), "{info}");
    // Beside the English, the saying's key and arguments: the desk says it in the operator's language.
    assert_eq!(v["meta"]["details"][0]["key"], "notAPostcode", "{v}");
    assert_eq!(
        v["meta"]["details"][0]["args"],
        json!({"code": "12345", "country": "GBR", "formats": "X0 0XX or X00 0XX or XX0 0XX or XX00 0XX"}),
        "{v}"
    );
    let listed = s.sandbox_ok("GET", "/v3/labels?created_at_min=2000-01-01", None);
    assert_eq!(listed["labels"], json!([]), "nothing was labelled");

    // A format that fits (any case, any spacing) passes; so does a confirmed override.
    body["shipment"]["ship_to"]["postal_code"] = json!("m11ae");
    let fits = s.sandbox_ok("POST", "/v3/labels", Some(&body));
    assert!(fits.get("postal_code_override").is_none(), "{fits}");
    body["shipment"]["ship_to"]["postal_code"] = json!("12345");
    body["postal_code_override"] = json!(true);
    let over = s.sandbox_ok("POST", "/v3/labels", Some(&body));
    assert_eq!(over["postal_code_override"], true);
    let again = s.sandbox_ok("GET", &format!("/v3/labels/{}", over["id"].as_str().unwrap()), None);
    assert_eq!(
        again["postal_code_override"], true,
        "the override is recorded on the label"
    );
}

#[test]
fn history_shows_recipient_service_name_order_and_print_state() {
    let s = Server::start();
    let account = yodel_account(&s);
    let mut body = yodel_label(&account, 2);
    body["shipment"]["ship_to"]["company_name"] = json!("Acme Ltd");
    body["order_number"] = json!("SO-1001");
    body["shipment"]["parcels"][0]["weight"] = json!({"value": 1.5, "unit": "kg"});
    body["shipment"]["parcels"][1]["weight"] = json!({"value": 250, "unit": "g"});
    let label = s.sandbox_ok("POST", "/v3/labels", Some(&body));
    // A printer that refuses: the label's print job fails, and History says so.
    let printer = s.live_ok(
        "POST",
        "/desk/printers",
        Some(&json!({"name": "Off", "transport": "raw", "address": "127.0.0.1:9", "format": "pdf"})),
    );
    let (_, job) = s.call(
        "POST",
        "/desk/print",
        &s.sandbox,
        Some(&json!({"label_id": label["id"], "printer_id": printer["id"]})),
    );
    assert_eq!(job["data"]["status"], "failed", "{job}");

    let h = s.sandbox_ok("GET", "/desk/history?created_at_min=2000-01-01&s=SO-1001", None);
    let row = &h["rows"][0];
    assert_eq!(row["label"]["id"], label["id"]);
    assert_eq!(row["label"]["order_number"], "SO-1001");
    assert_eq!(row["recipient"], "Jane Doe, Acme Ltd");
    assert_eq!(row["destination"], "Testville, GBR");
    assert_eq!(row["service_name"], "UK Express 24");
    assert_eq!(
        row["weight"],
        json!({"value": 1.75, "unit": "kg"}),
        "both parcels, in the first one's unit"
    );
    assert_eq!(row["print_status"], "failed");
    assert!(row["print_error"].as_str().is_some_and(|e| !e.is_empty()), "{row}");
    // Never printed: no state.
    let other = s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    let h = s.sandbox_ok("GET", "/desk/history?created_at_min=2000-01-01", None);
    let row = h["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["label"]["id"] == other["id"])
        .unwrap();
    assert_eq!(row["print_status"], json!(null));
}

#[test]
fn history_finds_names_without_their_accents_and_by_their_latin_spelling() {
    let s = Server::start();
    let account = yodel_account(&s);
    for name in ["Chloé Dupré", "Иван Петров", "Zoë Ørsted"] {
        let mut body = yodel_label(&account, 1);
        body["shipment"]["ship_to"]["contact_name"] = json!(name);
        s.sandbox_ok("POST", "/v3/labels", Some(&body));
    }
    let found = |query: &str| -> Vec<String> {
        let q: String = query.bytes().map(|b| format!("%{b:02X}")).collect();
        let h = s.sandbox_ok("GET", &format!("/desk/history?created_at_min=2000-01-01&s={q}"), None);
        h["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["recipient"].as_str().unwrap().to_string())
            .collect()
    };
    for (query, name) in [
        ("Chloe", "Chloé"),
        ("chloé", "Chloé"),
        ("DUPRE", "Dupré"),
        ("Petrov", "Петров"),
        ("петров", "Петров"),
        ("Orsted", "Ørsted"),
    ] {
        let hits = found(query);
        assert_eq!(hits.len(), 1, "{query}: {hits:?}");
        assert!(hits[0].contains(name), "{query} found {hits:?}");
    }
}

#[test]
fn each_close_out_gives_the_driver_a_collection_sheet_to_sign_printed_on_its_own_printer() {
    let s = Server::start();
    let (port, printed) = raw_printer();
    let printer = s.live_ok(
        "POST",
        "/desk/printers",
        Some(&json!({"name": "Office laser", "transport": "raw", "address": format!("127.0.0.1:{port}"), "format": "pdf"})),
    );
    s.live_ok(
        "PUT",
        "/desk/print-profiles/collection_sheet",
        Some(&json!({"printer_id": printer["id"], "stock": "a4", "auto_print": true})),
    );
    let account = yodel_account(&s);
    // Standard: 1 + 2 kg; Express 24: 1 kg.
    s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 2)));
    let mut express = yodel_label(&account, 1);
    express["service_type"] = json!("yodel_1eu");
    s.sandbox_ok("POST", "/v3/labels", Some(&express));

    let out = s.sandbox_ok("POST", "/desk/close-out", Some(&json!({})));
    let result = &out["results"][0];
    assert_eq!(result["collection_sheet_print_job"]["status"], "printed", "{out}");
    let manifest = &result["manifest"];
    let sheet = &manifest["files"]["collection_sheet"];
    assert_eq!(
        (sheet["file_type"].as_str(), sheet["paper_size"].as_str()),
        (Some("pdf"), Some("a4")),
        "{manifest}"
    );
    let (_, pdf) = s.download(sheet["url"].as_str().unwrap(), &s.sandbox);
    let sent = printed
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the sheet printed");
    assert_eq!(sent, pdf, "the printer got the sheet");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sheet.pdf");
    std::fs::write(&path, &pdf).unwrap();
    let text = support::pdf_text(&pdf, true);
    let rows: Vec<String> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert!(
        text.contains("COLLECTION SHEET (SAMPLE)") && text.contains("Yodel desk"),
        "{text}"
    );
    // Per service by name (yodel_std is "UK Express 24"), then the total.
    for row in ["UK Express 24 2 3.00", "UK Express 24 (UK) 1 1.00", "Total 3 4.00"] {
        assert!(rows.iter().any(|r| r == row), "{row}: {text}");
    }
    for signed in ["Driver's name", "Signature", "Collected at (date and time)"] {
        assert!(text.contains(signed), "{signed}: {text}");
    }
    // The manifest's id, as the carrier's scanner reads it from the page.
    assert_eq!(
        crate::documents::pdf_barcodes(&path),
        vec![vec![manifest["id"].as_str().unwrap().to_string()]]
    );

    // End of day reprints it.
    let again = s.sandbox_ok(
        "POST",
        "/desk/print",
        Some(&json!({"manifest_id": manifest["id"], "document": "collection_sheet"})),
    );
    assert_eq!(again["status"], "printed", "{again}");
}

#[test]
fn a_german_desk_writes_its_collection_sheet_and_manifest_in_german() {
    let s = Server::start();
    let mut settings = s.live_ok("GET", "/desk/settings", None);
    settings["language"] = json!("de");
    s.live_ok("PUT", "/desk/settings", Some(&settings));
    let account = yodel_account(&s);
    s.sandbox_ok("POST", "/v3/labels", Some(&yodel_label(&account, 2)));
    let out = s.sandbox_ok("POST", "/desk/close-out", Some(&json!({})));
    let manifest = &out["results"][0]["manifest"];
    let text_of = |file: &str| {
        let (_, pdf) = s.download(manifest["files"][file]["url"].as_str().unwrap(), &s.sandbox);
        support::pdf_text(&pdf, false)
    };
    let sheet = text_of("collection_sheet");
    for words in [
        "ABHOLBELEG (MUSTER)",
        "Versandart",
        "Pakete",
        "Summe",
        "Name des Fahrers",
        "Unterschrift",
    ] {
        assert!(sheet.contains(words), "{words}: {sheet}");
    }
    let list = text_of("manifest");
    for words in [
        "MANIFEST",
        "Sendungsnummer",
        "Postleitzahl",
        "Gesamt: 2 Pakete, 3.000 kg",
        "Abgeholt von (Fahrer)",
    ] {
        assert!(list.contains(words), "{words}: {list}");
    }
    // The data stays as it is: the account's name, the service's.
    assert!(
        sheet.contains("Yodel desk") && sheet.contains("UK Express 24"),
        "{sheet}"
    );
}
