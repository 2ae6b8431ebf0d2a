//! The operators of the desks (one list for every desk of a shared database): their badge codes,
//! PIN hashes, roles, and the count of wrong PINs that locks one out for a while.

use crate::db::Tx;
use crate::sql::{table_row, TableRow};
use packdesk_model::status::Role;

table_row! {
#[derive(Debug, Clone, PartialEq)]
pub struct OperatorRow in "operators" {
    pub id: String,
    pub name: String,
    pub code: String,
    /// The PIN's Argon2 hash (PHC string); none: the badge alone signs in.
    pub pin_hash: Option<String>,
    pub role: Role,
    pub active: bool,
    pub language: Option<String>,
    /// Wrong PINs in a row since the last sign-in.
    pub failed_pins: i64,
    pub locked_until: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}
}

const COLS: &str = OperatorRow::COLUMNS;

/// Inserts or replaces the whole row. False: another operator has the code.
pub fn put(c: &mut Tx<'_>, o: &OperatorRow) -> crate::Result<bool> {
    let taken: Option<String> = c.value(
        "SELECT id FROM operators WHERE code = ?1 AND id <> ?2",
        &[&o.code, &o.id],
    )?;
    if taken.is_some() {
        return Ok(false);
    }
    c.execute("DELETE FROM operators WHERE id = ?1", &[&o.id])?;
    c.insert(o)?;
    Ok(true)
}

pub fn get(c: &mut Tx<'_>, id: &str) -> crate::Result<Option<OperatorRow>> {
    c.row(&format!("SELECT {COLS} FROM operators WHERE id = ?1"), &[&id])
}

pub fn by_code(c: &mut Tx<'_>, code: &str) -> crate::Result<Option<OperatorRow>> {
    c.row(&format!("SELECT {COLS} FROM operators WHERE code = ?1"), &[&code])
}

/// Every operator, by name.
pub fn list(c: &mut Tx<'_>) -> crate::Result<Vec<OperatorRow>> {
    c.rows(&format!("SELECT {COLS} FROM operators ORDER BY name, id"), &[])
}

pub fn delete(c: &mut Tx<'_>, id: &str) -> crate::Result<bool> {
    Ok(c.execute("DELETE FROM operators WHERE id = ?1", &[&id])? > 0)
}

/// Active admins other than `except`.
pub fn other_active_admins(c: &mut Tx<'_>, except: &str) -> crate::Result<i64> {
    Ok(c.value(
        "SELECT COUNT(*) FROM operators WHERE role = ?1 AND active AND id <> ?2",
        &[&Role::Admin, &except],
    )?
    .unwrap_or(0))
}

/// Forgets an operator's wrong PINs (a sign-in that succeeded), changing nothing else of the row.
pub fn clear_failures(c: &mut Tx<'_>, id: &str) -> crate::Result<()> {
    c.execute(
        "UPDATE operators SET failed_pins = 0, locked_until = NULL WHERE id = ?1",
        &[&id],
    )?;
    Ok(())
}
