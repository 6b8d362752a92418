//! Command output: each command as entered, then what it printed (errors in red). Long
//! lines wrap (continuation rows start with `↪`); the whole history scrolls (PgUp/PgDn and
//! the arrows while the console has focus, the mouse wheel over it; the title says how far
//! back), and `o` shows it full screen.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::Frame;

use super::{text, theme};
use crate::app::{App, ConsolePane, LineKind};
use crate::hits::HitMap;

/// The pane's title: where the view is when scrolled back `scroll` rows.
pub fn title(scroll: usize) -> String {
    if scroll > 0 {
        format!(
            " Console: {} back (End: latest) ",
            wavedbg_emulator::debug::view::count(scroll as u64, "row")
        )
    } else {
        " Console ".to_string()
    }
}

fn style(kind: LineKind) -> Style {
    match kind {
        LineKind::Command => theme::label(),
        LineKind::Output => Style::new(),
        LineKind::Error => theme::error(),
    }
}

/// The rows of one line at `cols` columns.
fn rows_of(line: &str, cols: usize) -> Vec<String> {
    if line.len() <= cols {
        vec![line.to_string()]
    } else {
        text::wrap(line, cols)
    }
}

/// The rows each console line takes at the pane's width, from one frame to the next:
/// lines are only added at the end and dropped at the start, so a frame wraps only the
/// lines added since the last one (and all of them after a resize).
#[derive(Debug, Default)]
pub(super) struct ConsoleRows {
    cols: usize,
    /// Index (counting dropped lines) of the line `counts[0]` is for.
    first: usize,
    counts: std::collections::VecDeque<usize>,
    total: usize,
}

impl ConsoleRows {
    /// Brings the counts up to date with `console` at `cols` columns.
    fn sync(&mut self, console: &ConsolePane, cols: usize) {
        if self.cols != cols || self.first > console.dropped {
            *self = ConsoleRows {
                cols,
                first: console.dropped,
                ..ConsoleRows::default()
            };
        }
        while self.first < console.dropped {
            match self.counts.pop_front() {
                Some(n) => self.total -= n,
                None => self.first = console.dropped - 1,
            }
            self.first += 1;
        }
        let have = self.counts.len();
        for (line, _) in console.lines.iter().skip(have) {
            let n = rows_of(line, cols).len();
            self.counts.push_back(n);
            self.total += n;
        }
    }
}

/// Draws the pane, bringing `cache` up to date; returns whether rows are hidden above and
/// below.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    cache: &mut ConsoleRows,
    hits: &mut HitMap,
) -> (bool, bool) {
    let h = area.height as usize;
    if h == 0 || area.width == 0 {
        return (false, false);
    }
    if app.console.lines.is_empty() {
        text::put_wrapped(
            frame,
            area,
            "Command output appears here. Press : to type a command (help lists them).",
            theme::dim(),
        );
        return (false, false);
    }
    // One column stays free for the cut marker (see `text`); wrapped rows never need it.
    let cols = area.width as usize - 1;
    let dropped = (app.console.dropped > 0).then(|| {
        format!(
            "({} older lines were dropped; the console keeps {})",
            app.console.dropped,
            crate::app::CONSOLE_MAX
        )
    });
    cache.sync(&app.console, cols);
    let counts = &cache.counts;
    let head_rows = dropped.as_ref().map_or(0, |d| rows_of(d, cols).len());
    let total = head_rows + cache.total;
    hits.console_rows = total;
    let scroll = match app.console.found.filter(|_| app.console.reveal) {
        // A search's match: the view that shows it in the middle (drawing knows how the
        // lines wrap), which the state takes up at the next key (`HitMap::console_scroll`).
        Some(f) => {
            let after: usize = counts.iter().skip(f + 1).sum();
            let rows = counts.get(f).copied().unwrap_or(1);
            (after + rows).saturating_sub(h.div_ceil(2))
        }
        None => app.console.scroll,
    }
    .min(total.saturating_sub(h));
    hits.console_scroll = scroll;
    let bottom = total - scroll;
    let top = bottom.saturating_sub(h);
    // Walk back from the last line to collect rows top..bottom.
    let mut rows: Vec<Line> = Vec::with_capacity(h);
    let mut row_end = total;
    for (i, (line, kind)) in app.console.lines.iter().enumerate().rev() {
        let row_start = row_end - counts[i];
        if row_start < bottom && row_end > top {
            let wrapped = rows_of(line, cols);
            let found = app.console.found == Some(i);
            for (k, r) in wrapped.into_iter().enumerate().rev() {
                let at = row_start + k;
                if at >= top && at < bottom {
                    let mut row = text::highlight(&r, style(*kind), app.search.pattern.as_deref());
                    if found {
                        row = row.patch_style(theme::cursor());
                    }
                    rows.push(row);
                }
            }
        }
        row_end = row_start;
        if row_end <= top {
            break;
        }
    }
    if let Some(d) = dropped {
        if top < head_rows {
            for (k, r) in rows_of(&d, cols).into_iter().enumerate().rev() {
                if k >= top && k < bottom {
                    rows.push(Line::styled(r, theme::dim()));
                }
            }
        }
    }
    rows.reverse();
    super::put_lines(frame, area, &rows);
    (top > 0, scroll > 0)
}
