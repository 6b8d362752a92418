//! The `?` help overlay: every key, and the TUI's own commands. It fits 80 columns; on a
//! smaller screen its lines end with `…` and it scrolls (the title says where).

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear};
use ratatui::Frame;

use super::{text, theme};
use crate::app::App;

/// The help text (section headings end with `:`).
pub const HELP: &[&str] = &[
    "Run:",
    "  F5  c       continue all waves        Esc Ctrl-C  interrupt a run",
    "  F11 s       step the selected wave    S           step all waves",
    "  r   R       step back, continue back  Ctrl-R      restart (asks first)",
    "  a           advance to the cursor line (code or source)",
    "Breakpoints and watchpoints:",
    "  F9  b       toggle a breakpoint on the cursor line (code or source)",
    "  t           (Memory) toggle a 4-byte watchpoint on the cursor word",
    "  d  e Space  (Breakpoints) delete / disable-enable the entry",
    "Views:",
    "  v           code views: disassembly, source above it, source alone",
    "  z           maximise the focused pane / restore (Esc restores too)",
    "  o           the console full screen / back",
    "  f           Lanes, Registers, Memory: next format: hex unsigned signed f32",
    "  u           Memory: bytes / 32-bit words (f32 shows words)",
    "Select and move:",
    "  w W         next / previous wave      l L         next / previous lane",
    "  Tab S-Tab   next / previous pane      1-9  go to a pane (8 source, 9 watch)",
    "  arrows jk   move; Waves, Lanes: select  PgUp PgDn Home End  page, ends",
    "  <- -> h     Lanes: scroll registers;  Memory: move by a word",
    "  m M  n p    Memory: global/shared/scratch; next / previous buffer",
    "  .           Code, Source: back to the PC;  mouse: click, wheel scrolls",
    "  PgUp PgDn   Console: scroll back through the whole output",
    "  a Enter  d  Watch: add a display (display EXPR) / undisplay the selected",
    "Command line:",
    "  :           the command language (try `help`, `print v3`, `info changes`)",
    "  Up Down Tab history, completion (candidates show as you type)",
    "  Enter Esc   run, cancel",
    "  :lanes v1 v4-v6  grid registers (:lanes: all)   :mem out   :mem shared 0x40",
    "Marks: => PC  -> other waves  ● breakpoint  * changed since the last stop",
    "       (n) dimmed: inactive lane   W watched memory   … cut   ↪ wrapped",
    "       lanes of the last stop: ● breakpoint  ◆ watchpoint  ! fault, finding",
    "       ▲ ▼ more above, below        EXEC: lane 0 leftmost; q quits",
];

/// Draws the overlay centred on `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let widest = HELP.iter().map(|l| text::width(l)).max().unwrap_or(40);
    // Inside the borders: the text and the free last column.
    let w = (widest as u16 + 3).min(area.width);
    let h = (HELP.len() as u16 + 2).min(area.height);
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
    let scroll = app.help.scroll.min(HELP.len().saturating_sub(inner_h));
    let lines: Vec<Line> = HELP
        .iter()
        .skip(scroll)
        .map(|l| {
            if l.ends_with(':') {
                Line::styled(*l, theme::title_focused())
            } else {
                Line::raw(*l)
            }
        })
        .collect();
    let title = if inner_h < HELP.len() {
        format!(
            " Keys {}-{} of {} (j/k scroll; other keys close) ",
            scroll + 1,
            (scroll + inner_h).min(HELP.len()),
            HELP.len()
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
    super::put_lines(frame, inner, &lines);
}

#[cfg(test)]
mod tests {
    use super::HELP;

    /// The overlay is never cut at the smallest supported width: 80 columns, 78 inside
    /// the borders, one of them kept free.
    #[test]
    fn every_help_line_fits_80_columns() {
        for l in HELP {
            assert!(
                l.chars().count() <= 77,
                "{} columns: {l}",
                l.chars().count()
            );
        }
    }
}
