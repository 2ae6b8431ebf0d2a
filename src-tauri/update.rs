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
        let builder = self
            .app
            .updater_builder()
            .endpoints(vec![url])
            .map_err(|e| e.to_string())?
            .timeout(std::time::Duration::from_secs(60));
        // A debug build may be given the test's own signing key; a release build only ever
        // trusts the key it was built with.
        #[cfg(debug_assertions)]
        let builder = match std::env::var("PACKDESK_UPDATER_PUBKEY") {
            Ok(key) => builder.pubkey(key),
            Err(_) => builder,
        };
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
        update.install(&bytes).map_err(|e| match e {
            // On Linux the .deb goes to `dpkg -i` through pkexec, a password dialog or sudo.
            tauri_plugin_updater::Error::Io(io) if io.kind() == std::io::ErrorKind::NotFound => format!(
                "installing {} needs pkexec (PolicyKit) or sudo on this desk, and neither was found: \
                 install the package from the update server with apt instead ({io})",
                update.version
            ),
            e => e.to_string(),
        })?;
        tracing::info!(version = %update.version, "update installed: restarting");
        self.restart()
    }

    fn restart(&self) -> Result<(), String> {
        // After the HTTP answer has left: the caller (Settings, a script) learns it worked.
        let app = self.app.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(500));
            app.restart()
        });
        Ok(())
    }
}
