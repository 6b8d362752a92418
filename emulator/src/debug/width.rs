//! Fitting command output to a terminal's width (`set width N`, as gdb's; 0 is unlimited
//! and leaves every line as it is). Tables reflow in their renderers (lanes and registers
//! per row, `help`'s columns); what is left is wrapped at spaces, so no number is split, or,
//! in the context, cut at a space with [`CUT`] as pwndbg cuts its panes.

/// The mark that ends a line cut to fit.
pub const CUT: char = '…';

/// The columns `s` takes on a terminal: one a char, a tab to the next multiple of 8.
pub fn columns(s: &str) -> usize {
    s.chars().fold(0, advance)
}

fn advance(col: usize, c: char) -> usize {
    if c == '\t' {
        (col / 8 + 1) * 8
    } else {
        col + 1
    }
}

/// The longest prefix of `s` (a byte index) that fits in `room` columns.
fn prefix_within(s: &str, room: usize) -> usize {
    let mut col = 0;
    for (i, c) in s.char_indices() {
        col = advance(col, c);
        if col > room {
            return i;
        }
    }
    s.len()
}

/// `line` cut to at most `width` columns: at the last space that leaves room for [`CUT`]
/// (so a number or a name is not split), or, with no space to cut at, within the word.
/// A line that fits, and any line at width 0, is returned as it is.
pub fn cut(line: &str, width: usize) -> String {
    if width == 0 || columns(line) <= width {
        return line.to_string();
    }
    let room = width - 1;
    let within = &line[..prefix_within(line, room)];
    let indent = line.len() - line.trim_start().len();
    // The last space after the indentation, where the cut leaves whole words.
    let at = within
        .char_indices()
        .rev()
        .find(|&(i, c)| c == ' ' && i > indent)
        .map(|(i, _)| i);
    let kept = match at {
        Some(i) if !within[..i].trim().is_empty() => within[..i].trim_end(),
        _ => within,
    };
    format!("{kept}{CUT}")
}

/// Every line of `text` cut to `width` columns ([`cut`]); unchanged at width 0.
pub fn cut_lines(text: &str, width: usize) -> String {
    map_lines(text, width, |l| cut(l, width))
}

/// `line` wrapped at spaces into lines of at most `width` columns, the spacing inside each
/// kept as it was; continuation lines start with `indent` spaces (fewer when the width
/// leaves no room for a word). A word wider than a line is cut ([`cut`]). At width 0, or
/// when it fits, the line alone.
pub fn wrap(line: &str, width: usize, indent: usize) -> Vec<String> {
    if width == 0 || columns(line) <= width {
        return vec![line.to_string()];
    }
    let indent = if indent * 2 >= width {
        (width / 4).min(indent)
    } else {
        indent
    };
    let lead_len = line.len() - line.trim_start_matches(' ').len();
    let (lead, body) = line.split_at(lead_len);
    // (the spaces before a word, the word)
    let mut pieces: Vec<(&str, &str)> = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let word_at = rest.len() - rest.trim_start_matches(' ').len();
        let (gap, after) = rest.split_at(word_at);
        let end = after.find(' ').unwrap_or(after.len());
        pieces.push((gap, &after[..end]));
        rest = &after[end..];
    }
    // A word too wide for a line (a usage's `a|b|c`) breaks after its `|` and `,`: the
    // pieces join with no space.
    let room = width.saturating_sub(indent.max(lead_len));
    let pieces: Vec<(&str, &str)> = pieces
        .into_iter()
        .flat_map(|(gap, word)| {
            let parts: Vec<&str> = if columns(word) > room {
                word.split_inclusive(['|', ',']).collect()
            } else {
                vec![word]
            };
            parts
                .into_iter()
                .enumerate()
                .map(move |(i, p)| (if i == 0 { gap } else { "" }, p))
        })
        .collect();
    let mut out = Vec::new();
    let mut current = lead.to_string();
    let mut empty = true;
    for (gap, word) in pieces {
        if word.is_empty() {
            continue;
        }
        let joined = if empty {
            format!("{current}{word}")
        } else {
            format!("{current}{gap}{word}")
        };
        if columns(&joined) <= width {
            current = joined;
            empty = false;
            continue;
        }
        if !empty {
            out.push(std::mem::take(&mut current));
            current = " ".repeat(indent);
        }
        let room = width.saturating_sub(columns(&current)).max(1);
        current.push_str(&cut(word, room));
        empty = false;
    }
    if !empty || out.is_empty() {
        out.push(current);
    }
    out
}

/// Every line of `text` wrapped to `width` columns ([`wrap`]), continuation lines
/// indented two columns more than the line they continue; unchanged at width 0.
pub fn wrap_lines(text: &str, width: usize) -> String {
    map_lines(text, width, |l| {
        let indent = l.len() - l.trim_start_matches(' ').len();
        wrap(l, width, indent + 2).join("\n")
    })
}

fn map_lines(text: &str, width: usize, f: impl Fn(&str) -> String) -> String {
    if width == 0 {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&f(line));
    }
    out
}

/// How many cells of `cell` columns fit a row of `width` columns after a label of `label`
/// columns: at least 1, at most `max`; `default` at width 0 (unlimited).
pub fn per_row(width: usize, label: usize, cell: usize, default: usize, max: usize) -> usize {
    if width == 0 {
        return default;
    }
    (width.saturating_sub(label) / cell.max(1)).clamp(1, max.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_whole_words_and_marks_the_cut() {
        assert_eq!(cut("abc def ghi", 0), "abc def ghi");
        assert_eq!(cut("abc def ghi", 11), "abc def ghi");
        assert_eq!(cut("abc def ghi", 10), "abc def…");
        assert_eq!(cut("abcdefghij", 5), "abcd…");
        assert_eq!(cut("  0x0040  add v1, v2", 12), "  0x0040…");
        assert_eq!(
            cut("=>   12\tld v1, v2, 0 # a long comment", 20),
            "=>   12\tld v1, v2,…"
        );
    }

    #[test]
    fn wrap_breaks_at_spaces_with_the_indentation() {
        assert_eq!(wrap("one two three", 0, 2), ["one two three"]);
        assert_eq!(wrap("one two three", 9, 2), ["one two", "  three"]);
        assert_eq!(wrap("  aa  bb  cc  dd", 10, 4), ["  aa  bb", "    cc  dd"]);
        assert_eq!(wrap("0x12345678 0x9", 8, 0), ["0x12345…", "0x9"]);
        assert_eq!(wrap("set a|bb|cc|d", 8, 2), ["set a|", "  bb|cc|", "  d"]);
        for w in [10, 20, 40] {
            for l in wrap_lines(&"word 0x1234 ".repeat(20), w).lines() {
                assert!(columns(l) <= w, "{l:?}");
            }
        }
    }

    #[test]
    fn per_row_fits_the_width() {
        assert_eq!(per_row(0, 6, 15, 8, 32), 8);
        assert_eq!(per_row(80, 6, 15, 8, 32), 4);
        assert_eq!(per_row(40, 6, 15, 8, 32), 2);
        assert_eq!(per_row(10, 6, 15, 8, 32), 1);
        assert_eq!(per_row(1000, 6, 15, 8, 32), 32);
    }
}
