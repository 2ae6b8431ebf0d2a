//! Offline address rules per country: postal-code formats as masks (`9` a digit, `A` a letter,
//! other characters literal; alternatives separated by `|`) and the countries whose addresses need a
//! state. Covers the countries of the 20 carriers and their usual destinations.

const MASKS: &[(&str, &str)] = &[
    ("AND", "AD999"), ("ARE", ""), ("AUS", "9999"), ("AUT", "9999"), ("BEL", "9999"), ("BGR", "9999"),
    ("BRA", "99999-999"), ("CAN", "A9A 9A9"), ("CHE", "9999"), ("CHN", "999999"), ("CYP", "9999"),
    ("CZE", "999 99"), ("DEU", "99999"), ("DNK", "9999"), ("ESP", "99999"), ("EST", "99999"), ("FIN", "99999"),
    ("FRA", "99999"), ("GBR", "A9 9AA|A99 9AA|AA9 9AA|AA99 9AA|A9A 9AA|AA9A 9AA"), ("GGY", "AA9 9AA|AA99 9AA"),
    ("GRC", "999 99"), ("HKG", ""), ("HRV", "99999"), ("HUN", "9999"), ("IDN", "99999"), ("IND", "999999"),
    ("IRL", "A99 A9A9|A99 AAAA|A99 A99A|A99 AA9A|A99 AA99|A99 A999|A99 9AAA|A99 9A9A|A99 9AA9|A99 99AA|A99 9999|A99 999A|A99 99A9|A99 A9AA|A99 AAA9|A99 A99A"),
    ("ISL", "999"), ("ITA", "99999"), ("JEY", "AA9 9AA|AA99 9AA"), ("JPN", "999-9999"), ("KOR", "99999"),
    ("LTU", "LT-99999"), ("LUX", "9999"), ("LVA", "LV-9999"), ("MEX", "99999"), ("MLT", "AAA 9999"),
    ("MYS", "99999"), ("NLD", "9999 AA"), ("NOR", "9999"), ("NZL", "9999"), ("PHL", "9999"), ("POL", "99-999"),
    ("PRT", "9999-999"), ("ROU", "999999"), ("SGP", "999999"), ("SVK", "999 99"), ("SVN", "9999"), ("SWE", "999 99"),
    ("THA", "99999"), ("TWN", "999|99999|999999"), ("USA", "99999|99999-9999"), ("VNM", "999999"),
];

/// Countries whose addresses need a state or province.
pub const STATE_REQUIRED: &[&str] = &["AUS", "BRA", "CAN", "IND", "MEX", "USA"];

/// The masks of a country, or None when Packdesk has no rule for it.
pub fn masks(country: &str) -> Option<Vec<&'static str>> {
    MASKS
        .iter()
        .find(|(c, _)| *c == country)
        .map(|(_, m)| if m.is_empty() { vec![] } else { m.split('|').collect() })
}

fn compact(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// Fits `code` to a mask: Some(formatted) when its letters and digits fit, ignoring case,
/// spaces and dashes.
fn fit(mask: &str, code: &str) -> Option<String> {
    let slots: String = mask.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    let c = compact(code);
    if c.len() != slots.len() {
        return None;
    }
    let mut out = String::new();
    let mut it = c.chars();
    for m in mask.chars() {
        match m {
            '9' => out.push(it.next().filter(|c| c.is_ascii_digit())?),
            'A' => out.push(it.next().filter(|c| c.is_ascii_alphabetic())?),
            ' ' | '-' => out.push(m),
            lit => {
                if it.next()? != lit {
                    return None;
                }
                out.push(lit)
            }
        }
    }
    Some(out)
}

/// A postal code that fits the country's first format (digits 1, 2, 3..., letters A, B, C...),
/// for examples and tests; None when the country has no rule or no postal codes.
pub fn example_postal_code(country: &str) -> Option<String> {
    let mask = *masks(country)?.first()?;
    let (mut digit, mut letter) = (0u8, 0u8);
    Some(
        mask.chars()
            .map(|m| match m {
                '9' => {
                    digit += 1;
                    char::from(b'0' + digit % 10)
                }
                'A' => {
                    letter += 1;
                    char::from(b'A' + (letter - 1) % 26)
                }
                other => other,
            })
            .collect(),
    )
}

/// The postal code in its country's format, or Err with the formats allowed. Countries without
/// a rule accept any code (trimmed).
pub fn normalise_postal_code(country: &str, code: &str) -> Result<String, NotAPostalCode> {
    match masks(country) {
        None => Ok(code.trim().to_string()),
        Some(m) if m.is_empty() => Ok(code.trim().to_string()),
        Some(m) => m.iter().find_map(|mask| fit(mask, code)).ok_or_else(|| {
            let shown: Vec<String> = m
                .iter()
                .take(4)
                .map(|x| x.replace('9', "0").replace('A', "X"))
                .collect();
            NotAPostalCode {
                country: country.to_string(),
                formats: shown.join(" or "),
            }
        }),
    }
}

/// A code that fits none of its country's formats: the country (alpha-3) and its formats as an
/// operator reads them (`00000`, `X0X 0X0`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAPostalCode {
    pub country: String,
    pub formats: String,
}

impl std::fmt::Display for NotAPostalCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not a postal code of {} (format {})", self.country, self.formats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postal_codes_are_checked_and_formatted() {
        assert_eq!(normalise_postal_code("GBR", "e162aa").unwrap(), "E16 2AA");
        assert_eq!(normalise_postal_code("GBR", "SW1A 1AA").unwrap(), "SW1A 1AA");
        assert_eq!(normalise_postal_code("NLD", "1234ab").unwrap(), "1234 AB");
        assert_eq!(normalise_postal_code("JPN", "1000001").unwrap(), "100-0001");
        assert_eq!(normalise_postal_code("USA", "94105 1234").unwrap(), "94105-1234");
        assert_eq!(normalise_postal_code("AND", "ad500").unwrap(), "AD500");
        assert!(normalise_postal_code("DEU", "1234").is_err());
        assert!(normalise_postal_code("IND", "11000A").is_err());
        assert_eq!(normalise_postal_code("HKG", " anything ").unwrap(), "anything");
        for (country, _) in MASKS {
            if let Some(e) = example_postal_code(country) {
                assert_eq!(
                    normalise_postal_code(country, &e).as_deref(),
                    Ok(e.as_str()),
                    "{country}"
                );
            }
        }
    }
}
