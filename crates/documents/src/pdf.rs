//! A small page builder over printpdf's op list, in points from the top-left corner (how a label
//! is designed), and a deterministic writer: `embed` (font subsets and their objects, made once),
//! `content` (a page's ops as content stream bytes), `file` (objects, cross-references, trailer).

use printpdf::{
    Codepoint, Color, FontId, Greyscale, Line, LinePoint, Op, PaintMode, PdfFontHandle, Point, Pt, Rect, TextItem,
    WindingOrder,
};

mod content;
mod embed;
mod file;

pub const MM_PER_PT: f32 = 25.4 / 72.0;

pub struct Page {
    pub width: f32,
    pub height: f32,
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
            self.glyph_run(run, size);
        }
        self.ops.push(Op::EndTextSection);
    }

    /// One shaped run. Each glyph is shown at its own offsets: the TJ numbers move the pen from
    /// where the glyph's width left it to where the shaper put the next glyph; a vertical offset
    /// (a mark above or below) is a text rise around that glyph.
    fn glyph_run(&mut self, run: crate::fonts::Run, size: f32) {
        let face = run.face;
        let per_mille = 1000.0 / face.units_per_em();
        let font = face.glyphs();
        self.ops.push(Op::SetFont {
            font: PdfFontHandle::External(FontId(face.resource_name().to_string())),
            size: Pt(size),
        });
        if let Some(text) = run.plain {
            // Each character through the subset's cmap: one string, no offsets.
            self.ops.push(Op::ShowText {
                items: vec![TextItem::Text(text)],
            });
            return;
        }
        let mut items: Vec<TextItem> = Vec::new();
        let mut rise = 0;
        // Where the glyph's own width puts the pen versus where the layout wants it, in 1/1000 em.
        let mut pending = 0.0f32;
        for g in run.glyphs {
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
            items.push(TextItem::GlyphIds(vec![Codepoint::with_cid(g.gid, 0.0, g.text)]));
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
}

/// Writes pages to PDF bytes: the same pages give the same bytes (the document ID is a hash of
/// the content). Fonts are embedded as subsets, their objects made once per process
/// (`embed`); each page's content is written straight to bytes (`content`).
pub fn write(title: &str, pages: Vec<Page>) -> Vec<u8> {
    let fonts = embed::embed(&pages);
    let mut file = file::File::new();
    // Objects 1 to 3: catalog, page tree and document information; then the fonts; then each
    // page and its content. The page tree lists pages by number, known before they are written.
    let (catalog, tree, info) = (1, 2, 3);
    file.object(format!("<</Type/Catalog/Pages {tree} 0 R>>").as_bytes());
    let fonts_at = tree + 2;
    let font_objects: usize = fonts.fonts.values().map(|s| 1 + s.objects.len()).sum();
    let first_page = fonts_at + font_objects as u32;
    let kids: Vec<String> = (0..pages.len() as u32)
        .map(|i| format!("{} 0 R", first_page + 2 * i))
        .collect();
    file.object(format!("<</Type/Pages/Count {}/Kids[{}]>>", pages.len(), kids.join(" ")).as_bytes());
    file.object(format!("<</Title{}>>", file::text_string(title)).as_bytes());
    let mut resources = String::from("<</Font<<");
    for (face, subset) in &fonts.fonts {
        // The font dictionary, then the objects it refers to, numbered in that order.
        let font_id = file.next_id();
        for object in subset.written(font_id).iter() {
            file.written_object(object);
        }
        resources.push_str(&format!("/{} {font_id} 0 R", face.resource_name()));
    }
    resources.push_str(">>>>");
    for page in &pages {
        let contents = file.next_id() + 1;
        let (w, h) = (number(page.width), number(page.height));
        file.object(
            format!(
                "<</Type/Page/Parent {tree} 0 R/MediaBox[0 0 {w} {h}]/Resources{resources}/Contents {contents} 0 R>>"
            )
            .as_bytes(),
        );
        let content = content::encode(&page.ops, &fonts);
        // A page's content is new in every document: deflated at the fast level.
        let deflated = file::deflate_fast(&content);
        if deflated.len() + 19 < content.len() {
            file.stream("/Filter/FlateDecode", &deflated);
        } else {
            file.stream("", &content);
        }
    }
    file.finish(catalog, info)
}

/// A page size in points, to a thousandth.
fn number(v: f32) -> String {
    let mut out = Vec::new();
    content::write_number(&mut out, v);
    String::from_utf8_lossy(&out).into_owned()
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
