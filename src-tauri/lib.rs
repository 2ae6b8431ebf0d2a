//! The desktop shell: starts the whole service core and its HTTP server on 127.0.0.1 (for this
//! window and for warehouse systems), then opens a window on the desk UI it serves. Nothing else
//! lives here: every rule is in the core, every screen in ui/.
//!
//! `packdesk [--data-dir DIR] [--listen 127.0.0.1:PORT]`; the port defaults to 4780 and falls back
//! to a free one when another program holds it.

use packdesk_service::clock::SystemClock;
use packdesk_service::Service;
use std::path::PathBuf;
use std::sync::Arc;

struct Args {
    data_dir: PathBuf,
    listen: String,
}

fn args() -> Args {
    let mut a = Args {
        data_dir: packdesk_api::paths::default_data_dir(),
        listen: "127.0.0.1:4780".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        match x.as_str() {
            "--data-dir" => a.data_dir = it.next().map(PathBuf::from).unwrap_or(a.data_dir),
            "--listen" => a.listen = it.next().unwrap_or(a.listen),
            _ => {}
        }
    }
    a
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
        eprintln!("packdesk: cannot open {url} in the browser: {e}");
    }
}

pub fn run() {
    let args = args();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(format!("no runtime: {e}")));
    let listener = rt.block_on(async {
        match tokio::net::TcpListener::bind(&args.listen).await {
            Ok(l) => l,
            // Another Packdesk or program has the port: take a free one (the window follows it).
            Err(_) => tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .unwrap_or_else(|e| fail(format!("cannot listen on 127.0.0.1: {e}"))),
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
    let service = Arc::new(opened.service);
    let background = service.start_background(packdesk_service::jobs::default_workers());
    let ui_dir = packdesk_api::paths::find_ui_dir(None);
    let server = rt.spawn(packdesk_api::serve(listener, service, ui_dir, std::future::pending()));
    println!("packdesk listening on {base} (data folder {})", args.data_dir.display());
    let url: tauri::Url = base.parse().unwrap_or_else(|e| fail(format!("{base}: {e}")));
    let origin = url.origin();
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
    drop(background);
    if let Err(e) = result {
        fail(format!("the window could not run: {e}"));
    }
}
