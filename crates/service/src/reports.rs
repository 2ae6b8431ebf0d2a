//! Reports (issue 41): labels, parcels, voids, weight, charges, print failures and each
//! operator's pace over a span of ship dates, grouped by day, week, carrier, service, operator or
//! desk. A closed day (two days past, in UTC: no new label ships on it) is counted once and its
//! figures kept; the days after are counted from their labels at each ask. On a shared database
//! the figures are every desk's.

use crate::keys::Env;
use crate::Service;
use chrono::Datelike;
use packdesk_model::report::{ReportRow, ShipmentsReport};
use packdesk_model::request::Money;
use packdesk_model::status::{LabelStatus, ReportGroup};
use packdesk_model::ServiceError;
use packdesk_store::reports::{self as table, DayLabel, DayRow};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The longest span a report covers (about three years).
const MAX_DAYS: i64 = 1100;
/// How far back from the newest closed day the reports worker keeps closed days (a report
/// asking further counts them then).
const KEPT_AHEAD_DAYS: i64 = 400;
/// The span when none is asked: the last seven days.
const DEFAULT_DAYS: i64 = 7;
const HOUR_US: f64 = 3_600_000_000.0;
/// A label's audit entry is written when it is made, a moment after its `created_at` (the
/// carrier's call between): who made a day's labels is looked for up to this long after.
const MADE_WITHIN_US: i64 = 15 * 60 * 1_000_000;

/// What a report's label is made of in its record: its parcels' tracking numbers and its charge.
#[derive(serde::Deserialize)]
struct RecordBits {
    #[serde(default)]
    tracking_numbers: Vec<String>,
    #[serde(default)]
    rate: Option<RateBits>,
}

#[derive(serde::Deserialize)]
struct RateBits {
    #[serde(default)]
    total_charge: Option<packdesk_model::record::Amount>,
}

impl Service {
    /// `GET /desk/reports/shipments`: the labels shipping `from` to `to` (dates, the last seven
    /// days when not given), grouped by `group_by` (`day` when not given).
    pub fn shipments_report(
        &self,
        env: Env,
        from: Option<&str>,
        to: Option<&str>,
        group_by: Option<&str>,
    ) -> Result<ShipmentsReport, ServiceError> {
        let (from, to, group_by) = self.report_span(from, to, group_by)?;
        let rows = self.report_rows(env, from, to)?;
        let accounts: HashMap<String, String> = self
            .store
            .read(|c| packdesk_store::accounts::slugs(c, env))?
            .into_iter()
            .collect();
        let mut groups: BTreeMap<String, Vec<&DayRow>> = BTreeMap::new();
        // By day or week, every one of the span is a group (a day without labels shows as 0).
        if matches!(group_by, ReportGroup::Day | ReportGroup::Week) {
            for day in from.iter_days().take_while(|d| *d <= to) {
                groups.entry(time_group(day, group_by)).or_default();
            }
        }
        for r in &rows {
            groups.entry(group_of(r, group_by, &accounts)).or_default().push(r);
        }
        let mut groups: Vec<ReportRow> = groups
            .into_iter()
            .map(|(group, rows)| figures(group_name(&group, group_by), group, &rows))
            .collect();
        if !matches!(group_by, ReportGroup::Day | ReportGroup::Week) {
            groups.sort_by(|a, b| b.labels.cmp(&a.labels).then_with(|| a.name.cmp(&b.name)));
        }
        let all: Vec<&DayRow> = rows.iter().collect();
        Ok(ShipmentsReport {
            from: from.to_string(),
            to: to.to_string(),
            group_by,
            groups,
            total: figures(String::new(), String::new(), &all),
        })
    }

    /// The report as CSV: a row per group, then the total.
    pub fn shipments_report_csv(
        &self,
        env: Env,
        from: Option<&str>,
        to: Option<&str>,
        group_by: Option<&str>,
    ) -> Result<String, ServiceError> {
        use packdesk_documents::csv::{push_header, push_row, Cell};
        let report = self.shipments_report(env, from, to, group_by)?;
        let mut out = String::new();
        push_header(&mut out, &REPORT_COLUMNS);
        for r in report.groups.iter().chain([&report.total]) {
            let charges = r
                .charges
                .iter()
                .map(|m| format!("{:.2} {}", m.amount, m.currency))
                .collect::<Vec<_>>()
                .join("; ");
            let per_hour = |v: Option<f64>| v.map_or(Cell::Text(""), |v| Cell::Number(v, 1));
            let group = if r.group.is_empty() { "total" } else { r.group.as_str() };
            push_row(
                &mut out,
                &[
                    Cell::Text(group),
                    Cell::Text(&r.name),
                    Cell::Count(r.labels),
                    Cell::Count(r.voided),
                    Cell::Count(r.parcels),
                    Cell::Number(r.weight_kg, 3),
                    Cell::Text(&charges),
                    Cell::Count(r.print_failures),
                    Cell::Count(r.items),
                    Cell::Number(r.hours, 2),
                    per_hour(r.labels_per_hour),
                    per_hour(r.items_per_hour),
                ],
            );
        }
        Ok(out)
    }

    /// The asked span and grouping, checked.
    fn report_span(
        &self,
        from: Option<&str>,
        to: Option<&str>,
        group_by: Option<&str>,
    ) -> Result<(chrono::NaiveDate, chrono::NaiveDate, ReportGroup), ServiceError> {
        let mut p = packdesk_model::error::Problems::default();
        let date = |p: &mut packdesk_model::error::Problems, field: &str, s: Option<&str>| {
            let s = s.map(str::trim).filter(|s| !s.is_empty())?;
            let d = crate::validate::parse_date(s);
            if d.is_none() {
                p.say(
                    packdesk_model::ErrorCode::InvalidRequest,
                    field,
                    packdesk_model::said::Saying::NotADate,
                    Default::default(),
                );
            }
            d
        };
        let today = chrono::DateTime::from_timestamp_micros(self.now_us())
            .unwrap_or_default()
            .date_naive();
        let to_date = date(&mut p, "to", to).unwrap_or(today);
        let from_date = date(&mut p, "from", from).unwrap_or(to_date - chrono::Duration::days(DEFAULT_DAYS - 1));
        let group = match group_by.map(str::trim).filter(|g| !g.is_empty()) {
            None => ReportGroup::Day,
            Some(g) => ReportGroup::parse(g).unwrap_or_else(|| {
                p.invalid("group_by", format!("one of: {}", ReportGroup::NAMES.join(", ")));
                ReportGroup::Day
            }),
        };
        if from_date > to_date {
            p.invalid("from", "must not be after to");
        } else if (to_date - from_date).num_days() >= MAX_DAYS {
            p.invalid("to", format!("at most {MAX_DAYS} days after from"));
        }
        p.into_result()?;
        Ok((from_date, to_date, group))
    }

    /// The newest closed day: two days past, in UTC (no new label ships on it).
    fn last_closed_day(&self) -> chrono::NaiveDate {
        let today = chrono::DateTime::from_timestamp_micros(self.now_us())
            .unwrap_or_default()
            .date_naive();
        today - chrono::Duration::days(2)
    }

    /// The figures of every day of `[from, to]`: closed days' kept ones (made first where they
    /// are not yet), the later days' counted now.
    fn report_rows(
        &self,
        env: Env,
        from: chrono::NaiveDate,
        to: chrono::NaiveDate,
    ) -> Result<Vec<DayRow>, ServiceError> {
        let last_closed = self.last_closed_day();
        let mut rows = Vec::new();
        if from <= last_closed {
            let until = to.min(last_closed);
            let (a, b) = (from.to_string(), until.to_string());
            let made: HashSet<String> = self
                .store
                .read(|c| table::made_days(c, env, &a, &b))?
                .into_iter()
                .collect();
            for day in from.iter_days().take_while(|d| *d <= until) {
                let day = day.to_string();
                if !made.contains(&day) {
                    self.keep_report_day(env, &day)?;
                }
            }
            rows.extend(self.store.read(|c| table::rows_between(c, env, &a, &b))?);
        }
        for day in from
            .max(last_closed.succ_opt().unwrap_or(last_closed))
            .iter_days()
            .take_while(|d| *d <= to)
        {
            rows.extend(self.count_report_day(env, &day.to_string())?);
        }
        Ok(rows)
    }

    /// Counts and keeps the closed days of the `KEPT_AHEAD_DAYS` up to the newest that have
    /// labels and are not kept yet (the reports worker: a report finds them made). Answers how
    /// many it made.
    pub fn keep_closed_report_days(&self, going_on: impl Fn() -> bool) -> Result<usize, ServiceError> {
        let last_closed = self.last_closed_day();
        let first = (last_closed - chrono::Duration::days(KEPT_AHEAD_DAYS)).to_string();
        let last_closed = last_closed.to_string();
        let mut made = 0;
        for env in [Env::Live, Env::Sandbox] {
            let (with_labels, kept) = self.store.read(|c| {
                let with = table::days_with_labels(c, env, &first, &last_closed)?;
                let kept: HashSet<String> = table::made_days(c, env, &first, &last_closed)?.into_iter().collect();
                Ok::<_, ServiceError>((with, kept))
            })?;
            for day in with_labels.iter().filter(|d| !kept.contains(*d)) {
                if !going_on() {
                    return Ok(made);
                }
                self.keep_report_day(env, day)?;
                made += 1;
            }
        }
        Ok(made)
    }

    /// The reports worker: keeps the closed days every ten minutes.
    pub(crate) fn keep_report_days_until(&self, stop: &std::sync::atomic::AtomicBool) {
        use std::sync::atomic::Ordering;
        while !stop.load(Ordering::SeqCst) {
            match self.keep_closed_report_days(|| !stop.load(Ordering::SeqCst)) {
                Ok(0) => {}
                Ok(n) => tracing::info!(days = n, "report figures kept for the closed days"),
                Err(e) => tracing::warn!(error = %e.chain(), "the closed days' report figures could not be kept now"),
            }
            let until = std::time::Instant::now() + std::time::Duration::from_secs(600);
            while !stop.load(Ordering::SeqCst) && std::time::Instant::now() < until {
                std::thread::sleep(std::time::Duration::from_millis(250));
            }
        }
    }

    /// Counts a closed day and keeps its figures.
    fn keep_report_day(&self, env: Env, day: &str) -> Result<(), ServiceError> {
        let rows = self.count_report_day(env, day)?;
        let now = self.now_us();
        self.store.write(|tx| table::keep_day(tx, env, day, &rows, now))?;
        Ok(())
    }

    /// One day's figures from its labels, who made them and their failed print jobs.
    pub(crate) fn count_report_day(&self, env: Env, day: &str) -> Result<Vec<DayRow>, ServiceError> {
        let (labels, makers, failed) = self.store.read(|c| {
            let labels = table::labels_of_day(c, env, day)?;
            let (Some(first), Some(last)) = (
                labels.iter().map(|l| l.created_at).min(),
                labels.iter().map(|l| l.created_at).max(),
            ) else {
                return Ok::<_, ServiceError>((labels, Vec::new(), Vec::new()));
            };
            let makers = table::makers_between(c, env, first, last + MADE_WITHIN_US)?;
            let failed = table::failed_prints_of_day(c, env, day)?;
            Ok((labels, makers, failed))
        })?;
        let mut made_by: HashMap<&str, (&str, &str)> = HashMap::new();
        let mut items: HashMap<String, i64> = HashMap::new();
        for m in &makers {
            match m.action.as_str() {
                "label.created" => {
                    made_by.insert(m.object_id.as_str(), (m.actor.as_str(), m.desk.as_str()));
                }
                _ => {
                    let detail: serde_json::Value = serde_json::from_str(&m.detail).unwrap_or_default();
                    if let Some(label) = detail["label_id"].as_str() {
                        items.insert(label.to_string(), detail["items"].as_i64().unwrap_or(0));
                    }
                }
            }
        }
        let failed: HashMap<String, i64> = failed.into_iter().collect();
        let mut rows: BTreeMap<(String, String, String, String, String), DayRow> = BTreeMap::new();
        for label in &labels {
            let bits: RecordBits = serde_json::from_str(&label.record).map_err(ServiceError::internal)?;
            let charge = bits.rate.and_then(|r| r.total_charge);
            let (operator, desk) = made_by.get(label.id.as_str()).copied().unwrap_or(("", ""));
            let key = (
                label.shipper_account_id.clone(),
                label.service_type.clone(),
                operator.to_string(),
                desk.to_string(),
                charge.as_ref().map(|c| c.currency.clone()).unwrap_or_default(),
            );
            let r = rows.entry(key.clone()).or_insert_with(|| DayRow {
                env,
                day: day.to_string(),
                account_id: key.0,
                service_type: key.1,
                operator: key.2,
                desk: key.3,
                currency: key.4,
                labels: 0,
                voided: 0,
                parcels: 0,
                weight_g: 0,
                items: 0,
                charge_milli: 0,
                print_failures: 0,
                first_at: label.created_at,
                last_at: label.created_at,
            });
            add_label(r, label, &bits.tracking_numbers, charge.map(|c| c.amount));
            r.items += items.get(&label.id).copied().filter(|_| !voided(label)).unwrap_or(0);
            r.print_failures += failed.get(&label.id).copied().unwrap_or(0);
        }
        Ok(rows.into_values().collect())
    }
}

fn voided(label: &DayLabel) -> bool {
    matches!(label.status, LabelStatus::Cancelled | LabelStatus::Cancelling)
}

/// One label into its day's row: a voided one counts as made and voided, nothing else.
fn add_label(r: &mut DayRow, label: &DayLabel, tracking_numbers: &[String], charge: Option<f64>) {
    r.labels += 1;
    r.first_at = r.first_at.min(label.created_at);
    r.last_at = r.last_at.max(label.created_at);
    if voided(label) {
        r.voided += 1;
        return;
    }
    r.parcels += tracking_numbers.len().max(1) as i64;
    r.weight_g += (label.weight_kg * 1000.0).round() as i64;
    r.charge_milli += charge.map_or(0, |a| (a * 1000.0).round() as i64);
}

/// The group a day's row falls in.
fn group_of(r: &DayRow, by: ReportGroup, accounts: &HashMap<String, String>) -> String {
    match by {
        ReportGroup::Day | ReportGroup::Week => chrono::NaiveDate::parse_from_str(&r.day, "%Y-%m-%d")
            .map(|d| time_group(d, by))
            .unwrap_or_else(|_| r.day.clone()),
        ReportGroup::Carrier => accounts.get(&r.account_id).cloned().unwrap_or_default(),
        ReportGroup::Service => r.service_type.clone(),
        ReportGroup::Operator => r.operator.clone(),
        ReportGroup::Desk => r.desk.clone(),
    }
}

/// A day's group by day (`2026-11-27`) or by ISO week (`2026-W48`).
fn time_group(day: chrono::NaiveDate, by: ReportGroup) -> String {
    match by {
        ReportGroup::Week => {
            let w = day.iso_week();
            format!("{}-W{:02}", w.year(), w.week())
        }
        _ => day.to_string(),
    }
}

/// How the desk names a group.
fn group_name(group: &str, by: ReportGroup) -> String {
    match by {
        ReportGroup::Carrier => packdesk_carriers::carrier(group).map_or_else(|| group.to_string(), |c| c.name.clone()),
        ReportGroup::Service => packdesk_carriers::service_type(group)
            .map_or_else(|| group.to_string(), |(c, s)| format!("{} {}", c.name, s.name)),
        _ => group.to_string(),
    }
}

/// The figures of a group's rows. Hours: each operator's first to last label of a day at a desk
/// (a quarter of an hour at least), summed.
fn figures(name: String, group: String, rows: &[&DayRow]) -> ReportRow {
    let mut out = ReportRow {
        group,
        name,
        ..Default::default()
    };
    let mut charges: BTreeMap<&str, i64> = BTreeMap::new();
    let mut spans: HashMap<(&str, &str, &str), (i64, i64)> = HashMap::new();
    let mut weight_g = 0;
    for r in rows {
        out.labels += r.labels;
        out.voided += r.voided;
        out.parcels += r.parcels;
        out.items += r.items;
        out.print_failures += r.print_failures;
        weight_g += r.weight_g;
        if !r.currency.is_empty() {
            *charges.entry(r.currency.as_str()).or_default() += r.charge_milli;
        }
        let span = spans
            .entry((r.operator.as_str(), r.desk.as_str(), r.day.as_str()))
            .or_insert((r.first_at, r.last_at));
        *span = (span.0.min(r.first_at), span.1.max(r.last_at));
    }
    out.weight_kg = weight_g as f64 / 1000.0;
    out.charges = charges
        .into_iter()
        .map(|(currency, milli)| Money {
            amount: milli as f64 / 1000.0,
            currency: currency.to_string(),
        })
        .collect();
    out.hours = spans.values().map(|(a, b)| ((b - a) as f64 / HOUR_US).max(0.25)).sum();
    if out.hours > 0.0 {
        out.labels_per_hour = Some(out.labels as f64 / out.hours);
        out.items_per_hour = Some(out.items as f64 / out.hours);
    }
    out
}

const REPORT_COLUMNS: [&str; 12] = [
    "group",
    "name",
    "labels",
    "voided",
    "parcels",
    "weight_kg",
    "charges",
    "print_failures",
    "items",
    "hours",
    "labels_per_hour",
    "items_per_hour",
];
