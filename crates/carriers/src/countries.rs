//! ISO 3166 countries (alpha-3, alpha-2, continent) and ISO 4217 currencies, for validation and
//! rate zones. Data from the ISO lists, in `data/`.

use std::collections::HashMap;
use std::sync::OnceLock;

#[derive(Debug, Clone, Copy)]
pub struct Country {
    pub alpha3: &'static str,
    pub alpha2: &'static str,
    /// Continent code: AF, AN, AS, EU, NA, OC, SA.
    pub continent: &'static str,
    pub name: &'static str,
}

fn table() -> &'static HashMap<&'static str, Country> {
    static T: OnceLock<HashMap<&'static str, Country>> = OnceLock::new();
    T.get_or_init(|| {
        include_str!("../data/countries.txt")
            .lines()
            .filter_map(|l| {
                let mut it = l.splitn(4, ' ');
                let c = Country {
                    alpha3: it.next()?,
                    alpha2: it.next()?,
                    continent: it.next()?,
                    name: it.next()?,
                };
                Some((c.alpha3, c))
            })
            .collect()
    })
}

pub fn country(alpha3: &str) -> Option<Country> {
    table().get(alpha3).copied()
}

pub fn is_currency(code: &str) -> bool {
    include_str!("../data/currencies.txt")
        .split_whitespace()
        .any(|c| c == code)
}

/// Countries without a postal-code system, where an address needs none.
const NO_POSTAL_CODES: &[&str] = &[
    "ABW", "AGO", "ARE", "ATG", "BDI", "BEN", "BFA", "BHS", "BLZ", "BOL", "BWA", "CAF", "CIV", "CMR", "COD", "COG",
    "COK", "COM", "DJI", "DMA", "ERI", "FJI", "GHA", "GIN", "GMB", "GNQ", "GRD", "GUY", "HKG", "IRL", "KIR", "KNA",
    "LCA", "MAC", "MLI", "MRT", "MSR", "MWI", "NIU", "NRU", "PRK", "QAT", "RWA", "SLB", "SLE", "SOM", "SSD", "STP",
    "SUR", "SYC", "SYR", "TGO", "TKL", "TLS", "TON", "TTO", "TUV", "UGA", "VUT", "YEM", "ZWE",
];

pub fn has_postal_codes(alpha3: &str) -> bool {
    !NO_POSTAL_CODES.contains(&alpha3)
}
