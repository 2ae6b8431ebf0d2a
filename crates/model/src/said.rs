//! What the desk says of a problem, each saying declared once: a stable key, and the English text
//! the contract's `info` carries. A detail made from a saying carries its key and arguments beside
//! that text, so the desk's screens say it in the operator's language (the UI's catalogues hold
//! each key's words, under `said.`); the `/v3` text stays as it is.

use std::collections::BTreeMap;

macro_rules! sayings {
    ($($(#[$doc:meta])* $name:ident = $key:literal, $english:literal;)+) => {
        /// A problem the desk says in the operator's language (see the module).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Saying {
            $($(#[$doc])* $name,)+
        }

        impl Saying {
            /// Every saying, for the check that each has its words in every catalogue.
            pub const ALL: &'static [Saying] = &[$(Saying::$name),+];

            /// The stable key (the UI's `said.<key>`).
            pub fn key(self) -> &'static str {
                match self {
                    $(Saying::$name => $key,)+
                }
            }

            /// The English text, `{name}` standing for each argument.
            pub fn english(self) -> &'static str {
                match self {
                    $(Saying::$name => $english,)+
                }
            }
        }
    };
}

sayings! {
    Required = "required", "is required";
    RequiredFor = "requiredFor", "is required for {country}";
    RequiredForThirdParty = "requiredForThirdParty", "is required when paid_by is third_party (type: account, account_number)";
    RequiredForOption = "requiredForOption", "is required for a {option} option";
    NotForOption = "notForOption", "does not belong to a {option} option";
    Length = "length", "length must be {min}..{max} characters, is {n}";
    TooLongFor = "tooLongFor", "{n} characters; {carrier} allows at most {max}";
    NotACountry = "notACountry", "`{typed}` is not a country (a name, or an ISO code such as ES or ESP)";
    NotACountryCode = "notACountryCode", "`{code}` is not an ISO 3166 alpha-3 country code (e.g. USA, GBR, DEU)";
    NotACurrency = "notACurrency", "`{code}` is not an ISO 4217 currency code";
    AmountRange = "amountRange", "must be a number from 0 to {max}";
    WeightRange = "weightRange", "must be 0..{max} {unit}";
    NotAnEmail = "notAnEmail", "is not an email address";
    NotAPostalCodeOf = "notAPostalCodeOf", "not a postal code of {country} (format {formats})";
    NotAPostcode = "notAPostcode", "`{code}` is not a postal code of {country} (format {formats}); correct it, or confirm it with postal_code_override: true";
    ServiceOfOtherCarrier = "serviceOfOtherCarrier", "`{service}` is a service of {other}, but the shipper account is {carrier} ({slug})";
    UnknownService = "unknownService", "unknown service_type `{service}`; {carrier} offers: {services}";
    NotAvailableFor = "notAvailableFor", "`{value}` is not available for {carrier}; allowed: {allowed}";
    PdfOnly = "pdfOnly", "{carrier} does not accept file_type (labels are PDF); leave it out";
    NotADate = "notADate", "must be a date YYYY-MM-DD";
    InThePast = "inThePast", "{date} is in the past everywhere on earth (today is {today} in the shipper account's timezone; the earliest date that is still today somewhere, at UTC-12, is {earliest})";
    TooFarAhead = "tooFarAhead", "is more than 30 days ahead";
    NoReturnShipments = "noReturnShipments", "{carrier} does not offer return shipments";
    FieldNotAccepted = "fieldNotAccepted", "{carrier} does not accept {field} (accepted optional fields: {accepted})";
    TooManyReferences = "tooManyReferences", "at most 3 references, got {n}";
    TooManyOptions = "tooManyOptions", "at most 5 service options, got {n}";
    GivenTwice = "givenTwice", "`{option}` is given twice";
    CopiesRange = "copiesRange", "must be 1..4";
    UnknownOption = "unknownOption", "unknown service option `{option}`; known: {known}";
    OptionNotOffered = "optionNotOffered", "{carrier} does not offer `{option}` options (offers: {offers})";
    NotATime = "notATime", "must be a time of day HH:MM:SS";
    AfterStart = "afterStart", "must be after start_time";
    ParcelCount = "parcelCount", "must hold 1..50 parcels, holds {n}";
    DimensionRange = "dimensionRange", "must be more than 0 and less than 100000";
    ItemCount = "itemCount", "must hold 1..100 items, holds {n}";
    QuantityMin = "quantityMin", "must be 1 or more";
    HsCode = "hsCode", "must be 6 to 14 digits, dots allowed (e.g. 6109.10 or 61091000)";
    ShipsFromOnly = "shipsFromOnly", "{carrier} ships from {only} only, not {from}";
    ShipsToOnly = "shipsToOnly", "{carrier} ships to {only} only, not {to}";
    DomesticOnly = "domesticOnly", "{service} stays within one country and this parcel goes {from} to {to}";
    AbroadOnly = "abroadOnly", "{service} goes abroad only and this parcel goes {from} to {to}";
    ParcelNotWeighed = "parcelNotWeighed", "parcel {n} of order {order} weighs {weight}: weigh it and give its weight above 0";
    BoxNotWeighed = "boxNotWeighed", "box {n} of order {order} weighs {weight}: put it on the scale or give its weight above 0";
    BoxOffScale = "boxOffScale", "box {n} of order {order} was closed off the scale, its items have no weight and preset `{preset}` has none to assume: give each box's weight, or put each box on the scale as it is closed";
    BoxNotOnScale = "boxNotOnScale", "box {n} of order {order} is not on the scale (it shows no weight), its items have no weight and preset `{preset}` has none to assume: put the box on the scale and ship again, or give each box's weight";
    RangeUsedUp = "rangeUsedUp", "The tracking-number range of {account} (pool {pool}) is used up: {left} left, {needed} needed. Add the carrier's next range to this account (Accounts → the account → Tracking ranges)";
    NoRange = "noRange", "The tracking-number range of {account} (pool {pool}) has no tracking-number range set. Add the carrier's next range to this account (Accounts → the account → Tracking ranges)";
    RoleRefused = "roleRefused", "{action}: only {who} may do this, and {actor} is a {role}; ask one to sign in (Switch operator)";
    NoSuchOrder = "noSuchOrder", "no order {id}";
    NoOrderWithNumber = "noOrderWithNumber", "no order and no label of an order has the number {number}: check the parcel's label, or type the order number";
    MissingField = "missingField", "missing field `{field}`";
    NotOneOf = "notOneOf", "unknown variant `{value}`, expected {expected}";
    WrongType = "wrongType", "invalid type: {found}, expected {expected}";
}

impl Saying {
    /// The English text with each `{name}` filled in (a name without an argument stays as it is).
    pub fn english_with(self, args: &BTreeMap<String, String>) -> String {
        let mut text = self.english().to_string();
        for (name, value) in args {
            text = text.replace(&format!("{{{name}}}"), value);
        }
        text
    }

    /// The names of the arguments the English text takes, in order.
    pub fn argument_names(self) -> Vec<&'static str> {
        let text = self.english();
        let mut names = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else { break };
            let name = &after[..close];
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !names.contains(&name)
            {
                names.push(name);
            }
            rest = &after[close + 1..];
        }
        names
    }
}

/// A saying's arguments by name, written as the text shows them.
pub fn args<const N: usize>(pairs: [(&str, &dyn std::fmt::Display); N]) -> BTreeMap<String, String> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_saying_has_its_own_key_and_fills_its_arguments() {
        let mut keys: Vec<_> = Saying::ALL.iter().map(|s| s.key()).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), Saying::ALL.len(), "a key said twice");
        let text = Saying::Length.english_with(&args([("min", &1), ("max", &50), ("n", &60)]));
        assert_eq!(text, "length must be 1..50 characters, is 60");
        assert_eq!(
            Saying::RangeUsedUp.argument_names(),
            ["account", "pool", "left", "needed"]
        );
    }
}
