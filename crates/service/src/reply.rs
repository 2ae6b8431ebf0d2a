//! What an operation answers besides a failure: done (meta 200), accepted for async work (meta
//! 3001, the record in its in-progress status), or done with a partial failure (rates: 4713).

use packdesk_model::ErrorCode;
use serde_json::{json, Value};

pub const ACCEPTED_MESSAGE: &str =
    "The request has been accepted for processing, but the processing has not been completed.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Done,
    Accepted,
    Partial(ErrorCode),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub outcome: Outcome,
    pub data: Value,
}

impl Reply {
    pub fn done(data: Value) -> Reply {
        Reply {
            outcome: Outcome::Done,
            data,
        }
    }

    pub fn accepted(data: Value) -> Reply {
        Reply {
            outcome: Outcome::Accepted,
            data,
        }
    }

    /// The envelope's `meta` for this answer.
    pub fn meta(&self) -> Value {
        match self.outcome {
            Outcome::Done => json!({"code": 200}),
            Outcome::Accepted => json!({"code": 3001, "message": ACCEPTED_MESSAGE}),
            Outcome::Partial(code) => partial_meta(code),
        }
    }

    pub fn into_data(self) -> Value {
        self.data
    }
}

/// The meta of an answer that carries data despite a failure (rates: 4713, details empty).
pub fn partial_meta(code: ErrorCode) -> Value {
    json!({"code": code.code(), "message": code.message(), "details": [], "retryable": code.retryable()})
}

/// `reply["id"]` reads the data, as callers of the synchronous calls did before async existed.
impl std::ops::Deref for Reply {
    type Target = Value;
    fn deref(&self) -> &Value {
        &self.data
    }
}
