//! Presets and rules. A preset is what a form would hold (account, service, paper, parcel); the
//! rules choose one per order, first match wins, else the default preset. The rules of each
//! environment are kept in the store's `meta` table.

use crate::keys::Env;
use crate::Service;
use packdesk_carriers::carrier;
use packdesk_model::error::Problems;
use packdesk_model::order::Order;
use packdesk_model::preset::{Preset, PresetList, PresetRequest, Rule, Rules};
use packdesk_model::record::Deleted;
use packdesk_model::request::{Weight, WeightUnit};
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::presets as table;
use packdesk_store::presets::PresetRow;

const MAX_RULES: usize = 200;

fn rules_key(env: Env) -> String {
    format!("rules.{}", env.as_str())
}

fn not_found(id: &str) -> ServiceError {
    ServiceError::at(ErrorCode::ItemNotFound, "id", format!("no preset {id}"))
}

/// The weight of an order: its own, else its parcels', else its items' (quantity times weight).
pub fn order_weight(o: &Order) -> Option<Weight> {
    if let Some(w) = o.weight {
        return Some(w);
    }
    if let Some(ps) = o.parcels.as_ref().filter(|p| !p.is_empty()) {
        let kg = ps.iter().map(|p| p.weight.kg()).sum();
        return Some(Weight {
            value: kg,
            unit: WeightUnit::Kg,
        });
    }
    let weighed: Vec<_> = o
        .items
        .iter()
        .filter_map(|i| i.weight.map(|w| w.kg() * i.quantity as f64))
        .collect();
    match weighed.len() == o.items.len() && !weighed.is_empty() {
        true => Some(Weight {
            value: weighed.iter().sum(),
            unit: WeightUnit::Kg,
        }),
        false => None,
    }
}

/// What a parcel of the order weighs packed: the order's own weight or its parcels' (weighed
/// already), else its items' weights times quantities plus the box's `tare` (the preset's).
pub fn packed_weight(o: &Order, tare: Option<Weight>) -> Option<Weight> {
    let w = order_weight(o)?;
    let by_items = o.weight.is_none() && o.parcels.as_ref().is_none_or(|p| p.is_empty());
    match (by_items, tare) {
        (true, Some(t)) => Weight::total(&[w, t]),
        _ => Some(w),
    }
}

/// Does the rule hold for the order? `from_country`: the preset's ship-from country (for
/// `domestic`), when known; `tare`: the preset's box (a weight condition weighs the order as it
/// would ship with it).
fn matches(rule: &Rule, o: &Order, from_country: Option<&str>, tare: Option<Weight>) -> bool {
    let w = &rule.when;
    let to = o.ship_to.country.as_deref().unwrap_or("");
    if w.ship_to_country.as_deref().is_some_and(|c| c != to) {
        return false;
    }
    if let Some(domestic) = w.domestic {
        match from_country {
            Some(from) if (from == to) != domestic => return false,
            None => return false,
            _ => {}
        }
    }
    if w.weight_min.is_some() || w.weight_max.is_some() {
        let Some(kg) = packed_weight(o, tare).map(|w| w.kg()) else {
            return false;
        };
        let unit = w.weight_unit.unwrap_or(WeightUnit::Kg);
        if w.weight_min.is_some_and(|m| kg < unit.to_kg(m)) || w.weight_max.is_some_and(|m| kg > unit.to_kg(m)) {
            return false;
        }
    }
    if let Some(tag) = &w.tag {
        if !o.tags.iter().any(|t| t.eq_ignore_ascii_case(tag)) {
            return false;
        }
    }
    let count: i64 = o.items.iter().map(|i| i.quantity).sum();
    !(w.items_min.is_some_and(|m| count < m) || w.items_max.is_some_and(|m| count > m))
}

/// A preset by id or name.
pub fn find<'a>(presets: &'a [Preset], id_or_name: &str) -> Option<&'a Preset> {
    presets
        .iter()
        .find(|p| p.id == id_or_name)
        .or_else(|| presets.iter().find(|p| p.name == id_or_name))
}

/// Why an order ships with its preset: shipping names it when the preset cannot carry the order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChosenBy {
    /// The operator (or the caller) named it for this shipment.
    Asked,
    /// The order names it.
    Order,
    /// The first rule that matched, by its name.
    Rule(String),
    /// The desk's default preset.
    Default,
}

impl std::fmt::Display for ChosenBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChosenBy::Asked => f.write_str("chosen for this shipment"),
            ChosenBy::Order => f.write_str("named by the order"),
            ChosenBy::Rule(name) => write!(f, "chosen by rule “{name}”"),
            ChosenBy::Default => f.write_str("the default preset"),
        }
    }
}

/// The preset an order ships with, and why: the one it names, else the first rule that
/// matches, else the default preset.
pub fn resolve<'a>(presets: &'a [Preset], rules: &Rules, o: &Order) -> Option<(&'a Preset, ChosenBy)> {
    if let Some(name) = o.preset.as_deref() {
        // A preset the order names and the desk lacks resolves to none (shipping says why).
        return find(presets, name).map(|p| (p, ChosenBy::Order));
    }
    for rule in &rules.rules {
        let Some(p) = find(presets, &rule.preset) else { continue };
        let from = p.ship_from.as_ref().and_then(|a| a.country.as_deref());
        let tare = p.parcel.as_ref().and_then(|t| t.tare);
        if matches(rule, o, from, tare) {
            return Some((p, ChosenBy::Rule(rule.name.clone())));
        }
    }
    presets.iter().find(|p| p.is_default).map(|p| (p, ChosenBy::Default))
}

impl Service {
    pub fn list_presets(&self, env: Env) -> Result<PresetList, ServiceError> {
        let rows = self.store.read(|c| table::list(c, env))?;
        Ok(PresetList {
            presets: rows.iter().map(preset_record).collect::<Result<_, _>>()?,
        })
    }

    pub fn get_preset(&self, env: Env, id: &str) -> Result<Preset, ServiceError> {
        let row = self
            .store
            .read(|c| table::get(c, env, id))?
            .ok_or_else(|| not_found(id))?;
        preset_record(&row)
    }

    pub fn create_preset(&self, env: Env, req: PresetRequest) -> Result<Preset, ServiceError> {
        self.save_preset(env, None, req)
    }

    pub fn update_preset(&self, env: Env, id: &str, req: PresetRequest) -> Result<Preset, ServiceError> {
        self.get_preset(env, id)?;
        self.save_preset(env, Some(id), req)
    }

    /// Deletes a preset no rule uses.
    pub fn delete_preset(&self, env: Env, id: &str) -> Result<Deleted, ServiceError> {
        let preset = self.get_preset(env, id)?;
        let rules = self.rules(env)?;
        if let Some(r) = rules
            .rules
            .iter()
            .find(|r| r.preset == preset.id || r.preset == preset.name)
        {
            return Err(ServiceError::at(
                ErrorCode::OperationNotAllowed,
                "id",
                format!(
                    "rule `{}` ships with preset `{}`; change the rule first",
                    r.name, preset.name
                ),
            ));
        }
        self.store.write(|tx| table::delete(tx, env, id))?;
        Ok(Deleted { id: id.into() })
    }

    fn save_preset(&self, env: Env, id: Option<&str>, mut req: PresetRequest) -> Result<Preset, ServiceError> {
        req.name = req.name.trim().to_string();
        let mut p = Problems::default();
        if req.name.is_empty() || req.name.chars().count() > 64 {
            p.invalid("name", "1 to 64 characters");
        }
        match self.account_row(env, &req.shipper_account.id, "shipper_account.id") {
            Err(e) => return Err(e),
            Ok(account) => {
                let c =
                    carrier(&account.slug).ok_or_else(|| ServiceError::internal("account of an unknown carrier"))?;
                if c.service(&req.service_type).is_none() {
                    let names: Vec<&str> = c.service_types.iter().map(|s| s.service_type.as_str()).collect();
                    p.invalid(
                        "service_type",
                        format!(
                            "`{}` is not a service of {}; one of: {}",
                            req.service_type,
                            c.name,
                            names.join(", ")
                        ),
                    );
                }
                if let Some(ps) = req.paper_size.filter(|ps| !c.allows_paper(*ps)) {
                    p.invalid("paper_size", format!("{} does not print {}", c.name, ps.as_str()));
                }
                if let Some(f) = req.file_type.filter(|f| !c.allows_file_type(*f)) {
                    p.invalid("file_type", format!("{} does not make {} labels", c.name, f.as_str()));
                }
                // A return label in every box the carrier could never make: refused now, not at
                // each order's label.
                if req.return_label.is_some() && !c.return_shipment {
                    p.say(
                        ErrorCode::InvalidRequest,
                        "return_label",
                        packdesk_model::said::Saying::NoReturnShipments,
                        packdesk_model::said::args([("carrier", &c.name)]),
                    );
                }
                if req.ship_from.is_none() && account.address.is_none() {
                    p.invalid(
                        "ship_from",
                        "the shipper account has no address: give the preset a ship_from",
                    );
                }
            }
        }
        if let Some(a) = req.ship_from.as_mut() {
            crate::validate::normalize_country(&mut p, "ship_from.country", &mut a.country);
            crate::validate::check_address(&mut p, "ship_from", a, None, true);
            p.keep_first_at("ship_from.country");
        }
        if let Some(w) = req.parcel.as_ref().and_then(|t| t.weight) {
            if !w.is_labellable() {
                p.invalid(
                    "parcel.weight.value",
                    format!("more than 0 and at most {} {}", w.unit.max(), w.unit.as_str()),
                );
            }
        }
        if let Some(t) = req.parcel.as_ref().and_then(|t| t.tare) {
            if !(t.value >= 0.0 && t.value <= t.unit.max()) {
                p.invalid(
                    "parcel.tare.value",
                    format!("must be 0 to {} {}", t.unit.max(), t.unit.as_str()),
                );
            }
        }
        p.into_result()?;
        let now = self.now_us();
        let now_iso = crate::clock::iso_micros(now);
        let old = id.map(|id| self.get_preset(env, id)).transpose()?;
        let preset = Preset {
            id: id
                .map(str::to_string)
                .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
            name: req.name,
            shipper_account: req.shipper_account,
            service_type: req.service_type,
            paper_size: req.paper_size,
            file_type: req.file_type,
            service_options: req.service_options,
            parcel: req.parcel,
            ship_from: req.ship_from,
            is_default: req.is_default,
            customs: req.customs,
            return_label: req.return_label,
            created_at: old
                .as_ref()
                .map(|o| o.created_at.clone())
                .unwrap_or_else(|| now_iso.clone()),
            updated_at: now_iso,
        };
        let row = PresetRow {
            id: preset.id.clone(),
            env,
            name: preset.name.clone(),
            record: serde_json::to_string(&preset).map_err(ServiceError::internal)?,
            created_at: now,
        };
        self.store.write(|tx| {
            // One default per environment: a new default takes the mark from the old one.
            if preset.is_default {
                for other in table::list(tx, env)? {
                    let mut o = preset_record(&other)?;
                    if o.id != preset.id && o.is_default {
                        o.is_default = false;
                        let record = serde_json::to_string(&o).map_err(ServiceError::internal)?;
                        table::put(tx, &PresetRow { record, ..other })?;
                    }
                }
            }
            if !table::put(tx, &row)? {
                return Err(ServiceError::invalid(
                    "name",
                    format!("another preset is named `{}`", preset.name),
                ));
            }
            Ok(())
        })?;
        Ok(preset)
    }

    pub fn rules(&self, env: Env) -> Result<Rules, ServiceError> {
        let json = self.store.read(|c| packdesk_store::meta::get(c, &rules_key(env)))?;
        match json {
            None => Ok(Rules::default()),
            Some(j) => serde_json::from_str(&j).map_err(ServiceError::internal),
        }
    }

    /// Replaces the rules (an empty list: every order takes its own or the default preset).
    pub fn set_rules(&self, env: Env, mut rules: Rules) -> Result<Rules, ServiceError> {
        let presets = self.list_presets(env)?.presets;
        let mut p = Problems::default();
        if rules.rules.len() > MAX_RULES {
            p.invalid("rules", format!("{} rules; at most {MAX_RULES}", rules.rules.len()));
        }
        let mut names = std::collections::HashMap::new();
        for (i, r) in rules.rules.iter_mut().enumerate() {
            let path = format!("rules[{i}]");
            r.name = r.name.trim().to_string();
            if r.name.is_empty() {
                p.invalid(format!("{path}.name"), "is required");
            } else if let Some(first) = names.insert(r.name.clone(), i) {
                p.invalid(format!("{path}.name"), format!("`{}` is also rules[{first}]", r.name));
            }
            if find(&presets, &r.preset).is_none() {
                p.invalid(format!("{path}.preset"), format!("no preset `{}`", r.preset));
            }
            let w = &mut r.when;
            if let Some(c) = w.ship_to_country.clone() {
                match packdesk_carriers::countries::find(&c) {
                    Some(found) => w.ship_to_country = Some(found.alpha3.to_string()),
                    None => p.invalid(
                        format!("{path}.when.ship_to_country"),
                        format!("`{c}` is not a country"),
                    ),
                }
            }
            for (field, v) in [("weight_min", w.weight_min), ("weight_max", w.weight_max)] {
                if v.is_some_and(|v| !v.is_finite() || v < 0.0) {
                    p.invalid(format!("{path}.when.{field}"), "a weight of 0 or more");
                }
            }
            if let (Some(a), Some(b)) = (w.weight_min, w.weight_max) {
                if a > b {
                    p.invalid(format!("{path}.when.weight_max"), format!("below weight_min {a}"));
                }
            }
            if let (Some(a), Some(b)) = (w.items_min, w.items_max) {
                if a > b {
                    p.invalid(format!("{path}.when.items_max"), format!("below items_min {a}"));
                }
            }
        }
        p.into_result()?;
        let json = serde_json::to_string(&rules).map_err(ServiceError::internal)?;
        self.store
            .write(|tx| packdesk_store::meta::set(tx, &rules_key(env), &json))?;
        Ok(rules)
    }

    /// The presets and rules of an environment, for resolving many orders at once.
    pub(crate) fn shipping_setup(&self, env: Env) -> Result<(Vec<Preset>, Rules), ServiceError> {
        Ok((self.list_presets(env)?.presets, self.rules(env)?))
    }
}

fn preset_record(row: &PresetRow) -> Result<Preset, ServiceError> {
    serde_json::from_str(&row.record)
        .map_err(|e| ServiceError::internal(format!("preset {} does not match its type: {e}", row.id)))
}
