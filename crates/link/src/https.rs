//! An HTTPS endpoint of the carrier: the file POSTed as the body, with its manifest id and name in
//! headers (a receiver that sees one manifest id twice keeps the last).

use crate::{fail, LinkError, Outgoing};
use packdesk_model::transport::{HttpsTransport, TransportSecrets};
use std::time::Duration;

fn client(t: &HttpsTransport, timeout: Duration) -> Result<reqwest::blocking::Client, LinkError> {
    let mut b = reqwest::blocking::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .redirect(reqwest::redirect::Policy::none());
    if let Some(pem) = &t.ca_certificate {
        let cert = reqwest::Certificate::from_pem(pem.as_bytes())
            .map_err(|e| LinkError(format!("the receiver's certificate is not a PEM certificate: {e}")))?;
        // The given certificate is the only one trusted: the receiver is pinned.
        b = b.tls_certs_only([cert]);
    }
    b.build().map_err(|e| LinkError(format!("no HTTPS client: {e}")))
}

/// The error of a request in words: what failed (connection, certificate, time) and where.
fn words(url: &str, e: &reqwest::Error) -> String {
    let mut cause = String::new();
    let mut source: Option<&dyn std::error::Error> = Some(e);
    while let Some(s) = source {
        cause = s.to_string();
        source = s.source();
    }
    if e.is_timeout() {
        format!("{url} did not answer in time")
    } else if cause.contains("certificate verify failed") {
        format!(
            "the certificate of {url} is not trusted (not the one set for this account, or not signed by an authority this desk trusts): nothing was sent"
        )
    } else if e.is_connect() {
        format!("could not connect to {url}: {cause}")
    } else {
        format!("sending to {url} failed: {cause}")
    }
}

pub(crate) fn send(
    t: &HttpsTransport,
    secrets: &TransportSecrets,
    file: &Outgoing<'_>,
    timeout: Duration,
) -> Result<(), LinkError> {
    let mut req = client(t, timeout)?
        .post(&t.url)
        .header("Content-Type", "text/csv; charset=utf-8")
        .header("X-Packdesk-Manifest-Id", file.manifest_id)
        .header("X-Packdesk-File-Name", file.file_name)
        .header(
            "Content-Disposition",
            format!("attachment; filename=\"{}\"", file.file_name),
        )
        .body(file.bytes.to_vec());
    if let Some(a) = &secrets.authorization {
        req = req.header("Authorization", a);
    }
    let res = req.send().map_err(|e| LinkError(words(&t.url, &e)))?;
    let status = res.status();
    if status.is_success() {
        return Ok(());
    }
    // The receiver's body is not kept: a gateway may echo the request's headers in it.
    fail(format!("{} answered {status}", t.url))
}

pub(crate) fn test(t: &HttpsTransport, secrets: &TransportSecrets, timeout: Duration) -> Result<String, LinkError> {
    // Nothing is sent: a HEAD with the Authorization header shows the connection, the certificate
    // and whether the receiver takes the credentials.
    let mut req = client(t, timeout)?.head(&t.url);
    if let Some(a) = &secrets.authorization {
        req = req.header("Authorization", a);
    }
    let res = req.send().map_err(|e| LinkError(words(&t.url, &e)))?;
    let status = res.status();
    match status.as_u16() {
        200..=299 | 405 => Ok(format!(
            "Connected to {} and its certificate is trusted (it answered {status}).",
            t.url
        )),
        401 | 403 => fail(format!(
            "{} refused the Authorization header ({status}): check it with the carrier",
            t.url
        )),
        404 => fail(format!("{} has no such address ({status}): check the address", t.url)),
        _ => fail(format!("{} answered {status}", t.url)),
    }
}
