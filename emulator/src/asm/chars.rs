//! Characters the assembler does not accept outside comments and quoted paths: non-ASCII
//! (invisible spaces, look-alike letters, typographic dashes and quotes) and control
//! characters. Each is named by its code point and a description, with what to type instead.

/// The first character of `code` (a line without its comment) that is not allowed outside
/// double quotes, from byte `from` on: its byte offset and the character.
pub(crate) fn next_bad_char(code: &str, from: usize) -> Option<(usize, char)> {
    let mut in_str = false;
    for (i, c) in code[from..].char_indices() {
        match c {
            '"' => in_str = !in_str,
            '\t' => {}
            c if in_str && !c.is_control() => {}
            c if c.is_ascii() && !c.is_ascii_control() => {}
            c => return Some((from + i, c)),
        }
    }
    None
}

/// The error message and hint for a character that is not allowed.
pub(crate) fn describe(c: char) -> (String, String) {
    let code = format!("U+{:04X}", c as u32);
    let (name, hint): (String, String) = match c {
        '\u{00A0}' => ("NO-BREAK SPACE".into(), "use a plain space".into()),
        '\u{202F}' => ("NARROW NO-BREAK SPACE".into(), "use a plain space".into()),
        '\u{2000}'..='\u{200A}' | '\u{205F}' | '\u{3000}' | '\u{1680}' => {
            ("a typographic space".into(), "use a plain space".into())
        }
        '\u{200B}' => ("ZERO WIDTH SPACE (invisible)".into(), "delete it".into()),
        '\u{200C}' => (
            "ZERO WIDTH NON-JOINER (invisible)".into(),
            "delete it".into(),
        ),
        '\u{200D}' => ("ZERO WIDTH JOINER (invisible)".into(), "delete it".into()),
        '\u{2060}' => ("WORD JOINER (invisible)".into(), "delete it".into()),
        '\u{FEFF}' => (
            "ZERO WIDTH NO-BREAK SPACE (a byte order mark, invisible)".into(),
            "delete it (a byte order mark is accepted only at the start of the file)".into(),
        ),
        '\u{00AD}' => ("SOFT HYPHEN (invisible)".into(), "delete it".into()),
        '\u{2028}' => (
            "LINE SEPARATOR".into(),
            "use a plain line break (LF)".into(),
        ),
        '\u{2029}' => (
            "PARAGRAPH SEPARATOR".into(),
            "use a plain line break (LF)".into(),
        ),
        '\u{0085}' => ("NEXT LINE".into(), "use a plain line break (LF)".into()),
        '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => (
            "a text-direction control (invisible)".into(),
            "delete it".into(),
        ),
        '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE63}' => (
            match c {
                '\u{2013}' => "EN DASH".into(),
                '\u{2014}' => "EM DASH".into(),
                '\u{2212}' => "MINUS SIGN".into(),
                _ => "a typographic hyphen or dash".into(),
            },
            "use the ASCII hyphen-minus `-`".into(),
        ),
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => (
            "a typographic single quote".into(),
            "use a plain `'`".into(),
        ),
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => (
            "a typographic double quote".into(),
            "use a plain `\"`".into(),
        ),
        '\u{FF01}'..='\u{FF5E}' => {
            // The fullwidth block mirrors ASCII 0x21-0x7E at a fixed offset.
            let ascii = char::from_u32(c as u32 - 0xFF01 + 0x21).unwrap_or('?');
            (
                format!("FULLWIDTH `{c}`"),
                format!("use the ASCII `{ascii}`"),
            )
        }
        '\u{0370}'..='\u{03FF}' | '\u{0400}'..='\u{04FF}' => {
            let script = if (c as u32) < 0x400 {
                "GREEK"
            } else {
                "CYRILLIC"
            };
            match look_alike(c) {
                Some(a) => (
                    format!("{script} `{c}`, which looks like the Latin `{a}`"),
                    format!("type the ASCII `{a}`"),
                ),
                None => (
                    format!("{script} `{c}`"),
                    "names and mnemonics are ASCII".into(),
                ),
            }
        }
        '\r' => (
            "CARRIAGE RETURN".into(),
            "end lines with LF or CRLF; delete a stray CR".into(),
        ),
        c if c.is_control() => ("a control character".into(), "delete it".into()),
        c => (
            format!("`{c}`, a non-ASCII character"),
            "outside comments and quoted paths the assembler reads ASCII only".into(),
        ),
    };
    (format!("{code} {name} is not allowed here"), hint)
}

/// The ASCII letter a Greek or Cyrillic letter is usually mistaken for.
fn look_alike(c: char) -> Option<char> {
    Some(match c {
        'а' | 'α' => 'a',
        'е' | 'ε' => 'e',
        'о' | 'ο' => 'o',
        'р' | 'ρ' => 'p',
        'с' => 'c',
        'у' => 'y',
        'х' | 'χ' => 'x',
        'і' | 'ι' => 'i',
        'ѕ' => 's',
        'ј' => 'j',
        'ν' => 'v',
        'υ' => 'u',
        'А' | 'Α' => 'A',
        'В' | 'Β' => 'B',
        'Е' | 'Ε' => 'E',
        'К' | 'Κ' => 'K',
        'М' | 'Μ' => 'M',
        'Н' | 'Η' => 'H',
        'О' | 'Ο' => 'O',
        'Р' | 'Ρ' => 'P',
        'С' => 'C',
        'Т' | 'Τ' => 'T',
        'Х' | 'Χ' => 'X',
        _ => return None,
    })
}
