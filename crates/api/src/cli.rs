//! The command line shared by `packdesk-server` and the desktop app: one definition of the data
//! folder, the listening address and the UI folder, so both read the same flags and both refuse
//! what they do not know (with help).

use crate::paths;
use std::net::SocketAddr;
use std::path::PathBuf;

/// Where the service listens unless told otherwise.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:4780";

/// What every way of running the desk takes.
#[derive(clap::Args, Debug, Clone)]
pub struct DeskOptions {
    /// The data folder: database, vault key, logs [default: $PACKDESK_DATA_DIR, else the user's
    /// data directory, on Linux ~/.local/share/packdesk]
    #[arg(long, global = true, value_name = "DIR", default_value_os_t = paths::default_data_dir(), hide_default_value = true)]
    pub data_dir: PathBuf,

    /// Address to listen on; port 0 picks a free port. Beyond this machine (0.0.0.0, a LAN
    /// address) the desk answers other machines over HTTPS only, with a certificate it makes
    /// (see --tls-cert) unless --insecure-http.
    #[arg(long, value_name = "ADDR", default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,

    /// The warehouse's certificate for HTTPS (PEM, the chain after it), instead of the one the
    /// desk makes; read again when the file changes
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// The private key of --tls-cert (PEM)
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// Answer other machines over plain HTTP (API keys and labels readable on the network):
    /// for a TLS proxy in front of the desk on another machine
    #[arg(long, conflicts_with = "tls_cert")]
    pub insecure_http: bool,

    /// The built desk UI [default: $PACKDESK_UI_DIR, else ui/dist of the source tree]
    #[arg(long, value_name = "DIR")]
    pub ui_dir: Option<PathBuf>,

    /// The address other machines reach this desk at (`https://desk-3.lan:4780`, or a TLS
    /// proxy's): file links in records and webhooks use it [default: the address listened
    /// on; on 0.0.0.0 this machine's name]. A request that came to another address of this
    /// machine gets links on that address.
    #[arg(long, value_name = "URL", value_parser = parse_public_url)]
    pub public_url: Option<String>,

    /// How many days the signed file links in records work without the key.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..=3650))]
    pub file_link_days: Option<i64>,

    /// The shared PostgreSQL database of many desks (postgres://user@host:port/database)
    /// [default: $PACKDESK_DATABASE_URL, else the SQLite file in the data folder]
    #[arg(
        long,
        global = true,
        value_name = "URL",
        env = "PACKDESK_DATABASE_URL",
        hide_env_values = true
    )]
    pub database: Option<String>,

    /// This desk's name in a shared database [default: the host name]
    #[arg(long, global = true, value_name = "NAME")]
    pub desk: Option<String>,

    /// The warehouse's vault key, given once to a desk joining a shared database (printed by
    /// `packdesk-server keys --database URL` at a desk already on it).
    #[arg(long, global = true, value_name = "CODE")]
    pub join_code: Option<String>,
}

impl DeskOptions {
    /// The database these options name: `--database`, else the data folder's own file.
    pub fn database(&self) -> packdesk_service::Database {
        match self.database.as_deref().filter(|u| !u.trim().is_empty()) {
            // Settings may have chosen the shared database (for the next start).
            None => packdesk_service::Database::saved(&self.data_dir, &self.desk_name()),
            Some(url) => packdesk_service::Database::Shared {
                url: url.to_string(),
                desk: self.desk_name(),
                join_code: self.join_code.clone(),
            },
        }
    }

    /// Whether `--database` (or PACKDESK_DATABASE_URL) names the database, over Settings' choice.
    pub fn database_from_command_line(&self) -> bool {
        self.database.as_deref().is_some_and(|u| !u.trim().is_empty())
    }

    /// `--desk`, else the host name (each desk of a warehouse has its own).
    pub fn desk_name(&self) -> String {
        self.desk
            .clone()
            .filter(|d| !d.trim().is_empty())
            .unwrap_or_else(host_name)
    }

    /// Where records' file links point when no request says better: `--public-url`, else the
    /// address listened on (`local`, `https://` when the desk serves TLS), with this machine's
    /// name for an unspecified address (0.0.0.0 is no address a client can open).
    pub fn records_base_url(&self, local: SocketAddr, https: bool) -> String {
        let scheme = if https { "https" } else { "http" };
        match &self.public_url {
            Some(url) => url.trim_end_matches('/').to_string(),
            None if local.ip().is_unspecified() => format!("{scheme}://{}:{}", host_name(), local.port()),
            None => format!("{scheme}://{local}"),
        }
    }

    /// Whether `--listen` was left at its default (the desktop app then falls back to a free port
    /// when another program holds 4780).
    pub fn listen_is_default(&self) -> bool {
        self.listen.to_string() == DEFAULT_LISTEN
    }
}

/// `--public-url`: an http(s) URL with a host.
fn parse_public_url(s: &str) -> Result<String, String> {
    let rest = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"))
        .ok_or("must begin with http:// or https://")?;
    match rest.split('/').next() {
        Some(host) if !host.is_empty() => Ok(s.to_string()),
        _ => Err("names no host".into()),
    }
}

/// This machine's name: the default name of its desk.
pub(crate) fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "desk".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        desk: DeskOptions,
    }

    #[test]
    fn unknown_arguments_are_refused_with_the_flag_named() {
        let e = Cli::try_parse_from(["packdesk", "--data-dri", "/tmp/x"]).err().unwrap();
        assert_eq!(e.kind(), clap::error::ErrorKind::UnknownArgument);
        assert!(e.to_string().contains("--data-dri"), "{e}");
    }

    #[test]
    fn listen_must_be_an_address_and_link_days_in_range() {
        assert!(Cli::try_parse_from(["p", "--listen", "localhost"]).is_err());
        assert!(Cli::try_parse_from(["p", "--file-link-days", "0"]).is_err());
        let ok = Cli::try_parse_from(["p", "--listen=127.0.0.1:0", "--file-link-days", "7"]).unwrap();
        assert_eq!(ok.desk.listen.port(), 0);
        assert_eq!(ok.desk.file_link_days, Some(7));
        assert!(!ok.desk.listen_is_default());
        assert!(Cli::try_parse_from(["p"]).unwrap().desk.listen_is_default());
    }

    #[test]
    fn a_certificate_needs_its_key_and_excludes_plain_http() {
        assert!(Cli::try_parse_from(["p", "--tls-cert", "c.pem"]).is_err());
        assert!(Cli::try_parse_from(["p", "--tls-key", "k.pem"]).is_err());
        assert!(Cli::try_parse_from(["p", "--tls-cert", "c.pem", "--tls-key", "k.pem", "--insecure-http"]).is_err());
        let ok = Cli::try_parse_from(["p", "--tls-cert", "c.pem", "--tls-key", "k.pem"]).unwrap();
        assert_eq!(ok.desk.tls_key.as_deref(), Some(std::path::Path::new("k.pem")));
        let local: SocketAddr = "0.0.0.0:4780".parse().unwrap();
        assert!(ok.desk.records_base_url(local, true).starts_with("https://"));
        assert!(ok.desk.records_base_url(local, false).starts_with("http://"));
    }
}
