//! The interface of Packdesk as Rust types. Every face (HTTP, desktop, UI) speaks these shapes;
//! the JSON Schemas in `schemas/` are generated from them (`cargo test -p packdesk-model`).
#![forbid(unsafe_code)]

pub mod contract;
pub mod desk;
pub mod error;
pub mod order;
pub mod pack;
pub mod people;
pub mod preset;
pub mod record;
pub mod report;
pub mod request;
pub mod returns;
pub mod said;
pub mod schema;
pub mod status;
pub mod transport;

pub use contract::{from_slice, from_value, ToRequest};
pub use error::{Detail, ErrorCode, ServiceError};
