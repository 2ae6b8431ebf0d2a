//! Printing: the desk's printers, a profile per document type, print jobs (every document sent,
//! with its outcome), test pages and offline previews.
//!
//! Printing never blocks shipping: a label is created whatever its print does; a failed print is
//! a `failed` print job with the printer's reason, retried on request or by the print worker
//! (every 15 s, up to 20 attempts: the printer coming back is noticed by the next attempt).
//! Reprints use the stored bytes, so a reprint is the very same document.

use crate::clock::iso_micros;
use crate::keys::Env;
use crate::Service;
use packdesk_documents::test_page::{render_test_page_pdf, render_test_page_zpl};
use packdesk_documents::Paper;
use packdesk_model::desk::{
    Deleted, DeletedProfile, PrintJob, PrintJobList, PrintJobStatus, PrintProfile, PrintProfileList,
    PrintProfileRequest, PrintRequest, Printer, PrinterList, PrinterRequest, PrinterStatus, SystemPrinter,
    SystemPrinterList, TestPageRequest,
};
use packdesk_model::request::ListQuery;
use packdesk_model::status::Role;
use packdesk_model::status::{DocumentType, FileKind, LabelStatus, PrinterFormat};
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_print::{convert, zpl, PrintOptions, Transport};
use packdesk_store::files;
use packdesk_store::paging;
use packdesk_store::printing as table;
use packdesk_store::printing::{JobFilter, PrintJobRow, PrinterRow, ProfileRow};
use serde_json::json;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

pub const STOCKS: &[&str] = &["4x6", "4x4", "4x8", "a4", "letter"];
pub const PRINT_JOB_STATUSES: &[&str] = PrintJobStatus::NAMES;
/// Resolution the stored ZPL is written for.
pub const STORED_ZPL_DPI: u32 = 203;
/// How long a printer has to take a job.
pub const PRINT_TIMEOUT: Duration = Duration::from_secs(10);
/// A send taking longer than this has its job shown `printing` until its outcome.
const MARK_SENDING_AFTER: Duration = Duration::from_millis(100);
/// Automatic retries of a failed job stop after this many attempts.
const MAX_AUTO_ATTEMPTS: i64 = 20;
const RETRY_EVERY: Duration = Duration::from_secs(15);
/// How often the print worker of a shared database's desk looks for jobs other desks queued.
const SHARED_POLL: Duration = Duration::from_millis(500);
/// While every printer with queued jobs is at work, how often the queue is read for another
/// printer's new jobs (a sender that ends has it read at once).
const BUSY_READ_EVERY: Duration = Duration::from_millis(25);
/// How long a sender's outcomes may wait for one sync of them all, and then for a label's sync
/// to cover them before one of their own (a power cut may send again the jobs of these
/// milliseconds and the one being sent).
const OUTCOMES_SYNCED_EVERY: Duration = Duration::from_millis(10);

/// What a printer's round did (`send_print_round`).
struct PrintRound {
    sent: usize,
    /// Its last outcomes were written without waiting for the disk.
    outcomes_unsynced: bool,
}

fn stock_paper(stock: &str) -> Paper {
    match stock {
        "4x4" => Paper {
            width_mm: 101.6,
            height_mm: 101.6,
        },
        "4x8" => Paper {
            width_mm: 101.6,
            height_mm: 203.2,
        },
        "a4" => Paper::A4,
        "letter" => Paper {
            width_mm: 215.9,
            height_mm: 279.4,
        },
        _ => Paper::IN4X6,
    }
}

/// The spooler's name of a stock.
fn media(stock: &str) -> Option<String> {
    match stock {
        "4x6" | "4x4" | "4x8" => Some(format!("Custom.{stock}in")),
        "a4" => Some("A4".into()),
        "letter" => Some("Letter".into()),
        _ => None,
    }
}

fn printer_record(p: &PrinterRow) -> Printer {
    Printer {
        id: p.id.clone(),
        name: p.name.clone(),
        transport: p.transport,
        address: p.address.clone(),
        format: p.format,
        dpi: p.dpi,
        strip_zpl_setup: p.strip_zpl_setup,
        created_at: iso_micros(p.created_at),
        updated_at: iso_micros(p.updated_at),
    }
}

fn profile_record(p: &ProfileRow) -> PrintProfile {
    PrintProfile {
        document_type: p.document_type,
        printer_id: p.printer_id.clone(),
        stock: p.stock.clone(),
        copies: p.copies,
        auto_print: p.auto_print,
        updated_at: iso_micros(p.updated_at),
    }
}

fn job_record(j: &PrintJobRow) -> PrintJob {
    PrintJob {
        id: j.id.clone(),
        printer_id: j.printer_id.clone(),
        document_type: j.document_type,
        owner_id: j.owner_id.clone(),
        file_id: Some(j.file_id.clone()).filter(|f| !f.is_empty()),
        copies: j.copies,
        stock: j.stock.clone(),
        // Only this module writes statuses; a row it cannot read is shown as failed, not hidden.
        status: j.status,
        error: j.error.clone(),
        attempts: j.attempts,
        bytes_sent: j.bytes_sent,
        reference: j.reference.clone(),
        created_at: iso_micros(j.created_at),
        updated_at: iso_micros(j.updated_at),
        printed_at: j.printed_at.map(iso_micros),
        operator: j.operator.clone(),
    }
}

/// The file a label's document is kept in.
fn label_file(document: DocumentType) -> FileKind {
    match document {
        DocumentType::Invoice => FileKind::Invoice,
        DocumentType::CustomsDeclaration => FileKind::CustomsDeclaration,
        DocumentType::PackingSlip => FileKind::PackingSlip,
        // The label itself: the one other document a label has.
        _ => FileKind::Label,
    }
}

/// The desk's print profiles as last read: every label made looks them up (to print it), so
/// they are kept and read again after this desk changes them. In a shared database a profile
/// may name another desk's printer, and that desk removing it takes the profile along: there
/// they are also read again once `SHARED_PROFILES_KEPT` old.
#[derive(Default)]
pub(crate) struct ProfileCache(Mutex<CachedProfiles>);

#[derive(Default)]
struct CachedProfiles {
    /// Counts the changes: rows read before a change are not kept after it.
    changes: u64,
    rows: Option<(Arc<Vec<ProfileRow>>, std::time::Instant)>,
}

/// How long a desk on a shared database prints by the profiles it read (another desk's printer
/// removed shows within this).
const SHARED_PROFILES_KEPT: Duration = Duration::from_secs(2);

/// The profile a document prints by: a return label's label by the `return_label` profile, else
/// (none set) by the label's; every other document by its own.
fn profile_for(profiles: &[ProfileRow], document: DocumentType, return_label: bool) -> Option<ProfileRow> {
    let own = match (document, return_label) {
        (DocumentType::Label, true) => DocumentType::ReturnLabel,
        (d, _) => d,
    };
    let find = |d: DocumentType| profiles.iter().find(|p| p.document_type == d).cloned();
    find(own).or_else(|| own.stand_in().and_then(find))
}

/// The document type a profile is for (the route's `{document_type}`), or why it is none.
fn profiled(word: &str) -> Result<DocumentType, ServiceError> {
    DocumentType::parse(word)
        .filter(|d| DocumentType::PROFILED.contains(d))
        .ok_or_else(|| {
            let words: Vec<&str> = DocumentType::PROFILED.iter().map(|d| d.as_str()).collect();
            ServiceError::invalid("document_type", format!("one of: {}", words.join(", ")))
        })
}

fn not_found(what: &str, path: &str, id: &str) -> ServiceError {
    ServiceError::at(ErrorCode::ItemNotFound, path, format!("no {what} {id}"))
}

/// A new print job, queued.
#[allow(clippy::too_many_arguments)]
fn queued_job(
    env: Env,
    printer_id: &str,
    document_type: DocumentType,
    owner_id: &str,
    file_id: &str,
    copies: i64,
    stock: String,
    now: i64,
) -> PrintJobRow {
    PrintJobRow {
        // Time-ordered like a label's id: each new job goes at the end of the id's index (a
        // random id wrote a page anywhere in it for each job, and the checkpointer copied each).
        id: uuid::Uuid::now_v7().to_string(),
        env,
        printer_id: printer_id.into(),
        document_type,
        owner_id: owner_id.into(),
        file_id: file_id.into(),
        copies,
        stock,
        status: PrintJobStatus::Queued,
        error: None,
        attempts: 0,
        bytes_sent: None,
        reference: None,
        created_at: now,
        updated_at: now,
        printed_at: None,
        operator: Some(crate::audit::actor()),
    }
}

/// Wakes the print worker when a job is queued; `busy` holds the printers a sender thread works on.
#[derive(Default)]
pub struct PrintSignal {
    /// The operator paused printing (kept in meta `printing_paused`): jobs wait in the queue.
    pub(crate) paused: std::sync::atomic::AtomicBool,
    queued: Mutex<u64>,
    wake: Condvar,
    busy: Mutex<std::collections::HashSet<String>>,
}

impl Service {
    // ----- printers -----

    fn checked_printer(&self, id: String, b: PrinterRequest, created_at: i64) -> Result<PrinterRow, ServiceError> {
        let mut p = packdesk_model::error::Problems::default();
        if b.name.trim().is_empty() || b.name.len() > 100 {
            p.invalid("name", "1..100 characters");
        }
        if let Err(why) = Transport::parse(b.transport, &b.address) {
            p.invalid("address", why);
        }
        let dpi = b.dpi.unwrap_or(203);
        if ![203, 300, 600].contains(&dpi) {
            p.invalid("dpi", "203, 300 or 600");
        }
        p.into_result()?;
        let now = self.now_us();
        Ok(PrinterRow {
            id,
            name: b.name.trim().into(),
            transport: b.transport,
            address: b.address.trim().into(),
            strip_zpl_setup: b.strip_zpl_setup.unwrap_or(b.format == PrinterFormat::Zpl),
            format: b.format,
            dpi,
            created_at: if created_at == 0 { now } else { created_at },
            updated_at: now,
        })
    }

    pub fn add_printer(&self, req: PrinterRequest) -> Result<Printer, ServiceError> {
        let p = self.checked_printer(uuid::Uuid::new_v4().to_string(), req, 0)?;
        let after = printer_record(&p);
        self.store.write(|tx| {
            table::put_printer(tx, &p)?;
            self.audit(tx, None, "printer.created", Some(&p.id), json!({"after": after}))
        })?;
        Ok(after)
    }

    pub fn update_printer(&self, id: &str, req: PrinterRequest) -> Result<Printer, ServiceError> {
        let old = self.printer_row(id)?;
        let before = printer_record(&old);
        let p = self.checked_printer(old.id, req, old.created_at)?;
        let after = printer_record(&p);
        self.store.write(|tx| {
            table::put_printer(tx, &p)?;
            self.audit(
                tx,
                None,
                "printer.changed",
                Some(&p.id),
                json!({"before": before, "after": after}),
            )
        })?;
        Ok(after)
    }

    /// The desk's print profiles (read again after each change; see `ProfileCache`).
    fn print_profiles(&self) -> Result<Arc<Vec<ProfileRow>>, packdesk_store::StoreError> {
        let lock = || self.print_profiles.0.lock().unwrap_or_else(|p| p.into_inner());
        let changes = {
            let cached = lock();
            if let Some((rows, read_at)) = &cached.rows {
                if !self.store.is_shared() || read_at.elapsed() < SHARED_PROFILES_KEPT {
                    return Ok(rows.clone());
                }
            }
            cached.changes
        };
        let read_at = std::time::Instant::now();
        let rows = Arc::new(self.store.read(table::profiles)?);
        let mut cached = lock();
        if cached.changes == changes {
            cached.rows = Some((rows.clone(), read_at));
        }
        Ok(rows)
    }

    /// Runs `change`, a write that may change the print profiles; they are read anew after it
    /// (whether it was written or not).
    fn changing_print_profiles<T>(&self, change: impl FnOnce() -> T) -> T {
        let out = change();
        let mut cached = self.print_profiles.0.lock().unwrap_or_else(|p| p.into_inner());
        cached.changes += 1;
        cached.rows = None;
        out
    }

    pub fn delete_printer(&self, id: &str) -> Result<Deleted, ServiceError> {
        let gone = self.changing_print_profiles(|| {
            self.store.write(|tx| {
                let gone = table::delete_printer(tx, id)?;
                if gone {
                    self.audit(tx, None, "printer.deleted", Some(id), json!({}))?;
                }
                Ok::<_, ServiceError>(gone)
            })
        })?;
        if !gone {
            return Err(not_found("printer", "id", id));
        }
        Ok(Deleted { id: id.into() })
    }

    fn printer_row(&self, id: &str) -> Result<PrinterRow, ServiceError> {
        self.store
            .read(|c| table::printer(c, id))?
            .ok_or_else(|| not_found("printer", "id", id))
    }

    pub fn get_printer(&self, id: &str) -> Result<Printer, ServiceError> {
        self.printer_row(id).map(|p| printer_record(&p))
    }

    pub fn list_printers(&self) -> Result<PrinterList, ServiceError> {
        let rows = self.store.read(table::printers)?;
        Ok(PrinterList {
            printers: rows.iter().map(printer_record).collect(),
        })
    }

    /// Whether a printer answers now (a probe of at most 2 s) and what waits for it.
    pub fn printer_status(&self, id: &str) -> Result<PrinterStatus, ServiceError> {
        let printer = self.printer_row(id)?;
        let answer = Transport::parse(printer.transport, &printer.address)
            .map_err(packdesk_print::PrintError)
            .and_then(|t| packdesk_print::probe(&t, Duration::from_secs(2)));
        let (waiting, failed, last_error) = self.store.read(|c| table::backlog(c, &printer.id))?;
        Ok(PrinterStatus {
            printer_id: printer.id,
            state: if answer.is_ok() { "ready" } else { "off" }.into(),
            detail: answer.err().map(|e| e.0),
            waiting,
            failed,
            last_error,
            checked_at: iso_micros(self.now_us()),
        })
    }

    /// The printers of this computer's spooler (to add one as `spooler`).
    pub fn system_printers(&self) -> SystemPrinterList {
        match packdesk_print::system::printers() {
            Ok(list) => SystemPrinterList {
                printers: list
                    .into_iter()
                    .map(|p| SystemPrinter {
                        name: p.name,
                        device: p.device,
                        state: p.state,
                        is_default: p.is_default,
                    })
                    .collect(),
                note: None,
            },
            Err(why) => SystemPrinterList {
                printers: Vec::new(),
                note: Some(why),
            },
        }
    }

    // ----- profiles -----

    pub fn set_print_profile(&self, document_type: &str, b: PrintProfileRequest) -> Result<PrintProfile, ServiceError> {
        let document_type = profiled(document_type)?;
        let printer = self
            .store
            .read(|c| table::printer(c, &b.printer_id))?
            .ok_or_else(|| not_found("printer", "printer_id", &b.printer_id))?;
        let default_stock = if printer.format == PrinterFormat::Zpl || document_type == DocumentType::Label {
            "4x6"
        } else {
            "a4"
        };
        let stock = b.stock.unwrap_or_else(|| default_stock.into());
        let mut p = packdesk_model::error::Problems::default();
        if !STOCKS.contains(&stock.as_str()) {
            p.invalid("stock", format!("one of: {}", STOCKS.join(", ")));
        }
        let copies = b.copies.unwrap_or(1);
        if !(1..=10).contains(&copies) {
            p.invalid("copies", "1..10");
        }
        p.into_result()?;
        let row = ProfileRow {
            document_type,
            printer_id: printer.id,
            stock,
            copies,
            auto_print: b.auto_print.unwrap_or(false),
            updated_at: self.now_us(),
        };
        let after = profile_record(&row);
        self.changing_print_profiles(|| {
            self.store.write(|tx| {
                table::put_profile(tx, &row)?;
                self.audit(
                    tx,
                    None,
                    "print_profile.changed",
                    Some(document_type.as_str()),
                    json!({"after": after}),
                )
            })
        })?;
        Ok(after)
    }

    pub fn delete_print_profile(&self, document_type: &str) -> Result<DeletedProfile, ServiceError> {
        let document_type = profiled(document_type)?;
        let gone = self.changing_print_profiles(|| {
            self.store.write(|tx| {
                let gone = table::delete_profile(tx, document_type)?;
                if gone {
                    self.audit(
                        tx,
                        None,
                        "print_profile.deleted",
                        Some(document_type.as_str()),
                        json!({}),
                    )?;
                }
                Ok::<_, ServiceError>(gone)
            })
        })?;
        if !gone {
            return Err(not_found("print profile", "document_type", document_type.as_str()));
        }
        Ok(DeletedProfile { document_type })
    }

    pub fn list_print_profiles(&self) -> Result<PrintProfileList, ServiceError> {
        let rows = self.print_profiles()?;
        Ok(PrintProfileList {
            print_profiles: rows.iter().map(profile_record).collect(),
            document_types: DocumentType::PROFILED.to_vec(),
        })
    }

    // ----- print jobs -----

    /// Prints a document of a label, manifest or bulk download now, to the printer asked or the
    /// document type's profile. Answers the print job (printed, or failed with the reason).
    pub fn print(&self, env: Env, b: PrintRequest) -> Result<PrintJob, ServiceError> {
        use DocumentType::{CollectionSheet, CustomsDeclaration, Invoice, Label, Manifest, PackingSlip};
        // The documents each owner has (the first its default), and the kind of file each is.
        type Owned = (
            String,
            &'static str,
            &'static [DocumentType],
            fn(DocumentType) -> FileKind,
        );
        let (owner, owner_path, allowed, file_kind_of): Owned = match (&b.label_id, &b.manifest_id, &b.bulk_download_id)
        {
            (Some(l), None, None) => (
                l.clone(),
                "label_id",
                &[Label, Invoice, CustomsDeclaration, PackingSlip],
                label_file,
            ),
            (None, Some(m), None) => (m.clone(), "manifest_id", &[Manifest, CollectionSheet], |d| match d {
                CollectionSheet => FileKind::CollectionSheet,
                _ => FileKind::Manifest,
            }),
            (None, None, Some(bd)) => (bd.clone(), "bulk_download_id", &[Label], |_| FileKind::Bulk),
            _ => {
                return Err(ServiceError::invalid(
                    "label_id",
                    "name exactly one of label_id, manifest_id, bulk_download_id",
                ))
            }
        };
        let document = b.document.unwrap_or(allowed[0]);
        if !allowed.contains(&document) {
            let words: Vec<&str> = allowed.iter().map(|d| d.as_str()).collect();
            return Err(ServiceError::invalid(
                "document",
                format!(
                    "for a {} one of: {}",
                    &owner_path[..owner_path.len() - 3],
                    words.join(", ")
                ),
            ));
        }
        // A return label prints by its own profile.
        let mut return_label = false;
        if owner_path == "label_id" {
            let label = self.store.read(|c| packdesk_store::labels::get(c, env, &owner))?;
            return_label = label.as_ref().is_some_and(|l| {
                serde_json::from_str::<serde_json::Value>(&l.record)
                    .is_ok_and(|r| r["return_shipment"].as_bool() == Some(true))
            });
            if label
                .as_ref()
                .is_some_and(|l| matches!(l.status, LabelStatus::Cancelled | LabelStatus::Cancelling))
            {
                return Err(ServiceError::at(
                    ErrorCode::OperationNotAllowed,
                    "label_id",
                    format!("label {owner} is voided: a voided label must not ship, so it is not printed"),
                ));
            }
            // A packer reprints the day's labels (this machine's day); an older one is a
            // supervisor's to print again.
            let packer = crate::audit::caller().is_some_and(|c| !c.role.may(Role::Supervisor));
            let today = self.clock.now().with_timezone(&chrono::Local).date_naive();
            let made_on = label
                .as_ref()
                .and_then(|l| chrono::DateTime::from_timestamp_micros(l.created_at))
                .map(|t| t.with_timezone(&chrono::Local).date_naive());
            if packer && made_on.is_some_and(|d| d < today) {
                return Err(ServiceError::at(
                    ErrorCode::Forbidden,
                    "label_id",
                    format!(
                        "label {owner} was made before today: only {} may print it again",
                        Role::Supervisor.who_may()
                    ),
                ));
            }
        }
        let kind = file_kind_of(document);
        let file = self
            .store
            .read(|c| match kind {
                // Its PDF for the driver, not the CSV for the carrier.
                FileKind::Manifest => files::of_owner_as(c, env, &owner, kind, "pdf"),
                _ => files::of_owner(c, env, &owner, kind),
            })?
            .ok_or_else(|| {
                ServiceError::at(
                    ErrorCode::ItemNotFound,
                    owner_path,
                    format!("{owner} has no {} document", document.words()),
                )
            })?;
        let copies = b.copies;
        if let Some(c) = copies {
            if !(1..=10).contains(&c) {
                return Err(ServiceError::invalid("copies", "1..10"));
            }
        }
        let profile = profile_for(&self.print_profiles()?, document, return_label);
        let job = self.new_print_job(env, document, &owner, &file, profile, b.printer_id.as_deref(), copies)?;
        if self.printing_paused() {
            return Ok(job_record(&job));
        }
        Ok(job_record(&self.execute_print_job(&job.id)?))
    }

    /// Writes a queued print job, asked for, of `owner`'s stored `document`, audited as printed
    /// (or reprinted when it went to a printer before). Any printer takes any document: what it
    /// does not speak is converted when the job is sent (`job_bytes`), and a conversion that fails
    /// is the job's recorded failure.
    #[allow(clippy::too_many_arguments)]
    fn new_print_job(
        &self,
        env: Env,
        document: DocumentType,
        owner: &str,
        file: &packdesk_store::files::FileRow,
        profile: Option<ProfileRow>,
        printer_id: Option<&str>,
        copies: Option<i64>,
    ) -> Result<PrintJobRow, ServiceError> {
        let (file_id, paper_size) = (file.id.as_str(), file.paper_size.as_str());
        let printer_id = match (printer_id, &profile) {
            (Some(p), _) => p.to_string(),
            (None, Some(pr)) => pr.printer_id.clone(),
            (None, None) => {
                return Err(ServiceError::invalid("printer_id", format!("no printer profile for {document}: set one (PUT /desk/print-profiles/{document}) or name a printer_id")))
            }
        };
        let printer = self
            .store
            .read(|c| table::printer(c, &printer_id))?
            .ok_or_else(|| not_found("printer", "printer_id", &printer_id))?;
        let copies = copies.or(profile.as_ref().map(|p| p.copies)).unwrap_or(1);
        // The stock loaded for this document type on that printer, else the document's own.
        let stock = profile
            .filter(|p| p.printer_id == printer.id)
            .map(|p| p.stock)
            .unwrap_or_else(|| paper_size.to_string());
        let job = queued_job(env, &printer.id, document, owner, file_id, copies, stock, self.now_us());
        self.store.write(|tx| {
            let again = table::last_job_of(tx, owner, document)?.is_some();
            let action = format!("{document}.{}", if again { "reprinted" } else { "printed" });
            let detail = json!({"print_job_id": job.id, "printer": printer.name, "copies": copies});
            self.audit(tx, Some(env), &action, Some(owner), detail)?;
            table::put_job(tx, &job).map_err(ServiceError::from)
        })?;
        Ok(job)
    }

    /// The bytes a job sends: the stored document (ZPL rescaled for the printer and stripped of
    /// setup commands when the printer asks), or a fresh test page.
    fn job_bytes(&self, job: &PrintJobRow, printer: &PrinterRow) -> Result<Vec<u8>, String> {
        if job.document_type == DocumentType::TestPage {
            let paper = stock_paper(&job.stock);
            return Ok(match printer.format {
                PrinterFormat::Zpl => render_test_page_zpl(&printer.name, printer.dpi as u32, paper).into_bytes(),
                PrinterFormat::Pdf => render_test_page_pdf(&printer.name, printer.dpi as u32, paper),
            });
        }
        let env = job.env;
        let file = self
            .store
            .read(|c| packdesk_store::files::get(c, env, &job.file_id))
            .map_err(|e| e.to_string())?
            .ok_or("the document is gone")?;
        let paper = stock_paper(&job.stock);
        let stock_mm = (paper.width_mm, paper.height_mm);
        match (file.file_type.as_str(), printer.format) {
            ("zpl", PrinterFormat::Zpl) => {
                let text = String::from_utf8_lossy(&file.bytes);
                let text = if printer.strip_zpl_setup {
                    zpl::strip_setup(&text)
                } else {
                    text.into_owned()
                };
                Ok(zpl::rescale(&text, STORED_ZPL_DPI, printer.dpi as u32).into_bytes())
            }
            ("pdf", PrinterFormat::Zpl) => convert::pdf_to_zpl(&file.bytes, printer.dpi as u32, stock_mm)
                .map(String::into_bytes)
                .map_err(|why| format!("the PDF could not be turned into ZPL for this printer: {why}")),
            ("zpl", _) => {
                let pages = convert::zpl_to_pdfs(&String::from_utf8_lossy(&file.bytes), STORED_ZPL_DPI, stock_mm)?;
                packdesk_documents::merge::merge_pdfs(&pages)
                    .map_err(|why| format!("the ZPL label could not be made a PDF: {why}"))
            }
            _ => Ok(file.bytes),
        }
    }

    /// Sends a job to its printer now and records the outcome.
    pub fn execute_print_job(&self, id: &str) -> Result<PrintJobRow, ServiceError> {
        self.send_print_job(self.print_job(id)?, true)
    }

    fn print_job(&self, id: &str) -> Result<PrintJobRow, ServiceError> {
        self.store
            .read(|c| table::job(c, id))?
            .ok_or_else(|| not_found("print job", "id", id))
    }

    /// The worker's send of a listed job: only while it still waits (queued, or failed and due
    /// again), as read now. The round's list may be older than the job's last outcome: read
    /// before the printer's previous round had ended (on a shared database that printed a batch's
    /// label twice), or a long round's later jobs retried or reprinted meanwhile. Says whether it
    /// sent the job (and wrote an outcome).
    fn send_waiting_print_job(&self, id: &str, outcome_synced: bool) -> Result<bool, ServiceError> {
        let cutoff = self.retry_cutoff();
        let Some(job) = self
            .store
            .read(|c| table::still_waiting(c, id, MAX_AUTO_ATTEMPTS, cutoff))?
        else {
            return Ok(false);
        };
        self.send_print_job(job, outcome_synced)?;
        Ok(true)
    }

    /// Has every print job outcome written so far on disk, waiting up to `grace` for a label's
    /// sync to cover them (`sync_within`). Logged when it fails: the outcomes are then as safe as
    /// the next write makes them.
    fn sync_print_outcomes(&self, grace: Duration) {
        if let Err(e) = self.store.sync_within(grace) {
            tracing::error!(error = %ServiceError::from(e).chain(), "print job outcomes could not be synced to disk");
        }
    }

    /// `execute_print_job`; the outcome's write waits for the disk only when `outcome_synced`.
    /// The `printing` mark never does: lost in a power cut, it leaves the job queued, and a job
    /// found `printing` at start is queued again anyway (sent again either way). Not waiting twice
    /// for the disk for each job let the print worker keep up with 500 labels/s (it sent about 300
    /// a second on a slower day).
    fn send_print_job(&self, mut job: PrintJobRow, outcome_synced: bool) -> Result<PrintJobRow, ServiceError> {
        let _span = tracing::info_span!("print_job", print_job_id = %job.id).entered();
        job.attempts += 1;
        let outcome = self.marked_while_slow(&job, || -> Result<packdesk_print::Delivery, String> {
            let printer = self
                .store
                .read(|c| table::printer(c, &job.printer_id))
                .map_err(|e| e.to_string())?
                .ok_or("the printer was removed")?;
            let bytes = self.job_bytes(&job, &printer)?;
            let transport = Transport::parse(printer.transport, &printer.address)?;
            let options = PrintOptions {
                format: printer.format,
                copies: job.copies as u32,
                media: media(&job.stock),
                title: format!("Packdesk {} {}", job.document_type, &job.owner_id),
                timeout: PRINT_TIMEOUT,
            };
            packdesk_print::send(&transport, &bytes, &options).map_err(|e| e.0)
        });
        let now = self.now_us();
        match outcome {
            Ok(d) => {
                job.status = PrintJobStatus::Printed;
                job.error = None;
                job.bytes_sent = Some(d.bytes_sent as i64);
                job.reference = d.reference;
                job.printed_at = Some(now);
            }
            Err(why) => {
                job.status = PrintJobStatus::Failed;
                job.error = Some(why);
            }
        }
        job.updated_at = now;
        if outcome_synced {
            self.store.write(|tx| table::put_job(tx, &job))?;
        } else {
            self.store.write_relaxed(|tx| table::put_job(tx, &job))?;
        }
        Ok(job)
    }

    /// Runs `send`, the send of `job`, and marks the job `printing` once the send has taken
    /// `MARK_SENDING_AFTER` (a printer slow to take it, or off: up to `PRINT_TIMEOUT`), so the
    /// desk shows it on its way. A quick send is written once, with its outcome: the mark was a
    /// commit more for every label printed (issue 42). Marked or not, a job cut off by a stop is
    /// sent again (`requeue_interrupted_prints`).
    fn marked_while_slow<T>(&self, job: &PrintJobRow, send: impl FnOnce() -> T) -> T {
        use std::sync::mpsc::{channel, RecvTimeoutError};
        std::thread::scope(|scope| {
            let (sent, sending) = channel::<()>();
            let mark = move || {
                if sending.recv_timeout(MARK_SENDING_AFTER) != Err(RecvTimeoutError::Timeout) {
                    return;
                }
                let mut marked = job.clone();
                marked.status = PrintJobStatus::Printing;
                marked.updated_at = self.now_us();
                if let Err(e) = self.store.write_relaxed(|tx| table::put_job(tx, &marked)) {
                    tracing::warn!(print_job_id = %job.id, error = %ServiceError::from(e).chain(), "a print job could not be marked as sending");
                }
            };
            // The scope waits for the mark: it is written before the outcome, never after it.
            let marker = std::thread::Builder::new()
                .name("print-mark".into())
                .stack_size(256 * 1024)
                .spawn_scoped(scope, mark);
            if let Err(e) = &marker {
                tracing::warn!(print_job_id = %job.id, error = %e, "no thread to mark a slow print job: it shows queued until its outcome");
            }
            let out = send();
            let _ = sent.send(());
            out
        })
    }

    /// Prints a job again now (failed or not: reprints use the stored bytes).
    pub fn retry_print_job(&self, env: Env, id: &str) -> Result<PrintJob, ServiceError> {
        let job = self
            .store
            .read(|c| table::job(c, id))?
            .filter(|j| j.env == env)
            .ok_or_else(|| not_found("print job", "id", id))?;
        let retried = |tx: &mut packdesk_store::db::Tx<'_>| {
            let detail = json!({"owner_id": job.owner_id, "document": job.document_type, "status_before": job.status});
            self.audit(tx, Some(env), "print_job.retried", Some(&job.id), detail)
        };
        if self.printing_paused() {
            // Printed when the desk resumes, in its turn.
            let mut job = job.clone();
            job.status = PrintJobStatus::Queued;
            job.updated_at = self.now_us();
            self.store.write(|tx| {
                retried(tx)?;
                table::put_job(tx, &job).map_err(ServiceError::from)
            })?;
            return Ok(job_record(&job));
        }
        self.store.write(retried)?;
        Ok(job_record(&self.execute_print_job(&job.id)?))
    }

    pub fn get_print_job(&self, env: Env, id: &str) -> Result<PrintJob, ServiceError> {
        let job = self
            .store
            .read(|c| table::job(c, id))?
            .filter(|j| j.env == env)
            .ok_or_else(|| not_found("print job", "id", id))?;
        Ok(job_record(&job))
    }

    pub fn list_print_jobs(&self, env: Env, q: &ListQuery) -> Result<PrintJobList, ServiceError> {
        let w = crate::list::window(q, self.clock.now())?;
        let status = q.status.clone().filter(|s| !s.is_empty());
        crate::list::check_status(status.as_deref(), PRINT_JOB_STATUSES)?;
        let f = JobFilter {
            status: status.as_deref().and_then(PrintJobStatus::parse),
            owner_id: q.record_id.clone().filter(|s| !s.is_empty()),
            created_at_min: w.created_at_min.timestamp_micros(),
            created_at_max: w.created_at_max.timestamp_micros(),
        };
        let rows = self
            .store
            .read(|c| table::list_jobs(c, env, &f, w.limit, w.after.as_ref()))?;
        let page = paging::page(rows, w.limit, |r| paging::Cursor {
            created_at: r.created_at,
            id: r.id.clone(),
        });
        Ok(PrintJobList {
            print_jobs: page.items.iter().map(job_record).collect(),
            window: w.window(page.next_token),
        })
    }

    /// Prints a printer's test page now.
    pub fn print_test_page(&self, env: Env, printer_id: &str, b: TestPageRequest) -> Result<PrintJob, ServiceError> {
        let printer = self.printer_row(printer_id)?;
        if let Some(s) = &b.stock {
            if !STOCKS.contains(&s.as_str()) {
                return Err(ServiceError::invalid("stock", format!("one of: {}", STOCKS.join(", "))));
            }
        }
        let stock = b.stock.unwrap_or_else(|| {
            if printer.format == PrinterFormat::Zpl {
                "4x6".into()
            } else {
                "a4".into()
            }
        });
        let job = queued_job(
            env,
            &printer.id,
            DocumentType::TestPage,
            &printer.id,
            "",
            1,
            stock,
            self.now_us(),
        );
        self.store.write(|tx| table::put_job(tx, &job))?;
        Ok(job_record(&self.execute_print_job(&job.id)?))
    }

    /// The print jobs, queued, of `owner_id`'s documents of the types `kinds` whose profile
    /// prints automatically; `file_of` names each type's file (none: nothing to print). The one
    /// rule of what prints on its own: a new label's documents and a shipped order's packing slip,
    /// each written in the commit of what it prints (`queue_auto_prints`), so a crash leaves both
    /// or neither and the label waits for one sync, not two. A store that does not answer leaves the documents
    /// unprinted, and says so: History shows them without a print job, to print by hand.
    pub(crate) fn auto_print_jobs(
        &self,
        env: Env,
        owner_id: &str,
        return_label: bool,
        kinds: &[DocumentType],
        file_of: impl Fn(DocumentType) -> Option<String>,
    ) -> Vec<PrintJobRow> {
        let profiles = match self.print_profiles() {
            Ok(p) => p,
            Err(e) => {
                tracing::error!(owner_id, error = %ServiceError::from(e).chain(), "print profiles could not be read: nothing printed automatically");
                return Vec::new();
            }
        };
        let now = self.now_us();
        kinds
            .iter()
            .filter_map(|&kind| {
                let profile = profile_for(&profiles, kind, return_label).filter(|p| p.auto_print)?;
                let file_id = file_of(kind)?;
                Some(queued_job(
                    env,
                    &profile.printer_id,
                    kind,
                    owner_id,
                    &file_id,
                    profile.copies,
                    profile.stock,
                    now,
                ))
            })
            .collect()
    }

    /// The documents a new label prints on its own: `auto_print_jobs` of its label, invoice and
    /// customs declaration among the files it made.
    pub(crate) fn label_print_jobs(
        &self,
        env: Env,
        owner_id: &str,
        return_label: bool,
        files: &[files::FileRow],
    ) -> Vec<PrintJobRow> {
        use DocumentType::{CustomsDeclaration, Invoice, Label};
        self.auto_print_jobs(
            env,
            owner_id,
            return_label,
            &[Label, Invoice, CustomsDeclaration],
            |kind| files.iter().find(|f| f.kind == label_file(kind)).map(|f| f.id.clone()),
        )
    }

    /// Writes print jobs made by `auto_print_jobs` in the caller's transaction. A job whose
    /// printer was removed meanwhile is left out (never the label).
    pub(crate) fn queue_auto_prints(
        &self,
        tx: &mut packdesk_store::db::Tx<'_>,
        jobs: &[PrintJobRow],
    ) -> Result<(), ServiceError> {
        for job in jobs {
            if table::printer(tx, &job.printer_id)?.is_none() {
                tracing::warn!(owner_id = %job.owner_id, printer_id = %job.printer_id, "the printer of the profile was removed: not printed automatically");
                continue;
            }
            table::put_job(tx, job)?;
        }
        Ok(())
    }

    pub(crate) fn wake_printer(&self) {
        *self.print_signal.queued.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        self.print_signal.wake.notify_all();
    }

    /// Sends what the print worker would send now (the queued jobs and the failed ones due
    /// again), one after another; answers how many. Tests call it to print without the worker.
    #[cfg(any(test, feature = "testing"))]
    pub fn run_print_jobs(&self) -> usize {
        if self.printing_paused() {
            return 0;
        }
        self.run_print_round(&self.print_work_ids())
    }

    /// The ids of what the print worker would send now: a round's list (tests keep it to send a
    /// stale one).
    #[cfg(any(test, feature = "testing"))]
    pub fn print_work_ids(&self) -> Vec<String> {
        match self.print_work() {
            Ok(work) => work.into_iter().map(|j| j.id).collect(),
            Err(e) => {
                tracing::error!(error = %e.chain(), "print jobs cannot be read");
                Vec::new()
            }
        }
    }

    /// A printer sender's round of `jobs`, its outcomes synced at its end; answers how many it
    /// sent (a job no longer waiting is not).
    #[cfg(any(test, feature = "testing"))]
    pub fn run_print_round(&self, jobs: &[String]) -> usize {
        let round = self.send_print_round(jobs);
        if round.outcomes_unsynced {
            self.sync_print_outcomes(Duration::ZERO);
        }
        round.sent
    }

    /// Sends `jobs` one after another, each only while it still waits (`send_waiting_print_job`).
    /// Outcomes wait for the disk together: one sync for the sends of `OUTCOMES_SYNCED_EVERY`
    /// (why: `send_print_job`); the round's last are left to its caller (`outcomes_unsynced`),
    /// which syncs them once the printer is free. A shared database's outcomes each wait (other
    /// desks read them).
    fn send_print_round(&self, jobs: &[String]) -> PrintRound {
        let mut sent = 0;
        let mut unsynced_since: Option<std::time::Instant> = None;
        let synced = self.store.is_shared();
        for id in jobs {
            // A pause stops the rest of the round (they stay queued).
            if self.printing_paused() {
                break;
            }
            // Mid-round the printer waits for this sync: no grace.
            if unsynced_since.is_some_and(|t| t.elapsed() >= OUTCOMES_SYNCED_EVERY) {
                self.sync_print_outcomes(Duration::ZERO);
                unsynced_since = None;
            }
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.send_waiting_print_job(id, synced)));
            match outcome {
                Ok(Ok(true)) => {
                    sent += 1;
                    if !synced {
                        unsynced_since.get_or_insert_with(std::time::Instant::now);
                    }
                }
                Ok(Ok(false)) => {}
                Ok(Err(e)) => {
                    tracing::error!(print_job_id = %id, error = %e.chain(), "print job could not be sent");
                }
                Err(_) => {
                    tracing::error!(print_job_id = %id, "print job failed unexpectedly (a bug); it stays queued");
                }
            }
        }
        PrintRound {
            sent,
            outcomes_unsynced: unsynced_since.is_some(),
        }
    }

    /// Failed jobs whose last attempt is older than `RETRY_EVERY` (the printer may be back).
    fn failed_print_jobs_due(&self) -> Result<Vec<PrintJobRow>, ServiceError> {
        let cutoff = self.retry_cutoff();
        Ok(self
            .store
            .read(|c| table::retry_due(c, MAX_AUTO_ATTEMPTS, cutoff, 256))?)
    }

    /// A failed job last tried before this (microseconds) is due again.
    fn retry_cutoff(&self) -> i64 {
        self.now_us() - RETRY_EVERY.as_micros() as i64
    }

    /// The jobs the print worker sends now: the queued ones and the failed ones due again.
    fn print_work(&self) -> Result<Vec<PrintJobRow>, ServiceError> {
        let mut work = self.store.read(|c| table::jobs_in(c, PrintJobStatus::Queued, 256))?;
        work.extend(self.failed_print_jobs_due()?);
        Ok(work)
    }

    /// Jobs found `printing` at start were cut off by a stop: they are queued again.
    pub(crate) fn requeue_interrupted_prints(&self) -> Result<(), ServiceError> {
        let cut = self
            .store
            .read(|c| table::jobs_in(c, PrintJobStatus::Printing, 10_000))?;
        self.store.write(|tx| {
            for mut j in cut {
                j.status = PrintJobStatus::Queued;
                table::put_job(tx, &j)?;
            }
            Ok(())
        })
    }

    /// The print worker: queued jobs as they come, failed ones again every `RETRY_EVERY`, one queue
    /// per printer: each printer's jobs go out in order on a blocking task of its own (on the
    /// workers' runtime), so a printer that is off (10 s timeouts) never holds another.
    pub(crate) fn print_until(
        self: &std::sync::Arc<Self>,
        stop: &std::sync::atomic::AtomicBool,
        io: &tokio::runtime::Handle,
    ) {
        use std::sync::atomic::Ordering;
        // Rounds in a row whose work could not be read (the database refuses): each waits longer.
        let mut failed_reads = 0u32;
        while !stop.load(Ordering::SeqCst) {
            let seen = *self.print_signal.queued.lock().unwrap_or_else(|p| p.into_inner());
            let mut work = Vec::new();
            // Paused: nothing is sent; resuming wakes this loop.
            if !self.printing_paused() {
                match self.print_work() {
                    Ok(w) => {
                        failed_reads = 0;
                        work = w;
                    }
                    Err(e) => {
                        // Not "nothing to print": the jobs are there, the store is not answering.
                        failed_reads += 1;
                        let pause = crate::webhooks::record_backoff(failed_reads);
                        tracing::error!(error = %e.chain(), retry_in_s = pause.as_secs(), "print jobs cannot be read");
                        let g = self.print_signal.queued.lock().unwrap_or_else(|p| p.into_inner());
                        let _ = self.print_signal.wake.wait_timeout(g, pause);
                        continue;
                    }
                }
            }
            let mut by_printer: std::collections::BTreeMap<String, Vec<String>> = Default::default();
            for j in work {
                by_printer.entry(j.printer_id).or_default().push(j.id);
            }
            let printers_with_work: Vec<String> = by_printer.keys().cloned().collect();
            let mut senders_started = 0;
            for (printer, jobs) in by_printer {
                // A printer with a sender at work gets its new jobs in that sender's next round.
                if !self
                    .print_signal
                    .busy
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(printer.clone())
                {
                    continue;
                }
                senders_started += 1;
                let s = std::sync::Arc::clone(self);
                io.spawn_blocking(move || {
                    let round = s.send_print_round(&jobs);
                    tracing::debug!(printer_id = %printer, sent = round.sent, listed = jobs.len(), "print round");
                    s.print_signal
                        .busy
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .remove(&printer);
                    s.wake_printer();
                    // After the printer is free: the sync may wait for a label's
                    // (`sync_within`), which the printer's next job need not.
                    if round.outcomes_unsynced {
                        s.sync_print_outcomes(OUTCOMES_SYNCED_EVERY);
                    }
                });
            }
            let g = self.print_signal.queued.lock().unwrap_or_else(|p| p.into_inner());
            if !printers_with_work.is_empty() && senders_started == 0 {
                // Every printer with work is at work: its jobs wait for its sender's next round.
                // A label queued meanwhile does not read the queue again (256 jobs read and left,
                // for each label made, took a quarter of the CPU at 500 labels/s and left the
                // printer behind): a sender's end or `BUSY_READ_EVERY` does, for another printer's.
                let _ = self.print_signal.wake.wait_timeout_while(g, BUSY_READ_EVERY, |_| {
                    let busy = self.print_signal.busy.lock().unwrap_or_else(|p| p.into_inner());
                    printers_with_work.iter().all(|p| busy.contains(p)) && !stop.load(Ordering::SeqCst)
                });
            } else if *g == seen && !stop.load(Ordering::SeqCst) {
                // A shared database's other desks queue jobs for this desk's printers too.
                let wait = if self.store.is_shared() {
                    SHARED_POLL
                } else {
                    RETRY_EVERY
                };
                let _ = self.print_signal.wake.wait_timeout(g, wait);
            }
        }
    }

    pub(crate) fn stop_printer(&self) {
        self.wake_printer();
    }

    // ----- previews -----

    /// A PNG of page `page` of a stored document. ZPL is shown as a printer of `dpi` prints it.
    pub fn preview(&self, env: Env, file_id: &str, page: u32, dpi: Option<u32>) -> Result<Vec<u8>, ServiceError> {
        let file = self
            .store
            .read(|c| files::get(c, env, file_id))?
            .ok_or_else(|| not_found("file", "id", file_id))?;
        let fail = |why: String| ServiceError::invalid("page", why);
        match file.file_type.as_str() {
            "zpl" => {
                let dpi = dpi.unwrap_or(STORED_ZPL_DPI);
                if ![203, 300, 600].contains(&dpi) {
                    return Err(ServiceError::invalid("dpi", "203, 300 or 600"));
                }
                let text = zpl::rescale(&String::from_utf8_lossy(&file.bytes), STORED_ZPL_DPI, dpi);
                let paper = stock_paper(&file.paper_size);
                packdesk_print::preview::zpl_label_png(&text, page, dpi, paper.width_mm as f64, paper.height_mm as f64)
                    .map_err(fail)
            }
            "pdf" => packdesk_print::preview::pdf_page_png(&file.bytes, page, dpi.unwrap_or(150)).map_err(fail),
            other => Err(ServiceError::invalid("id", format!("a {other} file has no preview"))),
        }
    }
}
