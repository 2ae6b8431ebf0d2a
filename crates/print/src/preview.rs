//! Offline previews as PNG: PDF pages through poppler's `pdftoppm` (a local program), ZPL labels
//! through `labelize` (pure Rust). Nothing is sent anywhere.

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// Page `page` (1-based) of a PDF at `dpi`.
pub fn pdf_page_png(pdf: &[u8], page: u32, dpi: u32) -> Result<Vec<u8>, String> {
    // pdftoppm needs a file it can seek in; the PNG comes back on stdout.
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let input = std::env::temp_dir().join(format!("packdesk-preview-{}-{}.pdf", std::process::id(), SEQ.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&input, pdf).map_err(|e| format!("cannot write a temporary file: {e}"))?;
    let page = page.max(1).to_string();
    let out = Command::new("pdftoppm")
        .args(["-png", "-r", &dpi.clamp(36, 600).to_string(), "-f", &page, "-l", &page, "-singlefile"])
        .arg(&input)
        .stdin(Stdio::null())
        .output();
    let _ = std::fs::remove_file(&input);
    let out = out.map_err(|e| format!("PDF previews need pdftoppm (poppler-utils): {e}"))?;
    if !out.status.success() || out.stdout.is_empty() {
        return Err(format!("the PDF has no page {page} ({})", String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(out.stdout)
}

/// Label `page` (1-based) of a ZPL stream, rendered at the printer's resolution on its stock.
pub fn zpl_label_png(zpl: &str, page: u32, dpi: u32, width_mm: f64, height_mm: f64) -> Result<Vec<u8>, String> {
    let labels = crate::zpl::labels(zpl);
    let one = labels.get(page.max(1) as usize - 1).ok_or_else(|| format!("the ZPL has {} labels, not {page}", labels.len()))?;
    let dpmm = match dpi {
        0..=160 => 6,
        161..=250 => 8,
        251..=450 => 12,
        _ => 24,
    };
    // The label's own ^PW/^LL (dots) size the canvas exactly; else the stock.
    let dots = |cmd: &str| one.find(cmd).and_then(|i| one[i + 3..].split(|c: char| !c.is_ascii_digit()).next()?.parse::<f64>().ok());
    let width_mm = dots("^PW").map(|d| d / dpmm as f64).unwrap_or(width_mm);
    let height_mm = dots("^LL").map(|d| d / dpmm as f64).unwrap_or(height_mm);
    let options = labelize::RenderOptions { width_mm: Some(width_mm), height_mm: Some(height_mm), dpmm, ..Default::default() };
    labelize::render_png(one.as_bytes(), options).map(|r| r.bytes).map_err(|e| format!("the ZPL cannot be rendered: {e}"))
}
