//! The published schema files must be what the types generate. Run with UPDATE_SCHEMAS=1 to rewrite.

use std::path::PathBuf;

#[test]
fn published_schema_files_match_the_types() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas");
    let update = std::env::var("UPDATE_SCHEMAS").is_ok();
    let mut stale = Vec::new();
    for (name, schema) in packdesk_model::schema::all() {
        let path = dir.join(format!("{name}.json"));
        let want = packdesk_model::schema::pretty(&schema);
        if update {
            std::fs::write(&path, &want).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "schemas out of date (run UPDATE_SCHEMAS=1 cargo test -p packdesk-model): {stale:?}"
    );
}

#[test]
fn label_request_schema_refuses_unknown_keys_and_lists_paper_sizes() {
    let s = packdesk_model::schema::by_name("label-request").unwrap();
    let v: serde_json::Value = serde_json::from_str(&s).unwrap();
    assert_eq!(v["additionalProperties"], serde_json::json!(false));
    let text = v.to_string();
    for p in ["\"4x6\"", "\"4x8\"", "\"4x4\"", "\"a4\"", "\"default\""] {
        assert!(text.contains(p), "paper size {p} missing from schema");
    }
}
