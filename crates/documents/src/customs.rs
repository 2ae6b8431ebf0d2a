//! Customs declaration (CN 23 layout), A4, for shipments that cross a border.

use crate::invoice::{a4_page, address_block, items_table, pages_of, totals_and_signature, DocItem, ROWS_PER_PAGE};
use crate::pdf::fit;

#[derive(Debug, Clone, PartialEq)]
pub struct CustomsDoc {
    pub tracking_number: String,
    pub sender: Vec<String>,
    pub addressee: Vec<String>,
    pub importer: Vec<String>,
    /// gift, merchandise, personal, sample, return, repair
    pub purpose: String,
    pub terms_of_trade: Option<String>,
    pub duties_paid_by: Option<String>,
    pub items: Vec<DocItem>,
    pub date: String,
    pub sample: bool,
}

const PURPOSES: [&str; 6] = ["gift", "merchandise", "personal", "sample", "return", "repair"];

pub fn render_customs_pdf(doc: &CustomsDoc) -> Vec<u8> {
    let chunks = pages_of(&doc.items, ROWS_PER_PAGE);
    let mut pages = Vec::new();
    for (n, chunk) in chunks.iter().enumerate() {
        let subtitle = format!(
            "Item no. {}    Date {}    Page {} of {}",
            doc.tracking_number,
            doc.date,
            n + 1,
            chunks.len()
        );
        let mut p = a4_page(
            doc.sample,
            "CUSTOMS DECLARATION  CN 23",
            &subtitle,
            crate::words::words(packdesk_model::status::Language::English),
        );
        let bw = crate::barcode::code128_modules(&doc.tracking_number) as f32 * 1.2;
        p.code128(p.width - 40.0 - bw, 62.0, 1.2, 30.0, &doc.tracking_number);
        address_block(&mut p, 40.0, 120.0, "FROM (SENDER)", &doc.sender);
        address_block(&mut p, 310.0, 120.0, "TO (ADDRESSEE)", &doc.addressee);
        let mut y = 215.0;
        if !doc.importer.is_empty() {
            p.text(
                40.0,
                y,
                9.0,
                false,
                &fit(&format!("Importer: {}", doc.importer.join(", ")), 9.0, 515.0),
            );
            y += 12.0;
        }
        // Category of item: a ticked box per purpose.
        let mut x = 40.0;
        for purpose in PURPOSES {
            p.frame(x, y + 2.0, 9.0, 9.0, 0.8);
            if purpose == doc.purpose {
                p.fill_rect(x + 2.0, y + 4.0, 5.0, 5.0, 0.0);
            }
            p.text(x + 13.0, y + 10.0, 9.0, false, purpose);
            x += 85.0;
        }
        y += 26.0;
        let terms = format!(
            "Terms of trade: {}    Duties paid by: {}",
            doc.terms_of_trade.as_deref().unwrap_or("-"),
            doc.duties_paid_by.as_deref().unwrap_or("-")
        );
        p.text(40.0, y, 9.0, false, &terms);
        y = items_table(&mut p, y + 10.0, chunk);
        if n + 1 == chunks.len() {
            p.text(
                40.0,
                y + 50.0,
                8.0,
                false,
                "I certify that the particulars given in this customs declaration are correct and that this item",
            );
            p.text(
                40.0,
                y + 61.0,
                8.0,
                false,
                "does not contain any dangerous article prohibited by legislation or by postal or customs regulations.",
            );
            totals_and_signature(&mut p, y, &doc.items, "Date and sender's signature");
        }
        pages.push(p);
    }
    crate::pdf::write("Customs declaration", pages)
}
