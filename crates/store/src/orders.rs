//! Orders: a row per order number and environment, the record as JSON, and the words a search
//! finds it by (written in the same transaction as the order).

use crate::paging::Cursor;
use packdesk_model::status::OrderStatus;
use rusqlite::types::Value;
use rusqlite::{params, Connection, OptionalExtension, Row};

#[derive(Debug, Clone, PartialEq)]
pub struct OrderRow {
    pub id: String,
    pub env: String,
    pub order_number: String,
    pub status: OrderStatus,
    pub record: String,
    pub created_at: i64,
    pub updated_at: i64,
}

const COLS: &str = "id, env, order_number, status, record, created_at, updated_at";

fn from_row(r: &Row) -> rusqlite::Result<OrderRow> {
    Ok(OrderRow {
        id: r.get(0)?,
        env: r.get(1)?,
        order_number: r.get(2)?,
        status: r.get(3)?,
        record: r.get(4)?,
        created_at: r.get(5)?,
        updated_at: r.get(6)?,
    })
}

pub fn get(conn: &Connection, env: &str, id: &str) -> crate::Result<Option<OrderRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLS} FROM orders WHERE env = ?1 AND id = ?2"))?
        .query_row(params![env, id], from_row)
        .optional()?)
}

pub fn by_number(conn: &Connection, env: &str, order_number: &str) -> crate::Result<Option<OrderRow>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {COLS} FROM orders WHERE env = ?1 AND order_number = ?2"
        ))?
        .query_row(params![env, order_number], from_row)
        .optional()?)
}

/// Writes an order (new or changed) and its search words: each word of `search_text`, lower case.
pub fn put(conn: &Connection, o: &OrderRow, search_text: &str) -> crate::Result<()> {
    conn.prepare_cached(&format!(
        "INSERT INTO orders ({COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (id) DO UPDATE SET \
         order_number = excluded.order_number, status = excluded.status, record = excluded.record, \
         updated_at = excluded.updated_at"
    ))?
    .execute(params![
        o.id,
        o.env,
        o.order_number,
        o.status,
        o.record,
        o.created_at,
        o.updated_at
    ])?;
    conn.prepare_cached("DELETE FROM order_words WHERE order_id = ?1")?
        .execute([&o.id])?;
    let mut st = conn.prepare_cached("INSERT OR IGNORE INTO order_words (word, order_id) VALUES (?1, ?2)")?;
    for w in search_text.split_whitespace() {
        st.execute(params![w.to_lowercase(), o.id])?;
    }
    Ok(())
}

#[derive(Debug, Default, Clone)]
pub struct OrderFilter {
    pub status: Option<OrderStatus>,
    /// The start of a word of the order number, the recipient's name, the postal code or a SKU.
    pub search: Option<String>,
}

/// A search whose every word has at least this many hits walks the orders newest first.
const COMMON_WORD: i64 = 2_000;

/// A page of orders, newest first (`limit` + 1 rows, for `paging::page`).
pub fn list(
    conn: &Connection,
    env: &str,
    f: &OrderFilter,
    limit: usize,
    after: Option<&Cursor>,
) -> crate::Result<Vec<OrderRow>> {
    let search = f
        .search
        .as_ref()
        .map(|s| s.trim().to_lowercase())
        .filter(|s| !s.is_empty());
    let mut words: Vec<String> = search
        .as_deref()
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    // Two plans. The rarest word drives when it is rare: its hits from the word index, checked for
    // the other words, then sorted (few rows). When every word is common ("smith" in a million
    // orders), the orders are walked newest first and each checked, which fills a page early.
    let mut probe = conn
        .prepare_cached("SELECT COUNT(*) FROM (SELECT 1 FROM order_words WHERE word >= ?1 AND word < ?2 LIMIT ?3)")?;
    let mut rarest: Option<(i64, usize)> = None;
    for (i, w) in words.iter().enumerate() {
        let n: i64 = probe.query_row(params![w, format!("{w}\u{10FFFF}"), COMMON_WORD], |r| r.get(0))?;
        if rarest.is_none_or(|(m, _)| n < m) {
            rarest = Some((n, i));
        }
    }
    let driver = match rarest {
        Some((n, i)) if n < COMMON_WORD => Some(words.remove(i)),
        _ => None,
    };
    let mut args: Vec<Value> = Vec::new();
    let mut sql = match &driver {
        Some(first) => {
            args.push(first.clone().into());
            args.push(format!("{first}\u{10FFFF}").into());
            "SELECT orders.id FROM (SELECT DISTINCT order_id FROM order_words WHERE word >= ? AND word < ?) AS hits \
             CROSS JOIN orders ON orders.id = hits.order_id WHERE env = ?"
                .to_string()
        }
        None => "SELECT orders.id FROM orders WHERE env = ?".to_string(),
    };
    args.push(env.to_string().into());
    // Every other word must start a word of the same order.
    for w in &words {
        sql.push_str(
            " AND EXISTS (SELECT 1 FROM order_words w WHERE w.order_id = orders.id AND w.word >= ? AND w.word < ?)",
        );
        args.push(w.clone().into());
        args.push(format!("{w}\u{10FFFF}").into());
    }
    if let Some(s) = &f.status {
        sql.push_str(" AND status = ?");
        args.push(Value::Text(s.as_str().into()));
    }
    if let Some(c) = after {
        sql.push_str(" AND (created_at < ? OR (created_at = ? AND id < ?))");
        args.extend([c.created_at.into(), c.created_at.into(), Value::from(c.id.clone())]);
    }
    sql.push_str(" ORDER BY created_at DESC, id DESC LIMIT ?");
    args.push(Value::from(limit as i64 + 1));
    // The page's ids first (from indexes alone), then only their records.
    let sql = format!("SELECT {COLS} FROM orders WHERE id IN ({sql}) ORDER BY created_at DESC, id DESC");
    Ok(conn
        .prepare_cached(&sql)?
        .query_map(rusqlite::params_from_iter(args), from_row)?
        .collect::<rusqlite::Result<_>>()?)
}

/// Notes that a label ships an order (written with the label).
pub fn link_label(conn: &Connection, label_id: &str, order_id: &str) -> crate::Result<()> {
    conn.prepare_cached("INSERT INTO order_labels (label_id, order_id) VALUES (?1, ?2)")?
        .execute([label_id, order_id])?;
    Ok(())
}

/// The order a label ships, if it ships one.
pub fn order_of_label(conn: &Connection, label_id: &str) -> crate::Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT order_id FROM order_labels WHERE label_id = ?1")?
        .query_row([label_id], |r| r.get(0))
        .optional()?)
}

/// A saved column mapping of the CSV import: its columns as JSON (`{"<header>": "<field path>"}`).
pub fn mapping(conn: &Connection, name: &str) -> crate::Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT columns FROM import_mappings WHERE name = ?1")?
        .query_row([name], |r| r.get(0))
        .optional()?)
}

pub fn put_mapping(conn: &Connection, name: &str, columns: &str, now: i64) -> crate::Result<()> {
    conn.prepare_cached(
        "INSERT INTO import_mappings (name, columns, updated_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT (name) DO UPDATE SET columns = excluded.columns, updated_at = excluded.updated_at",
    )?
    .execute(params![name, columns, now])?;
    Ok(())
}

/// Orders in the shared database of many desks. Shipping an order locks its row in the label's
/// transaction (`get_for_update`): when two desks scan one order at once, the second waits for the
/// first's label and then finds the order shipped. Search: every word starts a word of the
/// order's search text, any case, through the trigram index.
pub mod pg {
    use super::{OrderFilter, OrderRow};
    use crate::paging::Cursor;
    use postgres::types::{ToSql, Type};
    use postgres::GenericClient;

    /// The first key of the advisory locks on order numbers (the second is the number's hash),
    /// apart from the store's other advisory locks, which are single 64-bit keys.
    const ORDER_NUMBER_LOCKS: i32 = 0x6f72_6472; // "ordr"

    /// Locks `numbers` of `env` until the transaction ends (transaction-level advisory locks,
    /// taken in one order, so two desks importing overlapping files wait for each other instead
    /// of deadlocking). A row that does not exist yet cannot be locked FOR UPDATE: this is what
    /// stops two desks inserting the same new order number at once.
    pub fn lock_numbers(tx: &mut impl GenericClient, env: &str, numbers: &[&str]) -> crate::Result<()> {
        let keys: Vec<String> = numbers.iter().map(|n| format!("{env}\n{n}")).collect();
        tx.query_typed(
            "SELECT pg_advisory_xact_lock($1, hashtext(k)) FROM (SELECT DISTINCT k FROM unnest($2::text[]) AS k ORDER BY k) AS keys",
            &[(&ORDER_NUMBER_LOCKS, Type::INT4), (&keys, Type::TEXT_ARRAY)],
        )?;
        Ok(())
    }

    fn from_row(r: &postgres::Row) -> OrderRow {
        OrderRow {
            id: r.get(0),
            env: r.get(1),
            order_number: r.get(2),
            status: r.get(3),
            record: r.get(4),
            created_at: r.get(5),
            updated_at: r.get(6),
        }
    }

    pub fn get(client: &mut impl GenericClient, env: &str, id: &str) -> crate::Result<Option<OrderRow>> {
        let sql = format!("SELECT {} FROM orders WHERE env = $1 AND id = $2", super::COLS);
        Ok(client.query_opt(&sql, &[&env, &id])?.as_ref().map(from_row))
    }

    /// The order, its row locked until the caller's transaction ends (the label that ships it).
    pub fn get_for_update(tx: &mut impl GenericClient, env: &str, id: &str) -> crate::Result<Option<OrderRow>> {
        let sql = format!(
            "SELECT {} FROM orders WHERE env = $1 AND id = $2 FOR UPDATE",
            super::COLS
        );
        Ok(tx.query_opt(&sql, &[&env, &id])?.as_ref().map(from_row))
    }

    pub fn by_number(
        client: &mut impl GenericClient,
        env: &str,
        order_number: &str,
    ) -> crate::Result<Option<OrderRow>> {
        let sql = format!(
            "SELECT {} FROM orders WHERE env = $1 AND order_number = $2",
            super::COLS
        );
        Ok(client.query_opt(&sql, &[&env, &order_number])?.as_ref().map(from_row))
    }

    /// Writes an order (new or changed) with its search text (lower case, as searched).
    pub fn put(tx: &mut impl GenericClient, o: &OrderRow, search_text: &str) -> crate::Result<()> {
        tx.execute(
            &format!(
                "INSERT INTO orders ({}, search_text) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                 ON CONFLICT (id) DO UPDATE SET order_number = excluded.order_number, status = excluded.status,
                 record = excluded.record, updated_at = excluded.updated_at, search_text = excluded.search_text",
                super::COLS
            ),
            &[
                &o.id,
                &o.env,
                &o.order_number,
                &o.status,
                &o.record,
                &o.created_at,
                &o.updated_at,
                &crate::pg::searchable(&search_text.to_lowercase()),
            ],
        )?;
        Ok(())
    }

    /// Notes that a label ships an order (written with the label).
    pub fn link_label(tx: &mut impl GenericClient, label_id: &str, order_id: &str) -> crate::Result<()> {
        tx.execute(
            "INSERT INTO order_labels (label_id, order_id) VALUES ($1, $2)",
            &[&label_id, &order_id],
        )?;
        Ok(())
    }

    /// The order a label ships, if it ships one.
    pub fn order_of_label(client: &mut impl GenericClient, label_id: &str) -> crate::Result<Option<String>> {
        Ok(client
            .query_opt("SELECT order_id FROM order_labels WHERE label_id = $1", &[&label_id])?
            .map(|r| r.get(0)))
    }

    /// A page of orders, newest first (`limit` + 1 rows), as SQLite's `list`.
    pub fn list(
        client: &mut impl GenericClient,
        env: &str,
        f: &OrderFilter,
        limit: usize,
        after: Option<&Cursor>,
    ) -> crate::Result<Vec<OrderRow>> {
        let mut args: Vec<Box<dyn ToSql + Sync>> = vec![Box::new(env.to_string())];
        let mut sql = format!("SELECT {} FROM orders WHERE env = $1", super::COLS);
        let mut arg = |sql: &mut String, clause: &str, v: Box<dyn ToSql + Sync>| {
            args.push(v);
            sql.push_str(&clause.replace("$?", &format!("${}", args.len())));
        };
        let search = f.search.as_deref().unwrap_or_default().to_lowercase();
        for w in search.split_whitespace() {
            // The start of a word: at the start of the text or after white space.
            arg(
                &mut sql,
                " AND search_text ~ $?",
                Box::new(format!("(^|\\s){}", regex_literal(w))),
            );
        }
        if let Some(s) = &f.status {
            arg(&mut sql, " AND status = $?", Box::new(*s));
        }
        if let Some(c) = after {
            arg(&mut sql, " AND (created_at, id) < ($?", Box::new(c.created_at));
            arg(&mut sql, ", $?)", Box::new(c.id.clone()));
        }
        arg(
            &mut sql,
            " ORDER BY created_at DESC, id DESC LIMIT $?",
            Box::new(limit as i64 + 1),
        );
        let refs: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a.as_ref()).collect();
        Ok(client.query(&sql, &refs)?.iter().map(from_row).collect())
    }

    /// A saved column mapping of the CSV import, shared by every desk.
    pub fn mapping(client: &mut impl GenericClient, name: &str) -> crate::Result<Option<String>> {
        Ok(client
            .query_opt("SELECT columns FROM import_mappings WHERE name = $1", &[&name])?
            .map(|r| r.get(0)))
    }

    pub fn put_mapping(tx: &mut impl GenericClient, name: &str, columns: &str, now: i64) -> crate::Result<()> {
        tx.execute(
            "INSERT INTO import_mappings (name, columns, updated_at) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO UPDATE SET columns = excluded.columns, updated_at = excluded.updated_at",
            &[&name, &columns, &now],
        )?;
        Ok(())
    }

    /// `text` as a regular expression that matches it literally.
    fn regex_literal(text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            if !c.is_alphanumeric() && !c.is_whitespace() {
                out.push('\\');
            }
            out.push(c);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(i: i64, number: &str) -> OrderRow {
        OrderRow {
            id: format!("order-{i}"),
            env: "live".into(),
            order_number: number.into(),
            status: OrderStatus::Open,
            record: "{}".into(),
            created_at: i,
            updated_at: i,
        }
    }

    #[test]
    fn orders_are_found_by_the_start_of_any_word_and_a_change_replaces_their_words() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::Store::open(&dir.path().join("db.sqlite3")).unwrap();
        store
            .write(|tx| {
                put(tx, &row(1, "SO-1001"), "so-1001 Jane Doe M1 1AE MUG-RED")?;
                put(tx, &row(2, "SO-1002"), "so-1002 Hans Müller 10115 MUG-BLUE")?;
                Ok::<_, crate::StoreError>(())
            })
            .unwrap();
        let found = |s: &str| -> Vec<String> {
            let f = OrderFilter {
                search: Some(s.into()),
                ..Default::default()
            };
            store
                .read(|c| list(c, "live", &f, 10, None))
                .unwrap()
                .into_iter()
                .map(|o| o.id)
                .collect()
        };
        assert_eq!(found("so-100"), vec!["order-2", "order-1"], "newest first");
        assert_eq!(found("mug-r"), vec!["order-1"], "a SKU's start");
        assert_eq!(found("MÜLLER"), vec!["order-2"], "any case, any script");
        assert_eq!(found("jane m1"), vec!["order-1"], "every word must match");
        assert!(found("doe 10115").is_empty(), "words of two orders are not one order");
        assert!(found("1001x").is_empty());
        store
            .write(|tx| put(tx, &row(1, "SO-1001"), "so-1001 Jane Smith M1 1AE"))
            .unwrap();
        assert!(found("doe").is_empty(), "the old name's words are gone");
        assert_eq!(found("smith"), vec!["order-1"]);
        let other_env = OrderFilter::default();
        assert!(store
            .read(|c| list(c, "sandbox", &other_env, 10, None))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn a_word_most_orders_share_is_searched_newest_first_with_the_other_words() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::Store::open(&dir.path().join("db.sqlite3")).unwrap();
        let n = COMMON_WORD + 100;
        store
            .write(|tx| {
                for i in 0..n {
                    put(tx, &row(i, &format!("SO-{i}")), &format!("so-{i} Smith {}", i % 7))?;
                }
                Ok::<_, crate::StoreError>(())
            })
            .unwrap();
        let page = |s: &str, after: Option<&Cursor>| -> Vec<String> {
            let f = OrderFilter {
                search: Some(s.into()),
                ..Default::default()
            };
            store
                .read(|c| list(c, "live", &f, 3, after))
                .unwrap()
                .into_iter()
                .map(|o| o.id)
                .collect()
        };
        let last = n - 1;
        assert_eq!(
            page("smith", None),
            (0..4).map(|k| format!("order-{}", last - k)).collect::<Vec<_>>(),
            "newest first, limit + 1"
        );
        let sixes: Vec<String> = (0..n)
            .rev()
            .filter(|i| i % 7 == 6)
            .take(4)
            .map(|i| format!("order-{i}"))
            .collect();
        assert_eq!(page("smith 6", None), sixes, "every word must match");
        let cursor = Cursor {
            created_at: last - 1,
            id: format!("order-{}", last - 1),
        };
        assert_eq!(
            page("smith", Some(&cursor))[0],
            format!("order-{}", last - 2),
            "pages go on"
        );
    }
}
