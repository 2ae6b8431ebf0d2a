//! A label's JSON (its request and its record) as the database keeps it. In a desk's SQLite file
//! it is deflated (issue 42): the two texts were 2.1 KB of a label's 2.3 KB row, so one row
//! filled a 4 KB page alone (two did not fit); deflated against a dictionary of their usual keys
//! they are a few hundred bytes and many rows share a page. PostgreSQL keeps the text (its TOAST
//! compresses rows over 2 KB itself).
//!
//! The choice is made by the drivers' traits, so every statement stays one for both databases:
//! SQLite's `ToSql` writes a BLOB (a format byte, then raw deflate), PostgreSQL's the text; a read
//! takes a TEXT as it is (rows written before, or too short to gain) and inflates a BLOB. SQL
//! cannot look into a deflated value: a statement that needs a field of it reads the row
//! (`labels::add_file`), and a migration that reads these columns on SQLite must inflate them.

use std::fmt;

/// JSON text, deflated in SQLite.
#[derive(Clone, Default)]
pub struct StoredJson {
    text: String,
    /// SQLite's form, made before the write (`Db::json`, where the caller can: a label made at
    /// once) so the writer, which every label of the desk waits for in turn, does not spend the
    /// 15 µs on it; else made when bound.
    deflated_ahead: Option<Vec<u8>>,
}

/// The first byte of a deflated value: its format. 1: raw deflate of the UTF-8 text, with
/// `DICTIONARY` preset.
const DEFLATED: u8 = 1;

/// A label's request and record as they usually look, which deflate refers back to: the keys and
/// common words of a label's JSON are most of its bytes, and a text of 2 KB alone has nothing
/// earlier to point to. Values of format 1 need these very bytes to inflate: never change it;
/// a better one is a new format byte (the test `the_dictionary_of_format_1_never_changes` holds
/// it by its SHA-256).
const DICTIONARY: &str = concat!(
    r#"{"service_type":"dpd_uk_next_day","shipper_account":{"id":"","slug":"royal_mail","description":""},"#,
    r#""shipment":{"ship_from":{"contact_name":"","company_name":null,"email":null,"phone":null,"fax":null,"#,
    r#""street1":"","street2":null,"street3":null,"city":"","state":null,"postal_code":"","country":"GBR","#,
    r#""type":"business","tax_id":null,"eori_number":null},"ship_to":{"contact_name":"","company_name":null,"#,
    r#""email":null,"phone":null,"fax":null,"street1":"","street2":null,"street3":null,"city":"","state":null,"#,
    r#""postal_code":"","country":"DEU","type":"residential","tax_id":null,"eori_number":null},"#,
    r#""parcels":[{"description":null,"box_type":"custom","weight":{"value":1,"unit":"kg"},"#,
    r#""dimension":{"width":20,"height":10,"depth":30,"unit":"cm"},"items":[{"description":"","quantity":1,"#,
    r#""price":{"amount":0,"currency":"EUR"},"weight":{"value":0.5,"unit":"kg"},"sku":"","hs_code":null,"#,
    r#""origin_country":"GBR"}]}],"delivery_instructions":null},"async":false,"return_shipment":false,"#,
    r#""paper_size":"4x6","file_type":"pdf","ship_date":null,"service_options":null,"is_document":false,"#,
    r#""references":[],"billing":null,"customs":null,"order_number":null,"order_id":null}"#,
    r#"{"id":"","status":"created","ship_date":"2026-","tracking_numbers":[""],"files":{"label":{"#,
    r#""paper_size":"4x6","url":"/v3/files/","file_type":"pdf"},"qr_code":null,"invoice":null,"#,
    r#""customs_declaration":null,"packing_slip":null,"manifest":null},"rate":{"shipper_account":{"id":"","#,
    r#""slug":"yodel","description":""},"service_type":"","service_name":"","pickup_deadline":null,"#,
    r#""booking_cut_off":null,"delivery_date":"2026-","transit_time":1,"error_message":null,"#,
    r#""info_message":null,"charge_weight":{"value":1,"unit":"kg"},"total_charge":{"amount":0,"currency":"GBP"},"#,
    r#""detailed_charges":[{"type":"base","charge":{"amount":0,"currency":"GBP"}},{"type":"fuel_surcharge","#,
    r#""charge":{"amount":0,"currency":"GBP"}}]},"references":[],"shipper_account":{"id":"","slug":""},"#,
    r#""service_type":"","service_options":[],"order_number":null,"order_id":null,"created_at":"2026-","#,
    r#""updated_at":"2026-"}"#,
);

/// Shorter texts are kept as text: deflate's own overhead would eat the gain.
const SHORTEST_DEFLATED: usize = 128;

/// The most a value inflates to: a label's JSON is a few KB; more is a damaged value.
const LARGEST_INFLATED: usize = 16 << 20;

impl StoredJson {
    /// `text`, deflated now for a write to SQLite (`Db::json`).
    pub fn deflated_ahead(text: String) -> StoredJson {
        let deflated_ahead = deflated(&text);
        StoredJson { text, deflated_ahead }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn into_string(self) -> String {
        self.text
    }

    /// A value SQLite kept as a BLOB (`deflated`), or why it is not one.
    pub fn inflate(blob: &[u8]) -> Result<StoredJson, String> {
        let Some((&DEFLATED, deflated)) = blob.split_first() else {
            return Err(format!("a stored JSON value of unknown format {:?}", blob.first()));
        };
        let damaged = |why: &dyn fmt::Display| format!("a stored JSON value does not inflate: {why}");
        let mut inflater = flate2::Decompress::new(false);
        inflater
            .set_dictionary(DICTIONARY.as_bytes())
            .map_err(|e| damaged(&e))?;
        let mut text = Vec::with_capacity((deflated.len() * 4 + 64).min(LARGEST_INFLATED));
        loop {
            let read = inflater.total_in() as usize;
            let status = inflater
                .decompress_vec(
                    &deflated[read.min(deflated.len())..],
                    &mut text,
                    flate2::FlushDecompress::Finish,
                )
                .map_err(|e| damaged(&e))?;
            match status {
                flate2::Status::StreamEnd => break,
                _ if text.len() >= LARGEST_INFLATED => return Err(damaged(&"longer than any label's JSON")),
                // Room was short: more (up to the most), and on.
                flate2::Status::Ok | flate2::Status::BufError if text.len() == text.capacity() => {
                    text.reserve_exact(text.capacity().min(LARGEST_INFLATED - text.len()))
                }
                _ => return Err(damaged(&"it ends early")),
            }
        }
        String::from_utf8(text)
            .map(StoredJson::from)
            .map_err(|_| "a stored JSON value is not UTF-8".to_string())
    }
}

/// The value SQLite keeps for `text`: None keeps the text.
fn deflated(text: &str) -> Option<Vec<u8>> {
    if text.len() < SHORTEST_DEFLATED {
        return None;
    }
    // Level 1: a label's 2.1 KB of request and record become about 500 bytes in 15 µs (this
    // 2-core machine; without the dictionary, 1,070 bytes in 40 µs). One compressor a thread,
    // reset for each value: a new one is a few hundred KB of tables, made and freed twice a
    // label, which glibc's arenas kept (docs/label-latency.md).
    thread_local! {
        static DEFLATER: std::cell::RefCell<flate2::Compress> =
            std::cell::RefCell::new(flate2::Compress::new(flate2::Compression::fast(), false));
    }
    DEFLATER.with_borrow_mut(|deflater| {
        deflater.reset();
        deflater.set_dictionary(DICTIONARY.as_bytes()).ok()?;
        let mut out = Vec::with_capacity(text.len() / 2 + 64);
        out.push(DEFLATED);
        loop {
            let read = deflater.total_in() as usize;
            let status = deflater
                .compress_vec(&text.as_bytes()[read..], &mut out, flate2::FlushCompress::Finish)
                .ok()?;
            match status {
                flate2::Status::StreamEnd => return Some(out),
                _ => out.reserve(out.capacity()),
            }
        }
    })
}

impl From<String> for StoredJson {
    fn from(text: String) -> Self {
        StoredJson {
            text,
            deflated_ahead: None,
        }
    }
}

impl From<&str> for StoredJson {
    fn from(text: &str) -> Self {
        StoredJson::from(text.to_string())
    }
}

impl std::ops::Deref for StoredJson {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

/// The same text is the same value, however it is (or will be) kept.
impl PartialEq for StoredJson {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for StoredJson {}

impl fmt::Debug for StoredJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.text, f)
    }
}

impl fmt::Display for StoredJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl rusqlite::ToSql for StoredJson {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, Value, ValueRef};
        Ok(match &self.deflated_ahead {
            Some(blob) => ToSqlOutput::Borrowed(ValueRef::Blob(blob)),
            None => match deflated(&self.text) {
                Some(blob) => ToSqlOutput::Owned(Value::Blob(blob)),
                None => ToSqlOutput::from(self.text.as_str()),
            },
        })
    }
}

impl rusqlite::types::FromSql for StoredJson {
    fn column_result(v: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        use rusqlite::types::{FromSqlError, ValueRef};
        match v {
            ValueRef::Blob(blob) => StoredJson::inflate(blob).map_err(|e| FromSqlError::Other(e.into())),
            other => other.as_str().map(StoredJson::from),
        }
    }
}

impl postgres::types::ToSql for StoredJson {
    fn to_sql(
        &self,
        ty: &postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        postgres::types::ToSql::to_sql(&self.text.as_str(), ty, out)
    }

    fn accepts(ty: &postgres::types::Type) -> bool {
        <&str as postgres::types::ToSql>::accepts(ty)
    }

    postgres::types::to_sql_checked!();
}

impl<'a> postgres::types::FromSql<'a> for StoredJson {
    fn from_sql(ty: &postgres::types::Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        <String as postgres::types::FromSql>::from_sql(ty, raw).map(StoredJson::from)
    }

    fn accepts(ty: &postgres::types::Type) -> bool {
        <String as postgres::types::FromSql>::accepts(ty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;

    fn label_record() -> String {
        let nulls: String = (0..40).map(|i| format!("\"field_{i}\":null,")).collect();
        format!("{{{nulls}\"tracking_numbers\":[\"9000000000005008\"],\"status\":\"created\"}}")
    }

    /// The compressor is reused: what it deflated before leaves no trace in the next value.
    #[test]
    fn the_same_text_deflates_to_the_same_bytes_whatever_came_before() {
        let first = deflated(&label_record()).unwrap();
        let other = format!("{{\"other\":\"{}\"}}", "x".repeat(5000));
        assert!(deflated(&other).is_some());
        assert_eq!(deflated(&label_record()).unwrap(), first);
        let from_another_thread = std::thread::spawn(|| deflated(&label_record()).unwrap())
            .join()
            .unwrap();
        assert_eq!(from_another_thread, first, "a new compressor gives the same bytes");
        assert_eq!(StoredJson::inflate(&first).unwrap().as_str(), label_record());
    }

    #[test]
    fn sqlite_keeps_a_long_text_deflated_and_gives_it_back_whole() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (v TEXT NOT NULL)").unwrap();
        let text = StoredJson::from(label_record());
        conn.execute("INSERT INTO t VALUES (?1)", [&text]).unwrap();
        let (kind, bytes): (String, i64) = conn
            .query_row("SELECT typeof(v), length(v) FROM t", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        assert_eq!(kind, "blob");
        assert!(
            (bytes as usize) < text.len() / 3,
            "{bytes} bytes kept of {}",
            text.len()
        );
        // Deflated before the write, the same bytes.
        conn.execute(
            "INSERT INTO t VALUES (?1)",
            [&StoredJson::deflated_ahead(label_record())],
        )
        .unwrap();
        let same: bool = conn
            .query_row("SELECT min(v) = max(v) AND count(*) = 2 FROM t", [], |r| r.get(0))
            .unwrap();
        assert!(same);
        let back: StoredJson = conn.query_row("SELECT v FROM t LIMIT 1", [], |r| r.get(0)).unwrap();
        assert_eq!(back.as_str(), label_record());
    }

    #[test]
    fn short_texts_and_rows_written_before_are_read_as_text() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (v TEXT NOT NULL)").unwrap();
        conn.execute("INSERT INTO t VALUES (?1)", [&StoredJson::from("{}")])
            .unwrap();
        // A row of an earlier version: the record as text.
        conn.execute("INSERT INTO t VALUES (?1)", [label_record()]).unwrap();
        let kinds: Vec<String> = conn
            .prepare("SELECT typeof(v) FROM t ORDER BY rowid")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(kinds, ["text", "text"]);
        let read: Vec<StoredJson> = conn
            .prepare("SELECT v FROM t ORDER BY rowid")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(read, [StoredJson::from("{}"), StoredJson::from(label_record())]);
    }

    /// Raw deflate names no dictionary: a changed `DICTIONARY` would inflate every kept label
    /// wrongly, and unnoticed. Its SHA-256 is held here.
    #[test]
    fn the_dictionary_of_format_1_never_changes() {
        use sha2::Digest;
        let sha = hex::encode(sha2::Sha256::digest(DICTIONARY.as_bytes()));
        assert_eq!(sha, SHA256_OF_FORMAT_1);
    }

    const SHA256_OF_FORMAT_1: &str = "17ebe4d0af7de75f48e2e25e4a5687a528885f705f7876c75d8ed7217ce72867";

    /// A value of format 1 written by this version: it must inflate as long as the format
    /// exists.
    #[test]
    fn format_1_stays_readable() {
        let kept = [
            1, 131, 58, 36, 39, 41, 71, 215, 16, 100, 33, 102, 94, 195, 150, 175, 188, 92, 12, 160, 192, 208, 192, 192,
            128, 236, 92, 150, 6, 182, 19, 35, 163, 213, 214, 2, 0,
        ];
        let text = r#"{"id":"lbl-1","status":"created","tracking_numbers":["JD000000001000"],"files":{"label":{"paper_size":"4x6","url":"/v3/files/f-1","file_type":"pdf"}}}"#;
        assert_eq!(StoredJson::inflate(&kept).unwrap().as_str(), text);
    }

    #[test]
    fn a_damaged_value_is_an_error_not_a_panic() {
        assert!(StoredJson::inflate(&[]).is_err());
        assert!(StoredJson::inflate(&[9, 1, 2]).unwrap_err().contains("unknown format"));
        assert!(StoredJson::inflate(&[DEFLATED, 0xff, 0xff, 0xff]).is_err());
        let conn = Connection::open_in_memory().unwrap();
        let read = conn.query_row("SELECT x'01ffffff'", [], |r| r.get::<_, StoredJson>(0));
        assert!(read.is_err());
    }
}
