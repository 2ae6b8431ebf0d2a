//! Tracking numbers: serial number + scheme -> the carrier's printed form with its check digit.

use crate::registry::Scheme;
use packdesk_model::request::TrackingRange;

/// Digits of the serial part of a scheme.
pub fn serial_digits(scheme: &Scheme) -> u32 {
    match scheme {
        Scheme::S10 { .. } => 8,
        Scheme::NumericMod10 { length, prefix } | Scheme::NumericMod11 { length, prefix } => {
            length.saturating_sub(1 + prefix.len() as u32)
        }
    }
}

/// The largest serial a scheme can print.
pub fn max_serial(scheme: &Scheme) -> u64 {
    10u64.saturating_pow(serial_digits(scheme)).saturating_sub(1)
}

/// The sample range used by sandbox keys: the top tenth of the serial space, so sample numbers
/// start with 9 and are easy to tell apart from a carrier's real ranges.
pub fn sample_range(scheme: &Scheme) -> TrackingRange {
    let max = max_serial(scheme);
    TrackingRange {
        start: max - max / 10,
        end: max,
    }
}

/// UPU S10 check digit of an 8-digit serial: weights 8 6 4 2 3 5 9 7, 11 - sum mod 11,
/// with 10 -> 0 and 11 -> 5.
pub fn s10_check_digit(serial: u64) -> u32 {
    const W: [u32; 8] = [8, 6, 4, 2, 3, 5, 9, 7];
    let digits = format!("{serial:08}");
    let sum: u32 = digits.bytes().zip(W).map(|(d, w)| (d - b'0') as u32 * w).sum();
    match 11 - sum % 11 {
        10 => 0,
        11 => 5,
        c => c,
    }
}

/// GS1 mod-10 check digit: weights 3,1,3,... from the rightmost digit.
pub fn mod10_check_digit(digits: &str) -> u32 {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, d)| (d - b'0') as u32 * if i % 2 == 0 { 3 } else { 1 })
        .sum();
    (10 - sum % 10) % 10
}

/// Mod-11 check digit: weights 2..7 repeating from the rightmost digit; a result of 10 prints as 0.
pub fn mod11_check_digit(digits: &str) -> u32 {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, d)| (d - b'0') as u32 * (2 + (i as u32 % 6)))
        .sum();
    (11 - sum % 11) % 11 % 10
}

/// The printed tracking number of `serial` under `scheme`.
pub fn format(scheme: &Scheme, serial: u64) -> String {
    match scheme {
        Scheme::S10 {
            service_indicator,
            country,
        } => {
            format!("{service_indicator}{serial:08}{}{country}", s10_check_digit(serial))
        }
        Scheme::NumericMod10 { prefix, .. } => {
            let body = format!("{prefix}{serial:0w$}", w = serial_digits(scheme) as usize);
            let c = mod10_check_digit(&body);
            format!("{body}{c}")
        }
        Scheme::NumericMod11 { prefix, .. } => {
            let body = format!("{prefix}{serial:0w$}", w = serial_digits(scheme) as usize);
            let c = mod11_check_digit(&body);
            format!("{body}{c}")
        }
    }
}

/// Whether `number` is a well-formed tracking number of `scheme`, check digit included.
pub fn is_valid(scheme: &Scheme, number: &str) -> bool {
    match scheme {
        Scheme::S10 {
            service_indicator,
            country,
        } => {
            number.len() == 13
                && number.starts_with(service_indicator.as_str())
                && number.ends_with(country.as_str())
                && number[2..11].bytes().all(|b| b.is_ascii_digit())
                && number[2..10]
                    .parse::<u64>()
                    .is_ok_and(|s| s10_check_digit(s) == (number.as_bytes()[10] - b'0') as u32)
        }
        Scheme::NumericMod10 { length, prefix } | Scheme::NumericMod11 { length, prefix } => {
            if number.len() != *length as usize
                || !number.starts_with(prefix.as_str())
                || !number.bytes().all(|b| b.is_ascii_digit())
            {
                return false;
            }
            let (body, check) = number.split_at(number.len() - 1);
            let want = match scheme {
                Scheme::NumericMod10 { .. } => mod10_check_digit(body),
                _ => mod11_check_digit(body),
            };
            check == want.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::registry;

    #[test]
    fn s10_check_digit_matches_the_upu_example() {
        // By hand: 4*8+7*6+3*4+1*2+2*3+4*5+8*9+2*7 = 200; 200 mod 11 = 2; 11 - 2 = 9.
        assert_eq!(s10_check_digit(47312482), 9);
        let s = Scheme::S10 {
            service_indicator: "RR".into(),
            country: "DE".into(),
        };
        assert_eq!(format(&s, 47312482), "RR473124829DE");
        assert!(is_valid(&s, "RR473124829DE"));
        assert!(!is_valid(&s, "RR473124828DE"));
    }

    #[test]
    fn gs1_mod10_matches_a_known_sscc() {
        // GTIN-13 4006381333931 (a published GS1 example): body 400638133393, check digit 1.
        assert_eq!(mod10_check_digit("400638133393"), 1);
        let s = Scheme::NumericMod10 {
            length: 13,
            prefix: String::new(),
        };
        assert!(is_valid(&s, "4006381333931"));
        assert!(!is_valid(&s, "4006381333932"));
    }

    #[test]
    fn mod11_detects_a_single_changed_digit() {
        let s = Scheme::NumericMod11 {
            length: 12,
            prefix: String::new(),
        };
        for serial in [1u64, 12345, 99999999999, 31415926535] {
            let n = format(&s, serial);
            assert!(is_valid(&s, &n), "{n}");
            // Change one digit of the body: the check must catch it (unless the check is the 10->0 case).
            let mut b = n.clone().into_bytes();
            b[3] = if b[3] == b'9' { b'0' } else { b[3] + 1 };
            let changed = String::from_utf8(b).unwrap();
            let ok = is_valid(&s, &changed);
            let body_sum_rem_is_one = mod11_check_digit(&changed[..11]) == 0;
            assert!(!ok || body_sum_rem_is_one, "{changed}");
        }
    }

    #[test]
    fn every_pool_prints_numbers_matching_its_pattern_across_its_sample_range() {
        for c in &registry().carriers {
            for pool in &c.tracking_pools {
                let r = sample_range(&pool.scheme);
                assert!(r.start <= r.end && r.end <= max_serial(&pool.scheme));
                for serial in [r.start, r.start + 1, (r.start + r.end) / 2, r.end] {
                    let n = format(&pool.scheme, serial);
                    assert!(is_valid(&pool.scheme, &n), "{} {n}", c.slug);
                    if let Some(p) = &pool.pattern {
                        let re = regex::Regex::new(&format!("^{p}$")).unwrap();
                        assert!(re.is_match(&n), "{} pool {} number {n} vs {p}", c.slug, pool.name);
                    }
                }
            }
        }
    }
}
