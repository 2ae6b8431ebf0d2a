//! Documents are pure functions of their data: the same input gives the same bytes (no clock, no
//! randomness inside; dates come in as text). Tests check them by decoding what they print.
#![forbid(unsafe_code)]

pub mod barcode;
pub mod collection_sheet;
pub mod command_sheet;
pub mod csv;
pub mod customs;
pub mod fonts;
pub mod invoice;
pub mod label;
pub mod manifest;
pub mod matrix;
pub mod merge;
pub mod packing_slip;
pub mod pdf;
pub mod test_page;
pub mod translit;
pub mod words;

pub use label::{render_label_pdf, render_label_zpl, LabelPage};

/// Paper in millimetres (width, height).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paper {
    pub width_mm: f32,
    pub height_mm: f32,
}

impl Paper {
    pub const A4: Paper = Paper {
        width_mm: 210.0,
        height_mm: 297.0,
    };
    pub const IN4X6: Paper = Paper {
        width_mm: 101.6,
        height_mm: 152.4,
    };
}
