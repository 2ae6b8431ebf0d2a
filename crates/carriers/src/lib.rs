//! The one source of truth for carrier rules. The API validates with it and serves it to the UI; no
//! other crate writes a carrier rule down.
#![forbid(unsafe_code)]

pub mod countries;
pub mod postal;
pub mod rates;
pub mod registry;
pub mod tracking;

pub use registry::{carrier, registry, service_name, service_type, Carrier, ServiceTypeDef, TrackingPool};
