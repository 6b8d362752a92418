//! The memory view: its cursor in each space, the region it moves in, the buffers it
//! jumps between, and the watchpoints it shows and toggles.

use wavedbg_emulator::debug::breakpoint::{Scope, WatchKind};
use wavedbg_emulator::debug::command::{Command, WatchWhere};
use wavedbg_emulator::debug::expr;
use wavedbg_emulator::debug::expr::ParsedExpr;
use wavedbg_emulator::memory::Space;

use super::state::{space_index, App, Pane, SPACES};

impl App {
    pub(super) fn mem_command(&mut self, args: &str) -> Result<(), String> {
        let mut words = args.split_whitespace();
        let mut next = words.next();
        if let Some(s) = next.and_then(|w| SPACES.iter().find(|s| s.name() == w)) {
            self.mem_space = *s;
            next = words.next();
        }
        if let Some(a) = next {
            let addr = match self.engine.machine().global.by_name(a) {
                Some(alloc) if self.mem_space == Space::Global => alloc.base,
                _ => {
                    let e = expr::parse(a).map_err(|e| format!("mem: bad address `{a}`: {e}"))?;
                    e.eval(
                        self.engine.machine(),
                        self.engine.selected_wave,
                        Some(self.engine.selected_lane),
                    )
                    .map_err(|e| format!("mem: cannot evaluate `{a}`: {}", e.message))?
                        as u64
                }
            };
            self.mem_cursor[space_index(self.mem_space)] = addr & !3;
        }
        self.clamp_mem();
        self.focus = Pane::Memory;
        self.say(format!(
            "Memory: {} at {:#x}",
            self.mem_space.name(),
            self.mem_cursor[space_index(self.mem_space)]
        ));
        Ok(())
    }

    /// The memory cursor of the current space.
    pub fn mem_addr(&self) -> u64 {
        self.mem_cursor[space_index(self.mem_space)]
    }

    /// The range the memory view moves in: the global buffer holding the cursor, the
    /// selected wave's shared window, or one lane's scratch. `None` if the space is empty.
    pub fn mem_region(&self) -> Option<(u64, u64)> {
        let m = self.engine.machine();
        let cursor = self.mem_addr();
        let (start, len) = match self.mem_space {
            Space::Global => {
                let allocs = m.global.allocations();
                let a = allocs
                    .iter()
                    .find(|a| cursor >= a.base && cursor < a.base + a.data.len())
                    .or_else(|| allocs.iter().rev().find(|a| a.base <= cursor))
                    .or(allocs.first())?;
                (a.base, a.data.len())
            }
            Space::Shared => (0, m.launch().shared_bytes as u64),
            Space::Scratch => (0, m.launch().scratch_bytes as u64),
        };
        (len > 0).then_some((start, start + len))
    }

    pub(super) fn clamp_mem(&mut self) {
        let i = space_index(self.mem_space);
        if let Some((lo, hi)) = self.mem_region() {
            self.mem_cursor[i] = self.mem_cursor[i].clamp(lo, hi.saturating_sub(1)) & !3;
        }
    }

    pub(super) fn move_mem(&mut self, delta: i64) {
        let i = space_index(self.mem_space);
        self.mem_cursor[i] = (self.mem_cursor[i] as i64).saturating_add(delta).max(0) as u64;
        self.clamp_mem();
    }

    /// The next/previous global buffer.
    pub(super) fn jump_buffer(&mut self, forward: bool) {
        if self.mem_space != Space::Global {
            return;
        }
        let allocs = self.engine.machine().global.allocations();
        let cur = self.mem_addr();
        let at = allocs
            .iter()
            .position(|a| cur >= a.base && cur < a.base + a.data.len())
            .unwrap_or(0);
        let n = allocs.len();
        if n == 0 {
            return;
        }
        let next = if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        };
        let (base, name) = (allocs[next].base, allocs[next].name.clone());
        self.mem_cursor[0] = base;
        self.say(format!("Memory: buffer `{name}` at {base:#x}"));
    }

    /// The watchpoints shown in the memory view: (address, length) in the current space
    /// that apply to what is shown (the selected wave's workgroup, the selected lane).
    pub fn watched_ranges(&self) -> Vec<(u64, u64, bool)> {
        let m = self.engine.machine();
        let Some(w) = m.waves.get(self.engine.selected_wave) else {
            return Vec::new();
        };
        self.engine
            .watchpoints()
            .iter()
            .filter(|wp| match (self.mem_space, wp.scope) {
                (Space::Global, Scope::Global) => true,
                (Space::Shared, Scope::Shared(None)) => true,
                (Space::Shared, Scope::Shared(Some(g))) => g == w.workgroup,
                (Space::Scratch, Scope::Scratch { wave, lane }) => {
                    wave == w.id && lane == self.engine.selected_lane
                }
                _ => false,
            })
            .map(|wp| (wp.addr, wp.len, wp.enabled))
            .collect()
    }

    /// Sets a 4-byte write watchpoint on the memory cursor's word, or deletes the one
    /// there.
    pub fn toggle_watchpoint(&mut self) {
        let addr = self.mem_addr();
        let space = self.mem_space;
        let existing: Vec<u32> = {
            let m = self.engine.machine();
            let sel = m.waves.get(self.engine.selected_wave);
            self.engine
                .watchpoints()
                .iter()
                .filter(|wp| wp.addr == addr && wp.scope.space() == space)
                .filter(|wp| match wp.scope {
                    Scope::Shared(Some(g)) => sel.is_some_and(|w| w.workgroup == g),
                    Scope::Scratch { wave, lane } => {
                        sel.is_some_and(|w| w.id == wave) && lane == self.engine.selected_lane
                    }
                    _ => true,
                })
                .map(|wp| wp.id)
                .collect()
        };
        if existing.is_empty() {
            let place = match space {
                Space::Global => WatchWhere::Global,
                Space::Shared => WatchWhere::Shared(None),
                Space::Scratch => WatchWhere::Scratch(None, None),
            };
            self.submit_commands(vec![Command::Watch {
                kind: WatchKind::Write,
                place,
                addr: ParsedExpr::number(addr),
                len: 4,
                condition: None,
            }]);
        } else {
            let deletes = existing
                .iter()
                .map(|id| Command::Delete(Some(*id)))
                .collect();
            self.submit_commands(deletes);
            self.say(format!(
                "Deleted the watchpoint at {}:{addr:#x}",
                space.name()
            ));
        }
    }
}
