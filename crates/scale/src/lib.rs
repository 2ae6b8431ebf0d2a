//! The desk's USB postal scale. Scales of the HID "Scale" usage page (0x8D: Dymo M10/M25,
//! Stamps.com, Mettler and others) send a 6-byte report at every change; Linux hands each report
//! unchanged to a reader of `/dev/hidrawN`, so no driver or library is needed.
//!
//! `report` reads one report, `discovery` finds scales among the hidraw devices, `reader` keeps
//! the latest weight from a thread of its own.
#![forbid(unsafe_code)]

pub mod discovery;
pub mod reader;
pub mod report;

pub use discovery::{find_scales, is_scale_descriptor};
pub use reader::{Choice, Scale, Snapshot};
pub use report::{Reading, Status, Unit};
