//! A small page builder over printpdf's op list, in points from the top-left corner (how a label
//! is designed), and a deterministic writer.

use crate::fonts::Face;
use printpdf::{
    Codepoint, Color, FontId, Greyscale, Line, LinePoint, Mm, Op, PaintMode, ParsedFont, PdfDocument, PdfFont,
    PdfFontHandle, PdfPage, PdfSaveOptions, Point, Pt, Rect, TextItem, WindingOrder,
};
use std::collections::{BTreeMap, BTreeSet};

pub const MM_PER_PT: f32 = 25.4 / 72.0;

pub struct Page {
    pub width: f32,
    pub height: f32,
    width_mm: f32,
    height_mm: f32,
    ops: Vec<Op>,
}

/// Cuts `s` so that it fits `max_width` points at `size`, marking the cut with "...". Measured
/// in bold, the wider face, so that it fits either way.
pub fn fit(s: &str, size: f32, max_width: f32) -> String {
    if text_width(s, size, true) <= max_width {
        return s.to_string();
    }
    let chars: Vec<char> = s.chars().collect();
    // Start from the proportional guess and step back until it fits.
    let guess = (chars.len() as f32 * max_width / text_width(s, size, true)) as usize;
    let mut keep = guess.min(chars.len()).saturating_sub(3);
    loop {
        let cut = format!("{}...", chars[..keep].iter().collect::<String>());
        if keep == 0 || text_width(&cut, size, true) <= max_width {
            return cut;
        }
        keep -= 1;
    }
}

pub use crate::fonts::text_width;

impl Page {
    pub fn new(width_mm: f32, height_mm: f32) -> Page {
        Page {
            width: width_mm / MM_PER_PT,
            height: height_mm / MM_PER_PT,
            width_mm,
            height_mm,
            ops: Vec::new(),
        }
    }

    /// Text with its baseline at `y` points from the top, in any script, in the shipped fonts
    /// (glyph ids here are the fonts' own; `write` subsets the fonts and renumbers them).
    pub fn text(&mut self, x: f32, y: f32, size: f32, bold: bool, s: &str) {
        // Text is always black, whatever fill a shaded band before it left behind.
        self.ops.extend([
            Op::SetFillColor {
                col: Color::Greyscale(Greyscale {
                    percent: 0.0,
                    icc_profile: None,
                }),
            },
            Op::StartTextSection,
            Op::SetTextCursor {
                pos: Point {
                    x: Pt(x),
                    y: Pt(self.height - y),
                },
            },
        ]);
        for run in crate::fonts::shape(s, bold) {
            self.glyph_run(&run, size);
        }
        self.ops.push(Op::EndTextSection);
    }

    /// One shaped run. Each glyph is shown at its own offsets: the TJ numbers move the pen from
    /// where the glyph's width left it to where the shaper put the next glyph; a vertical offset
    /// (a mark above or below) is a text rise around that glyph.
    fn glyph_run(&mut self, run: &crate::fonts::Run, size: f32) {
        let face = run.face;
        let per_mille = 1000.0 / face.units_per_em();
        let font = face.glyphs();
        self.ops.push(Op::SetFont {
            font: PdfFontHandle::External(FontId(face.resource_name().to_string())),
            size: Pt(size),
        });
        if run.simple {
            // printpdf maps each character through the subset's cmap: one string, no offsets.
            let text = run.glyphs.iter().map(|g| g.text.as_str()).collect();
            self.ops.push(Op::ShowText {
                items: vec![TextItem::Text(text)],
            });
            return;
        }
        let mut items: Vec<TextItem> = Vec::new();
        let mut rise = 0;
        // Where the glyph's own width puts the pen versus where the layout wants it, in 1/1000 em.
        let mut pending = 0.0f32;
        for g in &run.glyphs {
            if g.y_offset != rise {
                if !items.is_empty() {
                    self.ops.push(Op::ShowText {
                        items: std::mem::take(&mut items),
                    });
                }
                rise = g.y_offset;
                self.ops.push(Op::SetLineOffset {
                    multiplier: rise as f32 * size / face.units_per_em(),
                });
            }
            let own = {
                use ab_glyph::Font;
                font.h_advance_unscaled(ab_glyph::GlyphId(g.gid))
            };
            // TJ numbers move left when positive: shift right by x_offset before the glyph...
            pending -= g.x_offset as f32 * per_mille;
            if pending.abs() > 0.01 {
                items.push(TextItem::Offset(pending));
            }
            items.push(TextItem::GlyphIds(vec![Codepoint::with_cid(
                g.gid,
                0.0,
                g.text.clone(),
            )]));
            // ...and after it, from x_offset + own width back to the layout's advance.
            pending = (g.x_offset as f32 + own - g.advance as f32) * per_mille;
        }
        if !items.is_empty() {
            self.ops.push(Op::ShowText { items });
        }
        if rise != 0 {
            self.ops.push(Op::SetLineOffset { multiplier: 0.0 });
        }
    }

    /// A filled rectangle; `y` is its top edge from the top of the page.
    pub fn fill_rect(&mut self, x: f32, y: f32, w: f32, h: f32, grey: f32) {
        self.ops.push(Op::SetFillColor {
            col: Color::Greyscale(Greyscale {
                percent: grey,
                icc_profile: None,
            }),
        });
        self.ops.push(Op::DrawRectangle {
            rectangle: Rect {
                x: Pt(x),
                y: Pt(self.height - y - h),
                width: Pt(w),
                height: Pt(h),
                mode: Some(PaintMode::Fill),
                winding_order: Some(WindingOrder::NonZero),
            },
        });
    }

    pub fn line(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, thickness: f32) {
        let p = |x: f32, y: f32| LinePoint {
            p: Point {
                x: Pt(x),
                y: Pt(self.height - y),
            },
            bezier: false,
        };
        self.ops.push(Op::SetOutlineThickness { pt: Pt(thickness) });
        self.ops.push(Op::SetOutlineColor {
            col: Color::Greyscale(Greyscale {
                percent: 0.0,
                icc_profile: None,
            }),
        });
        self.ops.push(Op::DrawLine {
            line: Line {
                points: vec![p(x1, y1), p(x2, y2)],
                is_closed: false,
            },
        });
    }

    pub fn frame(&mut self, x: f32, y: f32, w: f32, h: f32, thickness: f32) {
        self.line(x, y, x + w, y, thickness);
        self.line(x + w, y, x + w, y + h, thickness);
        self.line(x + w, y + h, x, y + h, thickness);
        self.line(x, y + h, x, y, thickness);
    }

    /// A Code 128 symbol of `text`, `module` points per module, top-left at (x, y).
    pub fn code128(&mut self, x: f32, y: f32, module: f32, height: f32, text: &str) {
        let mut cx = x;
        for (i, w) in crate::barcode::code128_runs(text).into_iter().enumerate() {
            let w = w as f32 * module;
            if i % 2 == 0 {
                self.fill_rect(cx, y, w, height, 0.0);
            }
            cx += w;
        }
    }

    /// A 2D code, `module` points per module, top-left at (x, y).
    pub fn matrix(&mut self, x: f32, y: f32, module: f32, m: &crate::matrix::Matrix) {
        for (row, col, len) in m.runs() {
            self.fill_rect(
                x + col as f32 * module,
                y + row as f32 * module,
                len as f32 * module,
                module,
                0.0,
            );
        }
    }

    fn into_pdf_page(self) -> PdfPage {
        PdfPage::new(Mm(self.width_mm), Mm(self.height_mm), self.ops)
    }
}

/// Writes pages to PDF bytes. The document ID is derived from the content, so the same pages give
/// the same bytes.
pub fn write(title: &str, pages: Vec<Page>) -> Vec<u8> {
    let mut doc = PdfDocument::new(title);
    let mut pages = pages;
    for (face, font) in embed_subsets(&mut pages) {
        doc.resources
            .fonts
            .map
            .insert(FontId(face.resource_name().to_string()), font);
    }
    doc.pages = pages.into_iter().map(Page::into_pdf_page).collect();
    let opts = PdfSaveOptions {
        optimize: false,
        subset_fonts: true,
        secure: true,
        image_optimization: None,
    };
    let mut warnings = Vec::new();
    let mut lo = doc.to_lopdf_document(&opts, &mut warnings);
    compress(&mut lo);
    // Written with an all-zero ID, which is then replaced in place (same length) by a hash of the
    // bytes: same pages, same file.
    lo.trailer
        .set("ID", lopdf::Object::Array(vec![id_string([0; 16]), id_string([0; 16])]));
    let mut out = Vec::new();
    let _ = lo.save_to(&mut out);
    let digest = <sha2::Sha256 as sha2::Digest>::digest(&out);
    let hex: String = digest[..16].iter().map(|b| format!("{b:02X}")).collect();
    let zero = format!("<{}>", "0".repeat(32));
    let mut at = out.len();
    for _ in 0..2 {
        match find_last(&out[..at], zero.as_bytes()) {
            Some(pos) => {
                out[pos + 1..pos + 33].copy_from_slice(hex.as_bytes());
                at = pos;
            }
            None => break,
        }
    }
    out
}

/// Deflates every stream at zlib's fast level (lopdf's own `compress` uses the best level, which
/// spent most of a label's render squeezing the fonts a few per cent smaller). Font programs
/// repeat from document to document (the same subsets), so they are deflated once per process,
/// at the best level. (Until 2026-11-25 every stream of 4 KB or more was taken for a font: a
/// label's page content was deflated at the best level and pushed through the cache each time.)
fn compress(lo: &mut lopdf::Document) {
    for object in lo.objects.values_mut() {
        if let lopdf::Object::Stream(stream) = object {
            if stream.dict.get(b"Filter").is_ok() {
                continue;
            }
            // A font program (FontFile2 carries Length1, FontFile3 a Subtype); a page's content
            // (27 KB for a label, its barcodes and codes) is new in every document.
            let font_program = stream.dict.has(b"Length1") || stream.dict.has(b"Subtype");
            let deflated = if font_program {
                deflate_cached(&stream.content)
            } else {
                deflate(&stream.content)
            };
            if deflated.len() + 19 < stream.content.len() {
                stream.dict.set("Filter", "FlateDecode");
                stream.set_content(deflated.to_vec());
            }
        }
    }
}

fn deflate(bytes: &[u8]) -> std::sync::Arc<[u8]> {
    deflate_at(bytes, flate2::Compression::fast())
}

fn deflate_at(bytes: &[u8], level: flate2::Compression) -> std::sync::Arc<[u8]> {
    use std::io::Write;
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::with_capacity(bytes.len() / 2), level);
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(bytes);
    encoder.finish().unwrap_or_default().into()
}

fn deflate_cached(bytes: &[u8]) -> std::sync::Arc<[u8]> {
    use std::hash::{Hash, Hasher};
    use std::sync::{Arc, Mutex, OnceLock};
    type Cache = std::collections::HashMap<u64, (Arc<[u8]>, Arc<[u8]>)>;
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    let key = h.finish();
    if let Ok(c) = cache.lock() {
        // The content itself is compared: a hash collision deflates afresh, never serves wrong bytes.
        if let Some((content, deflated)) = c.get(&key) {
            if **content == *bytes {
                return deflated.clone();
            }
        }
    }
    // Made once, used by many documents: worth the best level.
    let deflated = deflate_at(bytes, flate2::Compression::best());
    if let Ok(mut c) = cache.lock() {
        if c.len() >= 64 {
            c.clear();
        }
        c.insert(key, (Arc::from(bytes), deflated.clone()));
    }
    deflated
}

/// Subsets each shipped font to the glyphs the pages show and renumbers the glyph ids in the
/// pages to the subset's. printpdf (without its layout engine) would embed whole fonts: 1.6 MB for
/// one Chinese name.
fn embed_subsets(pages: &mut [Page]) -> Vec<(Face, PdfFont)> {
    let mut used: BTreeMap<Face, BTreeSet<u16>> = BTreeMap::new();
    for_each_text(pages, |face, item| {
        let set = used.entry(face).or_default();
        match item {
            TextItem::GlyphIds(glyphs) => set.extend(glyphs.iter().map(|cp| cp.gid)),
            // Plain text runs (Latin-1) are shown through the subset's cmap, which keeps their
            // glyphs.
            TextItem::Text(text) => set.extend(text.chars().map(|c| crate::fonts::glyph_of(face, c))),
            TextItem::Offset(_) => {}
        }
    });
    let mut remaps = BTreeMap::new();
    let mut fonts = Vec::new();
    for (face, mut gids) in used {
        // Noto Sans always carries printable ASCII: most documents then use the same subset,
        // made once per process (a subset costs more than the rest of a label).
        if matches!(face, Face::NotoSans | Face::NotoSansBold) {
            gids.extend(crate::fonts::ascii_glyphs(face));
        }
        let Some(subset) = subset_of(face, gids) else {
            continue;
        };
        fonts.push((face, subset.font.clone()));
        remaps.insert(face, subset);
    }
    for_each_text(pages, |face, item| {
        if let TextItem::GlyphIds(glyphs) = item {
            for cp in glyphs {
                // A font that failed to subset is not embedded: its glyphs show as missing.
                cp.gid = remaps
                    .get(&face)
                    .and_then(|s| s.remap.get(&cp.gid))
                    .copied()
                    .unwrap_or(0);
            }
        }
    });
    fonts
}

/// A face subset to some glyphs: the font to embed and each original glyph id's new id.
struct Subset {
    font: PdfFont,
    remap: std::collections::HashMap<u16, u16>,
}

/// The subset of `face` to `gids`, from a small per-process cache (documents are pure: the same
/// glyphs always give the same subset).
fn subset_of(face: Face, gids: BTreeSet<u16>) -> Option<std::sync::Arc<Subset>> {
    use std::sync::{Arc, Mutex, OnceLock};
    type Cache = std::collections::HashMap<(Face, BTreeSet<u16>), Arc<Subset>>;
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (face, gids);
    if let Some(hit) = cache.lock().ok()?.get(&key) {
        return Some(hit.clone());
    }
    let (bytes, remap) = crate::fonts::subset(face, &key.1)?;
    let mut warnings = Vec::new();
    let mut parsed = ParsedFont::from_bytes(&bytes, 0, &mut warnings)?;
    // A subset's name carries a tag of six capitals (PDF 32000 9.6.4), here from its glyphs, so
    // the same text gives the same file.
    let digest = <sha2::Sha256 as sha2::Digest>::digest(format!("{face:?}{:?}", key.1).as_bytes());
    let tag: String = digest[..6].iter().map(|b| (b'A' + b % 26) as char).collect();
    parsed.font_name = Some(format!("{tag}+{}", face.resource_name()));
    let subset = Arc::new(Subset {
        font: PdfFont::new(parsed),
        remap,
    });
    let mut cache = cache.lock().ok()?;
    // Bounded: names vary, and a desk's documents mostly share the ASCII subsets.
    if cache.len() >= 256 {
        cache.clear();
    }
    cache.insert(key, subset.clone());
    Some(subset)
}

/// Calls `f` with every text item the pages show in a shipped font, and that font.
fn for_each_text(pages: &mut [Page], mut f: impl FnMut(Face, &mut TextItem)) {
    for page in pages {
        let mut face = None;
        for op in &mut page.ops {
            match op {
                Op::SetFont {
                    font: PdfFontHandle::External(id),
                    ..
                } => face = Face::from_resource_name(&id.0),
                Op::SetFont { .. } => face = None,
                Op::ShowText { items } => {
                    let Some(face) = face else { continue };
                    items.iter_mut().for_each(|item| f(face, item));
                }
                _ => {}
            }
        }
    }
}

fn find_last(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

fn id_string(bytes: [u8; 16]) -> lopdf::Object {
    lopdf::Object::String(bytes.to_vec(), lopdf::StringFormat::Hexadecimal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_cuts_by_the_printed_width_in_any_script() {
        // Chinese characters are about twice as wide as Latin letters: fewer fit.
        let latin = fit(&"a".repeat(200), 10.0, 100.0);
        let chinese = fit(&"山".repeat(200), 10.0, 100.0);
        assert!(latin.ends_with("...") && chinese.ends_with("..."));
        assert!(
            chinese.chars().count() < latin.chars().count() / 2 + 3,
            "{chinese} vs {latin}"
        );
        for s in [&latin, &chinese] {
            assert!(text_width(s, 10.0, true) <= 100.0, "{s} is wider than the box");
        }
        assert_eq!(fit("山田 太郎", 10.0, 100.0), "山田 太郎");
    }

    #[test]
    fn text_after_a_shaded_band_prints_black() {
        let mut p = Page::new(210.0, 297.0);
        p.fill_rect(10.0, 10.0, 100.0, 14.0, 0.85);
        p.text(12.0, 20.0, 8.0, true, "Tracking number");
        let mut fill = None;
        for op in &p.ops {
            match op {
                Op::SetFillColor {
                    col: Color::Greyscale(g),
                } => fill = Some(g.percent),
                Op::ShowText { .. } => assert_eq!(fill, Some(0.0), "text drawn with grey {fill:?}"),
                _ => {}
            }
        }
    }
}
