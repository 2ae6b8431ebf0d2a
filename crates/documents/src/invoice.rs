//! Commercial (or pro forma) invoice, A4, one set of pages per copy.

/// Customs documents are written in English, the language customs read everywhere.
const ENGLISH: &Words = crate::words::words(packdesk_model::status::Language::English);
use crate::pdf::{fit, text_width, Page};
use crate::words::Words;
use crate::Paper;

#[derive(Debug, Clone, PartialEq)]
pub struct DocItem {
    pub description: String,
    pub quantity: i64,
    pub unit_price: f64,
    pub currency: String,
    pub weight_kg: f64,
    pub hs_code: Option<String>,
    pub origin_country: Option<String>,
    pub sku: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct InvoiceDoc {
    /// "COMMERCIAL INVOICE" or "PRO FORMA INVOICE".
    pub title: String,
    pub number: String,
    pub date: String,
    pub copies: u32,
    pub seller: Vec<String>,
    pub buyer: Vec<String>,
    pub carrier_service: String,
    pub tracking_numbers: Vec<String>,
    pub terms_of_trade: Option<String>,
    pub reason: Option<String>,
    pub items: Vec<DocItem>,
    pub sample: bool,
}

pub(crate) const ROWS_PER_PAGE: usize = 28;

/// (currency, total value, total weight in kg) of the items.
pub(crate) fn totals(items: &[DocItem]) -> (&str, f64, f64) {
    let currency = items.first().map(|i| i.currency.as_str()).unwrap_or("");
    let value = items.iter().map(|i| i.unit_price * i.quantity as f64).sum();
    let weight = items.iter().map(|i| i.weight_kg * i.quantity as f64).sum();
    (currency, value, weight)
}

/// Draws the item table from `y` (top) and returns the y below it.
pub(crate) fn items_table(p: &mut Page, mut y: f32, items: &[DocItem]) -> f32 {
    let m = 40.0;
    let cols = [
        (m, "Description"),
        (m + 215.0, "HS code"),
        (m + 280.0, "Origin"),
        (m + 320.0, "Qty"),
        (m + 355.0, "Weight kg"),
        (m + 415.0, "Unit"),
        (m + 465.0, "Total"),
    ];
    p.fill_rect(m, y, p.width - 2.0 * m, 16.0, 0.85);
    for (x, h) in cols {
        p.text(x + 3.0, y + 11.5, 8.0, true, h);
    }
    y += 16.0;
    for it in items {
        y += 13.0;
        let row = [
            fit(&it.description, 8.0, 205.0),
            it.hs_code.clone().unwrap_or_default(),
            it.origin_country.clone().unwrap_or_default(),
            it.quantity.to_string(),
            format!("{:.3}", it.weight_kg * it.quantity as f64),
            format!("{:.2}", it.unit_price),
            format!("{:.2}", it.unit_price * it.quantity as f64),
        ];
        for ((x, _), v) in cols.iter().zip(row) {
            p.text(x + 3.0, y, 8.0, false, &v);
        }
        p.fill_rect(m, y + 4.0, p.width - 2.0 * m, 0.5, 0.6);
    }
    y + 8.0
}

/// Under the item table of the last page: total weight and value, and a signature line with its
/// caption. The declaration above the signature is each document's own.
pub(crate) fn totals_and_signature(p: &mut Page, y: f32, items: &[DocItem], caption: &str) {
    let (currency, total, weight) = totals(items);
    p.text(40.0 + 355.0, y + 12.0, 9.0, true, &format!("{weight:.3} kg"));
    p.text(
        40.0 + 415.0,
        y + 12.0,
        9.0,
        true,
        &format!("Total {total:.2} {currency}"),
    );
    p.line(40.0, y + 110.0, 260.0, y + 110.0, 0.8);
    p.text(40.0, y + 122.0, 8.0, false, caption);
}

pub(crate) fn address_block(p: &mut Page, x: f32, y: f32, title: &str, lines: &[String]) {
    p.text(x, y, 8.0, true, title);
    for (i, l) in lines.iter().take(7).enumerate() {
        p.text(x, y + 13.0 + i as f32 * 11.0, 9.0, i == 0, &fit(l, 9.0, 240.0));
    }
}

/// The carrier and service, then the tracking numbers, from `y`; answers the y below them.
pub(crate) fn carrier_lines(p: &mut Page, y: f32, carrier_service: &str, tracking: &[String], words: &Words) -> f32 {
    p.text(
        40.0,
        y,
        9.0,
        false,
        &fit(&format!("{}: {carrier_service}", words.carrier), 9.0, 515.0),
    );
    let tracking = format!("{}: {}", words.tracking, tracking.join(", "));
    p.text(40.0, y + 12.0, 9.0, false, &fit(&tracking, 9.0, 515.0));
    y + 24.0
}

/// An A4 page of a document: the sample mark when it is one, its title and the line under it.
pub(crate) fn a4_page(sample: bool, title: &str, subtitle: &str, words: &Words) -> Page {
    let mut p = Page::new(Paper::A4.width_mm, Paper::A4.height_mm);
    if sample {
        sample_mark(&mut p, words);
    }
    p.text(40.0, 70.0, 18.0, true, title);
    p.text(40.0, 90.0, 9.0, false, subtitle);
    p
}

/// Items in pages of `per_page` rows (one empty page when there are none).
pub(crate) fn pages_of<T>(items: &[T], per_page: usize) -> Vec<&[T]> {
    match items.is_empty() {
        true => vec![&[]],
        false => items.chunks(per_page).collect(),
    }
}

pub(crate) fn sample_mark(p: &mut Page, words: &Words) {
    let w = text_width(words.sample_banner, 14.0, true) + 12.0;
    // In the top margin, clear of the title (baseline 70) and the barcode (from 62).
    p.frame(p.width - 40.0 - w, 12.0, w, 24.0, 2.0);
    p.text(p.width - 40.0 - w + 6.0, 29.0, 14.0, true, words.sample_banner);
}

pub fn render_invoice_pdf(doc: &InvoiceDoc) -> Vec<u8> {
    let mut pages = Vec::new();
    let chunks: Vec<&[DocItem]> = if doc.items.is_empty() {
        vec![&[]]
    } else {
        doc.items.chunks(ROWS_PER_PAGE).collect()
    };
    for copy in 1..=doc.copies.max(1) {
        for (n, chunk) in chunks.iter().enumerate() {
            let mut p = Page::new(Paper::A4.width_mm, Paper::A4.height_mm);
            if doc.sample {
                sample_mark(&mut p, ENGLISH);
            }
            p.text(40.0, 70.0, 18.0, true, &doc.title);
            p.text(
                40.0,
                90.0,
                9.0,
                false,
                &format!(
                    "Invoice no. {}    Date {}    Copy {} of {}    Page {} of {}",
                    doc.number,
                    doc.date,
                    copy,
                    doc.copies.max(1),
                    n + 1,
                    chunks.len()
                ),
            );
            address_block(&mut p, 40.0, 120.0, "SELLER / EXPORTER", &doc.seller);
            address_block(&mut p, 310.0, 120.0, "BUYER / CONSIGNEE", &doc.buyer);
            let mut y = carrier_lines(&mut p, 215.0, &doc.carrier_service, &doc.tracking_numbers, ENGLISH);
            let terms = format!(
                "Terms of trade: {}    Reason for export: {}",
                doc.terms_of_trade.as_deref().unwrap_or("-"),
                doc.reason.as_deref().unwrap_or("-")
            );
            p.text(40.0, y, 9.0, false, &terms);
            y = items_table(&mut p, y + 14.0, chunk);
            if n + 1 == chunks.len() {
                p.text(
                    40.0,
                    y + 60.0,
                    9.0,
                    false,
                    "I declare that the information on this invoice is true and correct.",
                );
                totals_and_signature(&mut p, y, &doc.items, "Signature, name and date");
            }
            pages.push(p);
        }
    }
    crate::pdf::write("Commercial invoice", pages)
}
