//! Rate cards: one JSON file per carrier in `data/rate-cards/`, sample tariffs that a user replaces
//! with contract prices. Labels and rates both price from here.

use crate::countries::country;
use crate::registry::{Carrier, ServiceTypeDef};
use packdesk_model::request::ServiceOption;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

#[derive(Debug, Clone, Deserialize)]
pub struct Band {
    pub max_kg: f64,
    pub domestic: f64,
    pub region: f64,
    pub world: f64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ZonePrices {
    pub domestic: f64,
    pub region: f64,
    pub world: f64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ServiceTariff {
    pub multiplier: f64,
    pub transit_days: BTreeMap<String, u32>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct OptionTariff {
    #[serde(default)]
    pub percent: Option<f64>,
    #[serde(default)]
    pub minimum: Option<f64>,
    #[serde(default)]
    pub flat: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RateCard {
    pub about: String,
    pub slug: String,
    pub currency: String,
    /// cm³ per kg for volumetric weight; `None`: the carrier charges actual weight only.
    pub volumetric_divisor: Option<f64>,
    pub fuel_surcharge_percent: f64,
    pub bands: Vec<Band>,
    pub per_kg_over_last_band: ZonePrices,
    pub services: BTreeMap<String, ServiceTariff>,
    pub options: BTreeMap<String, OptionTariff>,
}

macro_rules! cards {
    ($($slug:literal),* $(,)?) => {
        &[$(($slug, include_str!(concat!("../data/rate-cards/", $slug, ".json")))),*]
    };
}

const CARD_FILES: &[(&str, &str)] = cards!(
    "bluedart",
    "dhl-germany",
    "apc-overnight",
    "carrier-4",
    "delhivery",
    "quantium",
    "spain-correos-es",
    "whistl",
    "omniparcel",
    "carrier-10",
    "yodel",
    "carrier-12",
    "dotzot",
    "skynetworldwide",
    "asendia-hk",
    "tipsa",
    "ups-mi",
    "dpd-uk",
    "taqbin-jp",
    "mondialrelay",
);

pub fn rate_card(slug: &str) -> Option<&'static RateCard> {
    static CARDS: OnceLock<BTreeMap<&'static str, RateCard>> = OnceLock::new();
    CARDS
        .get_or_init(|| {
            CARD_FILES
                .iter()
                .map(|(slug, text)| {
                    let card: RateCard = serde_json::from_str(text)
                        .unwrap_or_else(|e| panic!("rate card {slug} is compiled in and tested: {e}"));
                    (*slug, card)
                })
                .collect()
        })
        .get(slug)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zone {
    Domestic,
    Region,
    World,
}

impl Zone {
    pub fn name(self) -> &'static str {
        match self {
            Zone::Domestic => "domestic",
            Zone::Region => "region",
            Zone::World => "world",
        }
    }
}

/// Domestic within one country, region within one continent, world otherwise.
pub fn zone(from: &str, to: &str) -> Zone {
    if from == to {
        return Zone::Domestic;
    }
    match (country(from), country(to)) {
        (Some(a), Some(b)) if a.continent == b.continent => Zone::Region,
        _ => Zone::World,
    }
}

/// A parcel as the tariff sees it.
#[derive(Debug, Clone, Copy)]
pub struct ParcelMeasure {
    pub kg: f64,
    pub volume_cm3: Option<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    pub currency: String,
    pub charge_weight_kg: f64,
    pub total: f64,
    /// (type, amount), in the order they add up.
    pub charges: Vec<(String, f64)>,
    pub transit_days: u32,
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn by_zone(z: Zone, d: f64, r: f64, w: f64) -> f64 {
    match z {
        Zone::Domestic => d,
        Zone::Region => r,
        Zone::World => w,
    }
}

/// Prices one service for a shipment. `Err` says why the service does not serve it.
pub fn quote(
    carrier: &Carrier,
    service: &ServiceTypeDef,
    from: &str,
    to: &str,
    parcels: &[ParcelMeasure],
    options: &[ServiceOption],
) -> Result<Quote, String> {
    let card = rate_card(&carrier.slug).ok_or_else(|| format!("no rate card for {}", carrier.slug))?;
    let tariff = card
        .services
        .get(&service.code)
        .ok_or_else(|| format!("the rate card of {} has no price for {}", carrier.slug, service.code))?;
    if let Some(refusal) = carrier.route_refusal(&service.service_type, from, to) {
        return Err(refusal.words());
    }
    let z = zone(from, to);
    let mut base = 0.0;
    let mut charge_weight = 0.0;
    for p in parcels {
        // Volumetric weight counts where the carrier charges it and it is the larger.
        let vol_kg = match (card.volumetric_divisor, p.volume_cm3) {
            (Some(div), Some(v)) if div > 0.0 => v / div,
            _ => 0.0,
        };
        let kg = p.kg.max(vol_kg);
        charge_weight += kg;
        let price = match card.bands.iter().find(|b| kg <= b.max_kg) {
            Some(b) => by_zone(z, b.domestic, b.region, b.world),
            None => {
                let last = card.bands.last().ok_or("rate card has no weight bands")?;
                let over = (kg - last.max_kg).ceil();
                let o = &card.per_kg_over_last_band;
                by_zone(z, last.domestic, last.region, last.world) + over * by_zone(z, o.domestic, o.region, o.world)
            }
        };
        base += price * tariff.multiplier;
    }
    let base = round2(base);
    let mut charges = vec![("base".to_string(), base)];
    let fuel = round2(base * card.fuel_surcharge_percent / 100.0);
    charges.push(("fuel_surcharge".to_string(), fuel));
    for opt in options {
        let Some(t) = card.options.get(&opt.option_type) else {
            continue;
        };
        if opt.enabled == Some(false) {
            continue;
        }
        let value = opt
            .cod_value
            .as_ref()
            .or(opt.insured_value.as_ref())
            .map(|m| m.amount)
            .unwrap_or(0.0);
        let amount = t.flat.unwrap_or(0.0) + t.percent.map(|p| value * p / 100.0).unwrap_or(0.0);
        let amount = round2(amount.max(t.minimum.unwrap_or(0.0)));
        charges.push((opt.option_type.clone(), amount));
    }
    let total = round2(charges.iter().map(|(_, a)| a).sum());
    let transit_days = tariff.transit_days.get(z.name()).copied().unwrap_or(5);
    Ok(Quote {
        currency: card.currency.clone(),
        charge_weight_kg: round2(charge_weight * 1000.0) / 1000.0,
        total,
        charges,
        transit_days,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{carrier, registry};

    #[test]
    fn every_carrier_has_a_card_pricing_every_service() {
        for c in &registry().carriers {
            let card = rate_card(&c.slug).expect(&c.slug);
            assert_eq!(card.slug, c.slug);
            assert_eq!(card.currency, c.currency);
            for s in &c.service_types {
                assert!(card.services.contains_key(&s.code), "{} {}", c.slug, s.code);
            }
        }
    }

    #[test]
    fn heavier_and_farther_costs_more_and_volume_counts_where_the_carrier_charges_it() {
        let c = carrier("yodel").unwrap();
        let s = c.service("yodel_std").unwrap();
        let p = |kg| [ParcelMeasure { kg, volume_cm3: None }];
        let light = quote(c, s, "GBR", "GBR", &p(0.4), &[]).unwrap();
        let heavy = quote(c, s, "GBR", "GBR", &p(4.0), &[]).unwrap();
        // Farther costs more: an international Yodel service to Ireland and to Australia.
        let abroad = c.service("yodel_1eb").unwrap();
        let near = quote(c, abroad, "GBR", "IRL", &p(0.4), &[]).unwrap();
        let far = quote(c, abroad, "GBR", "AUS", &p(0.4), &[]).unwrap();
        assert!(heavy.total > light.total && far.total > near.total);
        assert_eq!(light.charges[0].0, "base");
        let total: f64 = light.charges.iter().map(|c| c.1).sum();
        assert!((total - light.total).abs() < 0.011);
        // A big light box: 40x40x40 cm = 64,000 cm³ -> 10.7 or 12.8 kg volumetric.
        let bulky = quote(
            c,
            s,
            "GBR",
            "GBR",
            &[ParcelMeasure {
                kg: 0.4,
                volume_cm3: Some(64000.0),
            }],
            &[],
        )
        .unwrap();
        let card = rate_card("yodel").unwrap();
        assert!(card.volumetric_divisor.is_some());
        assert!(bulky.charge_weight_kg > 10.0 && bulky.total > light.total);
        let correos = carrier("spain-correos-es").unwrap();
        let cs = &correos.service_types[0];
        let q = quote(
            correos,
            cs,
            "ESP",
            "ESP",
            &[ParcelMeasure {
                kg: 0.4,
                volume_cm3: Some(64000.0),
            }],
            &[],
        )
        .unwrap();
        assert_eq!(q.charge_weight_kg, 0.4);
    }

    #[test]
    fn routes_outside_a_service_or_carrier_are_refused() {
        let d = carrier("delhivery").unwrap();
        let s = &d.service_types[0];
        let p = [ParcelMeasure {
            kg: 1.0,
            volume_cm3: None,
        }];
        assert!(quote(d, s, "IND", "IND", &p, &[]).is_ok());
        assert!(quote(d, s, "IND", "USA", &p, &[]).is_err());
        assert!(quote(d, s, "USA", "IND", &p, &[]).is_err());
        let sky = carrier("skynetworldwide").unwrap();
        let dom = sky.service("skynetworldwide_domestic_next_day").unwrap();
        assert!(quote(sky, dom, "USA", "GBR", &p, &[]).is_err());
    }
}
