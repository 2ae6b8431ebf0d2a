//! Where a request's time goes (issue 42): the phases of one request, measured where they happen
//! and answered in its `Server-Timing` header (what a browser's developer tools show), so a slow
//! label says whether it waited for a thread, the writer, the disk or its own rendering.
//!
//! The service call of a request runs on one blocking thread: what it spends is added to that
//! thread's tally while `recording` runs it. Nothing is measured on a thread that is not recording
//! (workers, start-up), so timing costs them nothing.

use std::cell::Cell;
use std::time::{Duration, Instant};

/// A phase of a request, in the order a label passes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The key or session checked.
    Auth,
    /// The body read and parsed into the request.
    Parse,
    /// Waiting for a thread to run the service call.
    Queue,
    /// The request checked against the account, the carrier's rules and its rate card.
    Check,
    /// Tracking numbers drawn.
    Reserve,
    /// The documents rendered.
    Render,
    /// Waiting for the writer (SQLite's one writer connection, or a pooled PostgreSQL connection;
    /// a PostgreSQL label's one statement counts its wait as `Write`).
    Lock,
    /// The write transaction's statements and its commit to the write-ahead log.
    Write,
    /// The writer copying the write-ahead log back into the database (SQLite, past its size).
    Checkpoint,
    /// Waiting for the commit of the batch the write joined (SQLite: writes that arrive together
    /// share a commit, the last of them commits it).
    Commit,
    /// Waiting until the commit is on disk (SQLite's group fsync; PostgreSQL's durable COMMIT).
    Sync,
    /// The answer written as JSON.
    Answer,
}

impl Phase {
    pub const ALL: [Phase; 12] = [
        Phase::Auth,
        Phase::Parse,
        Phase::Queue,
        Phase::Check,
        Phase::Reserve,
        Phase::Render,
        Phase::Lock,
        Phase::Write,
        Phase::Checkpoint,
        Phase::Commit,
        Phase::Sync,
        Phase::Answer,
    ];

    /// Its name in the `Server-Timing` header.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Auth => "auth",
            Phase::Parse => "parse",
            Phase::Queue => "queue",
            Phase::Check => "check",
            Phase::Reserve => "reserve",
            Phase::Render => "render",
            Phase::Lock => "lock",
            Phase::Write => "write",
            Phase::Checkpoint => "checkpoint",
            Phase::Commit => "commit",
            Phase::Sync => "sync",
            Phase::Answer => "answer",
        }
    }
}

/// What a request spent in each phase.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Phases {
    spent: [Duration; Phase::ALL.len()],
}

impl Phases {
    pub fn add(&mut self, phase: Phase, d: Duration) {
        self.spent[phase as usize] += d;
    }

    pub fn spent(&self, phase: Phase) -> Duration {
        self.spent[phase as usize]
    }

    pub fn merge(&mut self, other: &Phases) {
        for p in Phase::ALL {
            self.add(p, other.spent(p));
        }
    }

    /// The `Server-Timing` header's value: each phase that took time, in milliseconds, then the
    /// whole request's `total`.
    pub fn header(&self, total: Duration) -> String {
        use std::fmt::Write;
        // Writing to a String cannot fail.
        let mut out = String::with_capacity(160);
        for p in Phase::ALL.into_iter().filter(|p| !self.spent(*p).is_zero()) {
            let _ = write!(out, "{};dur={:.3}, ", p.name(), ms(self.spent(p)));
        }
        let _ = write!(out, "total;dur={:.3}", ms(total));
        out
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

thread_local! {
    /// This thread's tally while it runs a request's service call (`recording`).
    static TALLY: Cell<Option<Phases>> = const { Cell::new(None) };
}

/// Runs `f` with this thread's phases counted; answers its result and what each phase took.
pub fn recording<T>(f: impl FnOnce() -> T) -> (T, Phases) {
    /// Puts the thread's tally back as it was, also when `f` panics (a pooled thread goes on).
    struct Restore(Option<Phases>);
    impl Drop for Restore {
        fn drop(&mut self) {
            TALLY.set(self.0);
        }
    }
    let _restore = Restore(TALLY.replace(Some(Phases::default())));
    let out = f();
    (out, TALLY.get().unwrap_or_default())
}

/// Runs `f` and counts its time as `phase` when this thread is recording.
pub fn time<T>(phase: Phase, f: impl FnOnce() -> T) -> T {
    if !is_recording() {
        return f();
    }
    let start = Instant::now();
    let out = f();
    spent(phase, start.elapsed());
    out
}

/// Counts `d` as `phase` when this thread is recording.
pub fn spent(phase: Phase, d: Duration) {
    if let Some(mut p) = TALLY.get() {
        p.add(phase, d);
        TALLY.set(Some(p));
    }
}

/// Whether this thread is counting (so a caller skips reading the clock when it is not).
pub fn is_recording() -> bool {
    TALLY.get().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_counts_only_while_recording_and_the_header_names_what_took_time() {
        // Outside `recording`: not counted.
        time(Phase::Check, || std::thread::sleep(Duration::from_millis(1)));
        let ((), phases) = recording(|| {
            time(Phase::Render, || std::thread::sleep(Duration::from_millis(2)));
            time(Phase::Sync, || std::thread::sleep(Duration::from_millis(1)));
            time(Phase::Sync, || std::thread::sleep(Duration::from_millis(1)));
        });
        assert!(phases.spent(Phase::Render) >= Duration::from_millis(2));
        assert!(phases.spent(Phase::Sync) >= Duration::from_millis(2));
        assert_eq!(phases.spent(Phase::Check), Duration::ZERO);
        assert!(!is_recording());
        let header = phases.header(Duration::from_micros(5_250));
        assert!(header.starts_with("render;dur="), "{header}");
        assert!(header.contains(", sync;dur="), "{header}");
        assert!(!header.contains("check"), "{header}");
        assert!(header.ends_with("total;dur=5.250"), "{header}");
    }
}
