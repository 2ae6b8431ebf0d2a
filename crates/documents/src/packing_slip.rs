//! Packing slip, A4: what goes in the box. The order number as a Code 128 barcode (a scan at the
//! desk or at returns finds the order), ship-to, and the items with SKU and quantity to pick.

use crate::invoice::{a4_page, address_block, carrier_lines, pages_of};
use crate::pdf::fit;
use crate::words::{fill, words};
use packdesk_model::status::Language;

#[derive(Debug, Clone, PartialEq)]
pub struct SlipItem {
    pub sku: Option<String>,
    pub description: String,
    pub quantity: i64,
    /// The box it is packed in (1 for the first), when the order went in several.
    pub box_number: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PackingSlip {
    pub order_number: String,
    pub date: String,
    pub ship_from: Vec<String>,
    pub ship_to: Vec<String>,
    pub carrier_service: String,
    pub tracking_numbers: Vec<String>,
    pub items: Vec<SlipItem>,
    pub notes: Option<String>,
    pub sample: bool,
    /// The language of the slip's own words (the desk's).
    pub language: Language,
}

const ROWS_PER_PAGE: usize = 34;

pub fn render_packing_slip_pdf(doc: &PackingSlip) -> Vec<u8> {
    let w = words(doc.language);
    let chunks = pages_of(&doc.items, ROWS_PER_PAGE);
    let mut pages = Vec::new();
    for (n, chunk) in chunks.iter().enumerate() {
        let page = fill(w.page_of, &[("n", &(n + 1)), ("of", &chunks.len())]);
        let subtitle = format!("{} {}    {} {}    {page}", w.order, doc.order_number, w.date, doc.date);
        let mut p = a4_page(doc.sample, w.packing_slip, &subtitle, w);
        // The barcode at the top right: 1 pt modules scan from a printed sheet.
        let modules = crate::barcode::code128_modules(&doc.order_number) as f32;
        let module = (200.0 / modules).clamp(0.7, 1.2);
        let x = p.width - 40.0 - modules * module;
        p.code128(x, 48.0, module, 34.0, &doc.order_number);
        p.text(x, 94.0, 8.0, false, &doc.order_number);
        address_block(&mut p, 40.0, 120.0, w.ship_to, &doc.ship_to);
        address_block(&mut p, 310.0, 120.0, w.from, &doc.ship_from);
        let mut y = carrier_lines(&mut p, 215.0, &doc.carrier_service, &doc.tracking_numbers, w) + 4.0;
        let m = 40.0;
        let cols = [
            (m, w.quantity),
            (m + 40.0, w.sku),
            (m + 170.0, w.description),
            (m + 420.0, w.box_number),
            (m + 470.0, w.packed),
        ];
        p.fill_rect(m, y, p.width - 2.0 * m, 16.0, 0.85);
        for (x, h) in cols {
            p.text(x + 3.0, y + 11.5, 8.0, true, h);
        }
        y += 16.0;
        for it in *chunk {
            y += 15.0;
            p.text(m + 3.0, y, 10.0, true, &it.quantity.to_string());
            p.text(
                m + 43.0,
                y,
                9.0,
                false,
                &fit(it.sku.as_deref().unwrap_or("-"), 9.0, 122.0),
            );
            p.text(m + 173.0, y, 9.0, false, &fit(&it.description, 9.0, 240.0));
            if let Some(b) = it.box_number {
                p.text(m + 423.0, y, 10.0, true, &b.to_string());
            }
            p.frame(m + 480.0, y - 9.0, 10.0, 10.0, 0.6);
            p.fill_rect(m, y + 4.0, p.width - 2.0 * m, 0.5, 0.6);
        }
        if n + 1 == chunks.len() {
            let total: i64 = doc.items.iter().map(|i| i.quantity).sum();
            let boxes = doc.items.iter().filter_map(|i| i.box_number).max().unwrap_or(1);
            let count = match boxes {
                1 => fill(w.items, &[("n", &total)]),
                b => fill(w.items_in_boxes, &[("n", &total), ("boxes", &b)]),
            };
            p.text(m + 3.0, y + 20.0, 9.0, true, &count);
            if let Some(notes) = doc.notes.as_deref().filter(|s| !s.trim().is_empty()) {
                p.text(m, y + 44.0, 8.0, true, w.notes);
                p.text(m, y + 56.0, 9.0, false, &fit(notes, 9.0, 515.0));
            }
        }
        pages.push(p);
    }
    crate::pdf::write("Packing slip", pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slip(items: usize) -> PackingSlip {
        PackingSlip {
            order_number: "SO-1001".into(),
            date: "2026-11-23".into(),
            ship_from: vec!["Packdesk Ltd".into(), "London".into()],
            ship_to: vec!["Jane Doe".into(), "22 High Street".into(), "Manchester".into()],
            carrier_service: "Yodel Standard".into(),
            tracking_numbers: vec!["JD0000001".into()],
            items: (0..items)
                .map(|i| SlipItem {
                    sku: Some(format!("SKU-{i}")),
                    description: format!("Item {i}"),
                    quantity: 2,
                    box_number: None,
                })
                .collect(),
            notes: Some("Gift wrap".into()),
            sample: false,
            language: Language::English,
        }
    }

    #[test]
    fn a_packing_slip_is_a_pdf_with_a_page_per_34_items_and_the_same_bytes_each_time() {
        let one = render_packing_slip_pdf(&slip(3));
        assert!(one.starts_with(b"%PDF-"));
        assert_eq!(one, render_packing_slip_pdf(&slip(3)), "deterministic");
        let pages = |b: &[u8]| lopdf::Document::load_mem(b).unwrap().get_pages().len();
        assert_eq!(pages(&one), 1);
        assert_eq!(pages(&render_packing_slip_pdf(&slip(40))), 2, "34 items a page");
    }
}
