#![forbid(unsafe_code)]
// The desktop app: no console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    packdesk_app::run();
}
