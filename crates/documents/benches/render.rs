//! Render time of a 1-parcel 4x6 label, PDF and ZPL (Latin and CJK), and of a large manifest: `cargo bench -p packdesk-documents`.
//! Prints mean, p50 and p99 per render.

use packdesk_documents::manifest::{render_manifest_csv, render_manifest_pdf, ManifestDoc, ManifestLine, Party};
use packdesk_documents::{render_label_pdf, render_label_zpl};
use std::hint::black_box;

mod support;
use support::{measure, page};

fn main() {
    // `cargo test --benches` runs this with --bench absent: keep that quick.
    let n = if std::env::args().any(|a| a == "--bench") {
        5000
    } else {
        50
    };
    measure("label 4x6 ZPL (203 dpi)", n * 4, |i| {
        black_box(render_label_zpl(&[page(i)], 203));
    });
    measure("label 4x6 PDF", n, |i| {
        black_box(render_label_pdf(&[page(i)]));
    });
    println!("label 4x6 PDF: {} bytes", render_label_pdf(&[page(0)]).len());
    // A recipient in Japanese and an Arabic reference: shaping, bidi and two more font subsets.
    let cjk = |i: u64| {
        let mut p = page(i);
        p.ship_to = vec![
            "山田 太郎".into(),
            "千代田区丸の内 1-9-1".into(),
            "100-0005 東京都".into(),
        ];
        p.ship_to_country = "JAPAN 日本".into();
        p.references = vec!["محمد علي".into()];
        p
    };
    measure("label 4x6 PDF, CJK + Arabic", n, |i| {
        black_box(render_label_pdf(&[cjk(i)]));
    });
    println!(
        "label 4x6 PDF, CJK + Arabic: {} bytes",
        render_label_pdf(&[cjk(0)]).len()
    );
    // A different Chinese name on every label: its font subset is made afresh (no cache hit).
    const HANZI: &str = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤";
    let hanzi: Vec<char> = HANZI.chars().collect();
    measure("label 4x6 PDF, CJK, new name", n, |i| {
        let mut p = cjk(i);
        let k = i as usize * 7919;
        p.ship_to[0] = [k, k / 3 + 1, k / 7 + 2]
            .iter()
            .map(|j| hanzi[j % hanzi.len()])
            .collect();
        p.references = vec![];
        black_box(render_label_pdf(&[p]));
    });
    measure("label 4x6 ZPL, CJK (203 dpi)", n, |i| {
        black_box(render_label_zpl(&[cjk(i)], 203));
    });
    let lines: Vec<ManifestLine> = (0..10_000)
        .map(|i| ManifestLine {
            tracking_number: format!("9{i:014}"),
            recipient: Party {
                postal_code: "M1 1AE".into(),
                country: "GBR".into(),
                ..Default::default()
            },
            weight_kg: 1.5,
            service: "UK Express 24".into(),
            reference: "PO-77".into(),
            ..Default::default()
        })
        .collect();
    let doc = ManifestDoc {
        manifest_id: "0b8f5e3c-1d2a-4c5b-9e7f-123456789abc".into(),
        carrier: "Yodel".into(),
        account: "Desk".into(),
        date: "2026-11-22".into(),
        lines,
        sample: false,
        language: packdesk_model::status::Language::English,
    };
    measure("manifest PDF, 10,000 lines", (n / 500).max(3), |_| {
        black_box(render_manifest_pdf(&doc));
    });
    measure("manifest CSV, 10,000 lines", (n / 500).max(3), |_| {
        black_box(render_manifest_csv(&doc));
    });
}
