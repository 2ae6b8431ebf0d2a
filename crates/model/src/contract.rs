//! Reading a request body as the interface's types. Structure and types come from serde: the first
//! problem is reported with its path (`shipment.parcels[0].weight.value`), which is what
//! `meta.details[].path` shows. Every face that takes JSON (the HTTP extractor, the CLI, tests,
//! a queued job's stored request) goes through here, so a body means the same thing wherever it
//! comes from.
//!
//! Stricter than serde_json alone: a key twice in one object, an array where an object is
//! expected (serde's derive would read `[2, "kg"]` as a weight) and control characters in text
//! are refused with the path where they are.

use crate::{ErrorCode, ServiceError};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use serde_json::{Map, Number, Value};
use std::cell::RefCell;
use std::fmt;

/// Keys whose text may span lines (a note, delivery instructions); every other text is one line.
pub const MULTI_LINE_KEYS: &[&str] = &[
    "delivery_instructions",
    "notes",
    "note",
    "private_key",
    "ca_certificate",
];

/// What is wrong with a text value, if anything: control characters are refused but for tab, and
/// line breaks where the text may span lines (`multi_line`).
pub fn text_problem(s: &str, multi_line: bool) -> Option<String> {
    // Most text is plain printable ASCII or UTF-8 without C1 controls: one pass over the bytes.
    if !s.bytes().any(|b| b < 0x20 || b == 0x7f || b == 0xc2) {
        return None;
    }
    let (i, c) = s.char_indices().find(|&(_, c)| {
        let control = c.is_control() && c != '\t';
        control && !(multi_line && (c == '\n' || c == '\r'))
    })?;
    let position = s[..i].chars().count() + 1;
    let allowed = match multi_line {
        true => "tab and line breaks",
        false => "tab",
    };
    Some(format!(
        "holds a control character (U+{:04X}) at character {position}; no control character but {allowed} is taken here",
        c as u32
    ))
}

/// Keys whose values name records by id: an id is found whatever the case of its hex digits.
const ID_KEYS: &[&str] = &[
    "id",
    "label_id",
    "label_ids",
    "manifest_id",
    "bulk_download_id",
    "printer_id",
    "file_id",
    "shipper_account_id",
    "shipper_account_ids",
    "order_ids",
];

/// A UUID written with capital hex digits, in the lower case ids are issued in (None: not a UUID,
/// or already lower case).
pub fn lower_case_uuid(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let shaped = b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        });
    (shaped && b.iter().any(u8::is_ascii_uppercase)).then(|| s.to_ascii_lowercase())
}

/// Ids under `ID_KEYS` in lower case.
fn lower_case_ids(value: &mut Value, id_key: bool) {
    match value {
        Value::String(s) if id_key => {
            if let Some(lower) = lower_case_uuid(s) {
                *s = lower;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| lower_case_ids(v, id_key)),
        Value::Object(m) => m
            .iter_mut()
            .for_each(|(k, v)| lower_case_ids(v, ID_KEYS.contains(&k.as_str()))),
        _ => {}
    }
}

/// Parses a request body: 4109 when it is not JSON, 4104 with the path of the first structural
/// problem (unknown key, missing key, wrong type, value outside an enum, a key twice, an array
/// where an object belongs, a control character in text).
pub fn from_slice<T: DeserializeOwned>(body: &[u8]) -> Result<T, ServiceError> {
    let duplicate = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_slice(body);
    let parsed = ValueSeed {
        at: &At::Root,
        duplicate: &duplicate,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    match parsed {
        Ok(value) => from_value(value),
        Err(e) => Err(match duplicate.take() {
            Some(path) => ServiceError::invalid(path, "appears twice in one object; send each key once"),
            None => ServiceError::at(ErrorCode::InvalidJson, "", format!("the body is not JSON: {e}")),
        }),
    }
}

/// Reads an already parsed JSON value as `T`, with the same checks and paths as `from_slice`
/// (but for duplicate keys, which a parsed value no longer has).
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, ServiceError> {
    if !value.is_object() {
        return Err(ServiceError::invalid("", "the body must be a JSON object"));
    }
    check_text(&value, &At::Root, false)?;
    let mut value = value;
    lower_case_ids(&mut value, false);
    serde_path_to_error::deserialize(Strict(value)).map_err(|e| {
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
        let detail = said_of_serde(&path, &info).unwrap_or_else(|| crate::Detail::new(path, info));
        ServiceError {
            details: vec![detail],
            ..ServiceError::new(crate::ErrorCode::InvalidRequest)
        }
    })
}

/// serde's own words of a missing key, a word not in a list, or a value of the wrong type, as
/// the sayings that say them (the same English).
fn said_of_serde(path: &str, info: &str) -> Option<crate::Detail> {
    use crate::said::{args, Saying};
    if let Some(field) = info.strip_prefix("missing field `").and_then(|r| r.strip_suffix('`')) {
        return Some(crate::Detail::said(
            path,
            Saying::MissingField,
            args([("field", &field)]),
        ));
    }
    if let Some(rest) = info.strip_prefix("unknown variant `") {
        let (value, expected) = rest.split_once("`, expected ")?;
        return Some(crate::Detail::said(
            path,
            Saying::NotOneOf,
            args([("value", &value), ("expected", &expected)]),
        ));
    }
    let rest = info.strip_prefix("invalid type: ")?;
    let (found, expected) = rest.split_once(", expected ")?;
    Some(crate::Detail::said(
        path,
        Saying::WrongType,
        args([("found", &found), ("expected", &expected)]),
    ))
}

/// Where a value sits in the body, rendered only when there is something to say about it.
enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            At::Root => Ok(()),
            At::Key(At::Root, k) => write!(f, "{k}"),
            At::Key(parent, k) => write!(f, "{parent}.{k}"),
            At::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// Every text of the body, and every key, checked for control characters.
fn check_text(value: &Value, at: &At<'_>, multi_line: bool) -> Result<(), ServiceError> {
    match value {
        Value::String(s) => match text_problem(s, multi_line) {
            Some(why) => Err(ServiceError::invalid(at.to_string(), why)),
            None => Ok(()),
        },
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, v)| check_text(v, &At::Index(at, i), multi_line)),
        Value::Object(m) => m.iter().try_for_each(|(k, v)| {
            let here = At::Key(at, k);
            if let Some(why) = text_problem(k, false) {
                return Err(ServiceError::invalid(here.to_string(), format!("the key {why}")));
            }
            check_text(v, &here, MULTI_LINE_KEYS.contains(&k.as_str()))
        }),
        _ => Ok(()),
    }
}

/// Builds a `Value` from the parser like serde_json's own, refusing a key seen twice in one
/// object (serde_json keeps the last silently); the key's path is left in `duplicate`.
struct ValueSeed<'a> {
    at: &'a At<'a>,
    duplicate: &'a RefCell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        loop {
            let at = At::Index(self.at, items.len());
            let seed = ValueSeed {
                at: &at,
                duplicate: self.duplicate,
            };
            match seq.next_element_seed(seed)? {
                Some(v) => items.push(v),
                None => return Ok(Value::Array(items)),
            }
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut m = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let at = At::Key(self.at, &key);
            let value = map.next_value_seed(ValueSeed {
                at: &at,
                duplicate: self.duplicate,
            })?;
            if m.contains_key(&key) {
                *self.duplicate.borrow_mut() = Some(at.to_string());
                return Err(de::Error::custom("duplicate key"));
            }
            m.insert(key, value);
        }
        Ok(Value::Object(m))
    }
}

/// A `Value` read as a type, where a struct or an enum's struct variant must be a JSON object
/// (serde_json's own reads a struct from an array too).
struct Strict(Value);

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl<'de> Deserializer<'de> for Strict {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => v.visit_unit(),
            Value::Bool(b) => v.visit_bool(b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => v.visit_u64(u),
                (None, Some(i)) => v.visit_i64(i),
                _ => v.visit_f64(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => v.visit_string(s),
            Value::Array(items) => {
                let len = items.len();
                let mut seq = Seq(items.into_iter());
                let out = v.visit_seq(&mut seq)?;
                match seq.0.len() {
                    0 => Ok(out),
                    _ => Err(de::Error::invalid_length(len, &"fewer elements")),
                }
            }
            Value::Object(m) => v.visit_map(Entries {
                iter: m.into_iter(),
                value: None,
            }),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => v.visit_none(),
            _ => v.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, v: V) -> Result<V::Value, Self::Error> {
        v.visit_newtype_struct(self)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_map(v)
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Object(_) => self.deserialize_any(v),
            other => Err(de::Error::custom(format!(
                "must be a JSON object, not {}",
                kind(&other)
            ))),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::String(s) => v.visit_enum(IntoDeserializer::<serde_json::Error>::into_deserializer(s)),
            Value::Object(m) if m.len() == 1 => {
                let (key, value) = m.into_iter().next().expect("one entry");
                v.visit_enum(Variant { key, value })
            }
            other => Err(de::Error::custom(format!(
                "must be a string or an object of one key, not {}",
                kind(&other)
            ))),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct identifier ignored_any
    }
}

struct Seq(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Seq {
    type Error = serde_json::Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Self::Error> {
        self.0.next().map(|v| seed.deserialize(Strict(v))).transpose()
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Entries {
    iter: serde_json::map::IntoIter,
    value: Option<Value>,
}

impl<'de> MapAccess<'de> for Entries {
    type Error = serde_json::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Self::Error> {
        match self.iter.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(IntoDeserializer::<serde_json::Error>::into_deserializer(k))
                    .map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Self::Error> {
        match self.value.take() {
            Some(v) => seed.deserialize(Strict(v)),
            None => Err(de::Error::custom("a value without its key")),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct Variant {
    key: String,
    value: Value,
}

impl<'de> EnumAccess<'de> for Variant {
    type Error = serde_json::Error;
    type Variant = Strict;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Strict), Self::Error> {
        let name = seed.deserialize(IntoDeserializer::<serde_json::Error>::into_deserializer(self.key))?;
        Ok((name, Strict(self.value)))
    }
}

impl<'de> VariantAccess<'de> for Strict {
    type Error = serde_json::Error;
    fn unit_variant(self) -> Result<(), Self::Error> {
        match self.0 {
            Value::Null => Ok(()),
            other => Err(de::Error::custom(format!("takes no value, not {}", kind(&other)))),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Self::Error> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, v: V) -> Result<V::Value, Self::Error> {
        self.deserialize_seq(v)
    }
    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], v: V) -> Result<V::Value, Self::Error> {
        self.deserialize_struct("", fields, v)
    }
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

    fn label_body(shipper_account: &str, weight: &str, extra: &str) -> String {
        format!(
            r#"{{"service_type":"x","shipper_account":{shipper_account},"shipment":{{"ship_from":{{}},"ship_to":{{}},"parcels":[{{"weight":{weight}}}]}}{extra}}}"#
        )
    }

    #[test]
    fn an_array_where_an_object_belongs_is_refused_at_its_path() {
        let ok = label_body(r#"{"id":"a"}"#, r#"{"value":2,"unit":"kg"}"#, "");
        // The same body with objects where objects belong reads (value rules come later).
        assert!(from_slice::<LabelRequest>(ok.as_bytes()).is_ok());
        for (body, path) in [
            (
                label_body(r#"["a"]"#, r#"{"value":2,"unit":"kg"}"#, ""),
                "shipper_account",
            ),
            (
                label_body(r#"{"id":"a"}"#, r#"[2,"kg"]"#, ""),
                "shipment.parcels[0].weight",
            ),
            (
                label_body(r#"{"id":"a"}"#, r#"{"value":2,"unit":"kg"}"#, r#","invoice":[]"#),
                "invoice",
            ),
        ] {
            let e = from_slice::<LabelRequest>(body.as_bytes()).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidRequest, "{body}");
            assert_eq!(e.details[0].path, path, "{body}");
            assert!(
                e.details[0].info.contains("must be a JSON object, not an array"),
                "{e:?}"
            );
        }
    }

    #[test]
    fn ids_are_read_in_lower_case_whatever_the_case_of_their_hex_digits() {
        let id = "0B8F5E3C-1D2A-4C5B-9E7F-123456789ABC";
        let body = label_body(
            &format!(r#"{{"id":"{id}"}}"#),
            r#"{"value":2,"unit":"kg"}"#,
            r#","order_id":"ABC-1""#,
        );
        let req = from_slice::<LabelRequest>(body.as_bytes()).unwrap();
        assert_eq!(req.shipper_account.id, id.to_lowercase());
        // A client's own value is kept as sent.
        assert_eq!(req.order_id.as_deref(), Some("ABC-1"));
        assert_eq!(lower_case_uuid("not-a-uuid"), None);
        assert_eq!(lower_case_uuid(&id.to_lowercase()), None);
    }

    #[test]
    fn a_key_twice_in_one_object_is_refused_naming_it() {
        let body = label_body(r#"{"id":"a","id":"b"}"#, r#"{"value":2,"unit":"kg"}"#, "");
        let e = from_slice::<LabelRequest>(body.as_bytes()).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidRequest);
        assert_eq!(e.details[0].path, "shipper_account.id");
        assert!(e.details[0].info.contains("twice"), "{e:?}");
        let e = from_slice::<LabelRequest>(br#"{"async":true,"async":false}"#).unwrap_err();
        assert_eq!(e.details[0].path, "async");
        // Not JSON stays 4109.
        assert_eq!(
            from_slice::<LabelRequest>(b"{\"a\":").unwrap_err().code,
            ErrorCode::InvalidJson
        );
    }

    #[test]
    fn control_characters_are_refused_but_tab_and_line_breaks_where_text_spans_lines() {
        assert_eq!(text_problem("Rue de la Paix\t12", false), None);
        assert_eq!(text_problem("Zoë Ørsted 東京", false), None);
        for bad in ["a\u{0}b", "bell\u{7}", "esc\u{1b}[31m", "two\r\nlines", "c1\u{85}"] {
            assert!(text_problem(bad, false).is_some(), "{bad:?}");
        }
        assert_eq!(text_problem("ring twice\r\nback door", true), None);
        assert!(text_problem("nul\u{0}", true).unwrap().contains("U+0000"));
        let body = r#"{"service_type":"x","shipper_account":{"id":"a"},"shipment":{"ship_from":{},"ship_to":{"contact_name":"Ann\u0007"},"parcels":[],"delivery_instructions":"ring\nback door"}}"#;
        let e = from_slice::<LabelRequest>(body.as_bytes()).unwrap_err();
        assert_eq!(e.details[0].path, "shipment.ship_to.contact_name");
        assert!(e.details[0].info.contains("U+0007"), "{e:?}");
    }
}
