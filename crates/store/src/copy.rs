//! Moving one desk into the shared database (issue 16, `packdesk-server migrate`): every table of
//! a desk's SQLite file copied into PostgreSQL in one transaction, so a failure leaves the shared
//! database as it was. The columns both schemas have are copied as they are; what sharing adds is
//! filled in: the desk of labels, printers, profiles and print jobs, and the search text of orders
//! (from SQLite's word index).
//!
//! A shared database that already holds API keys other than this desk's is refused untouched:
//! two key sets would leave one desk's scripts locked out. Rows already there (the same desk
//! moved in twice) are kept and counted as skipped; tracking counters keep the higher serial.

use crate::pg::PgStore;
use crate::{db_error, Store, StoreError};
use packdesk_model::ServiceError;
use postgres::types::ToSql;
use rusqlite::types::Value;

/// The tables copied, parents before children (the shared schema's foreign keys).
const TABLES: &[&str] = &[
    "meta",
    "api_keys",
    "shipper_accounts",
    "tracking_counters",
    "tracking_numbers",
    "labels",
    "file_parts",
    "files",
    "cancel_labels",
    "manifests",
    "bulk_downloads",
    "rates",
    "address_validations",
    "jobs",
    "webhook_settings",
    "webhook_deliveries",
    "webhook_attempts",
    "transmissions",
    "transmission_attempts",
    "upstream_refs",
    "operators",
    "audit_log",
    "printers",
    "print_profiles",
    "print_jobs",
    "idempotency_keys",
    "orders",
    "order_labels",
    "pack_scans",
    "returns",
    "import_mappings",
    "presets",
    "ship_batches",
    "ship_batch_orders",
];

/// Keys of SQLite's `meta` that describe the file itself, not the desk's data.
const LOCAL_META: &[&str] = &["schema_version", "label_words_up_to"];

/// What a move copied: per table, rows written and rows already there.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct CopyReport {
    pub tables: Vec<(String, u64, u64)>,
}

impl CopyReport {
    /// Rows written to `table`.
    pub fn copied(&self, table: &str) -> u64 {
        self.tables.iter().find(|t| t.0 == table).map_or(0, |t| t.1)
    }

    /// Rows of `table` the shared database had already.
    pub fn skipped(&self, table: &str) -> u64 {
        self.tables.iter().find(|t| t.0 == table).map_or(0, |t| t.2)
    }
}

/// Copies the desk `desk`'s store into the shared database (see the module's words).
pub fn sqlite_to_postgres(from: &Store, to: &PgStore, desk: &str) -> Result<CopyReport, ServiceError> {
    from.read(|lite| {
        // One snapshot of the desk's file for every table.
        let snapshot = lite.unchecked_transaction().map_err(db_error)?;
        to.write(|tx| {
            refuse_other_keys(&snapshot, tx)?;
            let mut report = CopyReport::default();
            for table in TABLES {
                let (copied, skipped) = copy_table(&snapshot, tx, table, desk)?;
                report.tables.push((table.to_string(), copied, skipped));
            }
            // Jobs keep their numbers (lane order); new ones are numbered after them.
            tx.execute(
                "SELECT setval(pg_get_serial_sequence('jobs', 'seq'), GREATEST((SELECT max(seq) FROM jobs), 1))",
                &[],
            )
            .map_err(db_error)?;
            Ok::<_, ServiceError>(report)
        })
    })
}

fn refuse_other_keys(lite: &rusqlite::Connection, tx: &mut postgres::Client) -> Result<(), ServiceError> {
    let theirs: Vec<(String, Vec<u8>)> = tx
        .query("SELECT env, key_hash FROM api_keys ORDER BY env", &[])
        .map_err(db_error)?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    if theirs.is_empty() {
        return Ok(());
    }
    let ours: Vec<(String, Vec<u8>)> = lite
        .prepare("SELECT env, key_hash FROM api_keys ORDER BY env")
        .and_then(|mut st| {
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()
        })
        .map_err(db_error)?;
    if ours != theirs {
        return Err(ServiceError::invalid(
            "to",
            "the shared database holds other API keys than this desk's: moving this desk in would leave the \
             scripts of one set locked out, so nothing was copied. Move the first desk in, then start the \
             other desks on the shared database (they use its keys)",
        ));
    }
    Ok(())
}

/// A PostgreSQL column: its name and type.
struct Column {
    name: String,
    pg_type: String,
}

fn copy_table(
    lite: &rusqlite::Connection,
    tx: &mut postgres::Client,
    table: &str,
    desk: &str,
) -> Result<(u64, u64), ServiceError> {
    let lite_columns: Vec<String> = lite
        .prepare("SELECT name FROM pragma_table_info(?1)")
        .and_then(|mut st| st.query_map([table], |r| r.get(0))?.collect::<rusqlite::Result<_>>())
        .map_err(db_error)?;
    let shared: Vec<Column> = tx
        .query(
            "SELECT column_name::text, data_type::text FROM information_schema.columns
             WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
            &[&table],
        )
        .map_err(db_error)?
        .iter()
        .map(|r| Column {
            name: r.get(0),
            pg_type: r.get(1),
        })
        .filter(|c| lite_columns.contains(&c.name))
        .collect();
    let names: Vec<&str> = shared.iter().map(|c| c.name.as_str()).collect();
    // What the shared schema adds, filled in from this desk.
    let mut extra: Vec<&str> = Vec::new();
    let mut select = names.join(", ");
    match table {
        "labels" | "printers" | "print_profiles" | "print_jobs" => extra.push("desk"),
        "orders" => {
            extra.push("search_text");
            select.push_str(
                ", COALESCE((SELECT group_concat(word, ' ') FROM order_words WHERE order_id = orders.id), '')",
            );
        }
        _ => {}
    }
    let all: Vec<&str> = names.iter().chain(extra.iter()).copied().collect();
    let marks: Vec<String> = (1..=all.len()).map(|i| format!("${i}")).collect();
    let overriding = if table == "jobs" {
        " OVERRIDING SYSTEM VALUE"
    } else {
        ""
    };
    let on_conflict = match table {
        "tracking_counters" => {
            " ON CONFLICT (scope) DO UPDATE SET next_serial = GREATEST(tracking_counters.next_serial, excluded.next_serial)"
        }
        _ => " ON CONFLICT DO NOTHING",
    };
    let insert = format!(
        "INSERT INTO {table} ({}){overriding} VALUES ({}){on_conflict}",
        all.join(", "),
        marks.join(", ")
    );
    let insert = tx.prepare(&insert).map_err(db_error)?;
    let mut rows_sql = format!("SELECT {select} FROM {table}");
    if table == "meta" {
        rows_sql.push_str(&format!(
            " WHERE key NOT IN ({})",
            LOCAL_META
                .iter()
                .map(|k| format!("'{k}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let mut st = lite.prepare(&rows_sql).map_err(db_error)?;
    let mut rows = st.query([]).map_err(db_error)?;
    let (mut copied, mut skipped) = (0, 0);
    while let Some(row) = rows.next().map_err(db_error)? {
        let mut values: Vec<Box<dyn ToSql + Sync>> = Vec::with_capacity(all.len());
        for (i, column) in shared.iter().enumerate() {
            let v: Value = row.get(i).map_err(db_error)?;
            values.push(convert(v, &column.pg_type, table, &column.name)?);
        }
        match table {
            "labels" | "printers" | "print_profiles" | "print_jobs" => values.push(Box::new(desk.to_string())),
            "orders" => {
                let words: String = row.get(shared.len()).map_err(db_error)?;
                values.push(Box::new(words));
            }
            _ => {}
        }
        let refs: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v.as_ref()).collect();
        let n = tx.execute(&insert, &refs).map_err(StoreError::from)?;
        if n == 1 || table == "tracking_counters" {
            copied += 1;
        } else {
            skipped += 1;
        }
    }
    Ok((copied, skipped))
}

/// One SQLite value as the PostgreSQL column's type wants it.
fn convert(v: Value, pg_type: &str, table: &str, column: &str) -> Result<Box<dyn ToSql + Sync>, ServiceError> {
    let odd = |v: &Value| {
        ServiceError::internal(format!(
            "{table}.{column} holds {v:?}, which the shared database's {pg_type} column cannot take"
        ))
    };
    Ok(match (pg_type, v) {
        ("text", Value::Null) => Box::new(None::<String>),
        ("text", Value::Text(s)) => Box::new(s),
        // A label's JSON, deflated in SQLite (`StoredJson`); the shared database keeps the text.
        ("text", Value::Blob(b)) if table == "labels" && ["request", "record"].contains(&column) => Box::new(
            crate::stored_json::StoredJson::inflate(&b)
                .map_err(|e| ServiceError::internal(format!("{table}.{column}: {e}")))?
                .into_string(),
        ),
        ("text", Value::Integer(n)) => Box::new(n.to_string()),
        ("bigint", Value::Null) => Box::new(None::<i64>),
        ("bigint", Value::Integer(n)) => Box::new(n),
        ("double precision", Value::Null) => Box::new(None::<f64>),
        ("double precision", Value::Real(x)) => Box::new(x),
        ("double precision", Value::Integer(n)) => Box::new(n as f64),
        ("bytea", Value::Null) => Box::new(None::<Vec<u8>>),
        ("bytea", Value::Blob(b)) => Box::new(b),
        ("bytea", Value::Text(s)) => Box::new(s.into_bytes()),
        ("boolean", Value::Null) => Box::new(None::<bool>),
        ("boolean", Value::Integer(n)) => Box::new(n != 0),
        (_, v) => return Err(odd(&v)),
    })
}
