//! Parts many files share, kept once (issue 42). A label's PDF is about 19 KB, of which 16 KB are
//! the objects of its two font subsets, the same bytes in nearly every document of a desk (the
//! subsets cover whole glyph sets, see `packdesk_documents::pdf`). A file is stored as its own
//! bytes with those runs cut out, plus where each goes back (`files.parts`); each run is a row of
//! `file_parts`, keyed by its SHA-256, written once. Reading puts the bytes back where they were:
//! the file read is the file written, to the byte (a reprint is the first print).
//!
//! Which runs are cut is decided here from the PDF's own cross-reference table: the objects of
//! fonts (`/Type /Font`, `/Type /FontDescriptor`) and the objects they name (font programs,
//! ToUnicode maps), where they stand next to each other. What is cut never changes what is read
//! back, only how much is stored; a file that is not a PDF this desk writes is stored whole.

use sha2::Digest;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

/// A run shorter than this stays in its file: a row of its own would cost about as much.
const LEAST_PART: usize = 1024;

/// The SHA-256 of a part's bytes: its key.
pub type PartHash = [u8; 32];

/// A file as stored: its own bytes, and each part cut out of it (where it went, its hash, its
/// bytes to keep).
pub struct Split<'a> {
    pub own: Vec<u8>,
    pub parts: Vec<(usize, PartHash, &'a [u8])>,
}

impl Split<'_> {
    /// `files.parts`: each part as `<offset> <hash in hex>`, one after another; none: stored whole.
    pub fn column(&self) -> Option<String> {
        if self.parts.is_empty() {
            return None;
        }
        let each: Vec<String> = self
            .parts
            .iter()
            .map(|(at, hash, _)| format!("{at} {}", hex::encode(hash)))
            .collect();
        Some(each.join(" "))
    }
}

/// `bytes` with its shared runs cut out.
pub fn split(bytes: &[u8]) -> Split<'_> {
    let runs = shared_runs(bytes);
    let mut own = Vec::with_capacity(bytes.len() - runs.iter().map(|r| r.len()).sum::<usize>());
    let mut parts = Vec::with_capacity(runs.len());
    let mut from = 0;
    for run in runs {
        own.extend_from_slice(&bytes[from..run.start]);
        let part = &bytes[run.clone()];
        parts.push((run.start, HASHES.get_or(part, |p| sha2::Sha256::digest(p).into()), part));
        from = run.end;
    }
    own.extend_from_slice(&bytes[from..]);
    Split { own, parts }
}

/// Where each part of `column` goes back into `own`, in order: (offset in the whole file, hash).
pub fn places(column: &str) -> Result<Vec<(usize, PartHash)>, String> {
    let words: Vec<&str> = column.split_ascii_whitespace().collect();
    words
        .chunks(2)
        .map(|pair| match pair {
            [at, hash] => Ok((
                at.parse().map_err(|_| format!("`{at}` is not an offset"))?,
                unhex(hash).ok_or_else(|| format!("`{hash}` is not a part's hash"))?,
            )),
            _ => Err(format!("`{column}` names a part without its hash")),
        })
        .collect()
}

/// The whole file: `own` with each part put back at its offset.
pub fn join(own: &[u8], parts: &[(usize, Arc<[u8]>)]) -> Result<Vec<u8>, String> {
    let total = own.len() + parts.iter().map(|(_, p)| p.len()).sum::<usize>();
    let mut whole = Vec::with_capacity(total);
    let mut taken = 0;
    for (at, part) in parts {
        let own_up_to = at
            .checked_sub(whole.len())
            .and_then(|n| n.checked_add(taken))
            .filter(|n| *n <= own.len())
            .ok_or_else(|| format!("a part at {at} lies outside the file"))?;
        whole.extend_from_slice(&own[taken..own_up_to]);
        whole.extend_from_slice(part);
        taken = own_up_to;
    }
    whole.extend_from_slice(&own[taken..]);
    Ok(whole)
}

/// Parts read before, by hash: a part never changes (its key is its content), so every store of
/// the process may share them. A desk has a handful (a font subset set per script in use).
pub fn remembered(hash: &PartHash) -> Option<Arc<[u8]>> {
    cache().lock().ok()?.get(hash).cloned()
}

/// Whether `bytes` are the part `hash` names.
pub fn holds(hash: &PartHash, bytes: &[u8]) -> bool {
    sha2::Sha256::digest(bytes).as_slice() == hash
}

/// Forgets the parts read: the next read of each comes from the database (tests; a restore).
pub fn forget_remembered() {
    if let Ok(mut c) = cache().lock() {
        c.clear();
    }
}

pub fn remember(hash: PartHash, bytes: Arc<[u8]>) {
    if let Ok(mut c) = cache().lock() {
        // Bounded: documents in many scripts make more subsets than a desk needs at once.
        if c.len() >= 256 {
            c.clear();
        }
        c.insert(hash, bytes);
    }
}

/// The parts one shared database is known to keep (written by a statement that committed, or
/// found there): a label written in one statement sends only their hashes, not their 16 KB again
/// (`labels::write_made`). Parts are never deleted; should one be missing all the same (a
/// database restored under running desks), that statement fails whole, this is forgotten, and
/// the label is sent again with every part's bytes.
#[derive(Default)]
pub struct Kept(Mutex<std::collections::HashSet<PartHash>>);

impl Kept {
    pub fn holds(&self, hash: &PartHash) -> bool {
        self.0.lock().is_ok_and(|k| k.contains(hash))
    }

    pub fn add(&self, hashes: impl IntoIterator<Item = PartHash>) {
        if let Ok(mut k) = self.0.lock() {
            // Bounded as the parts read are (`remember`).
            if k.len() >= 256 {
                k.clear();
            }
            k.extend(hashes);
        }
    }

    pub fn forget(&self) {
        if let Ok(mut k) = self.0.lock() {
            k.clear();
        }
    }
}

/// Whether `e` is a part sent without its bytes and not in the database (its null refused).
pub(crate) fn is_missing(e: &crate::StoreError) -> bool {
    matches!(e, crate::StoreError::Postgres(e) if crate::pg::null_refused(e, "file_parts", None))
}

fn cache() -> &'static Mutex<HashMap<PartHash, Arc<[u8]>>> {
    static PARTS: OnceLock<Mutex<HashMap<PartHash, Arc<[u8]>>>> = OnceLock::new();
    PARTS.get_or_init(Default::default)
}

/// What was worked out from bytes, kept by those bytes: a desk's documents carry the same font
/// objects, byte for byte, so each label compares them (by length, then `memcmp`) instead of
/// reading a font's dictionary or hashing its 16 KB again. Bounded as `remember` is: a desk
/// with several scripts and document kinds has a few dozen (a subset's objects are numbered
/// differently in each kind).
struct ByBytes<T>(Mutex<Vec<(Box<[u8]>, T)>>);

/// A font object's dictionary: the objects it refers to.
static REFERENCES: ByBytes<Vec<u32>> = ByBytes::new();
/// A part's bytes: its hash.
static HASHES: ByBytes<PartHash> = ByBytes::new();

impl<T: Clone> ByBytes<T> {
    const fn new() -> Self {
        ByBytes(Mutex::new(Vec::new()))
    }

    fn get_or(&self, bytes: &[u8], work_out: impl FnOnce(&[u8]) -> T) -> T {
        let known = self
            .0
            .lock()
            .ok()
            .and_then(|l| l.iter().find(|(b, _)| **b == *bytes).map(|(_, t)| t.clone()));
        if let Some(t) = known {
            return t;
        }
        let t = work_out(bytes);
        if let Ok(mut l) = self.0.lock() {
            if l.len() >= 256 {
                l.clear();
            }
            l.push((bytes.into(), t.clone()));
        }
        t
    }
}

/// The runs of `pdf` worth keeping once: adjacent font objects, at least `LEAST_PART` long.
fn shared_runs(pdf: &[u8]) -> Vec<Range<usize>> {
    let Some(objects) = objects(pdf) else {
        return Vec::new();
    };
    // Fonts and their descriptors, and what they name (font programs, ToUnicode maps).
    let mut shared = vec![false; objects.len()];
    for (i, o) in objects.iter().enumerate() {
        let body = &pdf[o.span.clone()];
        if contains(head(body), b"/Type /Font") {
            shared[i] = true;
            for n in REFERENCES.get_or(dictionary(body), references) {
                if let Some(j) = objects.iter().position(|x| x.number == n) {
                    shared[j] = true;
                }
            }
        }
    }
    let mut runs: Vec<Range<usize>> = Vec::new();
    for (o, _) in objects.iter().zip(&shared).filter(|(_, s)| **s) {
        match runs.last_mut() {
            Some(r) if r.end == o.span.start => r.end = o.span.end,
            _ => runs.push(o.span.clone()),
        }
    }
    runs.retain(|r| r.len() >= LEAST_PART);
    runs
}

/// One object of a PDF: its number and its bytes (`N 0 obj` up to the next object).
struct Object {
    number: u32,
    span: Range<usize>,
}

/// The objects of `pdf` by its cross-reference table, in file order; none: not a PDF whose
/// table this reads (one section from 0, one object after the other).
fn objects(pdf: &[u8]) -> Option<Vec<Object>> {
    if !pdf.starts_with(b"%PDF-") {
        return None;
    }
    let tail = &pdf[pdf.len().saturating_sub(64)..];
    let at = find(tail, b"startxref\n")? + b"startxref\n".len();
    let xref: usize = std::str::from_utf8(&tail[at..])
        .ok()?
        .lines()
        .next()?
        .trim()
        .parse()
        .ok()?;
    let table = std::str::from_utf8(pdf.get(xref..)?).ok()?;
    let mut lines = table.lines();
    (lines.next()? == "xref").then_some(())?;
    let count: usize = lines.next()?.strip_prefix("0 ")?.parse().ok()?;
    let mut starts: Vec<(usize, u32)> = Vec::with_capacity(count);
    for number in 0..count {
        let entry = lines.next()?;
        if number > 0 && entry.ends_with(" n") {
            starts.push((entry.get(..10)?.parse().ok()?, number as u32));
        }
    }
    starts.sort_unstable();
    let ends = starts.iter().skip(1).map(|(at, _)| *at).chain([xref]);
    let objects: Vec<Object> = starts
        .iter()
        .zip(ends)
        .map(|((start, number), end)| Object {
            number: *number,
            span: *start..end,
        })
        .collect();
    // Each must begin as its entry says, or the table is not this file's.
    objects
        .iter()
        .all(|o| o.span.start < o.span.end && pdf[o.span.clone()].starts_with(format!("{} 0 obj", o.number).as_bytes()))
        .then_some(objects)
}

/// An object's first bytes: where its type is named.
fn head(body: &[u8]) -> &[u8] {
    &body[..body.len().min(160)]
}

/// An object's dictionary (its bytes before a stream's data).
fn dictionary(body: &[u8]) -> &[u8] {
    match find(body, b"stream\n") {
        Some(at) => &body[..at],
        None => body,
    }
}

/// The objects `bytes` refers to (`N 0 R`). Read word by word in place: a font's dictionary
/// holds its widths, hundreds of numbers, and this runs for every label.
fn references(bytes: &[u8]) -> Vec<u32> {
    let words = bytes
        .split(|b| b.is_ascii_whitespace() || b"/[]<>()".contains(b))
        .filter(|w| !w.is_empty());
    let (mut before, mut last): (&[u8], &[u8]) = (b"", b"");
    let mut found = Vec::new();
    for word in words {
        if last == b"0" && word == b"R" {
            if let Some(n) = std::str::from_utf8(before).ok().and_then(|n| n.parse().ok()) {
                found.push(n);
            }
        }
        (before, last) = (last, word);
    }
    found
}

fn contains(bytes: &[u8], what: &[u8]) -> bool {
    find(bytes, what).is_some()
}

fn find(bytes: &[u8], what: &[u8]) -> Option<usize> {
    bytes.windows(what.len()).position(|w| w == what)
}

fn unhex(text: &str) -> Option<PartHash> {
    let mut hash = [0u8; 32];
    hex::decode_to_slice(text, &mut hash).ok()?;
    Some(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small PDF as this desk's writer lays one out: a font, its descriptor, its program and
    /// ToUnicode map, then the page's own objects; the table gives each object's offset.
    fn pdf(program: &[u8], page_text: &str) -> Vec<u8> {
        let bodies: Vec<Vec<u8>> = vec![
            b"<</Type/Catalog/Pages 2 0 R>>".to_vec(),
            b"<</Type/Pages/Count 1/Kids[7 0 R]>>".to_vec(),
            b"<</Type /Font/Subtype /Type0/ToUnicode 5 0 R/DescendantFonts[<</FontDescriptor 6 0 R>>]>>".to_vec(),
            [
                b"<</Length1 9/Length 2000>>\nstream\n".as_slice(),
                program,
                b"\nendstream",
            ]
            .concat(),
            [b"<</Length 700>>\nstream\n".as_slice(), &[b'u'; 700], b"\nendstream"].concat(),
            b"<</Type /FontDescriptor/FontName /AAAAAA+NotoSans/FontFile2 4 0 R>>".to_vec(),
            b"<</Type/Page/Contents 8 0 R>>".to_vec(),
            format!("<</Length {}>>\nstream\n{page_text}\nendstream", page_text.len()).into_bytes(),
        ];
        let mut out = b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec();
        let mut offsets = Vec::new();
        for (i, body) in bodies.iter().enumerate() {
            offsets.push(out.len());
            out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
            out.extend_from_slice(body);
            out.extend_from_slice(b"\nendobj\n");
        }
        let xref = out.len();
        out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f\r\n", bodies.len() + 1).as_bytes());
        for o in offsets {
            out.extend_from_slice(format!("{o:010} 00000 n\r\n").as_bytes());
        }
        out.extend_from_slice(format!("trailer\n<</Size 9/Root 1 0 R>>\nstartxref\n{xref}\n%%EOF\n").as_bytes());
        out
    }

    fn whole(s: &Split<'_>) -> Vec<u8> {
        let parts: Vec<(usize, Arc<[u8]>)> = s.parts.iter().map(|(at, _, p)| (*at, Arc::from(*p))).collect();
        join(&s.own, &parts).unwrap()
    }

    #[test]
    fn references_are_read_between_names_brackets_and_numbers() {
        let dict = b"<</Type /Font/DescendantFonts[12 0 R]/W[1 0 5 0 R 7[500 600]]/ToUnicode 13 0 R/X(9 0 R)>>";
        // Inside a string too (`(9 0 R)`): a known over-match, harmless (it only widens what is
        // kept once; the file is put back to the byte either way).
        assert_eq!(references(dict), vec![12, 5, 13, 9]);
        assert_eq!(references(b"0 R 1 0 R"), vec![1]);
    }

    #[test]
    fn the_font_objects_are_cut_out_once_and_put_back_to_the_byte() {
        let program = [7u8; 2000];
        let (a, b) = (
            pdf(&program, "BT (Jane Doe) Tj ET"),
            pdf(&program, "BT (John Roe, Leeds) Tj ET"),
        );
        let (sa, sb) = (split(&a), split(&b));
        assert_eq!(sa.parts.len(), 1, "the font, its program, map and descriptor: one run");
        assert_eq!(sa.parts[0].1, sb.parts[0].1, "two documents share their font's run");
        assert!(holds(&sb.parts[0].1, sb.parts[0].2), "the hash kept is the part's own");
        assert!(sa.own.len() < 700, "{} bytes of its own", sa.own.len());
        assert_eq!(whole(&sa), a);
        assert_eq!(whole(&sb), b);
        let column = sa.column().unwrap();
        let back = places(&column).unwrap();
        assert_eq!(back, vec![(sa.parts[0].0, sa.parts[0].1)]);
    }

    #[test]
    fn what_was_worked_out_is_found_by_equal_bytes_only() {
        let memo: ByBytes<usize> = ByBytes::new();
        let mut worked = 0;
        let mut count = |b: &[u8]| {
            worked += 1;
            b.iter().filter(|c| **c == b'x').count()
        };
        assert_eq!(memo.get_or(b"xxa", &mut count), 2);
        assert_eq!(memo.get_or(b"xxa", &mut count), 2);
        // Same length, other bytes: worked out, not taken for the first.
        assert_eq!(memo.get_or(b"xaa", &mut count), 1);
        assert_eq!(worked, 2);
    }

    #[test]
    fn what_is_not_a_pdf_of_this_desk_is_kept_whole() {
        for bytes in [
            b"^XA^FO50,50^A0N,50,50^FDJane Doe^FS^XZ".to_vec(),
            b"%PDF-1.4\nno table here".to_vec(),
            Vec::new(),
        ] {
            let s = split(&bytes);
            assert!(s.parts.is_empty() && s.column().is_none());
            assert_eq!(s.own, bytes);
        }
        // A small font is not worth a row of its own.
        let small = pdf(&[1u8; 10], "BT ET");
        assert!(split(&small).parts.is_empty());
    }

    #[test]
    fn a_damaged_parts_column_is_an_error_not_a_wrong_file() {
        assert!(places("12").is_err());
        assert!(places("x 00").is_err());
        assert!(join(b"abc", &[(10, Arc::from(&b"zz"[..]))]).is_err());
    }
}
