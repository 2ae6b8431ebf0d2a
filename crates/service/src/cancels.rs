//! Cancel a label. Its tracking numbers stay issued (never reused); its order_number is free again.

use crate::keys::Env;
use crate::records::{refuse_async, row};
use crate::validate::parse_body;
use crate::Service;
use packdesk_model::request::{CancelLabelRequest, ListQuery};
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::records::{self as records, Kind};
use packdesk_store::{db_error, labels};
use serde_json::{json, Value};

pub const CANCEL_STATUSES: &[&str] = &["cancelling", "cancelled", "failed"];

impl Service {
    pub fn cancel_label(&self, env: Env, body: &[u8]) -> Result<Value, ServiceError> {
        let req: CancelLabelRequest = parse_body(body)?;
        refuse_async(req.is_async)?;
        let id = req.label.id;
        let now = self.now_us();
        let stamp = crate::clock::iso_micros(now);
        // Check and change in one write transaction: a close-out cannot take the label meanwhile.
        self.store.write(|tx| {
            let label = labels::get(tx, env.as_str(), &id)
                .map_err(db_error)?
                .ok_or_else(|| ServiceError::at(ErrorCode::ItemNotFound, "label.id", format!("no label {id}")))?;
            match label.status.as_str() {
                "cancelled" | "cancelling" => return Err(ServiceError::at(ErrorCode::AlreadyCancelled, "label.id", "the label is cancelled already")),
                "manifested" | "manifesting" => return Err(ServiceError::at(ErrorCode::AlreadyManifested, "label.id", "the label is in a manifest")),
                "created" => {}
                other => return Err(ServiceError::invalid("label.id", format!("a label in status {other} cannot be cancelled"))),
            }
            labels::set_status(tx, &id, "cancelled", now).map_err(db_error)?;
            let record = json!({
                "id": uuid::Uuid::new_v4().to_string(),
                "status": "cancelled",
                "label": {"id": id},
                "created_at": stamp,
                "updated_at": stamp,
            });
            records::insert(tx, Kind::CancelLabel, &row(env, Some(&label.shipper_account_id), "cancelled", &record, now)).map_err(db_error)?;
            Ok(record)
        })
    }

    pub fn get_cancel_label(&self, env: Env, id: &str) -> Result<Value, ServiceError> {
        self.get_record(Kind::CancelLabel, env, id)
    }

    pub fn list_cancel_labels(&self, env: Env, q: &ListQuery) -> Result<Value, ServiceError> {
        self.list_records(Kind::CancelLabel, env, q, "cancel_labels", CANCEL_STATUSES)
    }
}
