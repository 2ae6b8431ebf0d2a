//! Reading a request body as the interface's types. Structure and types come from serde: the first
//! problem is reported with its path (`shipment.parcels[0].weight.value`), which is what
//! `meta.details[].path` shows. Every face that takes JSON (the HTTP extractor, the CLI, tests)
//! goes through here, so a body means the same thing wherever it comes from.

use crate::{ErrorCode, ServiceError};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Parses a request body: 4109 when it is not JSON, 4104 with the path of the first structural
/// problem (unknown key, missing key, wrong type, value outside an enum).
pub fn from_slice<T: DeserializeOwned>(body: &[u8]) -> Result<T, ServiceError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| ServiceError::at(ErrorCode::InvalidJson, "", format!("the body is not JSON: {e}")))?;
    from_value(value)
}

/// Reads an already parsed JSON value as `T`, with the same checks and paths as `from_slice`.
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, ServiceError> {
    if !value.is_object() {
        return Err(ServiceError::invalid("", "the body must be a JSON object"));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let mut path = e.path().to_string();
        if path == "." {
            path.clear();
        }
        let info = e.inner().to_string();
        // serde reports unknown and missing keys at their parent; point at the key itself.
        for prefix in ["unknown field `", "missing field `"] {
            if let Some(rest) = info.strip_prefix(prefix) {
                if let Some(key) = rest.split('`').next() {
                    if !path.ends_with(key) {
                        path = if path.is_empty() {
                            key.to_string()
                        } else {
                            format!("{path}.{key}")
                        };
                    }
                }
            }
        }
        ServiceError::invalid(path, info)
    })
}

/// Reads JSON already in hand as a request type: `json!({...}).to_request::<LabelRequest>()`.
/// For callers that build bodies as JSON (scripts, tests); the checks and paths are `from_value`'s.
pub trait ToRequest {
    fn to_request<T: DeserializeOwned>(&self) -> Result<T, ServiceError>;
}

impl ToRequest for Value {
    fn to_request<T: DeserializeOwned>(&self) -> Result<T, ServiceError> {
        from_value(self.clone())
    }
}

impl ToRequest for str {
    fn to_request<T: DeserializeOwned>(&self) -> Result<T, ServiceError> {
        from_slice(self.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::LabelRequest;

    #[test]
    fn from_slice_points_at_the_offending_key() {
        let e = from_slice::<LabelRequest>(b"{nope").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson);
        let e = from_slice::<LabelRequest>(
            br#"{"service_type":"x","shipper_account":{"id":"a"},"shipment":{},"colour":1}"#,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidRequest);
        let e =
            from_slice::<LabelRequest>(br#"{"service_type":"x","shipper_account":{"id":"a"},"colour":1}"#).unwrap_err();
        assert_eq!(e.details[0].path, "colour");
        let e = from_slice::<LabelRequest>(br#"{"service_type":"x","shipper_account":{"id":"a"}}"#).unwrap_err();
        assert_eq!(e.details[0].path, "shipment");
        let body = br#"{"service_type":"x","shipper_account":{"id":"a"},"shipment":{"ship_from":{},"ship_to":{},"parcels":[{"weight":{"value":1,"unit":"stone"}}]}}"#;
        let e = from_slice::<LabelRequest>(body).unwrap_err();
        assert_eq!(e.details[0].path, "shipment.parcels[0].weight.unit");
        assert!(e.details[0].info.contains("kg"), "{}", e.details[0].info);
    }
}
