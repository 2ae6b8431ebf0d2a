//! The audit log: one row per thing done at a desk or through its API, written in the
//! transaction of the change it records, never changed after.

use crate::db::Tx;
use crate::sql::{table_row, Param};
use packdesk_model::status::Env;

table_row! {
#[derive(Debug, Clone, PartialEq)]
pub struct AuditRow in "audit_log" {
    pub id: String,
    pub at: i64,
    pub desk: String,
    pub env: Env,
    pub actor: String,
    pub operator_id: Option<String>,
    pub action: String,
    pub object_id: Option<String>,
    pub result: String,
    /// JSON.
    pub detail: String,
}
}

/// An entry's columns, `AuditRow::COLUMNS` as a macro, for statements put together at compile
/// time (a label's, `labels::write_made`); a test holds the two the same.
macro_rules! cols {
    () => {
        "id, at, desk, env, actor, operator_id, action, object_id, result, detail"
    };
}
pub(crate) use cols;

const COLS: &str = cols!();

pub fn insert(c: &mut Tx<'_>, a: &AuditRow) -> crate::Result<()> {
    c.insert(a)?;
    Ok(())
}

/// Who did `action` to the object `id`, the first time (none: not in the log).
pub fn actor_of(c: &mut Tx<'_>, action: &str, id: &str) -> crate::Result<Option<String>> {
    c.value(
        "SELECT actor FROM audit_log WHERE object_id = ?1 AND action = ?2 ORDER BY at LIMIT 1",
        &[&id, &action],
    )
}

/// The labels made and orders shipped in `env` since `since`: (actor, action, at, detail), for
/// each operator's day.
pub fn work_since(c: &mut Tx<'_>, env: Env, since: i64) -> crate::Result<Vec<(String, String, i64, String)>> {
    c.rows(
        "SELECT actor, action, at, detail FROM audit_log \
         WHERE at >= ?1 AND env = ?2 AND action IN ('label.created', 'order.shipped') ORDER BY at",
        &[&since, &env],
    )
}

/// What `list` is asked for; every field optional.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    pub operator_id: Option<String>,
    pub action: Option<String>,
    pub object_id: Option<String>,
    pub from: Option<i64>,
    pub to: Option<i64>,
    /// The last entry of the page before (at, id): the next page starts after it.
    pub after: Option<(i64, String)>,
    pub limit: i64,
}

/// The newest entries first that match `f`.
pub fn list(c: &mut Tx<'_>, f: &AuditFilter) -> crate::Result<Vec<AuditRow>> {
    let (after_at, after_id) = f.after.clone().unzip();
    let params: [&dyn Param; 8] = [
        &f.operator_id,
        &f.action,
        &f.object_id,
        &f.from,
        &f.to,
        &after_at,
        &after_id,
        &f.limit,
    ];
    c.rows_planned_each_time(
        &format!(
            "SELECT {COLS} FROM audit_log
             WHERE (CAST(?1 AS TEXT) IS NULL OR operator_id = ?1)
               AND (CAST(?2 AS TEXT) IS NULL OR action = ?2)
               AND (CAST(?3 AS TEXT) IS NULL OR object_id = ?3)
               AND (CAST(?4 AS BIGINT) IS NULL OR at >= ?4)
               AND (CAST(?5 AS BIGINT) IS NULL OR at <= ?5)
               AND (CAST(?6 AS BIGINT) IS NULL OR at < ?6 OR (at = ?6 AND id < ?7))
             ORDER BY at DESC, id DESC LIMIT ?8"
        ),
        &params,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::TableRow;

    #[test]
    fn the_statements_columns_are_the_rows_fields() {
        assert_eq!(cols!(), AuditRow::COLUMNS);
    }
}
