//! Keyset paging, newest first: the token names the last row seen (created_at, id), so a page
//! never repeats or skips a row even while new rows arrive.

use packdesk_model::ServiceError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    pub created_at: i64,
    pub id: String,
}

/// Opaque to clients: hex of "created_at:id".
pub fn encode(c: &Cursor) -> String {
    hex::encode(format!("{}:{}", c.created_at, c.id))
}

pub fn decode(token: &str) -> Result<Cursor, ServiceError> {
    let bad = || ServiceError::invalid("next_token", "not a token this server issued");
    if !token.len().is_multiple_of(2) || token.len() > 200 {
        return Err(bad());
    }
    let bytes: Option<Vec<u8>> = (0..token.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(token.get(i..i + 2)?, 16).ok())
        .collect();
    let text = String::from_utf8(bytes.ok_or_else(bad)?).map_err(|_| bad())?;
    let (t, id) = text.split_once(':').ok_or_else(bad)?;
    Ok(Cursor {
        created_at: t.parse().map_err(|_| bad())?,
        id: id.to_string(),
    })
}

/// The newest creation time a page takes: the filter's `created_at_max`, or the page's start if
/// older. A list's statement bounds `created_at` by it as well as by its row value
/// `(created_at, id) < (..)`: SQLite starts the index's range at the plain bound, not at the row
/// value (nor at the lower of two bounds, which it cannot tell), so each page read the index from
/// the newest row again; the 20th page of a History search of 50,000 labels a page took three
/// times its first (`lookup_sqlite` bench).
pub fn newest(created_at_max: i64, after: Option<&Cursor>) -> i64 {
    after.map_or(created_at_max, |a| a.created_at.min(created_at_max))
}

/// A page of rows plus the token of the next page (None on the last page).
#[derive(Debug)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub next_token: Option<String>,
}

/// Cuts `rows` (fetched with limit + 1) to `limit` and makes the next token from the last kept row.
pub fn page<T>(mut rows: Vec<T>, limit: usize, cursor_of: impl Fn(&T) -> Cursor) -> Page<T> {
    let more = rows.len() > limit;
    rows.truncate(limit);
    let next_token = if more {
        rows.last().map(|r| encode(&cursor_of(r)))
    } else {
        None
    };
    Page {
        items: rows,
        next_token,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_garbage_is_refused() {
        let c = Cursor {
            created_at: 1_763_000_000_000_000,
            id: "0b5e...".into(),
        };
        assert_eq!(decode(&encode(&c)).unwrap(), c);
        assert!(decode("zz").is_err());
        assert!(decode("abc").is_err());
        assert!(decode(&"41".repeat(10)).is_err());
    }
}
