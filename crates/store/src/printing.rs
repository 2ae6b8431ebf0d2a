//! Printers (machine-wide: the desk's hardware), print profiles (one per document type) and print
//! jobs (one per document sent, with its outcome).

use crate::paging::Cursor;
use packdesk_model::status::PrintJobStatus;
use rusqlite::{params, Connection, OptionalExtension, Row};

#[derive(Debug, Clone, PartialEq)]
pub struct PrinterRow {
    pub id: String,
    pub name: String,
    /// spooler, raw, ipp
    pub transport: String,
    /// queue name, host:port or ipp URI
    pub address: String,
    /// pdf or zpl
    pub format: String,
    pub dpi: i64,
    pub strip_zpl_setup: bool,
    pub created_at: i64,
    pub updated_at: i64,
}

const PRINTER_COLS: &str = "id, name, transport, address, format, dpi, strip_zpl_setup, created_at, updated_at";

fn printer_row(r: &Row) -> rusqlite::Result<PrinterRow> {
    Ok(PrinterRow {
        id: r.get(0)?,
        name: r.get(1)?,
        transport: r.get(2)?,
        address: r.get(3)?,
        format: r.get(4)?,
        dpi: r.get(5)?,
        strip_zpl_setup: r.get(6)?,
        created_at: r.get(7)?,
        updated_at: r.get(8)?,
    })
}

pub fn put_printer(conn: &Connection, p: &PrinterRow) -> crate::Result<()> {
    conn.prepare_cached(&format!(
        "INSERT INTO printers ({PRINTER_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, transport = excluded.transport, address = excluded.address,
         format = excluded.format, dpi = excluded.dpi, strip_zpl_setup = excluded.strip_zpl_setup, updated_at = excluded.updated_at"
    ))?
    .execute(params![p.id, p.name, p.transport, p.address, p.format, p.dpi, p.strip_zpl_setup, p.created_at, p.updated_at])?;
    Ok(())
}

pub fn printer(conn: &Connection, id: &str) -> crate::Result<Option<PrinterRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {PRINTER_COLS} FROM printers WHERE id = ?1"))?
        .query_row([id], printer_row)
        .optional()?)
}

pub fn printers(conn: &Connection) -> crate::Result<Vec<PrinterRow>> {
    let mut st = conn.prepare_cached(&format!("SELECT {PRINTER_COLS} FROM printers ORDER BY name, id"))?;
    let rows = st.query_map([], printer_row)?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
}

/// Deletes a printer (its profiles go with it). False if there was none.
pub fn delete_printer(conn: &Connection, id: &str) -> crate::Result<bool> {
    Ok(conn
        .prepare_cached("DELETE FROM printers WHERE id = ?1")?
        .execute([id])?
        == 1)
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProfileRow {
    pub document_type: String,
    pub printer_id: String,
    pub stock: String,
    pub copies: i64,
    pub auto_print: bool,
    pub updated_at: i64,
}

fn profile_row(r: &Row) -> rusqlite::Result<ProfileRow> {
    Ok(ProfileRow {
        document_type: r.get(0)?,
        printer_id: r.get(1)?,
        stock: r.get(2)?,
        copies: r.get(3)?,
        auto_print: r.get(4)?,
        updated_at: r.get(5)?,
    })
}

pub fn put_profile(conn: &Connection, p: &ProfileRow) -> crate::Result<()> {
    conn.prepare_cached(
        "INSERT INTO print_profiles (document_type, printer_id, stock, copies, auto_print, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (document_type) DO UPDATE SET printer_id = excluded.printer_id, stock = excluded.stock,
         copies = excluded.copies, auto_print = excluded.auto_print, updated_at = excluded.updated_at",
    )?
    .execute(params![p.document_type, p.printer_id, p.stock, p.copies, p.auto_print, p.updated_at])?;
    Ok(())
}

pub fn profile(conn: &Connection, document_type: &str) -> crate::Result<Option<ProfileRow>> {
    Ok(conn.prepare_cached("SELECT document_type, printer_id, stock, copies, auto_print, updated_at FROM print_profiles WHERE document_type = ?1")?
        .query_row([document_type], profile_row)
        .optional()?)
}

pub fn profiles(conn: &Connection) -> crate::Result<Vec<ProfileRow>> {
    let mut st = conn.prepare_cached("SELECT document_type, printer_id, stock, copies, auto_print, updated_at FROM print_profiles ORDER BY document_type")?;
    let rows = st.query_map([], profile_row)?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
}

pub fn delete_profile(conn: &Connection, document_type: &str) -> crate::Result<bool> {
    Ok(conn
        .prepare_cached("DELETE FROM print_profiles WHERE document_type = ?1")?
        .execute([document_type])?
        == 1)
}

#[derive(Debug, Clone, PartialEq)]
pub struct PrintJobRow {
    pub id: String,
    pub env: String,
    pub printer_id: String,
    /// label, invoice, customs_declaration, packing_slip, manifest, bulk_download, test_page
    pub document_type: String,
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
}

const JOB_COLS: &str =
    "id, env, printer_id, document_type, owner_id, file_id, copies, stock, status, error, attempts, bytes_sent, reference, created_at, updated_at, printed_at";

fn job_row(r: &Row) -> rusqlite::Result<PrintJobRow> {
    Ok(PrintJobRow {
        id: r.get(0)?,
        env: r.get(1)?,
        printer_id: r.get(2)?,
        document_type: r.get(3)?,
        owner_id: r.get(4)?,
        file_id: r.get(5)?,
        copies: r.get(6)?,
        stock: r.get(7)?,
        status: r.get(8)?,
        error: r.get(9)?,
        attempts: r.get(10)?,
        bytes_sent: r.get(11)?,
        reference: r.get(12)?,
        created_at: r.get(13)?,
        updated_at: r.get(14)?,
        printed_at: r.get(15)?,
    })
}

pub fn put_job(conn: &Connection, j: &PrintJobRow) -> crate::Result<()> {
    conn.prepare_cached(&format!(
        "INSERT INTO print_jobs ({JOB_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
         ON CONFLICT (id) DO UPDATE SET printer_id = excluded.printer_id, status = excluded.status, error = excluded.error,
         attempts = excluded.attempts, bytes_sent = excluded.bytes_sent, reference = excluded.reference,
         updated_at = excluded.updated_at, printed_at = excluded.printed_at"
    ))?
    .execute(params![
        j.id, j.env, j.printer_id, j.document_type, j.owner_id, j.file_id, j.copies, j.stock, j.status, j.error, j.attempts, j.bytes_sent,
        j.reference, j.created_at, j.updated_at, j.printed_at
    ])?;
    Ok(())
}

pub fn job(conn: &Connection, id: &str) -> crate::Result<Option<PrintJobRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {JOB_COLS} FROM print_jobs WHERE id = ?1"))?
        .query_row([id], job_row)
        .optional()?)
}

/// Jobs in `status`, oldest change first (the retrier's and a restart's work).
pub fn jobs_in(conn: &Connection, status: PrintJobStatus, limit: usize) -> crate::Result<Vec<PrintJobRow>> {
    let mut st = conn.prepare_cached(&format!(
        "SELECT {JOB_COLS} FROM print_jobs WHERE status = ?1 ORDER BY updated_at, id LIMIT ?2"
    ))?;
    let rows = st.query_map(params![status, limit as i64], job_row)?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
}

/// What waits for a printer: jobs queued or being sent, failed jobs not printed since, and the
/// newest failure's reason (by the status index: only unfinished jobs are read).
pub fn backlog(conn: &Connection, printer_id: &str) -> crate::Result<(i64, i64, Option<String>)> {
    let mut st = conn.prepare_cached(
        "SELECT status, error FROM print_jobs WHERE status IN ('queued', 'printing', 'failed') AND printer_id = ?1
         ORDER BY updated_at DESC",
    )?;
    let rows = st.query_map(params![printer_id], |r| {
        Ok((r.get::<_, PrintJobStatus>(0)?, r.get::<_, Option<String>>(1)?))
    })?;
    let (mut waiting, mut failed, mut last_error) = (0, 0, None);
    for row in rows {
        let (status, error) = row?;
        if status == PrintJobStatus::Failed {
            failed += 1;
            last_error = last_error.or(error);
        } else {
            waiting += 1;
        }
    }
    Ok((waiting, failed, last_error))
}

/// Failed jobs worth another try: fewer than `max_attempts` and last tried before `cutoff`, the
/// longest waiting first (filtered here, so newer failures are never starved by old ones).
/// A failed job whose document was sent to a printer again since (a reprint, a manual retry's
/// new job): retrying it too would print the document twice.
const SUPERSEDED: &str = "EXISTS (SELECT 1 FROM print_jobs later WHERE later.owner_id = print_jobs.owner_id
     AND later.document_type = print_jobs.document_type AND later.created_at > print_jobs.created_at
     AND later.status IN ('queued', 'printing', 'printed'))";

pub fn retry_due(conn: &Connection, max_attempts: i64, cutoff: i64, limit: usize) -> crate::Result<Vec<PrintJobRow>> {
    let mut st = conn.prepare_cached(&format!(
        "SELECT {JOB_COLS} FROM print_jobs WHERE status = 'failed' AND attempts < ?1 AND updated_at <= ?2
         AND NOT {SUPERSEDED} ORDER BY updated_at, id LIMIT ?3"
    ))?;
    let rows = st.query_map(params![max_attempts, cutoff, limit as i64], job_row)?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
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
    conn: &Connection,
    owner_id: &str,
    document_type: &str,
) -> crate::Result<Option<(PrintJobStatus, Option<String>)>> {
    Ok(conn
        .prepare_cached(
            "SELECT status, error FROM print_jobs WHERE owner_id = ?1 AND document_type = ?2
             ORDER BY created_at DESC, id DESC LIMIT 1",
        )?
        .query_row(params![owner_id, document_type], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

/// Newest first, `limit + 1` rows so the caller knows whether there is a next page.
pub fn list_jobs(
    conn: &Connection,
    env: &str,
    f: &JobFilter,
    limit: usize,
    after: Option<&Cursor>,
) -> crate::Result<Vec<PrintJobRow>> {
    let (t, id) = after.map(|c| (c.created_at, c.id.as_str())).unwrap_or((i64::MAX, ""));
    let mut st = conn.prepare_cached(&format!(
        "SELECT {JOB_COLS} FROM print_jobs WHERE env = ?1 AND created_at >= ?2 AND created_at <= ?3
         AND (?4 IS NULL OR status = ?4) AND (?5 IS NULL OR owner_id = ?5)
         AND (created_at, id) < (?6, ?7) ORDER BY created_at DESC, id DESC LIMIT ?8"
    ))?;
    let rows = st.query_map(
        params![
            env,
            f.created_at_min,
            f.created_at_max,
            f.status,
            f.owner_id,
            t,
            id,
            (limit + 1) as i64
        ],
        job_row,
    )?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
}

/// Jobs queued or being sent, over both environments (by the status index).
pub fn waiting_jobs(conn: &Connection) -> crate::Result<i64> {
    Ok(conn
        .prepare_cached("SELECT COUNT(*) FROM print_jobs WHERE status IN ('queued', 'printing')")?
        .query_row([], |r| r.get(0))?)
}

/// Each printer's newest failed job: (printer id, when it failed, why), by the status index.
pub fn newest_failures(conn: &Connection) -> crate::Result<Vec<(String, i64, Option<String>)>> {
    // SQLite takes the bare columns from the row of the MAX.
    let mut st = conn.prepare_cached(
        "SELECT printer_id, MAX(updated_at), error FROM print_jobs WHERE status = 'failed' GROUP BY printer_id",
    )?;
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    rows.collect::<rusqlite::Result<_>>().map_err(Into::into)
}

/// Whether `printer_id` printed a job after `since` (its failure is over).
pub fn printed_since(conn: &Connection, printer_id: &str, since: i64) -> crate::Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT 1 FROM print_jobs WHERE status = 'printed' AND updated_at > ?2 AND printer_id = ?1 LIMIT 1",
        )?
        .query_row(params![printer_id, since], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Printers, profiles and print jobs in the shared database. Printers and profiles belong to a
/// desk (its hardware); print jobs are shared, each noting the desk of its printer, whose print
/// worker alone takes it (`claim_queued`), so a label made through the API at one desk prints at
/// the desk whose printer its profile names.
pub mod pg {
    use super::{JobFilter, PrintJobRow, PrintJobStatus, PrinterRow, ProfileRow, JOB_COLS, PRINTER_COLS};
    use crate::paging::Cursor;
    use postgres::types::Type;
    use postgres::GenericClient;

    fn printer_row(r: &postgres::Row) -> PrinterRow {
        PrinterRow {
            id: r.get(0),
            name: r.get(1),
            transport: r.get(2),
            address: r.get(3),
            format: r.get(4),
            dpi: r.get(5),
            strip_zpl_setup: r.get(6),
            created_at: r.get(7),
            updated_at: r.get(8),
        }
    }

    fn profile_row(r: &postgres::Row) -> ProfileRow {
        ProfileRow {
            document_type: r.get(0),
            printer_id: r.get(1),
            stock: r.get(2),
            copies: r.get(3),
            auto_print: r.get(4),
            updated_at: r.get(5),
        }
    }

    fn job_row(r: &postgres::Row) -> PrintJobRow {
        PrintJobRow {
            id: r.get(0),
            env: r.get(1),
            printer_id: r.get(2),
            document_type: r.get(3),
            owner_id: r.get(4),
            file_id: r.get(5),
            copies: r.get(6),
            stock: r.get(7),
            status: r.get(8),
            error: r.get(9),
            attempts: r.get(10),
            bytes_sent: r.get(11),
            reference: r.get(12),
            created_at: r.get(13),
            updated_at: r.get(14),
            printed_at: r.get(15),
        }
    }

    pub fn put_printer(tx: &mut impl GenericClient, desk: &str, p: &PrinterRow) -> crate::Result<()> {
        tx.execute(
            &format!(
                "INSERT INTO printers ({PRINTER_COLS}, desk) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                 ON CONFLICT (id) DO UPDATE SET name = excluded.name, transport = excluded.transport,
                 address = excluded.address, format = excluded.format, dpi = excluded.dpi,
                 strip_zpl_setup = excluded.strip_zpl_setup, updated_at = excluded.updated_at"
            ),
            &[
                &p.id,
                &p.name,
                &p.transport,
                &p.address,
                &p.format,
                &p.dpi,
                &p.strip_zpl_setup,
                &p.created_at,
                &p.updated_at,
                &desk,
            ],
        )?;
        Ok(())
    }

    /// A printer of any desk, and the desk it belongs to.
    pub fn printer(client: &mut impl GenericClient, id: &str) -> crate::Result<Option<(PrinterRow, String)>> {
        let sql = format!("SELECT {PRINTER_COLS}, desk FROM printers WHERE id = $1");
        Ok(client.query_opt(&sql, &[&id])?.map(|r| (printer_row(&r), r.get(9))))
    }

    /// The printers of one desk.
    pub fn printers(client: &mut impl GenericClient, desk: &str) -> crate::Result<Vec<PrinterRow>> {
        let sql = format!("SELECT {PRINTER_COLS} FROM printers WHERE desk = $1 ORDER BY name, id");
        Ok(client.query(&sql, &[&desk])?.iter().map(printer_row).collect())
    }

    /// Deletes a printer of the desk (its profiles go with it). False if it had none by that id.
    pub fn delete_printer(tx: &mut impl GenericClient, desk: &str, id: &str) -> crate::Result<bool> {
        Ok(tx.execute("DELETE FROM printers WHERE id = $1 AND desk = $2", &[&id, &desk])? == 1)
    }

    pub fn put_profile(tx: &mut impl GenericClient, desk: &str, p: &ProfileRow) -> crate::Result<()> {
        tx.execute(
            "INSERT INTO print_profiles (desk, document_type, printer_id, stock, copies, auto_print, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (desk, document_type) DO UPDATE SET printer_id = excluded.printer_id, stock = excluded.stock,
             copies = excluded.copies, auto_print = excluded.auto_print, updated_at = excluded.updated_at",
            &[
                &desk,
                &p.document_type,
                &p.printer_id,
                &p.stock,
                &p.copies,
                &p.auto_print,
                &p.updated_at,
            ],
        )?;
        Ok(())
    }

    pub fn profile(
        client: &mut impl GenericClient,
        desk: &str,
        document_type: &str,
    ) -> crate::Result<Option<ProfileRow>> {
        Ok(client
            .query_typed_opt(
                "SELECT document_type, printer_id, stock, copies, auto_print, updated_at FROM print_profiles
                 WHERE desk = $1 AND document_type = $2",
                &[(&desk, Type::TEXT), (&document_type, Type::TEXT)],
            )?
            .as_ref()
            .map(profile_row))
    }

    /// Read for every label made (auto-print): typed parameters, one round trip.
    pub fn profiles(client: &mut impl GenericClient, desk: &str) -> crate::Result<Vec<ProfileRow>> {
        let rows = crate::pg::query(
            client,
            "SELECT document_type, printer_id, stock, copies, auto_print, updated_at FROM print_profiles
             WHERE desk = $1 ORDER BY document_type",
            &[(&desk, Type::TEXT)],
        )?;
        Ok(rows.iter().map(profile_row).collect())
    }

    pub fn delete_profile(tx: &mut impl GenericClient, desk: &str, document_type: &str) -> crate::Result<bool> {
        Ok(tx.execute(
            "DELETE FROM print_profiles WHERE desk = $1 AND document_type = $2",
            &[&desk, &document_type],
        )? == 1)
    }

    /// Writes a print job for the desk of its printer.
    pub fn put_job(tx: &mut impl GenericClient, desk: &str, j: &PrintJobRow) -> crate::Result<()> {
        tx.execute(
            &format!(
                "INSERT INTO print_jobs ({JOB_COLS}, desk)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
                 ON CONFLICT (id) DO UPDATE SET printer_id = excluded.printer_id, desk = excluded.desk,
                 status = excluded.status, error = excluded.error, attempts = excluded.attempts,
                 bytes_sent = excluded.bytes_sent, reference = excluded.reference,
                 updated_at = excluded.updated_at, printed_at = excluded.printed_at"
            ),
            &[
                &j.id,
                &j.env,
                &j.printer_id,
                &j.document_type,
                &j.owner_id,
                &j.file_id,
                &j.copies,
                &j.stock,
                &j.status,
                &j.error,
                &j.attempts,
                &j.bytes_sent,
                &j.reference,
                &j.created_at,
                &j.updated_at,
                &j.printed_at,
                &desk,
            ],
        )?;
        Ok(())
    }

    pub fn job(client: &mut impl GenericClient, id: &str) -> crate::Result<Option<PrintJobRow>> {
        let sql = format!("SELECT {JOB_COLS} FROM print_jobs WHERE id = $1");
        Ok(client.query_opt(&sql, &[&id])?.as_ref().map(job_row))
    }

    /// The desk's queued jobs, oldest change first, marked `printing` in the caller's transaction:
    /// rows another transaction holds are passed over, so each job is sent once.
    pub fn claim_queued(
        tx: &mut impl GenericClient,
        desk: &str,
        now: i64,
        limit: usize,
    ) -> crate::Result<Vec<PrintJobRow>> {
        let sql = format!(
            "UPDATE print_jobs SET status = 'printing', updated_at = $2 WHERE id IN (
                 SELECT id FROM print_jobs WHERE desk = $1 AND status = 'queued'
                 ORDER BY updated_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
             RETURNING {JOB_COLS}"
        );
        let mut jobs: Vec<PrintJobRow> = tx
            .query(&sql, &[&desk, &now, &(limit as i64)])?
            .iter()
            .map(job_row)
            .collect();
        jobs.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(jobs)
    }

    /// The desk's jobs in `status`, oldest change first (the retrier's and a restart's work).
    pub fn jobs_in(
        client: &mut impl GenericClient,
        desk: &str,
        status: PrintJobStatus,
        limit: usize,
    ) -> crate::Result<Vec<PrintJobRow>> {
        let sql = format!(
            "SELECT {JOB_COLS} FROM print_jobs WHERE desk = $1 AND status = $2 ORDER BY updated_at, id LIMIT $3"
        );
        Ok(client
            .query(&sql, &[&desk, &status, &(limit as i64)])?
            .iter()
            .map(job_row)
            .collect())
    }

    /// What waits for a printer: jobs queued or being sent, failed jobs, the newest failure's reason.
    pub fn backlog(client: &mut impl GenericClient, printer_id: &str) -> crate::Result<(i64, i64, Option<String>)> {
        let row = client.query_one(
            "SELECT count(*) FILTER (WHERE status IN ('queued', 'printing')),
                    count(*) FILTER (WHERE status = 'failed'),
                    (array_agg(error ORDER BY updated_at DESC) FILTER (WHERE status = 'failed' AND error IS NOT NULL))[1]
             FROM print_jobs WHERE status IN ('queued', 'printing', 'failed') AND printer_id = $1",
            &[&printer_id],
        )?;
        Ok((row.get(0), row.get(1), row.get(2)))
    }

    /// The newest print job of a document of `owner_id`: its status and error.
    pub fn last_job_of(
        client: &mut impl GenericClient,
        owner_id: &str,
        document_type: &str,
    ) -> crate::Result<Option<(PrintJobStatus, Option<String>)>> {
        Ok(client
            .query_opt(
                "SELECT status, error FROM print_jobs WHERE owner_id = $1 AND document_type = $2
                 ORDER BY created_at DESC, id DESC LIMIT 1",
                &[&owner_id, &document_type],
            )?
            .map(|r| (r.get(0), r.get(1))))
    }

    /// Newest first, `limit + 1` rows, every desk's jobs.
    pub fn list_jobs(
        client: &mut impl GenericClient,
        env: &str,
        f: &JobFilter,
        limit: usize,
        after: Option<&Cursor>,
    ) -> crate::Result<Vec<PrintJobRow>> {
        let (t, id) = after.map(|c| (c.created_at, c.id.as_str())).unwrap_or((i64::MAX, ""));
        let sql = format!(
            "SELECT {JOB_COLS} FROM print_jobs WHERE env = $1 AND created_at >= $2 AND created_at <= $3
             AND ($4::text IS NULL OR status = $4) AND ($5::text IS NULL OR owner_id = $5)
             AND (created_at, id) < ($6, $7) ORDER BY created_at DESC, id DESC LIMIT $8"
        );
        let rows = client.query(
            &sql,
            &[
                &env,
                &f.created_at_min,
                &f.created_at_max,
                &f.status,
                &f.owner_id,
                &t,
                &id,
                &((limit + 1) as i64),
            ],
        )?;
        Ok(rows.iter().map(job_row).collect())
    }

    /// The desk's failed jobs worth another try: fewer than `max_attempts`, last tried before
    /// `cutoff`, the longest waiting first.
    pub fn retry_due(
        client: &mut impl GenericClient,
        desk: &str,
        max_attempts: i64,
        cutoff: i64,
        limit: usize,
    ) -> crate::Result<Vec<PrintJobRow>> {
        let sql = format!(
            "SELECT {JOB_COLS} FROM print_jobs WHERE desk = $1 AND status = 'failed' AND attempts < $2
             AND updated_at <= $3 AND NOT {} ORDER BY updated_at, id LIMIT $4",
            super::SUPERSEDED
        );
        Ok(client
            .query(&sql, &[&desk, &max_attempts, &cutoff, &(limit as i64)])?
            .iter()
            .map(job_row)
            .collect())
    }

    /// Each of the desk's printers' newest failed job: (printer id, when it failed, why).
    pub fn newest_failures(
        client: &mut impl GenericClient,
        desk: &str,
    ) -> crate::Result<Vec<(String, i64, Option<String>)>> {
        let rows = client.query(
            "SELECT DISTINCT ON (printer_id) printer_id, updated_at, error FROM print_jobs
             WHERE desk = $1 AND status = 'failed' ORDER BY printer_id, updated_at DESC",
            &[&desk],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect())
    }

    /// Whether `printer_id` printed a job after `since` (its failure is over).
    pub fn printed_since(client: &mut impl GenericClient, printer_id: &str, since: i64) -> crate::Result<bool> {
        Ok(client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM print_jobs WHERE status = 'printed' AND updated_at > $2 AND printer_id = $1)",
                &[&printer_id, &since],
            )?
            .get(0))
    }

    /// The desk's jobs queued or being sent.
    pub fn waiting_jobs(client: &mut impl GenericClient, desk: &str) -> crate::Result<i64> {
        Ok(client
            .query_one(
                "SELECT count(*) FROM print_jobs WHERE desk = $1 AND status IN ('queued', 'printing')",
                &[&desk],
            )?
            .get(0))
    }
}

#[cfg(test)]
mod tests {
    use super::PrintJobStatus;

    #[test]
    fn a_status_column_reads_as_its_enum_and_an_unknown_word_fails_the_read() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let read = |word: &str| conn.query_row("SELECT ?1", [word], |r| r.get::<_, PrintJobStatus>(0));
        assert_eq!(read("printed").unwrap(), PrintJobStatus::Printed);
        let err = read("lost").unwrap_err().to_string();
        assert!(err.contains("`lost` is not a PrintJobStatus"), "{err}");
    }
}
