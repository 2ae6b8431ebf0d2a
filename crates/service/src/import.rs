//! CSV import of orders, as shops and ERPs export them: UTF-8 (with or without BOM) or
//! Windows-1252, comma, semicolon or tab, CRLF, quoted fields with separators and line breaks
//! inside, decimal commas in semicolon files. Columns are recognised by their headers (common
//! synonyms) or by a saved mapping; rows with the same order number make one order with several
//! items. A bad row fails its order alone, and an order is imported whole or not at all.

use crate::keys::Env;
use crate::orders::{check_order, DefaultCurrency, Upserted};
use crate::Service;
use packdesk_model::error::Problems;
use packdesk_model::order::{ImportFailure, ImportMapping, ImportResult, OrderItem, OrderRequest, OrderSource};
use packdesk_model::request::{Address, Money, Weight, WeightUnit};
use packdesk_model::ServiceError;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;

/// The fields a column can fill (the values of a mapping).
pub const FIELDS: &[&str] = &[
    "order_number",
    "ship_to.contact_name",
    "ship_to.company_name",
    "ship_to.street1",
    "ship_to.street2",
    "ship_to.street3",
    "ship_to.city",
    "ship_to.state",
    "ship_to.postal_code",
    "ship_to.country",
    "ship_to.phone",
    "ship_to.email",
    "items.description",
    "items.sku",
    "items.barcode",
    "items.quantity",
    "items.price",
    "items.currency",
    "items.weight.kg",
    "items.weight.lb",
    "items.weight.g",
    "items.weight.oz",
    "weight.kg",
    "weight.lb",
    "weight.g",
    "weight.oz",
    "tags",
    "notes",
    "preset",
];

/// Header words (lower case, punctuation as spaces) and the field they fill.
const SYNONYMS: &[(&str, &str)] = &[
    ("order id", "order_number"),
    ("order number", "order_number"),
    ("order no", "order_number"),
    ("order", "order_number"),
    ("order #", "order_number"),
    ("reference", "order_number"),
    ("order reference", "order_number"),
    ("orderid", "order_number"),
    ("ordernumber", "order_number"),
    ("recipient", "ship_to.contact_name"),
    ("name", "ship_to.contact_name"),
    ("recipient name", "ship_to.contact_name"),
    ("ship to name", "ship_to.contact_name"),
    ("shipping name", "ship_to.contact_name"),
    ("full name", "ship_to.contact_name"),
    ("customer name", "ship_to.contact_name"),
    ("contact name", "ship_to.contact_name"),
    ("company", "ship_to.company_name"),
    ("company name", "ship_to.company_name"),
    ("shipping company", "ship_to.company_name"),
    ("address 1", "ship_to.street1"),
    ("address1", "ship_to.street1"),
    ("address", "ship_to.street1"),
    ("street", "ship_to.street1"),
    ("street 1", "ship_to.street1"),
    ("address line 1", "ship_to.street1"),
    ("shipping address1", "ship_to.street1"),
    ("shipping street", "ship_to.street1"),
    ("address 2", "ship_to.street2"),
    ("address2", "ship_to.street2"),
    ("street 2", "ship_to.street2"),
    ("address line 2", "ship_to.street2"),
    ("shipping address2", "ship_to.street2"),
    ("address 3", "ship_to.street3"),
    ("address line 3", "ship_to.street3"),
    ("city", "ship_to.city"),
    ("town", "ship_to.city"),
    ("shipping city", "ship_to.city"),
    ("state", "ship_to.state"),
    ("province", "ship_to.state"),
    ("region", "ship_to.state"),
    ("county", "ship_to.state"),
    ("shipping province", "ship_to.state"),
    ("zip", "ship_to.postal_code"),
    ("zip code", "ship_to.postal_code"),
    ("zipcode", "ship_to.postal_code"),
    ("postcode", "ship_to.postal_code"),
    ("post code", "ship_to.postal_code"),
    ("postal code", "ship_to.postal_code"),
    ("postalcode", "ship_to.postal_code"),
    ("shipping zip", "ship_to.postal_code"),
    ("plz", "ship_to.postal_code"),
    ("country", "ship_to.country"),
    ("country code", "ship_to.country"),
    ("shipping country", "ship_to.country"),
    ("phone", "ship_to.phone"),
    ("telephone", "ship_to.phone"),
    ("phone number", "ship_to.phone"),
    ("shipping phone", "ship_to.phone"),
    ("tel", "ship_to.phone"),
    ("email", "ship_to.email"),
    ("e mail", "ship_to.email"),
    ("email address", "ship_to.email"),
    ("item", "items.description"),
    ("description", "items.description"),
    ("product", "items.description"),
    ("item name", "items.description"),
    ("product name", "items.description"),
    ("lineitem name", "items.description"),
    ("item description", "items.description"),
    ("sku", "items.sku"),
    ("item sku", "items.sku"),
    ("lineitem sku", "items.sku"),
    ("product sku", "items.sku"),
    ("barcode", "items.barcode"),
    ("item barcode", "items.barcode"),
    ("lineitem barcode", "items.barcode"),
    ("product barcode", "items.barcode"),
    ("upc", "items.barcode"),
    ("ean", "items.barcode"),
    ("gtin", "items.barcode"),
    ("variant barcode", "items.barcode"),
    ("qty", "items.quantity"),
    ("quantity", "items.quantity"),
    ("lineitem quantity", "items.quantity"),
    ("item quantity", "items.quantity"),
    ("unit price", "items.price"),
    ("price", "items.price"),
    ("item price", "items.price"),
    ("lineitem price", "items.price"),
    ("currency", "items.currency"),
    ("item weight", "items.weight.kg"),
    ("item weight kg", "items.weight.kg"),
    ("item weight lb", "items.weight.lb"),
    ("item weight g", "items.weight.g"),
    ("item weight oz", "items.weight.oz"),
    ("weight", "weight.kg"),
    ("weight kg", "weight.kg"),
    ("weight lb", "weight.lb"),
    ("weight lbs", "weight.lb"),
    ("weight g", "weight.g"),
    ("weight oz", "weight.oz"),
    ("tags", "tags"),
    ("tag", "tags"),
    ("notes", "notes"),
    ("note", "notes"),
    ("comment", "notes"),
    ("comments", "notes"),
    ("preset", "preset"),
];

/// A header as the synonym table spells it: lower case, punctuation and brackets as spaces.
fn normalized(header: &str) -> String {
    header
        .trim_start_matches('\u{feff}')
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() || c == '#' { c } else { ' ' })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The file as text: UTF-8 (a BOM dropped), else Windows-1252 (what Excel writes on Windows).
pub fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => encoding_rs::WINDOWS_1252
            .decode_without_bom_handling(bytes)
            .0
            .into_owned(),
    }
}

/// The separator of the header line: the most frequent of comma, semicolon and tab outside quotes.
pub fn separator(text: &str) -> u8 {
    let header = text.lines().next().unwrap_or("");
    let (mut counts, mut quoted) = ([0usize; 3], false);
    for c in header.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => counts[0] += 1,
            ';' if !quoted => counts[1] += 1,
            '\t' if !quoted => counts[2] += 1,
            _ => {}
        }
    }
    let seps = [b',', b';', b'\t'];
    let best = (0..3).max_by_key(|&i| (counts[i], usize::from(i == 0))).unwrap_or(0);
    seps[best]
}

/// Which field each header fills: the mapping's choice, else the synonym table (`None`: ignored).
fn columns(headers: &[String], mapping: Option<&ImportMapping>) -> Vec<Option<&'static str>> {
    headers
        .iter()
        .map(|h| {
            let by_mapping = mapping.and_then(|m| {
                m.columns
                    .iter()
                    .find(|(k, _)| k.trim() == h.trim() || normalized(k) == normalized(h))
                    .map(|(_, v)| v.as_str())
            });
            match by_mapping {
                Some(field) => FIELDS.iter().find(|f| **f == field).copied(),
                None => SYNONYMS.iter().find(|(s, _)| *s == normalized(h)).map(|(_, f)| *f),
            }
        })
        .collect()
}

/// Checks a mapping's fields before it is saved.
pub fn check_mapping(m: &ImportMapping) -> Result<(), ServiceError> {
    let mut p = Problems::default();
    for (header, field) in &m.columns {
        if !FIELDS.contains(&field.as_str()) {
            p.invalid(
                format!("columns.{header}"),
                format!("`{field}` is not a field; one of: {}", FIELDS.join(", ")),
            );
        }
    }
    p.into_result()
}

/// A number as a file writes it; in a semicolon file `1.234,50` is 1234.5.
fn number(text: &str, decimal_comma: bool) -> Option<f64> {
    let t = text.trim().trim_start_matches(['€', '$', '£']).trim();
    let t = if decimal_comma && t.contains(',') {
        t.replace('.', "").replace(',', ".")
    } else {
        t.replace(',', "")
    };
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// One row of the file: its line and its cells by field.
struct Row {
    line: u64,
    cells: HashMap<&'static str, String>,
}

/// An order put together from its rows, with the line and header of each cell (for failures).
struct Draft {
    request: OrderRequest,
    lines: Vec<u64>,
    /// The line of each item, in order.
    item_lines: Vec<u64>,
    failures: Vec<ImportFailure>,
}

fn weight_unit(field: &str) -> WeightUnit {
    match field.rsplit('.').next() {
        Some("lb") => WeightUnit::Lb,
        Some("g") => WeightUnit::G,
        Some("oz") => WeightUnit::Oz,
        _ => WeightUnit::Kg,
    }
}

/// The weight columns of an order (one row's) and of an item, one per unit.
const ORDER_WEIGHT: [&str; 4] = ["weight.kg", "weight.lb", "weight.g", "weight.oz"];
const ITEM_WEIGHT: [&str; 4] = [
    "items.weight.kg",
    "items.weight.lb",
    "items.weight.g",
    "items.weight.oz",
];

/// A row's weight in one of a field's unit columns (the last filled one), or the column and the
/// cell that is not a number.
fn weight_in(
    r: &Row,
    columns: [&'static str; 4],
    decimal_comma: bool,
) -> Result<Option<Weight>, (&'static str, String)> {
    let mut weight = None;
    for f in columns {
        let Some(v) = r.cells.get(f).map(|v| v.trim()).filter(|v| !v.is_empty()) else {
            continue;
        };
        let value = number(v, decimal_comma).ok_or_else(|| (f, v.to_string()))?;
        weight = Some(Weight {
            value,
            unit: weight_unit(f),
        });
    }
    Ok(weight)
}

fn draft(
    order_number: String,
    rows: Vec<Row>,
    header_of: &HashMap<&'static str, String>,
    decimal_comma: bool,
) -> Draft {
    let get = |r: &Row, f: &str| r.cells.get(f).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    let mut failures = Vec::new();
    let mut fail = |line: u64, field: &str, info: String| {
        failures.push(ImportFailure {
            row: line,
            column: header_of.get(field).cloned(),
            info,
        })
    };
    // Text is one line but for notes, without control characters (as in a JSON body). A
    // spreadsheet cell typed on two lines (an address) is one line joined by a comma.
    let mut rows = rows;
    for r in &mut rows {
        let mut fields: Vec<&'static str> = r.cells.keys().copied().collect();
        fields.sort();
        for f in fields {
            let Some(v) = r.cells.get_mut(f) else { continue };
            if f != "notes" && v.contains(['\r', '\n']) {
                let lines: Vec<&str> = v.split(['\r', '\n']).map(str::trim).filter(|l| !l.is_empty()).collect();
                *v = lines.join(", ");
            }
            if let Some(why) = packdesk_model::contract::text_problem(v, f == "notes") {
                fail(r.line, f, format!("the cell {why}"));
            }
        }
    }
    let first = &rows[0];
    let ship_to = Address {
        contact_name: get(first, "ship_to.contact_name"),
        company_name: get(first, "ship_to.company_name"),
        email: get(first, "ship_to.email"),
        phone: get(first, "ship_to.phone"),
        street1: get(first, "ship_to.street1"),
        street2: get(first, "ship_to.street2"),
        street3: get(first, "ship_to.street3"),
        city: get(first, "ship_to.city"),
        state: get(first, "ship_to.state"),
        postal_code: get(first, "ship_to.postal_code"),
        country: get(first, "ship_to.country"),
        ..Address::default()
    };
    // Rows of one order share its recipient (every `ship_to.` field): a later row saying otherwise is a mistake in the
    // file (two orders under one number), not a second address to drop silently.
    for r in &rows[1..] {
        for f in FIELDS.iter().filter(|f| f.starts_with("ship_to.")) {
            let (Some(here), Some(there)) = (get(r, f), get(first, f)) else {
                continue;
            };
            if !here.eq_ignore_ascii_case(&there) {
                fail(
                    r.line,
                    f,
                    format!(
                        "order {order_number} has `{there}` on line {} and `{here}` on this line: the rows of one \
                         order must agree (or give them different order numbers)",
                        first.line
                    ),
                );
            }
        }
    }
    // The weight column of each row. Given on one row only, it is the order's weight (a shop
    // writes order fields on the first row); given on several, it is each line's weight (one
    // each, times the line's quantity): the first line alone is not the order.
    let mut row_weights = Vec::new();
    for r in &rows {
        row_weights.push(weight_in(r, ORDER_WEIGHT, decimal_comma).unwrap_or_else(|(f, v)| {
            fail(r.line, f, format!("`{v}` is not a number"));
            None
        }));
    }
    let per_line = row_weights.iter().flatten().count() > 1;
    let weight = match per_line {
        true => None,
        false => row_weights.iter().flatten().next().copied(),
    };
    let mut items = Vec::new();
    let mut item_lines = Vec::new();
    for (r, row_weight) in rows.iter().zip(&row_weights) {
        let description = get(r, "items.description").or_else(|| get(r, "items.sku"));
        let Some(description) = description else { continue };
        let quantity = match get(r, "items.quantity") {
            None => 1,
            Some(q) => match q.parse::<i64>() {
                Ok(q) => q,
                Err(_) => {
                    fail(r.line, "items.quantity", format!("`{q}` is not a whole number"));
                    continue;
                }
            },
        };
        let price = match get(r, "items.price") {
            None => None,
            Some(p) => match number(&p, decimal_comma) {
                Some(amount) => Some(Money {
                    amount,
                    // A price written `$19.99` says its currency when no column does.
                    currency: get(r, "items.currency")
                        .or_else(|| p.chars().next().filter(|c| "$€£".contains(*c)).map(String::from))
                        .unwrap_or_default(),
                }),
                None => {
                    fail(r.line, "items.price", format!("`{p}` is not a number"));
                    continue;
                }
            },
        };
        let item_weight = weight_in(r, ITEM_WEIGHT, decimal_comma)
            .unwrap_or_else(|(f, v)| {
                fail(r.line, f, format!("`{v}` is not a number"));
                None
            })
            .or(row_weight.filter(|_| per_line));
        items.push(OrderItem {
            description,
            quantity,
            sku: get(r, "items.sku"),
            barcode: get(r, "items.barcode"),
            price,
            weight: item_weight,
            origin_country: None,
            hs_code: None,
            item_id: None,
        });
        item_lines.push(r.line);
    }
    let tags = get(first, "tags")
        .map(|t| {
            t.split([',', ';', '|'])
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    Draft {
        request: OrderRequest {
            order_number,
            ship_to,
            items,
            parcels: None,
            weight,
            tags,
            notes: get(first, "notes"),
            preset: get(first, "preset"),
        },
        lines: rows.iter().map(|r| r.line).collect(),
        item_lines,
        failures,
    }
}

/// The field and line a problem of a checked order points at (`items[1].quantity` -> the second
/// item's line, the quantity column).
fn locate(path: &str, d: &Draft) -> (u64, String) {
    let first = d.lines[0];
    if let Some(rest) = path.strip_prefix("items[") {
        let (i, field) = rest.split_once("].").unwrap_or((rest, ""));
        let line = i.parse::<usize>().ok().and_then(|i| d.item_lines.get(i)).copied();
        // An item's price currency is the file's currency column.
        let field = match field {
            "price.currency" => "currency",
            other => other,
        };
        return (line.unwrap_or(first), format!("items.{field}"));
    }
    (first, path.to_string())
}

/// Rows an import holds before it writes them (it ends a chunk only between two orders).
const CHUNK_ROWS: usize = 5_000;
/// Failures an import reports one by one; more are counted in a last one.
const MAX_FAILURES: usize = 10_000;

/// A cell as text: UTF-8, else Windows-1252 (what Excel writes on Windows), cell by cell.
fn cell_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => encoding_rs::WINDOWS_1252
            .decode_without_bom_handling(bytes)
            .0
            .into_owned(),
    }
}

/// Reads the file through and notes where each line ends, so a record's byte offset (what csv
/// reports) gives the line an editor shows, line breaks inside quotes included. Only the offsets
/// not yet passed are kept: memory stays that of csv's read-ahead.
struct LineEnds<R> {
    inner: R,
    offset: u64,
    ends: std::rc::Rc<std::cell::RefCell<std::collections::VecDeque<u64>>>,
}

impl<R: Read> Read for LineEnds<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut ends = self.ends.borrow_mut();
        for (i, b) in buf[..n].iter().enumerate() {
            if *b == b'\n' {
                ends.push_back(self.offset + i as u64);
            }
        }
        self.offset += n as u64;
        Ok(n)
    }
}

/// The rows of one chunk, grouped by order number in the order of their first row.
#[derive(Default)]
struct Chunk {
    groups: Vec<(String, Vec<Row>)>,
    group_of: HashMap<String, usize>,
    rows: usize,
}

impl Chunk {
    fn push(&mut self, number: String, row: Row) {
        self.rows += 1;
        match self.group_of.get(&number) {
            Some(&g) => self.groups[g].1.push(row),
            None => {
                self.group_of.insert(number.clone(), self.groups.len());
                self.groups.push((number, vec![row]));
            }
        }
    }
}

/// Where an imported order's weight comes from, as `presets::order_weight` reads it.
#[derive(Clone, Copy)]
enum WeightSource {
    /// The file's order weight column.
    Column,
    /// Its items' weights × quantities.
    Items,
    None,
}

impl WeightSource {
    fn of(o: &OrderRequest) -> Self {
        if o.weight.is_some() {
            WeightSource::Column
        } else if !o.items.is_empty() && o.items.iter().all(|i| i.weight.is_some()) {
            WeightSource::Items
        } else {
            WeightSource::None
        }
    }
}

/// What one import has done so far.
#[derive(Default)]
struct Tally {
    imported: usize,
    updated: usize,
    failed: Vec<ImportFailure>,
    /// Failures not listed (past `MAX_FAILURES`).
    unlisted: usize,
    /// Order numbers this import has written (their rows in a later chunk join them).
    written: std::collections::HashSet<String>,
    /// Items whose currency was the desk's default (the file gave none).
    currency_filled: usize,
    /// Orders weighed by the file's order weight column, by their items' weights × quantities,
    /// and not at all.
    weight_from_column: usize,
    weight_from_items: usize,
    weight_none: usize,
}

impl Tally {
    fn fail(&mut self, f: ImportFailure) {
        match self.failed.len() < MAX_FAILURES {
            true => self.failed.push(f),
            false => self.unlisted += 1,
        }
    }

    fn count_weight(&mut self, source: WeightSource) {
        match source {
            WeightSource::Column => self.weight_from_column += 1,
            WeightSource::Items => self.weight_from_items += 1,
            WeightSource::None => self.weight_none += 1,
        }
    }

    /// Which weights the import used, once per import; nothing when the file gives none.
    fn weight_note(&self) -> Option<String> {
        let orders = |n: usize| format!("{n} order{}", if n == 1 { "" } else { "s" });
        let mut parts = Vec::new();
        if self.weight_from_items > 0 {
            parts.push(format!(
                "{} from their items' weights × quantities",
                orders(self.weight_from_items)
            ));
        }
        if self.weight_from_column > 0 {
            parts.push(format!(
                "{} from the file's order weight column",
                orders(self.weight_from_column)
            ));
        }
        if parts.is_empty() {
            return None;
        }
        if self.weight_none > 0 {
            parts.push(format!(
                "{} without a weight (weigh them at the desk)",
                orders(self.weight_none)
            ));
        }
        Some(format!("weights: {}", parts.join(", ")))
    }
}

impl Service {
    /// Imports orders from a CSV file, read as a stream (a 50 MB file takes the memory of a few
    /// thousand rows). `mapping`: a saved mapping's name; `dry_run`: answer the same without
    /// writing.
    pub fn import_orders(
        &self,
        env: Env,
        file: impl Read,
        mapping: Option<&str>,
        dry_run: bool,
    ) -> Result<ImportResult, ServiceError> {
        let mapping = match mapping {
            Some(name) => Some(self.import_mapping(name)?),
            None => None,
        };
        // The separator is told by the header line: read ahead to its end.
        let mut file = file;
        let mut head = Vec::new();
        let mut buf = [0u8; 8192];
        while !head.contains(&b'\n') && head.len() < 1 << 20 {
            let n = file
                .read(&mut buf)
                .map_err(|e| ServiceError::invalid("file", format!("the file cannot be read: {e}")))?;
            if n == 0 {
                break;
            }
            head.extend_from_slice(&buf[..n]);
        }
        let header_line = head.split(|b| *b == b'\n').next().unwrap_or_default();
        let sep = separator(&decode(header_line));
        let decimal_comma = sep == b';';
        let ends = std::rc::Rc::new(std::cell::RefCell::new(std::collections::VecDeque::new()));
        let source = LineEnds {
            inner: std::io::Cursor::new(head).chain(file),
            offset: 0,
            ends: ends.clone(),
        };
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(sep)
            .flexible(true)
            .has_headers(false)
            .from_reader(source);
        let mut records = reader.byte_records();
        let headers: Vec<String> = match records.next() {
            Some(Ok(h)) => h
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let c = if i == 0 {
                        c.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(c)
                    } else {
                        c
                    };
                    cell_text(c).trim().to_string()
                })
                .collect(),
            Some(Err(e)) => {
                return Err(ServiceError::invalid(
                    "file",
                    format!("the header line cannot be read: {e}"),
                ))
            }
            None => return Err(ServiceError::invalid("file", "the file is empty")),
        };
        let fields = columns(&headers, mapping.as_ref());
        if !fields.contains(&Some("order_number")) {
            let why = format!(
                "no column is the order number (found: {}); name it `Order number` or save a mapping",
                headers.join(", ")
            );
            if !dry_run {
                return Err(ServiceError::invalid("file", why));
            }
            // A check answers what it read, so the columns can be mapped and checked again.
            return Ok(ImportResult {
                imported: 0,
                updated: 0,
                notes: Vec::new(),
                failed: vec![ImportFailure {
                    row: 1,
                    column: None,
                    info: why,
                }],
                columns: headers
                    .iter()
                    .zip(&fields)
                    .map(|(h, f)| (h.clone(), f.map(String::from)))
                    .collect(),
                headers,
                fields: FIELDS.iter().map(|f| f.to_string()).collect(),
            });
        }
        let mut header_of: HashMap<&'static str, String> = HashMap::new();
        for (h, f) in headers.iter().zip(&fields) {
            if let Some(f) = f {
                header_of.entry(f).or_insert_with(|| h.clone());
            }
        }
        let default_currency = self.default_currency()?;
        // A chunk's orders written (in a dry run, checked), what it found added to the tally.
        let import = |chunk: Chunk, tally: &mut Tally| {
            self.import_chunk(
                env,
                chunk,
                &header_of,
                default_currency.as_ref(),
                decimal_comma,
                dry_run,
                tally,
            )
        };
        let mut tally = Tally::default();
        let mut chunk = Chunk::default();
        let mut last_number = String::new();
        // Lines as an editor numbers them: 1 + the line ends before the record's first byte (after
        // a CRLF csv starts the next record at its LF, which counts).
        let mut line = 1u64;
        let mut line_at = |byte: u64| -> u64 {
            let mut ends = ends.borrow_mut();
            while ends.front().is_some_and(|e| *e <= byte) {
                ends.pop_front();
                line += 1;
            }
            line
        };
        for record in records {
            let record = match record {
                Ok(r) => r,
                Err(e) => {
                    if let csv::ErrorKind::Io(io) = e.kind() {
                        // The file stopped arriving (a dropped upload, the size limit).
                        return Err(ServiceError::invalid(
                            "file",
                            format!(
                                "the file could not be read to its end ({io}); import it again (orders already \
                                 written are updated, not doubled)"
                            ),
                        ));
                    }
                    let row = e.position().map(|p| line_at(p.byte())).unwrap_or(0);
                    tally.fail(ImportFailure {
                        row,
                        column: None,
                        info: format!("the row cannot be read: {e}"),
                    });
                    continue;
                }
            };
            let line = record.position().map(|p| line_at(p.byte())).unwrap_or(0);
            if record.iter().all(|c| c.trim_ascii().is_empty()) {
                continue;
            }
            let mut cells = HashMap::new();
            for (value, field) in record.iter().zip(&fields) {
                if let Some(f) = field {
                    cells.entry(*f).or_insert_with(|| cell_text(value));
                }
            }
            let number = cells
                .get("order_number")
                .map(|n| n.trim().to_string())
                .unwrap_or_default();
            if number.is_empty() {
                tally.fail(ImportFailure {
                    row: line,
                    column: header_of.get("order_number").cloned(),
                    info: "no order number".into(),
                });
                continue;
            }
            if chunk.rows >= CHUNK_ROWS && number != last_number {
                import(std::mem::take(&mut chunk), &mut tally)?;
            }
            last_number.clone_from(&number);
            chunk.push(number, Row { line, cells });
        }
        import(chunk, &mut tally)?;
        let mut notes = Vec::new();
        if let Some(d) = default_currency.as_ref().filter(|_| tally.currency_filled > 0) {
            notes.push(format!(
                "{} item prices had no currency and were taken as {} ({})",
                tally.currency_filled, d.code, d.chosen_by
            ));
        }
        notes.extend(tally.weight_note());
        let mut failed = tally.failed;
        failed.sort_by_key(|f| f.row);
        if tally.unlisted > 0 {
            failed.push(ImportFailure {
                row: 0,
                column: None,
                info: format!("and {} more rows that failed", tally.unlisted),
            });
        }
        Ok(ImportResult {
            imported: tally.imported,
            updated: tally.updated,
            failed,
            notes,
            columns: headers
                .iter()
                .zip(&fields)
                .map(|(h, f)| (h.clone(), f.map(String::from)))
                .collect::<BTreeMap<_, _>>(),
            headers,
            fields: FIELDS.iter().map(|f| f.to_string()).collect(),
        })
    }

    /// Checks and writes the orders of one chunk in one transaction. An order whose rows came in
    /// an earlier chunk of this file gets these rows' items too.
    #[allow(clippy::too_many_arguments)]
    fn import_chunk(
        &self,
        env: Env,
        chunk: Chunk,
        header_of: &HashMap<&'static str, String>,
        default_currency: Option<&DefaultCurrency>,
        decimal_comma: bool,
        dry_run: bool,
        tally: &mut Tally,
    ) -> Result<(), ServiceError> {
        let mut ready = Vec::new();
        for (number, rows) in chunk.groups {
            let mut d = draft(number, rows, header_of, decimal_comma);
            if tally.written.contains(&d.request.order_number) {
                // Late rows of an order written from an earlier chunk: its recipient is there.
                let earlier = self.order_by_number(env, &d.request.order_number)?;
                if let Some(o) = earlier {
                    d.request.ship_to = o.ship_to;
                }
            }
            let mut p = Problems::default();
            let filled = check_order(&mut p, "", &mut d.request, default_currency);
            let problems = match p.into_result() {
                Ok(()) => Vec::new(),
                Err(e) => e.details,
            };
            for problem in problems {
                let (row, field) = locate(&problem.path, &d);
                d.failures.push(ImportFailure {
                    row,
                    column: header_of.get(field.as_str()).cloned(),
                    info: format!("{}: {}", problem.path, problem.info),
                });
            }
            match d.failures.is_empty() {
                true => {
                    tally.currency_filled += filled;
                    ready.push(d)
                }
                false => d.failures.into_iter().for_each(|f| tally.fail(f)),
            }
        }
        if ready.is_empty() {
            return Ok(());
        }
        let now = self.now_us();
        let written = &tally.written;
        let line_from = ready[0].lines[0];
        let (imported, updated, refused, numbers, weights) = self.store.write(|tx| {
            // All of the chunk's numbers at once (see `upsert_order`).
            let chunk_numbers: Vec<&str> = ready.iter().map(|d| d.request.order_number.as_str()).collect();
            packdesk_store::orders::lock_numbers(tx, env, &chunk_numbers)?;
            let (mut imported, mut updated, mut refused, mut numbers) = (0, 0, Vec::new(), Vec::new());
            let mut weights = Vec::new();
            for (i, mut d) in ready.into_iter().enumerate() {
                let line = d.lines[0];
                let earlier = written.contains(&d.request.order_number);
                if earlier {
                    // Rows of an order this file wrote before: its items so far, then these.
                    if let Some(row) = packdesk_store::orders::by_number(tx, env, &d.request.order_number)? {
                        let before = crate::orders::order_of(&row)?;
                        let mut items = before.items;
                        items.append(&mut d.request.items);
                        d.request.items = items;
                        d.request.ship_to = before.ship_to;
                    }
                }
                let number = d.request.order_number.clone();
                let weight = WeightSource::of(&d.request);
                match self.upsert_order(tx, env, d.request, OrderSource::Csv, now + i as i64, !dry_run)? {
                    Upserted::Saved { .. } if earlier => {}
                    Upserted::Saved { updated: true, .. } => {
                        updated += 1;
                        weights.push(weight);
                    }
                    Upserted::Saved { updated: false, .. } => {
                        imported += 1;
                        weights.push(weight);
                    }
                    Upserted::Shipped(why) => refused.push(ImportFailure {
                        row: line,
                        column: header_of.get("order_number").cloned(),
                        info: why,
                    }),
                }
                numbers.push(number);
            }
            if !dry_run && imported + updated > 0 {
                let detail = serde_json::json!({"imported": imported, "updated": updated, "first_line": line_from});
                self.audit(tx, Some(env), "orders.imported", None, detail)?;
            }
            Ok::<_, ServiceError>((imported, updated, refused, numbers, weights))
        })?;
        weights.into_iter().for_each(|w| tally.count_weight(w));
        tally.imported += imported;
        tally.updated += updated;
        refused.into_iter().for_each(|f| tally.fail(f));
        if !dry_run {
            tally.written.extend(numbers);
        }
        Ok(())
    }

    /// A saved mapping by name.
    pub fn import_mapping(&self, name: &str) -> Result<ImportMapping, ServiceError> {
        let json = self
            .store
            .read(|c| packdesk_store::orders::mapping(c, name))?
            .ok_or_else(|| ServiceError::invalid("mapping", format!("no import mapping named `{name}`")))?;
        Ok(ImportMapping {
            columns: serde_json::from_str(&json).map_err(ServiceError::internal)?,
        })
    }

    /// Saves (or replaces) a named mapping.
    pub fn set_import_mapping(&self, name: &str, m: ImportMapping) -> Result<ImportMapping, ServiceError> {
        if name.trim().is_empty() || name.chars().count() > 64 {
            return Err(ServiceError::invalid("name", "1 to 64 characters"));
        }
        check_mapping(&m)?;
        let json = serde_json::to_string(&m.columns).map_err(ServiceError::internal)?;
        let now = self.now_us();
        self.store
            .write(|tx| packdesk_store::orders::put_mapping(tx, name.trim(), &json, now))?;
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_read_in_their_encoding_and_separator() {
        assert_eq!(decode(b"\xEF\xBB\xBFOrder;Name\n"), "Order;Name\n");
        assert_eq!(decode(b"M\xFCller"), "Müller", "Windows-1252");
        assert_eq!(separator("Order;Name;\"a,b\"\n"), b';');
        assert_eq!(separator("Order\tName\tCity\n"), b'\t');
        assert_eq!(separator("Order,Name\n"), b',');
        assert_eq!(number("1.234,50", true), Some(1234.5));
        assert_eq!(number("9,5", true), Some(9.5));
        assert_eq!(number("1,234.50", false), Some(1234.5));
        assert_eq!(number("abc", false), None);
    }

    #[test]
    fn headers_are_recognised_by_their_usual_names() {
        let h: Vec<String> = [
            "Order ID",
            "Recipient",
            "Address 1",
            "ZIP",
            "Qty",
            "Unit price",
            "Weight (lb)",
            "Colour",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            columns(&h, None),
            vec![
                Some("order_number"),
                Some("ship_to.contact_name"),
                Some("ship_to.street1"),
                Some("ship_to.postal_code"),
                Some("items.quantity"),
                Some("items.price"),
                Some("weight.lb"),
                None
            ]
        );
        let m = ImportMapping {
            columns: [("Colour".to_string(), "notes".to_string())].into(),
        };
        assert_eq!(columns(&h, Some(&m))[7], Some("notes"));
    }
}
