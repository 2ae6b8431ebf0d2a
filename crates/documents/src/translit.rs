//! A Latin line beside an address in another script, for the people and machines along an
//! international route that read only Latin. Printed next to the original, never instead of it.
//!
//! Covered where a transliteration follows from the letters alone: Cyrillic (ICAO 9303, as
//! passports), Greek (ELOT 743), Korean Hangul (Revised Romanization, without the sound-change
//! rules), Japanese kana (Hepburn). Not covered, so no line is added: Chinese characters and
//! kanji (their reading needs a dictionary), and Arabic and Hebrew written without vowels (the
//! letters alone do not give the name's sound).

/// The Latin transliteration of `s`, or `None` when `s` is already Latin or holds letters this
/// module cannot transliterate.
pub fn latin(s: &str) -> Option<String> {
    let chars: Vec<char> = s.chars().collect();
    if chars.iter().all(|c| !c.is_alphabetic() || is_latin(*c)) {
        return None;
    }
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if is_latin(c) || !c.is_alphabetic() {
            out.push(c);
        } else if let Some(t) = cyrillic(c) {
            push_cased(&mut out, t, c.is_uppercase(), next.is_some_and(|n| n.is_uppercase()));
        } else if let Some((t, used)) = greek(c, next) {
            push_cased(&mut out, t, c.is_uppercase(), next.is_some_and(|n| n.is_uppercase()));
            i += used - 1;
        } else if let Some(t) = hangul(c) {
            // Each syllable starts a capital only at the start of a word (김민준: Gimminjun).
            let word_start = out.chars().last().is_none_or(|p| !p.is_alphanumeric());
            push_cased(&mut out, &t, word_start, false);
        } else if let Some((t, used)) = kana(&chars[i..]) {
            let word_start = out.chars().last().is_none_or(|p| !p.is_alphanumeric());
            push_cased(&mut out, &t, word_start, false);
            i += used - 1;
        } else {
            return None;
        }
        i += 1;
    }
    Some(out)
}

/// Text as a search compares it: lower case, without accents or other marks ("Chloé" and
/// "chloe" are one word), the few Latin letters that do not decompose spelled out (ß, ø, æ, œ,
/// ł, đ, ı, þ). Other scripts stay as they are; `latin` gives their Latin spelling.
pub fn fold(s: &str) -> String {
    use unicode_normalization::char::is_combining_mark;
    use unicode_normalization::UnicodeNormalization;
    let mut out = String::with_capacity(s.len());
    for c in s.nfd().filter(|c| !is_combining_mark(*c)).flat_map(char::to_lowercase) {
        match c {
            'ß' => out.push_str("ss"),
            'ø' => out.push('o'),
            'æ' => out.push_str("ae"),
            'œ' => out.push_str("oe"),
            'ł' => out.push('l'),
            'đ' | 'ð' => out.push('d'),
            'ı' => out.push('i'),
            'þ' => out.push_str("th"),
            c => out.push(c),
        }
    }
    out
}

/// The spellings a search (folded by `fold`) should find `text` by besides its own: folded, and in
/// Latin letters when it is in another script (folded too). Empty when there is none.
pub fn search_spellings(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let folded = fold(text);
    if folded != text {
        out.push(folded);
    }
    if let Some(latin) = latin(text) {
        out.push(fold(&latin));
    }
    out
}

/// `line`, followed by its Latin transliteration when it has one: "Иван Петров / Ivan Petrov".
pub fn beside(line: &str) -> String {
    match latin(line) {
        Some(t) => format!("{line} / {t}"),
        None => line.to_string(),
    }
}

fn is_latin(c: char) -> bool {
    c.is_ascii() || ('\u{c0}'..='\u{24f}').contains(&c)
}

/// `t` (lower case) with the source letter's case: "Zh" for Ж in "Жуков", "ZH" in "ЖУКОВ".
fn push_cased(out: &mut String, t: &str, upper: bool, next_upper: bool) {
    for (k, ch) in t.chars().enumerate() {
        if upper && (k == 0 || next_upper) {
            out.extend(ch.to_uppercase());
        } else {
            out.push(ch);
        }
    }
}

fn cyrillic(c: char) -> Option<&'static str> {
    let lower = c.to_lowercase().next()?;
    Some(match lower {
        'а' => "a",
        'б' => "b",
        'в' => "v",
        'г' => "g",
        'ґ' => "g",
        'д' => "d",
        'е' => "e",
        'ё' => "e",
        'є' => "ie",
        'ж' => "zh",
        'з' => "z",
        'и' => "i",
        'і' => "i",
        'ї' => "i",
        'й' => "i",
        'к' => "k",
        'л' => "l",
        'м' => "m",
        'н' => "n",
        'о' => "o",
        'п' => "p",
        'р' => "r",
        'с' => "s",
        'т' => "t",
        'у' => "u",
        'ў' => "u",
        'ф' => "f",
        'х' => "kh",
        'ц' => "ts",
        'ч' => "ch",
        'ш' => "sh",
        'щ' => "shch",
        'ъ' => "ie",
        'ы' => "y",
        'ь' => "",
        'э' => "e",
        'ю' => "iu",
        'я' => "ia",
        'ђ' => "d",
        'ј' => "j",
        'љ' => "lj",
        'њ' => "nj",
        'ћ' => "c",
        'џ' => "dz",
        _ => return None,
    })
}

/// Greek letter (with `next` for the digraph ου), and how many characters it used.
fn greek(c: char, next: Option<char>) -> Option<(&'static str, usize)> {
    let base = |c: char| -> Option<char> {
        let l = c.to_lowercase().next()?;
        Some(match l {
            'ά' => 'α',
            'έ' => 'ε',
            'ή' => 'η',
            'ί' | 'ϊ' | 'ΐ' => 'ι',
            'ό' => 'ο',
            'ύ' | 'ϋ' | 'ΰ' => 'υ',
            'ώ' => 'ω',
            'ς' => 'σ',
            other => other,
        })
    };
    let l = base(c)?;
    if l == 'ο' && next.and_then(base) == Some('υ') {
        return Some(("ou", 2));
    }
    let t = match l {
        'α' => "a",
        'β' => "v",
        'γ' => "g",
        'δ' => "d",
        'ε' => "e",
        'ζ' => "z",
        'η' => "i",
        'θ' => "th",
        'ι' => "i",
        'κ' => "k",
        'λ' => "l",
        'μ' => "m",
        'ν' => "n",
        'ξ' => "x",
        'ο' => "o",
        'π' => "p",
        'ρ' => "r",
        'σ' => "s",
        'τ' => "t",
        'υ' => "y",
        'φ' => "f",
        'χ' => "ch",
        'ψ' => "ps",
        'ω' => "o",
        _ => return None,
    };
    Some((t, 1))
}

/// A Hangul syllable: initial + vowel + final consonant (Unicode's arithmetic composition).
fn hangul(c: char) -> Option<String> {
    const INITIAL: [&str; 19] = [
        "g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h",
    ];
    const VOWEL: [&str; 21] = [
        "a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we", "wi", "yu",
        "eu", "ui", "i",
    ];
    const FINAL: [&str; 28] = [
        "", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p", "p", "t", "t", "ng",
        "t", "t", "k", "t", "p", "t",
    ];
    let code = (c as u32).checked_sub(0xAC00)?;
    if code >= 11172 {
        return None;
    }
    let (i, v, f) = (code / 588, (code % 588) / 28, code % 28);
    Some(format!(
        "{}{}{}",
        INITIAL[i as usize], VOWEL[v as usize], FINAL[f as usize]
    ))
}

/// Kana at the start of `chars` (a syllable with a following small ya/yu/yo, or one kana, or a
/// small tsu doubling the next consonant), Hepburn; and how many characters it used.
fn kana(chars: &[char]) -> Option<(String, usize)> {
    // Katakana and hiragana differ by 0x60; read both as hiragana.
    let hira = |c: char| -> char {
        if ('\u{30A1}'..='\u{30F6}').contains(&c) {
            char::from_u32(c as u32 - 0x60).unwrap_or(c)
        } else {
            c
        }
    };
    let c = hira(*chars.first()?);
    if c == 'ー' {
        return Some((String::new(), 1)); // a long vowel mark: Hepburn without macrons drops it
    }
    if c == 'っ' {
        let (rest, used) = kana(&chars[1..])?;
        let doubled = rest
            .chars()
            .next()
            .map(|f| if rest.starts_with("ch") { 't' } else { f });
        return Some((format!("{}{rest}", doubled.unwrap_or_default()), used + 1));
    }
    let base = kana_syllable(c)?;
    if let Some(small) = chars.get(1).map(|n| hira(*n)) {
        let y = match small {
            'ゃ' => Some("a"),
            'ゅ' => Some("u"),
            'ょ' => Some("o"),
            _ => None,
        };
        if let Some(y) = y {
            let stem = base.strip_suffix('i').unwrap_or(base);
            let joined = match stem {
                "sh" | "ch" | "j" => format!("{stem}{y}"),
                _ => format!("{stem}y{y}"),
            };
            return Some((joined, 2));
        }
    }
    Some((base.to_string(), 1))
}

fn kana_syllable(c: char) -> Option<&'static str> {
    const ROWS: [(&str, [&str; 5]); 15] = [
        ("あいうえお", ["a", "i", "u", "e", "o"]),
        ("かきくけこ", ["ka", "ki", "ku", "ke", "ko"]),
        ("がぎぐげご", ["ga", "gi", "gu", "ge", "go"]),
        ("さしすせそ", ["sa", "shi", "su", "se", "so"]),
        ("ざじずぜぞ", ["za", "ji", "zu", "ze", "zo"]),
        ("たちつてと", ["ta", "chi", "tsu", "te", "to"]),
        ("だぢづでど", ["da", "ji", "zu", "de", "do"]),
        ("なにぬねの", ["na", "ni", "nu", "ne", "no"]),
        ("はひふへほ", ["ha", "hi", "fu", "he", "ho"]),
        ("ばびぶべぼ", ["ba", "bi", "bu", "be", "bo"]),
        ("ぱぴぷぺぽ", ["pa", "pi", "pu", "pe", "po"]),
        ("まみむめも", ["ma", "mi", "mu", "me", "mo"]),
        ("らりるれろ", ["ra", "ri", "ru", "re", "ro"]),
        ("やゆよわを", ["ya", "yu", "yo", "wa", "o"]),
        ("んぁぃぅぇ", ["n", "a", "i", "u", "e"]),
    ];
    ROWS.iter()
        .find_map(|(kana, latin)| kana.chars().position(|k| k == c).map(|i| latin[i]))
}

#[cfg(test)]
mod tests {
    use super::latin;

    #[test]
    fn names_read_as_their_owners_write_them_in_latin() {
        assert_eq!(latin("Иван Петров").as_deref(), Some("Ivan Petrov"));
        assert_eq!(
            latin("ул. Тверская 1, Москва").as_deref(),
            Some("ul. Tverskaia 1, Moskva")
        );
        assert_eq!(latin("Жуков").as_deref(), Some("Zhukov"));
        assert_eq!(latin("Γιώργος Παπαδόπουλος").as_deref(), Some("Giorgos Papadopoulos"));
        assert_eq!(latin("김민준").as_deref(), Some("Gimminjun"));
        assert_eq!(latin("やまだ たろう").as_deref(), Some("Yamada Tarou"));
        assert_eq!(latin("トウキョウ").as_deref(), Some("Toukyou"));
        assert_eq!(latin("きょうと").as_deref(), Some("Kyouto"));
        assert_eq!(latin("さっぽろ").as_deref(), Some("Sapporo"));
    }

    #[test]
    fn the_latin_line_goes_beside_the_original() {
        assert_eq!(super::beside("Иван Петров"), "Иван Петров / Ivan Petrov");
        assert_eq!(super::beside("22 High Street"), "22 High Street");
    }

    #[test]
    fn latin_text_and_what_cannot_be_read_from_letters_get_no_line() {
        assert_eq!(latin("José Müller, 22 High St"), None);
        assert_eq!(latin("山田 太郎"), None);
        assert_eq!(latin("محمد علي"), None);
        assert_eq!(latin("דוד לוי"), None);
    }
}

#[cfg(test)]
mod fold_tests {
    use super::*;

    #[test]
    fn searches_find_names_without_their_accents_and_in_latin_letters() {
        assert_eq!(fold("Chloé Müller-Łukasiewicz"), "chloe muller-lukasiewicz");
        assert_eq!(fold("Straße Ørsted"), "strasse orsted");
        assert_eq!(search_spellings("Chloé"), ["chloe"]);
        assert_eq!(search_spellings("Петров"), ["петров", "petrov"]);
        assert!(search_spellings("smith").is_empty());
    }
}
