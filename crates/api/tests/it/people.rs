//! People at the desk, over HTTP against the real `packdesk-server`: operators, sign-in by badge
//! and PIN, the role table checked route by route, the lock-out after wrong PINs, and the audit
//! log of who did what.

use crate::support::*;
use serde_json::{json, Value};

/// An operator made with the live key (the desk owner's); answers its id.
fn operator(s: &Server, name: &str, code: &str, role: &str, pin: Option<&str>) -> String {
    let mut body = json!({"name": name, "code": code, "role": role});
    if let Some(p) = pin {
        body["pin"] = json!(p);
    }
    let made = s.live_ok("POST", "/desk/operators", Some(&body));
    assert_eq!(made["pin_set"], pin.is_some(), "{made}");
    assert!(made.get("pin").is_none() && made.get("pin_hash").is_none(), "{made}");
    made["id"].as_str().unwrap().to_string()
}

/// `POST /ui/sign-in`: the token, or the failure envelope.
fn sign_in(s: &Server, code: &str, pin: Option<&str>) -> Result<String, Value> {
    let v: Value = reqwest::blocking::Client::new()
        .post(s.url("/ui/sign-in?environment=sandbox"))
        .json(&json!({"code": code, "pin": pin}))
        .send()
        .unwrap()
        .json()
        .unwrap();
    match v["meta"]["code"] == 200 {
        true => Ok(v["data"]["token"].as_str().unwrap().to_string()),
        false => Err(v),
    }
}

/// A sandbox session of a new operator of `role` (no PIN), for other modules' tests.
pub(crate) fn operator_session(s: &Server, role: &str) -> String {
    let code = format!("B-{}", role.to_uppercase());
    operator(s, &format!("{role} one"), &code, role, None);
    sign_in(s, &code, None).unwrap()
}

/// A call with a session token: (HTTP status, envelope).
pub(crate) fn as_operator(s: &Server, token: &str, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    let mut req = reqwest::blocking::Client::new()
        .request(method.parse().unwrap(), s.url(path))
        .header("authorization", format!("Bearer {token}"));
    if let Some(b) = body {
        req = req.json(b);
    }
    let r = req.send().unwrap();
    (r.status().as_u16(), r.json().unwrap())
}

#[test]
fn each_role_may_do_what_the_role_table_says_and_is_told_who_may_otherwise() {
    let s = Server::start();
    operator(&s, "Ada Admin", "B-ADMIN", "admin", None);
    operator(&s, "Sam Supervisor", "B-SUP", "supervisor", None);
    operator(&s, "Pat Packer", "B-PACK", "packer", None);
    let account = yodel_account(&s);
    let tokens: Vec<(&str, String)> = [("packer", "B-PACK"), ("supervisor", "B-SUP"), ("admin", "B-ADMIN")]
        .into_iter()
        .map(|(role, code)| (role, sign_in(&s, code, None).unwrap()))
        .collect();
    let rank = |r: &str| ["packer", "supervisor", "admin"].iter().position(|x| *x == r).unwrap();
    // Table-driven from the role table: each listed change, and an admin's by default.
    let mut checks: Vec<(&str, &str, &str)> = packdesk_api::roles::CHANGES
        .iter()
        .map(|(m, p, r)| (*m, *p, r.as_str()))
        .collect();
    checks.extend([
        ("PUT", "/desk/settings", "admin"),
        ("POST", "/desk/printers", "admin"),
        ("POST", "/desk/operators", "admin"),
    ]);
    for (method, path, needed) in checks {
        let path = path
            .replace("{id}", "00000000-0000-4000-8000-000000000000")
            .replace("{name}", "m");
        for (role, token) in &tokens {
            let (status, v) = as_operator(&s, token, method, &path, Some(&json!({})));
            let refused = status == 403;
            assert_eq!(
                refused,
                rank(role) < rank(needed),
                "{role} {method} {path}: {status} {v}"
            );
            if refused {
                let info = v["meta"]["details"][0]["info"].as_str().unwrap();
                let who = match needed {
                    "supervisor" => "a supervisor or an admin",
                    _ => "an admin",
                };
                assert!(info.contains(who), "{info}");
            }
        }
    }
    // A packer ships; voiding its label is a supervisor's.
    let packer = &tokens[0].1;
    let (_, made) = as_operator(&s, packer, "POST", "/v3/labels", Some(&yodel_label(&account, 1)));
    assert_eq!(made["meta"]["code"], 200, "{made}");
    let void = json!({"label": {"id": made["data"]["id"]}});
    let (status, refused) = as_operator(&s, packer, "POST", "/v3/cancel-labels", Some(&void));
    assert_eq!(
        (status, refused["meta"]["code"].as_i64()),
        (403, Some(403)),
        "{refused}"
    );
    // Said by its key too, with the role needed and the operator's, for the desk's own words.
    let said = &refused["meta"]["details"][0];
    assert_eq!(said["key"], "roleRefused", "{refused}");
    assert_eq!(
        (said["args"]["needed"].as_str(), said["args"]["role"].as_str()),
        (Some("supervisor"), Some("packer"))
    );
    let (_, voided) = as_operator(&s, &tokens[1].1, "POST", "/v3/cancel-labels", Some(&void));
    assert_eq!(voided["meta"]["code"], 200, "{voided}");

    // The log says who did which.
    let label_id = made["data"]["id"].as_str().unwrap();
    let log = s.live_ok("GET", &format!("/desk/audit?object_id={label_id}"), None);
    let by: Vec<(String, String)> = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["action"].as_str().unwrap().into(),
                e["actor"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        by,
        vec![
            ("label.voided".to_string(), "Sam Supervisor".to_string()),
            ("label.created".to_string(), "Pat Packer".to_string())
        ]
    );
    let (status, _) = as_operator(&s, packer, "GET", "/desk/audit", None);
    assert_eq!(status, 403, "the log is a supervisor's to read");
    let (status, _) = as_operator(&s, packer, "GET", "/desk/database", None);
    assert_eq!(
        status, 403,
        "the database's answer holds the join code: an admin's to read"
    );
    // The sandbox key reads neither the operators nor the log (badge codes sign people in).
    for path in ["/desk/operators", "/desk/audit"] {
        let (status, _) = s.call("GET", path, &s.sandbox, None);
        assert_eq!(status, 401, "{path}");
    }
    // The log never holds a badge's code.
    let made = s.live_ok("GET", "/desk/audit?action=operator.created", None);
    assert!(!made.to_string().contains("B-PACK"), "{made}");
    let csv = reqwest::blocking::Client::new()
        .get(s.url("/desk/audit/export?action=label.voided"))
        .header("authorization", format!("Bearer {}", tokens[1].1))
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(
        csv.starts_with("time,desk,environment,actor") && csv.contains("Sam Supervisor"),
        "{csv}"
    );
}

#[test]
fn a_pin_is_asked_checked_and_five_wrong_ones_lock_the_operator_out() {
    let s = Server::start();
    let id = operator(&s, "Pia", "B-PIA", "packer", Some("4711"));
    let unknown = sign_in(&s, "B-NOBODY", None).unwrap_err();
    assert!(
        unknown["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("no operator has this badge"),
        "{unknown}"
    );
    let asked = sign_in(&s, "B-PIA", None).unwrap_err();
    assert_eq!(asked["meta"]["details"][0]["path"], "pin", "{asked}");
    sign_in(&s, "B-PIA", Some("4711")).unwrap();
    for _ in 0..4 {
        let wrong = sign_in(&s, "B-PIA", Some("0000")).unwrap_err();
        assert!(
            wrong["meta"]["details"][0]["info"]
                .as_str()
                .unwrap()
                .contains("wrong PIN"),
            "{wrong}"
        );
    }
    let locked = sign_in(&s, "B-PIA", Some("0000")).unwrap_err();
    assert!(
        locked["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("locked"),
        "{locked}"
    );
    // Now even the right PIN waits.
    let still = sign_in(&s, "B-PIA", Some("4711")).unwrap_err();
    assert!(
        still["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("try again in 5 min"),
        "{still}"
    );
    let o = s.live_ok("GET", &format!("/desk/operators/{id}"), None);
    assert!(o["locked_until"].is_string(), "{o}");
    let log = s.live_ok("GET", "/desk/audit?action=operator.locked", None);
    assert_eq!(log["entries"].as_array().map(Vec::len), Some(1), "audited: {log}");
}

#[test]
fn the_last_admin_stays_and_sign_in_is_required_only_once_there_is_one() {
    let s = Server::start();
    let (_, refused) = s.call(
        "PUT",
        "/desk/settings",
        &s.live,
        Some(&json!({"require_sign_in": true})),
    );
    assert_eq!(detail_paths(&refused), vec!["require_sign_in"], "{refused}");
    let admin = operator(&s, "Ada", "B-ADA", "admin", Some("123456"));
    let (_, demoted) = s.call(
        "PUT",
        &format!("/desk/operators/{admin}"),
        &s.live,
        Some(&json!({"role": "packer"})),
    );
    assert!(
        demoted["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("last active admin"),
        "{demoted}"
    );
    let (_, deleted) = s.call("DELETE", &format!("/desk/operators/{admin}"), &s.live, None);
    assert!(
        deleted["meta"]["details"][0]["info"]
            .as_str()
            .unwrap()
            .contains("last active admin"),
        "{deleted}"
    );
    let (_, taken) = s.call(
        "POST",
        "/desk/operators",
        &s.live,
        Some(&json!({"name": "Copy", "code": "B-ADA", "role": "packer"})),
    );
    assert_eq!(detail_paths(&taken), vec!["code"], "{taken}");
    // The page's session of the desk itself (sign-in off) ends when sign-in is required.
    let page: Value = reqwest::blocking::get(s.url("/ui/session")).unwrap().json().unwrap();
    let desk_token = page["data"]["session"]["token"].as_str().unwrap().to_string();
    s.live_ok("PUT", "/desk/settings", Some(&json!({"require_sign_in": true})));
    let (status, _) = as_operator(&s, &desk_token, "GET", "/v3/labels", None);
    assert_eq!(status, 401, "the desk's own session ended");

    // With sign-in required the page gets no session until a badge signs in.
    let session: Value = reqwest::blocking::get(s.url("/ui/session")).unwrap().json().unwrap();
    assert_eq!(session["data"]["sign_in_required"], true);
    assert!(session["data"]["session"].is_null(), "{session}");
    let token = sign_in(&s, "B-ADA", Some("123456")).unwrap();
    let (status, _) = as_operator(&s, &token, "GET", "/desk/operators", None);
    assert_eq!(status, 200);
    // An admin's session rotates a key (shown once); the log says which, never the key.
    let (_, rotated) = as_operator(&s, &token, "POST", "/ui/keys/sandbox/rotate", None);
    let new_key = rotated["data"]["key"].as_str().unwrap().to_string();
    let log = s.live_ok("GET", "/desk/audit?action=key.rotated", None);
    assert_eq!(log["entries"][0]["actor"], "Ada", "{log}");
    assert!(!log.to_string().contains(&new_key), "no key in the log");
    // Signed out: the token is gone.
    reqwest::blocking::Client::new()
        .post(s.url("/ui/sign-out"))
        .header("authorization", format!("Bearer {token}"))
        .send()
        .unwrap();
    let (status, _) = as_operator(&s, &token, "GET", "/desk/operators", None);
    assert_eq!(status, 401);
    let log = s.live_ok("GET", "/desk/audit?action=operator.sign_out", None);
    assert_eq!(log["entries"][0]["actor"], "Ada", "{log}");
}

#[test]
fn a_packer_cannot_switch_to_live_and_a_supervisor_can() {
    let s = Server::start();
    operator(&s, "Pat", "B-PAT", "packer", None);
    operator(&s, "Sue", "B-SUE", "supervisor", None);
    let switch = |token: &str| -> Value {
        reqwest::blocking::Client::new()
            .put(s.url("/ui/environment"))
            .header("authorization", format!("Bearer {token}"))
            .json(&json!({"environment": "live"}))
            .send()
            .unwrap()
            .json()
            .unwrap()
    };
    let refused = switch(&sign_in(&s, "B-PAT", None).unwrap());
    assert_eq!(refused["meta"]["code"], 403, "{refused}");
    let sue = sign_in(&s, "B-SUE", None).unwrap();
    let switched = switch(&sue);
    assert_eq!(switched["data"]["environment"], "live", "{switched}");
    // Her calls now act on the live environment: the live accounts (none), not the sandbox's.
    yodel_account(&s);
    let (_, live) = as_operator(&s, &sue, "GET", "/v3/shipper-accounts", None);
    assert_eq!(
        live["data"]["shipper_accounts"].as_array().map(Vec::len),
        Some(0),
        "{live}"
    );
}

#[test]
fn a_named_key_opens_only_its_scopes_in_its_environment_is_shown_once_and_stops_when_revoked() {
    let s = Server::start();
    let account = yodel_account(&s);
    let make = |name: &str, env: &str, scopes: Value| {
        s.live_ok(
            "POST",
            "/desk/api-keys",
            Some(&json!({"name": name, "environment": env, "scopes": scopes})),
        )
    };
    let labels = make("Shop", "sandbox", json!(["labels"]));
    let key = labels["key"].as_str().unwrap().to_string();
    assert!(key.starts_with(labels["prefix"].as_str().unwrap()), "{labels}");
    assert_eq!(labels["created_by"], "live key");
    // Shown once: neither the list nor the key's own record holds it again.
    let listed = s.live_ok("GET", "/desk/api-keys", None);
    assert!(!listed.to_string().contains(&key), "{listed}");
    let id = labels["id"].as_str().unwrap();
    assert!(s
        .live_ok("GET", &format!("/desk/api-keys/{id}"), None)
        .get("key")
        .is_none());

    // Its scope: labels of its environment, and what a label needs to be read.
    let (status, made) = s.call("POST", "/v3/labels", &key, Some(&yodel_label(&account, 1)));
    assert_eq!((status, &made["meta"]["code"]), (200, &json!(200)), "{made}");
    let label_id = made["data"]["id"].as_str().unwrap();
    assert_eq!(s.call("GET", &format!("/v3/labels/{label_id}"), &key, None).0, 200);
    // Outside it: refused, naming the scope needed.
    let (status, refused) = s.call("POST", "/desk/orders", &key, Some(&json!({"orders": []})));
    assert_eq!(status, 403, "{refused}");
    let info = refused["meta"]["details"].to_string();
    assert!(info.contains("orders") && info.contains("Shop (key)"), "{refused}");
    let (status, _) = s.call("GET", "/desk/printers", &key, None);
    assert_eq!(status, 403, "a labels key does not read the printers");
    // A sandbox key, named or not, sees nothing of the desk's people and keys, and changes no
    // printer even with `all`.
    let all = make("Test rig", "sandbox", json!(["all"]));
    let all_key = all["key"].as_str().unwrap();
    assert_eq!(s.call("GET", "/desk/printers", all_key, None).0, 200);
    assert_eq!(s.call("GET", "/desk/api-keys", all_key, None).0, 401);
    assert_eq!(
        s.call("POST", "/desk/printers", all_key, Some(&json!({"name": "x"}))).0,
        401
    );
    // `read` reads, changes nothing, and does not read the operators.
    let reader = make("Dashboard", "live", json!(["read"]));
    let reader_key = reader["key"].as_str().unwrap();
    assert_eq!(s.call("GET", "/v3/labels", reader_key, None).0, 200);
    assert_eq!(s.call("GET", "/desk/operators", reader_key, None).0, 403);
    assert_eq!(
        s.call("POST", "/v3/labels", reader_key, Some(&yodel_label(&account, 1)))
            .0,
        403
    );
    // A live key sees live records only: the sandbox label is not there.
    let (_, live_list) = s.call("GET", "/v3/labels", reader_key, None);
    assert_eq!(live_list["data"]["labels"], json!([]), "{live_list}");

    // Bad requests say where.
    let (status, bad) = s.call(
        "POST",
        "/desk/api-keys",
        &s.live,
        Some(&json!({"name": "Shop", "environment": "sandbox", "scopes": []})),
    );
    assert_eq!((status, &bad["meta"]["code"]), (200, &json!(4104)), "{bad}");
    let details = bad["meta"]["details"].to_string();
    assert!(details.contains("scopes"), "{bad}");
    let (_, taken) = s.call(
        "POST",
        "/desk/api-keys",
        &s.live,
        Some(&json!({"name": "Shop", "environment": "live", "scopes": ["orders"]})),
    );
    assert!(
        taken["meta"]["details"].to_string().contains("revoke it first"),
        "{taken}"
    );

    // The log names the key; its last use is listed.
    let log = s.live_ok("GET", &format!("/desk/audit?object_id={label_id}"), None);
    assert_eq!(log["entries"][0]["actor"], "Shop (key)", "{log}");
    // An async label is made by the job as the key that asked for it.
    let mut body = yodel_label(&account, 1);
    body["async"] = json!(true);
    let (_, accepted) = s.call("POST", "/v3/labels", &key, Some(&body));
    assert_eq!(accepted["meta"]["code"], 3001, "{accepted}");
    let async_id = accepted["data"]["id"].as_str().unwrap().to_string();
    let made_by = (0..200)
        .find_map(|_| {
            let log = s.live_ok("GET", &format!("/desk/audit?object_id={async_id}"), None);
            let actor = log["entries"][0]["actor"].as_str().map(str::to_string);
            if actor.is_none() {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            actor
        })
        .expect("the async label was made");
    assert_eq!(made_by, "Shop (key)");
    let seen = s.live_ok("GET", &format!("/desk/api-keys/{id}"), None);
    assert!(seen["last_used_at"].is_string(), "{seen}");

    // Revoked: refused at once, still listed with its time.
    let revoked = s.live_ok("DELETE", &format!("/desk/api-keys/{id}"), None);
    assert!(revoked["revoked_at"].is_string(), "{revoked}");
    assert_eq!(s.call("GET", "/v3/labels", &key, None).0, 401);
    let log = s.live_ok("GET", &format!("/desk/audit?object_id={id}"), None);
    let actions: Vec<&str> = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["api_key.revoked", "api_key.created"], "{log}");
    // Its name is free again.
    make("Shop", "sandbox", json!(["orders"]));
}

#[test]
fn the_log_keeps_credentials_changes_without_their_values_imports_batches_and_the_database() {
    let s = Server::start();
    let account = yodel_account(&s);
    let path = format!("/v3/shipper-accounts/{account}/credentials");
    let body = json!({"credentials": {"identity": "i", "password": "s3cret-Pa55", "account_number": "1"}});
    let (_, v) = s.call("PUT", &path, &s.sandbox, Some(&body));
    assert_eq!(v["meta"]["code"], 200, "{v}");
    let csv = "Order number;Name;Street;City;Postcode;Country\nIMP-1;Ana;Calle 1;Madrid;28001;ES\n";
    let (_, v) = s.send_raw("POST", "/desk/orders/import", &s.sandbox, "text/csv", csv.into());
    assert_eq!(v["data"]["imported"], 1, "{v}");
    let order = s.sandbox_ok("GET", "/desk/orders?s=IMP-1", None)["orders"][0]["id"].clone();
    let batch = s.sandbox_ok("POST", "/desk/orders/ship", Some(&json!({"order_ids": [order]})));
    s.live_ok("PUT", "/desk/database", Some(&json!({"url": null})));

    let log = s.live_ok("GET", "/desk/audit?limit=100", None);
    let text = log.to_string();
    assert!(!text.contains("s3cret-Pa55"), "a credential's value is never logged");
    let entry = |action: &str, object: Option<&Value>| {
        log["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["action"] == action && object.is_none_or(|o| &e["object_id"] == o))
            .cloned()
            .unwrap_or_else(|| panic!("no {action} in {log}"))
    };
    let changed = entry("account.changed", Some(&json!(account)));
    assert_eq!(changed["detail"]["credentials_changed"], true, "{changed}");
    assert_eq!(changed["actor"], "sandbox key");
    assert_eq!(entry("orders.imported", None)["detail"]["imported"], 1);
    assert_eq!(entry("batch.started", Some(&batch["id"]))["detail"]["orders"], 1);
    assert_eq!(entry("database.changed", None)["actor"], "live key");
}

#[test]
fn the_screens_speak_the_operators_language_else_the_desks() {
    let s = Server::start();
    let session = |token: Option<&str>| -> Value {
        let mut req = reqwest::blocking::Client::new().get(s.url("/ui/session?environment=sandbox"));
        if let Some(t) = token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        let v: Value = req.send().unwrap().json().unwrap();
        v["data"].clone()
    };
    // No setting: the page follows the system's language.
    assert_eq!(session(None)["language"], Value::Null);
    let mut settings = s.live_ok("GET", "/desk/settings", None);
    settings["language"] = json!("de");
    s.live_ok("PUT", "/desk/settings", Some(&settings));
    assert_eq!(session(None)["language"], "de");
    // A language the desk does not speak is refused in words, at the field.
    settings["language"] = json!("sv");
    let refused = s.call("PUT", "/desk/settings", &s.live, Some(&settings)).1;
    assert_eq!(refused["meta"]["code"], 4104, "{refused}");

    let id = operator(&s, "Ana", "B-ANA", "packer", None);
    let bad = s
        .call(
            "PUT",
            &format!("/desk/operators/{id}"),
            &s.live,
            Some(&json!({"language": "sv"})),
        )
        .1;
    assert_eq!(bad["meta"]["details"][0]["path"], "language", "{bad}");
    assert!(
        bad["meta"]["details"][0]["info"].as_str().unwrap().contains("pl"),
        "{bad}"
    );
    s.live_ok(
        "PUT",
        &format!("/desk/operators/{id}"),
        Some(&json!({"language": "pt-BR"})),
    );
    let token = sign_in(&s, "B-ANA", None).unwrap();
    let hers = session(Some(&token));
    assert_eq!(hers["session"]["operator"]["language"], "pt", "{hers}");
    assert_eq!(hers["language"], "de");
}
