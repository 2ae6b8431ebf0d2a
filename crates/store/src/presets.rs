//! Presets: a row per preset and environment, the record as JSON. Names are unique per
//! environment (rules and shops refer to a preset by name); on a shared database every desk ships
//! with the same presets.

use crate::db::Tx;
use crate::sql::{is_unique_violation, table_row, TableRow};
use packdesk_model::status::Env;

table_row! {
#[derive(Debug, Clone, PartialEq)]
pub struct PresetRow in "presets" {
    pub id: String,
    pub env: Env,
    pub name: String,
    pub record: String,
    pub created_at: i64,
}
}

/// Every preset of an environment, oldest first (a desk has a handful).
pub fn list(c: &mut Tx<'_>, env: Env) -> crate::Result<Vec<PresetRow>> {
    c.rows(
        &format!(
            "SELECT {} FROM presets WHERE env = ?1 ORDER BY created_at, id",
            PresetRow::COLUMNS
        ),
        &[&env],
    )
}

pub fn get(c: &mut Tx<'_>, env: Env, id: &str) -> crate::Result<Option<PresetRow>> {
    c.row(
        &format!("SELECT {} FROM presets WHERE env = ?1 AND id = ?2", PresetRow::COLUMNS),
        &[&env, &id],
    )
}

/// Writes a preset; answers false when another preset of the environment has its name. The name
/// is checked by the table's unique (env, name) index itself, so two desks naming two presets
/// alike at once cannot both succeed.
pub fn put(c: &mut Tx<'_>, p: &PresetRow) -> crate::Result<bool> {
    let written = c.savepoint("preset_put", |c| {
        c.insert_with(
            p,
            " ON CONFLICT (id) DO UPDATE SET name = excluded.name, record = excluded.record",
        )
    });
    match written {
        Ok(_) => Ok(true),
        Err(e) if is_unique_violation(&e) => Ok(false),
        Err(e) => Err(e),
    }
}

pub fn delete(c: &mut Tx<'_>, env: Env, id: &str) -> crate::Result<bool> {
    Ok(c.execute("DELETE FROM presets WHERE env = ?1 AND id = ?2", &[&env, &id])? > 0)
}
