//! Merges PDF documents into one, pages in the order given (bulk downloads).

use lopdf::{Document, Object, ObjectId};
use std::collections::BTreeMap;

/// One PDF with every page of `docs`, in order. Fails on a PDF that does not parse.
pub fn merge_pdfs(docs: &[Vec<u8>]) -> Result<Vec<u8>, String> {
    let mut max_id = 1;
    let mut pages: Vec<(ObjectId, Object)> = Vec::new();
    let mut objects: BTreeMap<ObjectId, Object> = BTreeMap::new();
    for (i, bytes) in docs.iter().enumerate() {
        let mut doc = Document::load_mem(bytes).map_err(|e| format!("document {i}: {e}"))?;
        doc.renumber_objects_with(max_id);
        max_id = doc.max_id + 1;
        for (_, id) in doc.get_pages() {
            let page = doc.get_object(id).map_err(|e| e.to_string())?.to_owned();
            pages.push((id, page));
        }
        objects.extend(doc.objects);
    }
    let mut out = Document::with_version("1.5");
    let pages_id: ObjectId = (max_id, 0);
    let catalog_id: ObjectId = (max_id + 1, 0);
    // Keep every object but the old catalogs and page trees; the pages point at the new tree.
    for (id, obj) in objects {
        match obj.type_name().unwrap_or(b"") {
            b"Catalog" | b"Pages" | b"Outlines" | b"Outline" => {}
            _ => {
                out.objects.insert(id, obj);
            }
        }
    }
    let mut kids = Vec::with_capacity(pages.len());
    for (id, obj) in &pages {
        if let Object::Dictionary(d) = obj {
            let mut d = d.clone();
            d.set("Parent", Object::Reference(pages_id));
            out.objects.insert(*id, Object::Dictionary(d));
            kids.push(Object::Reference(*id));
        }
    }
    let count = kids.len() as i64;
    out.objects.insert(
        pages_id,
        Object::Dictionary(lopdf::Dictionary::from_iter(vec![
            ("Type", Object::Name(b"Pages".to_vec())),
            ("Count", Object::Integer(count)),
            ("Kids", Object::Array(kids)),
        ])),
    );
    out.objects.insert(
        catalog_id,
        Object::Dictionary(lopdf::Dictionary::from_iter(vec![
            ("Type", Object::Name(b"Catalog".to_vec())),
            ("Pages", Object::Reference(pages_id)),
        ])),
    );
    out.trailer.set("Root", Object::Reference(catalog_id));
    out.max_id = max_id + 1;
    out.compress();
    let mut bytes = Vec::new();
    out.save_to(&mut bytes).map_err(|e| e.to_string())?;
    Ok(bytes)
}
