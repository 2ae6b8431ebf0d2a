//! Finds scales among the hidraw devices: a device whose report descriptor declares the Scale
//! usage page (0x8D) is one, whatever its maker (no vendor list to keep up to date).

use std::path::{Path, PathBuf};

/// Where Linux lists hidraw devices and where their device files are.
pub const SYSFS_HIDRAW: &str = "/sys/class/hidraw";
pub const DEV: &str = "/dev";

const SCALE_USAGE_PAGE: u32 = 0x8D;

/// A scale found: its device file and the name its USB descriptor gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub device: PathBuf,
    pub name: String,
}

/// The scales among `sysfs`'s hidraw entries (`hidraw0`, ...), with their files under `dev`; in
/// name order, so "auto" picks the same one each time.
pub fn find_scales(sysfs: &Path, dev: &Path) -> Vec<Found> {
    let Ok(entries) = std::fs::read_dir(sysfs) else {
        return Vec::new();
    };
    let mut found: Vec<Found> = entries
        .flatten()
        .filter_map(|e| {
            let descriptor = std::fs::read(e.path().join("device/report_descriptor")).ok()?;
            if !is_scale_descriptor(&descriptor) {
                return None;
            }
            let uevent = std::fs::read_to_string(e.path().join("device/uevent")).unwrap_or_default();
            let name = uevent
                .lines()
                .find_map(|l| l.strip_prefix("HID_NAME="))
                .unwrap_or("HID scale")
                .to_string();
            Some(Found {
                device: dev.join(e.file_name()),
                name,
            })
        })
        .collect();
    found.sort_by(|a, b| a.device.cmp(&b.device));
    found
}

/// Whether a HID report descriptor declares the Scale usage page. Walks the descriptor's items
/// (a byte 0x8D inside some other item's data is not a usage page).
pub fn is_scale_descriptor(descriptor: &[u8]) -> bool {
    let mut i = 0;
    while i < descriptor.len() {
        let prefix = descriptor[i];
        if prefix == 0xFE {
            // Long item: size byte, tag byte, data.
            let size = descriptor.get(i + 1).copied().unwrap_or(0) as usize;
            i += 3 + size;
            continue;
        }
        let size = match prefix & 0x03 {
            3 => 4,
            n => n as usize,
        };
        let Some(data) = descriptor.get(i + 1..i + 1 + size) else {
            return false;
        };
        // Global item (type 1), tag 0: Usage Page.
        if prefix & 0xFC == 0x04 {
            let page = data.iter().rev().fold(0u32, |acc, b| (acc << 8) | u32::from(*b));
            if page == SCALE_USAGE_PAGE {
                return true;
            }
        }
        i += 1 + size;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The start of a Dymo M10's descriptor: Usage Page (Scale), Usage (Scale Device), ...
    const DYMO: &[u8] = &[0x05, 0x8D, 0x09, 0x01, 0xA1, 0x01, 0x85, 0x01, 0x09, 0x20];
    /// A keyboard's (Generic Desktop, Keyboard; a Logical Maximum of 0x8D in between).
    const KEYBOARD: &[u8] = &[0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, 0x25, 0x8D, 0x05, 0x07, 0xC0];

    #[test]
    fn the_scale_usage_page_is_found_in_short_and_two_byte_form() {
        assert!(is_scale_descriptor(DYMO));
        assert!(is_scale_descriptor(&[0x06, 0x8D, 0x00, 0x09, 0x01]));
        assert!(!is_scale_descriptor(KEYBOARD));
        assert!(!is_scale_descriptor(&[0x05]));
        assert!(!is_scale_descriptor(&[]));
    }

    #[test]
    fn discovery_lists_only_scales_with_their_names() {
        let sys = tempfile::tempdir().unwrap();
        for (name, descriptor, hid_name) in [
            ("hidraw0", KEYBOARD, "Some Keyboard"),
            ("hidraw2", DYMO, "DYMO M10 10 lb Digital Postal Scale"),
            ("hidraw1", DYMO, "Mettler Toledo PS60"),
        ] {
            let d = sys.path().join(name).join("device");
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("report_descriptor"), descriptor).unwrap();
            std::fs::write(
                d.join("uevent"),
                format!("HID_ID=0003:00000922:00008003\nHID_NAME={hid_name}\n"),
            )
            .unwrap();
        }
        let found = find_scales(sys.path(), Path::new("/dev"));
        assert_eq!(
            found,
            [
                Found {
                    device: "/dev/hidraw1".into(),
                    name: "Mettler Toledo PS60".into()
                },
                Found {
                    device: "/dev/hidraw2".into(),
                    name: "DYMO M10 10 lb Digital Postal Scale".into()
                },
            ]
        );
        assert!(find_scales(&sys.path().join("missing"), Path::new("/dev")).is_empty());
    }
}
