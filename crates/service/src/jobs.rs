//! Async mode: the persistent job queue and its bounded worker pool.
//!
//! Accepting an async request writes the record in its in-progress status and a `jobs` row in one
//! transaction, then answers 3001. A worker completes the job: the operation's own finishing
//! transaction also marks the job done and writes its webhook delivery, so a job's effects and its
//! webhook commit together or not at all. A crash leaves the job `queued`; the next start runs it
//! again from its stored request (nothing of an uncommitted run survives, so it runs exactly once).
//!
//! Order: jobs of one lane (a shipper account) run one at a time in order of acceptance; lanes
//! run in parallel on the pool.

use crate::keys::Env;
use crate::Service;
use packdesk_model::status::JobState;
use packdesk_model::status::LabelStatus;
use packdesk_model::ServiceError;
use packdesk_store::db::Tx;
use packdesk_store::jobs;
use packdesk_store::records::Kind;
use packdesk_store::records::RecordStatus;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::{Condvar, Mutex};

/// How long a desk holds a job of the shared database before another desk may take it over
/// (renewed while the job runs): a desk that died has its jobs run elsewhere after this.
const LEASE: std::time::Duration = std::time::Duration::from_secs(6);

/// How often an idle worker of a shared database looks for jobs other desks accepted.
const SHARED_POLL: std::time::Duration = std::time::Duration::from_millis(200);

pub use packdesk_model::status::JobKind;

/// The table of the records a job of `kind` completes (labels have their own).
fn record_kind(kind: JobKind) -> Option<Kind> {
    match kind {
        JobKind::Label => None,
        JobKind::CancelLabel => Some(Kind::CancelLabel),
        JobKind::Manifest => Some(Kind::Manifest),
        JobKind::BulkDownload => Some(Kind::BulkDownload),
        JobKind::Rate => Some(Kind::Rate),
        JobKind::ShipOrder => None,
    }
}

/// The job being run, as the finishing transaction of its operation needs it.
#[derive(Debug, Clone)]
pub struct Job {
    pub id: String,
    pub env: Env,
    pub kind: JobKind,
    /// The request as accepted.
    pub request: String,
    pub accepted_at: i64,
}

impl Job {
    /// The accepted request, read by the same function as a request that came in over HTTP, so
    /// an async job does exactly what the same body does synchronously.
    pub(crate) fn request<T: serde::de::DeserializeOwned>(&self) -> Result<T, ServiceError> {
        packdesk_model::from_slice(self.request.as_bytes())
            .map_err(|e| ServiceError::internal(format!("the job's stored request no longer reads: {e:?}")))
    }
}

/// Queued job ids per lane, in acceptance order, and which lanes are at work.
#[derive(Default)]
struct Lanes {
    waiting: HashMap<String, VecDeque<(i64, String)>>,
    /// (seq of the lane's first waiting job, lane) of every idle lane with work.
    ready: BTreeSet<(i64, String)>,
    busy: HashSet<String>,
    stopping: bool,
}

#[derive(Default)]
pub struct JobQueue {
    lanes: Mutex<Lanes>,
    wake: Condvar,
    /// Held from an acceptance's transaction until its job is queued, so the queue sees jobs in
    /// commit (= seq) order.
    accepting: Mutex<()>,
}

impl JobQueue {
    fn lock(&self) -> std::sync::MutexGuard<'_, Lanes> {
        self.lanes.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn push(&self, seq: i64, id: String, lane: String) {
        let mut l = self.lock();
        let q = l.waiting.entry(lane.clone()).or_default();
        q.push_back((seq, id));
        if q.len() == 1 && !l.busy.contains(&lane) {
            l.ready.insert((seq, lane));
        }
        drop(l);
        self.wake.notify_one();
    }

    /// The next job of an idle lane (marking the lane busy); waits when `wait` and none is ready.
    pub(crate) fn take(&self, wait: bool) -> Option<(String, String)> {
        let mut l = self.lock();
        loop {
            if l.stopping {
                return None;
            }
            if let Some((_, lane)) = l.ready.pop_first() {
                let q = l.waiting.get_mut(&lane)?;
                let (_, id) = q.pop_front()?;
                if q.is_empty() {
                    l.waiting.remove(&lane);
                }
                l.busy.insert(lane.clone());
                return Some((id, lane));
            }
            if !wait {
                return None;
            }
            l = self.wake.wait(l).unwrap_or_else(|p| p.into_inner());
        }
    }

    pub(crate) fn done(&self, lane: &str) {
        let mut l = self.lock();
        l.busy.remove(lane);
        if let Some(&(seq, _)) = l.waiting.get(lane).and_then(|q| q.front()) {
            l.ready.insert((seq, lane.to_string()));
            drop(l);
            self.wake.notify_one();
        }
    }

    /// Wakes the workers of a shared database's desk: a job was accepted here (another desk's
    /// jobs and leases that ran out are found by polling, `SHARED_POLL`).
    fn nudge(&self) {
        self.wake.notify_all();
    }

    /// Waits for a nudge or `timeout`; false once the queue stops.
    fn idle(&self, timeout: std::time::Duration) -> bool {
        let l = self.lock();
        if l.stopping {
            return false;
        }
        let (l, _) = self.wake.wait_timeout(l, timeout).unwrap_or_else(|p| p.into_inner());
        !l.stopping
    }

    fn stopping(&self) -> bool {
        self.lock().stopping
    }

    pub(crate) fn stop(&self) {
        self.lock().stopping = true;
        self.wake.notify_all();
    }

    /// Jobs waiting (not counting those being run).
    pub fn waiting(&self) -> usize {
        self.lock().waiting.values().map(|q| q.len()).sum()
    }
}

impl Service {
    /// Queues the jobs a previous run left unfinished (at open).
    pub(crate) fn requeue_unfinished(&self) -> Result<usize, ServiceError> {
        let queued = self.store.read(jobs::queued)?;
        let n = queued.len();
        for (seq, id, lane) in queued {
            self.jobs.push(seq, id, lane);
        }
        Ok(n)
    }

    /// Accepts an async request: `write` stores the record in its in-progress status in the same
    /// transaction as the job. Answers what `write` answered (the in-progress record).
    pub(crate) fn accept_job(
        &self,
        env: Env,
        kind: JobKind,
        id: &str,
        lane: &str,
        request: &str,
        write: impl FnOnce(&mut Tx<'_>, i64) -> Result<Value, ServiceError>,
    ) -> Result<crate::reply::Reply, ServiceError> {
        let mut record = Value::Null;
        self.accept_jobs(env, kind, lane, &[(id.to_string(), request.to_string())], |tx, now| {
            record = write(tx, now)?;
            Ok(())
        })?;
        self.absolute_urls(&mut record);
        Ok(crate::reply::Reply::accepted(record))
    }

    /// Accepts several jobs of one lane in one transaction with what `write` stores (a batch and
    /// its orders): they run in the order given.
    pub(crate) fn accept_jobs(
        &self,
        env: Env,
        kind: JobKind,
        lane: &str,
        jobs_to_run: &[(String, String)],
        write: impl FnOnce(&mut Tx<'_>, i64) -> Result<(), ServiceError>,
    ) -> Result<(), ServiceError> {
        let _order = self.jobs.accepting.lock().unwrap_or_else(|p| p.into_inner());
        let now = self.now_us();
        // The job runs as whoever asked for it: what it makes is theirs in the log and on Today.
        let caller = crate::audit::caller()
            .map(|c| serde_json::to_string(&c))
            .transpose()
            .map_err(ServiceError::internal)?;
        let seqs = self.store.write(|tx| {
            write(tx, now)?;
            let mut seqs = Vec::with_capacity(jobs_to_run.len());
            for (id, request) in jobs_to_run {
                seqs.push(jobs::insert(tx, id, env, kind, lane, request, now, caller.as_deref())?);
            }
            Ok::<_, ServiceError>(seqs)
        })?;
        if self.store.is_shared() {
            self.jobs.nudge();
            return Ok(());
        }
        for (seq, (id, _)) in seqs.into_iter().zip(jobs_to_run) {
            self.jobs.push(seq, id.clone(), lane.to_string());
        }
        Ok(())
    }

    /// Marks the job done and writes its webhook delivery, inside the transaction that completes
    /// the job's record. Fails (so the caller rolls back) if the job was done already.
    pub(crate) fn complete_job_in(
        &self,
        tx: &mut Tx<'_>,
        job: &Job,
        meta: Value,
        mut data: Value,
        now: i64,
    ) -> Result<(), ServiceError> {
        if !jobs::finish(tx, &job.id, now)? {
            return Err(ServiceError::internal(format!("job {} was finished already", job.id)));
        }
        self.absolute_urls(&mut data);
        self.webhook_delivery_in(tx, job.env, job.kind.event(), &job.id, meta, data, now)
    }

    /// Runs one job to its end: completed, or failed with its error recorded and delivered.
    pub fn run_job(&self, id: &str) {
        // What the job logs (a failure, a retry) carries its id.
        let _span = tracing::info_span!("job", job_id = %id).entered();
        let row = match self.store.read(|c| jobs::get(c, id)) {
            Ok(Some(row)) => row,
            Ok(None) => return,
            // Still queued in the store: it runs when the store answers again (a restart, or
            // another desk of a shared database); said here, never taken for "nothing to do".
            Err(e) => {
                tracing::error!(error = %ServiceError::from(e).chain(), "an async job could not be read; it stays queued");
                return;
            }
        };
        let kind = row.kind;
        let env = row.env;
        if row.state != JobState::Queued {
            return;
        }
        let job = Job {
            id: row.id,
            env,
            kind,
            request: row.request,
            accepted_at: row.accepted_at,
        };
        // A caller that cannot be read (written by another version) leaves the job the desk's.
        let caller = row.caller.as_deref().and_then(|c| serde_json::from_str(c).ok());
        crate::audit::as_caller(caller, || self.run_attempts(&job));
        self.wake_dispatcher();
    }

    /// Runs a job up to three times while it fails in a way worth trying again; a last failure
    /// is recorded as the job's answer.
    fn run_attempts(&self, job: &Job) {
        let kind = job.kind;
        for attempt in 0..3 {
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match kind {
                JobKind::Label => self.finish_label(job),
                JobKind::CancelLabel => self.finish_cancel_label(job),
                JobKind::Manifest => self.finish_manifest(job),
                JobKind::BulkDownload => self.finish_bulk_download(job),
                JobKind::Rate => self.finish_rates(job),
                JobKind::ShipOrder => self.finish_ship_order(job),
            }));
            let err = match run {
                Ok(Ok(())) => break,
                Ok(Err(e)) => e,
                Err(_) => ServiceError::internal("the job failed unexpectedly"),
            };
            if self.job_done(&job.id) {
                break;
            }
            if err.retryable() && attempt < 2 {
                std::thread::sleep(std::time::Duration::from_millis(100 << attempt));
                continue;
            }
            if let Err(e) = self.fail_job(job, &err) {
                tracing::error!(job_id = %job.id, error = %e, "job could not be marked failed");
            }
            break;
        }
    }

    fn job_done(&self, id: &str) -> bool {
        matches!(self.store.read(|c| jobs::get(c, id)), Ok(Some(j)) if j.state == JobState::Done)
    }

    /// Records a job's failure: its record goes to `failed` (what it held goes back: a cancel's
    /// label to `created`, a manifest's labels out of it) and the webhook carries the error's meta
    /// with the failed record as data, so the receiver knows which request failed.
    fn fail_job(&self, job: &Job, err: &ServiceError) -> Result<(), ServiceError> {
        if job.kind == JobKind::ShipOrder {
            return self.fail_ship_order(job, err);
        }
        let now = self.now_us();
        let env = job.env;
        self.store.write(|tx| {
            let data = match record_kind(job.kind) {
                None => {
                    packdesk_store::labels::set_status(tx, &job.id, LabelStatus::Failed, now)?;
                    let row = packdesk_store::labels::get(tx, env, &job.id)?;
                    row.map(|r| self.label_value(&r)).transpose()?.unwrap_or_default()
                }
                Some(kind) => {
                    let Some(mut row) = packdesk_store::records::get(tx, kind, env, &job.id)? else {
                        return Err(ServiceError::internal("the job's record is gone"));
                    };
                    if kind == Kind::CancelLabel {
                        let mut record: Value = serde_json::from_str(&row.record).map_err(ServiceError::internal)?;
                        if let Some(label) = record["label"]["id"].as_str() {
                            if let Some(l) = packdesk_store::labels::get(tx, env, label)? {
                                if l.status == LabelStatus::Cancelling {
                                    packdesk_store::labels::set_status(tx, label, LabelStatus::Created, now)?;
                                }
                            }
                        }
                        record["updated_at"] = Value::String(crate::clock::iso_micros(now));
                        row.record = record.to_string();
                    }
                    if kind == Kind::Manifest {
                        packdesk_store::labels::release_manifest(tx, &job.id, now)?;
                    }
                    let mut record: Value = serde_json::from_str(&row.record).map_err(ServiceError::internal)?;
                    record["status"] = Value::String("failed".into());
                    record["updated_at"] = Value::String(crate::clock::iso_micros(now));
                    row.status = RecordStatus::failed(kind)
                        .ok_or_else(|| ServiceError::internal("an address validation is never a job"))?;
                    row.record = record.to_string();
                    row.updated_at = now;
                    packdesk_store::records::put(tx, &row)?;
                    record
                }
            };
            self.complete_job_in(tx, job, err.meta(), data, now)
        })
    }

    /// Runs every queued job on the calling thread, until none is left (tests, tools).
    #[cfg(any(test, feature = "testing"))]
    pub fn run_queued_jobs(&self) -> usize {
        if self.store.is_shared() {
            let mut n = 0;
            while let Ok(Some(id)) = self.claim_shared_job() {
                self.run_leased_job(&id);
                n += 1;
            }
            return n;
        }
        let mut n = 0;
        while let Some((id, lane)) = self.jobs.take(false) {
            self.run_job(&id);
            self.jobs.done(&lane);
            n += 1;
        }
        n
    }
}

impl Service {
    /// A job worker's loop: takes the next job of an idle lane and runs it, until the queue stops.
    pub(crate) fn work_on_jobs(&self) {
        if self.store.is_shared() {
            return self.work_on_shared_jobs();
        }
        while let Some((id, lane)) = self.jobs.take(true) {
            // The lane is given back even if the job's code panics (run_job catches its own
            // panics; this is the last guard), so the account's next jobs still run.
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.run_job(&id)));
            self.jobs.done(&lane);
            if let Err(p) = ran {
                std::panic::resume_unwind(p);
            }
        }
    }

    /// Tells the background work to stop (the workers join it).
    pub(crate) fn stop_background(&self) {
        self.jobs.stop();
        self.wake_dispatcher();
        self.transmit_bell.ring();
        self.stop_printer();
    }

    /// Async jobs waiting for a worker (on a shared database: of every desk).
    pub fn waiting_jobs(&self) -> usize {
        if self.store.is_shared() {
            return self.store.read(jobs::counts).map_or(0, |(queued, _)| queued as usize);
        }
        self.jobs.waiting()
    }

    /// A shared database's worker: claims the next runnable job of any desk under a lease and
    /// runs it; idle, it looks again when a job is accepted here or after `SHARED_POLL`.
    fn work_on_shared_jobs(&self) {
        while !self.jobs.stopping() {
            match self.claim_shared_job() {
                Ok(Some(id)) => self.run_leased_job(&id),
                Ok(None) => {
                    if !self.jobs.idle(SHARED_POLL) {
                        return;
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot take a job from the shared database");
                    // The database is away: look again in a while, not five times a second.
                    if !self.jobs.idle(SHARED_POLL * 25) {
                        return;
                    }
                }
            }
        }
    }

    /// Leases the next runnable job to this desk (a lane's jobs one at a time, in acceptance order,
    /// whichever desk accepted them; a job of a desk that died once its lease ran out).
    fn claim_shared_job(&self) -> Result<Option<String>, ServiceError> {
        let now = self.now_us();
        let row = self.store.write(|tx| jobs::claim(tx, now, LEASE.as_micros() as i64))?;
        Ok(row.map(|r| r.id))
    }

    /// Runs a leased job, renewing the lease while it runs, so a long job (a close-out of
    /// thousands of labels) is not taken over by another desk meanwhile. The lease is not what
    /// keeps a job to one run: its completing transaction is (`jobs::finish`).
    fn run_leased_job(&self, id: &str) {
        // The renewer stops when `done` is dropped: at the job's end, or its panic's unwinding.
        let (done, finished) = std::sync::mpsc::channel::<()>();
        std::thread::scope(|scope| {
            scope.spawn(move || {
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(LEASE / 3) {
                    let until = self.now_us() + LEASE.as_micros() as i64;
                    if let Err(e) = self.store.write(|tx| jobs::renew(tx, id, until)) {
                        tracing::warn!(job_id = %id, error = %e, "cannot renew the job's lease");
                    }
                }
            });
            let _done = done;
            self.run_job(id);
        });
    }
}
