//! What the desk shows at a glance: today's labels by carrier and status, labels per day, the
//! accounts waiting for their end-of-day close-out, and the close-out of many accounts in one call.
//! Days are the desk's days: the caller gives its offset from UTC in minutes.

use crate::keys::Env;
use crate::Service;
use chrono::{Duration, NaiveDate};
use packdesk_carriers::registry::carrier;
use packdesk_model::desk::{
    AccountWaiting, CarrierCount, CloseOut, CloseOutAccount, CloseOutRequest, CloseOutResult, DayCount, EndOfDay,
    HourCount, OperatorDay, PrintRequest, ServiceCount, ShipDateCount, Today,
};
use packdesk_model::record::AccountRefDescribed;
use packdesk_model::request::{IdRef, ManifestRequest};
use packdesk_model::status::AccountStatus;
use packdesk_model::ServiceError;
use packdesk_store::accounts as account_table;
use packdesk_store::accounts::AccountRow;
use packdesk_store::labels;
use packdesk_store::records;
use packdesk_store::records::{Kind, RecordFilter};
use std::collections::BTreeMap;

const DAY_US: i64 = 86_400_000_000;
const HOUR_US: i64 = 3_600_000_000;

/// Kilograms to the gram.
fn round_kg(kg: f64) -> f64 {
    (kg * 1000.0).round() / 1000.0
}

/// Offsets run from UTC-12:00 to UTC+14:00 in quarter hours (as every time zone's do).
fn check_offset(minutes: i64) -> Result<i64, ServiceError> {
    if (-720..=840).contains(&minutes) && minutes % 15 == 0 {
        Ok(minutes * 60_000_000)
    } else {
        Err(ServiceError::invalid(
            "utc_offset_minutes",
            "minutes from UTC, -720 to 840, a multiple of 15",
        ))
    }
}

/// Each operator's day from the log's entries of labels made and orders shipped since `day_start`.
fn by_operator(work: Vec<(String, String, i64, String)>, day_start: i64) -> Vec<OperatorDay> {
    let mut days: BTreeMap<String, OperatorDay> = BTreeMap::new();
    for (actor, action, at, detail) in work {
        let day = days.entry(actor.clone()).or_insert_with(|| OperatorDay {
            operator: actor,
            labels: 0,
            orders: 0,
            items: 0,
            hours: (0..24)
                .map(|hour| HourCount {
                    hour,
                    ..Default::default()
                })
                .collect(),
        });
        let hour = ((at - day_start) / HOUR_US).clamp(0, 23) as usize;
        match action.as_str() {
            "label.created" => {
                day.labels += 1;
                day.hours[hour].labels += 1;
            }
            _ => {
                let detail = serde_json::from_str::<serde_json::Value>(&detail).unwrap_or_default();
                let items = detail["items"].as_i64().unwrap_or(0);
                // An order labelled box by box counts once, at its last box.
                let order = i64::from(detail["box"] == detail["boxes"]);
                day.orders += order;
                day.items += items;
                day.hours[hour].orders += order;
                day.hours[hour].items += items;
            }
        }
    }
    let mut out: Vec<OperatorDay> = days.into_values().collect();
    out.sort_by(|a, b| b.labels.cmp(&a.labels).then(a.operator.cmp(&b.operator)));
    out
}

impl Service {
    pub(crate) fn enabled_accounts(&self, env: Env) -> Result<Vec<AccountRow>, ServiceError> {
        let mut rows = self.store.read(|c| account_table::list(c, env, None, 10_000, None))?;
        rows.retain(|a| a.status == AccountStatus::Enabled);
        rows.reverse(); // oldest first: the order they were set up in
        Ok(rows)
    }

    /// Today's labels by carrier and by status, and the last `days` days' label counts.
    pub fn today(&self, env: Env, utc_offset_minutes: i64, days: i64) -> Result<Today, ServiceError> {
        let offset = check_offset(utc_offset_minutes)?;
        if !(1..=366).contains(&days) {
            return Err(ServiceError::invalid("days", "1..366"));
        }
        let now = self.now_us();
        let today = (now + offset).div_euclid(DAY_US);
        let start_of = |day: i64| day * DAY_US - offset;
        let accounts: BTreeMap<String, String> =
            self.store.read(|c| account_table::slugs(c, env))?.into_iter().collect();
        let (counts, per_day, work) = self.store.read(|c| {
            let counts = labels::counts_since(c, env, start_of(today))?;
            let per_day = labels::per_day(c, env, start_of(today - days + 1), offset)?;
            let work = packdesk_store::audit::work_since(c, env, start_of(today))?;
            Ok::<_, ServiceError>((counts, per_day, work))
        })?;
        let mut by_carrier: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
        let mut by_status: BTreeMap<String, i64> = BTreeMap::new();
        let mut total = 0;
        for (account_id, status, n) in counts {
            let slug = accounts.get(&account_id).cloned().unwrap_or_default();
            *by_carrier
                .entry(slug)
                .or_default()
                .entry(status.to_string())
                .or_default() += n;
            *by_status.entry(status.to_string()).or_default() += n;
            total += n;
        }
        let by_carrier: Vec<CarrierCount> = by_carrier
            .into_iter()
            .map(|(slug, statuses)| CarrierCount {
                name: carrier(&slug).map(|c| c.name.clone()).unwrap_or_else(|| slug.clone()),
                slug,
                total: statuses.values().sum(),
                statuses,
            })
            .collect();
        let made: BTreeMap<i64, i64> = per_day.into_iter().collect();
        let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).expect("a date");
        let days = (today - days + 1..=today)
            .map(|d| DayCount {
                date: (epoch + Duration::days(d)).to_string(),
                labels: made.get(&d).copied().unwrap_or(0),
            })
            .collect();
        Ok(Today {
            date: (epoch + Duration::days(today)).to_string(),
            total,
            by_carrier,
            by_status,
            days,
            by_operator: by_operator(work, start_of(today)),
        })
    }

    /// Every enabled account with the labels its close-out now takes (by service, with their
    /// weight, and how many were never manifested on their day), the labels that ship later, and
    /// today's manifests.
    pub fn end_of_day(&self, env: Env) -> Result<EndOfDay, ServiceError> {
        let mut out = Vec::new();
        for a in self.enabled_accounts(env)? {
            let today = self.account_today(&a);
            let today_s = today.to_string();
            let tz = crate::ship_dates::timezone_of(&a);
            let start_of_today = today
                .and_hms_opt(0, 0, 0)
                .and_then(|t| t.and_local_timezone(tz).earliest())
                .map(|t| t.timestamp_micros())
                .unwrap_or(0);
            let (waiting, manifests) = self.store.read(|c| {
                let waiting = labels::waiting(c, &a.id)?;
                let filter = RecordFilter {
                    shipper_account_id: Some(a.id.clone()),
                    status: Some("manifested".into()),
                    created_at_min: start_of_today,
                    created_at_max: i64::MAX,
                };
                let manifests = records::list(c, Kind::Manifest, env, &filter, 50, None)?;
                Ok::<_, ServiceError>((waiting, manifests))
            })?;
            let c = carrier(&a.slug);
            // What today's close-out takes (ship date today or earlier) by service, and the rest
            // by their later day.
            let (due, later): (Vec<_>, Vec<_>) = waiting.into_iter().partition(|w| w.ship_date <= today_s);
            let mut by_service: BTreeMap<String, (i64, f64)> = BTreeMap::new();
            for w in &due {
                let e = by_service.entry(w.service_type.clone()).or_default();
                e.0 += w.labels;
                e.1 += w.weight_kg;
            }
            let mut later_days: BTreeMap<String, i64> = BTreeMap::new();
            for w in &later {
                *later_days.entry(w.ship_date.clone()).or_default() += w.labels;
            }
            let settings = crate::accounts::settings_of(&a);
            let mut manifests_today = manifests
                .iter()
                .map(|r| crate::records::typed(self.record_json(r)?))
                .collect::<Result<Vec<_>, ServiceError>>()?;
            self.with_transmissions(env, &mut manifests_today)?;
            out.push(AccountWaiting {
                shipper_account: CloseOutAccount {
                    carrier_name: c.map(|c| c.name.clone()).unwrap_or_default(),
                    id: a.id.clone(),
                    slug: a.slug.clone(),
                    description: a.description.clone(),
                },
                labels_waiting: due.iter().map(|w| w.labels).sum(),
                oldest_label_at: due
                    .iter()
                    .map(|w| w.oldest_created_at)
                    .min()
                    .map(crate::clock::iso_micros),
                labels_overdue: due.iter().filter(|w| w.ship_date < today_s).map(|w| w.labels).sum(),
                weight_kg: round_kg(by_service.values().map(|(_, kg)| kg).sum()),
                by_service: by_service
                    .into_iter()
                    .map(|(service_type, (n, kg))| ServiceCount {
                        name: packdesk_carriers::service_name(&a.slug, &service_type),
                        service_type,
                        labels: n,
                        weight_kg: round_kg(kg),
                    })
                    .collect(),
                later: later_days
                    .into_iter()
                    .map(|(ship_date, labels)| ShipDateCount { ship_date, labels })
                    .collect(),
                manifests_today,
                today: today_s,
                cutoff_time: settings.cutoff_time,
            });
        }
        Ok(EndOfDay { accounts: out })
    }

    /// Closes out the accounts named (or every account with labels waiting), one manifest each,
    /// and prints each manifest to the manifest profile when there is one. One account failing
    /// does not stop the others; each result says what happened.
    pub fn close_out_accounts(&self, env: Env, b: CloseOutRequest) -> Result<CloseOut, ServiceError> {
        let chosen: Vec<AccountRow> = match &b.shipper_account_ids {
            Some(ids) => {
                let mut out = Vec::new();
                for (i, id) in ids.iter().enumerate() {
                    out.push(self.account_row(env, id, &format!("shipper_account_ids[{i}]"))?);
                }
                out
            }
            None => {
                let mut out = Vec::new();
                for a in self.enabled_accounts(env)? {
                    let today = self.account_today(&a).to_string();
                    let waiting = self.store.read(|c| labels::waiting(c, &a.id))?;
                    if waiting.iter().any(|w| w.ship_date <= today) {
                        out.push(a);
                    }
                }
                out
            }
        };
        use packdesk_model::status::DocumentType;
        let profiled = |d: DocumentType| self.store.read(|c| packdesk_store::printing::profile(c, d));
        let has_profile = profiled(DocumentType::Manifest)?.is_some();
        let has_sheet_profile = profiled(DocumentType::CollectionSheet)?.is_some();
        let mut results = Vec::new();
        for a in chosen {
            let request = ManifestRequest {
                is_async: false,
                shipper_account: IdRef { id: a.id.clone() },
                label_ids: None,
            };
            let mut result = CloseOutResult {
                shipper_account: AccountRefDescribed {
                    id: a.id.clone(),
                    slug: a.slug.clone(),
                    description: a.description.clone(),
                },
                manifest: None,
                print_job: None,
                print_error: None,
                collection_sheet_print_job: None,
                collection_sheet_print_error: None,
                error: None,
            };
            match self.create_manifest(env, request) {
                Ok(reply) => {
                    let manifest = reply.into_data();
                    if has_profile {
                        let print = PrintRequest {
                            manifest_id: Some(manifest.id.clone()),
                            ..PrintRequest::default()
                        };
                        match self.print(env, print) {
                            Ok(job) => result.print_job = Some(job),
                            Err(e) => result.print_error = Some(e.to_string()),
                        }
                    }
                    // The driver's sheet to sign, on its own printer.
                    if has_sheet_profile {
                        let print = PrintRequest {
                            manifest_id: Some(manifest.id.clone()),
                            document: Some(DocumentType::CollectionSheet),
                            ..PrintRequest::default()
                        };
                        match self.print(env, print) {
                            Ok(job) => result.collection_sheet_print_job = Some(job),
                            Err(e) => result.collection_sheet_print_error = Some(e.to_string()),
                        }
                    }
                    result.manifest = Some(manifest);
                }
                Err(e) => result.error = Some(e.failure()),
            }
            results.push(result);
        }
        Ok(CloseOut { results })
    }
}
