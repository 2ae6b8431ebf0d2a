//! Converting a label to the printer's language: `cargo bench -p packdesk-print --bench convert`.
//! A Packdesk 4x6 label PDF to a ZPL raster at 203 and 300 dpi (time and bytes sent), and a ZPL
//! label to a PDF page. Prints mean, p50 and p99 per conversion.

use packdesk_documents::{label::LabelPage, render_label_pdf, render_label_zpl, Paper};
use packdesk_print::convert::{pdf_to_zpl, zpl_to_pdfs};
use std::hint::black_box;
use std::time::{Duration, Instant};

const STOCK_4X6: (f32, f32) = (101.6, 152.4);

fn page(i: u64) -> LabelPage {
    LabelPage {
        carrier_name: "Yodel".into(),
        service_name: "UK Express 24".into(),
        tracking_number: format!("9{:014}", i),
        parcel_index: 1,
        parcel_count: 1,
        weight: "1.5 kg".into(),
        ship_from: vec!["Packdesk Ltd".into(), "1 Dock Road".into(), "E16 2AA London".into()],
        ship_to: vec!["Jane Doe".into(), "22 High Street".into(), "M1 1AE Manchester".into()],
        ship_to_country: "UNITED KINGDOM".into(),
        references: vec!["PO-77".into()],
        ship_date: "2026-11-22".into(),
        order_number: Some("A-1001".into()),
        notes: vec![],
        sample: false,
        paper: Paper::IN4X6,
    }
}

fn measure(name: &str, n: usize, mut f: impl FnMut(u64)) {
    for i in 0..(n / 10).max(1) as u64 {
        f(i); // warm-up
    }
    let mut times: Vec<Duration> = (0..n as u64)
        .map(|i| {
            let t = Instant::now();
            f(i);
            t.elapsed()
        })
        .collect();
    times.sort();
    let mean = times.iter().sum::<Duration>() / n as u32;
    let p = |q: f64| times[((n as f64 * q) as usize).min(n - 1)];
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{name:<34} n={n:<5} mean {:>7.2} ms   p50 {:>7.2} ms   p99 {:>7.2} ms",
        ms(mean),
        ms(p(0.50)),
        ms(p(0.99))
    );
}

fn main() {
    // `cargo test --benches` runs this with --bench absent: keep that quick.
    let n = if std::env::args().any(|a| a == "--bench") {
        300
    } else {
        5
    };
    let pdfs: Vec<Vec<u8>> = (0..n as u64).map(|i| render_label_pdf(&[page(i)])).collect();
    for dpi in [203, 300] {
        let sent = pdf_to_zpl(&pdfs[0], dpi, STOCK_4X6).expect("converted").len();
        measure(&format!("label PDF -> ZPL raster, {dpi} dpi"), n, |i| {
            black_box(pdf_to_zpl(&pdfs[i as usize % pdfs.len()], dpi, STOCK_4X6).unwrap());
        });
        println!("    bytes sent: {sent} ({:.0} KB)", sent as f64 / 1024.0);
    }
    let zpl = render_label_zpl(&[page(1)], 203);
    measure("label ZPL -> PDF page", n, |_| {
        black_box(zpl_to_pdfs(&zpl, 203, STOCK_4X6).unwrap());
    });
}
