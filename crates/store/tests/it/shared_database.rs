//! What only the shared store of many desks has (issue 16), on the cluster of `tests/postgres.sh`
//! (PACKDESK_TEST_POSTGRES; `.ci/test` starts it before `cargo test`): the schema made on an empty
//! database, several desks at once (leases, locks, racing close-outs and scans, each desk's own
//! printers), dropped connections, prepared statements, TLS, a desk's file moved in. Each case
//! makes a database of its own; several `PgStore`s on one database stand for several desks.
//!
//! These do not depend on PACKDESK_TEST_BACKEND: they run in the default run, and the rerun on
//! PostgreSQL (`.ci/test`) leaves them out with `--skip shared_database::`.

use crate::support;
use packdesk_model::status::{
    DeliveryStatus, DocumentType, Env, JobKind, LabelStatus, OrderStatus, PrintJobStatus, PrinterFormat,
    PrinterTransport, WebhookEvent,
};
use packdesk_store::db::Tx;
use packdesk_store::pg::{self, PgStore};
use packdesk_store::{tracking, StoreError};
use std::collections::HashSet;
use std::sync::Arc;

fn database() -> String {
    pg::scratch_database(&support::cluster(), "store").unwrap()
}

#[test]
fn an_empty_database_gets_the_whole_schema_once_and_a_newer_one_is_left_untouched() {
    let url = database();
    let desk = PgStore::open(&url).unwrap();
    // The last version with a step of the shared database's (the latest may be SQLite's alone).
    let last_shared = packdesk_store::migrations::scripts(packdesk_store::sql::Dialect::Postgres)
        .last()
        .map(|(to, _)| to);
    assert_eq!(Some(desk.read(pg::version).unwrap()), last_shared);
    // The same tables and columns as SQLite's schema of that version (the word indexes aside:
    // trigram indexes do their work; and the quarter-hour counts, which would make every desk's
    // labels wait on one row); what sharing adds (desk, leases) comes on top.
    let dir = tempfile::tempdir().unwrap();
    let sqlite = packdesk_store::Store::open(&dir.path().join("packdesk.db")).unwrap();
    let sqlite_columns: Vec<(String, String)> = sqlite
        .read(|c| {
            let mut st = c.prepare(
                "SELECT m.name, p.name FROM sqlite_schema m, pragma_table_info(m.name) p
                 WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT IN ('label_words', 'order_words', 'label_quarters')",
            )?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok::<_, StoreError>(rows.collect::<Result<_, _>>()?)
        })
        .unwrap();
    let pg_columns: HashSet<(String, String)> = desk
        .read(|c| {
            let rows = c.query(
                "SELECT table_name::text, column_name::text FROM information_schema.columns WHERE table_schema = 'public'",
                &[],
            )?;
            Ok::<_, StoreError>(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })
        .unwrap();
    assert!(
        sqlite_columns.len() > 150,
        "SQLite's schema was read: {}",
        sqlite_columns.len()
    );
    let missing: Vec<_> = sqlite_columns.iter().filter(|c| !pg_columns.contains(c)).collect();
    assert!(
        missing.is_empty(),
        "columns SQLite has and the shared database lacks: {missing:?}"
    );
    // Opening again (another desk, a restart) changes nothing.
    drop(PgStore::open(&url).unwrap());

    // A database a newer Packdesk wrote: refused with the reason, and not touched.
    desk.write(|tx| {
        tx.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'", &[])?;
        tx.execute("INSERT INTO tracking_counters VALUES ('kept', 7)", &[])?;
        Ok::<_, StoreError>(())
    })
    .unwrap();
    let refused = PgStore::open(&url).err().expect("a newer schema is refused");
    assert!(format!("{refused:?}").contains("newer Packdesk"), "{refused:?}");
    assert_eq!(
        desk.read(|client| tracking::counter(&mut Tx::Postgres { client, desk: "desk-a" }, "kept"))
            .unwrap(),
        Some(7)
    );
    assert_eq!(desk.read(pg::version).unwrap(), 99);
}

#[test]
fn desks_starting_at_once_on_an_empty_database_all_open_it() {
    let url = Arc::new(database());
    let desks: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || PgStore::open(&url).map(|_| ()))
        })
        .collect();
    for d in desks {
        d.join().unwrap().expect("each desk opens the shared database");
    }
}

/// Draws `count` labels' numbers (1 to 3 parcels each) at one desk.
fn draw(desk: &PgStore, desk_no: usize, client: usize, count: usize) -> Vec<u64> {
    (0..count)
        .flat_map(|i| {
            let parcels = 1 + ((desk_no + client + i) % 3) as u64;
            support::draw_label(desk, "acct-1/pool", parcels, &format!("lbl-{desk_no}-{client}-{i}"))
        })
        .collect()
}

#[test]
fn three_desks_of_six_clients_never_draw_a_number_twice_and_leave_no_gap() {
    let url = database();
    let desks: Vec<Arc<PgStore>> = (0..3).map(|_| Arc::new(PgStore::open(&url).unwrap())).collect();
    let mut threads = Vec::new();
    for (d, desk) in desks.iter().enumerate() {
        for c in 0..6 {
            let desk = desk.clone();
            threads.push(std::thread::spawn(move || draw(&desk, d, c, 40)));
        }
    }
    let mut all = Vec::new();
    for t in threads {
        all.extend(t.join().unwrap());
    }
    let distinct: HashSet<u64> = all.iter().copied().collect();
    assert_eq!(distinct.len(), all.len(), "a number was drawn twice");
    // Every serial from the range's start up to the counter was drawn, each once.
    let next = desks[0]
        .read(|client| tracking::counter(&mut Tx::Postgres { client, desk: "desk-0" }, "acct-1/pool"))
        .unwrap()
        .unwrap();
    assert_eq!(next, support::RANGE_START + all.len() as u64);
    assert_eq!(*distinct.iter().min().unwrap(), support::RANGE_START);
    assert_eq!(*distinct.iter().max().unwrap(), next - 1);
    let registered: i64 = desks[2]
        .read(|c| Ok::<_, StoreError>(c.query_one("SELECT count(*) FROM tracking_numbers", &[])?.get(0)))
        .unwrap();
    assert_eq!(registered as usize, all.len());
}

#[test]
fn a_number_issued_at_one_desk_is_refused_at_another_and_an_exhausted_range_moves_nothing() {
    let url = database();
    let (a, b) = (PgStore::open(&url).unwrap(), PgStore::open(&url).unwrap());
    let issued = |desk: &PgStore, name: &str, label: &str| {
        desk.write(|client| {
            let c = &mut Tx::Postgres { client, desk: name };
            tracking::register(c, Env::Live, "yodel", "JD000000001000", label)
        })
        .unwrap()
    };
    assert!(issued(&a, "desk-a", "lbl-a"));
    assert!(
        !issued(&b, "desk-b", "lbl-b"),
        "the second desk is told the number is taken"
    );

    let reserve = |desk: &PgStore, name: &str, n: u64| {
        desk.autocommit(|client| tracking::reserve(&mut Tx::Postgres { client, desk: name }, "small", n, 10, 14))
            .unwrap()
    };
    assert_eq!(reserve(&a, "desk-a", 3), Ok(vec![10, 11, 12]));
    assert_eq!(reserve(&b, "desk-b", 3), Err(2), "two numbers left, three asked for");
    assert_eq!(
        b.read(|client| tracking::counter(&mut Tx::Postgres { client, desk: "desk-b" }, "small"))
            .unwrap(),
        Some(13)
    );
    assert_eq!(reserve(&b, "desk-b", 2), Ok(vec![13, 14]));
}

#[test]
fn a_database_that_cannot_be_reached_is_an_error_worth_retrying() {
    // A port nothing listens on (the cluster's own, plus one, is as good as any free one).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let err = PgStore::open(&format!("postgres://desk:secret@127.0.0.1:{port}/packdesk"))
        .err()
        .expect("nothing listens there");
    let text = format!("{err:?}");
    assert!(!text.contains("secret"), "the password stays out of the error: {text}");
    assert_eq!(err.code, packdesk_model::ErrorCode::InternalRetry, "{text}");
}

#[test]
fn a_refused_statement_is_told_in_postgresqls_own_words() {
    let store = PgStore::open(&database()).unwrap();
    let err: packdesk_model::ServiceError = store
        .write(|c| {
            tracking::register(
                &mut Tx::Postgres {
                    client: &mut *c,
                    desk: "desk-a",
                },
                Env::Live,
                "yodel",
                "JD1",
                "lbl-1",
            )?;
            c.batch_execute(
                "INSERT INTO tracking_numbers (env, slug, number, label_id) VALUES ('live', 'yodel', 'JD1', 'lbl-2')",
            )
            .map_err(StoreError::from)
        })
        .map_err(packdesk_model::ServiceError::from)
        .unwrap_err();
    let info = &err.details[0].info;
    assert!(info.contains("duplicate key value"), "not only \"db error\": {info}");
}

fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros() as i64
}

#[test]
fn jobs_of_a_desk_that_died_are_taken_over_after_their_lease_and_each_runs_once_in_lane_order() {
    use packdesk_store::{db::Tx, jobs};
    let url = database();
    let desks: Vec<Arc<PgStore>> = (0..3).map(|_| Arc::new(PgStore::open(&url).unwrap())).collect();
    // What a job's completion writes with its `finish`, in one transaction (a label's record, say).
    desks[0]
        .write(|tx| {
            tx.batch_execute("CREATE TABLE job_results (id TEXT NOT NULL, lane TEXT NOT NULL, seq BIGINT NOT NULL, desk TEXT NOT NULL, done_order BIGINT GENERATED ALWAYS AS IDENTITY)")?;
            let c = &mut Tx::Postgres { client: tx, desk: "desk-0" };
            for i in 0..240 {
                let lane = format!("account-{}", i % 8);
                jobs::insert(c, &format!("job-{i}"), Env::Live, JobKind::Label, &lane, "{}", now_us(), None)?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
    const LEASE_US: i64 = 1_000_000;

    // Desk 0 takes three jobs and dies (kill -9: no finish, no rollback of its committed leases).
    let first_lease_at = now_us();
    let abandoned: Vec<String> = (0..3)
        .map(|_| {
            desks[0]
                .write(|client| jobs::claim(&mut Tx::Postgres { client, desk: "desk-0" }, now_us(), LEASE_US))
                .unwrap()
                .expect("a job to take")
                .id
        })
        .collect();
    assert_eq!(abandoned.len(), 3);

    // Desks 1 and 2, two workers each, run everything.
    let mut workers = Vec::new();
    for (d, living) in desks.iter().enumerate().skip(1) {
        for _ in 0..2 {
            let desk = living.clone();
            workers.push(std::thread::spawn(move || {
                let name = format!("desk-{d}");
                let mut idle_since = std::time::Instant::now();
                let mut taken_over = Vec::new();
                loop {
                    let job = desk
                        .write(|client| jobs::claim(&mut Tx::Postgres { client, desk: &name }, now_us(), LEASE_US))
                        .unwrap();
                    let Some(job) = job else {
                        let (queued, _) = desk
                            .read(|client| jobs::counts(&mut Tx::Postgres { client, desk: &name }))
                            .unwrap();
                        if queued == 0 || idle_since.elapsed() > std::time::Duration::from_secs(20) {
                            return taken_over;
                        }
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        continue;
                    };
                    idle_since = std::time::Instant::now();
                    if job.id == "job-0" || job.id == "job-1" || job.id == "job-2" {
                        taken_over.push((job.id.clone(), now_us()));
                    }
                    // False when this desk's lease ran out (a stall) and another finished the job:
                    // then nothing of this transaction is written (the results below count).
                    desk.write(|tx| {
                        let c = &mut Tx::Postgres {
                            client: &mut *tx,
                            desk: &name,
                        };
                        if !jobs::finish(c, &job.id, now_us())? {
                            return Ok(false);
                        }
                        tx.execute(
                            "INSERT INTO job_results (id, lane, seq, desk) VALUES ($1, $2, $3, $4)",
                            &[&job.id, &job.lane, &job.seq, &name],
                        )?;
                        Ok::<_, StoreError>(true)
                    })
                    .unwrap();
                }
            }));
        }
    }
    let mut taken_over = Vec::new();
    for w in workers {
        taken_over.extend(w.join().unwrap());
    }
    assert_eq!(
        desks[1]
            .read(|client| jobs::counts(&mut Tx::Postgres { client, desk: "desk-1" }))
            .unwrap(),
        (0, 240),
        "every job done"
    );
    let taken: HashSet<String> = taken_over.iter().map(|t| t.0.clone()).collect();
    assert_eq!(
        taken,
        abandoned.iter().cloned().collect::<HashSet<_>>(),
        "the dead desk's jobs were taken over"
    );
    assert!(
        taken_over.iter().all(|(_, at)| *at >= first_lease_at + LEASE_US),
        "a dead desk's job is taken only once its lease ended"
    );
    let results: Vec<(String, String, i64)> = desks[2]
        .read(|c| {
            let rows = c.query("SELECT id, lane, seq FROM job_results ORDER BY done_order", &[])?;
            Ok::<_, StoreError>(rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect())
        })
        .unwrap();
    let ids: HashSet<&String> = results.iter().map(|r| &r.0).collect();
    assert_eq!((results.len(), ids.len()), (240, 240), "each job ran once");
    for lane in 0..8 {
        let seqs: Vec<i64> = results
            .iter()
            .filter(|r| r.1 == format!("account-{lane}"))
            .map(|r| r.2)
            .collect();
        assert!(
            seqs.windows(2).all(|w| w[0] < w[1]),
            "lane {lane} ran in order: {seqs:?}"
        );
    }
    let desks_used: i64 = desks[0]
        .read(|c| Ok::<_, StoreError>(c.query_one("SELECT count(DISTINCT desk) FROM job_results", &[])?.get(0)))
        .unwrap();
    assert_eq!(desks_used, 2, "both living desks ran jobs");
}

#[test]
fn a_desk_whose_lease_ran_out_while_it_worked_cannot_finish_a_job_another_desk_finished() {
    use packdesk_store::{db::Tx, jobs};
    let url = database();
    let (slow, quick) = (PgStore::open(&url).unwrap(), PgStore::open(&url).unwrap());
    slow.write(|client| {
        jobs::insert(
            &mut Tx::Postgres { client, desk: "slow" },
            "job-x",
            Env::Live,
            JobKind::Label,
            "lane",
            "{}",
            0,
            None,
        )
    })
    .unwrap();
    let t0 = 1_000_000;
    let mine = slow
        .write(|client| jobs::claim(&mut Tx::Postgres { client, desk: "slow" }, t0, 1_000))
        .unwrap()
        .unwrap();
    assert!(
        quick
            .write(|client| jobs::claim(&mut Tx::Postgres { client, desk: "quick" }, t0 + 500, 1_000))
            .unwrap()
            .is_none(),
        "leased: nothing to take"
    );
    let theirs = quick
        .write(|client| jobs::claim(&mut Tx::Postgres { client, desk: "quick" }, t0 + 1_000, 1_000))
        .unwrap()
        .unwrap();
    assert_eq!(theirs.id, mine.id, "the lease ended: the job is taken over");
    assert!(
        !slow
            .write(|client| jobs::renew(&mut Tx::Postgres { client, desk: "slow" }, "job-x", t0 + 5_000))
            .unwrap(),
        "no longer slow's"
    );
    assert!(quick
        .write(|client| jobs::finish(&mut Tx::Postgres { client, desk: "quick" }, "job-x", t0 + 1_500))
        .unwrap());
    assert!(
        !slow
            .write(|client| jobs::finish(&mut Tx::Postgres { client, desk: "slow" }, "job-x", t0 + 2_000))
            .unwrap(),
        "done once"
    );
}

#[test]
fn one_close_out_takes_the_labels_of_every_desk_and_two_at_once_never_share_a_label() {
    use packdesk_store::labels;
    let url = database();
    let desks: Vec<Arc<PgStore>> = (0..3).map(|_| Arc::new(PgStore::open(&url).unwrap())).collect();
    support::account(&desks[0], "acct-1");
    // 300 labels from three desks for today, and 30 for tomorrow that no close-out of today takes.
    for (d, desk) in desks.iter().enumerate() {
        desk.write(|tx| {
            for i in 0..110u64 {
                let serial = (d as u64) * 1000 + i;
                let day = if i < 100 { "2026-11-24" } else { "2026-11-25" };
                let row = support::label(&format!("lbl-{d}-{i}"), "acct-1", serial, day, serial as i64);
                let c = &mut Tx::Postgres {
                    client: &mut *tx,
                    desk: &format!("desk-{d}"),
                };
                labels::insert(c, &row).map_err(support::refused)?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
    }
    // Two desks press "close out" at the same moment.
    let barrier = Arc::new(std::sync::Barrier::new(2));
    let runs: Vec<_> = [1usize, 2]
        .into_iter()
        .map(|d| {
            let (desk, barrier) = (desks[d].clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                support::close_out(&desk, "acct-1", "2026-11-24", &format!("manifest-{d}"))
            })
        })
        .collect();
    let taken: Vec<Vec<String>> = runs.into_iter().map(|r| r.join().unwrap()).collect();
    let all: HashSet<&String> = taken.iter().flatten().collect();
    assert_eq!(
        all.len(),
        taken.iter().map(Vec::len).sum::<usize>(),
        "a label went into two manifests"
    );
    assert_eq!(all.len(), 300, "every desk's labels of the day, once");
    assert!(
        taken.iter().any(|t| t.len() == 300) && taken.iter().any(|t| t.is_empty()),
        "one close-out took the day whole, the other found nothing left: {:?}",
        taken.iter().map(Vec::len).collect::<Vec<_>>()
    );
    for d in 0..3 {
        assert!(all.contains(&format!("lbl-{d}-0")), "desk {d}'s labels are in");
    }
    let manifest = if taken[0].is_empty() {
        "manifest-2"
    } else {
        "manifest-1"
    };
    let of_manifest = desks[0]
        .read(|client| labels::of_manifest(&mut Tx::Postgres { client, desk: "desk-0" }, manifest))
        .unwrap();
    assert_eq!(of_manifest.len(), 300);
    assert!(of_manifest.iter().all(|l| l.status == LabelStatus::Manifested));
    // Tomorrow's labels wait for tomorrow's close-out.
    assert_eq!(
        support::close_out(&desks[0], "acct-1", "2026-11-25", "manifest-3").len(),
        30
    );
}

#[test]
fn an_order_scanned_at_two_desks_at_once_ships_once_and_the_second_desk_learns_which_desk_shipped_it() {
    use packdesk_store::{db::Tx, labels, orders};
    let url = database();
    let (a, b) = (
        Arc::new(PgStore::open(&url).unwrap()),
        Arc::new(PgStore::open(&url).unwrap()),
    );
    support::account(&a, "acct-1");
    let order = orders::OrderRow {
        id: "order-1".into(),
        env: Env::Live,
        order_number: "SO-1001".into(),
        status: OrderStatus::Open,
        record: "{}".into(),
        created_at: 1,
        updated_at: 1,
    };
    a.write(|client| orders::put(&mut Tx::Postgres { client, desk: "desk-a" }, &order, "so-1001 Jane Doe"))
        .unwrap();

    // What shipping an order writes in its label's transaction: the order locked and checked,
    // the label, the order marked shipped; `hold` keeps the transaction open a while, as drawing
    // the label does. Answers the label made, or the desk that had shipped the order.
    fn ship(desk: &PgStore, name: &str, locked: impl FnOnce(), hold: std::time::Duration) -> Result<String, String> {
        desk.write(|tx| {
            let o = orders::get_for_update(&mut Tx::Postgres { client: tx, desk: name }, Env::Live, "order-1")?
                .expect("the order");
            locked();
            if o.status == OrderStatus::Shipped {
                // The label that shipped it (read here: the service keeps it in the order's record).
                let label: String = tx
                    .query_one("SELECT label_id FROM order_labels WHERE order_id = $1", &[&"order-1"])?
                    .get(0);
                let by = labels::desk_of(&mut Tx::Postgres { client: tx, desk: name }, &label)?.expect("its desk");
                return Ok(Err(by));
            }
            let id = format!("lbl-{name}");
            let row = support::label(&id, "acct-1", 7, "2026-11-24", 5);
            labels::insert(&mut Tx::Postgres { client: tx, desk: name }, &row).map_err(support::refused)?;
            std::thread::sleep(hold);
            let shipped = orders::OrderRow {
                status: OrderStatus::Shipped,
                ..o
            };
            let c = &mut Tx::Postgres { client: tx, desk: name };
            orders::put(c, &shipped, "so-1001 Jane Doe")?;
            orders::link_label(c, &id, "order-1")?;
            Ok::<_, StoreError>(Ok(id))
        })
        .unwrap()
    }

    // Desk A has the order in hand (its row locked) when desk B scans it.
    let (locked_tx, locked) = std::sync::mpsc::channel();
    let first = {
        let a = a.clone();
        std::thread::spawn(move || {
            ship(
                &a,
                "desk-a",
                move || locked_tx.send(()).unwrap(),
                std::time::Duration::from_millis(300),
            )
        })
    };
    locked.recv().unwrap();
    let second = {
        let b = b.clone();
        std::thread::spawn(move || ship(&b, "desk-b", || {}, std::time::Duration::ZERO))
    };
    let (first, second) = (first.join().unwrap(), second.join().unwrap());
    assert_eq!(
        first,
        Ok("lbl-desk-a".to_string()),
        "the desk that scanned first ships it"
    );
    assert_eq!(
        second,
        Err("desk-a".to_string()),
        "the second desk waited, then was told which desk shipped it"
    );
    let labels_made: i64 = a
        .read(|c| Ok::<_, StoreError>(c.query_one("SELECT count(*) FROM labels", &[])?.get(0)))
        .unwrap();
    assert_eq!(labels_made, 1);
}

#[test]
fn any_desk_searches_the_shared_history_and_an_order_number_is_used_once_across_desks() {
    use packdesk_store::{db::Tx, labels, orders, paging::Cursor};
    let url = database();
    let (a, b) = (PgStore::open(&url).unwrap(), PgStore::open(&url).unwrap());
    support::account(&a, "acct-1");
    for (desk, name, from) in [(&a, "desk-a", 0u64), (&b, "desk-b", 100)] {
        desk.write(|tx| {
            for serial in from..from + 50 {
                let mut row = support::label(&format!("lbl-{serial}"), "acct-1", serial, "2026-11-24", serial as i64);
                if serial == 7 {
                    row.search_text.push_str(" 100%_Cotton");
                }
                let c = &mut Tx::Postgres { client: tx, desk: name };
                labels::insert(c, &row).map_err(support::refused)?;
                tracking::register(
                    c,
                    Env::Live,
                    "yodel",
                    &format!("JD{serial:012}"),
                    &format!("lbl-{serial}"),
                )?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
    }
    let search = |s: &str, after: Option<&Cursor>| -> Vec<String> {
        let f = labels::LabelFilter {
            search: Some(s.into()),
            created_at_max: i64::MAX,
            ..Default::default()
        };
        a.read(|client| {
            labels::list(&mut Tx::Postgres { client, desk: "desk-a" }, Env::Live, &f, 3, after).map(|l| l.rows)
        })
        .unwrap()
        .into_iter()
        .map(|l| l.id)
        .collect()
    };
    assert_eq!(
        search("jd000000000120", None),
        vec!["lbl-120"],
        "desk B's label, found at desk A, any case"
    );
    assert_eq!(
        search("REF-14", None),
        vec!["lbl-149", "lbl-148", "lbl-147", "lbl-146"],
        "newest first, limit + 1"
    );
    let cursor = Cursor {
        created_at: 147,
        id: "lbl-147".into(),
    };
    assert_eq!(
        search("ref-14", Some(&cursor)),
        vec!["lbl-146", "lbl-145", "lbl-144", "lbl-143"]
    );
    assert_eq!(search("0%_c", None), vec!["lbl-7"], "wildcards are taken literally");
    assert!(search("0%c", None).is_empty());
    let by_number = labels::LabelFilter {
        tracking_numbers: vec!["JD000000000003".into(), "JD000000000104".into()],
        created_at_max: i64::MAX,
        ..Default::default()
    };
    let found: Vec<String> = b
        .read(|client| {
            labels::list(
                &mut Tx::Postgres { client, desk: "desk-b" },
                Env::Live,
                &by_number,
                10,
                None,
            )
            .map(|l| l.rows)
        })
        .unwrap()
        .into_iter()
        .map(|l| l.id)
        .collect();
    assert_eq!(found, vec!["lbl-104", "lbl-3"]);

    // Orders: every word starts a word of the order.
    for (i, text) in [(1, "so-1001 Jane Doe M1 1AE"), (2, "so-1002 Hans Müller 10115 (gift)")] {
        let o = orders::OrderRow {
            id: format!("order-{i}"),
            env: Env::Live,
            order_number: format!("SO-100{i}"),
            status: OrderStatus::Open,
            record: "{}".into(),
            created_at: i,
            updated_at: i,
        };
        a.write(|client| orders::put(&mut Tx::Postgres { client, desk: "desk-a" }, &o, text))
            .unwrap();
    }
    let orders_found = |s: &str| -> Vec<String> {
        let f = orders::OrderFilter {
            search: Some(s.into()),
            ..Default::default()
        };
        b.read(|client| orders::list(&mut Tx::Postgres { client, desk: "desk-b" }, Env::Live, &f, 10, None))
            .unwrap()
            .into_iter()
            .map(|o| o.id)
            .collect()
    };
    assert_eq!(orders_found("so-100"), vec!["order-2", "order-1"]);
    assert_eq!(orders_found("MÜLLER"), vec!["order-2"], "any case, any script");
    assert_eq!(orders_found("jane m1"), vec!["order-1"]);
    assert!(
        orders_found("doe 10115").is_empty(),
        "words of two orders are not one order"
    );
    assert!(orders_found("ane").is_empty(), "the start of a word, not its middle");
    assert_eq!(orders_found("(gift"), vec!["order-2"], "signs are taken literally");

    // The same order number at two desks for one account: the second is refused.
    let numbered = |id: &str| labels::LabelRow {
        order_number: Some("SO-1001".into()),
        ..support::label(id, "acct-1", 999, "2026-11-24", 999)
    };
    let insert = |desk: &PgStore, name: &str, id: &str| {
        desk.write(|client| {
            let c = &mut Tx::Postgres { client, desk: name };
            Ok::<_, StoreError>(labels::insert(c, &numbered(id)))
        })
        .unwrap()
    };
    insert(&a, "desk-a", "lbl-x").unwrap();
    let again = insert(&b, "desk-b", "lbl-y");
    assert!(
        matches!(again, Err(labels::InsertError::DuplicateOrderNumber)),
        "{again:?}"
    );
}

#[test]
fn one_desk_sends_the_webhooks_at_a_time_and_another_takes_over_when_it_is_gone() {
    use packdesk_store::db::Tx;
    use packdesk_store::webhooks::{self, DISPATCHER_LOCK};
    let url = database();
    let (a, b) = (PgStore::open(&url).unwrap(), PgStore::open(&url).unwrap());
    let mut held = a
        .try_session_lock(DISPATCHER_LOCK)
        .unwrap()
        .expect("the first desk sends");
    assert!(held.held());
    assert!(
        b.try_session_lock(DISPATCHER_LOCK).unwrap().is_none(),
        "a second desk does not send the same deliveries"
    );

    // Deliveries any desk queued are due for whichever desk sends (while the webhook is on).
    a.write(|client| {
        let c = &mut Tx::Postgres { client, desk: "desk-a" };
        let on = webhooks::WebhookSetting {
            url: "http://127.0.0.1:9/hook".into(),
            enabled: true,
            updated_at: 1,
        };
        webhooks::set_setting(c, Env::Live, &on)?;
        for i in 0..3 {
            webhooks::insert_delivery(
                c,
                &webhooks::DeliveryRow {
                    id: format!("delivery-{i}"),
                    env: Env::Live,
                    event: WebhookEvent::CreateALabel,
                    record_id: format!("lbl-{i}"),
                    url: "http://127.0.0.1:9/hook".into(),
                    body: "{}".into(),
                    status: DeliveryStatus::Pending,
                    attempts: 0,
                    round_failures: 0,
                    next_attempt_at: Some(100 + i),
                    created_at: 100 + i,
                    updated_at: 100 + i,
                },
            )?;
        }
        Ok::<_, StoreError>(())
    })
    .unwrap();

    // The sending desk dies (its backend ends, as when the desk is killed or its network drops);
    // only this test's database: the other tests share the cluster.
    b.read(|c| {
        c.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted
             AND pid <> pg_backend_pid() AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            &[],
        )?;
        Ok::<_, StoreError>(())
    })
    .unwrap();
    let mut taken = None;
    for _ in 0..50 {
        taken = b.try_session_lock(DISPATCHER_LOCK).unwrap();
        if taken.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let mut taken = taken.expect("another desk takes over the sending");
    assert!(taken.held());
    assert!(
        !held.held(),
        "the desk that lost its connection knows it no longer sends"
    );

    let due = b
        .read(|client| webhooks::due(&mut Tx::Postgres { client, desk: "desk-b" }, 101, 10))
        .unwrap();
    assert_eq!(
        due.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(),
        vec!["delivery-0", "delivery-1"],
        "the most overdue first, none not yet due"
    );
    b.write(|client| {
        let c = &mut Tx::Postgres { client, desk: "desk-b" };
        let mut d = due[0].clone();
        d.status = DeliveryStatus::Delivered;
        d.attempts = 1;
        d.next_attempt_at = None;
        webhooks::update_delivery(c, &d)?;
        webhooks::insert_attempt(
            c,
            &webhooks::AttemptRow {
                delivery_id: d.id.clone(),
                attempt: 0,
                at: 101,
                url: d.url.clone(),
                status_code: Some(200),
                error: None,
                duration_us: 1200,
            },
        )
    })
    .unwrap();
    let due = a
        .read(|client| webhooks::due(&mut Tx::Postgres { client, desk: "desk-a" }, 1_000, 10))
        .unwrap();
    assert_eq!(due.len(), 2, "a delivered one is not sent again");
    let attempts = a
        .read(|client| webhooks::attempts(&mut Tx::Postgres { client, desk: "desk-a" }, "delivery-0"))
        .unwrap();
    assert_eq!(attempts.len(), 1);
    assert_eq!(attempts[0].status_code, Some(200));
}

#[test]
fn each_desk_prints_its_own_printers_jobs_once_and_every_desk_sees_every_job() {
    use packdesk_store::printing::{self, JobFilter, PrintJobRow, PrinterRow, ProfileRow};
    let url = database();
    let desks: Vec<Arc<PgStore>> = (0..2).map(|_| Arc::new(PgStore::open(&url).unwrap())).collect();
    for (d, desk) in desks.iter().enumerate() {
        let printer = PrinterRow {
            id: format!("printer-{d}"),
            name: "Zebra".into(),
            transport: PrinterTransport::Raw,
            address: "127.0.0.1:9100".into(),
            format: PrinterFormat::Zpl,
            dpi: 203,
            strip_zpl_setup: false,
            created_at: 1,
            updated_at: 1,
        };
        let profile = ProfileRow {
            document_type: DocumentType::Label,
            printer_id: printer.id.clone(),
            stock: "4x6".into(),
            copies: 1,
            auto_print: true,
            updated_at: 1,
        };
        let name = format!("desk-{d}");
        desk.write(|client| {
            let c = &mut Tx::Postgres { client, desk: &name };
            printing::put_printer(c, &printer)?;
            printing::put_profile(c, &profile)
        })
        .unwrap();
    }
    // Both desks have a printer of the same name and a label profile; each sees its own.
    let profile_of = |d: usize| {
        desks[0]
            .read(|client| {
                printing::profile(
                    &mut Tx::Postgres {
                        client,
                        desk: &format!("desk-{d}"),
                    },
                    DocumentType::Label,
                )
            })
            .unwrap()
            .unwrap()
            .printer_id
    };
    assert_eq!((profile_of(0), profile_of(1)), ("printer-0".into(), "printer-1".into()));
    assert_eq!(
        desks[1]
            .read(|client| printing::printers(&mut Tx::Postgres { client, desk: "desk-1" }))
            .unwrap()
            .len(),
        1
    );

    // 100 labels made through the API at desk 0, half for each desk's printer.
    desks[0]
        .write(|client| {
            let c = &mut Tx::Postgres { client, desk: "desk-0" };
            for i in 0..100i64 {
                let d = i % 2;
                let job = PrintJobRow {
                    id: format!("job-{i:03}"),
                    env: Env::Live,
                    printer_id: format!("printer-{d}"),
                    document_type: DocumentType::Label,
                    owner_id: format!("lbl-{i}"),
                    file_id: format!("file-{i}"),
                    copies: 1,
                    stock: "4x6".into(),
                    status: PrintJobStatus::Queued,
                    error: None,
                    attempts: 0,
                    bytes_sent: None,
                    reference: None,
                    created_at: i,
                    updated_at: i,
                    printed_at: None,
                    operator: None,
                };
                printing::put_job(c, &job)?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
    assert_eq!(
        desks[1]
            .read(|client| printing::waiting_jobs(&mut Tx::Postgres { client, desk: "desk-1" }))
            .unwrap(),
        50
    );

    // Each desk's print worker (one per desk, as the service runs it) takes its desk's queued
    // jobs 5 at a time and marks them printing, slowly, both desks at once.
    let workers: Vec<_> = (0..2)
        .map(|d| {
            let desk = desks[d].clone();
            std::thread::spawn(move || {
                let mut sent = Vec::new();
                loop {
                    let taken = desk
                        .write(|client| {
                            let c = &mut Tx::Postgres {
                                client,
                                desk: &format!("desk-{d}"),
                            };
                            let mut jobs = printing::jobs_in(c, PrintJobStatus::Queued, 5)?;
                            for j in &mut jobs {
                                j.status = PrintJobStatus::Printing;
                                j.updated_at = 200;
                                printing::put_job(c, j)?;
                            }
                            std::thread::sleep(std::time::Duration::from_millis(5));
                            Ok::<_, StoreError>(jobs)
                        })
                        .unwrap();
                    if taken.is_empty() {
                        return (d, sent);
                    }
                    sent.extend(taken.into_iter().map(|j| (j.id, j.printer_id)));
                }
            })
        })
        .collect();
    let mut seen = HashSet::new();
    for w in workers {
        let (d, sent) = w.join().unwrap();
        for (id, printer) in sent {
            assert_eq!(
                printer,
                format!("printer-{d}"),
                "desk {d} printed another desk's job {id}"
            );
            assert!(seen.insert(id.clone()), "{id} was printed twice");
        }
    }
    assert_eq!(seen.len(), 100, "every job was printed");
    let all = JobFilter {
        created_at_max: i64::MAX,
        ..Default::default()
    };
    let listed = desks[1]
        .read(|client| printing::list_jobs(&mut Tx::Postgres { client, desk: "desk-1" }, Env::Live, &all, 200, None))
        .unwrap();
    assert_eq!(listed.len(), 100, "every desk sees every desk's jobs");
    assert_eq!(
        desks[0]
            .read(|client| printing::backlog(&mut Tx::Postgres { client, desk: "desk-0" }, "printer-0"))
            .unwrap(),
        (50, 0, None),
        "printing, not yet printed"
    );
}

/// A label record long enough to be deflated in SQLite (`StoredJson`).
fn long_record(i: u64) -> String {
    format!(
        "{{\"id\":\"lbl-{i}\",\"tracking_numbers\":[\"JD{:012}\"],\"references\":[{}]}}",
        1_000 + i,
        ["\"ref\""; 40].join(",")
    )
}

/// `packdesk-server migrate`'s copy: a desk's SQLite file moves into an empty shared database
/// whole (found there as the desk left it, searchable, its jobs claimable); a desk with other API
/// keys is refused and nothing is written.
#[test]
fn a_desk_moves_into_the_shared_database_whole_and_another_key_set_is_refused_untouched() {
    use packdesk_store::{copy, db::Tx, jobs, keys, labels, orders, printing, tracking, Store};
    let dir = tempfile::tempdir().unwrap();
    let lite = Store::open(&dir.path().join("packdesk.sqlite3")).unwrap();
    let key = |hash: u8| keys::KeyRow {
        env: Env::Live,
        key_hash: vec![hash],
        key_sealed: vec![7, 7],
        created_at: 1,
    };
    let account = support::account_row("acct-1");
    lite.write(|c| {
        keys::put(&mut Tx::Sqlite(c), &key(1))?;
        packdesk_store::meta::set(&mut Tx::Sqlite(c), "file_link_key", "k3y")?;
        packdesk_store::accounts::insert(&mut Tx::Sqlite(c), &account)?;
        let tx = &mut Tx::Sqlite(c);
        tracking::advance(tx, "acct-1/pool", 1_120)?;
        for i in 0..120u64 {
            let mut label = support::label(&format!("lbl-{i}"), "acct-1", 1_000 + i, "2026-11-24", i as i64);
            label.record = long_record(i).into();
            labels::insert(tx, &label).map_err(support::refused)?;
            tracking::register(
                tx,
                Env::Live,
                "yodel",
                &format!("JD{:012}", 1_000 + i),
                &format!("lbl-{i}"),
            )?;
        }
        let order = orders::OrderRow {
            id: "order-1".into(),
            env: Env::Live,
            order_number: "SO-1001".into(),
            status: OrderStatus::Open,
            record: "{}".into(),
            created_at: 5,
            updated_at: 5,
        };
        orders::put(&mut Tx::Sqlite(c), &order, "SO-1001 Jane Doe Leeds")?;
        let t = &mut packdesk_store::db::Tx::Sqlite(c);
        jobs::insert(t, "job-1", Env::Live, JobKind::Label, "acct-1", "{}", 10, None)?;
        jobs::insert(t, "job-2", Env::Live, JobKind::Label, "acct-1", "{}", 11, None)?;
        jobs::finish(t, "job-1", 12)?;
        let printer = support::zebra_printer();
        printing::put_printer(&mut Tx::Sqlite(c), &printer)?;
        printing::put_profile(
            &mut Tx::Sqlite(c),
            &printing::ProfileRow {
                document_type: DocumentType::Label,
                printer_id: "printer-1".into(),
                stock: "4x6".into(),
                copies: 2,
                auto_print: true,
                updated_at: 1,
            },
        )?;
        Ok::<_, StoreError>(())
    })
    .unwrap();
    lite.write(|c| labels::catch_up_words(&mut Tx::Sqlite(c), 1_000))
        .unwrap();

    let kept: String = lite
        .read(|c| {
            c.query_row("SELECT typeof(record) FROM labels WHERE id = 'lbl-117'", [], |r| {
                r.get(0)
            })
            .map_err(StoreError::from)
        })
        .unwrap();
    assert_eq!(kept, "blob");
    let url = database();
    let shared = PgStore::open(&url).unwrap();
    let report = copy::sqlite_to_postgres(&lite, &shared, "desk-a").unwrap();
    assert_eq!(report.copied("labels"), 120);
    assert_eq!(report.copied("tracking_numbers"), 120);
    assert_eq!(report.copied("jobs"), 2);
    assert_eq!(
        report.copied("meta"),
        1,
        "the file link key; not SQLite's own bookkeeping"
    );

    // Another desk of the warehouse sees the moved desk's data.
    let other = PgStore::open(&url).unwrap();
    let found = other
        .read(|client| {
            let f = labels::LabelFilter {
                search: Some("jd000000001117".into()),
                created_at_max: i64::MAX,
                ..Default::default()
            };
            labels::list(&mut Tx::Postgres { client, desk: "desk-b" }, Env::Live, &f, 10, None).map(|l| l.rows)
        })
        .unwrap();
    assert_eq!(found.iter().map(|l| l.id.as_str()).collect::<Vec<_>>(), vec!["lbl-117"]);
    assert_eq!(
        other
            .read(|client| labels::desk_of(&mut Tx::Postgres { client, desk: "desk-b" }, "lbl-117"))
            .unwrap()
            .as_deref(),
        Some("desk-a")
    );
    // The record, deflated in the desk's file, is text in the shared database.
    let record: Option<String> = other
        .read(|client| {
            client
                .query_opt("SELECT record FROM labels WHERE id = 'lbl-117'", &[])
                .map(|r| r.map(|r| r.get(0)))
                .map_err(StoreError::from)
        })
        .unwrap();
    assert_eq!(record.as_deref(), Some(long_record(117).as_str()));
    let by_word = other
        .read(|client| {
            let f = orders::OrderFilter {
                search: Some("jane lee".into()),
                ..Default::default()
            };
            orders::list(&mut Tx::Postgres { client, desk: "desk-b" }, Env::Live, &f, 10, None)
        })
        .unwrap();
    assert_eq!(by_word.len(), 1, "orders are found by the words they had");
    assert_eq!(
        other
            .read(|client| tracking::counter(&mut Tx::Postgres { client, desk: "desk-b" }, "acct-1/pool"))
            .unwrap(),
        Some(1_120),
        "the range goes on after the desk's last number"
    );
    assert!(
        !other
            .write(|client| {
                let c = &mut Tx::Postgres { client, desk: "desk-b" };
                tracking::register(c, Env::Live, "yodel", "JD000000001000", "lbl-new")
            })
            .unwrap(),
        "a number the desk issued is issued"
    );
    let claimed = other
        .write(|client| {
            jobs::claim(
                &mut packdesk_store::db::Tx::Postgres { client, desk: "desk-b" },
                now_us(),
                60_000_000,
            )
        })
        .unwrap()
        .expect("the desk's queued job");
    assert_eq!(claimed.id, "job-2", "the finished one is not run again");
    other
        .write(|client| {
            let c = &mut packdesk_store::db::Tx::Postgres { client, desk: "desk-b" };
            jobs::insert(c, "job-3", Env::Live, JobKind::Label, "acct-1", "{}", 13, None)
        })
        .unwrap();
    assert_eq!(
        other
            .read(|client| printing::profile(&mut Tx::Postgres { client, desk: "desk-a" }, DocumentType::Label))
            .unwrap()
            .map(|p| p.copies),
        Some(2),
        "the desk's printers and profiles stay its own"
    );
    assert!(other
        .read(|client| printing::profiles(&mut Tx::Postgres { client, desk: "desk-b" }))
        .unwrap()
        .is_empty());
    assert_eq!(
        other
            .read(|client| packdesk_store::meta::get(&mut Tx::Postgres { client, desk: "desk-b" }, "file_link_key"))
            .unwrap()
            .as_deref(),
        Some("k3y")
    );

    // Moving the same desk in again adds nothing and loses nothing.
    let again = copy::sqlite_to_postgres(&lite, &shared, "desk-a").unwrap();
    assert_eq!((again.copied("labels"), again.skipped("labels")), (0, 120));

    // A desk with its own keys is refused, and nothing of it is written.
    let dir2 = tempfile::tempdir().unwrap();
    let stranger = Store::open(&dir2.path().join("packdesk.sqlite3")).unwrap();
    stranger
        .write(|c| {
            keys::put(&mut Tx::Sqlite(c), &key(2))?;
            packdesk_store::meta::set(&mut Tx::Sqlite(c), "stranger", "1")
        })
        .unwrap();
    let refused = copy::sqlite_to_postgres(&stranger, &shared, "desk-c").unwrap_err();
    assert!(refused.details[0].info.contains("other API keys"), "{refused:?}");
    assert_eq!(
        shared
            .read(|client| packdesk_store::meta::get(&mut Tx::Postgres { client, desk: "desk-a" }, "stranger"))
            .unwrap(),
        None
    );
    assert_eq!(
        shared
            .read(|client| keys::all(&mut Tx::Postgres { client, desk: "desk-a" }))
            .unwrap()[0]
            .key_hash,
        vec![1]
    );
}

/// What a desk sees when the database drops its connections (PostgreSQL restarted, the network
/// blinked): the next writes and reads go through on new connections, and a write cut off half-way
/// leaves nothing of itself and answers an error worth a retry.
#[test]
fn a_desk_whose_connections_the_database_dropped_goes_on_and_a_cut_write_leaves_nothing() {
    use packdesk_store::labels;
    let url = database();
    let (desk, admin) = (Arc::new(PgStore::open(&url).unwrap()), PgStore::open(&url).unwrap());
    support::account(&desk, "acct-1");
    // The desk keeps a few connections in its pool.
    let busy: Vec<_> = (0..4)
        .map(|i| {
            let desk = desk.clone();
            std::thread::spawn(move || {
                desk.write(|client| {
                    labels::insert(
                        &mut Tx::Postgres { client, desk: "desk-a" },
                        &support::label(&format!("lbl-{i}"), "acct-1", i, "2026-11-24", 1),
                    )
                    .map_err(support::refused)?;
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    Ok::<_, StoreError>(())
                })
                .unwrap()
            })
        })
        .collect();
    busy.into_iter().for_each(|b| b.join().unwrap());
    let drop_the_desk = || {
        admin
            .read(|c| {
                c.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                     WHERE datname = current_database() AND pid <> pg_backend_pid()",
                    &[],
                )?;
                Ok::<_, StoreError>(())
            })
            .unwrap()
    };
    drop_the_desk();
    std::thread::sleep(std::time::Duration::from_millis(100));
    for i in 10..14 {
        desk.write(|client| {
            labels::insert(
                &mut Tx::Postgres { client, desk: "desk-a" },
                &support::label(&format!("lbl-{i}"), "acct-1", i, "2026-11-24", 1),
            )
            .map_err(support::refused)
        })
        .expect("a write after the drop goes through");
    }
    drop_the_desk();
    std::thread::sleep(std::time::Duration::from_millis(2_100));
    assert!(
        desk.read(|client| labels::get(&mut Tx::Postgres { client, desk: "desk-a" }, Env::Live, "lbl-13"))
            .unwrap()
            .is_some(),
        "a read after the drop goes through"
    );

    // The connection is cut while a label is half-written.
    let cut = desk
        .write(|tx| {
            let c = &mut Tx::Postgres {
                client: &mut *tx,
                desk: "desk-a",
            };
            labels::insert(c, &support::label("lbl-half", "acct-1", 99, "2026-11-24", 1)).map_err(support::refused)?;
            drop_the_desk();
            std::thread::sleep(std::time::Duration::from_millis(100));
            tx.execute("UPDATE labels SET status = 'created' WHERE id = 'lbl-half'", &[])?;
            Ok::<_, StoreError>(())
        })
        .map_err(packdesk_model::ServiceError::from)
        .expect_err("the cut write fails");
    assert_eq!(cut.code, packdesk_model::ErrorCode::InternalRetry, "{cut:?}");
    assert!(
        admin
            .read(|client| labels::get(&mut Tx::Postgres { client, desk: "desk-a" }, Env::Live, "lbl-half"))
            .unwrap()
            .is_none(),
        "nothing of it was kept"
    );
    assert!(desk
        .read(|client| labels::get(&mut Tx::Postgres { client, desk: "desk-a" }, Env::Live, "lbl-0"))
        .unwrap()
        .is_some());
}

/// The statements PostgreSQL keeps prepared on the connection `c` (its own view of them).
fn prepared_statements(c: &mut postgres::Client) -> Vec<String> {
    c.query("SELECT statement FROM pg_prepared_statements ORDER BY statement", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

#[test]
fn a_pooled_connection_prepares_each_statement_once_and_a_panic_mid_write_leaves_nothing_behind() {
    use packdesk_store::{accounts, labels};
    let desk = PgStore::open(&database()).unwrap();
    support::account(&desk, "acct-1");
    // One connection in the pool: every call below runs on it.
    let mut rounds = Vec::new();
    for i in 0..5 {
        let seen = desk
            .write(|tx| {
                assert!(accounts::get(
                    &mut Tx::Postgres {
                        client: &mut *tx,
                        desk: "desk-a"
                    },
                    Env::Live,
                    "acct-1"
                )?
                .is_some());
                labels::insert(
                    &mut Tx::Postgres {
                        client: &mut *tx,
                        desk: "desk-a",
                    },
                    &support::label(&format!("lbl-{i}"), "acct-1", i, "2026-11-25", 1),
                )
                .map_err(support::refused)?;
                Ok::<_, StoreError>(prepared_statements(tx))
            })
            .unwrap();
        rounds.push(seen);
    }
    // The account read and the label insert were prepared by the first write and used again by
    // the four after it: PostgreSQL holds the same two statements, not ten.
    let ours = |s: &Vec<String>| {
        s.iter()
            .filter(|q| q.contains("FROM shipper_accounts") || q.contains("INSERT INTO labels"))
            .count()
    };
    assert_eq!(ours(&rounds[0]), 2, "{:?}", rounds[0]);
    assert!(rounds.iter().all(|r| r == &rounds[0]), "{rounds:?}");
    // A write that panics midway rolls back, and the next one on this thread still finds its
    // connection's statements (or prepares them anew): nothing stale is left behind.
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = desk.write(|client| {
            let c = &mut Tx::Postgres { client, desk: "desk-a" };
            labels::insert(c, &support::label("lbl-x", "acct-1", 9, "2026-11-25", 1)).map_err(support::refused)?;
            if true {
                panic!("the desk's code failed mid-write");
            }
            Ok::<_, StoreError>(())
        });
    }));
    assert!(panicked.is_err());
    let after = desk
        .write(|client| {
            let c = &mut Tx::Postgres { client, desk: "desk-a" };
            labels::insert(c, &support::label("lbl-y", "acct-1", 10, "2026-11-25", 1)).map_err(support::refused)?;
            Ok::<_, StoreError>(labels::get(c, Env::Live, "lbl-x")?.is_none())
        })
        .unwrap();
    assert!(after, "the panicked write's label was kept");
}

/// Whether the store's connection is encrypted, as the server sees it.
fn encrypted(store: &PgStore) -> bool {
    store
        .write(|c| {
            let row = c.query_one("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", &[])?;
            Ok::<bool, StoreError>(row.get(0))
        })
        .unwrap()
}

#[test]
fn tls_to_the_shared_database_checks_its_certificate_as_sslmode_says() {
    // The cluster serves TLS with a certificate for 127.0.0.1 signed by the run's own CA.
    let ca = std::env::var("PACKDESK_TEST_POSTGRES_CA")
        .expect("PACKDESK_TEST_POSTGRES_CA: start the cluster with tests/postgres.sh");
    let url = database();
    let by_name = |host: &str, query: &str| {
        let at = url.replacen("127.0.0.1", host, 1);
        format!("{at}?{query}")
    };

    // verify-full by the name the certificate carries: encrypted, checked.
    let full = PgStore::open(&by_name("127.0.0.1", &format!("sslmode=verify-full&sslrootcert={ca}"))).unwrap();
    assert!(encrypted(&full));
    // The default (prefer) encrypts where the server offers it, as libpq; disable does not.
    assert!(encrypted(&PgStore::open(&url).unwrap()));
    assert!(!encrypted(
        &PgStore::open(&by_name("127.0.0.1", "sslmode=disable")).unwrap()
    ));

    // verify-full by a name the certificate does not carry: refused, in words.
    let e = PgStore::open(&by_name("localhost", &format!("sslmode=verify-full&sslrootcert={ca}")))
        .err()
        .expect("a host the certificate does not name is refused");
    let said = e.details[0].info.clone();
    assert!(said.contains("does not name the host"), "{said}");
    // verify-ca checks the chain only: the same name is taken.
    assert!(encrypted(
        &PgStore::open(&by_name("localhost", &format!("sslmode=verify-ca&sslrootcert={ca}"))).unwrap()
    ));
    // A CA it was not signed by: refused, saying which file to give.
    let e = PgStore::open(&by_name(
        "127.0.0.1",
        "sslmode=verify-full&sslrootcert=/etc/ssl/certs/ca-certificates.crt",
    ))
    .err()
    .expect("a certificate of another CA is refused");
    let said = e.details[0].info.clone();
    assert!(said.contains("not signed by the CA this desk trusts"), "{said}");
}
