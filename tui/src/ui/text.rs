//! Writing text into panes without cutting anything silently. Every pane keeps the last
//! column of its area for a marker: a line that fits in the columns before it is drawn
//! whole; a longer one is cut there and `…` fills the last column. (So a row whose last
//! column is neither blank nor `…` cannot exist, which the tests check at every size.)
//! Text that wraps instead ([`wrap`]) starts each continuation row with [`CONTINUED`].

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::Frame;

use super::theme;

/// The marker of cut text.
pub const CUT: char = '…';

/// The marker that starts a continuation row of wrapped text.
pub const CONTINUED: &str = "↪ ";

/// The width of `s` in cells (without allocating: it runs per character while wrapping).
pub fn width(s: &str) -> usize {
    ratatui::text::Span::raw(s).width()
}

/// Cuts `s` to at most `n` cells, ending with `…` if anything was cut.
pub fn truncate(s: &str, n: usize) -> String {
    if width(s) <= n {
        return s.to_string();
    }
    if n == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = width(c.encode_utf8(&mut [0; 4]));
        if used + w > n - 1 {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push(CUT);
    out
}

/// The width of a line without its trailing spaces.
fn visible_width(line: &Line) -> usize {
    let total: usize = line.spans.iter().map(|s| s.width()).sum();
    let mut trailing = 0;
    for span in line.spans.iter().rev() {
        let t = span.content.chars().rev().take_while(|c| *c == ' ').count();
        trailing += t;
        if t < span.content.chars().count() {
            break;
        }
    }
    total.saturating_sub(trailing)
}

/// Writes lines into `area`, one per row, from its top: each cut at the last column with
/// `…` if it does not fit before it. A line's own style (the cursor bar) covers its whole
/// row.
pub(crate) fn put_lines(frame: &mut Frame, area: Rect, lines: &[Line]) {
    put_lines_buf(frame.buffer_mut(), area, lines);
}

fn put_lines_buf(buf: &mut Buffer, area: Rect, lines: &[Line]) {
    let area = area.intersection(buf.area);
    if area.width == 0 {
        return;
    }
    let right = area.x + area.width;
    let room = area.width as usize - 1;
    for (dy, line) in lines.iter().take(area.height as usize).enumerate() {
        let y = area.y + dy as u16;
        let cut = visible_width(line) > room;
        let limit = if cut { right - 1 } else { right };
        let mut x = area.x;
        for span in &line.spans {
            if x >= limit {
                break;
            }
            let style = line.style.patch(span.style);
            if span.content.is_ascii() {
                for b in span.content.bytes().take((limit - x) as usize) {
                    if let Some(cell) = buf.cell_mut((x, y)) {
                        cell.set_char(b as char).set_style(style);
                    }
                    x += 1;
                }
            } else {
                let (nx, _) =
                    buf.set_stringn(x, y, span.content.as_ref(), (limit - x) as usize, style);
                x = nx.max(x);
            }
        }
        if line.style != Style::default() && x < right {
            buf.set_style(Rect::new(x, y, right - x, 1), line.style);
        }
        if cut {
            if let Some(cell) = buf.cell_mut((right - 1, y)) {
                cell.set_char(CUT)
                    .set_style(line.style.patch(theme::cut_marker()));
            }
        }
    }
}

/// Wraps `text` into rows of at most `width` cells, at spaces where possible (a word
/// longer than a row is split). Continuation rows start with [`CONTINUED`]; the spaces
/// at a break are dropped.
pub fn wrap(text: &str, cols: usize) -> Vec<String> {
    wrap_with(text, cols, CONTINUED)
}

/// Wraps `text` like [`wrap`], starting continuation rows with `marker` (prose: none).
pub fn wrap_with(text: &str, cols: usize, marker: &str) -> Vec<String> {
    let cont = width(marker);
    let mut rows = Vec::new();
    let mut rest = text;
    let mut first = true;
    loop {
        let room = if first {
            cols
        } else {
            cols.saturating_sub(cont)
        };
        if room == 0 {
            rows.push(truncate(rest, cols));
            return rows;
        }
        let prefix = if first { "" } else { marker };
        if width(rest) <= room {
            rows.push(format!("{prefix}{rest}"));
            return rows;
        }
        // The longest prefix that fits (at least one char).
        let mut used = 0;
        let mut end = 0;
        for (i, c) in rest.char_indices() {
            let w = width(c.encode_utf8(&mut [0; 4]));
            if used + w > room && i > 0 {
                break;
            }
            used += w;
            end = i + c.len_utf8();
        }
        // Break at the last space within it, if the row keeps some text; at a space
        // right after it, the whole of it.
        let cut = if rest[end..].starts_with(' ') {
            end
        } else {
            rest[..end]
                .rfind(' ')
                .filter(|&i| !rest[..i].trim().is_empty())
                .unwrap_or(end)
        };
        rows.push(format!("{prefix}{}", rest[..cut].trim_end()));
        rest = rest[cut..].trim_start_matches(' ');
        first = false;
        if rest.is_empty() {
            return rows;
        }
    }
}

/// Writes the first of `forms` (the same explanation, longest first) that fits `area`
/// whole when wrapped; the last, wrapped and cut at a word, if none does. What a pane says
/// when it is too small to show anything (`The lane grid needs 17 columns (it has 12); z
/// maximises it.`, down to `Needs 17x2.`): the reader gets its figures at any size.
pub(crate) fn put_needs(frame: &mut Frame, area: Rect, forms: &[String], style: Style) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let room = area.width as usize - 1;
    let fits = |t: &String| {
        let rows = wrap_with(t, room, "");
        rows.len() <= area.height as usize && rows.iter().all(|r| width(r) <= room)
    };
    if let Some(t) = forms.iter().find(|t| fits(t)).or(forms.last()) {
        put_wrapped(frame, area, t, style);
    }
}

/// The explanations of a pane too small for what it shows, longest first, for
/// [`put_needs`]: `what` (`The lane grid`) needs `columns` x `rows` and has `width` x
/// `height` (only what is short is named).
pub(crate) fn needs(
    what: &str,
    (columns, rows): (usize, usize),
    (width, height): (usize, usize),
) -> Vec<String> {
    let mut long = Vec::new();
    let mut short = Vec::new();
    if width < columns {
        long.push(format!("{columns} columns (it has {width})"));
        short.push(format!("{columns} columns"));
    }
    if height < rows {
        long.push(format!("{rows} rows (it has {height})"));
        short.push(format!("{rows} rows"));
    }
    vec![
        format!("{what} needs {}; z maximises it.", long.join(" and ")),
        format!("{what} needs {}.", short.join(" and ")),
        format!("Needs {}.", short.join(", ")),
        format!("Needs {columns}x{rows}."),
        format!("{columns}x{rows}"),
    ]
}

/// Writes prose wrapped at spaces into `area` in `style`; if it needs more rows than there
/// are, the last row shown ends with `…`.
pub(crate) fn put_wrapped(frame: &mut Frame, area: Rect, text: &str, style: Style) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    let room = area.width as usize - 1;
    let mut rows = wrap_with(text, room, "");
    let h = area.height as usize;
    if rows.len() > h {
        rows.truncate(h);
        if let Some(last) = rows.last_mut() {
            *last = cut_at_word(last, room);
        }
    }
    let lines: Vec<Line> = rows.into_iter().map(|r| Line::styled(r, style)).collect();
    put_lines(frame, area, &lines);
}

/// `s` whole if it fits in `room` cells, else cut at a word boundary with ` …` after it
/// (prose: a message, a question's reason), a lone `…` if no word fits.
pub(crate) fn cut_prose(s: &str, room: usize) -> String {
    if width(s) <= room {
        s.to_string()
    } else if room == 0 {
        String::new()
    } else {
        // The longest start that ends at a space, its spacing kept, with ` …` after it.
        let mut head = "";
        for (i, _) in s.match_indices(' ') {
            let h = s[..i].trim_end();
            if width(h) + 2 > room {
                break;
            }
            head = h;
        }
        if head.is_empty() {
            CUT.to_string()
        } else {
            format!("{head} {CUT}")
        }
    }
}

/// `row` shortened at a word boundary so that ` …` follows it within `room` cells: the
/// last row of prose that goes on beyond the rows shown (a lone `…` if no word fits).
fn cut_at_word(row: &str, room: usize) -> String {
    let mut words: Vec<&str> = row.split(' ').filter(|w| !w.is_empty()).collect();
    while !words.is_empty() && width(&words.join(" ")) + 2 > room {
        words.pop();
    }
    if words.is_empty() {
        CUT.to_string()
    } else {
        format!("{} {CUT}", words.join(" "))
    }
}

/// `row` in `style`, with each match of the `/` search's `pattern` (see
/// [`crate::app::search::matches`]) in the match colour.
pub(crate) fn highlight(row: &str, style: Style, pattern: Option<&str>) -> Line<'static> {
    let found = pattern.map_or_else(Vec::new, |p| crate::app::search::matches(row, p));
    if found.is_empty() {
        // On the span, so that a caller taking the spans keeps the style.
        return Line::from(ratatui::text::Span::styled(row.to_string(), style));
    }
    let mut spans = Vec::new();
    let mut at = 0;
    for (a, b) in found {
        if a > at {
            spans.push(ratatui::text::Span::styled(row[at..a].to_string(), style));
        }
        spans.push(ratatui::text::Span::styled(
            row[a..b].to_string(),
            style.patch(theme::search_match()),
        ));
        at = b;
    }
    if at < row.len() {
        spans.push(ratatui::text::Span::styled(row[at..].to_string(), style));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::text::Span;

    fn row(buf: &Buffer, y: u16) -> String {
        (0..buf.area.width)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect()
    }

    #[test]
    fn prose_cut_short_ends_at_a_word() {
        assert_eq!(cut_at_word("or :break, :watch.", 12), "or :break, …");
        assert_eq!(cut_at_word("or x", 4), "or …");
        assert_eq!(cut_at_word("longword", 4), "…");
    }

    #[test]
    fn lines_fit_before_the_last_column_or_end_with_the_marker() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 6, 4));
        let lines = [
            Line::raw("abcde"),
            Line::raw("abcdef"),
            Line::from(vec![Span::raw("ab"), Span::raw("c    ")]),
            Line::raw("ééééééé"),
        ];
        let area = buf.area;
        put_lines_buf(&mut buf, area, &lines);
        assert_eq!(row(&buf, 0), "abcde ");
        assert_eq!(row(&buf, 1), "abcde…");
        assert_eq!(row(&buf, 2), "abc   ");
        assert_eq!(row(&buf, 3), "ééééé…");
    }

    #[test]
    fn truncate_marks_the_cut() {
        assert_eq!(truncate("abcdef", 6), "abcdef");
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abcdef", 1), "…");
        assert_eq!(truncate("abcdef", 0), "");
    }

    #[test]
    fn wrap_breaks_at_spaces_and_marks_continuations() {
        assert_eq!(wrap("short", 10), ["short"]);
        assert_eq!(
            wrap("aaaa bbbb cccc dddd", 10),
            ["aaaa bbbb", "↪ cccc", "↪ dddd"]
        );
        assert_eq!(wrap("abcdefghijkl", 5), ["abcde", "↪ fgh", "↪ ijk", "↪ l"]);
        // Nothing is lost: the rows give the text back.
        let text = "  [ 0]   0x00000000     0x00000001 *   0x00000002 *   0x00000003 *";
        let rows = wrap(text, 20);
        assert!(rows.iter().all(|r| width(r) <= 20), "{rows:?}");
        let joined: Vec<String> = rows
            .iter()
            .map(|r| r.strip_prefix(CONTINUED).unwrap_or(r).to_string())
            .collect();
        assert_eq!(
            joined.join(" ").split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
        assert_eq!(wrap("", 5), [""]);
        assert_eq!(wrap("abc", 0), [""]);
    }
}
