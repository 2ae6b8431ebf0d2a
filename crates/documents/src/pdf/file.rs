//! A PDF file written object by object (PDF 32000-1, 7.5): header, numbered objects, the
//! cross-reference table and the trailer.

use lopdf::{Object, ObjectId, StringFormat};

/// A lopdf object as PDF syntax, ready to be a file's object (`File::written_object`).
#[derive(Clone)]
pub struct Written {
    bytes: std::sync::Arc<[u8]>,
    stream: bool,
}

impl Written {
    /// `object`, its references renumbered by `id_of`.
    pub fn of(object: &Object, id_of: &dyn Fn(ObjectId) -> u32) -> Written {
        let mut bytes = Vec::new();
        write_object(&mut bytes, object, id_of);
        Written {
            bytes: bytes.into(),
            stream: matches!(object, Object::Stream(_)),
        }
    }
}

pub struct File {
    out: Vec<u8>,
    /// The document ID's hash: of everything written but the streams of cached font objects
    /// (their dictionaries, hashed, name the subset they belong to).
    hash: sha2::Sha256,
    /// Where each object starts, by number (0 is the free list's head).
    offsets: Vec<usize>,
}

impl File {
    pub fn new() -> File {
        let mut out = Vec::with_capacity(32 * 1024);
        // The second line's bytes above 127 tell transfer programs that the file is binary.
        out.extend_from_slice(b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n");
        File {
            out,
            hash: Default::default(),
            offsets: vec![0],
        }
    }

    /// The number the next object will get.
    pub fn next_id(&self) -> u32 {
        self.offsets.len() as u32
    }

    /// Writes the next object: `body` (a dictionary, array, ...) as PDF syntax.
    pub fn object(&mut self, body: &[u8]) -> u32 {
        let id = self.begin();
        self.hashed(body);
        self.out.extend_from_slice(body);
        self.out.extend_from_slice(b"\nendobj\n");
        id
    }

    /// Writes the next object: a stream of `content` with `dict`'s entries (Length added).
    pub fn stream(&mut self, dict: &str, content: &[u8]) -> u32 {
        let id = self.begin();
        self.hashed(dict.as_bytes());
        self.hashed(content);
        self.out
            .extend_from_slice(format!("<<{dict}/Length {}>>\nstream\n", content.len()).as_bytes());
        self.out.extend_from_slice(content);
        self.out.extend_from_slice(b"\nendstream\nendobj\n");
        id
    }

    /// Writes the next object, written as PDF syntax before (`Written::of`).
    pub fn written_object(&mut self, object: &Written) -> u32 {
        let id = self.begin();
        if !object.stream {
            self.hashed(&object.bytes);
        }
        self.out.extend_from_slice(&object.bytes);
        self.out.extend_from_slice(b"\nendobj\n");
        id
    }

    fn hashed(&mut self, bytes: &[u8]) {
        sha2::Digest::update(&mut self.hash, bytes);
    }

    fn begin(&mut self) -> u32 {
        let id = self.next_id();
        self.offsets.push(self.out.len());
        self.out.extend_from_slice(format!("{id} 0 obj\n").as_bytes());
        id
    }

    /// The cross-reference table and the trailer. The document ID is a hash of the content: the
    /// same pages give the same file.
    pub fn finish(mut self, root: u32, info: u32) -> Vec<u8> {
        let digest = sha2::Digest::finalize(self.hash);
        let id = hex::encode_upper(&digest[..16]);
        let xref = self.out.len();
        let mut table = format!("xref\n0 {}\n0000000000 65535 f\r\n", self.offsets.len());
        for offset in &self.offsets[1..] {
            table.push_str(&format!("{offset:010} 00000 n\r\n"));
        }
        table.push_str(&format!(
            "trailer\n<</Size {}/Root {root} 0 R/Info {info} 0 R/ID[<{id}><{id}>]>>\nstartxref\n{xref}\n%%EOF\n",
            self.offsets.len()
        ));
        self.out.extend_from_slice(table.as_bytes());
        self.out
    }
}

/// `s` as a PDF text string: UTF-16BE with its byte order mark, in hex (any script).
pub fn text_string(s: &str) -> String {
    let mut out = String::from("<FEFF");
    for unit in s.encode_utf16() {
        out.push_str(&format!("{unit:04X}"));
    }
    out.push('>');
    out
}

pub fn deflate(bytes: &[u8], level: flate2::Compression) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::with_capacity(bytes.len() / 2), level);
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(bytes);
    encoder.finish().unwrap_or_default()
}

/// `deflate` at the fast level by a compressor kept per thread (setting one up, a few hundred KB
/// of tables, cost as much as deflating a label's page).
pub fn deflate_fast(bytes: &[u8]) -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress, Status};
    thread_local! {
        static COMPRESS: std::cell::RefCell<Compress> = std::cell::RefCell::new(Compress::new(Compression::fast(), true));
    }
    COMPRESS.with_borrow_mut(|c| {
        c.reset();
        let mut out = Vec::with_capacity(bytes.len() / 2 + 64);
        loop {
            let read = c.total_in() as usize;
            match c.compress_vec(&bytes[read..], &mut out, FlushCompress::Finish) {
                Ok(Status::StreamEnd) => return out,
                Ok(_) => out.reserve(out.capacity().max(1024)),
                // Not seen with in-memory buffers; the fresh compressor says what went wrong.
                Err(_) => return deflate(bytes, Compression::fast()),
            }
        }
    })
}

fn write_object(out: &mut Vec<u8>, object: &Object, id_of: &dyn Fn(ObjectId) -> u32) {
    match object {
        Object::Null => out.extend_from_slice(b"null"),
        Object::Boolean(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Object::Integer(i) => out.extend_from_slice(i.to_string().as_bytes()),
        Object::Real(r) => out.extend_from_slice(format!("{r}").as_bytes()),
        Object::Name(name) => write_name(out, name),
        Object::String(bytes, StringFormat::Hexadecimal) => {
            out.push(b'<');
            out.extend_from_slice(hex::encode_upper(bytes).as_bytes());
            out.push(b'>');
        }
        Object::String(bytes, StringFormat::Literal) => {
            out.push(b'(');
            for &b in bytes {
                if matches!(b, b'(' | b')' | b'\\') {
                    out.push(b'\\');
                }
                out.push(b);
            }
            out.push(b')');
        }
        Object::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b' ');
                }
                write_object(out, item, id_of);
            }
            out.push(b']');
        }
        Object::Dictionary(dict) => write_dictionary(out, dict, id_of),
        Object::Stream(stream) => {
            // The dictionary with the content's own length (whatever Length it carried).
            out.extend_from_slice(b"<<");
            write_entries(
                out,
                stream.dict.iter().filter(|(key, _)| key.as_slice() != b"Length"),
                id_of,
            );
            out.extend_from_slice(format!("/Length {}>>", stream.content.len()).as_bytes());
            out.extend_from_slice(b"\nstream\n");
            out.extend_from_slice(&stream.content);
            out.extend_from_slice(b"\nendstream");
        }
        Object::Reference(id) => out.extend_from_slice(format!("{} 0 R", id_of(*id)).as_bytes()),
    }
}

fn write_dictionary(out: &mut Vec<u8>, dict: &lopdf::Dictionary, id_of: &dyn Fn(ObjectId) -> u32) {
    out.extend_from_slice(b"<<");
    write_entries(out, dict.iter(), id_of);
    out.extend_from_slice(b">>");
}

fn write_entries<'a>(
    out: &mut Vec<u8>,
    entries: impl Iterator<Item = (&'a Vec<u8>, &'a Object)>,
    id_of: &dyn Fn(ObjectId) -> u32,
) {
    for (key, value) in entries {
        write_name(out, key);
        out.push(b' ');
        write_object(out, value, id_of);
    }
}

/// A name, its bytes outside `!`..`~` and its delimiters written as `#xx` (PDF 32000-1, 7.3.5).
fn write_name(out: &mut Vec<u8>, name: &[u8]) {
    out.push(b'/');
    for &b in name {
        if (b'!'..=b'~').contains(&b) && !b"#%()/<>[]{}".contains(&b) {
            out.push(b);
        } else {
            out.push(b'#');
            out.extend_from_slice(hex::encode_upper([b]).as_bytes());
        }
    }
}
