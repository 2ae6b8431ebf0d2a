//! What a label costs the data folder (issue 42): its document's font objects, the same in nearly
//! every document, are kept once (`file_parts`); each file keeps only its own bytes and is read
//! back whole, the very bytes first served.

use crate::common::*;
use packdesk_carriers::carrier;
use packdesk_model::ToRequest;
use packdesk_service::keys::Env;
use serde_json::Value;

fn label_for(h: &Harness, account: &str, name: &str) -> Value {
    let c = carrier("yodel").unwrap();
    let mut body = label_request(account, c, &c.service_types[0]);
    body["shipment"]["ship_to"]["contact_name"] = name.into();
    wire(
        h.service
            .create_label(Env::Sandbox, body.to_request().unwrap())
            .unwrap(),
    )
}

/// Each label document's row: its file id, the bytes it keeps itself, whether it shares parts.
fn label_files(h: &Harness) -> Vec<(String, usize, bool)> {
    let db = rusqlite::Connection::open(h.dir.path().join("packdesk.sqlite3")).unwrap();
    let mut q = db
        .prepare("SELECT id, length(bytes), parts IS NOT NULL FROM files WHERE kind = 'label' ORDER BY created_at")
        .unwrap();
    q.query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as usize, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn parts_kept(h: &Harness) -> i64 {
    let db = rusqlite::Connection::open(h.dir.path().join("packdesk.sqlite3")).unwrap();
    db.query_row("SELECT COUNT(*) FROM file_parts", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn labels_keep_their_fonts_once_and_each_reads_back_to_the_byte() {
    let h = harness();
    let account = create_account(
        &h.service,
        Env::Sandbox,
        carrier("yodel").unwrap(),
        serde_json::json!({}),
    );
    let names = ["Jane Doe", "Mary Major", "John Roe"];
    for name in names {
        label_for(&h, &account, name);
    }
    let files = label_files(&h);
    assert_eq!(files.len(), 3);
    assert_eq!(parts_kept(&h), 1, "the fonts of three Latin labels: one part");
    for (id, own, shares) in &files {
        let (pdf, kind, _) = h.service.file(Env::Sandbox, id).unwrap();
        assert_eq!(kind, "application/pdf");
        assert!(*shares, "{id} shares its fonts");
        assert!(*own < 4_000, "a label keeps {own} bytes of its own");
        assert!(pdf.len() > own + 10_000, "read back whole: {} bytes", pdf.len());
        // Whole: the cross-reference table finds every object where it says.
        assert!(pdf.starts_with(b"%PDF-") && pdf.ends_with(b"%%EOF\n"));
        let out = std::process::Command::new("pdftotext")
            .args(["-", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut p| {
                use std::io::Write;
                p.stdin.take().unwrap().write_all(&pdf)?;
                p.wait_with_output()
            })
            .unwrap();
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(names.iter().any(|n| text.contains(n)), "{text}");
        // The same bytes read again from the database alone (no part remembered).
        packdesk_store::file_parts::forget_remembered();
        assert_eq!(h.service.file(Env::Sandbox, id).unwrap().0, pdf);
    }
    // Letters beyond ASCII, or another script, bring other font subsets: one more part each,
    // kept once too.
    label_for(&h, &account, "Zoë Ångström");
    label_for(&h, &account, "Åsa Öberg");
    let latin = parts_kept(&h);
    label_for(&h, &account, "محمد علي");
    label_for(&h, &account, "محمد علي");
    let arabic = parts_kept(&h);
    assert_eq!((latin, arabic), (2, 3));
}
