//! The tray icon: the desk's state at a glance (a green, amber or red dot on the app's icon, the
//! same words as the screens' banner) and a menu to open the window, pause printing and quit.
//! A thread follows the desk every second: the tray shows its status, and the `start_at_login`
//! setting (changed on the Settings screen, in the core) is applied to the login items.

use packdesk_model::desk::{DeskState, DeskStatus, PrintingRequest};
use packdesk_service::Service;
use std::sync::Arc;
use std::time::Duration;
use tauri::image::Image;
use tauri::menu::{CheckMenuItem, Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::{TrayIcon, TrayIconBuilder};
use tauri::{AppHandle, Manager, Wry};
use tauri_plugin_autostart::ManagerExt;

const ICON: &[u8] = include_bytes!("../icons/32x32.png");

/// The main window, shown and brought to the front (tray "Open", a second start of the app).
pub fn show_window(app: &AppHandle) {
    if let Some(w) = app.get_webview_window("main") {
        let _ = w.show();
        let _ = w.unminimize();
        let _ = w.set_focus();
    }
}

struct Tray {
    icon: TrayIcon,
    status: MenuItem<Wry>,
    pause: CheckMenuItem<Wry>,
    base: Image<'static>,
}

/// The app's icon with a dot of `rgb` in its lower right corner.
fn badged(base: &Image<'_>, rgb: [u8; 3]) -> Image<'static> {
    let (w, h) = (base.width() as i64, base.height() as i64);
    let mut px = base.rgba().to_vec();
    let r = w.min(h) * 3 / 10;
    let (cx, cy) = (w - r - 1, h - r - 1);
    for y in 0..h {
        for x in 0..w {
            let d2 = (x - cx).pow(2) + (y - cy).pow(2);
            let i = ((y * w + x) * 4) as usize;
            if d2 <= r * r {
                px[i..i + 4].copy_from_slice(&[rgb[0], rgb[1], rgb[2], 255]);
            } else if d2 <= (r + 1) * (r + 1) {
                // A white ring keeps the dot apart from the icon under it.
                px[i..i + 4].copy_from_slice(&[255, 255, 255, 255]);
            }
        }
    }
    Image::new_owned(px, w as u32, h as u32)
}

fn dot(state: DeskState) -> [u8; 3] {
    match state {
        DeskState::Ready => [0x1f, 0x9d, 0x55],
        DeskState::PrintingPaused | DeskState::JobsWaiting | DeskState::RangesLow | DeskState::BackupFailed => {
            [0xe0, 0x9b, 0x10]
        }
        DeskState::PrinterFailing | DeskState::DatabaseUnreachable | DeskState::ManifestNotSent => [0xd1, 0x34, 0x38],
    }
}

impl Tray {
    fn build(app: &AppHandle, service: Arc<Service>) -> tauri::Result<Tray> {
        let status = MenuItem::with_id(app, "status", "Packdesk: starting", false, None::<&str>)?;
        let open = MenuItem::with_id(app, "open", "Open Packdesk", true, None::<&str>)?;
        let pause = CheckMenuItem::with_id(app, "pause", "Pause printing", true, false, None::<&str>)?;
        let quit = MenuItem::with_id(app, "quit", "Quit Packdesk", true, None::<&str>)?;
        let menu = Menu::with_items(
            app,
            &[&status, &PredefinedMenuItem::separator(app)?, &open, &pause, &quit],
        )?;
        let base = Image::from_bytes(ICON)?.to_owned();
        let icon = TrayIconBuilder::with_id("desk")
            .icon(badged(&base, dot(DeskState::Ready)))
            .tooltip("Packdesk")
            .menu(&menu)
            .on_menu_event(move |app, event| match event.id.as_ref() {
                "open" => show_window(app),
                "pause" => {
                    let paused = !service.printing_paused();
                    match service.set_printing(PrintingRequest { paused }) {
                        Ok(_) => tracing::info!(paused, "printing paused or resumed from the tray"),
                        Err(e) => tracing::warn!(error = %e, "the tray could not pause printing"),
                    }
                }
                "quit" => app.exit(0),
                _ => {}
            })
            .build(app)?;
        Ok(Tray {
            icon,
            status,
            pause,
            base,
        })
    }

    fn show(&self, s: &DeskStatus) {
        let _ = self.icon.set_icon(Some(badged(&self.base, dot(s.state))));
        let _ = self.icon.set_tooltip(Some(format!("Packdesk: {}", s.message)));
        let _ = self.status.set_text(&s.message);
        let _ = self.pause.set_checked(s.printing_paused);
    }
}

/// Starts the tray (when this desktop has one: without libayatana-appindicator the desk runs
/// without it and says so) and the thread that follows the desk.
pub fn start(app: &AppHandle, service: Arc<Service>) {
    let tray = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| Tray::build(app, service.clone())));
    let tray = match tray {
        Ok(Ok(t)) => Some(t),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "no tray icon");
            None
        }
        Err(_) => {
            tracing::warn!("no tray icon: libayatana-appindicator3 is not installed");
            None
        }
    };
    let app = app.clone();
    std::thread::Builder::new()
        .name("desk-watch".into())
        .spawn(move || follow(app, service, tray))
        .ok();
}

fn follow(app: AppHandle, service: Arc<Service>, tray: Option<Tray>) {
    let mut shown: Option<DeskStatus> = None;
    let mut at_login: Option<bool> = None;
    loop {
        if let (Some(t), Ok(s)) = (&tray, service.desk_status()) {
            if shown.as_ref() != Some(&s) {
                tracing::debug!(state = ?s.state, message = %s.message, "tray");
                t.show(&s);
                shown = Some(s);
            }
        }
        if let Ok(settings) = service.desk_settings() {
            // At start only a ticked setting is applied: the one login entry may be another data
            // folder's, which an unticked desk must leave alone.
            if at_login.is_none() && !settings.start_at_login {
                at_login = Some(false);
            }
            if at_login != Some(settings.start_at_login) {
                let autolaunch = app.autolaunch();
                let done = if settings.start_at_login {
                    autolaunch.enable()
                } else {
                    autolaunch.disable()
                };
                match done {
                    Ok(()) => tracing::info!(start_at_login = settings.start_at_login, "login item set"),
                    // Removing an entry already gone is no failure.
                    Err(e) if !settings.start_at_login => tracing::debug!(error = %e, "no login item to remove"),
                    Err(e) => tracing::warn!(error = %e, "the login item could not be set"),
                }
                at_login = Some(settings.start_at_login);
            }
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}
