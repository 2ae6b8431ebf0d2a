//! One input report of a HID scale (report id 3, "Scale Data"): id, status, unit, exponent, then
//! the weight as an unsigned little-endian 16-bit number: weight = raw x 10^exponent.

/// What the scale says about its weight (HID Scale Status usage values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Fault,
    /// Stable at zero: nothing on the platter.
    Zero,
    InMotion,
    Stable,
    UnderZero,
    OverWeight,
    NeedsCalibration,
    NeedsRezeroing,
    Unknown(u8),
}

impl Status {
    fn from_byte(b: u8) -> Status {
        match b {
            1 => Status::Fault,
            2 => Status::Zero,
            3 => Status::InMotion,
            4 => Status::Stable,
            5 => Status::UnderZero,
            6 => Status::OverWeight,
            7 => Status::NeedsCalibration,
            8 => Status::NeedsRezeroing,
            other => Status::Unknown(other),
        }
    }

    /// The word the interface uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Fault => "fault",
            Status::Zero => "zero",
            Status::InMotion => "in_motion",
            Status::Stable => "stable",
            Status::UnderZero => "under_zero",
            Status::OverWeight => "over_weight",
            Status::NeedsCalibration => "needs_calibration",
            Status::NeedsRezeroing => "needs_rezeroing",
            Status::Unknown(_) => "unknown",
        }
    }

    /// A weight that can go on a label: settled, on or above zero, within range.
    pub fn is_settled(self) -> bool {
        matches!(self, Status::Zero | Status::Stable)
    }
}

/// The units postal scales report (HID Weight Unit usage values 2, 3, 11, 12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    G,
    Kg,
    Oz,
    Lb,
}

impl Unit {
    fn from_byte(b: u8) -> Option<Unit> {
        match b {
            2 => Some(Unit::G),
            3 => Some(Unit::Kg),
            11 => Some(Unit::Oz),
            12 => Some(Unit::Lb),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Unit::G => "g",
            Unit::Kg => "kg",
            Unit::Oz => "oz",
            Unit::Lb => "lb",
        }
    }
}

/// One report, read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    pub status: Status,
    /// None when the scale uses a unit no postal scale should (carats, grains...).
    pub unit: Option<Unit>,
    pub unit_code: u8,
    pub exponent: i8,
    pub raw: u16,
}

/// The report id of "Scale Data" reports; others (the scale's status report 4, feature
/// reports) carry no weight.
pub const DATA_REPORT_ID: u8 = 3;
pub const REPORT_LEN: usize = 6;

impl Reading {
    /// Reads a data report; None for any other report.
    pub fn parse(report: &[u8]) -> Option<Reading> {
        let [id, status, unit, exponent, lo, hi] = *report else {
            return None;
        };
        if id != DATA_REPORT_ID {
            return None;
        }
        Some(Reading {
            status: Status::from_byte(status),
            unit: Unit::from_byte(unit),
            unit_code: unit,
            exponent: exponent as i8,
            raw: u16::from_le_bytes([lo, hi]),
        })
    }

    /// The weight in the report's unit; negative under zero (the report carries the magnitude).
    pub fn value(&self) -> f64 {
        let magnitude = f64::from(self.raw) * 10f64.powi(i32::from(self.exponent));
        // Rounded to the report's own resolution: 10^-1 x 25 is 2.5, not 2.5000000000000004.
        let decimals = (-i32::from(self.exponent)).clamp(0, 9);
        let scale = 10f64.powi(decimals);
        let rounded = (magnitude * scale).round() / scale;
        if self.status == Status::UnderZero {
            -rounded
        } else {
            rounded
        }
    }

    /// The reports of one `read` of the device: hidraw gives one report per read, a pipe may join
    /// several; anything that is not whole 6-byte data reports is skipped.
    pub fn parse_all(bytes: &[u8]) -> Vec<Reading> {
        if bytes.len().is_multiple_of(REPORT_LEN) {
            bytes.chunks(REPORT_LEN).filter_map(Reading::parse).collect()
        } else {
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dymo_report_in_ounces_reads_with_its_exponent() {
        // Dymo M10 in ounce mode: 12.5 oz, stable (0x7D = 125, exponent -1).
        let r = Reading::parse(&[3, 4, 11, 0xFF, 0x7D, 0x00]).unwrap();
        assert_eq!(r.status, Status::Stable);
        assert_eq!(r.unit, Some(Unit::Oz));
        assert_eq!(r.value(), 12.5);
    }

    #[test]
    fn grams_are_little_endian_over_both_bytes() {
        // 0x04D2 = 1234 g.
        let r = Reading::parse(&[3, 4, 2, 0, 0xD2, 0x04]).unwrap();
        assert_eq!((r.unit, r.value()), (Some(Unit::G), 1234.0));
        let kg = Reading::parse(&[3, 3, 3, 0xFD, 0xD2, 0x04]).unwrap();
        assert_eq!(
            (kg.status, kg.unit, kg.value()),
            (Status::InMotion, Some(Unit::Kg), 1.234)
        );
    }

    #[test]
    fn under_zero_is_negative_and_not_settled() {
        let r = Reading::parse(&[3, 5, 2, 0, 40, 0]).unwrap();
        assert_eq!(r.value(), -40.0);
        assert!(!r.status.is_settled());
        assert!(Reading::parse(&[3, 2, 2, 0, 0, 0]).unwrap().status.is_settled());
        assert!(!Reading::parse(&[3, 6, 12, 0, 0xFF, 0xFF]).unwrap().status.is_settled());
    }

    #[test]
    fn other_reports_and_odd_lengths_are_not_weights() {
        assert_eq!(Reading::parse(&[4, 4, 2, 0, 10, 0]), None);
        assert_eq!(Reading::parse(&[3, 4, 2, 0, 10]), None);
        assert!(Reading::parse_all(&[3, 4, 2, 0, 10, 0, 3]).is_empty());
        let two = Reading::parse_all(&[3, 3, 2, 0, 10, 0, 3, 4, 2, 0, 11, 0]);
        assert_eq!(two.iter().map(Reading::value).collect::<Vec<_>>(), [10.0, 11.0]);
    }

    #[test]
    fn a_unit_no_postal_scale_uses_is_kept_as_unknown() {
        let r = Reading::parse(&[3, 4, 4, 0, 10, 0]).unwrap();
        assert_eq!((r.unit, r.unit_code), (None, 4));
    }
}
