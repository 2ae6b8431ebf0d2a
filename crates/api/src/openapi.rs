//! The OpenAPI 3.1 document of every route, served at `GET /openapi.json` (no key) and kept in the
//! repo as `docs/openapi.json` (a test keeps both equal). It is made from the table of routes
//! (`routes::table`): each route's request body and answer's `data` are the schemas of its Rust
//! types (schemars, as the published JSON Schemas of `packdesk-model` are), their definitions in
//! `components.schemas` beside the published schemas.

use crate::table::{Access, Answer, RequestBody, Route};
use axum::http::Method;
use schemars::generate::SchemaSettings;
use schemars::SchemaGenerator;
use serde_json::{json, Map, Value};

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
fn component_schemas(mut out: Map<String, Value>) -> Map<String, Value> {
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
        json!({
            "type": "object",
            "required": ["path", "info"],
            "properties": {
                "path": {"type": "string"},
                "info": {"type": "string"},
                "key": {"type": "string", "description": "The saying `info` is made from: a stable key the desk's screens say in the operator's language"},
                "args": {"type": "object", "additionalProperties": {"type": "string"}, "description": "The saying's arguments by name"}
            }
        }),
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
        "NoData".into(),
        json!({"type": "object", "maxProperties": 0, "description": "`data` of an answer that is not a success"}),
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

/// The 200 answer of an envelope route: its `data` is the route's type on success (`meta.code`
/// 200, 3001, or 4713 with the rates that worked), `{}` otherwise.
fn envelope_with(data: Option<Value>) -> Value {
    match data {
        None => json!({"$ref": "#/components/schemas/Envelope"}),
        Some(record) => json!({
            "type": "object",
            "description": "The envelope: `data` is the record when `meta.code` is 200 or 3001, else `{}`",
            "required": ["meta", "data"],
            "properties": {
                "meta": {"$ref": "#/components/schemas/Meta"},
                "data": {"anyOf": [record, {"$ref": "#/components/schemas/NoData"}]}
            }
        }),
    }
}

fn json_answer(description: &str, data: Option<Value>) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": envelope_with(data)}}})
}

fn operation(r: &Route, g: &mut SchemaGenerator) -> Value {
    let mut params: Vec<Value> = r
        .path
        .split('/')
        .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
        .collect();
    if r.list {
        params.extend(LIST_PARAMS.iter().map(|(name, d)| json!({"name": name, "in": "query", "required": false, "description": d, "schema": {"type": "string"}})));
    }
    for q in &r.query {
        let mut p = json!({"name": q.name, "in": "query"});
        if let Some(d) = q.description {
            p["description"] = json!(d);
        }
        p["schema"] = q.schema.clone();
        params.push(p);
    }
    let (prefix, _) = crate::table::split_prefix(r.path);
    if r.method == Method::POST && crate::table::takes_idempotency_key(prefix) {
        params.push(json!({
            "name": "Idempotency-Key", "in": "header", "required": false,
            "description": "The same key with the same body within 24 h answers the first answer again",
            "schema": {"type": "string", "minLength": 1, "maxLength": 255}
        }));
    }
    let mut responses = Map::new();
    let ok = match &r.answer {
        Answer::Content(description, content) => json!({"description": description, "content": content()}),
        Answer::Envelope(data) => json_answer(
            "The envelope: the record, or a business error with its details",
            data.map(|d| d(g).to_value()),
        ),
    };
    responses.insert("200".into(), ok);
    if r.access != Access::Open {
        responses.insert(
            "401".into(),
            json_answer("No valid key (or link, or not this machine)", None),
        );
    }
    if r.access.needs_key() {
        responses.insert(
            "403".into(),
            json_answer("The operator's role may not do this (its details say who may)", None),
        );
    }
    responses.insert("404".into(), json_answer("No such route or file", None));
    responses.insert("405".into(), json_answer("The route does not take this method", None));
    let method = r.method.as_str().to_ascii_lowercase();
    let takes_body = matches!(method.as_str(), "post" | "put" | "patch");
    if takes_body {
        responses.insert("413".into(), json_answer("The body is over 8 MiB", None));
    }
    let mut v = json!({
        "summary": r.summary,
        "operationId": format!("{method}{}", r.path.replace(['/', '{', '}', '.', '-'], "_")),
        "parameters": params,
        "responses": responses,
    });
    let body = |required: bool, schema: Value| json!({"required": required, "content": {"application/json": {"schema": schema}}});
    match &r.request {
        RequestBody::Json(b) => v["requestBody"] = body(true, b(g).to_value()),
        RequestBody::OptionalJson(b) => v["requestBody"] = body(false, b(g).to_value()),
        RequestBody::OneOf(bs) => {
            let one_of: Vec<Value> = bs.iter().map(|b| b(g).to_value()).collect();
            v["requestBody"] = body(true, json!({"oneOf": one_of}));
        }
        RequestBody::Csv => {
            v["requestBody"] = json!({"required": true, "content": {"text/csv": {"schema": {"type": "string"}}}})
        }
        // A POST without a body takes any JSON object (or none).
        RequestBody::None if takes_body => v["requestBody"] = body(false, json!({"type": "object"})),
        RequestBody::None => {}
    }
    v["security"] = match r.access {
        Access::Key | Access::LiveKeyForChanges | Access::LiveKeyForChangesOnThisMachine | Access::LiveKey => {
            json!([{"apiKey": []}])
        }
        Access::KeyOrSignedLink => json!([{"apiKey": []}, {}]),
        Access::ThisMachine | Access::Open => json!([]),
    };
    if r.access == Access::LiveKey {
        v["x-access"] = json!("live key");
    } else if r.access.live_key_for_changes() {
        v["x-access"] = json!("live key for changes");
    }
    v
}

/// The whole document.
pub fn document() -> Value {
    let mut g = SchemaSettings::draft2020_12()
        .with(|s| s.definitions_path = "/components/schemas".into())
        .into_generator();
    let mut paths: Map<String, Value> = Map::new();
    for r in crate::routes::table() {
        let op = operation(&r, &mut g);
        let item = paths.entry(r.path.to_string()).or_insert_with(|| json!({}));
        item[r.method.as_str().to_ascii_lowercase()] = op;
    }
    let schemas = component_schemas(g.take_definitions(true));
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
            "schemas": schemas,
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
