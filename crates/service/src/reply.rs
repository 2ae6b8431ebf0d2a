//! What an operation answers besides a failure: done (meta 200), accepted for async work (meta
//! 3001, the record in its in-progress status), or done with a partial failure (rates: 4713).

use packdesk_model::error::Meta;
use packdesk_model::{Detail, ErrorCode};
use serde_json::Value;

pub const ACCEPTED_MESSAGE: &str =
    "The request has been accepted for processing, but the processing has not been completed.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Done,
    Accepted,
    Partial(ErrorCode),
}

/// An answer and its record (`T`: the operation's record type; `Value` inside the core while a
/// record is still being put together).
#[derive(Debug, Clone, PartialEq)]
pub struct Reply<T = Value> {
    pub outcome: Outcome,
    pub data: T,
    /// What failed of a partly failed operation (rates: each failed entry's path and reason).
    pub problems: Vec<Detail>,
}

impl<T> Reply<T> {
    pub fn done(data: T) -> Reply<T> {
        Reply {
            outcome: Outcome::Done,
            data,
            problems: Vec::new(),
        }
    }

    pub fn accepted(data: T) -> Reply<T> {
        Reply {
            outcome: Outcome::Accepted,
            data,
            problems: Vec::new(),
        }
    }

    /// The envelope's `meta` for this answer.
    pub fn meta(&self) -> Meta {
        let plain = |code: i64, message: Option<&str>| Meta {
            code,
            message: message.map(String::from),
            details: None,
            retryable: None,
        };
        match self.outcome {
            Outcome::Done => plain(200, None),
            Outcome::Accepted => plain(3001, Some(ACCEPTED_MESSAGE)),
            Outcome::Partial(code) => partial_meta(code, self.problems.clone()),
        }
    }

    pub fn into_data(self) -> T {
        self.data
    }

    /// The same answer with its record read as the operation's record type.
    pub fn typed<U: serde::de::DeserializeOwned>(self) -> Result<Reply<U>, packdesk_model::ServiceError>
    where
        T: Into<Value>,
    {
        Ok(Reply {
            outcome: self.outcome,
            data: crate::records::typed(self.data.into())?,
            problems: self.problems,
        })
    }
}

/// The meta of an answer that carries data despite a failure (rates: 4713, each failed entry in
/// `details` with its path, since the contract keeps the failed entry's own fields null).
pub fn partial_meta(code: ErrorCode, details: Vec<Detail>) -> Meta {
    Meta {
        code: code.code() as i64,
        message: Some(code.message().to_string()),
        details: Some(details),
        retryable: Some(code.retryable()),
    }
}

/// The meta of `reply`, with `details` in place of its problems when it partly failed.
pub fn partial_meta_or<T>(reply: &Reply<T>, details: Vec<Detail>) -> Meta {
    match reply.outcome {
        Outcome::Partial(code) => partial_meta(code, details),
        _ => reply.meta(),
    }
}

/// `reply.id` reads the record, as callers of the synchronous calls did before async existed.
impl<T> std::ops::Deref for Reply<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.data
    }
}

/// A reply written as JSON is its record (the envelope adds the meta).
impl<T: serde::Serialize> serde::Serialize for Reply<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.data.serialize(s)
    }
}
