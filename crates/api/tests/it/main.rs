//! Packdesk's black-box tests over HTTP: one test binary (one link instead of one per file), a
//! module per concern. Each test starts its own server on a fresh data folder (or, with
//! `PACKDESK_TEST_BACKEND=postgres`, a database of its own in the test cluster).

#[path = "../../../service/tests/it/common/receiver.rs"]
mod receiver;
mod sshd;
mod support;

mod async_http;
mod backup;
mod desks;
mod documents;
mod end_of_day;
mod failover;
mod hardening;
mod http;
mod https;
mod metrics;
mod openapi;
mod operations;
mod operator;
mod orders;
mod packing;
mod people;
mod printing;
mod ranges;
mod reports;
mod returns;
mod robustness;
mod scale;
mod shipping;
mod transmissions;
mod upstream;
