//! The fonts documents print with, and how a line of text becomes glyphs.
//!
//! All text is set in fonts that ship inside Packdesk (`fonts/`, see its README) and embedded as
//! subsets with their Unicode mapping (the text stays searchable and copyable; no reader or
//! printer substitutes a font of its own). Latin-1 text, most of what documents print, takes a
//! fast path: one Noto Sans run, a glyph per character. Any other line is split by font per
//! character, shaped with allsorts (Arabic joining, Indic and Thai marks) and ordered by the
//! Unicode bidirectional algorithm (Arabic and Hebrew right to left). ZPL draws the same glyphs
//! as a bitmap (`rasterize`) where the printer's own fonts cannot.

use allsorts::binary::read::ReadScope;
use allsorts::font::MatchingPresentation;
use allsorts::font_data::{DynamicFontTableProvider, FontData};
use allsorts::glyph_position::{GlyphLayout, TextDirection};
use allsorts::gsub::{FeatureMask, FeatureMaskExt};
use allsorts::subset::{CmapTarget, SubsetProfile};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;

/// A typeface a run of text is set in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Face {
    /// Latin, Greek, Cyrillic.
    NotoSans,
    NotoSansBold,
    Arabic,
    Hebrew,
    Thai,
    Devanagari,
    /// Chinese, Japanese kanji and kana, Korean Hanja, CJK punctuation, full-width forms.
    Cjk,
    /// Korean Hangul.
    Hangul,
}

impl Face {
    pub const ALL: [Face; 8] = [
        Face::NotoSans,
        Face::NotoSansBold,
        Face::Arabic,
        Face::Hebrew,
        Face::Thai,
        Face::Devanagari,
        Face::Cjk,
        Face::Hangul,
    ];

    /// The font's name in a PDF (its resource name and, after the subset tag, its BaseFont).
    pub fn resource_name(self) -> &'static str {
        match self {
            Face::NotoSans => "NotoSans",
            Face::NotoSansBold => "NotoSans-Bold",
            Face::Arabic => "NotoSansArabic",
            Face::Hebrew => "NotoSansHebrew",
            Face::Thai => "NotoSansThai",
            Face::Devanagari => "NotoSansDevanagari",
            Face::Cjk => "DroidSansFallback-CJK",
            Face::Hangul => "NanumGothic-Hangul",
        }
    }

    pub fn from_resource_name(name: &str) -> Option<Face> {
        Face::ALL.into_iter().find(|f| f.resource_name() == name)
    }

    pub fn bytes(self) -> &'static [u8] {
        match self {
            Face::NotoSans => include_bytes!("../fonts/NotoSans-Regular.ttf"),
            Face::NotoSansBold => include_bytes!("../fonts/NotoSans-Bold.ttf"),
            Face::Arabic => include_bytes!("../fonts/NotoSansArabic-Regular.ttf"),
            Face::Hebrew => include_bytes!("../fonts/NotoSansHebrew-Regular.ttf"),
            Face::Thai => include_bytes!("../fonts/NotoSansThai-Regular.ttf"),
            Face::Devanagari => include_bytes!("../fonts/NotoSansDevanagari-Regular.ttf"),
            Face::Cjk => include_bytes!("../fonts/DroidSansFallback-CJK.ttf"),
            Face::Hangul => include_bytes!("../fonts/NanumGothic-Hangul.ttf"),
        }
    }

    /// The OpenType script the shaper applies.
    fn script(self) -> u32 {
        let tag = |t: &[u8; 4]| u32::from_be_bytes(*t);
        match self {
            Face::NotoSans | Face::NotoSansBold => tag(b"latn"),
            Face::Arabic => tag(b"arab"),
            Face::Hebrew => tag(b"hebr"),
            Face::Thai => tag(b"thai"),
            Face::Devanagari => tag(b"dev2"),
            Face::Cjk => tag(b"hani"),
            Face::Hangul => tag(b"hang"),
        }
    }

    /// The font for glyph lookups and drawing (parsed once per process; cheap and shareable).
    pub fn glyphs(self) -> &'static ab_glyph::FontRef<'static> {
        static FONTS: OnceLock<Vec<ab_glyph::FontRef<'static>>> = OnceLock::new();
        let all = FONTS.get_or_init(|| {
            Face::ALL
                .iter()
                .map(|f| ab_glyph::FontRef::try_from_slice(f.bytes()).expect("a shipped font parses"))
                .collect()
        });
        &all[self as usize]
    }

    pub fn units_per_em(self) -> f32 {
        use ab_glyph::Font;
        self.glyphs().units_per_em().unwrap_or(1000.0)
    }

    /// Whether the font has a glyph for `c`.
    pub fn has(self, c: char) -> bool {
        glyph_of(self, c) != 0
    }
}

/// The glyph `face` shows for `c` (0, the missing glyph, when it has none).
pub fn glyph_of(face: Face, c: char) -> u16 {
    use ab_glyph::Font;
    match latin1_glyphs(face).get(c as usize) {
        Some(&(gid, _)) => gid,
        None => face.glyphs().glyph_id(c).0,
    }
}

/// Each Latin-1 character's glyph in `face` and its advance, read from the font once: a label
/// looks each of its characters up several times (its layout, its subset, its text), and the
/// font's character map is a binary search each time.
fn latin1_glyphs(face: Face) -> &'static [(u16, i32); 256] {
    static BY_FACE: [OnceLock<[(u16, i32); 256]>; Face::ALL.len()] = [const { OnceLock::new() }; Face::ALL.len()];
    BY_FACE[face as usize].get_or_init(|| {
        use ab_glyph::Font;
        let font = face.glyphs();
        std::array::from_fn(|c| {
            let id = font.glyph_id(char::from(c as u8));
            (id.0, font.h_advance_unscaled(id) as i32)
        })
    })
}

/// The glyphs of printable ASCII in `face`.
pub fn ascii_glyphs(face: Face) -> Vec<u16> {
    (' '..='~').map(|c| glyph_of(face, c)).collect()
}

/// Latin-1: text that needs no shaping or reordering, and that printers' own fonts show.
pub fn latin1(c: char) -> bool {
    (' '..='~').contains(&c) || ('\u{a0}'..='\u{ff}').contains(&c)
}

/// The shipped face that shows `c`: the script's font, else any shipped font that has it
/// (fallback per character); `None` when none has it.
pub fn face_for(c: char, bold: bool) -> Option<Face> {
    let latin = if bold { Face::NotoSansBold } else { Face::NotoSans };
    let by_script = match c as u32 {
        0x0590..=0x05FF | 0xFB1D..=0xFB4F => Face::Hebrew,
        0x0600..=0x06FF | 0x0750..=0x077F | 0xFB50..=0xFDFF | 0xFE70..=0xFEFF => Face::Arabic,
        0x0900..=0x097F => Face::Devanagari,
        0x0E00..=0x0E7F => Face::Thai,
        0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7A3 => Face::Hangul,
        0x2E80..=0x9FFF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF => Face::Cjk,
        _ => latin,
    };
    if by_script.has(c) {
        return Some(by_script);
    }
    std::iter::once(latin).chain(Face::ALL).find(|f| f.has(c))
}

/// `s` (logical order) cut into runs of one face each. Spaces, digits and punctuation stay in the
/// run they are in when its font has them, so a name in one script is one run. A character no
/// font has becomes U+FFFD (seen as missing, never silently dropped).
pub fn face_runs(s: &str, bold: bool) -> Vec<(Face, String)> {
    let latin = if bold { Face::NotoSansBold } else { Face::NotoSans };
    let mut out: Vec<(Face, String)> = Vec::new();
    for c in s.chars() {
        let (mut face, c) = match face_for(c, bold) {
            Some(f) => (f, c),
            None => (latin, '\u{FFFD}'),
        };
        if !c.is_alphabetic() {
            if let Some((prev, _)) = out.last() {
                if prev.has(c) {
                    face = *prev;
                }
            }
        }
        match out.last_mut() {
            Some((f, run)) if *f == face => run.push(c),
            _ => out.push((face, c.to_string())),
        }
    }
    out
}

/// One glyph as drawn: font units, left to right.
#[derive(Debug, Clone, PartialEq)]
pub struct Glyph {
    pub gid: u16,
    /// How far the pen moves after it.
    pub advance: i32,
    /// Where it sits relative to the pen (marks, cursive joins).
    pub x_offset: i32,
    pub y_offset: i32,
    /// The characters it stands for (several for a ligature), for the PDF's Unicode mapping;
    /// empty in a plain run (`Run::plain` holds its text).
    pub text: String,
}

/// Glyphs of one face, in visual order.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub face: Face,
    pub glyphs: Vec<Glyph>,
    /// Latin-1, a glyph per character, each the font's own for it at its own advance: the run's
    /// text, which the PDF shows as plain text.
    pub plain: Option<String>,
}

impl Run {
    /// Width in points at `size`.
    pub fn width(&self, size: f32) -> f32 {
        let units: i32 = self.glyphs.iter().map(|g| g.advance).sum();
        units as f32 * size / self.face.units_per_em()
    }
}

/// A line of text as glyph runs in visual order, left to right: the bidi algorithm orders the
/// directional runs, each face run is shaped, right-to-left runs are reversed.
pub fn shape(s: &str, bold: bool) -> Vec<Run> {
    if s.chars().all(latin1) {
        return vec![latin1_run(s, bold)];
    }
    let bidi = unicode_bidi::BidiInfo::new(s, None);
    let mut out = Vec::new();
    for para in &bidi.paragraphs {
        let (levels, runs) = bidi.visual_runs(para, para.range.clone());
        for range in runs {
            let rtl = levels[range.start].is_rtl();
            let mut shaped: Vec<Run> = face_runs(&s[range], bold)
                .into_iter()
                .map(|(face, text)| Run {
                    face,
                    glyphs: shape_run(face, &text, rtl),
                    plain: None,
                })
                .collect();
            if rtl {
                shaped.reverse();
            }
            out.extend(shaped);
        }
    }
    out
}

/// Latin-1 set a glyph per character at its own advance (no kerning, as the built-in PDF fonts).
fn latin1_run(s: &str, bold: bool) -> Run {
    let face = if bold { Face::NotoSansBold } else { Face::NotoSans };
    let table = latin1_glyphs(face);
    let glyphs = s
        .chars()
        .map(|c| {
            // Latin-1 only (`shape`), so in the table; the font itself for anything else.
            let (gid, advance) = table.get(c as usize).copied().unwrap_or_else(|| {
                use ab_glyph::Font;
                let id = face.glyphs().glyph_id(c);
                (id.0, face.glyphs().h_advance_unscaled(id) as i32)
            });
            Glyph {
                gid,
                advance,
                x_offset: 0,
                y_offset: 0,
                text: String::new(),
            }
        })
        .collect();
    Run {
        face,
        glyphs,
        plain: Some(s.to_string()),
    }
}

thread_local! {
    /// Shaping fonts keep caches (GSUB/GPOS lookups); allsorts' font is not Send, so one per
    /// thread.
    static SHAPERS: RefCell<HashMap<Face, allsorts::Font<DynamicFontTableProvider<'static>>>> =
        RefCell::new(HashMap::new());
}

fn shaper(face: Face) -> allsorts::Font<DynamicFontTableProvider<'static>> {
    let data = ReadScope::new(face.bytes())
        .read::<FontData<'static>>()
        .expect("a shipped font parses");
    allsorts::Font::new(data.table_provider(0).expect("a shipped font has a face"))
        .expect("a shipped font has the tables shaping reads")
}

/// Shapes one face's run (logical order in), glyphs in visual order out.
fn shape_run(face: Face, text: &str, rtl: bool) -> Vec<Glyph> {
    SHAPERS.with(|cell| {
        let mut fonts = cell.borrow_mut();
        let font = fonts.entry(face).or_insert_with(|| shaper(face));
        let script = face.script();
        let raw = font.map_glyphs(text, script, MatchingPresentation::NotRequired);
        // Shaping errors still return what could be applied: better unjoined than missing.
        let infos = match font.shape(raw, script, None, FeatureMask::default_mask(), &[], None, true) {
            Ok(infos) => infos,
            Err((_, infos)) => infos,
        };
        let direction = if rtl {
            TextDirection::RightToLeft
        } else {
            TextDirection::LeftToRight
        };
        let positions = GlyphLayout::new(font, &infos, direction, false).glyph_positions().ok();
        let mut glyphs: Vec<Glyph> = infos
            .iter()
            .enumerate()
            .map(|(i, info)| {
                let gid = info.glyph.glyph_index;
                let (advance, x_offset, y_offset) = match &positions {
                    Some(p) => (p[i].hori_advance, p[i].x_offset, p[i].y_offset),
                    None => (font.horizontal_advance(gid).unwrap_or(0) as i32, 0, 0),
                };
                Glyph {
                    gid,
                    advance,
                    x_offset,
                    y_offset,
                    text: info.glyph.unicodes.iter().collect(),
                }
            })
            .collect();
        if rtl {
            glyphs.reverse();
        }
        glyphs
    })
}

/// Width of `s` in points at `size`, as it prints.
pub fn text_width(s: &str, size: f32, bold: bool) -> f32 {
    shape(s, bold).iter().map(|r| r.width(size)).sum()
}

/// `face`'s glyphs `used` (original glyph ids) as a subset font; returns its bytes and the new id
/// of each used glyph (its position in the subset: allsorts keeps the order given).
pub fn subset(face: Face, used: &std::collections::BTreeSet<u16>) -> Option<(Vec<u8>, HashMap<u16, u16>)> {
    let ids: Vec<u16> = std::iter::once(0)
        .chain(used.iter().copied().filter(|g| *g != 0))
        .collect();
    let data = ReadScope::new(face.bytes()).read::<FontData<'_>>().ok()?;
    let provider = data.table_provider(0).ok()?;
    let bytes = allsorts::subset::subset(&provider, &ids, &SubsetProfile::Pdf, CmapTarget::Unicode).ok()?;
    let remap = ids.iter().enumerate().map(|(new, old)| (*old, new as u16)).collect();
    Some((bytes, remap))
}

/// A line of text drawn at `em` pixels per em as a 1-bit bitmap (for printers whose own fonts
/// cannot show it). Returns the rows (true = black) and the baseline's row.
pub struct Raster {
    pub width: usize,
    pub height: usize,
    pub baseline: usize,
    pub pixels: Vec<bool>,
}

pub fn rasterize(s: &str, bold: bool, em: f32) -> Raster {
    use ab_glyph::{Font, PxScale};
    let runs = shape(s, bold);
    let ascent = (em * 1.05).ceil() as usize;
    let height = ascent + (em * 0.35).ceil() as usize;
    let width = runs.iter().map(|r| r.width(em)).sum::<f32>().ceil() as usize + 2;
    let mut pixels = vec![false; width * height];
    let mut pen = 0.0f32;
    for run in &runs {
        let font = run.face.glyphs();
        let per_unit = em / run.face.units_per_em();
        // ab_glyph scales by the font's height (ascent - descent), not by its em.
        let scale = PxScale::from(em * font.height_unscaled() / run.face.units_per_em());
        for g in &run.glyphs {
            let x = pen + g.x_offset as f32 * per_unit;
            let y = ascent as f32 - g.y_offset as f32 * per_unit;
            let glyph = ab_glyph::GlyphId(g.gid).with_scale_and_position(scale, ab_glyph::point(x, y));
            if let Some(outline) = font.outline_glyph(glyph) {
                let b = outline.px_bounds();
                outline.draw(|gx, gy, coverage| {
                    let (px, py) = (b.min.x as i64 + gx as i64, b.min.y as i64 + gy as i64);
                    if coverage >= 0.5 && px >= 0 && py >= 0 && (px as usize) < width && (py as usize) < height {
                        pixels[py as usize * width + px as usize] = true;
                    }
                });
            }
            pen += g.advance as f32 * per_unit;
        }
    }
    Raster {
        width,
        height,
        baseline: ascent,
        pixels,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_script_finds_its_font() {
        // Faces of the runs that print something (the CJK subset has no space of its own).
        let faces = |s: &str| {
            face_runs(s, false)
                .into_iter()
                .filter(|r| !r.1.trim().is_empty())
                .map(|r| r.0)
                .collect::<Vec<_>>()
        };
        assert_eq!(faces("山田 太郎"), [Face::Cjk, Face::Cjk]);
        assert_eq!(faces("Γιώργος Παπαδόπουλος"), [Face::NotoSans]);
        assert_eq!(faces("Иван Петров"), [Face::NotoSans]);
        assert_eq!(faces("محمد علي"), [Face::Arabic]);
        assert_eq!(faces("דוד לוי"), [Face::Hebrew]);
        assert_eq!(faces("김민준"), [Face::Hangul]);
        assert_eq!(faces("สมชาย"), [Face::Thai]);
        assert_eq!(faces("राहुल"), [Face::Devanagari]);
        assert_eq!(faces("Łódź"), [Face::NotoSans]);
        assert_eq!(faces("山田 Taro"), [Face::Cjk, Face::NotoSans]);
    }

    #[test]
    fn arabic_joins_and_reads_right_to_left() {
        // محمد: four letters, joined: the shaper picks initial/medial/final forms, so no glyph is
        // the isolated form the font's cmap gives for the letter alone.
        let runs = shape("محمد", false);
        assert_eq!(runs.len(), 1);
        let glyphs = &runs[0].glyphs;
        let isolated = |c: char| {
            use ab_glyph::Font;
            Face::Arabic.glyphs().glyph_id(c).0
        };
        assert_ne!(glyphs.last().unwrap().gid, isolated('م'), "the first letter is joined");
        // Visual order: the first letter (م) is drawn last, on the right.
        assert_eq!(glyphs.last().unwrap().text, "م");
        assert_eq!(glyphs.first().unwrap().text, "د");
    }

    #[test]
    fn a_mixed_line_keeps_latin_left_to_right_around_a_right_to_left_name() {
        let visual = |s: &str| -> String {
            shape(s, false)
                .iter()
                .flat_map(|r| match &r.plain {
                    Some(text) => vec![text.clone()],
                    None => r.glyphs.iter().map(|g| g.text.clone()).collect(),
                })
                .collect()
        };
        assert_eq!(visual("To: דוד לוי, Haifa"), "To: יול דוד, Haifa");
        // A number after a right-to-left name belongs to it (Unicode bidi rules W7, N1).
        assert_eq!(visual("To: דוד לוי 12"), "To: 12 יול דוד");
    }
}
