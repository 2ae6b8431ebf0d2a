//! The end-of-day manifest: an A4 PDF for the driver (one line per parcel, totals, signature box,
//! Code 128 of the manifest id) and the same lines as CSV for the carrier.

use crate::pdf::{fit, Page};
use crate::Paper;

#[derive(Debug, Clone, PartialEq)]
pub struct ManifestLine {
    pub tracking_number: String,
    pub postal_code: String,
    pub country: String,
    pub weight_kg: f64,
    pub service: String,
    pub reference: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ManifestDoc {
    pub manifest_id: String,
    pub carrier: String,
    pub account: String,
    pub date: String,
    pub lines: Vec<ManifestLine>,
    pub sample: bool,
}

const LINES_PER_PAGE: usize = 48;

pub fn render_manifest_pdf(doc: &ManifestDoc) -> Vec<u8> {
    let chunks: Vec<&[ManifestLine]> = if doc.lines.is_empty() {
        vec![&[]]
    } else {
        doc.lines.chunks(LINES_PER_PAGE).collect()
    };
    let total_kg: f64 = doc.lines.iter().map(|l| l.weight_kg).sum();
    let mut pages = Vec::with_capacity(chunks.len());
    let cols = [
        (40.0, "#"),
        (70.0, "Tracking number"),
        (230.0, "Postal code"),
        (310.0, "Country"),
        (360.0, "Weight kg"),
        (420.0, "Service"),
    ];
    for (n, chunk) in chunks.iter().enumerate() {
        let mut p = Page::new(Paper::A4.width_mm, Paper::A4.height_mm);
        p.text(
            40.0,
            60.0,
            16.0,
            true,
            &format!("MANIFEST  {}", if doc.sample { "(SAMPLE)" } else { "" }),
        );
        p.text(
            40.0,
            78.0,
            9.0,
            false,
            &fit(&format!("{}  -  {}", doc.carrier, doc.account), 9.0, 300.0),
        );
        p.text(
            40.0,
            90.0,
            9.0,
            false,
            &format!("Date {}    Page {} of {}", doc.date, n + 1, chunks.len()),
        );
        let bw = crate::barcode::code128_modules(&doc.manifest_id) as f32 * 0.75;
        p.code128(p.width - 40.0 - bw, 40.0, 0.75, 34.0, &doc.manifest_id);
        p.text(p.width - 40.0 - bw, 86.0, 7.0, false, &doc.manifest_id);
        let mut y = 110.0;
        p.fill_rect(40.0, y, p.width - 80.0, 14.0, 0.85);
        for (x, h) in cols {
            p.text(x + 2.0, y + 10.0, 8.0, true, h);
        }
        y += 14.0;
        for (i, l) in chunk.iter().enumerate() {
            y += 13.0;
            let row = [
                (n * LINES_PER_PAGE + i + 1).to_string(),
                l.tracking_number.clone(),
                l.postal_code.clone(),
                l.country.clone(),
                format!("{:.3}", l.weight_kg),
                fit(&l.service, 8.0, 135.0),
            ];
            for ((x, _), v) in cols.iter().zip(row) {
                p.text(x + 2.0, y, 8.0, false, &v);
            }
        }
        if n + 1 == chunks.len() {
            y += 24.0;
            p.text(
                40.0,
                y,
                10.0,
                true,
                &format!("Total: {} parcels, {:.3} kg", doc.lines.len(), total_kg),
            );
            y += 20.0;
            p.frame(40.0, y, 300.0, 70.0, 1.0);
            p.text(
                46.0,
                y + 14.0,
                8.0,
                true,
                "Collected by (driver): name, signature, date and time",
            );
        }
        pages.push(p);
    }
    crate::pdf::write("Manifest", pages)
}

pub fn render_manifest_csv(doc: &ManifestDoc) -> String {
    use crate::csv::{push_header, push_row, Cell};
    let mut out = String::new();
    push_header(
        &mut out,
        &[
            "manifest_id",
            "line",
            "tracking_number",
            "postal_code",
            "country",
            "weight_kg",
            "service",
            "reference",
        ],
    );
    for (i, l) in doc.lines.iter().enumerate() {
        push_row(
            &mut out,
            &[
                Cell::Text(&doc.manifest_id),
                Cell::Count(i as i64 + 1),
                Cell::Text(&l.tracking_number),
                Cell::Text(&l.postal_code),
                Cell::Text(&l.country),
                Cell::Number(l.weight_kg, 3),
                Cell::Text(&l.service),
                Cell::Text(&l.reference),
            ],
        );
    }
    out
}
