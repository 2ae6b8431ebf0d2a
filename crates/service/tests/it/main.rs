//! The service's tests through its Rust interface: one test binary, a module per concern.

mod common;

mod async_jobs;
mod background;
mod backup;
mod carrier_rules;
mod fuzz;
mod hardening;
mod history;
mod import;
mod orders;
mod os_keyring;
mod overview;
mod printing;
mod rules;
mod sessions;
mod ship_dates;
mod storage;
