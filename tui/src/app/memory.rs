//! The memory view: its cursor in each space, the region it moves in, the buffers it
//! jumps between, and the watchpoints it shows and toggles.

use ratatui::crossterm::event::KeyCode;
use wavedbg_emulator::debug::breakpoint::{Scope, WatchKind};
use wavedbg_emulator::debug::command::{Command, Numbers, WatchWhere};
use wavedbg_emulator::debug::expr;
use wavedbg_emulator::debug::expr::ParsedExpr;
use wavedbg_emulator::debug::panes::{FormatTarget, MemoryUnit, NumberFormat};
use wavedbg_emulator::memory::Space;

use super::input::Motion;
use super::state::App;
use crate::pane::Pane;

/// Memory spaces in the order `m` cycles through them.
pub const SPACES: [Space; 3] = [Space::Global, Space::Shared, Space::Scratch];

fn space_index(s: Space) -> usize {
    SPACES.iter().position(|x| *x == s).unwrap_or(0)
}

/// The memory view's state: a cursor per space, so switching spaces keeps each place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryPane {
    /// The space shown; one of [`SPACES`].
    pub space: Space,
    /// The cursor in each space, by index in [`SPACES`]: a word-aligned byte address,
    /// kept when the view changes space.
    pub cursor: [u64; 3],
}

impl MemoryPane {
    /// The view on global memory, its cursor at `first_global` (the first buffer).
    pub fn new(first_global: u64) -> MemoryPane {
        MemoryPane {
            space: Space::Global,
            cursor: [first_global, 0, 0],
        }
    }

    /// The cursor of the space shown (a word-aligned byte address).
    pub fn addr(&self) -> u64 {
        self.cursor[space_index(self.space)]
    }

    fn addr_mut(&mut self) -> &mut u64 {
        &mut self.cursor[space_index(self.space)]
    }

    /// Shows the space `steps` places further in [`SPACES`] (cyclically).
    fn cycle_space(&mut self, steps: usize) {
        self.space = SPACES[(space_index(self.space) + steps) % SPACES.len()];
    }
}

impl App {
    /// The TUI's `mem [SPACE] [ADDR|BUFFER]`: shows that space at that address and
    /// focuses the memory view. The address is an expression, a global buffer's name
    /// (which shows global memory unless a space is named), or `SPACE:EXPR`.
    pub(super) fn mem_command(&mut self, args: &str) -> Result<(), String> {
        let space_named = |w: &str| SPACES.iter().copied().find(|s| s.name() == w);
        let mut words = args.split_whitespace();
        let mut next = words.next();
        let mut space = next.and_then(space_named);
        if space.is_some() {
            next = words.next();
        }
        let mut addr_text = next;
        // `shared:0x40`: the space written before the address.
        if let Some((s, rest)) = next.and_then(|a| a.split_once(':')) {
            if let Some(s) = space_named(s) {
                space = Some(s);
                addr_text = Some(rest);
            }
        }
        let addr = match addr_text {
            Some(a) => Some(self.mem_address(a, &mut space)?),
            None => None,
        };
        if let Some(s) = space {
            self.memory.space = s;
        }
        if let Some(a) = addr {
            *self.memory.addr_mut() = a & !3;
        }
        self.clamp_mem();
        self.focus = Pane::Memory;
        self.say(format!(
            "Memory: {} at {:#x}",
            self.memory.space.name(),
            self.memory.addr()
        ));
        Ok(())
    }

    /// The address `a` names for `mem`: a global buffer's base (global memory, unless
    /// `space` names another), else the expression's value.
    fn mem_address(&self, a: &str, space: &mut Option<Space>) -> Result<u64, String> {
        let m = self.engine.machine();
        // The name the expression starts with: a buffer means global memory.
        let head: String = a
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let buffer = m.global.by_name(&head).is_some();
        if buffer && space.is_none() {
            *space = Some(Space::Global);
        }
        if let (Some(alloc), Some(Space::Global)) = (m.global.by_name(a), *space) {
            return Ok(alloc.base);
        }
        let e = expr::parse(a).map_err(|e| format!("mem: bad address `{a}`: {e}"))?;
        let v = e
            .eval(
                m,
                self.engine.selected_wave,
                Some(self.engine.selected_lane),
            )
            .map_err(|e| format!("mem: cannot evaluate `{a}`: {}", e.message))?;
        Ok(v as u64)
    }

    /// The range the memory view moves in: the global buffer holding the cursor, the
    /// selected wave's shared window, or one lane's scratch. `None` if the space is empty.
    pub fn mem_region(&self) -> Option<(u64, u64)> {
        let m = self.engine.machine();
        let cursor = self.memory.addr();
        let (start, len) = match self.memory.space {
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

    /// Keeps the cursor inside [`App::mem_region`], on a word.
    fn clamp_mem(&mut self) {
        if let Some((lo, hi)) = self.mem_region() {
            let a = self.memory.addr_mut();
            *a = (*a).clamp(lo, hi.saturating_sub(1)) & !3;
        }
    }

    /// Moves the cursor by `delta` bytes, within the region.
    fn move_mem(&mut self, delta: i64) {
        let a = self.memory.addr_mut();
        *a = (*a as i64).saturating_add(delta).max(0) as u64;
        self.clamp_mem();
    }

    /// Shows the space `steps` places further in [`SPACES`], at its own cursor.
    fn cycle_space(&mut self, steps: usize) {
        self.memory.cycle_space(steps);
        self.clamp_mem();
    }

    /// Memory keys: the arrows move a word (left, right) or a row, PgUp/PgDn a page,
    /// Home/End to the region's ends; `m`/`M` change the space, `n`/`p` jump between
    /// buffers, `t` toggles a watchpoint, `f` cycles the number format and `u` switches
    /// between bytes and 32-bit words. Returns whether the key was used.
    pub(super) fn memory_key(&mut self, code: KeyCode) -> bool {
        let bpr = self.hits.mem_bytes_per_row.max(4) as i64;
        let page = self.page(Pane::Memory) as i64 * bpr;
        match (Motion::of(code), code) {
            (Some(Motion::Down), _) => self.move_mem(bpr),
            (Some(Motion::Up), _) => self.move_mem(-bpr),
            (Some(Motion::Left), _) => self.move_mem(-4),
            (Some(Motion::Right), _) => self.move_mem(4),
            (Some(Motion::PageDown), _) => self.move_mem(page),
            (Some(Motion::PageUp), _) => self.move_mem(-page),
            // The ends of the region shown (not of the space: global memory has many).
            (Some(m @ (Motion::Home | Motion::End)), _) => {
                if let Some((lo, hi)) = self.mem_region() {
                    *self.memory.addr_mut() = if m == Motion::Home { lo } else { hi - 1 };
                    self.clamp_mem();
                }
            }
            (_, KeyCode::Char('m')) => self.cycle_space(1),
            (_, KeyCode::Char('M')) => self.cycle_space(SPACES.len() - 1),
            (_, KeyCode::Char('n')) => self.jump_buffer(true),
            (_, KeyCode::Char('p')) => self.jump_buffer(false),
            (_, KeyCode::Char('t')) if !self.is_running() => self.toggle_watchpoint(),
            (_, KeyCode::Char('f')) => self.cycle_format(FormatTarget::Memory),
            (_, KeyCode::Char('u')) => self.toggle_memory_unit(),
            _ => return false,
        }
        true
    }

    /// `u`: bytes or 32-bit words, as the command `set memory-unit bytes|words`.
    fn toggle_memory_unit(&mut self) {
        if self.is_running() {
            self.refuse_busy();
            return;
        }
        let next = match self.engine.panes().memory_unit {
            MemoryUnit::Bytes => MemoryUnit::Words,
            MemoryUnit::Words => MemoryUnit::Bytes,
        };
        self.submit_commands(vec![Command::SetMemoryUnit(next)]);
        let f32 = self.engine.panes().format(FormatTarget::Memory) == NumberFormat::F32;
        self.say(match next {
            MemoryUnit::Bytes if f32 => {
                "Memory in bytes once the format is not f32 (a byte is no float; f: next format)"
            }
            MemoryUnit::Bytes => "Memory in bytes (u: 32-bit words)",
            MemoryUnit::Words => "Memory in 32-bit little-endian words (u: bytes)",
        });
    }

    /// The next/previous global buffer.
    fn jump_buffer(&mut self, forward: bool) {
        if self.memory.space != Space::Global {
            return;
        }
        let allocs = self.engine.machine().global.allocations();
        let cur = self.memory.addr();
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
        self.memory.cursor[0] = base;
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
            .filter(|wp| match (self.memory.space, wp.scope) {
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
        let addr = self.memory.addr();
        let space = self.memory.space;
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
                .map(|id| Command::Delete(Numbers::one(*id)))
                .collect();
            self.submit_commands(deletes);
            self.say(format!(
                "Deleted the watchpoint at {}:{addr:#x}",
                space.name()
            ));
        }
    }
}
