//! Store-wide values (`meta`): settings and secrets such as the file link key. `desk_*` are this
//! desk's own (its scale, its printing paused): on a shared database their key carries the desk's
//! name.

use crate::db::Tx;

/// The value of `key`, if set.
pub fn get(c: &mut Tx<'_>, key: &str) -> crate::Result<Option<String>> {
    c.value("SELECT value FROM meta WHERE key = ?1", &[&key])
}

/// Sets `key` to `value`, replacing what it was.
pub fn set(c: &mut Tx<'_>, key: &str, value: &str) -> crate::Result<()> {
    c.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        &[&key, &value],
    )?;
    Ok(())
}

/// Sets `key` unless it is set already (on a shared database: unless another desk set it first);
/// answers the value in force (the file link key every desk signs with, made by whichever desk
/// starts first).
pub fn init(c: &mut Tx<'_>, key: &str, value: &str) -> crate::Result<String> {
    c.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO NOTHING",
        &[&key, &value],
    )?;
    get(c, key)?.ok_or_else(|| crate::StoreError::Unreadable(format!("no value of `{key}` just after it was set")))
}

fn desk_key(c: &Tx<'_>, key: &str) -> String {
    match c.desk() {
        None => key.to_string(),
        Some(desk) => format!("desk:{desk}:{key}"),
    }
}

/// A value of this desk's own.
pub fn desk_get(c: &mut Tx<'_>, key: &str) -> crate::Result<Option<String>> {
    let key = desk_key(c, key);
    get(c, &key)
}

/// Sets a value of this desk's own.
pub fn desk_set(c: &mut Tx<'_>, key: &str, value: &str) -> crate::Result<()> {
    let key = desk_key(c, key);
    set(c, &key, value)
}
