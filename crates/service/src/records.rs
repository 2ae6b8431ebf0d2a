//! Shared handling of the operation records (cancel labels, manifests, bulk downloads, rates,
//! address validations): store, retrieve, list.

use crate::keys::Env;
use crate::Service;
use packdesk_model::request::ListQuery;
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::paging;
use packdesk_store::records as table;
use packdesk_store::records::{Kind, RecordFilter, RecordRow, RecordStatus};
use serde_json::Value;

pub(crate) fn row(env: Env, account: Option<&str>, status: RecordStatus, record: &Value, now: i64) -> RecordRow {
    RecordRow {
        id: record["id"].as_str().unwrap_or_default().to_string(),
        env,
        shipper_account_id: account.map(String::from),
        status,
        record: record.to_string(),
        created_at: now,
        updated_at: now,
    }
}

/// A record put together as JSON, read as its record type. The record types refuse unknown keys,
/// so a record that drifted from its type is a loud internal error, not a silently dropped field.
pub(crate) fn typed<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, ServiceError> {
    serde_json::from_value(v).map_err(drifted)
}

/// `typed` of a record as stored (its JSON text).
pub(crate) fn typed_text<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ServiceError> {
    serde_json::from_str(text).map_err(drifted)
}

fn drifted(e: serde_json::Error) -> ServiceError {
    ServiceError::internal(format!("a record does not match its type: {e}"))
}

impl Service {
    pub(crate) fn record_json(&self, r: &RecordRow) -> Result<Value, ServiceError> {
        let mut v: Value = serde_json::from_str(&r.record).map_err(ServiceError::internal)?;
        v["status"] = Value::String(r.status.as_str().into());
        self.absolute_urls(&mut v);
        Ok(v)
    }

    pub(crate) fn get_record<T: serde::de::DeserializeOwned>(
        &self,
        kind: Kind,
        env: Env,
        id: &str,
    ) -> Result<T, ServiceError> {
        let r = self
            .store
            .read(|c| table::get(c, kind, env, id))?
            .ok_or_else(|| ServiceError::at(ErrorCode::ItemNotFound, "id", format!("no record {id}")))?;
        typed(self.record_json(&r)?)
    }

    /// A page of records of `kind`, and the list's window.
    pub(crate) fn list_records<T: serde::de::DeserializeOwned>(
        &self,
        kind: Kind,
        env: Env,
        q: &ListQuery,
        statuses: &[&str],
    ) -> Result<(packdesk_model::record::ListWindow, Vec<T>), ServiceError> {
        let w = crate::list::window(q, self.clock.now())?;
        crate::list::check_status(q.status.as_deref().filter(|s| !s.is_empty()), statuses)?;
        let f = RecordFilter {
            shipper_account_id: q.shipper_account_id.clone().filter(|s| !s.is_empty()),
            status: q.status.clone().filter(|s| !s.is_empty()),
            created_at_min: w.created_at_min.timestamp_micros(),
            created_at_max: w.created_at_max.timestamp_micros(),
        };
        let rows = self
            .store
            .read(|c| table::list(c, kind, env, &f, w.limit, w.after.as_ref()))?;
        let page = paging::page(rows, w.limit, |r| paging::Cursor {
            created_at: r.created_at,
            id: r.id.clone(),
        });
        let items = page
            .items
            .iter()
            .map(|r| typed(self.record_json(r)?))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((w.window(page.next_token), items))
    }
}
