//! The desktop app's updates from the warehouse's own server. The app registers its updater
//! (Tauri's, which verifies each download against the signing key built into the app); the
//! service keeps what the desk was told and answers `GET /desk/update` for Settings and scripts.

use crate::model::desk::{AvailableUpdate, UpdateState, UpdateStatus};
use crate::Service;
use packdesk_model::{ErrorCode, ServiceError};
use std::sync::{Arc, Mutex};

/// What the desktop app does for an update; blocking calls (the API runs them off its threads).
pub trait AppUpdater: Send + Sync {
    fn current_version(&self) -> String;
    /// Asks `source` for a newer version: None when this one is the newest.
    fn check(&self, source: &str) -> Result<Option<AvailableUpdate>, String>;
    /// Downloads the newer version and verifies its signature; keeps it for `install`.
    fn download(&self, source: &str) -> Result<AvailableUpdate, String>;
    /// Installs the verified download; the app restarts a moment after it returns (so the
    /// caller's answer is sent first).
    fn install(&self) -> Result<(), String>;
    /// Restarts the app (the same program with the same arguments) a moment after it returns:
    /// how a database chosen in Settings takes effect.
    fn restart(&self) -> Result<(), String>;
}

/// The registered updater and the last thing it said.
#[derive(Default)]
pub struct Updates {
    updater: std::sync::OnceLock<Arc<dyn AppUpdater>>,
    last: Mutex<Option<Said>>,
}

struct Said {
    source: String,
    state: UpdateState,
    available: Option<AvailableUpdate>,
    message: String,
    checked_at: String,
}

/// An update server's address from Settings: https, or http to this machine (a test server).
pub(crate) fn checked_update_url(url: Option<String>) -> Result<Option<String>, ServiceError> {
    let Some(url) = url.map(|u| u.trim().to_string()).filter(|u| !u.is_empty()) else {
        return Ok(None);
    };
    let bad = |why: String| ServiceError::invalid("update_url", why);
    let parsed = reqwest::Url::parse(&url).map_err(|e| bad(format!("`{url}` is not a URL ({e})")))?;
    let loopback = matches!(parsed.host_str(), Some("127.0.0.1" | "localhost" | "[::1]"));
    match parsed.scheme() {
        "https" => Ok(Some(url)),
        "http" if loopback => Ok(Some(url)),
        _ => Err(bad(format!(
            "`{url}`: the update server must be https (http only on this machine), so that nobody on \
             the way sees or changes what the desk is offered"
        ))),
    }
}

impl Service {
    /// Said by the desktop app at start.
    pub fn register_updater(&self, updater: Arc<dyn AppUpdater>) {
        let _ = self.updates.updater.set(updater);
    }

    /// Where updates stand: off, not asked yet, or what the server said last.
    pub fn update_status(&self) -> Result<UpdateStatus, ServiceError> {
        let source = self.desk_settings()?.update_url;
        let Some(updater) = self.updates.updater.get() else {
            return Ok(UpdateStatus {
                current_version: env!("CARGO_PKG_VERSION").to_string(),
                source,
                state: UpdateState::Off,
                available: None,
                message: "updates come with the desktop app; packdesk-server is updated with its package".into(),
                checked_at: None,
            });
        };
        let mut status = UpdateStatus {
            current_version: updater.current_version(),
            source: source.clone(),
            state: UpdateState::Off,
            available: None,
            message: "updates are off: name your update server in Settings".into(),
            checked_at: None,
        };
        let Some(source) = source else { return Ok(status) };
        let last = self.updates.last.lock().unwrap_or_else(|p| p.into_inner());
        match last.as_ref().filter(|s| s.source == source) {
            Some(said) => {
                status.state = said.state;
                status.available = said.available.clone();
                status.message = said.message.clone();
                status.checked_at = Some(said.checked_at.clone());
            }
            None => {
                status.state = UpdateState::Idle;
                status.message = format!("not asked yet: {source}");
            }
        }
        Ok(status)
    }

    /// Asks the update server now.
    pub fn check_for_update(&self) -> Result<UpdateStatus, ServiceError> {
        let (updater, source) = self.updater_and_source()?;
        let said = match updater.check(&source) {
            Ok(Some(u)) => (
                UpdateState::Available,
                format!("Packdesk {} is available", u.version),
                Some(u),
            ),
            Ok(None) => (
                UpdateState::UpToDate,
                format!("Packdesk {} is the newest", updater.current_version()),
                None,
            ),
            Err(why) => (
                UpdateState::Failed,
                format!("the update server did not answer an update: {why}"),
                None,
            ),
        };
        self.say_update(source, said)
    }

    /// Downloads the offered version and verifies its signature; installing it is the next step.
    pub fn download_update(&self) -> Result<UpdateStatus, ServiceError> {
        let (updater, source) = self.updater_and_source()?;
        let said = match updater.download(&source) {
            Ok(u) => (
                UpdateState::Ready,
                format!(
                    "Packdesk {} is downloaded and its signature verified: install it to restart",
                    u.version
                ),
                Some(u),
            ),
            Err(why) => (UpdateState::Failed, format!("the update was not taken: {why}"), None),
        };
        self.say_update(source, said)
    }

    /// Installs a downloaded, verified update; the app restarts.
    pub fn install_update(&self) -> Result<UpdateStatus, ServiceError> {
        let (updater, source) = self.updater_and_source()?;
        if self.update_status()?.state != UpdateState::Ready {
            return Err(ServiceError::at(
                ErrorCode::OperationNotAllowed,
                "",
                "no verified update is downloaded: check and download first",
            ));
        }
        let available = self.update_status()?.available;
        if let Err(why) = updater.install() {
            return self.say_update(source, (UpdateState::Failed, format!("installing failed: {why}"), None));
        }
        let version = available.as_ref().map(|a| a.version.clone()).unwrap_or_default();
        let said = format!("Packdesk {version} is installed: the app restarts now");
        self.say_update(source, (UpdateState::Ready, said, available))
    }

    /// The desktop app's own hand on itself; none in packdesk-server.
    pub(crate) fn app_shell(&self) -> Option<Arc<dyn AppUpdater>> {
        self.updates.updater.get().cloned()
    }

    fn updater_and_source(&self) -> Result<(Arc<dyn AppUpdater>, String), ServiceError> {
        let Some(updater) = self.updates.updater.get() else {
            return Err(ServiceError::at(
                ErrorCode::OperationNotAllowed,
                "",
                "updates come with the desktop app; packdesk-server is updated with its package",
            ));
        };
        let Some(source) = self.desk_settings()?.update_url else {
            return Err(ServiceError::at(
                ErrorCode::OperationNotAllowed,
                "update_url",
                "updates are off: name your update server in Settings",
            ));
        };
        Ok((updater.clone(), source))
    }

    /// Keeps what the server said; a failure is also the call's error envelope.
    fn say_update(
        &self,
        source: String,
        (state, message, available): (UpdateState, String, Option<AvailableUpdate>),
    ) -> Result<UpdateStatus, ServiceError> {
        let checked_at = self.clock.now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        *self.updates.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(Said {
            source,
            state,
            available,
            message: message.clone(),
            checked_at,
        });
        if state == UpdateState::Failed {
            return Err(ServiceError::at(ErrorCode::OperationNotAllowed, "", message));
        }
        self.update_status()
    }
}
