//! The smaller tables, each through its store functions on the run's backend: API keys, `meta`,
//! idempotency keys, records, files, presets, batches.

use crate::support::{self, assert_rows};
use packdesk_model::status::{BatchOrderStatus, Env, FileKind, ManifestStatus};
use packdesk_store::records::{Kind, RecordFilter, RecordRow, RecordStatus};
use packdesk_store::{batches, files, idempotency, keys, meta, presets, records};

#[test]
fn an_api_key_put_again_for_its_environment_replaces_the_one_before() {
    let db = support::store();
    let key = keys::KeyRow {
        env: Env::Live,
        key_hash: vec![1, 2],
        key_sealed: vec![3, 4, 5],
        created_at: 10,
    };
    assert!(!db.step(keys::any_sealed), "no key yet");
    db.step(|c| keys::put(c, &key));
    assert_rows(db.look(keys::all), vec![key.clone()], "the key");
    let rotated = keys::KeyRow {
        key_hash: vec![9],
        created_at: 11,
        ..key.clone()
    };
    db.step(|c| keys::put(c, &rotated));
    assert_rows(db.look(keys::all), vec![rotated], "the rotated key alone");
    assert!(db.step(keys::any_sealed), "sealed");
}

#[test]
fn meta_is_set_once_by_init_and_always_by_set() {
    let db = support::store();
    assert_eq!(db.look(|c| meta::get(c, "link_key")), None);
    assert_eq!(db.step(|c| meta::init(c, "link_key", "a")), "a", "the first value");
    assert_eq!(
        db.step(|c| meta::init(c, "link_key", "b")),
        "a",
        "kept: init answers the value set"
    );
    db.step(|c| meta::set(c, "link_key", "c"));
    assert_eq!(db.look(|c| meta::get(c, "link_key")), Some("c".to_string()));
}

#[test]
fn an_idempotency_key_is_taken_once_taken_over_once_answered_and_purged() {
    let db = support::store();
    assert!(
        db.step(|c| idempotency::reserve(c, Env::Live, "k1", b"hash", 5)),
        "a free key is taken"
    );
    let running = idempotency::IdempotencyRow {
        request_hash: b"hash".to_vec(),
        answer: None,
        created_at: 5,
    };
    assert_eq!(
        db.look(|c| idempotency::get(c, Env::Live, "k1")),
        Some(running),
        "while it runs"
    );
    assert!(
        !db.step(|c| idempotency::reserve(c, Env::Live, "k1", b"hash", 6)),
        "a key taken is not taken twice"
    );
    assert_eq!(
        db.step(|c| Ok((
            idempotency::take_over(c, Env::Live, "k1", b"hash", 5, 7)?,
            idempotency::take_over(c, Env::Live, "k1", b"hash", 5, 8)?
        ))),
        (true, false),
        "a key given up on is taken over once"
    );
    db.step(|c| idempotency::finish(c, Env::Live, "k1", 201, "{\"id\":1}"));
    let answered = idempotency::IdempotencyRow {
        request_hash: b"hash".to_vec(),
        answer: Some((201, "{\"id\":1}".into())),
        created_at: 7,
    };
    assert_eq!(
        db.look(|c| idempotency::get(c, Env::Live, "k1")),
        Some(answered),
        "the answer, at the time it was taken over"
    );
    assert_eq!(
        db.look(|c| idempotency::get(c, Env::Sandbox, "k1")),
        None,
        "per environment"
    );
    assert_eq!(
        db.step(|c| idempotency::purge(c, 6)),
        0,
        "taken over at 7: not older than 6"
    );
    assert_eq!(db.step(|c| idempotency::purge(c, 8)), 1);
    assert_eq!(db.look(|c| idempotency::get(c, Env::Live, "k1")), None, "purged");
}

#[test]
fn records_are_replaced_whole_but_their_creation_time_and_are_paged_by_account_and_status() {
    let db = support::store();
    let manifest = |i: i64| RecordRow {
        id: format!("rec-{i}"),
        env: Env::Live,
        shipper_account_id: (i % 2 == 0).then(|| "acct-1".to_string()),
        status: RecordStatus::Manifest(ManifestStatus::Manifested),
        record: format!("{{\"n\":{i}}}"),
        created_at: 100 + i,
        updated_at: 100 + i,
    };
    for i in 0..5i64 {
        db.step(|c| records::insert(c, &manifest(i)));
    }
    let done = RecordRow {
        id: "rec-1".into(),
        env: Env::Live,
        shipper_account_id: None,
        status: RecordStatus::Manifest(ManifestStatus::Failed),
        record: "{}".into(),
        created_at: 999,
        updated_at: 500,
    };
    db.step(|c| records::put(c, &done));
    let of_account = RecordFilter {
        shipper_account_id: Some("acct-1".into()),
        created_at_max: i64::MAX,
        ..Default::default()
    };
    // A page of 1 reads limit + 1 rows: the newest two of the account's (0, 2 and 4).
    assert_rows(
        db.look(|c| records::list(c, Kind::Manifest, Env::Live, &of_account, 1, None)),
        vec![manifest(4), manifest(2)],
        "a page of the account's",
    );
    let failed = RecordFilter {
        created_at_max: i64::MAX,
        status: Some("failed".into()),
        ..Default::default()
    };
    assert_rows(
        db.look(|c| records::list(c, Kind::Manifest, Env::Live, &failed, 10, None)),
        vec![RecordRow {
            created_at: 101,
            ..done
        }],
        "by status; the first created_at stays",
    );
    assert_rows(
        db.look(|c| records::get(c, Kind::Manifest, Env::Live, "rec-3")),
        Some(manifest(3)),
        "by id",
    );
}

#[test]
fn a_file_is_found_by_id_and_by_its_owner_and_type_in_its_environment() {
    let db = support::store();
    let file = files::FileRow {
        id: "file-1".into(),
        env: Env::Live,
        owner_id: "rec-0".into(),
        kind: FileKind::Manifest,
        file_type: "csv".into(),
        paper_size: "a4".into(),
        bytes: b"a,b\n".to_vec(),
        created_at: 7,
    };
    db.step(|c| files::insert(c, &file));
    let found = Some(file.clone());
    assert_rows(
        db.look(|c| files::of_owner_as(c, Env::Live, "rec-0", FileKind::Manifest, "csv")),
        found.clone(),
        "by owner, as csv",
    );
    assert_rows(
        db.look(|c| files::of_owner_as(c, Env::Live, "rec-0", FileKind::Manifest, "pdf")),
        None,
        "not as pdf",
    );
    assert_rows(
        db.look(|c| files::of_owner(c, Env::Live, "rec-0", FileKind::Manifest)),
        found.clone(),
        "any type",
    );
    assert_rows(db.look(|c| files::get_by_id(c, "file-1")), found.clone(), "by id");
    assert_rows(
        db.look(|c| files::get(c, Env::Live, "file-1")),
        found,
        "in its environment",
    );
    assert_rows(
        db.look(|c| files::get(c, Env::Sandbox, "file-1")),
        None,
        "not in the other",
    );
}

#[test]
fn a_preset_name_is_used_once_and_a_deleted_preset_is_gone() {
    let db = support::store();
    let preset = |id: &str, name: &str| presets::PresetRow {
        id: id.into(),
        env: Env::Live,
        name: name.into(),
        record: "{}".into(),
        created_at: 1,
    };
    let (small, pallet) = (preset("p-1", "Small box"), preset("p-2", "Pallet"));
    assert!(db.step(|c| presets::put(c, &small)), "a preset");
    assert!(db.step(|c| presets::put(c, &pallet)), "another");
    assert!(
        !db.step(|c| presets::put(c, &preset("p-2", "Small box"))),
        "a name another preset has is refused"
    );
    assert_eq!(
        db.look(|c| presets::list(c, Env::Live)),
        vec![small, pallet.clone()],
        "both, the refused rename not kept"
    );
    assert!(db.step(|c| presets::delete(c, Env::Live, "p-1")), "deleted");
    assert!(!db.step(|c| presets::delete(c, Env::Live, "p-1")), "deleted once");
    assert_eq!(db.look(|c| presets::get(c, Env::Live, "p-1")), None, "gone");
    assert_eq!(db.look(|c| presets::get(c, Env::Live, "p-2")), Some(pallet));
}

#[test]
fn a_batch_keeps_its_orders_in_their_order_with_each_ones_result() {
    let db = support::store();
    let orders = vec![
        ("order-1".to_string(), "SO-1".to_string()),
        ("order-2".to_string(), "SO-2".to_string()),
    ];
    db.step(|c| batches::insert(c, "batch-1", Env::Live, &orders, 3));
    let shipped = batches::Outcome {
        status: BatchOrderStatus::Shipped,
        label_id: Some("lbl-1"),
        tracking_numbers: "JD1 JD2",
        info: None,
    };
    db.step(|c| batches::set_result(c, "batch-1", 1, shipped, 4));
    assert_eq!(
        db.look(|c| batches::orders(c, "batch-1")),
        vec![
            batches::BatchOrderRow {
                position: 0,
                order_id: "order-1".into(),
                order_number: "SO-1".into(),
                status: BatchOrderStatus::Queued,
                label_id: None,
                tracking_numbers: String::new(),
                info: None,
                updated_at: 3,
            },
            batches::BatchOrderRow {
                position: 1,
                order_id: "order-2".into(),
                order_number: "SO-2".into(),
                status: BatchOrderStatus::Shipped,
                label_id: Some("lbl-1".into()),
                tracking_numbers: "JD1 JD2".into(),
                info: None,
                updated_at: 4,
            },
        ]
    );
    assert_eq!(db.look(|c| batches::created_at(c, Env::Live, "batch-1")), Some(3));
    assert_eq!(db.look(|c| batches::created_at(c, Env::Sandbox, "batch-1")), None);
}
