//! Writes a sample label as PDF and ZPL (and the ZPL rendered to PNG by labelize) into a folder,
//! to look at: `cargo run -p packdesk-documents --example sample_label -- /tmp/out`.
use packdesk_documents::{label::LabelPage, render_label_pdf, render_label_zpl, Paper};

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let paper = match std::env::args().nth(2).as_deref() {
        Some("4x4") => Paper {
            width_mm: 101.6,
            height_mm: 101.6,
        },
        Some("a4") => Paper::A4,
        _ => Paper::IN4X6,
    };
    let page = LabelPage {
        carrier_name: "Correos Spain".into(),
        service_name: "Paq 24 Home".into(),
        tracking_number: "RR473124829DE".into(),
        parcel_index: 1,
        parcel_count: 2,
        weight: "1.50 kg".into(),
        ship_from: vec![
            "Almacen Norte SL".into(),
            "Calle Mayor 12".into(),
            "28013 MADRID".into(),
            "ESPAÑA".into(),
        ],
        ship_to: vec![
            "Jane Doe".into(),
            "Doe Trading".into(),
            "22 Rue de la Paix".into(),
            "75002 PARIS".into(),
        ],
        ship_to_country: "FRANCE".into(),
        ship_to_phone: Some("+33 1 23 45 67 89".into()),
        routing_code: "FR 75002".into(),
        service_code: "24".into(),
        two_d: Some((
            packdesk_documents::matrix::Symbology::DataMatrix,
            "RR473124829DE/75002/FRA".into(),
        )),
        references: vec!["PO-77".into(), "Desk 3".into()],
        ship_date: "2026-11-22".into(),
        order_number: Some("A-1001".into()),
        notes: vec!["COD 25.00 EUR".into()],
        sample: true,
        paper,
    };
    let pdf = render_label_pdf(std::slice::from_ref(&page));
    std::fs::write(format!("{dir}/label.pdf"), &pdf).unwrap();
    let zpl = render_label_zpl(&[page], 203);
    std::fs::write(format!("{dir}/label.zpl"), &zpl).unwrap();
    let png = labelize::render_png(zpl.as_bytes(), Default::default()).unwrap();
    std::fs::write(format!("{dir}/label-zpl.png"), &png.bytes).unwrap();
}
