//! Address validation (beta): offline rules per country (postal-code format, state where the
//! country has states, street lengths) and a recommended address with normalised case, spacing
//! and postal-code format.

use crate::keys::Env;
use crate::records::row;
use crate::validate::check_address;
use crate::Service;
use packdesk_carriers::postal::{normalise_postal_code, STATE_REQUIRED};
use packdesk_model::error::Problems;
use packdesk_model::record::{AddressValidation, AddressValidationList};
use packdesk_model::request::{Address, AddressValidationRequest, ListQuery};
use packdesk_model::said::{args, Saying};
use packdesk_model::status::ValidationStatus;
use packdesk_model::{Detail, ServiceError};
use packdesk_store::records;
use packdesk_store::records::Kind;
use packdesk_store::records::RecordStatus;

pub const VALIDATION_STATUSES: &[&str] = &["valid", "invalid"];

/// Trimmed, single-spaced.
fn tidy(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// "nEW   york" -> "New York" (names of places; streets keep their own case).
fn title(s: &str) -> String {
    tidy(s)
        .split(' ')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().chain(c.flat_map(|x| x.to_lowercase())).collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<String>>()
        .join(" ")
}

/// Street lines longer than this are split by most carriers' label printers.
const STREET_MAX: usize = 35;

impl Service {
    pub fn validate_address(&self, env: Env, req: AddressValidationRequest) -> Result<AddressValidation, ServiceError> {
        let a = &req.address;
        // Structure first: lengths over the hard limit are an error, not a validation result.
        let mut hard = Problems::default();
        check_address(&mut hard, "address", a, None, false);
        hard.into_result()?;

        let mut problems: Vec<Detail> = Vec::new();
        let problem = |path: String, info: String| Detail::new(path, info);
        let mut rec = a.clone();
        for (field, v) in [
            ("contact_name", &a.contact_name),
            ("street1", &a.street1),
            ("city", &a.city),
            ("country", &a.country),
        ] {
            if v.as_deref().map(str::trim).unwrap_or("").is_empty() {
                problems.push(Detail::said(format!("address.{field}"), Saying::Required, args([])));
            }
        }
        let country = a
            .country
            .as_deref()
            .map(|c| c.trim().to_uppercase())
            .unwrap_or_default();
        if !country.is_empty() {
            rec.country = Some(country.clone());
            match a.postal_code.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
                Some(pc) => match normalise_postal_code(&country, pc) {
                    Ok(n) => rec.postal_code = Some(n),
                    Err(not) => problems.push(Detail::said(
                        "address.postal_code",
                        Saying::NotAPostalCodeOf,
                        args([("country", &not.country), ("formats", &not.formats)]),
                    )),
                },
                None if packdesk_carriers::countries::has_postal_codes(&country) => problems.push(Detail::said(
                    "address.postal_code",
                    Saying::RequiredFor,
                    args([("country", &country)]),
                )),
                None => {}
            }
            if STATE_REQUIRED.contains(&country.as_str()) && a.state.as_deref().map(str::trim).unwrap_or("").is_empty()
            {
                problems.push(Detail::said(
                    "address.state",
                    Saying::RequiredFor,
                    args([("country", &country)]),
                ));
            }
        }
        for (field, v) in [
            ("street1", &a.street1),
            ("street2", &a.street2),
            ("street3", &a.street3),
        ] {
            if let Some(s) = v {
                if tidy(s).chars().count() > STREET_MAX {
                    problems.push(problem(
                        format!("address.{field}"),
                        format!("longer than {STREET_MAX} characters; split it over street2/street3"),
                    ));
                }
            }
        }
        rec.contact_name = a.contact_name.as_deref().map(tidy);
        rec.company_name = a.company_name.as_deref().map(tidy);
        rec.street1 = a.street1.as_deref().map(tidy);
        rec.street2 = a.street2.as_deref().map(tidy);
        rec.street3 = a.street3.as_deref().map(tidy);
        rec.city = a.city.as_deref().map(title);
        rec.state = a.state.as_deref().map(|s| {
            if s.trim().len() <= 3 {
                tidy(s).to_uppercase()
            } else {
                title(s)
            }
        });
        rec.email = a.email.as_deref().map(|e| e.trim().to_lowercase());
        let valid = problems.is_empty();
        let now = self.now_us();
        let stamp = crate::clock::iso_micros(now);
        let record = AddressValidation {
            id: uuid::Uuid::new_v4().to_string(),
            status: if valid {
                ValidationStatus::Valid
            } else {
                ValidationStatus::Invalid
            },
            address: a.clone(),
            recommended_address: (valid || rec != Address::default()).then_some(rec),
            problems,
            created_at: stamp.clone(),
            updated_at: stamp,
        };
        let stored = serde_json::to_value(&record).map_err(ServiceError::internal)?;
        let status = RecordStatus::AddressValidation(if valid {
            ValidationStatus::Valid
        } else {
            ValidationStatus::Invalid
        });
        self.store
            .write(|tx| records::insert(tx, &row(env, None, status, &stored, now)))?;
        Ok(record)
    }

    pub fn get_address_validation(&self, env: Env, id: &str) -> Result<AddressValidation, ServiceError> {
        self.get_record(Kind::AddressValidation, env, id)
    }

    pub fn list_address_validations(&self, env: Env, q: &ListQuery) -> Result<AddressValidationList, ServiceError> {
        let (window, address_validations) = self.list_records(Kind::AddressValidation, env, q, VALIDATION_STATUSES)?;
        Ok(AddressValidationList {
            window,
            address_validations,
        })
    }
}
