//! The collection sheet (issue 41): the driver's copy of a close-out, one page per shipper
//! account: the account and carrier, the day, the manifest's id as a Code 128, parcels and weight
//! per service and in all, and boxes for the driver's name, signature and collection time. A4 for
//! an office printer, 4x6 for a thermal one.

use crate::pdf::{fit, Page};
use crate::words::words;
use crate::Paper;

/// The parcels of one service on the sheet.
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceCount {
    pub service: String,
    pub parcels: usize,
    pub weight_kg: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CollectionSheet {
    pub manifest_id: String,
    pub carrier: String,
    pub account: String,
    pub date: String,
    /// In the order of the services' names.
    pub services: Vec<ServiceCount>,
    pub sample: bool,
    /// The language of the document's own words (the desk's).
    pub language: packdesk_model::status::Language,
}

impl CollectionSheet {
    /// Each parcel's service and weight, counted per service (sorted by name).
    pub fn count(parcels: impl IntoIterator<Item = (String, f64)>) -> Vec<ServiceCount> {
        let mut by: std::collections::BTreeMap<String, (usize, f64)> = Default::default();
        for (service, kg) in parcels {
            let e = by.entry(service).or_default();
            e.0 += 1;
            e.1 += kg;
        }
        by.into_iter()
            .map(|(service, (parcels, weight_kg))| ServiceCount {
                service,
                parcels,
                weight_kg,
            })
            .collect()
    }
}

/// The sheet as a one-page PDF on `paper` (A4 or 4x6; any other size is laid out as 4x6).
pub fn render_collection_sheet_pdf(doc: &CollectionSheet, paper: Paper) -> Vec<u8> {
    let a4 = paper == Paper::A4;
    let mut p = Page::new(paper.width_mm, paper.height_mm);
    // Points: A4 is 595 wide, 4x6 is 288; the 4x6 sheet is the A4 one at about half the size.
    let (m, k): (f32, f32) = if a4 { (40.0, 1.0) } else { (14.0, 0.5) };
    let width = p.width - 2.0 * m;
    let mut y = m + 20.0 * k;
    let w = words(doc.language);
    let title = match doc.sample {
        true => format!("{} {}", w.collection_sheet, w.sample_mark),
        false => w.collection_sheet.to_string(),
    };
    p.text(m, y, 18.0 * k.max(0.7), true, &title);
    y += 22.0 * k.max(0.7);
    p.text(
        m,
        y,
        10.0 * k.max(0.8),
        false,
        &fit(
            &format!("{}  -  {}", doc.carrier, doc.account),
            10.0 * k.max(0.8),
            width,
        ),
    );
    y += 14.0 * k.max(0.8);
    p.text(m, y, 10.0 * k.max(0.8), false, &format!("{} {}", w.date, doc.date));
    y += 10.0 * k.max(0.8);
    // The manifest id as a Code 128 the carrier's scanner reads: modules of at least 0.9 pt.
    let modules = crate::barcode::code128_modules(&doc.manifest_id) as f32;
    let module = (width / modules).clamp(0.9, 1.2);
    p.code128(m, y, module, 50.0 * k.max(0.8), &doc.manifest_id);
    y += 50.0 * k.max(0.8) + 10.0;
    p.text(m, y, 7.5, false, &doc.manifest_id);
    y += 22.0 * k.max(0.7);

    let size = 10.0 * k.max(0.8);
    let (parcels_x, weight_x) = (m + width * 0.62, m + width * 0.8);
    p.fill_rect(m, y - size - 2.0, width, size + 6.0, 0.85);
    p.text(m + 3.0, y, size, true, w.service);
    p.text(parcels_x, y, size, true, w.parcels);
    p.text(weight_x, y, size, true, w.weight_kg);
    for s in &doc.services {
        y += size + 6.0;
        p.text(m + 3.0, y, size, false, &fit(&s.service, size, parcels_x - m - 8.0));
        p.text(parcels_x, y, size, false, &s.parcels.to_string());
        p.text(weight_x, y, size, false, &format!("{:.2}", s.weight_kg));
    }
    y += 4.0;
    p.fill_rect(m, y, width, 0.8, 0.2);
    y += size + 6.0;
    let parcels: usize = doc.services.iter().map(|s| s.parcels).sum();
    let kg: f64 = doc.services.iter().map(|s| s.weight_kg).sum();
    p.text(m + 3.0, y, size, true, w.total);
    p.text(parcels_x, y, size, true, &parcels.to_string());
    p.text(weight_x, y, size, true, &format!("{kg:.2}"));
    y += 28.0 * k.max(0.6);

    // The driver's part: a box each, tall enough to write in.
    let box_h = 44.0 * k.max(0.6);
    for what in [w.drivers_name, w.signature, w.collected_at] {
        p.frame(m, y, width, box_h, 0.8);
        p.text(m + 4.0, y + 10.0, 7.5, true, what);
        y += box_h + 8.0 * k.max(0.6);
    }
    crate::pdf::write("Collection sheet", vec![p])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sheet() -> CollectionSheet {
        CollectionSheet {
            manifest_id: "6f3c1d2e-0000-4000-8000-000000000001".into(),
            carrier: "Yodel".into(),
            account: "Yodel main".into(),
            date: "2026-11-27".into(),
            services: CollectionSheet::count([
                ("Yodel Standard".to_string(), 1.5),
                ("Yodel Express 24".to_string(), 2.0),
                ("Yodel Standard".to_string(), 0.25),
            ]),
            sample: false,
            language: packdesk_model::status::Language::English,
        }
    }

    #[test]
    fn parcels_are_counted_per_service_by_name() {
        let s = sheet();
        let rows: Vec<(&str, usize, f64)> = s
            .services
            .iter()
            .map(|c| (c.service.as_str(), c.parcels, c.weight_kg))
            .collect();
        assert_eq!(rows, [("Yodel Express 24", 1, 2.0), ("Yodel Standard", 2, 1.75)]);
    }

    #[test]
    fn the_sheet_is_one_page_of_its_paper_and_the_same_bytes_each_time() {
        for paper in [Paper::A4, Paper::IN4X6] {
            let pdf = render_collection_sheet_pdf(&sheet(), paper);
            assert!(pdf.starts_with(b"%PDF-"));
            assert_eq!(pdf, render_collection_sheet_pdf(&sheet(), paper), "pure");
        }
    }
}
