//! The desk's updates through Tauri's updater: the update server comes from Settings, and every
//! download is verified against the signing key built into the app (tauri.conf.json) before it is
//! kept; only a verified download is ever installed. Settings accepts an https server, or http on
//! this machine only (`updates::checked_update_url`): that rule, not the plugin's https-only one,
//! decides (tauri.conf.json lets the plugin take http for it).

use packdesk_service::model::desk::AvailableUpdate;
use packdesk_service::updates::AppUpdater;
use std::sync::Mutex;
use tauri::AppHandle;
use tauri_plugin_updater::{Update, UpdaterExt};

pub struct DeskUpdater {
    app: AppHandle,
    /// The verified download waiting for `install`.
    ready: Mutex<Option<(Update, Vec<u8>)>>,
}

impl DeskUpdater {
    pub fn new(app: AppHandle) -> DeskUpdater {
        DeskUpdater {
            app,
            ready: Mutex::new(None),
        }
    }

    fn find(&self, source: &str) -> Result<Option<Update>, String> {
        let url: tauri::Url = source.parse().map_err(|e| format!("`{source}`: {e}"))?;
        let mut builder = self
            .app
            .updater_builder()
            .endpoints(vec![url])
            .map_err(|e| e.to_string())?
            .timeout(std::time::Duration::from_secs(60));
        // A debug build may be given the test's own signing key; a release build only ever
        // trusts the key it was built with.
        #[cfg(debug_assertions)]
        if let Ok(key) = std::env::var("PACKDESK_UPDATER_PUBKEY") {
            builder = builder.pubkey(key);
        }
        let updater = builder.build().map_err(|e| e.to_string())?;
        tauri::async_runtime::block_on(updater.check()).map_err(|e| e.to_string())
    }
}

fn offered(u: &Update) -> AvailableUpdate {
    AvailableUpdate {
        version: u.version.clone(),
        notes: u.body.clone(),
        date: u
            .date
            .and_then(|d| d.format(&time::format_description::well_known::Rfc3339).ok()),
    }
}

impl AppUpdater for DeskUpdater {
    fn current_version(&self) -> String {
        self.app.package_info().version.to_string()
    }

    fn check(&self, source: &str) -> Result<Option<AvailableUpdate>, String> {
        Ok(self.find(source)?.as_ref().map(offered))
    }

    fn download(&self, source: &str) -> Result<AvailableUpdate, String> {
        let update = self.find(source)?.ok_or("the update server offers no newer version")?;
        // `download` verifies the signature (and the version it was signed for) before it answers.
        let bytes = tauri::async_runtime::block_on(update.download(|_, _| {}, || {})).map_err(|e| e.to_string())?;
        tracing::info!(version = %update.version, bytes = bytes.len(), "update downloaded and verified");
        let answer = offered(&update);
        *self.ready.lock().unwrap_or_else(|p| p.into_inner()) = Some((update, bytes));
        Ok(answer)
    }

    fn install(&self) -> Result<(), String> {
        let Some((update, bytes)) = self.ready.lock().unwrap_or_else(|p| p.into_inner()).take() else {
            return Err("no verified update is downloaded".into());
        };
        update.install(&bytes).map_err(|e| e.to_string())?;
        tracing::info!(version = %update.version, "update installed: restarting");
        self.app.restart()
    }
}
