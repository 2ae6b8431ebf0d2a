//! Rates: every service of every shipper account asked, priced by the carrier's rate card. An
//! account that cannot rate (unknown, disabled, no service on that route) gets a null entry with
//! its reason, and the answer carries meta 4713. An account served by an upstream label service
//! is rated there.

use crate::jobs::{Job, JobKind};
use crate::keys::Env;
use crate::labels::{parcel_measures, rate_entry};
use crate::records::row;
use crate::reply::{Outcome, Reply};
use crate::validate::{check_shipment, parse_date};
use crate::Service;
use packdesk_carriers::carrier;
use packdesk_carriers::rates::quote;
use packdesk_model::error::Problems;
use packdesk_model::record::{AccountRefDescribed, RateEntry, RateRecord, RateRecordList};
use packdesk_model::request::{ListQuery, RatesRequest};
use packdesk_model::status::AccountStatus;
use packdesk_model::status::RateStatus;
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::accounts;
use packdesk_store::records;
use packdesk_store::records::Kind;
use packdesk_store::records::RecordStatus;
use serde_json::{json, Value};

pub const RATE_STATUSES: &[&str] = packdesk_model::status::RateStatus::NAMES;

/// A failed entry: every field null but the account, as the contract says; the reason goes to the
/// answer's `meta.details` (see `rate`).
fn failed(id: &str, slug: &str, description: &str) -> RateEntry {
    RateEntry {
        shipper_account: AccountRefDescribed {
            id: id.into(),
            slug: slug.into(),
            description: description.into(),
        },
        service_type: None,
        service_name: None,
        pickup_deadline: None,
        booking_cut_off: None,
        delivery_date: None,
        transit_time: None,
        error_message: None,
        info_message: None,
        charge_weight: None,
        total_charge: None,
        detailed_charges: vec![],
    }
}

fn rate_record(
    id: &str,
    status: RateStatus,
    rates: Vec<RateEntry>,
    created: i64,
    now: i64,
) -> Result<Value, ServiceError> {
    serde_json::to_value(RateRecord {
        id: id.to_string(),
        status,
        rates,
        created_at: crate::clock::iso_micros(created),
        updated_at: crate::clock::iso_micros(now),
    })
    .map_err(ServiceError::internal)
}

impl Service {
    pub fn calculate_rates(&self, env: Env, req: RatesRequest) -> Result<Reply<RateRecord>, ServiceError> {
        self.calculate_rates_json(env, req)?.typed()
    }

    /// The rate record; when any account failed the answer's meta is 4713 (with the record).
    fn calculate_rates_json(&self, env: Env, req: RatesRequest) -> Result<Reply, ServiceError> {
        let mut p = Problems::default();
        if !(1..=50).contains(&req.shipper_accounts.len()) {
            p.invalid(
                "shipper_accounts",
                format!("must hold 1..50 shipper accounts, holds {}", req.shipper_accounts.len()),
            );
        }
        if let Some(d) = &req.ship_date {
            if parse_date(d).is_none() {
                p.invalid("ship_date", "must be a date YYYY-MM-DD");
            }
        }
        check_shipment(&mut p, &req.shipment, None);
        p.into_result()?;
        let id = uuid::Uuid::new_v4().to_string();
        if req.is_async {
            let request = serde_json::to_string(&req).map_err(ServiceError::internal)?;
            return self.accept_job(env, JobKind::Rate, &id, &id, &request, |tx, now| {
                let record = rate_record(&id, RateStatus::Calculating, Vec::new(), now, now)?;
                records::put(
                    tx,
                    &row(env, None, RecordStatus::Rate(RateStatus::Calculating), &record, now),
                )?;
                Ok(record)
            });
        }
        self.rate(env, &req, &id, None)
    }

    /// Completes async rates (a worker runs this).
    pub(crate) fn finish_rates(&self, job: &Job) -> Result<(), ServiceError> {
        let req: RatesRequest = job.request()?;
        self.rate(job.env, &req, &job.id, Some(job)).map(|_| ())
    }

    fn rate(&self, env: Env, req: &RatesRequest, id: &str, job: Option<&Job>) -> Result<Reply, ServiceError> {
        let from = req.shipment.ship_from.country.as_deref().unwrap_or("");
        let to = req.shipment.ship_to.country.as_deref().unwrap_or("");
        let measures = parcel_measures(&req.shipment);
        let mut entries = Vec::new();
        let mut problems = Vec::new();
        let mut fail = |entries: &mut Vec<RateEntry>, entry: RateEntry, why: String| {
            problems.push(packdesk_model::Detail::new(
                format!("data.rates[{}]", entries.len()),
                why,
            ));
            entries.push(entry);
        };
        for acct in &req.shipper_accounts {
            let row = self.store.read(|c| accounts::get(c, env, &acct.id))?;
            let Some(row) = row else {
                fail(
                    &mut entries,
                    failed(&acct.id, "", ""),
                    format!("shipper account {} not found", acct.id),
                );
                continue;
            };
            if row.status != AccountStatus::Enabled {
                fail(
                    &mut entries,
                    failed(&row.id, &row.slug, &row.description),
                    format!("shipper account {} is disabled", row.id),
                );
                continue;
            }
            let upstream = match self.upstream_of(&row) {
                Ok(u) => u,
                Err(e) => {
                    let why = e
                        .details
                        .first()
                        .map_or_else(|| e.message().to_string(), |d| d.info.clone());
                    fail(&mut entries, failed(&row.id, &row.slug, &row.description), why);
                    continue;
                }
            };
            if let Some(u) = upstream {
                match self.rate_upstream(&u, &row, req, id) {
                    Ok(got) if !got.is_empty() => entries.extend(got),
                    Ok(_) => fail(
                        &mut entries,
                        failed(&row.id, &row.slug, &row.description),
                        format!("no service of {} for this shipment at {}", row.id, u.base_url),
                    ),
                    Err(e) => {
                        let why: Vec<String> = e.details.iter().map(|d| d.info.clone()).collect();
                        let why = match why.is_empty() {
                            true => e.message().to_string(),
                            false => why.join("; "),
                        };
                        fail(&mut entries, failed(&row.id, &row.slug, &row.description), why)
                    }
                }
                continue;
            }
            let Some(c) = carrier(&row.slug) else { continue };
            let tz: chrono_tz::Tz = row.timezone.parse().unwrap_or(chrono_tz::UTC);
            let ship_date = req
                .ship_date
                .as_deref()
                .and_then(parse_date)
                .unwrap_or_else(|| self.clock.now().with_timezone(&tz).date_naive());
            let mut reasons = Vec::new();
            let before = entries.len();
            for s in &c.service_types {
                match quote(c, s, from, to, &measures, &[]) {
                    Ok(q) => entries.push(rate_entry(&row, s, &q, ship_date)),
                    Err(why) => reasons.push(why),
                }
            }
            if entries.len() == before {
                reasons.dedup();
                fail(
                    &mut entries,
                    failed(&row.id, &row.slug, &row.description),
                    format!("no service of {} for this shipment: {}", row.id, reasons.join("; ")),
                );
            }
        }
        let now = self.now_us();
        let created = job.map(|j| j.accepted_at).unwrap_or(now);
        let record = rate_record(id, RateStatus::Calculated, entries, created, now)?;
        let reply = match problems.is_empty() {
            false => Reply {
                outcome: Outcome::Partial(ErrorCode::RatesPartiallyFailed),
                data: record,
                problems,
            },
            true => Reply::done(record),
        };
        self.store.write(|tx| {
            records::put(
                tx,
                &row(env, None, RecordStatus::Rate(RateStatus::Calculated), &reply.data, now),
            )?;
            match job {
                // The calculate_rates webhook carries 4713 with details empty, as the contract
                // shows it; the reasons are in the synchronous answer's details.
                Some(job) => {
                    let meta = crate::reply::partial_meta_or(&reply, Vec::new());
                    self.complete_job_in(tx, job, json!(meta), reply.data.clone(), now)
                }
                None => Ok(()),
            }
        })?;
        Ok(reply)
    }

    /// The rates the upstream gives for the account (its entries that are rates; a failed one
    /// says nothing this desk can use), each naming this desk's account.
    fn rate_upstream(
        &self,
        u: &crate::upstream::UpstreamAccount,
        row: &packdesk_store::accounts::AccountRow,
        req: &RatesRequest,
        record_id: &str,
    ) -> Result<Vec<RateEntry>, ServiceError> {
        let mut body = json!({
            "shipper_accounts": [{"id": u.account_id}],
            "shipment": req.shipment,
        });
        if let Some(d) = &req.ship_date {
            body["ship_date"] = json!(d);
        }
        // Named by the desk's rate record: a job run again asks once.
        let answer = u.post(
            "/rates",
            &body,
            &crate::upstream::Name::Desk(format!("rate:{record_id}")),
        )?;
        let rates = answer.data["rates"].as_array().ok_or_else(|| u.unreadable("rate"))?;
        // Each rate as this interface gives it (one this desk cannot read is left out).
        Ok(rates
            .iter()
            .filter_map(|r| serde_json::from_value::<RateEntry>(r.clone()).ok())
            .filter(|r| r.service_type.is_some())
            .map(|mut r| {
                r.shipper_account = AccountRefDescribed {
                    id: row.id.clone(),
                    slug: row.slug.clone(),
                    description: row.description.clone(),
                };
                r
            })
            .collect())
    }

    pub fn get_rate(&self, env: Env, id: &str) -> Result<RateRecord, ServiceError> {
        self.get_record(Kind::Rate, env, id)
    }

    pub fn list_rates(&self, env: Env, q: &ListQuery) -> Result<RateRecordList, ServiceError> {
        let (window, rates) = self.list_records(Kind::Rate, env, q, RATE_STATUSES)?;
        Ok(RateRecordList { window, rates })
    }
}
