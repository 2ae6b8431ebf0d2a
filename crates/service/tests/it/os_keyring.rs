//! The vault key in the OS keyring, against a real Secret Service: GNOME Keyring on a private
//! session bus, started unlocked by tests/keyring.sh, which runs these (they are ignored in a
//! plain `cargo test`, which has no keyring). `secret-tool` reads the entry from outside Packdesk.

use packdesk_model::desk::VaultKeyStore;
use packdesk_service::clock::SystemClock;
use packdesk_service::{KeyPreference, Service};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn open(dir: &Path, pref: KeyPreference) -> Service {
    Service::open_with(dir, "http://127.0.0.1:9", Arc::new(SystemClock), pref)
        .unwrap()
        .service
}

fn keyring_user(dir: &Path) -> String {
    format!("vault key for {}", std::fs::canonicalize(dir).unwrap().display())
}

/// The entry as another program sees it (libsecret's secret-tool).
fn secret_tool_lookup(dir: &Path) -> Option<String> {
    let out = Command::new("secret-tool")
        .args(["lookup", "service", "app.packdesk.desk", "username", &keyring_user(dir)])
        .output()
        .expect("secret-tool (libsecret-tools) runs");
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn secret_tool_clear(dir: &Path) {
    let _ = Command::new("secret-tool")
        .args(["clear", "service", "app.packdesk.desk", "username", &keyring_user(dir)])
        .status();
}

#[test]
#[ignore = "needs GNOME Keyring on the session bus: run by tests/keyring.sh"]
fn the_desktop_app_keeps_the_vault_key_in_gnome_keyring_and_the_server_still_opens_the_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("desk");
    let s = open(&dir, KeyPreference::Keyring);
    let place = s.vault_key_place().clone();
    assert_eq!(place.kept_in, VaultKeyStore::Keyring, "{place:?}");
    assert!(place.location.contains("vault key for"), "{}", place.location);
    assert!(!dir.join("vault.key").exists(), "no key file beside the database");
    let keys = s.reveal_own_keys().unwrap();
    drop(s);
    let hex = secret_tool_lookup(&dir).expect("GNOME Keyring holds the entry");
    assert_eq!(hex.len(), 64, "{hex}");

    // The app again, the server on the same folder, and `packdesk-server keys`: the same keys.
    let s = open(&dir, KeyPreference::Keyring);
    assert_eq!(s.reveal_own_keys().unwrap(), keys);
    drop(s);
    let s = open(&dir, KeyPreference::File);
    assert_eq!(s.vault_key_place().kept_in, VaultKeyStore::Keyring);
    assert_eq!(s.reveal_own_keys().unwrap(), keys);
    drop(s);
    assert_eq!(Service::reveal_keys(&dir).unwrap(), keys);
    assert!(!dir.join("vault.key").exists(), "the server made no file either");

    // The entry gone (another user's keyring, a wiped login keyring): the start stops, no new key.
    secret_tool_clear(&dir);
    let e = Service::open_with(
        &dir,
        "http://127.0.0.1:9",
        Arc::new(SystemClock),
        KeyPreference::Keyring,
    )
    .err()
    .expect("refused");
    assert!(e.details[0].info.contains("nor in the OS keyring"), "{:?}", e.details);
    assert!(secret_tool_lookup(&dir).is_none() && !dir.join("vault.key").exists());
}

#[test]
#[ignore = "needs GNOME Keyring on the session bus: run by tests/keyring.sh"]
fn a_key_file_of_an_older_desk_moves_into_gnome_keyring() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("desk");
    let s = open(&dir, KeyPreference::File);
    let keys = s.reveal_own_keys().unwrap();
    let file_hex: String = std::fs::read(dir.join("vault.key"))
        .unwrap()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    drop(s);
    let s = open(&dir, KeyPreference::Keyring);
    assert_eq!(s.vault_key_place().kept_in, VaultKeyStore::Keyring);
    assert_eq!(s.reveal_own_keys().unwrap(), keys);
    assert!(
        !dir.join("vault.key").exists(),
        "the file is gone once the keyring holds the key"
    );
    assert_eq!(secret_tool_lookup(&dir).as_deref(), Some(file_hex.as_str()));
    drop(s);
    secret_tool_clear(&dir);
}

#[test]
#[ignore = "run by tests/keyring.sh without a session bus"]
fn without_a_keyring_the_desktop_app_keeps_the_key_in_a_private_file_and_says_why() {
    assert!(
        std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none(),
        "run without a session bus"
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("desk");
    let s = open(&dir, KeyPreference::Keyring);
    let place = s.vault_key_place().clone();
    assert_eq!(place.kept_in, VaultKeyStore::File);
    assert_eq!(place.location, dir.join("vault.key").display().to_string());
    let note = place.note.expect("Settings says why");
    assert!(
        note.starts_with("no OS keyring is reachable (no D-Bus session bus"),
        "{note}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("vault.key")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let keys = s.reveal_own_keys().unwrap();
    drop(s);
    assert_eq!(open(&dir, KeyPreference::Keyring).reveal_own_keys().unwrap(), keys);
}
