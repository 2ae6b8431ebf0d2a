//! The printers of this computer, as the system spooler knows them (CUPS: `lpstat`). On a system
//! without CUPS the list is empty and says why.

use std::process::Command;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemPrinter {
    /// The queue name to print to.
    pub name: String,
    /// Where the spooler sends it (device URI), when known.
    pub device: Option<String>,
    /// idle, printing, disabled, or what lpstat says.
    pub state: String,
    pub is_default: bool,
}

/// The system printers, or why there are none to list.
pub fn printers() -> Result<Vec<SystemPrinter>, String> {
    let run = |args: &[&str]| -> Result<String, String> {
        let out = Command::new("lpstat")
            .args(args)
            .env("LC_ALL", "C")
            .output()
            .map_err(|e| {
                format!("the system spooler is not available (lpstat: {e}); install CUPS to print through it")
            })?;
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let states = run(&["-p"])?;
    let devices = run(&["-v"]).unwrap_or_default();
    let default = run(&["-d"]).unwrap_or_default();
    Ok(parse(&states, &devices, &default))
}

/// Parses `lpstat -p`, `lpstat -v` and `lpstat -d` (C locale).
pub fn parse(states: &str, devices: &str, default: &str) -> Vec<SystemPrinter> {
    let default_name = default
        .trim()
        .strip_prefix("system default destination:")
        .map(|s| s.trim().to_string());
    states
        .lines()
        .filter_map(|l| l.strip_prefix("printer "))
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let name = words.next()?.to_string();
            let state = if l.contains("disabled") {
                "disabled"
            } else if l.contains("now printing") {
                "printing"
            } else {
                "idle"
            };
            let device = devices.lines().find_map(|d| {
                let rest = d.strip_prefix("device for ")?;
                let (n, uri) = rest.split_once(": ")?;
                (n == name).then(|| uri.trim().to_string())
            });
            Some(SystemPrinter {
                is_default: default_name.as_deref() == Some(name.as_str()),
                name,
                device,
                state: state.into(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lpstat_output_becomes_printers() {
        let p = parse(
            "printer PDF is idle.  enabled since Sun 22 Nov 2026\nprinter Zebra disabled since Sun 22 Nov 2026 -\n\treason unknown\n",
            "device for PDF: cups-pdf:/\ndevice for Zebra: socket://192.0.2.7:9100\n",
            "system default destination: PDF\n",
        );
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[0].name.as_str(), p[0].state.as_str(), p[0].is_default),
            ("PDF", "idle", true)
        );
        assert_eq!(
            (p[1].device.as_deref(), p[1].state.as_str()),
            (Some("socket://192.0.2.7:9100"), "disabled")
        );
    }
}
