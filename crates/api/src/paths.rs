//! Where Packdesk keeps its data and finds its UI, for the server binary and the desktop shell.

use std::path::PathBuf;

/// The user's data directory for Packdesk, per platform.
pub fn default_data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("PACKDESK_DATA_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    if cfg!(target_os = "macos") {
        return home.join("Library/Application Support/Packdesk");
    }
    if cfg!(windows) {
        if let Some(a) = std::env::var_os("APPDATA") {
            return PathBuf::from(a).join("Packdesk");
        }
    }
    match std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        Some(x) => PathBuf::from(x).join("packdesk"),
        None => home.join(".local/share/packdesk"),
    }
}

/// The built UI: --ui-dir, else $PACKDESK_UI_DIR, else ui/dist of the source tree the binary was
/// built in (target/<profile>/packdesk-server), else ./ui/dist.
pub fn find_ui_dir(given: Option<PathBuf>) -> Option<PathBuf> {
    let from_exe = std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.parent()?.parent()?.join("ui/dist")));
    given
        .into_iter()
        .chain(std::env::var_os("PACKDESK_UI_DIR").map(PathBuf::from))
        .chain(from_exe)
        .chain(Some(PathBuf::from("ui/dist")))
        .find(|d| d.join("index.html").is_file())
}
