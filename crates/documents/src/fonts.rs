//! The fonts documents print with: the PDF built-in Helvetica for text it can show (WinAnsi: the
//! fast path, nothing embedded), else fonts that ship inside Packdesk (`fonts/`, see its README),
//! chosen per character, embedded as subsets with their Unicode mapping (the text stays
//! searchable and copyable).

use printpdf::{ParsedFont, PdfFontParseWarning};
use std::sync::OnceLock;

/// A typeface a run of text is set in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Face {
    /// The PDF built-in Helvetica (regular or bold): WinAnsi text.
    Helvetica,
    /// Latin, Greek, Cyrillic beyond WinAnsi.
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
    pub const EMBEDDED: [Face; 8] = [
        Face::NotoSans,
        Face::NotoSansBold,
        Face::Arabic,
        Face::Hebrew,
        Face::Thai,
        Face::Devanagari,
        Face::Cjk,
        Face::Hangul,
    ];

    /// The font's resource name in a PDF (stable, so the same text gives the same bytes).
    pub fn resource_name(self) -> &'static str {
        match self {
            Face::Helvetica => "Helvetica",
            Face::NotoSans => "NotoSans",
            Face::NotoSansBold => "NotoSansBold",
            Face::Arabic => "NotoSansArabic",
            Face::Hebrew => "NotoSansHebrew",
            Face::Thai => "NotoSansThai",
            Face::Devanagari => "NotoSansDevanagari",
            Face::Cjk => "DroidSansFallbackCJK",
            Face::Hangul => "NanumGothicHangul",
        }
    }

    fn bytes(self) -> &'static [u8] {
        match self {
            Face::Helvetica => &[],
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

    /// The parsed font, parsed once per process.
    pub fn parsed(self) -> Option<&'static ParsedFont> {
        static PARSED: OnceLock<Vec<Option<ParsedFont>>> = OnceLock::new();
        let all = PARSED.get_or_init(|| {
            Face::EMBEDDED
                .iter()
                .map(|f| {
                    let mut warnings: Vec<PdfFontParseWarning> = Vec::new();
                    ParsedFont::from_bytes(f.bytes(), 0, &mut warnings)
                })
                .collect()
        });
        let i = Face::EMBEDDED.iter().position(|f| *f == self)?;
        all[i].as_ref()
    }

    /// Whether the font has a glyph for `c`.
    fn has(self, c: char) -> bool {
        self.parsed()
            .is_some_and(|p| p.codepoint_to_glyph.contains_key(&(c as u32)))
    }
}

/// What the built-in fonts show (WinAnsi, as `pdf::printable` keeps).
pub fn builtin_shows(c: char) -> bool {
    (' '..='~').contains(&c) || ('\u{a0}'..='\u{ff}').contains(&c)
}

/// The face that shows `c`: Helvetica when it can, else the script's font, else any shipped
/// font that has it (fallback per character); `None` when no font has it.
pub fn face_for(c: char, bold: bool) -> Option<Face> {
    if builtin_shows(c) {
        return Some(Face::Helvetica);
    }
    let by_script = match c as u32 {
        0x0590..=0x05FF | 0xFB1D..=0xFB4F => Face::Hebrew,
        0x0600..=0x06FF | 0x0750..=0x077F | 0xFB50..=0xFDFF | 0xFE70..=0xFEFF => Face::Arabic,
        0x0900..=0x097F => Face::Devanagari,
        0x0E00..=0x0E7F => Face::Thai,
        0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7A3 => Face::Hangul,
        0x2E80..=0x9FFF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF => Face::Cjk,
        _ if bold => Face::NotoSansBold,
        _ => Face::NotoSans,
    };
    if by_script.has(c) {
        return Some(by_script);
    }
    Face::EMBEDDED.into_iter().find(|f| f.has(c))
}

/// `s` cut into runs of one face each. A character no font has becomes U+FFFD in the run
/// around it (so it is seen as missing, never silently dropped).
pub fn runs(s: &str, bold: bool) -> Vec<(Face, String)> {
    let mut out: Vec<(Face, String)> = Vec::new();
    for c in s.chars() {
        let (face, c) = match face_for(c, bold) {
            Some(f) => (f, c),
            None => (if bold { Face::NotoSansBold } else { Face::NotoSans }, '\u{FFFD}'),
        };
        // Spaces join the run they are in, so a name in one script stays one run.
        let face = if c == ' ' { out.last().map(|r| r.0).unwrap_or(face) } else { face };
        match out.last_mut() {
            Some((f, run)) if *f == face => run.push(c),
            _ => out.push((face, c.to_string())),
        }
    }
    out
}

/// Whether `s` is right-to-left text (Hebrew or Arabic letters in it).
pub fn is_rtl(s: &str) -> bool {
    s.chars()
        .any(|c| matches!(c as u32, 0x0590..=0x05FF | 0x0600..=0x06FF | 0x0750..=0x077F | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_script_finds_a_font_and_latin_stays_builtin() {
        let faces = |s: &str| runs(s, false).into_iter().map(|r| r.0).collect::<Vec<_>>();
        assert_eq!(faces("Jane Doe"), [Face::Helvetica]);
        assert_eq!(faces("山田 太郎"), [Face::Cjk]);
        assert_eq!(faces("Γιώργος Παπαδόπουλος"), [Face::NotoSans]);
        assert_eq!(faces("Иван Петров"), [Face::NotoSans]);
        assert_eq!(faces("محمد علي"), [Face::Arabic]);
        assert_eq!(faces("דוד לוי"), [Face::Hebrew]);
        assert_eq!(faces("김민준"), [Face::Hangul]);
        assert_eq!(faces("สมชาย"), [Face::Thai]);
        assert_eq!(faces("राहुल"), [Face::Devanagari]);
        assert_eq!(faces("Łódź"), [Face::Helvetica, Face::NotoSans, Face::Helvetica, Face::NotoSans]);
    }
}
