//! Webhook deliveries on the run's backend: due only while the webhook is on, to the URL set now,
//! the most overdue first; listed by event; each attempt recorded.

use crate::support::{self, assert_rows};
use packdesk_model::status::{DeliveryStatus, Env, WebhookEvent};
use packdesk_store::webhooks::{self, DeliveryFilter, DeliveryRow};

fn delivery(i: i64) -> DeliveryRow {
    DeliveryRow {
        id: format!("delivery-{i}"),
        env: Env::Live,
        event: [WebhookEvent::CreateALabel, WebhookEvent::ManifestALabel][(i % 2) as usize],
        record_id: format!("rec-{i}"),
        url: "http://127.0.0.1:9/hook".into(),
        body: "{}".into(),
        status: DeliveryStatus::Pending,
        attempts: 0,
        round_failures: 0,
        next_attempt_at: Some(50 - i),
        created_at: i,
        updated_at: i,
    }
}

#[test]
fn deliveries_fall_due_while_the_webhook_is_on_to_its_url_now_and_each_attempt_is_kept() {
    let db = support::store();
    assert_eq!(db.look(webhooks::next_due_at), None, "no delivery");
    for i in 0..3i64 {
        db.step(|c| webhooks::insert_delivery(c, &delivery(i)));
    }
    assert_eq!(
        db.look(webhooks::next_due_at),
        None,
        "nothing due while the webhook is unset"
    );
    let on = webhooks::WebhookSetting {
        url: "http://127.0.0.1:9/now".into(),
        enabled: true,
        updated_at: 1,
    };
    db.step(|c| webhooks::set_setting(c, Env::Live, &on));
    assert_eq!(db.look(|c| webhooks::setting(c, Env::Live)), Some(on.clone()));
    assert_eq!(db.look(webhooks::next_due_at), Some(48), "delivery-2's");
    let now_url = |i| DeliveryRow {
        url: "http://127.0.0.1:9/now".into(),
        ..delivery(i)
    };
    assert_rows(
        db.look(|c| webhooks::due(c, 100, 10)),
        vec![now_url(2), now_url(1), now_url(0)],
        "due, the most overdue first, to the URL set now",
    );
    assert_rows(
        db.look(|c| webhooks::due(c, 49, 10)),
        vec![now_url(2), now_url(1)],
        "not one due later",
    );
    assert_rows(
        db.look(|c| webhooks::get_delivery(c, Env::Live, "delivery-1")),
        Some(delivery(1)),
        "one, as written",
    );
    let labels_only = DeliveryFilter {
        event: Some(WebhookEvent::CreateALabel),
        created_at_max: i64::MAX,
        ..Default::default()
    };
    assert_rows(
        db.look(|c| webhooks::list(c, Env::Live, &labels_only, 10, None)),
        vec![delivery(2), delivery(0)],
        "by event, newest first",
    );

    // An attempt recorded, as the dispatcher records it: not waiting for the disk.
    let delivered = DeliveryRow {
        status: DeliveryStatus::Delivered,
        attempts: 1,
        next_attempt_at: None,
        updated_at: 101,
        ..now_url(2)
    };
    let attempt = webhooks::AttemptRow {
        delivery_id: "delivery-2".into(),
        attempt: 0,
        at: 101,
        url: delivered.url.clone(),
        status_code: Some(200),
        error: None,
        duration_us: 1200,
    };
    db.write_relaxed(|c| {
        webhooks::update_delivery(c, &delivered)?;
        webhooks::insert_attempt(c, &attempt)
    })
    .unwrap();
    assert_rows(
        db.look(|c| webhooks::attempts(c, "delivery-2")),
        vec![attempt],
        "the attempt",
    );
    assert_rows(
        db.look(|c| webhooks::due(c, 100, 10)),
        vec![now_url(1), now_url(0)],
        "a delivered one is not sent again",
    );
    assert_eq!(db.look(webhooks::next_due_at), Some(49));

    db.step(|c| webhooks::set_setting(c, Env::Live, &webhooks::WebhookSetting { enabled: false, ..on }));
    assert_rows(
        db.look(|c| webhooks::due(c, 100, 10)),
        vec![],
        "the webhook off: nothing due",
    );
    assert_eq!(db.look(webhooks::next_due_at), None);
}
