//! Printers and print jobs on the run's backend (one desk: its own printers on a shared database,
//! every printer on its own file): failed jobs retried until their attempts run out, the newest
//! failure, a printer's backlog, queued jobs taken in order.

use crate::support;
use packdesk_model::status::{DocumentType, Env, PrintJobStatus};
use packdesk_store::printing::{self, PrintJobRow};

fn job(id: &str, owner: &str, status: PrintJobStatus, attempts: i64, at: i64) -> PrintJobRow {
    PrintJobRow {
        id: id.into(),
        env: Env::Live,
        printer_id: "printer-1".into(),
        document_type: DocumentType::Label,
        owner_id: owner.into(),
        file_id: format!("file-of-{owner}"),
        copies: 1,
        stock: "4x6".into(),
        status,
        error: (status == PrintJobStatus::Failed).then(|| format!("paper out {id}")),
        attempts,
        bytes_sent: None,
        reference: None,
        created_at: at,
        updated_at: at,
        printed_at: None,
        operator: None,
    }
}

#[test]
fn failed_jobs_are_retried_until_their_attempts_run_out_and_a_printers_backlog_is_counted() {
    let db = support::store();
    let printer = support::zebra_printer();
    db.step(|c| printing::put_printer(c, &printer));
    assert_eq!(db.look(printing::printers), vec![printer.clone()]);
    assert_eq!(db.look(|c| printing::printer(c, "printer-1")), Some(printer));
    let jobs = [
        job("pjob-0", "lbl-0", PrintJobStatus::Failed, 1, 10),
        job("pjob-1", "lbl-1", PrintJobStatus::Failed, 5, 11),
        job("pjob-2", "lbl-2", PrintJobStatus::Failed, 2, 30),
        job("pjob-3", "lbl-3", PrintJobStatus::Printed, 1, 20),
    ];
    for j in &jobs {
        db.step(|c| printing::put_job(c, j));
    }
    // Fewer than 3 attempts and last tried at 25 or before: pjob-0 only (pjob-1 tried 5 times,
    // pjob-2 at 30).
    assert_eq!(
        db.look(|c| printing::retry_due(c, 3, 25, 10)),
        vec![jobs[0].clone()],
        "retries due"
    );
    assert_eq!(
        db.look(printing::newest_failures),
        vec![("printer-1".to_string(), 30, Some("paper out pjob-2".to_string()))],
        "the newest failure"
    );
    assert_eq!(
        db.look(|c| Ok((
            printing::printed_since(c, "printer-1", 15)?,
            printing::printed_since(c, "printer-1", 20)?
        ))),
        (true, false),
        "printed at 20: after 15, not after 20"
    );
    assert_eq!(
        db.look(|c| printing::backlog(c, "printer-1")),
        (0, 3, Some("paper out pjob-2".to_string())),
        "nothing to send, three failed"
    );
    assert_eq!(db.look(printing::waiting_jobs), 0);

    // A queued job is taken once, in order of change (one desk's file has one writer; the shared
    // database passes over rows another desk holds).
    let queued = job("pjob-9", "lbl-9", PrintJobStatus::Queued, 0, 40);
    db.step(|c| printing::put_job(c, &queued));
    assert_eq!(
        db.look(|c| printing::jobs_in(c, PrintJobStatus::Queued, 10)),
        vec![queued.clone()],
        "queued"
    );
    assert_eq!(db.look(printing::waiting_jobs), 1);
    assert_eq!(
        db.look(|c| printing::backlog(c, "printer-1")),
        (1, 3, Some("paper out pjob-2".to_string())),
        "one to send"
    );
    assert_eq!(db.look(|c| printing::job(c, "pjob-9")), Some(queued));
    assert_eq!(
        db.look(|c| printing::last_job_of(c, "lbl-0", DocumentType::Label)),
        Some((PrintJobStatus::Failed, Some("paper out pjob-0".to_string())))
    );
}
