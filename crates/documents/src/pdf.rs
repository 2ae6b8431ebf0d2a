//! A small page builder over printpdf's op list, in points from the top-left corner (how a label
//! is designed), and a deterministic writer.

use printpdf::{
    BuiltinFont, Color, Greyscale, Line, LinePoint, Mm, Op, PaintMode, PdfDocument, PdfFontHandle, PdfPage,
    PdfSaveOptions, Point, Pt, Rect, TextItem, WindingOrder,
};

pub const MM_PER_PT: f32 = 25.4 / 72.0;

pub struct Page {
    pub width: f32,
    pub height: f32,
    width_mm: f32,
    height_mm: f32,
    ops: Vec<Op>,
}

/// Helvetica's average advance width per point of font size, for fitting text (a conservative
/// estimate: real glyphs are a little narrower on average).
const AVG_ADVANCE: f32 = 0.56;

/// Keeps what the built-in fonts (WinAnsi) can show; others become '?'.
pub fn printable(s: &str) -> String {
    s.chars()
        .map(|c| {
            if (' '..='~').contains(&c) || ('\u{a0}'..='\u{ff}').contains(&c) {
                c
            } else {
                '?'
            }
        })
        .collect()
}

/// Cuts `s` so that it fits `max_width` points at `size`, marking the cut with "...".
pub fn fit(s: &str, size: f32, max_width: f32) -> String {
    let max_chars = (max_width / (size * AVG_ADVANCE)).floor().max(1.0) as usize;
    let s = printable(s);
    if s.chars().count() <= max_chars {
        s
    } else {
        let cut: String = s.chars().take(max_chars.saturating_sub(3)).collect();
        format!("{cut}...")
    }
}

/// Estimated width of `s`; bold capitals and digits run wider than the average.
pub fn text_width(s: &str, size: f32, bold: bool) -> f32 {
    s.chars().count() as f32 * size * if bold { 0.68 } else { AVG_ADVANCE }
}

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

    /// Text with its baseline at `y` points from the top.
    pub fn text(&mut self, x: f32, y: f32, size: f32, bold: bool, s: &str) {
        let font = if bold {
            BuiltinFont::HelveticaBold
        } else {
            BuiltinFont::Helvetica
        };
        // Text is always black, whatever fill a shaded band before it left behind.
        self.ops.extend([
            Op::SetFillColor {
                col: Color::Greyscale(Greyscale {
                    percent: 0.0,
                    icc_profile: None,
                }),
            },
            Op::StartTextSection,
            Op::SetFont {
                font: PdfFontHandle::Builtin(font),
                size: Pt(size),
            },
            Op::SetTextCursor {
                pos: Point {
                    x: Pt(x),
                    y: Pt(self.height - y),
                },
            },
            Op::ShowText {
                items: vec![TextItem::Text(printable(s))],
            },
            Op::EndTextSection,
        ]);
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

    fn into_pdf_page(self) -> PdfPage {
        PdfPage::new(Mm(self.width_mm), Mm(self.height_mm), self.ops)
    }
}

/// Writes pages to PDF bytes. The document ID is derived from the content, so the same pages give
/// the same bytes.
pub fn write(title: &str, pages: Vec<Page>) -> Vec<u8> {
    let mut doc = PdfDocument::new(title);
    doc.pages = pages.into_iter().map(Page::into_pdf_page).collect();
    let opts = PdfSaveOptions {
        optimize: false,
        subset_fonts: true,
        secure: true,
        image_optimization: None,
    };
    let mut warnings = Vec::new();
    let mut lo = doc.to_lopdf_document(&opts, &mut warnings);
    lo.compress();
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
