//! The desk's background work and its one tokio runtime.
//!
//! `Workers` owns every thread the core runs besides the callers' own: the async job pool, the
//! webhook dispatcher, the manifest transmitter, the print loop (its per-printer senders are blocking tasks of the runtime)
//! and the search index catch-up. Each runs under `supervised`: a panic is logged and the work
//! starts again. The runtime is the process's only one: the HTTP server runs on it too
//! (`Workers::runtime`), and webhook attempts are its tasks. Dropping `Workers` stops the threads
//! (after the job in hand), then the runtime.

use crate::Service;
use packdesk_model::ServiceError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long a stop waits for print sends in flight (a printer that is off takes 10 s to time out).
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

pub struct Workers {
    runtime: Option<tokio::runtime::Runtime>,
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
    service: Option<Arc<Service>>,
}

impl Workers {
    /// The runtime alone, before the service opens (the server binds its address on it first).
    pub fn new() -> Result<Workers, ServiceError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .thread_name("packdesk-io")
            .enable_all()
            .build()
            .map_err(|e| ServiceError::internal(format!("no async runtime: {e}")))?;
        Ok(Workers {
            runtime: Some(runtime),
            stop: Arc::new(AtomicBool::new(false)),
            threads: Vec::new(),
            service: None,
        })
    }

    /// The one runtime: run the HTTP server on it.
    pub fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime
            .as_ref()
            .expect("the runtime lives until Workers is dropped")
    }

    /// Starts the background work of `service`: `job_workers` async job threads (see
    /// `default_job_workers`), the webhook dispatcher, the print loop and the search catch-up.
    pub fn start(&mut self, service: &Arc<Service>, job_workers: usize) {
        let io = self.runtime().handle().clone();
        for i in 0..job_workers.max(1) {
            let s = Arc::clone(service);
            self.threads
                .push(supervised(format!("packdesk-job-{i}"), &self.stop, move |_| {
                    s.work_on_jobs()
                }));
        }
        let (s, handle) = (Arc::clone(service), io.clone());
        self.threads
            .push(supervised("packdesk-webhooks".into(), &self.stop, move |stopping| {
                s.dispatch_webhooks_until(stopping, &handle)
            }));
        let s = Arc::clone(service);
        self.threads
            .push(supervised("packdesk-transmit".into(), &self.stop, move |stopping| {
                s.transmit_until(stopping)
            }));
        let s = Arc::clone(service);
        self.threads
            .push(supervised("packdesk-backup".into(), &self.stop, move |stopping| {
                s.back_up_daily_until(stopping)
            }));
        // Reports find the closed days counted: those of earlier runs now, each new one as it closes.
        let s = Arc::clone(service);
        self.threads
            .push(supervised("packdesk-reports".into(), &self.stop, move |stopping| {
                s.keep_report_days_until(stopping)
            }));
        let s = Arc::clone(service);
        self.threads
            .push(supervised("packdesk-print".into(), &self.stop, move |stopping| {
                s.print_until(stopping, &io)
            }));
        // History's first search stays quick: the labels of earlier runs are indexed now, off the
        // start-up path (a data folder upgraded with a million labels takes minutes).
        let s = Arc::clone(service);
        self.threads
            .push(supervised("packdesk-search".into(), &self.stop, move |stopping| {
                if let Err(e) = s.catch_up_search(|| !stopping.load(Ordering::SeqCst)) {
                    tracing::warn!(error = %e.chain(), "the search index could not catch up now");
                }
            }));
        if let Err(e) = service.start_scale() {
            tracing::warn!(error = %e.chain(), "the scale setting could not be read");
        }
        self.service = Some(Arc::clone(service));
    }

    /// The service with its workers started and a runtime of their own (tests and tools that
    /// run no server).
    pub fn started(service: &Arc<Service>, job_workers: usize) -> Result<Workers, ServiceError> {
        let mut w = Workers::new()?;
        w.start(service, job_workers);
        Ok(w)
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(s) = &self.service {
            s.stop_background();
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_timeout(SHUTDOWN_GRACE);
        }
    }
}

/// Default size of the async job pool: one per core, at least two.
pub fn default_job_workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .max(2)
}

/// Starts a background thread that runs `work` again when it panics (logged, after a pause that
/// grows to 30 s), until `stop` is set. A normal return ends the thread.
pub fn supervised(
    name: String,
    stop: &Arc<AtomicBool>,
    work: impl Fn(&AtomicBool) + Send + 'static,
) -> std::thread::JoinHandle<()> {
    let stop = Arc::clone(stop);
    let thread_name = name.clone();
    std::thread::Builder::new()
        .name(thread_name)
        .spawn(move || {
            let mut panics = 0u32;
            loop {
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&stop))) {
                    Ok(()) => return,
                    Err(p) => {
                        panics += 1;
                        let why = p
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| p.downcast_ref::<String>().cloned())
                            .unwrap_or_default();
                        tracing::error!(worker = name, why = %why, "background work stopped on a bug; starting it again");
                        if stop.load(Ordering::SeqCst) {
                            return;
                        }
                        std::thread::sleep(Duration::from_millis((100u64 << panics.min(8)).min(30_000)));
                    }
                }
            }
        })
        .expect("spawn a background thread")
}

#[cfg(test)]
mod supervision_tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn background_work_that_panics_is_started_again() {
        let stop = Arc::new(AtomicBool::new(false));
        let runs = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&runs);
        let t = supervised("test-worker".into(), &stop, move |_| {
            if counted.fetch_add(1, Ordering::SeqCst) < 2 {
                panic!("a bug in background work");
            }
        });
        t.join().expect("the thread itself survives its work's panics");
        assert_eq!(runs.load(Ordering::SeqCst), 3, "two panics, then a run that returns");
    }
}
