//! ZPL for a given printer: rescaled from the resolution it was written for to the printer's, and
//! without the commands that would override the printer's own setup.
//!
//! Carriers' ZPL often carries media and darkness settings tuned for their reference printer; a
//! desk printer set up for its own stock prints blank or streaky labels with them. The stripped
//! commands are listed in `SETUP_COMMANDS`.

/// Commands that change a printer's stored setup rather than draw the label: media mode (^MM),
/// media type (^MT), media tracking (^MN), darkness (^MD, ~SD), print rate (^PR), tear-off
/// position (~TA), label top and shift (^LT, ^LS), and saving settings (^JU).
pub const SETUP_COMMANDS: &[&str] = &["^MM", "^MT", "^MN", "^MD", "~SD", "^PR", "~TA", "^LT", "^LS", "^JU"];

/// One command: its prefix (`^` or `~`) and text up to the next command.
fn commands(zpl: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = zpl.as_bytes();
    let mut in_field_data = false;
    for (i, &b) in bytes.iter().enumerate() {
        if (b == b'^' || b == b'~') && i > start {
            // Inside ^FD..^FS only ^FS ends the data (our own data never holds ^ or ~).
            if in_field_data && !zpl[i..].starts_with("^FS") {
                continue;
            }
            out.push(&zpl[start..i]);
            start = i;
        }
        if b == b'^' || b == b'~' {
            in_field_data = zpl[i..].starts_with("^FD") || zpl[i..].starts_with("^FV");
        }
    }
    if start < zpl.len() {
        out.push(&zpl[start..]);
    }
    out
}

/// Removes `SETUP_COMMANDS`.
pub fn strip_setup(zpl: &str) -> String {
    commands(zpl)
        .into_iter()
        .filter(|c| {
            !SETUP_COMMANDS
                .iter()
                .any(|s| c.len() >= 3 && c[..3].eq_ignore_ascii_case(s))
        })
        .collect()
}

/// Which parameters of a command are lengths in dots (0-based), by command name.
fn dot_params(name: &str) -> &'static [usize] {
    match name {
        "^FO" | "^FT" | "^LH" => &[0, 1],
        "^PW" | "^LL" => &[0],
        "^GB" | "^GD" | "^GE" => &[0, 1, 2],
        "^GC" => &[0, 1],
        "^FB" => &[0],
        "^BY" => &[0, 2],
        "^CF" => &[1, 2],
        // Barcodes whose second parameter is the height: ^BC, ^B3, ^BE, ^BU, ^B2, ^B8, ^B9.
        "^BC" | "^B3" | "^BE" | "^BU" | "^B2" | "^B8" | "^B9" => &[1],
        _ => &[],
    }
}

fn scale_params(params: &str, which: &[usize], factor: f64, min_one: bool) -> String {
    params
        .split(',')
        .enumerate()
        .map(|(i, p)| match (which.contains(&i), p.trim().parse::<f64>()) {
            (true, Ok(v)) => {
                let scaled = (v * factor).round();
                let scaled = if min_one && v > 0.0 { scaled.max(1.0) } else { scaled };
                format!("{}", scaled as i64)
            }
            _ => p.to_string(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Rescales ZPL written for `from_dpi` to a printer of `to_dpi`: positions, sizes, line widths,
/// barcode module widths and heights, fonts. Bitmaps (^GF) are left as they are.
pub fn rescale(zpl: &str, from_dpi: u32, to_dpi: u32) -> String {
    if from_dpi == to_dpi || from_dpi == 0 {
        return zpl.to_string();
    }
    let factor = to_dpi as f64 / from_dpi as f64;
    commands(zpl)
        .into_iter()
        .map(|c| {
            if c.len() < 3 || !c.starts_with('^') {
                return c.to_string();
            }
            let name = c[..3].to_ascii_uppercase();
            // ^A<font><orientation>,h,w: height and width are dots.
            if name.starts_with("^A") && name != "^A@" {
                if let Some(comma) = c.find(',') {
                    let (head, rest) = c.split_at(comma + 1);
                    let (params, tail) = split_trailing_ws(rest);
                    return format!("{head}{}{tail}", scale_params(params, &[0, 1], factor, true));
                }
                return c.to_string();
            }
            let which = dot_params(&name);
            if which.is_empty() {
                return c.to_string();
            }
            let (params, tail) = split_trailing_ws(&c[3..]);
            format!(
                "{}{}{tail}",
                &c[..3],
                scale_params(params, which, factor, name == "^BY")
            )
        })
        .collect()
}

/// Splits the line break after a command's parameters so it survives the rewrite.
fn split_trailing_ws(s: &str) -> (&str, &str) {
    let end = s.trim_end().len();
    s.split_at(end)
}

/// The ^XA..^XZ labels of a ZPL stream.
pub fn labels(zpl: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = zpl;
    while let Some(start) = rest.find("^XA") {
        let Some(end) = rest[start..].find("^XZ") else { break };
        out.push(&rest[start..start + end + 3]);
        rest = &rest[start + end + 3..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_commands_go_and_the_drawing_stays() {
        let z = "^XA\n^MMT\n~SD25\n^MD10\n^PW812\n^FO10,20^FDHello ^MM inside^FS\n^JUS\n^XZ\n";
        assert_eq!(strip_setup(z), "^XA\n^PW812\n^FO10,20^FDHello ^MM inside^FS\n^XZ\n");
    }

    #[test]
    fn rescaling_203_to_300_moves_and_sizes_everything_by_the_ratio() {
        let z = "^XA\n^PW812\n^LL1218\n^FT40,100^A0N,30,24^FDName^FS\n^FO20,30^GB772,3,3^FS\n^FO40,200^BY3^BCN,160,N,N,N^FD>:AB12^FS\n^XZ\n";
        let s = rescale(z, 203, 300);
        assert!(s.contains("^PW1200\n^LL1800\n"), "{s}");
        assert!(s.contains("^FT59,148^A0N,44,35^FDName^FS"), "{s}");
        assert!(s.contains("^FO30,44^GB1141,4,4^FS"), "{s}");
        assert!(s.contains("^FO59,296^BY4^BCN,236,N,N,N^FD>:AB12^FS"), "{s}");
        assert_eq!(rescale(z, 203, 203), z);
    }

    #[test]
    fn a_stream_splits_into_its_labels() {
        let z = "^XA^FDone^FS^XZ\n^XA^FDtwo^FS^XZ\n";
        assert_eq!(labels(z), vec!["^XA^FDone^FS^XZ", "^XA^FDtwo^FS^XZ"]);
    }
}
