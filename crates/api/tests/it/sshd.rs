//! Debian's OpenSSH server on a free loopback port, started by a test or a bench as a carrier's
//! SFTP server would be: its own host key and config, `internal-sftp`, its own non-root user
//! `pdsftp-<port>` (no shell, a random password; removed at the end) signing in by password or
//! key. One user per server: tests run side by side, and a shared user's password, set anew by
//! each, made another test's sign-in fail.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// /etc/passwd is written by one test of this process at a time.
static ACCOUNTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub struct Sshd {
    child: Child,
    pub port: u16,
    dir: tempfile::TempDir,
    pub user: String,
    pub password: String,
    pub fingerprint: String,
    pub inbox: PathBuf,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _accounts = ACCOUNTS.lock().unwrap_or_else(|e| e.into_inner());
        let _ = Command::new("userdel").args(["--remove", &self.user]).output();
    }
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Sshd {
    /// An sshd on a free loopback port; the user signs in by `password` or `private_key()`.
    pub fn start() -> Sshd {
        assert!(
            Path::new("/usr/sbin/sshd").exists(),
            "the SFTP tests need Debian's openssh-server (.ci/test installs it)"
        );
        let uid = run(Command::new("id").arg("-u"));
        assert_eq!(uid.trim(), "0", "the SFTP tests start sshd as root (CI runs as root)");
        let port = free_port();
        let user = format!("pdsftp-{port}");
        let accounts = ACCOUNTS.lock().unwrap_or_else(|e| e.into_inner());
        // A user left by a killed run of an earlier test on the same port goes first.
        let _ = Command::new("userdel").args(["--remove", &user]).output();
        run(Command::new("useradd").args(["--create-home", "--shell", "/usr/sbin/nologin", &user]));
        let password = format!("pw-{}", uuid::Uuid::new_v4().simple());
        let mut chpasswd = Command::new("chpasswd")
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        chpasswd
            .stdin
            .take()
            .unwrap()
            .write_all(format!("{user}:{password}\n").as_bytes())
            .unwrap();
        assert!(chpasswd.wait().unwrap().success());
        drop(accounts);
        std::fs::create_dir_all("/run/sshd").unwrap();

        let dir = tempfile::tempdir().unwrap();
        run(Command::new("chmod").arg("755").arg(dir.path()));
        let host_key = dir.path().join("host_ed25519");
        run(Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-f"])
            .arg(&host_key));
        let client_key = dir.path().join("client_ed25519");
        run(Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-f"])
            .arg(&client_key));
        std::fs::copy(
            dir.path().join("client_ed25519.pub"),
            dir.path().join("authorized_keys"),
        )
        .unwrap();
        let printed = run(Command::new("ssh-keygen")
            .arg("-lf")
            .arg(dir.path().join("host_ed25519.pub")));
        let fingerprint = printed.split_whitespace().nth(1).unwrap().to_string();
        let inbox = dir.path().join("inbox");
        std::fs::create_dir(&inbox).unwrap();
        run(Command::new("chown").arg(&user).arg(&inbox));
        let config = dir.path().join("sshd_config");
        std::fs::write(
            &config,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {}\nPidFile {}\nAuthorizedKeysFile {}\n\
                 StrictModes no\nUsePAM no\nPasswordAuthentication yes\nKbdInteractiveAuthentication no\n\
                 PubkeyAuthentication yes\nPermitRootLogin no\nAllowUsers {user}\n\
                 Subsystem sftp internal-sftp\nForceCommand internal-sftp\nLogLevel VERBOSE\n",
                host_key.display(),
                dir.path().join("sshd.pid").display(),
                dir.path().join("authorized_keys").display(),
            ),
        )
        .unwrap();
        let child = Command::new("/usr/sbin/sshd")
            .args(["-D", "-e", "-f"])
            .arg(&config)
            .stderr(std::fs::File::create(dir.path().join("sshd.log")).unwrap())
            .spawn()
            .unwrap();
        let end = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < end,
                "sshd did not start: {}",
                std::fs::read_to_string(dir.path().join("sshd.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Sshd {
            child,
            port,
            dir,
            user,
            password,
            fingerprint,
            inbox,
        }
    }

    pub fn private_key(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("client_ed25519")).unwrap()
    }

    pub fn transport(&self) -> Value {
        json!({"kind": "sftp", "host": "127.0.0.1", "port": self.port, "username": self.user,
               "remote_dir": self.inbox, "host_key_sha256": self.fingerprint})
    }

    pub fn files(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.inbox)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }
}
