//! The status line (the stop reason, or a run's progress), the line under it (the command
//! line while open, else the last message or the main keys, always ending with `? help`
//! and `q quit`), and the completions shown above the command line while a word is typed.

use ratatui::layout::{Position, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear};
use ratatui::Frame;

use super::text::{self, truncate};
use super::theme;
use crate::app::{App, StatusKind};
use wavedbg_emulator::debug::view;

/// The status line's mark after a `--record` write failed.
const NOT_RECORDING: &str = " NOT RECORDING";

/// Formats 1234567 as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Draws the status line: a coloured badge for the last stop's kind and its text (or a
/// run's progress), then the selected wave and lane and the instructions executed (and
/// how many the recorded history holds, after time travel went back).
pub fn draw_status(frame: &mut Frame, area: Rect, app: &App) {
    let m = app.engine.machine();
    let (badge, color, text) = if let Some(job) = &app.job {
        let p = job.progress();
        let what = if job.stopping() {
            "interrupting"
        } else {
            "running"
        };
        (
            " RUNNING ",
            Color::Yellow,
            format!(
                "{what} `{}`: {} {}, {} remaining, {:.1} s  (Esc interrupts)",
                job.text(),
                thousands(p.instructions),
                if p.instructions == 1 {
                    "instruction"
                } else {
                    "instructions"
                },
                view::count(p.waves_remaining, "wave"),
                job.started.elapsed().as_secs_f64()
            ),
        )
    } else {
        let (text, kind) = &app.status;
        let (badge, color) = match kind {
            StatusKind::Ready => (" READY ", Color::Blue),
            StatusKind::Stopped => (" STOPPED ", Color::Cyan),
            StatusKind::Hit => (" HIT ", Color::Magenta),
            StatusKind::Finished => (" DONE ", Color::Green),
            StatusKind::Problem => (" PROBLEM ", Color::Red),
        };
        (badge, color, text.clone())
    };
    let right = if app.job.is_some() {
        String::new()
    } else {
        // In the past (after time travel), also where the recorded history ends.
        let now = m.stats.wave_instructions;
        let end = app.engine.history().info(now).end;
        let count = if end > now {
            format!("{} of {} instr", thousands(now), thousands(end))
        } else {
            format!("{} instr", thousands(now))
        };
        format!(
            " wave {} lane {} | {count}",
            m.waves
                .get(app.engine.selected_wave)
                .map_or("-".to_string(), |w| w.id.to_string()),
            app.engine.selected_lane,
        )
    };
    // The last column stays free (see `text`); the place summary goes when it would leave
    // the message fewer than 16 columns.
    let room = (area.width as usize).saturating_sub(1);
    // Kept while the rest of the session goes unrecorded (the message said why).
    let lost = if app.recording_lost.is_some() {
        NOT_RECORDING
    } else {
        ""
    };
    let avail = room.saturating_sub(badge.len() + 1 + lost.len());
    let right = if avail >= text::width(&right) + 16 {
        right
    } else {
        String::new()
    };
    let avail = avail.saturating_sub(text::width(&right));
    let text = truncate(&text, avail);
    let pad = avail.saturating_sub(text::width(&text));
    let line = Line::from(vec![
        Span::styled(badge, theme::badge(color)),
        Span::styled(lost, theme::error()),
        Span::raw(" "),
        Span::raw(text),
        Span::raw(" ".repeat(pad)),
        Span::styled(right, theme::dim()),
    ]);
    frame
        .buffer_mut()
        .set_style(area, Style::new().bg(Color::Black));
    super::put_lines(frame, area, &[line]);
}

/// The keys shown when nothing else is, most important first (the footer keeps as many
/// as fit, then `? help  q quit`, which it always shows).
pub const KEYS: &[&str] = &[
    "F5/c continue",
    "F11/s step",
    "S step all",
    "F9/b breakpoint",
    "r/R back",
    "w/l wave/lane",
    "Tab pane",
    "z zoom",
    "v source",
    ": command",
];

/// What every footer ends with.
pub const ALWAYS: &str = "? help  q quit";

/// The footer's keys for `room` columns: as many of [`KEYS`] as fit, then [`ALWAYS`].
pub fn footer_keys(room: usize) -> String {
    let mut out = String::new();
    for k in KEYS {
        if out.len() + k.len() + 2 + ALWAYS.len() > room {
            break;
        }
        out.push_str(k);
        out.push_str("  ");
    }
    out.push_str(ALWAYS);
    out
}

/// Draws the command line, a question, or the last message or the keys; every one but
/// the command line (and a question) ends with `? help  q quit`. `shift` is how many
/// cells of the command line the last frame hid at its start (kept between frames).
pub fn draw_command(frame: &mut Frame, area: Rect, app: &App, shift: &mut usize) {
    let room = (area.width as usize).saturating_sub(1);
    let open = match (&app.editor, &app.search.prompt) {
        (Some(e), _) => Some((':', e)),
        (None, Some(e)) => Some(('/', e)),
        _ => None,
    };
    if let Some((prompt, e)) = open {
        // In cells, so a wide character moves the cursor two columns.
        let line = format!("{prompt}{}", e.text());
        let cur = 1 + text::width(e.before_cursor());
        // The character under the cursor must show whole, before the cell a cut line
        // ends with `…` (a wide one takes two cells; at the end there is none: one cell).
        let under = e.text()[e.before_cursor().len()..]
            .chars()
            .next()
            .map_or(1, |c| text::width(c.encode_utf8(&mut [0; 4])));
        // As readline does, the text stays still while the cursor moves inside the view
        // (`…` first when the start is hidden); past an edge the view scrolls just enough.
        let total = text::width(&line);
        let mut want = if total <= room {
            0
        } else {
            // No more hidden than it takes to show the end and a cursor after it.
            (*shift).min(total + 2 - room)
        };
        if want > 0 && cur < want + 1 {
            // Left of the view: the cursor at its left edge, after the `…`.
            want = cur.saturating_sub(1);
        }
        if cur + under >= want + room {
            // Right of the view (its last cell is the `…` of a cut end).
            want = cur + under + 1 - room;
        }
        let (shown, hidden) = if want == 0 {
            (line, 0)
        } else {
            hide_start(&line, want)
        };
        *shift = hidden;
        super::put_lines(frame, area, &[Line::raw(shown)]);
        let x = (cur - hidden.min(cur)).min(area.width.saturating_sub(1) as usize) as u16;
        frame.set_cursor_position(Position {
            x: area.x + x,
            y: area.y,
        });
        return;
    }
    *shift = 0;
    let asked = if app.confirm_quit {
        Some((
            "Quit anyway? (y or n)".to_string(),
            "A run is in progress.".to_string(),
        ))
    } else {
        app.question.as_ref().map(|q| q.parts())
    };
    if let Some((ask, why)) = asked {
        // The fixed `? help  q quit` gives way: the answer keys always show.
        let line = question_line(&ask, &why, room);
        super::put_lines(
            frame,
            area,
            &[Line::styled(
                line,
                theme::error().add_modifier(ratatui::style::Modifier::BOLD),
            )],
        );
        return;
    }
    let (left, style) = if let Some(msg) = &app.message {
        (
            msg.text.clone(),
            if msg.error {
                theme::error()
            } else {
                Style::new()
            },
        )
    } else {
        let keys = footer_keys(room);
        super::put_lines(frame, area, &[Line::styled(keys, theme::dim())]);
        return;
    };
    let always = ALWAYS.len();
    let avail = room.saturating_sub(always + 2);
    // A message is prose: cut at a word.
    let left = text::cut_prose(&left, avail);
    let pad = room.saturating_sub(text::width(&left) + always);
    let line = Line::from(vec![
        Span::styled(left, style),
        Span::raw(" ".repeat(pad)),
        Span::styled(ALWAYS, theme::dim()),
    ]);
    super::put_lines(frame, area, &[line]);
}

/// The answer keys a question ends with.
const ANSWER: &str = "(y or n)";

/// A question on one line of `room` cells: what is asked with its answer keys (`(y or n)`,
/// `y/n` when narrower), then as much of `why` as fits, both cut at a word.
pub(super) fn question_line(ask: &str, why: &str, room: usize) -> String {
    let ask = ask.trim();
    let body = ask.strip_suffix(ANSWER).unwrap_or(ask).trim_end();
    let full = format!("{body} {ANSWER}");
    if text::width(&full) <= room {
        let why = text::cut_prose(why.trim(), room.saturating_sub(text::width(&full) + 2));
        return if why.is_empty() || why == text::CUT.to_string() {
            full
        } else {
            format!("{full}  {why}")
        };
    }
    let keys = if room >= text::width(ANSWER) + 3 {
        ANSWER
    } else {
        "y/n"
    };
    let body = text::cut_prose(body, room.saturating_sub(text::width(keys) + 1));
    if body.is_empty() {
        truncate(keys, room)
    } else {
        format!("{body} {keys}")
    }
}

/// `line` with its first `cells` cells hidden behind a `…` (which takes a cell of its
/// own): the text shown, and how many cells the rest moved left (`cells`, or one more
/// when a wide character straddles the cut).
fn hide_start(line: &str, cells: usize) -> (String, usize) {
    let mut hidden = 0;
    let mut rest = line.chars();
    while hidden <= cells {
        match rest.next() {
            Some(c) => hidden += text::width(c.encode_utf8(&mut [0; 4])),
            None => break,
        }
    }
    (
        format!("{}{}", text::CUT, rest.as_str()),
        hidden.saturating_sub(1),
    )
}

/// The completions of the word being typed, in a box above the command line (over the
/// panes and the status line): as many as fit, in columns, then how many more.
pub fn draw_completions(frame: &mut Frame, main: Rect, command_row: Rect, app: &App) {
    let Some((start, candidates)) = app.completions() else {
        return;
    };
    let screen_w = command_row.width as usize;
    // Rows available above the command line: the main area and the status line.
    let above = (command_row.y - main.y) as usize;
    if screen_w < 12 || above < 3 {
        return;
    }
    let title = if candidates.is_empty() {
        let word: String = app
            .editor
            .as_ref()
            .map(|e| e.before_cursor().chars().skip(start).collect())
            .unwrap_or_default();
        format!(" no command starts with `{word}` ")
    } else if candidates.len() == 1 {
        " 1 completion (Tab) ".to_string()
    } else {
        format!(" {} completions (Tab) ", candidates.len())
    };
    let col_w = candidates.iter().map(|c| text::width(c)).max().unwrap_or(0) + 2;
    // Inner width: the columns plus the free last column, at most the screen (and 60).
    let max_inner = screen_w.saturating_sub(2).min(60);
    let per_row = (max_inner.saturating_sub(1) / col_w.max(1)).max(1);
    let rows_max = (above - 2).min(6);
    let mut rows_needed = candidates.len().div_ceil(per_row);
    let mut shown = candidates.len();
    if rows_needed > rows_max {
        rows_needed = rows_max;
        // The last cell says how many more.
        shown = (rows_max * per_row).saturating_sub(1);
    }
    let inner_w = if candidates.is_empty() {
        0
    } else {
        (per_row.min(candidates.len()) * col_w + 1).min(max_inner)
    }
    .max(text::width(&title) + 1)
    .min(max_inner);
    let w = inner_w as u16 + 2;
    let h = rows_needed.max(1) as u16 + 2;
    // Under the word being completed where there is room.
    let want_x = command_row.x + 1 + start as u16;
    let x = want_x
        .saturating_sub(1)
        .min(command_row.x + command_row.width.saturating_sub(w));
    let rect = Rect::new(x, command_row.y - h, w, h);
    let mut lines = Vec::new();
    if candidates.is_empty() {
        lines.push(Line::styled("(: help lists the commands)", theme::dim()));
    }
    let mut cells: Vec<String> = candidates
        .iter()
        .take(shown)
        .map(|c| format!("{c:<col_w$}"))
        .collect();
    if shown < candidates.len() {
        cells.push(format!("+{} more", candidates.len() - shown));
    }
    for chunk in cells.chunks(per_row) {
        lines.push(Line::raw(chunk.concat()));
    }
    frame.render_widget(Clear, rect);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::border_focused())
        .title(truncate(&title, w.saturating_sub(3) as usize));
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    super::put_lines(frame, inner, &lines);
}
