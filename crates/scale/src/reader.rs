//! The scale reader: a thread that opens the device file, reads its reports and keeps the latest
//! one; it reopens the device when it goes away (unplugged, switched off) and, with `Auto`, looks
//! for a scale again each time.

use crate::discovery::{find_scales, DEV, SYSFS_HIDRAW};
use crate::report::Reading;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Which device the desk reads.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Choice {
    #[default]
    Off,
    /// The first scale among the hidraw devices.
    Auto,
    Device(PathBuf),
}

/// What the scale says now.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub choice: Choice,
    /// The file being read (with `Auto`, the one found).
    pub device: Option<PathBuf>,
    /// The scale's own name, when discovery found it.
    pub name: Option<String>,
    pub connected: bool,
    /// The latest report since the device was opened.
    pub reading: Option<Reading>,
    /// False until a reading repeats the one before it: the first report after opening may be
    /// an old one the device kept.
    pub trusted: bool,
    /// Why there is no weight, in words for the operator.
    pub problem: Option<String>,
    /// Counts reports read: a caller sees that a new one came even when its weight is the same.
    pub reports: u64,
}

impl Snapshot {
    /// A weight to put on a label: connected, trusted, settled, in a postal unit.
    pub fn stable(&self) -> bool {
        self.connected && self.trusted && self.reading.is_some_and(|r| r.status.is_settled() && r.unit.is_some())
    }
}

struct Shared {
    state: Mutex<Snapshot>,
    /// Bumped by each `watch`: a thread of an earlier choice stops at its next report.
    generation: AtomicU64,
}

/// The desk's scale. Dropping it stops its reader (at the device's next report or close).
pub struct Scale {
    shared: Arc<Shared>,
    sysfs: PathBuf,
    dev: PathBuf,
}

/// How long the reader waits before trying a missing device again.
const RETRY: Duration = Duration::from_millis(250);

impl Default for Scale {
    fn default() -> Self {
        Scale::with_roots(SYSFS_HIDRAW.into(), DEV.into())
    }
}

impl Scale {
    /// A scale that discovers devices under other folders than /sys/class/hidraw and /dev.
    pub fn with_roots(sysfs: PathBuf, dev: PathBuf) -> Scale {
        Scale {
            shared: Arc::new(Shared {
                state: Mutex::new(Snapshot::default()),
                generation: AtomicU64::new(0),
            }),
            sysfs,
            dev,
        }
    }

    pub fn snapshot(&self) -> Snapshot {
        lock(&self.shared).clone()
    }

    /// Reads `choice` from now on (a thread of its own; `Off` stops reading).
    pub fn watch(&self, choice: Choice) {
        let generation = self.shared.generation.fetch_add(1, Ordering::SeqCst) + 1;
        *lock(&self.shared) = Snapshot {
            choice: choice.clone(),
            problem: (choice != Choice::Off).then(|| "Looking for the scale".to_string()),
            ..Snapshot::default()
        };
        if choice == Choice::Off {
            return;
        }
        let shared = Arc::clone(&self.shared);
        let (sysfs, dev) = (self.sysfs.clone(), self.dev.clone());
        // Not joined: a read blocks until the device sends or goes away; the thread ends then.
        let spawned = std::thread::Builder::new()
            .name("packdesk-scale".into())
            .spawn(move || read_until_replaced(&shared, generation, &choice, &sysfs, &dev));
        if let Err(e) = spawned {
            lock(&self.shared).problem = Some(format!("cannot start the scale reader: {e}"));
        }
    }
}

impl Drop for Scale {
    fn drop(&mut self) {
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
    }
}

fn lock(shared: &Shared) -> std::sync::MutexGuard<'_, Snapshot> {
    shared.state.lock().unwrap_or_else(|p| p.into_inner())
}

fn read_until_replaced(shared: &Shared, generation: u64, choice: &Choice, sysfs: &Path, dev: &Path) {
    let current = || shared.generation.load(Ordering::SeqCst) == generation;
    // Sets the state only while this thread's choice is the desk's.
    let set = |f: &dyn Fn(&mut Snapshot)| {
        let mut s = lock(shared);
        if current() {
            f(&mut s);
        }
    };
    while current() {
        let (path, name) = match choice {
            Choice::Off => return,
            Choice::Device(p) => (p.clone(), None),
            Choice::Auto => match find_scales(sysfs, dev).into_iter().next() {
                Some(found) => (found.device, Some(found.name)),
                None => {
                    set(&|s| {
                        s.problem = Some(
                            "No scale found among the USB devices: plug it in and switch it on (Packdesk keeps looking)"
                                .into(),
                        )
                    });
                    std::thread::sleep(RETRY);
                    continue;
                }
            },
        };
        let mut file = match std::fs::File::open(&path) {
            Ok(f) => f,
            Err(e) => {
                let why = cannot_open(&path, &e);
                set(&|s| {
                    s.device = Some(path.clone());
                    s.problem = Some(why.clone());
                });
                std::thread::sleep(RETRY);
                continue;
            }
        };
        set(&|s| {
            *s = Snapshot {
                choice: choice.clone(),
                device: Some(path.clone()),
                name: name.clone(),
                connected: true,
                reports: s.reports,
                ..Snapshot::default()
            }
        });
        let mut buf = [0u8; 64];
        let gone = loop {
            match file.read(&mut buf) {
                Ok(0) => break format!("The scale ({}) was disconnected: waiting for it", path.display()),
                Ok(n) => {
                    if !current() {
                        return;
                    }
                    for reading in Reading::parse_all(&buf[..n]) {
                        set(&|s| take(s, reading));
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break format!("The scale ({}) stopped answering ({e}): waiting for it", path.display()),
            }
        };
        set(&|s| {
            s.connected = false;
            s.reading = None;
            s.trusted = false;
            s.problem = Some(gone.clone());
        });
        std::thread::sleep(RETRY);
    }
}

/// Keeps a report; the first one after opening is trusted once the next repeats it.
fn take(s: &mut Snapshot, reading: Reading) {
    if !s.trusted {
        s.trusted = s.reading == Some(reading);
    }
    s.reading = Some(reading);
    s.reports += 1;
    s.problem = None;
}

fn cannot_open(path: &std::path::Path, e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => format!("{} does not exist: is the scale plugged in and on?", path.display()),
        std::io::ErrorKind::PermissionDenied => format!(
            "Packdesk may not read {}: the Packdesk package's udev rule (60-packdesk-scale.rules) gives desk users the \
             scale; plug the scale in again after installing it",
            path.display()
        ),
        _ => format!("cannot open {}: {e}", path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Status, Unit};
    use std::io::Write;
    use std::time::Instant;

    fn fifo(dir: &std::path::Path, name: &str) -> PathBuf {
        let path = dir.join(name);
        let ok = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap()
            .success();
        assert!(ok, "mkfifo");
        path
    }

    fn wait_for(scale: &Scale, what: &str, pred: impl Fn(&Snapshot) -> bool) -> Snapshot {
        let start = Instant::now();
        loop {
            let s = scale.snapshot();
            if pred(&s) {
                return s;
            }
            assert!(start.elapsed() < Duration::from_secs(10), "waited for {what}: {s:?}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    // The scale itself is not on this machine: a FIFO stands in for /dev/hidrawN and gets the
    // bytes the device would send.
    #[test]
    fn the_first_report_is_trusted_once_it_repeats_and_a_closed_device_disconnects() {
        let dir = tempfile::tempdir().unwrap();
        let path = fifo(dir.path(), "hidraw7");
        let scale = Scale::with_roots(dir.path().join("sys"), dir.path().to_path_buf());
        scale.watch(Choice::Device(path.clone()));
        let mut device = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        wait_for(&scale, "connected", |s| s.connected);
        device.write_all(&[3, 4, 2, 0, 0xD2, 0x04]).unwrap();
        let first = wait_for(&scale, "the first report", |s| s.reports == 1);
        assert!(!first.stable(), "the first report is not trusted yet");
        assert_eq!(first.reading.unwrap().value(), 1234.0);
        device.write_all(&[3, 4, 2, 0, 0xD2, 0x04]).unwrap();
        let second = wait_for(&scale, "the repeat", |s| s.reports == 2);
        assert!(second.stable());
        device.write_all(&[3, 3, 2, 0, 0xD0, 0x07]).unwrap();
        let moving = wait_for(&scale, "motion", |s| s.reports == 3);
        assert_eq!(moving.reading.unwrap().status, Status::InMotion);
        assert!(!moving.stable());
        device.write_all(&[3, 4, 12, 0xFE, 0xF4, 0x01]).unwrap();
        let pounds = wait_for(&scale, "pounds", |s| s.reports == 4);
        assert!(pounds.stable(), "trust lasts until the device goes away");
        assert_eq!(
            (pounds.reading.unwrap().unit, pounds.reading.unwrap().value()),
            (Some(Unit::Lb), 5.0)
        );
        drop(device);
        let gone = wait_for(&scale, "disconnect", |s| !s.connected);
        assert!(gone.reading.is_none());
        assert!(gone.problem.unwrap().contains("was disconnected"));
        // Plugged in again: connected, and the first report is doubted again.
        let mut device = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        wait_for(&scale, "reconnected", |s| s.connected);
        device.write_all(&[3, 4, 2, 0, 100, 0]).unwrap();
        let again = wait_for(&scale, "a report after reconnecting", |s| s.reading.is_some());
        assert!(!again.stable());
        scale.watch(Choice::Off);
        assert_eq!(scale.snapshot(), Snapshot::default());
    }

    #[test]
    fn auto_finds_the_scale_by_its_descriptor_and_says_when_there_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let sys = dir.path().join("sys");
        let scale = Scale::with_roots(sys.clone(), dir.path().to_path_buf());
        scale.watch(Choice::Auto);
        let none = wait_for(&scale, "the search", |s| {
            s.problem.as_deref().is_some_and(|p| p.contains("No scale"))
        });
        assert!(!none.connected);
        let device = sys.join("hidraw3/device");
        std::fs::create_dir_all(&device).unwrap();
        std::fs::write(device.join("report_descriptor"), [0x05, 0x8D, 0x09, 0x01]).unwrap();
        std::fs::write(device.join("uevent"), "HID_NAME=DYMO M25 25 lb Digital Postal Scale\n").unwrap();
        let path = fifo(dir.path(), "hidraw3");
        let _writer = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let found = wait_for(&scale, "the scale found", |s| s.connected);
        assert_eq!(found.device, Some(path));
        assert_eq!(found.name.as_deref(), Some("DYMO M25 25 lb Digital Postal Scale"));
    }

    #[test]
    fn a_missing_device_is_named_in_the_problem() {
        let dir = tempfile::tempdir().unwrap();
        let scale = Scale::with_roots(dir.path().into(), dir.path().into());
        scale.watch(Choice::Device(dir.path().join("hidraw9")));
        let s = wait_for(&scale, "the problem", |s| {
            s.problem.as_deref().is_some_and(|p| p.contains("does not exist"))
        });
        assert!(s.problem.unwrap().contains("hidraw9"));
    }
}
