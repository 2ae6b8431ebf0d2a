//! Sending a document to a printer.
//!
//! - Raw TCP (port 9100, "JetDirect"): the bytes as they are; done when the printer has accepted
//!   the last byte (the connection is then closed in order).
//! - System spooler (CUPS `lp` on Linux and macOS): PDF at 100 % on the named stock, never scaled
//!   to fit; ZPL as a raw job (no driver rendering).
//! - IPP (`ipp://host[:631]/path`): one Print-Job request over HTTP, PDF as application/pdf, ZPL as
//!   application/octet-stream.

pub use packdesk_model::status::{PrinterFormat, PrinterTransport};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A queue of the system spooler, by name.
    Spooler { queue: String },
    /// A network printer's raw port.
    RawTcp { host: String, port: u16 },
    /// An IPP printer URI: ipp://host:631/printers/NAME.
    Ipp { uri: String },
}

impl Transport {
    pub fn kind(&self) -> &'static str {
        match self {
            Transport::Spooler { .. } => "spooler",
            Transport::RawTcp { .. } => "raw",
            Transport::Ipp { .. } => "ipp",
        }
    }

    /// The address as one string: queue name, host:port or URI.
    pub fn address(&self) -> String {
        match self {
            Transport::Spooler { queue } => queue.clone(),
            Transport::RawTcp { host, port } => format!("{host}:{port}"),
            Transport::Ipp { uri } => uri.clone(),
        }
    }

    /// Parses a printer's address for its transport; says what is wrong otherwise.
    pub fn parse(kind: PrinterTransport, address: &str) -> Result<Transport, String> {
        let address = address.trim();
        // An address ends up in a request line, a Host header or a command's argument: no control
        // characters (CR/LF would let it write headers of its own).
        if address.chars().any(|c| c.is_control()) {
            return Err("the address must not contain control characters (line breaks, tabs)".into());
        }
        if address.len() > 1024 {
            return Err("the address is at most 1024 characters".into());
        }
        match kind {
            PrinterTransport::Spooler => {
                if address.is_empty() || address.contains(char::is_whitespace) || address.contains('/') {
                    return Err(
                        "a spooler queue name: letters, digits, - and _ (see the printers of this computer)".into(),
                    );
                }
                Ok(Transport::Spooler { queue: address.into() })
            }
            PrinterTransport::Raw => {
                let (host, port) = match address.rsplit_once(':') {
                    Some((h, p)) if !h.contains(':') || h.starts_with('[') => (
                        h.trim_matches(['[', ']']).to_string(),
                        p.parse::<u16>()
                            .map_err(|_| format!("`{p}` is not a port (1..65535)"))?,
                    ),
                    _ => (address.to_string(), 9100),
                };
                if host.is_empty() || port == 0 {
                    return Err("host:port of the printer, e.g. 192.0.2.10:9100".into());
                }
                Ok(Transport::RawTcp { host, port })
            }
            PrinterTransport::Ipp => {
                if !(address.starts_with("ipp://") || address.starts_with("http://")) || address.len() < 8 {
                    return Err("an ipp:// URI, e.g. ipp://printer.local:631/ipp/print".into());
                }
                Ok(Transport::Ipp { uri: address.into() })
            }
        }
    }
}

/// How to print one document.
#[derive(Debug, Clone)]
pub struct PrintOptions {
    pub format: PrinterFormat,
    pub copies: u32,
    /// Stock as the spooler names it: Custom.4x6in, A4, ...
    pub media: Option<String>,
    pub title: String,
    /// Connect and write time limit.
    pub timeout: Duration,
}

/// What a successful send did.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    pub bytes_sent: usize,
    /// The spooler's or IPP printer's job reference, when it gives one.
    pub reference: Option<String>,
    pub elapsed: Duration,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PrintError(pub String);

impl std::fmt::Display for PrintError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PrintError {}

/// Sends `bytes` (one document, `copies` times) to the printer.
pub fn send(t: &Transport, bytes: &[u8], o: &PrintOptions) -> Result<Delivery, PrintError> {
    let started = Instant::now();
    let copies = o.copies.clamp(1, 99);
    let reference = match t {
        Transport::RawTcp { host, port } => {
            // A raw port prints what it gets: copies are the bytes again.
            let mut all = Vec::with_capacity(bytes.len() * copies as usize);
            for _ in 0..copies {
                all.extend_from_slice(bytes);
            }
            raw_tcp(host, *port, &all, o.timeout)?;
            None
        }
        Transport::Spooler { queue } => Some(spooler(queue, bytes, copies, o)?),
        Transport::Ipp { uri } => ipp(uri, bytes, copies, o)?,
    };
    let sent = match t {
        Transport::RawTcp { .. } => bytes.len() * copies as usize,
        _ => bytes.len(),
    };
    Ok(Delivery {
        bytes_sent: sent,
        reference,
        elapsed: started.elapsed(),
    })
}

/// Whether the printer is there to take a job now, or why not in plain words: a network printer
/// takes a connection (opened and closed with nothing sent), a spooler queue exists and is not
/// disabled.
pub fn probe(t: &Transport, timeout: Duration) -> Result<(), PrintError> {
    match t {
        Transport::RawTcp { host, port } => connect(host, *port, timeout).map(drop),
        Transport::Ipp { uri } => {
            let at = IppEndpoint::of(uri)?;
            connect(&at.host, at.port, timeout).map(drop)
        }
        Transport::Spooler { queue } => {
            let printers = crate::system::printers().map_err(PrintError)?;
            match printers.iter().find(|p| &p.name == queue) {
                None => Err(PrintError(format!("the spooler has no printer {queue}"))),
                Some(p) if p.state == "disabled" => {
                    Err(PrintError(format!("the spooler's printer {queue} is disabled")))
                }
                Some(_) => Ok(()),
            }
        }
    }
}

fn connect(host: &str, port: u16, timeout: Duration) -> Result<TcpStream, PrintError> {
    let addrs: Vec<_> = (host, port)
        .to_socket_addrs()
        .map_err(|e| PrintError(format!("cannot find printer {host}: {e}")))?
        .collect();
    let mut last = None;
    for a in addrs {
        match TcpStream::connect_timeout(&a, timeout) {
            Ok(s) => return Ok(s),
            Err(e) => last = Some(e),
        }
    }
    Err(PrintError(match last {
        Some(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
            format!("printer {host}:{port} refused the connection (off, or not a raw port?)")
        }
        Some(e) if e.kind() == std::io::ErrorKind::TimedOut || e.kind() == std::io::ErrorKind::WouldBlock => {
            format!(
                "printer {host}:{port} did not answer within {} s (off or unreachable?)",
                timeout.as_secs()
            )
        }
        Some(e) => format!("cannot reach printer {host}:{port}: {e}"),
        None => format!("printer {host} has no address"),
    }))
}

fn raw_tcp(host: &str, port: u16, bytes: &[u8], timeout: Duration) -> Result<(), PrintError> {
    let mut s = connect(host, port, timeout)?;
    let _ = s.set_nodelay(true);
    s.set_write_timeout(Some(timeout))
        .map_err(|e| PrintError(e.to_string()))?;
    s.write_all(bytes).map_err(|e| {
        PrintError(match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                format!("printer {host}:{port} stopped taking data (out of paper or ribbon, or paused?)")
            }
            _ => format!("printer {host}:{port} dropped the connection: {e}"),
        })
    })?;
    s.flush().map_err(|e| PrintError(e.to_string()))?;
    // An orderly close: the printer sees the end of the job.
    let _ = s.shutdown(Shutdown::Write);
    Ok(())
}

fn spooler(queue: &str, bytes: &[u8], copies: u32, o: &PrintOptions) -> Result<String, PrintError> {
    let mut cmd = Command::new("lp");
    cmd.args(["-d", queue, "-n", &copies.to_string(), "-t", &o.title]);
    if o.format == PrinterFormat::Zpl {
        cmd.args(["-o", "raw"]);
    } else {
        // 100 %, on the stock named: never shrunk to fit a letter page.
        cmd.args(["-o", "print-scaling=none", "-o", "fit-to-page=false"]);
        if let Some(m) = &o.media {
            cmd.args(["-o", &format!("media={m}")]);
        }
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            PrintError(format!(
                "the system spooler (lp) cannot be run: {e}. Install CUPS (cups-client)"
            ))
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(bytes)
            .map_err(|e| PrintError(format!("lp stopped reading the document: {e}")))?;
    }
    let out = child.wait_with_output().map_err(|e| PrintError(e.to_string()))?;
    let stdout = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(PrintError(format!(
            "the spooler refused the job for {queue}: {}",
            if why.is_empty() { stdout } else { why }
        )));
    }
    // "request id is PDF-3 (1 file(s))"
    Ok(stdout.split_whitespace().nth(3).unwrap_or(&stdout).to_string())
}

/// Appends one IPP attribute (tag, name, value).
fn attr(out: &mut Vec<u8>, tag: u8, name: &str, value: &[u8]) {
    out.push(tag);
    out.extend_from_slice(&(name.len() as u16).to_be_bytes());
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(&(value.len() as u16).to_be_bytes());
    out.extend_from_slice(value);
}

/// An IPP/1.1 Print-Job request (RFC 8011) for `printer_uri`.
pub fn ipp_print_job(
    printer_uri: &str,
    title: &str,
    format: PrinterFormat,
    copies: u32,
    media: Option<&str>,
    bytes: &[u8],
) -> Vec<u8> {
    let mut r = vec![1, 1, 0x00, 0x02, 0, 0, 0, 1];
    r.push(0x01); // operation attributes
    attr(&mut r, 0x47, "attributes-charset", b"utf-8");
    attr(&mut r, 0x48, "attributes-natural-language", b"en");
    attr(&mut r, 0x45, "printer-uri", printer_uri.as_bytes());
    // The desk's user, as `lp` would send it (printers file jobs per user).
    let user = desk_user();
    attr(&mut r, 0x42, "requesting-user-name", user.as_bytes());
    attr(&mut r, 0x42, "job-name", title.as_bytes());
    let mime = if format == PrinterFormat::Zpl {
        "application/octet-stream"
    } else {
        "application/pdf"
    };
    attr(&mut r, 0x49, "document-format", mime.as_bytes());
    r.push(0x02); // job attributes
    attr(&mut r, 0x21, "copies", &(copies as i32).to_be_bytes());
    if format != PrinterFormat::Zpl {
        // 100 % on the stock named, as over the spooler.
        if let Some(m) = media {
            attr(&mut r, 0x44, "media", m.as_bytes());
        }
        attr(&mut r, 0x44, "print-scaling", b"none");
    }
    r.push(0x03); // end of attributes
    r.extend_from_slice(bytes);
    r
}

/// The name of the user this process runs as (USER, LOGNAME, else `id -un`).
fn desk_user() -> String {
    std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .ok()
        .filter(|u| !u.is_empty())
        .or_else(|| {
            Command::new("id")
                .arg("-un")
                .output()
                .ok()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        })
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "packdesk".into())
}

/// The most of an IPP printer's answer read.
const IPP_ANSWER_MAX: u64 = 64 * 1024;

/// Where an IPP printer URI points: `host:port` as written, the host, the port (631 when not
/// written) and the path.
struct IppEndpoint {
    hostport: String,
    host: String,
    port: u16,
    path: String,
}

impl IppEndpoint {
    fn of(uri: &str) -> Result<IppEndpoint, PrintError> {
        let rest = uri
            .strip_prefix("ipp://")
            .or_else(|| uri.strip_prefix("http://"))
            .unwrap_or(uri);
        let (hostport, path) = rest
            .split_once('/')
            .map(|(h, p)| (h, format!("/{p}")))
            .unwrap_or((rest, "/".into()));
        let (host, port) = match hostport.rsplit_once(':') {
            Some((h, p)) => (
                h.to_string(),
                p.parse().map_err(|_| PrintError(format!("bad port in {uri}")))?,
            ),
            None => (hostport.to_string(), 631),
        };
        Ok(IppEndpoint {
            hostport: hostport.to_string(),
            host,
            port,
            path,
        })
    }
}

fn ipp(uri: &str, bytes: &[u8], copies: u32, o: &PrintOptions) -> Result<Option<String>, PrintError> {
    let IppEndpoint {
        hostport,
        host,
        port,
        path,
    } = IppEndpoint::of(uri)?;
    let body = ipp_print_job(
        &format!("ipp://{hostport}{path}"),
        &o.title,
        o.format,
        copies,
        o.media.as_deref(),
        bytes,
    );
    let mut s = connect(&host, port, o.timeout)?;
    s.set_write_timeout(Some(o.timeout)).ok();
    s.set_read_timeout(Some(o.timeout.max(Duration::from_secs(30)))).ok();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {hostport}\r\nContent-Type: application/ipp\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes())
        .and_then(|_| s.write_all(&body))
        .map_err(|e| PrintError(format!("IPP printer {hostport} dropped the job: {e}")))?;
    // A Print-Job answer is a few hundred bytes: read at most IPP_ANSWER_MAX, so a misbehaving
    // device cannot fill the desk's memory.
    let mut answer = Vec::new();
    (&mut s)
        .take(IPP_ANSWER_MAX)
        .read_to_end(&mut answer)
        .map_err(|e| PrintError(format!("IPP printer {hostport} did not answer: {e}")))?;
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| PrintError(format!("IPP printer {hostport} gave no HTTP answer")))?;
    let status_line = String::from_utf8_lossy(&answer[..split])
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    if !status_line.contains(" 200") {
        return Err(PrintError(format!("IPP printer {hostport} answered {status_line}")));
    }
    let ipp = &answer[split + 4..];
    if ipp.len() < 8 {
        return Err(PrintError(format!("IPP printer {hostport} gave an empty IPP answer")));
    }
    let status = u16::from_be_bytes([ipp[2], ipp[3]]);
    if status > 0x00ff {
        return Err(PrintError(format!(
            "IPP printer {hostport} refused the job (status 0x{status:04x})"
        )));
    }
    Ok(find_integer(ipp, "job-id").map(|id| id.to_string()))
}

/// The value of an integer attribute in an IPP answer.
fn find_integer(ipp: &[u8], name: &str) -> Option<i32> {
    let needle = name.as_bytes();
    let at = ipp.windows(needle.len()).position(|w| w == needle)?;
    let v = ipp.get(at + needle.len() + 2..at + needle.len() + 6)?;
    Some(i32::from_be_bytes([v[0], v[1], v[2], v[3]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_with_line_breaks_are_refused() {
        for kind in [PrinterTransport::Ipp, PrinterTransport::Raw, PrinterTransport::Spooler] {
            let why = Transport::parse(kind, "ipp://printer:631/ipp\r\nX-Injected: 1").unwrap_err();
            assert!(why.contains("control characters"), "{kind}: {why}");
        }
    }

    #[test]
    fn an_endless_ipp_answer_is_cut_off_and_refused() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut c, _) = listener.accept().unwrap();
            let mut buf = [0u8; 65536];
            let _ = c.read(&mut buf);
            // An answer that never ends (no header end): the client must stop reading by itself.
            let junk = vec![b'x'; 1 << 20];
            for _ in 0..64 {
                if c.write_all(&junk).is_err() {
                    break;
                }
            }
        });
        let o = PrintOptions {
            format: PrinterFormat::Pdf,
            copies: 1,
            media: None,
            title: "t".into(),
            timeout: Duration::from_secs(5),
        };
        let why = ipp(&format!("ipp://127.0.0.1:{port}/ipp/print"), b"%PDF-1.4", 1, &o).unwrap_err();
        assert!(why.0.contains("gave no HTTP answer"), "{}", why.0);
        drop(server);
    }

    #[test]
    fn addresses_parse_with_clear_errors() {
        assert_eq!(
            Transport::parse(PrinterTransport::Raw, "127.0.0.1:9100"),
            Ok(Transport::RawTcp {
                host: "127.0.0.1".into(),
                port: 9100
            })
        );
        assert_eq!(
            Transport::parse(PrinterTransport::Raw, "zebra-1"),
            Ok(Transport::RawTcp {
                host: "zebra-1".into(),
                port: 9100
            })
        );
        assert!(Transport::parse(PrinterTransport::Raw, "host:99999")
            .unwrap_err()
            .contains("port"));
        assert!(Transport::parse(PrinterTransport::Spooler, "my printer").is_err());
        assert!(Transport::parse(PrinterTransport::Ipp, "ftp://x").is_err());
    }

    #[test]
    fn an_ipp_request_starts_with_version_and_print_job() {
        let r = ipp_print_job(
            "ipp://localhost:631/printers/PDF",
            "t",
            PrinterFormat::Pdf,
            2,
            Some("A4"),
            b"%PDF",
        );
        assert_eq!(&r[..4], &[1, 1, 0, 2]);
        assert!(r.ends_with(b"\x03%PDF"));
    }
}

#[cfg(test)]
mod raw_tests {
    use super::*;
    use std::net::TcpListener;

    fn options(timeout: Duration) -> PrintOptions {
        PrintOptions {
            format: PrinterFormat::Zpl,
            copies: 1,
            media: None,
            title: "t".into(),
            timeout,
        }
    }

    #[test]
    fn a_raw_printer_gets_exactly_the_bytes_times_the_copies() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let got = std::thread::spawn(move || {
            let (mut c, _) = l.accept().unwrap();
            let mut all = Vec::new();
            c.read_to_end(&mut all).unwrap();
            all
        });
        let mut o = options(Duration::from_secs(5));
        o.copies = 2;
        let d = send(
            &Transport::RawTcp {
                host: "127.0.0.1".into(),
                port,
            },
            b"^XA^XZ",
            &o,
        )
        .unwrap();
        assert_eq!(d.bytes_sent, 12);
        assert_eq!(got.join().unwrap(), b"^XA^XZ^XA^XZ");
    }

    #[test]
    fn a_printer_that_refuses_or_stalls_is_a_clear_error() {
        // A port just given back; another test running beside this one may take it meanwhile,
        // so a few ports are tried.
        let e = (0..5)
            .find_map(|_| {
                let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
                send(
                    &Transport::RawTcp {
                        host: "127.0.0.1".into(),
                        port,
                    },
                    b"^XA^XZ",
                    &options(Duration::from_secs(2)),
                )
                .err()
            })
            .expect("a closed port refuses");
        assert!(e.0.contains("refused"), "{e}");
        // Accepts, never reads: the write stalls once the socket buffers are full.
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let _held = std::thread::spawn(move || {
            let c = l.accept();
            std::thread::sleep(Duration::from_secs(5));
            drop(c);
        });
        let big = vec![b'A'; 64 << 20];
        let e = send(
            &Transport::RawTcp {
                host: "127.0.0.1".into(),
                port,
            },
            &big,
            &options(Duration::from_secs(1)),
        )
        .unwrap_err();
        assert!(e.0.contains("stopped taking data"), "{e}");
    }
}
