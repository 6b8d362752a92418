//! The debugger's state and input handling. Keys and clicks become command lines of the
//! command language (so `--record` captures them and there is one way to drive the
//! engine); lines that run the machine go to a [`Job`] on a worker thread, the others run
//! at once. Drawing lives in [`crate::ui`] and only reads this state.

use std::path::Path;
use std::time::Duration;

use crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use wavedbg_emulator::debug::breakpoint::Scope;
use wavedbg_emulator::debug::command::{self, Command, CommandError};
use wavedbg_emulator::debug::session::Recorder;
use wavedbg_emulator::debug::{expr, view, CommandOutput, Engine, StopEvent, StopReason};
use wavedbg_emulator::disasm;
use wavedbg_emulator::machine::wave::VREGS;
use wavedbg_emulator::machine::Machine;
use wavedbg_emulator::memory::Space;

use crate::completion::{self, Words};
use crate::editor::LineEditor;
use crate::history::History;
use crate::ui::HitMap;
use crate::worker::{self, Job, Progress};
use crate::{TuiError, TuiOptions};

/// The panes, in focus order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    /// Disassembly.
    Code,
    /// Resident waves.
    Waves,
    /// The lane grid (v registers x lanes).
    Lanes,
    /// PC, EXEC, counters and u registers of the selected wave.
    Registers,
    /// Memory hex view.
    Memory,
    /// Breakpoints and watchpoints.
    Breakpoints,
    /// Command output.
    Console,
}

impl Pane {
    /// Every pane, in focus order.
    pub const ALL: [Pane; 7] = [
        Pane::Code,
        Pane::Waves,
        Pane::Lanes,
        Pane::Registers,
        Pane::Memory,
        Pane::Breakpoints,
        Pane::Console,
    ];

    /// The pane's title.
    pub fn title(self) -> &'static str {
        match self {
            Pane::Code => "Code",
            Pane::Waves => "Waves",
            Pane::Lanes => "Lanes",
            Pane::Registers => "Registers",
            Pane::Memory => "Memory",
            Pane::Breakpoints => "Breakpoints",
            Pane::Console => "Console",
        }
    }

    /// Position in [`Pane::ALL`].
    pub fn index(self) -> usize {
        Pane::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }

    fn step(self, by: isize) -> Pane {
        let n = Pane::ALL.len() as isize;
        Pane::ALL[(self.index() as isize + by).rem_euclid(n) as usize]
    }
}

/// One line of the disassembly (decoded once: the code never changes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeLine {
    /// Byte address.
    pub addr: u64,
    /// Labels at this address.
    pub labels: Vec<String>,
    /// The instruction as text.
    pub text: String,
}

/// How a console line is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// A command as entered.
    Command,
    /// Output.
    Output,
    /// An error.
    Error,
}

/// The kind of the status line's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusKind {
    /// Nothing has run yet.
    Ready,
    /// A normal stop (step, reached, interrupt).
    Stopped,
    /// A breakpoint or watchpoint.
    Hit,
    /// Every wave exited.
    Finished,
    /// A fault, deadlock, blocked run or condition error.
    Problem,
}

/// A one-line message under the status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Text.
    pub text: String,
    /// Whether it reports an error.
    pub error: bool,
}

/// Memory spaces in the order `m` cycles through them.
pub const SPACES: [Space; 3] = [Space::Global, Space::Shared, Space::Scratch];

fn space_index(s: Space) -> usize {
    SPACES.iter().position(|x| *x == s).unwrap_or(0)
}

/// Console lines kept.
const CONSOLE_MAX: usize = 2000;

/// The whole debugger state.
pub struct App {
    /// The engine (while a job runs: the state before it, shown until the job ends).
    pub engine: Engine,
    /// The machine to compare with for change highlighting (the state before the last
    /// command that ran the machine).
    pub baseline: Machine,
    /// The disassembly.
    pub code: Vec<CodeLine>,
    /// The focused pane.
    pub focus: Pane,
    /// Cursor in the disassembly (index into `code`).
    pub code_cursor: usize,
    /// The v registers the lane grid can show, and the first one shown.
    pub lane_regs: Vec<usize>,
    /// Index into `lane_regs` of the first register shown.
    pub lane_offset: usize,
    /// First row of u registers shown.
    pub regs_scroll: usize,
    /// The memory view's space.
    pub mem_space: Space,
    /// Memory cursor per space (a byte address, word-aligned).
    pub mem_cursor: [u64; 3],
    /// Cursor in the breakpoint list.
    pub bp_cursor: usize,
    /// Command output.
    pub console: Vec<(String, LineKind)>,
    /// Lines scrolled up from the bottom of the console.
    pub console_scroll: usize,
    /// The command line, while open.
    pub editor: Option<LineEditor>,
    /// Command history.
    pub history: History,
    words: Words,
    /// The message under the status line.
    pub message: Option<Message>,
    /// The status line's text and kind.
    pub status: (String, StatusKind),
    /// Whether the help overlay is open, and its scroll.
    pub help: bool,
    /// First help line shown.
    pub help_scroll: usize,
    /// Asking whether to quit during a run.
    pub confirm_quit: bool,
    /// Set when the user quits.
    pub quit: bool,
    /// The job in progress.
    pub job: Option<Job>,
    job_before: Option<Machine>,
    recorder: Option<Recorder>,
    /// What the last frame drew where (for mouse clicks and page sizes).
    pub hits: HitMap,
}

impl App {
    /// Sets up the state for `engine`: loads the history, opens the `--record` script.
    pub fn new(engine: Engine, options: &TuiOptions) -> Result<App, TuiError> {
        let recorder = match &options.record {
            Some(p) => Some(
                Recorder::create(p, &engine).map_err(|error| TuiError::Record {
                    path: p.clone(),
                    error,
                })?,
            ),
            None => None,
        };
        let history = if options.history.as_os_str().is_empty() {
            History::in_memory()
        } else {
            History::load(&options.history)
        };
        let m = engine.machine();
        let lines = disasm::decode_all(&m.program().code);
        let labels = disasm::labels_for(&m.program().labels, &lines);
        let code: Vec<CodeLine> = lines
            .iter()
            .map(|l| CodeLine {
                addr: l.addr,
                labels: labels.get(&l.addr).cloned().unwrap_or_default(),
                text: match &l.instr {
                    Some(i) => disasm::instr_text(i, l.addr, &labels),
                    None => format!(".word {:#010x}", l.words.first().copied().unwrap_or(0)),
                },
            })
            .collect();
        let default_regs = kernel_vregs(&code);
        let first_global = m.global.allocations().first().map_or(0, |a| a.base);
        let status = format!(
            "{}: {} waves resident, {} workgroups of {} lanes. Press ? for help.",
            engine.kernel_path().unwrap_or("kernel"),
            m.waves.len(),
            m.launch().grid,
            m.launch().workgroup_lanes
        );
        let mut app = App {
            baseline: engine.previous().clone(),
            words: Words::of(&engine, crate::completion::TUI_COMMANDS),
            engine,
            code,
            focus: Pane::Code,
            code_cursor: 0,
            lane_regs: default_regs,
            lane_offset: 0,
            regs_scroll: 0,
            mem_space: Space::Global,
            mem_cursor: [first_global, 0, 0],
            bp_cursor: 0,
            console: Vec::new(),
            console_scroll: 0,
            editor: None,
            history,
            message: None,
            status: (status, StatusKind::Ready),
            help: false,
            help_scroll: 0,
            confirm_quit: false,
            quit: false,
            job: None,
            job_before: None,
            recorder,
            hits: HitMap::default(),
        };
        app.follow_pc();
        Ok(app)
    }

    /// Whether a job is running.
    pub fn is_running(&self) -> bool {
        self.job.is_some()
    }

    /// Progress of the running job.
    pub fn progress(&self) -> Option<Progress> {
        self.job.as_ref().map(Job::progress)
    }

    /// Drives a running job; returns whether anything changed (always while running, so
    /// the progress on the status line moves).
    pub fn tick(&mut self) -> Result<bool, TuiError> {
        let Some(job) = self.job.as_mut() else {
            return Ok(false);
        };
        match job.poll() {
            Ok(None) => Ok(true),
            Ok(Some(done)) => {
                self.job = None;
                self.engine = done.engine;
                let before = self.job_before.take();
                self.absorb(done.results, before);
                if self.confirm_quit {
                    self.confirm_quit = false;
                }
                Ok(true)
            }
            Err(worker::WorkerLost) => {
                let lines = job.lines.join("; ");
                self.job = None;
                Err(TuiError::EngineLost(lines))
            }
        }
    }

    /// Waits until the running job (if any) is over, at most `timeout`.
    pub fn wait_idle(&mut self, timeout: Duration) -> Result<(), TuiError> {
        let deadline = std::time::Instant::now() + timeout;
        while self.is_running() && std::time::Instant::now() < deadline {
            self.tick()?;
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok(())
    }

    /// Stops a running job before exiting (interrupts it and waits briefly).
    pub fn shutdown(&mut self) {
        if let Some(job) = self.job.as_mut() {
            job.interrupt();
            let _ = job.wait(Duration::from_secs(2));
        }
        self.job = None;
    }

    /// Interrupts a run in progress.
    pub fn interrupt(&mut self) {
        if let Some(job) = &self.job {
            job.interrupt();
            self.say("Interrupting...");
        }
    }

    fn say(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: false,
        });
    }

    fn complain(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: true,
        });
    }

    fn log(&mut self, text: &str, kind: LineKind) {
        for l in text.lines() {
            self.console.push((l.to_string(), kind));
        }
        let excess = self.console.len().saturating_sub(CONSOLE_MAX);
        self.console.drain(..excess);
        self.console_scroll = 0;
    }

    /// Runs command lines of the command language: each is recorded and echoed; lines that
    /// run the machine go to a worker thread (the UI stays live), the others run now.
    pub fn submit(&mut self, lines: &[&str]) {
        if self.is_running() {
            self.complain("A run is in progress (Esc interrupts it).");
            return;
        }
        for line in lines {
            self.log(&format!("(wavedbg) {line}"), LineKind::Command);
            if let Some(r) = self.recorder.as_mut() {
                if let Err(e) = r.record(line) {
                    self.recorder = None;
                    self.complain(format!("recording stopped: {e}"));
                }
            }
        }
        if lines.iter().any(|l| worker::runs_machine(l)) {
            self.job_before = Some(self.engine.machine().clone());
            let engine = self.engine.clone();
            self.job = Some(Job::start(
                engine,
                lines.iter().map(|l| l.to_string()).collect(),
            ));
            self.say(format!(
                "Running `{}`... (Esc interrupts)",
                lines.join("; ")
            ));
        } else {
            let before = lines
                .iter()
                .any(|l| worker::moves_machine(l))
                .then(|| self.engine.machine().clone());
            let results = lines
                .iter()
                .map(|l| (l.to_string(), self.engine.execute_line(l)))
                .collect();
            self.absorb(results, before);
        }
    }

    /// Takes in the results of command lines.
    fn absorb(
        &mut self,
        results: Vec<(String, Result<CommandOutput, CommandError>)>,
        before: Option<Machine>,
    ) {
        let mut stopped = false;
        let mut relaunched = false;
        let mut last: Option<Message> = None;
        for (line, result) in results {
            if matches!(
                command::parse(&line),
                Ok(Some(Command::Restart | Command::Load(_)))
            ) {
                relaunched = true;
            }
            match result {
                Ok(out) => {
                    self.log(&out.text, LineKind::Output);
                    if let Some(stop) = &out.stop {
                        stopped = true;
                        self.status = stop_status(&self.engine, stop);
                    }
                    let failed = out.expect.as_ref().is_some_and(|e| !e.passed);
                    if out.stop.is_some() {
                        // The status line shows the stop.
                        last = None;
                    } else if let Some(first) = out.text.lines().find(|l| !l.trim().is_empty()) {
                        let extra = out.text.lines().count().saturating_sub(1);
                        let more = if extra > 0 && out.stop.is_none() {
                            format!("  (+{extra} lines in the console)")
                        } else {
                            String::new()
                        };
                        last = Some(Message {
                            text: format!("{}{more}", first.trim()),
                            error: failed,
                        });
                    }
                }
                Err(e) => {
                    let text = format!("error: {e}");
                    self.log(&text, LineKind::Error);
                    last = Some(Message {
                        text: text.lines().next().unwrap_or_default().to_string(),
                        error: true,
                    });
                }
            }
        }
        if stopped {
            if let Some(b) = before {
                self.baseline = b;
            }
        }
        if relaunched {
            self.baseline = self.engine.machine().clone();
            if !stopped {
                self.status = (
                    "Restarted: every wave at the start.".to_string(),
                    StatusKind::Ready,
                );
            }
        }
        if stopped || relaunched {
            self.follow_pc();
        }
        if stopped {
            self.show_changed_regs();
        }
        self.message = last;
        let nbp = self.engine.breakpoints().len() + self.engine.watchpoints().len();
        self.bp_cursor = self.bp_cursor.min(nbp.saturating_sub(1));
    }

    /// Runs a line typed on the command line: TUI commands (`quit`, `lanes`, `mem`) here,
    /// the command language on the engine. The line goes into the history.
    pub fn run_typed(&mut self, line: &str) {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        self.history.add(line);
        let (head, rest) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(h, r)| (h, r.trim()));
        match head {
            "q" | "quit" | "exit" => self.request_quit(),
            "lanes" => {
                self.log(&format!("(wavedbg) {line}"), LineKind::Command);
                match parse_regs(rest) {
                    Ok(regs) => {
                        self.lane_regs = regs;
                        self.lane_offset = 0;
                        self.say(format!("Lane grid: {}", regs_text(&self.lane_regs)));
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

    fn mem_command(&mut self, args: &str) -> Result<(), String> {
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

    fn request_quit(&mut self) {
        if self.is_running() {
            self.confirm_quit = true;
        } else {
            self.quit = true;
        }
    }

    /// Moves the disassembly cursor to the selected wave's PC.
    pub fn follow_pc(&mut self) {
        if let Some(pc) = self.selected_pc() {
            if let Some(i) = self.code_index(pc) {
                self.code_cursor = i;
            }
        }
    }

    /// The selected wave's PC.
    pub fn selected_pc(&self) -> Option<u64> {
        self.engine
            .machine()
            .waves
            .get(self.engine.selected_wave)
            .map(|w| w.pc)
    }

    /// The disassembly line at `addr`.
    pub fn code_index(&self, addr: u64) -> Option<usize> {
        self.code.binary_search_by_key(&addr, |l| l.addr).ok()
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

    fn clamp_mem(&mut self) {
        let i = space_index(self.mem_space);
        if let Some((lo, hi)) = self.mem_region() {
            self.mem_cursor[i] = self.mem_cursor[i].clamp(lo, hi.saturating_sub(1)) & !3;
        }
    }

    fn move_mem(&mut self, delta: i64) {
        let i = space_index(self.mem_space);
        self.mem_cursor[i] = (self.mem_cursor[i] as i64).saturating_add(delta).max(0) as u64;
        self.clamp_mem();
    }

    /// The next/previous global buffer.
    fn jump_buffer(&mut self, forward: bool) {
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

    /// After a stop, scrolls the lane grid to the first changed register if none of the
    /// registers shown changed (so stepping shows what the instruction wrote).
    fn show_changed_regs(&mut self) {
        let wi = self.engine.selected_wave;
        let (Some(w), Some(b)) = (
            self.engine.machine().waves.get(wi),
            self.baseline.waves.get(wi),
        ) else {
            return;
        };
        if w.id != b.id {
            return;
        }
        let changed = |r: usize| w.v[r] != b.v[r];
        let shown = self.hits.lane_regs.max(1);
        if self.shown_regs(shown).iter().any(|&r| changed(r)) {
            return;
        }
        if let Some(i) = self.lane_regs.iter().position(|&r| changed(r)) {
            self.lane_offset = i;
        }
    }

    /// The v registers shown first-to-last in the lane grid for `count` columns.
    pub fn shown_regs(&self, count: usize) -> &[usize] {
        let start = self.lane_offset.min(self.lane_regs.len().saturating_sub(1));
        let end = (start + count).min(self.lane_regs.len());
        &self.lane_regs[start..end]
    }

    // ----- actions -----

    /// Steps the selected wave one instruction (others frozen).
    pub fn step(&mut self) {
        if self.engine.scheduler_locking {
            self.submit(&["stepi"]);
        } else {
            self.submit(&[
                "set scheduler-locking on",
                "stepi",
                "set scheduler-locking off",
            ]);
        }
    }

    /// Steps every ready wave one instruction.
    pub fn step_all(&mut self) {
        if self.engine.scheduler_locking {
            self.submit(&[
                "set scheduler-locking off",
                "stepi",
                "set scheduler-locking on",
            ]);
        } else {
            self.submit(&["stepi"]);
        }
    }

    /// Sets a breakpoint on the disassembly cursor's line, or deletes the ones there.
    pub fn toggle_breakpoint(&mut self) {
        let Some(addr) = self.code.get(self.code_cursor).map(|l| l.addr) else {
            return;
        };
        let ids: Vec<String> = self
            .engine
            .breakpoints()
            .iter()
            .filter(|b| b.addr == addr)
            .map(|b| format!("delete {}", b.id))
            .collect();
        if ids.is_empty() {
            self.submit(&[&format!("break *{addr:#06x}")]);
            if self.message.as_ref().is_some_and(|m| !m.error) {
                self.say(format!(
                    "Breakpoint at {} (F9/b on the line again removes it)",
                    view::pc_text(self.engine.machine(), addr)
                ));
            }
        } else {
            let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
            self.submit(&refs);
            self.say(format!(
                "Deleted the breakpoint at {}",
                view::pc_text(self.engine.machine(), addr)
            ));
        }
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
            self.submit(&[&format!("watch {}:{addr:#x} 4", space.name())]);
        } else {
            let lines: Vec<String> = existing.iter().map(|id| format!("delete {id}")).collect();
            let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
            self.submit(&refs);
            self.say(format!(
                "Deleted the watchpoint at {}:{addr:#x}",
                space.name()
            ));
        }
    }

    fn select_wave_by(&mut self, delta: isize) {
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
                let line = format!("wave {}", w.id);
                self.submit(&[&line]);
                self.follow_pc();
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
            let line = format!("wave {}", w.id);
            self.submit(&[&line]);
            self.follow_pc();
        }
    }

    /// Selects lane `lane`.
    pub fn select_lane(&mut self, lane: u8) {
        if lane < 32 && lane != self.engine.selected_lane {
            let line = format!("lane {lane}");
            self.submit(&[&line]);
        }
    }

    fn select_lane_by(&mut self, delta: i32) {
        let l = (self.engine.selected_lane as i32 + delta).rem_euclid(32) as u8;
        self.select_lane(l);
    }

    fn page(&self, pane: Pane) -> usize {
        (self.hits.rows[pane.index()] as usize).max(1)
    }

    // ----- input -----

    /// Handles a pasted string (into the command line, if open).
    pub fn on_paste(&mut self, text: &str) {
        if let Some(e) = self.editor.as_mut() {
            e.insert(text.lines().next().unwrap_or_default());
        }
    }

    /// Handles a key.
    pub fn on_key(&mut self, k: KeyEvent) {
        if k.kind == KeyEventKind::Release {
            return;
        }
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        if self.confirm_quit {
            if matches!(k.code, KeyCode::Char('y' | 'Y')) {
                self.interrupt();
                self.quit = true;
            } else {
                self.confirm_quit = false;
                self.say("Not quitting.");
            }
            return;
        }
        if ctrl && matches!(k.code, KeyCode::Char('c')) {
            if self.is_running() {
                self.interrupt();
            } else if self.editor.take().is_some() {
                self.history.reset();
            } else {
                self.say("Ctrl-C and Esc interrupt a run; q quits.");
            }
            return;
        }
        if self.editor.is_some() {
            self.edit_key(k);
            return;
        }
        if self.help {
            match k.code {
                KeyCode::Down | KeyCode::Char('j') => self.help_scroll += 1,
                KeyCode::Up | KeyCode::Char('k') => {
                    self.help_scroll = self.help_scroll.saturating_sub(1)
                }
                KeyCode::PageDown => self.help_scroll += 10,
                KeyCode::PageUp => self.help_scroll = self.help_scroll.saturating_sub(10),
                _ => self.help = false,
            }
            return;
        }
        match k.code {
            KeyCode::Esc => {
                if self.is_running() {
                    self.interrupt();
                } else {
                    self.message = None;
                }
                return;
            }
            KeyCode::Char('?') | KeyCode::F(1) => {
                self.help = true;
                self.help_scroll = 0;
                return;
            }
            KeyCode::Char('q') => return self.request_quit(),
            KeyCode::Char(':') => {
                self.editor = Some(LineEditor::new());
                self.history.reset();
                return;
            }
            KeyCode::Tab => {
                self.focus = self.focus.step(1);
                return;
            }
            KeyCode::BackTab => {
                self.focus = self.focus.step(-1);
                return;
            }
            KeyCode::Char(d @ '1'..='7') => {
                self.focus = Pane::ALL[(d as u8 - b'1') as usize];
                return;
            }
            _ => {}
        }
        if self.navigate(k) {
            return;
        }
        let engine_key = matches!(
            k.code,
            KeyCode::F(5 | 9 | 11)
                | KeyCode::Char('c' | 's' | 'S' | 'b' | 'a' | 'w' | 'W' | 'l' | 'L')
        );
        if !engine_key {
            return;
        }
        if self.is_running() {
            self.complain("A run is in progress (Esc interrupts it).");
            return;
        }
        match k.code {
            KeyCode::F(5) | KeyCode::Char('c') => self.submit(&["continue"]),
            KeyCode::F(11) | KeyCode::Char('s') => self.step(),
            KeyCode::Char('S') => self.step_all(),
            KeyCode::F(9) | KeyCode::Char('b') => self.toggle_breakpoint(),
            KeyCode::Char('a') => {
                if let Some(addr) = self.code.get(self.code_cursor).map(|l| l.addr) {
                    self.submit(&[&format!("advance *{addr:#06x}")]);
                }
            }
            KeyCode::Char('w') => self.select_wave_by(1),
            KeyCode::Char('W') => self.select_wave_by(-1),
            KeyCode::Char('l') => self.select_lane_by(1),
            KeyCode::Char('L') => self.select_lane_by(-1),
            _ => {}
        }
    }

    /// Pane-specific movement. Returns whether the key was used.
    fn navigate(&mut self, k: KeyEvent) -> bool {
        use KeyCode::*;
        let busy = self.is_running();
        let down = matches!(k.code, Down | Char('j'));
        let up = matches!(k.code, Up | Char('k'));
        match self.focus {
            Pane::Code => {
                let page = self.page(Pane::Code);
                let last = self.code.len().saturating_sub(1);
                let c = &mut self.code_cursor;
                match k.code {
                    _ if down => *c = (*c + 1).min(last),
                    _ if up => *c = c.saturating_sub(1),
                    PageDown => *c = (*c + page).min(last),
                    PageUp => *c = c.saturating_sub(page),
                    Home | Char('g') => *c = 0,
                    End | Char('G') => *c = last,
                    Char('.') => self.follow_pc(),
                    _ => return false,
                }
            }
            Pane::Waves => {
                let n = self.engine.machine().waves.len();
                let target = match k.code {
                    _ if down => Some(1),
                    _ if up => Some(-1),
                    Home | Char('g') => Some(-(self.engine.selected_wave as isize)),
                    End | Char('G') => Some(n as isize - 1 - self.engine.selected_wave as isize),
                    _ => None,
                };
                let Some(delta) = target else { return false };
                if busy {
                    self.complain("A run is in progress (Esc interrupts it).");
                } else if down || up {
                    self.select_wave_by(delta);
                } else {
                    self.select_wave_index((self.engine.selected_wave as isize + delta) as usize);
                }
            }
            Pane::Lanes => {
                let shown = self.hits.lane_regs.max(1);
                let n = self.lane_regs.len();
                match k.code {
                    _ if down || up => {
                        if busy {
                            self.complain("A run is in progress (Esc interrupts it).");
                        } else {
                            self.select_lane_by(if down { 1 } else { -1 });
                        }
                    }
                    Left | Char('h') => self.lane_offset = self.lane_offset.saturating_sub(1),
                    Right => self.lane_offset = (self.lane_offset + 1).min(n.saturating_sub(1)),
                    PageUp => self.lane_offset = self.lane_offset.saturating_sub(shown),
                    PageDown => {
                        self.lane_offset = (self.lane_offset + shown).min(n.saturating_sub(1))
                    }
                    Home | Char('g') => self.lane_offset = 0,
                    _ => return false,
                }
            }
            Pane::Registers => match k.code {
                _ if down => self.regs_scroll += 1,
                _ if up => self.regs_scroll = self.regs_scroll.saturating_sub(1),
                Home | Char('g') => self.regs_scroll = 0,
                _ => return false,
            },
            Pane::Memory => {
                let bpr = self.hits.mem_bytes_per_row.max(4) as i64;
                let page = self.page(Pane::Memory) as i64 * bpr;
                match k.code {
                    _ if down => self.move_mem(bpr),
                    _ if up => self.move_mem(-bpr),
                    Left | Char('h') => self.move_mem(-4),
                    Right => self.move_mem(4),
                    PageDown => self.move_mem(page),
                    PageUp => self.move_mem(-page),
                    Home | Char('g') => self.move_mem(i64::MIN / 2),
                    End | Char('G') => self.move_mem(i64::MAX / 2),
                    Char('m') => {
                        self.mem_space = SPACES[(space_index(self.mem_space) + 1) % 3];
                        self.clamp_mem();
                    }
                    Char('M') => {
                        self.mem_space = SPACES[(space_index(self.mem_space) + 2) % 3];
                        self.clamp_mem();
                    }
                    Char('n') => self.jump_buffer(true),
                    Char('p') => self.jump_buffer(false),
                    Char('t') if !busy => self.toggle_watchpoint(),
                    _ => return false,
                }
            }
            Pane::Breakpoints => {
                let bps = self.engine.breakpoints();
                let wps = self.engine.watchpoints();
                let n = bps.len() + wps.len();
                let item = if self.bp_cursor < bps.len() {
                    bps.get(self.bp_cursor)
                        .map(|b| (b.id, b.enabled, Some(b.addr)))
                } else {
                    wps.get(self.bp_cursor - bps.len())
                        .map(|w| (w.id, w.enabled, None))
                };
                match k.code {
                    _ if down => self.bp_cursor = (self.bp_cursor + 1).min(n.saturating_sub(1)),
                    _ if up => self.bp_cursor = self.bp_cursor.saturating_sub(1),
                    Char('d') | Delete if !busy => {
                        if let Some((id, ..)) = item {
                            self.submit(&[&format!("delete {id}")]);
                        }
                    }
                    Char('e') | Char(' ') if !busy => {
                        if let Some((id, enabled, _)) = item {
                            let verb = if enabled { "disable" } else { "enable" };
                            self.submit(&[&format!("{verb} {id}")]);
                        }
                    }
                    Enter => {
                        if let Some(i) = item.and_then(|(.., a)| a).and_then(|a| self.code_index(a))
                        {
                            self.code_cursor = i;
                            self.focus = Pane::Code;
                        }
                    }
                    _ => return false,
                }
            }
            Pane::Console => {
                let page = self.page(Pane::Console);
                let max = self.console.len();
                let s = &mut self.console_scroll;
                match k.code {
                    _ if up => *s = (*s + 1).min(max),
                    _ if down => *s = s.saturating_sub(1),
                    PageUp => *s = (*s + page).min(max),
                    PageDown => *s = s.saturating_sub(page),
                    Home | Char('g') => *s = max,
                    End | Char('G') => *s = 0,
                    _ => return false,
                }
            }
        }
        true
    }

    fn edit_key(&mut self, k: KeyEvent) {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        let Some(e) = self.editor.as_mut() else {
            return;
        };
        match k.code {
            KeyCode::Esc => {
                self.editor = None;
                self.history.reset();
            }
            KeyCode::Enter => {
                let line = e.text().to_string();
                self.editor = None;
                self.run_typed(&line);
            }
            KeyCode::Backspace => {
                if e.text().is_empty() {
                    self.editor = None;
                } else {
                    e.backspace();
                }
            }
            KeyCode::Delete => e.delete(),
            KeyCode::Left => e.move_by(-1),
            KeyCode::Right => e.move_by(1),
            KeyCode::Home => e.home(),
            KeyCode::End => e.end(),
            KeyCode::Char('a') if ctrl => e.home(),
            KeyCode::Char('e') if ctrl => e.end(),
            KeyCode::Char('w') if ctrl => e.delete_word(),
            KeyCode::Char('u') if ctrl => e.set(""),
            KeyCode::Up => {
                let cur = e.text().to_string();
                if let Some(h) = self.history.older(&cur) {
                    let h = h.to_string();
                    e.set(&h);
                }
            }
            KeyCode::Down => {
                if let Some(h) = self.history.newer() {
                    let h = h.to_string();
                    e.set(&h);
                }
            }
            KeyCode::Tab => {
                let c = completion::complete(e.before_cursor(), &self.words);
                e.replace_before_cursor(&c.line);
                match c.candidates.len() {
                    0 => self.complain("No completions."),
                    1 => self.message = None,
                    n => {
                        let shown: Vec<&str> =
                            c.candidates.iter().take(12).map(String::as_str).collect();
                        let more = if n > 12 {
                            format!(" ... ({n} in all)")
                        } else {
                            String::new()
                        };
                        self.say(format!("{}{more}", shown.join("  ")));
                    }
                }
            }
            KeyCode::Char(c) if !ctrl => e.insert(&c.to_string()),
            _ => {}
        }
    }

    /// Handles a mouse event: a click focuses the pane under it and selects the wave,
    /// lane, line or entry there; the wheel moves in the pane under the pointer.
    pub fn on_mouse(&mut self, m: MouseEvent) {
        let Some(hit) = self.hits.at(m.column, m.row) else {
            return;
        };
        match m.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                self.focus = hit.pane;
                if self.help {
                    self.help = false;
                }
                let Some(item) = hit.item else { return };
                match hit.pane {
                    Pane::Code => self.code_cursor = item.min(self.code.len().saturating_sub(1)),
                    Pane::Breakpoints => self.bp_cursor = item,
                    Pane::Waves | Pane::Lanes if self.is_running() => {
                        self.complain("A run is in progress (Esc interrupts it).")
                    }
                    Pane::Waves => self.select_wave_index(item),
                    Pane::Lanes => self.select_lane(item as u8),
                    _ => {}
                }
            }
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let code = if m.kind == MouseEventKind::ScrollDown {
                    KeyCode::Down
                } else {
                    KeyCode::Up
                };
                let focus = self.focus;
                self.focus = hit.pane;
                if !matches!(hit.pane, Pane::Waves | Pane::Lanes) {
                    self.navigate(KeyEvent::new(code, KeyModifiers::NONE));
                }
                self.focus = focus;
            }
            _ => {}
        }
    }
}

/// The status line for a stop: the stop's description on one line.
fn stop_status(e: &Engine, stop: &StopEvent) -> (String, StatusKind) {
    let text = view::describe_stop(e, stop);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let kind = match stop.reason {
        StopReason::Breakpoint { .. }
        | StopReason::Watchpoint(_)
        | StopReason::BreakInstruction => StatusKind::Hit,
        StopReason::Finished => StatusKind::Finished,
        StopReason::Fault(_)
        | StopReason::Deadlock(_)
        | StopReason::Blocked(_)
        | StopReason::Terminated(_)
        | StopReason::ConditionError { .. } => StatusKind::Problem,
        StopReason::Step | StopReason::Reached(_) | StopReason::Interrupted => StatusKind::Stopped,
    };
    (lines.join("  |  "), kind)
}

/// The v registers the kernel names, in order (every register if it names none).
fn kernel_vregs(code: &[CodeLine]) -> Vec<usize> {
    let mut used = [false; VREGS];
    for l in code {
        let b = l.text.as_bytes();
        for i in 0..b.len() {
            let starts = b[i] == b'v' && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
            if !starts {
                continue;
            }
            let digits: String = l.text[i + 1..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            let ends = b
                .get(i + 1 + digits.len())
                .is_none_or(|c| !c.is_ascii_alphanumeric() && *c != b'.');
            if let (Ok(r), true) = (digits.parse::<usize>(), ends) {
                if r < VREGS {
                    used[r] = true;
                }
            }
        }
    }
    let regs: Vec<usize> = (0..VREGS).filter(|r| used[*r]).collect();
    if regs.is_empty() {
        (0..VREGS).collect()
    } else {
        regs
    }
}

/// Parses `v1 v4 v9-v12` (empty: every register).
fn parse_regs(text: &str) -> Result<Vec<usize>, String> {
    if text.trim().is_empty() {
        return Ok((0..VREGS).collect());
    }
    let reg = |s: &str| -> Result<usize, String> {
        s.trim()
            .strip_prefix('v')
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n < VREGS)
            .ok_or_else(|| format!("lanes: `{s}` is not a v register (v0-v{})", VREGS - 1))
    };
    let mut out = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || c == ',') {
        if word.is_empty() {
            continue;
        }
        match word.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (reg(a)?, reg(b)?);
                out.extend(a.min(b)..=a.max(b));
            }
            None => out.push(reg(word)?),
        }
    }
    Ok(out)
}

fn regs_text(regs: &[usize]) -> String {
    if regs.len() == VREGS {
        return "all v registers".into();
    }
    regs.iter()
        .map(|r| format!("v{r}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Opens `path` for a test or a benchmark: the demo kernel when `None`.
pub fn demo_engine(path: Option<&Path>) -> Result<Engine, String> {
    let program = match path {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| e.to_string())?;
            wavedbg_emulator::asm::assemble(&text, &p.display().to_string(), None)
                .map_err(|e| e.to_string())?
        }
        None => wavedbg_emulator::demo::program(),
    };
    let mut e = Engine::new(&program, Default::default()).map_err(|e| e.to_string())?;
    let name = path.map_or(wavedbg_emulator::demo::NAME.to_string(), |p| {
        p.display().to_string()
    });
    e.set_kernel_path(&name);
    Ok(e)
}
