//! Ship dates: the day a parcel is handed to the carrier decides which close-out takes it. A label
//! made after the account's cut-off, or on a day the carrier does not collect, ships on the next
//! collection day unless its request names a date.

use crate::keys::Env;
use crate::validate::parse_cutoff;
use crate::Service;
use chrono::{DateTime, Datelike, NaiveDate, Utc};
use packdesk_model::desk::ShipDate;
use packdesk_model::request::{ShipperAccountSettings, Weekday};
use packdesk_model::ServiceError;
use packdesk_store::accounts::AccountRow;

/// Why a default ship date is not today.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Later {
    AfterCutoff,
    NoCollection,
}

impl Later {
    pub fn as_str(self) -> &'static str {
        match self {
            Later::AfterCutoff => "after_cutoff",
            Later::NoCollection => "no_collection",
        }
    }
}

fn collects(days: &[Weekday], d: NaiveDate) -> bool {
    days.iter().any(|w| w.index() == d.weekday().num_days_from_monday())
}

/// The account's timezone (UTC when the stored name is unknown).
pub(crate) fn timezone_of(account: &AccountRow) -> chrono_tz::Tz {
    account.timezone.parse().unwrap_or(chrono_tz::UTC)
}

/// Today in the account's timezone, and the ship date a label made at `now` gets by default:
/// today, unless it is past the cut-off or the carrier does not collect today; then the next
/// collection day. Without a cut-off the account ships every label today (collection days
/// apply from the moment a cut-off is set, so an account nobody set up behaves as before).
pub fn default_ship_date(
    settings: &ShipperAccountSettings,
    tz: chrono_tz::Tz,
    now: DateTime<Utc>,
) -> (NaiveDate, NaiveDate, Option<Later>) {
    let local = now.with_timezone(&tz);
    let today = local.date_naive();
    let days: &[Weekday] = settings.collection_days.as_deref().unwrap_or(&Weekday::WORKING);
    let Some(cutoff) = settings.cutoff_time.as_deref().and_then(parse_cutoff) else {
        return (today, today, None);
    };
    let reason = if local.time() >= cutoff {
        Some(Later::AfterCutoff)
    } else if !collects(days, today) {
        Some(Later::NoCollection)
    } else {
        None
    };
    if reason.is_none() || days.is_empty() {
        return (today, today, None);
    }
    let mut d = today.succ_opt().unwrap_or(today);
    while !collects(days, d) {
        d = d.succ_opt().unwrap_or(d);
    }
    (today, d, reason)
}

impl Service {
    /// Today in the account's timezone: the day its close-out now is for.
    pub(crate) fn account_today(&self, account: &AccountRow) -> NaiveDate {
        self.clock.now().with_timezone(&timezone_of(account)).date_naive()
    }

    /// The ship date a label of the account made now gets by default, and why.
    pub fn ship_date(&self, env: Env, account_id: &str) -> Result<ShipDate, ServiceError> {
        let account = self.account_row(env, account_id, "id")?;
        let settings = crate::accounts::settings_of(&account);
        let (today, ship_date, reason) = default_ship_date(&settings, timezone_of(&account), self.clock.now());
        Ok(ShipDate {
            today: today.to_string(),
            ship_date: ship_date.to_string(),
            reason: reason.map(|r| r.as_str().to_string()),
            cutoff_time: settings.cutoff_time,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(settings: &ShipperAccountSettings, y: i32, mo: u32, d: u32, h: u32, mi: u32) -> (String, Option<Later>) {
        let tz: chrono_tz::Tz = "Europe/London".parse().unwrap();
        let local = tz.with_ymd_and_hms(y, mo, d, h, mi, 0).unwrap();
        let (_, date, why) = default_ship_date(settings, tz, local.with_timezone(&Utc));
        (date.to_string(), why)
    }

    #[test]
    fn after_the_cutoff_a_label_ships_on_the_next_collection_day() {
        let s = ShipperAccountSettings {
            cutoff_time: Some("17:30".into()),
            ..Default::default()
        };
        // Monday 23 November 2026.
        assert_eq!(at(&s, 2026, 11, 23, 17, 29), ("2026-11-23".into(), None));
        assert_eq!(
            at(&s, 2026, 11, 23, 17, 30),
            ("2026-11-24".into(), Some(Later::AfterCutoff))
        );
        // Friday evening: Monday. Saturday morning: Monday, the carrier does not collect.
        assert_eq!(
            at(&s, 2026, 11, 27, 18, 0),
            ("2026-11-30".into(), Some(Later::AfterCutoff))
        );
        assert_eq!(
            at(&s, 2026, 11, 28, 9, 0),
            ("2026-11-30".into(), Some(Later::NoCollection))
        );
        // A carrier that collects on Saturdays.
        let sat = ShipperAccountSettings {
            collection_days: Some(vec![
                Weekday::Mon,
                Weekday::Tue,
                Weekday::Wed,
                Weekday::Thu,
                Weekday::Fri,
                Weekday::Sat,
            ]),
            ..s.clone()
        };
        assert_eq!(
            at(&sat, 2026, 11, 27, 18, 0),
            ("2026-11-28".into(), Some(Later::AfterCutoff))
        );
        // No cut-off set: today, whatever the time or the day.
        assert_eq!(
            at(&ShipperAccountSettings::default(), 2026, 11, 23, 23, 0).0,
            "2026-11-23"
        );
        assert_eq!(
            at(&ShipperAccountSettings::default(), 2026, 11, 28, 9, 0).0,
            "2026-11-28"
        );
    }

    #[test]
    fn cutoffs_are_times_of_day() {
        assert!(parse_cutoff("17:30").is_some());
        assert!(parse_cutoff("00:00").is_some());
        for bad in ["24:00", "7:30", "17:60", "1730", "ab:cd"] {
            assert!(parse_cutoff(bad).is_none(), "{bad}");
        }
    }
}
