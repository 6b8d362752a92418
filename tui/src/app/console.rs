//! The console's state: the command output it keeps, how far back it is scrolled, and how
//! many old lines it dropped. (How many rows each line wraps to is drawing's business:
//! [`crate::ui::DrawState`].)

use ratatui::crossterm::event::KeyCode;

use super::input::Motion;
use super::source::printable;
use super::state::App;
use crate::pane::Pane;

/// How a console line is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// A command as entered, echoed before its output.
    Command,
    /// What a command printed (drawn in the default colour).
    Output,
    /// A command's error message (drawn in the error colour).
    Error,
}

/// Console lines kept (older ones are dropped, and the console says how many).
pub const CONSOLE_MAX: usize = 10_000;

/// The console pane's state: everything logged (bounded), not how it wraps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsolePane {
    /// The lines kept, oldest first: at most [`CONSOLE_MAX`], each printable (no control
    /// characters) and without a line break.
    pub lines: Vec<(String, LineKind)>,
    /// Rows (of wrapped lines) scrolled up from the bottom; 0 shows the latest output.
    pub scroll: usize,
    /// Lines dropped from the start so far; the index of `lines[0]` in everything logged.
    pub dropped: usize,
    /// The line (index into `lines`) the last search found, highlighted and searched on
    /// from by `n`/`N`.
    pub found: Option<usize>,
    /// Set when a search found `found`: the next frame scrolls to show it (drawing knows
    /// how lines wrap) and tells the state the scroll it chose (`HitMap::console_scroll`).
    pub reveal: bool,
}

impl ConsolePane {
    /// Appends each line of `text`, drops the oldest beyond [`CONSOLE_MAX`], and scrolls
    /// back to the latest output.
    pub fn push(&mut self, text: &str, kind: LineKind) {
        for l in text.lines() {
            self.lines.push((printable(l), kind));
        }
        let excess = self.lines.len().saturating_sub(CONSOLE_MAX);
        self.lines.drain(..excess);
        self.dropped += excess;
        self.found = self.found.and_then(|f| f.checked_sub(excess));
        self.scroll = 0;
        self.reveal = false;
    }
}

impl App {
    /// Console keys: the arrows scroll a row, PgUp/PgDn a page, Home/End to the oldest
    /// and the latest row. Returns whether the key was used.
    pub(super) fn console_key(&mut self, code: KeyCode) -> bool {
        let page = self.page(Pane::Console);
        let max = self.hits.console_rows.saturating_sub(page);
        if std::mem::take(&mut self.console.reveal) {
            // Go on from where the last frame scrolled to show the match.
            self.console.scroll = self.hits.console_scroll;
        }
        let s = &mut self.console.scroll;
        match Motion::of(code) {
            Some(Motion::Up) => *s = (*s + 1).min(max),
            Some(Motion::Down) => *s = s.saturating_sub(1),
            Some(Motion::PageUp) => *s = (*s + page).min(max),
            Some(Motion::PageDown) => *s = s.saturating_sub(page),
            Some(Motion::Home) => *s = max,
            Some(Motion::End) => *s = 0,
            _ => return false,
        }
        true
    }
}
