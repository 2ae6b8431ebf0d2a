//! The desk's numbers for a warehouse's monitoring (`GET /metrics`, Prometheus' text format):
//! counters and histograms are recorded where things happen (labels made: `labels`; request
//! times: the API); the gauges below are read from the store at each scrape.

use crate::keys::Env;
use crate::Service;
use packdesk_model::status::{DeliveryStatus, PrintJobStatus, TransmissionStatus};
use packdesk_model::ServiceError;

/// A label made (sync, async, an order's, an upstream's): counted by carrier and environment.
pub(crate) fn label_made(slug: &str, env: Env) {
    metrics::counter!("packdesk_labels_created_total", "carrier" => slug.to_string(), "environment" => env.as_str())
        .increment(1);
}

impl Service {
    /// Sets the gauges from the store and the backups folder (each scrape calls it).
    pub fn record_gauges(&self) -> Result<(), ServiceError> {
        if let Some(held) = self.store.writer_held() {
            // Its rise over a time, divided by that time: the part of it the writer was busy.
            metrics::gauge!("packdesk_writer_held_seconds").set(held.as_secs_f64());
        }
        let q = self.store.read(packdesk_store::gauges::queue_counts)?;
        // Every state, a zero too: an alert on a state needs its series.
        for state in PrintJobStatus::NAMES.iter().filter_map(|w| PrintJobStatus::parse(w)) {
            let n = q.print_jobs.iter().find(|(s, _)| *s == state).map_or(0, |(_, n)| *n);
            metrics::gauge!("packdesk_print_jobs", "state" => state.as_str()).set(n as f64);
        }
        metrics::gauge!("packdesk_async_jobs_queued").set(q.async_jobs_queued as f64);
        for state in [DeliveryStatus::Pending, DeliveryStatus::Failed] {
            let n = q
                .webhook_deliveries
                .iter()
                .find(|(s, _)| *s == state)
                .map_or(0, |(_, n)| *n);
            metrics::gauge!("packdesk_webhook_deliveries", "state" => state.as_str()).set(n as f64);
        }
        let unsent: i64 = q
            .transmissions
            .iter()
            .filter(|(s, _)| matches!(s, TransmissionStatus::Pending | TransmissionStatus::Failed))
            .map(|(_, n)| n)
            .sum();
        metrics::gauge!("packdesk_manifests_not_transmitted").set(unsent as f64);
        for env in [Env::Live, Env::Sandbox] {
            for row in self.enabled_accounts(env)? {
                if packdesk_carriers::carrier(&row.slug).is_none() {
                    continue;
                }
                for pool in self.pools_left(env, &row)? {
                    metrics::gauge!(
                        "packdesk_tracking_numbers_left",
                        "account" => row.id.clone(),
                        "carrier" => row.slug.clone(),
                        "pool" => pool.name,
                        "environment" => env.as_str()
                    )
                    .set(pool.left as f64);
                }
            }
        }
        if let Some(age) = self.newest_backup_age() {
            metrics::gauge!("packdesk_backup_age_seconds").set(age.as_secs_f64());
        }
        Ok(())
    }

    /// How old the newest daily backup is (none: no backup yet, or a desk on the shared database).
    fn newest_backup_age(&self) -> Option<std::time::Duration> {
        std::fs::read_dir(self.backups_dir())
            .ok()?
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_str().is_some_and(crate::backup::is_daily_name))
            .filter_map(|e| e.metadata().ok()?.modified().ok())
            .max()
            .and_then(|t| t.elapsed().ok())
    }
}
