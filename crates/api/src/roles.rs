//! Who may do what at a desk: the one table of roles (the README shows it). A read is any
//! operator's unless `READS` says whose; a change is an admin's unless `CHANGES` lets a packer or
//! a supervisor make it. An integration key acts as an admin of its environment (the sandbox key
//! still changes nothing of the whole desk, `Access::LiveKeyForChanges`, and reads neither the
//! operators nor the audit log). A named integration key (`/desk/api-keys`) is held to its
//! scopes besides: `SCOPES` says which scope opens which routes.

use axum::http::Method;
use packdesk_model::status::{KeyScope, Role};
use Role::*;

/// The changes a packer or a supervisor may make: (method, path, least role).
pub const CHANGES: &[(&str, &str, Role)] = &[
    // A packer ships, scans, prints and reprints the day's labels, imports and ships orders.
    ("POST", "/v3/labels", Packer),
    ("POST", "/v3/bulk-downloads", Packer),
    ("POST", "/v3/rates", Packer),
    ("POST", "/v3/address-validations", Packer),
    ("POST", "/desk/orders", Packer),
    ("POST", "/desk/orders/{id}/ship", Packer),
    ("POST", "/desk/orders/{id}/pack", Packer),
    ("DELETE", "/desk/orders/{id}/pack", Packer),
    ("POST", "/desk/labels/{id}/return-label", Packer),
    ("POST", "/desk/returns", Packer),
    ("POST", "/desk/orders/import", Packer),
    ("POST", "/desk/print", Packer),
    // A supervisor also voids, reprints any label, closes out, batch-ships, retries and resends,
    // keeps presets, rules and import mappings, cancels orders, pauses the printing.
    ("POST", "/v3/cancel-labels", Supervisor),
    ("POST", "/v3/manifests", Supervisor),
    ("POST", "/desk/close-out", Supervisor),
    ("POST", "/desk/orders/ship", Supervisor),
    ("DELETE", "/desk/orders/{id}", Supervisor),
    ("POST", "/desk/print-jobs/{id}/retry", Supervisor),
    ("POST", "/desk/webhook-deliveries/{id}/resend", Supervisor),
    ("POST", "/desk/manifests/{id}/transmit", Supervisor),
    ("POST", "/desk/presets", Supervisor),
    ("PUT", "/desk/presets/{id}", Supervisor),
    ("DELETE", "/desk/presets/{id}", Supervisor),
    ("PUT", "/desk/rules", Supervisor),
    ("PUT", "/desk/import-mappings/{name}", Supervisor),
    ("PUT", "/desk/printing", Supervisor),
];

/// Reads that are not every operator's.
pub const READS: &[(&str, &str, Role)] = &[
    ("GET", "/desk/audit", Supervisor),
    ("GET", "/desk/audit/export", Supervisor),
    ("GET", "/desk/reports/shipments", Supervisor),
    ("GET", "/desk/reports/shipments.csv", Supervisor),
    ("GET", "/desk/operators", Admin),
    ("GET", "/desk/operators/{id}", Admin),
    // Its answer holds the join code, the warehouse's vault key.
    ("GET", "/desk/database", Admin),
    ("GET", "/desk/api-keys", Admin),
    ("GET", "/desk/api-keys/{id}", Admin),
];

/// What a named key's scope opens besides `all` (everything) and `read` (every read any operator
/// may make): (method, `*` for any; path, with the paths under it; scope).
pub const SCOPES: &[(&str, &str, KeyScope)] = &[
    // labels: make, cancel, close out, rate, validate, download; read the accounts to ship with.
    ("*", "/v3/labels", KeyScope::Labels),
    ("*", "/v3/cancel-labels", KeyScope::Labels),
    ("*", "/v3/manifests", KeyScope::Labels),
    ("*", "/v3/bulk-downloads", KeyScope::Labels),
    ("*", "/v3/rates", KeyScope::Labels),
    ("*", "/v3/address-validations", KeyScope::Labels),
    ("GET", "/v3/files", KeyScope::Labels),
    ("GET", "/v3/shipper-accounts", KeyScope::Labels),
    // orders: send, import, ship and cancel orders; read their labels and documents.
    ("*", "/desk/orders", KeyScope::Orders),
    ("GET", "/desk/import-mappings", KeyScope::Orders),
    ("GET", "/desk/presets", KeyScope::Orders),
    ("*", "/desk/returns", KeyScope::Orders),
    ("*", "/desk/labels", KeyScope::Labels),
    ("GET", "/v3/labels", KeyScope::Orders),
    ("GET", "/v3/files", KeyScope::Orders),
    ("GET", "/v3/shipper-accounts", KeyScope::Orders),
];

/// The scopes any one of which lets a named key call `method path` (`all` always does).
pub fn scopes_of(method: &Method, path: &str) -> Vec<KeyScope> {
    let read = *method == Method::GET;
    let mut scopes = vec![KeyScope::All];
    if read && role_of(method, path) == Packer {
        scopes.push(KeyScope::Read);
    }
    for (m, p, scope) in SCOPES {
        let under = path
            .strip_prefix(p)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
        if under && (*m == "*" || (*m == "GET" && read)) && !scopes.contains(scope) {
            scopes.push(*scope);
        }
    }
    scopes
}

/// The least role that may call `method path`.
pub fn role_of(method: &Method, path: &str) -> Role {
    let listed = CHANGES
        .iter()
        .chain(READS)
        .find(|(m, p, _)| *m == method.as_str() && *p == path);
    match (listed, *method == Method::GET) {
        (Some((_, _, role)), _) => *role,
        (None, true) => Packer,
        (None, false) => Admin,
    }
}
