//! Batches of orders shipped in the background: the batch, and a row per order in the batch's
//! order with its state (`queued`, `shipped`, `failed`) and result.

use packdesk_model::status::BatchOrderStatus;
use rusqlite::{params, Connection, OptionalExtension};

#[derive(Debug, Clone, PartialEq)]
pub struct BatchOrderRow {
    pub position: i64,
    pub order_id: String,
    pub order_number: String,
    pub status: BatchOrderStatus,
    pub label_id: Option<String>,
    /// Space-separated.
    pub tracking_numbers: String,
    pub info: Option<String>,
    pub updated_at: i64,
}

pub fn insert(conn: &Connection, id: &str, env: &str, orders: &[(String, String)], now: i64) -> crate::Result<()> {
    conn.prepare_cached("INSERT INTO ship_batches (id, env, created_at) VALUES (?1, ?2, ?3)")?
        .execute(params![id, env, now])?;
    let mut st = conn.prepare_cached(
        "INSERT INTO ship_batch_orders (batch_id, position, order_id, order_number, status, tracking_numbers, updated_at) \
         VALUES (?1, ?2, ?3, ?4, 'queued', '', ?5)",
    )?;
    for (i, (order_id, number)) in orders.iter().enumerate() {
        st.execute(params![id, i as i64, order_id, number, now])?;
    }
    Ok(())
}

/// The batch's creation time, if it exists in the environment.
pub fn created_at(conn: &Connection, env: &str, id: &str) -> crate::Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT created_at FROM ship_batches WHERE id = ?1 AND env = ?2")?
        .query_row(params![id, env], |r| r.get(0))
        .optional()?)
}

pub fn orders(conn: &Connection, id: &str) -> crate::Result<Vec<BatchOrderRow>> {
    Ok(conn
        .prepare_cached(
            "SELECT position, order_id, order_number, status, label_id, tracking_numbers, info, updated_at \
             FROM ship_batch_orders WHERE batch_id = ?1 ORDER BY position",
        )?
        .query_map([id], |r| {
            Ok(BatchOrderRow {
                position: r.get(0)?,
                order_id: r.get(1)?,
                order_number: r.get(2)?,
                status: r.get(3)?,
                label_id: r.get(4)?,
                tracking_numbers: r.get(5)?,
                info: r.get(6)?,
                updated_at: r.get(7)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?)
}

/// What shipping one order of a batch came to.
#[derive(Debug, Clone, Copy)]
pub struct Outcome<'a> {
    /// `shipped` or `failed`.
    pub status: BatchOrderStatus,
    pub label_id: Option<&'a str>,
    /// Space-separated.
    pub tracking_numbers: &'a str,
    pub info: Option<&'a str>,
}

/// Records one order's result.
pub fn set_result(conn: &Connection, id: &str, position: i64, o: Outcome, now: i64) -> crate::Result<()> {
    conn.prepare_cached(
        "UPDATE ship_batch_orders SET status = ?3, label_id = ?4, tracking_numbers = ?5, info = ?6, updated_at = ?7 \
         WHERE batch_id = ?1 AND position = ?2",
    )?
    .execute(params![
        id,
        position,
        o.status,
        o.label_id,
        o.tracking_numbers,
        o.info,
        now
    ])?;
    Ok(())
}

/// Batches in the shared database: a batch queued at one desk may be shipped by the jobs of any.
pub mod pg {
    use super::{BatchOrderRow, Outcome};
    use postgres::GenericClient;

    pub fn insert(
        tx: &mut impl GenericClient,
        id: &str,
        env: &str,
        orders: &[(String, String)],
        now: i64,
    ) -> crate::Result<()> {
        tx.execute(
            "INSERT INTO ship_batches (id, env, created_at) VALUES ($1, $2, $3)",
            &[&id, &env, &now],
        )?;
        let (ids, numbers): (Vec<&str>, Vec<&str>) = orders.iter().map(|(o, n)| (o.as_str(), n.as_str())).unzip();
        // One statement for the whole batch: positions from 0 in the orders' order.
        tx.execute(
            "INSERT INTO ship_batch_orders (batch_id, position, order_id, order_number, status, tracking_numbers, updated_at)
             SELECT $1, o.n - 1, o.order_id, o.order_number, 'queued', '', $2
             FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS o (order_id, order_number, n)",
            &[&id, &now, &ids, &numbers],
        )?;
        Ok(())
    }

    /// The batch's creation time, if it exists in the environment.
    pub fn created_at(client: &mut impl GenericClient, env: &str, id: &str) -> crate::Result<Option<i64>> {
        Ok(client
            .query_opt(
                "SELECT created_at FROM ship_batches WHERE id = $1 AND env = $2",
                &[&id, &env],
            )?
            .map(|r| r.get(0)))
    }

    pub fn orders(client: &mut impl GenericClient, id: &str) -> crate::Result<Vec<BatchOrderRow>> {
        let rows = client.query(
            "SELECT position, order_id, order_number, status, label_id, tracking_numbers, info, updated_at
             FROM ship_batch_orders WHERE batch_id = $1 ORDER BY position",
            &[&id],
        )?;
        Ok(rows
            .iter()
            .map(|r| BatchOrderRow {
                position: r.get(0),
                order_id: r.get(1),
                order_number: r.get(2),
                status: r.get(3),
                label_id: r.get(4),
                tracking_numbers: r.get(5),
                info: r.get(6),
                updated_at: r.get(7),
            })
            .collect())
    }

    /// Records one order's result.
    pub fn set_result(tx: &mut impl GenericClient, id: &str, position: i64, o: Outcome, now: i64) -> crate::Result<()> {
        tx.execute(
            "UPDATE ship_batch_orders SET status = $3, label_id = $4, tracking_numbers = $5, info = $6, updated_at = $7
             WHERE batch_id = $1 AND position = $2",
            &[
                &id,
                &position,
                &o.status,
                &o.label_id,
                &o.tracking_numbers,
                &o.info,
                &now,
            ],
        )?;
        Ok(())
    }
}
