//! The shared store on a real PostgreSQL (issue 16): the cluster of `tests/postgres.sh`, whose
//! address is PACKDESK_TEST_POSTGRES (`.ci/test` starts it before `cargo test`); each case makes a
//! database of its own. Several `PgStore`s on one database stand for several desks.

use packdesk_model::status::{
    AccountStatus, DeliveryStatus, DocumentType, Env, FileKind, JobKind, LabelStatus, OrderStatus, PrintJobStatus,
    PrinterFormat, PrinterTransport, WebhookEvent,
};
use packdesk_store::db::Tx;
use packdesk_store::pg::{self, PgStore};
use packdesk_store::{tracking, StoreError};
use std::collections::HashSet;
use std::sync::Arc;

mod support;

/// Runs one step on SQLite and on the shared database (`$both`: the two stores); their answers
/// (Debug text) must agree. Answers SQLite's. `|c| step` runs the one store function on each
/// (`c`: the `Tx`); the four-part form gives each database its own expression.
macro_rules! same {
    ($both:ident, $what:literal, |$c:ident| $step:expr) => {{
        let a = $both
            .0
            .write(|conn| {
                let $c = &mut packdesk_store::db::Tx::Sqlite(conn);
                Ok::<_, StoreError>(format!("{:?}", $step))
            })
            .unwrap();
        let b = $both
            .1
            .write(|client| {
                let $c = &mut packdesk_store::db::Tx::Postgres { client, desk: "desk-a" };
                Ok::<_, StoreError>(format!("{:?}", $step))
            })
            .unwrap();
        assert_eq!(a, b, "{}", $what);
        a
    }};
    ($both:ident, $what:literal, |$l:ident| $lite:expr, |$p:ident| $pg:expr) => {{
        let a = $both.0.write(|$l| Ok::<_, StoreError>(format!("{:?}", $lite))).unwrap();
        let b = $both.1.write(|$p| Ok::<_, StoreError>(format!("{:?}", $pg))).unwrap();
        assert_eq!(a, b, "{}", $what);
        a
    }};
}

fn database() -> String {
    pg::scratch_database(&support::cluster(), "store").unwrap()
}

#[test]
fn an_empty_database_gets_the_whole_schema_once_and_a_newer_one_is_left_untouched() {
    let url = database();
    let desk = PgStore::open(&url).unwrap();
    assert_eq!(desk.read(pg::version).unwrap(), packdesk_store::migrations::LATEST);
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
        a.read(|client| labels::list(&mut Tx::Postgres { client, desk: "desk-a" }, Env::Live, &f, 3, after))
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

/// The same calls on SQLite and on the shared database answer the same (keys, meta, idempotency,
/// records, files, presets, batches): the service may take either.
#[test]
fn every_table_answers_the_same_on_sqlite_and_on_the_shared_database() {
    use packdesk_model::status::ManifestStatus;
    use packdesk_store::records::{Kind, RecordFilter, RecordRow, RecordStatus};
    use packdesk_store::{batches, files, idempotency, keys, presets, records};
    let (_dir, lite, shared) = sqlite_and_shared();
    let both = (&lite, &shared);

    let key = keys::KeyRow {
        env: Env::Live,
        key_hash: vec![1, 2],
        key_sealed: vec![3, 4, 5],
        created_at: 10,
    };
    same!(both, "no key yet", |c| keys::any_sealed(c)?);
    same!(both, "a key", |c| keys::put(c, &key)?);
    let rotated = keys::KeyRow {
        key_hash: vec![9],
        created_at: 11,
        ..key.clone()
    };
    same!(both, "rotated", |c| keys::put(c, &rotated)?);
    let listed = same!(both, "the keys", |c| keys::all(c)?);
    assert!(listed.contains("[9]") && !listed.contains("[1, 2]"), "{listed}");
    same!(both, "sealed", |c| keys::any_sealed(c)?);

    same!(both, "meta first", |c| packdesk_store::meta::init(c, "link_key", "a")?);
    same!(both, "meta kept", |c| packdesk_store::meta::init(c, "link_key", "b")?);
    same!(both, "meta set", |c| packdesk_store::meta::set(c, "link_key", "c")?);
    same!(both, "meta read", |c| packdesk_store::meta::get(c, "link_key")?);

    same!(both, "a key taken", |c| idempotency::reserve(
        c,
        Env::Live,
        "k1",
        b"hash",
        5
    )?);
    same!(both, "while it runs", |c| idempotency::get(c, Env::Live, "k1")?);
    let second = same!(both, "taken already", |c| idempotency::reserve(
        c,
        Env::Live,
        "k1",
        b"hash",
        6
    )?);
    assert_eq!(second, "false", "a key taken is not taken twice");
    let taken_over = same!(both, "taken over once", |c| (
        idempotency::take_over(c, Env::Live, "k1", b"hash", 5, 7)?,
        idempotency::take_over(c, Env::Live, "k1", b"hash", 5, 8)?
    ));
    assert_eq!(taken_over, "(true, false)", "a key given up on is taken over once");
    same!(both, "answered", |c| idempotency::finish(
        c,
        Env::Live,
        "k1",
        201,
        "{\"id\":1}"
    )?);
    let answered = same!(both, "the answer", |c| idempotency::get(c, Env::Live, "k1")?);
    assert!(answered.contains("201"), "{answered}");
    same!(both, "purged", |c| idempotency::purge(c, 6)?);

    for i in 0..5i64 {
        let r = RecordRow {
            id: format!("rec-{i}"),
            env: Env::Live,
            shipper_account_id: (i % 2 == 0).then(|| "acct-1".to_string()),
            status: RecordStatus::Manifest(ManifestStatus::Manifested),
            record: format!("{{\"n\":{i}}}"),
            created_at: 100 + i,
            updated_at: 100 + i,
        };
        same!(both, "a manifest", |c| records::insert(c, &r)?);
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
    same!(both, "replaced", |c| records::put(c, &done)?);
    let f = RecordFilter {
        shipper_account_id: Some("acct-1".into()),
        created_at_max: i64::MAX,
        ..Default::default()
    };
    let page = same!(both, "a page", |c| {
        records::list(c, Kind::Manifest, Env::Live, &f, 1, None)?
    });
    assert!(
        page.contains("rec-4") && page.contains("rec-2") && !page.contains("rec-0"),
        "{page}"
    );
    let all = RecordFilter {
        created_at_max: i64::MAX,
        status: Some("failed".into()),
        ..Default::default()
    };
    let failed = same!(both, "by status", |c| {
        records::list(c, Kind::Manifest, Env::Live, &all, 10, None)?
    });
    assert!(
        failed.contains("created_at: 101"),
        "the first created_at stays: {failed}"
    );

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
    same!(both, "a file", |c| files::insert(c, &file)?);
    same!(both, "by owner", |c| files::of_owner_as(
        c,
        Env::Live,
        "rec-0",
        FileKind::Manifest,
        "csv"
    )?);
    same!(both, "not as pdf", |c| files::of_owner_as(
        c,
        Env::Live,
        "rec-0",
        FileKind::Manifest,
        "pdf"
    )?);
    same!(both, "any type", |c| files::of_owner(
        c,
        Env::Live,
        "rec-0",
        FileKind::Manifest
    )?);
    same!(both, "by id", |c| files::get_by_id(c, "file-1")?);
    same!(both, "other env", |c| files::get(c, Env::Sandbox, "file-1")?);

    let preset = |id: &str, name: &str| presets::PresetRow {
        id: id.into(),
        env: Env::Live,
        name: name.into(),
        record: "{}".into(),
        created_at: 1,
    };
    let (a, b, b_as_a) = (
        preset("p-1", "Small box"),
        preset("p-2", "Pallet"),
        preset("p-2", "Small box"),
    );
    same!(both, "a preset", |c| presets::put(c, &a)?);
    same!(both, "another", |c| presets::put(c, &b)?);
    let refused = same!(both, "a name taken", |c| presets::put(c, &b_as_a)?);
    assert_eq!(refused, "false");
    same!(both, "the presets", |c| presets::list(c, Env::Live)?);
    same!(both, "deleted", |c| presets::delete(c, Env::Live, "p-1")?);
    same!(both, "gone", |c| presets::get(c, Env::Live, "p-1")?);

    let orders = vec![
        ("order-1".to_string(), "SO-1".to_string()),
        ("order-2".to_string(), "SO-2".to_string()),
    ];
    same!(both, "a batch", |c| batches::insert(
        c,
        "batch-1",
        Env::Live,
        &orders,
        3
    )?);
    let shipped = batches::Outcome {
        status: packdesk_model::status::BatchOrderStatus::Shipped,
        label_id: Some("lbl-1"),
        tracking_numbers: "JD1 JD2",
        info: None,
    };
    same!(both, "a result", |c| batches::set_result(c, "batch-1", 1, shipped, 4)?);
    let rows = same!(both, "the batch", |c| batches::orders(c, "batch-1")?);
    assert!(
        rows.contains("position: 1, order_id: \"order-2\"") && rows.contains("JD1 JD2"),
        "{rows}"
    );
    same!(both, "its time", |c| batches::created_at(c, Env::Live, "batch-1")?);
}

/// Orders answer the same on both backends: read, locked, found by their words (SQLite's word
/// index, PostgreSQL's trigram search), paged, and linked to the label that ships them.
#[test]
fn orders_answer_the_same_on_sqlite_and_on_the_shared_database() {
    use packdesk_store::orders::{self, OrderFilter, OrderRow};
    use packdesk_store::paging::Cursor;
    let (_dir, lite, shared) = sqlite_and_shared();
    let both = (&lite, &shared);

    let order = |i: i64, status: OrderStatus| OrderRow {
        id: format!("order-{i}"),
        env: Env::Live,
        order_number: format!("SO-100{i}"),
        status,
        record: format!("{{\"n\":{i}}}"),
        created_at: i,
        updated_at: i,
    };
    same!(both, "numbers locked", |c| orders::lock_numbers(
        c,
        Env::Live,
        &["SO-1001", "SO-1002", "SO-1001"]
    )?);
    same!(both, "saved", |c| {
        orders::put(c, &order(1, OrderStatus::Open), "SO-1001 Jane Doe M1 1AE MUG-RED")?;
        orders::put(c, &order(2, OrderStatus::Open), "SO-1002 Hans Müller 10115 MUG-BLUE")?;
        orders::put(c, &order(3, OrderStatus::Shipped), "SO-1003 Jane Smith LS1 MUG-RED")?
    });
    same!(both, "changed", |c| orders::put(
        c,
        &order(1, OrderStatus::Open),
        "SO-1001 Jane Roe M1 1AE MUG-RED"
    )?);
    same!(both, "by id", |c| orders::get(c, Env::Live, "order-2")?);
    same!(both, "locked", |c| orders::get_for_update(c, Env::Live, "order-2")?);
    same!(both, "by number", |c| orders::by_number(c, Env::Live, "SO-1003")?);
    same!(both, "another env", |c| orders::get(c, Env::Sandbox, "order-2")?);
    let found = |search: &str, status: Option<OrderStatus>, after: Option<Cursor>| {
        let f = OrderFilter {
            search: Some(search.into()),
            status,
        };
        same!(both, "found", |c| orders::list(c, Env::Live, &f, 10, after.as_ref())?
            .into_iter()
            .map(|o| o.id)
            .collect::<Vec<_>>())
    };
    assert_eq!(found("", None, None), r#"["order-3", "order-2", "order-1"]"#);
    assert_eq!(found("mug-r", None, None), r#"["order-3", "order-1"]"#);
    assert_eq!(found("JANE m1", None, None), r#"["order-1"]"#);
    assert_eq!(found("doe", None, None), "[]", "the old words are gone");
    assert_eq!(found("roe", None, None), r#"["order-1"]"#);
    assert_eq!(found("müll", None, None), r#"["order-2"]"#);
    assert_eq!(found("mug", Some(OrderStatus::Open), None), r#"["order-2", "order-1"]"#);
    let cursor = Cursor {
        created_at: 3,
        id: "order-3".into(),
    };
    assert_eq!(found("mug", None, Some(cursor)), r#"["order-2", "order-1"]"#);
    let page = same!(both, "a page", |c| orders::list(
        c,
        Env::Live,
        &OrderFilter::default(),
        1,
        None
    )?
    .into_iter()
    .map(|o| o.id)
    .collect::<Vec<_>>());
    assert_eq!(page, r#"["order-3", "order-2"]"#, "limit + 1");

    same!(both, "linked", |c| orders::link_label(c, "lbl-1", "order-3")?);
    same!(both, "its order", |c| (
        orders::order_of_label(c, "lbl-1")?,
        orders::order_of_label(c, "lbl-2")?
    ));
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

/// A desk's own SQLite file (in the folder returned first) and a fresh shared database, for
/// comparing their answers.
fn sqlite_and_shared() -> (tempfile::TempDir, packdesk_store::Store, PgStore) {
    let dir = tempfile::tempdir().unwrap();
    let lite = packdesk_store::Store::open(&dir.path().join("packdesk.db")).unwrap();
    (dir, lite, PgStore::open(&database()).unwrap())
}

/// `sqlite_and_shared`, both holding account `acct-1`.
fn sqlite_and_shared_with_an_account() -> (tempfile::TempDir, packdesk_store::Store, PgStore) {
    let (dir, lite, shared) = sqlite_and_shared();
    let account = support::account_row("acct-1");
    shared
        .write(|client| packdesk_store::accounts::insert(&mut Tx::Postgres { client, desk: "desk-a" }, &account))
        .unwrap();
    lite.write(|c| packdesk_store::accounts::insert(&mut Tx::Sqlite(c), &account))
        .unwrap();
    (dir, lite, shared)
}

#[test]
fn a_label_is_written_whole_with_its_numbers_and_files_or_not_at_all_on_both() {
    use packdesk_store::files::{self, FileRow};
    use packdesk_store::labels::{self, InsertError, MadeLabel};
    let (_dir, lite, shared) = sqlite_and_shared_with_an_account();
    let both = (&lite, &shared);
    let file = |id: &str, owner: &str, kind: FileKind, bytes: &[u8]| FileRow {
        id: id.into(),
        env: Env::Live,
        owner_id: owner.into(),
        kind,
        file_type: "pdf".into(),
        paper_size: "4x6".into(),
        bytes: bytes.to_vec(),
        created_at: 7,
    };
    // What each store answers for writing `m` in a transaction that, as the service's, commits
    // only when it is Ok: Ok, or which refusal.
    struct Refused(String);
    impl From<StoreError> for Refused {
        fn from(e: StoreError) -> Self {
            Refused(format!("{e:?}"))
        }
    }
    let said = |e: InsertError| Refused(format!("{e:?}"));
    let write = |m: &MadeLabel| -> (String, String) {
        let a = lite
            .write(|conn| labels::write_made(&mut Tx::Sqlite(conn), m).map_err(said))
            .map_err(|r| r.0);
        let b = shared
            .write(|client| labels::write_made(&mut Tx::Postgres { client, desk: "desk-a" }, m).map_err(said))
            .map_err(|r| r.0);
        (format!("{a:?}"), format!("{b:?}"))
    };
    let both_say = |m: &MadeLabel, said: &str| {
        let (a, b) = write(m);
        assert_eq!((a.as_str(), b.as_str()), (said, said));
    };
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
    };
    both_say(&made, "Ok(())");
    let lite_label = lite
        .read(|c| labels::get(&mut Tx::Sqlite(c), Env::Live, "lbl-1"))
        .unwrap();
    let shared_label = shared
        .read(|client| labels::get(&mut Tx::Postgres { client, desk: "desk-a" }, Env::Live, "lbl-1"))
        .unwrap();
    assert_eq!(format!("{lite_label:?}"), format!("{shared_label:?}"));
    for f in &files {
        let lite_file = lite
            .read(|c| files::get(&mut Tx::Sqlite(c), Env::Live, &f.id))
            .unwrap()
            .unwrap();
        let shared_file = shared
            .read(|client| files::get(&mut Tx::Postgres { client, desk: "desk-a" }, Env::Live, &f.id))
            .unwrap()
            .unwrap();
        assert_eq!((&lite_file.bytes, &shared_file.bytes), (&f.bytes, &f.bytes));
        assert_eq!(format!("{lite_file:?}"), format!("{shared_file:?}"));
    }
    assert_eq!(
        lite.read(|c| tracking::counter(&mut Tx::Sqlite(c), "acct-1/pool"))
            .unwrap(),
        Some(1002)
    );

    // A second label drawing a number issued before: refused whole, its other number and its
    // file not kept, on both.
    let row2 = support::label("lbl-2", "acct-1", 1002, "2026-11-25", 6);
    let numbers2 = ["JD000000001002".to_string(), "JD000000001001".to_string()];
    let files2 = [file("f-3", "lbl-2", FileKind::Label, b"%PDF-1.7 two")];
    let mut taken = MadeLabel {
        row: &row2,
        serials: &[1002, 1001],
        numbers: &numbers2,
        files: &files2,
        ..made
    };
    let (a, b) = write(&taken);
    assert!(
        a.starts_with("Err(\"NumberTaken(") && b.starts_with("Err(\"NumberTaken("),
        "{a} / {b}"
    );
    assert!(lite
        .read(|c| labels::get(&mut Tx::Sqlite(c), Env::Live, "lbl-2"))
        .unwrap()
        .is_none());
    assert!(shared
        .read(|client| labels::get(&mut Tx::Postgres { client, desk: "desk-a" }, Env::Live, "lbl-2"))
        .unwrap()
        .is_none());
    assert!(lite
        .read(|c| files::get(&mut Tx::Sqlite(c), Env::Live, "f-3"))
        .unwrap()
        .is_none());
    assert!(shared
        .read(|client| files::get(&mut Tx::Postgres { client, desk: "desk-a" }, Env::Live, "f-3"))
        .unwrap()
        .is_none());
    let lite_free =
        lite.write(|c| tracking::register(&mut Tx::Sqlite(c), Env::Live, "yodel", "JD000000001002", "probe"));
    let shared_free = shared.write(|client| {
        let c = &mut Tx::Postgres { client, desk: "desk-a" };
        tracking::register(c, Env::Live, "yodel", "JD000000001002", "probe")
    });
    assert!(
        lite_free.unwrap() && shared_free.unwrap(),
        "the refused label's new number was not kept"
    );

    // The order number of a live label of the account: refused as such on both.
    let numbers3 = ["JD000000001003".to_string()];
    let mut row3 = support::label("lbl-3", "acct-1", 1003, "2026-11-25", 7);
    row3.order_number = Some("W-1".into());
    taken = MadeLabel {
        row: &row3,
        serials: &[1003],
        numbers: &numbers3,
        files: &[],
        ..made
    };
    both_say(&taken, "Err(\"DuplicateOrderNumber\")");

    // An async label accepted in status `creating` is completed in place.
    let mut creating = support::label("lbl-4", "acct-1", 1004, "2026-11-25", 8);
    creating.status = LabelStatus::Creating;
    same!(both, "accepted", |c| labels::insert(c, &creating)
        .map_err(support::refused)?);
    let mut done = creating.clone();
    done.status = LabelStatus::Created;
    done.record = "{\"done\":true}".into();
    done.search_text = "JD000000001004 done".into();
    done.updated_at = 99;
    let numbers4 = ["JD000000001004".to_string()];
    let files4 = [file("f-4", "lbl-4", FileKind::Label, b"%PDF-1.7 four")];
    both_say(
        &MadeLabel {
            row: &done,
            serials: &[1004],
            numbers: &numbers4,
            files: &files4,
            completes: true,
            ..made
        },
        "Ok(())",
    );
    let lite_done = lite
        .read(|c| labels::get(&mut Tx::Sqlite(c), Env::Live, "lbl-4"))
        .unwrap()
        .unwrap();
    let shared_done = shared
        .read(|client| labels::get(&mut Tx::Postgres { client, desk: "desk-a" }, Env::Live, "lbl-4"))
        .unwrap()
        .unwrap();
    assert_eq!(format!("{lite_done:?}"), format!("{shared_done:?}"));
    assert_eq!(
        (lite_done.status.as_str(), lite_done.updated_at, lite_done.created_at),
        ("created", 99, 8)
    );
}

/// Labels and orders answer the same on both backends too: End of day's waiting counts, Today's
/// counts per day, documents added to a label, a label completed, searches, import mappings.
#[test]
fn labels_answer_the_same_on_sqlite_and_on_the_shared_database() {
    use packdesk_store::{labels, orders};
    let (_dir, lite, shared) = sqlite_and_shared_with_an_account();
    let both = (&lite, &shared);
    const HOUR: i64 = 3_600_000_000;
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
        same!(both, "a label", |c| labels::insert(c, &row)
            .map_err(support::refused)?);
    }
    lite.write(|c| labels::catch_up_words(&mut Tx::Sqlite(c), 1000))
        .unwrap();
    let waiting = same!(both, "waiting", |c| labels::waiting(c, "acct-1")?);
    assert!(
        waiting.contains("yodel_24") && waiting.contains("2026-11-23"),
        "{waiting}"
    );
    same!(both, "counts since", |c| {
        let mut v = labels::counts_since(c, Env::Live, 50 * HOUR)?;
        v.sort();
        v
    });
    // Days cut at 01:00 (a desk an hour east of UTC).
    let per_day = same!(both, "per day", |c| labels::per_day(c, Env::Live, 24 * HOUR, HOUR)?);
    assert!(per_day.starts_with("[(1, "), "{per_day}");

    let slip = r#"{"url":"https://desk/files/slip-1","file_type":"pdf"}"#;
    same!(both, "a packing slip added", |c| labels::add_file(
        c,
        "lbl-03",
        FileKind::PackingSlip,
        slip
    )?);
    let with_slip = shared
        .read(|client| labels::get(&mut Tx::Postgres { client, desk: "desk-a" }, Env::Live, "lbl-03"))
        .unwrap()
        .unwrap();
    let record: serde_json::Value = serde_json::from_str(&with_slip.record).unwrap();
    assert_eq!(
        record["files"]["packing_slip"]["url"], "https://desk/files/slip-1",
        "{record}"
    );
    let lite_slip = lite
        .read(|c| labels::get(&mut Tx::Sqlite(c), Env::Live, "lbl-03"))
        .unwrap()
        .unwrap();
    let lite_record: serde_json::Value = serde_json::from_str(&lite_slip.record).unwrap();
    assert_eq!(record, lite_record);

    same!(both, "completed", |c| labels::complete(
        c,
        "lbl-05",
        LabelStatus::Created,
        "{\"done\":true}",
        "JD000000000005 ref-5 NEWREF",
        99
    )?);
    let search = labels::LabelFilter {
        search: Some("newref".into()),
        created_at_max: i64::MAX,
        ..Default::default()
    };
    let found = same!(both, "found by its new text", |c| labels::list(
        c,
        Env::Live,
        &search,
        10,
        None
    )?
    .into_iter()
    .map(|l| (l.id, l.updated_at))
    .collect::<Vec<_>>());
    assert_eq!(found, r#"[("lbl-05", 99)]"#);
    let cancelled = labels::LabelFilter {
        status: Some(LabelStatus::Cancelled),
        created_at_max: i64::MAX,
        ..Default::default()
    };
    same!(both, "by status", |c| labels::list(c, Env::Live, &cancelled, 3, None)?
        .into_iter()
        .map(|l| l.id)
        .collect::<Vec<_>>());

    // Tracking numbers: serials reserved within a range, the counter moved on (never back), a
    // number registered once.
    let drawn = same!(both, "serials", |c| tracking::reserve(c, "small", 3, 10, 14)?);
    assert_eq!(drawn, "Ok([10, 11, 12])");
    let short = same!(both, "too few left", |c| tracking::reserve(c, "small", 3, 10, 14)?);
    assert_eq!(short, "Err(2)");
    same!(both, "the rest", |c| tracking::reserve(c, "small", 2, 10, 14)?);
    let moved = same!(both, "advanced", |c| {
        tracking::advance(c, "small", 20)?;
        tracking::advance(c, "small", 16)?;
        tracking::advance(c, "fresh", 5)?;
        (tracking::counter(c, "small")?, tracking::counter(c, "fresh")?)
    });
    assert_eq!(moved, "(Some(20), Some(5))");
    let fresh = same!(both, "registered", |c| tracking::register(
        c,
        Env::Live,
        "yodel",
        "JD9",
        "lbl-01"
    )?);
    let again = same!(both, "issued before", |c| tracking::register(
        c,
        Env::Live,
        "yodel",
        "JD9",
        "lbl-02"
    )?);
    assert_eq!((fresh.as_str(), again.as_str()), ("true", "false"));
    same!(both, "a mapping", |c| orders::put_mapping(
        c,
        "shop",
        "{\"Order\":\"order_number\"}",
        5
    )?);
    same!(both, "read back", |c| orders::mapping(c, "shop")?);
}

/// Accounts, deliveries, jobs and print jobs answer the same on both backends (a desk's own
/// printers on the shared database against the one desk of SQLite).
#[test]
fn accounts_deliveries_and_print_jobs_answer_the_same_on_sqlite_and_on_the_shared_database() {
    use packdesk_store::printing::{self, PrintJobRow, PrinterRow};
    use packdesk_store::{accounts, jobs, labels, webhooks};
    let (_dir, lite, shared) = sqlite_and_shared();
    let both = (&lite, &shared);
    for i in 0..4i64 {
        let a = accounts::AccountRow {
            id: format!("acct-{i}"),
            env: Env::Live,
            slug: ["yodel", "dpd"][(i % 2) as usize].into(),
            status: AccountStatus::Enabled,
            description: format!("Account {i}"),
            timezone: "Europe/London".into(),
            address: None,
            settings: "{}".into(),
            credentials: vec![i as u8],
            secrets: None,
            created_at: i,
            updated_at: i,
        };
        same!(both, "an account", |c| accounts::insert(c, &a)?);
    }
    let deleted = accounts::AccountRow {
        status: AccountStatus::Deleted,
        updated_at: 9,
        ..shared
            .read(|client| accounts::get(&mut Tx::Postgres { client, desk: "desk-a" }, Env::Live, "acct-2"))
            .unwrap()
            .unwrap()
    };
    same!(both, "deleted", |c| accounts::update(c, &deleted)?);
    let page = same!(both, "a page of yodel", |c| accounts::list(
        c,
        Env::Live,
        Some("yodel"),
        5,
        None
    )?);
    assert!(page.contains("acct-0") && !page.contains("acct-2"), "{page}");
    same!(both, "every account", |c| accounts::list(c, Env::Live, None, 1, None)?);
    same!(both, "slugs, deleted too", |c| accounts::slugs(c, Env::Live)?);
    let numbered = labels::LabelRow {
        order_number: Some("SO-9".into()),
        ..support::label("lbl-1", "acct-1", 1, "2026-11-24", 1)
    };
    same!(both, "free", |c| labels::order_number_taken(c, "acct-1", "SO-9")?);
    same!(both, "a numbered label", |c| labels::insert(c, &numbered)
        .map_err(support::refused)?);
    same!(both, "taken", |c| labels::order_number_taken(c, "acct-1", "SO-9")?);

    same!(both, "no delivery due", |c| webhooks::next_due_at(c)?);
    for i in 0..3i64 {
        let d = webhooks::DeliveryRow {
            id: format!("delivery-{i}"),
            env: Env::Live,
            event: [WebhookEvent::CreateALabel, WebhookEvent::ManifestALabel][(i % 2) as usize],
            record_id: format!("rec-{i}"),
            url: "http://127.0.0.1:9/hook".into(),
            body: "{}".into(),
            status: DeliveryStatus::Pending,
            attempts: 0,
            round_failures: 0,
            next_attempt_at: Some(50 - i),
            created_at: i,
            updated_at: i,
        };
        same!(both, "a delivery", |c| webhooks::insert_delivery(c, &d)?);
    }
    same!(both, "nothing due while the webhook is unset", |c| {
        webhooks::next_due_at(c)?
    });
    let on = webhooks::WebhookSetting {
        url: "http://127.0.0.1:9/now".into(),
        enabled: true,
        updated_at: 1,
    };
    same!(both, "webhook on", |c| webhooks::set_setting(c, Env::Live, &on)?);
    same!(both, "due first", |c| webhooks::next_due_at(c)?);
    same!(both, "due, to the URL set now", |c| {
        webhooks::due(c, 100, 10)?
            .iter()
            .map(|d| (d.id.clone(), d.url.clone()))
            .collect::<Vec<_>>()
    });
    same!(both, "one", |c| webhooks::get_delivery(c, Env::Live, "delivery-1")?);
    let labels_only = webhooks::DeliveryFilter {
        event: Some(WebhookEvent::CreateALabel),
        created_at_max: i64::MAX,
        ..Default::default()
    };
    let listed = same!(both, "by event", |c| webhooks::list(
        c,
        Env::Live,
        &labels_only,
        10,
        None
    )?);
    assert!(
        listed.contains("delivery-2") && !listed.contains("delivery-1"),
        "{listed}"
    );

    same!(both, "a job queued", |c| {
        jobs::insert(c, "job-1", Env::Live, JobKind::Label, "acct-1", "{}", 5, None)?;
    });
    same!(both, "the job", |c| {
        jobs::get(c, "job-1")?.map(|j| (j.id, j.state, j.lane))
    });
    same!(both, "the jobs counted", |c| jobs::counts(c)?);
    same!(both, "the job done", |c| jobs::finish(c, "job-1", 6)?);
    same!(both, "done once", |c| jobs::finish(c, "job-1", 7)?);
    same!(both, "the jobs counted again", |c| jobs::counts(c)?);

    let printer = PrinterRow {
        id: "printer-1".into(),
        name: "Zebra".into(),
        transport: PrinterTransport::Raw,
        address: "127.0.0.1:9100".into(),
        format: PrinterFormat::Zpl,
        dpi: 203,
        strip_zpl_setup: true,
        created_at: 1,
        updated_at: 1,
    };
    same!(both, "a printer", |c| printing::put_printer(c, &printer)?);
    for (i, (status, attempts, at)) in [
        (PrintJobStatus::Failed, 1, 10),
        (PrintJobStatus::Failed, 5, 11),
        (PrintJobStatus::Failed, 2, 30),
        (PrintJobStatus::Printed, 1, 20),
    ]
    .into_iter()
    .enumerate()
    {
        let job = PrintJobRow {
            id: format!("pjob-{i}"),
            env: Env::Live,
            printer_id: "printer-1".into(),
            document_type: DocumentType::Label,
            owner_id: format!("lbl-{i}"),
            file_id: format!("file-{i}"),
            copies: 1,
            stock: "4x6".into(),
            status,
            error: (status == PrintJobStatus::Failed).then(|| format!("paper out {i}")),
            attempts,
            bytes_sent: None,
            reference: None,
            created_at: at,
            updated_at: at,
            printed_at: None,
            operator: None,
        };
        same!(both, "a print job", |c| printing::put_job(c, &job)?);
    }
    let due = same!(both, "retries due", |c| printing::retry_due(c, 3, 25, 10)?);
    assert!(
        due.contains("pjob-0") && !due.contains("pjob-1") && !due.contains("pjob-2"),
        "{due}"
    );
    let newest = same!(both, "newest failure", |c| printing::newest_failures(c)?);
    assert!(newest.contains("paper out 2"), "{newest}");
    same!(both, "printed since", |c| (
        printing::printed_since(c, "printer-1", 15)?,
        printing::printed_since(c, "printer-1", 20)?
    ));
    same!(both, "the backlog", |c| printing::backlog(c, "printer-1")?);
    // A queued job is claimed once, on both (one desk's file has one writer; the shared database
    // passes over rows another desk holds).
    let queued = PrintJobRow {
        id: "pjob-9".into(),
        env: Env::Live,
        printer_id: "printer-1".into(),
        document_type: DocumentType::Label,
        owner_id: "lbl-9".into(),
        file_id: "file-9".into(),
        copies: 1,
        stock: "4x6".into(),
        status: PrintJobStatus::Queued,
        error: None,
        attempts: 0,
        bytes_sent: None,
        reference: None,
        created_at: 40,
        updated_at: 40,
        printed_at: None,
        operator: None,
    };
    same!(both, "a queued job", |c| printing::put_job(c, &queued)?);
    let waiting = same!(both, "queued", |c| printing::jobs_in(c, PrintJobStatus::Queued, 10)?);
    assert!(waiting.contains("pjob-9"), "{waiting}");
    same!(both, "sending", |c| printing::backlog(c, "printer-1")?);
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
            labels::insert(
                tx,
                &support::label(&format!("lbl-{i}"), "acct-1", 1_000 + i, "2026-11-24", i as i64),
            )
            .map_err(support::refused)?;
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
        let printer = printing::PrinterRow {
            id: "printer-1".into(),
            name: "Zebra".into(),
            transport: PrinterTransport::Raw,
            address: "127.0.0.1:9100".into(),
            format: PrinterFormat::Zpl,
            dpi: 203,
            strip_zpl_setup: true,
            created_at: 1,
            updated_at: 1,
        };
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
            labels::list(&mut Tx::Postgres { client, desk: "desk-b" }, Env::Live, &f, 10, None)
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
