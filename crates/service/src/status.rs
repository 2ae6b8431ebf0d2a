//! The desk at a glance (the tray icon, every screen's banner): whether printing is paused, a
//! printer is failing or jobs wait; and the pause itself, which holds every print job of the desk
//! in the queue (an operator reloading labels, a printer being moved) until resumed.

use crate::clock::iso_micros;
use crate::keys::Env;
use crate::Service;
use packdesk_model::desk::{DeskState, DeskStatus, FailingPrinter, PrintingRequest, RangeLow, UnsentManifest};
use packdesk_model::status::AccountStatus;
use packdesk_model::ServiceError;
use packdesk_store::accounts::AccountRow;
use packdesk_store::printing as table;
use std::sync::atomic::Ordering;

const PAUSED_KEY: &str = "printing_paused";

/// " (and 2 more)" after the first of `n` things the status line names.
fn and_more(n: usize) -> String {
    match n {
        0 | 1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    }
}

/// ": <why>" after what failed, when the reason is known.
fn because(error: &Option<String>) -> String {
    error.as_deref().map(|e| format!(": {e}")).unwrap_or_default()
}

impl Service {
    /// Reads the pause kept in the database (at open: a paused desk stays paused after a restart,
    /// so its queue does not print by surprise).
    pub(crate) fn load_printing_pause(&self) -> Result<(), ServiceError> {
        let paused = self.store.read(|c| packdesk_store::meta::desk_get(c, PAUSED_KEY))?;
        self.print_signal
            .paused
            .store(paused.as_deref() == Some("true"), Ordering::SeqCst);
        Ok(())
    }

    pub fn printing_paused(&self) -> bool {
        self.print_signal.paused.load(Ordering::SeqCst)
    }

    /// Pauses or resumes the desk's printing; resuming sends what waited, oldest first.
    pub fn set_printing(&self, req: PrintingRequest) -> Result<DeskStatus, ServiceError> {
        let value = if req.paused { "true" } else { "false" };
        self.store
            .write(|tx| packdesk_store::meta::desk_set(tx, PAUSED_KEY, value))?;
        self.print_signal.paused.store(req.paused, Ordering::SeqCst);
        if !req.paused {
            self.wake_printer();
        }
        tracing::info!(paused = req.paused, "printing paused or resumed");
        self.desk_status()
    }

    pub fn desk_status(&self) -> Result<DeskStatus, ServiceError> {
        let read = self.store.read(|c| {
            let mut failing = Vec::new();
            for (printer_id, at, error) in table::newest_failures(c)? {
                if !table::printed_since(c, &printer_id, at)? {
                    failing.push((printer_id, at, error));
                }
            }
            // Manifests whose data file's last sending failed, newest first.
            let unsent = packdesk_store::transmissions::failing(c, 20)?;
            Ok::<_, packdesk_store::StoreError>((table::waiting_jobs(c)?, failing, table::printers(c)?, unsent))
        });
        let (waiting, failures, printers, unsent) = match read {
            Ok(r) => r,
            // A desk of a shared database that lost it says so on every screen (the banner, the
            // tray); each request and this check try a new connection, so it clears by itself.
            Err(e) if self.store.is_shared() => {
                tracing::warn!(error = %e, "the shared database cannot be reached");
                // The driver's own words ("connection refused"), not only "database error".
                let e = std::error::Error::source(&e).map_or_else(|| e.to_string(), |c| c.to_string());
                return Ok(DeskStatus {
                    state: DeskState::DatabaseUnreachable,
                    message: format!(
                        "The shared database cannot be reached ({e}): this desk is looking for it (every server \
                         its address names) and carries on when one answers; until then labels cannot be made \
                         or found"
                    ),
                    printing_paused: self.printing_paused(),
                    jobs_waiting: 0,
                    failing_printers: Vec::new(),
                    manifests_not_sent: Vec::new(),
                    ranges_low: Vec::new(),
                    backup_failed: None,
                });
            }
            Err(e) => return Err(e.into()),
        };
        let failing_printers: Vec<FailingPrinter> = failures
            .into_iter()
            // A removed printer's failures are no one's concern any more.
            .filter_map(|(id, at, error)| {
                let name = printers.iter().find(|p| p.id == id)?.name.clone();
                Some(FailingPrinter {
                    printer_id: id,
                    name,
                    error,
                    failed_at: iso_micros(at),
                })
            })
            .collect();
        let manifests_not_sent: Vec<UnsentManifest> = unsent
            .into_iter()
            .map(|t| UnsentManifest {
                manifest_id: t.manifest_id,
                env: t.env,
                file_name: t.file_name,
                error: t.last_error,
                next_attempt_at: t.next_attempt_at.map(iso_micros),
            })
            .collect();
        // The warning is no reason to fail the whole status (the tray asks every second).
        let ranges_low = self.ranges_low().unwrap_or_else(|e| {
            tracing::warn!(error = %e.chain(), "tracking ranges could not be checked");
            Vec::new()
        });
        let paused = self.printing_paused();
        let backup_failed = self.backup_failure();
        let jobs = match waiting {
            1 => "1 print job waiting".to_string(),
            n => format!("{n} print jobs waiting"),
        };
        let (state, message) = if let Some(first) = failing_printers.first() {
            let (more, why) = (and_more(failing_printers.len()), because(&first.error));
            (
                DeskState::PrinterFailing,
                format!("Printer {} failing{more}{why}", first.name),
            )
        } else if let Some(first) = manifests_not_sent.first() {
            let (more, why) = (and_more(manifests_not_sent.len()), because(&first.error));
            (
                DeskState::ManifestNotSent,
                format!(
                    "Manifest {} has not reached its carrier{more}{why}. See End of day",
                    first.file_name
                ),
            )
        } else if let Some(why) = &backup_failed {
            (
                DeskState::BackupFailed,
                format!("The day's backup of this desk failed ({why}); it is tried again every ten minutes"),
            )
        } else if paused {
            (DeskState::PrintingPaused, format!("Printing paused: {jobs}"))
        } else if let Some(first) = ranges_low.first() {
            // Above jobs waiting, which come and go while labels print: the warning stays in view
            // until the operator adds the carrier's next range.
            let more = and_more(ranges_low.len());
            (
                DeskState::RangesLow,
                format!(
                    "Tracking numbers running low: {} ({}) has {} left{more}",
                    first.account, first.pool, first.left
                ),
            )
        } else if waiting > 0 {
            (DeskState::JobsWaiting, jobs)
        } else {
            (DeskState::Ready, "Ready".to_string())
        };
        Ok(DeskStatus {
            state,
            message,
            printing_paused: paused,
            jobs_waiting: waiting,
            failing_printers,
            manifests_not_sent,
            ranges_low,
            backup_failed,
        })
    }

    /// The live, enabled accounts' pools below their warning, fewest left first.
    fn ranges_low(&self) -> Result<Vec<RangeLow>, ServiceError> {
        let mut rows = Vec::new();
        let mut after: Option<packdesk_store::paging::Cursor> = None;
        loop {
            const PAGE: usize = 200;
            let page = self
                .store
                .read(|c| packdesk_store::accounts::list(c, Env::Live, None, PAGE, after.as_ref()))?;
            let more = page.len() > PAGE;
            rows.extend(page.into_iter().take(PAGE));
            match rows.last() {
                Some(r) if more => {
                    after = Some(packdesk_store::paging::Cursor {
                        created_at: r.created_at,
                        id: r.id.clone(),
                    })
                }
                _ => break,
            }
        }
        let mut low = Vec::new();
        // An account of a carrier this build no longer knows is not the banner's concern; a store
        // that fails is (the caller logs it).
        let known =
            |r: &&AccountRow| r.status == AccountStatus::Enabled && packdesk_carriers::carrier(&r.slug).is_some();
        for row in rows.iter().filter(known) {
            let pools = self.pools_left(Env::Live, row)?;
            low.extend(pools.into_iter().filter(|p| p.low).map(|p| RangeLow {
                account_id: row.id.clone(),
                account: row.description.clone(),
                slug: row.slug.clone(),
                pool: p.name,
                left: p.left,
                warning: p.warning,
            }));
        }
        low.sort_by(|a, b| a.left.cmp(&b.left).then_with(|| a.account.cmp(&b.account)));
        Ok(low)
    }
}
