//! A label in the language the printer speaks, whatever language it was made in: a PDF page for a
//! ZPL printer becomes a 1-bit raster (`^GFA`, `:Z64:` compressed) of the stock at the printer's
//! resolution; a ZPL label for a PDF printer becomes a PDF page of the stock. So one label profile
//! (one thermal printer) serves every carrier, also those that only give PDF.
//!
//! PDF is rasterized by hayro (pure Rust, Apache-2.0/MIT) without anti-aliasing: a dot is black
//! when the shape covers most of it, so bars keep their widths and the barcode stays readable.

use base64::Engine as _;
use hayro::hayro_interpret::InterpreterSettings;
use hayro::hayro_syntax::Pdf;
use hayro::vello_cpu::color::palette::css::WHITE;
use hayro::{PixmapSettings, RenderCache, RenderSettings};
use std::io::Write as _;

/// A 1-bit picture of a label: `rows` holds `height` rows of `ceil(width / 8)` bytes, most
/// significant bit first, 1 = black (as ZPL's `^GF` takes it).
#[derive(Debug, Clone, PartialEq)]
pub struct Bitmap {
    pub width: u32,
    pub height: u32,
    pub rows: Vec<u8>,
}

impl Bitmap {
    pub fn blank(width: u32, height: u32) -> Bitmap {
        Bitmap {
            width,
            height,
            rows: vec![0; (width.div_ceil(8) * height) as usize],
        }
    }

    pub fn bytes_per_row(&self) -> u32 {
        self.width.div_ceil(8)
    }

    pub fn get(&self, x: u32, y: u32) -> bool {
        let i = (y * self.bytes_per_row() + x / 8) as usize;
        self.rows[i] & (0x80 >> (x % 8)) != 0
    }

    pub fn set(&mut self, x: u32, y: u32) {
        let i = (y * self.bytes_per_row() + x / 8) as usize;
        self.rows[i] |= 0x80 >> (x % 8);
    }

    /// Turned a quarter clockwise (a landscape page onto portrait stock).
    fn rotated(&self) -> Bitmap {
        let mut out = Bitmap::blank(self.height, self.width);
        for y in 0..self.height {
            for x in 0..self.width {
                if self.get(x, y) {
                    out.set(self.height - 1 - y, x);
                }
            }
        }
        out
    }

    /// As a portable bitmap (PBM, P4): what image tools and barcode readers open.
    pub fn to_pbm(&self) -> Vec<u8> {
        let mut out = format!("P4\n{} {}\n", self.width, self.height).into_bytes();
        out.extend_from_slice(&self.rows);
        out
    }
}

/// Dots across a length in millimetres at `dpi`.
pub fn dots(mm: f32, dpi: u32) -> u32 {
    (mm / 25.4 * dpi as f32).round() as u32
}

/// Every page of a PDF as a bitmap of the stock (`stock_mm`, width x height) at `dpi`: scaled to
/// fit, turned when the page's orientation is not the stock's, centred.
pub fn pdf_to_bitmaps(pdf: &[u8], dpi: u32, stock_mm: (f32, f32)) -> Result<Vec<Bitmap>, String> {
    let doc = Pdf::new(pdf.to_vec()).map_err(|e| format!("the PDF cannot be read ({e:?})"))?;
    let (stock_w, stock_h) = (dots(stock_mm.0, dpi), dots(stock_mm.1, dpi));
    let cache = RenderCache::new();
    let interpreter = InterpreterSettings::default();
    let settings = RenderSettings {
        // Whole dots only: coverage above half paints the dot.
        aliasing_threshold: Some(128),
        hinting: false,
        ..Default::default()
    };
    let mut out = Vec::new();
    for page in doc.pages().iter() {
        let (w, h) = page.render_dimensions();
        let turn = (w > h) != (stock_w > stock_h) && stock_w != stock_h;
        let (fit_w, fit_h) = if turn { (stock_h, stock_w) } else { (stock_w, stock_h) };
        let scale = (fit_w as f32 / w).min(fit_h as f32 / h);
        let pixmap = hayro::render(
            page,
            &cache,
            &interpreter,
            &settings,
            &PixmapSettings {
                x_scale: scale,
                y_scale: scale,
                bg_color: WHITE,
            },
        );
        let (pw, ph) = (pixmap.width() as u32, pixmap.height() as u32);
        let mut page_bits = Bitmap::blank(pw, ph);
        for (i, px) in pixmap.data().iter().enumerate() {
            // Premultiplied on white: luminance below half is ink.
            let lum = (px.r as u32 * 299 + px.g as u32 * 587 + px.b as u32 * 114) / 1000;
            if lum < 128 {
                page_bits.set(i as u32 % pw, i as u32 / pw);
            }
        }
        if turn {
            page_bits = page_bits.rotated();
        }
        out.push(centred(&page_bits, stock_w, stock_h));
    }
    if out.is_empty() {
        return Err("the PDF has no pages".into());
    }
    Ok(out)
}

/// `b` placed in the middle of a `w` x `h` canvas (cut where it is larger).
fn centred(b: &Bitmap, w: u32, h: u32) -> Bitmap {
    if b.width == w && b.height == h {
        return b.clone();
    }
    let mut out = Bitmap::blank(w, h);
    let (dx, dy) = (w.saturating_sub(b.width) / 2, h.saturating_sub(b.height) / 2);
    for y in 0..b.height.min(h) {
        for x in 0..b.width.min(w) {
            if b.get(x, y) && x + dx < w && y + dy < h {
                out.set(x + dx, y + dy);
            }
        }
    }
    out
}

/// A ZPL label that prints `b` from the top-left corner: `^GFA` with the data deflated and
/// base64'd (`:Z64:`), closed by the CRC-16 the printer checks.
pub fn bitmap_to_zpl(b: &Bitmap) -> String {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    let _ = z.write_all(&b.rows);
    let deflated = z.finish().unwrap_or_default();
    let data = base64::engine::general_purpose::STANDARD.encode(deflated);
    let total = b.rows.len();
    format!(
        "^XA\n^CI28\n^PW{}\n^LL{}\n^LH0,0\n^FO0,0^GFA,{total},{total},{},:Z64:{data}:{:04X}^FS\n^XZ\n",
        b.width,
        b.height,
        b.bytes_per_row(),
        crc16_xmodem(data.as_bytes())
    )
}

/// A PDF for a ZPL printer: one raster label per page.
pub fn pdf_to_zpl(pdf: &[u8], dpi: u32, stock_mm: (f32, f32)) -> Result<String, String> {
    Ok(pdf_to_bitmaps(pdf, dpi, stock_mm)?.iter().map(bitmap_to_zpl).collect())
}

/// CRC-16/XMODEM (polynomial 0x1021, start 0), what `:Z64:` data ends with.
fn crc16_xmodem(data: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &byte in data {
        crc ^= (byte as u16) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// The bitmaps of the `^GFA` fields of a ZPL stream (one per label), read as a printer reads
/// them (the CRC of `:Z64:` data checked): how tests see what a printer was sent.
pub fn zpl_bitmaps(zpl: &str) -> Result<Vec<Bitmap>, String> {
    let mut out = Vec::new();
    for field in zpl.split("^GFA,").skip(1) {
        let end = field.find("^FS").unwrap_or(field.len());
        let mut parts = field[..end].splitn(4, ',');
        let num = |s: Option<&str>| s.and_then(|s| s.trim().parse::<u32>().ok());
        let (total, _, per_row) = (num(parts.next()), num(parts.next()), num(parts.next()));
        let (Some(total), Some(per_row)) = (total, per_row) else {
            return Err("a ^GFA field without its sizes".into());
        };
        let data = parts.next().unwrap_or("").trim();
        let rows = if let Some(z) = data.strip_prefix(":Z64:") {
            let (body, crc) = z.rsplit_once(':').ok_or("a :Z64: field without its CRC")?;
            if u16::from_str_radix(crc, 16).ok() != Some(crc16_xmodem(body.as_bytes())) {
                return Err("a :Z64: field whose CRC does not match".into());
            }
            let deflated = base64::engine::general_purpose::STANDARD
                .decode(body)
                .map_err(|e| e.to_string())?;
            let mut rows = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(&deflated[..]), &mut rows)
                .map_err(|e| e.to_string())?;
            rows
        } else {
            (0..data.len() / 2)
                .filter_map(|i| u8::from_str_radix(&data[2 * i..2 * i + 2], 16).ok())
                .collect()
        };
        if rows.len() != total as usize || per_row == 0 {
            return Err(format!(
                "a ^GFA field of {} bytes where {total} were announced",
                rows.len()
            ));
        }
        out.push(Bitmap {
            width: per_row * 8,
            height: total / per_row,
            rows,
        });
    }
    Ok(out)
}

/// A ZPL stream for a PDF printer: one PDF per label, each a page of the stock, rendered offline
/// as the preview shows it (the caller joins them).
pub fn zpl_to_pdfs(zpl: &str, dpi: u32, stock_mm: (f32, f32)) -> Result<Vec<Vec<u8>>, String> {
    let labels = crate::zpl::labels(zpl);
    if labels.is_empty() {
        return Err("the ZPL has no label (^XA..^XZ)".into());
    }
    labels
        .into_iter()
        .map(|one| {
            let options = labelize::RenderOptions {
                width_mm: Some(stock_mm.0 as f64),
                height_mm: Some(stock_mm.1 as f64),
                dpmm: crate::preview::dots_per_mm(dpi),
                ..Default::default()
            };
            labelize::render_pdf(one.as_bytes(), options)
                .map(|r| r.bytes)
                .map_err(|e| format!("the ZPL cannot be rendered: {e}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bitmap_survives_the_round_trip_through_zpl() {
        // A width of whole bytes: ^GFA carries bytes per row, not dots.
        let mut b = Bitmap::blank(808, 40);
        for x in (0..808).step_by(3) {
            for y in 0..40 {
                b.set(x, y);
            }
        }
        let zpl = bitmap_to_zpl(&b);
        assert!(zpl.starts_with("^XA\n^CI28\n^PW808\n^LL40\n"), "{}", &zpl[..40]);
        let back = zpl_bitmaps(&zpl).unwrap();
        assert!(back == vec![b], "the same dots come back");
        // A changed byte is caught by the CRC.
        let broken = zpl.replacen(":Z64:e", ":Z64:f", 1);
        assert!(zpl_bitmaps(&broken).is_err());
    }

    #[test]
    fn quarter_turn_moves_the_top_left_dot_to_the_top_right() {
        let mut b = Bitmap::blank(10, 4);
        b.set(0, 0);
        let r = b.rotated();
        assert_eq!((r.width, r.height), (4, 10));
        assert!(r.get(3, 0));
    }
}
