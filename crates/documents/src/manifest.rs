//! The end-of-day manifest: an A4 PDF for the driver (one line per parcel, totals, signature box,
//! Code 128 of the manifest id) and the same lines as CSV for the carrier.

use crate::pdf::{fit, Page};
use crate::words::{fill, words};
use crate::Paper;

/// One parcel of a manifest. The PDF shows the first six; the carrier's data file has them all
/// (docs/manifest-data.md).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ManifestLine {
    pub tracking_number: String,
    pub weight_kg: f64,
    pub service: String,
    pub reference: String,
    pub ship_date: String,
    pub order_number: String,
    pub sender: Party,
    pub recipient: Party,
    /// Length, width and height in cm (none given: 0).
    pub dimensions_cm: [f64; 3],
    /// Cash on delivery: amount and currency (none: 0 and "").
    pub cod: (f64, String),
    /// Insured value: amount and currency.
    pub insured: (f64, String),
    /// The customs lines of the parcel's items (international parcels).
    pub customs: Vec<CustomsLine>,
}

/// A sender or recipient as the carrier's data needs them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Party {
    pub name: String,
    pub company: String,
    pub street: String,
    pub city: String,
    pub postal_code: String,
    pub country: String,
    pub phone: String,
    pub email: String,
}

/// An item of a parcel: what, how many, its value, where it was made, its tariff code.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CustomsLine {
    pub description: String,
    pub quantity: i64,
    pub value: f64,
    pub currency: String,
    pub origin_country: String,
    pub hs_code: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ManifestDoc {
    pub manifest_id: String,
    pub carrier: String,
    pub account: String,
    pub date: String,
    pub lines: Vec<ManifestLine>,
    pub sample: bool,
    /// The language of the document's own words (the desk's).
    pub language: packdesk_model::status::Language,
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
    let w = words(doc.language);
    let cols = [
        (40.0, "#"),
        (70.0, w.tracking_number),
        (230.0, w.postal_code),
        (310.0, w.country),
        (360.0, w.weight_kg),
        (420.0, w.service),
    ];
    for (n, chunk) in chunks.iter().enumerate() {
        let mut p = Page::new(Paper::A4.width_mm, Paper::A4.height_mm);
        p.text(
            40.0,
            60.0,
            16.0,
            true,
            &format!("{}  {}", w.manifest, if doc.sample { w.sample_mark } else { "" }),
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
            &format!(
                "{} {}    {}",
                w.date,
                doc.date,
                fill(w.page_of, &[("n", &(n + 1)), ("of", &chunks.len())])
            ),
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
                l.recipient.postal_code.clone(),
                l.recipient.country.clone(),
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
                &fill(
                    w.manifest_total,
                    &[("n", &doc.lines.len()), ("kg", &format!("{total_kg:.3}"))],
                ),
            );
            y += 20.0;
            p.frame(40.0, y, 300.0, 70.0, 1.0);
            p.text(46.0, y + 14.0, 8.0, true, w.collected_by);
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
            "ship_date",
            "order_number",
            "sender_name",
            "sender_company",
            "sender_street",
            "sender_city",
            "sender_postal_code",
            "sender_country",
            "recipient_name",
            "recipient_company",
            "recipient_street",
            "recipient_city",
            "recipient_phone",
            "recipient_email",
            "length_cm",
            "width_cm",
            "height_cm",
            "cod_amount",
            "cod_currency",
            "insured_amount",
            "insured_currency",
            "customs",
        ],
    );
    for (i, l) in doc.lines.iter().enumerate() {
        // One cell for the customs lines: `description|quantity|value|currency|origin|hs_code`,
        // lines separated by `;` (a parcel has any number of items).
        let customs = l
            .customs
            .iter()
            .map(|c| {
                format!(
                    "{}|{}|{:.2}|{}|{}|{}",
                    c.description.replace(['|', ';'], " "),
                    c.quantity,
                    c.value,
                    c.currency,
                    c.origin_country,
                    c.hs_code
                )
            })
            .collect::<Vec<_>>()
            .join(";");
        let (s, r) = (&l.sender, &l.recipient);
        push_row(
            &mut out,
            &[
                Cell::Text(&doc.manifest_id),
                Cell::Count(i as i64 + 1),
                Cell::Text(&l.tracking_number),
                Cell::Text(&l.recipient.postal_code),
                Cell::Text(&l.recipient.country),
                Cell::Number(l.weight_kg, 3),
                Cell::Text(&l.service),
                Cell::Text(&l.reference),
                Cell::Text(&l.ship_date),
                Cell::Text(&l.order_number),
                Cell::Text(&s.name),
                Cell::Text(&s.company),
                Cell::Text(&s.street),
                Cell::Text(&s.city),
                Cell::Text(&s.postal_code),
                Cell::Text(&s.country),
                Cell::Text(&r.name),
                Cell::Text(&r.company),
                Cell::Text(&r.street),
                Cell::Text(&r.city),
                Cell::Text(&r.phone),
                Cell::Text(&r.email),
                Cell::Number(l.dimensions_cm[0], 1),
                Cell::Number(l.dimensions_cm[1], 1),
                Cell::Number(l.dimensions_cm[2], 1),
                Cell::Number(l.cod.0, 2),
                Cell::Text(&l.cod.1),
                Cell::Number(l.insured.0, 2),
                Cell::Text(&l.insured.1),
                Cell::Text(&customs),
            ],
        );
    }
    out
}
