//! History as the desk shows it: each label with its recipient, the carrier's name of its service
//! and whether it printed (the label record alone has none of these).

use crate::keys::Env;
use crate::Service;
use packdesk_model::desk::{History, HistoryRow};
use packdesk_model::request::{Address, ListQuery, Weight};
use packdesk_model::ServiceError;

/// The parts of a stored request History shows.
#[derive(serde::Deserialize)]
struct RequestView {
    shipment: ShipmentView,
}

#[derive(serde::Deserialize)]
struct ShipmentView {
    ship_to: Address,
    #[serde(default)]
    parcels: Vec<ParcelView>,
}

#[derive(serde::Deserialize)]
struct ParcelView {
    weight: Weight,
}

/// The parts given, trimmed, comma separated.
fn joined(parts: [Option<&str>; 2]) -> String {
    parts
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Name, and company when there is one.
fn recipient(to: &Address) -> String {
    joined([to.contact_name.as_deref(), to.company_name.as_deref()])
}

/// City and country.
fn destination(to: &Address) -> String {
    joined([to.city.as_deref(), to.country.as_deref()])
}

impl Service {
    /// A page of History: the `GET /labels` query, each label with its recipient, service name
    /// and last print job.
    pub fn history(&self, env: Env, q: &ListQuery) -> Result<History, ServiceError> {
        let crate::labels::LabelsPage {
            window,
            rows,
            searched_back_to,
        } = self.label_rows(env, q)?;
        let (printed, made_by) = self.store.read(|c| {
            let printed = rows
                .iter()
                .map(|r| packdesk_store::printing::last_job_of(c, &r.id, packdesk_model::status::DocumentType::Label))
                .collect::<Result<Vec<_>, _>>()?;
            let made_by = rows
                .iter()
                .map(|r| packdesk_store::audit::actor_of(c, "label.created", &r.id))
                .collect::<Result<Vec<_>, _>>()?;
            Ok::<_, packdesk_store::StoreError>((printed, made_by))
        })?;
        let rows = rows
            .iter()
            .zip(printed)
            .zip(made_by)
            .map(|((r, printed), made_by)| {
                let label = self.label_of(r)?;
                let req: Option<RequestView> = serde_json::from_str(&r.request).ok();
                let to = req.as_ref().map(|q| &q.shipment.ship_to);
                let service_name = packdesk_carriers::service_name(&label.shipper_account.slug, &label.service_type);
                let (print_status, print_error) = match printed {
                    Some((status, error)) => (Some(status), error),
                    None => (None, None),
                };
                Ok(HistoryRow {
                    recipient: to.map(recipient).unwrap_or_default(),
                    destination: to.map(destination).unwrap_or_default(),
                    service_name,
                    weight: req.as_ref().and_then(|q| {
                        let weights: Vec<Weight> = q.shipment.parcels.iter().map(|p| p.weight).collect();
                        Weight::total(&weights)
                    }),
                    print_status,
                    print_error,
                    made_by,
                    label,
                })
            })
            .collect::<Result<Vec<_>, ServiceError>>()?;
        Ok(History {
            window,
            rows,
            searched_back_to: searched_back_to.map(crate::clock::iso_micros),
        })
    }
}
