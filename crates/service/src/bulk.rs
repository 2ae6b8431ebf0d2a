//! Bulk downloads: the labels of 2..100 labels merged into one file, in request order.

use crate::jobs::{Job, JobKind};
use crate::keys::Env;
use crate::records::row;
use crate::reply::Reply;
use crate::Service;
use packdesk_documents::merge::merge_pdfs;
use packdesk_model::record::{BulkDownload, BulkDownloadList, BulkFiles, FileRef};
use packdesk_model::request::{BulkDownloadRequest, IdRef, ListQuery};
use packdesk_model::status::LabelStatus;
use packdesk_model::status::{BulkDownloadStatus, FileKind};
use packdesk_model::ServiceError;
use packdesk_store::files::FileRow;
use packdesk_store::records;
use packdesk_store::records::Kind;
use packdesk_store::records::RecordStatus;
use packdesk_store::{files, labels};
use serde_json::{json, Value};

pub const BULK_STATUSES: &[&str] = packdesk_model::status::BulkDownloadStatus::NAMES;

/// A bulk download record: `creating` (files to come) or `created`.
fn bulk_record(
    id: String,
    labels: Vec<IdRef>,
    invalid_labels: Vec<IdRef>,
    files: Option<BulkFiles>,
    created: i64,
    now: i64,
) -> Result<Value, ServiceError> {
    serde_json::to_value(BulkDownload {
        id,
        status: if files.is_some() {
            BulkDownloadStatus::Created
        } else {
            BulkDownloadStatus::Creating
        },
        labels,
        invalid_labels,
        files,
        created_at: crate::clock::iso_micros(created),
        updated_at: crate::clock::iso_micros(now),
    })
    .map_err(ServiceError::internal)
}

impl Service {
    pub fn create_bulk_download(
        &self,
        env: Env,
        req: BulkDownloadRequest,
    ) -> Result<Reply<BulkDownload>, ServiceError> {
        self.create_bulk_download_json(env, req)?.typed()
    }

    fn create_bulk_download_json(&self, env: Env, req: BulkDownloadRequest) -> Result<Reply, ServiceError> {
        if !(2..=100).contains(&req.labels.len()) {
            return Err(ServiceError::invalid(
                "labels",
                format!("must hold 2..100 labels, holds {}", req.labels.len()),
            ));
        }
        let id = uuid::Uuid::new_v4().to_string();
        if req.is_async {
            let request = serde_json::to_string(&req).map_err(ServiceError::internal)?;
            return self.accept_job(env, JobKind::BulkDownload, &id, &id, &request, |tx, now| {
                let record = bulk_record(id.clone(), Vec::new(), Vec::new(), None, now, now)?;
                records::put(
                    tx,
                    &row(
                        env,
                        None,
                        RecordStatus::BulkDownload(BulkDownloadStatus::Creating),
                        &record,
                        now,
                    ),
                )?;
                Ok(record)
            });
        }
        self.make_bulk_download(env, &req, &id, None).map(Reply::done)
    }

    /// Completes an async bulk download (a worker runs this).
    pub(crate) fn finish_bulk_download(&self, job: &Job) -> Result<(), ServiceError> {
        let req: BulkDownloadRequest = job.request()?;
        self.make_bulk_download(job.env, &req, &job.id, Some(job)).map(|_| ())
    }

    fn make_bulk_download(
        &self,
        env: Env,
        req: &BulkDownloadRequest,
        id: &str,
        job: Option<&Job>,
    ) -> Result<Value, ServiceError> {
        // Unknown and cancelled labels go to invalid_labels; the rest are merged in request order.
        let (mut valid, mut invalid, mut docs) = (Vec::new(), Vec::new(), Vec::new());
        self.store.read(|c| {
            for l in &req.labels {
                let label = labels::get(c, env, &l.id)?;
                let file = match &label {
                    Some(lb) if !matches!(lb.status, LabelStatus::Cancelled | LabelStatus::Failed) => {
                        files::of_owner(c, env, &l.id, FileKind::Label)?
                    }
                    _ => None,
                };
                match file {
                    Some(f) => {
                        valid.push(IdRef { id: l.id.clone() });
                        docs.push(f);
                    }
                    None => invalid.push(IdRef { id: l.id.clone() }),
                }
            }
            Ok::<_, ServiceError>(())
        })?;
        if docs.is_empty() {
            return Err(ServiceError::at(
                packdesk_model::ErrorCode::ItemNotFound,
                "labels",
                "none of the labels exists or can be downloaded",
            ));
        }
        let file_type = docs[0].file_type.clone();
        if let Some(i) = docs.iter().position(|d| d.file_type != file_type) {
            return Err(ServiceError::invalid(
                "labels",
                format!(
                    "the labels mix {} and {} files (label {}); a bulk download merges one kind",
                    file_type.to_uppercase(),
                    docs[i].file_type.to_uppercase(),
                    docs[i].owner_id
                ),
            ));
        }
        // The record's paper size is one of the contract's: labels of two sizes are not merged.
        let paper = docs[0].paper_size.clone();
        if let Some(i) = docs.iter().position(|d| d.paper_size != paper) {
            return Err(ServiceError::invalid(
                "labels",
                format!(
                    "the labels mix {} and {} paper (label {}); a bulk download merges labels of one paper size",
                    paper, docs[i].paper_size, docs[i].owner_id
                ),
            ));
        }
        let bytes = if file_type == "zpl" {
            docs.iter().flat_map(|d| d.bytes.iter().copied()).collect()
        } else {
            let all: Vec<Vec<u8>> = docs.iter().map(|d| d.bytes.clone()).collect();
            merge_pdfs(&all).map_err(ServiceError::internal)?
        };
        let file_id = uuid::Uuid::new_v4().to_string();
        let now = self.now_us();
        let created = job.map(|j| j.accepted_at).unwrap_or(now);
        let files = BulkFiles {
            label: Some(FileRef {
                paper_size: paper.clone(),
                url: Service::file_path(&file_id),
                file_type: file_type.clone(),
            }),
        };
        let record = bulk_record(id.to_string(), valid, invalid, Some(files), created, now)?;
        self.store.write(|tx| {
            files::insert(
                tx,
                &FileRow {
                    id: file_id.clone(),
                    env,
                    owner_id: id.to_string(),
                    kind: FileKind::Bulk,
                    file_type: file_type.clone(),
                    paper_size: paper.clone(),
                    bytes,
                    created_at: now,
                },
            )?;
            records::put(
                tx,
                &row(
                    env,
                    None,
                    RecordStatus::BulkDownload(BulkDownloadStatus::Created),
                    &record,
                    now,
                ),
            )?;
            match job {
                Some(job) => self.complete_job_in(tx, job, json!({"code": 200}), record.clone(), now),
                None => Ok(()),
            }
        })?;
        let mut record = record;
        self.absolute_urls(&mut record);
        Ok(record)
    }

    pub fn get_bulk_download(&self, env: Env, id: &str) -> Result<BulkDownload, ServiceError> {
        self.get_record(Kind::BulkDownload, env, id)
    }

    pub fn list_bulk_downloads(&self, env: Env, q: &ListQuery) -> Result<BulkDownloadList, ServiceError> {
        let (window, bulk_downloads) = self.list_records(Kind::BulkDownload, env, q, BULK_STATUSES)?;
        Ok(BulkDownloadList { window, bulk_downloads })
    }
}
