//! Cancel a label. Its tracking numbers stay issued (never reused); its order_number is free again.
//! Async: the label is `cancelling` (no close-out takes it) until the job cancels it. A label an
//! upstream label service made is cancelled there first.

use crate::jobs::{Job, JobKind};
use crate::keys::Env;
use crate::records::row;
use crate::reply::Reply;
use crate::Service;
use packdesk_model::record::{CancelLabel, CancelLabelList};
use packdesk_model::request::{CancelLabelRequest, IdRef, ListQuery};
use packdesk_model::status::CancelStatus;
use packdesk_model::status::LabelStatus;
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::db::Tx;
use packdesk_store::labels;
use packdesk_store::labels::LabelRow;
use packdesk_store::records;
use packdesk_store::records::Kind;
use packdesk_store::records::RecordStatus;
use serde_json::{json, Value};

pub const CANCEL_STATUSES: &[&str] = packdesk_model::status::CancelStatus::NAMES;

/// The label, if it can be cancelled now (locked to the end of the transaction: a close-out at
/// another desk waits, then finds it cancelled).
fn cancellable(c: &mut Tx<'_>, env: Env, id: &str) -> Result<LabelRow, ServiceError> {
    let label = labels::get_for_update(c, env, id)?
        .ok_or_else(|| ServiceError::at(ErrorCode::ItemNotFound, "label.id", format!("no label {id}")))?;
    match label.status {
        LabelStatus::Cancelled | LabelStatus::Cancelling => Err(ServiceError::at(
            ErrorCode::AlreadyCancelled,
            "label.id",
            "the label is cancelled already",
        )),
        LabelStatus::Manifested | LabelStatus::Manifesting => Err(ServiceError::at(
            ErrorCode::AlreadyManifested,
            "label.id",
            "the label is in a manifest",
        )),
        LabelStatus::Created => Ok(label),
        other => Err(ServiceError::invalid(
            "label.id",
            format!("a label in status {other} cannot be cancelled"),
        )),
    }
}

fn cancel_record(
    id: &str,
    status: CancelStatus,
    label_id: &str,
    created: i64,
    now: i64,
) -> Result<Value, ServiceError> {
    serde_json::to_value(CancelLabel {
        id: id.to_string(),
        status,
        label: IdRef {
            id: label_id.to_string(),
        },
        created_at: crate::clock::iso_micros(created),
        updated_at: crate::clock::iso_micros(now),
    })
    .map_err(ServiceError::internal)
}

impl Service {
    pub fn cancel_label(&self, env: Env, req: CancelLabelRequest) -> Result<Reply<CancelLabel>, ServiceError> {
        self.cancel_label_json(env, req)?.typed()
    }

    fn cancel_label_json(&self, env: Env, req: CancelLabelRequest) -> Result<Reply, ServiceError> {
        let label_id = req.label.id.clone();
        let record_id = uuid::Uuid::new_v4().to_string();
        if req.is_async {
            let lane = self.store.read(|c| cancellable(c, env, &label_id))?.shipper_account_id;
            let request = serde_json::to_string(&req).map_err(ServiceError::internal)?;
            return self.accept_job(env, JobKind::CancelLabel, &record_id, &lane, &request, |tx, now| {
                let label = cancellable(tx, env, &label_id)?;
                labels::set_status(tx, &label_id, LabelStatus::Cancelling, now)?;
                let record = cancel_record(&record_id, CancelStatus::Cancelling, &label_id, now, now)?;
                records::put(
                    tx,
                    &row(
                        env,
                        Some(&label.shipper_account_id),
                        RecordStatus::CancelLabel(CancelStatus::Cancelling),
                        &record,
                        now,
                    ),
                )?;
                Ok(record)
            });
        }
        let label = self.store.read(|c| cancellable(c, env, &label_id))?;
        self.cancel_upstream(&label)?;
        let now = self.now_us();
        // Check and change in one write transaction: a close-out cannot take the label meanwhile.
        self.store
            .write(|tx| {
                let label = cancellable(tx, env, &label_id)?;
                labels::set_status(tx, &label_id, LabelStatus::Cancelled, now)?;
                // A closed day's kept figures counted it as made: they are made again when next asked.
                packdesk_store::reports::forget_day(tx, env, &label.ship_date)?;
                self.reopen_order_of(tx, env, &label, now)?;
                self.audit(tx, Some(env), "label.voided", Some(&label_id), json!({}))?;
                let record = cancel_record(&record_id, CancelStatus::Cancelled, &label_id, now, now)?;
                records::put(
                    tx,
                    &row(
                        env,
                        Some(&label.shipper_account_id),
                        RecordStatus::CancelLabel(CancelStatus::Cancelled),
                        &record,
                        now,
                    ),
                )?;
                Ok(record)
            })
            .map(Reply::done)
    }

    /// Completes an async cancel (a worker runs this).
    pub(crate) fn finish_cancel_label(&self, job: &Job) -> Result<(), ServiceError> {
        let req: CancelLabelRequest = job.request()?;
        let label_id = req.label.id;
        if let Some(label) = self.store.read(|c| labels::get(c, job.env, &label_id))? {
            self.cancel_upstream(&label)?;
        }
        let now = self.now_us();
        self.store.write(|tx| {
            let label = labels::get_for_update(tx, job.env, &label_id)?
                .ok_or_else(|| ServiceError::at(ErrorCode::ItemNotFound, "label.id", format!("no label {label_id}")))?;
            if label.status != LabelStatus::Cancelling {
                return Err(ServiceError::invalid(
                    "label.id",
                    format!("the label is {}, not cancelling", label.status),
                ));
            }
            labels::set_status(tx, &label_id, LabelStatus::Cancelled, now)?;
            packdesk_store::reports::forget_day(tx, job.env, &label.ship_date)?;
            self.reopen_order_of(tx, job.env, &label, now)?;
            self.audit(tx, Some(job.env), "label.voided", Some(&label_id), json!({}))?;
            let record = cancel_record(&job.id, CancelStatus::Cancelled, &label_id, job.accepted_at, now)?;
            records::put(
                tx,
                &row(
                    job.env,
                    Some(&label.shipper_account_id),
                    RecordStatus::CancelLabel(CancelStatus::Cancelled),
                    &record,
                    now,
                ),
            )?;
            self.complete_job_in(tx, job, json!({"code": 200}), record, now)
        })
    }

    /// Cancels at its upstream a label an upstream made (nothing for one made here). One already
    /// cancelled there is cancelled here too. The upstream's key is the label's: a cancel sent
    /// again meets the first.
    fn cancel_upstream(&self, label: &LabelRow) -> Result<(), ServiceError> {
        let Some(upstream_id) = self.upstream_id(label.env, &label.id)? else {
            return Ok(());
        };
        let account = self.account_row(label.env, &label.shipper_account_id, "label.id")?;
        let Some(u) = self.upstream_of(&account)? else {
            return Err(ServiceError::invalid(
                "label.id",
                "the label was made by an upstream label service, and its account is no longer connected to it: connect the account again to cancel it",
            ));
        };
        let body = json!({"label": {"id": upstream_id}});
        let name = crate::upstream::Name::Desk(format!("label:{upstream_id}"));
        match u.post("/cancel-labels", &body, &name) {
            Ok(_) => Ok(()),
            Err(e) if e.number() == ErrorCode::AlreadyCancelled.code() as i64 => Ok(()),
            Err(e) => Err(e),
        }
    }

    pub fn get_cancel_label(&self, env: Env, id: &str) -> Result<CancelLabel, ServiceError> {
        self.get_record(Kind::CancelLabel, env, id)
    }

    pub fn list_cancel_labels(&self, env: Env, q: &ListQuery) -> Result<CancelLabelList, ServiceError> {
        let (window, cancel_labels) = self.list_records(Kind::CancelLabel, env, q, CANCEL_STATUSES)?;
        Ok(CancelLabelList { window, cancel_labels })
    }
}
