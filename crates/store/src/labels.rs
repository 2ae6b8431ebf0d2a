//! Labels. `record` holds the label record as JSON; `status` and `updated_at` are columns (they
//! change) and are written into the record when it is read.
//!
//! On the shared database of many desks there is one history for every desk, each label noting
//! the desk that made it. A close-out locks the labels it takes, so two desks closing out one
//! account at once never put a label into two manifests; search runs on the trigram index of the
//! search text (no word tables to keep up). One desk's file keeps a word index of its own
//! (`catch_up_words`) and counts its labels per quarter hour.

use crate::db::Tx;
use crate::paging::Cursor;
use crate::sql::{table_row, Args, Dialect, FromRow, Param, Row};
use crate::stored_json::StoredJson;
use crate::StoreError;
use packdesk_model::status::Env;
use packdesk_model::status::{FileKind, LabelStatus};
use std::borrow::Cow;

table_row! {
#[derive(Debug, Clone)]
pub struct LabelRow {
    pub id: String,
    pub env: Env,
    pub shipper_account_id: String,
    pub status: LabelStatus,
    pub order_number: Option<String>,
    /// Tracking numbers and references, space separated, for the `s` search.
    pub search_text: String,
    pub manifest_id: Option<String>,
    /// The request as received (JSON), kept for async work and audits.
    pub request: StoredJson,
    /// The label record (JSON).
    pub record: StoredJson,
    pub created_at: i64,
    pub updated_at: i64,
    /// The day the parcel is handed to the carrier (YYYY-MM-DD, the account's timezone): the
    /// close-out of that day takes it.
    pub ship_date: String,
    /// The service and the total weight of its parcels in kilograms, for End of day's counts.
    pub service_type: String,
    pub weight_kg: f64,
}
}

/// A label's columns, `LabelRow::COLUMNS` as a macro: the label's statements, written for every
/// label made, are put together once, at compile time (a test holds the two the same).
macro_rules! cols {
    () => {
        "id, env, shipper_account_id, status, order_number, search_text, manifest_id, request, record, created_at, updated_at, ship_date, service_type, weight_kg"
    };
}

const COLS: &str = cols!();

#[derive(Debug)]
pub enum InsertError {
    /// Another live label of the account has this order_number.
    DuplicateOrderNumber,
    /// `write_made`: this serial's tracking number was issued before (a range that overlaps
    /// numbers issued elsewhere); nothing of the label was written.
    NumberTaken(u64),
    /// The label's account is no longer as it was read (`MadeLabel::account_updated_at`):
    /// changed, at another desk most likely. Nothing was written.
    AccountChanged,
    Db(crate::StoreError),
}

impl From<crate::StoreError> for InsertError {
    fn from(e: crate::StoreError) -> Self {
        InsertError::Db(e)
    }
}

/// A label's write refused by the database: a live label of the account has its order number
/// (the unique index `labels_order_number`), or another failure.
fn refused(e: StoreError) -> InsertError {
    let order_number = match &e {
        StoreError::Sqlite(e) => e.to_string().contains("labels.shipper_account_id, labels.order_number"),
        StoreError::Postgres(e) => e.as_db_error().and_then(|d| d.constraint()) == Some("labels_order_number"),
        _ => false,
    };
    match order_number {
        true => InsertError::DuplicateOrderNumber,
        false => InsertError::Db(e),
    }
}

/// A search text as the database keeps it: PostgreSQL's TEXT refuses NUL characters
/// (`pg::searchable`); SQLite keeps them.
fn storable<'t>(c: &Tx<'_>, text: &'t str) -> Cow<'t, str> {
    match c.dialect() {
        Dialect::Sqlite => Cow::Borrowed(text),
        Dialect::Postgres => crate::pg::searchable(text),
    }
}

/// A label as made: its row, the tracking numbers drawn for it (serial and printed form) and its
/// document files, written whole by `write_made`.
pub struct MadeLabel<'a> {
    pub row: &'a LabelRow,
    /// Who issued the numbers: the carrier's slug (numbers are unique per environment and
    /// issuer), `<slug>@<upstream address>` for an upstream label service's.
    pub slug: &'a str,
    /// The range the serials came from.
    pub scope: &'a str,
    pub serials: &'a [u64],
    pub numbers: &'a [String],
    pub files: &'a [crate::files::FileRow],
    /// The row exists already (an async label accepted in status `creating`): it is completed
    /// with the row's status, record and search text instead of inserted.
    pub completes: bool,
    /// The label's own audit entry (`label.created`), written with it: on a shared database in
    /// its one statement.
    pub audit: &'a crate::audit::AuditRow,
    /// When the account the label was made for was last changed, as the desk read it a while
    /// ago (`None`: read for this label): on a shared database such a label is inserted only
    /// while its account is so, else `InsertError::AccountChanged` (a completion checks nothing).
    pub account_updated_at: Option<i64>,
}

/// Registers the label's numbers (each must be new), moves its range's counter past them, and
/// stores the label and its files, in the caller's transaction.
pub fn write_made(c: &mut Tx<'_>, m: &MadeLabel) -> Result<(), InsertError> {
    if let Tx::Postgres { client, desk } = c {
        return write_made_in_one_statement(client, desk, m);
    }
    let l = m.row;
    // Every number is registered: a label made upstream has numbers and no serials of ours.
    for (i, number) in m.numbers.iter().enumerate() {
        if !crate::tracking::register(c, l.env, m.slug, number, &l.id)? {
            return Err(InsertError::NumberTaken(m.serials.get(i).copied().unwrap_or(0)));
        }
    }
    if let Some(last) = m.serials.last() {
        crate::tracking::advance(c, m.scope, last + 1)?;
    }
    match m.completes {
        true => complete(c, &l.id, l.status, &l.record, &l.search_text, l.updated_at)?,
        false => insert(c, l)?,
    }
    for f in m.files {
        crate::files::insert(c, f)?;
    }
    crate::audit::insert(c, m.audit)?;
    Ok(())
}

/// PostgreSQL's `write_made` in one statement (one round trip, where registering, storing,
/// filing and the audit entry took six): `write_made_together` with this label alone.
fn write_made_in_one_statement(client: &mut postgres::Client, desk: &str, m: &MadeLabel) -> Result<(), InsertError> {
    write_together(client, desk, std::slice::from_ref(m))
}

/// Writes several labels made at once as `write_made` does, all or nothing: on a shared
/// database in one statement, so PostgreSQL's share of a label (the round trip, the commit, the
/// statement's own work) is paid once for them all (the labels that arrive together at a desk:
/// `pg::Together`). All complete rows, or none does.
pub fn write_made_together(c: &mut Tx<'_>, made: &[MadeLabel]) -> Result<(), InsertError> {
    if let Tx::Postgres { client, desk } = c {
        return write_together(client, desk, made);
    }
    made.iter().try_for_each(|m| write_made(c, m))
}

fn write_together(client: &mut postgres::Client, desk: &str, made: &[MadeLabel]) -> Result<(), InsertError> {
    let kept = crate::pg::kept_parts(client);
    match write_sending(client, desk, made, kept.as_deref()) {
        // A part believed kept is not there: forgotten, and sent again with every part's bytes.
        Err(InsertError::Db(e)) if kept.is_some() && crate::file_parts::is_missing(&e) => {
            tracing::warn!("a shared part of a label's document was not in the database: sending them all again");
            kept.iter().for_each(|k| k.forget());
            write_sending(client, desk, made, None)
        }
        other => other,
    }
}

/// The labels' one statement: a number issued before or a taken order number fails it whole,
/// by the unique keys. The counter moved when the serials were reserved (`tracking::reserve`).
/// It sends the bytes of the shared parts `kept` does not hold (all of them without it); with
/// it, they are known kept once the statement succeeded. Its parameters are arrays, a label's
/// value at the same place in each, and typed (the completing statement leaves some unused,
/// whose types PostgreSQL could not infer); it is prepared once per pooled connection
/// (`pg::query`).
fn write_sending(
    client: &mut postgres::Client,
    desk: &str,
    made: &[MadeLabel],
    kept: Option<&crate::file_parts::Kept>,
) -> Result<(), InsertError> {
    use postgres::types::{ToSql, Type};
    let completes = made.first().is_some_and(|m| m.completes);
    if made.iter().any(|m| m.completes != completes) {
        return Err(InsertError::Db(StoreError::Unreadable(
            "labels to complete and labels to insert in one write".into(),
        )));
    }
    let rows: Vec<&LabelRow> = made.iter().map(|m| m.row).collect();
    macro_rules! each {
        ($of:expr, |$x:ident| $value:expr) => {
            $of.iter().map(|$x| $value).collect::<Vec<_>>()
        };
    }
    let search_texts = each!(rows, |l| crate::pg::searchable(&l.search_text));
    // Every number with its label.
    let numbered: Vec<(&MadeLabel, &String)> = made
        .iter()
        .flat_map(|m| m.numbers.iter().map(move |n| (m, n)))
        .collect();
    let files: Vec<&crate::files::FileRow> = made.iter().flat_map(|m| m.files).collect();
    // Each file's own bytes, and the parts it shares kept once (`file_parts`).
    let written: Vec<crate::files::Written<'_>> = files.iter().map(|f| crate::files::written(f)).collect();
    // Once each, in hash order (as `files::insert` keeps them: no two desks wait on each other
    // crosswise).
    let mut parts: Vec<&(crate::file_parts::PartHash, &[u8])> = written.iter().flat_map(|w| &w.parts).collect();
    parts.sort_unstable_by_key(|(hash, _)| *hash);
    parts.dedup_by_key(|(hash, _)| *hash);
    // Null for a part the database keeps already (`file_parts::Kept`).
    let part_bytes: Vec<Option<&[u8]>> = parts
        .iter()
        .map(|(hash, bytes)| match kept {
            Some(k) if k.holds(hash) => None,
            _ => Some(*bytes),
        })
        .collect();
    let audits: Vec<&crate::audit::AuditRow> = made.iter().map(|m| m.audit).collect();
    let (label_ids, envs, accounts, statuses) = (
        each!(rows, |l| &l.id),
        each!(rows, |l| &l.env),
        each!(rows, |l| &l.shipper_account_id),
        each!(rows, |l| &l.status),
    );
    let (order_numbers, manifests, requests, records) = (
        each!(rows, |l| &l.order_number),
        each!(rows, |l| &l.manifest_id),
        each!(rows, |l| &l.request),
        each!(rows, |l| &l.record),
    );
    let (created, updated, ship_dates, services, weights) = (
        each!(rows, |l| l.created_at),
        each!(rows, |l| l.updated_at),
        each!(rows, |l| &l.ship_date),
        each!(rows, |l| &l.service_type),
        each!(rows, |l| l.weight_kg),
    );
    let (number_envs, number_issuers, numbers, number_labels) = (
        each!(numbered, |n| &n.0.row.env),
        each!(numbered, |n| n.0.slug),
        each!(numbered, |n| n.1),
        each!(numbered, |n| &n.0.row.id),
    );
    let (file_ids, file_envs, file_owners, kinds, file_types, papers) = (
        each!(files, |f| &f.id),
        each!(files, |f| &f.env),
        each!(files, |f| &f.owner_id),
        each!(files, |f| f.kind.as_str()),
        each!(files, |f| &f.file_type),
        each!(files, |f| &f.paper_size),
    );
    let (file_bytes, file_created, parts_columns, part_hashes) = (
        each!(written, |w| w.own.as_slice()),
        each!(files, |f| f.created_at),
        each!(written, |w| w.parts_column.as_deref()),
        each!(parts, |p| p.0.as_slice()),
    );
    let (audit_ids, audit_at, audit_desks, audit_envs, actors) = (
        each!(audits, |a| &a.id),
        each!(audits, |a| a.at),
        each!(audits, |a| &a.desk),
        each!(audits, |a| &a.env),
        each!(audits, |a| &a.actor),
    );
    let (operators, actions, objects, results, details) = (
        each!(audits, |a| &a.operator_id),
        each!(audits, |a| &a.action),
        each!(audits, |a| &a.object_id),
        each!(audits, |a| &a.result),
        each!(audits, |a| &a.detail),
    );
    let account_versions = each!(made, |m| m.account_updated_at);
    // The labels' rows in `COLS` order: `$1`..`$14`; the desk `$15`; the numbers `$16`..`$19`;
    // the files `$20`..`$28`; the parts they share `$29`, `$30`; the audit entries in
    // `audit::COLS` order: `$31`..`$40`; when each label's account was last changed, `$41`.
    let values: [(&(dyn ToSql + Sync), Type); 41] = [
        (&label_ids, Type::TEXT_ARRAY),
        (&envs, Type::TEXT_ARRAY),
        (&accounts, Type::TEXT_ARRAY),
        (&statuses, Type::TEXT_ARRAY),
        (&order_numbers, Type::TEXT_ARRAY),
        (&search_texts, Type::TEXT_ARRAY),
        (&manifests, Type::TEXT_ARRAY),
        (&requests, Type::TEXT_ARRAY),
        (&records, Type::TEXT_ARRAY),
        (&created, Type::INT8_ARRAY),
        (&updated, Type::INT8_ARRAY),
        (&ship_dates, Type::TEXT_ARRAY),
        (&services, Type::TEXT_ARRAY),
        (&weights, Type::FLOAT8_ARRAY),
        (&desk, Type::TEXT),
        (&number_envs, Type::TEXT_ARRAY),
        (&number_issuers, Type::TEXT_ARRAY),
        (&numbers, Type::TEXT_ARRAY),
        (&number_labels, Type::TEXT_ARRAY),
        (&file_ids, Type::TEXT_ARRAY),
        (&file_envs, Type::TEXT_ARRAY),
        (&file_owners, Type::TEXT_ARRAY),
        (&kinds, Type::TEXT_ARRAY),
        (&file_types, Type::TEXT_ARRAY),
        (&papers, Type::TEXT_ARRAY),
        (&file_bytes, Type::BYTEA_ARRAY),
        (&file_created, Type::INT8_ARRAY),
        (&parts_columns, Type::TEXT_ARRAY),
        (&part_hashes, Type::BYTEA_ARRAY),
        (&part_bytes, Type::BYTEA_ARRAY),
        (&audit_ids, Type::TEXT_ARRAY),
        (&audit_at, Type::INT8_ARRAY),
        (&audit_desks, Type::TEXT_ARRAY),
        (&audit_envs, Type::TEXT_ARRAY),
        (&actors, Type::TEXT_ARRAY),
        (&operators, Type::TEXT_ARRAY),
        (&actions, Type::TEXT_ARRAY),
        (&objects, Type::TEXT_ARRAY),
        (&results, Type::TEXT_ARRAY),
        (&details, Type::TEXT_ARRAY),
        (&account_versions, Type::INT8_ARRAY),
    ];
    macro_rules! with_labels {
        ($labels:expr) => {
            concat!(
                "WITH numbers AS (
                     INSERT INTO tracking_numbers (env, slug, number, label_id)
                     SELECT * FROM unnest($16::text[], $17::text[], $18::text[], $19::text[])
                 ), parts AS (
                     INSERT INTO file_parts (hash, bytes) SELECT p.hash, p.bytes
                     FROM unnest($29::bytea[], $30::bytea[]) AS p (hash, bytes)
                     -- A part sent without its bytes must be there: if not, its null fails the
                     -- statement whole (`file_parts::is_missing`).
                     WHERE p.bytes IS NOT NULL OR NOT EXISTS (SELECT 1 FROM file_parts k WHERE k.hash = p.hash)
                     ON CONFLICT (hash) DO NOTHING
                 ), files AS (
                     INSERT INTO files (id, env, owner_id, kind, file_type, paper_size, bytes, created_at, parts)
                     SELECT * FROM unnest($20::text[], $21::text[], $22::text[], $23::text[], $24::text[],
                         $25::text[], $26::bytea[], $27::int8[], $28::text[])
                 ), audit AS (
                     INSERT INTO audit_log (",
                crate::audit::cols!(),
                ") SELECT * FROM unnest($31::text[], $32::int8[], $33::text[], $34::text[], $35::text[],
                     $36::text[], $37::text[], $38::text[], $39::text[], $40::text[])
                 ) ",
                $labels
            )
        };
    }
    let sql = match completes {
        true => with_labels!(
            "UPDATE labels AS l SET status = u.status, search_text = u.search_text, record = u.record,
                 updated_at = u.updated_at
             FROM unnest($1::text[], $4::text[], $6::text[], $9::text[], $11::int8[])
                 AS u (id, status, search_text, record, updated_at)
             WHERE l.id = u.id"
        ),
        false => with_labels!(concat!(
            "INSERT INTO labels (",
            cols!(),
            ", desk)
             SELECT l.id, l.env,
                 -- The account as the label was made for, or no account: refused whole, by its
                 -- NOT NULL (`InsertError::AccountChanged`).
                 CASE WHEN l.version IS NULL
                     OR EXISTS (SELECT 1 FROM shipper_accounts a WHERE a.id = l.account AND a.updated_at = l.version)
                     THEN l.account END,
                 l.status, l.order_number, l.search_text, l.manifest_id, l.request, l.record, l.created_at,
                 l.updated_at, l.ship_date, l.service_type, l.weight_kg, $15
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                 $8::text[], $9::text[], $10::int8[], $11::int8[], $12::text[], $13::text[], $14::float8[], $41::int8[])
                 AS l (id, env, account, status, order_number, search_text, manifest_id, request, record,
                     created_at, updated_at, ship_date, service_type, weight_kg, version)"
        )),
    };
    match crate::pg::query(client, sql, &values) {
        Ok(_) => {
            if let Some(k) = kept {
                k.add(parts.iter().map(|(hash, _)| *hash));
            }
            Ok(())
        }
        // Which label's: the first's (a label written alone, as the service sends one again).
        Err(e) if e.as_db_error().and_then(|d| d.constraint()) == Some("tracking_numbers_pkey") => {
            let first = made.first().and_then(|m| m.serials.first());
            Err(InsertError::NumberTaken(first.copied().unwrap_or(0)))
        }
        Err(e) if crate::pg::null_refused(&e, "labels", Some("shipper_account_id")) => Err(InsertError::AccountChanged),
        Err(e) => Err(refused(e.into())),
    }
}

/// A label as made, owned (`MadeLabel` borrows it): what a thread hands to the labels written
/// together (`write_made_shared`).
pub struct OwnedMade {
    pub row: LabelRow,
    pub slug: String,
    pub scope: String,
    pub serials: Vec<u64>,
    pub numbers: Vec<String>,
    pub files: Vec<crate::files::FileRow>,
    pub completes: bool,
    pub audit: crate::audit::AuditRow,
    pub account_updated_at: Option<i64>,
}

impl OwnedMade {
    pub fn made(&self) -> MadeLabel<'_> {
        MadeLabel {
            row: &self.row,
            slug: &self.slug,
            scope: &self.scope,
            serials: &self.serials,
            numbers: &self.numbers,
            files: &self.files,
            completes: self.completes,
            audit: &self.audit,
            account_updated_at: self.account_updated_at,
        }
    }
}

/// Writes labels made at this desk on the shared database in one statement, each a transaction
/// of its own (as `Db::write_one_statement`; `together` holds the labels that arrive meanwhile,
/// `pg::Together`). Should that statement fail, each is written alone: one refused (a number
/// issued before, an order number taken) takes no other with it.
pub fn write_made_shared(
    store: &crate::pg::PgStore,
    desk: &str,
    together: &crate::pg::Together<OwnedMade, Result<(), InsertError>>,
    label: OwnedMade,
) -> Result<(), InsertError> {
    // On connections of generic plans: the statement is planned once, not at every batch
    // (`pg::Plans::Generic`).
    let on_own = |f: &dyn Fn(&mut Tx<'_>) -> Result<(), InsertError>| {
        store.autocommit_planned(crate::pg::Plans::Generic, |client| {
            f(&mut Tx::Postgres { client, desk })
        })
    };
    let one = |m: &MadeLabel| on_own(&|tx| write_made(tx, m));
    together.write(label, |labels| {
        let made: Vec<MadeLabel> = labels.iter().map(OwnedMade::made).collect();
        match on_own(&|tx| write_made_together(tx, &made)) {
            Ok(()) => made.iter().map(|_| Ok(())).collect(),
            // A label alone: its refusal is its answer. Together: each is written alone, so one
            // refused takes no other with it.
            Err(e) if made.len() == 1 => vec![Err(e)],
            Err(_) => made.iter().map(one).collect(),
        }
    })
}

/// Stores a label (on a shared database, of this desk).
pub fn insert(c: &mut Tx<'_>, l: &LabelRow) -> Result<(), InsertError> {
    let search_text: &str = &storable(c, &l.search_text);
    let mut values: Vec<&dyn Param> = vec![
        &l.id,
        &l.env,
        &l.shipper_account_id,
        &l.status,
        &l.order_number,
        &search_text,
        &l.manifest_id,
        &l.request,
        &l.record,
        &l.created_at,
        &l.updated_at,
        &l.ship_date,
        &l.service_type,
        &l.weight_kg,
    ];
    let desk: Option<&str> = match &*c {
        Tx::Sqlite(_) => None,
        Tx::Postgres { desk, .. } => Some(desk),
    };
    let sql = match &desk {
        None => concat!(
            "INSERT INTO labels (",
            cols!(),
            ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"
        ),
        // The shared database notes the desk that made it.
        Some(desk) => {
            values.push(desk);
            concat!(
                "INSERT INTO labels (",
                cols!(),
                ", desk) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
            )
        }
    };
    c.execute(sql, &values).map_err(refused)?;
    Ok(())
}

/// Whether a live label of the account (on a shared database, made at any desk) has this order
/// number.
pub fn order_number_taken(c: &mut Tx<'_>, account_id: &str, order_number: &str) -> crate::Result<bool> {
    c.exists(
        "SELECT 1 FROM labels WHERE shipper_account_id = ?1 AND order_number = ?2 AND status NOT IN ('cancelled', 'failed')",
        &[&account_id, &order_number],
    )
}

pub fn get(c: &mut Tx<'_>, env: Env, id: &str) -> crate::Result<Option<LabelRow>> {
    c.row(
        concat!("SELECT ", cols!(), " FROM labels WHERE id = ?1 AND env = ?2"),
        &[&id, &env],
    )
}

/// A label read to change its status (cancel, a close-out naming it). On a shared database its
/// row stays locked until the caller's transaction ends, so a cancel and a close-out never both
/// take it, and a change another desk committed meanwhile is what this reads (READ COMMITTED
/// reads the row again after waiting for its lock). One desk's writer is alone.
pub fn get_for_update(c: &mut Tx<'_>, env: Env, id: &str) -> crate::Result<Option<LabelRow>> {
    let sql = match c.dialect() {
        Dialect::Sqlite => concat!("SELECT ", cols!(), " FROM labels WHERE id = ?1 AND env = ?2"),
        Dialect::Postgres => concat!("SELECT ", cols!(), " FROM labels WHERE id = ?1 AND env = ?2 FOR UPDATE"),
    };
    c.row(sql, &[&id, &env])
}

/// The desk that made a label (None on one desk's own file).
pub fn desk_of(c: &mut Tx<'_>, id: &str) -> crate::Result<Option<String>> {
    match c.dialect() {
        Dialect::Sqlite => Ok(None),
        Dialect::Postgres => c.value("SELECT desk FROM labels WHERE id = ?1", &[&id]),
    }
}

/// The labels of some tracking numbers (`numbers`: their placeholders; `?1`: the environment).
/// SQLite's key leads with the number (migration 21): each is found at once. `+env` keeps it so
/// should an index lead with the environment again (without statistics SQLite would take it for
/// the selective term and read every number of the environment: 130 ms in a million).
/// (PostgreSQL has statistics, and no `+` of text.)
fn by_tracking_number(dialect: Dialect, numbers: &str) -> String {
    match dialect {
        Dialect::Sqlite => {
            format!("SELECT DISTINCT label_id FROM tracking_numbers WHERE +env = ?1 AND number IN ({numbers})")
        }
        Dialect::Postgres => format!("SELECT label_id FROM tracking_numbers WHERE env = ?1 AND number IN ({numbers})"),
    }
}

/// Filters of `GET /labels`.
#[derive(Debug, Clone, Default)]
pub struct LabelFilter {
    pub shipper_account_id: Option<String>,
    pub status: Option<LabelStatus>,
    pub created_at_min: i64,
    pub created_at_max: i64,
    pub tracking_numbers: Vec<String>,
    pub search: Option<String>,
    pub limits: SearchLimits,
}

/// How far a search of SQLite's word index goes: a word with `common_word_entries` index entries
/// or more is common, and a search of only common words reads at most `reads_at_most` labels a
/// page. A desk's are the defaults; a test sets small ones to see a search of a few labels page on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchLimits {
    pub common_word_entries: i64,
    pub reads_at_most: i64,
}

impl Default for SearchLimits {
    fn default() -> Self {
        SearchLimits {
            common_word_entries: WORD_ENTRIES_COMMON,
            reads_at_most: SEARCH_READS_AT_MOST,
        }
    }
}

/// `text`'s words parted by one plain space, whatever parted them (tabs, no-break spaces, runs
/// of spaces): a label's search text is kept so and a History search is asked so, and a search of
/// common words matches the text's word edges by that space.
pub fn plain_words<'a>(text: impl IntoIterator<Item = &'a str>) -> String {
    text.into_iter()
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` in a LIKE pattern, its wildcards (and the escape) taken literally (`ESCAPE '\\'`; the
/// backslash is PostgreSQL's escape already).
fn like_literal(text: &str) -> String {
    text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

/// A page of `list`.
#[derive(Debug)]
pub struct Listed {
    /// Newest first, up to `limit + 1`: one more than the page shows says there is a next one.
    pub rows: Vec<LabelRow>,
    /// A search of common words only: it read `SearchLimits::reads_at_most` labels without filling the
    /// page, and older ones are left. The last label it read: the next page starts after it.
    pub searched_to: Option<Cursor>,
}

/// Labels a search of only common words reads for one page, newest first (`list`): about 100 ms.
/// A rare phrase of common words ("Cliente 994") read every label, seconds at 500,000 labels, and
/// held the WAL's restart meanwhile; now each page reads this many and History offers the older.
const SEARCH_READS_AT_MOST: i64 = if cfg!(test) { 40 } else { 50_000 };

/// Newest first, `limit + 1` rows so the caller knows whether there is a next page. A search is
/// the whole text anywhere in the search text (on a shared database, any case; on SQLite, any
/// case of ASCII).
pub fn list(c: &mut Tx<'_>, env: Env, f: &LabelFilter, limit: usize, after: Option<&Cursor>) -> crate::Result<Listed> {
    let page_full = limit + 1;
    let query = page_query(c, env, f, page_full as i64, after)?;
    let page = |c: &mut Tx<'_>| {
        let rows: Vec<LabelRow> = c.rows_planned_each_time(&query.sql, &query.args.refs())?;
        let searched_to = match query.bounded && rows.len() < page_full {
            true => last_read(c, env, f, after)?,
            false => None,
        };
        Ok(Listed { rows, searched_to })
    };
    if !query.bounded {
        return page(c);
    }
    // The page and its last label read on one snapshot: labels made between them would move it.
    c.execute("SAVEPOINT search_page", &[])?;
    let listed = page(c);
    if listed.is_err() {
        let _ = c.execute("ROLLBACK TO search_page", &[]);
    }
    let released = c.execute("RELEASE search_page", &[]);
    let listed = listed?;
    released?;
    Ok(listed)
}

/// The statement of one page of `list` and its values.
struct PageQuery<'a> {
    sql: String,
    args: Args<'a>,
    /// A search of only common words (SQLite): the newest `reads_at_most` labels are read.
    bounded: bool,
}

/// The statement `list` runs for a page of `limit` rows (searches read the word index first).
fn page_query<'a>(
    c: &mut Tx<'_>,
    env: Env,
    f: &'a LabelFilter,
    limit: i64,
    after: Option<&'a Cursor>,
) -> crate::Result<PageQuery<'a>> {
    let dialect = c.dialect();
    // SQLite: a search of 3+ characters starts from the word index's hits (CROSS JOIN keeps that
    // order of loops: otherwise SQLite walks the whole page index probing each row); the LIKE
    // below then keeps the rows that hold the whole text. (PostgreSQL's trigram index finds the
    // whole text from 3 characters on; its planner chooses the order of loops.)
    // Its words parted as a label's search text keeps them (a pasted tab finds the label).
    let search = f.search.as_deref().map(|s| plain_words([s]));
    let indexed = search
        .as_deref()
        .filter(|s| dialect == Dialect::Sqlite && s.chars().count() >= 3);
    let ranges = match indexed {
        Some(s) => search_start(c, s, f.limits.common_word_entries)?,
        None => None,
    };
    // The whole text, anywhere; LIKE's wildcards taken literally.
    let pattern = search
        .as_deref()
        .filter(|s| dialect == Dialect::Sqlite || !s.is_empty())
        .map(|s| format!("%{}%", like_literal(s)));

    // ?1, ?2 and ?3 below.
    let mut args = Args::default();
    args.push(env);
    args.push(f.created_at_min);
    args.push(crate::paging::newest(f.created_at_max, after));
    let numbers = f
        .tracking_numbers
        .iter()
        .map(|t| args.push(t))
        .collect::<Vec<_>>()
        .join(", ");
    // SQLite: tracking numbers likewise start from their key's hits (it leads with the number: a
    // scan finds its label at once, where walking the page index for it read up to every label).
    let from_words = ranges.is_some();
    let by_number = dialect == Dialect::Sqlite && !from_words && !f.tracking_numbers.is_empty();
    let mut sql = if by_number {
        format!(
            "SELECT {COLS} FROM ({}) AS hits CROSS JOIN labels ON labels.id = hits.label_id WHERE {IN_WINDOW}",
            by_tracking_number(dialect, &numbers)
        )
    } else if let Some(ranges) = ranges {
        let w = ranges.map(|r| args.push(r));
        format!(
            "SELECT {COLS} FROM (SELECT label_id FROM label_words WHERE word >= {} AND word < {} \
             UNION SELECT label_id FROM label_words WHERE word >= {} AND word < {}) AS hits \
             CROSS JOIN labels ON labels.id = hits.label_id WHERE {IN_WINDOW}",
            w[0], w[1], w[2], w[3]
        )
    } else {
        format!("SELECT {COLS} FROM labels WHERE {IN_WINDOW}")
    };
    sql.push_str(&scan_filters(&mut args, f, after));
    if !f.tracking_numbers.is_empty() && !by_number {
        sql.push_str(&format!(" AND id IN ({})", by_tracking_number(dialect, &numbers)));
    }
    // Only common words (SQLite): the newest labels are read, so many at most.
    let bounded = indexed.is_some() && !from_words && !by_number;
    if bounded {
        sql = format!(
            "SELECT * FROM ({sql} ORDER BY created_at DESC, id DESC LIMIT {}) AS newest WHERE 1 = 1",
            args.push(f.limits.reads_at_most)
        );
    }
    // A one-word search read without the word index (its word is common) keeps to what the index
    // finds: the word at the start or the end of a word of the text, as on the index path.
    if let Some(word) = indexed.filter(|s| !from_words && s.split_whitespace().count() == 1) {
        let w = like_literal(word);
        let edges = [format!("{w}%"), format!("% {w}%"), format!("%{w}"), format!("%{w} %")]
            .map(|edge| format!("search_text LIKE {} ESCAPE '\\'", args.push(edge)));
        sql.push_str(&format!(" AND ({})", edges.join(" OR ")));
    }
    if let Some(p) = pattern {
        let p = args.push(p);
        match dialect {
            // Case-insensitive for ASCII. Alone (under 3 characters) this scans the rows.
            Dialect::Sqlite => sql.push_str(&format!(" AND search_text LIKE {p} ESCAPE '\\'")),
            // Any case, on the trigram index (the backslash is its escape already).
            Dialect::Postgres => sql.push_str(&format!(" AND search_text ILIKE {p}")),
        }
    }
    sql.push_str(&format!(
        " ORDER BY created_at DESC, id DESC LIMIT {}",
        args.push(limit)
    ));
    Ok(PageQuery { sql, args, bounded })
}

/// A label of the environment `?1` made from `?2` to `?3` (the creation window, its newest end
/// bounded by the page's start: `paging::newest`): what every page of `list` starts from.
const IN_WINDOW: &str = "env = ?1 AND created_at >= ?2 AND created_at <= ?3";

/// The filters of `list` other than its search and tracking numbers, after `?1`..`?3` (the
/// environment and the creation window): the account, the status, and the page's start.
fn scan_filters<'a>(args: &mut Args<'a>, f: &'a LabelFilter, after: Option<&'a Cursor>) -> String {
    let mut sql = String::new();
    if let Some(a) = &f.shipper_account_id {
        sql.push_str(&format!(" AND shipper_account_id = {}", args.push(a)));
    }
    if let Some(s) = &f.status {
        sql.push_str(&format!(" AND status = {}", args.push(s)));
    }
    if let Some(cursor) = after {
        let at = args.push(cursor.created_at);
        let id = args.push(&cursor.id);
        sql.push_str(&format!(" AND (created_at, id) < ({at}, {id})"));
    }
    sql
}

/// The last label a search of common words read (`list`): the `reads_at_most`th of those
/// its filters take, newest first; None when no older one is left.
fn last_read(c: &mut Tx<'_>, env: Env, f: &LabelFilter, after: Option<&Cursor>) -> crate::Result<Option<Cursor>> {
    let mut args = Args::default();
    args.push(env);
    args.push(f.created_at_min);
    args.push(crate::paging::newest(f.created_at_max, after));
    let filters = scan_filters(&mut args, f, after);
    let sql = format!(
        "SELECT created_at, id FROM labels WHERE {IN_WINDOW}{filters} \
         ORDER BY created_at DESC, id DESC LIMIT 2 OFFSET {}",
        args.push(f.limits.reads_at_most - 1)
    );
    let last_and_older: Vec<(i64, String)> = c.rows(&sql, &args.refs())?;
    Ok(match <[_; 2]>::try_from(last_and_older) {
        Ok([(created_at, id), _]) => Some(Cursor { created_at, id }),
        Err(_) => None,
    })
}

/// Adds a document made after the label (its packing slip) to the record's `files`: `file` is the
/// file reference as JSON.
pub fn add_file(c: &mut Tx<'_>, id: &str, kind: FileKind, file: &str) -> crate::Result<()> {
    match c.dialect() {
        // The record is deflated (`StoredJson`), out of SQL's reach: read, changed, written (the
        // desk's one writer holds the file meanwhile).
        Dialect::Sqlite => {
            let Some(record) = c.value::<StoredJson>("SELECT record FROM labels WHERE id = ?1", &[&id])? else {
                return Ok(());
            };
            let unreadable =
                |e: serde_json::Error| StoreError::Unreadable(format!("a label record that is not JSON: {e}"));
            let mut record: serde_json::Value = serde_json::from_str(&record).map_err(unreadable)?;
            let file: serde_json::Value = serde_json::from_str(file).map_err(unreadable)?;
            let files = record
                .as_object_mut()
                .map(|r| r.entry("files").or_insert_with(|| serde_json::json!({})))
                .and_then(|files| files.as_object_mut())
                .ok_or_else(|| StoreError::Unreadable(format!("label {id}'s record has no object of files")))?;
            files.insert(kind.as_str().to_string(), file);
            let record = StoredJson::from(record.to_string());
            c.execute("UPDATE labels SET record = ?2 WHERE id = ?1", &[&id, &record])?;
        }
        // jsonb keeps no key order or spacing: the service reads the record into its type, never
        // passes the text through.
        Dialect::Postgres => {
            c.execute(
                "UPDATE labels SET record = jsonb_set(record::jsonb, '{files}',
                     COALESCE(record::jsonb -> 'files', '{}') || jsonb_build_object(?2::text, ?3::text::jsonb))::text
                 WHERE id = ?1",
                &[&id, &kind, &file],
            )?;
        }
    }
    Ok(())
}

pub fn set_status(c: &mut Tx<'_>, id: &str, status: LabelStatus, updated_at: i64) -> crate::Result<()> {
    c.execute(
        "UPDATE labels SET status = ?2, updated_at = ?3 WHERE id = ?1",
        &[&id, &status, &updated_at],
    )?;
    Ok(())
}

/// Labels of an account that a close-out of `day` takes (on a shared database, made at any
/// desk): created, in no manifest, shipping on `day` or earlier (YYYY-MM-DD), oldest first. On a
/// shared database they stay locked until the caller's transaction ends: a close-out of the same
/// account at another desk waits, then finds them taken.
pub fn manifestable(c: &mut Tx<'_>, account_id: &str, day: &str) -> crate::Result<Vec<LabelRow>> {
    let sql = match c.dialect() {
        Dialect::Sqlite => concat!(
            "SELECT ",
            cols!(),
            " FROM labels WHERE shipper_account_id = ?1 AND status = 'created' AND manifest_id IS NULL
             AND ship_date <= ?2 ORDER BY created_at, id"
        ),
        Dialect::Postgres => concat!(
            "SELECT ",
            cols!(),
            " FROM labels WHERE shipper_account_id = ?1 AND status = 'created' AND manifest_id IS NULL
             AND ship_date <= ?2 ORDER BY created_at, id FOR UPDATE"
        ),
    };
    c.rows(sql, &[&account_id, &day])
}

/// Moves labels into a manifest.
pub fn set_manifested(c: &mut Tx<'_>, ids: &[String], manifest_id: &str, updated_at: i64) -> crate::Result<()> {
    set_manifest(c, ids, manifest_id, LabelStatus::Manifested, updated_at)
}

/// Puts labels into a manifest being made (async close-out): no cancel or other close-out takes them.
pub fn set_manifesting(c: &mut Tx<'_>, ids: &[String], manifest_id: &str, updated_at: i64) -> crate::Result<()> {
    set_manifest(c, ids, manifest_id, LabelStatus::Manifesting, updated_at)
}

/// Moves labels into a manifest (`status`: `manifested`, or `manifesting` while an async close-out
/// makes it).
fn set_manifest(
    c: &mut Tx<'_>,
    ids: &[String],
    manifest_id: &str,
    status: LabelStatus,
    updated_at: i64,
) -> crate::Result<()> {
    match c {
        // PostgreSQL: in one statement, the ids as one array (a close-out of thousands of labels
        // is one round trip).
        Tx::Postgres { client, .. } => {
            crate::pg::execute_prepared(
                &mut **client,
                "UPDATE labels SET status = $3, manifest_id = $2, updated_at = $4 WHERE id = ANY($1)",
                &[&ids, &manifest_id, &status, &updated_at],
            )?;
        }
        // SQLite has no array parameter: a statement per label, on the desk's one writer.
        Tx::Sqlite(_) => {
            for id in ids {
                c.execute(
                    "UPDATE labels SET status = ?2, manifest_id = ?3, updated_at = ?4 WHERE id = ?1",
                    &[id, &status, &manifest_id, &updated_at],
                )?;
            }
        }
    }
    Ok(())
}

/// Completes a label accepted in `creating`: its final status, record and search text.
pub fn complete(
    c: &mut Tx<'_>,
    id: &str,
    status: LabelStatus,
    record: &StoredJson,
    search_text: &str,
    updated_at: i64,
) -> crate::Result<()> {
    if c.dialect() == Dialect::Sqlite {
        // A label the word index has caught up with gets its new words now; a later one is
        // indexed with its final text when the index next catches up.
        let old: Option<(i64, String)> = c.row("SELECT rowid, search_text FROM labels WHERE id = ?1", &[&id])?;
        if let Some((rowid, old_text)) = old {
            if rowid <= words_indexed_up_to(c)? && old_text != search_text {
                for w in words(&old_text) {
                    c.execute("DELETE FROM label_words WHERE word = ?1 AND label_id = ?2", &[&w, &id])?;
                }
                index_words(c, id, search_text)?;
            }
        }
    }
    let search_text: &str = &storable(c, search_text);
    c.execute(
        "UPDATE labels SET status = ?2, record = ?3, search_text = ?4, updated_at = ?5 WHERE id = ?1",
        &[&id, &status, &record, &search_text, &updated_at],
    )?;
    Ok(())
}

/// The labels of a manifest, oldest first (on a shared database, whichever desk made them).
pub fn of_manifest(c: &mut Tx<'_>, manifest_id: &str) -> crate::Result<Vec<LabelRow>> {
    c.rows(
        concat!(
            "SELECT ",
            cols!(),
            " FROM labels WHERE manifest_id = ?1 ORDER BY created_at, id"
        ),
        &[&manifest_id],
    )
}

/// Takes labels back out of a manifest that failed.
pub fn release_manifest(c: &mut Tx<'_>, manifest_id: &str, updated_at: i64) -> crate::Result<()> {
    c.execute(
        "UPDATE labels SET status = 'created', manifest_id = NULL, updated_at = ?2 WHERE manifest_id = ?1 AND status = 'manifesting'",
        &[&manifest_id, &updated_at],
    )?;
    Ok(())
}

/// The words a search finds a label by: each word of its search text, lower case, and each word
/// reversed behind `~` (so a search by the end of a word is an index range too). SQLite's word
/// index only.
/// Words of the index that start with `word` (`[0]..[1]`) or end with it (`[2]..[3]`, the
/// reversed forms `words` keeps).
fn word_ranges(word: &str) -> [String; 4] {
    let word = word.to_lowercase();
    let reversed = reversed(&word);
    let past = |start: &str| format!("{start}\u{10FFFF}");
    let (past_word, past_reversed) = (past(&word), past(&reversed));
    [word, past_word, reversed, past_reversed]
}

/// A word's form for a search by its end: reversed behind `~`.
fn reversed(word: &str) -> String {
    format!("~{}", word.chars().rev().collect::<String>())
}

/// Where a search of 3+ characters on SQLite starts: the word ranges of its word with the fewest
/// index entries (words that start with it, or end with it: any word of the text sits in an
/// indexed word so), or None when every word has `common` entries or more (counted up to that),
/// and the newest labels are read instead until the page is full, which common words fill soon.
/// The rarest word, not the longest: a name's common first word ("Cliente 123") made every search
/// read every label, 1 s at 600,000 labels, a read so long that the WAL could not be restarted
/// behind it; and two common words ("Cliente 4") read every hit of the first.
fn search_start(c: &mut Tx<'_>, search: &str, common: i64) -> crate::Result<Option<[String; 4]>> {
    let mut rarest: Option<(i64, [String; 4])> = None;
    for word in search.split_whitespace() {
        let ranges = word_ranges(word);
        let entries = entries_up_to(c, &ranges, common)?;
        if entries < common && rarest.as_ref().is_none_or(|(fewest, _)| entries < *fewest) {
            rarest = Some((entries, ranges));
        }
    }
    Ok(rarest.map(|(_, ranges)| ranges))
}

/// Index entries (a word whole in a label is two: itself and reversed) from which a word of a
/// search is common: its hits are not read, the newest labels are. Reading this many labels
/// takes well under 0.1 s (every label of 600,000 took 0.8 s); a common phrase fills a page from
/// the newest labels sooner.
const WORD_ENTRIES_COMMON: i64 = if cfg!(test) { 100 } else { 50_000 };

/// The index entries in `ranges`, counted up to `most`.
fn entries_up_to(c: &mut Tx<'_>, ranges: &[String; 4], most: i64) -> crate::Result<i64> {
    Ok(c.value(
        "SELECT count(*) FROM (SELECT 1 FROM label_words WHERE word >= ?1 AND word < ?2
                 UNION ALL SELECT 1 FROM label_words WHERE word >= ?3 AND word < ?4 LIMIT ?5)",
        &[&ranges[0], &ranges[1], &ranges[2], &ranges[3], &most],
    )?
    .unwrap_or(0))
}

fn words(search_text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in search_text.split_whitespace() {
        let w = w.to_lowercase();
        out.push(reversed(&w));
        out.push(w);
    }
    out.sort();
    out.dedup();
    out
}

fn index_words(c: &mut Tx<'_>, label_id: &str, search_text: &str) -> crate::Result<()> {
    for w in words(search_text) {
        c.execute(
            "INSERT INTO label_words (word, label_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
            &[&w, &label_id],
        )?;
    }
    Ok(())
}

fn words_indexed_up_to(c: &mut Tx<'_>) -> crate::Result<i64> {
    Ok(
        c.value::<String>("SELECT value FROM meta WHERE key = 'label_words_up_to'", &[])?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
    )
}

/// Brings SQLite's word index up to date: the words of up to `max` labels stored since it last
/// caught up, so making a label writes no index pages and label creation keeps its speed. Answers
/// how many labels it indexed (0: up to date). PostgreSQL's trigram index is kept by the database
/// itself, so there it has nothing to do.
pub fn catch_up_words(c: &mut Tx<'_>, max: usize) -> crate::Result<usize> {
    if c.dialect() == Dialect::Postgres {
        return Ok(0);
    }
    let from = words_indexed_up_to(c)?;
    let limit = i64::try_from(max).unwrap_or(i64::MAX);
    let rows: Vec<(i64, String, String)> = c.rows(
        "SELECT rowid, id, search_text FROM labels WHERE rowid > ?1 ORDER BY rowid LIMIT ?2",
        &[&from, &limit],
    )?;
    let Some(last) = rows.last().map(|r| r.0) else {
        return Ok(0);
    };
    for (_, id, text) in &rows {
        index_words(c, id, text)?;
    }
    c.execute(
        "INSERT INTO meta (key, value) VALUES ('label_words_up_to', ?1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        &[&last.to_string()],
    )?;
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

impl FromRow for Waiting {
    fn from_row(r: &Row<'_>) -> crate::Result<Self> {
        Ok(Waiting {
            ship_date: r.get(0)?,
            service_type: r.get(1)?,
            labels: r.get(2)?,
            weight_kg: r.get(3)?,
            oldest_created_at: r.get(4)?,
        })
    }
}

/// The labels of an account waiting for a close-out by ship date and service (on a shared
/// database, every desk's), earliest date first (read from the close-out's index alone).
pub fn waiting(c: &mut Tx<'_>, account_id: &str) -> crate::Result<Vec<Waiting>> {
    c.rows(
        "SELECT ship_date, service_type, COUNT(*), COALESCE(SUM(weight_kg), 0), MIN(created_at) FROM labels
         WHERE shipper_account_id = ?1 AND status = 'created' AND manifest_id IS NULL
         GROUP BY ship_date, service_type ORDER BY ship_date, service_type",
        &[&account_id],
    )
}

/// Labels made since `since` (microseconds) by account and status: (account id, status, count).
pub fn counts_since(c: &mut Tx<'_>, env: Env, since: i64) -> crate::Result<Vec<(String, LabelStatus, i64)>> {
    c.rows_planned_each_time(
        "SELECT shipper_account_id, status, COUNT(*) FROM labels WHERE env = ?1 AND created_at >= ?2
         GROUP BY 1, 2 ORDER BY 1, 2",
        &[&env, &since],
    )
}

/// Labels made per day since `since` (microseconds, on a quarter hour), days cut at `offset_us`
/// (a whole number of quarter hours) from UTC midnight, the desk's time zone: (day number since
/// 1970-01-01, count).
pub fn per_day(c: &mut Tx<'_>, env: Env, since: i64, offset_us: i64) -> crate::Result<Vec<(i64, i64)>> {
    let sql = match c.dialect() {
        // SQLite reads its quarter-hour counts, not the labels.
        Dialect::Sqlite => {
            "SELECT (quarter * 900000000 + ?3) / 86400000000 AS day, SUM(labels) FROM label_quarters
             WHERE env = ?1 AND quarter >= ?2 / 900000000 GROUP BY day ORDER BY day"
        }
        // PostgreSQL counts from the labels' (env, created_at) index: no counter row that every
        // desk's labels would queue on.
        Dialect::Postgres => {
            "SELECT (created_at + ?3) / 86400000000 AS day, count(*) FROM labels
             WHERE env = ?1 AND created_at >= ?2 GROUP BY day ORDER BY day"
        }
    };
    c.rows_planned_each_time(sql, &[&env, &since, &offset_us])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::TableRow;

    #[test]
    fn the_statements_columns_are_the_rows_fields() {
        assert_eq!(cols!(), LabelRow::COLUMNS);
    }

    fn row(n: i64, search: &str) -> LabelRow {
        LabelRow {
            id: format!("label-{n}"),
            env: Env::Sandbox,
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

    /// The sandbox account `acct` the rows of `row` belong to.
    fn an_account(tx: &rusqlite::Connection) -> rusqlite::Result<usize> {
        tx.execute(
            "INSERT INTO shipper_accounts VALUES ('acct', 'sandbox', 'yodel', 'enabled', 'A', 'UTC', NULL, '{}', x'00', 0, 0, NULL)",
            [],
        )
    }

    fn found(conn: &rusqlite::Connection, s: &str) -> Vec<String> {
        let f = LabelFilter {
            created_at_min: 0,
            created_at_max: i64::MAX,
            search: Some(s.into()),
            ..Default::default()
        };
        list(&mut Tx::Sqlite(conn), Env::Sandbox, &f, 10, None)
            .unwrap()
            .rows
            .into_iter()
            .map(|r| r.id)
            .collect()
    }

    #[test]
    fn a_search_of_only_common_words_reads_so_many_labels_a_page_and_the_next_reads_on() {
        // "Cliente 1" (both words common) is in labels 1, 11..19 and 101..199 (odd): none among
        // the newest 40 (`SEARCH_READS_AT_MOST` in tests), which is all a page reads.
        let (_dir, store) = three_hundred_clients();
        let f = LabelFilter {
            created_at_max: i64::MAX,
            search: Some("Cliente 1".into()),
            ..Default::default()
        };
        let mut pages = Vec::new();
        let mut after: Option<Cursor> = None;
        while pages.len() < 20 {
            let page = store
                .read(|conn| list(&mut Tx::Sqlite(conn), Env::Sandbox, &f, 10, after.as_ref()))
                .unwrap();
            let mut ids: Vec<i64> = page.rows.iter().map(|r| r.created_at).collect();
            // The page's next token: after its 10th label when it has one more, else after the
            // last label read.
            let full = ids.len() > 10;
            ids.truncate(10);
            after = match full {
                true => Some(Cursor {
                    created_at: ids[9],
                    id: format!("label-{}", ids[9]),
                }),
                false => page.searched_to.clone(),
            };
            pages.push((ids, page.searched_to.map(|c| c.created_at)));
            if after.is_none() {
                break;
            }
        }
        let odd = |from: i64, to: i64| (to..=from).rev().filter(|n| n % 2 == 1).collect::<Vec<_>>();
        assert_eq!(pages[0], (vec![], Some(261)), "the newest 40 read, none of them a hit");
        assert_eq!(pages[1], (vec![], Some(221)));
        assert_eq!(
            pages[2],
            (odd(199, 181), Some(181)),
            "a page not full: the rest is older"
        );
        assert_eq!(
            pages[3],
            (odd(179, 161), None),
            "a full page: its last label is where the next starts"
        );
        let every: Vec<i64> = pages.iter().flat_map(|(ids, _)| ids.clone()).collect();
        let expected: Vec<i64> = [odd(199, 101), odd(19, 11), vec![1]].concat();
        assert_eq!(every, expected, "every label of the phrase, each once, newest first");
    }

    /// Labels 1..=300 (made at 1..=300): odd ones to "Cliente n", even ones to "Client n". Words
    /// with 100 index entries or more are common here (`WORD_ENTRIES_COMMON` in tests).
    fn three_hundred_clients() -> (tempfile::TempDir, crate::Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::Store::open(&dir.path().join("db.sqlite3")).unwrap();
        store
            .write(|tx| {
                an_account(tx)?;
                let c = &mut Tx::Sqlite(tx);
                for n in 1..=300 {
                    let name = if n % 2 == 1 { "Cliente" } else { "Client" };
                    insert(c, &row(n, &format!("{name} {n}"))).unwrap();
                }
                catch_up_words(c, usize::MAX)?;
                Ok::<_, crate::StoreError>(())
            })
            .unwrap();
        (dir, store)
    }

    #[test]
    fn a_search_of_common_words_reads_the_newest_labels_and_finds_what_the_index_would() {
        let (_dir, store) = three_hundred_clients();
        let labels = |ns: &[i64]| ns.iter().map(|n| format!("label-{n}")).collect::<Vec<_>>();
        store
            .read(|conn| {
                let c = &mut Tx::Sqlite(conn);
                // Where each search starts: the rarest word's hits, or (None) the newest labels.
                assert_eq!(
                    search_start(c, "Cliente 123", WORD_ENTRIES_COMMON)?.map(|r| r[0].clone()),
                    Some("123".into())
                );
                assert_eq!(
                    search_start(c, "Cliente 2", WORD_ENTRIES_COMMON)?,
                    None,
                    "both words common"
                );
                assert_eq!(
                    search_start(c, "lient", WORD_ENTRIES_COMMON)?,
                    None,
                    "the end of 150 words"
                );
                // What they find, newest first (`list` answers one more than the page of 10).
                assert_eq!(found(conn, "Cliente 123"), labels(&[123]));
                // Words parted by a tab, a no-break space or two spaces are the same words.
                assert_eq!(found(conn, " Cliente\t123 "), labels(&[123]));
                assert_eq!(found(conn, "Cliente\u{a0}\u{a0}123"), labels(&[123]));
                assert_eq!(
                    found(conn, "Cliente 2"),
                    labels(&[299, 297, 295, 293, 291, 289, 287, 285, 283, 281, 279])
                );
                // One common word: at the start or end of a word, as the index finds it, so
                // "Cliente" (the middle of it) is not found by "lient".
                assert_eq!(
                    found(conn, "lient"),
                    labels(&[300, 298, 296, 294, 292, 290, 288, 286, 284, 282, 280])
                );
                Ok::<_, crate::StoreError>(())
            })
            .unwrap();
    }

    /// The newest-first pages (History, `GET /labels`, the print jobs' list) read their ascending
    /// index backwards (migration 20), never sorting the labels of the window.
    #[test]
    fn newest_first_pages_read_the_page_index_backwards() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::Store::open(&dir.path().join("db.sqlite3")).unwrap();
        let after = Cursor {
            created_at: i64::MAX,
            id: String::new(),
        };
        let labels = LabelFilter {
            created_at_max: i64::MAX,
            ..Default::default()
        };
        let none: Option<String> = None;
        // The statements the lists run, for a page after the first with no filter but the window.
        let jobs: [&dyn Param; 8] = [&Env::Sandbox, &0i64, &i64::MAX, &none, &none, &i64::MAX, &"", &51i64];
        let deliveries: [&dyn Param; 9] = [
            &Env::Sandbox,
            &0i64,
            &i64::MAX,
            &none,
            &none,
            &none,
            &i64::MAX,
            &"",
            &51i64,
        ];
        let plans = store
            .read(|c| {
                let c = &mut Tx::Sqlite(c);
                let label_page = page_query(c, Env::Sandbox, &labels, 51, Some(&after))?;
                let mut plan = |sql: &str, args: &[&dyn Param]| {
                    let steps: Vec<(i64, i64, i64, String)> = c.rows(&format!("EXPLAIN QUERY PLAN {sql}"), args)?;
                    Ok::<_, crate::StoreError>(steps.into_iter().map(|s| s.3).collect::<Vec<_>>())
                };
                Ok::<_, crate::StoreError>([
                    ("labels_page", plan(&label_page.sql, &label_page.args.refs())?),
                    ("print_jobs_page", plan(&crate::printing::list_jobs_sql(), &jobs)?),
                    (
                        "webhook_deliveries_page",
                        plan(&crate::webhooks::list_sql(), &deliveries)?,
                    ),
                ])
            })
            .unwrap();
        for (index, plan) in plans {
            assert!(plan.iter().any(|step| step.contains(index)), "{index}: {plan:?}");
            assert!(
                !plan.iter().any(|step| step.contains("TEMP B-TREE")),
                "{index} sorted: {plan:?}"
            );
        }
    }

    #[test]
    fn a_label_is_found_by_its_tracking_number_through_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::Store::open(&dir.path().join("db.sqlite3")).unwrap();
        let plan: Vec<String> = store
            .read(|c| {
                let sql = format!("EXPLAIN QUERY PLAN {}", by_tracking_number(Dialect::Sqlite, "?2, ?3"));
                let mut st = c.prepare(&sql)?;
                let rows = st.query_map(["sandbox", "JD1", "JD2"], |r| r.get::<_, String>(3))?;
                Ok::<_, crate::StoreError>(rows.collect::<Result<_, _>>()?)
            })
            .unwrap();
        assert!(
            plan.iter().any(|step| step.contains("USING PRIMARY KEY (number=?)")),
            "{plan:?}"
        );
        // And the filter finds them.
        store
            .write(|tx| {
                an_account(tx)?;
                let c = &mut Tx::Sqlite(tx);
                for n in 1..=3 {
                    insert(c, &row(n, "")).unwrap();
                    crate::tracking::register(c, Env::Sandbox, "yodel", &format!("JD{n}"), &format!("label-{n}"))?;
                }
                // A label of two parcels.
                crate::tracking::register(c, Env::Sandbox, "yodel", "JD1B", "label-1")?;
                Ok::<_, crate::StoreError>(())
            })
            .unwrap();
        let f = LabelFilter {
            created_at_max: i64::MAX,
            tracking_numbers: vec!["JD1".into(), "JD1B".into(), "JD3".into()],
            ..Default::default()
        };
        let ids: Vec<String> = store
            .read(|c| list(&mut Tx::Sqlite(c), Env::Sandbox, &f, 10, None))
            .unwrap()
            .rows
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
                an_account(tx).unwrap();
                let c = &mut Tx::Sqlite(tx);
                conn_insert(c, &row(1, "JD000111222333 ORD-1001 Jane Doe M1 1AE"));
                conn_insert(c, &row(2, "JD000111222444 ORD-1002 \"Quoted\" Co 75001"));
                conn_insert(c, &row(3, ""));
                Ok(())
            })
            .unwrap();
        store
            .write(|tx| catch_up_words(&mut Tx::Sqlite(tx), usize::MAX))
            .unwrap();
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
            .write(|tx| {
                complete(
                    &mut Tx::Sqlite(tx),
                    "label-3",
                    LabelStatus::Created,
                    &"{}".into(),
                    "JD999 ORD-7",
                    4,
                )
            })
            .unwrap();
        store
            .write(|tx| {
                let c = &mut Tx::Sqlite(tx);
                conn_insert(c, &row(5, ""));
                complete(c, "label-5", LabelStatus::Created, &"{}".into(), "JD555 ORD-8", 6)?;
                assert_eq!(catch_up_words(c, usize::MAX)?, 1);
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

    fn conn_insert(c: &mut Tx<'_>, r: &LabelRow) {
        if let Err(InsertError::Db(e)) = insert(c, r) {
            panic!("{e}");
        }
    }
}
