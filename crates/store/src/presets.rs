//! Presets: a row per preset and environment, the record as JSON. Names are unique per
//! environment (rules and shops refer to a preset by name).

use rusqlite::{params, Connection, OptionalExtension};

#[derive(Debug, Clone, PartialEq)]
pub struct PresetRow {
    pub id: String,
    pub env: String,
    pub name: String,
    pub record: String,
    pub created_at: i64,
}

fn from_row(r: &rusqlite::Row) -> rusqlite::Result<PresetRow> {
    Ok(PresetRow {
        id: r.get(0)?,
        env: r.get(1)?,
        name: r.get(2)?,
        record: r.get(3)?,
        created_at: r.get(4)?,
    })
}

/// Every preset of an environment, oldest first (a desk has a handful).
pub fn list(conn: &Connection, env: &str) -> crate::Result<Vec<PresetRow>> {
    Ok(conn
        .prepare_cached("SELECT id, env, name, record, created_at FROM presets WHERE env = ?1 ORDER BY created_at, id")?
        .query_map([env], from_row)?
        .collect::<rusqlite::Result<_>>()?)
}

pub fn get(conn: &Connection, env: &str, id: &str) -> crate::Result<Option<PresetRow>> {
    Ok(conn
        .prepare_cached("SELECT id, env, name, record, created_at FROM presets WHERE env = ?1 AND id = ?2")?
        .query_row(params![env, id], from_row)
        .optional()?)
}

/// Writes a preset; answers false when another preset of the environment has its name.
pub fn put(conn: &Connection, p: &PresetRow) -> crate::Result<bool> {
    let taken = conn
        .prepare_cached("SELECT 1 FROM presets WHERE env = ?1 AND name = ?2 AND id <> ?3")?
        .exists(params![p.env, p.name, p.id])?;
    if taken {
        return Ok(false);
    }
    conn.prepare_cached(
        "INSERT INTO presets (id, env, name, record, created_at) VALUES (?1, ?2, ?3, ?4, ?5) \
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, record = excluded.record",
    )?
    .execute(params![p.id, p.env, p.name, p.record, p.created_at])?;
    Ok(true)
}

pub fn delete(conn: &Connection, env: &str, id: &str) -> crate::Result<bool> {
    Ok(conn
        .prepare_cached("DELETE FROM presets WHERE env = ?1 AND id = ?2")?
        .execute(params![env, id])?
        > 0)
}

/// Presets in the shared database: every desk ships with the same presets. A name is checked and
/// written under the table's unique (env, name) index, so two desks naming two presets alike at
/// once cannot both succeed.
pub mod pg {
    use super::PresetRow;
    use postgres::GenericClient;

    fn from_row(r: &postgres::Row) -> PresetRow {
        PresetRow {
            id: r.get(0),
            env: r.get(1),
            name: r.get(2),
            record: r.get(3),
            created_at: r.get(4),
        }
    }

    /// Every preset of an environment, oldest first.
    pub fn list(client: &mut impl GenericClient, env: &str) -> crate::Result<Vec<PresetRow>> {
        let rows = client.query(
            "SELECT id, env, name, record, created_at FROM presets WHERE env = $1 ORDER BY created_at, id",
            &[&env],
        )?;
        Ok(rows.iter().map(from_row).collect())
    }

    pub fn get(client: &mut impl GenericClient, env: &str, id: &str) -> crate::Result<Option<PresetRow>> {
        Ok(client
            .query_opt(
                "SELECT id, env, name, record, created_at FROM presets WHERE env = $1 AND id = $2",
                &[&env, &id],
            )?
            .as_ref()
            .map(from_row))
    }

    /// Writes a preset; answers false when another preset of the environment has its name.
    pub fn put(tx: &mut impl GenericClient, p: &PresetRow) -> crate::Result<bool> {
        // ON CONFLICT (id) updates; a clash of the other unique index (env, name) is the refusal,
        // tried under a savepoint so the caller's transaction goes on. The savepoint is named in
        // SQL: the caller's transaction is BEGIN sent on a plain connection (`PgStore::write`), where
        // the client's own `transaction()` would send a second BEGIN and commit the caller's.
        tx.batch_execute("SAVEPOINT preset_put")?;
        let res = tx.execute(
            "INSERT INTO presets (id, env, name, record, created_at) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (id) DO UPDATE SET name = excluded.name, record = excluded.record",
            &[&p.id, &p.env, &p.name, &p.record, &p.created_at],
        );
        match res {
            Ok(_) => {
                tx.batch_execute("RELEASE SAVEPOINT preset_put")?;
                Ok(true)
            }
            Err(e) if e.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION) => {
                tx.batch_execute("ROLLBACK TO SAVEPOINT preset_put")?;
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }

    pub fn delete(tx: &mut impl GenericClient, env: &str, id: &str) -> crate::Result<bool> {
        Ok(tx.execute("DELETE FROM presets WHERE env = $1 AND id = $2", &[&env, &id])? > 0)
    }
}
