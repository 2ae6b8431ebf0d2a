//! The store's integration tests: one binary, a module per concern.
//!
//! Each noun's module (accounts, jobs, labels, orders, printing, tables, tracking, webhooks) is
//! written once against the backend-neutral `Db`/`Tx` and runs on one backend per run, chosen as
//! the api crate's suite chooses it: PACKDESK_TEST_BACKEND unset or `sqlite`, a desk's SQLite file
//! in a temporary folder; `postgres`, a database of its own in the cluster of
//! PACKDESK_TEST_POSTGRES (`support::store`). Each step asserts what it answers.
//!
//! `shared_database` is what only PostgreSQL's shared store of many desks has (leases, locks,
//! desks racing, TLS, dropped connections, a desk moved in): it needs the cluster in every run and
//! does not depend on the backend. It runs in the default run (`cargo test`); the rerun on
//! PostgreSQL in `.ci/test` leaves it out with `--skip shared_database::` rather than run it twice
//! (a test that returned early there would report ok without having run).

mod support;

mod shared_database;

mod accounts;
mod jobs;
mod labels;
mod orders;
mod printing;
mod tables;
mod tracking;
mod webhooks;
