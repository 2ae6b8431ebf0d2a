//! Time comes from a Clock, so schedules can be tested with a manual one.

use chrono::{DateTime, Utc};
use std::sync::Mutex;

pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that moves only when told to; each reading is one microsecond after the last, so
/// records made in a row still sort in order.
pub struct ManualClock(Mutex<DateTime<Utc>>);

impl ManualClock {
    pub fn new(start: DateTime<Utc>) -> ManualClock {
        ManualClock(Mutex::new(start))
    }

    pub fn advance(&self, by: chrono::Duration) {
        let mut t = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *t += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        let mut t = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *t += chrono::Duration::microseconds(1);
        *t
    }
}

/// ISO 8601 with offset, as the records show time.
pub fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
}

pub fn iso_micros(us: i64) -> String {
    DateTime::<Utc>::from_timestamp_micros(us).map(iso).unwrap_or_default()
}
