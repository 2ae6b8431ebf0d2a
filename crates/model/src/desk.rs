//! Request bodies of the desk's own routes (`/desk/...`): webhook setting, printers, print
//! profiles, printing, close-out. Like the /v3 bodies, unknown keys are refused.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `PUT /desk/webhook` (and `packdesk-server webhook`): either key may be left out (keeps its
/// value); a new URL turns webhooks on unless `enabled` says otherwise.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WebhookChange {
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// `POST /desk/printers`, `PUT /desk/printers/{id}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PrinterRequest {
    pub name: String,
    pub transport: PrinterTransport,
    pub address: String,
    /// What the printer takes.
    pub format: PrinterFormat,
    /// 203, 300 or 600 (default 203)
    #[serde(default)]
    pub dpi: Option<i64>,
    /// Drop the setup commands of ZPL files (default: on for zpl printers).
    #[serde(default)]
    pub strip_zpl_setup: Option<bool>,
}

/// `PUT /desk/print-profiles/{document_type}`: which printer a document type goes to.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PrintProfileRequest {
    pub printer_id: String,
    #[serde(default)]
    pub stock: Option<String>,
    #[serde(default)]
    pub copies: Option<i64>,
    /// Print labels of this type as soon as they are created.
    #[serde(default)]
    pub auto_print: Option<bool>,
}

/// `POST /desk/print`: exactly one of `label_id`, `manifest_id`, `bulk_download_id`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PrintRequest {
    #[serde(default)]
    pub label_id: Option<String>,
    #[serde(default)]
    pub manifest_id: Option<String>,
    #[serde(default)]
    pub bulk_download_id: Option<String>,
    /// Of a label: label, invoice, customs_declaration, packing_slip (default label).
    #[serde(default)]
    pub document: Option<DocumentType>,
    /// Default: the document type's print profile.
    #[serde(default)]
    pub printer_id: Option<String>,
    #[serde(default)]
    pub copies: Option<i64>,
}

/// `POST /desk/printers/{id}/test-page` (the body may be empty).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TestPageRequest {
    #[serde(default)]
    pub stock: Option<String>,
}

/// `POST /desk/close-out` (the body may be empty): without ids, every account with labels waiting.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CloseOutRequest {
    #[serde(default)]
    pub shipper_account_ids: Option<Vec<String>>,
}

// ----- records of the desk routes -----

pub use crate::record::{Deleted, ListWindow};
pub use crate::status::{DeliveryStatus, DocumentType, PrintJobStatus, PrinterFormat, PrinterTransport};

/// A printer of the desk (machine-wide: both environments print to it).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Printer {
    pub id: String,
    pub name: String,
    pub transport: PrinterTransport,
    pub address: String,
    pub format: PrinterFormat,
    pub dpi: i64,
    pub strip_zpl_setup: bool,
    pub created_at: String,
    pub updated_at: String,
}

/// Whether a printer can take a job now, and what waits for it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PrinterStatus {
    pub printer_id: String,
    /// ready (it answered just now) or off (it did not: `detail` says how)
    pub state: String,
    pub detail: Option<String>,
    /// Jobs waiting for it (queued or being sent).
    pub waiting: i64,
    /// Jobs that failed on it and are not printed yet (they are retried every 15 s).
    pub failed: i64,
    /// The newest failed job's reason.
    pub last_error: Option<String>,
    pub checked_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PrinterList {
    pub printers: Vec<Printer>,
}

/// A printer the computer's spooler knows (to add as a `spooler` printer).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SystemPrinter {
    pub name: String,
    /// Where the spooler sends it (device URI), when known.
    pub device: Option<String>,
    pub state: String,
    pub is_default: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SystemPrinterList {
    pub printers: Vec<SystemPrinter>,
    /// Why the list is empty when the spooler could not be asked.
    pub note: Option<String>,
}

/// Which printer a document type goes to, on what stock, how many copies.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PrintProfile {
    pub document_type: DocumentType,
    pub printer_id: String,
    pub stock: String,
    pub copies: i64,
    pub auto_print: bool,
    pub updated_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PrintProfileList {
    pub print_profiles: Vec<PrintProfile>,
    /// The document types a profile can be set for.
    pub document_types: Vec<DocumentType>,
}

/// `{"document_type": ...}`: what deleting a profile answers.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct DeletedProfile {
    pub document_type: DocumentType,
}

/// One document sent (or to be sent) to a printer.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PrintJob {
    pub id: String,
    pub printer_id: String,
    pub document_type: DocumentType,
    /// The label, manifest or bulk download printed (empty for a test page).
    pub owner_id: String,
    pub file_id: Option<String>,
    pub copies: i64,
    pub stock: String,
    pub status: PrintJobStatus,
    pub error: Option<String>,
    pub attempts: i64,
    pub bytes_sent: Option<i64>,
    /// The spooler's job reference (cups, ipp).
    pub reference: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub printed_at: Option<String>,
    /// Who sent it to print: the operator, the integration key, or `desk` (its own work).
    pub operator: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PrintJobList {
    #[serde(flatten)]
    pub window: ListWindow,
    pub print_jobs: Vec<PrintJob>,
}

/// Where an environment's async results are POSTed.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct WebhookSetting {
    pub url: Option<String>,
    pub enabled: bool,
    pub updated_at: Option<String>,
}

/// One POST of a delivery and what the receiver answered.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct WebhookAttempt {
    pub attempt: i64,
    pub at: String,
    pub url: String,
    pub status_code: Option<i64>,
    pub error: Option<String>,
    pub duration_ms: f64,
}

/// One async result to be POSTed to the webhook, with its attempts.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct WebhookDelivery {
    pub id: String,
    pub event: crate::status::WebhookEvent,
    pub record_id: String,
    pub url: String,
    pub status: DeliveryStatus,
    pub attempt_count: i64,
    /// When the next attempt is due (pending deliveries only).
    pub next_attempt_at: Option<String>,
    pub attempts: Vec<WebhookAttempt>,
    pub created_at: String,
    pub updated_at: String,
    /// The JSON it POSTs (one delivery only; lists leave it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct WebhookDeliveryList {
    #[serde(flatten)]
    pub window: ListWindow,
    pub webhook_deliveries: Vec<WebhookDelivery>,
}

/// Labels of one carrier today, by status.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CarrierCount {
    pub slug: String,
    pub name: String,
    pub total: i64,
    pub statuses: std::collections::BTreeMap<String, i64>,
}

/// Labels made on one day.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct DayCount {
    /// YYYY-MM-DD
    pub date: String,
    pub labels: i64,
}

/// `GET /desk/today`: today's labels by carrier and status, and labels per day.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Today {
    /// YYYY-MM-DD, in the caller's UTC offset
    pub date: String,
    pub total: i64,
    pub by_carrier: Vec<CarrierCount>,
    pub by_status: std::collections::BTreeMap<String, i64>,
    /// Oldest first, ending today.
    pub days: Vec<DayCount>,
    /// Today's work of each operator (or key), most labels first.
    pub by_operator: Vec<OperatorDay>,
}

/// What one operator (or integration key, or the desk's own jobs) made today.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct OperatorDay {
    /// As the audit log names them.
    pub operator: String,
    pub labels: i64,
    pub orders: i64,
    /// The items of the orders they shipped.
    pub items: i64,
    /// Hour by hour of the day (0 to 23, the caller's time).
    pub hours: Vec<HourCount>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct HourCount {
    pub hour: u8,
    pub labels: i64,
    pub orders: i64,
    pub items: i64,
}

/// A shipper account as End of day lists it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CloseOutAccount {
    pub id: String,
    pub slug: String,
    pub description: String,
    pub carrier_name: String,
}

/// An enabled account and the labels waiting for its close-out.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct AccountWaiting {
    pub shipper_account: CloseOutAccount,
    /// The account's day (YYYY-MM-DD, its timezone): a close-out now takes the labels shipping
    /// on it or earlier.
    pub today: String,
    /// Labels a close-out now takes.
    pub labels_waiting: i64,
    pub oldest_label_at: Option<String>,
    /// Of those, the labels whose ship date has passed: never manifested on their day.
    pub labels_overdue: i64,
    /// Their total weight, kilograms.
    pub weight_kg: f64,
    /// Their counts and weights by service.
    pub by_service: Vec<ServiceCount>,
    /// Labels shipping on a later day, by day: they wait for that day's close-out.
    pub later: Vec<ShipDateCount>,
    /// The account's manifests made today, newest first (to reprint).
    pub manifests_today: Vec<crate::record::Manifest>,
    pub cutoff_time: Option<String>,
}

/// `GET /desk/history`: a page of labels as History shows them (the `/v3/labels` query).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct History {
    #[serde(flatten)]
    pub window: crate::record::ListWindow,
    pub rows: Vec<HistoryRow>,
    /// A search of only common words reads so many labels a page: when it stopped before the
    /// oldest, the time of the last label it read (`next_token` reads on from there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub searched_back_to: Option<String>,
}

/// A label with what the desk shows beside it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct HistoryRow {
    pub label: crate::record::Label,
    /// The recipient: name, and company when there is one.
    pub recipient: String,
    /// City and country (alpha-3) of the recipient.
    pub destination: String,
    /// The carrier's name of the service.
    pub service_name: String,
    /// The parcels' weight together, in the first parcel's unit, as the request gave it.
    pub weight: Option<crate::request::Weight>,
    /// The label's last print job: its status, or null when it was never sent to a printer.
    pub print_status: Option<PrintJobStatus>,
    /// Why that print job failed.
    pub print_error: Option<String>,
    /// Who made the label: the operator, the key, or `desk` (from the audit log; none for a label
    /// made before the log began).
    pub made_by: Option<String>,
}

/// Labels of one service waiting for a close-out.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ServiceCount {
    pub service_type: String,
    pub name: String,
    pub labels: i64,
    pub weight_kg: f64,
}

/// Labels shipping on one day.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ShipDateCount {
    pub ship_date: String,
    pub labels: i64,
}

/// `GET /desk/shipper-accounts/{id}/ship-date`: the ship date a label made now gets by default.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ShipDate {
    /// The account's day now (YYYY-MM-DD, its timezone).
    pub today: String,
    /// The default ship date of a label made now: today, or the next collection day.
    pub ship_date: String,
    /// Why it is not today: `after_cutoff` or `no_collection`; null when it is today.
    pub reason: Option<String>,
    pub cutoff_time: Option<String>,
}

/// `GET /desk/end-of-day`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct EndOfDay {
    pub accounts: Vec<AccountWaiting>,
}

/// What closing out one account did.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CloseOutResult {
    pub shipper_account: crate::record::AccountRefDescribed,
    /// The manifest made (null when the close-out failed: see `error`).
    pub manifest: Option<crate::record::Manifest>,
    /// The manifest's print job, when a manifest printer is set (printed, or failed with why).
    pub print_job: Option<PrintJob>,
    /// Why the manifest could not be sent to the printer at all.
    pub print_error: Option<String>,
    /// The collection sheet's print job, when a `collection_sheet` printer is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection_sheet_print_job: Option<PrintJob>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection_sheet_print_error: Option<String>,
    pub error: Option<crate::error::Failure>,
}

/// `POST /desk/close-out`: one result per account, in the order they were set up.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CloseOut {
    pub results: Vec<CloseOutResult>,
}

/// A country as the desk offers it for completion.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CountryName {
    pub alpha3: String,
    pub alpha2: String,
    pub name: String,
    /// Its postal-code formats (`9` a digit, `A` a letter, others literal); empty when the
    /// country has none, absent when Packdesk has no rule for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postal_formats: Option<Vec<String>>,
    /// Other names people type for it (lower case): "uk", "england", "españa", "deutschland".
    #[serde(default)]
    pub also_called: Vec<String>,
}

/// `GET /desk/countries`: every ISO 3166 country by English name.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CountryList {
    pub countries: Vec<CountryName>,
}

/// `PUT /desk/database`: the database the desk starts on next (Settings, this machine only).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DatabaseRequest {
    /// The warehouse's shared PostgreSQL database (`postgres://user:password@host:port/database`);
    /// null or empty: the data folder's own file.
    pub url: Option<String>,
    /// This desk's name among the warehouse's desks (default: the host name).
    #[serde(default)]
    pub desk: Option<String>,
    /// The join code of a database other desks already use (`packdesk-server keys --database`,
    /// or Settings at a desk on it): the warehouse's vault key, given once.
    #[serde(default)]
    pub join_code: Option<String>,
    /// The CA certificate file (PEM) the database server's certificate must be signed by: the
    /// address gets `sslrootcert` (and `sslmode=verify-full` unless it names a mode).
    #[serde(default)]
    pub ca_file: Option<String>,
}

/// `GET /desk/database`: what the desk runs on, and what it starts on next.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct DatabaseSetting {
    /// True on the warehouse's shared database, false on the data folder's own file.
    pub shared: bool,
    /// This desk's name on the shared database.
    pub desk: Option<String>,
    /// The shared database's address, its password hidden.
    pub url: Option<String>,
    /// The join code further desks are given once (shared database only).
    pub join_code: Option<String>,
    /// The shared database saved for the next start (password hidden); none: the own file.
    pub saved_url: Option<String>,
    pub saved_desk: Option<String>,
    /// The saved choice differs from the one in use: it takes effect when Packdesk starts again.
    pub restart_needed: bool,
    /// `--database` or PACKDESK_DATABASE_URL chose the database at this start (over the saved one).
    pub from_command_line: bool,
}

/// `PUT /desk/scale`: which USB scale the desk reads.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScaleRequest {
    /// `"auto"` (the first HID scale found), a hidraw device file (`/dev/hidraw3`), or null to
    /// read no scale.
    pub device: Option<String>,
}

/// What a scale says about its weight (`status` of `GET /desk/scale`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ScaleStatus {
    /// No scale is set.
    Off,
    /// Set, but not connected (not found, unplugged, not readable: see `message`).
    Disconnected,
    /// Connected; no report yet.
    Waiting,
    /// Settled at zero: nothing on the platter.
    Zero,
    InMotion,
    Stable,
    UnderZero,
    OverWeight,
    Fault,
    NeedsCalibration,
    NeedsRezeroing,
    Unknown,
}

/// `GET /desk/scale`: the desk scale's latest reading.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ScaleState {
    /// The setting: `"auto"`, a device file, or null (no scale).
    pub device: Option<String>,
    /// The device file being read (with `auto`, the scale found).
    pub path: Option<String>,
    /// The scale's name from its USB descriptor (with `auto`).
    pub name: Option<String>,
    pub connected: bool,
    /// A weight to take: settled, confirmed (the first report after connecting counts once it
    /// repeats), in a postal unit.
    pub stable: bool,
    /// The latest weight in the scale's own unit (negative under zero); null without a report.
    pub weight: Option<crate::request::Weight>,
    pub status: ScaleStatus,
    /// Why there is no stable weight, for the operator.
    pub message: Option<String>,
    /// Reports read since the scale was set: a new reading shows even when the weight is the same.
    pub reports: u64,
}

/// `PUT /desk/printing`: hold every print job of the desk (new labels' documents wait in the
/// queue), or send them again.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PrintingRequest {
    pub paused: bool,
}

/// The desk at a glance, most urgent first.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DeskState {
    /// Nothing waits and every printer's latest job printed.
    Ready,
    /// A printer's latest job failed (it is retried; see `failing_printers`).
    PrinterFailing,
    /// The operator paused printing: jobs wait in the queue.
    PrintingPaused,
    /// Print jobs are queued or being sent.
    JobsWaiting,
    /// The shared database of the warehouse's desks cannot be reached: nothing can be made or
    /// found until it is back (the desk tries again by itself).
    DatabaseUnreachable,
    /// A manifest's data file has not reached its carrier (see `manifests_not_sent`): the depot
    /// may refuse the parcels until it has.
    ManifestNotSent,
    /// A live account's tracking numbers run low (see `ranges_low`): labels are still made, but
    /// the carrier's next range should be added before they run out.
    RangesLow,
    /// The day's backup of the desk's database failed (see `backup_failed`); it is tried again.
    BackupFailed,
}

/// A live, enabled account's pool with fewer tracking numbers left than its warning.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct RangeLow {
    pub account_id: String,
    /// The account's description.
    pub account: String,
    pub slug: String,
    pub pool: String,
    pub left: u64,
    /// The account's `range_warning` for this pool (or the default).
    pub warning: u64,
}

/// A printer whose latest job failed.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct FailingPrinter {
    pub printer_id: String,
    pub name: String,
    /// The failure's reason.
    pub error: Option<String>,
    /// When that job failed.
    pub failed_at: String,
}

/// `GET /desk/status`: what the tray icon and every screen's banner show.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct DeskStatus {
    pub state: DeskState,
    /// One line for the operator ("Ready", "Printer Zebra failing: …", "Printing paused: 3 jobs
    /// waiting").
    pub message: String,
    pub printing_paused: bool,
    /// Print jobs queued or being sent (both environments: the desk's printers print both).
    pub jobs_waiting: i64,
    pub failing_printers: Vec<FailingPrinter>,
    /// Live, enabled accounts whose tracking numbers run low.
    pub ranges_low: Vec<RangeLow>,
    /// Manifests whose data file's last sending failed (newest first).
    #[serde(default)]
    pub manifests_not_sent: Vec<UnsentManifest>,
    /// Why the last daily backup failed (none: it did not, or there was none to make).
    #[serde(default)]
    pub backup_failed: Option<String>,
}

/// A manifest whose data file has not reached its carrier.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct UnsentManifest {
    pub manifest_id: String,
    pub env: crate::status::Env,
    pub file_name: String,
    /// Why the last attempt failed, in words.
    pub error: Option<String>,
    /// When it is tried again by itself (none: given up; "Send again" in End of day).
    pub next_attempt_at: Option<String>,
}

/// Where the vault key (which seals the API keys and carrier credentials) is kept: Settings says.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct VaultKeyPlace {
    pub kept_in: VaultKeyStore,
    /// The file's path, or the keyring entry ("app.packdesk.desk / vault key for <folder>").
    pub location: String,
    /// Why the key is in the file although the app asked for the keyring ("no OS keyring is
    /// reachable: …"); none when it is where it was asked to be.
    pub note: Option<String>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum VaultKeyStore {
    /// The OS keyring (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows).
    Keyring,
    /// `vault.key` in the data folder, readable only by its owner (0600).
    File,
}

/// `GET /desk/update`, and the answer of checking, downloading and installing: the desktop app's
/// update from the warehouse's own update server (Settings' `update_url`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct UpdateStatus {
    /// The running app's version.
    pub current_version: String,
    /// The update server from Settings; none: updates are off.
    pub source: Option<String>,
    pub state: UpdateState,
    /// The newer version the server offers (`available`, `ready`).
    pub available: Option<AvailableUpdate>,
    /// One line for the operator ("Packdesk 0.2.0 is available", "the update's signature does
    /// not verify: …").
    pub message: String,
    /// When the server was last asked (RFC 3339).
    pub checked_at: Option<String>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum UpdateState {
    /// No update server set, or not the desktop app (the server is updated with its package).
    Off,
    /// Not asked yet since the start.
    Idle,
    UpToDate,
    Available,
    /// Downloaded and its signature verified: installing restarts the app.
    Ready,
    Failed,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct AvailableUpdate {
    pub version: String,
    pub notes: Option<String>,
    /// When the release was published, as the server says.
    pub date: Option<String>,
}

/// Where the certificate of a desk's HTTPS comes from.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CertificateSource {
    /// Made by the desk at first start (kept in the data folder, renewed before it expires).
    Made,
    /// The warehouse's own (`--tls-cert`, `--tls-key`), read again when the files change.
    Files,
}

/// `GET /desk/https`: how other machines reach this desk.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct HttpsStatus {
    /// True when the desk answers other machines over HTTPS; false when it listens on this
    /// machine only, or beyond it over plain HTTP (`--insecure-http`).
    pub enabled: bool,
    /// Listening beyond this machine over plain HTTP (`--insecure-http`): keys cross the network
    /// readable.
    pub insecure_http: bool,
    /// The address other machines open (file links in records use it).
    pub url: String,
    pub certificate: Option<CertificateInfo>,
}

/// The certificate a desk's HTTPS presents.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct CertificateInfo {
    pub source: CertificateSource,
    /// SHA-256 of the certificate (DER), hex pairs joined by colons: what a WMS pins or checks.
    pub fingerprint_sha256: String,
    /// The host names and addresses it is valid for.
    pub names: Vec<String>,
    /// When it starts and stops being valid (RFC 3339, UTC).
    pub not_before: String,
    pub not_after: String,
    /// The certificate itself (PEM), for a WMS's trust store.
    pub pem: String,
}

/// `GET /desk/backups`: the daily backups in the data folder, newest first.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct BackupList {
    /// Where they are: `<data>/backups`.
    pub folder: String,
    pub backups: Vec<BackupFile>,
}

/// One daily backup.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct BackupFile {
    /// Its file name: `packdesk-2026-11-26.backup`.
    pub file: String,
    pub bytes: u64,
    /// When it was written (RFC 3339).
    pub made_at: String,
}
