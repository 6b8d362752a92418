//! The registers pane's state: how far its u registers are scrolled. (What it shows,
//! PC, EXEC, counters and registers, is the selected wave's, which the engine keeps.)

use ratatui::crossterm::event::KeyCode;

use super::input::Motion;
use super::state::App;

/// The registers pane's state: only its scroll, the rest is the selected wave's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RegistersPane {
    /// The first row of u registers shown (clamped when drawn).
    pub scroll: usize,
}

impl App {
    /// Registers keys: up and down scroll the u registers a row, Home to the first.
    /// Returns whether the key was used.
    pub(super) fn registers_key(&mut self, code: KeyCode) -> bool {
        let s = &mut self.registers.scroll;
        match Motion::of(code) {
            Some(Motion::Down) => *s += 1,
            Some(Motion::Up) => *s = s.saturating_sub(1),
            Some(Motion::Home) => *s = 0,
            _ => return false,
        }
        true
    }
}
