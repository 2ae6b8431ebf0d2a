//! Every saying of the service has its words in each of the desk's catalogues (the UI says a
//! problem by its key in the operator's language; a key missing there would show English).

use packdesk_model::said::Saying;
use std::path::Path;

fn catalogue_keys(file: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let all: serde_json::Value = serde_json::from_str(&text).unwrap();
    all.get("said").cloned().unwrap_or(serde_json::Value::Null)
}

#[test]
fn each_saying_is_in_every_catalogue() {
    let messages = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/i18n/messages");
    let mut files: Vec<_> = std::fs::read_dir(&messages)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 8, "the eight languages: {files:?}");
    for file in files {
        let said = catalogue_keys(&file);
        let missing: Vec<_> = Saying::ALL
            .iter()
            .map(|s| s.key())
            .filter(|k| said.get(k).and_then(|v| v.as_str()).is_none_or(str::is_empty))
            .collect();
        assert!(missing.is_empty(), "{} lacks said.{missing:?}", file.display());
    }
}
