//! A printer's test page: its name and resolution, a 1-inch ruler with quarter-inch ticks, a
//! Code 128 and a frame 2 mm inside the stock's edges, drawn on the same canvases as labels, so
//! an operator can check scale (the ruler must measure one inch), offset (the frame must show on
//! every side) and darkness (the barcode must scan).

use crate::label::{Canvas, Zpl};
use crate::pdf::Page;
use crate::Paper;

/// What the test page prints as its barcode.
pub const TEST_BARCODE: &str = "PACKDESK-TEST-128";

fn layout(c: &mut dyn Canvas, printer: &str, dpi: u32, format: &str) {
    let (w, h) = (c.width(), c.height());
    let inset = 2.0 / 25.4 * 72.0;
    c.frame(inset, inset, w - 2.0 * inset, h - 2.0 * inset, 1.0);
    let x = 18.0;
    c.text(x, 36.0, 14.0, true, "PACKDESK TEST PAGE");
    c.text(x, 54.0, 10.0, false, &crate::pdf::fit(printer, 10.0, w - 2.0 * x));
    c.text(
        x,
        68.0,
        10.0,
        false,
        &format!(
            "{dpi} dpi, {format}, stock {:.0} x {:.0} mm",
            w / 72.0 * 25.4,
            h / 72.0 * 25.4
        ),
    );
    // The ruler: exactly 72 pt = 1 inch, ticks every quarter inch.
    let y = 92.0;
    c.text(x, y - 4.0, 8.0, false, "1 inch");
    c.hline(x, y, 72.0, 1.0);
    for i in 0..=4 {
        let tick = if i % 4 == 0 { 10.0 } else { 5.0 };
        c.hline(x + i as f32 * 18.0 - if i == 4 { 1.0 } else { 0.0 }, y, 1.0, tick);
    }
    let modules = crate::barcode::code128_modules(TEST_BARCODE) as f32;
    let module = ((w - 2.0 * x) / modules).clamp(0.72, 2.0);
    c.code128(x, y + 24.0, module, 60.0, TEST_BARCODE);
    c.text(x, y + 100.0, 9.0, false, TEST_BARCODE);
}

pub fn render_test_page_pdf(printer: &str, dpi: u32, paper: Paper) -> Vec<u8> {
    let mut page = Page::new(paper.width_mm, paper.height_mm);
    layout(&mut page, printer, dpi, "PDF");
    crate::pdf::write("Printer test page", vec![page])
}

pub fn render_test_page_zpl(printer: &str, dpi: u32, paper: Paper) -> String {
    let width = paper.width_mm / crate::pdf::MM_PER_PT;
    let height = paper.height_mm / crate::pdf::MM_PER_PT;
    let mut z = Zpl {
        out: String::new(),
        dpi: dpi as f32,
        width,
        height,
    };
    layout(&mut z, printer, dpi, "ZPL");
    format!(
        "^XA\n^CI28\n^PW{}\n^LL{}\n^LH0,0\n{}^PQ1\n^XZ\n",
        z.dots(width),
        z.dots(height),
        z.out
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ruler_is_one_inch_of_dots_at_every_resolution() {
        for dpi in [203, 300, 600] {
            let z = render_test_page_zpl("Zebra", dpi, Paper::IN4X6);
            let ruler = format!("^GB{dpi},");
            assert!(z.contains(&ruler), "{dpi}: {z}");
        }
        let pdf = render_test_page_pdf("Office", 600, Paper::A4);
        assert!(pdf.starts_with(b"%PDF"));
    }
}
