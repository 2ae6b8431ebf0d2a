//! What the rendering benchmarks share (documents' and print's own, which includes this file): a
//! sample 4x6 label and a timer printing mean, p50 and p99.

#![allow(dead_code)]

use packdesk_documents::{label::LabelPage, Paper};
use std::time::{Duration, Instant};

/// A 1-parcel 4x6 label whose tracking number is made from `i`.
pub fn page(i: u64) -> LabelPage {
    LabelPage {
        carrier_name: "Yodel".into(),
        service_name: "UK Express 24".into(),
        tracking_number: format!("9{:014}", i),
        parcel_index: 1,
        parcel_count: 1,
        weight: "1.5 kg".into(),
        ship_from: vec![
            "Packdesk Ltd".into(),
            "1 Dock Road".into(),
            "E16 2AA London".into(),
            "UNITED KINGDOM".into(),
        ],
        ship_to: vec![
            "Jane Doe".into(),
            "Doe Trading".into(),
            "22 High Street".into(),
            "M1 1AE Manchester".into(),
        ],
        ship_to_country: "UNITED KINGDOM".into(),
        ship_to_phone: Some("+44 161 496 0000".into()),
        routing_code: "GB M1".into(),
        service_code: "24".into(),
        two_d: Some((
            packdesk_documents::matrix::Symbology::DataMatrix,
            format!("9{:014}/M1 1AE/GBR", i),
        )),
        references: vec!["PO-77".into()],
        ship_date: "2026-11-22".into(),
        order_number: Some("A-1001".into()),
        notes: vec![],
        sample: false,
        paper: Paper::IN4X6,
    }
}

pub fn measure(name: &str, n: usize, mut f: impl FnMut(u64)) {
    for i in 0..(n / 10) as u64 {
        f(i); // warm-up
    }
    let mut times: Vec<Duration> = (0..n as u64)
        .map(|i| {
            let t = Instant::now();
            f(i);
            t.elapsed()
        })
        .collect();
    times.sort();
    let mean = times.iter().sum::<Duration>() / n as u32;
    let p = |q: f64| times[((n as f64 * q) as usize).min(n - 1)];
    println!(
        "{name:<28} n={n:<6} mean {:>9.1} µs   p50 {:>9.1} µs   p99 {:>9.1} µs",
        us(mean),
        us(p(0.50)),
        us(p(0.99))
    );
}

pub fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
