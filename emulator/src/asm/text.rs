//! Lexical helpers of the assembler: comments, labels, operand splitting, numbers,
//! registers. Byte offsets (`Span`) index the line they were found in.

use crate::isa::operand::CPOL_NAMES;
use crate::isa::RegFile;

/// A byte range within a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }
}

/// A parsed register operand.
pub(crate) enum Token {
    /// File, first register, and the tuple length when written as `v[a:b]`.
    Reg(RegFile, u32, Option<u32>),
    /// Looked like a tuple but was malformed.
    BadTuple,
    /// Anything else (an immediate, a label, a cache-policy name).
    Other,
}

/// Where a `;` or `//` comment starts in a source line (outside double quotes), as the
/// assembler reads it (front ends show comments apart).
pub fn comment_start(line: &str) -> Option<usize> {
    let mut in_str = false;
    let b = line.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'"' => in_str = !in_str,
            b';' if !in_str => return Some(i),
            b'/' if !in_str && b.get(i + 1) == Some(&b'/') => return Some(i),
            _ => {}
        }
    }
    None
}

/// Cuts a `;` or `//` comment (outside double quotes).
pub(crate) fn strip_comment(line: &str) -> &str {
    comment_start(line).map_or(line, |i| &line[..i])
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$')
}

/// Whether `s` is a valid label or buffer name.
pub(crate) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || matches!(c, '_' | '.' | '$'))
        && chars.all(is_ident_char)
}

fn skip_ws(line: &str, mut at: usize, end: usize) -> usize {
    while at < end && line.as_bytes()[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

/// A `name:` at the start of `rest`: the label's span and what follows.
pub(crate) fn leading_label(line: &str, rest: Span) -> Option<(Span, Span)> {
    let start = skip_ws(line, rest.start, rest.end);
    let mut end = start;
    while end < rest.end && is_ident_char(line.as_bytes()[end] as char) {
        end += 1;
    }
    if end > start && end < rest.end && line.as_bytes()[end] == b':' && is_ident(&line[start..end])
    {
        Some((Span::new(start, end), Span::new(end + 1, rest.end)))
    } else {
        None
    }
}

/// The first whitespace-delimited word of `rest`.
pub(crate) fn first_word(line: &str, rest: Span) -> Option<Span> {
    let start = skip_ws(line, rest.start, rest.end);
    let mut end = start;
    while end < rest.end && !line.as_bytes()[end].is_ascii_whitespace() {
        end += 1;
    }
    (end > start).then_some(Span::new(start, end))
}

/// Splits comma-separated operands (commas inside brackets or quotes do not split),
/// trimming each. An empty operand between commas is kept (and reported by the caller).
pub(crate) fn split_operands(line: &str, rest: Span) -> Vec<Span> {
    let mut out = Vec::new();
    let s = skip_ws(line, rest.start, rest.end);
    if s >= rest.end {
        return out;
    }
    let (mut depth, mut in_str, mut start) = (0i32, false, s);
    let b = line.as_bytes();
    for i in s..=rest.end {
        let c = if i < rest.end { b[i] } else { b',' };
        match c {
            b'"' => in_str = !in_str,
            b'[' | b'(' if !in_str => depth += 1,
            b']' | b')' if !in_str => depth -= 1,
            b',' if !in_str && (depth == 0 || i == rest.end) => {
                let a = skip_ws(line, start, i);
                let mut e = i;
                while e > a && b[e - 1].is_ascii_whitespace() {
                    e -= 1;
                }
                out.push(Span::new(a, e));
                start = i + 1;
            }
            _ => {}
        }
    }
    out
}

/// Parses an integer: decimal, `0x` hex, `0b` binary, optional sign, `_` separators.
pub(crate) fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim().replace('_', "");
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r.to_string()),
        None => (false, t.strip_prefix('+').unwrap_or(&t).to_string()),
    };
    // from_str_radix accepts a sign: allow digits only after the prefix.
    let digits = |s: &str, radix: u32| s.chars().all(|c| c.is_digit(radix)) && !s.is_empty();
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        if !digits(h, 16) {
            return None;
        }
        i64::from_str_radix(h, 16).ok()?
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        if !digits(b, 2) {
            return None;
        }
        i64::from_str_radix(b, 2).ok()?
    } else if !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit()) {
        t.parse().ok()?
    } else {
        return None;
    };
    Some(if neg { v.checked_neg()? } else { v })
}

/// Parses an f32 literal (`1.5`, `-2e3`, `inf`, `nan`); needs a `.`, exponent or name so
/// that integers stay integers.
pub(crate) fn parse_f32(text: &str) -> Option<f32> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let named = matches!(
        lower.trim_start_matches(['-', '+']),
        "inf" | "nan" | "infinity"
    );
    if !(named || t.contains('.') || lower.contains('e')) || lower.starts_with("0x") {
        return None;
    }
    let f = t.parse::<f32>().ok()?;
    // A finite literal too large for f32 parses as infinity: out of range, not infinity.
    (named || f.is_finite()).then_some(f)
}

/// Parses a register (`v5`, `u7`) or tuple (`v[4:5]`).
pub(crate) fn parse_reg(text: &str) -> Token {
    let t = text.trim();
    let file = match t.chars().next() {
        Some('v') => RegFile::Vector,
        Some('u') => RegFile::Uniform,
        _ => return Token::Other,
    };
    let rest = &t[1..];
    if let Some(inner) = rest.strip_prefix('[') {
        let Some(inner) = inner.strip_suffix(']') else {
            return Token::BadTuple;
        };
        let Some((a, b)) = inner.split_once(':') else {
            return Token::BadTuple;
        };
        match (a.trim().parse::<u32>(), b.trim().parse::<u32>()) {
            (Ok(a), Ok(b)) if b >= a && b - a < 64 => Token::Reg(file, a, Some(b - a + 1)),
            _ => Token::BadTuple,
        }
    } else if !rest.is_empty() && rest.bytes().all(|c| c.is_ascii_digit()) && rest.len() <= 4 {
        rest.parse()
            .map_or(Token::Other, |n| Token::Reg(file, n, None))
    } else {
        Token::Other
    }
}

/// Parses a cache policy: names separated by spaces or `|`, or a number 0-7.
pub(crate) fn parse_cpol(text: &str) -> Option<i64> {
    if let Some(v) = parse_int(text) {
        return (0..8).contains(&v).then_some(v);
    }
    let mut v = 0;
    for name in text
        .split(|c: char| c.is_whitespace() || c == '|')
        .filter(|s| !s.is_empty())
    {
        let bit = CPOL_NAMES.iter().position(|n| *n == name)?;
        v |= 1 << bit;
    }
    (v != 0).then_some(v)
}

/// Longest word (in bytes) for which a "did you mean" is computed: a longer token is not
/// a typo of a name, and edit distance costs its length times each candidate's.
pub(crate) const MAX_SUGGEST_LEN: usize = 40;
/// Most candidates compared with one word, so that a suggestion costs the same however
/// many labels a kernel defines.
pub(crate) const MAX_SUGGEST_CANDIDATES: usize = 2048;

/// The `n` names closest to `word`, only those within a plausible distance. Bounded work:
/// nothing for an empty word or one longer than [`MAX_SUGGEST_LEN`]; names of a length
/// that cannot be close are skipped, and at most [`MAX_SUGGEST_CANDIDATES`] are compared.
pub(crate) fn nearest<'a>(word: &str, names: &[&'a str], n: usize) -> Vec<&'a str> {
    if word.is_empty() || word.len() > MAX_SUGGEST_LEN {
        return Vec::new();
    }
    let limit = |len: usize| (len.max(word.len()) / 2).max(2);
    let mut scored: Vec<(usize, &'a str)> = names
        .iter()
        .filter(|c| c.len() <= MAX_SUGGEST_LEN && c.len().abs_diff(word.len()) <= limit(c.len()))
        .take(MAX_SUGGEST_CANDIDATES)
        .map(|c| (crate::isa::edit_distance(word, c), *c))
        .filter(|(d, c)| *d <= limit(c.len()))
        .collect();
    scored.sort();
    scored.into_iter().take(n).map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_start_outside_strings() {
        assert_eq!(comment_start("    br top ; loop"), Some(11));
        assert_eq!(comment_start("x // y"), Some(2));
        assert_eq!(comment_start(".s \"a;b\" ; c"), Some(9));
        assert_eq!(comment_start("plain"), None);
        assert_eq!(strip_comment("  end ; done"), "  end ");
    }
}
