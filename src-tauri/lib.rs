//! The desktop shell: starts the whole service core and its HTTP server on 127.0.0.1 (for this
//! window and for warehouse systems), then opens a window on the desk UI it serves. Nothing else
//! lives here: every rule is in the core, every screen in ui/.
//!
//! `packdesk --help` lists the options (shared with `packdesk-server`); the port defaults to 4780
//! and falls back to a free one when another program holds it.

use clap::Parser;
use packdesk_api::cli::DeskOptions;
use packdesk_service::clock::SystemClock;
use packdesk_service::workers::{default_job_workers, Workers};
use packdesk_service::Service;
use std::sync::Arc;

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

pub fn run() {
    let cli = Cli::parse();
    let args = cli.desk;
    let _logging = packdesk_api::logging::init(&args.data_dir, &cli.log).unwrap_or_else(|e| fail(e));
    // The process's one runtime (Tauri keeps its own event loop): server, webhooks, print sends.
    let mut workers = Workers::new().unwrap_or_else(|e| fail(e.to_string()));
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
    let base = match listener.local_addr() {
        Ok(a) => format!("http://{a}"),
        Err(e) => fail(e.to_string()),
    };
    let opened = Service::open(&args.data_dir, &base, Arc::new(SystemClock)).unwrap_or_else(|e| {
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
    let service = Arc::new(opened.service);
    workers.start(&service, default_job_workers());
    let ui_dir = packdesk_api::paths::find_ui_dir(args.ui_dir.clone());
    let server = workers
        .runtime()
        .spawn(packdesk_api::serve(listener, service, ui_dir, std::future::pending()));
    tracing::info!(%base, data_dir = %args.data_dir.display(), "packdesk started");
    // The desktop smoke test reads this line.
    println!("packdesk listening on {base} (data folder {})", args.data_dir.display());
    let url: tauri::Url = base.parse().unwrap_or_else(|e| fail(format!("{base}: {e}")));
    let origin = url.origin();
    // Tauri's async work runs on the same runtime instead of a second one of its own.
    tauri::async_runtime::set(workers.runtime().handle().clone());
    let result = tauri::Builder::default()
        .setup(move |app| {
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
            Ok(())
        })
        .run(tauri::generate_context!());
    server.abort();
    drop(workers);
    if let Err(e) = result {
        fail(format!("the window could not run: {e}"));
    }
}
