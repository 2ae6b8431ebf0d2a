//! The shared store on a real PostgreSQL (issue 16): the cluster of `tests/postgres.sh`, whose
//! address is PACKDESK_TEST_POSTGRES (`.ci/test` starts it before `cargo test`); each case makes a
//! database of its own. Several `PgStore`s on one database stand for several desks.

use packdesk_store::pg::{self, PgStore};
use packdesk_store::{tracking, StoreError};
use std::collections::HashSet;
use std::sync::Arc;

mod support;

fn database() -> String {
    pg::scratch_database(&support::cluster(), "store").unwrap()
}

#[test]
fn an_empty_database_gets_the_whole_schema_once_and_a_newer_one_is_left_untouched() {
    let url = database();
    let desk = PgStore::open(&url).unwrap();
    assert_eq!(desk.read(pg::version).unwrap(), packdesk_store::migrations::LATEST);
    // The same tables and columns as SQLite's schema of that version (the word indexes aside:
    // trigram indexes do their work); what sharing adds (desk, leases) comes on top.
    let dir = tempfile::tempdir().unwrap();
    let sqlite = packdesk_store::Store::open(&dir.path().join("packdesk.db")).unwrap();
    let sqlite_columns: Vec<(String, String)> = sqlite
        .read(|c| {
            let mut st = c.prepare(
                "SELECT m.name, p.name FROM sqlite_schema m, pragma_table_info(m.name) p
                 WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT IN ('label_words', 'order_words')",
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
    assert_eq!(desk.read(|c| tracking::pg::counter(c, "kept")).unwrap(), Some(7));
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
        .read(|c| tracking::pg::counter(c, "acct-1/pool"))
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
    let issued = |desk: &PgStore, label: &str| {
        desk.write(|tx| tracking::pg::register(tx, "live", "yodel", "JD000000001000", label))
            .unwrap()
    };
    assert!(issued(&a, "lbl-a"));
    assert!(!issued(&b, "lbl-b"), "the second desk is told the number is taken");

    assert_eq!(
        a.write(|tx| tracking::pg::reserve(tx, "small", 3, 10, 14)).unwrap(),
        Ok(vec![10, 11, 12])
    );
    assert_eq!(
        b.write(|tx| tracking::pg::reserve(tx, "small", 3, 10, 14)).unwrap(),
        Err(2),
        "two numbers left, three asked for"
    );
    assert_eq!(b.read(|c| tracking::pg::counter(c, "small")).unwrap(), Some(13));
    assert_eq!(
        b.write(|tx| tracking::pg::reserve(tx, "small", 2, 10, 14)).unwrap(),
        Ok(vec![13, 14])
    );
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

fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros() as i64
}

#[test]
fn jobs_of_a_desk_that_died_are_taken_over_after_their_lease_and_each_runs_once_in_lane_order() {
    use packdesk_store::jobs;
    let url = database();
    let desks: Vec<Arc<PgStore>> = (0..3).map(|_| Arc::new(PgStore::open(&url).unwrap())).collect();
    // What a job's completion writes with its `finish`, in one transaction (a label's record, say).
    desks[0]
        .write(|tx| {
            tx.batch_execute("CREATE TABLE job_results (id TEXT NOT NULL, lane TEXT NOT NULL, seq BIGINT NOT NULL, desk TEXT NOT NULL, done_order BIGINT GENERATED ALWAYS AS IDENTITY)")?;
            for i in 0..240 {
                let lane = format!("account-{}", i % 8);
                jobs::pg::insert(tx, &format!("job-{i}"), "live", "label", &lane, "{}", now_us())?;
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
                .write(|tx| jobs::pg::claim(tx, "desk-0", now_us(), LEASE_US))
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
                    let job = desk.write(|tx| jobs::pg::claim(tx, &name, now_us(), LEASE_US)).unwrap();
                    let Some(job) = job else {
                        let (queued, _) = desk.read(jobs::pg::counts).unwrap();
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
                        if !jobs::pg::finish(tx, &job.id, now_us())? {
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
    assert_eq!(desks[1].read(jobs::pg::counts).unwrap(), (0, 240), "every job done");
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
    use packdesk_store::jobs;
    let url = database();
    let (slow, quick) = (PgStore::open(&url).unwrap(), PgStore::open(&url).unwrap());
    slow.write(|tx| jobs::pg::insert(tx, "job-x", "live", "label", "lane", "{}", 0))
        .unwrap();
    let t0 = 1_000_000;
    let mine = slow
        .write(|tx| jobs::pg::claim(tx, "slow", t0, 1_000))
        .unwrap()
        .unwrap();
    assert!(
        quick
            .write(|tx| jobs::pg::claim(tx, "quick", t0 + 500, 1_000))
            .unwrap()
            .is_none(),
        "leased: nothing to take"
    );
    let theirs = quick
        .write(|tx| jobs::pg::claim(tx, "quick", t0 + 1_000, 1_000))
        .unwrap()
        .unwrap();
    assert_eq!(theirs.id, mine.id, "the lease ended: the job is taken over");
    assert!(
        !slow
            .write(|tx| jobs::pg::renew(tx, "job-x", "slow", t0 + 5_000))
            .unwrap(),
        "no longer slow's"
    );
    assert!(quick.write(|tx| jobs::pg::finish(tx, "job-x", t0 + 1_500)).unwrap());
    assert!(
        !slow.write(|tx| jobs::pg::finish(tx, "job-x", t0 + 2_000)).unwrap(),
        "done once"
    );
}
