//! The actions keys and the command line trigger: the command line's own commands, step,
//! breakpoints and wave selection, each sent to the engine as a command.

use wavedbg_emulator::debug::breakpoint::Filters;
use wavedbg_emulator::debug::command::{Command, Location, Numbers};
use wavedbg_emulator::debug::view;

use super::lanes::{parse_regs, regs_text};
use super::source::SourceMode;
use super::state::{App, LineKind};

impl App {
    /// Runs a line typed on the command line: TUI commands (`quit`, `lanes`, `mem`) here,
    /// the command language on the engine. The line goes into the history.
    pub fn run_typed(&mut self, line: &str) {
        let line = line.trim();
        if !line.is_empty() {
            self.history.add(line);
            if let Some(w) = self.history.take_warning() {
                self.log(&format!("warning: {w}"), LineKind::Error);
            }
        }
        let (head, rest) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(h, r)| (h, r.trim()));
        match head {
            "lanes" => {
                self.log(&format!("(wavedbg) {line}"), LineKind::Command);
                match parse_regs(rest) {
                    Ok(regs) => {
                        self.lanes.regs = regs;
                        self.lanes.offset = 0;
                        self.say(format!("Lane grid: {}", regs_text(&self.lanes.regs)));
                    }
                    Err(e) => self.complain(e),
                }
            }
            "mem" => {
                self.log(&format!("(wavedbg) {line}"), LineKind::Command);
                if let Err(e) = self.mem_command(rest) {
                    self.complain(e);
                }
            }
            _ => self.submit(&[line]),
        }
    }

    // ----- actions -----

    /// Steps the selected wave one instruction (others frozen).
    ///
    /// With scheduler-locking on (the default) that is `stepi`; after `set
    /// scheduler-locking off` it is `stepi alone`, one command that leaves the setting as
    /// it is.
    pub fn step(&mut self) {
        let cmd = if self.engine.scheduler_locking {
            Command::Stepi(1)
        } else {
            Command::StepiAlone(1)
        };
        self.submit_commands(vec![cmd]);
    }

    /// Steps every ready wave one instruction.
    /// (`stepi all`, whatever scheduler-locking says).
    pub fn step_all(&mut self) {
        self.submit_commands(vec![Command::StepiAll(1)]);
    }

    /// The selected wave one instruction back: the whole machine as it was right before
    /// it (`reverse-stepi`).
    pub fn reverse_step(&mut self) {
        self.submit_commands(vec![Command::ReverseStepi(1)]);
    }

    /// Back to the previous breakpoint or watchpoint stop (`reverse-continue`).
    pub fn reverse_continue(&mut self) {
        self.submit_commands(vec![Command::ReverseContinue]);
    }

    /// Runs until something stops the machine (`continue`).
    pub fn continue_run(&mut self) {
        self.submit_commands(vec![Command::Continue]);
    }

    /// Runs the selected wave to the cursor's line (`advance *ADDR`): the code cursor's
    /// instruction, or the source cursor's line's first one.
    pub fn advance_to_cursor(&mut self) {
        match self.cursor_addr() {
            Ok(addr) => self.submit_commands(vec![Command::Advance(Location::Address(addr))]),
            Err(e) => self.complain(e),
        }
    }

    /// Starts the launch again from the beginning (`restart`), keeping breakpoints and
    /// watchpoints; once something has run, the driver asks first (see
    /// [`App::plan_batch`]).
    pub fn restart(&mut self) {
        self.submit_commands(vec![Command::Restart]);
    }

    /// Sets a breakpoint on the cursor's line, or deletes the ones there. In the source
    /// view the line's breakpoints are those on any of its instructions, and a new one
    /// goes on its first instruction; on a higher-level line it is `break FILE:LINE`.
    pub fn toggle_breakpoint(&mut self) {
        if self.focus == crate::pane::Pane::Source && self.source.high_level_line().is_some() {
            return self.toggle_line_breakpoint();
        }
        let addr = match self.cursor_addr() {
            Ok(a) => a,
            Err(e) => return self.complain(e),
        };
        let on_line = |b: u64| -> bool {
            if self.focus != crate::pane::Pane::Source {
                return b == addr;
            }
            if self.source.mode != SourceMode::Assembly {
                // An instruction's row of the interleaved view.
                return b == addr;
            }
            let m = self.engine.machine();
            let line = |a| m.program().line_at(a);
            line(b).is_some() && line(b) == line(addr)
        };
        let deletes: Vec<Command> = self
            .engine
            .breakpoints()
            .iter()
            .filter(|b| b.addrs.iter().any(|&a| on_line(a)))
            .map(|b| Command::Delete(Numbers::one(b.id)))
            .collect();
        if deletes.is_empty() {
            self.submit_commands(vec![Command::Break {
                location: Location::Address(addr),
                condition: None,
                filters: Filters::default(),
                temporary: false,
            }]);
            if self.message.as_ref().is_some_and(|m| !m.error) {
                self.say(format!(
                    "Breakpoint at {} (F9/b on the line again removes it)",
                    view::pc_text(self.engine.machine(), addr)
                ));
            }
        } else {
            self.submit_commands(deletes);
            self.say(format!(
                "Deleted the breakpoint at {}",
                view::pc_text(self.engine.machine(), addr)
            ));
        }
    }

    /// `b` on a higher-level line: deletes the breakpoints on any of its instructions,
    /// else sets them as `break FILE:LINE` does (at the first statement of each stretch of
    /// the line's code; the engine refuses a line without one).
    fn toggle_line_breakpoint(&mut self) {
        let (Some(h), Some(line)) = (self.source.high_level(), self.source.high_level_line())
        else {
            return;
        };
        let name = h.name.clone();
        let deletes: Vec<Command> = self
            .engine
            .breakpoints()
            .iter()
            .filter(|b| {
                b.addrs
                    .iter()
                    .any(|&a| h.line_of(&self.code, a) == Some(line))
            })
            .map(|b| Command::Delete(Numbers::one(b.id)))
            .collect();
        let at = format!("{name}:{}", line + 1);
        if deletes.is_empty() {
            self.submit_commands(vec![Command::Break {
                location: Location::Line {
                    file: Some(name),
                    line: line as u64 + 1,
                },
                condition: None,
                filters: Filters::default(),
                temporary: false,
            }]);
            if self.message.as_ref().is_some_and(|m| !m.error) {
                self.say(format!(
                    "Breakpoint at {at} (F9/b on the line again removes it)"
                ));
            }
        } else {
            self.submit_commands(deletes);
            self.say(format!("Deleted the breakpoints at {at}"));
        }
    }

    pub(super) fn select_wave_by(&mut self, delta: isize) {
        let m = self.engine.machine();
        let n = m.waves.len() as isize;
        if n == 0 {
            return;
        }
        let mut i = self.engine.selected_wave as isize;
        for _ in 0..n {
            i = (i + delta).rem_euclid(n);
            let w = &m.waves[i as usize];
            if m.wave_index(w.id) == Some(i as usize) {
                self.submit_commands(vec![Command::Wave(Some(w.id))]);
                return;
            }
        }
    }

    /// Selects the wave at index `i` of the machine's waves.
    pub fn select_wave_index(&mut self, i: usize) {
        let Some(w) = self.engine.machine().waves.get(i) else {
            return;
        };
        if i != self.engine.selected_wave {
            self.submit_commands(vec![Command::Wave(Some(w.id))]);
        }
    }
}
