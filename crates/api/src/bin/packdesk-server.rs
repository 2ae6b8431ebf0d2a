//! `packdesk-server [--data-dir DIR] [--listen 127.0.0.1:PORT]`: runs the Packdesk service.
//! `packdesk-server keys [--data-dir DIR]`: prints `live <key>` and `sandbox <key>`.
//! `packdesk-server webhook ...`: shows or sets the webhook of an environment.

use packdesk_service::clock::SystemClock;
use packdesk_service::Service;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

const USAGE: &str = "usage:
  packdesk-server [--data-dir DIR] [--listen 127.0.0.1:PORT] [--ui-dir ui/dist] [--file-link-days N]
                                                               run the service and the desk UI (port 0 picks a free port;
                                                               record file links work N days without the key, default 30)
  packdesk-server keys [--data-dir DIR]                        print the API keys: live <key>, sandbox <key>
  packdesk-server webhook (live|sandbox) [--url URL] [--on|--off] [--data-dir DIR]
                                                               show or set where async results are POSTed
The data folder defaults to $PACKDESK_DATA_DIR, else the user's data directory (Linux:
~/.local/share/packdesk). The service listens on 127.0.0.1:4780 unless told otherwise.";

const DEFAULT_LISTEN: &str = "127.0.0.1:4780";

struct Args {
    keys: bool,
    ui_dir: Option<PathBuf>,
    /// `webhook ENV`: (env, new url, on/off).
    webhook: Option<(String, Option<String>, Option<bool>)>,
    data_dir: PathBuf,
    listen: String,
    /// How long the signed file links of records work.
    file_link_days: Option<i64>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        keys: false,
        ui_dir: None,
        webhook: None,
        data_dir: packdesk_api::paths::default_data_dir(),
        listen: DEFAULT_LISTEN.into(),
        file_link_days: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "keys" => args.keys = true,
            "webhook" => {
                let env = it
                    .next()
                    .filter(|e| e == "live" || e == "sandbox")
                    .ok_or("webhook needs an environment: live or sandbox")?;
                args.webhook = Some((env, None, None));
            }
            "--url" => {
                let url = it.next().ok_or("--url needs a URL")?;
                args.webhook
                    .as_mut()
                    .ok_or("--url goes after `webhook live|sandbox`")?
                    .1 = Some(url);
            }
            "--on" | "--off" => {
                args.webhook
                    .as_mut()
                    .ok_or("--on/--off go after `webhook live|sandbox`")?
                    .2 = Some(a == "--on");
            }
            "--data-dir" => args.data_dir = PathBuf::from(it.next().ok_or("--data-dir needs a folder")?),
            "--ui-dir" => args.ui_dir = Some(PathBuf::from(it.next().ok_or("--ui-dir needs a folder (ui/dist)")?)),
            "--listen" => args.listen = it.next().ok_or("--listen needs an address like 127.0.0.1:4780")?,
            "--file-link-days" => {
                let days = it
                    .next()
                    .and_then(|d| d.parse::<i64>().ok())
                    .filter(|d| (1..=3650).contains(d));
                args.file_link_days = Some(days.ok_or("--file-link-days needs a number of days, 1..3650")?);
            }
            "-h" | "--help" => return Err(String::new()),
            other => {
                if let Some(v) = other.strip_prefix("--data-dir=") {
                    args.data_dir = PathBuf::from(v);
                } else if let Some(v) = other.strip_prefix("--listen=") {
                    args.listen = v.to_string();
                } else {
                    return Err(format!("unknown argument `{other}`"));
                }
            }
        }
    }
    Ok(args)
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(why) => {
            if !why.is_empty() {
                eprintln!("packdesk-server: {why}");
            }
            eprintln!("{USAGE}");
            std::process::exit(if why.is_empty() { 0 } else { 2 });
        }
    };
    if args.keys {
        match Service::reveal_keys(&args.data_dir) {
            Ok(keys) => {
                for (env, key) in keys {
                    println!("{} {key}", env.as_str());
                }
            }
            Err(e) => {
                eprintln!(
                    "packdesk-server: {}",
                    e.details
                        .first()
                        .map(|d| d.info.as_str())
                        .unwrap_or("cannot read the keys")
                );
                std::process::exit(1);
            }
        }
        return;
    }
    if let Some((env, url, enabled)) = &args.webhook {
        let set = if url.is_some() || enabled.is_some() {
            let mut body = serde_json::Map::new();
            if let Some(u) = url {
                body.insert("url".into(), serde_json::Value::String(u.clone()));
            }
            if let Some(e) = enabled {
                body.insert("enabled".into(), serde_json::Value::Bool(*e));
            }
            Some(serde_json::Value::Object(body).to_string())
        } else {
            None
        };
        match Service::webhook_command(&args.data_dir, env, set.as_deref()) {
            Ok(v) => println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default()),
            Err(e) => {
                for d in &e.details {
                    eprintln!(
                        "packdesk-server: {}: {}",
                        if d.path.is_empty() { "webhook" } else { &d.path },
                        d.info
                    );
                }
                std::process::exit(1);
            }
        }
        return;
    }
    let addr: SocketAddr = match args.listen.parse() {
        Ok(a) => a,
        Err(_) => {
            eprintln!(
                "packdesk-server: --listen `{}` is not an address like 127.0.0.1:4780",
                args.listen
            );
            std::process::exit(2);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    rt.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("packdesk-server: cannot listen on {addr}: {e}");
                std::process::exit(1);
            }
        };
        let local = listener.local_addr().expect("bound address");
        let base_url = format!("http://{local}");
        let opened = match Service::open(&args.data_dir, &base_url, Arc::new(SystemClock)) {
            Ok(o) => o,
            Err(e) => {
                eprintln!(
                    "packdesk-server: {}",
                    e.details
                        .first()
                        .map(|d| d.info.clone())
                        .unwrap_or_else(|| e.to_string())
                );
                std::process::exit(1);
            }
        };
        if !opened.created_keys.is_empty() {
            println!(
                "Created the live and sandbox API keys. Show them with: packdesk-server keys --data-dir {}",
                args.data_dir.display()
            );
        }
        if !local.ip().to_canonical().is_loopback() {
            eprintln!(
                "packdesk-server: WARNING: listening on {local}, reachable from other machines: every /v3 and /desk \
                 route (labels, accounts, printers) answers anyone who has an API key, over plain HTTP (keys and \
                 labels can be read on the network). The desk UI's session (both keys) and key rotation still \
                 answer only connections from this machine. Prefer 127.0.0.1 behind a TLS proxy."
            );
        }
        println!("data folder {}", args.data_dir.display());
        println!("packdesk-server listening on {base_url}");
        let _ = std::io::stdout().flush();
        let shutdown = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        if let Some(days) = args.file_link_days {
            opened.service.links.set_ttl_secs(days * 24 * 3600);
        }
        let service = Arc::new(opened.service);
        // Async jobs left by a previous run resume here; webhooks go out from here.
        let _background = service.start_background(packdesk_service::jobs::default_workers());
        let ui_dir = packdesk_api::paths::find_ui_dir(args.ui_dir.clone());
        match &ui_dir {
            Some(d) => println!("desk UI from {} at {base_url}/", d.display()),
            None => println!("desk UI not built (ui/dist); the API is up"),
        }
        if let Err(e) = packdesk_api::serve(listener, service, ui_dir, shutdown).await {
            eprintln!("packdesk-server: {e}");
            std::process::exit(1);
        }
    });
}
