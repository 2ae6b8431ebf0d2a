//! Code 128 (ISO/IEC 15417) encoder: subsets B and C with automatic switching, so numeric tracking
//! numbers print at half the width. Output is the run widths in modules, bar first.

/// Bar/space widths of symbol values 0..=105; 106 is the stop pattern.
const PATTERNS: [&str; 107] = [
    "212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213", "221312",
    "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132", "221231", "213212",
    "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211", "212123", "212321", "232121",
    "111323", "131123", "131321", "112313", "132113", "132311", "211313", "231113", "231311", "112133", "112331",
    "132131", "113123", "113321", "133121", "313121", "211331", "231131", "213113", "213311", "213131", "311123",
    "311321", "331121", "312113", "312311", "332111", "314111", "221411", "431111", "111224", "111422", "121124",
    "121421", "141122", "141221", "112214", "112412", "122114", "122411", "142112", "142211", "241211", "221114",
    "413111", "241112", "134111", "111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112",
    "421211", "212141", "214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311",
    "113141", "114131", "311141", "411131", "211412", "211214", "211232", "2331112",
];

const START_B: u8 = 104;
const START_C: u8 = 105;
const CODE_B: u8 = 100;
const CODE_C: u8 = 99;
const STOP: u8 = 106;

fn digit_run(b: &[u8]) -> usize {
    b.iter().take_while(|c| c.is_ascii_digit()).count()
}

/// Symbol values of `text` (start, data, check; without stop). Characters outside printable
/// ASCII are encoded as `?`.
pub fn symbols(text: &str) -> Vec<u8> {
    let bytes: Vec<u8> = text
        .bytes()
        .map(|b| if (32..127).contains(&b) { b } else { b'?' })
        .collect();
    let mut out = Vec::with_capacity(bytes.len() + 3);
    let mut i = 0;
    // Subset C pays off from a leading run of 4 digits (an odd run ends its last digit in B).
    let mut in_c = digit_run(&bytes) >= 4;
    out.push(if in_c { START_C } else { START_B });
    while i < bytes.len() {
        let run = digit_run(&bytes[i..]);
        if in_c {
            if run >= 2 {
                out.push((bytes[i] - b'0') * 10 + (bytes[i + 1] - b'0'));
                i += 2;
                continue;
            }
            out.push(CODE_B);
            in_c = false;
        }
        // In B: switch to C for a run of 4+ digits at the end, or 6+ in the middle; an odd run
        // keeps its first digit in B.
        let rest_is_run = run == bytes.len() - i;
        if run >= 6 || (run >= 4 && rest_is_run) {
            if run % 2 == 1 {
                out.push(bytes[i] - 32);
                i += 1;
            }
            out.push(CODE_C);
            in_c = true;
            continue;
        }
        out.push(bytes[i] - 32);
        i += 1;
    }
    let check = out
        .iter()
        .enumerate()
        .map(|(pos, v)| (pos.max(1) as u32) * (*v as u32))
        .sum::<u32>()
        % 103;
    out.push(check as u8);
    out
}

/// Run widths in modules (bar, space, bar, ...), stop included, quiet zones excluded.
pub fn code128_runs(text: &str) -> Vec<u8> {
    let mut runs = Vec::new();
    for s in symbols(text).into_iter().chain(std::iter::once(STOP)) {
        runs.extend(PATTERNS[s as usize].bytes().map(|b| b - b'0'));
    }
    runs
}

/// Total width in modules, quiet zones excluded.
pub fn code128_modules(text: &str) -> u32 {
    code128_runs(text).iter().map(|&w| w as u32).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_is_eleven_modules_and_unique() {
        let mut seen = std::collections::HashSet::new();
        for (i, p) in PATTERNS.iter().enumerate() {
            let sum: u32 = p.bytes().map(|b| (b - b'0') as u32).sum();
            assert_eq!(sum, if i == 106 { 13 } else { 11 }, "pattern {i}");
            assert!(seen.insert(*p), "duplicate pattern {i}");
        }
    }

    #[test]
    fn numeric_text_uses_subset_c_and_check_digit_is_right() {
        // "1234": start C (105), 12, 34; check = (105 + 1*12 + 2*34) % 103 = 185 % 103 = 82.
        assert_eq!(symbols("1234"), vec![105, 12, 34, 82]);
        // "AB": start B, 33, 34; check = (104 + 33 + 68) % 103 = 102.
        assert_eq!(symbols("AB"), vec![104, 33, 34, 102]);
    }

    #[test]
    fn mixed_text_switches_subsets_and_is_shorter_than_plain_b() {
        let s = symbols("RR473124829DE");
        assert_eq!(s[0], START_B);
        assert!(s.contains(&CODE_C) && s.contains(&CODE_B));
        assert!(s.len() < 13 + 2);
    }
}
