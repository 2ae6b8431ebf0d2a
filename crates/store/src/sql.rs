//! One statement for both databases (issue 36). A store function is written once, against `Tx`:
//! its SQL uses SQLite's numbered placeholders (`?1`, `?2`, ...), which PostgreSQL receives as
//! `$1`, `$2`, ...; its values are `Param`s (what both drivers send) and its rows are read through
//! `Row` into a `FromRow` type. Both schemas use the same column types (TEXT, BIGINT/INTEGER,
//! BYTEA/BLOB, BOOLEAN), so one Rust type reads a column on either.
//!
//! What only one database has is chosen explicitly with `Tx::dialect` and named as such at its
//! place (`FOR UPDATE`, `SKIP LOCKED`, advisory locks, SQLite's word index, PostgreSQL's trigram
//! search, the one-statement label write).

use crate::db::Tx;
use crate::{Result, StoreError};

/// Which database a statement runs on, for the few statements only one of them has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// A value a statement takes: one both drivers can send.
pub trait Param: rusqlite::ToSql + postgres::types::ToSql + Sync {}
impl<T: rusqlite::ToSql + postgres::types::ToSql + Sync + ?Sized> Param for T {}

/// A value a column gives: one both drivers can read.
pub trait Column: rusqlite::types::FromSql + for<'b> postgres::types::FromSql<'b> {}
impl<T: rusqlite::types::FromSql + for<'b> postgres::types::FromSql<'b>> Column for T {}

/// One row of an answer, from either database.
pub enum Row<'a> {
    Sqlite(&'a rusqlite::Row<'a>),
    Postgres(&'a postgres::Row),
}

impl Row<'_> {
    /// The value of column `i` (0-based).
    pub fn get<T: Column>(&self, i: usize) -> Result<T> {
        match self {
            Row::Sqlite(r) => Ok(r.get(i)?),
            Row::Postgres(r) => Ok(r.try_get(i)?),
        }
    }
}

/// A type read from one row.
pub trait FromRow: Sized {
    fn from_row(r: &Row<'_>) -> Result<Self>;
}

macro_rules! tuple_from_row {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Column),+> FromRow for ($($t,)+) {
            fn from_row(r: &Row<'_>) -> Result<Self> {
                Ok(($(r.get::<$t>($i)?,)+))
            }
        }
    };
}
tuple_from_row!(A 0);
tuple_from_row!(A 0, B 1);
tuple_from_row!(A 0, B 1, C 2);
tuple_from_row!(A 0, B 1, C 2, D 3);

/// A row type that is a table's columns in order, declared once: the struct, its read
/// (`FromRow`, column i into field i) and its columns and values (`TableRow`), so that a select
/// names `T::COLUMNS`. With `in "table"` the row is the whole of that table's row, and
/// `Tx::insert(&row)` writes it (`Insertable`); without, it is only read (a table whose rows carry
/// more than the struct, such as a shared database's desk).
macro_rules! table_row {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident in $table:literal { $($fields:tt)+ }
    ) => {
        $crate::sql::table_row! { $(#[$meta])* $vis struct $name { $($fields)+ } }

        impl $crate::sql::Insertable for $name {
            const TABLE: &'static str = $table;
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $($(#[$field_meta:meta])* $field_vis:vis $field:ident : $ty:ty),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $($(#[$field_meta])* $field_vis $field: $ty),+
        }

        impl $crate::sql::FromRow for $name {
            // The last field's count is not read again.
            #[allow(unused_assignments)]
            fn from_row(r: &$crate::sql::Row<'_>) -> $crate::Result<Self> {
                let mut column = 0;
                // Fields are read in the order written, the order of the columns.
                Ok($name {
                    $($field: {
                        let value = r.get(column)?;
                        column += 1;
                        value
                    }),+
                })
            }
        }

        impl $crate::sql::TableRow for $name {
            const COLUMNS: &'static str = $crate::sql::column_list!($($field),+);
            const COUNT: usize = [$(stringify!($field)),+].len();
            fn values(&self) -> Vec<&dyn $crate::sql::Param> {
                vec![$(&self.$field),+]
            }
        }
    };
}
pub(crate) use table_row;

/// `a, b, c` from the field names `a`, `b`, `c`.
macro_rules! column_list {
    ($first:ident $(, $rest:ident)*) => {
        concat!(stringify!($first) $(, ", ", stringify!($rest))*)
    };
}
pub(crate) use column_list;

/// A row type whose fields are columns of a table, in order (declared with `table_row!`).
pub trait TableRow: FromRow {
    /// The columns, comma-separated, in the fields' order.
    const COLUMNS: &'static str;
    /// How many columns.
    const COUNT: usize;
    /// The fields' values, in the columns' order.
    fn values(&self) -> Vec<&dyn Param>;
}

/// A row type that is the whole row of `TABLE` (`table_row!` with `in "table"`): what
/// `Tx::insert` writes.
pub trait Insertable: TableRow {
    const TABLE: &'static str;
}

/// `?1, ?2, ..., ?n`.
pub fn placeholders(n: usize) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(n * 5);
    for i in 1..=n {
        let separator = if i == 1 { "" } else { ", " };
        // Writing to a String cannot fail.
        let _ = write!(out, "{separator}?{i}");
    }
    out
}

/// The values of a statement put together piece by piece (a search's words, optional filters),
/// each answering its placeholder as it is added.
#[derive(Default)]
pub struct Args<'a>(Vec<Box<dyn Param + 'a>>);

impl<'a> Args<'a> {
    /// Takes `v` as the next value; answers its placeholder (`?n`).
    pub fn push(&mut self, v: impl Param + 'a) -> String {
        self.0.push(Box::new(v));
        format!("?{}", self.0.len())
    }

    /// The values, as the `Tx` methods take them.
    pub fn refs(&self) -> Vec<&dyn Param> {
        self.0.iter().map(|v| &**v as &dyn Param).collect()
    }
}

/// `sql` as PostgreSQL takes it: `?N` becomes `$N` (outside quoted text).
fn numbered_for_postgres(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut quoted = false;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                out.push(c);
            }
            '?' if !quoted && chars.peek().is_some_and(char::is_ascii_digit) => out.push('$'),
            _ => out.push(c),
        }
    }
    out
}

impl Tx<'_> {
    /// The database this transaction runs on.
    pub fn dialect(&self) -> Dialect {
        match self {
            Tx::Sqlite(_) => Dialect::Sqlite,
            Tx::Postgres { .. } => Dialect::Postgres,
        }
    }

    /// The desk this process is on a shared database; None on one desk's own file.
    pub fn desk(&self) -> Option<&str> {
        match self {
            Tx::Sqlite(_) => None,
            Tx::Postgres { desk, .. } => Some(desk),
        }
    }

    /// Every row `sql` answers.
    pub fn rows<T: FromRow>(&mut self, sql: &str, params: &[&dyn Param]) -> Result<Vec<T>> {
        match self {
            Tx::Sqlite(conn) => {
                let mut statement = conn.prepare_cached(sql)?;
                let values = sqlite_values(params);
                let mut rows = statement.query(&*values)?;
                let mut out = Vec::new();
                while let Some(row) = rows.next()? {
                    out.push(T::from_row(&Row::Sqlite(row))?);
                }
                Ok(out)
            }
            Tx::Postgres { client, .. } => {
                let rows =
                    crate::pg::query_prepared(&mut **client, &numbered_for_postgres(sql), &postgres_values(params))?;
                rows.iter().map(|r| T::from_row(&Row::Postgres(r))).collect()
            }
        }
    }

    /// Every row `sql` answers, planned for its values each time: for searches and time windows.
    /// PostgreSQL gets the statement unprepared, as one prepared once (`rows`) is given a generic
    /// plan after five runs, which cannot know how rare a search text is or how recent a time (a
    /// search then walked the page index: 15 ms at 20,000 labels, where the trigram index takes
    /// 1). SQLite plans alike whatever the values: `rows`.
    pub fn rows_planned_each_time<T: FromRow>(&mut self, sql: &str, params: &[&dyn Param]) -> Result<Vec<T>> {
        match self {
            Tx::Postgres { client, .. } => {
                let rows = client.query(&numbered_for_postgres(sql), &postgres_values(params))?;
                rows.iter().map(|r| T::from_row(&Row::Postgres(r))).collect()
            }
            Tx::Sqlite(_) => self.rows(sql, params),
        }
    }

    /// The first row `sql` answers, if any.
    pub fn row<T: FromRow>(&mut self, sql: &str, params: &[&dyn Param]) -> Result<Option<T>> {
        Ok(self.rows(sql, params)?.into_iter().next())
    }

    /// The first column of every row `sql` answers.
    pub fn values<T: Column>(&mut self, sql: &str, params: &[&dyn Param]) -> Result<Vec<T>> {
        Ok(self.rows::<(T,)>(sql, params)?.into_iter().map(|(v,)| v).collect())
    }

    /// The first column of the first row `sql` answers, if any.
    pub fn value<T: Column>(&mut self, sql: &str, params: &[&dyn Param]) -> Result<Option<T>> {
        Ok(self.row::<(T,)>(sql, params)?.map(|(v,)| v))
    }

    /// Whether `sql` answers any row.
    pub fn exists(&mut self, sql: &str, params: &[&dyn Param]) -> Result<bool> {
        match self {
            Tx::Sqlite(conn) => {
                let values = sqlite_values(params);
                Ok(conn.prepare_cached(sql)?.exists(&*values)?)
            }
            Tx::Postgres { .. } => Ok(!self.rows::<()>(sql, params)?.is_empty()),
        }
    }

    /// Runs `sql`; answers how many rows it changed.
    pub fn execute(&mut self, sql: &str, params: &[&dyn Param]) -> Result<usize> {
        match self {
            Tx::Sqlite(conn) => {
                let values = sqlite_values(params);
                Ok(conn.prepare_cached(sql)?.execute(&*values)?)
            }
            Tx::Postgres { client, .. } => {
                let n =
                    crate::pg::execute_prepared(&mut **client, &numbered_for_postgres(sql), &postgres_values(params))?;
                Ok(n as usize)
            }
        }
    }

    /// Inserts `row` whole; answers how many rows it added (1, or 0 when a conflict clause of
    /// `on_conflict` chose to do nothing). `on_conflict` is appended as written ("" for none).
    pub fn insert_with<T: Insertable>(&mut self, row: &T, on_conflict: &str) -> Result<usize> {
        let values = row.values();
        let sql = format!(
            "INSERT INTO {} ({}) VALUES ({}){on_conflict}",
            T::TABLE,
            T::COLUMNS,
            placeholders(values.len())
        );
        self.execute(&sql, &values)
    }

    /// Inserts `row` whole.
    pub fn insert<T: Insertable>(&mut self, row: &T) -> Result<()> {
        self.insert_with(row, "")?;
        Ok(())
    }

    /// Runs statements without parameters as one batch (schema, savepoints).
    pub fn batch(&mut self, sql: &str) -> Result<()> {
        match self {
            Tx::Sqlite(conn) => Ok(conn.execute_batch(sql)?),
            Tx::Postgres { client, .. } => Ok(client.batch_execute(sql)?),
        }
    }
}

/// An empty row: what `exists` reads.
impl FromRow for () {
    fn from_row(_: &Row<'_>) -> Result<Self> {
        Ok(())
    }
}

fn sqlite_values<'p>(params: &[&'p dyn Param]) -> Vec<&'p dyn rusqlite::ToSql> {
    params.iter().map(|p| *p as &dyn rusqlite::ToSql).collect()
}

fn postgres_values<'p>(params: &[&'p dyn Param]) -> Vec<&'p (dyn postgres::types::ToSql + Sync)> {
    params
        .iter()
        .map(|p| *p as &(dyn postgres::types::ToSql + Sync))
        .collect()
}

/// A statement refused because one of its rows broke a unique index: the caller's answer
/// ("taken"), not a fault. On PostgreSQL the statement must run under a savepoint for the
/// transaction to go on (`Tx::savepoint`).
pub fn is_unique_violation(e: &StoreError) -> bool {
    match e {
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(f, _)) => {
            f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
        }
        StoreError::Postgres(p) => p.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION),
        _ => false,
    }
}

impl Tx<'_> {
    /// Runs `f` so that its failure undoes only its own statements, not the transaction
    /// (a SAVEPOINT named in SQL: the transaction is a BEGIN on a plain connection, where the
    /// client's own `transaction()` would send a second BEGIN). Inside `Db::write` only: a
    /// PostgreSQL read runs without a transaction, where there is nothing to save a point of.
    pub fn savepoint<T>(&mut self, name: &str, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.batch(&format!("SAVEPOINT {name}"))?;
        match f(self) {
            Ok(v) => {
                self.batch(&format!("RELEASE SAVEPOINT {name}"))?;
                Ok(v)
            }
            Err(e) => {
                // The caller wants `f`'s error; one from undoing it is logged (the transaction
                // then fails at its next statement or at its commit, and rolls back whole).
                if let Err(undo) = self.batch(&format!("ROLLBACK TO SAVEPOINT {name}; RELEASE SAVEPOINT {name}")) {
                    tracing::error!(savepoint = name, error = %undo, "a savepoint could not be rolled back");
                }
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::numbered_for_postgres;

    #[test]
    fn numbered_placeholders_become_dollars_outside_quoted_text() {
        assert_eq!(
            numbered_for_postgres("SELECT a FROM t WHERE b = ?1 AND c = '?2' AND d IN (?2, ?10)"),
            "SELECT a FROM t WHERE b = $1 AND c = '?2' AND d IN ($2, $10)"
        );
    }
}
