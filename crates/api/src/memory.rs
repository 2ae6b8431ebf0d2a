//! Memory the allocator holds on to (issue 42's soak). glibc gives the threads that allocate
//! arenas of their own (up to eight per core) and keeps in each what was freed there. Capping the
//! arenas at two (`MALLOC_ARENA_MAX=2`) held a desk at 500 labels/s to +6 % in its second minute,
//! but every allocation then queued for them: the print worker fell behind by a quarter. Instead
//! the freed pages go back to the system every few seconds (`malloc_trim`), which leaves
//! allocation as it is: the same 2-minute soak used 111 MB at its first minute and 144 MB at its
//! second, against 144 and 170 MB without (docs/measurements.md).
#![allow(unsafe_code)]

use std::time::Duration;

/// How often freed memory goes back.
const TRIM_EVERY: Duration = Duration::from_secs(5);

/// Starts (once per process) the thread that gives freed memory back to the system.
pub fn return_freed_memory_periodically() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let _ = std::thread::Builder::new().name("packdesk-trim".into()).spawn(|| loop {
            std::thread::sleep(TRIM_EVERY);
            trim();
        });
    });
}

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
