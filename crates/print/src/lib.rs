//! Printing, apart from what is printed and why: sending bytes to a printer over a transport,
//! preparing ZPL for a given printer (resolution, setup commands), converting a label to the
//! language of the printer (PDF to a ZPL raster, ZPL to a PDF page), listing the printers of this
//! computer, and rendering offline previews. No network address other than the printer's own is
//! ever contacted; previews never leave the machine.
#![forbid(unsafe_code)]

pub mod convert;
pub mod preview;
pub mod system;
pub mod transport;
pub mod zpl;

pub use transport::{probe, send, Delivery, PrintError, PrintOptions, Transport};
