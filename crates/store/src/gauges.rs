//! What the desk's metrics (`GET /metrics`) read at each scrape: its queues counted by state.

use crate::db::Tx;
use packdesk_model::status::{DeliveryStatus, PrintJobStatus, TransmissionStatus};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueCounts {
    pub print_jobs: Vec<(PrintJobStatus, i64)>,
    pub async_jobs_queued: i64,
    pub webhook_deliveries: Vec<(DeliveryStatus, i64)>,
    pub transmissions: Vec<(TransmissionStatus, i64)>,
}

pub fn queue_counts(c: &mut Tx<'_>) -> crate::Result<QueueCounts> {
    Ok(QueueCounts {
        print_jobs: c.rows("SELECT status, COUNT(*) FROM print_jobs GROUP BY status", &[])?,
        async_jobs_queued: crate::jobs::counts(c)?.0,
        webhook_deliveries: c.rows("SELECT status, COUNT(*) FROM webhook_deliveries GROUP BY status", &[])?,
        transmissions: c.rows("SELECT status, COUNT(*) FROM transmissions GROUP BY status", &[])?,
    })
}
