//! Labels. `record` holds the label record as JSON; `status` and `updated_at` are columns (they
//! change) and are written into the record when it is read.

use crate::paging::Cursor;
use packdesk_model::status::LabelStatus;
use rusqlite::{params, params_from_iter, types::Value, Connection, OptionalExtension, Row};

#[derive(Debug, Clone)]
pub struct LabelRow {
    pub id: String,
    pub env: String,
    pub shipper_account_id: String,
    pub status: LabelStatus,
    pub order_number: Option<String>,
    /// Tracking numbers and references, space separated, for the `s` search.
    pub search_text: String,
    pub manifest_id: Option<String>,
    /// The request as received (JSON), kept for async work and audits.
    pub request: String,
    /// The label record (JSON).
    pub record: String,
    /// The day the parcel is handed to the carrier (YYYY-MM-DD, the account's timezone): the
    /// close-out of that day takes it.
    pub ship_date: String,
    /// The service and the total weight of its parcels in kilograms, for End of day's counts.
    pub service_type: String,
    pub weight_kg: f64,
    pub created_at: i64,
    pub updated_at: i64,
}

const COLS: &str =
    "id, env, shipper_account_id, status, order_number, search_text, manifest_id, request, record, created_at, updated_at, ship_date, service_type, weight_kg";

fn from_row(r: &Row) -> rusqlite::Result<LabelRow> {
    Ok(LabelRow {
        id: r.get(0)?,
        env: r.get(1)?,
        shipper_account_id: r.get(2)?,
        status: r.get(3)?,
        order_number: r.get(4)?,
        search_text: r.get(5)?,
        manifest_id: r.get(6)?,
        request: r.get(7)?,
        record: r.get(8)?,
        created_at: r.get(9)?,
        updated_at: r.get(10)?,
        ship_date: r.get(11)?,
        service_type: r.get(12)?,
        weight_kg: r.get(13)?,
    })
}

#[derive(Debug)]
pub enum InsertError {
    /// Another live label of the account has this order_number.
    DuplicateOrderNumber,
    /// `write_made`: this serial's tracking number was issued before (a range that overlaps
    /// numbers issued elsewhere); nothing of the label was written.
    NumberTaken(u64),
    Db(crate::StoreError),
}

impl From<crate::StoreError> for InsertError {
    fn from(e: crate::StoreError) -> Self {
        InsertError::Db(e)
    }
}

/// A label as made: its row, the tracking numbers drawn for it (serial and printed form) and its
/// document files, written whole by `write_made`.
pub struct MadeLabel<'a> {
    pub row: &'a LabelRow,
    /// The carrier whose numbers these are (numbers are unique per environment and carrier).
    pub slug: &'a str,
    /// The range the serials came from.
    pub scope: &'a str,
    pub serials: &'a [u64],
    pub numbers: &'a [String],
    pub files: &'a [crate::files::FileRow],
    /// The row exists already (an async label accepted in status `creating`): it is completed
    /// with the row's status, record and search text instead of inserted.
    pub completes: bool,
}

/// Registers the label's numbers (each must be new), moves its range's counter past them, and
/// stores the label and its files, in the caller's transaction.
pub fn write_made(conn: &Connection, m: &MadeLabel) -> Result<(), InsertError> {
    let l = m.row;
    for (serial, number) in m.serials.iter().zip(m.numbers) {
        if !crate::tracking::register(conn, &l.env, m.slug, number, &l.id)? {
            return Err(InsertError::NumberTaken(*serial));
        }
    }
    if let Some(last) = m.serials.last() {
        crate::tracking::advance(conn, m.scope, last + 1)?;
    }
    match m.completes {
        true => complete(conn, &l.id, l.status, &l.record, &l.search_text, l.updated_at)?,
        false => insert(conn, l)?,
    }
    for f in m.files {
        crate::files::insert(&mut crate::db::Tx::Sqlite(conn), f)?;
    }
    Ok(())
}

pub fn insert(conn: &Connection, l: &LabelRow) -> Result<(), InsertError> {
    let res = conn
        .prepare_cached(&format!(
            "INSERT INTO labels ({COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"
        ))
        .and_then(|mut st| {
            st.execute(params![
                l.id,
                l.env,
                l.shipper_account_id,
                l.status,
                l.order_number,
                l.search_text,
                l.manifest_id,
                l.request,
                l.record,
                l.created_at,
                l.updated_at,
                l.ship_date,
                l.service_type,
                l.weight_kg
            ])
        });
    match res {
        Ok(_) => Ok(()),
        Err(e) if e.to_string().contains("labels.shipper_account_id, labels.order_number") => {
            Err(InsertError::DuplicateOrderNumber)
        }
        Err(e) => Err(InsertError::Db(e.into())),
    }
}

pub fn order_number_taken(conn: &Connection, account_id: &str, order_number: &str) -> crate::Result<bool> {
    Ok(conn.prepare_cached(
        "SELECT 1 FROM labels WHERE shipper_account_id = ?1 AND order_number = ?2 AND status NOT IN ('cancelled', 'failed')",
    )?
    .exists(params![account_id, order_number])?)
}

pub fn get(conn: &Connection, env: &str, id: &str) -> crate::Result<Option<LabelRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLS} FROM labels WHERE id = ?1 AND env = ?2"))?
        .query_row(params![id, env], from_row)
        .optional()?)
}

/// The labels of some tracking numbers (the list of numbers follows). `+env`: without statistics
/// SQLite would take the key's leading `env` for the selective term and read every number of the
/// environment (130 ms in a million); the number index finds each at once.
pub const BY_TRACKING_NUMBER: &str = "SELECT DISTINCT label_id FROM tracking_numbers WHERE +env = ? AND number IN ";

/// Filters of `GET /labels`.
#[derive(Debug, Clone, Default)]
pub struct LabelFilter {
    pub shipper_account_id: Option<String>,
    pub status: Option<LabelStatus>,
    pub created_at_min: i64,
    pub created_at_max: i64,
    pub tracking_numbers: Vec<String>,
    pub search: Option<String>,
}

/// Newest first, `limit + 1` rows so the caller knows whether there is a next page.
pub fn list(
    conn: &Connection,
    env: &str,
    f: &LabelFilter,
    limit: usize,
    after: Option<&Cursor>,
) -> crate::Result<Vec<LabelRow>> {
    // A search of 3+ characters starts from the word index's hits (CROSS JOIN keeps that order
    // of loops: otherwise SQLite walks the whole page index probing each row); the LIKE below
    // then keeps the rows that hold the whole text.
    let indexed = f.search.as_ref().filter(|s| s.trim().chars().count() >= 3);
    // Tracking numbers likewise start from the number index's hits (a scan finds its label at
    // once, where walking the page index for it read up to every label).
    let marks = vec!["?"; f.tracking_numbers.len()].join(", ");
    let by_number = indexed.is_none() && !f.tracking_numbers.is_empty();
    let mut sql = match indexed {
        None if by_number => format!(
            "SELECT {COLS} FROM ({BY_TRACKING_NUMBER}({marks})) AS hits \
             CROSS JOIN labels ON labels.id = hits.label_id WHERE env = ? AND created_at >= ? AND created_at <= ?"
        ),
        Some(_) => format!(
            "SELECT {COLS} FROM (SELECT label_id FROM label_words WHERE word >= ? AND word < ? \
             UNION SELECT label_id FROM label_words WHERE word >= ? AND word < ?) AS hits \
             CROSS JOIN labels ON labels.id = hits.label_id WHERE env = ? AND created_at >= ? AND created_at <= ?"
        ),
        None => format!("SELECT {COLS} FROM labels WHERE env = ? AND created_at >= ? AND created_at <= ?"),
    };
    let mut args: Vec<Value> = Vec::new();
    if by_number {
        args.push(env.to_string().into());
        args.extend(f.tracking_numbers.iter().map(|t| Value::from(t.clone())));
    }
    if let Some(s) = indexed {
        // The longest word of the search: words that start with it, or end with it.
        let longest = s
            .split_whitespace()
            .max_by_key(|w| w.chars().count())
            .unwrap_or_default()
            .to_lowercase();
        let reversed = format!("~{}", longest.chars().rev().collect::<String>());
        for start in [longest, reversed] {
            let end = format!("{start}\u{10FFFF}");
            args.push(start.into());
            args.push(end.into());
        }
    }
    args.extend([
        Value::from(env.to_string()),
        f.created_at_min.into(),
        f.created_at_max.into(),
    ]);
    if let Some(a) = &f.shipper_account_id {
        sql.push_str(" AND shipper_account_id = ?");
        args.push(a.clone().into());
    }
    if let Some(s) = &f.status {
        sql.push_str(" AND status = ?");
        args.push(Value::Text(s.as_str().into()));
    }
    if !f.tracking_numbers.is_empty() && !by_number {
        sql.push_str(&format!(" AND id IN ({BY_TRACKING_NUMBER}({marks}))"));
        args.push(env.to_string().into());
        args.extend(f.tracking_numbers.iter().map(|t| Value::from(t.clone())));
    }
    if let Some(s) = f.search.as_deref().map(str::trim) {
        // The whole text, anywhere (case-insensitive for ASCII); LIKE's wildcards taken literally.
        // Alone (under 3 characters) this scans the rows.
        let escaped = s.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
        sql.push_str(" AND search_text LIKE ? ESCAPE '\\'");
        args.push(format!("%{escaped}%").into());
    }
    if let Some(c) = after {
        sql.push_str(" AND (created_at, id) < (?, ?)");
        args.push(c.created_at.into());
        args.push(c.id.clone().into());
    }
    sql.push_str(" ORDER BY created_at DESC, id DESC LIMIT ?");
    args.push(((limit + 1) as i64).into());
    let mut st = conn.prepare_cached(&sql)?;
    let rows = st.query_map(params_from_iter(args), from_row)?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
}

/// Adds a document made after the label (its packing slip) to the record's `files`: `file` is the
/// file reference as JSON.
pub fn add_file(conn: &Connection, id: &str, kind: &str, file: &str) -> crate::Result<()> {
    conn.prepare_cached("UPDATE labels SET record = json_set(record, '$.files.' || ?2, json(?3)) WHERE id = ?1")?
        .execute(params![id, kind, file])?;
    Ok(())
}

pub fn set_status(conn: &Connection, id: &str, status: LabelStatus, updated_at: i64) -> crate::Result<()> {
    conn.prepare_cached("UPDATE labels SET status = ?2, updated_at = ?3 WHERE id = ?1")?
        .execute(params![id, status, updated_at])?;
    Ok(())
}

/// Labels of an account that a close-out of `day` takes: created, in no manifest, shipping on
/// `day` or earlier (YYYY-MM-DD), oldest first.
pub fn manifestable(conn: &Connection, account_id: &str, day: &str) -> crate::Result<Vec<LabelRow>> {
    let mut st = conn.prepare_cached(&format!(
        "SELECT {COLS} FROM labels WHERE shipper_account_id = ?1 AND status = 'created' AND manifest_id IS NULL
         AND ship_date <= ?2 ORDER BY created_at, id"
    ))?;
    let rows = st.query_map(params![account_id, day], from_row)?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
}

/// Moves labels into a manifest.
pub fn set_manifested(conn: &Connection, ids: &[String], manifest_id: &str, updated_at: i64) -> crate::Result<()> {
    let mut st = conn
        .prepare_cached("UPDATE labels SET status = 'manifested', manifest_id = ?2, updated_at = ?3 WHERE id = ?1")?;
    for id in ids {
        st.execute(params![id, manifest_id, updated_at])?;
    }
    Ok(())
}

/// Completes a label accepted in `creating`: its final status, record and search text.
pub fn complete(
    conn: &Connection,
    id: &str,
    status: LabelStatus,
    record: &str,
    search_text: &str,
    updated_at: i64,
) -> crate::Result<()> {
    // A label the word index has caught up with gets its new words now; a later one is indexed
    // with its final text when the index next catches up.
    let old: Option<(i64, String)> = conn
        .prepare_cached("SELECT rowid, search_text FROM labels WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    if let Some((rowid, old_text)) = old {
        if rowid <= words_indexed_up_to(conn)? && old_text != search_text {
            let mut st = conn.prepare_cached("DELETE FROM label_words WHERE word = ?1 AND label_id = ?2")?;
            for w in words(&old_text) {
                st.execute(params![w, id])?;
            }
            index_words(conn, id, search_text)?;
        }
    }
    conn.prepare_cached("UPDATE labels SET status = ?2, record = ?3, search_text = ?4, updated_at = ?5 WHERE id = ?1")?
        .execute(params![id, status, record, search_text, updated_at])?;
    Ok(())
}

/// Puts labels into a manifest being made (async close-out): no cancel or other close-out takes them.
pub fn set_manifesting(conn: &Connection, ids: &[String], manifest_id: &str, updated_at: i64) -> crate::Result<()> {
    let mut st = conn
        .prepare_cached("UPDATE labels SET status = 'manifesting', manifest_id = ?2, updated_at = ?3 WHERE id = ?1")?;
    for id in ids {
        st.execute(params![id, manifest_id, updated_at])?;
    }
    Ok(())
}

/// The labels of a manifest, oldest first.
pub fn of_manifest(conn: &Connection, manifest_id: &str) -> crate::Result<Vec<LabelRow>> {
    let mut st = conn.prepare_cached(&format!(
        "SELECT {COLS} FROM labels WHERE manifest_id = ?1 ORDER BY created_at, id"
    ))?;
    let rows = st.query_map([manifest_id], from_row)?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
}

/// Takes labels back out of a manifest that failed.
pub fn release_manifest(conn: &Connection, manifest_id: &str, updated_at: i64) -> crate::Result<()> {
    conn.prepare_cached("UPDATE labels SET status = 'created', manifest_id = NULL, updated_at = ?2 WHERE manifest_id = ?1 AND status = 'manifesting'")?
        .execute(params![manifest_id, updated_at])?;
    Ok(())
}

/// The words a search finds a label by: each word of its search text, lower case, and each word
/// reversed behind `~` (so a search by the end of a word is an index range too).
fn words(search_text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in search_text.split_whitespace() {
        let w = w.to_lowercase();
        out.push(format!("~{}", w.chars().rev().collect::<String>()));
        out.push(w);
    }
    out.sort();
    out.dedup();
    out
}

fn index_words(conn: &Connection, label_id: &str, search_text: &str) -> rusqlite::Result<()> {
    let mut st = conn.prepare_cached("INSERT OR IGNORE INTO label_words (word, label_id) VALUES (?1, ?2)")?;
    for w in words(search_text) {
        st.execute(params![w, label_id])?;
    }
    Ok(())
}

fn words_indexed_up_to(conn: &Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT value FROM meta WHERE key = 'label_words_up_to'")?
        .query_row([], |r| r.get::<_, String>(0))
        .optional()
        .map(|v| v.and_then(|v| v.parse().ok()).unwrap_or(0))
}

/// Moves the word index on: the words of up to `max` labels stored since it last caught up, so
/// making a label writes no index pages and label creation keeps its speed. Answers how many
/// labels it indexed (0: up to date).
pub fn catch_up_words(conn: &Connection, max: usize) -> crate::Result<usize> {
    let from = words_indexed_up_to(conn)?;
    let mut st =
        conn.prepare_cached("SELECT rowid, id, search_text FROM labels WHERE rowid > ?1 ORDER BY rowid LIMIT ?2")?;
    let limit = i64::try_from(max).unwrap_or(i64::MAX);
    let rows: Vec<(i64, String, String)> = st
        .query_map(params![from, limit], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let Some(last) = rows.last().map(|r| r.0) else {
        return Ok(0);
    };
    for (_, id, text) in &rows {
        index_words(conn, id, text)?;
    }
    conn.prepare_cached("INSERT INTO meta (key, value) VALUES ('label_words_up_to', ?1) ON CONFLICT (key) DO UPDATE SET value = excluded.value")?
        .execute([last.to_string()])?;
    Ok(rows.len())
}

/// Labels of an account waiting for a close-out, grouped by ship date and service.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiting {
    pub ship_date: String,
    pub service_type: String,
    pub labels: i64,
    pub weight_kg: f64,
    pub oldest_created_at: i64,
}

/// The labels of an account waiting for a close-out by ship date and service, earliest date
/// first (read from the close-out's index alone).
pub fn waiting(conn: &Connection, account_id: &str) -> crate::Result<Vec<Waiting>> {
    let mut st = conn.prepare_cached(
        "SELECT ship_date, service_type, COUNT(*), TOTAL(weight_kg), MIN(created_at) FROM labels
         WHERE shipper_account_id = ?1 AND status = 'created' AND manifest_id IS NULL
         GROUP BY ship_date, service_type ORDER BY ship_date, service_type",
    )?;
    let rows = st.query_map([account_id], |r| {
        Ok(Waiting {
            ship_date: r.get(0)?,
            service_type: r.get(1)?,
            labels: r.get(2)?,
            weight_kg: r.get(3)?,
            oldest_created_at: r.get(4)?,
        })
    })?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
}

/// Labels made since `since` (microseconds) by account and status: (account id, status, count).
pub fn counts_since(conn: &Connection, env: &str, since: i64) -> crate::Result<Vec<(String, LabelStatus, i64)>> {
    let mut st = conn.prepare_cached(
        "SELECT shipper_account_id, status, COUNT(*) FROM labels WHERE env = ?1 AND created_at >= ?2 GROUP BY 1, 2",
    )?;
    let rows = st.query_map(params![env, since], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
}

/// Labels made per day since `since` (microseconds, on a quarter hour), days cut at `offset_us`
/// (a whole number of quarter hours) from UTC midnight, the desk's time zone: (day number since
/// 1970-01-01, count). Reads the quarter-hour counts, not the labels.
pub fn per_day(conn: &Connection, env: &str, since: i64, offset_us: i64) -> crate::Result<Vec<(i64, i64)>> {
    let mut st = conn.prepare_cached(
        "SELECT (quarter * 900000000 + ?3) / 86400000000 AS day, SUM(labels) FROM label_quarters
         WHERE env = ?1 AND quarter >= ?2 / 900000000 GROUP BY day ORDER BY day",
    )?;
    let rows = st.query_map(params![env, since, offset_us], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
}

/// Labels in the shared database of many desks: one history for every desk, each label noting the
/// desk that made it. A close-out locks the labels it takes, so two desks closing out one account
/// at once never put a label into two manifests; search runs on the trigram index of the search
/// text (no word tables to keep up).
pub mod pg {
    use super::{InsertError, LabelFilter, LabelRow, LabelStatus};
    use crate::paging::Cursor;
    use postgres::types::ToSql;
    use postgres::types::Type;
    use postgres::GenericClient;

    fn cols() -> &'static str {
        super::COLS
    }

    fn from_row(r: &postgres::Row) -> LabelRow {
        LabelRow {
            id: r.get(0),
            env: r.get(1),
            shipper_account_id: r.get(2),
            status: r.get(3),
            order_number: r.get(4),
            search_text: r.get(5),
            manifest_id: r.get(6),
            request: r.get(7),
            record: r.get(8),
            created_at: r.get(9),
            updated_at: r.get(10),
            ship_date: r.get(11),
            service_type: r.get(12),
            weight_kg: r.get(13),
        }
    }

    /// The INSERT of a label at `desk`, its values `$1`..`$15` as `label_values` gives them (made
    /// once: it is sent, and looked up among the prepared statements, for every label).
    fn insert_label_sql() -> &'static str {
        static SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
            format!(
                "INSERT INTO labels ({}, desk) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
                cols()
            )
        });
        &SQL
    }

    /// `write_made`'s statement: the label inserted, or an accepted async one completed, with its
    /// numbers and files (made once, as `insert_label_sql`).
    fn write_made_sql(completes: bool) -> &'static str {
        fn with_label(label: &str) -> String {
            // After the label's `$1`..`$15`: the carrier, the numbers, and the files as arrays.
            format!(
                "WITH numbers AS (
                     INSERT INTO tracking_numbers (env, slug, number, label_id) SELECT $2, $16, n, $1 FROM unnest($17::text[]) AS n
                 ), files AS (
                     INSERT INTO files (id, env, owner_id, kind, file_type, paper_size, bytes, created_at)
                     SELECT f.id, $2, $1, f.kind, f.file_type, f.paper_size, f.bytes, f.created_at
                     FROM unnest($18::text[], $19::text[], $20::text[], $21::text[], $22::bytea[], $23::int8[])
                         AS f (id, kind, file_type, paper_size, bytes, created_at)
                 ) {label}"
            )
        }
        static INSERTS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| with_label(insert_label_sql()));
        static COMPLETES: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
            with_label("UPDATE labels SET status = $4, search_text = $6, record = $9, updated_at = $11 WHERE id = $1")
        });
        if completes {
            &COMPLETES
        } else {
            &INSERTS
        }
    }

    /// A label's row in `cols()` order, then the desk: `$1`..`$15` (typed: one round trip, no
    /// prepare). `search_text` is the row's, made storable (`pg::searchable`).
    fn label_values<'a>(
        l: &'a LabelRow,
        search_text: &'a (dyn ToSql + Sync),
        desk: &'a &str,
    ) -> Vec<(&'a (dyn ToSql + Sync), Type)> {
        vec![
            (&l.id, Type::TEXT),
            (&l.env, Type::TEXT),
            (&l.shipper_account_id, Type::TEXT),
            (&l.status, Type::TEXT),
            (&l.order_number, Type::TEXT),
            (search_text, Type::TEXT),
            (&l.manifest_id, Type::TEXT),
            (&l.request, Type::TEXT),
            (&l.record, Type::TEXT),
            (&l.created_at, Type::INT8),
            (&l.updated_at, Type::INT8),
            (&l.ship_date, Type::TEXT),
            (&l.service_type, Type::TEXT),
            (&l.weight_kg, Type::FLOAT8),
            (desk, Type::TEXT),
        ]
    }

    /// A label's write refused by the database: a live label of the account has its order
    /// number, or another failure.
    fn refused(e: postgres::Error) -> InsertError {
        match e.as_db_error().and_then(|d| d.constraint()) {
            Some("labels_order_number") => InsertError::DuplicateOrderNumber,
            _ => InsertError::Db(e.into()),
        }
    }

    /// Stores a label made at `desk`.
    pub fn insert(tx: &mut impl GenericClient, desk: &str, l: &LabelRow) -> Result<(), InsertError> {
        let search_text = crate::pg::searchable(&l.search_text);
        crate::pg::query(tx, insert_label_sql(), &label_values(l, &search_text, &desk)).map_err(refused)?;
        Ok(())
    }

    /// `super::write_made` in one statement (one round trip, where registering, storing and
    /// filing took five): a number issued before or a taken order number fails the statement
    /// whole, by the unique keys. The counter moved when the serials were reserved.
    pub fn write_made(tx: &mut impl GenericClient, desk: &str, m: &super::MadeLabel) -> Result<(), InsertError> {
        let l = m.row;
        let file_ids: Vec<&str> = m.files.iter().map(|f| f.id.as_str()).collect();
        let kinds: Vec<&str> = m.files.iter().map(|f| f.kind.as_str()).collect();
        let file_types: Vec<&str> = m.files.iter().map(|f| f.file_type.as_str()).collect();
        let papers: Vec<&str> = m.files.iter().map(|f| f.paper_size.as_str()).collect();
        let bytes: Vec<&[u8]> = m.files.iter().map(|f| f.bytes.as_slice()).collect();
        let created: Vec<i64> = m.files.iter().map(|f| f.created_at).collect();
        let search_text = crate::pg::searchable(&l.search_text);
        let mut values = label_values(l, &search_text, &desk);
        values.extend([
            (&m.slug as &(dyn ToSql + Sync), Type::TEXT),
            (&m.numbers, Type::TEXT_ARRAY),
            (&file_ids, Type::TEXT_ARRAY),
            (&kinds, Type::TEXT_ARRAY),
            (&file_types, Type::TEXT_ARRAY),
            (&papers, Type::TEXT_ARRAY),
            (&bytes, Type::BYTEA_ARRAY),
            (&created, Type::INT8_ARRAY),
        ]);
        match crate::pg::query(tx, write_made_sql(m.completes), &values) {
            Ok(_) => Ok(()),
            Err(e) if e.as_db_error().and_then(|d| d.constraint()) == Some("tracking_numbers_pkey") => {
                Err(InsertError::NumberTaken(m.serials.first().copied().unwrap_or(0)))
            }
            Err(e) => Err(refused(e)),
        }
    }

    /// Whether a live label of the account (made at any desk) has this order number.
    pub fn order_number_taken(
        client: &mut impl GenericClient,
        account_id: &str,
        order_number: &str,
    ) -> crate::Result<bool> {
        Ok(client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM labels WHERE shipper_account_id = $1 AND order_number = $2
                 AND status NOT IN ('cancelled', 'failed'))",
                &[&account_id, &order_number],
            )?
            .get(0))
    }

    pub fn get(client: &mut impl GenericClient, env: &str, id: &str) -> crate::Result<Option<LabelRow>> {
        let row = client.query_opt(
            &format!("SELECT {} FROM labels WHERE id = $1 AND env = $2", cols()),
            &[&id, &env],
        )?;
        Ok(row.as_ref().map(from_row))
    }

    /// A label read to change its status (cancel, a close-out naming it): its row stays locked
    /// until the caller's transaction ends, and a change another desk committed meanwhile is
    /// what this reads (READ COMMITTED reads the row again after waiting for its lock).
    pub fn get_for_update(client: &mut impl GenericClient, env: &str, id: &str) -> crate::Result<Option<LabelRow>> {
        let row = client.query_opt(
            &format!("SELECT {} FROM labels WHERE id = $1 AND env = $2 FOR UPDATE", cols()),
            &[&id, &env],
        )?;
        Ok(row.as_ref().map(from_row))
    }

    /// The desk that made label `id`.
    pub fn desk_of(client: &mut impl GenericClient, id: &str) -> crate::Result<Option<String>> {
        Ok(client
            .query_opt("SELECT desk FROM labels WHERE id = $1", &[&id])?
            .map(|r| r.get(0)))
    }

    /// Newest first, `limit + 1` rows, as SQLite's `list`: the same filters; a search is the
    /// whole text anywhere in the search text, any case (the trigram index finds it from 3
    /// characters on).
    pub fn list(
        client: &mut impl GenericClient,
        env: &str,
        f: &LabelFilter,
        limit: usize,
        after: Option<&Cursor>,
    ) -> crate::Result<Vec<LabelRow>> {
        let mut args: Vec<Box<dyn ToSql + Sync>> = vec![
            Box::new(env.to_string()),
            Box::new(f.created_at_min),
            Box::new(f.created_at_max),
        ];
        let mut sql = format!(
            "SELECT {} FROM labels WHERE env = $1 AND created_at >= $2 AND created_at <= $3",
            cols()
        );
        let mut arg = |sql: &mut String, clause: &str, v: Box<dyn ToSql + Sync>| {
            args.push(v);
            sql.push_str(&clause.replace("$?", &format!("${}", args.len())));
        };
        if let Some(a) = &f.shipper_account_id {
            arg(&mut sql, " AND shipper_account_id = $?", Box::new(a.clone()));
        }
        if let Some(s) = &f.status {
            arg(&mut sql, " AND status = $?", Box::new(*s));
        }
        if !f.tracking_numbers.is_empty() {
            arg(
                &mut sql,
                " AND id IN (SELECT label_id FROM tracking_numbers WHERE env = $1 AND number = ANY($?))",
                Box::new(f.tracking_numbers.clone()),
            );
        }
        if let Some(s) = f.search.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            let escaped = s.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
            arg(&mut sql, " AND search_text ILIKE $?", Box::new(format!("%{escaped}%")));
        }
        if let Some(c) = after {
            arg(&mut sql, " AND (created_at, id) < ($?", Box::new(c.created_at));
            arg(&mut sql, ", $?)", Box::new(c.id.clone()));
        }
        arg(
            &mut sql,
            " ORDER BY created_at DESC, id DESC LIMIT $?",
            Box::new((limit + 1) as i64),
        );
        let refs: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a.as_ref()).collect();
        Ok(client.query(&sql, &refs)?.iter().map(from_row).collect())
    }

    pub fn set_status(
        tx: &mut impl GenericClient,
        id: &str,
        status: LabelStatus,
        updated_at: i64,
    ) -> crate::Result<()> {
        tx.execute(
            "UPDATE labels SET status = $2, updated_at = $3 WHERE id = $1",
            &[&id, &status, &updated_at],
        )?;
        Ok(())
    }

    /// Labels of an account that a close-out of `day` takes, made at any desk: created, in no
    /// manifest, shipping on `day` or earlier, oldest first. They stay locked until the caller's
    /// transaction ends: a close-out of the same account at another desk waits, then finds them
    /// taken.
    pub fn manifestable(tx: &mut impl GenericClient, account_id: &str, day: &str) -> crate::Result<Vec<LabelRow>> {
        let rows = tx.query(
            &format!(
                "SELECT {} FROM labels WHERE shipper_account_id = $1 AND status = 'created' AND manifest_id IS NULL
                 AND ship_date <= $2 ORDER BY created_at, id FOR UPDATE",
                cols()
            ),
            &[&account_id, &day],
        )?;
        Ok(rows.iter().map(from_row).collect())
    }

    /// Moves labels into a manifest (`status`: `manifested`, or `manifesting` while an async
    /// close-out makes it), in one statement.
    pub fn set_manifest(
        tx: &mut impl GenericClient,
        ids: &[String],
        manifest_id: &str,
        status: LabelStatus,
        updated_at: i64,
    ) -> crate::Result<()> {
        tx.execute(
            "UPDATE labels SET status = $3, manifest_id = $2, updated_at = $4 WHERE id = ANY($1)",
            &[&ids, &manifest_id, &status, &updated_at],
        )?;
        Ok(())
    }

    /// The labels of a manifest, oldest first, whichever desk made them.
    pub fn of_manifest(client: &mut impl GenericClient, manifest_id: &str) -> crate::Result<Vec<LabelRow>> {
        let rows = client.query(
            &format!(
                "SELECT {} FROM labels WHERE manifest_id = $1 ORDER BY created_at, id",
                cols()
            ),
            &[&manifest_id],
        )?;
        Ok(rows.iter().map(from_row).collect())
    }

    /// Adds a document made after the label (its packing slip) to the record's `files`: `file` is
    /// the file reference as JSON. (jsonb keeps no key order or spacing: the service reads the
    /// record into its type, never passes the text through.)
    pub fn add_file(tx: &mut impl GenericClient, id: &str, kind: &str, file: &str) -> crate::Result<()> {
        tx.execute(
            "UPDATE labels SET record = jsonb_set(record::jsonb, '{files}',
                 COALESCE(record::jsonb -> 'files', '{}') || jsonb_build_object($2::text, $3::text::jsonb))::text
             WHERE id = $1",
            &[&id, &kind, &file],
        )?;
        Ok(())
    }

    /// Completes a label accepted in `creating`: its final status, record and search text.
    pub fn complete(
        tx: &mut impl GenericClient,
        id: &str,
        status: LabelStatus,
        record: &str,
        search_text: &str,
        updated_at: i64,
    ) -> crate::Result<()> {
        tx.execute(
            "UPDATE labels SET status = $2, record = $3, search_text = $4, updated_at = $5 WHERE id = $1",
            &[&id, &status, &record, &crate::pg::searchable(search_text), &updated_at],
        )?;
        Ok(())
    }

    /// The labels of an account waiting for a close-out by ship date and service, every desk's.
    pub fn waiting(client: &mut impl GenericClient, account_id: &str) -> crate::Result<Vec<super::Waiting>> {
        let rows = client.query(
            "SELECT ship_date, service_type, count(*), COALESCE(sum(weight_kg), 0), min(created_at) FROM labels
             WHERE shipper_account_id = $1 AND status = 'created' AND manifest_id IS NULL
             GROUP BY ship_date, service_type ORDER BY ship_date, service_type",
            &[&account_id],
        )?;
        Ok(rows
            .iter()
            .map(|r| super::Waiting {
                ship_date: r.get(0),
                service_type: r.get(1),
                labels: r.get(2),
                weight_kg: r.get(3),
                oldest_created_at: r.get(4),
            })
            .collect())
    }

    /// Labels made since `since` by account and status: (account id, status, count).
    pub fn counts_since(
        client: &mut impl GenericClient,
        env: &str,
        since: i64,
    ) -> crate::Result<Vec<(String, LabelStatus, i64)>> {
        let rows = client.query(
            "SELECT shipper_account_id, status, count(*) FROM labels WHERE env = $1 AND created_at >= $2
             GROUP BY 1, 2 ORDER BY 1, 2",
            &[&env, &since],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect())
    }

    /// Labels made per day since `since`, days cut at `offset_us` from UTC midnight: (day number
    /// since 1970-01-01, count). Counted from the labels' (env, created_at) index: no counter row
    /// that every desk's labels would queue on.
    pub fn per_day(
        client: &mut impl GenericClient,
        env: &str,
        since: i64,
        offset_us: i64,
    ) -> crate::Result<Vec<(i64, i64)>> {
        let rows = client.query(
            "SELECT (created_at + $3) / 86400000000 AS day, count(*) FROM labels
             WHERE env = $1 AND created_at >= $2 GROUP BY day ORDER BY day",
            &[&env, &since, &offset_us],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// Takes labels back out of a manifest that failed.
    pub fn release_manifest(tx: &mut impl GenericClient, manifest_id: &str, updated_at: i64) -> crate::Result<()> {
        tx.execute(
            "UPDATE labels SET status = 'created', manifest_id = NULL, updated_at = $2
             WHERE manifest_id = $1 AND status = 'manifesting'",
            &[&manifest_id, &updated_at],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: i64, search: &str) -> LabelRow {
        LabelRow {
            id: format!("label-{n}"),
            env: "sandbox".into(),
            shipper_account_id: "acct".into(),
            status: LabelStatus::Created,
            order_number: None,
            search_text: search.into(),
            manifest_id: None,
            request: "{}".into(),
            record: "{}".into(),
            ship_date: "2026-11-23".into(),
            service_type: "yodel_std".into(),
            weight_kg: 1.0,
            created_at: n,
            updated_at: n,
        }
    }

    fn found(conn: &Connection, s: &str) -> Vec<String> {
        let f = LabelFilter {
            created_at_min: 0,
            created_at_max: i64::MAX,
            search: Some(s.into()),
            ..Default::default()
        };
        list(conn, "sandbox", &f, 10, None)
            .unwrap()
            .into_iter()
            .map(|r| r.id)
            .collect()
    }

    #[test]
    fn a_label_is_found_by_its_tracking_number_through_the_number_index() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::Store::open(&dir.path().join("db.sqlite3")).unwrap();
        let plan: Vec<String> = store
            .read(|c| {
                let mut st = c.prepare(&format!("EXPLAIN QUERY PLAN {BY_TRACKING_NUMBER}(?, ?)"))?;
                let rows = st.query_map(["sandbox", "JD1", "JD2"], |r| r.get::<_, String>(3))?;
                Ok::<_, crate::StoreError>(rows.collect::<Result<_, _>>()?)
            })
            .unwrap();
        assert!(
            plan.iter().any(|step| step.contains("tracking_numbers_number")),
            "{plan:?}"
        );
        // And the filter finds them.
        store
            .write(|tx| {
                tx.execute(
                    "INSERT INTO shipper_accounts VALUES ('acct', 'sandbox', 'yodel', 'enabled', 'A', 'UTC', NULL, '{}', x'00', 0, 0)",
                    [],
                )?;
                for n in 1..=3 {
                    insert(tx, &row(n, "")).unwrap();
                    crate::tracking::register(tx, "sandbox", "yodel", &format!("JD{n}"), &format!("label-{n}"))?;
                }
                // A label of two parcels.
                crate::tracking::register(tx, "sandbox", "yodel", "JD1B", "label-1")?;
                Ok::<_, crate::StoreError>(())
            })
            .unwrap();
        let f = LabelFilter {
            created_at_max: i64::MAX,
            tracking_numbers: vec!["JD1".into(), "JD1B".into(), "JD3".into()],
            ..Default::default()
        };
        let ids: Vec<String> = store
            .read(|c| list(c, "sandbox", &f, 10, None))
            .unwrap()
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(ids, vec!["label-3", "label-1"], "each label once, newest first");
    }

    #[test]
    fn search_finds_the_start_or_end_of_any_word_and_follows_changes() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::Store::open(&dir.path().join("db.sqlite3")).unwrap();
        store
            .write(|tx| -> Result<(), packdesk_model::ServiceError> {
                tx.execute(
                    "INSERT INTO shipper_accounts VALUES ('acct', 'sandbox', 'yodel', 'enabled', 'A', 'UTC', NULL, '{}', x'00', 0, 0)",
                    [],
                )
                .unwrap();
                conn_insert(tx, &row(1, "JD000111222333 ORD-1001 Jane Doe M1 1AE"));
                conn_insert(tx, &row(2, "JD000111222444 ORD-1002 \"Quoted\" Co 75001"));
                conn_insert(tx, &row(3, ""));
                Ok(())
            })
            .unwrap();
        store.write(|tx| catch_up_words(tx, usize::MAX)).unwrap();
        store
            .read(|c| {
                assert_eq!(found(c, "222333"), vec!["label-1"], "the end of a tracking number");
                assert_eq!(found(c, "JD000111"), vec!["label-2", "label-1"], "the start of one");
                assert!(found(c, "0111222").is_empty(), "the middle of a word is not indexed");
                assert_eq!(
                    found(c, "ord-100"),
                    vec!["label-2", "label-1"],
                    "case-insensitive, newest first"
                );
                assert_eq!(found(c, "jane doe"), vec!["label-1"], "a name with its space");
                assert_eq!(found(c, "\"Quoted\""), vec!["label-2"], "quotes are text, not syntax");
                assert_eq!(found(c, "M1"), vec!["label-1"], "two characters: still found");
                assert!(found(c, "ORD-9").is_empty());
                Ok::<_, crate::StoreError>(())
            })
            .unwrap();
        // An async label gets its tracking numbers when it completes: search follows, whether the
        // index had caught up with it (label-3) or not (label-5).
        store
            .write(|tx| complete(tx, "label-3", LabelStatus::Created, "{}", "JD999 ORD-7", 4))
            .unwrap();
        store
            .write(|tx| {
                conn_insert(tx, &row(5, ""));
                complete(tx, "label-5", LabelStatus::Created, "{}", "JD555 ORD-8", 6)?;
                assert_eq!(catch_up_words(tx, usize::MAX)?, 1);
                Ok::<_, crate::StoreError>(())
            })
            .unwrap();
        assert_eq!(
            store.read(|c| Ok::<_, crate::StoreError>(found(c, "ORD-8"))).unwrap(),
            vec!["label-5"]
        );
        let after = store.read(|c| Ok::<_, crate::StoreError>(found(c, "ORD-7"))).unwrap();
        assert_eq!(after, vec!["label-3"]);
    }

    fn conn_insert(conn: &Connection, r: &LabelRow) {
        if let Err(InsertError::Db(e)) = insert(conn, r) {
            panic!("{e}");
        }
    }
}
