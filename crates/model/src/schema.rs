//! The entity JSON Schemas, generated from the Rust types. `schemas/*.json` in this crate are the
//! published copies; a test keeps them equal to what the types generate.

use schemars::{schema_for, Schema};

/// Every published schema: (file stem, schema).
pub fn all() -> Vec<(&'static str, Schema)> {
    use crate::{record::*, request::*};
    vec![
        ("label-request", schema_for!(LabelRequest)),
        ("label", schema_for!(Label)),
        ("shipment", schema_for!(Shipment)),
        ("address", schema_for!(Address)),
        ("parcel", schema_for!(Parcel)),
        ("item", schema_for!(Item)),
        ("billing", schema_for!(Billing)),
        ("customs", schema_for!(Customs)),
        ("invoice", schema_for!(Invoice)),
        ("service-option", schema_for!(ServiceOption)),
        ("shipper-account-create", schema_for!(ShipperAccountCreate)),
        ("shipper-account", schema_for!(ShipperAccount)),
        (
            "shipper-account-settings-update",
            schema_for!(ShipperAccountSettingsUpdate),
        ),
        ("shipper-account-info-update", schema_for!(ShipperAccountInfoUpdate)),
        (
            "shipper-account-credentials-update",
            schema_for!(ShipperAccountCredentialsUpdate),
        ),
        ("rate", schema_for!(RateEntry)),
        ("rate-record", schema_for!(RateRecord)),
        ("cancel-label", schema_for!(CancelLabel)),
        ("manifest", schema_for!(Manifest)),
        ("bulk-download", schema_for!(BulkDownload)),
        ("address-validation", schema_for!(AddressValidation)),
        ("cancel-label-request", schema_for!(CancelLabelRequest)),
        ("manifest-request", schema_for!(ManifestRequest)),
        ("bulk-download-request", schema_for!(BulkDownloadRequest)),
        ("rates-request", schema_for!(RatesRequest)),
        ("address-validation-request", schema_for!(AddressValidationRequest)),
        ("label-list", schema_for!(LabelList)),
        ("shipper-account-list", schema_for!(ShipperAccountList)),
        ("cancel-label-list", schema_for!(CancelLabelList)),
        ("manifest-list", schema_for!(ManifestList)),
        ("bulk-download-list", schema_for!(BulkDownloadList)),
        ("rate-record-list", schema_for!(RateRecordList)),
        ("address-validation-list", schema_for!(AddressValidationList)),
        ("desk-today", schema_for!(crate::desk::Today)),
        ("desk-end-of-day", schema_for!(crate::desk::EndOfDay)),
        ("desk-ship-date", schema_for!(crate::desk::ShipDate)),
        ("desk-history", schema_for!(crate::desk::History)),
        ("desk-database-request", schema_for!(crate::desk::DatabaseRequest)),
        ("desk-database", schema_for!(crate::desk::DatabaseSetting)),
        ("desk-scale-request", schema_for!(crate::desk::ScaleRequest)),
        ("desk-scale", schema_for!(crate::desk::ScaleState)),
        ("desk-printing-request", schema_for!(crate::desk::PrintingRequest)),
        ("desk-status", schema_for!(crate::desk::DeskStatus)),
        ("desk-vault-key", schema_for!(crate::desk::VaultKeyPlace)),
        ("desk-update", schema_for!(crate::desk::UpdateStatus)),
        ("desk-close-out", schema_for!(crate::desk::CloseOut)),
        ("desk-webhook-change", schema_for!(crate::desk::WebhookChange)),
        ("desk-webhook-setting", schema_for!(crate::desk::WebhookSetting)),
        ("desk-webhook-delivery", schema_for!(crate::desk::WebhookDelivery)),
        (
            "desk-webhook-delivery-list",
            schema_for!(crate::desk::WebhookDeliveryList),
        ),
        ("desk-printer-request", schema_for!(crate::desk::PrinterRequest)),
        ("desk-printer", schema_for!(crate::desk::Printer)),
        ("desk-printer-list", schema_for!(crate::desk::PrinterList)),
        ("desk-printer-status", schema_for!(crate::desk::PrinterStatus)),
        ("desk-system-printer-list", schema_for!(crate::desk::SystemPrinterList)),
        (
            "desk-print-profile-request",
            schema_for!(crate::desk::PrintProfileRequest),
        ),
        ("desk-print-profile", schema_for!(crate::desk::PrintProfile)),
        ("desk-print-profile-list", schema_for!(crate::desk::PrintProfileList)),
        ("desk-print-request", schema_for!(crate::desk::PrintRequest)),
        ("desk-test-page-request", schema_for!(crate::desk::TestPageRequest)),
        ("desk-print-job", schema_for!(crate::desk::PrintJob)),
        ("desk-print-job-list", schema_for!(crate::desk::PrintJobList)),
        ("desk-close-out-request", schema_for!(crate::desk::CloseOutRequest)),
        ("desk-deleted", schema_for!(crate::desk::Deleted)),
        ("desk-deleted-profile", schema_for!(crate::desk::DeletedProfile)),
        ("desk-order-request", schema_for!(crate::order::OrderRequest)),
        ("desk-order-batch-request", schema_for!(crate::order::OrderBatchRequest)),
        ("desk-order", schema_for!(crate::order::Order)),
        ("desk-orders-saved", schema_for!(crate::order::OrdersSaved)),
        ("desk-order-list", schema_for!(crate::order::OrderList)),
        ("desk-import-mapping", schema_for!(crate::order::ImportMapping)),
        ("desk-import-result", schema_for!(crate::order::ImportResult)),
        ("desk-country-list", schema_for!(crate::desk::CountryList)),
        ("desk-preset-request", schema_for!(crate::preset::PresetRequest)),
        ("desk-preset", schema_for!(crate::preset::Preset)),
        ("desk-preset-list", schema_for!(crate::preset::PresetList)),
        ("desk-rules", schema_for!(crate::preset::Rules)),
        ("desk-settings", schema_for!(crate::preset::DeskSettings)),
        ("desk-ship-order-request", schema_for!(crate::preset::ShipOrderRequest)),
        ("desk-shipped-order", schema_for!(crate::preset::ShippedOrder)),
        ("desk-ship-batch-request", schema_for!(crate::preset::ShipBatchRequest)),
        ("desk-ship-batch", schema_for!(crate::preset::ShipBatch)),
        ("desk-pack-request", schema_for!(crate::pack::PackRequest)),
        ("desk-pack-state", schema_for!(crate::pack::PackState)),
        ("desk-pack-scan", schema_for!(crate::pack::PackScan)),
        ("desk-return-lookup", schema_for!(crate::returns::ReturnLookup)),
        ("desk-return-request", schema_for!(crate::returns::ReturnRequest)),
        ("desk-return", schema_for!(crate::returns::Return)),
        ("desk-shipments-report", schema_for!(crate::report::ShipmentsReport)),
        ("desk-return-list", schema_for!(crate::returns::ReturnList)),
    ]
}

/// The schema of one entity as pretty JSON, by file stem.
pub fn by_name(name: &str) -> Option<String> {
    all().into_iter().find(|(n, _)| *n == name).map(|(_, s)| pretty(&s))
}

pub fn pretty(s: &Schema) -> String {
    let mut out = serde_json::to_string_pretty(s).unwrap_or_default();
    out.push('\n');
    out
}
