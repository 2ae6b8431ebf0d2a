//! TLS to the shared PostgreSQL as libpq reads it from the database address: `sslmode`
//! (`disable`, `prefer` (the default), `require`, `verify-ca`, `verify-full`) and `sslrootcert`
//! (the CA file the server's certificate must chain to). tokio-postgres itself knows only
//! disable/prefer/require and no root file, so both are taken out of the address here and become
//! the TLS connector (OpenSSL through native-tls, which the desk links already).
//!
//! As in libpq: `prefer` and `require` encrypt without checking the certificate (`require` with
//! `sslrootcert` checks it as `verify-ca` does); `verify-ca` checks that it chains to the CA;
//! `verify-full` also that it names the host connected to.

/// The address's `sslmode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(word: &str) -> Option<SslMode> {
        Some(match word {
            "disable" => SslMode::Disable,
            "prefer" | "allow" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }
}

/// How a desk's connections to the shared database are made.
pub struct Connector {
    pub mode: SslMode,
    tls: Option<postgres_native_tls::MakeTlsConnector>,
}

impl std::fmt::Debug for Connector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connector").field("mode", &self.mode).finish()
    }
}

/// The address without the options read here (tokio-postgres refuses what it does not know), and
/// the connector they describe. Errors are said in words about the address.
pub fn connector_for(url: &str) -> Result<(String, Connector), String> {
    let (rest, options) = take_options(url, &["sslmode", "sslrootcert"]);
    let mut mode = SslMode::Prefer;
    let mut root = None;
    for (key, value) in options {
        match key.as_str() {
            "sslmode" => {
                mode = SslMode::parse(&value).ok_or_else(|| {
                    format!("sslmode={value} is none of disable, prefer, require, verify-ca, verify-full")
                })?
            }
            _ => root = Some(value),
        }
    }
    // libpq: `require` with a root certificate checks the chain, as `verify-ca`.
    if mode == SslMode::Require && root.is_some() {
        mode = SslMode::VerifyCa;
    }
    // Checking the chain but not the name is only worth something against the warehouse's own
    // CA: against the system's, any publicly trusted certificate would pass (libpq refuses too).
    if mode == SslMode::VerifyCa && root.is_none() {
        return Err(
            "sslmode=verify-ca needs sslrootcert=FILE, the CA that signed the database server's certificate \
             (or sslmode=verify-full, which checks the server's name against the system's CAs)"
                .into(),
        );
    }
    let tls = match mode {
        SslMode::Disable => None,
        _ => {
            let mut builder = native_tls::TlsConnector::builder();
            builder.min_protocol_version(Some(native_tls::Protocol::Tlsv12));
            if let Some(file) = &root {
                let pem = std::fs::read(file)
                    .map_err(|e| format!("sslrootcert={file}: the CA certificate file cannot be read ({e})"))?;
                // Every certificate of the file (a bundle), as libpq trusts them.
                let cas = native_tls::Certificate::stack_from_pem(&pem)
                    .ok()
                    .filter(|cas| !cas.is_empty())
                    .ok_or_else(|| format!("sslrootcert={file}: no PEM certificate in it"))?;
                for ca in cas {
                    builder.add_root_certificate(ca);
                }
                builder.disable_built_in_roots(true);
            }
            match mode {
                SslMode::Prefer | SslMode::Require => {
                    builder.danger_accept_invalid_certs(true);
                }
                SslMode::VerifyCa => {
                    builder.danger_accept_invalid_hostnames(true);
                }
                _ => {}
            }
            let connector = builder.build().map_err(|e| format!("TLS to the database: {e}"))?;
            Some(postgres_native_tls::MakeTlsConnector::new(connector))
        }
    };
    Ok((rest, Connector { mode, tls }))
}

impl Connector {
    /// Connects as `config` says, over TLS as `mode` says.
    pub fn connect(&self, config: &postgres::Config) -> Result<postgres::Client, postgres::Error> {
        let mut config = config.clone();
        config.ssl_mode(match self.mode {
            SslMode::Disable => postgres::config::SslMode::Disable,
            SslMode::Prefer => postgres::config::SslMode::Prefer,
            _ => postgres::config::SslMode::Require,
        });
        match &self.tls {
            Some(tls) => config.connect(tls.clone()),
            None => config.connect(postgres::NoTls),
        }
    }

    /// A connection's failure in words when TLS caused it: the certificate not naming the host,
    /// not chaining to the CA, or a server without TLS.
    pub fn explain(&self, e: &postgres::Error) -> Option<String> {
        let text = format!(
            "{e} {}",
            std::error::Error::source(e).map(|s| s.to_string()).unwrap_or_default()
        );
        let lower = text.to_ascii_lowercase();
        let mode = self.mode.as_str();
        if lower.contains("hostname mismatch") || lower.contains("ip address mismatch") {
            Some(format!(
                "the database server's certificate does not name the host this desk connects to (sslmode={mode}): \
                 connect by a name the certificate carries, or have the server's certificate made for this one"
            ))
        } else if lower.contains("certificate verify failed") {
            Some(format!(
                "the database server's certificate is not signed by the CA this desk trusts (sslmode={mode}): \
                 give the warehouse CA's certificate as sslrootcert ({})",
                text.trim()
            ))
        } else if lower.contains("server does not support tls") {
            Some(format!(
                "the database server does not offer TLS and sslmode={mode} asks for it: turn on ssl = on in its \
                 postgresql.conf, or use sslmode=prefer"
            ))
        } else {
            None
        }
    }
}

/// `url` (a `postgres://` URL) checking the server's certificate against the CA file `ca_file`:
/// its `sslrootcert`, and `sslmode=verify-full` unless it names `verify-ca` or `verify-full`.
pub fn with_root_certificate(url: &str, ca_file: &str) -> String {
    let (rest, _) = take_options(url, &["sslrootcert"]);
    // A CA given is a CA checked: a weaker mode the address names is raised to verify-full.
    let (weaker, modes) = take_options(&rest, &["sslmode"]);
    let checks = modes.iter().any(|(_, m)| m == "verify-ca" || m == "verify-full");
    let rest = if checks { rest } else { weaker };
    let encoded: String = ca_file
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    let mut added = format!("sslrootcert={encoded}");
    if !checks {
        added.push_str("&sslmode=verify-full");
    }
    let join = if rest.contains('?') { '&' } else { '?' };
    format!("{rest}{join}{added}")
}

/// Splits `keys` out of a database address (a `postgres://` URL's query, or `key=value` words):
/// the address without them, and their values (URL form: percent-decoded).
pub(crate) fn take_options(url: &str, keys: &[&str]) -> (String, Vec<(String, String)>) {
    let mut taken = Vec::new();
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let Some((base, query)) = url.split_once('?') else {
            return (url.to_string(), taken);
        };
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            if keys.contains(&k) {
                taken.push((k.to_string(), percent_decoded(v)));
            } else {
                kept.push(pair);
            }
        }
        let rest = match kept.is_empty() {
            true => base.to_string(),
            false => format!("{base}?{}", kept.join("&")),
        };
        return (rest, taken);
    }
    let mut kept = Vec::new();
    for word in url.split_whitespace() {
        match word.split_once('=') {
            Some((k, v)) if keys.contains(&k) => taken.push((k.to_string(), v.trim_matches('\'').to_string())),
            _ => kept.push(word),
        }
    }
    (kept.join(" "), taken)
}

fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tls_options_are_taken_out_of_the_address() {
        let (rest, c) = connector_for(
            "postgres://desk:pw@db1:5432,db2:5432/packdesk?target_session_attrs=read-write&sslmode=verify-full&sslrootcert=%2Fnonexistent%2Fca.crt",
        )
        .map(|(r, c)| (r, Some(c)))
        .unwrap_or_else(|e| {
            assert!(e.contains("sslrootcert=/nonexistent/ca.crt: the CA certificate file cannot be read"), "{e}");
            (String::new(), None)
        });
        assert!(c.is_none() && rest.is_empty());
        let (rest, c) =
            connector_for("postgres://desk@db1/packdesk?sslmode=require&target_session_attrs=read-write").unwrap();
        assert_eq!(rest, "postgres://desk@db1/packdesk?target_session_attrs=read-write");
        assert_eq!(c.mode, SslMode::Require);
        let (rest, c) = connector_for("postgres://desk@db1/packdesk").unwrap();
        assert_eq!(rest, "postgres://desk@db1/packdesk");
        assert_eq!(c.mode, SslMode::Prefer, "libpq's default");
        let (rest, c) = connector_for("host=db1 user=desk sslmode=disable dbname=packdesk").unwrap();
        assert_eq!(rest, "host=db1 user=desk dbname=packdesk");
        assert_eq!(c.mode, SslMode::Disable);
        assert_eq!(
            with_root_certificate(
                "postgres://d@db1/p?sslrootcert=old.crt",
                "/etc/packdesk/warehouse ca.crt"
            ),
            "postgres://d@db1/p?sslrootcert=/etc/packdesk/warehouse%20ca.crt&sslmode=verify-full"
        );
        assert_eq!(
            with_root_certificate("postgres://d@db1/p?sslmode=verify-ca", "/ca.crt"),
            "postgres://d@db1/p?sslmode=verify-ca&sslrootcert=/ca.crt"
        );
        assert_eq!(
            with_root_certificate("postgres://d@db1/p?sslmode=prefer&application_name=x", "/ca.crt"),
            "postgres://d@db1/p?application_name=x&sslrootcert=/ca.crt&sslmode=verify-full",
            "a CA given is a CA checked"
        );
        let e = connector_for("postgres://db1/p?sslmode=verify-ca").unwrap_err();
        assert!(e.contains("verify-ca needs sslrootcert"), "{e}");
        let e = connector_for("postgres://db1/p?sslmode=verify").unwrap_err();
        assert!(
            e.contains("none of disable, prefer, require, verify-ca, verify-full"),
            "{e}"
        );
    }
}
