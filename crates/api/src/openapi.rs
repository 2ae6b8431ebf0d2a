//! The OpenAPI 3.1 document of every route, served at `GET /openapi.json` (no key) and kept in the
//! repo as `docs/openapi.json` (a test keeps both equal and checks that the router has no route the
//! document lacks). Request and record schemas are the published JSON Schemas of `packdesk-model`
//! (generated from the Rust types), their `$defs` lifted into `components.schemas`.

use serde_json::{json, Map, Value};

/// One operation: method, path (axum's `{param}` syntax is OpenAPI's too), what it does, the
/// request schema (component name) and the record schema of `data` in a success answer.
pub struct Op {
    pub method: &'static str,
    pub path: &'static str,
    pub summary: &'static str,
    pub request: Option<&'static str>,
    pub data: Option<&'static str>,
    /// `list`: takes the list query (paging, dates, status filters).
    pub list: bool,
    pub auth: Auth,
}

#[derive(Clone, Copy, PartialEq)]
pub enum Auth {
    /// The `service-api-key` header (either environment).
    Key,
    /// The key header, or a signed file link (`expires` + `signature`).
    KeyOrLink,
    /// No key: this machine only (the desk UI's session).
    ThisMachine,
    /// No key at all.
    Open,
}

const fn op(method: &'static str, path: &'static str, summary: &'static str) -> Op {
    Op {
        method,
        path,
        summary,
        request: None,
        data: None,
        list: false,
        auth: Auth::Key,
    }
}
const fn create(path: &'static str, summary: &'static str, request: &'static str, data: &'static str) -> Op {
    Op {
        method: "post",
        path,
        summary,
        request: Some(request),
        data: Some(data),
        list: false,
        auth: Auth::Key,
    }
}
const fn list(path: &'static str, summary: &'static str) -> Op {
    Op {
        method: "get",
        path,
        summary,
        request: None,
        data: None,
        list: true,
        auth: Auth::Key,
    }
}
const fn one(path: &'static str, summary: &'static str, data: &'static str) -> Op {
    Op {
        method: "get",
        path,
        summary,
        request: None,
        data: Some(data),
        list: false,
        auth: Auth::Key,
    }
}

/// Every route of the server.
pub const OPS: &[Op] = &[
    create(
        "/v3/labels",
        "Create a label (sync, or async with `async: true`)",
        "LabelRequest",
        "Label",
    ),
    Op {
        data: Some("LabelList"),
        ..list("/v3/labels", "List labels")
    },
    one("/v3/labels/{id}", "Retrieve a label", "Label"),
    create(
        "/v3/shipper-accounts",
        "Create a shipper account",
        "ShipperAccountCreate",
        "ShipperAccount",
    ),
    Op {
        data: Some("ShipperAccountList"),
        ..list("/v3/shipper-accounts", "List shipper accounts")
    },
    one(
        "/v3/shipper-accounts/{id}",
        "Retrieve a shipper account",
        "ShipperAccount",
    ),
    op("delete", "/v3/shipper-accounts/{id}", "Delete a shipper account"),
    op(
        "put",
        "/v3/shipper-accounts/{id}",
        "Update a shipper account's settings",
    ),
    op(
        "put",
        "/v3/shipper-accounts/{id}/info",
        "Update a shipper account's information",
    ),
    op(
        "put",
        "/v3/shipper-accounts/{id}/credentials",
        "Replace a shipper account's credentials",
    ),
    op(
        "patch",
        "/v3/shipper-accounts/{id}/credentials",
        "Change some of a shipper account's credentials",
    ),
    create(
        "/v3/cancel-labels",
        "Cancel a label",
        "CancelLabelRequest",
        "CancelLabel",
    ),
    Op {
        data: Some("CancelLabelList"),
        ..list("/v3/cancel-labels", "List cancel labels")
    },
    one("/v3/cancel-labels/{id}", "Retrieve a cancel label", "CancelLabel"),
    create(
        "/v3/manifests",
        "Create a manifest (close-out)",
        "ManifestRequest",
        "Manifest",
    ),
    Op {
        data: Some("ManifestList"),
        ..list("/v3/manifests", "List manifests")
    },
    one("/v3/manifests/{id}", "Retrieve a manifest", "Manifest"),
    create(
        "/v3/bulk-downloads",
        "Create a bulk download",
        "BulkDownloadRequest",
        "BulkDownload",
    ),
    Op {
        data: Some("BulkDownloadList"),
        ..list("/v3/bulk-downloads", "List bulk downloads")
    },
    one("/v3/bulk-downloads/{id}", "Retrieve a bulk download", "BulkDownload"),
    create("/v3/rates", "Calculate rates", "RatesRequest", "RateRecord"),
    Op {
        data: Some("RateRecordList"),
        ..list("/v3/rates", "List rate calculations")
    },
    one("/v3/rates/{id}", "Retrieve a rate calculation", "RateRecord"),
    create(
        "/v3/address-validations",
        "Validate an address (beta)",
        "AddressValidationRequest",
        "AddressValidation",
    ),
    Op {
        data: Some("AddressValidationList"),
        ..list("/v3/address-validations", "List address validations")
    },
    one(
        "/v3/address-validations/{id}",
        "Retrieve an address validation",
        "AddressValidation",
    ),
    Op {
        auth: Auth::KeyOrLink,
        ..op(
            "get",
            "/v3/files/{id}",
            "Download a document (label, invoice, manifest...)",
        )
    },
    op("get", "/v3/schemas", "List the published JSON Schemas"),
    op("get", "/v3/schemas/{name}", "One published JSON Schema"),
    Op {
        data: Some("Registry"),
        ..op(
            "get",
            "/desk/carriers",
            "The carrier registry (services, paper sizes, options, credentials)",
        )
    },
    Op {
        data: Some("CountryList"),
        ..op(
            "get",
            "/desk/countries",
            "Every country: alpha-3, alpha-2 and English name",
        )
    },
    Op {
        request: None,
        data: Some("WebhookSetting"),
        ..op("get", "/desk/webhook", "The webhook of the key's environment")
    },
    Op {
        request: Some("WebhookChange"),
        data: Some("WebhookSetting"),
        ..op("put", "/desk/webhook", "Set the webhook URL, on or off")
    },
    Op {
        request: None,
        data: Some("WebhookDeliveryList"),
        ..list("/desk/webhook-deliveries", "List webhook deliveries")
    },
    Op {
        request: None,
        data: Some("WebhookDelivery"),
        ..op(
            "get",
            "/desk/webhook-deliveries/{id}",
            "One webhook delivery with its attempts",
        )
    },
    Op {
        request: None,
        data: Some("WebhookDelivery"),
        ..op(
            "post",
            "/desk/webhook-deliveries/{id}/resend",
            "Send a webhook delivery again",
        )
    },
    Op {
        request: Some("OrderRequest"),
        data: Some("OrdersSaved"),
        ..op(
            "post",
            "/desk/orders",
            "Save one order, or {\"orders\": [...]} up to 1,000 (an open order with the number is updated)",
        )
    },
    Op {
        data: Some("OrderList"),
        list: true,
        ..op(
            "get",
            "/desk/orders",
            "Orders, newest first: status, s (start of a word), limit, next_token",
        )
    },
    Op {
        data: Some("Order"),
        ..op("get", "/desk/orders/{id}", "One order")
    },
    Op {
        request: None,
        data: None,
        ..op(
            "get",
            "/desk/orders/export.csv",
            "Orders as CSV with carrier, service and tracking numbers (status), for the shop",
        )
    },
    Op {
        request: Some("ShipOrderRequest"),
        data: Some("ShippedOrder"),
        ..op(
            "post",
            "/desk/orders/{id}/ship",
            "Ship an order by its preset: label and packing slip made and printed, order shipped",
        )
    },
    Op {
        request: Some("ShipBatchRequest"),
        data: Some("ShipBatch"),
        ..op(
            "post",
            "/desk/orders/ship",
            "Ship orders in the background, in order; answers the batch at once",
        )
    },
    Op {
        data: Some("ShipBatch"),
        ..op(
            "get",
            "/desk/batches/{id}",
            "A batch's progress and each order's result",
        )
    },
    Op {
        data: Some("PresetList"),
        ..op("get", "/desk/presets", "The presets of the key's environment")
    },
    Op {
        request: Some("PresetRequest"),
        data: Some("Preset"),
        ..op("post", "/desk/presets", "Add a preset")
    },
    Op {
        data: Some("Preset"),
        ..op("get", "/desk/presets/{id}", "One preset")
    },
    Op {
        request: Some("PresetRequest"),
        data: Some("Preset"),
        ..op("put", "/desk/presets/{id}", "Change a preset")
    },
    Op {
        data: Some("Deleted"),
        ..op("delete", "/desk/presets/{id}", "Delete a preset no rule uses")
    },
    Op {
        data: Some("Rules"),
        ..op(
            "get",
            "/desk/rules",
            "The rules that pick an order's preset, first match wins",
        )
    },
    Op {
        request: Some("Rules"),
        data: Some("Rules"),
        ..op("put", "/desk/rules", "Replace the rules")
    },
    Op {
        data: Some("DeskSettings"),
        ..op(
            "get",
            "/desk/settings",
            "The desk's settings: ship_on_scan, units, scale_auto_weight, scan_sounds, close_to_tray, start_at_login",
        )
    },
    Op {
        request: Some("DeskSettings"),
        data: Some("DeskSettings"),
        ..op("put", "/desk/settings", "Change the desk's settings (live key)")
    },
    Op {
        data: Some("DatabaseSetting"),
        ..op(
            "get",
            "/desk/database",
            "The database the desk runs on (its own file or the warehouse's shared PostgreSQL) and the one it starts on next (this machine only)",
        )
    },
    Op {
        request: Some("DatabaseRequest"),
        data: Some("DatabaseSetting"),
        ..op(
            "put",
            "/desk/database",
            "Choose the database the desk starts on next: checked now, in effect at the next start (live key, this machine only)",
        )
    },
    Op {
        data: Some("DatabaseSetting"),
        ..op(
            "post",
            "/desk/database/restart",
            "The desktop app restarts onto the database Settings saved, a moment after answering (live key, this machine only; packdesk-server is restarted by whoever runs it)",
        )
    },
    Op {
        data: Some("ScaleState"),
        ..op("get", "/desk/scale", "The desk scale's latest weight")
    },
    Op {
        request: Some("ScaleRequest"),
        data: Some("ScaleState"),
        ..op(
            "put",
            "/desk/scale",
            "Set the desk's USB scale: auto, a device file, or null (live key)",
        )
    },
    Op {
        data: Some("DeskStatus"),
        ..op(
            "get",
            "/desk/status",
            "The desk at a glance: ready, a printer failing, printing paused, jobs waiting",
        )
    },
    Op {
        request: Some("PrintingRequest"),
        data: Some("DeskStatus"),
        ..op(
            "put",
            "/desk/printing",
            "Pause the desk's printing (jobs wait in the queue) or resume it (live key)",
        )
    },
    Op {
        data: Some("UpdateStatus"),
        ..op(
            "get",
            "/desk/update",
            "The desktop app's update: off, not asked yet, up to date, available, downloaded and verified, failed",
        )
    },
    Op {
        data: Some("UpdateStatus"),
        ..op(
            "post",
            "/desk/update/check",
            "Ask the update server in Settings for a newer version now (live key)",
        )
    },
    Op {
        data: Some("UpdateStatus"),
        ..op(
            "post",
            "/desk/update/download",
            "Download the offered version and verify its signature (live key)",
        )
    },
    Op {
        data: Some("UpdateStatus"),
        ..op(
            "post",
            "/desk/update/install",
            "Install the downloaded, verified version; the app restarts (live key)",
        )
    },
    Op {
        data: Some("ImportResult"),
        ..op(
            "post",
            "/desk/orders/import",
            "Import orders from a CSV file (the body): mapping, dry_run",
        )
    },
    Op {
        data: Some("ImportMapping"),
        ..op("get", "/desk/import-mappings/{name}", "A saved CSV column mapping")
    },
    Op {
        request: Some("ImportMapping"),
        data: Some("ImportMapping"),
        ..op(
            "put",
            "/desk/import-mappings/{name}",
            "Save a CSV column mapping {\"columns\": {\"<header>\": \"<field path>\"}}",
        )
    },
    Op {
        data: Some("Order"),
        ..op("delete", "/desk/orders/{id}", "Cancel an open order")
    },
    Op {
        request: None,
        data: Some("SystemPrinterList"),
        ..op(
            "get",
            "/desk/system-printers",
            "The printers of this computer's spooler",
        )
    },
    Op {
        request: None,
        data: Some("PrinterList"),
        ..op("get", "/desk/printers", "The desk's printers")
    },
    Op {
        request: Some("PrinterRequest"),
        data: Some("Printer"),
        ..op("post", "/desk/printers", "Add a printer (live key)")
    },
    Op {
        request: None,
        data: Some("Printer"),
        ..op("get", "/desk/printers/{id}", "One printer")
    },
    Op {
        request: Some("PrinterRequest"),
        data: Some("Printer"),
        ..op("put", "/desk/printers/{id}", "Change a printer (live key)")
    },
    Op {
        request: None,
        data: Some("Deleted"),
        ..op("delete", "/desk/printers/{id}", "Remove a printer (live key)")
    },
    Op {
        request: None,
        data: Some("PrintJob"),
        ..op("post", "/desk/printers/{id}/test-page", "Print a test page")
    },
    Op {
        request: None,
        data: Some("PrinterStatus"),
        ..op(
            "get",
            "/desk/printers/{id}/status",
            "Whether the printer answers now, and the jobs waiting or failed on it",
        )
    },
    Op {
        request: None,
        data: Some("PrintProfileList"),
        ..op("get", "/desk/print-profiles", "The print profile of each document type")
    },
    Op {
        request: Some("PrintProfileRequest"),
        data: Some("PrintProfile"),
        ..op(
            "put",
            "/desk/print-profiles/{document_type}",
            "Set a document type's print profile (live key)",
        )
    },
    Op {
        request: None,
        data: Some("DeletedProfile"),
        ..op(
            "delete",
            "/desk/print-profiles/{document_type}",
            "Remove a document type's print profile (live key)",
        )
    },
    Op {
        request: Some("PrintRequest"),
        data: Some("PrintJob"),
        ..op("post", "/desk/print", "Print a stored document now")
    },
    Op {
        request: None,
        data: Some("PrintJobList"),
        ..list("/desk/print-jobs", "List print jobs")
    },
    Op {
        request: None,
        data: Some("PrintJob"),
        ..op("get", "/desk/print-jobs/{id}", "One print job")
    },
    Op {
        request: None,
        data: Some("PrintJob"),
        ..op("post", "/desk/print-jobs/{id}/retry", "Print a job again")
    },
    op(
        "get",
        "/desk/files/{id}/preview.png",
        "A PNG preview of a stored document's page",
    ),
    Op {
        data: Some("Today"),
        ..op(
            "get",
            "/desk/today",
            "Today's counts by carrier and status, labels per day",
        )
    },
    Op {
        data: Some("EndOfDay"),
        ..op("get", "/desk/end-of-day", "Accounts with labels waiting for close-out")
    },
    Op {
        request: None,
        data: Some("History"),
        ..list(
            "/desk/history",
            "History: labels with recipient, service name and print state",
        )
    },
    Op {
        data: Some("ShipDate"),
        ..op(
            "get",
            "/desk/shipper-accounts/{id}/ship-date",
            "The ship date a label made now gets (cut-off, collection days)",
        )
    },
    Op {
        data: Some("CloseOut"),
        ..op("post", "/desk/close-out", "Close out many accounts (one manifest each)")
    },
    Op {
        auth: Auth::ThisMachine,
        ..op("get", "/ui/session", "The desk UI's keys (this machine only)")
    },
    Op {
        auth: Auth::Open,
        ..op("get", "/ui/status", "Whether a desk UI has started a session")
    },
    Op {
        auth: Auth::ThisMachine,
        ..op(
            "post",
            "/ui/keys/{env}/rotate",
            "Replace an environment's key (this machine only)",
        )
    },
    Op {
        auth: Auth::Open,
        ..op("get", "/openapi.json", "This document")
    },
];

/// The query parameters of list routes.
const LIST_PARAMS: &[(&str, &str)] = &[
    ("limit", "Records per page, 1..200 (default 20)"),
    ("next_token", "The page after the one that gave this token"),
    ("created_at_min", "From this time (ISO 8601)"),
    ("created_at_max", "Up to this time (ISO 8601)"),
    ("status", "Only records in this status"),
    ("shipper_account_id", "Only this shipper account's records"),
    (
        "tracking_numbers",
        "Only labels with these tracking numbers (comma-separated)",
    ),
    ("s", "Search: the start or end of a word of the label"),
    ("slug", "Only this carrier's accounts"),
    ("event", "Only deliveries of this event"),
    ("record_id", "Only deliveries or print jobs of this record"),
];

/// Rewrites `#/$defs/X` references to `#/components/schemas/X`, everywhere in `v`.
fn relink(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get_mut("$ref") {
                if let Some(name) = r.strip_prefix("#/$defs/") {
                    *r = format!("#/components/schemas/{name}");
                }
            }
            m.values_mut().for_each(relink);
        }
        Value::Array(a) => a.iter_mut().for_each(relink),
        _ => {}
    }
}

/// The published schemas as components: each under its title, its `$defs` beside it.
fn component_schemas() -> Map<String, Value> {
    let mut out = Map::new();
    // The model's published schemas, and the carrier registry the desk UI builds its forms from.
    let registry = schemars::schema_for!(packdesk_carriers::registry::Registry);
    let schemas = packdesk_model::schema::all().into_iter().map(|(_, s)| s);
    for schema in schemas.chain([registry]) {
        let mut v = schema.to_value();
        let Some(obj) = v.as_object_mut() else { continue };
        obj.remove("$schema");
        if let Some(Value::Object(defs)) = obj.remove("$defs") {
            for (name, mut def) in defs {
                relink(&mut def);
                out.entry(name).or_insert(def);
            }
        }
        let title = obj.get("title").and_then(Value::as_str).unwrap_or_default().to_string();
        relink(&mut v);
        out.insert(title, v);
    }
    out.insert(
        "Detail".into(),
        json!({"type": "object", "required": ["path", "info"], "properties": {"path": {"type": "string"}, "info": {"type": "string"}}}),
    );
    out.insert(
        "Meta".into(),
        json!({
            "type": "object",
            "required": ["code"],
            "properties": {
                "code": {"type": "integer", "description": "200, 3001 (accepted for async work), or the contract's error code"},
                "message": {"type": "string"},
                "details": {"type": "array", "items": {"$ref": "#/components/schemas/Detail"}},
                "retryable": {"type": "boolean"}
            }
        }),
    );
    out.insert(
        "Envelope".into(),
        json!({
            "type": "object",
            "description": "Every JSON answer: `meta` says how it went; business errors come with HTTP 200 and `data: {}`",
            "required": ["meta", "data"],
            "properties": {"meta": {"$ref": "#/components/schemas/Meta"}, "data": {}}
        }),
    );
    out
}

fn envelope_with(data: Option<&str>) -> Value {
    match data {
        None => json!({"$ref": "#/components/schemas/Envelope"}),
        Some(record) => json!({
            "description": format!("`data` is a {record} when `meta.code` is 200 or 3001, else `{{}}`"),
            "$ref": "#/components/schemas/Envelope",
        }),
    }
}

fn json_answer(description: &str, data: Option<&str>) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": envelope_with(data)}}})
}

fn operation(o: &Op) -> Value {
    let mut params: Vec<Value> = o
        .path
        .split('/')
        .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
        .collect();
    if o.list {
        params.extend(LIST_PARAMS.iter().map(|(name, d)| json!({"name": name, "in": "query", "required": false, "description": d, "schema": {"type": "string"}})));
    }
    match o.path {
        "/desk/today" => params.extend([
            json!({"name": "utc_offset_minutes", "in": "query", "schema": {"type": "integer"}}),
            json!({"name": "days", "in": "query", "schema": {"type": "integer"}}),
        ]),
        "/desk/files/{id}/preview.png" => params.extend([
            json!({"name": "page", "in": "query", "schema": {"type": "integer", "minimum": 0}}),
            json!({"name": "dpi", "in": "query", "schema": {"type": "integer", "minimum": 0}}),
        ]),
        "/desk/orders/export.csv" => params.push(
            json!({"name": "status", "in": "query", "description": "open, shipped or cancelled", "schema": {"type": "string"}}),
        ),
        "/desk/orders/import" => params.extend([
            json!({"name": "mapping", "in": "query", "description": "A saved mapping's name", "schema": {"type": "string"}}),
            json!({"name": "dry_run", "in": "query", "description": "Answer without writing", "schema": {"type": "boolean"}}),
        ]),
        "/v3/files/{id}" => params.extend([
            json!({"name": "expires", "in": "query", "description": "Of a signed link: unix seconds", "schema": {"type": "string"}}),
            json!({"name": "signature", "in": "query", "description": "Of a signed link", "schema": {"type": "string"}}),
        ]),
        _ => {}
    }
    if o.method == "post" && o.path.starts_with("/v3/") {
        params.push(json!({
            "name": "Idempotency-Key", "in": "header", "required": false,
            "description": "The same key with the same body within 24 h answers the first answer again",
            "schema": {"type": "string", "minLength": 1, "maxLength": 255}
        }));
    }
    let mut responses = Map::new();
    let ok = match o.path {
        "/v3/files/{id}" => json!({"description": "The document", "content": {
            "application/pdf": {"schema": {"type": "string", "format": "binary"}},
            "application/zpl": {"schema": {"type": "string"}},
            "text/csv": {"schema": {"type": "string"}},
            "application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}}}),
        "/desk/orders/export.csv" => json!({"description": "The orders as CSV", "content": {
            "text/csv": {"schema": {"type": "string"}},
            "application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}}}),
        "/desk/files/{id}/preview.png" => json!({"description": "The page as PNG", "content": {
            "image/png": {"schema": {"type": "string", "format": "binary"}},
            "application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}}}),
        "/v3/schemas/{name}" => json!({"description": "The JSON Schema", "content": {
            "application/schema+json": {"schema": {"type": "object"}},
            "application/json": {"schema": {"$ref": "#/components/schemas/Envelope"}}}}),
        "/openapi.json" => {
            json!({"description": "This document", "content": {"application/json": {"schema": {"type": "object"}}}})
        }
        _ => json_answer("The envelope: the record, or a business error with its details", o.data),
    };
    responses.insert("200".into(), ok);
    if o.auth != Auth::Open {
        responses.insert(
            "401".into(),
            json_answer("No valid key (or link, or not this machine)", None),
        );
    }
    responses.insert("404".into(), json_answer("No such route or file", None));
    responses.insert("405".into(), json_answer("The route does not take this method", None));
    if matches!(o.method, "post" | "put" | "patch") {
        responses.insert("413".into(), json_answer("The body is over 8 MiB", None));
    }
    let mut v = json!({
        "summary": o.summary,
        "operationId": format!("{}{}", o.method, o.path.replace(['/', '{', '}', '.', '-'], "_")),
        "parameters": params,
        "responses": responses,
    });
    if matches!(o.method, "post" | "put" | "patch") {
        let schema = match o.request {
            Some(r) => json!({"$ref": format!("#/components/schemas/{r}")}),
            None => json!({"type": "object"}),
        };
        v["requestBody"] = match o.path {
            "/desk/orders/import" => json!({"required": true, "content": {"text/csv": {"schema": {"type": "string"}}}}),
            _ => json!({"required": o.request.is_some(), "content": {"application/json": {"schema": schema}}}),
        };
    }
    v["security"] = match o.auth {
        Auth::Key => json!([{"apiKey": []}]),
        Auth::KeyOrLink => json!([{"apiKey": []}, {}]),
        Auth::ThisMachine | Auth::Open => json!([]),
    };
    v
}

/// The whole document.
pub fn document() -> Value {
    let mut paths: Map<String, Value> = Map::new();
    for o in OPS {
        let item = paths.entry(o.path.to_string()).or_insert_with(|| json!({}));
        item[o.method] = operation(o);
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Packdesk",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The multi-carrier label service of the packing desk: the /v3 interface, and the desk's own routes under /desk. Every answer is an envelope {meta, data}; business errors come with HTTP 200."
        },
        "servers": [{"url": "http://127.0.0.1:4780"}],
        "paths": paths,
        "components": {
            "schemas": component_schemas(),
            "securitySchemes": {"apiKey": {"type": "apiKey", "in": "header", "name": "service-api-key"}}
        },
        "security": [{"apiKey": []}],
    })
}

/// The document as the repo keeps it.
pub fn pretty() -> String {
    let mut s = serde_json::to_string_pretty(&document()).unwrap_or_default();
    s.push('\n');
    s
}
