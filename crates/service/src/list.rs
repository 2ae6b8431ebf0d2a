//! The common query of list routes: limit, created_at window, next_token.

use chrono::{DateTime, Duration, Utc};
use packdesk_model::request::ListQuery;
use packdesk_model::ServiceError;
use packdesk_store::paging::{decode, Cursor};

pub struct Window {
    pub limit: usize,
    pub created_at_min: DateTime<Utc>,
    pub created_at_max: DateTime<Utc>,
    pub after: Option<Cursor>,
}

pub(crate) fn parse_time(field: &str, s: &str) -> Result<DateTime<Utc>, ServiceError> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .or_else(|_| {
            crate::validate::parse_date(s)
                .and_then(|d| d.and_hms_opt(0, 0, 0))
                .map(|t| t.and_utc())
                .ok_or(())
        })
        .map_err(|_| {
            ServiceError::invalid(
                field,
                "must be an ISO 8601 time with offset (2026-11-22T09:00:00+01:00) or a date",
            )
        })
}

/// A page's size: 1..200, 20 when not given.
pub fn limit(q: &ListQuery) -> Result<usize, ServiceError> {
    match q.limit.as_deref() {
        None | Some("") => Ok(20),
        Some(s) => s
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=200).contains(n))
            .ok_or_else(|| ServiceError::invalid("limit", "must be a whole number 1..200")),
    }
}

/// Limit 1..200 (default 20); window defaults to the last 24 hours.
pub fn window(q: &ListQuery, now: DateTime<Utc>) -> Result<Window, ServiceError> {
    let limit = limit(q)?;
    let created_at_max = match q.created_at_max.as_deref() {
        Some(s) if !s.is_empty() => parse_time("created_at_max", s)?,
        _ => now,
    };
    let created_at_min = match q.created_at_min.as_deref() {
        Some(s) if !s.is_empty() => parse_time("created_at_min", s)?,
        _ => now - Duration::hours(24),
    };
    let after = match q.next_token.as_deref() {
        Some(t) if !t.is_empty() => Some(decode(t)?),
        _ => None,
    };
    Ok(Window {
        limit,
        created_at_min,
        created_at_max,
        after,
    })
}

/// Refuses a `status` that is not one of `allowed`, naming them.
pub fn check_status(status: Option<&str>, allowed: &[&str]) -> Result<(), ServiceError> {
    match status {
        Some(s) if !allowed.contains(&s) => Err(ServiceError::invalid(
            "status",
            format!("one of: {}", allowed.join(", ")),
        )),
        _ => Ok(()),
    }
}

impl Window {
    /// The list answer's window, for typed list records.
    pub fn window(&self, next_token: Option<String>) -> packdesk_model::desk::ListWindow {
        packdesk_model::desk::ListWindow {
            next_token,
            limit: self.limit as u32,
            created_at_min: crate::clock::iso(self.created_at_min),
            created_at_max: crate::clock::iso(self.created_at_max),
        }
    }
}
