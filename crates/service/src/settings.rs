//! The desk's settings (scan behaviour, units, currency, the app's window and updates): the whole
//! desk's, both environments', kept in the store's `meta` table.

use crate::Service;
use packdesk_model::preset::DeskSettings;
use packdesk_model::status::Language;
use packdesk_model::ServiceError;
use packdesk_store::db::Tx;

const SETTINGS_KEY: &str = "desk_settings";

/// The desk's settings as a transaction reads them.
pub(crate) fn settings_in(tx: &mut Tx<'_>) -> Result<DeskSettings, ServiceError> {
    match packdesk_store::meta::desk_get(tx, SETTINGS_KEY)? {
        None => Ok(DeskSettings::default()),
        Some(j) => serde_json::from_str(&j).map_err(ServiceError::internal),
    }
}

/// The language of the desk's documents (packing slips, manifests, collection sheets): its
/// setting, else English.
pub(crate) fn document_language(tx: &mut Tx<'_>) -> Result<Language, ServiceError> {
    Ok(settings_in(tx)?.language.unwrap_or(Language::English))
}

impl Service {
    pub fn desk_settings(&self) -> Result<DeskSettings, ServiceError> {
        self.store.read(settings_in)
    }

    pub fn set_desk_settings(&self, mut s: DeskSettings) -> Result<DeskSettings, ServiceError> {
        s.update_url = crate::updates::checked_update_url(s.update_url.take())?;
        if let Some(c) = s
            .default_currency
            .take()
            .map(|c| c.trim().to_uppercase())
            .filter(|c| !c.is_empty())
        {
            if !packdesk_carriers::countries::is_currency(&c) {
                return Err(ServiceError::invalid(
                    "default_currency",
                    format!("`{c}` is not a currency: use a three-letter ISO 4217 code such as EUR, GBP or USD"),
                ));
            }
            s.default_currency = Some(c);
        }
        if !(1..=480).contains(&s.idle_sign_out_minutes) {
            return Err(ServiceError::invalid("idle_sign_out_minutes", "from 1 to 480 minutes"));
        }
        if s.backup_hour > 23 {
            return Err(ServiceError::invalid("backup_hour", "an hour of the day, 0 to 23"));
        }
        if !(1..=90).contains(&s.backups_kept) {
            return Err(ServiceError::invalid("backups_kept", "from 1 to 90 backups"));
        }
        s.return_reasons = std::mem::take(&mut s.return_reasons)
            .into_iter()
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty())
            .collect();
        s.return_reasons.dedup();
        if s.return_reasons.is_empty()
            || s.return_reasons.len() > 50
            || s.return_reasons.iter().any(|r| r.chars().count() > 60)
        {
            return Err(ServiceError::invalid(
                "return_reasons",
                "1 to 50 reasons, each at most 60 characters",
            ));
        }
        // Someone must be able to sign in and change the desk once sign-in is required.
        if s.require_sign_in && !self.has_active_admin()? {
            return Err(ServiceError::invalid(
                "require_sign_in",
                "add an active admin operator (with a badge code) before requiring sign-in",
            ));
        }
        let before = self.desk_settings()?;
        let json = serde_json::to_string(&s).map_err(ServiceError::internal)?;
        // Sign-in just required: the desk's own sessions (sign-in off) end, every page signs in.
        if s.require_sign_in && !before.require_sign_in {
            self.end_sessions_of(crate::sessions::DESK_OPERATOR);
        }
        self.store.write(|tx| {
            packdesk_store::meta::desk_set(tx, SETTINGS_KEY, &json)?;
            self.audit(
                tx,
                None,
                "desk.settings",
                None,
                serde_json::json!({"before": before, "after": s}),
            )
        })?;
        Ok(s)
    }
}
