//! The daily backup of a desk's own database, on the desk's clock: made once a day from its
//! hour into `<data>/backups`, the oldest beyond the count removed, a failure in the status
//! banner until a backup succeeds.

use crate::common::*;
use chrono::{TimeZone, Timelike};
use packdesk_model::desk::DeskState;
use packdesk_model::preset::DeskSettings;
use packdesk_service::clock::ManualClock;
use packdesk_service::Service;
use std::sync::Arc;

fn names(s: &Service) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(s.backups_dir())
        .map(|d| d.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect())
        .unwrap_or_default();
    n.sort();
    n
}

#[test]
fn a_backup_is_made_once_a_day_from_its_hour_and_only_the_newest_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    // 01:30 of the desk's (this machine's) day.
    let start = chrono::Local.with_ymd_and_hms(2026, 11, 20, 1, 30, 0).unwrap();
    let clock = Arc::new(ManualClock::new(start.with_timezone(&chrono::Utc)));
    let s = Service::open(dir.path(), "http://127.0.0.1:9", clock.clone())
        .unwrap()
        .service;
    s.set_desk_settings(DeskSettings {
        backup_hour: 2,
        backups_kept: 2,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(s.back_up_if_due().unwrap(), None, "before its hour");
    clock.advance(chrono::Duration::minutes(45));
    assert_eq!(chrono::DateTime::<chrono::Local>::from(s_now(&clock)).hour(), 2);
    let first = s.back_up_if_due().unwrap().expect("the day's backup");
    assert!(first.ends_with("packdesk-2026-11-20.backup"), "{first:?}");
    assert_eq!(s.back_up_if_due().unwrap(), None, "once a day");
    for _ in 0..3 {
        clock.advance(chrono::Duration::days(1));
        assert!(s.back_up_if_due().unwrap().is_some());
    }
    assert_eq!(
        names(&s),
        ["packdesk-2026-11-22.backup", "packdesk-2026-11-23.backup"],
        "the newest two"
    );
    // Each is a backup restore takes.
    let restored = dir.path().join("restored");
    let report =
        packdesk_service::backup::restore(&s.backups_dir().join("packdesk-2026-11-23.backup"), &restored, None)
            .unwrap();
    assert!(!report.with_vault_key);

    // Turned off: none.
    s.set_desk_settings(DeskSettings {
        daily_backup: false,
        ..Default::default()
    })
    .unwrap();
    clock.advance(chrono::Duration::days(1));
    assert_eq!(s.back_up_if_due().unwrap(), None);
}

fn s_now(clock: &ManualClock) -> chrono::DateTime<chrono::Utc> {
    use packdesk_service::clock::Clock;
    clock.now()
}

#[test]
fn a_failed_backup_shows_in_the_status_until_one_succeeds() {
    let h = harness();
    let s = &h.service;
    s.set_desk_settings(DeskSettings {
        backup_hour: 0,
        ..Default::default()
    })
    .unwrap();
    // The backups folder cannot be made: a file stands in its place.
    std::fs::write(s.backups_dir(), b"not a folder").unwrap();
    assert!(s.back_up_if_due().is_err());
    let status = s.desk_status().unwrap();
    assert_eq!(status.state, DeskState::BackupFailed);
    assert!(status.message.contains("backup"), "{}", status.message);
    std::fs::remove_file(s.backups_dir()).unwrap();
    assert!(s.back_up_if_due().unwrap().is_some());
    assert_eq!(s.desk_status().unwrap().backup_failed, None);
}
