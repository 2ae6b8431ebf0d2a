//! Converting a label to the printer's language: `cargo bench -p packdesk-print --bench convert`.
//! A Packdesk 4x6 label PDF to a ZPL raster at 203 and 300 dpi (time and bytes sent), and a ZPL
//! label to a PDF page. Prints mean, p50 and p99 per conversion (µs).

use packdesk_documents::{render_label_pdf, render_label_zpl};
use packdesk_print::convert::{pdf_to_zpl, zpl_to_pdfs};
use std::hint::black_box;

#[path = "../../documents/benches/support.rs"]
mod support;
use support::{measure, page};

const STOCK_4X6: (f32, f32) = (101.6, 152.4);

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
