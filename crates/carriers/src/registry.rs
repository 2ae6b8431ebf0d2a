//! The carrier registry: `data/carriers.json`, compiled into the binary.

use packdesk_model::request::{FileType, PaperSize};
use packdesk_model::said::{args, Saying};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Registry {
    pub about: String,
    pub carriers: Vec<Carrier>,
}

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CredentialField {
    pub name: String,
    pub label: String,
    pub required: bool,
}

/// Countries a carrier ships from or to: `"any"` or a list of alpha-3 codes. Any other word is
/// refused when the registry is read (a typo must not mean "everywhere").
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Countries {
    Any(Everywhere),
    List(Vec<String>),
}

/// The one word that means every country.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Everywhere {
    Any,
}

impl Countries {
    pub fn allows(&self, alpha3: &str) -> bool {
        match self {
            Countries::Any(_) => true,
            Countries::List(l) => l.iter().any(|c| c == alpha3),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Countries::Any(_) => "any".into(),
            Countries::List(l) => l.join(", "),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ServiceTypeDef {
    pub code: String,
    pub service_type: String,
    pub name: String,
    /// The routes the service runs on.
    pub scope: Scope,
}

/// Where a service goes: within one country, across a border, or both.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Domestic,
    International,
    Any,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Domestic => "domestic",
            Scope::International => "international",
            Scope::Any => "any",
        }
    }
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ServiceTypeDef {
    pub fn serves(&self, domestic: bool) -> bool {
        match self.scope {
            Scope::Domestic => domestic,
            Scope::International => !domestic,
            Scope::Any => true,
        }
    }
}

/// How a tracking number is built from a serial number.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Scheme {
    /// UPU S10: 2 letters, 8-digit serial, check digit, ISO alpha-2 country.
    S10 { service_indicator: String, country: String },
    /// `length` digits: a fixed prefix, the serial, then a GS1 mod-10 check digit.
    NumericMod10 {
        length: u32,
        #[serde(default)]
        prefix: String,
    },
    /// `length` digits: a fixed prefix, the serial, then a mod-11 (weights 2..7) check digit.
    NumericMod11 {
        length: u32,
        #[serde(default)]
        prefix: String,
    },
}

/// A source of tracking numbers of a carrier. Most carriers have one pool, `default`; some keep
/// separate ranges (Dotzot: cash on delivery and prepaid).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TrackingPool {
    pub name: String,
    /// Which shipments draw from it: `cod`, `ship_to:XXX` or `otherwise`.
    pub when: String,
    pub scheme: Scheme,
    pub pattern: Option<String>,
    pub label: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Carrier {
    pub group: u32,
    pub slug: String,
    pub name: String,
    pub identified: bool,
    pub ship_from: Countries,
    pub ship_to: Countries,
    pub credential_fields: Vec<CredentialField>,
    pub address_max_lengths: std::collections::BTreeMap<String, usize>,
    pub return_shipment: bool,
    /// How many parcels the real carrier puts under one shipment's label: 1 where each parcel is
    /// a shipment of its own (DHL Paket, Whistl, UPS Mail Innovations, Asendia, Yamato), so the
    /// desk makes a label per box of an order. The /v3 interface still takes 1..50 parcels of
    /// every group, as its contract says.
    pub parcels_per_label: u32,
    pub service_types: Vec<ServiceTypeDef>,
    pub paper_sizes: Vec<String>,
    /// `None`: the group does not accept `file_type` at all (labels are PDF).
    pub file_types: Option<Vec<String>>,
    pub service_options: Vec<String>,
    pub optional_fields: Vec<String>,
    pub default_paper_size: String,
    pub currency: String,
    pub tracking_pools: Vec<TrackingPool>,
}

/// Which part of a route a carrier's service cannot take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteFault {
    /// The carrier does not collect in the sender's country.
    ShipFrom,
    /// The carrier does not deliver to the recipient's country.
    ShipTo,
    /// The service is domestic and the route crosses a border, or the other way round.
    Service,
}

/// Why a carrier's service cannot carry a parcel: which end is at fault, and the saying of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteRefusal {
    pub fault: RouteFault,
    pub saying: Saying,
    pub args: std::collections::BTreeMap<String, String>,
}

impl RouteRefusal {
    /// The refusal in the service's English words.
    pub fn words(&self) -> String {
        self.saying.english_with(&self.args)
    }
}

impl Carrier {
    /// Why this carrier's service (`service_type`, e.g. `yodel_std`) cannot carry a parcel from
    /// `from` to `to` (alpha-3), in words; `None` when it can (an unknown service is another
    /// check's business). One rule for the label check, the rate quote and an order's preset.
    pub fn route_refusal(&self, service_type: &str, from: &str, to: &str) -> Option<RouteRefusal> {
        let refusal = |fault, saying, args| Some(RouteRefusal { fault, saying, args });
        if !self.ship_from.allows(from) {
            let only = self.ship_from.describe();
            return refusal(
                RouteFault::ShipFrom,
                Saying::ShipsFromOnly,
                args([("carrier", &self.name), ("only", &only), ("from", &from)]),
            );
        }
        if !self.ship_to.allows(to) {
            let only = self.ship_to.describe();
            return refusal(
                RouteFault::ShipTo,
                Saying::ShipsToOnly,
                args([("carrier", &self.name), ("only", &only), ("to", &to)]),
            );
        }
        let service = self.service(service_type)?;
        let saying = match service.scope {
            Scope::Domestic => Saying::DomesticOnly,
            Scope::International => Saying::AbroadOnly,
            Scope::Any => return None,
        };
        if service.serves(from == to) {
            return None;
        }
        refusal(
            RouteFault::Service,
            saying,
            args([("service", &service.name), ("from", &from), ("to", &to)]),
        )
    }

    pub fn allows_paper(&self, p: PaperSize) -> bool {
        self.paper_sizes.iter().any(|s| s == p.as_str())
    }

    pub fn allows_file_type(&self, f: FileType) -> bool {
        self.file_types
            .as_ref()
            .is_some_and(|l| l.iter().any(|s| s == f.as_str()))
    }

    pub fn allows_option_variant(&self, variant: &str) -> bool {
        self.service_options.iter().any(|s| s == variant)
    }

    pub fn allows_field(&self, field: &str) -> bool {
        self.optional_fields.iter().any(|s| s == field)
    }

    /// The real stock behind `default` (or the size asked, when it is a real size).
    pub fn resolve_paper(&self, p: PaperSize) -> PaperSize {
        match p {
            PaperSize::Default => PaperSize::parse(&self.default_paper_size).unwrap_or(PaperSize::In4x6),
            other => other,
        }
    }

    pub fn service(&self, service_type: &str) -> Option<&ServiceTypeDef> {
        self.service_types.iter().find(|s| s.service_type == service_type)
    }

    pub fn pool(&self, name: &str) -> Option<&TrackingPool> {
        self.tracking_pools.iter().find(|p| p.name == name)
    }

    /// The pool a shipment draws its tracking numbers from.
    pub fn pool_for(&self, cod: bool, ship_to: &str) -> &TrackingPool {
        self.tracking_pools
            .iter()
            .find(|p| match p.when.as_str() {
                "cod" => cod,
                w => w.strip_prefix("ship_to:").is_some_and(|c| c == ship_to),
            })
            .or_else(|| self.tracking_pools.iter().find(|p| p.when == "otherwise"))
            .unwrap_or(&self.tracking_pools[0])
    }

    pub fn max_len(&self, field: &str) -> Option<usize> {
        self.address_max_lengths.get(field).copied()
    }
}

pub fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        serde_json::from_str(include_str!("../data/carriers.json"))
            .expect("data/carriers.json is compiled in and checked by the tests")
    })
}

pub fn carrier(slug: &str) -> Option<&'static Carrier> {
    registry().carriers.iter().find(|c| c.slug == slug)
}

/// Finds the carrier and service of a full service type (`<slug>_<code>`).
pub fn service_type(service_type: &str) -> Option<(&'static Carrier, &'static ServiceTypeDef)> {
    registry()
        .carriers
        .iter()
        .find_map(|c| c.service(service_type).map(|s| (c, s)))
}

/// The carrier's name of a service (`UK Express 24`), or the service type itself when the
/// carrier or the service is unknown (a record older than the registry).
pub fn service_name(slug: &str, service_type: &str) -> String {
    carrier(slug)
        .and_then(|c| c.service(service_type))
        .map_or_else(|| service_type.to_string(), |s| s.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_has_twenty_groups_with_consistent_service_types() {
        let r = registry();
        assert_eq!(r.carriers.len(), 20);
        for (i, c) in r.carriers.iter().enumerate() {
            assert_eq!(c.group as usize, i + 1);
            assert!(!c.service_types.is_empty(), "{}", c.slug);
            assert!(!c.tracking_pools.is_empty(), "{}", c.slug);
            assert!((1..=50).contains(&c.parcels_per_label), "{}", c.slug);
            assert!(c.paper_sizes.iter().any(|p| p == "default"), "{}", c.slug);
            assert!(PaperSize::parse(&c.default_paper_size).is_some(), "{}", c.slug);
            for s in &c.service_types {
                assert_eq!(s.service_type, format!("{}_{}", c.slug, s.code));
                assert!(!s.name.is_empty());
            }
        }
    }

    #[test]
    fn a_typo_in_the_registry_fails_loading_instead_of_meaning_everywhere() {
        let text = include_str!("../data/carriers.json");
        let typo = |from: &str, to: &str| {
            assert!(text.contains(from), "{from}");
            serde_json::from_str::<Registry>(&text.replacen(from, to, 1))
        };
        assert!(typo("\"ship_to\": \"any\"", "\"ship_to\": \"anywhere\"").is_err());
        assert!(typo("\"scope\": \"domestic\"", "\"scope\": \"domestc\"").is_err());
        assert!(typo("\"scope\": \"any\"", "\"scope\": \"Any\"").is_err());
        assert!(typo("\"parcels_per_label\": 1,", "\"parcels_per_labels\": 1,").is_err());
        assert!(serde_json::from_str::<Registry>(text).is_ok());
    }

    #[test]
    fn groups_match_the_spec_table_for_file_types_and_options() {
        // Groups 3 and 18 list no file_type; 7, 12 and 16 accept zpl.
        let zpl: Vec<u32> = registry()
            .carriers
            .iter()
            .filter(|c| c.allows_file_type(FileType::Zpl))
            .map(|c| c.group)
            .collect();
        assert_eq!(zpl, vec![7, 12, 16]);
        assert!(carrier("apc-overnight").unwrap().file_types.is_none());
        assert!(carrier("dpd-uk").unwrap().file_types.is_none());
        assert_eq!(carrier("dpd-uk").unwrap().service_options, vec!["insurance", "pickup"]);
        let (c, s) = service_type("tipsa_10_horas").unwrap();
        assert_eq!((c.group, s.code.as_str()), (16, "10_horas"));
    }

    #[test]
    fn dotzot_draws_cod_and_prepaid_from_separate_pools() {
        let d = carrier("dotzot").unwrap();
        assert_eq!(d.pool_for(true, "IND").name, "cod");
        assert_eq!(d.pool_for(false, "IND").name, "prepaid");
        let a = carrier("asendia-hk").unwrap();
        assert_eq!(a.pool_for(false, "CHE").name, "switzerland");
        assert_eq!(a.pool_for(false, "USA").name, "international");
    }
}
