//! [`App`], the whole debugger state, and the types it is made of (panes, disassembly
//! lines, console lines, the status line).

use std::path::Path;

use wavedbg_emulator::debug::session::Recorder;
use wavedbg_emulator::debug::Engine;
use wavedbg_emulator::disasm;
use wavedbg_emulator::machine::Machine;
use wavedbg_emulator::memory::Space;

use super::lanes::kernel_vregs;
use crate::completion::Words;
use crate::editor::LineEditor;
use crate::history::History;
use crate::hits::HitMap;
pub use crate::pane::Pane;
use crate::worker::Job;
use crate::{TuiError, TuiOptions};

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

pub(super) fn space_index(s: Space) -> usize {
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
    pub(super) words: Words,
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
    pub(super) job_before: Option<Machine>,
    pub(super) recorder: Option<Recorder>,
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
        let default_regs = kernel_vregs(m);
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

    pub(super) fn say(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: false,
        });
    }

    pub(super) fn complain(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: true,
        });
    }

    pub(super) fn log(&mut self, text: &str, kind: LineKind) {
        for l in text.lines() {
            self.console.push((l.to_string(), kind));
        }
        let excess = self.console.len().saturating_sub(CONSOLE_MAX);
        self.console.drain(..excess);
        self.console_scroll = 0;
    }

    pub(super) fn request_quit(&mut self) {
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

    pub(super) fn page(&self, pane: Pane) -> usize {
        (self.hits.rows[pane.index()] as usize).max(1)
    }
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
