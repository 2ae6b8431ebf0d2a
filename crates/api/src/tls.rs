//! HTTPS for a desk other machines reach. Listening beyond this machine, the desk answers there
//! only over TLS (rustls: TLS 1.2 and 1.3), with the warehouse's own certificate (`--tls-cert`,
//! `--tls-key`, read again when the files change) or one it makes at first start (ECDSA P-256,
//! valid two years, made again 30 days before it ends or when the names it must carry change),
//! kept in `<data>/tls/` readable by its owner only. Connections from this machine may stay plain
//! HTTP (the desk's own window): `connections` tells TLS from plain by a connection's first byte.

use crate::cli::DeskOptions;
use packdesk_model::desk::{CertificateInfo, CertificateSource};
use packdesk_service::Service;
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

/// How long a made certificate is valid, and how long before its end it is made again.
const MADE_VALID_FOR: time::Duration = time::Duration::days(730);
const RENEW_BEFORE: time::Duration = time::Duration::days(30);

/// How often the certificate's files are looked at (a replaced file is served within this).
const LOOK_EVERY: Duration = Duration::from_secs(2);

/// The test switch `PACKDESK_TEST_NETWORK_ADDRESS`: one loopback address (`127.0.0.2`) treated
/// as a network address, for tests on machines whose only other addresses they may not use.
const TEST_NETWORK_ADDRESS: &str = "PACKDESK_TEST_NETWORK_ADDRESS";

/// Whether a connection to `ip` may come from another machine (and so must be TLS).
pub fn is_network(ip: IpAddr) -> bool {
    let ip = ip.to_canonical();
    if !ip.is_loopback() {
        return true;
    }
    // Read once: it is asked for every connection.
    static TEST_ADDRESS: std::sync::OnceLock<Option<IpAddr>> = std::sync::OnceLock::new();
    *TEST_ADDRESS.get_or_init(|| std::env::var(TEST_NETWORK_ADDRESS).ok().and_then(|a| a.parse().ok())) == Some(ip)
}

/// Where the served certificate comes from.
#[derive(Debug, Clone)]
enum Source {
    /// Made by the desk in `dir`, for `names`.
    Made { dir: PathBuf, names: Vec<String> },
    /// The warehouse's files.
    Files { cert: PathBuf, key: PathBuf },
}

/// The certificate served now.
#[derive(Debug)]
struct Resolver(RwLock<Arc<CertifiedKey>>);

impl ResolvesServerCert for Resolver {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.read().unwrap_or_else(|p| p.into_inner()).clone())
    }
}

/// What was loaded: the certificate's description and the files' change times it came from.
struct Loaded {
    key: Arc<CertifiedKey>,
    info: CertificateInfo,
    not_after: time::OffsetDateTime,
    stamp: Vec<Option<SystemTime>>,
}

/// A desk's HTTPS: its certificate, kept fresh, and the rustls configuration serving it.
pub struct Tls {
    source: Source,
    resolver: Arc<Resolver>,
    config: Arc<rustls::ServerConfig>,
    loaded: RwLock<Loaded>,
}

impl Tls {
    /// The desk's TLS for a listener on `local`: the warehouse's certificate when given; else,
    /// beyond this machine, a made one, unless `--insecure-http` (which warns) says plain. None:
    /// plain HTTP (this machine only, or `--insecure-http`).
    pub fn for_listener(desk: &DeskOptions, local: SocketAddr) -> Result<Option<Arc<Tls>>, String> {
        let source = match (&desk.tls_cert, &desk.tls_key) {
            (Some(cert), Some(key)) => Source::Files {
                cert: cert.clone(),
                key: key.clone(),
            },
            _ if !is_network(local.ip()) => return Ok(None),
            _ if desk.insecure_http => {
                let warning = format!(
                    "listening on {local} over plain HTTP (--insecure-http): API keys, labels and addresses \
                     cross the network readable by anyone on it; leave --insecure-http out to serve HTTPS"
                );
                tracing::warn!("{warning}");
                eprintln!("warning: {warning}");
                return Ok(None);
            }
            _ => Source::Made {
                dir: desk.data_dir.join("tls"),
                names: names_for(local),
            },
        };
        Tls::start(source).map(|tls| Some(Arc::new(tls)))
    }

    fn start(source: Source) -> Result<Tls, String> {
        let loaded = load(&source)?;
        let resolver = Arc::new(Resolver(RwLock::new(loaded.key.clone())));
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
            .map_err(|e| format!("TLS: {e}"))?
            .with_no_client_auth()
            .with_cert_resolver(resolver.clone());
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Tls {
            source,
            resolver,
            config: Arc::new(config),
            loaded: RwLock::new(loaded),
        })
    }

    pub fn acceptor(&self) -> tokio_rustls::TlsAcceptor {
        tokio_rustls::TlsAcceptor::from(self.config.clone())
    }

    /// The certificate served now.
    pub fn certificate(&self) -> CertificateInfo {
        self.loaded.read().unwrap_or_else(|p| p.into_inner()).info.clone()
    }

    /// Serves a new certificate when the warehouse's files changed, or a made one is due to be
    /// made again. True when it changed. A file being written (or wrong) keeps the served one.
    pub fn refresh(&self) -> Result<bool, String> {
        let due = {
            let served = self.loaded.read().unwrap_or_else(|p| p.into_inner());
            match &self.source {
                Source::Files { cert, key } => stamps(&[cert, key]) != served.stamp,
                Source::Made { .. } => time::OffsetDateTime::now_utc() + RENEW_BEFORE > served.not_after,
            }
        };
        if !due {
            return Ok(false);
        }
        let loaded = load(&self.source)?;
        *self.resolver.0.write().unwrap_or_else(|p| p.into_inner()) = loaded.key.clone();
        *self.loaded.write().unwrap_or_else(|p| p.into_inner()) = loaded;
        Ok(true)
    }

    /// Tells `service` how other machines reach it (Settings shows it), then keeps the
    /// certificate fresh for as long as the desk runs.
    pub async fn keep_fresh(self: Arc<Self>, service: Arc<Service>) {
        let say = |tls: &Tls| service.set_https(Some(tls.certificate()), false);
        say(&self);
        let mut failing = false;
        loop {
            tokio::time::sleep(LOOK_EVERY).await;
            let tls = self.clone();
            match tokio::task::spawn_blocking(move || tls.refresh()).await {
                Ok(Ok(true)) => {
                    failing = false;
                    let info = self.certificate();
                    tracing::info!(fingerprint = %info.fingerprint_sha256, not_after = %info.not_after, "serving a new TLS certificate");
                    say(&self);
                }
                Ok(Ok(false)) => failing = false,
                Ok(Err(e)) if !failing => {
                    failing = true;
                    tracing::warn!("the TLS certificate was not replaced, the one served stays: {e}");
                }
                Ok(Err(_)) | Err(_) => {}
            }
        }
    }
}

/// Tells `service` it listens without TLS: on this machine only, or (`insecure`) beyond it.
pub fn say_plain(service: &Service, insecure: bool) {
    service.set_https(None, insecure);
}

/// The names a made certificate carries: this machine's name, `localhost`, and the address
/// listened on (every address of the machine when listening on all of them).
fn names_for(local: SocketAddr) -> Vec<String> {
    let mut names = vec![crate::cli::host_name(), "localhost".to_string()];
    let mut addresses = vec![local.ip()];
    if local.ip().is_unspecified() {
        addresses = if_addrs::get_if_addrs()
            .map(|all| all.into_iter().map(|i| i.ip()).collect())
            .unwrap_or_default();
        addresses.extend([
            IpAddr::from([127, 0, 0, 1]),
            IpAddr::from(std::net::Ipv6Addr::LOCALHOST),
        ]);
    }
    for ip in addresses {
        // Link-local IPv6 addresses need a zone no certificate can name.
        if matches!(ip, IpAddr::V6(v6) if v6.segments()[0] & 0xffc0 == 0xfe80) {
            continue;
        }
        names.push(ip.to_string());
    }
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names
}

/// The change times of `files` (none for a file that cannot be read).
fn stamps(files: &[&PathBuf]) -> Vec<Option<SystemTime>> {
    files
        .iter()
        .map(|f| std::fs::metadata(f).and_then(|m| m.modified()).ok())
        .collect()
}

fn load(source: &Source) -> Result<Loaded, String> {
    match source {
        Source::Files { cert, key } => {
            let stamp = stamps(&[cert, key]);
            let chain = read_chain(cert)?;
            let key_der = PrivateKeyDer::from_pem_file(key)
                .map_err(|e| format!("{}: no private key in PEM there ({e})", key.display()))?;
            let (info, not_after) =
                describe(&chain, CertificateSource::Files).map_err(|e| format!("{}: {e}", cert.display()))?;
            let certified = CertifiedKey::from_der(chain, key_der, &rustls::crypto::ring::default_provider())
                .map_err(|e| format!("{} does not go with {} ({e})", key.display(), cert.display()))?;
            Ok(Loaded {
                key: Arc::new(certified),
                info,
                not_after,
                stamp,
            })
        }
        Source::Made { dir, names } => made(dir, names),
    }
}

/// The desk's own certificate in `dir`: the one there while it is valid for 30 days more and
/// names all of `names`, else a new one.
fn made(dir: &Path, names: &[String]) -> Result<Loaded, String> {
    let cert_file = dir.join("desk.crt");
    let key_file = dir.join("desk.key");
    let kept = (|| {
        let chain = read_chain(&cert_file).ok()?;
        let key = PrivateKeyDer::from_pem_file(&key_file).ok()?;
        let (info, not_after) = describe(&chain, CertificateSource::Made).ok()?;
        let fresh = time::OffsetDateTime::now_utc() + RENEW_BEFORE <= not_after;
        let covers = names.iter().all(|n| info.names.contains(n));
        let certified = CertifiedKey::from_der(chain, key, &rustls::crypto::ring::default_provider()).ok()?;
        (fresh && covers).then_some(Loaded {
            key: Arc::new(certified),
            info,
            not_after,
            stamp: Vec::new(),
        })
    })();
    if let Some(loaded) = kept {
        return Ok(loaded);
    }
    let fail = |what: &str, e: &dyn std::fmt::Display| format!("making the desk's TLS certificate: {what}: {e}");
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).map_err(|e| fail("its key", &e))?;
    let mut params = rcgen::CertificateParams::new(names.to_vec()).map_err(|e| fail("its names", &e))?;
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, format!("Packdesk desk {}", names[0]));
    let now = time::OffsetDateTime::now_utc();
    // An hour back: a client whose clock is a little behind still takes it.
    params.not_before = now - time::Duration::hours(1);
    params.not_after = now + MADE_VALID_FOR;
    params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    let cert = params.self_signed(&key).map_err(|e| fail("signing it", &e))?;
    std::fs::create_dir_all(dir).map_err(|e| fail(&dir.display().to_string(), &e))?;
    write_private(&key_file, key.serialize_pem().as_bytes()).map_err(|e| fail("writing its key", &e))?;
    write_private(&cert_file, cert.pem().as_bytes()).map_err(|e| fail("writing it", &e))?;
    tracing::info!(dir = %dir.display(), names = ?names, "made the desk's TLS certificate");
    let chain = vec![cert.der().clone()];
    let (info, not_after) = describe(&chain, CertificateSource::Made).map_err(|e| fail("reading it back", &e))?;
    let key_der = PrivateKeyDer::try_from(key.serialize_der()).map_err(|e| fail("its key", &e))?;
    let certified = CertifiedKey::from_der(chain, key_der, &rustls::crypto::ring::default_provider())
        .map_err(|e| fail("its key", &e))?;
    Ok(Loaded {
        key: Arc::new(certified),
        info,
        not_after,
        stamp: Vec::new(),
    })
}

/// Writes `bytes` to `path` through a file beside it readable by its owner only, named last.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), String> {
    // `desk.key.part`, `desk.crt.part`: each file its own.
    let mut part = path.as_os_str().to_owned();
    part.push(".part");
    let part = PathBuf::from(part);
    let _ = std::fs::remove_file(&part);
    packdesk_service::private_file(&part).map_err(|e| e.to_string())?;
    std::fs::write(&part, bytes).map_err(|e| e.to_string())?;
    std::fs::rename(&part, path).map_err(|e| e.to_string())
}

fn read_chain(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let chain = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("{}: cannot read a PEM certificate there ({e})", path.display()))?;
    if chain.is_empty() {
        return Err(format!("{}: no certificate in it", path.display()));
    }
    Ok(chain)
}

/// The first certificate of `chain` as Settings shows it.
fn describe(
    chain: &[CertificateDer<'static>],
    source: CertificateSource,
) -> Result<(CertificateInfo, time::OffsetDateTime), String> {
    use sha2::Digest;
    use x509_parser::extensions::GeneralName;
    let der = chain[0].as_ref();
    let (_, cert) = x509_parser::parse_x509_certificate(der).map_err(|e| format!("not a certificate ({e})"))?;
    let mut names = Vec::new();
    if let Ok(Some(san)) = cert.subject_alternative_name() {
        for name in &san.value.general_names {
            match name {
                GeneralName::DNSName(n) => names.push(n.to_string()),
                GeneralName::IPAddress(b) => match b.len() {
                    4 => names.push(IpAddr::from(<[u8; 4]>::try_from(*b).unwrap_or_default()).to_string()),
                    16 => names.push(IpAddr::from(<[u8; 16]>::try_from(*b).unwrap_or_default()).to_string()),
                    _ => {}
                },
                _ => {}
            }
        }
    }
    let rfc3339 = |t: time::OffsetDateTime| {
        t.format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default()
    };
    let not_before = cert.validity().not_before.to_datetime();
    let not_after = cert.validity().not_after.to_datetime();
    let pem = chain.iter().map(|c| pem_block(c.as_ref())).collect::<Vec<_>>().join("");
    let digest = sha2::Sha256::digest(der);
    let fingerprint_sha256 = digest.iter().map(|b| format!("{b:02X}")).collect::<Vec<_>>().join(":");
    Ok((
        CertificateInfo {
            source,
            fingerprint_sha256,
            names,
            not_before: rfc3339(not_before),
            not_after: rfc3339(not_after),
            pem,
        },
        not_after,
    ))
}

/// One certificate as PEM.
fn pem_block(der: &[u8]) -> String {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = String::from("-----BEGIN CERTIFICATE-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).unwrap_or_default());
        out.push('\n');
    }
    out.push_str("-----END CERTIFICATE-----\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    /// Writes a certificate for `names` ending in `days` into `dir`, as a desk made it then.
    fn made_earlier(dir: &Path, names: &[String], days: i64) {
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let mut params = rcgen::CertificateParams::new(names.to_vec()).unwrap();
        let now = time::OffsetDateTime::now_utc();
        params.not_before = now - time::Duration::days(700);
        params.not_after = now + time::Duration::days(days);
        let cert = params.self_signed(&key).unwrap();
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("desk.key"), key.serialize_pem()).unwrap();
        std::fs::write(dir.join("desk.crt"), cert.pem()).unwrap();
    }

    #[test]
    fn a_made_certificate_is_kept_while_fresh_and_made_again_before_it_ends_or_when_names_change() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("tls");
        let wanted = names(&["desk-3", "localhost", "192.168.1.20"]);

        let first = made(&dir, &wanted).unwrap();
        assert_eq!(first.info.names, wanted);
        assert_eq!(first.info.source, CertificateSource::Made);
        let days = (first.not_after - time::OffsetDateTime::now_utc()).whole_days();
        assert!((729..=730).contains(&days), "{days}");
        assert_eq!(
            made(&dir, &wanted).unwrap().info.fingerprint_sha256,
            first.info.fingerprint_sha256,
            "kept"
        );

        // Ending in 40 days: kept; in 20: made again for two more years.
        made_earlier(&dir, &wanted, 40);
        let ending = made(&dir, &wanted).unwrap();
        assert!((ending.not_after - time::OffsetDateTime::now_utc()).whole_days() < 41);
        made_earlier(&dir, &wanted, 20);
        let renewed = made(&dir, &wanted).unwrap();
        assert!((renewed.not_after - time::OffsetDateTime::now_utc()).whole_days() >= 729);
        assert_ne!(renewed.info.fingerprint_sha256, ending.info.fingerprint_sha256);

        // The desk now listens on another address too: a certificate naming it is made.
        let more = names(&["desk-3", "localhost", "192.168.1.20", "10.0.0.7"]);
        let widened = made(&dir, &more).unwrap();
        assert_eq!(widened.info.names, more);
        assert_ne!(widened.info.fingerprint_sha256, renewed.info.fingerprint_sha256);
    }

    #[test]
    fn the_names_of_a_listener_on_every_address_include_this_machine_and_loopback() {
        let all = names_for("0.0.0.0:4780".parse().unwrap());
        for n in ["localhost", "127.0.0.1", "::1"] {
            assert!(all.contains(&n.to_string()), "{n} in {all:?}");
        }
        assert!(
            !all.iter().any(|n| n.starts_with("fe80")),
            "no link-local address: {all:?}"
        );
        let one = names_for("192.168.1.20:4780".parse().unwrap());
        assert!(
            one.contains(&"localhost".to_string()) && one.contains(&"192.168.1.20".to_string()),
            "{one:?}"
        );
        assert!(
            !one.iter().any(|n| n == "127.0.0.1"),
            "only the address listened on: {one:?}"
        );
    }
}
