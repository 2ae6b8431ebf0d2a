//! The async jobs' table on the run's backend: queued, done once, counted.

use crate::support::{self, Backend};
use packdesk_model::status::{Env, JobKind, JobState};
use packdesk_store::jobs;

#[test]
fn a_job_is_queued_then_done_once() {
    let db = support::store();
    let seq = db.step(|c| jobs::insert(c, "job-1", Env::Live, JobKind::Label, "acct-1", "{}", 5, None));
    let job = db.look(|c| jobs::get(c, "job-1")).expect("the job");
    assert_eq!(
        (
            job.seq,
            job.id.as_str(),
            job.state,
            job.lane.as_str(),
            job.accepted_at,
            job.finished_at
        ),
        (seq, "job-1", JobState::Queued, "acct-1", 5, None)
    );
    assert_eq!(db.look(jobs::counts), (1, 0), "one queued");
    // What a restart runs again: one desk's own queue; a shared database's desks claim theirs
    // under leases instead (`shared_database::jobs_of_a_desk_that_died_...`).
    let queued = match support::backend() {
        Backend::Sqlite => vec![(seq, "job-1".to_string(), "acct-1".to_string())],
        Backend::Postgres => vec![],
    };
    assert_eq!(db.look(jobs::queued), queued);
    assert!(db.step(|c| jobs::finish(c, "job-1", 6)), "done");
    assert!(!db.step(|c| jobs::finish(c, "job-1", 7)), "done once");
    assert_eq!(db.look(jobs::counts), (0, 1));
    let job = db.look(|c| jobs::get(c, "job-1")).expect("the job");
    assert_eq!(
        (job.state, job.finished_at),
        (JobState::Done, Some(6)),
        "at the first finish"
    );
    assert_eq!(db.look(jobs::queued), vec![]);
}
