//! Orders: a row per order number and environment, the record as JSON, and the words a search
//! finds it by (written in the same transaction as the order): SQLite's word index
//! (`order_words`), or on a shared database the order's search text, searched through the
//! trigram index. Shipping an order locks its row in the label's transaction (`get_for_update`):
//! when two desks scan one order at once, the second waits for the first's label and then finds
//! the order shipped.

use crate::db::Tx;
use crate::paging::Cursor;
use crate::sql::{placeholders, table_row, Args, Dialect, TableRow};
use packdesk_model::status::Env;
use packdesk_model::status::OrderStatus;

table_row! {
#[derive(Debug, Clone, PartialEq)]
pub struct OrderRow {
    pub id: String,
    pub env: Env,
    pub order_number: String,
    pub status: OrderStatus,
    pub record: String,
    pub created_at: i64,
    pub updated_at: i64,
}
}

const COLS: &str = OrderRow::COLUMNS;

pub fn get(c: &mut Tx<'_>, env: Env, id: &str) -> crate::Result<Option<OrderRow>> {
    c.row(
        &format!("SELECT {COLS} FROM orders WHERE env = ?1 AND id = ?2"),
        &[&env, &id],
    )
}

/// An order read to be shipped: on a shared database its row stays locked until the
/// transaction ends, so a second desk scanning it waits and then finds it shipped (on one
/// desk's file the writer is alone anyway).
pub fn get_for_update(c: &mut Tx<'_>, env: Env, id: &str) -> crate::Result<Option<OrderRow>> {
    let lock = match c.dialect() {
        Dialect::Sqlite => "",
        Dialect::Postgres => " FOR UPDATE",
    };
    c.row(
        &format!("SELECT {COLS} FROM orders WHERE env = ?1 AND id = ?2{lock}"),
        &[&env, &id],
    )
}

/// The first key of the advisory locks on order numbers (the second is the number's hash),
/// apart from the store's other advisory locks, which are single 64-bit keys.
const ORDER_NUMBER_LOCKS: i32 = 0x6f72_6472; // "ordr"

/// Order numbers about to be saved: on a shared database, locked until the transaction ends,
/// so two desks saving the same new order at once make it once (the second waits, then finds
/// it and updates it). One desk's file has one writer: nothing to do.
///
/// PostgreSQL's transaction-level advisory locks, taken in one order, so two desks importing
/// overlapping files wait for each other instead of deadlocking. A row that does not exist yet
/// cannot be locked FOR UPDATE: this is what stops two desks inserting the same new order number
/// at once.
pub fn lock_numbers(c: &mut Tx<'_>, env: Env, numbers: &[&str]) -> crate::Result<()> {
    match c {
        Tx::Sqlite(_) => Ok(()),
        Tx::Postgres { client, .. } => {
            use postgres::types::Type;
            let keys: Vec<String> = numbers.iter().map(|n| format!("{env}\n{n}")).collect();
            crate::pg::query(
                &mut **client,
                "SELECT pg_advisory_xact_lock($1, hashtext(k)) FROM (SELECT DISTINCT k FROM unnest($2::text[]) AS k ORDER BY k) AS keys",
                &[(&ORDER_NUMBER_LOCKS, Type::INT4), (&keys, Type::TEXT_ARRAY)],
            )?;
            Ok(())
        }
    }
}

pub fn by_number(c: &mut Tx<'_>, env: Env, order_number: &str) -> crate::Result<Option<OrderRow>> {
    c.row(
        &format!("SELECT {COLS} FROM orders WHERE env = ?1 AND order_number = ?2"),
        &[&env, &order_number],
    )
}

/// Writes an order (new or changed) and its search words: each word of `search_text`, lower case.
pub fn put(c: &mut Tx<'_>, o: &OrderRow, search_text: &str) -> crate::Result<()> {
    match c.dialect() {
        // SQLite: the order, then its words in the word index (the old ones replaced).
        Dialect::Sqlite => {
            c.execute(
                &format!(
                    "INSERT INTO orders ({COLS}) VALUES ({}) ON CONFLICT (id) DO UPDATE SET \
                     order_number = excluded.order_number, status = excluded.status, record = excluded.record, \
                     updated_at = excluded.updated_at",
                    placeholders(OrderRow::COUNT)
                ),
                &o.values(),
            )?;
            c.execute("DELETE FROM order_words WHERE order_id = ?1", &[&o.id])?;
            for w in search_text.split_whitespace() {
                c.execute(
                    "INSERT INTO order_words (word, order_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
                    &[&w.to_lowercase(), &o.id],
                )?;
            }
        }
        // PostgreSQL: the search text (lower case, as searched) in the order's own row, where the
        // trigram index finds its words; one statement.
        Dialect::Postgres => {
            let lower = search_text.to_lowercase();
            let search_text = crate::pg::searchable(&lower);
            let mut values = o.values();
            values.push(&search_text);
            c.execute(
                &format!(
                    "INSERT INTO orders ({COLS}, search_text) VALUES ({}) \
                     ON CONFLICT (id) DO UPDATE SET order_number = excluded.order_number, status = excluded.status, \
                     record = excluded.record, updated_at = excluded.updated_at, search_text = excluded.search_text",
                    placeholders(OrderRow::COUNT + 1)
                ),
                &values,
            )?;
        }
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
    c: &mut Tx<'_>,
    env: Env,
    f: &OrderFilter,
    limit: usize,
    after: Option<&Cursor>,
) -> crate::Result<Vec<OrderRow>> {
    let search = f.search.as_deref().unwrap_or_default().trim().to_lowercase();
    let mut words: Vec<String> = search.split_whitespace().map(str::to_string).collect();
    let mut args = Args::default();
    let dialect = c.dialect();
    let mut sql = match dialect {
        // SQLite's word index. Two plans. The rarest word drives when it is rare: its hits from the
        // word index, checked for the other words, then sorted (few rows). When every word is
        // common ("smith" in a million orders), the orders are walked newest first and each
        // checked, which fills a page early.
        Dialect::Sqlite => {
            let mut rarest: Option<(i64, usize)> = None;
            for (i, w) in words.iter().enumerate() {
                let n: i64 = c
                    .value(
                        "SELECT COUNT(*) FROM (SELECT 1 FROM order_words WHERE word >= ?1 AND word < ?2 LIMIT ?3)",
                        &[w, &format!("{w}\u{10FFFF}"), &COMMON_WORD],
                    )?
                    .unwrap_or_default();
                if rarest.is_none_or(|(m, _)| n < m) {
                    rarest = Some((n, i));
                }
            }
            let driver = match rarest {
                Some((n, i)) if n < COMMON_WORD => Some(words.remove(i)),
                _ => None,
            };
            let mut sql = match driver {
                Some(first) => {
                    let end = format!("{first}\u{10FFFF}");
                    format!(
                        "SELECT orders.id FROM (SELECT DISTINCT order_id FROM order_words WHERE word >= {} AND word < {}) \
                         AS hits CROSS JOIN orders ON orders.id = hits.order_id WHERE env = {}",
                        args.push(first),
                        args.push(end),
                        args.push(env),
                    )
                }
                None => format!("SELECT orders.id FROM orders WHERE env = {}", args.push(env)),
            };
            // Every other word must start a word of the same order.
            for w in &words {
                sql.push_str(&format!(
                    " AND EXISTS (SELECT 1 FROM order_words w WHERE w.order_id = orders.id AND w.word >= {} AND w.word < {})",
                    args.push(w.clone()),
                    args.push(format!("{w}\u{10FFFF}")),
                ));
            }
            sql
        }
        // PostgreSQL: every word starts a word of the order's search text, any case, through the
        // trigram index.
        Dialect::Postgres => {
            let mut sql = format!("SELECT {COLS} FROM orders WHERE env = {}", args.push(env));
            for w in &words {
                // The start of a word: at the start of the text or after white space.
                sql.push_str(&format!(
                    " AND search_text ~ {}",
                    args.push(format!("(^|\\s){}", regex_literal(w)))
                ));
            }
            sql
        }
    };
    if let Some(s) = f.status {
        sql.push_str(&format!(" AND status = {}", args.push(s)));
    }
    if let Some(cursor) = after {
        let (at, id) = (args.push(cursor.created_at), args.push(cursor.id.clone()));
        sql.push_str(&format!(" AND (created_at, id) < ({at}, {id})"));
    }
    sql.push_str(&format!(
        " ORDER BY created_at DESC, id DESC LIMIT {}",
        args.push(limit as i64 + 1)
    ));
    if dialect == Dialect::Sqlite {
        // The page's ids first (from indexes alone), then only their records.
        sql = format!("SELECT {COLS} FROM orders WHERE id IN ({sql}) ORDER BY created_at DESC, id DESC");
    }
    // A search: planned for its words each time (`rows_planned_each_time`).
    c.rows_planned_each_time(&sql, &args.refs())
}

/// `text` as a regular expression that matches it literally (PostgreSQL's search).
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

/// Notes that a label ships an order (written with the label).
pub fn link_label(c: &mut Tx<'_>, label_id: &str, order_id: &str) -> crate::Result<()> {
    c.execute(
        "INSERT INTO order_labels (label_id, order_id) VALUES (?1, ?2)",
        &[&label_id, &order_id],
    )?;
    Ok(())
}

/// The order a label ships, if it ships one.
pub fn order_of_label(c: &mut Tx<'_>, label_id: &str) -> crate::Result<Option<String>> {
    c.value("SELECT order_id FROM order_labels WHERE label_id = ?1", &[&label_id])
}

/// A saved column mapping of the CSV import: its columns as JSON (`{"<header>": "<field path>"}`),
/// shared by every desk of a shared database.
pub fn mapping(c: &mut Tx<'_>, name: &str) -> crate::Result<Option<String>> {
    c.value("SELECT columns FROM import_mappings WHERE name = ?1", &[&name])
}

pub fn put_mapping(c: &mut Tx<'_>, name: &str, columns: &str, now: i64) -> crate::Result<()> {
    c.execute(
        "INSERT INTO import_mappings (name, columns, updated_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT (name) DO UPDATE SET columns = excluded.columns, updated_at = excluded.updated_at",
        &[&name, &columns, &now],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(i: i64, number: &str) -> OrderRow {
        OrderRow {
            id: format!("order-{i}"),
            env: Env::Live,
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
                put(
                    &mut Tx::Sqlite(tx),
                    &row(1, "SO-1001"),
                    "so-1001 Jane Doe M1 1AE MUG-RED",
                )?;
                put(
                    &mut Tx::Sqlite(tx),
                    &row(2, "SO-1002"),
                    "so-1002 Hans Müller 10115 MUG-BLUE",
                )?;
                Ok::<_, crate::StoreError>(())
            })
            .unwrap();
        let found = |s: &str| -> Vec<String> {
            let f = OrderFilter {
                search: Some(s.into()),
                ..Default::default()
            };
            store
                .read(|c| list(&mut Tx::Sqlite(c), Env::Live, &f, 10, None))
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
            .write(|tx| put(&mut Tx::Sqlite(tx), &row(1, "SO-1001"), "so-1001 Jane Smith M1 1AE"))
            .unwrap();
        assert!(found("doe").is_empty(), "the old name's words are gone");
        assert_eq!(found("smith"), vec!["order-1"]);
        let other_env = OrderFilter::default();
        assert!(store
            .read(|c| list(&mut Tx::Sqlite(c), Env::Sandbox, &other_env, 10, None))
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
                    put(
                        &mut Tx::Sqlite(tx),
                        &row(i, &format!("SO-{i}")),
                        &format!("so-{i} Smith {}", i % 7),
                    )?;
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
                .read(|c| list(&mut Tx::Sqlite(c), Env::Live, &f, 3, after))
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
