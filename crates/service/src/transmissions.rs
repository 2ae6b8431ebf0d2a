//! Every manifest's data file reaches its carrier. The close-out queues the file's transmission
//! in its own transaction (when the account has a `manifest_transport`); a worker of its own sends
//! what is due, one file at a time, and records every attempt. A failed attempt is tried again
//! after 30 s, doubling to 1 h, for 24 h; "Send again" (`POST /desk/manifests/{id}/transmit`)
//! sends at once and starts another 24 h.

use crate::keys::Env;
use crate::Service;
use packdesk_link::Outgoing;
use packdesk_model::record::Manifest;
use packdesk_model::status::{TransmissionStatus, TransportKind};
use packdesk_model::transport::{
    ManifestTransport, Transmission, TransmissionAttempt, TransmissionLog, TransportSecrets, TransportTest,
};
use packdesk_model::ServiceError;
use packdesk_store::accounts::AccountRow;
use packdesk_store::db::Tx;
use packdesk_store::transmissions as table;
use packdesk_store::transmissions::{AttemptRow, TransmissionRow};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

const SECOND_US: i64 = 1_000_000;
/// The longest wait between two attempts.
const MAX_DELAY_US: i64 = 3600 * SECOND_US;
/// How long a transmission is retried by itself.
const RETRY_FOR_US: i64 = 24 * 3600 * SECOND_US;
/// How long a desk holds a transmission it is sending: well beyond an attempt (each step of it
/// times out after 30 s); a desk that died holding one lets go when it starts again.
const LEASE_US: i64 = 600 * SECOND_US;
/// How often the worker looks for due transmissions when nothing wakes it.
const POLL: Duration = Duration::from_secs(1);

/// Wakes the transmission worker when a close-out queued a file.
#[derive(Default)]
pub(crate) struct TransmitBell {
    rung: Mutex<bool>,
    cv: Condvar,
}

impl TransmitBell {
    pub(crate) fn ring(&self) {
        *self.rung.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.cv.notify_all();
    }

    fn wait(&self, at_most: Duration) {
        let rung = self.rung.lock().unwrap_or_else(|p| p.into_inner());
        let (mut rung, _) = self
            .cv
            .wait_timeout_while(rung, at_most, |r| !*r)
            .unwrap_or_else(|p| p.into_inner());
        *rung = false;
    }
}

/// The delay after the `failures`-th failed attempt in a row: the webhooks' schedule (30 s,
/// doubling), at most an hour.
fn retry_delay_us(failures: i64) -> i64 {
    crate::webhooks::retry_delay_secs(failures - 1)
        .saturating_mul(SECOND_US)
        .min(MAX_DELAY_US)
}

/// The data file's name at the carrier: `<slug>_<first 8 of the account id>_<yyyymmdd>_<seq>.csv`,
/// the sequence counting the account's files of that day.
fn file_name(tx: &mut Tx<'_>, account: &AccountRow, day: &str) -> Result<String, ServiceError> {
    let short: String = account.id.chars().filter(|c| *c != '-').take(8).collect();
    let prefix = format!("{}_{short}_{}_", account.slug, day.replace('-', ""));
    let seq = table::count_named(tx, &account.id, &prefix)? + 1;
    Ok(format!("{prefix}{seq:03}.csv"))
}

fn record_of(row: Option<&TransmissionRow>, transport: Option<TransportKind>) -> Transmission {
    match row {
        None => Transmission {
            status: TransmissionStatus::NotRequired,
            attempts: 0,
            file_name: None,
            transport: None,
            sent_at: None,
            last_error: None,
            next_attempt_at: None,
        },
        Some(r) => Transmission {
            status: r.status,
            attempts: r.attempts,
            file_name: Some(r.file_name.clone()),
            transport: transport.filter(|k| *k != TransportKind::None),
            sent_at: r.sent_at.map(crate::clock::iso_micros),
            last_error: r.last_error.clone(),
            next_attempt_at: r.next_attempt_at.map(crate::clock::iso_micros),
        },
    }
}

impl Service {
    /// The account's manifest transport as set (no secrets: the vault is not asked).
    fn transport_set(account: &AccountRow) -> ManifestTransport {
        crate::accounts::settings_of(account)
            .manifest_transport
            .unwrap_or(ManifestTransport::None)
    }

    /// The account's manifest transport and its secrets.
    pub(crate) fn transport_of(
        &self,
        account: &AccountRow,
    ) -> Result<(ManifestTransport, TransportSecrets), ServiceError> {
        Ok((
            Service::transport_set(account),
            self.account_secrets(account)?.manifest_transport,
        ))
    }

    /// Queues the data file `file_id` of a manifest just made, in the close-out's transaction
    /// (nothing when the account has no transport).
    pub(crate) fn queue_transmission(
        &self,
        tx: &mut Tx<'_>,
        account: &AccountRow,
        manifest_id: &str,
        file_id: &str,
        day: &str,
        now: i64,
    ) -> Result<Transmission, ServiceError> {
        let transport = Service::transport_set(account);
        if transport == ManifestTransport::None {
            return Ok(record_of(None, None));
        }
        packdesk_store::accounts::lock(tx, &account.id)?;
        let row = TransmissionRow {
            manifest_id: manifest_id.to_string(),
            env: account.env,
            account_id: account.id.clone(),
            file_id: file_id.to_string(),
            file_name: file_name(tx, account, day)?,
            status: TransmissionStatus::Pending,
            attempts: 0,
            round_failures: 0,
            last_error: None,
            next_attempt_at: Some(now),
            give_up_at: now + RETRY_FOR_US,
            sent_at: None,
            created_at: now,
            updated_at: now,
        };
        table::insert(tx, &row)?;
        Ok(record_of(Some(&row), Some(transport.kind())))
    }

    /// Puts each manifest's `transmission` on it (read from where the worker keeps it).
    pub(crate) fn with_transmissions(&self, env: Env, manifests: &mut [Manifest]) -> Result<(), ServiceError> {
        for m in manifests {
            let (row, account) = self.store.read(|c| {
                let Some(row) = table::get(c, env, &m.id)? else {
                    return Ok::<_, packdesk_store::StoreError>((None, None));
                };
                let account = packdesk_store::accounts::get(c, env, &row.account_id)?;
                Ok((Some(row), account))
            })?;
            let kind = account.map(|a| Service::transport_set(&a).kind());
            m.transmission = Some(record_of(row.as_ref(), kind));
        }
        Ok(())
    }

    /// "Send again": sends the manifest's data file now (queuing it first when it was made before
    /// the account had a transport) and answers the manifest with the outcome.
    pub fn transmit_manifest(&self, env: Env, id: &str) -> Result<Manifest, ServiceError> {
        let manifest = self.get_manifest(env, id)?;
        if manifest.files.is_none() {
            return Err(ServiceError::invalid(
                "id",
                "this manifest is still being made: send it once it is manifested",
            ));
        }
        let account = self.account_row(env, &manifest.shipper_account.id, "shipper_account.id")?;
        if Service::transport_set(&account) == ManifestTransport::None {
            return Err(ServiceError::invalid(
                "id",
                format!(
                    "the account {} has no manifest transport: set how its data files reach the carrier (SFTP, HTTPS or a folder) in Accounts, then send again",
                    account.description
                ),
            ));
        }
        let now = self.now_us();
        let free = self.store.write(|tx| {
            if table::get(tx, env, id)?.is_some() {
                return Ok::<_, ServiceError>(table::reschedule(tx, id, now, now + RETRY_FOR_US)?);
            }
            let csv =
                packdesk_store::files::of_owner_as(tx, env, id, packdesk_model::status::FileKind::Manifest, "csv")?
                    .ok_or_else(|| ServiceError::internal("a manifest without its data file"))?;
            let day = self.account_today(&account).to_string();
            self.queue_transmission(tx, &account, id, &csv.id, &day, now)?;
            Ok(true)
        })?;
        // Sent here, so the answer says how it went; while a desk is sending it, that sending
        // goes on and the answer shows it under way.
        if free && self.store.write(|tx| table::claim(tx, id, now, now + LEASE_US))? {
            if let Some(row) = self.store.read(|c| table::get(c, env, id))? {
                self.attempt(row)?;
            }
        }
        self.get_manifest(env, id)
    }

    /// Tries the account's manifest transport without sending a file.
    pub fn test_transport(&self, env: Env, account_id: &str) -> Result<TransportTest, ServiceError> {
        let account = self.account_row(env, account_id, "id")?;
        let (transport, secrets) = self.transport_of(&account)?;
        Ok(
            match packdesk_link::test(&transport, &secrets, packdesk_link::TIMEOUT) {
                Ok(message) => TransportTest { ok: true, message },
                Err(e) => TransportTest {
                    ok: false,
                    message: e.0,
                },
            },
        )
    }

    /// Sends one claimed transmission and records the attempt and its outcome.
    fn attempt(&self, row: TransmissionRow) -> Result<(), ServiceError> {
        let started = std::time::Instant::now();
        let account = self
            .store
            .read(|c| packdesk_store::accounts::get(c, row.env, &row.account_id))?;
        let file = self
            .store
            .read(|c| packdesk_store::files::get(c, row.env, &row.file_id))?;
        let (kind, outcome) = match (account, file) {
            (None, _) => (
                TransportKind::None,
                Err("the account of this manifest was deleted".to_string()),
            ),
            (_, None) => (TransportKind::None, Err("the manifest's data file is gone".to_string())),
            (Some(account), Some(file)) => match self.transport_of(&account) {
                // Recorded as a failed attempt like any other: the banner says so.
                Err(e) => (
                    Service::transport_set(&account).kind(),
                    Err(format!(
                        "the transport's password or key could not be read: {}",
                        e.chain()
                    )),
                ),
                Ok((transport, secrets)) => {
                    let out = Outgoing {
                        manifest_id: &row.manifest_id,
                        file_name: &row.file_name,
                        bytes: &file.bytes,
                    };
                    let sent = packdesk_link::send(&transport, &secrets, &out, packdesk_link::TIMEOUT);
                    (transport.kind(), sent.map_err(|e| e.0))
                }
            },
        };
        let now = self.now_us();
        let mut next = row.clone();
        next.attempts += 1;
        next.updated_at = now;
        match &outcome {
            Ok(()) => {
                next.status = TransmissionStatus::Sent;
                next.sent_at = Some(now);
                next.last_error = None;
                next.next_attempt_at = None;
                next.round_failures = 0;
                tracing::info!(manifest = %row.manifest_id, file = %row.file_name, transport = %kind, "manifest data file sent");
            }
            Err(e) => {
                next.status = TransmissionStatus::Failed;
                next.last_error = Some(e.clone());
                next.round_failures += 1;
                let at = now + retry_delay_us(next.round_failures);
                next.next_attempt_at = (at <= row.give_up_at).then_some(at);
                tracing::warn!(manifest = %row.manifest_id, file = %row.file_name, transport = %kind, error = %e,
                    retry = next.next_attempt_at.is_some(), "a manifest data file could not be sent");
            }
        }
        let attempt = AttemptRow {
            manifest_id: row.manifest_id.clone(),
            attempt: next.attempts,
            at: now,
            transport: kind,
            error: outcome.err(),
            duration_us: started.elapsed().as_micros() as i64,
        };
        // Only the desk still holding the lease records its outcome (one attempt, one number).
        self.store.write(|tx| {
            if table::finish(tx, &next)? {
                table::insert_attempt(tx, &attempt)?;
            }
            Ok::<_, ServiceError>(())
        })?;
        Ok(())
    }

    /// The transmission worker: sends what is due until `stop`; a store that fails is logged and
    /// waited for, longer each time (never taken for "nothing to send").
    pub(crate) fn transmit_until(&self, stop: &AtomicBool) {
        if let Err(e) = self.store.write(table::release_own_leases) {
            tracing::warn!(error = %ServiceError::from(e).chain(), "the transmissions this desk held could not be let go of");
        }
        let mut failures = 0u32;
        while !stop.load(Ordering::SeqCst) {
            match self.transmit_due() {
                Ok(0) => {
                    failures = 0;
                    self.transmit_bell.wait(POLL);
                }
                Ok(_) => failures = 0,
                Err(e) => {
                    failures += 1;
                    let pause = crate::webhooks::record_backoff(failures);
                    tracing::error!(error = %e.chain(), retry_in_ms = pause.as_millis() as u64, "manifest transmissions cannot be read or recorded");
                    self.transmit_bell.wait(pause);
                }
            }
        }
    }

    /// Sends the transmissions due now (a few at a time); answers how many it took.
    pub(crate) fn transmit_due(&self) -> Result<usize, ServiceError> {
        let due = self.store.read(|c| table::due(c, self.now_us(), 8))?;
        let mut taken = 0;
        for row in due {
            // Each claim at its own time: the sendings before it took some.
            let now = self.now_us();
            if self
                .store
                .write(|tx| table::claim(tx, &row.manifest_id, now, now + LEASE_US))?
            {
                taken += 1;
                self.attempt(row)?;
            }
        }
        Ok(taken)
    }

    /// Where a manifest's data file is, with every attempt made to send it.
    pub fn transmission_log(&self, env: Env, manifest_id: &str) -> Result<TransmissionLog, ServiceError> {
        let manifest = self.get_manifest(env, manifest_id)?;
        let attempts = self
            .store
            .read(|c| table::attempts(c, manifest_id))?
            .into_iter()
            .map(|a| TransmissionAttempt {
                attempt: a.attempt,
                at: crate::clock::iso_micros(a.at),
                transport: a.transport,
                error: a.error,
                duration_ms: a.duration_us as f64 / 1000.0,
            })
            .collect();
        Ok(TransmissionLog {
            manifest_id: manifest.id,
            transmission: manifest.transmission.unwrap_or_else(|| record_of(None, None)),
            attempts,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_wait_30_seconds_doubling_to_an_hour() {
        let s: Vec<i64> = (1..=9).map(|k| retry_delay_us(k) / SECOND_US).collect();
        assert_eq!(s, vec![30, 60, 120, 240, 480, 960, 1920, 3600, 3600]);
    }
}
