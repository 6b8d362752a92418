//! The `?` help overlay: every key, and the TUI's own commands. From 80 columns up two
//! entries share a row where they fit; narrower, one entry a row, its description wrapped
//! under it, so nothing is cut at any size the TUI draws. It scrolls when it does not fit
//! (the title says which lines show).

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear};
use ratatui::Frame;

use super::{text, theme};
use crate::app::App;
use crate::hits::HitMap;
use crate::pane::CodeLayout;

/// One row of the help: a section heading (ending with `:`), or entries that share a row
/// when the overlay is wide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HelpRow {
    /// A section's heading.
    Heading(&'static str),
    /// One or two (keys, what they do) entries.
    Keys(Vec<(&'static str, String)>),
}

/// The columns a key takes before its description.
const KEY_COLS: usize = 11;

/// Where the second entry of a wide row starts.
const SECOND: usize = 42;

/// The help's content: one source for both widths. (The `v` entry's words come from
/// [`CodeLayout`], so the help names the cycle `v` goes through.)
pub fn help_rows() -> Vec<HelpRow> {
    use HelpRow::{Heading, Keys};
    let one = |k: &'static str, what: &str| Keys(vec![(k, what.to_string())]);
    let two = |k: &'static str, a: &str, k2: &'static str, b: &str| {
        Keys(vec![(k, a.to_string()), (k2, b.to_string())])
    };
    vec![
        Heading("Run:"),
        two(
            "F5 c",
            "continue all waves",
            "Esc Ctrl-C",
            "interrupt a run",
        ),
        two("F11 s", "step the selected wave", "S", "step all waves"),
        two(
            "r R",
            "step back, continue back",
            "Ctrl-R",
            "restart (asks first)",
        ),
        two(
            "a",
            "advance to the cursor",
            "Ctrl-Z",
            "suspend (fg resumes)",
        ),
        Heading("Breakpoints and watchpoints:"),
        one(
            "F9 b",
            "toggle a breakpoint on the cursor's line (Source: Enter too)",
        ),
        one(
            "t",
            "(Memory) toggle a 4-byte watchpoint on the cursor word",
        ),
        one(
            "d e Space",
            "(Breakpoints) delete / disable-enable the entry",
        ),
        one(
            "Enter",
            "(Breakpoints) visit a finding: its first side, again its second",
        ),
        Heading("Views:"),
        one("v", &CodeLayout::cycle_text()),
        two(
            "z",
            "maximise, restore (Esc)",
            "o",
            "the console full screen",
        ),
        two(
            "< >",
            "narrow / widen left column",
            "+ -",
            "grow / shrink the pane",
        ),
        one(
            "f",
            "Lanes, Registers, Memory: next format: hex unsigned signed f32",
        ),
        two(
            "u",
            "Memory: bytes / words",
            "V",
            "Source: high-level > asm > both",
        ),
        Heading("Select, move and search (every pane):"),
        two("w W", "next / previous wave", "l L", "next / previous lane"),
        two(
            "Tab S-Tab",
            "next / previous pane",
            "1-9 0",
            "pane: 8 src, 0 locals",
        ),
        two(
            "↑ ↓ j k",
            "move; Waves, Lanes: select",
            "PgUp PgDn",
            "a page (Lanes: 8 lanes)",
        ),
        two(
            "Home End",
            "the first, the last",
            "g G",
            "the first, the last",
        ),
        one("← → h", "Lanes: scroll the registers; Memory: a word"),
        one(
            "m M  n p",
            "Memory: global/shared/scratch; next / previous buffer",
        ),
        two(
            ".",
            "Code, Source: to the PC",
            "mouse",
            "click, wheel scrolls",
        ),
        one(
            "/  n N",
            "search Source, Code or Console; next / previous match",
        ),
        one(
            "a Enter  d",
            "Watch: add a display (display EXPR) / undisplay (d, Delete)",
        ),
        Heading("Command line:"),
        one(
            ":",
            "the command language (try `help`, `print v3`, `info changes`)",
        ),
        two(
            "Enter Esc",
            "run, cancel",
            "Up Down Tab",
            "history, completion",
        ),
        one(":lanes v1 v4-v6", "the grid's registers (:lanes: all)"),
        one(
            ":mem out",
            "a buffer (global); :mem shared:0x40 a space and address",
        ),
        Heading("Marks:"),
        two("=>", "the selected wave's PC", "->", "other waves' PCs"),
        two(
            "● ○",
            "breakpoint, disabled",
            "*",
            "changed since last stop",
        ),
        two("(n) dimmed", "an inactive lane", "W", "watched memory"),
        two("… ↪", "cut, wrapped", "▲ ▼", "more above, below"),
        one(
            "● ◆ !",
            "lanes of the last stop: breakpoint, watchpoint, fault or finding",
        ),
        two("EXEC", "lane 0 leftmost", "q", "quit"),
    ]
}

/// `key` padded to the key column, then `what`.
fn entry(key: &str, what: &str) -> String {
    format!("{key:<KEY_COLS$} {what}")
}

/// The help as lines for `room` columns (the overlay's inside, less the free last
/// column): two entries a row from 77 columns, else one, wrapped at words. The `bool` is
/// whether the line is a heading.
pub fn help_lines(room: usize) -> Vec<(String, bool)> {
    tagged_lines(room)
        .into_iter()
        .map(|(l, heading, _)| (l, heading))
        .collect()
}

/// [`help_lines`], each line with the entry it shows: (row of [`help_rows`], entry in the
/// row), the first entry for a line that holds two.
fn tagged_lines(room: usize) -> Vec<(String, bool, (usize, usize))> {
    let rows = help_rows();
    let wide = room >= 77;
    let mut out = Vec::new();
    for (r, row) in rows.into_iter().enumerate() {
        match row {
            HelpRow::Heading(h) => out.extend(
                text::wrap_with(h, room.max(1), "  ")
                    .into_iter()
                    .map(|l| (l, true, (r, 0))),
            ),
            HelpRow::Keys(entries) if wide => {
                let mut line = String::new();
                for (i, (k, what)) in entries.iter().enumerate() {
                    let e = format!("  {}", entry(k, what));
                    if i == 0 {
                        line = e;
                    } else {
                        let pad = SECOND.saturating_sub(text::width(&line)).max(1);
                        line.push_str(&" ".repeat(pad));
                        line.push_str(e.trim_start());
                    }
                }
                if text::width(&line) <= room {
                    out.push((line, false, (r, 0)));
                } else {
                    // Too long beside each other: each entry as a narrow screen has it.
                    for (i, (k, what)) in entries.iter().enumerate() {
                        out.extend(
                            narrow_entry(k, what, room)
                                .into_iter()
                                .map(|l| (l, false, (r, i))),
                        );
                    }
                }
            }
            HelpRow::Keys(entries) => {
                for (i, (k, what)) in entries.into_iter().enumerate() {
                    out.extend(
                        narrow_entry(k, &what, room)
                            .into_iter()
                            .map(|l| (l, false, (r, i))),
                    );
                }
            }
        }
    }
    out
}

/// The scroll at `to` columns that keeps at the top the entry that scroll `scroll` at
/// `from` columns showed there (its first line), so a resize keeps the reader's place
/// rather than a line number that now shows something else. `from` 0: the scroll is
/// already counted at `to`.
pub fn rescroll(scroll: usize, from: usize, to: usize) -> usize {
    if from == 0 || from == to || scroll == 0 {
        return scroll;
    }
    rescroll_into(scroll, from, &tagged_lines(to))
}

/// [`rescroll`] into the lines `to` already laid out (the ones being drawn): only the
/// old layout is built, and only when the width changed.
fn rescroll_into(scroll: usize, from: usize, to: &[(String, bool, (usize, usize))]) -> usize {
    if from == 0 || scroll == 0 {
        return scroll;
    }
    let old = tagged_lines(from);
    let Some(&(_, _, (row, entry))) = old.get(scroll).or(old.last()) else {
        return 0;
    };
    // The first line of that entry, or of the line that holds it beside another.
    to.iter()
        .position(|(_, _, (r, e))| *r == row && *e == entry)
        .or_else(|| to.iter().position(|(_, _, (r, _))| *r == row))
        .unwrap_or(scroll)
}

/// One entry in `room` columns: the key and its description side by side, the
/// description's further rows under it; when the description would have less than 16
/// columns beside the key, the key on a row of its own and the description under it.
fn narrow_entry(key: &str, what: &str, room: usize) -> Vec<String> {
    let beside = 2 + KEY_COLS + 1;
    let (indent, mut lines, first) = if room >= beside + 16 && text::width(key) <= KEY_COLS {
        (beside, Vec::new(), true)
    } else {
        (4, vec![text::truncate(&format!("  {key}"), room)], false)
    };
    let rows = text::wrap_with(what, room.saturating_sub(indent).max(1), "");
    for (i, r) in rows.into_iter().enumerate() {
        if i == 0 && first {
            lines.push(format!("  {}", entry(key, &r)));
        } else {
            lines.push(format!("{}{r}", " ".repeat(indent)));
        }
    }
    lines
}

/// Draws the overlay centred on `area` (all of it when narrow), and tells the state how
/// far it can scroll.
pub fn draw(frame: &mut Frame, area: Rect, app: &App, hits: &mut HitMap) {
    // Inside the borders: the text and the free last column.
    let room = (area.width as usize).saturating_sub(3);
    // Laid out once a frame: the lines drawn, and what a resize's rescroll finds its
    // entry in.
    let tagged = tagged_lines(room);
    let widest = tagged
        .iter()
        .map(|(l, _, _)| text::width(l))
        .max()
        .unwrap_or(40);
    // At least 80 columns where there is room, so a narrower screen is covered whole.
    let w = (widest as u16 + 3).max(80).min(area.width);
    let h = (tagged.len() as u16 + 2).min(area.height);
    if w < 3 || h < 3 {
        return;
    }
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    let inner_h = h.saturating_sub(2) as usize;
    let max = tagged.len().saturating_sub(inner_h);
    let kept = if app.help.room == room {
        app.help.scroll
    } else {
        rescroll_into(app.help.scroll, app.help.room, &tagged)
    };
    let scroll = kept.min(max);
    hits.help_rows = inner_h;
    hits.help_scroll_max = max;
    hits.help_room = room;
    // The front end keeps this as the overlay's state: the next frames start from it at
    // this width, and the old layout is not built again. Unclamped: a screen tall enough
    // for every line shows the top, and a smaller one after it the entry kept.
    hits.help_scroll = Some(kept);
    let lines_len = tagged.len();
    let shown: Vec<Line> = tagged
        .iter()
        .skip(scroll)
        .map(|(l, heading, _)| {
            if *heading {
                Line::styled(l.clone(), theme::title_focused())
            } else {
                Line::raw(l.clone())
            }
        })
        .collect();
    let title = if inner_h < lines_len {
        format!(
            " Keys {}-{} of {} (j/k scroll; other keys close) ",
            scroll + 1,
            (scroll + inner_h).min(lines_len),
            lines_len
        )
    } else {
        " Keys (any key closes) ".to_string()
    };
    frame.render_widget(Clear, rect);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::border_focused())
        .title(text::truncate(&title, w.saturating_sub(3) as usize));
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    super::put_lines(frame, inner, &shown);
}

#[cfg(test)]
mod tests {
    use super::{help_lines, help_rows, HelpRow};
    use crate::pane::CodeLayout;

    /// At 80 columns (77 inside the borders, less the free column) two entries share
    /// rows; at every width down to the smallest screen's, each line fits whole.
    #[test]
    fn every_help_line_fits_at_every_width() {
        for room in (crate::ui::SMALLEST.0 as usize - 3)..=77 {
            for (l, _) in help_lines(room) {
                assert!(
                    super::text::width(&l) <= room,
                    "{room} columns: {} columns: {l}",
                    super::text::width(&l)
                );
            }
        }
    }

    /// Every word of every entry shows at every width (wrapped, never cut).
    #[test]
    fn nothing_is_cut() {
        for room in [17, 30, 40, 60, 77] {
            let all: String = help_lines(room)
                .into_iter()
                .map(|(l, _)| l)
                .collect::<Vec<_>>()
                .join(" ");
            assert!(!all.contains('…') || all.contains("… ↪"), "{room}: {all}");
            for row in help_rows() {
                if let HelpRow::Keys(entries) = row {
                    for (_, what) in entries {
                        // (A word longer than the room beside the key is split.)
                        for word in what.split(' ').filter(|w| w.chars().count() <= 12) {
                            assert!(all.contains(word), "{room}: `{word}` missing");
                        }
                    }
                }
            }
        }
    }

    /// The `v` entry names the layouts in the order `v` cycles them.
    #[test]
    fn v_is_described_as_it_cycles() {
        let text = CodeLayout::cycle_text();
        let mut at = CodeLayout::Split;
        let mut from = 0;
        for _ in 0..3 {
            let i = text[from..].find(at.name()).expect("named in order") + from;
            from = i + at.name().len();
            at = at.next();
        }
        assert!(help_lines(77).iter().any(|(l, _)| l.contains(&text)));
    }
}
