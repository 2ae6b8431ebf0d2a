//! Routes: the table of every route (`table`) and the handlers. Every route under `/v3` and
//! `/desk`, known or not, needs a valid `service-api-key`; the key decides the environment (live or
//! sandbox) the request sees.

use crate::envelope::{error, ok, reply, ApiError};
use crate::extract::{ContractJson, ContractJsonOrEmpty, ContractQuery};
use crate::idempotency::RequestKey;
use crate::table::{
    action, delete, get, keyed_prefixes, list, param, patch, post, put, schema, split_prefix, takes_idempotency_key,
    Access, Endpoint, RequestBody, Route,
};
use axum::body::Body;
use axum::extract::{Path, Query, Request, State};
use axum::handler::Handler;
use axum::http::Method;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Router};
use packdesk_model::desk::{
    CloseOutRequest, DatabaseRequest, PrintProfileRequest, PrintRequest, PrinterRequest, PrintingRequest, ScaleRequest,
    TestPageRequest, WebhookChange,
};
use packdesk_model::preset::{DeskSettings, PresetRequest, Rules, ShipBatchRequest, ShipOrderRequest};
use packdesk_model::request::{
    AddressValidationRequest, BulkDownloadRequest, CancelLabelRequest, LabelRequest, ListQuery, ManifestRequest,
    RatesRequest, ShipperAccountCreate, ShipperAccountCredentialsUpdate, ShipperAccountInfoUpdate,
    ShipperAccountSettingsUpdate,
};
use packdesk_model::said::{args, Saying};
use packdesk_model::status::KeyScope;
use packdesk_model::transport::{TransmissionLog, TransportTest};
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_service::audit::{Caller, Via};
use packdesk_service::keys::Env;
use packdesk_service::timing::{self, Phase};
use packdesk_service::{Reply, Service};
use serde_json::json;
use std::sync::Arc;

pub(crate) type Shared = Arc<Service>;

tokio::task_local! {
    /// Who the request is (set by `authenticate` for the request's task): the service calls of
    /// its handler run as it (`run`), so what they change is audited in its name.
    pub(crate) static CALLER: Caller;
}

/// Every route of the server, once: the router, the access checks and the OpenAPI document are
/// made from this table (see `table.rs`).
pub fn table() -> Vec<Route> {
    use packdesk_model::desk::*;
    use packdesk_model::order::{
        ImportMapping, ImportResult, Order, OrderBatchRequest, OrderList, OrderRequest, OrdersSaved,
    };
    use packdesk_model::pack::{PackRequest, PackScan, PackState};
    use packdesk_model::preset::{Preset, PresetList, ShipBatch, ShippedOrder};
    use packdesk_model::record::*;
    use packdesk_model::returns::{Return, ReturnList, ReturnLookup, ReturnRequest};
    use Access::*;
    let int = || json!({"type": "integer"});
    let string = || json!({"type": "string"});
    vec![
        // ----- /v3: the spec's interface -----
        post::<LabelRequest, Label, _, _, _>(
            "/v3/labels",
            "Create a label (sync, or async with `async: true`)",
            create_label,
        ),
        list::<LabelList, _, _, _>("/v3/labels", "List labels", list_labels),
        get::<Label, _, _, _>("/v3/labels/{id}", "Retrieve a label", get_label),
        post::<ShipperAccountCreate, ShipperAccount, _, _, _>(
            "/v3/shipper-accounts",
            "Create a shipper account",
            create_account,
        ),
        list::<ShipperAccountList, _, _, _>("/v3/shipper-accounts", "List shipper accounts", list_accounts),
        get::<ShipperAccount, _, _, _>("/v3/shipper-accounts/{id}", "Retrieve a shipper account", get_account),
        delete::<Deleted, _, _, _>("/v3/shipper-accounts/{id}", "Delete a shipper account", delete_account),
        put::<ShipperAccountSettingsUpdate, ShipperAccount, _, _, _>(
            "/v3/shipper-accounts/{id}",
            "Update a shipper account's settings",
            update_settings,
        ),
        put::<ShipperAccountInfoUpdate, ShipperAccount, _, _, _>(
            "/v3/shipper-accounts/{id}/info",
            "Update a shipper account's information",
            update_info,
        ),
        // A credentials change answers the account's id only: credentials are never answered.
        put::<ShipperAccountCredentialsUpdate, Deleted, _, _, _>(
            "/v3/shipper-accounts/{id}/credentials",
            "Replace a shipper account's credentials",
            replace_credentials,
        ),
        patch::<ShipperAccountCredentialsUpdate, Deleted, _, _, _>(
            "/v3/shipper-accounts/{id}/credentials",
            "Change some of a shipper account's credentials",
            merge_credentials,
        ),
        post::<CancelLabelRequest, CancelLabel, _, _, _>("/v3/cancel-labels", "Cancel a label", cancel_label),
        list::<CancelLabelList, _, _, _>("/v3/cancel-labels", "List cancel labels", list_cancel_labels),
        get::<CancelLabel, _, _, _>("/v3/cancel-labels/{id}", "Retrieve a cancel label", get_cancel_label),
        post::<ManifestRequest, Manifest, _, _, _>("/v3/manifests", "Create a manifest (close-out)", create_manifest),
        list::<ManifestList, _, _, _>("/v3/manifests", "List manifests", list_manifests),
        get::<Manifest, _, _, _>("/v3/manifests/{id}", "Retrieve a manifest", get_manifest),
        post::<BulkDownloadRequest, BulkDownload, _, _, _>(
            "/v3/bulk-downloads",
            "Create a bulk download",
            create_bulk_download,
        ),
        list::<BulkDownloadList, _, _, _>("/v3/bulk-downloads", "List bulk downloads", list_bulk_downloads),
        get::<BulkDownload, _, _, _>("/v3/bulk-downloads/{id}", "Retrieve a bulk download", get_bulk_download),
        post::<RatesRequest, RateRecord, _, _, _>("/v3/rates", "Calculate rates", calculate_rates),
        list::<RateRecordList, _, _, _>("/v3/rates", "List rate calculations", list_rates),
        get::<RateRecord, _, _, _>("/v3/rates/{id}", "Retrieve a rate calculation", get_rate),
        post::<AddressValidationRequest, AddressValidation, _, _, _>(
            "/v3/address-validations",
            "Validate an address (beta)",
            validate_address,
        ),
        list::<AddressValidationList, _, _, _>(
            "/v3/address-validations",
            "List address validations",
            list_address_validations,
        ),
        get::<AddressValidation, _, _, _>(
            "/v3/address-validations/{id}",
            "Retrieve an address validation",
            get_address_validation,
        ),
        Route::new(
            Method::GET,
            "/v3/files/{id}",
            "Download a document (label, invoice, manifest...)",
            download_file,
        )
        .access(KeyOrSignedLink)
        .query([
            param("expires", Some("Of a signed link: unix seconds"), string()),
            param("signature", Some("Of a signed link"), string()),
        ])
        .content("The document", || {
            json!({
                "application/pdf": {"schema": {"type": "string", "format": "binary"}},
                "application/zpl": {"schema": {"type": "string"}},
                "text/csv": {"schema": {"type": "string"}},
                "application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}})
        }),
        get::<SchemaList, _, _, _>("/v3/schemas", "List the published JSON Schemas", list_schemas),
        Route::new::<_, _, Shared>(Method::GET, "/v3/schemas/{name}", "One published JSON Schema", get_schema).content(
            "The JSON Schema",
            || {
                json!({
                    "application/schema+json": {"schema": {"type": "object"}},
                    "application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}})
            },
        ),
        // ----- /desk: the desk's own routes -----
        get::<packdesk_carriers::registry::Registry, _, _, Shared>(
            "/desk/carriers",
            "The carrier registry (services, paper sizes, options, credentials)",
            carriers,
        ),
        get::<CountryList, _, _, Shared>(
            "/desk/countries",
            "Every country: alpha-3, alpha-2 and English name",
            countries,
        ),
        get::<WebhookSetting, _, _, _>("/desk/webhook", "The webhook of the key's environment", get_webhook),
        put::<WebhookChange, WebhookSetting, _, _, _>("/desk/webhook", "Set the webhook URL, on or off", set_webhook),
        list::<WebhookDeliveryList, _, _, _>(
            "/desk/webhook-deliveries",
            "List webhook deliveries",
            list_webhook_deliveries,
        ),
        get::<WebhookDelivery, _, _, _>(
            "/desk/webhook-deliveries/{id}",
            "One webhook delivery with its attempts",
            get_webhook_delivery,
        ),
        action::<WebhookDelivery, _, _, _>(
            "/desk/webhook-deliveries/{id}/resend",
            "Send a webhook delivery again",
            resend_webhook_delivery,
        ),
        Route::new(
            Method::POST,
            "/desk/orders",
            "Save one order, or {\"orders\": [...]} up to 1,000 (an open order with the number is updated)",
            save_orders,
        )
        .request(RequestBody::OneOf(vec![schema::<OrderRequest>, schema::<OrderBatchRequest>]))
        .data::<OrdersSaved>(),
        list::<OrderList, _, _, _>(
            "/desk/orders",
            "Orders, newest first: status, s (start of a word), limit, next_token",
            list_orders,
        ),
        get::<Order, _, _, _>("/desk/orders/{id}", "One order", get_order),
        Route::new(
            Method::GET,
            "/desk/orders/export.csv",
            "Orders as CSV with carrier, service and tracking numbers (status), for the shop",
            export_orders,
        )
        .query([param("status", Some("open, shipped or cancelled"), string())])
        .content("The orders as CSV", || {
            json!({
                "text/csv": {"schema": {"type": "string"}},
                "application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}})
        }),
        Route::new(
            Method::POST,
            "/desk/orders/{id}/ship",
            "Ship an order by its preset: label and packing slip made and printed, order shipped",
            ship_order,
        )
        .optional_body::<ShipOrderRequest>()
        .data::<ShippedOrder>(),
        post::<ShipBatchRequest, ShipBatch, _, _, _>(
            "/desk/orders/ship",
            "Ship orders in the background, in order; answers the batch at once",
            ship_orders_batch,
        ),
        get::<PackState, _, _, _>(
            "/desk/orders/{id}/pack",
            "The order's packing list: each item ordered and scanned so far",
            get_packing,
        ),
        post::<PackRequest, PackScan, _, _, _>(
            "/desk/orders/{id}/pack",
            "Scan an item's code into the order's packing list ({\"scan\": code}), add an item without a code by hand ({\"line\": n, \"add\": 1}), or close the box for the next ({\"next_box\": true}); answers what it did (added, complete, not_in_order, too_many, box_started) and the list",
            pack_item,
        ),
        delete::<PackState, _, _, _>(
            "/desk/orders/{id}/pack",
            "Start the order's packing again (the scans so far stay recorded)",
            restart_packing,
        ),
        Route::new::<_, _, Shared>(
            Method::GET,
            "/desk/command-sheet.pdf",
            "The command barcodes the Ship screen obeys when scanned (ship, ship what is packed, next box, start packing again, switch operator), as an A4 PDF",
            command_sheet,
        )
        .content("The sheet as PDF", || {
            json!({
                "application/pdf": {"schema": {"type": "string", "format": "binary"}},
                "application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}})
        }),
        action::<Label, _, _, _>(
            "/desk/labels/{id}/return-label",
            "Make the return label of a label (its parcel coming back: sender and recipient swapped), linked to its order; printed by the return_label profile",
            make_return_label,
        ),
        get::<ReturnLookup, _, _, _>(
            "/desk/returns/lookup",
            "The order of a returned parcel by a scan: its return label's tracking number, the outbound label's, or the order number; with what shipped and came back before",
            lookup_return,
        )
        .query([param("code", Some("what was scanned"), string())]),
        post::<ReturnRequest, Return, _, _, _>(
            "/desk/returns",
            "Record a returned parcel's items (quantity, reason, condition) against its order",
            record_return,
        ),
        get::<ReturnList, _, _, _>(
            "/desk/returns",
            "Returns recorded, newest first (from, to: a date or an ISO 8601 time)",
            list_returns,
        )
        .query(returns_window()),
        Route::new(
            Method::GET,
            "/desk/returns/export.csv",
            "Returns as CSV, a row per returned item, for the shop's refunds (from, to)",
            export_returns,
        )
        .query(returns_window())
        .content("The returns as CSV", || {
            json!({
                "text/csv": {"schema": {"type": "string"}},
                "application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}})
        }),
        get::<ShipBatch, _, _, _>("/desk/batches/{id}", "A batch's progress and each order's result", get_batch),
        get::<PresetList, _, _, _>("/desk/presets", "The presets of the key's environment", list_presets),
        post::<PresetRequest, Preset, _, _, _>("/desk/presets", "Add a preset", create_preset),
        get::<Preset, _, _, _>("/desk/presets/{id}", "One preset", get_preset),
        put::<PresetRequest, Preset, _, _, _>("/desk/presets/{id}", "Change a preset", update_preset),
        delete::<Deleted, _, _, _>("/desk/presets/{id}", "Delete a preset no rule uses", delete_preset),
        get::<Rules, _, _, _>(
            "/desk/rules",
            "The rules that pick an order's preset, first match wins",
            get_rules,
        ),
        put::<Rules, Rules, _, _, _>("/desk/rules", "Replace the rules", set_rules),
        get::<DeskSettings, _, _, _>(
            "/desk/settings",
            "The desk's settings: ship_on_scan, units, scale_auto_weight, scan_sounds, close_to_tray, start_at_login",
            get_settings,
        )
        .access(LiveKeyForChanges),
        put::<DeskSettings, DeskSettings, _, _, _>(
            "/desk/settings",
            "Change the desk's settings (live key)",
            set_settings,
        )
        .access(LiveKeyForChanges),
        get::<DatabaseSetting, _, _, _>(
            "/desk/database",
            "The database the desk runs on (its own file or the warehouse's shared PostgreSQL) and the one it starts on next (this machine only)",
            get_database,
        )
        .access(LiveKeyForChangesOnThisMachine),
        put::<DatabaseRequest, DatabaseSetting, _, _, _>(
            "/desk/database",
            "Choose the database the desk starts on next: checked now, in effect at the next start (live key, this machine only)",
            set_database,
        )
        .access(LiveKeyForChangesOnThisMachine),
        action::<DatabaseSetting, _, _, _>(
            "/desk/database/restart",
            "The desktop app restarts onto the database Settings saved, a moment after answering (live key, this machine only; packdesk-server is restarted by whoever runs it)",
            restart_for_database,
        )
        .access(LiveKeyForChangesOnThisMachine),
        get::<ScaleState, _, _, _>("/desk/scale", "The desk scale's latest weight", get_scale).access(LiveKeyForChanges),
        put::<ScaleRequest, ScaleState, _, _, _>(
            "/desk/scale",
            "Set the desk's USB scale: auto, a device file, or null (live key)",
            set_scale,
        )
        .access(LiveKeyForChanges),
        get::<DeskStatus, _, _, _>(
            "/desk/status",
            "The desk at a glance: ready, a printer failing, printing paused, jobs waiting",
            desk_status,
        ),
        get::<packdesk_model::desk::BackupList, _, _, _>(
            "/desk/backups",
            "The daily backups of the desk's own database, newest first",
            list_backups,
        )
        .access(LiveKeyForChanges),
        get::<packdesk_model::desk::HttpsStatus, _, _, _>(
            "/desk/https",
            "How other machines reach the desk: HTTPS, its certificate's fingerprint and names",
            https_status,
        ),
        Route::new(
            Method::GET,
            "/desk/https/certificate",
            "The desk's HTTPS certificate (PEM), for a WMS's trust store",
            https_certificate,
        )
        .content("The certificate chain (PEM); the envelope's error when the desk serves no HTTPS", || {
            json!({
                "application/x-pem-file": {"schema": {"type": "string"}},
                "application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}})
        }),
        put::<PrintingRequest, DeskStatus, _, _, _>(
            "/desk/printing",
            "Pause the desk's printing (jobs wait in the queue) or resume it (live key)",
            set_printing,
        )
        .access(LiveKeyForChanges),
        get::<UpdateStatus, _, _, _>(
            "/desk/update",
            "The desktop app's update: off, not asked yet, up to date, available, downloaded and verified, failed",
            update_status,
        )
        .access(LiveKeyForChanges),
        action::<UpdateStatus, _, _, _>(
            "/desk/update/check",
            "Ask the update server in Settings for a newer version now (live key)",
            check_for_update,
        )
        .access(LiveKeyForChanges),
        action::<UpdateStatus, _, _, _>(
            "/desk/update/download",
            "Download the offered version and verify its signature (live key)",
            download_update,
        )
        .access(LiveKeyForChanges),
        action::<UpdateStatus, _, _, _>(
            "/desk/update/install",
            "Install the downloaded, verified version; the app restarts (live key)",
            install_update,
        )
        .access(LiveKeyForChanges),
        Route::new(
            Method::POST,
            "/desk/orders/import",
            "Import orders from a CSV file (the body): mapping, dry_run",
            import_orders.layer(axum::extract::DefaultBodyLimit::disable()),
        )
        .request(RequestBody::Csv)
        .query([
            param("mapping", Some("A saved mapping's name"), string()),
            param("dry_run", Some("Answer without writing"), json!({"type": "boolean"})),
        ])
        .data::<ImportResult>(),
        get::<ImportMapping, _, _, _>(
            "/desk/import-mappings/{name}",
            "A saved CSV column mapping",
            get_import_mapping,
        )
        .access(LiveKeyForChanges),
        put::<ImportMapping, ImportMapping, _, _, _>(
            "/desk/import-mappings/{name}",
            "Save a CSV column mapping {\"columns\": {\"<header>\": \"<field path>\"}}",
            set_import_mapping,
        )
        .access(LiveKeyForChanges),
        delete::<Order, _, _, _>("/desk/orders/{id}", "Cancel an open order", cancel_order),
        get::<SystemPrinterList, _, _, _>(
            "/desk/system-printers",
            "The printers of this computer's spooler",
            system_printers,
        ),
        get::<PrinterList, _, _, _>("/desk/printers", "The desk's printers", list_printers).access(LiveKeyForChanges),
        post::<PrinterRequest, Printer, _, _, _>("/desk/printers", "Add a printer (live key)", add_printer)
            .access(LiveKeyForChanges),
        get::<Printer, _, _, _>("/desk/printers/{id}", "One printer", get_printer).access(LiveKeyForChanges),
        put::<PrinterRequest, Printer, _, _, _>("/desk/printers/{id}", "Change a printer (live key)", update_printer)
            .access(LiveKeyForChanges),
        delete::<Deleted, _, _, _>("/desk/printers/{id}", "Remove a printer (live key)", delete_printer)
            .access(LiveKeyForChanges),
        // Printing a test page is no change: either key.
        Route::new(
            Method::POST,
            "/desk/printers/{id}/test-page",
            "Print a test page",
            print_test_page,
        )
        .optional_body::<TestPageRequest>()
        .data::<PrintJob>(),
        get::<PrinterStatus, _, _, _>(
            "/desk/printers/{id}/status",
            "Whether the printer answers now, and the jobs waiting or failed on it",
            printer_status,
        )
        .access(LiveKeyForChanges),
        get::<PrintProfileList, _, _, _>(
            "/desk/print-profiles",
            "The print profile of each document type",
            list_print_profiles,
        )
        .access(LiveKeyForChanges),
        put::<PrintProfileRequest, PrintProfile, _, _, _>(
            "/desk/print-profiles/{document_type}",
            "Set a document type's print profile (live key)",
            set_print_profile,
        )
        .access(LiveKeyForChanges),
        delete::<DeletedProfile, _, _, _>(
            "/desk/print-profiles/{document_type}",
            "Remove a document type's print profile (live key)",
            delete_print_profile,
        )
        .access(LiveKeyForChanges),
        post::<PrintRequest, PrintJob, _, _, _>("/desk/print", "Print a stored document now", print),
        list::<PrintJobList, _, _, _>("/desk/print-jobs", "List print jobs", list_print_jobs),
        get::<PrintJob, _, _, _>("/desk/print-jobs/{id}", "One print job", get_print_job),
        action::<PrintJob, _, _, _>("/desk/print-jobs/{id}/retry", "Print a job again", retry_print_job),
        Route::new(
            Method::GET,
            "/desk/files/{id}/preview.png",
            "A PNG preview of a stored document's page",
            preview,
        )
        .query([
            param("page", None, json!({"type": "integer", "minimum": 0})),
            param("dpi", None, json!({"type": "integer", "minimum": 0})),
        ])
        .content("The page as PNG", || {
            json!({
                "image/png": {"schema": {"type": "string", "format": "binary"}},
                "application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}})
        }),
        get::<Today, _, _, _>(
            "/desk/today",
            "Today's counts by carrier and status, labels per day",
            today,
        )
        .query([
            param("utc_offset_minutes", None, int()),
            param("days", None, int()),
        ]),
        get::<packdesk_model::report::ShipmentsReport, _, _, _>(
            "/desk/reports/shipments",
            "Labels, parcels, voids, weight, charges, print failures and each operator's pace over a span of ship dates, by day, week, carrier, service, operator or desk (every desk's on a shared database)",
            shipments_report,
        )
        .query(report_query()),
        Route::new(
            Method::GET,
            "/desk/reports/shipments.csv",
            "The shipments report as CSV: a row per group, then the total",
            shipments_report_csv,
        )
        .query(report_query())
        .content("The report as CSV", || {
            json!({
                "text/csv": {"schema": {"type": "string"}},
                "application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}})
        }),
        get::<EndOfDay, _, _, _>("/desk/end-of-day", "Accounts with labels waiting for close-out", end_of_day),
        list::<History, _, _, _>(
            "/desk/history",
            "History: labels with recipient, service name and print state",
            history,
        ),
        get::<TransmissionLog, _, _, _>(
            "/desk/manifests/{id}/transmission",
            "Where a manifest's data file is, with every attempt made to send it",
            transmission_log,
        ),
        action::<Manifest, _, _, _>(
            "/desk/manifests/{id}/transmit",
            "Send a manifest's data file to its carrier now (Send again)",
            transmit_manifest,
        ),
        action::<TransportTest, _, _, _>(
            "/desk/shipper-accounts/{id}/test-transport",
            "Try the account's manifest transport without sending a file",
            test_transport,
        ),
        action::<TransportTest, _, _, _>(
            "/desk/shipper-accounts/{id}/test-connection",
            "Try the account's connection: read the account at its upstream label service",
            test_connection,
        ),
        get::<ShipDate, _, _, _>(
            "/desk/shipper-accounts/{id}/ship-date",
            "The ship date a label made now gets (cut-off, collection days)",
            ship_date,
        ),
        get::<packdesk_model::people::OperatorList, _, _, _>("/desk/operators", "List the operators", list_operators)
            .access(LiveKey),
        post::<packdesk_model::people::OperatorRequest, packdesk_model::people::Operator, _, _, _>(
            "/desk/operators",
            "Add an operator (name, badge code, PIN, role)",
            create_operator,
        )
        .access(LiveKey),
        get::<packdesk_model::people::Operator, _, _, _>("/desk/operators/{id}", "Retrieve an operator", get_operator)
            .access(LiveKey),
        put::<packdesk_model::people::OperatorRequest, packdesk_model::people::Operator, _, _, _>(
            "/desk/operators/{id}",
            "Change an operator (fields left out stay; pin \"\" takes the PIN away)",
            update_operator,
        )
        .access(LiveKey),
        delete::<Deleted, _, _, _>("/desk/operators/{id}", "Delete an operator", delete_operator).access(LiveKey),
        get::<packdesk_model::people::AuditList, _, _, _>("/desk/audit", "The audit log, newest first", list_audit)
            .query(audit_params())
            .access(LiveKey),
        Route::new(Method::GET, "/desk/audit/export", "The audit log as CSV", export_audit)
            .query(audit_params())
            .access(LiveKey)
            .content("The audit log as CSV (RFC 4180)", || {
                json!({"text/csv": {"schema": {"type": "string"}}})
            }),
        get::<packdesk_model::people::ApiKeyList, _, _, _>(
            "/desk/api-keys",
            "List the named integration keys (revoked ones too)",
            list_api_keys,
        )
        .access(LiveKey),
        post::<packdesk_model::people::ApiKeyRequest, packdesk_model::people::ApiKey, _, _, _>(
            "/desk/api-keys",
            "Make a named integration key for one environment with scopes (the key is answered this once)",
            create_api_key,
        )
        .access(LiveKey),
        get::<packdesk_model::people::ApiKey, _, _, _>("/desk/api-keys/{id}", "Retrieve an integration key", get_api_key)
            .access(LiveKey),
        delete::<packdesk_model::people::ApiKey, _, _, _>(
            "/desk/api-keys/{id}",
            "Revoke an integration key (it stays listed)",
            revoke_api_key,
        )
        .access(LiveKey),
        Route::new(
            Method::POST,
            "/desk/close-out",
            "Close out many accounts (one manifest each)",
            close_out,
        )
        .optional_body::<CloseOutRequest>()
        .data::<CloseOut>(),
        // ----- the desk UI's session, and this document -----
        get::<crate::ui::Session, _, _, _>(
            "/ui/session",
            "The desk UI's session: the page's token, or none while an operator must sign in (this machine only)",
            crate::ui::session,
        )
        .query([param("environment", Some("Where a new session starts: sandbox (default) or live"), string())])
        .access(ThisMachine),
        post::<packdesk_model::people::SignInRequest, packdesk_model::people::SignedIn, _, _, _>(
            "/ui/sign-in",
            "Sign an operator in by badge code and PIN (this machine only)",
            crate::ui::sign_in,
        )
        .query([param("environment", Some("Where the session starts: sandbox (default) or live"), string())])
        .access(ThisMachine),
        action::<serde_json::Value, _, _, _>("/ui/sign-out", "End the request's session", crate::ui::sign_out)
            .access(ThisMachine),
        put::<packdesk_model::people::EnvironmentRequest, packdesk_model::people::SignedIn, _, _, _>(
            "/ui/environment",
            "Switch the session between sandbox and live (a supervisor's action)",
            crate::ui::set_environment,
        )
        .access(ThisMachine),
        get::<crate::ui::UiStatus, _, _, _>(
            "/ui/status",
            "Whether a desk UI has started a session",
            crate::ui::status,
        )
        .access(Open),
        action::<crate::ui::RotatedKey, _, _, _>(
            "/ui/keys/{env}/rotate",
            "Replace an environment's key (this machine only)",
            crate::ui::rotate_key,
        )
        .access(ThisMachine),
        Route::new(
            Method::GET,
            "/metrics",
            "The desk's numbers in Prometheus' text format (the live key, or from this machine)",
            crate::metrics::scrape,
        )
        .access(Open)
        .content("Prometheus' text exposition format 0.0.4", || {
            json!({"text/plain": {"schema": {"type": "string"}}})
        }),
        Route::new::<_, _, ()>(Method::GET, "/openapi.json", "This document", crate::openapi_json)
            .access(Open)
            .content("This document", || {
                json!({"application/json": {"schema": {"type": "object"}}})
            }),
    ]
}

/// The key-checked routes of the table, each in its nest (`/v3`, `/desk`: a handler and its
/// middleware see the path without it), behind the key check.
pub fn router(service: Shared) -> Router {
    let table = table();
    let gate = Arc::new(Gate {
        service: service.clone(),
        keyed: keyed_prefixes(&table),
        signed_links: table
            .iter()
            .filter(|r| r.access == Access::KeyOrSignedLink)
            .map(|r| r.path.split('{').next().unwrap_or(r.path))
            .collect(),
    });
    let mut nests: Vec<(&'static str, Router<Shared>)> = Vec::new();
    for route in table {
        let Endpoint::Service(handler) = route.handler else {
            continue;
        };
        let handler = match route.access.this_machine() {
            true => handler.route_layer(middleware::from_fn(crate::ui::this_machine_only)),
            false => handler,
        };
        let (prefix, rest) = split_prefix(route.path);
        // Inside the guard: a caller the route refuses never gets another's answer replayed.
        let handler = match takes_idempotency_key(prefix) {
            true => handler.route_layer(middleware::from_fn_with_state(
                service.clone(),
                crate::idempotency::idempotent,
            )),
            false => handler,
        };
        let guard = Arc::new(Guard {
            access: route.access,
            role: route.role,
            scopes: crate::roles::scopes_of(&route.method, route.path),
            summary: route.summary,
        });
        let handler = handler.route_layer(middleware::from_fn_with_state(guard, guard_route));
        // Outermost of the route's layers: its time includes its checks.
        let handler = handler.route_layer(middleware::from_fn(crate::metrics::observe));
        let at = match nests.iter().position(|(p, _)| *p == prefix) {
            Some(at) => at,
            None => {
                nests.push((prefix, Router::new()));
                nests.len() - 1
            }
        };
        let nest = std::mem::take(&mut nests[at].1);
        nests[at].1 = nest.route(rest, handler);
    }
    let mut app = Router::new();
    for (prefix, nest) in nests {
        app = app.nest(prefix, nest);
    }
    app.fallback(|| async { error(ErrorCode::NotFoundRoute, "", "no such route") })
        .method_not_allowed_fallback(|| async {
            error(ErrorCode::MethodNotAllowed, "", "this route does not take that method")
        })
        .layer(middleware::from_fn_with_state(gate, authenticate))
        .layer(middleware::from_fn(crate::server_timing::layer))
        .with_state(service)
}

/// What the key check knows of the table.
struct Gate {
    service: Shared,
    /// The nests whose every path needs the key (`table::keyed_prefixes`).
    keyed: Vec<&'static str>,
    /// The paths a signed link opens without a key, up to their first parameter (`/v3/files/`).
    signed_links: Vec<&'static str>,
}

/// Who a request is: an operator's session (`Authorization: Bearer`, the desk UI), an
/// environment's key or a named integration key (`service-api-key`).
async fn caller_of(gate: &Gate, headers: &axum::http::HeaderMap) -> Option<Caller> {
    if let Some(token) = crate::ui::bearer(headers) {
        // A session reads its operator again now and then (`Service::session`): off this thread.
        let service = gate.service.clone();
        return tokio::task::spawn_blocking(move || service.session(&token))
            .await
            .ok()
            .flatten();
    }
    let key = headers.get("service-api-key").and_then(|v| v.to_str().ok())?;
    if let Some(caller) = gate
        .service
        .environment_key_caller(key)
        .or_else(|| gate.service.named_key_caller_seen(key))
    {
        return Some(caller);
    }
    // A named key not seen lately needs a database read (and its use noted): off this thread.
    // Only what has a key's shape is looked for: a guess costs no read.
    if !packdesk_service::integration_keys::shaped_like_a_key(key) {
        return None;
    }
    let (service, key) = (gate.service.clone(), key.to_string());
    tokio::task::spawn_blocking(move || service.named_key_caller(&key))
        .await
        .ok()
        .flatten()
}

/// Checks the session or the key and puts its environment and caller into the request. A GET of
/// a file with a signed link and no key goes on without either: the link itself is checked
/// there.
async fn authenticate(State(gate): State<Arc<Gate>>, mut req: Request, next: Next) -> Response {
    let header = req
        .headers()
        .get("service-api-key")
        .or(req.headers().get(header::AUTHORIZATION))
        .is_some();
    let checking = std::time::Instant::now();
    let caller = caller_of(&gate, req.headers()).await;
    crate::server_timing::spent(Phase::Auth, checking.elapsed());
    match caller {
        Some(caller) => {
            req.extensions_mut().insert(caller.env);
            req.extensions_mut().insert(caller.clone());
            CALLER.scope(caller, next.run(req)).await
        }
        None if !header && is_signed_file_link(&gate, &req) => next.run(req).await,
        // Outside the interface there is nothing to protect: a path no UI file answers (a
        // browser's /favicon.ico, /robots.txt) gets its 404, not a 401 asking for a key.
        None if !is_interface_path(&gate, req.uri().path()) => next.run(req).await,
        None => ApiError(ServiceError::new(ErrorCode::InvalidApiKey)).into_response(),
    }
}

/// The key-checked part of the server: `/v3` and `/desk`.
fn is_interface_path(gate: &Gate, path: &str) -> bool {
    gate.keyed.iter().any(|p| {
        path.strip_prefix(p)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

fn is_signed_file_link(gate: &Gate, req: &Request) -> bool {
    // HEAD answers like GET without the body (a client checking a link before downloading it).
    matches!(*req.method(), axum::http::Method::GET | axum::http::Method::HEAD)
        && gate.signed_links.iter().any(|p| req.uri().path().starts_with(p))
        && req
            .uri()
            .query()
            .is_some_and(|q| q.split('&').any(|p| p.starts_with("signature=")))
}

/// Runs a service call on a blocking thread (SQLite, rendering) as the request's caller, its
/// phases counted for the `Server-Timing` header.
async fn on_a_thread<T: Send + 'static>(
    s: Shared,
    f: impl FnOnce(&Service) -> Result<T, ServiceError> + Send + 'static,
) -> Result<Result<T, ServiceError>, tokio::task::JoinError> {
    let caller = CALLER.try_with(Caller::clone).ok();
    let queued = std::time::Instant::now();
    let (out, phases) = tokio::task::spawn_blocking(move || {
        let waited = queued.elapsed();
        let (out, mut phases) = timing::recording(|| packdesk_service::audit::as_caller(caller, || f(&s)));
        phases.add(Phase::Queue, waited);
        (out, phases)
    })
    .await
    .map(|(out, phases)| (Ok(out), phases))
    .unwrap_or_else(|e| (Err(e), Default::default()));
    crate::server_timing::merge(&phases);
    out
}

/// Runs a service call on a blocking thread (SQLite, rendering) and wraps its answer.
pub(crate) async fn run<T: serde::Serialize + Send + 'static>(
    s: Shared,
    f: impl FnOnce(&Service) -> Result<T, ServiceError> + Send + 'static,
) -> Response {
    match on_a_thread(s, f).await {
        Ok(Ok(data)) => crate::server_timing::time(Phase::Answer, || match serde_json::to_value(data) {
            Ok(data) => ok(data),
            Err(_) => error(ErrorCode::Internal, "", "the answer could not be written as JSON"),
        }),
        Ok(Err(e)) => ApiError(e).into_response(),
        Err(_) => error(ErrorCode::Internal, "", "the operation failed unexpectedly"),
    }
}

/// Runs an operation that may be accepted for async work (3001) or partly fail (4713).
async fn run_reply<T: serde::Serialize + Send + 'static>(
    s: Shared,
    f: impl FnOnce(&Service) -> Result<Reply<T>, ServiceError> + Send + 'static,
) -> Response {
    match on_a_thread(s, f).await {
        Ok(Ok(r)) => crate::server_timing::time(Phase::Answer, || reply(r)),
        Ok(Err(e)) => ApiError(e).into_response(),
        Err(_) => error(ErrorCode::Internal, "", "the operation failed unexpectedly"),
    }
}

fn query(q: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>) -> Result<ListQuery, ApiError> {
    q.map(|Query(q)| q)
        .map_err(|e| ApiError(ServiceError::invalid("query", e.body_text())))
}

type Q = Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>;

// ----- /v3 and /desk: one service call each -----

async fn create_label(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    key: Option<Extension<RequestKey>>,
    ContractJson(req): ContractJson<LabelRequest>,
) -> Response {
    let key = key.map(|Extension(RequestKey(k))| k);
    run_reply(s, move |s| s.create_label_keyed(env, req, key.as_deref())).await
}

async fn create_account(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<ShipperAccountCreate>,
) -> Response {
    run(s, move |s| s.create_account(env, req)).await
}

async fn cancel_label(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<CancelLabelRequest>,
) -> Response {
    run_reply(s, move |s| s.cancel_label(env, req)).await
}

async fn create_manifest(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    key: Option<Extension<RequestKey>>,
    ContractJson(req): ContractJson<ManifestRequest>,
) -> Response {
    let key = key.map(|Extension(RequestKey(k))| k);
    run_reply(s, move |s| s.create_manifest_keyed(env, req, key.as_deref())).await
}

async fn create_bulk_download(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<BulkDownloadRequest>,
) -> Response {
    run_reply(s, move |s| s.create_bulk_download(env, req)).await
}

async fn calculate_rates(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<RatesRequest>,
) -> Response {
    run_reply(s, move |s| s.calculate_rates(env, req)).await
}

async fn validate_address(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<AddressValidationRequest>,
) -> Response {
    run(s, move |s| s.validate_address(env, req)).await
}

async fn set_webhook(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<WebhookChange>,
) -> Response {
    run(s, move |s| s.set_webhook(env, req)).await
}

async fn print(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<PrintRequest>,
) -> Response {
    run(s, move |s| s.print(env, req)).await
}

async fn list_labels(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_labels(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_accounts(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_accounts(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_cancel_labels(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_cancel_labels(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_manifests(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_manifests(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_bulk_downloads(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_bulk_downloads(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_rates(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_rates(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_address_validations(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_address_validations(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_webhook_deliveries(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_webhook_deliveries(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn list_print_jobs(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_print_jobs(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn get_label(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_label(env, &id)).await
}

async fn get_account(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_account(env, &id)).await
}

async fn get_cancel_label(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_cancel_label(env, &id)).await
}

async fn get_manifest(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_manifest(env, &id)).await
}

async fn get_bulk_download(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
) -> Response {
    run(s, move |s| s.get_bulk_download(env, &id)).await
}

async fn get_rate(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_rate(env, &id)).await
}

async fn get_address_validation(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
) -> Response {
    run(s, move |s| s.get_address_validation(env, &id)).await
}

async fn get_webhook_delivery(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
) -> Response {
    run(s, move |s| s.get_webhook_delivery(env, &id)).await
}

async fn resend_webhook_delivery(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
) -> Response {
    run(s, move |s| s.resend_webhook_delivery(env, &id)).await
}

async fn get_print_job(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_print_job(env, &id)).await
}

async fn retry_print_job(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.retry_print_job(env, &id)).await
}

/// Reads of the desk's machine-wide printing setup: open to both keys.
async fn system_printers(State(s): State<Shared>) -> Response {
    run(s, |s| Ok(s.system_printers())).await
}

/// One order, or `{"orders": [...]}` (up to 1,000).
async fn save_orders(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(body): ContractJson<serde_json::Value>,
) -> Response {
    use packdesk_model::order::{OrderBatchRequest, OrderRequest, OrderSource};
    let batch = body.get("orders").is_some();
    let orders = match batch {
        true => packdesk_model::from_value::<OrderBatchRequest>(body).map(|b| b.orders),
        false => packdesk_model::from_value::<OrderRequest>(body).map(|o| vec![o]),
    };
    match orders {
        Ok(orders) => run(s, move |s| s.save_orders(env, orders, OrderSource::Api, batch)).await,
        Err(e) => ApiError(e).into_response(),
    }
}

/// A CSV file `make` writes (off the async threads), downloaded as `file`.
async fn csv_download(
    s: Shared,
    file: &'static str,
    make: impl FnOnce(&Service) -> Result<String, ServiceError> + Send + 'static,
) -> Response {
    match tokio::task::spawn_blocking(move || make(&s)).await {
        Ok(Ok(csv)) => (
            [
                (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
                (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{file}\"")),
            ],
            csv,
        )
            .into_response(),
        Ok(Err(e)) => ApiError(e).into_response(),
        Err(_) => error(ErrorCode::Internal, "", "the export failed unexpectedly"),
    }
}

/// `?status=` of the export.
#[derive(serde::Deserialize)]
struct ExportQuery {
    status: Option<String>,
}

/// Orders with their carrier, service and tracking numbers, for writing back to the shop.
async fn export_orders(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractQuery(q): ContractQuery<ExportQuery>,
) -> Response {
    let status = q.status;
    csv_download(s, "orders.csv", move |s| s.export_orders_csv(env, status.as_deref())).await
}

async fn ship_order(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractJsonOrEmpty(req): ContractJsonOrEmpty<ShipOrderRequest>,
) -> Response {
    run(s, move |s| s.ship_order(env, &id, req)).await
}

async fn ship_orders_batch(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<ShipBatchRequest>,
) -> Response {
    run(s, move |s| s.ship_orders(env, req)).await
}

async fn get_batch(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_ship_batch(env, &id)).await
}

async fn list_presets(State(s): State<Shared>, Extension(env): Extension<Env>) -> Response {
    run(s, move |s| s.list_presets(env)).await
}

async fn get_preset(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_preset(env, &id)).await
}

async fn create_preset(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<PresetRequest>,
) -> Response {
    run(s, move |s| s.create_preset(env, req)).await
}

async fn update_preset(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<PresetRequest>,
) -> Response {
    run(s, move |s| s.update_preset(env, &id, req)).await
}

async fn delete_preset(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.delete_preset(env, &id)).await
}

async fn get_rules(State(s): State<Shared>, Extension(env): Extension<Env>) -> Response {
    run(s, move |s| s.rules(env)).await
}

async fn set_rules(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(rules): ContractJson<Rules>,
) -> Response {
    run(s, move |s| s.set_rules(env, rules)).await
}

async fn get_settings(State(s): State<Shared>) -> Response {
    run(s, |s| s.desk_settings()).await
}

async fn set_settings(State(s): State<Shared>, ContractJson(settings): ContractJson<DeskSettings>) -> Response {
    run(s, move |s| s.set_desk_settings(settings)).await
}

/// The desk's database: for this machine only (its answer holds the join code, the warehouse's
/// vault key, for the live key or an admin's session only; its change points the desk elsewhere).
async fn get_database(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Extension(caller): Extension<Caller>,
) -> Response {
    let admin_session = caller.via == Via::Session && caller.role.may(packdesk_model::status::Role::Admin);
    let env = if admin_session { Env::Live } else { env };
    run(s, move |s| Ok(s.database_setting(env))).await
}

async fn set_database(State(s): State<Shared>, ContractJson(body): ContractJson<DatabaseRequest>) -> Response {
    run(s, move |s| s.set_database(body)).await
}

/// The desktop app restarts onto the database Settings saved (this machine only).
async fn restart_for_database(State(s): State<Shared>) -> Response {
    run(s, |s| s.restart_for_database()).await
}

async fn get_scale(State(s): State<Shared>) -> Response {
    run(s, |s| Ok(s.scale_state())).await
}

async fn set_scale(State(s): State<Shared>, ContractJson(req): ContractJson<ScaleRequest>) -> Response {
    run(s, move |s| s.set_scale(req)).await
}

async fn desk_status(State(s): State<Shared>) -> Response {
    run(s, |s| s.desk_status()).await
}

async fn list_backups(State(s): State<Shared>) -> Response {
    run(s, |s| s.backup_list()).await
}

async fn https_status(State(s): State<Shared>) -> Response {
    run(s, |s| Ok(s.https())).await
}

async fn https_certificate(State(s): State<Shared>) -> Response {
    match s.https().certificate {
        Some(c) => (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, HeaderValue::from_static("application/x-pem-file")),
                (
                    header::CONTENT_DISPOSITION,
                    HeaderValue::from_static("attachment; filename=\"packdesk-desk.crt\""),
                ),
            ],
            c.pem,
        )
            .into_response(),
        None => error(
            ErrorCode::ItemNotFound,
            "",
            "this desk serves no HTTPS: it listens on this machine only, or over plain HTTP (--insecure-http)",
        ),
    }
}

async fn set_printing(State(s): State<Shared>, ContractJson(req): ContractJson<PrintingRequest>) -> Response {
    run(s, move |s| s.set_printing(req)).await
}

async fn update_status(State(s): State<Shared>) -> Response {
    run(s, |s| s.update_status()).await
}

async fn check_for_update(State(s): State<Shared>) -> Response {
    run(s, |s| s.check_for_update()).await
}

async fn download_update(State(s): State<Shared>) -> Response {
    run(s, |s| s.download_update()).await
}

async fn install_update(State(s): State<Shared>) -> Response {
    run(s, |s| s.install_update()).await
}

/// The largest CSV file an import takes (read as a stream: memory does not grow with it).
const IMPORT_MAX_BYTES: u64 = 1024 * 1024 * 1024;

#[derive(serde::Deserialize)]
struct ImportQuery {
    mapping: Option<String>,
    dry_run: Option<bool>,
}

/// The file is the body (`Content-Type: text/csv`), read as it arrives; `?mapping=name`,
/// `?dry_run=true`.
async fn import_orders(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractQuery(q): ContractQuery<ImportQuery>,
    body: Body,
) -> Response {
    use futures_util::TryStreamExt;
    let mapping = q.mapping.filter(|m| !m.is_empty());
    let dry_run = q.dry_run.unwrap_or(false);
    let mut seen = 0u64;
    let stream = body
        .into_data_stream()
        .map_err(std::io::Error::other)
        .and_then(move |chunk| {
            seen += chunk.len() as u64;
            futures_util::future::ready(match seen > IMPORT_MAX_BYTES {
                true => Err(std::io::Error::other(format!(
                    "the file is over {} MiB",
                    IMPORT_MAX_BYTES >> 20
                ))),
                false => Ok(chunk),
            })
        });
    // The blocking import reads the body as it arrives through this bridge.
    let file = tokio_util::io::SyncIoBridge::new(tokio_util::io::StreamReader::new(stream));
    run(s, move |s| s.import_orders(env, file, mapping.as_deref(), dry_run)).await
}

async fn get_import_mapping(State(s): State<Shared>, Path(name): Path<String>) -> Response {
    run(s, move |s| s.import_mapping(&name)).await
}

async fn set_import_mapping(
    State(s): State<Shared>,
    Path(name): Path<String>,
    ContractJson(m): ContractJson<packdesk_model::order::ImportMapping>,
) -> Response {
    run(s, move |s| s.set_import_mapping(&name, m)).await
}

async fn list_orders(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.list_orders(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn get_order(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_order(env, &id)).await
}

async fn cancel_order(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.cancel_order(env, &id)).await
}

async fn command_sheet() -> Response {
    match tokio::task::spawn_blocking(packdesk_service::packing::command_sheet_pdf).await {
        Ok(pdf) => (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, "application/pdf"),
                (
                    header::CONTENT_DISPOSITION,
                    "inline; filename=\"packdesk-commands.pdf\"",
                ),
            ],
            pdf,
        )
            .into_response(),
        Err(_) => error(ErrorCode::Internal, "", "the command sheet failed unexpectedly"),
    }
}

async fn make_return_label(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
) -> Response {
    run(s, move |s| s.make_return_label(env, &id)).await
}

/// `?code=` of a return's lookup.
#[derive(serde::Deserialize)]
struct ReturnCode {
    code: Option<String>,
}

async fn lookup_return(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractQuery(q): ContractQuery<ReturnCode>,
) -> Response {
    let code = q.code.unwrap_or_default();
    run(s, move |s| s.lookup_return(env, &code)).await
}

async fn record_return(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJson(req): ContractJson<packdesk_model::returns::ReturnRequest>,
) -> Response {
    run(s, move |s| s.record_return(env, req)).await
}

/// `?from=&to=` of the returns.
fn returns_window() -> [crate::table::Param; 2] {
    let time = || json!({"type": "string"});
    [
        param("from", Some("a date or an ISO 8601 time (default: the first)"), time()),
        param(
            "to",
            Some("a date (that whole day) or an ISO 8601 time (default: now)"),
            time(),
        ),
    ]
}

#[derive(serde::Deserialize)]
struct ReturnsWindow {
    from: Option<String>,
    to: Option<String>,
}

async fn list_returns(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractQuery(q): ContractQuery<ReturnsWindow>,
) -> Response {
    run(s, move |s| s.list_returns(env, q.from.as_deref(), q.to.as_deref())).await
}

async fn export_returns(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractQuery(q): ContractQuery<ReturnsWindow>,
) -> Response {
    csv_download(s, "returns.csv", move |s| {
        s.export_returns_csv(env, q.from.as_deref(), q.to.as_deref())
    })
    .await
}

async fn get_packing(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.pack_state(env, &id)).await
}

async fn pack_item(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<packdesk_model::pack::PackRequest>,
) -> Response {
    run(s, move |s| s.pack_scan(env, &id, req)).await
}

async fn restart_packing(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.pack_restart(env, &id)).await
}

async fn list_printers(State(s): State<Shared>) -> Response {
    run(s, |s| s.list_printers()).await
}

async fn list_print_profiles(State(s): State<Shared>) -> Response {
    run(s, |s| s.list_print_profiles()).await
}

async fn get_printer(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_printer(&id)).await
}

async fn add_printer(State(s): State<Shared>, ContractJson(req): ContractJson<PrinterRequest>) -> Response {
    run(s, move |s| s.add_printer(req)).await
}

async fn update_printer(
    State(s): State<Shared>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<PrinterRequest>,
) -> Response {
    run(s, move |s| s.update_printer(&id, req)).await
}

async fn delete_printer(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.delete_printer(&id)).await
}

async fn set_print_profile(
    State(s): State<Shared>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<PrintProfileRequest>,
) -> Response {
    run(s, move |s| s.set_print_profile(&id, req)).await
}

async fn delete_print_profile(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.delete_print_profile(&id)).await
}

async fn printer_status(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.printer_status(&id)).await
}

async fn print_test_page(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractJsonOrEmpty(req): ContractJsonOrEmpty<TestPageRequest>,
) -> Response {
    run(s, move |s| s.print_test_page(env, &id, req)).await
}

#[derive(serde::Deserialize)]
struct TodayQuery {
    utc_offset_minutes: Option<i64>,
    days: Option<i64>,
}

/// Today's counts by carrier and status, and labels per day (the desk's Today screen).
async fn today(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractQuery(q): ContractQuery<TodayQuery>,
) -> Response {
    run(s, move |s| {
        s.today(env, q.utc_offset_minutes.unwrap_or(0), q.days.unwrap_or(30))
    })
    .await
}

/// `?from=&to=&group_by=` of a report.
fn report_query() -> [crate::table::Param; 3] {
    [
        param(
            "from",
            Some("the first ship date (YYYY-MM-DD; default: six days before to)"),
            json!({"type": "string", "format": "date"}),
        ),
        param(
            "to",
            Some("the last ship date (default: today)"),
            json!({"type": "string", "format": "date"}),
        ),
        param(
            "group_by",
            Some("day (default), week, carrier, service, operator or desk"),
            json!({"type": "string", "enum": packdesk_model::status::ReportGroup::NAMES}),
        ),
    ]
}

#[derive(serde::Deserialize)]
struct ReportQuery {
    from: Option<String>,
    to: Option<String>,
    group_by: Option<String>,
}

async fn shipments_report(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractQuery(q): ContractQuery<ReportQuery>,
) -> Response {
    run(s, move |s| {
        s.shipments_report(env, q.from.as_deref(), q.to.as_deref(), q.group_by.as_deref())
    })
    .await
}

async fn shipments_report_csv(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractQuery(q): ContractQuery<ReportQuery>,
) -> Response {
    csv_download(s, "shipments-report.csv", move |s| {
        s.shipments_report_csv(env, q.from.as_deref(), q.to.as_deref(), q.group_by.as_deref())
    })
    .await
}

async fn history(State(s): State<Shared>, Extension(env): Extension<Env>, q: Q) -> Response {
    match query(q) {
        Ok(q) => run(s, move |s| s.history(env, &q)).await,
        Err(e) => e.into_response(),
    }
}

async fn transmit_manifest(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
) -> Response {
    run(s, move |s| s.transmit_manifest(env, &id)).await
}

async fn transmission_log(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.transmission_log(env, &id)).await
}

async fn test_transport(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.test_transport(env, &id)).await
}

async fn test_connection(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.test_connection(env, &id)).await
}

async fn ship_date(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.ship_date(env, &id)).await
}

async fn end_of_day(State(s): State<Shared>, Extension(env): Extension<Env>) -> Response {
    run(s, move |s| s.end_of_day(env)).await
}

async fn close_out(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    ContractJsonOrEmpty(req): ContractJsonOrEmpty<CloseOutRequest>,
) -> Response {
    run(s, move |s| s.close_out_accounts(env, req)).await
}

#[derive(serde::Deserialize)]
struct PreviewQuery {
    page: Option<u32>,
    dpi: Option<u32>,
}

/// A PNG of a stored document's page, rendered here (no address leaves the machine).
async fn preview(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractQuery(q): ContractQuery<PreviewQuery>,
) -> Response {
    match tokio::task::spawn_blocking(move || s.preview(env, &id, q.page.unwrap_or(1), q.dpi)).await {
        Ok(Ok(png)) => {
            let mut r = (StatusCode::OK, Body::from(png)).into_response();
            r.headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
            r
        }
        Ok(Err(e)) => ApiError(e).into_response(),
        Err(_) => error(ErrorCode::Internal, "", "the preview failed unexpectedly"),
    }
}

async fn get_webhook(State(s): State<Shared>, Extension(env): Extension<Env>) -> Response {
    run(s, move |s| s.webhook_setting(env)).await
}

async fn delete_account(State(s): State<Shared>, Extension(env): Extension<Env>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.delete_account(env, &id)).await
}

async fn update_settings(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<ShipperAccountSettingsUpdate>,
) -> Response {
    run(s, move |s| s.update_account_settings(env, &id, req)).await
}

async fn update_info(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<ShipperAccountInfoUpdate>,
) -> Response {
    run(s, move |s| s.update_account_info(env, &id, req)).await
}

async fn replace_credentials(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<ShipperAccountCredentialsUpdate>,
) -> Response {
    run(s, move |s| s.update_account_credentials(env, &id, req, false)).await
}

async fn merge_credentials(
    State(s): State<Shared>,
    Extension(env): Extension<Env>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<ShipperAccountCredentialsUpdate>,
) -> Response {
    run(s, move |s| s.update_account_credentials(env, &id, req, true)).await
}

#[derive(serde::Deserialize)]
struct FileLinkQuery {
    expires: Option<String>,
    signature: Option<String>,
}

/// A document's bytes, as the file URLs of records point to: with the key, or by the link's
/// signature alone (see `packdesk_service::links`).
async fn download_file(
    State(s): State<Shared>,
    env: Option<Extension<Env>>,
    Path(id): Path<String>,
    // A link's words that do not read are no link: the file is refused below, not the query.
    q: Result<Query<FileLinkQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let link = q.map(|Query(q)| q).unwrap_or(FileLinkQuery {
        expires: None,
        signature: None,
    });
    let found = tokio::task::spawn_blocking(move || match env {
        Some(Extension(env)) => s.file(env, &id),
        None => {
            let expires = link.expires.as_deref().and_then(|e| e.parse::<i64>().ok());
            let Some(expires) = expires else {
                return Err(ServiceError::at(
                    ErrorCode::InvalidApiKey,
                    "expires",
                    "a file link needs its expires (unix seconds)",
                ));
            };
            s.file_by_link(&id, expires, link.signature.as_deref().unwrap_or(""))
        }
    });
    match found.await {
        Ok(Ok((bytes, mime, name))) => {
            let mut r = (StatusCode::OK, Body::from(bytes)).into_response();
            r.headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
            if let Ok(v) = HeaderValue::from_str(&format!("inline; filename=\"{name}\"")) {
                r.headers_mut().insert(header::CONTENT_DISPOSITION, v);
            }
            r
        }
        Ok(Err(e)) => ApiError(e).into_response(),
        Err(_) => error(ErrorCode::Internal, "", "the download failed unexpectedly"),
    }
}

/// `GET /v3/schemas`: the published JSON Schemas and where each is.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub(crate) struct SchemaList {
    schemas: Vec<SchemaLink>,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct SchemaLink {
    name: String,
    url: String,
}

async fn list_schemas(State(s): State<Shared>) -> Response {
    let base = s.base_url().to_string();
    let schemas = packdesk_model::schema::all()
        .into_iter()
        .map(|(n, _)| SchemaLink {
            name: n.to_string(),
            url: format!("{base}/v3/schemas/{n}.json"),
        })
        .collect();
    ok(serde_json::to_value(SchemaList { schemas }).unwrap_or_default())
}

/// A published JSON Schema file, as is (not enveloped).
async fn get_schema(Path(name): Path<String>) -> Response {
    match packdesk_model::schema::by_name(name.trim_end_matches(".json")) {
        Some(text) => {
            let mut r = (StatusCode::OK, text).into_response();
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/schema+json"),
            );
            r
        }
        None => error(ErrorCode::NotFoundRoute, "name", "no such schema; see GET /v3/schemas"),
    }
}

/// The carrier registry, for the desk UI: it builds its forms from this and never hard-codes a rule.
/// Countries for completion: a name or alpha-2 typed at the desk becomes the alpha-3 the /v3
/// interface takes.
async fn countries() -> Response {
    let list = packdesk_model::desk::CountryList {
        countries: packdesk_carriers::countries::all()
            .into_iter()
            .map(|c| packdesk_model::desk::CountryName {
                alpha3: c.alpha3.into(),
                alpha2: c.alpha2.into(),
                name: c.name.into(),
                postal_formats: packdesk_carriers::postal::masks(c.alpha3)
                    .map(|m| m.into_iter().map(String::from).collect()),
                also_called: packdesk_carriers::countries::also_called(c.alpha3)
                    .into_iter()
                    .map(String::from)
                    .collect(),
            })
            .collect(),
    };
    ok(serde_json::to_value(list).unwrap_or_default())
}

async fn carriers() -> Response {
    ok(serde_json::to_value(packdesk_carriers::registry()).unwrap_or_default())
}

/// What a route asks of its caller (`guard_route`).
struct Guard {
    access: Access,
    role: packdesk_model::status::Role,
    /// The scopes any one of which lets a named key call it.
    scopes: Vec<KeyScope>,
    summary: &'static str,
}

/// Refuses a caller the route is not for: the sandbox key (its own or a named one) on the whole
/// desk's setup (`Access::LiveKeyForChanges`: printers, profiles, settings... which live labels
/// use too; `Access::LiveKey`: operators, the audit log, integration keys); a named key outside
/// its scopes; an operator whose role may not (HTTP 403, saying who may).
async fn guard_route(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let Some(caller) = req.extensions().get::<Caller>() else {
        return next.run(req).await;
    };
    let read = matches!(*req.method(), Method::GET | Method::HEAD);
    let by_sandbox_key = caller.via != Via::Session && caller.env == Env::Sandbox;
    if by_sandbox_key && guard.access == Access::LiveKey {
        return error(
            ErrorCode::InvalidApiKey,
            "headers.service-api-key",
            "the operators, the audit log and the integration keys belong to the whole desk: use the live key",
        );
    }
    if by_sandbox_key && !read && guard.access.live_key_for_changes() {
        return error(
            ErrorCode::InvalidApiKey,
            "headers.service-api-key",
            "printers, print profiles, import mappings, desk settings, the scale and pausing the printing belong to the whole desk (live labels print by them \
             too): change them with the live key; the sandbox key may read them",
        );
    }
    if let Via::NamedKey { scopes, .. } = &caller.via {
        if !scopes.iter().any(|s| guard.scopes.contains(s)) {
            let words = |list: &[KeyScope]| list.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
            return ApiError(ServiceError::at(
                ErrorCode::Forbidden,
                "headers.service-api-key",
                format!(
                    "{}: the key {} has the scopes {}; this needs one of {} (an admin makes keys under Settings, Integration keys)",
                    guard.summary,
                    caller.actor,
                    words(scopes),
                    words(&guard.scopes)
                ),
            ))
            .into_response();
        }
    }
    if !caller.role.may(guard.role) {
        return ApiError(ServiceError::said(
            ErrorCode::Forbidden,
            "",
            Saying::RoleRefused,
            args([
                ("action", &guard.summary),
                ("who", &guard.role.who_may()),
                ("needed", &guard.role),
                ("actor", &caller.actor),
                ("role", &caller.role),
            ]),
        ))
        .into_response();
    }
    next.run(req).await
}

/// The query of `/desk/audit` and its export.
fn audit_params() -> Vec<crate::table::Param> {
    let string = || json!({"type": "string"});
    vec![
        param("operator", Some("An operator's id"), string()),
        param(
            "action",
            Some("e.g. label.created, label.voided, operator.sign_in"),
            string(),
        ),
        param(
            "object_id",
            Some("The label, order, manifest, account or operator"),
            string(),
        ),
        param("from", Some("A date (2026-11-26) or time (RFC 3339)"), string()),
        param("to", Some("A date (to its end) or time"), string()),
        param("limit", Some("1..500 (100)"), string()),
        param("next_token", Some("The page after the one that gave it"), string()),
    ]
}

async fn list_operators(State(s): State<Shared>) -> Response {
    run(s, move |s| s.list_operators()).await
}

async fn create_operator(
    State(s): State<Shared>,
    ContractJson(req): ContractJson<packdesk_model::people::OperatorRequest>,
) -> Response {
    run(s, move |s| s.create_operator(req)).await
}

async fn get_operator(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_operator(&id)).await
}

async fn update_operator(
    State(s): State<Shared>,
    Path(id): Path<String>,
    ContractJson(req): ContractJson<packdesk_model::people::OperatorRequest>,
) -> Response {
    run(s, move |s| s.update_operator(&id, req)).await
}

async fn delete_operator(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.delete_operator(&id)).await
}

async fn list_api_keys(State(s): State<Shared>) -> Response {
    run(s, |s| s.list_api_keys()).await
}

async fn create_api_key(
    State(s): State<Shared>,
    ContractJson(req): ContractJson<packdesk_model::people::ApiKeyRequest>,
) -> Response {
    run(s, move |s| s.create_api_key(req)).await
}

async fn get_api_key(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.get_api_key(&id)).await
}

async fn revoke_api_key(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    run(s, move |s| s.revoke_api_key(&id)).await
}

type AuditQ = ContractQuery<packdesk_service::audit::AuditQuery>;

async fn list_audit(State(s): State<Shared>, ContractQuery(q): AuditQ) -> Response {
    run(s, move |s| s.list_audit(&q)).await
}

async fn export_audit(State(s): State<Shared>, ContractQuery(q): AuditQ) -> Response {
    csv_download(s, "packdesk-audit.csv", move |s| s.audit_csv(&q)).await
}
