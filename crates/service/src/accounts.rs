//! Shipper accounts: create, list, retrieve, update (info, credentials, settings), delete.

use crate::keys::Env;
use crate::validate::{check_address, is_uuid};
use crate::Service;
use packdesk_carriers::tracking::{max_serial, sample_range};
use packdesk_carriers::{carrier, Carrier};
use packdesk_model::error::Problems;
use packdesk_model::record::{AccountStatus, Deleted, ShipperAccount, ShipperAccountList};
use packdesk_model::request::*;
use packdesk_model::transport::{AccountConnection, ManifestTransport, TransportSecrets, UpstreamConnection};
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::accounts as table;
use packdesk_store::accounts::AccountRow;
use packdesk_store::paging;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub(crate) fn not_found(path: &str, id: &str) -> ServiceError {
    ServiceError::at(
        ErrorCode::ShipperAccountNotFound,
        path,
        format!("no shipper account {id} for this key"),
    )
}

fn check_timezone(p: &mut Problems, path: &str, tz: &str) {
    if tz.parse::<chrono_tz::Tz>().is_err() {
        p.invalid(path, format!("`{tz}` is not an IANA timezone (e.g. Europe/London)"));
    }
}

/// Most credential fields a carrier without a known list may hold, and their sizes.
const FREE_FIELDS_MAX: usize = 50;
const FREE_NAME_MAX: usize = 64;
const FREE_VALUE_MAX: usize = 4096;

/// A carrier whose credential fields the carrier table does not list takes any string fields (the
/// user's real credentials, whatever the carrier calls them), sealed like all credentials.
fn check_free_credentials(p: &mut Problems, creds: &Map<String, Value>) {
    if creds.len() > FREE_FIELDS_MAX {
        p.invalid(
            "credentials",
            format!("at most {FREE_FIELDS_MAX} fields, got {}", creds.len()),
        );
    }
    for (k, v) in creds {
        let path = format!("credentials.{k}");
        let n = k.chars().count();
        if n == 0 || n > FREE_NAME_MAX || k.chars().any(char::is_control) {
            p.invalid(
                path.clone(),
                format!("a field name is 1..{FREE_NAME_MAX} characters, without control characters"),
            );
        }
        match v {
            Value::String(s) if s.chars().count() <= FREE_VALUE_MAX => {}
            Value::String(_) => p.invalid(path, format!("at most {FREE_VALUE_MAX} characters")),
            _ => p.invalid(path, "must be a string"),
        }
    }
}

/// Every credential field the carrier requires is a non-empty string; no other keys.
fn check_credentials(p: &mut Problems, c: &Carrier, creds: &Map<String, Value>, partial: bool) {
    if c.credential_fields.is_empty() {
        return check_free_credentials(p, creds);
    }
    for f in &c.credential_fields {
        let v = creds.get(&f.name);
        let empty = match v {
            None | Some(Value::Null) => true,
            Some(Value::String(s)) => s.trim().is_empty(),
            Some(_) => false,
        };
        if f.required && empty && !(partial && v.is_none()) {
            p.invalid(
                format!("credentials.{}", f.name),
                format!("{} ({}) is required by {}", f.label, f.name, c.name),
            );
        }
        if let Some(v) = v {
            if !(v.is_string() || v.is_number() || v.is_boolean() || v.is_null()) {
                p.invalid(format!("credentials.{}", f.name), "must be a string");
            }
        }
    }
    for k in creds.keys() {
        if !c.credential_fields.iter().any(|f| &f.name == k) {
            let fields: Vec<&str> = c.credential_fields.iter().map(|f| f.name.as_str()).collect();
            let known = if fields.is_empty() {
                "none".to_string()
            } else {
                fields.join(", ")
            };
            p.invalid(
                format!("credentials.{k}"),
                format!("not a credential of {} (fields: {known})", c.name),
            );
        }
    }
}

fn check_settings(p: &mut Problems, c: &Carrier, s: &ShipperAccountSettings) {
    check_collection(p, s);
    if let Some(ranges) = &s.tracking_ranges {
        for (pool, rs) in ranges {
            let path = format!("settings.tracking_ranges.{pool}");
            match c.pool(pool) {
                None => {
                    let pools: Vec<&str> = c.tracking_pools.iter().map(|p| p.name.as_str()).collect();
                    p.invalid(
                        path,
                        format!(
                            "{} has no tracking-number pool `{pool}` (pools: {})",
                            c.name,
                            pools.join(", ")
                        ),
                    );
                }
                Some(tp) => check_ranges(p, c, &path, &tp.scheme, rs),
            }
        }
    }
    if let Some(ps) = s.default_paper_size {
        if !c.allows_paper(ps) {
            p.invalid(
                "settings.default_paper_size",
                format!(
                    "`{}` is not available for {}; allowed: {}",
                    ps.as_str(),
                    c.name,
                    c.paper_sizes.join(", ")
                ),
            );
        }
    }
}

/// Whether a changed transport still goes to the same place (server and user, or address): only
/// then are the secrets set before kept when a change leaves them out.
fn same_destination(old: &ManifestTransport, new: &ManifestTransport) -> bool {
    match (old, new) {
        (ManifestTransport::Sftp(a), ManifestTransport::Sftp(b)) => {
            a.host == b.host && a.port == b.port && a.username == b.username
        }
        (ManifestTransport::Https(a), ManifestTransport::Https(b)) => same_origin(&a.url, &b.url),
        _ => false,
    }
}

/// The secrets a change gives, the kept ones where it gives none; `""` takes one away. Signing in
/// to SFTP by a newly given password or key drops the kept other one (the key would be tried
/// first).
fn merge_secrets(given: TransportSecrets, kept: TransportSecrets) -> TransportSecrets {
    let sftp_given = given.password.is_some() || given.private_key.is_some();
    let pick = |new: Option<String>, old: Option<String>, keep: bool| match new {
        Some(v) if v.is_empty() => None,
        Some(v) => Some(v),
        None if keep => old,
        None => None,
    };
    TransportSecrets {
        password: pick(given.password, kept.password, !sftp_given),
        private_key: pick(given.private_key, kept.private_key, !sftp_given),
        authorization: pick(given.authorization, kept.authorization, true),
    }
}

/// Takes a requested transport's secrets out of it (the kept ones where it gives none), checks it
/// with them and marks which are set: the secrets to seal.
fn settle_transport(p: &mut Problems, t: &mut ManifestTransport, kept: TransportSecrets) -> TransportSecrets {
    let secrets = merge_secrets(t.take_secrets(), kept);
    check_transport(p, t, &secrets);
    t.mark_secrets(&secrets);
    secrets
}

/// A service's web address: https (http only on this machine), without credentials in it (they
/// would be shown and logged; `secret` names where they go instead). Whether it can be used.
fn check_web_address(p: &mut Problems, path: &str, url: &str, example: &str, secret: &str) -> bool {
    let Ok(u) = reqwest::Url::parse(url) else {
        p.invalid(path, format!("a web address such as {example}"));
        return false;
    };
    let mut usable = true;
    if !u.username().is_empty() || u.password().is_some() {
        usable = false;
        p.invalid(
            path,
            format!(
                "put no user name or password in the address (it would be shown and logged): give them as {secret}"
            ),
        );
    }
    let loopback = matches!(u.host_str(), Some("localhost" | "127.0.0.1" | "[::1]"));
    if !(u.scheme() == "https" || (u.scheme() == "http" && loopback)) {
        usable = false;
        p.invalid(path, "must start with https:// (http:// only for this machine)");
    }
    usable
}

/// Whether two web addresses are the same service (scheme, host and port): only then is a secret
/// set for one kept when a change leaves it out.
fn same_origin(a: &str, b: &str) -> bool {
    let origin = |u: &str| reqwest::Url::parse(u).ok().map(|u| u.origin().ascii_serialization());
    origin(a).is_some() && origin(a) == origin(b)
}

/// Takes an upstream connection's API key out of it (the kept one where it gives none; `""` takes
/// it away), checks the connection with it and marks it set: the key to seal.
fn settle_connection(p: &mut Problems, c: &mut AccountConnection, kept: Option<String>) -> Option<String> {
    let AccountConnection::Upstream(u) = c else {
        return None;
    };
    let key = match u.api_key.take() {
        Some(k) if k.is_empty() => None,
        Some(k) => Some(k),
        None => kept,
    };
    check_upstream(p, u, key.as_deref());
    u.api_key_set = key.is_some();
    key
}

/// The longest an upstream call may be given, seconds.
const UPSTREAM_TIMEOUT_MAX: u64 = 300;

fn check_upstream(p: &mut Problems, u: &UpstreamConnection, api_key: Option<&str>) {
    let path = "settings.connection";
    check_web_address(
        p,
        &format!("{path}.base_url"),
        &u.base_url,
        "https://labels.example.com/v3",
        "the api_key",
    );
    if u.shipper_account_id.trim().is_empty() {
        p.invalid(
            format!("{path}.shipper_account_id"),
            "the account's id at the upstream service is empty: fill it in",
        );
    }
    match api_key {
        None => p.invalid(
            format!("{path}.api_key"),
            "the upstream service's API key for this environment is needed: set it",
        ),
        Some(k) if k.chars().any(|c| c.is_control() || c == ' ') => p.invalid(
            format!("{path}.api_key"),
            "one word, without spaces or control characters",
        ),
        Some(_) => {}
    }
    if !(1..=UPSTREAM_TIMEOUT_MAX).contains(&u.timeout_s) {
        p.invalid(
            format!("{path}.timeout_s"),
            format!("from 1 to {UPSTREAM_TIMEOUT_MAX} seconds (30 when not given)"),
        );
    }
}

/// A transport says where its data files go and how to reach it; `secrets` are what it will
/// sign in with (the request's, or those kept from before).
fn check_transport(p: &mut Problems, t: &ManifestTransport, secrets: &TransportSecrets) {
    let path = "settings.manifest_transport";
    let blank = |s: &str| s.trim().is_empty();
    match t {
        ManifestTransport::None => {}
        ManifestTransport::Sftp(s) => {
            if blank(&s.host) {
                p.invalid(
                    format!("{path}.host"),
                    "the SFTP server's name or address is empty: fill it in",
                );
            }
            if s.port == 0 {
                p.invalid(format!("{path}.port"), "a port from 1 to 65535 (SFTP is usually 22)");
            }
            if blank(&s.username) {
                p.invalid(
                    format!("{path}.username"),
                    "the user name the carrier gave is empty: fill it in",
                );
            }
            if blank(&s.remote_dir) {
                p.invalid(
                    format!("{path}.remote_dir"),
                    "the folder on the server is empty: fill it in (\".\" for the home folder)",
                );
            }
            if !packdesk_link::is_fingerprint(&s.host_key_sha256) {
                p.invalid(
                    format!("{path}.host_key_sha256"),
                    "the server's host key fingerprint as `ssh-keygen -lf` prints it: SHA256: and 43 characters (ask the carrier, or read it from the server)",
                );
            }
            if let Some(key) = &secrets.private_key {
                if !key.trim_start().starts_with("-----BEGIN OPENSSH PRIVATE KEY-----") {
                    p.invalid(
                        format!("{path}.private_key"),
                        "a private key in OpenSSH format (it starts with -----BEGIN OPENSSH PRIVATE KEY-----)",
                    );
                }
            }
            if secrets.password.is_none() && secrets.private_key.is_none() {
                p.invalid(
                    format!("{path}.password"),
                    "a password or a private key is needed to sign in: set one",
                );
            }
        }
        ManifestTransport::Https(h) => {
            let example = "https://edi.carrier.example/manifests";
            if check_web_address(p, &format!("{path}.url"), &h.url, example, "the Authorization header") {
                if let Some(pem) = &h.ca_certificate {
                    if reqwest::Certificate::from_pem(pem.as_bytes()).is_err() {
                        p.invalid(
                            format!("{path}.ca_certificate"),
                            "a certificate in PEM format (-----BEGIN CERTIFICATE-----)",
                        );
                    }
                }
                if secrets
                    .authorization
                    .as_deref()
                    .is_some_and(|a| a.chars().any(char::is_control))
                {
                    p.invalid(format!("{path}.authorization"), "one line, without control characters");
                }
            }
        }
        ManifestTransport::Folder(f) => {
            if !std::path::Path::new(&f.path).is_absolute() {
                p.invalid(format!("{path}.path"), "a full path, such as /srv/carrier/outbox");
            }
        }
    }
}

/// Most ranges a pool's list holds (the carrier's next few; keeps every status check short).
const RANGES_MAX: usize = 100;

/// Each range within the carrier's digits and not reversed; a list's ranges ascending and not
/// overlapping (each starts above the previous end), as they are used in that order.
fn check_ranges(
    p: &mut Problems,
    c: &Carrier,
    path: &str,
    scheme: &packdesk_carriers::registry::Scheme,
    rs: &TrackingRanges,
) {
    let max = max_serial(scheme);
    let list = rs.as_slice();
    if list.is_empty() {
        p.invalid(path, "at least one range ({\"start\", \"end\"})");
    }
    if list.len() > RANGES_MAX {
        p.invalid(path, format!("at most {RANGES_MAX} ranges, got {}", list.len()));
    }
    for (i, r) in list.iter().enumerate() {
        let at = match rs {
            TrackingRanges::One(_) => path.to_string(),
            TrackingRanges::List(_) => format!("{path}[{i}]"),
        };
        if r.start > r.end {
            p.invalid(format!("{at}.end"), "must not be below start");
        }
        if r.end > max {
            p.invalid(
                format!("{at}.end"),
                format!(
                    "serials of {} have at most {} digits (max {max})",
                    c.name,
                    max.to_string().len()
                ),
            );
        }
        if let Some(prev) = i.checked_sub(1).and_then(|j| list.get(j)) {
            if r.start <= prev.end {
                p.invalid(
                    format!("{at}.start"),
                    format!(
                        "ranges are used in order: this one must start above the previous range's end ({})",
                        prev.end
                    ),
                );
            }
        }
    }
}

/// A cut-off is a time of day, HH:MM ("" for none); collection days are at least one day.
fn check_collection(p: &mut Problems, s: &ShipperAccountSettings) {
    if let Some(t) = s.cutoff_time.as_deref().filter(|t| !t.is_empty()) {
        if crate::validate::parse_cutoff(t).is_none() {
            p.invalid("settings.cutoff_time", "a time of day HH:MM (24 hours), such as 17:30");
        }
    }
    if let Some(days) = &s.collection_days {
        if days.is_empty() {
            p.invalid(
                "settings.collection_days",
                "at least one day the carrier collects (mon, tue, wed, thu, fri, sat, sun)",
            );
        }
    }
}

fn registry_carrier(slug: &str) -> Result<&'static Carrier, ServiceError> {
    carrier(slug).ok_or_else(|| ServiceError::internal(format!("stored account of unknown carrier {slug}")))
}

/// The tracking scope of a pool: the account's own range (live) or the carrier's sample range
/// shared by every sandbox account (sandbox).
pub(crate) fn tracking_scope(env: Env, account_id: &str, slug: &str, pool: &str) -> String {
    match env {
        Env::Live => format!("account:{account_id}:{pool}"),
        Env::Sandbox => format!("sample:{slug}:{pool}"),
    }
}

pub(crate) fn settings_of(row: &AccountRow) -> ShipperAccountSettings {
    serde_json::from_str(&row.settings).unwrap_or_default()
}

/// The ranges a pool draws from, in order: the carrier-assigned ones (live; none when unset) or
/// the sample one (sandbox).
pub(crate) fn pool_ranges(
    env: Env,
    settings: &ShipperAccountSettings,
    pool: &packdesk_carriers::TrackingPool,
) -> Vec<TrackingRange> {
    match env {
        Env::Sandbox => vec![sample_range(&pool.scheme)],
        Env::Live => settings
            .tracking_ranges
            .as_ref()
            .and_then(|r| r.get(&pool.name))
            .map(|r| r.as_slice().to_vec())
            .unwrap_or_default(),
    }
}

/// Below how many numbers left a pool is flagged: the account's `range_warning`, else a tenth of
/// the pool's ranges, at least 100.
pub(crate) fn range_warning(settings: &ShipperAccountSettings, ranges: &[TrackingRange]) -> u64 {
    settings.range_warning.unwrap_or_else(|| {
        // Every number of the ranges is left from serial 0 on: their total.
        let total = crate::allocator::left(0, ranges);
        (total / 10).max(100)
    })
}

/// A pool's numbers left and whether they run low (live pools with a range only: the sandbox's
/// sample range is no one's to extend, and a pool never given a range is not running out).
pub(crate) struct PoolLeft {
    pub name: String,
    pub left: u64,
    pub warning: u64,
    pub low: bool,
}

impl Service {
    /// The account of a label about to be made: on a shared database as this desk read it last
    /// (`AccountsSeen`; answered `true`), else read now.
    pub(crate) fn label_account(&self, env: Env, id: &str, path: &str) -> Result<(AccountRow, bool), ServiceError> {
        if !self.store.is_shared() {
            return Ok((self.account_row(env, id, path)?, false));
        }
        if let Some(row) = self.accounts_seen.get(env, id) {
            return Ok((row, true));
        }
        let row = self.account_row(env, id, path)?;
        // Only an enabled one (a label's write checks it is still as read; a refusal would not),
        // and not one served by an upstream (its label would be made there before the write
        // could find the account changed).
        let upstream = matches!(settings_of(&row).connection, Some(AccountConnection::Upstream(_)));
        if row.status == AccountStatus::Enabled && !upstream {
            self.accounts_seen.keep(&row);
        }
        Ok((row, false))
    }

    pub(crate) fn account_row(&self, env: Env, id: &str, path: &str) -> Result<AccountRow, ServiceError> {
        if !is_uuid(id) {
            return Err(ServiceError::invalid(path, "must be a UUID"));
        }
        self.store
            .read(|c| table::get(c, env, id))?
            .ok_or_else(|| not_found(path, id))
    }

    /// Every pool of an account with its numbers left, counted from the next serial through
    /// every range of the pool.
    pub(crate) fn pools_left(&self, env: Env, row: &AccountRow) -> Result<Vec<PoolLeft>, ServiceError> {
        let c = registry_carrier(&row.slug)?;
        let settings = settings_of(row);
        let mut out = Vec::new();
        for pool in &c.tracking_pools {
            let scope = tracking_scope(env, &row.id, &row.slug, &pool.name);
            let ranges = pool_ranges(env, &settings, pool);
            let left = if ranges.is_empty() {
                0
            } else {
                let stored = self
                    .store
                    .read(|conn| packdesk_store::tracking::counter(conn, &scope))?;
                let next = self.allocator.peek(&scope).max(stored).unwrap_or(0);
                // On a shared database, with the serials this desk reserved ahead (other desks'
                // are not known here: they count as used).
                crate::allocator::left(next, &ranges).saturating_add(self.allocator.ahead_left(&scope, &ranges))
            };
            let warning = range_warning(&settings, &ranges);
            out.push(PoolLeft {
                name: pool.name.clone(),
                left,
                warning,
                low: env == Env::Live && !ranges.is_empty() && left < warning,
            });
        }
        Ok(out)
    }

    fn account_record(&self, env: Env, row: &AccountRow) -> Result<ShipperAccount, ServiceError> {
        let settings = settings_of(row);
        let pools = self.pools_left(env, row)?;
        let left: BTreeMap<String, u64> = pools.iter().map(|p| (p.name.clone(), p.left)).collect();
        let low: Vec<String> = pools.into_iter().filter(|p| p.low).map(|p| p.name).collect();
        Ok(ShipperAccount {
            id: row.id.clone(),
            slug: row.slug.clone(),
            status: row.status,
            description: row.description.clone(),
            account_type: "user".into(),
            timezone: row.timezone.clone(),
            address: row.address.as_deref().and_then(|a| serde_json::from_str(a).ok()),
            settings,
            tracking_numbers_left: left,
            tracking_numbers_low: low,
            created_at: crate::clock::iso_micros(row.created_at),
            updated_at: crate::clock::iso_micros(row.updated_at),
        })
    }

    pub fn create_account(&self, env: Env, req: ShipperAccountCreate) -> Result<ShipperAccount, ServiceError> {
        let Some(c) = carrier(&req.slug) else {
            let slugs: Vec<&str> = packdesk_carriers::registry()
                .carriers
                .iter()
                .map(|c| c.slug.as_str())
                .collect();
            return Err(ServiceError::invalid(
                "slug",
                format!("unknown carrier `{}`; one of: {}", req.slug, slugs.join(", ")),
            ));
        };
        let mut p = Problems::default();
        let n = req.description.trim().chars().count();
        if !(1..=200).contains(&n) {
            p.invalid("description", "length must be 1..200 characters");
        }
        check_credentials(&mut p, c, &req.credentials, false);
        if let Some(a) = &req.address {
            check_address(&mut p, "address", a, Some(c), false);
        }
        let timezone = req.timezone.clone().unwrap_or_else(|| "UTC".into());
        check_timezone(&mut p, "timezone", &timezone);
        let mut settings = req.settings.clone().unwrap_or_default();
        check_settings(&mut p, c, &settings);
        let mut secrets = AccountSecrets::default();
        if let Some(t) = settings.manifest_transport.as_mut() {
            secrets.manifest_transport = settle_transport(&mut p, t, TransportSecrets::default());
        }
        if let Some(c) = settings.connection.as_mut() {
            secrets.upstream_api_key = settle_connection(&mut p, c, None);
        }
        settings.connection = settings.connection.filter(|c| *c != AccountConnection::SelfPrint);
        p.into_result()?;

        let now = self.now_us();
        let creds = serde_json::to_vec(&req.credentials).map_err(ServiceError::internal)?;
        let row = AccountRow {
            id: uuid::Uuid::new_v4().to_string(),
            env,
            slug: c.slug.clone(),
            status: AccountStatus::Enabled,
            description: req.description.trim().to_string(),
            timezone,
            address: req
                .address
                .as_ref()
                .map(|a| serde_json::to_string(a).unwrap_or_default()),
            settings: serde_json::to_string(&settings).map_err(ServiceError::internal)?,
            credentials: self.vault.seal(&creds),
            secrets: Some(self.seal_secrets(&secrets)?),
            created_at: now,
            updated_at: now,
        };
        self.store.write(|tx| {
            table::insert(tx, &row)?;
            let detail = serde_json::json!({"after": {"slug": row.slug, "description": row.description}});
            self.audit(tx, Some(env), "account.created", Some(&row.id), detail)
        })?;
        self.account_record(env, &row)
    }

    pub fn get_account(&self, env: Env, id: &str) -> Result<ShipperAccount, ServiceError> {
        let row = self.account_row(env, id, "id")?;
        self.account_record(env, &row)
    }

    pub fn list_accounts(&self, env: Env, q: &ListQuery) -> Result<ShipperAccountList, ServiceError> {
        let w = crate::list::window(q, self.clock.now())?;
        let rows = self
            .store
            .read(|c| table::list(c, env, q.slug.as_deref(), w.limit, w.after.as_ref()))?;
        let page = paging::page(rows, w.limit, |r| paging::Cursor {
            created_at: r.created_at,
            id: r.id.clone(),
        });
        let shipper_accounts = page
            .items
            .iter()
            .map(|r| self.account_record(env, r))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ShipperAccountList {
            next_token: page.next_token,
            limit: w.limit as u32,
            shipper_accounts,
        })
    }

    /// Loads, changes and writes back an account in one transaction.
    fn modify_account(
        &self,
        env: Env,
        id: &str,
        change: impl FnOnce(&mut AccountRow) -> Result<(), ServiceError>,
    ) -> Result<AccountRow, ServiceError> {
        if !is_uuid(id) {
            return Err(ServiceError::invalid("id", "must be a UUID"));
        }
        let now = self.now_us();
        let changed = self.store.write(|tx| {
            // One desk's change after another's (a shared database), never both from one reading.
            table::lock(tx, id)?;
            let mut row = table::get(tx, env, id)?.ok_or_else(|| not_found("id", id))?;
            let before = settings_of(&row);
            let status_before = row.status;
            let sealed_before = (row.credentials.clone(), row.secrets.clone());
            change(&mut row)?;
            // Later than the last change even on a desk whose clock is behind: a label made with
            // the account as it was is then refused (`AccountsSeen`).
            row.updated_at = now.max(row.updated_at + 1);
            table::update(tx, &row)?;
            // What changed, never a secret (credentials and connection secrets are sealed apart):
            // of those, only that they changed.
            let detail = serde_json::json!({
                "before": {"status": status_before, "settings": before},
                "after": {"status": row.status, "settings": settings_of(&row)},
                "credentials_changed": row.credentials != sealed_before.0,
                "secrets_changed": row.secrets != sealed_before.1,
            });
            self.audit(tx, Some(env), "account.changed", Some(&row.id), detail)?;
            Ok(row)
        });
        self.accounts_seen.forget(id);
        changed
    }

    pub fn update_account_info(
        &self,
        env: Env,
        id: &str,
        req: ShipperAccountInfoUpdate,
    ) -> Result<ShipperAccount, ServiceError> {
        let row = self.modify_account(env, id, |row| {
            let c = registry_carrier(&row.slug)?;
            let mut p = Problems::default();
            if let Some(d) = &req.description {
                if !(1..=200).contains(&d.trim().chars().count()) {
                    p.invalid("description", "length must be 1..200 characters");
                }
                row.description = d.trim().to_string();
            }
            if let Some(a) = &req.address {
                check_address(&mut p, "address", a, Some(c), false);
                row.address = Some(serde_json::to_string(a).map_err(ServiceError::internal)?);
            }
            if let Some(tz) = &req.timezone {
                check_timezone(&mut p, "timezone", tz);
                row.timezone = tz.clone();
            }
            p.into_result()
        })?;
        self.account_record(env, &row)
    }

    /// Replaces (PUT) or merges (PATCH) the credentials; answers `{id}`.
    pub fn update_account_credentials(
        &self,
        env: Env,
        id: &str,
        req: ShipperAccountCredentialsUpdate,
        merge: bool,
    ) -> Result<Deleted, ServiceError> {
        let row = self.modify_account(env, id, |row| {
            let c = registry_carrier(&row.slug)?;
            let mut creds = req.credentials.clone();
            if merge {
                let old: Map<String, Value> =
                    serde_json::from_slice(&self.vault.open_sealed(&row.credentials)?).unwrap_or_default();
                for (k, v) in old {
                    creds.entry(k).or_insert(v);
                }
            }
            let mut p = Problems::default();
            check_credentials(&mut p, c, &creds, false);
            p.into_result()?;
            row.credentials = self
                .vault
                .seal(&serde_json::to_vec(&creds).map_err(ServiceError::internal)?);
            Ok(())
        })?;
        Ok(Deleted { id: row.id })
    }

    /// Settings: status (enabled/disabled), timezone and settings (tracking ranges, paper).
    pub fn update_account_settings(
        &self,
        env: Env,
        id: &str,
        req: ShipperAccountSettingsUpdate,
    ) -> Result<ShipperAccount, ServiceError> {
        let mut transport_taken_away = false;
        let row = self.modify_account(env, id, |row| {
            let c = registry_carrier(&row.slug)?;
            let mut p = Problems::default();
            if let Some(s) = &req.status {
                if let Some(status @ (AccountStatus::Enabled | AccountStatus::Disabled)) = AccountStatus::parse(s) {
                    row.status = status;
                } else {
                    p.invalid("status", "must be enabled or disabled");
                }
            }
            if let Some(tz) = &req.timezone {
                check_timezone(&mut p, "timezone", tz);
                row.timezone = tz.clone();
            }
            if let Some(new) = &req.settings {
                check_settings(&mut p, c, new);
                let mut s = settings_of(row);
                if let Some(r) = &new.tracking_ranges {
                    s.tracking_ranges.get_or_insert_with(BTreeMap::new).extend(r.clone());
                }
                if new.range_warning.is_some() {
                    s.range_warning = new.range_warning;
                }
                if new.default_paper_size.is_some() {
                    s.default_paper_size = new.default_paper_size;
                }
                if let Some(t) = &new.cutoff_time {
                    // "" takes the cut-off away.
                    s.cutoff_time = Some(t.clone()).filter(|t| !t.is_empty());
                }
                if new.collection_days.is_some() {
                    s.collection_days = new.collection_days.clone();
                }
                if let Some(t) = &new.manifest_transport {
                    let mut t = t.clone();
                    let mut secrets = self.account_secrets(row)?;
                    let kept = match &s.manifest_transport {
                        Some(old) if same_destination(old, &t) => secrets.manifest_transport.clone(),
                        // Another server or address never gets the old one's password.
                        _ => TransportSecrets::default(),
                    };
                    secrets.manifest_transport = settle_transport(&mut p, &mut t, kept);
                    row.secrets = Some(self.seal_secrets(&secrets)?);
                    if t == ManifestTransport::None {
                        transport_taken_away = true;
                    }
                    s.manifest_transport = Some(t).filter(|t| *t != ManifestTransport::None);
                }
                if let Some(c) = &new.connection {
                    let mut c = c.clone();
                    let mut secrets = self.account_secrets(row)?;
                    let kept = match (&s.connection, &c) {
                        (Some(AccountConnection::Upstream(a)), AccountConnection::Upstream(b))
                            if same_origin(&a.base_url, &b.base_url) =>
                        {
                            secrets.upstream_api_key.clone()
                        }
                        // Another service never gets the old one's key.
                        _ => None,
                    };
                    secrets.upstream_api_key = settle_connection(&mut p, &mut c, kept);
                    row.secrets = Some(self.seal_secrets(&secrets)?);
                    s.connection = Some(c).filter(|c| *c != AccountConnection::SelfPrint);
                }
                row.settings = serde_json::to_string(&s).map_err(ServiceError::internal)?;
            }
            p.into_result()
        })?;
        // New ranges are read again on the next label (the counter stays: no number twice).
        self.allocator.forget(&format!("account:{}:", row.id));
        // What it had not sent is no longer expected to go (nor shown as not sent).
        if transport_taken_away {
            let now = self.now_us();
            self.store
                .write(|tx| packdesk_store::transmissions::not_required_for(tx, &row.id, now))?;
        }
        self.account_record(env, &row)
    }

    /// Deletes an account (its labels stay in the history); answers `{id}`.
    pub fn delete_account(&self, env: Env, id: &str) -> Result<Deleted, ServiceError> {
        let row = self.modify_account(env, id, |row| {
            row.status = AccountStatus::Deleted;
            Ok(())
        })?;
        Ok(Deleted { id: row.id })
    }

    /// The credentials in clear, for a connector that calls the carrier; never leaves the core.
    #[cfg(any(test, feature = "testing"))]
    pub fn account_credentials(&self, env: Env, id: &str) -> Result<Map<String, Value>, ServiceError> {
        let row = self.account_row(env, id, "id")?;
        serde_json::from_slice(&self.vault.open_sealed(&row.credentials)?).map_err(ServiceError::internal)
    }
}

/// The sealed secrets of an account (`shipper_accounts.secrets`).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct AccountSecrets {
    #[serde(default)]
    pub manifest_transport: TransportSecrets,
    /// The upstream label service's API key (`settings.connection`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream_api_key: Option<String>,
}

impl Service {
    pub(crate) fn account_secrets(&self, account: &AccountRow) -> Result<AccountSecrets, ServiceError> {
        match &account.secrets {
            None => Ok(AccountSecrets::default()),
            Some(sealed) => serde_json::from_slice(&self.vault.open_sealed(sealed)?).map_err(ServiceError::internal),
        }
    }

    /// An account's secrets as `shipper_accounts.secrets` keeps them.
    pub(crate) fn seal_secrets(&self, secrets: &AccountSecrets) -> Result<Vec<u8>, ServiceError> {
        Ok(self
            .vault
            .seal(&serde_json::to_vec(secrets).map_err(ServiceError::internal)?))
    }
}

/// The accounts this desk made labels for, as it read them (issue 42): on a shared database a
/// label is made with its account as kept here, a round trip fewer, and written only while the
/// account is still so (`labels::MadeLabel::account_updated_at`); one changed at another desk is
/// then read anew and the label made again. Changed at this desk, it is forgotten at once.
#[derive(Default)]
pub(crate) struct AccountsSeen(std::sync::Mutex<std::collections::HashMap<String, AccountRow>>);

/// Accounts kept at most (a desk uses a handful; a warehouse has dozens).
const ACCOUNTS_SEEN: usize = 1_000;

impl AccountsSeen {
    fn get(&self, env: Env, id: &str) -> Option<AccountRow> {
        let seen = self.0.lock().unwrap_or_else(|p| p.into_inner());
        seen.get(id).filter(|row| row.env == env).cloned()
    }

    fn keep(&self, row: &AccountRow) {
        let mut seen = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if seen.len() >= ACCOUNTS_SEEN {
            seen.clear();
        }
        seen.insert(row.id.clone(), row.clone());
    }

    pub(crate) fn forget(&self, id: &str) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).remove(id);
    }
}
