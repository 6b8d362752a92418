//! The Locals pane's state: the selected variable among those live at the selected wave's
//! PC (the engine's [`Engine::locals`](wavedbg_emulator::debug::Engine::locals), which
//! `info locals` lists too), which of their values changed since the last stop, and its
//! movement keys.

use ratatui::crossterm::event::KeyCode;
use wavedbg_emulator::debug::Local;
use wavedbg_emulator::machine::Machine;

use super::entries::EntryCursor;
use super::input::Motion;
use super::state::App;
use crate::pane::Pane;

/// The Locals pane's state: the selected variable (0-based, clamped to the variables live
/// now) and how far the view has scrolled into it when it is taller than the pane.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LocalsPane {
    /// The selected variable and the scroll within it.
    pub at: EntryCursor,
}

impl App {
    /// Per variable of `locals` (the ones live now, in [`Engine::locals`]'s order), the
    /// values changed since the last stop: bit `l` for lane `l` of a per-lane variable,
    /// bit 0 for one value. A variable is compared with the one of its name (the same
    /// among several of the name) live in the selected wave at the last stop, none when the
    /// wave is another or none of the name was live.
    ///
    /// [`Engine::locals`]: wavedbg_emulator::debug::Engine::locals
    pub fn locals_changed(&self, locals: &[Local]) -> Vec<u32> {
        let w = self.engine.selected_wave;
        let id = |m: &Machine| m.waves.get(w).map(|x| x.id);
        let before =
            if id(&self.baseline).is_some() && id(&self.baseline) == id(self.engine.machine()) {
                self.engine.locals_in(&self.baseline)
            } else {
                Vec::new()
            };
        locals
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let nth = locals[..i].iter().filter(|o| o.name == v.name).count();
                let Some(b) = before.iter().filter(|o| o.name == v.name).nth(nth) else {
                    return 0;
                };
                if b.values.len() != v.values.len() {
                    return 0;
                }
                v.values
                    .iter()
                    .zip(&b.values)
                    .enumerate()
                    .filter(|(_, (now, was))| now != was)
                    .fold(0, |a, (l, _)| a | 1 << l)
            })
            .collect()
    }

    /// The selected variable (0-based) among `n` live ones; `None` when none is live.
    pub fn locals_selected(&self, n: usize) -> Option<usize> {
        (n > 0).then(|| self.locals.at.cursor.min(n - 1))
    }

    /// Locals keys: up and down select a variable, PgUp/PgDn as many away as the pane has
    /// rows, Home/End the first or last; within a variable taller than the pane they scroll
    /// it first ([`EntryCursor::apply`]). Returns whether the key was used.
    pub(super) fn locals_key(&mut self, code: KeyCode) -> bool {
        let Some(motion) = Motion::of(code).filter(|m| !matches!(m, Motion::Left | Motion::Right))
        else {
            return false;
        };
        let n = self.engine.locals().len();
        let page = self.page(Pane::Locals);
        let lines = self.hits.entry_lines[Pane::Locals.index()].clone();
        self.locals.at.apply(motion, n, &lines, page);
        true
    }
}
