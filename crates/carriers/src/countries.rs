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

/// The customs territory of the European Union: parcels between these countries cross no customs
/// border (Monaco is inside it).
const EU_CUSTOMS_UNION: &[&str] = &[
    "AUT", "BEL", "BGR", "HRV", "CYP", "CZE", "DNK", "EST", "FIN", "FRA", "DEU", "GRC", "HUN", "IRL", "ITA", "LVA",
    "LTU", "LUX", "MLT", "NLD", "POL", "PRT", "ROU", "SVK", "SVN", "ESP", "SWE", "MCO",
];

/// Whether a parcel from `from` to `to` (alpha-3) crosses a customs border and needs a customs
/// declaration: different countries, not both inside the EU's customs union.
pub fn crosses_customs_border(from: &str, to: &str) -> bool {
    from != to && !(EU_CUSTOMS_UNION.contains(&from) && EU_CUSTOMS_UNION.contains(&to))
}

/// The currency a country pays in (ISO 4217), for the countries Packdesk's carriers serve and
/// their usual neighbours.
pub fn currency_of(alpha3: &str) -> Option<&'static str> {
    const EURO: &[&str] = &[
        "AUT", "BEL", "BGR", "HRV", "CYP", "EST", "FIN", "FRA", "DEU", "GRC", "IRL", "ITA", "LVA", "LTU", "LUX", "MLT",
        "NLD", "PRT", "SVK", "SVN", "ESP", "MCO", "AND", "SMR", "VAT", "MNE",
    ];
    if EURO.contains(&alpha3) {
        return Some("EUR");
    }
    Some(match alpha3 {
        "GBR" => "GBP",
        "USA" => "USD",
        "POL" => "PLN",
        "IND" => "INR",
        "AUS" => "AUD",
        "NZL" => "NZD",
        "CAN" => "CAD",
        "CHE" | "LIE" => "CHF",
        "SWE" => "SEK",
        "DNK" => "DKK",
        "NOR" => "NOK",
        "CZE" => "CZK",
        "HUN" => "HUF",
        "ROU" => "RON",
        "JPN" => "JPY",
        "CHN" => "CNY",
        _ => return None,
    })
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

/// Names people type for a country besides the list's own (English, and the few a shop's export
/// often carries), lower case.
const ALSO_CALLED: &[(&str, &str)] = &[
    ("uk", "GBR"),
    ("great britain", "GBR"),
    ("britain", "GBR"),
    ("england", "GBR"),
    ("scotland", "GBR"),
    ("wales", "GBR"),
    ("northern ireland", "GBR"),
    ("united kingdom of great britain and northern ireland", "GBR"),
    ("usa", "USA"),
    ("u.s.a.", "USA"),
    ("united states of america", "USA"),
    ("america", "USA"),
    ("russia", "RUS"),
    ("korea", "KOR"),
    ("republic of korea", "KOR"),
    ("czech republic", "CZE"),
    ("holland", "NLD"),
    ("the netherlands", "NLD"),
    ("turkey", "TUR"),
    ("ivory coast", "CIV"),
    ("macedonia", "MKD"),
    ("deutschland", "DEU"),
    ("españa", "ESP"),
    ("schweiz", "CHE"),
    ("suisse", "CHE"),
    ("österreich", "AUT"),
    ("nederland", "NLD"),
    ("belgië", "BEL"),
    ("belgique", "BEL"),
    ("italia", "ITA"),
    ("polska", "POL"),
    ("danmark", "DNK"),
    ("sverige", "SWE"),
    ("norge", "NOR"),
    ("suomi", "FIN"),
    ("u.k.", "GBR"),
    ("united states", "USA"),
    ("u.s.", "USA"),
    ("espana", "ESP"),
    ("espanha", "ESP"),
    ("espagne", "ESP"),
    ("spanien", "ESP"),
    ("spagna", "ESP"),
    ("hiszpania", "ESP"),
    ("allemagne", "DEU"),
    ("germania", "DEU"),
    ("alemania", "DEU"),
    ("alemanha", "DEU"),
    ("niemcy", "DEU"),
    ("duitsland", "DEU"),
    ("frankreich", "FRA"),
    ("francia", "FRA"),
    ("frança", "FRA"),
    ("francja", "FRA"),
    ("frankrijk", "FRA"),
    ("italien", "ITA"),
    ("italie", "ITA"),
    ("włochy", "ITA"),
    ("italië", "ITA"),
    ("polen", "POL"),
    ("pologne", "POL"),
    ("polonia", "POL"),
    ("polónia", "POL"),
    ("portugalia", "PRT"),
    ("niederlande", "NLD"),
    ("pays-bas", "NLD"),
    ("países bajos", "NLD"),
    ("paesi bassi", "NLD"),
    ("holandia", "NLD"),
    ("belgien", "BEL"),
    ("bélgica", "BEL"),
    ("belgio", "BEL"),
    ("belgia", "BEL"),
    ("autriche", "AUT"),
    ("austria", "AUT"),
    ("svizzera", "CHE"),
    ("suiza", "CHE"),
    ("szwajcaria", "CHE"),
    ("irlande", "IRL"),
    ("irland", "IRL"),
    ("irlanda", "IRL"),
    ("éire", "IRL"),
    ("royaume-uni", "GBR"),
    ("vereinigtes königreich", "GBR"),
    ("reino unido", "GBR"),
    ("regno unito", "GBR"),
    ("wielka brytania", "GBR"),
    ("verenigd koninkrijk", "GBR"),
    ("grande-bretagne", "GBR"),
    ("großbritannien", "GBR"),
    ("bharat", "IND"),
    ("indien", "IND"),
    ("inde", "IND"),
    ("australien", "AUS"),
    ("australie", "AUS"),
    ("česko", "CZE"),
    ("czechia", "CZE"),
    ("hrvatska", "HRV"),
    ("magyarország", "HUN"),
    ("românia", "ROU"),
    ("ελλάδα", "GRC"),
    ("danemark", "DNK"),
    ("dänemark", "DNK"),
    ("schweden", "SWE"),
    ("suède", "SWE"),
    ("suecia", "SWE"),
];

/// The other names people type for a country (`ALSO_CALLED`), lower case, for completion.
pub fn also_called(alpha3: &str) -> Vec<&'static str> {
    ALSO_CALLED
        .iter()
        .filter(|(_, a3)| *a3 == alpha3)
        .map(|(name, _)| *name)
        .collect()
}

/// Every country, by English name.
pub fn all() -> Vec<Country> {
    let mut v: Vec<Country> = table().values().copied().collect();
    v.sort_by_key(|c| c.name);
    v
}

/// The country a person typed: ISO alpha-3 (`ESP`), alpha-2 (`ES`) or its name (`Spain`,
/// `United Kingdom`, `UK`), in any case.
pub fn find(typed: &str) -> Option<Country> {
    let t = typed.trim();
    if t.is_empty() {
        return None;
    }
    let upper = t.to_uppercase();
    if let Some(c) = country(&upper) {
        return Some(c);
    }
    let lower = t.to_lowercase();
    table()
        .values()
        .find(|c| c.alpha2 == upper || c.name.to_lowercase() == lower)
        .copied()
        .or_else(|| {
            ALSO_CALLED
                .iter()
                .find(|(name, _)| *name == lower)
                .and_then(|(_, a3)| country(a3))
        })
}

#[cfg(test)]
mod find_tests {
    use super::*;

    #[test]
    fn a_country_is_found_by_alpha3_alpha2_or_name_in_any_case() {
        for typed in ["ESP", "es", "Spain", "SPAIN", " spain "] {
            assert_eq!(find(typed).map(|c| c.alpha3), Some("ESP"), "{typed}");
        }
        for typed in ["GBR", "GB", "United Kingdom", "UK", "England"] {
            assert_eq!(find(typed).map(|c| c.alpha3), Some("GBR"), "{typed}");
        }
        assert_eq!(find("Deutschland").map(|c| c.alpha3), Some("DEU"));
        for (typed, alpha3) in [
            ("España", "ESP"),
            ("Great Britain", "GBR"),
            ("Polska", "POL"),
            ("Niemcy", "DEU"),
        ] {
            assert_eq!(find(typed).map(|c| c.alpha3), Some(alpha3), "{typed}");
        }
        // Every other name names a country of the list.
        for (name, alpha3) in ALSO_CALLED {
            assert!(country(alpha3).is_some(), "{name} names {alpha3}, not a country");
            assert_eq!(name.to_lowercase(), *name, "{name} is written lower case");
        }
        assert_eq!(find("Türkiye").map(|c| c.alpha3), Some("TUR"));
        assert!(find("Atlantis").is_none());
        assert!(find("").is_none());
    }
}
