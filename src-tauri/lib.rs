//! The desktop shell: starts the whole service core and its HTTP server on 127.0.0.1 (for this
//! window and for warehouse systems), then opens a window on the desk UI it serves. Nothing else
//! lives here: every rule is in the core, every screen in ui/.
//!
//! `packdesk --help` lists the options (shared with `packdesk-server`); the port defaults to 4780
//! and falls back to a free one when another program holds it.
//!
//! One app per data folder: a second start hands over to the running one (its window comes to the
//! front) before it touches the data. The tray shows the desk's state; closing the window keeps
//! the desk running there when the `close_to_tray` setting says so.
#![forbid(unsafe_code)]

mod tray;
mod update;

use clap::Parser;
use packdesk_api::cli::DeskOptions;
use packdesk_service::clock::SystemClock;
use packdesk_service::workers::{default_job_workers, Workers};
use packdesk_service::{KeyPreference, Service};
use sha2::Digest;
use std::path::Path;
use std::sync::{Arc, Mutex};
use tauri::Manager;

#[derive(Parser)]
#[command(name = "packdesk", version, about = "Packdesk, the packing-desk app.")]
struct Cli {
    #[command(flatten)]
    desk: DeskOptions,

    /// Log filter: error, warn, info, debug (one line per request), or tracing's per-module syntax.
    #[arg(long, env = "RUST_LOG", default_value = "info", value_name = "FILTER")]
    log: String,
}

fn fail(why: String) -> ! {
    eprintln!("packdesk: {why}");
    std::process::exit(1)
}

/// Hands a link to the system's browser (the desk window never leaves its own pages).
fn open_in_system_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener).arg(url).spawn() {
        tracing::warn!(url, error = %e, "cannot open the link in the browser");
    }
}

/// The name the running app holds on the session bus (Linux), a named mutex (Windows) or a socket
/// (macOS): one per data folder, so desks of other folders (tests, a second warehouse) run apart.
fn instance_id(data_dir: &Path) -> String {
    let dir = std::path::absolute(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
    let digest = sha2::Sha256::digest(dir.to_string_lossy().as_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("app.packdesk.desk.d{hex}")
}

/// The login item starts this desk's data folder. On Linux it is the `Exec` line of an XDG
/// autostart entry, which the plugin joins with spaces: a folder with spaces is quoted as the
/// desktop entry format says.
fn login_item_arg(arg: &str) -> String {
    let plain = arg
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c));
    if plain || !cfg!(target_os = "linux") {
        return arg.to_string();
    }
    let mut quoted = String::from('"');
    for c in arg.chars() {
        if matches!(c, '"' | '`' | '$' | '\\') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    quoted
}

/// Binds the server's address and opens the data folder: what only the one app of a folder may do.
/// The UI is served from `--ui-dir`, else the installed app's resources, else the source tree.
fn start_desk(
    args: &DeskOptions,
    workers: &mut Workers,
    bundled_ui: Option<std::path::PathBuf>,
) -> (Arc<Service>, tokio::task::JoinHandle<std::io::Result<()>>, tauri::Url) {
    let listener = workers.runtime().block_on(async {
        match tokio::net::TcpListener::bind(args.listen).await {
            Ok(l) => l,
            // Another Packdesk or program has the default port: take a free one (the window follows it).
            Err(_) if args.listen_is_default() => tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .unwrap_or_else(|e| fail(format!("cannot listen on 127.0.0.1: {e}"))),
            Err(e) => fail(format!("cannot listen on {}: {e}", args.listen)),
        }
    });
    let local = listener.local_addr().unwrap_or_else(|e| fail(e.to_string()));
    let tls = packdesk_api::tls::Tls::for_listener(args, local).unwrap_or_else(|e| fail(e));
    // The window opens the desk over plain HTTP from this machine: on loopback when listening on
    // every address (other machines get HTTPS there). Listening on one network address only, it
    // would be refused there.
    let base = match local.ip() {
        std::net::IpAddr::V4(ip) if ip.is_unspecified() => format!("http://127.0.0.1:{}", local.port()),
        std::net::IpAddr::V6(ip) if ip.is_unspecified() => format!("http://[::1]:{}", local.port()),
        ip if tls.is_some() && packdesk_api::tls::is_network(ip) => fail(format!(
            "the desk's window cannot open {local} (other machines get HTTPS there): listen on 0.0.0.0:{} instead",
            local.port()
        )),
        _ => format!("http://{local}"),
    };
    // `--database` (or PACKDESK_DATABASE_URL), else the database Settings chose: a desk of a
    // warehouse's shared database, or the data folder's own file.
    let opened = Service::open_on(
        &args.data_dir,
        &args.database(),
        &args.records_base_url(local, tls.is_some()),
        Arc::new(SystemClock),
        KeyPreference::Keyring,
    )
    .unwrap_or_else(|e| {
        fail(
            e.details
                .first()
                .map(|d| d.info.clone())
                .unwrap_or_else(|| e.to_string()),
        )
    });
    if let Some(days) = args.file_link_days {
        opened.service.set_file_link_days(days);
    }
    opened.service.mark_desktop_app();
    if args.database_from_command_line() {
        opened.service.note_database_from_command_line();
    }
    let service = Arc::new(opened.service);
    match &tls {
        Some(tls) => {
            tracing::info!(fingerprint = %tls.certificate().fingerprint_sha256, "serving HTTPS to other machines");
            workers.runtime().spawn(tls.clone().keep_fresh(service.clone()));
        }
        None => packdesk_api::tls::say_plain(
            &service,
            args.insecure_http && packdesk_api::tls::is_network(local.ip()),
        ),
    }
    workers.start(&service, default_job_workers());
    let ui_dir = packdesk_api::paths::find_ui_dir(args.ui_dir.clone().or(bundled_ui));
    let server = workers.runtime().spawn(packdesk_api::serve_with(
        listener,
        service.clone(),
        ui_dir,
        packdesk_api::connections::ConnectionLimits::default(),
        tls,
        std::future::pending(),
    ));
    tracing::info!(%base, data_dir = %args.data_dir.display(), "packdesk started");
    // The desktop smoke test reads this line.
    println!("packdesk listening on {base} (data folder {})", args.data_dir.display());
    let url: tauri::Url = base.parse().unwrap_or_else(|e| fail(format!("{base}: {e}")));
    (service, server, url)
}

pub fn run() {
    // Before any thread starts (`keep_memory_bounded`).
    packdesk_api::memory::keep_memory_bounded();
    // WebKitGTK's accelerated compositing costs the web process about 80 MB at idle (186 MB
    // against 105 MB, docs/measurements.md) and buys nothing for forms and tables; set the
    // variable to 0 to have it back. Set before any thread starts, as setenv requires.
    #[cfg(target_os = "linux")]
    if std::env::var_os("WEBKIT_DISABLE_COMPOSITING_MODE").is_none() {
        std::env::set_var("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
    }
    let cli = Cli::parse();
    let args = cli.desk;
    let _logging = packdesk_api::logging::init(&args.data_dir, &cli.log).unwrap_or_else(|e| fail(e));
    // The process's one runtime (Tauri keeps its own event loop): server, webhooks, print sends.
    let workers = Workers::new().unwrap_or_else(|e| fail(e.to_string()));
    // Tauri's async work runs on the same runtime instead of a second one of its own.
    tauri::async_runtime::set(workers.runtime().handle().clone());
    let workers = Arc::new(Mutex::new(Some(workers)));
    let server: Arc<Mutex<Option<tokio::task::JoinHandle<std::io::Result<()>>>>> = Arc::default();
    let service: Arc<Mutex<Option<Arc<Service>>>> = Arc::default();
    let data_dir = std::path::absolute(&args.data_dir).unwrap_or_else(|_| args.data_dir.clone());
    let (setup_workers, setup_server, setup_service) = (workers.clone(), server.clone(), service.clone());
    let app = tauri::Builder::default()
        // First: a second start of the app hands over here and exits before anything else runs.
        .plugin(
            tauri_plugin_single_instance::Builder::new()
                .dbus_id(instance_id(&args.data_dir))
                .callback(|app, _argv, _cwd| {
                    tracing::info!("Packdesk was started again: its window is shown");
                    tray::show_window(app);
                })
                .build(),
        )
        .plugin(
            tauri_plugin_autostart::Builder::new()
                .args([
                    "--data-dir".to_string(),
                    login_item_arg(&data_dir.display().to_string()),
                ])
                .build(),
        )
        // Updates: checked only when Settings names an update server (see update.rs).
        .plugin(tauri_plugin_updater::Builder::new().build())
        .setup(move |app| {
            let mut guard = setup_workers.lock().unwrap_or_else(|p| p.into_inner());
            let workers = guard.as_mut().expect("workers until exit");
            // An installed app carries the built UI among its resources (.ci/bundle puts ui/dist
            // there); a source build serves the tree's ui/dist.
            let bundled_ui = app
                .path()
                .resource_dir()
                .ok()
                .map(|d| d.join("ui"))
                .filter(|d| d.join("index.html").is_file());
            let (desk, handle, url) = start_desk(&args, workers, bundled_ui);
            desk.register_updater(Arc::new(update::DeskUpdater::new(app.handle().clone())));
            *setup_server.lock().unwrap_or_else(|p| p.into_inner()) = Some(handle);
            *setup_service.lock().unwrap_or_else(|p| p.into_inner()) = Some(desk.clone());
            let origin = url.origin();
            tauri::WebviewWindowBuilder::new(app, "main", tauri::WebviewUrl::External(url))
                // The window stays on the desk's own origin; any other link opens in the browser.
                .on_navigation(move |to| {
                    if to.origin() == origin {
                        return true;
                    }
                    if matches!(to.scheme(), "http" | "https" | "mailto") {
                        open_in_system_browser(to.as_str());
                    }
                    false
                })
                .title("Packdesk")
                .inner_size(1280.0, 820.0)
                .min_inner_size(900.0, 600.0)
                .build()?;
            tray::start(app.handle(), desk);
            Ok(())
        })
        .on_window_event(move |window, event| {
            if let tauri::WindowEvent::CloseRequested { api, .. } = event {
                let desk = service.lock().unwrap_or_else(|p| p.into_inner()).clone();
                let to_tray = desk
                    .and_then(|d| d.desk_settings().ok())
                    .is_some_and(|s| s.close_to_tray);
                if to_tray {
                    // The desk keeps printing and answering the API; the tray or a new start shows it.
                    api.prevent_close();
                    let _ = window.hide();
                    tracing::info!("the window was closed to the tray");
                }
            }
        })
        .build(tauri::generate_context!())
        .unwrap_or_else(|e| fail(format!("the window could not start: {e}")));
    app.run(move |_app, event| {
        if let tauri::RunEvent::Exit = event {
            if let Some(s) = server.lock().unwrap_or_else(|p| p.into_inner()).take() {
                s.abort();
            }
            // Stops the workers (jobs in hand are finished or stay queued for the next start).
            drop(workers.lock().unwrap_or_else(|p| p.into_inner()).take());
            tracing::info!("packdesk stopped");
        }
    });
}
