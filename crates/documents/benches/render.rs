//! Render time of a 1-parcel 4x6 label, PDF and ZPL: `cargo bench -p packdesk-documents`.
//! Prints mean, p50 and p99 per render.

use packdesk_documents::manifest::{render_manifest_csv, render_manifest_pdf, ManifestDoc, ManifestLine};
use packdesk_documents::{label::LabelPage, render_label_pdf, render_label_zpl, Paper};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn page(i: u64) -> LabelPage {
    LabelPage {
        carrier_name: "Yodel".into(),
        service_name: "UK Express 24".into(),
        tracking_number: format!("9{:014}", i),
        parcel_index: 1,
        parcel_count: 1,
        weight: "1.5 kg".into(),
        ship_from: vec![
            "Packdesk Ltd".into(),
            "1 Dock Road".into(),
            "E16 2AA London".into(),
            "UNITED KINGDOM".into(),
        ],
        ship_to: vec![
            "Jane Doe".into(),
            "Doe Trading".into(),
            "22 High Street".into(),
            "M1 1AE Manchester".into(),
        ],
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
    for i in 0..(n / 10) as u64 {
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
    println!(
        "{name:<28} n={n:<6} mean {:>9.1} µs   p50 {:>9.1} µs   p99 {:>9.1} µs",
        us(mean),
        us(p(0.50)),
        us(p(0.99))
    );
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() {
    // `cargo test --benches` runs this with --bench absent: keep that quick.
    let n = if std::env::args().any(|a| a == "--bench") {
        5000
    } else {
        50
    };
    measure("label 4x6 ZPL (203 dpi)", n * 4, |i| {
        black_box(render_label_zpl(&[page(i)], 203));
    });
    measure("label 4x6 PDF", n, |i| {
        black_box(render_label_pdf(&[page(i)]));
    });
    let lines: Vec<ManifestLine> = (0..10_000)
        .map(|i| ManifestLine {
            tracking_number: format!("9{i:014}"),
            postal_code: "M1 1AE".into(),
            country: "GBR".into(),
            weight_kg: 1.5,
            service: "UK Express 24".into(),
            reference: "PO-77".into(),
        })
        .collect();
    let doc = ManifestDoc {
        manifest_id: "0b8f5e3c-1d2a-4c5b-9e7f-123456789abc".into(),
        carrier: "Yodel".into(),
        account: "Desk".into(),
        date: "2026-11-22".into(),
        lines,
        sample: false,
    };
    measure("manifest PDF, 10,000 lines", (n / 500).max(3), |_| {
        black_box(render_manifest_pdf(&doc));
    });
    measure("manifest CSV, 10,000 lines", (n / 500).max(3), |_| {
        black_box(render_manifest_csv(&doc));
    });
}
