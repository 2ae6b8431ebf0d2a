//! Names in every script print as themselves: on the PDF label (text extractable, fonts embedded
//! as subsets, small file), on the ZPL label (drawn as a graphic, never '?'), and on the customs
//! declaration. Read back with poppler's pdftotext and pdffonts, as a person copying the text would.

use packdesk_documents::{customs, invoice::DocItem, label::LabelPage, render_label_pdf, render_label_zpl, Paper};
use std::process::Command;

const NAMES: [&str; 8] = [
    "山田 太郎",
    "Γιώργος Παπαδόπουλος",
    "Иван Петров",
    "محمد علي",
    "דוד לוי",
    "김민준",
    "สมชาย ใจดี",
    "राहुल शर्मा",
];

fn label(name: &str, city: &str) -> LabelPage {
    LabelPage {
        carrier_name: "Yodel".into(),
        service_name: "UK Express 24".into(),
        tracking_number: "JD0002250000000001".into(),
        parcel_index: 1,
        parcel_count: 1,
        weight: "1.5 kg".into(),
        ship_from: vec!["Packdesk Ltd".into(), "1 Dock Road".into(), "E16 2AA London".into()],
        ship_to: vec![name.into(), "22 High Street".into(), city.into()],
        ship_to_country: "JAPAN".into(),
        ship_to_phone: None,
        routing_code: "JP 100".into(),
        service_code: "24".into(),
        two_d: None,
        references: vec![],
        ship_date: "2026-11-23".into(),
        order_number: Some("A-1001".into()),
        notes: vec![],
        sample: false,
        paper: Paper::IN4X6,
    }
}

fn tool(name: &str, args: &[&str]) -> String {
    let out = Command::new(name)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{name} (poppler-utils) runs: {e}"));
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn write(dir: &tempdir::Dir, file: &str, bytes: &[u8]) -> String {
    let path = dir.0.join(file);
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

mod tempdir {
    pub struct Dir(pub std::path::PathBuf);
    impl Dir {
        pub fn new(tag: &str) -> Dir {
            let p = std::env::temp_dir().join(format!("packdesk-scripts-{tag}-{}", std::process::id()));
            std::fs::create_dir_all(&p).unwrap();
            Dir(p)
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// pdftotext's words, spaces normalised (it may join or split words at font changes).
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn every_script_reads_back_from_the_pdf_label_with_its_fonts_embedded() {
    let dir = tempdir::Dir::new("pdf");
    for (i, name) in NAMES.iter().enumerate() {
        let pdf = render_label_pdf(&[label(name, "東京都 千代田区")]);
        assert!(pdf.len() < 150_000, "{name}: label is {} bytes", pdf.len());
        let path = write(&dir, &format!("{i}.pdf"), &pdf);
        if std::env::var_os("KEEP_PNG").is_some() {
            std::fs::write(format!("/tmp/pdf-{i}.pdf"), &pdf).unwrap();
        }
        let text = words(&tool("pdftotext", &[&path, "-"]));
        assert!(text.contains(name), "{name} not in the label's text: {text}");
        assert!(text.contains("東京都 千代田区"), "{text}");
        assert!(!text.contains('?'), "a '?' on the label: {text}");
        // pdffonts: every font embedded as a subset with a Unicode map (columns name, type,
        // encoding, emb, sub, uni, object, generation).
        let fonts = tool("pdffonts", &[&path]);
        assert!(fonts.lines().count() > 3, "{fonts}");
        for line in fonts.lines().skip(2) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            let n = cols.len();
            assert_eq!(
                &cols[n - 5..n - 2],
                ["yes", "yes", "yes"],
                "{name}: font not embedded as a subset with ToUnicode: {line}"
            );
        }
    }
}

#[test]
fn a_latin_label_embeds_noto_sans_alone() {
    let dir = tempdir::Dir::new("latin");
    let path = write(&dir, "l.pdf", &render_label_pdf(&[label("José Müller", "Köln")]));
    let fonts = tool("pdffonts", &[&path]);
    let names: Vec<&str> = fonts
        .lines()
        .skip(2)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{fonts}");
    assert!(
        names
            .iter()
            .all(|n| n.ends_with("+NotoSans") || n.ends_with("+NotoSans-Bold")),
        "{fonts}"
    );
    assert!(words(&tool("pdftotext", &[&path, "-"])).contains("José Müller"));
}

#[test]
fn zpl_labels_draw_other_scripts_as_graphics_never_question_marks() {
    for name in NAMES {
        for dpi in [203, 300] {
            let zpl = render_label_zpl(&[label(name, "Tokyo")], dpi);
            assert!(zpl.starts_with("^XA\n^CI28"), "{zpl}");
            assert!(!zpl.contains(name), "{name} sent as text the printer cannot show");
            assert!(!zpl.contains('?'), "{name}: a '?' in the ZPL");
            assert!(zpl.contains("^GFA,"), "{name}: no graphic field");
            // The name's graphic has ink, and a ZPL renderer (labelize) draws the label.
            let gfa = zpl.split("^GFA,").nth(1).unwrap();
            let hex = gfa.split(',').nth(3).unwrap().split('^').next().unwrap();
            assert!(
                hex.chars().filter(|c| *c != '0').count() > 20,
                "{name}: an empty graphic"
            );
            let png = labelize::render_png(zpl.as_bytes(), Default::default()).expect("labelize renders the label");
            if std::env::var_os("KEEP_PNG").is_some() {
                std::fs::write(
                    format!("/tmp/zpl-{}-{dpi}.png", name.chars().next().unwrap() as u32),
                    &png.bytes,
                )
                .unwrap();
            }
        }
        // Latin-1 text stays the printer's own font.
        let zpl = render_label_zpl(&[label("José Müller", "Köln")], 203);
        assert!(zpl.contains("^FDJosé Müller^FS") && !zpl.contains("^GFA"), "{zpl}");
    }
}

#[test]
fn the_customs_declaration_shows_the_recipient_in_their_script() {
    let dir = tempdir::Dir::new("cn23");
    let doc = customs::CustomsDoc {
        tracking_number: "JD0002250000000001".into(),
        sender: vec!["Packdesk Ltd".into(), "1 Dock Road".into(), "London".into()],
        addressee: vec!["Иван Петров".into(), "ул. Тверская 1".into(), "Москва".into()],
        importer: vec!["محمد علي".into()],
        purpose: "merchandise".into(),
        terms_of_trade: None,
        duties_paid_by: None,
        items: vec![DocItem {
            description: "Чайник 茶壺".into(),
            quantity: 1,
            unit_price: 25.0,
            currency: "GBP".into(),
            weight_kg: 1.2,
            hs_code: Some("7323".into()),
            origin_country: Some("GBR".into()),
            sku: None,
        }],
        date: "2026-11-23".into(),
        sample: false,
    };
    let path = write(&dir, "cn23.pdf", &customs::render_customs_pdf(&doc));
    let text = words(&tool("pdftotext", &[&path, "-"]));
    for expected in ["Иван Петров", "ул. Тверская 1", "Москва", "محمد علي", "Чайник 茶壺"]
    {
        assert!(text.contains(expected), "{expected} not on the CN23: {text}");
    }
}

#[test]
fn the_packing_slip_and_the_manifest_show_names_in_their_script_and_their_words_in_the_desks_language() {
    use packdesk_documents::manifest::{render_manifest_pdf, ManifestDoc, ManifestLine, Party};
    use packdesk_documents::packing_slip::{render_packing_slip_pdf, PackingSlip, SlipItem};
    use packdesk_model::status::Language;
    let dir = tempdir::Dir::new("slip");
    let slip = PackingSlip {
        order_number: "A-1001".into(),
        date: "2026-11-23".into(),
        ship_from: vec!["Packdesk Ltd".into()],
        ship_to: vec![
            "山田 太郎".into(),
            "千代田区丸の内 1-9-1".into(),
            "100-0005 東京都".into(),
        ],
        carrier_service: "Yamato Japan TA-Q-BIN".into(),
        tracking_numbers: vec!["123456789012".into()],
        items: vec![SlipItem {
            sku: Some("TEA-01".into()),
            description: "緑茶 Sencha".into(),
            quantity: 2,
            box_number: None,
        }],
        notes: Some("Merci, Γιώργος!".into()),
        sample: false,
        language: Language::Polish,
    };
    let path = write(&dir, "slip.pdf", &render_packing_slip_pdf(&slip));
    let text = words(&tool("pdftotext", &[&path, "-"]));
    for expected in ["山田 太郎", "千代田区丸の内 1-9-1", "緑茶 Sencha", "Merci, Γιώργος!"] {
        assert!(text.contains(expected), "{expected} not on the packing slip: {text}");
    }
    // The slip's own words are the desk's language (Polish here), the data as it was given.
    for expected in [
        "LISTA PAKOWANIA",
        "Zamówienie A-1001",
        "Strona 1 z 1",
        "ODBIORCA",
        "NADAWCA",
        "Ilość",
        "Opis",
        "Sztuk: 2",
        "UWAGI",
    ] {
        assert!(
            text.contains(expected),
            "{expected} not on the Polish packing slip: {text}"
        );
    }
    let manifest = ManifestDoc {
        manifest_id: "m-1".into(),
        carrier: "Yamato Japan".into(),
        account: "東京倉庫".into(),
        date: "2026-11-23".into(),
        lines: vec![ManifestLine {
            tracking_number: "123456789012".into(),
            recipient: Party {
                postal_code: "100-0005".into(),
                country: "JPN".into(),
                ..Default::default()
            },
            weight_kg: 1.5,
            service: "宅急便".into(),
            reference: "注文 42".into(),
            ..Default::default()
        }],
        sample: false,
        language: Language::German,
    };
    let path = write(&dir, "manifest.pdf", &render_manifest_pdf(&manifest));
    let text = words(&tool("pdftotext", &[&path, "-"]));
    // (The manifest PDF has no reference column; its CSV has.)
    for expected in ["東京倉庫", "宅急便"] {
        assert!(text.contains(expected), "{expected} not on the manifest: {text}");
    }
    for expected in [
        "Sendungsnummer",
        "Postleitzahl",
        "Gewicht kg",
        "Versandart",
        "Gesamt: 1 Pakete, 1.500 kg",
        "Abgeholt von (Fahrer)",
    ] {
        assert!(text.contains(expected), "{expected} not on the German manifest: {text}");
    }
}
