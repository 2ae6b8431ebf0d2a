//! Memory the allocator holds on to (issue 42's soak). glibc gives the threads that allocate
//! arenas of their own (up to eight per core) and keeps in each what was freed there: at 500
//! labels/s the memory in use stayed at 49 MB (38 of it SQLite's caches) while what the arenas
//! kept free grew from 30 to 83 MB in ten minutes, each arena holding its own share of a
//! label's short-lived buffers. So there is one arena per core (on two cores the soak's memory
//! stayed at 100-103 MB from its second minute to its fifth, against 123-127 MB and growing,
//! labels no slower; four arenas 112-114 MB), and freed pages go back to the system every few
//! seconds (`malloc_trim`). (Two arenas tried when the print worker still read its queue for
//! every label made it fall behind by a quarter; it no longer does.) A block of 128 KiB or more
//! is always mapped on its own and unmapped when freed: glibc otherwise raises that threshold to
//! the largest block freed, after which such blocks fragment the arenas (10 minutes: +20.8 % RSS
//! after the first minute, the arenas' free memory 12 -> 22 MB; with it +10.2 %, 14 MB flat).
//! docs/measurements.md.
#![allow(unsafe_code)]

use std::time::Duration;

/// How often freed memory goes back.
const TRIM_EVERY: Duration = Duration::from_secs(5);

/// Caps the allocator's arenas (`MALLOC_ARENA_MAX` in the environment says otherwise), fixes
/// the size above which blocks are mapped on their own (`MALLOC_MMAP_THRESHOLD_`), and
/// starts (once per process) the thread that gives freed memory back to the system. Called first
/// in `main`, before any other thread: glibc fixes its arena limit once more than eight arenas
/// exist, and a cap set after that is not read (the server calls it again, which does nothing).
pub fn keep_memory_bounded() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        cap_arenas();
        let _ = std::thread::Builder::new().name("packdesk-trim".into()).spawn(|| loop {
            std::thread::sleep(TRIM_EVERY);
            trim();
        });
    });
}

/// The size from which a block is mapped on its own (glibc's default start, kept fixed).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MAPPED_FROM_BYTES: i32 = 128 * 1024;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn cap_arenas() {
    // SAFETY (both): mallopt takes no pointers; glibc applies it under its own lock.
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // One arena per core, at least two.
        let arenas = std::thread::available_parallelism().map_or(2, |n| n.get().max(2));
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas.min(64) as i32);
        }
    }
    if std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_none() {
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MAPPED_FROM_BYTES);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn cap_arenas() {}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() {
    // SAFETY: malloc_trim takes no pointers; it locks each arena itself while it hands that
    // arena's free pages back (madvise), so it is safe from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Other allocators give memory back on their own.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() {}

/// The process's memory by what holds it, for `/metrics` (the soak reads them to tell a cache
/// filling from a leak): `sqlite` (its page caches and statements), `heap_in_use` (every
/// allocation, SQLite's among them) and `heap_free` (freed, kept by the allocator).
pub fn record_gauges() {
    // SAFETY: reads SQLite's own counter (under its mutex); no pointers.
    let sqlite = unsafe { rusqlite::ffi::sqlite3_memory_used() };
    metrics::gauge!(MEMORY_BYTES, "part" => "sqlite").set(sqlite as f64);
    if let Some((in_use, free)) = heap() {
        metrics::gauge!(MEMORY_BYTES, "part" => "heap_in_use").set(in_use as f64);
        metrics::gauge!(MEMORY_BYTES, "part" => "heap_free").set(free as f64);
    }
}

const MEMORY_BYTES: &str = "packdesk_memory_bytes";

/// The allocator's heap: bytes allocated (mapped large blocks too), bytes free in its arenas.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn heap() -> Option<(usize, usize)> {
    // SAFETY: mallinfo2 takes no pointers; it locks each arena while it counts it.
    let m = unsafe { libc::mallinfo2() };
    Some((m.uordblks + m.hblkhd, m.fordblks))
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn heap() -> Option<(usize, usize)> {
    None
}
