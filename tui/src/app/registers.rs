//! The registers pane's state: how far its u registers are scrolled. (What it shows,
//! PC, EXEC, counters and registers, is the selected wave's, which the engine keeps.)

use ratatui::crossterm::event::KeyCode;

use super::input::Motion;
use super::state::App;
use crate::pane::Pane;

/// The registers pane's state: only its scroll, the rest is the selected wave's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RegistersPane {
    /// The first row of u registers shown (clamped when drawn).
    pub scroll: usize,
}

impl App {
    /// Registers keys: up and down scroll the u registers a row, PgUp/PgDn a page,
    /// Home/End to the first or last rows. Returns whether the key was used.
    pub(super) fn registers_key(&mut self, code: KeyCode) -> bool {
        let page = self.page(Pane::Registers);
        // How far the last frame could scroll (drawing knows the rows the header takes).
        let max = self.hits.registers_scroll_max;
        let s = &mut self.registers.scroll;
        match Motion::of(code) {
            Some(Motion::Left | Motion::Right) | None => return false,
            Some(m) => *s = m.apply((*s).min(max), page, max + 1),
        }
        true
    }
}
