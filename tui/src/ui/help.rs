//! The `?` help overlay: every key, and the TUI's own commands.

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use super::theme;
use crate::app::App;

/// The help text (section headings end with `:`).
pub const HELP: &[&str] = &[
    "Run:",
    "  F5  c       continue all waves        Esc Ctrl-C  interrupt a run",
    "  F11 s       step the selected wave    S           step all waves",
    "  a           advance to the code cursor line  r R  step back, continue back",
    "Breakpoints and watchpoints:",
    "  F9  b       toggle a breakpoint on the code cursor line",
    "  t           (Memory) toggle a 4-byte watchpoint on the cursor word",
    "  d  e Space  (Breakpoints) delete / disable-enable the entry",
    "Select and move:",
    "  w W         next / previous wave      l L         next / previous lane",
    "  Tab S-Tab   next / previous pane      1-7         go to a pane",
    "  arrows jk   move; Waves, Lanes: select  PgUp PgDn Home End  page, ends",
    "  <- -> h     Lanes: scroll registers;  Memory: move by a word",
    "  m M  n p    Memory: global/shared/scratch; next / previous buffer",
    "  .           Code: back to the PC      mouse: click panes, waves, lanes",
    "Command line:",
    "  :           the command language (try `help`, `print v3`, `info changes`)",
    "  Up Down Tab history, completion;      Enter runs, Esc cancels",
    "  :lanes v1 v4-v6  grid registers (:lanes: all)   :mem out   :mem shared 0x40",
    "Marks: => PC  -> other waves  ● breakpoint  * changed since the last stop",
    "       (n) dimmed: inactive lane   W watched memory      q quits",
];

/// Draws the overlay centred on `area`.
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let w = (HELP.iter().map(|l| l.chars().count()).max().unwrap_or(40) as u16 + 4).min(area.width);
    let h = (HELP.len() as u16 + 2).min(area.height);
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    let inner_h = h.saturating_sub(2) as usize;
    let scroll = app.help_scroll.min(HELP.len().saturating_sub(inner_h));
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
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme::border_focused())
                .title(" Keys (any key closes) "),
        ),
        rect,
    );
}

#[cfg(test)]
mod tests {
    use super::HELP;

    /// The overlay is never cut at the smallest supported width: 80 columns, 78 inside
    /// the borders.
    #[test]
    fn every_help_line_fits_80_columns() {
        for l in HELP {
            assert!(
                l.chars().count() <= 78,
                "{} columns: {l}",
                l.chars().count()
            );
        }
    }
}
