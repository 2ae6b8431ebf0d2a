//! 2D codes drawn on a PDF page read back with the tools a warehouse scanner stands for: zbarimg
//! for QR, dmtxread (dmtx-utils) for Data Matrix, on the page rendered by pdftoppm.

use packdesk_documents::matrix::{encode, Symbology};
use packdesk_documents::pdf::{write, Page};
use std::process::Command;

fn run(tool: &str, args: &[&str]) -> String {
    let out = Command::new(tool)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{tool} runs: {e}"));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn qr_and_data_matrix_on_a_pdf_page_decode_to_their_data() {
    let dir = std::env::temp_dir().join(format!("packdesk-codes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = "JD0002250000000001|M1 1AE|GBR";
    for (symbology, name) in [(Symbology::Qr, "qr"), (Symbology::DataMatrix, "dm")] {
        let m = encode(symbology, data).unwrap();
        let mut page = Page::new(101.6, 152.4);
        // 1 mm modules with a quiet zone around.
        page.matrix(40.0, 40.0, 2.83, &m);
        let pdf = dir.join(format!("{name}.pdf"));
        std::fs::write(&pdf, write("codes", vec![page])).unwrap();
        let png = dir.join(name);
        run("pdftoppm", &["-r", "150", "-png", "-singlefile", pdf.to_str().unwrap(), png.to_str().unwrap()]);
        let png = format!("{}.png", png.display());
        let read = match symbology {
            Symbology::Qr => run("zbarimg", &["--raw", "-q", "-Sdisable", "-Sqrcode.enable", &png]),
            Symbology::DataMatrix => run("dmtxread", &["-n", &png]),
        };
        assert_eq!(read, data, "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
