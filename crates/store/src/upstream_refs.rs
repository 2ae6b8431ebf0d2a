//! What an upstream label service calls a label or manifest this desk keeps: the desk's records
//! have ids of their own (one id space for History, files and jobs), and a cancel or close-out
//! made here names the upstream's.

use crate::db::Tx;
use packdesk_model::status::Env;

/// Records that the desk's `id` is `upstream_id` at the upstream, in the caller's transaction.
pub fn insert(c: &mut Tx<'_>, env: Env, id: &str, upstream_id: &str) -> crate::Result<()> {
    c.execute(
        "INSERT INTO upstream_refs (id, env, upstream_id) VALUES (?1, ?2, ?3)",
        &[&id, &env, &upstream_id],
    )?;
    Ok(())
}

/// The upstream's id of the desk's `id` (none: made on this desk).
pub fn get(c: &mut Tx<'_>, env: Env, id: &str) -> crate::Result<Option<String>> {
    c.value(
        "SELECT upstream_id FROM upstream_refs WHERE id = ?1 AND env = ?2",
        &[&id, &env],
    )
}
