//! `packdesk-server`: runs the Packdesk service (and serves the desk UI); `keys` prints the API
//! keys; `webhook` shows or sets where async results are POSTed; `backup` and `restore` copy a
//! desk's database out and back. `--help` says the rest.
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand, ValueEnum};
use packdesk_api::cli::DeskOptions;
use packdesk_service::clock::SystemClock;
use packdesk_service::keys::Env;
use packdesk_service::model::ServiceError;
use packdesk_service::webhooks::WebhookChange;
use packdesk_service::workers::{default_job_workers, Workers};
use packdesk_service::Service;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Parser)]
#[command(
    name = "packdesk-server",
    version,
    about = "The Packdesk service: the /v3 label interface and the desk UI."
)]
struct Cli {
    #[command(flatten)]
    desk: DeskOptions,

    #[command(flatten)]
    connections: ConnectionOptions,

    /// Log filter: error, warn, info, debug (one line per request), or tracing's per-module syntax.
    #[arg(long, env = "RUST_LOG", default_value = "info", value_name = "FILTER")]
    log: String,

    #[command(subcommand)]
    command: Option<Command>,
}

/// How long a connection may take, and how many there may be (the defaults suit a desk on a
/// warehouse network; a reverse proxy in front may want its own).
#[derive(clap::Args)]
struct ConnectionOptions {
    /// Seconds a client has to send a whole request head once it has begun.
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    request_head_timeout: u64,
    /// Seconds a keep-alive connection may wait for its next request.
    #[arg(long, value_name = "SECS", default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..=3600))]
    idle_timeout: u64,
    /// Seconds a request body may stall before the request ends.
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    body_timeout: u64,
    /// Connections served at once; one more is answered 503 and closed.
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=65536))]
    max_connections: u64,
}

impl ConnectionOptions {
    fn limits(&self) -> packdesk_api::connections::ConnectionLimits {
        use std::time::Duration;
        packdesk_api::connections::ConnectionLimits {
            head: Duration::from_secs(self.request_head_timeout),
            idle: Duration::from_secs(self.idle_timeout),
            body_stall: Duration::from_secs(self.body_timeout),
            max: self.max_connections as usize,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Print the API keys: `live <key>` and `sandbox <key>` (with --database also `join <code>`,
    /// the warehouse's vault key a further desk starts with once: --join-code).
    Keys,
    /// Copy one desk's data folder into the shared database (--to), in one transaction.
    Migrate {
        /// The data folder of the desk to move.
        #[arg(long, value_name = "DIR")]
        from: std::path::PathBuf,
        /// The shared database: postgres://user@host:port/database
        #[arg(long, value_name = "URL")]
        to: String,
    },
    /// Copy this desk's database into a new file while the desk keeps working (checked before it
    /// is kept). The credentials and API keys in it open only with the vault key: keep vault.key
    /// beside the backup, or put it in with --with-vault-key.
    Backup {
        /// The backup file to make (it must not exist).
        #[arg(long, value_name = "FILE")]
        to: std::path::PathBuf,
        /// Put the vault key in, sealed under a passphrase (PACKDESK_BACKUP_PASSPHRASE, else asked).
        #[arg(long)]
        with_vault_key: bool,
    },
    /// Restore a backup into an empty data folder (--data-dir), then start the desk on it.
    Restore {
        /// The backup file (packdesk-server backup made it).
        #[arg(long, value_name = "FILE")]
        from: std::path::PathBuf,
    },
    /// Show, or change, where async results of an environment are POSTed.
    Webhook {
        env: EnvArg,
        /// The receiver (http or https); setting one turns webhooks on unless --off.
        #[arg(long)]
        url: Option<String>,
        /// Turn webhooks on.
        #[arg(long, conflicts_with = "off")]
        on: bool,
        /// Turn webhooks off.
        #[arg(long)]
        off: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum EnvArg {
    Live,
    Sandbox,
}

impl From<EnvArg> for Env {
    fn from(e: EnvArg) -> Env {
        match e {
            EnvArg::Live => Env::Live,
            EnvArg::Sandbox => Env::Sandbox,
        }
    }
}

/// The first detail of a service error, as a line for the terminal.
fn why(e: &ServiceError) -> String {
    e.details
        .first()
        .map(|d| {
            if d.path.is_empty() {
                d.info.clone()
            } else {
                format!("{}: {}", d.path, d.info)
            }
        })
        .unwrap_or_else(|| e.to_string())
}

fn fail(why: impl std::fmt::Display) -> ExitCode {
    eprintln!("packdesk-server: {why}");
    ExitCode::FAILURE
}

fn main() -> ExitCode {
    packdesk_api::memory::keep_memory_bounded();
    let cli = Cli::parse();
    let data_dir = cli.desk.data_dir.clone();
    match cli.command {
        Some(Command::Keys) => match Service::reveal_keys_on(&data_dir, &cli.desk.database()) {
            Ok((keys, join)) => {
                for (env, key) in keys {
                    println!("{} {key}", env.as_str());
                }
                if let Some(code) = join {
                    println!("join {code}");
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail(why(&e)),
        },
        Some(Command::Migrate { from, to }) => match Service::migrate_folder(&from, &to, &cli.desk.desk_name()) {
            Ok((report, join)) => {
                for (table, copied, skipped) in &report.tables {
                    println!("{table}: {copied} copied, {skipped} there already");
                }
                println!(
                    "join {join}\nStart this desk with --database and --data-dir {}; start each further desk once with --join-code and the code above.",
                    from.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => fail(why(&e)),
        },
        Some(Command::Webhook { env, url, on, off }) => {
            let change = (url.is_some() || on || off).then(|| WebhookChange {
                url,
                enabled: (on || off).then_some(on),
            });
            match Service::webhook_command_on(&data_dir, &cli.desk.database(), env.into(), change) {
                Ok(setting) => {
                    println!("{}", serde_json::to_string_pretty(&setting).unwrap_or_default());
                    ExitCode::SUCCESS
                }
                Err(e) => fail(why(&e)),
            }
        }
        Some(Command::Backup { to, with_vault_key }) => {
            if let packdesk_service::Database::Shared { .. } = cli.desk.database() {
                return fail(
                    "this desk works on the shared database: back it up with pg_dump (README, Backups); \
                     backup copies a desk's own database",
                );
            }
            let passphrase = match with_vault_key.then(|| passphrase(true)).transpose() {
                Ok(p) => p,
                Err(e) => return fail(e),
            };
            match packdesk_service::backup::backup(&data_dir, &to, passphrase.as_deref()) {
                Ok(r) => {
                    println!(
                        "backup {} ({} bytes, {} labels, schema {})",
                        to.display(),
                        r.bytes,
                        r.labels,
                        r.schema
                    );
                    if !r.with_vault_key {
                        println!(
                            "The backup holds no vault key: keep {} with it (or make it with --with-vault-key), \
                             or its carrier credentials and API keys cannot be opened.",
                            data_dir.join("vault.key").display()
                        );
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => fail(why(&e)),
            }
        }
        Some(Command::Restore { from }) => {
            let mut given = std::env::var("PACKDESK_BACKUP_PASSPHRASE").ok();
            loop {
                match packdesk_service::backup::restore(&from, &data_dir, given.as_deref()) {
                    Ok(r) => {
                        println!(
                            "restored {} labels (schema {}) into {}",
                            r.labels,
                            r.schema,
                            data_dir.display()
                        );
                        if !r.with_vault_key {
                            println!(
                                "The backup held no vault key: copy the desk's vault.key into {} before starting it.",
                                data_dir.display()
                            );
                        }
                        return ExitCode::SUCCESS;
                    }
                    // The backup holds the vault key and no passphrase was given: ask once.
                    Err(e) if given.is_none() && e.details.iter().any(|d| d.path == "passphrase") => {
                        match passphrase(false) {
                            Ok(p) => given = Some(p),
                            Err(e) => return fail(e),
                        }
                    }
                    Err(e) => return fail(why(&e)),
                }
            }
        }
        None => serve(cli.desk, cli.connections.limits(), &cli.log),
    }
}

/// The backup's passphrase: PACKDESK_BACKUP_PASSPHRASE, else typed on the terminal (twice when
/// it seals: a mistyped one would seal the key under a passphrase nobody knows).
fn passphrase(confirm: bool) -> Result<String, String> {
    if let Ok(p) = std::env::var("PACKDESK_BACKUP_PASSPHRASE") {
        return Ok(p);
    }
    let ask = |prompt: &str| -> Result<String, String> {
        use std::io::IsTerminal;
        // Typed at a terminal: not shown as it is typed. Piped in by a script: its first line.
        if std::io::stdin().is_terminal() {
            return rpassword::prompt_password(prompt).map_err(|e| format!("reading the passphrase: {e}"));
        }
        eprint!("{prompt}");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        std::io::stdin()
            .read_line(&mut line)
            .map_err(|e| format!("reading the passphrase: {e}"))?;
        Ok(line.trim_end_matches(['\r', '\n']).to_string())
    };
    let p = ask("Passphrase for the vault key in the backup: ")?;
    if p.is_empty() {
        return Err("no passphrase given (or set PACKDESK_BACKUP_PASSPHRASE)".into());
    }
    if confirm && ask("The same passphrase again: ")? != p {
        return Err("the two passphrases differ: nothing was written".into());
    }
    Ok(p)
}

fn serve(desk: DeskOptions, limits: packdesk_api::connections::ConnectionLimits, log: &str) -> ExitCode {
    let _logging = match packdesk_api::logging::init(&desk.data_dir, log) {
        Ok(l) => l,
        Err(e) => return fail(e),
    };
    // The process's one runtime: the HTTP server, webhook sends and print sends run on it.
    let mut workers = match Workers::new() {
        Ok(w) => w,
        Err(e) => return fail(why(&e)),
    };
    let listener = match workers.runtime().block_on(tokio::net::TcpListener::bind(desk.listen)) {
        Ok(l) => l,
        Err(e) => return fail(format!("cannot listen on {}: {e}", desk.listen)),
    };
    let local = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => return fail(e),
    };
    let tls = match packdesk_api::tls::Tls::for_listener(&desk, local) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    let base_url = desk.records_base_url(local, tls.is_some());
    let database = desk.database();
    let opened = match Service::open_on(
        &desk.data_dir,
        &database,
        &base_url,
        Arc::new(SystemClock),
        packdesk_service::KeyPreference::File,
    ) {
        Ok(o) => o,
        Err(e) => return fail(why(&e)),
    };
    if desk.database_from_command_line() {
        opened.service.note_database_from_command_line();
    }
    if let packdesk_service::Database::Shared { desk: name, .. } = &database {
        println!("desk {name} on the shared database");
    }
    if !opened.created_keys.is_empty() {
        println!(
            "Created the live and sandbox API keys. Show them with: packdesk-server keys --data-dir {}",
            desk.data_dir.display()
        );
    }
    if let Some(days) = desk.file_link_days {
        opened.service.set_file_link_days(days);
    }
    let service = Arc::new(opened.service);
    match &tls {
        Some(tls) => {
            let c = tls.certificate();
            println!(
                "HTTPS certificate SHA-256 {} (valid until {})",
                c.fingerprint_sha256, c.not_after
            );
            workers.runtime().spawn(tls.clone().keep_fresh(service.clone()));
        }
        None => packdesk_api::tls::say_plain(
            &service,
            desk.insecure_http && packdesk_api::tls::is_network(local.ip()),
        ),
    }
    // Async jobs left by a previous run resume here; webhooks go out from here.
    workers.start(&service, default_job_workers());
    let ui_dir = packdesk_api::paths::find_ui_dir(desk.ui_dir.clone());
    tracing::info!(data_dir = %desk.data_dir.display(), %base_url, ui_dir = ?ui_dir, "packdesk-server started");
    // Scripts and tests read these two lines from stdout.
    println!("data folder {}", desk.data_dir.display());
    let scheme = if tls.is_some() { "https" } else { "http" };
    println!("packdesk-server listening on {scheme}://{local}");
    match &ui_dir {
        Some(d) => println!("desk UI from {} at {scheme}://{local}/", d.display()),
        None => println!("desk UI not built (ui/dist); the API is up"),
    }
    let _ = std::io::stdout().flush();
    workers.runtime().block_on(async move {
        let shutdown = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        match packdesk_api::serve_with(listener, service, ui_dir, limits, tls, shutdown).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(e),
        }
    })
}
