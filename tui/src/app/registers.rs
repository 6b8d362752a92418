//! The registers pane's state: how far its u registers are scrolled. (What it shows,
//! PC, EXEC, counters and registers, is the selected wave's, which the engine keeps.)

use ratatui::crossterm::event::KeyCode;
use wavedbg_emulator::debug::command::Command;
use wavedbg_emulator::debug::panes::FormatTarget;

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
    /// Home/End to the first or last rows; `f` cycles the number format. Returns whether
    /// the key was used.
    pub(super) fn registers_key(&mut self, code: KeyCode) -> bool {
        if code == KeyCode::Char('f') {
            self.cycle_format(FormatTarget::Registers);
            return true;
        }
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

    /// `f` in the lane grid, the Registers pane or the Memory pane: the next number format
    /// of `target` (hex, unsigned, signed, f32), as the command `set format TARGET FORMAT`
    /// (so `--record` keeps it and the session remembers it).
    pub(super) fn cycle_format(&mut self, target: FormatTarget) {
        if self.is_running() {
            self.refuse_busy();
            return;
        }
        let next = self.engine.panes().format(target).next();
        self.submit_commands(vec![Command::SetFormat(target, next)]);
        self.say(format!(
            "{} show {} (f: next format)",
            match target {
                FormatTarget::Lanes => "The lane grid's values",
                FormatTarget::Registers => "The u registers",
                FormatTarget::Memory => "Memory values",
            },
            match next {
                wavedbg_emulator::debug::panes::NumberFormat::Hex => "in hex",
                wavedbg_emulator::debug::panes::NumberFormat::Unsigned => "unsigned",
                wavedbg_emulator::debug::panes::NumberFormat::Signed => "signed",
                wavedbg_emulator::debug::panes::NumberFormat::F32 => "as f32",
            }
        ));
    }
}
