//! A page's ops as a PDF content stream (PDF 32000-1, 8 and 9), written straight to bytes: the
//! few operators `Page` draws with, numbers to a thousandth of a point. (Until 2026-11-26
//! printpdf's serializer did this through an op list of lopdf objects, formatting every float:
//! more than half of a label's render.)

use super::embed::Embedded;
use crate::fonts::{glyph_of, Face};
use printpdf::{Color, Op, PaintMode, PdfFontHandle, TextItem, WindingOrder};

/// The content stream of `ops`, with text in the codes of the embedded subsets.
pub fn encode(ops: &[Op], fonts: &Embedded) -> Vec<u8> {
    let mut w = Writer {
        out: Vec::with_capacity(ops.len() * 24),
        fill: None,
        painting: None,
    };
    let mut face: Option<Face> = None;
    for op in ops {
        if !matches!(op, Op::DrawRectangle { .. } | Op::SetFillColor { .. }) {
            w.paint();
        }
        match op {
            Op::SetFillColor { col } => {
                let grey = grey(col);
                if w.fill != Some(grey) {
                    w.paint();
                    w.num(grey);
                    w.op("g");
                    w.fill = Some(grey);
                }
            }
            Op::SetOutlineColor { col } => {
                w.num(grey(col));
                w.op("G");
            }
            Op::SetOutlineThickness { pt } => {
                w.num(pt.0);
                w.op("w");
            }
            Op::StartTextSection => w.op("BT"),
            Op::EndTextSection => w.op("ET"),
            Op::SetTextCursor { pos } => {
                w.num(pos.x.0);
                w.num(pos.y.0);
                w.op("Td");
            }
            Op::SetFont { font, size } => {
                face = match font {
                    PdfFontHandle::External(id) => Face::from_resource_name(&id.0),
                    _ => None,
                };
                let name = face.map(Face::resource_name).unwrap_or("NotoSans");
                w.out.push(b'/');
                w.out.extend_from_slice(name.as_bytes());
                w.out.push(b' ');
                w.num(size.0);
                w.op("Tf");
            }
            Op::ShowText { items } => w.show(items, face, fonts),
            Op::SetLineOffset { multiplier } => {
                w.num(*multiplier);
                w.op("Ts");
            }
            Op::DrawRectangle { rectangle: r } => {
                let paint = match (r.mode, r.winding_order) {
                    (Some(PaintMode::Stroke), _) => "S",
                    (Some(PaintMode::FillStroke), Some(WindingOrder::EvenOdd)) => "B*",
                    (Some(PaintMode::FillStroke), _) => "B",
                    (_, Some(WindingOrder::EvenOdd)) => "f*",
                    _ => "f",
                };
                // Rectangles painted alike in a row are one path (a barcode's bars: one `f`).
                if w.painting != Some(paint) {
                    w.paint();
                }
                w.num(r.x.0);
                w.num(r.y.0);
                w.num(r.width.0);
                w.num(r.height.0);
                w.op("re");
                w.painting = Some(paint);
            }
            Op::DrawLine { line } => {
                for (i, p) in line.points.iter().enumerate() {
                    w.num(p.p.x.0);
                    w.num(p.p.y.0);
                    w.op(if i == 0 { "m" } else { "l" });
                }
                w.op(if line.is_closed { "s" } else { "S" });
            }
            // `Page` draws nothing else.
            _ => {}
        }
    }
    w.paint();
    w.out
}

/// The grey level of a colour (`Page` draws in greys only; any other colour prints black).
fn grey(col: &Color) -> f32 {
    match col {
        Color::Greyscale(g) => g.percent,
        _ => 0.0,
    }
}

/// `v` to three decimals, without trailing zeros: "12.5", "-0.25", "288" (a page's numbers
/// and the page size).
pub fn write_number(out: &mut Vec<u8>, v: f32) {
    let milli = (f64::from(v) * 1000.0).round();
    let milli = if milli.is_finite() { milli as i64 } else { 0 };
    if milli < 0 {
        out.push(b'-');
    }
    let milli = milli.unsigned_abs();
    write_whole(out, milli / 1000);
    let frac = milli % 1000;
    if frac != 0 {
        let digits = [frac / 100, frac / 10 % 10, frac % 10].map(|d| b'0' + d as u8);
        let kept = digits.iter().rposition(|d| *d != b'0').map_or(0, |at| at + 1);
        out.push(b'.');
        out.extend_from_slice(&digits[..kept]);
    }
}

/// `n` in decimal digits (a page has thousands of numbers: its bars and 2D code's modules; the
/// formatting machinery cost more than the rest of the number).
fn write_whole(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

struct Writer {
    out: Vec<u8>,
    /// The fill colour set last, so that the same colour is not set again for every bar.
    fill: Option<f32>,
    /// The painting operator of the rectangles drawn since the last paint.
    painting: Option<&'static str>,
}

impl Writer {
    fn op(&mut self, op: &str) {
        self.out.extend_from_slice(op.as_bytes());
        self.out.push(b'\n');
    }

    /// Paints the rectangles drawn since the last paint.
    fn paint(&mut self) {
        if let Some(paint) = self.painting.take() {
            self.op(paint);
        }
    }

    /// `v` to three decimals and a space: "12.5 ", "-0.25 ", "288 ".
    fn num(&mut self, v: f32) {
        write_number(&mut self.out, v);
        self.out.push(b' ');
    }

    /// One code of an Identity-H font: its glyph id in the subset, two bytes in hex.
    fn code(&mut self, gid: u16) {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        for shift in [12, 8, 4, 0] {
            self.out.push(HEX[usize::from((gid >> shift) & 0xF)]);
        }
    }

    /// `Tj` for one plain string, else `TJ` with the glyphs and the moves between them.
    fn show(&mut self, items: &[TextItem], face: Option<Face>, fonts: &Embedded) {
        let Some(face) = face else { return };
        if let [TextItem::Text(text)] = items {
            self.string(text.chars().map(|c| fonts.code(face, glyph_of(face, c))));
            self.op("Tj");
            return;
        }
        self.out.push(b'[');
        for item in items {
            match item {
                TextItem::Text(text) => self.string(text.chars().map(|c| fonts.code(face, glyph_of(face, c)))),
                TextItem::GlyphIds(glyphs) => {
                    for g in glyphs {
                        self.string([fonts.code(face, g.gid)]);
                        if g.offset != 0.0 {
                            self.num(g.offset);
                        }
                    }
                }
                TextItem::Offset(n) => self.num(*n),
            }
        }
        self.out.extend_from_slice(b"] ");
        self.op("TJ");
    }

    /// A string of codes and a space: `<00410042> `.
    fn string(&mut self, codes: impl IntoIterator<Item = u16>) {
        self.out.push(b'<');
        for code in codes {
            self.code(code);
        }
        self.out.extend_from_slice(b"> ");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_to_a_thousandth_without_trailing_zeros() {
        let mut w = Writer {
            out: Vec::new(),
            fill: None,
            painting: None,
        };
        for v in [288.00003, 9.999999, -0.25, 0.0, 3.4444442, -1234.5, 0.0004, 1e12] {
            w.num(v);
        }
        assert_eq!(
            String::from_utf8(w.out).unwrap(),
            "288 10 -0.25 0 3.444 -1234.5 0 999999995904 "
        );
    }
}
