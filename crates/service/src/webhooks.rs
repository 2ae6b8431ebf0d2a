//! Webhooks: the URL and on/off switch per environment, one delivery per completed async job, and
//! the dispatcher that POSTs them on the contract's schedule.
//!
//! Schedule: attempt 0 goes out when the job completes; after attempt k fails, attempt k + 1 is
//! due 2^k x 30 s later; attempt 14 is the last, then the delivery is `failed`. Only HTTP 200
//! counts as delivered. Every attempt is recorded (time, URL, status code or error, duration). A
//! delivery is at-least-once: a crash between a receiver's 200 and its record sends it again.

use crate::clock::iso_micros;
use crate::keys::Env;
use crate::Service;
pub use packdesk_model::desk::WebhookChange;
use packdesk_model::desk::{DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookDeliveryList, WebhookSetting};
use packdesk_model::request::ListQuery;
use packdesk_model::status::WebhookEvent;
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::db::Tx;
use packdesk_store::webhooks as table;
use packdesk_store::webhooks::{AttemptRow, DeliveryFilter, DeliveryRow, WebhookSetting as StoredSetting};
use packdesk_store::{db::Db, paging};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The last attempt: 14 retries after the first delivery.
pub const LAST_ATTEMPT: i64 = 14;
/// How long a receiver has to answer one attempt.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// Attempts in flight at once.
const CONCURRENCY: usize = 64;
/// Attempts in flight at once to one receiver (scheme, host and port): a slow or dead receiver
/// takes at most these, so it never holds the deliveries to other receivers.
const PER_RECEIVER: usize = 8;
/// Deliveries taken per round of the dispatcher.
const BATCH: usize = 1024;
pub const DELIVERY_STATUSES: &[&str] = DeliveryStatus::NAMES;

/// Seconds from the failure of attempt k to attempt k + 1.
pub fn retry_delay_secs(k: i64) -> i64 {
    30i64 << k.clamp(0, 20)
}

/// Wakes the dispatcher when a delivery is written.
#[derive(Default)]
pub struct DispatcherSignal {
    wake: tokio::sync::Notify,
}

/// The HTTP client of webhook attempts (made on first use). It runs on the caller's runtime: the
/// workers' one in the app (see `workers`), a test's own in tests.
pub(crate) struct Sender {
    client: reqwest::Client,
}

fn check_url(url: &str) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("`{url}` is not a URL ({e})"))?;
    if parsed.scheme() != "http" && parsed.scheme() != "https" {
        return Err(format!("must be an http or https URL, not {}", parsed.scheme()));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err("must name a host".into());
    }
    if url.len() > 2048 {
        return Err("must be at most 2048 characters".into());
    }
    Ok(())
}

fn setting_record(s: Option<&StoredSetting>) -> WebhookSetting {
    match s {
        Some(s) => WebhookSetting {
            url: Some(s.url.clone()),
            enabled: s.enabled,
            updated_at: Some(iso_micros(s.updated_at)),
        },
        None => WebhookSetting {
            url: None,
            enabled: false,
            updated_at: None,
        },
    }
}

fn attempt_record(a: &AttemptRow) -> WebhookAttempt {
    WebhookAttempt {
        attempt: a.attempt,
        at: iso_micros(a.at),
        url: a.url.clone(),
        status_code: a.status_code,
        error: a.error.clone(),
        duration_ms: (a.duration_us as f64 / 1000.0 * 10.0).round() / 10.0,
    }
}

fn delivery_record(d: &DeliveryRow, attempts: &[AttemptRow]) -> WebhookDelivery {
    let status = d.status;
    WebhookDelivery {
        id: d.id.clone(),
        event: d.event,
        record_id: d.record_id.clone(),
        url: d.url.clone(),
        status,
        attempt_count: d.attempts,
        next_attempt_at: d
            .next_attempt_at
            .filter(|_| status == DeliveryStatus::Pending)
            .map(iso_micros),
        attempts: attempts.iter().map(attempt_record).collect(),
        created_at: iso_micros(d.created_at),
        updated_at: iso_micros(d.updated_at),
        body: None,
    }
}

/// The pause of a background loop after `n` rounds in a row the store refused (webhook
/// attempts, manifest transmissions): 1 s, 2 s, 4 s... 60 s.
pub fn record_backoff(n: u32) -> Duration {
    Duration::from_secs((1u64 << n.saturating_sub(1).min(6)).min(60))
}

/// Makes one attempt of a delivery. Only HTTP 200 delivers; redirects are not followed (a 3xx is
/// a failed attempt, recorded with its status).
async fn attempt(client: &reqwest::Client, clock: &dyn crate::clock::Clock, d: DeliveryRow) -> Attempted {
    let at = clock.now().timestamp_micros();
    let started = Instant::now();
    let sent = client
        .post(&d.url)
        .header("content-type", "application/json")
        .body(d.body.clone())
        .send()
        .await;
    let (status_code, error) = match sent {
        Ok(resp) => {
            let code = resp.status().as_u16() as i64;
            let location = resp
                .headers()
                .get("location")
                .and_then(|l| l.to_str().ok())
                .map(str::to_string);
            // Read the answer so the connection can be kept alive.
            let _ = resp.bytes().await;
            let error = match (code, location) {
                (200, _) => None,
                (300..=399, Some(to)) => {
                    Some(format!("the receiver answered HTTP {code} (a redirect to {to}); webhooks follow no redirects: set the final URL"))
                }
                _ => Some(format!("the receiver answered HTTP {code}, not 200")),
            };
            (Some(code), error)
        }
        Err(e) => (None, Some(describe(&e))),
    };
    Attempted {
        delivery: d,
        at,
        status_code,
        error,
        duration_us: started.elapsed().as_micros() as i64,
    }
}

/// What one attempt came to.
struct Attempted {
    delivery: DeliveryRow,
    at: i64,
    status_code: Option<i64>,
    error: Option<String>,
    duration_us: i64,
}

/// The webhook setting of `env`.
fn setting_of(store: &Db, env: Env) -> Result<WebhookSetting, ServiceError> {
    let s = store.read(|c| table::setting(c, env))?;
    Ok(setting_record(s.as_ref()))
}

/// Sets the URL and/or turns webhooks on or off for `env` (a new URL turns them on unless told).
fn update_setting(store: &Db, env: Env, req: WebhookChange, now: i64) -> Result<WebhookSetting, ServiceError> {
    let saved = store.write(|tx| {
        let old = table::setting(tx, env)?;
        let url = req.url.clone().or_else(|| old.as_ref().map(|o| o.url.clone()));
        let enabled = req.enabled.or(old.as_ref().map(|o| o.enabled)).unwrap_or(true);
        let url = match url {
            Some(u) => u.trim().to_string(),
            None => {
                return Err(ServiceError::invalid(
                    "url",
                    "no webhook URL is set yet; send one (http or https)",
                ))
            }
        };
        check_url(&url).map_err(|why| ServiceError::invalid("url", why))?;
        let s = StoredSetting {
            url,
            enabled,
            updated_at: now,
        };
        table::set_setting(tx, env, &s)?;
        Ok(s)
    })?;
    Ok(setting_record(Some(&saved)))
}

/// `packdesk-server webhook`: show, or change like the desk route.
pub(crate) fn command(
    store: &Db,
    env: Env,
    change: Option<WebhookChange>,
    now: i64,
) -> Result<WebhookSetting, ServiceError> {
    match change {
        Some(change) => update_setting(store, env, change, now),
        None => setting_of(store, env),
    }
}

impl Service {
    pub fn webhook_setting(&self, env: Env) -> Result<WebhookSetting, ServiceError> {
        setting_of(&self.store, env)
    }

    /// Changes the webhook. Pending deliveries follow it: none goes out while it is disabled,
    /// and each next attempt goes to the URL set then; turning it on wakes them.
    pub fn set_webhook(&self, env: Env, change: WebhookChange) -> Result<WebhookSetting, ServiceError> {
        let setting = update_setting(&self.store, env, change, self.now_us())?;
        self.wake_dispatcher();
        Ok(setting)
    }

    /// Writes the delivery of a completed job when webhooks are on (inside the job's transaction).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn webhook_delivery_in(
        &self,
        tx: &mut Tx<'_>,
        env: Env,
        event: WebhookEvent,
        record_id: &str,
        meta: Value,
        data: Value,
        now: i64,
    ) -> Result<(), ServiceError> {
        let Some(setting) = table::setting(tx, env)?.filter(|s| s.enabled) else {
            return Ok(());
        };
        let body = json!({"event": event, "date_time": crate::clock::iso_micros(now), "meta": meta, "data": data});
        table::insert_delivery(
            tx,
            &DeliveryRow {
                // Time-ordered: a new delivery goes at the end of the id's index (`queued_job`).
                id: uuid::Uuid::now_v7().to_string(),
                env,
                event,
                record_id: record_id.into(),
                url: setting.url,
                body: body.to_string(),
                status: DeliveryStatus::Pending,
                attempts: 0,
                round_failures: 0,
                next_attempt_at: Some(now),
                created_at: now,
                updated_at: now,
            },
        )?;
        Ok(())
    }

    pub(crate) fn wake_dispatcher(&self) {
        // A permit is kept when the dispatcher is busy, so a wake between its look at the table
        // and its wait is never lost.
        self.dispatcher.wake.notify_one();
    }

    fn sender(&self) -> Result<&Sender, ServiceError> {
        if let Some(s) = self.sender.get() {
            return Ok(s);
        }
        let client = reqwest::Client::builder()
            .timeout(ATTEMPT_TIMEOUT)
            .user_agent(concat!("Packdesk/", env!("CARGO_PKG_VERSION"), " webhook"))
            // A redirect is not a delivery: a 302 to a page that answers GET would otherwise count.
            .redirect(reqwest::redirect::Policy::none())
            .pool_max_idle_per_host(CONCURRENCY)
            // Headers and body may go in two writes: without this, Nagle + delayed ACK cost 40 ms.
            .tcp_nodelay(true)
            .build()
            .map_err(ServiceError::internal)?;
        let _ = self.sender.set(Sender { client });
        self.sender
            .get()
            .ok_or_else(|| ServiceError::internal("no webhook sender"))
    }

    /// Makes one attempt of every delivery due now (up to a batch), records them, and answers how
    /// many it made. The dispatcher thread calls it in a loop; tests call it with a manual clock.
    /// Attempts run concurrently and each is recorded as soon as it finishes (those that finish
    /// together share a transaction), as in the dispatcher's loop.
    pub async fn deliver_due_webhooks(&self) -> usize {
        let now = self.now_us();
        let due = match self.off_runtime(|| self.store.read(|c| table::due(c, now, BATCH))) {
            Ok(d) if !d.is_empty() => d,
            Ok(_) => return 0,
            Err(e) => {
                tracing::error!(error = %e, "webhook deliveries cannot be read");
                return 0;
            }
        };
        let sender = match self.sender() {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(error = %e, "webhooks cannot be sent");
                return 0;
            }
        };
        let clock = self.clock.clone();
        let client = sender.client.clone();
        {
            let gate = std::sync::Arc::new(tokio::sync::Semaphore::new(CONCURRENCY));
            let mut set = tokio::task::JoinSet::new();
            for d in due {
                let (client, gate, clock) = (client.clone(), gate.clone(), clock.clone());
                set.spawn(async move {
                    let _permit = gate.acquire_owned().await;
                    attempt(&client, clock.as_ref(), d).await
                });
            }
            let mut made = 0;
            while let Some(first) = set.join_next().await {
                let mut finished: Vec<Attempted> = first.into_iter().collect();
                while let Some(more) = set.try_join_next() {
                    finished.extend(more);
                }
                made += finished.len();
                // A short synchronous write on this (the dispatcher's) thread; the attempts still
                // in flight go on on the runtime's own threads meanwhile.
                if let Err(e) = self.off_runtime(|| self.record_attempts(finished)) {
                    tracing::warn!(error = %e.chain(), "webhook attempts could not be recorded (they will be made again)");
                }
            }
            made
        }
    }

    /// Runs a store call from the dispatcher's async loop. PostgreSQL's blocking client drives a
    /// runtime of its own, which may not start inside the workers' runtime: on a shared database
    /// the call leaves the runtime's context first (`block_in_place`, a multi-thread runtime).
    fn off_runtime<T>(&self, f: impl FnOnce() -> T) -> T {
        if self.store.is_shared() && tokio::runtime::Handle::try_current().is_ok() {
            tokio::task::block_in_place(f)
        } else {
            f()
        }
    }

    fn record_attempts(&self, results: Vec<Attempted>) -> Result<(), ServiceError> {
        let now = self.now_us();
        self.store.write_relaxed(|tx| {
            for r in results {
                let mut d = r.delivery;
                table::insert_attempt(
                    tx,
                    &AttemptRow {
                        delivery_id: d.id.clone(),
                        attempt: d.attempts,
                        at: r.at,
                        url: d.url.clone(),
                        status_code: r.status_code,
                        error: r.error.clone(),
                        duration_us: r.duration_us,
                    },
                )?;
                d.attempts += 1;
                d.updated_at = now;
                if r.status_code == Some(200) {
                    d.status = DeliveryStatus::Delivered;
                    d.next_attempt_at = None;
                } else if d.round_failures >= LAST_ATTEMPT {
                    d.status = DeliveryStatus::Failed;
                    d.next_attempt_at = None;
                } else {
                    d.next_attempt_at = Some(now + retry_delay_secs(d.round_failures) * 1_000_000);
                    d.round_failures += 1;
                }
                table::update_delivery(tx, &d)?;
            }
            Ok(())
        })
    }

    /// The dispatcher's loop: attempts start as deliveries fall due and are recorded as each
    /// finishes, while others are in flight (a slow receiver holds at most `PER_RECEIVER` of them,
    /// and nothing else waits for it). Sleeps until the next delivery falls due (at most a second),
    /// an attempt finishes or a new delivery is written.
    pub(crate) fn dispatch_webhooks_until(&self, stop: &AtomicBool, io: &tokio::runtime::Handle) {
        let sender = loop {
            match self.sender() {
                Ok(s) => break s,
                Err(e) => {
                    tracing::error!(error = %e, "webhooks cannot be sent");
                    if stop.load(Ordering::SeqCst) {
                        return;
                    }
                    std::thread::sleep(Duration::from_secs(5));
                }
            }
        };
        let client = sender.client.clone();
        io.block_on(async {
            let gate = std::sync::Arc::new(tokio::sync::Semaphore::new(CONCURRENCY));
            let mut receivers: std::collections::HashMap<String, std::sync::Arc<tokio::sync::Semaphore>> =
                Default::default();
            let mut in_flight: std::collections::HashSet<String> = Default::default();
            let mut set: tokio::task::JoinSet<Attempted> = tokio::task::JoinSet::new();
            let mut failed_records = 0u32;
            let mut failed_reads = 0u32;
            // Attempts that finished and are not recorded yet.
            let mut finished: Vec<Attempted> = Vec::new();
            // A shared database's deliveries are sent by one desk at a time: the one holding the
            // dispatcher's session lock (it goes with a desk that dies or loses the database).
            let mut turn = DispatcherTurn::default();
            while !stop.load(Ordering::SeqCst) {
                if !self.off_runtime(|| turn.mine(self)) {
                    tokio::select! {
                        _ = self.dispatcher.wake.notified() => {}
                        _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                    }
                    continue;
                }
                // Record what has finished (those finishing together share a transaction).
                while let Some(done) = set.try_join_next() {
                    finished.extend(done.ok());
                }
                if !finished.is_empty() {
                    let ids: Vec<String> = finished.iter().map(|a| a.delivery.id.clone()).collect();
                    match self.off_runtime(|| self.record_attempts(std::mem::take(&mut finished))) {
                        Ok(()) => failed_records = 0,
                        Err(e) => {
                            // The store refuses writes (disk full, locked): these deliveries stay
                            // due; wait longer each time instead of sending them again and again.
                            tracing::warn!(error = %e, "webhook attempts could not be recorded (they will be made again)");
                            failed_records += 1;
                            tokio::time::sleep(record_backoff(failed_records)).await;
                        }
                    }
                    ids.iter().for_each(|id| {
                        in_flight.remove(id);
                    });
                }
                // Start what has fallen due and is not in flight.
                let now = self.now_us();
                let due = match self.off_runtime(|| self.store.read(|c| table::due(c, now, BATCH + in_flight.len()))) {
                    Ok(due) => {
                        failed_reads = 0;
                        due
                    }
                    Err(e) => {
                        // The deliveries are there; the store is not answering: wait longer each time.
                        failed_reads += 1;
                        let pause = record_backoff(failed_reads);
                        tracing::error!(error = %ServiceError::from(e).chain(), retry_in_s = pause.as_secs(), "webhook deliveries cannot be read");
                        tokio::time::sleep(pause).await;
                        Vec::new()
                    }
                };
                let fresh: Vec<DeliveryRow> = due.into_iter().filter(|d| !in_flight.contains(&d.id)).collect();
                for d in fresh {
                    let receiver = reqwest::Url::parse(&d.url)
                        .map(|u| {
                            format!(
                                "{}://{}:{}",
                                u.scheme(),
                                u.host_str().unwrap_or(""),
                                u.port_or_known_default().unwrap_or(0)
                            )
                        })
                        .unwrap_or_default();
                    let lane = receivers
                        .entry(receiver)
                        .or_insert_with(|| std::sync::Arc::new(tokio::sync::Semaphore::new(PER_RECEIVER)))
                        .clone();
                    let (client, gate, clock) = (client.clone(), gate.clone(), self.clock.clone());
                    in_flight.insert(d.id.clone());
                    set.spawn(async move {
                        let _mine = lane.acquire_owned().await;
                        let _any = gate.acquire_owned().await;
                        attempt(&client, clock.as_ref(), d).await
                    });
                }
                if set.is_empty() {
                    receivers.clear();
                }
                // Wait for an attempt to finish, a new delivery, or (when none is in flight) the next
                // one to fall due.
                let next = match in_flight.is_empty() {
                    true => self.off_runtime(|| self.store.read(table::next_due_at)).ok().flatten(),
                    false => None,
                };
                let wait = match next {
                    Some(t) => Duration::from_micros((t - self.now_us()).clamp(0, 1_000_000) as u64),
                    None => Duration::from_secs(1),
                };
                let wait = if stop.load(Ordering::SeqCst) {
                    Duration::ZERO
                } else {
                    wait
                };
                tokio::select! {
                    Some(done) = set.join_next(), if !set.is_empty() => finished.extend(done.ok()),
                    _ = self.dispatcher.wake.notified() => {}
                    _ = tokio::time::sleep(wait) => {}
                }
            }
            // Stopping: the attempts in flight are dropped unrecorded and are due again at start.
            set.abort_all();
        });
    }

    pub fn list_webhook_deliveries(&self, env: Env, q: &ListQuery) -> Result<WebhookDeliveryList, ServiceError> {
        let w = crate::list::window(q, self.clock.now())?;
        let nonempty = |o: &Option<String>| o.clone().filter(|s| !s.is_empty());
        crate::list::check_status(nonempty(&q.status).as_deref(), DELIVERY_STATUSES)?;
        let f = DeliveryFilter {
            status: nonempty(&q.status).as_deref().and_then(DeliveryStatus::parse),
            event: match nonempty(&q.event) {
                None => None,
                Some(e) => Some(WebhookEvent::parse(&e).ok_or_else(|| {
                    ServiceError::invalid(
                        "event",
                        format!(
                            "`{e}` is not a webhook event; one of: {}",
                            WebhookEvent::NAMES.join(", ")
                        ),
                    )
                })?),
            },
            record_id: nonempty(&q.record_id),
            created_at_min: w.created_at_min.timestamp_micros(),
            created_at_max: w.created_at_max.timestamp_micros(),
        };
        let (rows, last_attempts) = self.store.read(|c| {
            let rows = table::list(c, env, &f, w.limit, w.after.as_ref())?;
            let mut last = Vec::new();
            for r in rows.iter().take(w.limit) {
                last.push(table::attempts(c, &r.id)?.pop());
            }
            Ok::<_, ServiceError>((rows, last))
        })?;
        let page = paging::page(rows, w.limit, |r| paging::Cursor {
            created_at: r.created_at,
            id: r.id.clone(),
        });
        let webhook_deliveries = page
            .items
            .iter()
            .zip(last_attempts)
            .map(|(d, a)| delivery_record(d, a.as_slice()))
            .collect();
        Ok(WebhookDeliveryList {
            window: w.window(page.next_token),
            webhook_deliveries,
        })
    }

    /// One delivery with every attempt and the body it sends.
    pub fn get_webhook_delivery(&self, env: Env, id: &str) -> Result<WebhookDelivery, ServiceError> {
        let (d, attempts) = self.store.read(|c| {
            let d = table::get_delivery(c, env, id)?
                .ok_or_else(|| ServiceError::at(ErrorCode::ItemNotFound, "id", format!("no webhook delivery {id}")))?;
            let a = table::attempts(c, id)?;
            Ok::<_, ServiceError>((d, a))
        })?;
        let mut delivery = delivery_record(&d, &attempts);
        delivery.body = Some(serde_json::from_str(&d.body).unwrap_or(Value::Null));
        Ok(delivery)
    }

    /// Sends a delivery again now, to the URL set today, with a fresh retry schedule.
    pub fn resend_webhook_delivery(&self, env: Env, id: &str) -> Result<WebhookDelivery, ServiceError> {
        let now = self.now_us();
        self.store.write(|tx| {
            let mut d = table::get_delivery(tx, env, id)?
                .ok_or_else(|| ServiceError::at(ErrorCode::ItemNotFound, "id", format!("no webhook delivery {id}")))?;
            if let Some(s) = table::setting(tx, env)? {
                d.url = s.url;
            }
            d.status = DeliveryStatus::Pending;
            d.round_failures = 0;
            d.next_attempt_at = Some(now);
            d.updated_at = now;
            table::update_delivery(tx, &d)?;
            Ok::<_, ServiceError>(())
        })?;
        self.wake_dispatcher();
        self.get_webhook_delivery(env, id)
    }
}

/// A transport error in words an operator can act on.
fn describe(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        format!("no answer within {} s", ATTEMPT_TIMEOUT.as_secs())
    } else if e.is_connect() {
        let mut why = e.to_string();
        let mut src = std::error::Error::source(e);
        while let Some(s) = src {
            why = s.to_string();
            src = s.source();
        }
        format!("cannot connect: {why}")
    } else {
        e.to_string()
    }
}

/// The webhook sender, made on first use (the Service struct's field type).
pub(crate) type SenderCell = OnceLock<Sender>;

/// The dispatcher's hold of the shared database's session lock, looked at again once a second.
#[derive(Default)]
struct DispatcherTurn {
    lock: Option<packdesk_store::pg::SessionLock>,
    checked: Option<std::time::Instant>,
}

impl DispatcherTurn {
    fn mine(&mut self, service: &Service) -> bool {
        let Some(shared) = service.store.shared() else {
            return true;
        };
        if self.checked.is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
            return self.lock.is_some();
        }
        self.checked = Some(std::time::Instant::now());
        if let Some(lock) = self.lock.as_mut() {
            if lock.held() {
                return true;
            }
            tracing::warn!("this desk lost the webhook dispatcher's lock (the shared database went away)");
            self.lock = None;
        }
        self.lock = match shared.try_session_lock(packdesk_store::webhooks::DISPATCHER_LOCK) {
            Ok(lock) => lock,
            Err(e) => {
                // Checked again within a second; meanwhile another desk may send.
                tracing::warn!(error = %ServiceError::from(e).chain(), "the webhook dispatcher's lock cannot be asked for");
                None
            }
        };
        self.lock.is_some()
    }
}
