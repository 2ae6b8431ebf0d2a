//! Batches of orders shipped in the background: the batch, and a row per order in the batch's
//! order with its state (`queued`, `shipped`, `failed`) and result. On a shared database a batch
//! queued at one desk may be shipped by the jobs of any.

use crate::db::Tx;
use crate::sql::table_row;
use packdesk_model::status::BatchOrderStatus;
use packdesk_model::status::Env;

table_row! {
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
}

pub fn insert(c: &mut Tx<'_>, id: &str, env: Env, orders: &[(String, String)], now: i64) -> crate::Result<()> {
    c.execute(
        "INSERT INTO ship_batches (id, env, created_at) VALUES (?1, ?2, ?3)",
        &[&id, &env, &now],
    )?;
    match c {
        // SQLite: a statement per order (prepared once; no round trips to wait for).
        Tx::Sqlite(_) => {
            for (i, (order_id, number)) in orders.iter().enumerate() {
                c.execute(
                    "INSERT INTO ship_batch_orders \
                     (batch_id, position, order_id, order_number, status, tracking_numbers, updated_at) \
                     VALUES (?1, ?2, ?3, ?4, 'queued', '', ?5)",
                    &[&id, &(i as i64), order_id, number, &now],
                )?;
            }
        }
        // PostgreSQL: one statement for the whole batch (not a round trip per order), from
        // arrays, which only PostgreSQL takes: positions from 0 in the orders' order.
        Tx::Postgres { client, .. } => {
            let (ids, numbers): (Vec<&str>, Vec<&str>) = orders.iter().map(|(o, n)| (o.as_str(), n.as_str())).unzip();
            crate::pg::execute_prepared(
                &mut **client,
                "INSERT INTO ship_batch_orders (batch_id, position, order_id, order_number, status, tracking_numbers, updated_at)
                 SELECT $1, o.n - 1, o.order_id, o.order_number, 'queued', '', $2
                 FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS o (order_id, order_number, n)",
                &[&id, &now, &ids, &numbers],
            )?;
        }
    }
    Ok(())
}

/// The batch's creation time, if it exists in the environment.
pub fn created_at(c: &mut Tx<'_>, env: Env, id: &str) -> crate::Result<Option<i64>> {
    c.value(
        "SELECT created_at FROM ship_batches WHERE id = ?1 AND env = ?2",
        &[&id, &env],
    )
}

pub fn orders(c: &mut Tx<'_>, id: &str) -> crate::Result<Vec<BatchOrderRow>> {
    c.rows(
        "SELECT position, order_id, order_number, status, label_id, tracking_numbers, info, updated_at \
         FROM ship_batch_orders WHERE batch_id = ?1 ORDER BY position",
        &[&id],
    )
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
pub fn set_result(c: &mut Tx<'_>, id: &str, position: i64, o: Outcome, now: i64) -> crate::Result<()> {
    c.execute(
        "UPDATE ship_batch_orders SET status = ?3, label_id = ?4, tracking_numbers = ?5, info = ?6, updated_at = ?7 \
         WHERE batch_id = ?1 AND position = ?2",
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
