//! Printers (machine-wide: the desk's hardware), print profiles (one per document type) and print
//! jobs (one per document sent, with its outcome).
//!
//! On a shared database printers and profiles belong to a desk (its hardware); print jobs are
//! shared, each noting the desk of its printer, whose print worker alone takes it (`jobs_in`
//! reads this desk's only), so a label made through the API at one desk prints at the desk whose
//! printer its profile names. One desk's own file has no desk column: all it holds is its own.

use crate::db::Tx;
use crate::paging::Cursor;
use crate::sql::{placeholders, table_row, Param, TableRow};
use packdesk_model::status::Env;
use packdesk_model::status::{DocumentType, PrintJobStatus, PrinterFormat, PrinterTransport};

table_row! {
#[derive(Debug, Clone, PartialEq)]
pub struct PrinterRow {
    pub id: String,
    pub name: String,
    pub transport: PrinterTransport,
    /// queue name, host:port or ipp URI
    pub address: String,
    pub format: PrinterFormat,
    pub dpi: i64,
    pub strip_zpl_setup: bool,
    pub created_at: i64,
    pub updated_at: i64,
}
}

/// `sql` as this database takes it: what `sql` has in braces is the shared database's only (the
/// desk of printers, profiles and print jobs). With `desk`, the number of the desk's parameter,
/// it stays, `?desk` numbered so; without (one desk's own file, which has no desk column), it goes.
fn desk_sql(sql: &str, desk: Option<usize>) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut rest = sql;
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}').expect("a brace closed in the statement");
        out.push_str(&rest[..open]);
        if let Some(n) = desk {
            out.push_str(&rest[open + 1..close].replace("?desk", &format!("?{n}")));
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Runs `run` with `sql` (`desk_sql`) and `params` for `desk`'s rows: on a shared database the
/// desk's name is the parameter after `params`; None on one desk's own file.
fn with_desk<R>(
    c: &mut Tx<'_>,
    desk: Option<&str>,
    sql: &str,
    params: &[&dyn Param],
    run: impl FnOnce(&mut Tx<'_>, &str, &[&dyn Param]) -> crate::Result<R>,
) -> crate::Result<R> {
    match desk {
        None => run(c, &desk_sql(sql, None), params),
        Some(desk) => {
            let mut all = params.to_vec();
            all.push(&desk);
            run(c, &desk_sql(sql, Some(all.len())), &all)
        }
    }
}

/// As `with_desk`, for this desk's own rows.
fn own<R>(
    c: &mut Tx<'_>,
    sql: &str,
    params: &[&dyn Param],
    run: impl FnOnce(&mut Tx<'_>, &str, &[&dyn Param]) -> crate::Result<R>,
) -> crate::Result<R> {
    let desk = c.desk().map(str::to_owned);
    with_desk(c, desk.as_deref(), sql, params, run)
}

/// Writes a printer of this desk.
pub fn put_printer(c: &mut Tx<'_>, p: &PrinterRow) -> crate::Result<()> {
    own(
        c,
        &format!(
            "INSERT INTO printers ({}{{, desk}}) VALUES ({}{{, ?desk}})
             ON CONFLICT (id) DO UPDATE SET name = excluded.name, transport = excluded.transport,
             address = excluded.address, format = excluded.format, dpi = excluded.dpi,
             strip_zpl_setup = excluded.strip_zpl_setup, updated_at = excluded.updated_at",
            PrinterRow::COLUMNS,
            placeholders(PrinterRow::COUNT)
        ),
        &p.values(),
        |c, sql, params| c.execute(sql, params),
    )?;
    Ok(())
}

/// A printer by id: this desk's, or (shared database) another desk's, whose worker sends its jobs.
pub fn printer(c: &mut Tx<'_>, id: &str) -> crate::Result<Option<PrinterRow>> {
    c.row(
        &format!("SELECT {} FROM printers WHERE id = ?1", PrinterRow::COLUMNS),
        &[&id],
    )
}

/// The printers of this desk.
pub fn printers(c: &mut Tx<'_>) -> crate::Result<Vec<PrinterRow>> {
    own(
        c,
        &format!(
            "SELECT {} FROM printers {{WHERE desk = ?desk }}ORDER BY name, id",
            PrinterRow::COLUMNS
        ),
        &[],
        |c, sql, params| c.rows(sql, params),
    )
}

/// Deletes a printer of this desk (its profiles go with it). False if it had none by that id.
pub fn delete_printer(c: &mut Tx<'_>, id: &str) -> crate::Result<bool> {
    Ok(own(
        c,
        "DELETE FROM printers WHERE id = ?1{ AND desk = ?desk}",
        &[&id],
        |c, sql, params| c.execute(sql, params),
    )? == 1)
}

table_row! {
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileRow {
    pub document_type: DocumentType,
    pub printer_id: String,
    pub stock: String,
    pub copies: i64,
    pub auto_print: bool,
    pub updated_at: i64,
}
}

/// Writes a profile of this desk (one per document type and desk).
pub fn put_profile(c: &mut Tx<'_>, p: &ProfileRow) -> crate::Result<()> {
    own(
        c,
        "INSERT INTO print_profiles ({desk, }document_type, printer_id, stock, copies, auto_print, updated_at)
         VALUES ({?desk, }?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT ({desk, }document_type) DO UPDATE SET printer_id = excluded.printer_id, stock = excluded.stock,
         copies = excluded.copies, auto_print = excluded.auto_print, updated_at = excluded.updated_at",
        &[
            &p.document_type,
            &p.printer_id,
            &p.stock,
            &p.copies,
            &p.auto_print,
            &p.updated_at,
        ],
        |c, sql, params| c.execute(sql, params),
    )?;
    Ok(())
}

pub fn profile(c: &mut Tx<'_>, document_type: DocumentType) -> crate::Result<Option<ProfileRow>> {
    own(
        c,
        "SELECT document_type, printer_id, stock, copies, auto_print, updated_at FROM print_profiles
         WHERE {desk = ?desk AND }document_type = ?1",
        &[&document_type],
        |c, sql, params| c.row(sql, params),
    )
}

/// Looked up for every label made (auto-print), so the service keeps what it read
/// (`printing::ProfileCache` there); one round trip on a statement prepared once per pooled
/// connection (`Tx::rows`).
pub fn profiles(c: &mut Tx<'_>) -> crate::Result<Vec<ProfileRow>> {
    own(
        c,
        "SELECT document_type, printer_id, stock, copies, auto_print, updated_at FROM print_profiles
         {WHERE desk = ?desk }ORDER BY document_type",
        &[],
        |c, sql, params| c.rows(sql, params),
    )
}

pub fn delete_profile(c: &mut Tx<'_>, document_type: DocumentType) -> crate::Result<bool> {
    Ok(own(
        c,
        "DELETE FROM print_profiles WHERE {desk = ?desk AND }document_type = ?1",
        &[&document_type],
        |c, sql, params| c.execute(sql, params),
    )? == 1)
}

table_row! {
#[derive(Debug, Clone, PartialEq)]
pub struct PrintJobRow {
    pub id: String,
    pub env: Env,
    pub printer_id: String,
    pub document_type: DocumentType,
    /// The label, manifest or bulk download the document belongs to (the printer for a test page).
    pub owner_id: String,
    /// The stored file printed ("" for a test page, which is made anew).
    pub file_id: String,
    pub copies: i64,
    /// The stock it prints on (4x6, a4, ...).
    pub stock: String,
    pub status: PrintJobStatus,
    pub error: Option<String>,
    pub attempts: i64,
    pub bytes_sent: Option<i64>,
    pub reference: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub printed_at: Option<i64>,
    /// Who sent it to print (the operator, the key, or `desk`).
    pub operator: Option<String>,
}
}

/// Writes a print job; on a shared database it belongs to the desk of its printer, whichever
/// desk made or retried it (this desk's when the printer is gone).
pub fn put_job(c: &mut Tx<'_>, j: &PrintJobRow) -> crate::Result<()> {
    let desk = match c.desk().map(str::to_owned) {
        None => None,
        Some(this) => Some(
            c.value::<String>("SELECT desk FROM printers WHERE id = ?1", &[&j.printer_id])?
                .unwrap_or(this),
        ),
    };
    with_desk(
        c,
        desk.as_deref(),
        &format!(
            "INSERT INTO print_jobs ({}{{, desk}}) VALUES ({}{{, ?desk}})
             ON CONFLICT (id) DO UPDATE SET printer_id = excluded.printer_id,{{ desk = excluded.desk,}}
             status = excluded.status, error = excluded.error, attempts = excluded.attempts,
             bytes_sent = excluded.bytes_sent, reference = excluded.reference,
             updated_at = excluded.updated_at, printed_at = excluded.printed_at",
            PrintJobRow::COLUMNS,
            placeholders(PrintJobRow::COUNT)
        ),
        &j.values(),
        |c, sql, params| c.execute(sql, params),
    )?;
    Ok(())
}

pub fn job(c: &mut Tx<'_>, id: &str) -> crate::Result<Option<PrintJobRow>> {
    c.row(
        &format!("SELECT {} FROM print_jobs WHERE id = ?1", PrintJobRow::COLUMNS),
        &[&id],
    )
}

/// This desk's jobs in `status`, oldest change first (the retrier's and a restart's work).
pub fn jobs_in(c: &mut Tx<'_>, status: PrintJobStatus, limit: usize) -> crate::Result<Vec<PrintJobRow>> {
    own(
        c,
        &format!(
            "SELECT {} FROM print_jobs WHERE {{desk = ?desk AND }}status = ?1 ORDER BY updated_at, id LIMIT ?2",
            PrintJobRow::COLUMNS
        ),
        &[&status, &(limit as i64)],
        |c, sql, params| c.rows(sql, params),
    )
}

/// What waits for a printer: jobs queued or being sent, failed jobs not printed since, and the
/// newest failure's reason (by the status index: only unfinished jobs are read).
pub fn backlog(c: &mut Tx<'_>, printer_id: &str) -> crate::Result<(i64, i64, Option<String>)> {
    Ok(c.row(
        "SELECT COUNT(*) FILTER (WHERE status IN ('queued', 'printing')),
                COUNT(*) FILTER (WHERE status = 'failed'),
                (SELECT error FROM print_jobs WHERE status = 'failed' AND error IS NOT NULL AND printer_id = ?1
                 ORDER BY updated_at DESC LIMIT 1)
         FROM print_jobs WHERE status IN ('queued', 'printing', 'failed') AND printer_id = ?1",
        &[&printer_id],
    )?
    .unwrap_or((0, 0, None)))
}

/// A failed job worth another try: fewer than `?1` attempts, last tried before `?2`, and its
/// document not sent to a printer again since (a reprint, a manual retry's new job): retrying it
/// too would print the document twice.
const DUE_AGAIN: &str = "status = 'failed' AND attempts < ?1 AND updated_at <= ?2
         AND NOT EXISTS (SELECT 1 FROM print_jobs later WHERE later.owner_id = print_jobs.owner_id
         AND later.document_type = print_jobs.document_type AND later.created_at > print_jobs.created_at
         AND later.status IN ('queued', 'printing', 'printed'))";

/// This desk's failed jobs worth another try (`DUE_AGAIN`), the longest waiting first
/// (filtered here, so newer failures are never starved by old ones).
pub fn retry_due(c: &mut Tx<'_>, max_attempts: i64, cutoff: i64, limit: usize) -> crate::Result<Vec<PrintJobRow>> {
    own(
        c,
        &format!(
            "SELECT {} FROM print_jobs WHERE {{desk = ?desk AND }}{DUE_AGAIN} ORDER BY updated_at, id LIMIT ?3",
            PrintJobRow::COLUMNS
        ),
        &[&max_attempts, &cutoff, &(limit as i64)],
        |c, sql, params| c.rows(sql, params),
    )
}

/// The job `id` if it still waits for the print worker as read now: queued, or failed and due
/// again (`DUE_AGAIN`, as `retry_due` lists them). A round's list may be older than the job's
/// last outcome.
pub fn still_waiting(c: &mut Tx<'_>, id: &str, max_attempts: i64, cutoff: i64) -> crate::Result<Option<PrintJobRow>> {
    c.row(
        &format!(
            "SELECT {} FROM print_jobs WHERE id = ?3 AND (status = 'queued' OR ({DUE_AGAIN}))",
            PrintJobRow::COLUMNS
        ),
        &[&max_attempts, &cutoff, &id],
    )
}

#[derive(Debug, Clone, Default)]
pub struct JobFilter {
    pub status: Option<PrintJobStatus>,
    pub owner_id: Option<String>,
    pub created_at_min: i64,
    pub created_at_max: i64,
}

/// The status and error of the newest print job of a document of `owner_id` (a label's label,
/// say), or None when it was never sent to a printer.
pub fn last_job_of(
    c: &mut Tx<'_>,
    owner_id: &str,
    document_type: DocumentType,
) -> crate::Result<Option<(PrintJobStatus, Option<String>)>> {
    c.row(
        "SELECT status, error FROM print_jobs WHERE owner_id = ?1 AND document_type = ?2
         ORDER BY created_at DESC, id DESC LIMIT 1",
        &[&owner_id, &document_type],
    )
}

/// Newest first, `limit + 1` rows so the caller knows whether there is a next page; every desk's
/// jobs.
pub fn list_jobs(
    c: &mut Tx<'_>,
    env: Env,
    f: &JobFilter,
    limit: usize,
    after: Option<&Cursor>,
) -> crate::Result<Vec<PrintJobRow>> {
    let (t, id) = after.map(|c| (c.created_at, c.id.as_str())).unwrap_or((i64::MAX, ""));
    // A list with optional filters and a time window: planned for its values each time.
    c.rows_planned_each_time(
        &list_jobs_sql(),
        &[
            &env,
            &f.created_at_min,
            &crate::paging::newest(f.created_at_max, after),
            &f.status,
            &f.owner_id,
            &t,
            &id,
            &((limit + 1) as i64),
        ],
    )
}

/// `list_jobs`'s statement: environment, window (?1-?3), status, owner, the page's start, limit.
pub(crate) fn list_jobs_sql() -> String {
    format!(
        "SELECT {} FROM print_jobs WHERE env = ?1 AND created_at >= ?2 AND created_at <= ?3
         AND (CAST(?4 AS TEXT) IS NULL OR status = ?4) AND (CAST(?5 AS TEXT) IS NULL OR owner_id = ?5)
         AND (created_at, id) < (?6, ?7) ORDER BY created_at DESC, id DESC LIMIT ?8",
        PrintJobRow::COLUMNS
    )
}

/// This desk's jobs queued or being sent (one desk's file: over both environments), by the status
/// index.
pub fn waiting_jobs(c: &mut Tx<'_>) -> crate::Result<i64> {
    Ok(own(
        c,
        "SELECT COUNT(*) FROM print_jobs WHERE {desk = ?desk AND }status IN ('queued', 'printing')",
        &[],
        |c, sql, params| c.value(sql, params),
    )?
    .unwrap_or(0))
}

/// Each of this desk's printers' newest failed job: (printer id, when it failed, why), by the
/// status index.
pub fn newest_failures(c: &mut Tx<'_>) -> crate::Result<Vec<(String, i64, Option<String>)>> {
    own(
        c,
        "SELECT printer_id, updated_at, error FROM (
             SELECT printer_id, updated_at, error,
                    ROW_NUMBER() OVER (PARTITION BY printer_id ORDER BY updated_at DESC) AS newest
             FROM print_jobs WHERE {desk = ?desk AND }status = 'failed') AS failures
         WHERE newest = 1 ORDER BY printer_id",
        &[],
        |c, sql, params| c.rows(sql, params),
    )
}

/// Whether `printer_id` printed a job after `since` (its failure is over).
pub fn printed_since(c: &mut Tx<'_>, printer_id: &str, since: i64) -> crate::Result<bool> {
    c.exists(
        "SELECT 1 FROM print_jobs WHERE status = 'printed' AND updated_at > ?2 AND printer_id = ?1 LIMIT 1",
        &[&printer_id, &since],
    )
}

#[cfg(test)]
mod tests {
    use super::{desk_sql, PrintJobStatus};

    #[test]
    fn a_status_column_reads_as_its_enum_and_an_unknown_word_fails_the_read() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let read = |word: &str| conn.query_row("SELECT ?1", [word], |r| r.get::<_, PrintJobStatus>(0));
        assert_eq!(read("printed").unwrap(), PrintJobStatus::Printed);
        let err = read("lost").unwrap_err().to_string();
        assert!(err.contains("`lost` is not a PrintJobStatus"), "{err}");
    }

    #[test]
    fn what_is_in_braces_is_the_shared_databases_only() {
        let sql = "INSERT INTO t (a{, desk}) VALUES (?1{, ?desk}) WHERE {desk = ?desk AND }b = ?1";
        assert_eq!(desk_sql(sql, None), "INSERT INTO t (a) VALUES (?1) WHERE b = ?1");
        assert_eq!(
            desk_sql(sql, Some(2)),
            "INSERT INTO t (a, desk) VALUES (?1, ?2) WHERE desk = ?2 AND b = ?1"
        );
    }
}
