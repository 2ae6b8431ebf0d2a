//! The operators of the desks (one list for every desk of a shared database): their badge codes,
//! PIN hashes, roles, and the count of wrong PINs that locks one out for a while.

use crate::db::Tx;
use crate::sql::{FromRow, Row};
use packdesk_model::status::Role;

#[derive(Debug, Clone, PartialEq)]
pub struct OperatorRow {
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

const COLS: &str =
    "id, name, code, pin_hash, role, active, language, failed_pins, locked_until, created_at, updated_at";

impl FromRow for OperatorRow {
    fn from_row(r: &Row<'_>) -> crate::Result<Self> {
        Ok(OperatorRow {
            id: r.get(0)?,
            name: r.get(1)?,
            code: r.get(2)?,
            pin_hash: r.get(3)?,
            role: r.get(4)?,
            active: r.get(5)?,
            language: r.get(6)?,
            failed_pins: r.get(7)?,
            locked_until: r.get(8)?,
            created_at: r.get(9)?,
            updated_at: r.get(10)?,
        })
    }
}

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
    c.execute(
        &format!("INSERT INTO operators ({COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"),
        &[
            &o.id,
            &o.name,
            &o.code,
            &o.pin_hash,
            &o.role,
            &o.active,
            &o.language,
            &o.failed_pins,
            &o.locked_until,
            &o.created_at,
            &o.updated_at,
        ],
    )?;
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
