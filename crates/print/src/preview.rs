//! Offline previews as PNG: PDF pages through poppler's `pdftoppm` (a local program), ZPL labels
//! through `labelize` (pure Rust). Nothing is sent anywhere.

use std::process::{Command, Stdio};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Renders at once at most; more wait (up to `WAIT`) so that a burst of previews cannot take every
/// core and all the memory of the desk.
const MAX_AT_ONCE: usize = 2;
/// How long a preview waits for its turn.
const WAIT: Duration = Duration::from_secs(10);
/// How long pdftoppm may take for one page before it is stopped.
pub const RENDER_TIMEOUT: Duration = Duration::from_secs(10);

static RUNNING: Mutex<usize> = Mutex::new(0);
/// The most renders seen at once (tests read it).
static PEAK: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static TURN: Condvar = Condvar::new();

/// A turn to render, given back when dropped.
struct Turn;

impl Turn {
    fn take() -> Result<Turn, String> {
        let deadline = Instant::now() + WAIT;
        let mut running = RUNNING.lock().unwrap_or_else(|p| p.into_inner());
        while *running >= MAX_AT_ONCE {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err("the desk is busy rendering other previews; try again in a moment".into());
            }
            running = TURN.wait_timeout(running, left).unwrap_or_else(|p| p.into_inner()).0;
        }
        *running += 1;
        PEAK.fetch_max(*running, std::sync::atomic::Ordering::SeqCst);
        Ok(Turn)
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut running = RUNNING.lock().unwrap_or_else(|p| p.into_inner());
        *running -= 1;
        TURN.notify_one();
    }
}

/// Page `page` (1-based) of a PDF at `dpi`.
pub fn pdf_page_png(pdf: &[u8], page: u32, dpi: u32) -> Result<Vec<u8>, String> {
    let _turn = Turn::take()?;
    // pdftoppm needs a file it can seek in: a private temporary folder of a random name (no other
    // user can guess it or plant a link there), removed when done.
    let dir = tempfile::Builder::new()
        .prefix("packdesk-preview-")
        .tempdir()
        .map_err(|e| format!("cannot make a temporary folder: {e}"))?;
    let input = dir.path().join("in.pdf");
    let output = dir.path().join("page");
    std::fs::write(&input, pdf).map_err(|e| format!("cannot write a temporary file: {e}"))?;
    let page = page.max(1).to_string();
    let mut child = Command::new("pdftoppm")
        .args([
            "-png",
            "-r",
            &dpi.clamp(36, 600).to_string(),
            "-f",
            &page,
            "-l",
            &page,
            "-singlefile",
        ])
        .arg(&input)
        .arg(&output)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(
            std::fs::File::create(dir.path().join("err.txt"))
                .map(Stdio::from)
                .unwrap_or_else(|_| Stdio::null()),
        )
        .spawn()
        .map_err(|e| format!("PDF previews need pdftoppm (poppler-utils): {e}"))?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > RENDER_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "the page took more than {} s to render and was stopped",
                    RENDER_TIMEOUT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("pdftoppm: {e}")),
        }
    };
    let png = std::fs::read(output.with_extension("png")).unwrap_or_default();
    if !status.success() || png.is_empty() {
        let why = std::fs::read_to_string(dir.path().join("err.txt")).unwrap_or_default();
        return Err(format!("the PDF has no page {page} ({})", why.trim()));
    }
    Ok(png)
}

/// The renderer's dots per millimetre nearest a printer's dots per inch.
pub fn dots_per_mm(dpi: u32) -> i32 {
    match dpi {
        0..=160 => 6,
        161..=250 => 8,
        251..=450 => 12,
        _ => 24,
    }
}

/// Label `page` (1-based) of a ZPL stream, rendered at the printer's resolution on its stock.
pub fn zpl_label_png(zpl: &str, page: u32, dpi: u32, width_mm: f64, height_mm: f64) -> Result<Vec<u8>, String> {
    let _turn = Turn::take()?;
    let labels = crate::zpl::labels(zpl);
    let one = labels
        .get(page.max(1) as usize - 1)
        .ok_or_else(|| format!("the ZPL has {} labels, not {page}", labels.len()))?;
    let dpmm = dots_per_mm(dpi);
    // The label's own ^PW/^LL (dots) size the canvas exactly; else the stock.
    let dots = |cmd: &str| {
        one.find(cmd).and_then(|i| {
            one[i + 3..]
                .split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse::<f64>()
                .ok()
        })
    };
    let width_mm = dots("^PW").map(|d| d / dpmm as f64).unwrap_or(width_mm);
    let height_mm = dots("^LL").map(|d| d / dpmm as f64).unwrap_or(height_mm);
    let options = labelize::RenderOptions {
        width_mm: Some(width_mm),
        height_mm: Some(height_mm),
        dpmm,
        ..Default::default()
    };
    labelize::render_png(one.as_bytes(), options)
        .map(|r| r.bytes)
        .map_err(|e| format!("the ZPL cannot be rendered: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-page PDF (a 72 x 72 pt black square), written by hand.
    fn tiny_pdf() -> Vec<u8> {
        let content = "0 0 0 rg 10 10 52 52 re f";
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] /Contents 4 0 R >>".to_string(),
            format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()),
        ];
        let mut pdf = b"%PDF-1.4\n".to_vec();
        let mut offsets = Vec::new();
        for (i, o) in objects.iter().enumerate() {
            offsets.push(pdf.len());
            pdf.extend(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
        }
        let xref = pdf.len();
        pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
        for off in offsets {
            pdf.extend(format!("{off:010} 00000 n \n").as_bytes());
        }
        pdf.extend(
            format!(
                "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
                objects.len() + 1
            )
            .as_bytes(),
        );
        pdf
    }

    #[test]
    fn a_burst_of_previews_renders_at_most_two_at_once_each_in_its_own_private_folder() {
        let pdf = tiny_pdf();
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let pdf = pdf.clone();
                std::thread::spawn(move || pdf_page_png(&pdf, 1, 72))
            })
            .collect();
        for t in threads {
            let png = t.join().unwrap().expect("rendered");
            assert!(png.starts_with(b"\x89PNG"), "a PNG");
        }
        assert!(
            PEAK.load(std::sync::atomic::Ordering::SeqCst) <= MAX_AT_ONCE,
            "at most {MAX_AT_ONCE} at once"
        );
        let left = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .flatten()
            .filter(|e| e.path().is_dir() && e.file_name().to_string_lossy().starts_with("packdesk-preview-"))
            .count();
        assert_eq!(left, 0, "no temporary folder is left behind");
    }
}
