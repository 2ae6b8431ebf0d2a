//! The background work is owned by `Workers`: starting it starts every thread the core runs, and
//! dropping it stops them all, the runtime's too (a desk app that quits leaves nothing running).
//! One test in a binary of its own (not in `tests/it`): it counts the threads of its process,
//! which the other tests would share.

use packdesk_service::clock::SystemClock;
use packdesk_service::workers::Workers;
use packdesk_service::Service;
use std::sync::Arc;

/// The names of this process's threads that belong to Packdesk (Linux truncates them to 15 bytes).
fn packdesk_threads() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir("/proc/self/task")
        .unwrap()
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
        .map(|n| n.trim().to_string())
        .filter(|n| n.starts_with("packdesk"))
        .collect();
    names.sort();
    names
}

#[test]
fn workers_start_every_background_thread_and_stop_them_all_when_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let service = Arc::new(
        Service::open(dir.path(), "http://127.0.0.1:9", Arc::new(SystemClock))
            .unwrap()
            .service,
    );
    let workers = Workers::started(&service, 3).unwrap();
    // The search catch-up ends at once on an empty folder; the others run until the stop.
    let expected = [
        "packdesk-job-0",
        "packdesk-job-1",
        "packdesk-job-2",
        "packdesk-webhoo",
        "packdesk-print",
        "packdesk-io",
    ];
    // A new thread names itself once it runs: wait until they all have (or give up after 10 s).
    let mut running = packdesk_threads();
    for _ in 0..200 {
        if expected.iter().all(|e| running.iter().any(|n| n == e)) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        running = packdesk_threads();
    }
    for name in expected {
        assert!(running.iter().any(|n| n == name), "{name} is not running: {running:?}");
    }
    assert_eq!(
        running.iter().filter(|n| n.starts_with("packdesk-job")).count(),
        3,
        "{running:?}"
    );
    let started = std::time::Instant::now();
    drop(workers);
    drop(service);
    let left = packdesk_threads();
    assert!(left.is_empty(), "still running after the stop: {left:?}");
    // Not a timing claim: a stop that hung on a sleeping worker would take its full wait (seconds).
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "the stop took {:?}",
        started.elapsed()
    );
}
