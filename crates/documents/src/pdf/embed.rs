//! The fonts a document embeds: each shipped face it uses, subset to the glyphs it shows, with
//! the font's PDF objects made once per process and kept (the same glyphs always give the same
//! objects, and most documents of a desk share the ASCII subsets).

use super::file::Written;
use super::Page;
use crate::fonts::Face;
use printpdf::{
    Codepoint, FontId, Op, ParsedFont, PdfDocument, PdfFont, PdfFontHandle, PdfPage, PdfSaveOptions, Pt, TextItem,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

/// The subsets one document embeds.
pub struct Embedded {
    pub fonts: BTreeMap<Face, Arc<Subset>>,
}

impl Embedded {
    /// The code (the subset's glyph id) that shows `face`'s glyph `gid`; 0, the missing glyph,
    /// for a face that failed to subset.
    pub fn code(&self, face: Face, gid: u16) -> u16 {
        self.fonts
            .get(&face)
            .and_then(|s| s.remap.get(&gid))
            .copied()
            .unwrap_or(0)
    }
}

/// A face subset to some glyphs: each original glyph id's new id, and the font's PDF objects.
pub struct Subset {
    remap: HashMap<u16, u16>,
    /// The Type0 font dictionary (what a page's resources name).
    font: lopdf::Object,
    /// The objects it refers to, by the ids its references use: the descendant font's
    /// descriptor, the font program and the ToUnicode map, their streams deflated.
    pub objects: Vec<(lopdf::ObjectId, lopdf::Object)>,
    /// The font dictionary and its objects as PDF syntax, by the number the dictionary takes
    /// in a file (`written`).
    written: Mutex<Vec<(u32, Arc<[Written]>)>>,
}

impl Subset {
    /// The font dictionary and the objects it refers to as PDF syntax, numbered from `font_id`
    /// in that order. Written once for each number the subset takes in a file (a handful: it
    /// follows the document's other subsets), not for each label.
    pub fn written(&self, font_id: u32) -> Arc<[Written]> {
        let mut kept = self.written.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, objects)) = kept.iter().find(|(id, _)| *id == font_id) {
            return objects.clone();
        }
        let ids: Vec<(lopdf::ObjectId, u32)> = self
            .objects
            .iter()
            .enumerate()
            .map(|(i, (id, _))| (*id, font_id + 1 + i as u32))
            .collect();
        let id_of = |id: lopdf::ObjectId| ids.iter().find(|(old, _)| *old == id).map_or(0, |(_, new)| *new);
        // An object that refers to none (the font program, the ToUnicode map: most of the
        // bytes) is the same whatever the numbering: shared with the numbering kept first.
        let first = kept.first().map(|(_, objects)| objects.clone());
        let objects: Arc<[Written]> = std::iter::once(&self.font)
            .chain(self.objects.iter().map(|(_, o)| o))
            .enumerate()
            .map(|(i, o)| {
                let mut refers = Vec::new();
                references(o, &mut refers);
                match &first {
                    Some(first) if refers.is_empty() => first[i].clone(),
                    _ => Written::of(o, &id_of),
                }
            })
            .collect();
        // Bounded: a subset follows only so many combinations of others.
        if kept.len() >= 8 {
            kept.clear();
        }
        kept.push((font_id, objects.clone()));
        objects
    }
}

/// Subsets each shipped face the pages use to the glyphs they show. printpdf alone would embed
/// whole fonts: 1.6 MB for one Chinese name.
pub fn embed(pages: &[Page]) -> Embedded {
    // Per face: the glyphs shown, and the text of those whose text is not the character the
    // font maps to them (shaped forms, ligatures), for the ToUnicode map.
    let mut used: BTreeMap<Face, (BTreeSet<u16>, BTreeMap<u16, String>)> = BTreeMap::new();
    for page in pages {
        let mut face = None;
        for op in &page.ops {
            match op {
                Op::SetFont {
                    font: PdfFontHandle::External(id),
                    ..
                } => face = Face::from_resource_name(&id.0),
                Op::SetFont { .. } => face = None,
                Op::ShowText { items } => {
                    let Some(face) = face else { continue };
                    let (gids, texts) = used.entry(face).or_default();
                    for item in items {
                        match item {
                            TextItem::GlyphIds(glyphs) => {
                                for g in glyphs {
                                    gids.insert(g.gid);
                                    let text = g.cid.as_deref().unwrap_or("\u{FFFD}");
                                    let mut chars = text.chars();
                                    let own = character_of(face, g.gid);
                                    if (chars.next(), chars.next()) != (own, None) || own.is_none() {
                                        texts.insert(g.gid, text.to_string());
                                    }
                                }
                            }
                            // Plain text runs (Latin-1): the font's own glyph for each character.
                            TextItem::Text(text) => gids.extend(text.chars().map(|c| crate::fonts::glyph_of(face, c))),
                            TextItem::Offset(_) => {}
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let mut fonts = BTreeMap::new();
    for (face, (mut gids, texts)) in used {
        // Noto Sans always carries printable ASCII, and the whole of each further block a
        // document uses (Latin-1, Latin Extended-A and B, Greek, Cyrillic): the documents of a
        // desk then use a handful of subsets, which the store keeps once (issue 42), whatever
        // the accents of the names on them.
        if matches!(face, Face::NotoSans | Face::NotoSansBold) {
            gids.extend(crate::fonts::ascii_glyphs(face));
            let blocks: BTreeSet<usize> = gids
                .iter()
                .filter_map(|g| character_of(face, *g))
                .filter_map(|c| WHOLE_BLOCKS.iter().position(|b| b.contains(&c)))
                .collect();
            for b in blocks {
                gids.extend(
                    WHOLE_BLOCKS[b]
                        .clone()
                        .filter(|c| face.has(*c))
                        .map(|c| crate::fonts::glyph_of(face, c)),
                );
            }
        }
        // A font that fails to subset is not embedded: its glyphs show as missing.
        if let Some(subset) = subset_of(face, gids, texts) {
            fonts.insert(face, subset);
        }
    }
    Embedded { fonts }
}

/// The Unicode blocks a Noto Sans subset takes whole once a document uses one of their letters.
const WHOLE_BLOCKS: [std::ops::RangeInclusive<char>; 5] = [
    '\u{a0}'..='\u{ff}',
    '\u{100}'..='\u{17f}',
    '\u{180}'..='\u{24f}',
    '\u{370}'..='\u{3ff}',
    '\u{400}'..='\u{4ff}',
];

type Key = (Face, BTreeSet<u16>, BTreeMap<u16, String>);

/// The subset of `face` to `gids` from a small per-process cache (documents are pure: the same
/// glyphs and texts always give the same subset).
fn subset_of(face: Face, gids: BTreeSet<u16>, texts: BTreeMap<u16, String>) -> Option<Arc<Subset>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, Arc<Subset>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (face, gids, texts);
    if let Some(hit) = cache.lock().ok()?.get(&key) {
        return Some(hit.clone());
    }
    let subset = Arc::new(make_subset(&key)?);
    let mut cache = cache.lock().ok()?;
    // Bounded: names vary, and a desk's documents mostly share the ASCII subsets.
    if cache.len() >= 256 {
        cache.clear();
    }
    cache.insert(key, subset.clone());
    Some(subset)
}

/// Subsets the font with allsorts, then has printpdf write its PDF objects (font dictionaries
/// with the metrics scaled, widths, ToUnicode map, font program) from a page showing every
/// glyph of the subset once, and keeps them.
fn make_subset((face, gids, texts): &Key) -> Option<Subset> {
    let (bytes, remap) = crate::fonts::subset(*face, gids)?;
    let mut warnings = Vec::new();
    let mut parsed = ParsedFont::from_bytes(&bytes, 0, &mut warnings)?;
    // A subset's name carries a tag of six capitals (PDF 32000 9.6.4), here from its glyphs, so
    // the same text gives the same file.
    let digest = <sha2::Sha256 as sha2::Digest>::digest(format!("{face:?}{gids:?}{texts:?}").as_bytes());
    let tag: String = digest[..6].iter().map(|b| (b'A' + b % 26) as char).collect();
    parsed.font_name = Some(format!("{tag}+{}", face.resource_name()));

    let mut by_new: Vec<(u16, u16)> = remap.iter().map(|(old, new)| (*new, *old)).collect();
    by_new.sort_unstable();
    let every_glyph = by_new
        .iter()
        .map(|&(new, old)| {
            let text = match texts.get(&old) {
                Some(t) => t.clone(),
                None => character_of(*face, old).map_or_else(|| "\u{FFFD}".to_string(), String::from),
            };
            Codepoint::with_cid(new, 0.0, text)
        })
        .collect();
    let id = FontId(face.resource_name().to_string());
    let mut doc = PdfDocument::new("font");
    doc.resources.fonts.map.insert(id.clone(), PdfFont::new(parsed));
    doc.pages = vec![PdfPage::new(
        printpdf::Mm(10.0),
        printpdf::Mm(10.0),
        vec![
            Op::StartTextSection,
            Op::SetFont {
                font: PdfFontHandle::External(id),
                size: Pt(10.0),
            },
            Op::ShowText {
                items: vec![TextItem::GlyphIds(every_glyph)],
            },
            Op::EndTextSection,
        ],
    )];
    let opts = PdfSaveOptions {
        optimize: false,
        subset_fonts: false,
        secure: true,
        image_optimization: None,
    };
    let lo = doc.to_lopdf_document(&opts, &mut Vec::new());
    let (root_id, font) = lo.objects.iter().find_map(|(id, o)| match o {
        lopdf::Object::Dictionary(d) if d.get(b"Subtype").and_then(|s| s.as_name()).ok() == Some(b"Type0") => {
            Some((*id, o.clone()))
        }
        _ => None,
    })?;
    // Every object the font refers to, directly or through another.
    let mut objects = Vec::new();
    let mut seen = BTreeSet::from([root_id]);
    let mut todo = Vec::new();
    references(&font, &mut todo);
    while let Some(id) = todo.pop() {
        if !seen.insert(id) {
            continue;
        }
        let mut object = lo.objects.get(&id)?.clone();
        references(&object, &mut todo);
        if let lopdf::Object::Stream(stream) = &mut object {
            // Made once, embedded by many documents: worth deflating at the best level.
            if stream.dict.get(b"Filter").is_err() {
                let deflated = super::file::deflate(&stream.content, flate2::Compression::best());
                if deflated.len() < stream.content.len() {
                    stream.dict.set("Filter", "FlateDecode");
                    stream.set_content(deflated);
                }
            }
        }
        objects.push((id, object));
    }
    objects.sort_by_key(|(id, _)| *id);
    Some(Subset {
        remap,
        font,
        objects,
        written: Mutex::default(),
    })
}

/// The objects `object` refers to.
fn references(object: &lopdf::Object, into: &mut Vec<lopdf::ObjectId>) {
    match object {
        lopdf::Object::Reference(id) => into.push(*id),
        lopdf::Object::Array(items) => items.iter().for_each(|o| references(o, into)),
        lopdf::Object::Dictionary(d) => d.iter().for_each(|(_, o)| references(o, into)),
        lopdf::Object::Stream(s) => s.dict.iter().for_each(|(_, o)| references(o, into)),
        _ => {}
    }
}

/// The character `face` maps to glyph `gid` (the lowest when several do).
fn character_of(face: Face, gid: u16) -> Option<char> {
    // By glyph id, a slot each (a label asks for each glyph it shows and each of its subset's).
    static BY_FACE: [OnceLock<Vec<Option<char>>>; Face::ALL.len()] = [const { OnceLock::new() }; Face::ALL.len()];
    let chars = BY_FACE[face as usize].get_or_init(|| {
        use ab_glyph::Font;
        let font = face.glyphs();
        let mut chars = vec![None; font.glyph_count()];
        for (glyph, c) in font.codepoint_ids() {
            if let Some(best) = chars.get_mut(glyph.0 as usize) {
                *best = Some(best.map_or(c, |b: char| b.min(c)));
            }
        }
        chars
    });
    chars.get(gid as usize).copied().flatten()
}
