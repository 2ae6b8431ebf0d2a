//! The shipping label: one layout, drawn on two canvases (PDF pages and ZPL labels), so that both
//! formats show the same things in the same places.

use crate::barcode;
use crate::pdf::{fit, text_width, Page};
use crate::Paper;

/// Everything one parcel's label shows. Lines are ready to print; the layout only places them.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelPage {
    pub carrier_name: String,
    pub service_name: String,
    pub tracking_number: String,
    /// 1-based index of the parcel in the shipment, and the number of parcels.
    pub parcel_index: usize,
    pub parcel_count: usize,
    pub weight: String,
    pub ship_from: Vec<String>,
    /// Recipient: name first, then the lines; `ship_to_country` prints large.
    pub ship_to: Vec<String>,
    pub ship_to_country: String,
    pub ship_to_phone: Option<String>,
    /// The sort code the carrier's hubs route by (country and outward postcode), printed large.
    pub routing_code: String,
    /// The service in a few letters, in a box the sorters see first ("24", "EXP").
    pub service_code: String,
    /// The 2D code: symbology and content ("tracking/postcode/country": QR alphanumeric
    /// characters, which a printer's automatic mode encodes compactly and every reader reads).
    pub two_d: Option<(crate::matrix::Symbology, String)>,
    pub references: Vec<String>,
    pub ship_date: String,
    pub order_number: Option<String>,
    /// Extra lines: cash on delivery, insurance, saturday delivery, return, document.
    pub notes: Vec<String>,
    /// Sandbox label: marked SAMPLE, not valid for shipping.
    pub sample: bool,
    pub paper: Paper,
}

/// What the layout draws on. Coordinates are points from the top-left corner.
pub(crate) trait Canvas {
    fn width(&self) -> f32;
    fn height(&self) -> f32;
    fn text(&mut self, x: f32, baseline: f32, size: f32, bold: bool, s: &str);
    fn hline(&mut self, x: f32, y: f32, w: f32, thickness: f32);
    fn frame(&mut self, x: f32, y: f32, w: f32, h: f32, thickness: f32);
    fn code128(&mut self, x: f32, y: f32, module: f32, height: f32, text: &str);
    /// A 2D code `size` points square at most, top-left at (x, y); answers its side.
    fn two_d(&mut self, x: f32, y: f32, size: f32, symbology: crate::matrix::Symbology, data: &str) -> f32;
}

impl Canvas for Page {
    fn width(&self) -> f32 {
        self.width
    }
    fn height(&self) -> f32 {
        self.height
    }
    fn text(&mut self, x: f32, baseline: f32, size: f32, bold: bool, s: &str) {
        Page::text(self, x, baseline, size, bold, s)
    }
    fn hline(&mut self, x: f32, y: f32, w: f32, thickness: f32) {
        self.fill_rect(x, y, w, thickness, 0.0)
    }
    fn frame(&mut self, x: f32, y: f32, w: f32, h: f32, thickness: f32) {
        Page::frame(self, x, y, w, h, thickness)
    }
    fn code128(&mut self, x: f32, y: f32, module: f32, height: f32, text: &str) {
        Page::code128(self, x, y, module, height, text)
    }
    fn two_d(&mut self, x: f32, y: f32, size: f32, symbology: crate::matrix::Symbology, data: &str) -> f32 {
        let Some(m) = crate::matrix::encode(symbology, data) else {
            return 0.0;
        };
        let module = size / m.width.max(m.height) as f32;
        Page::matrix(self, x, y, module, &m);
        module * m.width as f32
    }
}

/// Lays out one label. `module` is the barcode's module width in points, chosen by the caller so
/// that ZPL gets whole printer dots.
fn layout(c: &mut dyn Canvas, l: &LabelPage, module_for: &dyn Fn(f32, u32) -> f32) {
    let (w, h) = (c.width(), c.height());
    // Designed for 4x6 (288 x 432 pt); other stocks scale, A4 stops growing at 1.4x.
    let f = (w / 288.0).min(h / 432.0).min(1.4);
    let m = 10.0 * f;
    let inner = w - 2.0 * m;
    let mut y = m;

    // Header: carrier and service; SAMPLE mark on sandbox labels.
    y += 16.0 * f;
    c.text(m, y, 16.0 * f, true, &fit(&l.carrier_name, 16.0 * f, inner * 0.62));
    if l.sample {
        let sw = text_width("SAMPLE", 15.0 * f, true) + 8.0 * f;
        c.frame(w - m - sw, m - 1.0 * f, sw, 21.0 * f, 2.0 * f);
        c.text(w - m - sw + 4.0 * f, m + 15.0 * f, 15.0 * f, true, "SAMPLE");
    }
    y += 13.0 * f;
    c.text(m, y, 10.0 * f, true, &fit(&l.service_name, 10.0 * f, inner));
    y += 6.0 * f;
    c.hline(m, y, inner, 1.5 * f);

    // Sender, small.
    y += 9.0 * f;
    c.text(m, y, 6.5 * f, true, "FROM");
    for line in l.ship_from.iter().take(5) {
        y += 8.0 * f;
        c.text(m, y, 7.0 * f, false, &fit(line, 7.0 * f, inner));
    }
    y += 5.0 * f;
    c.hline(m, y, inner, 1.0 * f);

    // Recipient, large.
    y += 9.0 * f;
    c.text(m, y, 6.5 * f, true, "TO");
    for (i, line) in l.ship_to.iter().take(6).enumerate() {
        let size = if i == 0 { 12.0 } else { 10.5 } * f;
        y += size + 2.0 * f;
        c.text(m, y, size, i == 0, &fit(line, size, inner));
    }
    if let Some(phone) = l.ship_to_phone.as_deref().filter(|p| !p.trim().is_empty()) {
        y += 12.0 * f;
        c.text(m, y, 9.0 * f, false, &fit(&format!("TEL {phone}"), 9.0 * f, inner));
    }
    y += 17.0 * f;
    c.text(m, y, 15.0 * f, true, &fit(&l.ship_to_country, 15.0 * f, inner));
    y += 6.0 * f;
    c.hline(m, y, inner, 1.5 * f);

    // Routing row: the sort code large, the service box, and the 2D code on the right.
    let code_side = 62.0 * f;
    let row_top = y + 5.0 * f;
    let side = match &l.two_d {
        Some((symbology, data)) => c.two_d(w - m - code_side, row_top, code_side, *symbology, data),
        None => 0.0,
    };
    let left = inner - side - 8.0 * f;
    c.text(m, row_top + 7.0 * f, 6.5 * f, true, "ROUTE");
    c.text(
        m,
        row_top + 30.0 * f,
        22.0 * f,
        true,
        &fit(&l.routing_code, 22.0 * f, left),
    );
    if !l.service_code.is_empty() {
        let size = 14.0 * f;
        let bw = text_width(&l.service_code, size, true) + 8.0 * f;
        c.frame(m, row_top + 38.0 * f, bw, 20.0 * f, 2.0 * f);
        c.text(m + 4.0 * f, row_top + 53.0 * f, size, true, &l.service_code);
    }
    y = row_top + side.max(58.0 * f) + 5.0 * f;
    c.hline(m, y, inner, 1.0 * f);

    // Shipment facts.
    y += 11.0 * f;
    let facts = format!(
        "SHIP DATE {}   WEIGHT {}   PARCEL {}/{}",
        l.ship_date, l.weight, l.parcel_index, l.parcel_count
    );
    c.text(m, y, 8.0 * f, true, &fit(&facts, 8.0 * f, inner));
    if let Some(o) = &l.order_number {
        y += 10.0 * f;
        c.text(m, y, 8.0 * f, false, &fit(&format!("ORDER {o}"), 8.0 * f, inner));
    }
    if !l.references.is_empty() {
        y += 10.0 * f;
        c.text(
            m,
            y,
            8.0 * f,
            false,
            &fit(&format!("REF {}", l.references.join(" / ")), 8.0 * f, inner),
        );
    }
    for n in l.notes.iter().take(3) {
        y += 10.0 * f;
        c.text(m, y, 8.0 * f, true, &fit(n, 8.0 * f, inner));
    }
    y += 6.0 * f;
    c.hline(m, y, inner, 1.0 * f);

    // Tracking barcode: as wide as fits with 10-module quiet zones, centred, text below.
    let modules = barcode::code128_modules(&l.tracking_number);
    let module = module_for(inner, modules + 20);
    let bw = module * modules as f32;
    let text_size = 12.0 * f;
    let bottom = h - m - text_size - 4.0 * f;
    let bottom = if l.sample { bottom - 14.0 * f } else { bottom };
    let bh = (bottom - y - 8.0 * f).clamp(20.0 * f, 100.0 * f);
    let by = y + 8.0 * f;
    c.code128((w - bw) / 2.0, by, module, bh, &l.tracking_number);
    let tw = text_width(&l.tracking_number, text_size, true);
    c.text(
        (w - tw) / 2.0,
        by + bh + text_size + 2.0 * f,
        text_size,
        true,
        &l.tracking_number,
    );
    if l.sample {
        c.text(m, h - m, 9.0 * f, true, "SAMPLE LABEL - NOT VALID FOR SHIPPING");
    }
}

/// The label of every parcel as one PDF, a page per parcel, each page exactly the paper asked.
pub fn render_label_pdf(pages: &[LabelPage]) -> Vec<u8> {
    let pdf_pages = pages
        .iter()
        .map(|l| {
            let mut p = Page::new(l.paper.width_mm, l.paper.height_mm);
            // PDF is vector: any module width prints; keep it between 0.25 and 0.8 mm.
            layout(&mut p, l, &|avail, modules| (avail / modules as f32).clamp(0.72, 2.27));
            p
        })
        .collect();
    crate::pdf::write("Shipping label", pdf_pages)
}

/// ZPL canvas: points become printer dots at `dpi`.
pub(crate) struct Zpl {
    pub(crate) out: String,
    pub(crate) dpi: f32,
    pub(crate) width: f32,
    pub(crate) height: f32,
}

impl Zpl {
    pub(crate) fn dots(&self, pt: f32) -> i64 {
        (pt * self.dpi / 72.0).round() as i64
    }
}

/// Field data may not contain the ZPL command prefixes.
fn zpl_text(s: &str) -> String {
    s.replace(['^', '~'], " ")
}

/// `raster` as a `^GFA` graphic field with ASCII hex rows, top-left at (x, y) dots.
pub(crate) fn zpl_graphic(x: i64, y: i64, raster: &crate::fonts::Raster) -> String {
    let row_bytes = raster.width.div_ceil(8);
    let mut bytes = Vec::with_capacity(row_bytes * raster.height);
    for row in raster.pixels.chunks(raster.width) {
        for byte in row.chunks(8) {
            bytes.push(
                byte.iter()
                    .enumerate()
                    .fold(0u8, |acc, (i, on)| if *on { acc | (0x80 >> i) } else { acc }),
            );
        }
    }
    let hex = hex::encode_upper(bytes);
    let total = row_bytes * raster.height;
    format!("^FO{x},{y}^GFA,{total},{total},{row_bytes},{hex}^FS\n")
}

impl Canvas for Zpl {
    fn width(&self) -> f32 {
        self.width
    }
    fn height(&self) -> f32 {
        self.height
    }
    fn text(&mut self, x: f32, baseline: f32, size: f32, bold: bool, s: &str) {
        // The printer's font 0 shows Latin-1 under ^CI28 (UTF-8).
        if !s.chars().all(crate::fonts::latin1) {
            // The printer's fonts would print '?': draw the line with the shipped fonts instead.
            let raster = crate::fonts::rasterize(s, bold, self.dots(size) as f32);
            let top = self.dots(baseline) - raster.baseline as i64;
            self.out.push_str(&zpl_graphic(self.dots(x), top, &raster));
            return;
        }
        // Font 0 is the printer's scalable font; ^FT places the baseline like the PDF does.
        let hgt = self.dots(size);
        let wid = if bold {
            self.dots(size * 0.95)
        } else {
            self.dots(size * 0.8)
        };
        let (x, y) = (self.dots(x), self.dots(baseline));
        self.out
            .push_str(&format!("^FT{x},{y}^A0N,{hgt},{wid}^FD{}^FS\n", zpl_text(s)));
    }
    fn hline(&mut self, x: f32, y: f32, w: f32, thickness: f32) {
        let t = self.dots(thickness).max(1);
        let (x, y, w) = (self.dots(x), self.dots(y), self.dots(w));
        self.out.push_str(&format!("^FO{x},{y}^GB{w},{t},{t}^FS\n"));
    }
    fn frame(&mut self, x: f32, y: f32, w: f32, h: f32, thickness: f32) {
        let t = self.dots(thickness).max(1);
        let (x, y, w, h) = (self.dots(x), self.dots(y), self.dots(w), self.dots(h));
        self.out.push_str(&format!("^FO{x},{y}^GB{w},{h},{t}^FS\n"));
    }
    fn two_d(&mut self, x: f32, y: f32, size: f32, symbology: crate::matrix::Symbology, data: &str) -> f32 {
        // The printer draws the symbol itself, in whole dots per module, sized like the PDF's.
        let Some(m) = crate::matrix::encode(symbology, data) else {
            return 0.0;
        };
        let modules = m.width.max(m.height) as i64;
        let dots = (self.dots(size) / modules).max(2);
        let (x, y) = (self.dots(x), self.dots(y));
        let data = zpl_text(data);
        match symbology {
            // ^BQ: model 2, magnification = dots per module; "MA," = level M, automatic mode.
            crate::matrix::Symbology::Qr => self.out.push_str(&format!("^FO{x},{y}^BQN,2,{dots}^FDMA,{data}^FS\n")),
            // ^BX: module height in dots, quality 200 (ECC 200).
            crate::matrix::Symbology::DataMatrix => {
                self.out.push_str(&format!("^FO{x},{y}^BXN,{dots},200^FD{data}^FS\n"))
            }
        }
        (dots * modules) as f32 * 72.0 / self.dpi
    }
    fn code128(&mut self, x: f32, y: f32, module: f32, height: f32, text: &str) {
        let m = self.dots(module).max(1);
        let (x, y, h) = (self.dots(x), self.dots(y), self.dots(height));
        self.out.push_str(&format!(
            "^FO{x},{y}^BY{m}^BCN,{h},N,N,N^FD{}^FS\n",
            zpl_code128_data(text)
        ));
    }
}

/// The ^BC field data with explicit subset invocations, so the printer encodes exactly the
/// symbols of `barcode::symbols` (same width as the layout computed).
fn zpl_code128_data(text: &str) -> String {
    let syms = barcode::symbols(text);
    let mut out = String::new();
    let mut in_c = false;
    for &s in &syms[..syms.len() - 1] {
        match s {
            104 => out.push_str(">:"),
            105 => {
                out.push_str(">;");
                in_c = true
            }
            99 => {
                out.push_str(">5");
                in_c = true
            }
            100 => {
                out.push_str(">6");
                in_c = false
            }
            v if in_c => out.push_str(&format!("{v:02}")),
            v => {
                let ch = (v + 32) as char;
                // '>' starts an invocation code in ^BC data; ">0" is a literal '>'.
                if ch == '>' {
                    out.push_str(">0")
                } else if ch == '^' || ch == '~' {
                    out.push('?')
                } else {
                    out.push(ch)
                }
            }
        }
    }
    out
}

/// The label of every parcel as ZPL II, one ^XA..^XZ label per parcel, for a printer at `dpi`.
pub fn render_label_zpl(pages: &[LabelPage], dpi: u32) -> String {
    let mut all = String::new();
    for l in pages {
        let width = l.paper.width_mm / crate::pdf::MM_PER_PT;
        let height = l.paper.height_mm / crate::pdf::MM_PER_PT;
        let mut z = Zpl {
            out: String::new(),
            dpi: dpi as f32,
            width,
            height,
        };
        let dots_per_pt = dpi as f32 / 72.0;
        // Whole dots per module, as wide as fits (at least 2 dots so scanners read it).
        layout(&mut z, l, &|avail, modules| {
            let dots = ((avail * dots_per_pt) / modules as f32).floor().clamp(2.0, 6.0);
            dots / dots_per_pt
        });
        all.push_str(&format!(
            "^XA\n^CI28\n^PW{}\n^LL{}\n^LH0,0\n{}^PQ1\n^XZ\n",
            z.dots(width),
            z.dots(height),
            z.out
        ));
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample_page(tracking: &str, paper: Paper) -> LabelPage {
        LabelPage {
            carrier_name: "Yodel".into(),
            service_name: "Yodel Xpect 48".into(),
            tracking_number: tracking.into(),
            parcel_index: 1,
            parcel_count: 2,
            weight: "1.50 kg".into(),
            ship_from: vec![
                "Packdesk Ltd".into(),
                "1 Dock Road".into(),
                "LONDON E16 2AA".into(),
                "United Kingdom".into(),
            ],
            ship_to: vec!["Jane Doe".into(), "22 Rue de la Paix".into(), "75002 PARIS".into()],
            ship_to_country: "FRANCE".into(),
            ship_to_phone: Some("+33 1 23 45 67 89".into()),
            routing_code: "FR 75008".into(),
            service_code: "EXP".into(),
            two_d: Some((crate::matrix::Symbology::Qr, format!("{tracking}/75008/FRA"))),
            references: vec!["PO-1".into()],
            ship_date: "2026-11-22".into(),
            order_number: Some("A-1001".into()),
            notes: vec!["COD 25.00 EUR".into()],
            sample: true,
            paper,
        }
    }

    #[test]
    fn same_input_gives_the_same_bytes() {
        let p = [sample_page("RR473124829DE", Paper::IN4X6)];
        assert_eq!(render_label_pdf(&p), render_label_pdf(&p));
        assert_eq!(render_label_zpl(&p, 203), render_label_zpl(&p, 203));
        assert_ne!(
            render_label_pdf(&p),
            render_label_pdf(&[sample_page("RR473124830DE", Paper::IN4X6)])
        );
    }

    #[test]
    fn zpl_barcode_data_names_its_subsets() {
        assert_eq!(zpl_code128_data("1234"), ">;1234");
        assert_eq!(zpl_code128_data("RR473124829DE"), ">:RR4>573124829>6DE");
        assert_eq!(zpl_code128_data("A>B"), ">:A>0B");
    }

    #[test]
    fn zpl_has_one_label_per_parcel_sized_for_the_dpi() {
        let p = [
            sample_page("123456789012", Paper::IN4X6),
            sample_page("123456789029", Paper::IN4X6),
        ];
        let z203 = render_label_zpl(&p, 203);
        assert_eq!(z203.matches("^XA").count(), 2);
        assert!(z203.contains("^PW812\n^LL1218"));
        let z300 = render_label_zpl(&p[..1], 300);
        assert!(z300.contains("^PW1200\n^LL1800"));
    }
}
