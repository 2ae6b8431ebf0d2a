//! Labels on the run's backend: a label made is written whole (its numbers, its files) or not at
//! all; End of day's waiting counts, Today's counts per day, documents added, a label completed,
//! searches; an order number used by one live label of an account.

use crate::support::{self, assert_rows, Backend};
use packdesk_model::status::{Env, FileKind, LabelStatus};
use packdesk_store::audit::{self, AuditRow};
use packdesk_store::files::{self, FileRow};
use packdesk_store::labels::{self, InsertError, LabelFilter, MadeLabel, Waiting};
use packdesk_store::tracking;

fn file(id: &str, owner: &str, kind: FileKind, bytes: &[u8]) -> FileRow {
    FileRow {
        id: id.into(),
        env: Env::Live,
        owner_id: owner.into(),
        kind,
        file_type: "pdf".into(),
        paper_size: "4x6".into(),
        bytes: bytes.to_vec(),
        created_at: 7,
    }
}

/// A label's own audit entry, as the service makes it.
fn created(label_id: &str) -> AuditRow {
    AuditRow {
        id: format!("entry-{label_id}"),
        at: 5,
        desk: "desk-1".into(),
        env: Env::Live,
        actor: "Ana".into(),
        operator_id: None,
        action: "label.created".into(),
        object_id: Some(label_id.into()),
        result: "ok".into(),
        detail: "{}".into(),
    }
}

#[test]
fn a_label_is_written_whole_with_its_numbers_and_files_or_not_at_all() {
    let db = support::store_with_an_account();
    // As the service writes a label: in one transaction that commits only when it is Ok.
    let write = |m: &MadeLabel| db.write(|c| labels::write_made(c, m));
    let numbers = ["JD000000001000".to_string(), "JD000000001001".to_string()];
    let mut row = support::label("lbl-1", "acct-1", 1000, "2026-11-25", 5);
    row.order_number = Some("W-1".into());
    let files = [
        file("f-1", "lbl-1", FileKind::Label, b"%PDF-1.7 one"),
        file("f-2", "lbl-1", FileKind::Invoice, &[0, 255, 1]),
    ];
    let made = MadeLabel {
        row: &row,
        slug: "yodel",
        scope: "acct-1/pool",
        serials: &[1000, 1001],
        numbers: &numbers,
        files: &files,
        completes: false,
        audit: &created("lbl-1"),
        account_updated_at: None,
    };
    write(&made).expect("the label is written");
    assert_eq!(
        db.look(|c| audit::actor_of(c, "label.created", "lbl-1")),
        Some("Ana".to_string()),
        "its audit entry, written with it"
    );
    assert_rows(
        db.look(|c| labels::get(c, Env::Live, "lbl-1")),
        Some(row.clone()),
        "the label",
    );
    for f in &files {
        assert_rows(
            db.look(|c| files::get(c, Env::Live, &f.id)),
            Some(f.clone()),
            "its file, byte for byte",
        );
    }
    // Only SQLite's write moves the range's counter past the serials: on PostgreSQL
    // `tracking::reserve` moved it when the serials were drawn (a statement of its own), and
    // the label's one statement leaves it.
    let counter_after_the_label = match support::backend() {
        Backend::Sqlite => Some(1002),
        Backend::Postgres => None,
    };
    assert_eq!(
        db.look(|c| tracking::counter(c, "acct-1/pool")),
        counter_after_the_label
    );

    // A second label drawing a number issued before: refused whole, its other number and its
    // file not kept.
    let row2 = support::label("lbl-2", "acct-1", 1002, "2026-11-25", 6);
    let numbers2 = ["JD000000001002".to_string(), "JD000000001001".to_string()];
    let files2 = [file("f-3", "lbl-2", FileKind::Label, b"%PDF-1.7 two")];
    let taken = MadeLabel {
        row: &row2,
        serials: &[1002, 1001],
        numbers: &numbers2,
        files: &files2,
        audit: &created("lbl-2"),
        ..made
    };
    // Which serial the refusal names: SQLite registers the numbers one by one and names the one
    // issued before; PostgreSQL's one statement fails whole and names the label's first serial.
    let named = match support::backend() {
        Backend::Sqlite => 1001,
        Backend::Postgres => 1002,
    };
    let refused = write(&taken);
    assert!(
        matches!(refused, Err(InsertError::NumberTaken(s)) if s == named),
        "{refused:?}"
    );
    assert_rows(db.look(|c| labels::get(c, Env::Live, "lbl-2")), None, "no label");
    assert_rows(db.look(|c| files::get(c, Env::Live, "f-3")), None, "no file");
    assert!(
        db.step(|c| tracking::register(c, Env::Live, "yodel", "JD000000001002", "probe")),
        "the refused label's new number was not kept"
    );
    assert_eq!(
        db.look(|c| tracking::counter(c, "acct-1/pool")),
        counter_after_the_label,
        "nor its counter moved"
    );

    // The order number of a live label of the account: refused as such.
    let numbers3 = ["JD000000001003".to_string()];
    let mut row3 = support::label("lbl-3", "acct-1", 1003, "2026-11-25", 7);
    row3.order_number = Some("W-1".into());
    let refused = write(&MadeLabel {
        row: &row3,
        serials: &[1003],
        numbers: &numbers3,
        files: &[],
        audit: &created("lbl-3"),
        ..made
    });
    assert!(matches!(refused, Err(InsertError::DuplicateOrderNumber)), "{refused:?}");
    assert_rows(db.look(|c| labels::get(c, Env::Live, "lbl-3")), None, "no label");
    assert_eq!(
        db.look(|c| audit::actor_of(c, "label.created", "lbl-3")),
        None,
        "nor its audit entry"
    );
    assert!(
        db.step(|c| tracking::register(c, Env::Live, "yodel", "JD000000001003", "probe")),
        "its number was not kept"
    );

    // An async label accepted in status `creating` is completed in place.
    let mut creating = support::label("lbl-4", "acct-1", 1004, "2026-11-25", 8);
    creating.status = LabelStatus::Creating;
    db.step(|c| labels::insert(c, &creating).map_err(support::refused));
    let mut done = creating.clone();
    done.status = LabelStatus::Created;
    done.record = "{\"done\":true}".into();
    done.search_text = "JD000000001004 done".into();
    done.updated_at = 99;
    let numbers4 = ["JD000000001004".to_string()];
    let files4 = [file("f-4", "lbl-4", FileKind::Label, b"%PDF-1.7 four")];
    write(&MadeLabel {
        row: &done,
        serials: &[1004],
        numbers: &numbers4,
        files: &files4,
        completes: true,
        audit: &created("lbl-4"),
        ..made
    })
    .expect("the accepted label is completed");
    // Status, record, search text and time of the completion; created when it was accepted.
    assert_rows(db.look(|c| labels::get(c, Env::Live, "lbl-4")), Some(done), "completed");
    assert_rows(
        db.look(|c| files::get(c, Env::Live, "f-4")),
        Some(files4[0].clone()),
        "its file",
    );
    assert!(
        !db.step(|c| tracking::register(c, Env::Live, "yodel", "JD000000001004", "probe")),
        "its number is issued"
    );
}

const HOUR: i64 = 3_600_000_000;

/// 40 labels of `acct-1`, one every 5 hours from 0: even ones ship on 23 November, odd ones on
/// the 24th; every third (0, 3, ...) by yodel_24, the others yodel_48; label i weighs i/4 kg;
/// every seventh (0, 7, ..., 35) cancelled.
fn forty_labels(db: &support::TestDb) {
    for i in 0..40i64 {
        let mut row = support::label(
            &format!("lbl-{i:02}"),
            "acct-1",
            i as u64,
            ["2026-11-23", "2026-11-24"][(i % 2) as usize],
            i * 5 * HOUR,
        );
        row.service_type = ["yodel_48", "yodel_24"][(i % 3 == 0) as usize].into();
        row.weight_kg = 0.25 * i as f64;
        if i % 7 == 0 {
            row.status = LabelStatus::Cancelled;
        }
        db.step(|c| labels::insert(c, &row).map_err(support::refused));
    }
}

#[test]
fn end_of_day_and_today_count_the_labels_by_day_service_and_status() {
    let db = support::store_with_an_account();
    forty_labels(&db);
    // SQLite's word index catches up after the labels are written; PostgreSQL's trigram index is
    // the database's own, so there is nothing to catch up.
    let indexed = match support::backend() {
        Backend::Sqlite => 40,
        Backend::Postgres => 0,
    };
    assert_eq!(db.step(|c| labels::catch_up_words(c, 1000)), indexed);
    assert_eq!(db.step(|c| labels::catch_up_words(c, 1000)), 0, "up to date");

    let waiting = |ship_date: &str, service_type: &str, labels: i64, weight_kg: f64, oldest: i64| Waiting {
        ship_date: ship_date.into(),
        service_type: service_type.into(),
        labels,
        weight_kg,
        oldest_created_at: oldest * 5 * HOUR,
    };
    // The created labels (not the cancelled) by ship date and service, earliest date first:
    // e.g. 23 November by yodel_24 is 6, 12, 18, 24, 30, 36 (0 is cancelled), 31.5 kg.
    assert_eq!(
        db.look(|c| labels::waiting(c, "acct-1")),
        vec![
            waiting("2026-11-23", "yodel_24", 6, 31.5, 6),
            waiting("2026-11-23", "yodel_48", 11, 53.0, 2),
            waiting("2026-11-24", "yodel_24", 6, 31.5, 3),
            waiting("2026-11-24", "yodel_48", 11, 52.75, 1),
        ]
    );
    assert_eq!(db.look(|c| labels::waiting(c, "acct-2")), vec![], "another account's");
    // Since hour 50: labels 10 to 39, of which 14, 21, 28 and 35 cancelled.
    let mut counts = db.look(|c| labels::counts_since(c, Env::Live, 50 * HOUR));
    counts.sort();
    assert_eq!(
        counts,
        vec![
            ("acct-1".to_string(), LabelStatus::Created, 26),
            ("acct-1".to_string(), LabelStatus::Cancelled, 4)
        ]
    );
    assert_eq!(db.look(|c| labels::counts_since(c, Env::Sandbox, 0)), vec![]);
    // Days cut at 01:00 (a desk an hour east of UTC), from hour 24: labels 5 (hour 25) to 39
    // (hour 195), cancelled ones too: five a day, but four on day 3 (label 19, at hour 95, is
    // 00:00 of day 4 at the desk) and label 39 alone on day 8.
    assert_eq!(
        db.look(|c| labels::per_day(c, Env::Live, 24 * HOUR, HOUR)),
        vec![(1, 5), (2, 5), (3, 4), (4, 5), (5, 5), (6, 5), (7, 5), (8, 1)]
    );
}

#[test]
fn a_label_gets_its_documents_and_its_completion_and_is_found_by_its_words_and_status() {
    let db = support::store_with_an_account();
    forty_labels(&db);
    db.step(|c| labels::catch_up_words(c, 1000));
    let slip = r#"{"url":"https://desk/files/slip-1","file_type":"pdf"}"#;
    db.step(|c| labels::add_file(c, "lbl-03", FileKind::PackingSlip, slip));
    let with_slip = db.look(|c| labels::get(c, Env::Live, "lbl-03")).unwrap();
    let record: serde_json::Value = serde_json::from_str(&with_slip.record).unwrap();
    assert_eq!(
        record,
        serde_json::json!({"files": {"packing_slip": {"url": "https://desk/files/slip-1", "file_type": "pdf"}}})
    );

    db.step(|c| {
        labels::complete(
            c,
            "lbl-05",
            LabelStatus::Created,
            &"{\"done\":true}".into(),
            "JD000000000005 ref-5 NEWREF",
            99,
        )
    });
    let completed = db.look(|c| labels::get(c, Env::Live, "lbl-05")).unwrap();
    assert_eq!(
        (
            completed.status,
            completed.record.as_str(),
            completed.updated_at,
            completed.created_at
        ),
        (LabelStatus::Created, "{\"done\":true}", 99, 25 * HOUR)
    );
    let ids = |f: &LabelFilter, limit: usize| -> Vec<(String, i64)> {
        db.look(|c| labels::list(c, Env::Live, f, limit, None).map(|l| l.rows))
            .into_iter()
            .map(|l| (l.id, l.updated_at))
            .collect()
    };
    let search = |s: &str| LabelFilter {
        search: Some(s.into()),
        created_at_max: i64::MAX,
        ..Default::default()
    };
    assert_eq!(
        ids(&search("newref"), 10),
        [("lbl-05".to_string(), 99)],
        "found by its new text"
    );
    assert_eq!(ids(&search("jd000000000012"), 10), [("lbl-12".to_string(), 60 * HOUR)]);
    // Words of the text in any place of it: the end of one, a whole one, the start of one (on
    // SQLite the index starts from the word with the fewest labels, here the first).
    assert_eq!(
        ids(&search("000000000012 ref-1"), 10),
        [("lbl-12".to_string(), 60 * HOUR)]
    );
    assert_eq!(
        ids(&search("0000000012 REF-12"), 10),
        [("lbl-12".to_string(), 60 * HOUR)]
    );
    assert_eq!(ids(&search("000000000012 ref-13"), 10), []);
    let cancelled = LabelFilter {
        status: Some(LabelStatus::Cancelled),
        created_at_max: i64::MAX,
        ..Default::default()
    };
    assert_eq!(
        ids(&cancelled, 3).into_iter().map(|(id, _)| id).collect::<Vec<_>>(),
        ["lbl-35", "lbl-28", "lbl-21", "lbl-14"],
        "by status, newest first, limit + 1"
    );
}

#[test]
fn an_order_number_is_taken_by_a_live_label_of_the_account() {
    let db = support::store_with_an_account();
    let numbered = labels::LabelRow {
        order_number: Some("SO-9".into()),
        ..support::label("lbl-1", "acct-1", 1, "2026-11-24", 1)
    };
    assert!(!db.look(|c| labels::order_number_taken(c, "acct-1", "SO-9")), "free");
    db.step(|c| labels::insert(c, &numbered).map_err(support::refused));
    assert!(db.look(|c| labels::order_number_taken(c, "acct-1", "SO-9")), "taken");
    assert!(
        !db.look(|c| labels::order_number_taken(c, "acct-2", "SO-9")),
        "per account"
    );
    let again = db.write(|c| {
        labels::insert(
            c,
            &labels::LabelRow {
                id: "lbl-2".into(),
                ..numbered.clone()
            },
        )
    });
    assert!(matches!(again, Err(InsertError::DuplicateOrderNumber)), "{again:?}");
    db.step(|c| labels::set_status(c, "lbl-1", LabelStatus::Cancelled, 2));
    assert!(
        !db.look(|c| labels::order_number_taken(c, "acct-1", "SO-9")),
        "free again once its label is cancelled"
    );
}

/// Label `n` as the service makes it: serial `n`, its number, a label file and its audit entry.
fn made(n: u64) -> labels::OwnedMade {
    let id = format!("lbl-{n}");
    labels::OwnedMade {
        row: support::label(&id, "acct-1", n, "2026-11-25", n as i64),
        slug: "yodel".into(),
        scope: "acct-1/pool".into(),
        serials: vec![n],
        numbers: vec![format!("JD{n:012}")],
        files: vec![file(
            &format!("f-{n}"),
            &id,
            FileKind::Label,
            format!("%PDF-1.7 {n}").as_bytes(),
        )],
        completes: false,
        audit: created(&id),
        account_updated_at: Some(1),
    }
}

#[test]
fn labels_made_at_once_are_written_together_whole_or_not_at_all() {
    let db = support::store_with_an_account();
    let first: Vec<labels::OwnedMade> = (1..=3).map(made).collect();
    let together = |ls: &[labels::OwnedMade]| {
        let made: Vec<MadeLabel> = ls.iter().map(labels::OwnedMade::made).collect();
        db.write_one_statement(|c| labels::write_made_together(c, &made))
    };
    together(&first).expect("three labels written in one");
    for m in &first {
        assert_rows(
            db.look(|c| labels::get(c, Env::Live, &m.row.id)),
            Some(m.row.clone()),
            "each label",
        );
        assert_rows(
            db.look(|c| files::get(c, Env::Live, &m.files[0].id)),
            Some(m.files[0].clone()),
            "its file, byte for byte",
        );
        assert!(
            !db.step(|c| tracking::register(c, Env::Live, "yodel", &m.numbers[0], "probe")),
            "its number issued"
        );
    }
    // One of three draws a number issued before: none of them is written.
    let mut second: Vec<labels::OwnedMade> = (4..=6).map(made).collect();
    second[1].numbers = first[2].numbers.clone();
    assert!(together(&second).is_err());
    for m in &second {
        assert_rows(db.look(|c| labels::get(c, Env::Live, &m.row.id)), None, "no label");
    }
    // A label made with its account as read before it changed (`updated_at` 1 then, 2 now):
    // refused whole on a shared database (one desk's file has no other desk to change it).
    let mut stale = made(7);
    stale.account_updated_at = Some(2);
    let refused = together(std::slice::from_ref(&stale));
    if support::backend() == Backend::Postgres {
        assert!(matches!(refused, Err(InsertError::AccountChanged)), "{refused:?}");
        assert_rows(db.look(|c| labels::get(c, Env::Live, "lbl-7")), None, "no label");
        assert!(
            db.step(|c| tracking::register(c, Env::Live, "yodel", &stale.numbers[0], "probe")),
            "nor its number"
        );
    }
}

#[test]
fn labels_arriving_at_once_at_a_desk_share_a_statement_and_one_refused_takes_no_other_with_it() {
    let db = support::store_with_an_account();
    let packdesk_store::db::Db::Postgres { store, desk } = &db.db else {
        // One desk's file commits its writes together by itself (`writer.rs`).
        return;
    };
    db.step(|c| tracking::register(c, Env::Live, "yodel", "JD000000000013", "an earlier label"));
    let together = packdesk_store::pg::Together::default();
    let outcomes: Vec<(u64, Result<(), InsertError>)> = std::thread::scope(|s| {
        let writers: Vec<_> = (10..26)
            .map(|n| {
                let together = &together;
                s.spawn(move || (n, labels::write_made_shared(store, desk, together, made(n))))
            })
            .collect();
        writers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    for (n, outcome) in outcomes {
        let written = db.look(|c| labels::get(c, Env::Live, &format!("lbl-{n}")));
        if n == 13 {
            assert!(matches!(outcome, Err(InsertError::NumberTaken(13))), "{outcome:?}");
            assert_rows(written, None, "the label whose number was issued before");
        } else {
            assert!(outcome.is_ok(), "label {n}: {outcome:?}");
            assert_rows(written, Some(made(n).row), "each other label");
        }
    }
}

#[test]
fn a_desks_label_statement_is_planned_once_not_at_every_label() {
    let db = support::store_with_an_account();
    let packdesk_store::db::Db::Postgres { store, desk } = &db.db else {
        // Only PostgreSQL plans a statement for the values sent (`pg::Plans`).
        return;
    };
    let together = packdesk_store::pg::Together::default();
    for n in 30..38 {
        labels::write_made_shared(store, desk, &together, made(n)).expect("each label written");
    }
    // The connection the labels went out on: how its statement was planned.
    let plans: Vec<(i64, i64)> = store
        .autocommit_planned(packdesk_store::pg::Plans::Generic, |c| {
            let rows = c.query(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE 'WITH numbers AS%'",
                &[],
            )?;
            Ok::<_, packdesk_store::StoreError>(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })
        .unwrap();
    assert_eq!(plans, vec![(8, 0)], "eight labels on its one plan (generic, custom)");
}

/// A database restart (or a lost network) drops every connection of the desk at once. The first
/// statement that finds its connection dead fails (worth a retry, the desk says so); the next
/// label must not take a dead connection of the labels' own pool (`Plans::Generic`), which sat
/// idle too briefly to be checked first.
#[test]
fn after_the_database_dropped_the_desks_connections_the_next_label_goes_out_on_a_new_one() {
    let db = support::store_with_an_account();
    let packdesk_store::db::Db::Postgres { store, desk } = &db.db else {
        // A SQLite file has no connections to lose.
        return;
    };
    let together = packdesk_store::pg::Together::default();
    labels::write_made_shared(store, desk, &together, made(40)).expect("a label before the restart");
    let database: String = store
        .read(|c| Ok::<_, packdesk_store::StoreError>(c.query_one("SELECT current_database()", &[])?.get(0)))
        .unwrap();

    // What a restart does to the desk: each of its connections closed by the server.
    let mut admin = postgres::Client::connect(&support::cluster(), postgres::NoTls).unwrap();
    let dropped = admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
            &[&database],
        )
        .unwrap();
    assert!(
        dropped >= 2,
        "the desk's reading and labels' connections both dropped ({dropped})"
    );
    // PostgreSQL ends a terminated backend after answering: wait until they are gone.
    while admin
        .query_one("SELECT count(*) FROM pg_stat_activity WHERE datname = $1", &[&database])
        .unwrap()
        .get::<_, i64>(0)
        > 0
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }

    // The desk's next read finds its connection dead and fails (or, on a machine slow enough
    // that the connection sat idle past the check, is sent on a new one).
    let _ = store.read(|c| c.query_one("SELECT 1", &[]).map_err(packdesk_store::StoreError::from));
    labels::write_made_shared(store, desk, &together, made(41)).expect("the next label, on a new connection");
    let count: i64 = store
        .read(|c| Ok::<_, packdesk_store::StoreError>(c.query_one("SELECT count(*) FROM labels", &[])?.get(0)))
        .unwrap();
    assert_eq!(count, 2, "both labels stored");
}
