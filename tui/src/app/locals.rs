//! The Locals pane's state: the selected variable among those live at the selected wave's
//! PC (the engine's [`Engine::locals`](wavedbg_emulator::debug::Engine::locals), which
//! `info locals` lists too), and its movement keys.

use ratatui::crossterm::event::KeyCode;

use super::input::Motion;
use super::state::App;
use crate::pane::Pane;

/// The Locals pane's state: the selected variable.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LocalsPane {
    /// The selected variable, 0-based (clamped to the variables live now).
    pub cursor: usize,
}

impl App {
    /// The selected variable (0-based) among `n` live ones; `None` when none is live.
    pub fn locals_selected(&self, n: usize) -> Option<usize> {
        (n > 0).then(|| self.locals.cursor.min(n - 1))
    }

    /// Locals keys: up and down select a variable, PgUp/PgDn as many away as the pane has
    /// rows, Home/End the first or last. Returns whether the key was used.
    pub(super) fn locals_key(&mut self, code: KeyCode) -> bool {
        let Some(motion) = Motion::of(code).filter(|m| !matches!(m, Motion::Left | Motion::Right))
        else {
            return false;
        };
        let n = self.engine.locals().len();
        let page = self.page(Pane::Locals);
        self.locals.cursor = motion.apply(self.locals.cursor.min(n.saturating_sub(1)), page, n);
        true
    }
}
