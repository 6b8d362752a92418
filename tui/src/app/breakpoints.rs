//! The breakpoints pane's state: a cursor in the list of breakpoints, then watchpoints,
//! then the sanitizer's findings, and the keys that delete, enable and disable the entry
//! under it, or visit the finding under it.

use ratatui::crossterm::event::KeyCode;
use wavedbg_emulator::debug::command::{Command, Numbers};

use super::input::Motion;
use super::state::App;
use crate::pane::Pane;

/// The breakpoints pane's state (the entries themselves are the engine's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BreakpointsPane {
    /// The entry under the cursor: an index into the engine's breakpoints followed by its
    /// watchpoints and its findings (kept below their count after each command).
    pub cursor: usize,
}

impl App {
    /// How many entries the breakpoints pane lists: breakpoints, watchpoints, findings
    /// (numbered as `info findings` at the end of the recorded history).
    pub(super) fn breakpoints_entries(&self) -> usize {
        let e = &self.engine;
        e.breakpoints().len() + e.watchpoints().len() + e.recorded_findings().len()
    }

    /// The number of the finding under the cursor (`finding N`), if it is one.
    fn finding_entry(&self) -> Option<u64> {
        let e = &self.engine;
        let i = self
            .breakpoints
            .cursor
            .checked_sub(e.breakpoints().len() + e.watchpoints().len())?;
        (i < e.recorded_findings().len()).then_some(i as u64 + 1)
    }
}

/// The entry under the cursor: its id, whether it is enabled, and a breakpoint's address
/// (`None`: a watchpoint).
type Entry = (u32, bool, Option<u64>);

impl App {
    /// The breakpoint or watchpoint under the cursor.
    fn breakpoint_entry(&self) -> Option<Entry> {
        let bps = self.engine.breakpoints();
        let i = self.breakpoints.cursor;
        match i.checked_sub(bps.len()) {
            None => bps.get(i).map(|b| (b.id, b.enabled, Some(b.addr()))),
            Some(w) => self
                .engine
                .watchpoints()
                .get(w)
                .map(|w| (w.id, w.enabled, None)),
        }
    }

    /// Breakpoints keys: up and down move the cursor, PgUp/PgDn a page, Home/End to the
    /// first or last entry; `d` (Delete) deletes the entry, `e`
    /// (Space) enables or disables it, Enter shows a breakpoint's line in the code view
    /// the layout shows, or visits a finding (`finding N`: its first side, its second
    /// when pressed again there). Returns whether the key was used.
    pub(super) fn breakpoints_key(&mut self, code: KeyCode) -> bool {
        let n = self.breakpoints_entries();
        let item = self.breakpoint_entry();
        let finding = self.finding_entry();
        let busy = self.is_running();
        let page = self.page(Pane::Breakpoints);
        let c = &mut self.breakpoints.cursor;
        match (Motion::of(code), code) {
            (Some(Motion::Left | Motion::Right), _) => return false,
            (Some(m), _) => *c = m.apply(*c, page, n),
            (_, KeyCode::Char('d') | KeyCode::Delete) if !busy => {
                if let Some((id, ..)) = item {
                    self.submit_commands(vec![Command::Delete(Numbers::one(id))]);
                }
            }
            (_, KeyCode::Char('e' | ' ')) if !busy => {
                if let Some((id, enabled, _)) = item {
                    self.submit_commands(vec![Command::Enable(Numbers::one(id), !enabled)]);
                }
            }
            (_, KeyCode::Enter) if finding.is_some() => {
                if let Some(number) = finding.filter(|_| !busy) {
                    self.submit_commands(vec![Command::Finding { number, side: None }]);
                }
            }
            (_, KeyCode::Enter) => {
                let line = item
                    .and_then(|(.., a)| a)
                    .and_then(|a| self.code.index_of(a));
                if let Some(i) = line {
                    self.set_code_cursor(i);
                    self.focus = if self.layout.shows(Pane::Code) {
                        Pane::Code
                    } else {
                        Pane::Source
                    };
                }
            }
            _ => return false,
        }
        true
    }
}
