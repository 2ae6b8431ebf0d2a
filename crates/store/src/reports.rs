//! Reports (issue 41): the figures of each closed day, kept once made (`report_days`, and the
//! days made in `report_days_made`), and what they are made from: a day's labels by ship date,
//! who made them (the audit log), and their print jobs that failed. One statement of each for
//! both databases.

use crate::db::Tx;
use crate::sql::{table_row, TableRow};
use packdesk_model::status::{Env, LabelStatus};

table_row! {
/// One closed day's figures for one account, service, operator, desk and currency.
#[derive(Debug, Clone, PartialEq)]
pub struct DayRow in "report_days" {
    pub env: Env,
    pub day: String,
    pub account_id: String,
    pub service_type: String,
    pub operator: String,
    pub desk: String,
    pub currency: String,
    pub labels: i64,
    pub voided: i64,
    pub parcels: i64,
    pub weight_g: i64,
    pub items: i64,
    pub charge_milli: i64,
    pub print_failures: i64,
    /// The first and the last label's time (microseconds): the operator's working span.
    pub first_at: i64,
    pub last_at: i64,
}
}

table_row! {
/// A label of a day, as a report reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct DayLabel {
    pub id: String,
    pub shipper_account_id: String,
    pub service_type: String,
    pub status: LabelStatus,
    pub weight_kg: f64,
    pub created_at: i64,
    /// The label's record (JSON): its parcels' tracking numbers and its rate.
    pub record: crate::stored_json::StoredJson,
}
}

/// The days of `[from, to]` (YYYY-MM-DD) whose figures are kept.
pub fn made_days(c: &mut Tx<'_>, env: Env, from: &str, to: &str) -> crate::Result<Vec<String>> {
    c.values(
        "SELECT day FROM report_days_made WHERE env = ?1 AND day >= ?2 AND day <= ?3 ORDER BY day",
        &[&env, &from, &to],
    )
}

/// The days of `[from, to]` that labels ship on.
pub fn days_with_labels(c: &mut Tx<'_>, env: Env, from: &str, to: &str) -> crate::Result<Vec<String>> {
    c.values(
        "SELECT DISTINCT ship_date FROM labels WHERE env = ?1 AND ship_date >= ?2 AND ship_date <= ?3",
        &[&env, &from, &to],
    )
}

/// The kept figures of the days `[from, to]`.
pub fn rows_between(c: &mut Tx<'_>, env: Env, from: &str, to: &str) -> crate::Result<Vec<DayRow>> {
    c.rows(
        &format!(
            "SELECT {} FROM report_days WHERE env = ?1 AND day >= ?2 AND day <= ?3",
            DayRow::COLUMNS
        ),
        &[&env, &from, &to],
    )
}

/// The labels that ship on `day` (made or being made: failed ones are no labels).
pub fn labels_of_day(c: &mut Tx<'_>, env: Env, day: &str) -> crate::Result<Vec<DayLabel>> {
    c.rows(
        &format!(
            "SELECT {} FROM labels WHERE env = ?1 AND ship_date = ?2 AND status <> 'failed' AND status <> 'creating'",
            DayLabel::COLUMNS
        ),
        &[&env, &day],
    )
}

table_row! {
/// Who made a label (`label.created`, naming the label) or shipped an order (`order.shipped`,
/// naming the order; its detail names the label and the items), as the audit log has it.
#[derive(Debug, Clone, PartialEq)]
pub struct Maker {
    pub action: String,
    pub object_id: String,
    pub actor: String,
    pub desk: String,
    pub detail: String,
}
}

/// Who made labels and shipped orders in `[from, to]` (microseconds).
pub fn makers_between(c: &mut Tx<'_>, env: Env, from: i64, to: i64) -> crate::Result<Vec<Maker>> {
    c.rows(
        "SELECT action, COALESCE(object_id, ''), actor, desk, detail FROM audit_log
         WHERE at >= ?1 AND at <= ?2 AND env = ?3 AND action IN ('label.created', 'order.shipped')",
        &[&from, &to, &env],
    )
}

/// How many print jobs of each label shipping on `day` failed: (label id, failures).
pub fn failed_prints_of_day(c: &mut Tx<'_>, env: Env, day: &str) -> crate::Result<Vec<(String, i64)>> {
    c.rows(
        "SELECT owner_id, COUNT(*) FROM print_jobs WHERE status = 'failed' AND owner_id IN
             (SELECT id FROM labels WHERE env = ?1 AND ship_date = ?2)
         GROUP BY owner_id",
        &[&env, &day],
    )
}

/// Keeps a closed day's figures (another desk making the same day at once writes the same).
pub fn keep_day(c: &mut Tx<'_>, env: Env, day: &str, rows: &[DayRow], made_at: i64) -> crate::Result<()> {
    c.execute("DELETE FROM report_days WHERE env = ?1 AND day = ?2", &[&env, &day])?;
    for r in rows {
        c.execute(
            &format!(
                "INSERT INTO report_days ({}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
                 ON CONFLICT (env, day, account_id, service_type, operator, desk, currency) DO UPDATE SET
                 labels = excluded.labels, voided = excluded.voided, parcels = excluded.parcels,
                 weight_g = excluded.weight_g, items = excluded.items, charge_milli = excluded.charge_milli,
                 print_failures = excluded.print_failures, first_at = excluded.first_at, last_at = excluded.last_at",
                DayRow::COLUMNS
            ),
            &[
                &r.env,
                &r.day,
                &r.account_id,
                &r.service_type,
                &r.operator,
                &r.desk,
                &r.currency,
                &r.labels,
                &r.voided,
                &r.parcels,
                &r.weight_g,
                &r.items,
                &r.charge_milli,
                &r.print_failures,
                &r.first_at,
                &r.last_at,
            ],
        )?;
    }
    c.execute(
        "INSERT INTO report_days_made (env, day, made_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (env, day) DO UPDATE SET made_at = excluded.made_at",
        &[&env, &day, &made_at],
    )?;
    Ok(())
}

/// Forgets a day's kept figures (a label of it voided): the next report makes them again.
pub fn forget_day(c: &mut Tx<'_>, env: Env, day: &str) -> crate::Result<()> {
    c.execute(
        "DELETE FROM report_days_made WHERE env = ?1 AND day = ?2",
        &[&env, &day],
    )?;
    c.execute("DELETE FROM report_days WHERE env = ?1 AND day = ?2", &[&env, &day])?;
    Ok(())
}
