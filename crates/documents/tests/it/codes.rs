//! 2D codes drawn on a PDF page read back with the tools a warehouse scanner stands for: zbarimg
//! for QR, dmtxread (dmtx-utils) for Data Matrix, on the page rendered by pdftoppm.

use packdesk_documents::matrix::{encode, Symbology};
use packdesk_documents::pdf::{write, Page};
use std::process::Command;

fn run(tool: &str, args: &[&str]) -> String {
    let out = Command::new(tool)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{tool} runs: {e}"));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn qr_and_data_matrix_on_a_pdf_page_decode_to_their_data() {
    let dir = std::env::temp_dir().join(format!("packdesk-codes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = "JD0002250000000001/M1 1AE/GBR";
    for (symbology, name) in [(Symbology::Qr, "qr"), (Symbology::DataMatrix, "dm")] {
        let m = encode(symbology, data).unwrap();
        let mut page = Page::new(101.6, 152.4);
        // 1 mm modules with a quiet zone around.
        page.matrix(40.0, 40.0, 2.83, &m);
        let png = pdf_page_png(&dir, name, &write("codes", vec![page]), "150");
        assert_eq!(read_two_d(&png, symbology), data, "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn sample(paper: packdesk_documents::Paper, symbology: Symbology) -> packdesk_documents::label::LabelPage {
    packdesk_documents::label::LabelPage {
        carrier_name: "Correos Spain".into(),
        service_name: "Paq 24 Home".into(),
        tracking_number: "PQ4A1B2C3D4E5F6".into(),
        parcel_index: 2,
        parcel_count: 3,
        weight: "1.50 kg".into(),
        ship_from: vec![
            "Almacen Norte SL".into(),
            "Calle Mayor 12".into(),
            "28013 MADRID".into(),
        ],
        ship_to: vec!["Jane Doe".into(), "22 Rue de la Paix".into(), "75002 PARIS".into()],
        ship_to_country: "FRANCE".into(),
        ship_to_phone: Some("+33 1 23 45 67 89".into()),
        routing_code: "FR 75002".into(),
        service_code: "P24".into(),
        two_d: Some((symbology, "PQ4A1B2C3D4E5F6/75002/FRA".into())),
        references: vec!["PO-77".into()],
        ship_date: "2026-11-23".into(),
        order_number: Some("A-1001".into()),
        notes: vec![],
        sample: true,
        paper,
    }
}

/// `pdf` written as `<name>.pdf` in `dir` and its first page rendered by pdftoppm at `dpi`;
/// answers the PNG's path.
fn pdf_page_png(dir: &std::path::Path, name: &str, pdf: &[u8], dpi: &str) -> String {
    let path = dir.join(format!("{name}.pdf"));
    std::fs::write(&path, pdf).unwrap();
    let stem = dir.join(name);
    run(
        "pdftoppm",
        &[
            "-r",
            dpi,
            "-png",
            "-singlefile",
            path.to_str().unwrap(),
            stem.to_str().unwrap(),
        ],
    );
    format!("{}.png", stem.display())
}

/// The 2D code in an image: zbarimg for QR, dmtxread for Data Matrix.
fn read_two_d(png: &str, symbology: Symbology) -> String {
    match symbology {
        Symbology::Qr => run("zbarimg", &["--raw", "-q", "-Sdisable", "-Sqrcode.enable", png]),
        Symbology::DataMatrix => run("dmtxread", &["-n", "-N1", png]),
    }
}

/// Code 128 and the 2D code of a label image: (zbarimg's Code 128, the 2D code's reading).
fn read_label(png: &str, symbology: Symbology) -> (String, String) {
    let code128 = run("zbarimg", &["--raw", "-q", "-Sdisable", "-Scode128.enable", png]);
    (code128, read_two_d(png, symbology))
}

#[test]
fn every_stock_and_resolution_prints_both_codes_readable() {
    use packdesk_documents::{render_label_pdf, render_label_zpl, Paper};
    let dir = std::env::temp_dir().join(format!("packdesk-stocks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mm = |w: f32, h: f32| Paper {
        width_mm: w,
        height_mm: h,
    };
    let stocks = [
        ("4x4", mm(101.6, 101.6)),
        ("4x6", Paper::IN4X6),
        ("4x8", mm(101.6, 203.2)),
        ("a4", Paper::A4),
    ];
    let want = ("PQ4A1B2C3D4E5F6".to_string(), "PQ4A1B2C3D4E5F6/75002/FRA".to_string());
    for (name, paper) in stocks {
        for symbology in [Symbology::Qr, Symbology::DataMatrix] {
            let label = sample(paper, symbology);
            let pdf = render_label_pdf(std::slice::from_ref(&label));
            let png = pdf_page_png(&dir, name, &pdf, "200");
            assert_eq!(read_label(&png, symbology), want, "{name} PDF {symbology:?}");
            if name == "a4" {
                continue; // thermal stock only
            }
            for dpi in [203, 300] {
                let zpl = render_label_zpl(std::slice::from_ref(&label), dpi);
                let options = labelize::RenderOptions {
                    width_mm: Some(paper.width_mm as f64),
                    height_mm: Some(paper.height_mm as f64),
                    dpmm: if dpi == 300 { 12 } else { 8 },
                    ..Default::default()
                };
                let image = labelize::render_png(zpl.as_bytes(), options).unwrap();
                let png = dir.join(format!("{name}-{dpi}.png"));
                std::fs::write(&png, &image.bytes).unwrap();
                assert_eq!(
                    read_label(png.to_str().unwrap(), symbology),
                    want,
                    "{name} ZPL {dpi} dpi {symbology:?}"
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
