//! The desk's command sheet (issue 40): an A4 page of Code 128 barcodes that do the Ship
//! screen's actions when scanned (ship, ship what is packed, start packing again, switch
//! operator), printed once and kept by the scanner.

use crate::pdf::Page;

/// One command: the code its barcode holds, its name, what it does.
pub struct Command<'a> {
    pub code: &'a str,
    pub name: &'a str,
    pub what: &'a str,
}

pub fn render_command_sheet_pdf(commands: &[Command<'_>]) -> Vec<u8> {
    let mut page = Page::new(210.0, 297.0);
    let x = 56.0;
    page.text(x, 64.0, 18.0, true, "Packdesk: command barcodes");
    page.text(
        x,
        84.0,
        10.0,
        false,
        "Scan one at the Ship screen, as you scan an order or an item.",
    );
    for (i, c) in commands.iter().enumerate() {
        // Five commands fit an A4 page (842 pt) at 140 pt each.
        let y = 120.0 + i as f32 * 140.0;
        page.text(x, y, 13.0, true, c.name);
        page.text(x, y + 16.0, 9.5, false, c.what);
        // Modules of 1.2 pt (0.42 mm): read by any scanner from a hand's distance.
        page.code128(x, y + 30.0, 1.2, 60.0, c.code);
        page.text(x, y + 106.0, 8.0, false, c.code);
    }
    crate::pdf::write("Packdesk command barcodes", vec![page])
}
