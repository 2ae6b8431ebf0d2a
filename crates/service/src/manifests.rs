//! End-of-day close-out. One write transaction selects the labels, renders the manifest, stores it
//! and moves the labels to `manifested`: a concurrent close-out or cancel of the account waits for
//! it, so no label lands in two manifests.

use crate::jobs::{Job, JobKind};
use crate::keys::Env;
use crate::records::row;
use crate::reply::Reply;
use crate::Service;
use packdesk_carriers::carrier;
use packdesk_documents::collection_sheet::{render_collection_sheet_pdf, CollectionSheet};
use packdesk_documents::manifest::{
    render_manifest_csv, render_manifest_pdf, CustomsLine, ManifestDoc, ManifestLine, Party,
};
use packdesk_documents::Paper;
use packdesk_model::record::{AccountRefDescribed, FileRef, Manifest, ManifestFiles, ManifestList, ManifestedLabel};
use packdesk_model::request::Address;
use packdesk_model::request::{ListQuery, ManifestRequest};
use packdesk_model::status::LabelStatus;
use packdesk_model::status::{DocumentType, FileKind, ManifestStatus};
use packdesk_model::transport::Transmission;
use packdesk_model::{ErrorCode, ServiceError};
use packdesk_store::accounts::AccountRow;
use packdesk_store::db::Tx;
use packdesk_store::files;
use packdesk_store::files::FileRow;
use packdesk_store::labels;
use packdesk_store::labels::LabelRow;
use packdesk_store::records;
use packdesk_store::records::Kind;
use packdesk_store::records::RecordStatus;
use serde_json::{json, Value};

pub const MANIFEST_STATUSES: &[&str] = packdesk_model::status::ManifestStatus::NAMES;

/// The parts of a stored label a manifest line needs (serde skips the rest, which keeps a
/// 10,000-label close-out fast).
#[derive(serde::Deserialize)]
struct RequestView {
    service_type: String,
    #[serde(default)]
    references: Option<Vec<String>>,
    #[serde(default)]
    service_options: Option<Vec<packdesk_model::request::ServiceOption>>,
    shipment: ShipmentView,
}

#[derive(serde::Deserialize)]
struct ShipmentView {
    ship_from: Address,
    ship_to: Address,
    parcels: Vec<ParcelView>,
}

#[derive(serde::Deserialize)]
struct ParcelView {
    weight: packdesk_model::request::Weight,
    #[serde(default)]
    dimension: Option<packdesk_model::request::Dimension>,
    #[serde(default)]
    items: Option<Vec<ItemView>>,
}

#[derive(serde::Deserialize)]
struct ItemView {
    description: String,
    quantity: i64,
    price: packdesk_model::request::Money,
    #[serde(default)]
    origin_country: Option<String>,
    #[serde(default)]
    hs_code: Option<String>,
}

#[derive(serde::Deserialize)]
struct RecordView {
    tracking_numbers: Vec<String>,
}

fn party(a: &Address) -> Party {
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    let street = [&a.street1, &a.street2, &a.street3]
        .into_iter()
        .flatten()
        .filter(|s| !s.trim().is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    Party {
        name: text(&a.contact_name),
        company: text(&a.company_name),
        street,
        city: text(&a.city),
        postal_code: text(&a.postal_code),
        country: text(&a.country),
        phone: text(&a.phone),
        email: text(&a.email),
    }
}

fn lines_of(label: &LabelRow, slug: &str) -> Vec<ManifestLine> {
    let (Ok(req), Ok(record)) = (
        serde_json::from_str::<RequestView>(&label.request),
        serde_json::from_str::<RecordView>(&label.record),
    ) else {
        return Vec::new();
    };
    let (sender, recipient) = (party(&req.shipment.ship_from), party(&req.shipment.ship_to));
    let service = packdesk_carriers::service_name(slug, &req.service_type);
    let reference = req.references.and_then(|r| r.into_iter().next()).unwrap_or_default();
    let money = |pick: fn(&packdesk_model::request::ServiceOption) -> Option<&packdesk_model::request::Money>| {
        req.service_options
            .iter()
            .flatten()
            .find_map(pick)
            .map(|m| (m.amount, m.currency.clone()))
            .unwrap_or_default()
    };
    let (cod, insured) = (money(|o| o.cod_value.as_ref()), money(|o| o.insured_value.as_ref()));
    req.shipment
        .parcels
        .iter()
        .zip(record.tracking_numbers)
        .map(|(p, tn)| ManifestLine {
            tracking_number: tn,
            weight_kg: p.weight.kg(),
            service: service.clone(),
            reference: reference.clone(),
            ship_date: label.ship_date.clone(),
            order_number: label.order_number.clone().unwrap_or_default(),
            sender: sender.clone(),
            recipient: recipient.clone(),
            dimensions_cm: p.dimension.as_ref().map_or([0.0; 3], |d| {
                [d.unit.to_cm(d.depth), d.unit.to_cm(d.width), d.unit.to_cm(d.height)]
            }),
            cod: cod.clone(),
            insured: insured.clone(),
            customs: p
                .items
                .iter()
                .flatten()
                .map(|i| CustomsLine {
                    description: i.description.clone(),
                    quantity: i.quantity,
                    value: i.price.amount,
                    currency: i.price.currency.clone(),
                    origin_country: i.origin_country.clone().unwrap_or_default(),
                    hs_code: i.hs_code.clone().unwrap_or_default(),
                })
                .collect(),
        })
        .collect()
}

/// The labels a close-out takes: the given ones (each must be a created label of the account, not
/// in a manifest) or, without label_ids, every such label of the account shipping `today` or
/// earlier (later ones wait for their day's close-out).
fn choose_labels(
    tx: &mut Tx<'_>,
    env: Env,
    account: &AccountRow,
    label_ids: &Option<Vec<String>>,
    today: chrono::NaiveDate,
) -> Result<Vec<LabelRow>, ServiceError> {
    let chosen: Vec<LabelRow> = match label_ids {
        None => labels::manifestable(tx, &account.id, &today.to_string())?,
        Some(ids) => {
            let mut out = Vec::with_capacity(ids.len());
            for (i, id) in ids.iter().enumerate() {
                let path = format!("label_ids[{i}]");
                let l = labels::get_for_update(tx, env, id)?
                    .ok_or_else(|| ServiceError::at(ErrorCode::ItemNotFound, &path, format!("no label {id}")))?;
                if l.shipper_account_id != account.id {
                    return Err(ServiceError::invalid(
                        path,
                        format!("label {id} belongs to another shipper account"),
                    ));
                }
                if l.status != LabelStatus::Created || l.manifest_id.is_some() {
                    return Err(ServiceError::invalid(
                        path,
                        format!("label {id} is {}; only created labels can be manifested", l.status),
                    ));
                }
                if out.iter().any(|o: &LabelRow| o.id == l.id) {
                    return Err(ServiceError::invalid(path, format!("label {id} is listed twice")));
                }
                out.push(l);
            }
            out
        }
    };
    if chosen.is_empty() {
        return Err(ServiceError::at(
            ErrorCode::NothingToManifest,
            "shipper_account.id",
            format!("no created label of this account shipping on {today} or earlier waits for a manifest"),
        ));
    }
    Ok(chosen)
}

/// A manifest record of `account` over the labels `ids`: `manifesting` (files to come) or
/// `manifested`.
fn manifest_record(
    id: &str,
    account: &AccountRow,
    ids: &[String],
    files: Option<ManifestFiles>,
    transmission: Option<Transmission>,
    created: i64,
    now: i64,
) -> Result<Value, ServiceError> {
    let done = files.is_some();
    let record = Manifest {
        id: id.to_string(),
        status: if done {
            ManifestStatus::Manifested
        } else {
            ManifestStatus::Manifesting
        },
        shipper_account: AccountRefDescribed {
            id: account.id.clone(),
            slug: account.slug.clone(),
            description: account.description.clone(),
        },
        labels: ids
            .iter()
            .map(|id| ManifestedLabel {
                id: id.clone(),
                manifested: done,
            })
            .collect(),
        files,
        transmission,
        created_at: crate::clock::iso_micros(created),
        updated_at: crate::clock::iso_micros(now),
    };
    serde_json::to_value(record).map_err(ServiceError::internal)
}

/// A manifest file's reference (the A4 PDF or the CSV data).
fn file_ref(file_id: &str, file_type: &str) -> Option<FileRef> {
    Some(FileRef {
        paper_size: "a4".into(),
        url: Service::file_path(file_id),
        file_type: file_type.into(),
    })
}

impl Service {
    pub fn create_manifest(&self, env: Env, req: ManifestRequest) -> Result<Reply<Manifest>, ServiceError> {
        self.create_manifest_keyed(env, req, None)
    }

    /// `create_manifest` for a request that came with an `Idempotency-Key` (an upstream gets one
    /// derived from it).
    pub fn create_manifest_keyed(
        &self,
        env: Env,
        req: ManifestRequest,
        key: Option<&str>,
    ) -> Result<Reply<Manifest>, ServiceError> {
        let mut reply: Reply<Manifest> = self.create_manifest_json(env, req, key)?.typed()?;
        if reply.outcome == crate::reply::Outcome::Done {
            self.transmit_bell.ring();
            self.with_transmissions(env, std::slice::from_mut(&mut reply.data))?;
        }
        Ok(reply)
    }

    /// Closes out an account now, or (async) puts its labels in a `manifesting` manifest that a
    /// worker completes.
    fn create_manifest_json(&self, env: Env, req: ManifestRequest, key: Option<&str>) -> Result<Reply, ServiceError> {
        let account = self.account_row(env, &req.shipper_account.id, "shipper_account.id")?;
        let manifest_id = uuid::Uuid::new_v4().to_string();
        let today = self.account_today(&account);
        if req.is_async {
            let request = serde_json::to_string(&req).map_err(ServiceError::internal)?;
            return self.accept_job(
                env,
                JobKind::Manifest,
                &manifest_id,
                &account.id,
                &request,
                |tx, now| {
                    let chosen = choose_labels(tx, env, &account, &req.label_ids, today)?;
                    let ids: Vec<String> = chosen.iter().map(|l| l.id.clone()).collect();
                    labels::set_manifesting(tx, &ids, &manifest_id, now)?;
                    let record = manifest_record(&manifest_id, &account, &ids, None, None, now, now)?;
                    records::put(
                        tx,
                        &row(
                            env,
                            Some(&account.id),
                            RecordStatus::Manifest(ManifestStatus::Manifesting),
                            &record,
                            now,
                        ),
                    )?;
                    Ok(record)
                },
            );
        }
        // An upstream closes out first, the labels chosen now; the desk then closes out exactly
        // those (a label made meanwhile waits for the next manifest, here as there).
        let mut label_ids = req.label_ids.clone();
        let mut upstream_id = None;
        if let Some(u) = self.upstream_of(&account)? {
            let chosen = self
                .store
                .write(|tx| choose_labels(tx, env, &account, &req.label_ids, today))?;
            upstream_id = self.close_out_upstream(&u, &chosen, key)?;
            label_ids = Some(chosen.into_iter().map(|l| l.id).collect());
        }
        self.store
            .write(|tx| {
                let now = self.now_us();
                let chosen = choose_labels(tx, env, &account, &label_ids, today)?;
                let record = self.close_out(tx, env, &account, &manifest_id, &chosen, now, None)?;
                if let Some(upstream_id) = &upstream_id {
                    packdesk_store::upstream_refs::insert(tx, env, &manifest_id, upstream_id)?;
                }
                Ok(record)
            })
            .map(Reply::done)
    }

    /// Closes out at the upstream the labels of `chosen` it made (none: no call); answers the
    /// upstream's manifest id. Its key is named by the caller's key, else by the labels alone: a
    /// close-out of the same labels after one that failed here meets the upstream's manifest.
    fn close_out_upstream(
        &self,
        u: &crate::upstream::UpstreamAccount,
        chosen: &[LabelRow],
        caller_key: Option<&str>,
    ) -> Result<Option<String>, ServiceError> {
        let mut ids = Vec::new();
        for l in chosen {
            ids.extend(self.upstream_id(l.env, &l.id)?);
        }
        if ids.is_empty() {
            return Ok(None);
        }
        let body = json!({"shipper_account": {"id": u.account_id}, "label_ids": ids});
        let name = crate::upstream::Name::of(caller_key, "");
        let answer = u.post("/manifests", &body, &name)?;
        Ok(Some(u.text(&answer.data, "id", "manifest")?))
    }

    /// Completes an async close-out (a worker runs this).
    pub(crate) fn finish_manifest(&self, job: &Job) -> Result<(), ServiceError> {
        let req: ManifestRequest = job.request()?;
        let account = self.account_row(job.env, &req.shipper_account.id, "shipper_account.id")?;
        let mut upstream_id = None;
        if let Some(u) = self.upstream_of(&account)? {
            let chosen = self.store.read(|c| labels::of_manifest(c, &job.id))?;
            upstream_id = self.close_out_upstream(&u, &chosen, None)?;
        }
        self.store.write(|tx| {
            if let Some(upstream_id) = &upstream_id {
                packdesk_store::upstream_refs::insert(tx, job.env, &job.id, upstream_id)?;
            }
            let chosen = labels::of_manifest(tx, &job.id)?;
            if chosen.is_empty() {
                return Err(ServiceError::at(
                    ErrorCode::NothingToManifest,
                    "shipper_account.id",
                    "the labels of this manifest are gone",
                ));
            }
            self.close_out(tx, job.env, &account, &job.id, &chosen, job.accepted_at, Some(job))
                .map(|_| ())
        })?;
        self.transmit_bell.ring();
        Ok(())
    }

    /// Renders and stores the manifest of `chosen` and moves them to `manifested`, in the caller's
    /// transaction (which a job's completion joins).
    #[allow(clippy::too_many_arguments)]
    fn close_out(
        &self,
        tx: &mut Tx<'_>,
        env: Env,
        account: &AccountRow,
        manifest_id: &str,
        chosen: &[LabelRow],
        created: i64,
        job: Option<&Job>,
    ) -> Result<Value, ServiceError> {
        let now = self.now_us();
        let c = carrier(&account.slug).ok_or_else(|| ServiceError::internal("account of an unknown carrier"))?;
        let doc = ManifestDoc {
            manifest_id: manifest_id.to_string(),
            carrier: c.name.clone(),
            account: account.description.clone(),
            date: self.account_today(account).to_string(),
            lines: chosen.iter().flat_map(|l| lines_of(l, &account.slug)).collect(),
            sample: env == Env::Sandbox,
            language: crate::settings::document_language(tx)?,
        };
        let pdf_id = uuid::Uuid::new_v4().to_string();
        let csv_id = uuid::Uuid::new_v4().to_string();
        let sheet_id = uuid::Uuid::new_v4().to_string();
        let day = doc.date.clone();
        // The driver's sheet on the paper its printer holds: 4x6 on a thermal printer, else A4.
        let sheet_stock = packdesk_store::printing::profile(tx, DocumentType::CollectionSheet)?
            .map(|p| p.stock)
            .filter(|s| s == "4x6")
            .unwrap_or_else(|| "a4".into());
        let sheet = CollectionSheet {
            manifest_id: manifest_id.to_string(),
            carrier: doc.carrier.clone(),
            account: doc.account.clone(),
            date: doc.date.clone(),
            services: CollectionSheet::count(doc.lines.iter().map(|l| (l.service.clone(), l.weight_kg))),
            sample: doc.sample,
            language: doc.language,
        };
        let paper = match sheet_stock.as_str() {
            "4x6" => Paper::IN4X6,
            _ => Paper::A4,
        };
        for (id, kind, file_type, paper_size, bytes) in [
            (&pdf_id, FileKind::Manifest, "pdf", "a4", render_manifest_pdf(&doc)),
            (
                &csv_id,
                FileKind::Manifest,
                "csv",
                "a4",
                render_manifest_csv(&doc).into_bytes(),
            ),
            (
                &sheet_id,
                FileKind::CollectionSheet,
                "pdf",
                sheet_stock.as_str(),
                render_collection_sheet_pdf(&sheet, paper),
            ),
        ] {
            files::insert(
                tx,
                &FileRow {
                    id: id.clone(),
                    env,
                    owner_id: manifest_id.to_string(),
                    kind,
                    file_type: file_type.into(),
                    paper_size: paper_size.into(),
                    bytes,
                    created_at: now,
                },
            )?;
        }
        // The carrier's copy is queued with the manifest: made means sent, whatever follows.
        let transmission = self.queue_transmission(tx, account, manifest_id, &csv_id, &day, now)?;
        let ids: Vec<String> = chosen.iter().map(|l| l.id.clone()).collect();
        labels::set_manifested(tx, &ids, manifest_id, now)?;
        self.audit(
            tx,
            Some(env),
            "manifest.created",
            Some(manifest_id),
            json!({"shipper_account_id": account.id, "labels": ids.len()}),
        )?;
        let files = ManifestFiles {
            manifest: file_ref(&pdf_id, "pdf"),
            manifest_data: file_ref(&csv_id, "csv"),
            collection_sheet: file_ref(&sheet_id, "pdf").map(|f| FileRef {
                paper_size: sheet_stock.clone(),
                ..f
            }),
        };
        // The transmission as it stands now (its webhook says so); a read shows where it is since.
        let record = manifest_record(
            manifest_id,
            account,
            &ids,
            Some(files),
            Some(transmission),
            created,
            now,
        )?;
        let mut stored = row(
            env,
            Some(&account.id),
            RecordStatus::Manifest(ManifestStatus::Manifested),
            &record,
            now,
        );
        stored.created_at = created;
        records::put(tx, &stored)?;
        if let Some(job) = job {
            self.complete_job_in(tx, job, json!({"code": 200}), record.clone(), now)?;
        }
        let mut record = record;
        self.absolute_urls(&mut record);
        Ok(record)
    }

    pub fn get_manifest(&self, env: Env, id: &str) -> Result<Manifest, ServiceError> {
        let mut m: Manifest = self.get_record(Kind::Manifest, env, id)?;
        self.with_transmissions(env, std::slice::from_mut(&mut m))?;
        Ok(m)
    }

    pub fn list_manifests(&self, env: Env, q: &ListQuery) -> Result<ManifestList, ServiceError> {
        let (window, mut manifests) = self.list_records(Kind::Manifest, env, q, MANIFEST_STATUSES)?;
        self.with_transmissions(env, &mut manifests)?;
        Ok(ManifestList { window, manifests })
    }
}
