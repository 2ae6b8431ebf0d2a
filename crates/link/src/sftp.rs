//! The carrier's SFTP server. Its host key must have the fingerprint set on the account: another
//! key is refused before anything is sent (and before the password is offered).

use crate::{fail, host_key_fingerprint, part_name, LinkError, Outgoing};
use packdesk_model::transport::{SftpTransport, TransportSecrets};
use ssh2::{RenameFlags, Session, Sftp};
use std::io::Write;
use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::time::Duration;

fn err(what: &str, t: &SftpTransport, e: impl std::fmt::Display) -> LinkError {
    LinkError(format!("{what} ({}:{}): {e}", t.host, t.port))
}

/// A signed-in session with the pinned host key, and its SFTP channel.
fn open(t: &SftpTransport, secrets: &TransportSecrets, timeout: Duration) -> Result<(Session, Sftp), LinkError> {
    let addr = (t.host.as_str(), t.port)
        .to_socket_addrs()
        .map_err(|e| err("the SFTP server's name could not be found", t, e))?
        .next()
        .ok_or_else(|| err("the SFTP server's name could not be found", t, "no address"))?;
    let tcp =
        TcpStream::connect_timeout(&addr, timeout).map_err(|e| err("could not connect to the SFTP server", t, e))?;
    let _ = tcp.set_read_timeout(Some(timeout));
    let _ = tcp.set_write_timeout(Some(timeout));
    let mut session = Session::new().map_err(|e| err("no SSH session", t, e))?;
    session.set_tcp_stream(tcp);
    session.set_timeout(timeout.as_millis().min(u32::MAX as u128) as u32);
    session
        .handshake()
        .map_err(|e| err("the SSH handshake with the SFTP server failed", t, e))?;
    let (key, _) = session
        .host_key()
        .ok_or_else(|| err("the SFTP server showed no host key", t, "refused"))?;
    let shown = host_key_fingerprint(key);
    if shown != t.host_key_sha256 {
        return fail(format!(
            "the SFTP server {}:{} showed host key {shown}, not {} as set for this account: nothing was sent. \
             If the carrier changed its server's key, confirm the new fingerprint with the carrier and set it",
            t.host, t.port, t.host_key_sha256
        ));
    }
    if let Some(key) = &secrets.private_key {
        session
            .userauth_pubkey_memory(&t.username, None, key, None)
            .map_err(|e| err(&format!("the SFTP server refused the key of {}", t.username), t, e))?;
    } else if let Some(pw) = &secrets.password {
        session
            .userauth_password(&t.username, pw)
            .map_err(|e| err(&format!("the SFTP server refused the password of {}", t.username), t, e))?;
    } else {
        return fail("no password or private key is set for the SFTP server: set one");
    }
    if !session.authenticated() {
        return fail(format!("the SFTP server did not sign in {}", t.username));
    }
    let sftp = session.sftp().map_err(|e| err("the SSH server offers no SFTP", t, e))?;
    Ok((session, sftp))
}

pub(crate) fn send(
    t: &SftpTransport,
    secrets: &TransportSecrets,
    file: &Outgoing<'_>,
    timeout: Duration,
) -> Result<(), LinkError> {
    let (_session, sftp) = open(t, secrets, timeout)?;
    let dir = Path::new(&t.remote_dir);
    let part = dir.join(part_name(file.file_name));
    let done = dir.join(file.file_name);
    let mut f = sftp.create(&part).map_err(|e| {
        err(
            &format!("could not create {} in {}", part.display(), t.remote_dir),
            t,
            e,
        )
    })?;
    f.write_all(file.bytes)
        .map_err(|e| err(&format!("writing {} failed", file.file_name), t, e))?;
    // Servers without the fsync extension still close the file whole; a close the server
    // refuses (a write it could not finish) publishes nothing.
    let _ = f.fsync();
    f.close()
        .map_err(|e| err(&format!("the server did not keep {} whole", file.file_name), t, e))?;
    drop(f);
    let renamed = |e| {
        err(
            &format!("could not rename the uploaded file to {}", file.file_name),
            t,
            e,
        )
    };
    let flags = RenameFlags::OVERWRITE | RenameFlags::ATOMIC | RenameFlags::NATIVE;
    if let Err(first) = sftp.rename(&part, &done, Some(flags)) {
        // SFTP version 3 renames only onto a free name: a file of an earlier sending of this
        // manifest (same name, same content) is replaced. Any other failure is said as it is.
        if sftp.stat(&done).is_err() {
            return Err(renamed(first));
        }
        sftp.unlink(&done)
            .map_err(|e| err(&format!("could not replace {}", file.file_name), t, e))?;
        sftp.rename(&part, &done, None).map_err(renamed)?;
    }
    Ok(())
}

pub(crate) fn test(t: &SftpTransport, secrets: &TransportSecrets, timeout: Duration) -> Result<String, LinkError> {
    let (_session, sftp) = open(t, secrets, timeout)?;
    let entries = sftp
        .readdir(Path::new(&t.remote_dir))
        .map_err(|e| err(&format!("the folder {} could not be listed", t.remote_dir), t, e))?;
    Ok(format!(
        "Connected to {}:{} (host key {} as set), signed in as {}, and the folder {} holds {} file(s).",
        t.host,
        t.port,
        t.host_key_sha256,
        t.username,
        t.remote_dir,
        entries.len()
    ))
}
