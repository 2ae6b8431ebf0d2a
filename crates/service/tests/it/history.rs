//! History's search (`Service::history`, `GET /desk/history`) of only common words: each page
//! reads so many labels, newest first; a page that found too few says how far back it searched
//! and its `next_token` reads on, so every label with the phrase is found once, page by page.
//! The limits are set small here (`Service::set_search_limits`); a desk's are 50,000.

use crate::common::*;
use packdesk_carriers::carrier;
use packdesk_model::request::ListQuery;
use packdesk_model::ToRequest;
use packdesk_service::keys::Env;
use packdesk_store::labels::SearchLimits;

#[test]
fn a_search_of_common_words_reads_a_few_labels_a_page_says_how_far_back_and_reads_on() {
    let h = harness();
    let c = carrier("yodel").unwrap();
    let account = create_account(&h.service, Env::Sandbox, c, serde_json::json!({}));
    // Labels to "Cliente 1" .. "Cliente 30", made in that order.
    let mut made = Vec::new();
    for n in 1..=30 {
        let mut body = label_request(&account, c, &c.service_types[0]);
        body["shipment"]["ship_to"]["contact_name"] = format!("Cliente {n}").into();
        let label = wire(
            h.service
                .create_label(Env::Sandbox, body.to_request().unwrap())
                .unwrap(),
        );
        made.push((n, label["id"].as_str().unwrap().to_string()));
    }
    // "Cliente" is in every label and "1" starts or ends a word of many: both common from 10
    // index entries on. A page reads 8 labels.
    h.service.set_search_limits(SearchLimits {
        common_word_entries: 10,
        reads_at_most: 8,
    });
    let mut pages = Vec::new();
    let mut token: Option<String> = None;
    while pages.len() < 10 {
        let q = ListQuery {
            s: Some("Cliente 1".into()),
            limit: Some("5".into()),
            next_token: token.clone(),
            ..Default::default()
        };
        let page = h.service.history(Env::Sandbox, &q).unwrap();
        let ids: Vec<String> = page.rows.iter().map(|r| r.label.id.clone()).collect();
        pages.push((ids, page.searched_back_to.is_some()));
        token = page.window.next_token;
        if token.is_none() {
            break;
        }
    }
    let named = |ns: &[u32]| -> Vec<String> {
        ns.iter()
            .map(|n| made.iter().find(|(m, _)| m == n).unwrap().1.clone())
            .collect()
    };
    // Newest first, 8 labels a page: 30..23 hold no "Cliente 1"; 22..15 hold 19..15; 14..7 hold
    // 14..10; the last 6 hold 1, and no older label is left.
    assert_eq!(
        pages[0],
        (vec![], true),
        "the first 8 labels read, none with the phrase"
    );
    assert_eq!(pages[1], (named(&[19, 18, 17, 16, 15]), true));
    assert_eq!(pages[2], (named(&[14, 13, 12, 11, 10]), true));
    assert_eq!(pages[3], (named(&[1]), false), "the last page");
    let every: Vec<String> = pages.iter().flat_map(|(ids, _)| ids.clone()).collect();
    assert_eq!(
        every,
        named(&[19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 1]),
        "every label with the phrase, once, newest first"
    );
    assert_eq!(pages.len(), 4);
}
