//! Documents are checked by decoding what they print: page size and count with `pdfinfo`, the Code
//! 128 with `zbarimg` on the pages rendered by `pdftoppm`, and ZPL rendered by labelize.
//! Needs poppler-utils and zbar-tools (the test script installs them).

use crate::support;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use support::*;

fn tool(name: &str, args: &[&str]) -> String {
    let out = Command::new(name).args(args).output().unwrap_or_else(|e| {
        panic!("{name} is needed for document tests (apt-get install poppler-utils zbar-tools): {e}")
    });
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// (pages, [(width, height)] in points).
fn pdf_pages(pdf: &Path) -> (usize, Vec<(f64, f64)>) {
    let info = tool("pdfinfo", &["-f", "1", "-l", "1000", pdf.to_str().unwrap()]);
    let pages = pdfinfo_pages(&info);
    let sizes = info
        .lines()
        .filter(|l| l.starts_with("Page") && l.contains("size:"))
        .map(|l| {
            let nums: Vec<f64> = l
                .split(':')
                .nth(1)
                .unwrap()
                .split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect();
            (nums[0], nums[1])
        })
        .collect();
    (pages, sizes)
}

/// The barcodes of each page, top to bottom.
pub(crate) fn pdf_barcodes(pdf: &Path) -> Vec<Vec<String>> {
    let dir = pdf.parent().unwrap();
    let prefix = dir.join("page");
    tool(
        "pdftoppm",
        &["-r", "200", "-png", pdf.to_str().unwrap(), prefix.to_str().unwrap()],
    );
    let mut pngs: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "png"))
        .collect();
    pngs.sort();
    pngs.iter().map(|p| decode_png(p)).collect()
}

fn decode_png(png: &Path) -> Vec<String> {
    tool(
        "zbarimg",
        &["--raw", "-q", "-Sdisable", "-Scode128.enable", png.to_str().unwrap()],
    )
    .lines()
    .map(String::from)
    .collect()
}

fn account(s: &Server, slug: &str) -> String {
    let c = packdesk_carriers::carrier(slug).unwrap();
    let creds: serde_json::Map<String, Value> = c
        .credential_fields
        .iter()
        .map(|f| (f.name.clone(), json!("x")))
        .collect();
    s.sandbox_ok(
        "POST",
        "/v3/shipper-accounts",
        Some(&json!({"slug": slug, "description": slug, "credentials": creds})),
    )["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A postal code of the country's format.
fn postal(country: &str) -> String {
    packdesk_carriers::postal::example_postal_code(country).unwrap_or_else(|| "10001".into())
}

fn label(s: &Server, slug: &str, service: &str, from: &str, to: &str, parcels: usize, extra: Value) -> Value {
    let id = account(s, slug);
    let parcels: Vec<Value> = (0..parcels)
        .map(|i| json!({"weight": {"value": 0.5 + i as f64, "unit": "kg"}}))
        .collect();
    let mut body = json!({
        "service_type": service,
        "shipper_account": {"id": id},
        "shipment": {"ship_from": address("Sender Co", from, &postal(from)), "ship_to": address("Jane Doe", to, &postal(to)), "parcels": parcels}
    });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    s.sandbox_ok("POST", "/v3/labels", Some(&body))
}

fn save(s: &Server, url: &Value, name: &str) -> (tempfile::TempDir, std::path::PathBuf, Vec<u8>) {
    let (_, bytes) = s.download(url.as_str().unwrap(), &s.sandbox);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, &bytes).unwrap();
    (dir, path, bytes)
}

#[test]
fn pdf_labels_have_one_page_per_parcel_in_the_paper_asked_and_their_barcodes_decode() {
    let s = Server::start();
    // (carrier, service, from, to, paper asked, expected points)
    let cases = [
        ("yodel", "yodel_std", "GBR", "GBR", "4x6", (288.0, 432.0)),
        ("quantium", "quantium_premium", "AUS", "AUS", "default", (288.0, 576.0)),
        ("bluedart", "bluedart_surface", "IND", "IND", "a4", (595.28, 841.89)),
        ("dpd-uk", "dpd-uk_parcel_1d", "GBR", "GBR", "4x4", (288.0, 288.0)),
        ("omniparcel", "omniparcel_forward", "HKG", "USA", "4x8", (288.0, 576.0)),
    ];
    for (slug, service, from, to, paper, (w, h)) in cases {
        let l = label(&s, slug, service, from, to, 3, json!({"paper_size": paper}));
        let (_tmp, pdf, _) = save(&s, &l["files"]["label"]["url"], "label.pdf");
        let (pages, sizes) = pdf_pages(&pdf);
        assert_eq!(pages, 3, "{slug}: one page per parcel");
        for (pw, ph) in sizes {
            assert!(
                (pw - w).abs() < 0.5 && (ph - h).abs() < 0.5,
                "{slug} {paper}: page {pw}x{ph}, want {w}x{h}"
            );
        }
        let codes = pdf_barcodes(&pdf);
        let want: Vec<Vec<String>> = tracking_numbers(&l).into_iter().map(|t| vec![t]).collect();
        assert_eq!(codes, want, "{slug}: page n shows the barcode of parcel n");
    }
}

#[test]
fn zpl_labels_are_one_label_per_parcel_and_decode_to_the_tracking_numbers() {
    let s = Server::start();
    for (slug, service, from, to) in [
        ("tipsa", "tipsa_standard", "ESP", "ESP"),
        ("spain-correos-es", "spain-correos-es_paq24_home", "ESP", "ESP"),
    ] {
        let l = label(
            &s,
            slug,
            service,
            from,
            to,
            2,
            json!({"file_type": "zpl", "paper_size": "4x6"}),
        );
        assert_eq!(l["files"]["label"]["file_type"], "zpl");
        let (tmp, _, bytes) = save(&s, &l["files"]["label"]["url"], "label.zpl");
        let zpl = String::from_utf8(bytes).unwrap();
        let labels: Vec<&str> = zpl.split_inclusive("^XZ").filter(|p| p.contains("^XA")).collect();
        assert_eq!(labels.len(), 2, "{slug}: one ZPL label per parcel");
        for (i, one) in labels.iter().enumerate() {
            assert!(
                one.contains("^PW812") && one.contains("^LL1218"),
                "{slug}: 4x6 at 203 dpi"
            );
            let png = labelize::render_png(one.as_bytes(), Default::default()).unwrap();
            let p = tmp.path().join(format!("zpl-{i}.png"));
            std::fs::write(&p, &png.bytes).unwrap();
            assert_eq!(
                decode_png(&p),
                vec![tracking_numbers(&l)[i].clone()],
                "{slug} label {i}"
            );
        }
    }
}

#[test]
fn invoice_has_the_copies_asked_and_the_customs_declaration_decodes() {
    let s = Server::start();
    let items = json!([{"description": "Wool scarf", "quantity": 2, "price": {"amount": 19.9, "currency": "GBP"}, "weight": {"value": 200, "unit": "g"}, "hs_code": "6117.10", "origin_country": "GBR"}]);
    let id = account(&s, "yodel");
    let body = json!({
        "service_type": "yodel_1eb",
        "shipper_account": {"id": id},
        "invoice": {"number": "INV-9", "number_of_copies": 3},
        "customs": {"purpose": "merchandise", "terms_of_trade": "ddp"},
        "shipment": {"ship_from": address("Sender Co", "GBR", "E1 6AN"), "ship_to": address("Jane Doe", "IRL", ""),
            "parcels": [{"weight": {"value": 0.6, "unit": "kg"}, "items": items}]}
    });
    let l = s.sandbox_ok("POST", "/v3/labels", Some(&body));
    let (_t1, inv, _) = save(&s, &l["files"]["invoice"]["url"], "invoice.pdf");
    let (pages, sizes) = pdf_pages(&inv);
    assert_eq!(pages, 3, "three copies");
    assert!((sizes[0].0 - 595.28).abs() < 0.5, "A4");
    let (_t2, cn, _) = save(&s, &l["files"]["customs_declaration"]["url"], "customs.pdf");
    assert_eq!(pdf_pages(&cn).0, 1);
    assert_eq!(pdf_barcodes(&cn), vec![vec![tracking_numbers(&l)[0].clone()]]);
}

/// pdftotext's words with spaces normalised.
fn pdf_words(pdf: &Path) -> String {
    tool("pdftotext", &[pdf.to_str().unwrap(), "-"])
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_recipient_in_another_script_prints_as_written_with_a_latin_line_abroad() {
    let s = Server::start();
    let items = json!([{"description": "Шерстяной шарф", "quantity": 1, "price": {"amount": 19.9, "currency": "GBP"}, "weight": {"value": 200, "unit": "g"}, "hs_code": "6117.10", "origin_country": "GBR"}]);
    let id = account(&s, "yodel");
    let mut to = address("Иван Петров", "IRL", "D02 X285");
    to["street1"] = json!("ул. Тверская 1");
    let body = json!({
        "service_type": "yodel_1eb",
        "shipper_account": {"id": id},
        "customs": {"purpose": "merchandise"},
        "shipment": {"ship_from": address("Sender Co", "GBR", "E1 6AN"), "ship_to": to,
            "parcels": [{"weight": {"value": 0.6, "unit": "kg"}, "items": items}]}
    });
    let l = s.sandbox_ok("POST", "/v3/labels", Some(&body));
    let (_t1, pdf, _) = save(&s, &l["files"]["label"]["url"], "label.pdf");
    if std::env::var_os("KEEP_PNG").is_some() {
        std::fs::copy(&pdf, "/tmp/intl-label.pdf").unwrap();
    }
    let text = pdf_words(&pdf);
    assert!(text.contains("Иван Петров / Ivan Petrov"), "{text}");
    assert!(text.contains("ул. Тверская 1 / ul. Tverskaia 1"), "{text}");
    assert!(!text.contains('?'), "{text}");
    assert_eq!(pdf_barcodes(&pdf), vec![tracking_numbers(&l)]);
    let (_t2, cn, _) = save(&s, &l["files"]["customs_declaration"]["url"], "customs.pdf");
    let text = pdf_words(&cn);
    assert!(
        text.contains("Иван Петров / Ivan Petrov") && text.contains("Шерстяной шарф"),
        "{text}"
    );

    // At home, a Greek name on a ZPL label: drawn for the printer, no Latin line, and the label's
    // barcode still reads.
    let l = label(
        &s,
        "tipsa",
        "tipsa_standard",
        "ESP",
        "ESP",
        1,
        json!({"file_type": "zpl", "paper_size": "4x6"}),
    );
    let mut body = json!({
        "service_type": "tipsa_standard",
        "shipper_account": {"id": l["shipper_account"]["id"]},
        "file_type": "zpl",
        "paper_size": "4x6",
        "shipment": {"ship_from": address("Sender Co", "ESP", "28001"), "ship_to": address("Γιώργος Παπαδόπουλος", "ESP", "28002"),
            "parcels": [{"weight": {"value": 0.6, "unit": "kg"}}]}
    });
    body["shipment"]["ship_to"]["city"] = json!("Μαδρίτη");
    let l = s.sandbox_ok("POST", "/v3/labels", Some(&body));
    let (tmp, _, bytes) = save(&s, &l["files"]["label"]["url"], "label.zpl");
    let zpl = String::from_utf8(bytes).unwrap();
    assert!(zpl.starts_with("^XA\n^CI28") && zpl.contains("^GFA,"), "{zpl}");
    assert!(!zpl.contains('?') && !zpl.contains("Giorgos"), "{zpl}");
    let png = labelize::render_png(zpl.as_bytes(), Default::default()).unwrap();
    let p = tmp.path().join("greek.png");
    std::fs::write(&p, &png.bytes).unwrap();
    assert_eq!(decode_png(&p), tracking_numbers(&l));
}

#[test]
fn a_label_carries_its_carriers_2d_code_with_tracking_number_postcode_and_country() {
    let s = Server::start();
    // Blue Dart prints QR, Yodel Data Matrix (as their labels do); ZPL labels use the printer's
    // own ^BQ/^BX.
    for (slug, service, country, file_type, paper) in [
        ("bluedart", "bluedart_surface", "IND", "pdf", "a4"),
        ("yodel", "yodel_std", "GBR", "pdf", "4x6"),
        ("tipsa", "tipsa_standard", "ESP", "zpl", "4x6"),
    ] {
        let l = label(
            &s,
            slug,
            service,
            country,
            country,
            1,
            json!({"file_type": file_type, "paper_size": paper}),
        );
        let want = format!("{}/{}/{country}", tracking_numbers(&l)[0], postal(country));
        let (tmp, path, bytes) = save(&s, &l["files"]["label"]["url"], &format!("label.{file_type}"));
        let png = if file_type == "pdf" {
            let prefix = tmp.path().join("page");
            tool(
                "pdftoppm",
                &[
                    "-r",
                    "200",
                    "-png",
                    "-singlefile",
                    path.to_str().unwrap(),
                    prefix.to_str().unwrap(),
                ],
            );
            tmp.path().join("page.png")
        } else {
            let image = labelize::render_png(&bytes, Default::default()).unwrap();
            let p = tmp.path().join("zpl.png");
            std::fs::write(&p, &image.bytes).unwrap();
            p
        };
        let png = png.to_str().unwrap();
        let read = if slug == "bluedart" {
            tool("zbarimg", &["--raw", "-q", "-Sdisable", "-Sqrcode.enable", png])
        } else {
            tool("dmtxread", &["-n", "-N1", png])
        };
        assert_eq!(read.trim(), want, "{slug} {file_type}");
        assert_eq!(
            decode_png(Path::new(png)),
            tracking_numbers(&l),
            "{slug}: the Code 128 still reads"
        );
    }
}
