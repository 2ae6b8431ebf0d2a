//! Returned parcels scanned in at the desk (issue 40), each kept against its order; the record
//! (JSON) holds its items, reasons and conditions.

use crate::db::Tx;
use crate::sql::{table_row, TableRow};
use packdesk_model::status::Env;

table_row! {
#[derive(Debug, Clone, PartialEq)]
pub struct ReturnRow in "returns" {
    pub id: String,
    pub env: Env,
    pub order_id: String,
    pub created_at: i64,
    /// The return record (JSON).
    pub record: String,
}
}

const COLS: &str = ReturnRow::COLUMNS;

pub fn insert(c: &mut Tx<'_>, row: &ReturnRow) -> crate::Result<()> {
    c.insert(row)
}

/// The returns of one order, oldest first.
pub fn of_order(c: &mut Tx<'_>, order_id: &str) -> crate::Result<Vec<ReturnRow>> {
    c.rows(
        &format!("SELECT {COLS} FROM returns WHERE order_id = ?1 ORDER BY created_at, id"),
        &[&order_id],
    )
}

/// The environment's returns made in `[from, to)` (microseconds), newest first, at most `limit`.
pub fn list(c: &mut Tx<'_>, env: Env, from: i64, to: i64, limit: i64) -> crate::Result<Vec<ReturnRow>> {
    c.rows(
        &format!(
            "SELECT {COLS} FROM returns WHERE env = ?1 AND created_at >= ?2 AND created_at < ?3
             ORDER BY created_at DESC, id DESC LIMIT ?4"
        ),
        &[&env, &from, &to, &limit],
    )
}
