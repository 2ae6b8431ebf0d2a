//! CSV import as warehouses export it: the file's encoding, separator, quoting and decimal commas;
//! rows of one order number become one order; a bad row fails its own order only, with its line.

use crate::common;

use packdesk_model::order::ImportMapping;
use packdesk_model::request::{ListQuery, WeightUnit};
use packdesk_service::keys::Env;

fn orders(s: &packdesk_service::Service) -> Vec<packdesk_model::order::Order> {
    let mut o = s.list_orders(Env::Live, &ListQuery::default()).unwrap().orders;
    o.sort_by(|a, b| a.order_number.cmp(&b.order_number));
    o
}

#[test]
fn a_semicolon_file_from_excel_imports_with_its_quirks_and_names_the_bad_row() {
    let h = common::harness();
    let s = &h.service;
    // The file has prices without a currency: the desk's default fills them.
    let mut settings = s.desk_settings().unwrap();
    settings.default_currency = Some("EUR".into());
    s.set_desk_settings(settings).unwrap();
    // BOM, CRLF, a quoted street with the separator and a line break in it, decimal commas,
    // two rows of one order, a country by name and by alpha-2, a quantity that is not a number.
    let file = "\u{feff}Order number;Recipient;Address 1;City;ZIP;Country;SKU;Item;Qty;Unit price;Weight (lb)\r\n\
                SO-1;Ana García;\"Calle Mayor 1; 2º\r\nPuerta B\";Madrid;28013;Spain;MUG-1;Mug;2;9,50;1,5\r\n\
                SO-1;;;;;;TEE-M;T-shirt;1;19,00;\r\n\
                SO-2;Jan de Vries;Damrak 1;Amsterdam;1012 LG;NL;CAP;Cap;two;5,00;0,4\r\n\
                SO-3;Tom Smith;1 High St;Leeds;LS1 1AA;United Kingdom;;Book;1;12,00;2\r\n";
    let dry = s.import_orders(Env::Live, file.as_bytes(), None, true).unwrap();
    assert_eq!((dry.imported, dry.updated), (2, 0));
    assert!(orders(s).is_empty(), "a dry run writes nothing");

    let r = s.import_orders(Env::Live, file.as_bytes(), None, false).unwrap();
    assert_eq!((r.imported, r.updated), (2, 0), "{r:?}");
    assert_eq!(r.failed.len(), 1, "{r:?}");
    // The header is line 1 and SO-1's first row spans lines 2-3, so SO-2 is on line 5.
    assert_eq!(r.failed[0].row, 5);
    assert_eq!(r.failed[0].column.as_deref(), Some("Qty"));
    assert!(r.failed[0].info.contains("two"), "{}", r.failed[0].info);
    assert_eq!(r.columns["ZIP"].as_deref(), Some("ship_to.postal_code"));

    let o = orders(s);
    assert_eq!(o.len(), 2);
    let so1 = &o[0];
    assert_eq!(so1.order_number, "SO-1");
    assert_eq!(so1.ship_to.country.as_deref(), Some("ESP"));
    // A street typed on two lines of one cell is one line on the label.
    assert_eq!(so1.ship_to.street1.as_deref(), Some("Calle Mayor 1; 2º, Puerta B"));
    assert_eq!(so1.items.len(), 2, "two rows, one order");
    assert_eq!(so1.items[0].price.as_ref().unwrap().amount, 9.5, "decimal comma");
    assert_eq!(so1.items[1].sku.as_deref(), Some("TEE-M"));
    let w = so1.weight.unwrap();
    assert_eq!((w.value, w.unit), (1.5, WeightUnit::Lb), "55 lb stays lb");
    assert_eq!(o[1].ship_to.country.as_deref(), Some("GBR"));

    // The same file again: the orders are updated, not doubled.
    let again = s.import_orders(Env::Live, file.as_bytes(), None, false).unwrap();
    assert_eq!((again.imported, again.updated), (0, 2));
    assert_eq!(orders(s).len(), 2);
}

#[test]
fn a_saved_mapping_reads_a_german_shops_columns() {
    let h = common::harness();
    let s = &h.service;
    let mapping = ImportMapping {
        columns: [
            ("Bestellnr", "order_number"),
            ("Empfänger", "ship_to.contact_name"),
            ("Straße", "ship_to.street1"),
            ("Ort", "ship_to.city"),
            ("PLZ", "ship_to.postal_code"),
            ("Land", "ship_to.country"),
            ("Artikel", "items.description"),
            ("Menge", "items.quantity"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect(),
    };
    s.set_import_mapping("shop-de", mapping).unwrap();
    // Windows-1252, as Excel on a German Windows writes it.
    let text = "Bestellnr;Empfänger;Straße;Ort;PLZ;Land;Artikel;Menge\r\nB-77;Jörg Müller;Hauptstraße 5;Köln;50667;Deutschland;Tasse;3\r\n";
    let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(text);
    let r = s.import_orders(Env::Live, &bytes[..], Some("shop-de"), false).unwrap();
    assert_eq!(r.imported, 1, "{r:?}");
    let o = &orders(s)[0];
    assert_eq!(o.ship_to.contact_name.as_deref(), Some("Jörg Müller"));
    assert_eq!(o.ship_to.country.as_deref(), Some("DEU"));
    assert_eq!(o.items[0].quantity, 3);

    let bad = ImportMapping {
        columns: [("PLZ".to_string(), "ship_to.zip".to_string())].into(),
    };
    let e = s.set_import_mapping("bad", bad).unwrap_err();
    assert_eq!(e.details[0].path, "columns.PLZ");
    let e = s.import_orders(Env::Live, &b"a,b\n1,2\n"[..], None, false).unwrap_err();
    assert!(e.details[0].info.contains("order number"), "{e}");
}

#[test]
fn a_big_file_is_written_in_chunks_and_an_orders_late_rows_join_it() {
    let h = common::harness();
    let s = &h.service;
    // More rows than one chunk holds, with one more row of the first order at the very end.
    let mut file = String::from("Order number,Name,Street,City,ZIP,Country,SKU,Item,Qty\n");
    for i in 0..5_200 {
        file.push_str(&format!("B-{i},Ana {i},Calle 1,Madrid,28001,ES,SKU-{i},Mug,1\n"));
    }
    file.push_str("B-0,,,,,,LATE,Late item,3\n");
    let r = s.import_orders(Env::Live, file.as_bytes(), None, false).unwrap();
    assert_eq!(
        (r.imported, r.updated, r.failed.len()),
        (5_200, 0, 0),
        "{:?}",
        r.failed.first()
    );
    let first = s.order_by_number(Env::Live, "B-0").unwrap().unwrap();
    let skus: Vec<_> = first.items.iter().map(|i| i.sku.clone().unwrap_or_default()).collect();
    assert_eq!(skus, ["SKU-0", "LATE"], "the late row joined its order");
    assert_eq!(
        first.ship_to.contact_name.as_deref(),
        Some("Ana 0"),
        "the first row's recipient stays"
    );
}

#[test]
fn an_orders_weight_is_its_lines_weights_times_quantities_unless_the_file_gives_the_orders() {
    let h = common::harness();
    let s = &h.service;
    // W-1: a weight on each of its rows, one mug's and one shirt's: 2 × 0.4 + 1 × 0.35 kg (not the
    // first row's 0.4). W-2: a weight on its first row only: the order's. W-3: item weights in
    // their own column, times the quantity. W-4: none.
    let file = "Order number;Recipient;Address 1;City;ZIP;Country;Item;Qty;Weight;Item weight\r\n\
                W-1;Ana García;Calle Mayor 1;Madrid;28013;ES;Mug;2;0,4;\r\n\
                W-1;;;;;;T-shirt;1;0,35;\r\n\
                W-2;Luis Gil;Calle 2;Sevilla;41001;ES;Mug;3;2,5;\r\n\
                W-2;;;;;;Cap;1;;\r\n\
                W-3;Eva Sanz;Calle 3;Bilbao;48001;ES;Plate;4;;0,25\r\n\
                W-4;Rosa Diaz;Calle 4;Valencia;46001;ES;Bowl;1;;\r\n";
    let r = s.import_orders(Env::Live, file.as_bytes(), None, false).unwrap();
    assert_eq!((r.imported, r.failed.len()), (4, 0), "{r:?}");
    assert_eq!(r.columns["Weight"].as_deref(), Some("weight.kg"));
    let kg = |number: &str| {
        let o = s.order_by_number(Env::Live, number).unwrap().unwrap();
        packdesk_service::presets::order_weight(&o).map(|w| (w.kg() * 1000.0).round() / 1000.0)
    };
    assert_eq!(kg("W-1"), Some(1.15), "2 × 0.4 + 1 × 0.35");
    assert_eq!(kg("W-2"), Some(2.5), "the file's order weight");
    assert_eq!(kg("W-3"), Some(1.0), "4 × 0.25");
    assert_eq!(kg("W-4"), None);
    let w1 = s.order_by_number(Env::Live, "W-1").unwrap().unwrap();
    assert_eq!(
        w1.weight, None,
        "the items carry it: editing an item changes the order's weight"
    );
    assert_eq!(w1.items[1].weight.map(|w| w.value), Some(0.35));
    // The answer says which weights it used, once for the whole file.
    let weights: Vec<_> = r.notes.iter().filter(|n| n.starts_with("weights:")).collect();
    assert_eq!(
        weights,
        [
            "weights: 2 orders from their items' weights × quantities, 1 order from the file's order weight \
             column, 1 order without a weight (weigh them at the desk)"
        ],
        "{:?}",
        r.notes
    );
    // A file without weights says nothing about them.
    let plain = "Order number;Recipient;Address 1;City;ZIP;Country;Item\r\nP-1;Ana;Calle 1;Madrid;28001;ES;Mug\r\n";
    let r = s.import_orders(Env::Live, plain.as_bytes(), None, true).unwrap();
    assert!(r.notes.iter().all(|n| !n.starts_with("weights:")), "{:?}", r.notes);
}
