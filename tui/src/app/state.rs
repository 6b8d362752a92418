//! [`App`], the whole debugger state, and the types it is made of (panes, disassembly
//! lines, console lines, the status line).

use std::path::Path;

use wavedbg_emulator::debug::driver::Driver;
use wavedbg_emulator::debug::session::Recorder;
use wavedbg_emulator::debug::view;
use wavedbg_emulator::debug::{Engine, KernelSource};
use wavedbg_emulator::disasm;
use wavedbg_emulator::machine::Machine;
use wavedbg_emulator::memory::Space;

use super::activity::Activity;
use super::lanes::kernel_vregs;
use super::source::{printable, SourceView};
use crate::completion::Words;
use crate::editor::LineEditor;
use crate::history::History;
use crate::hits::HitMap;
pub use crate::pane::{CodeLayout, Pane};
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

/// Console lines kept (older ones are dropped, and the console says how many).
pub const CONSOLE_MAX: usize = 10_000;

/// The whole debugger state.
pub struct App {
    /// The engine (while a job runs: the state before it, shown until the job ends).
    pub engine: Engine,
    /// The machine to compare with for change highlighting (the state before the last
    /// command that ran the machine).
    pub baseline: Machine,
    /// The disassembly.
    pub code: Vec<CodeLine>,
    /// The kernel's source, or why there is none.
    pub source: Result<SourceView, String>,
    /// Which code views show.
    pub layout: CodeLayout,
    /// The focused pane.
    pub focus: Pane,
    /// Whether the focused pane is maximised (`z`).
    pub zoom: bool,
    /// The pane to focus again when the console's zoom (`o`) ends.
    pub(super) zoom_return: Option<Pane>,
    /// Cursor in the disassembly (index into `code`).
    pub code_cursor: usize,
    /// Cursor in the source (a 0-based line index).
    pub source_cursor: usize,
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
    /// Rows (of wrapped lines) scrolled up from the bottom of the console.
    pub console_scroll: usize,
    /// Console lines dropped from the start (beyond [`CONSOLE_MAX`]).
    pub console_dropped: usize,
    /// How many rows each console line wraps to, kept between frames (lines only come
    /// at the end and go at the start, so a frame wraps only the new ones).
    pub console_rows: std::cell::RefCell<crate::ui::ConsoleRows>,
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
    /// Asking whether to restart the launch.
    pub confirm_restart: bool,
    /// Each resident wave's active lanes over its last instructions.
    pub activity: Activity,
    /// Set when the user quits.
    pub quit: bool,
    /// The job in progress.
    pub job: Option<Job>,
    pub(super) job_before: Option<Machine>,
    /// The command path: what Enter repeats, and the `--record` script.
    pub(super) driver: Driver,
    /// What the last frame drew where (for mouse clicks and page sizes).
    pub hits: HitMap,
}

impl App {
    /// Sets up the state for `engine`: loads the history, opens the `--record` script.
    pub fn new(engine: Engine, options: &TuiOptions) -> Result<App, TuiError> {
        let driver = match &options.record {
            Some(p) => Driver::recording(Recorder::create(p, &engine).map_err(|error| {
                TuiError::Record {
                    path: p.clone(),
                    error,
                }
            })?),
            None => Driver::new(),
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
            "{}: {} resident, {} of {} lanes. Press ? for help.",
            engine.kernel_path().unwrap_or("kernel"),
            view::count(m.waves.len() as u64, "wave"),
            view::count(m.launch().grid as u64, "workgroup"),
            m.launch().workgroup_lanes
        );
        let source = SourceView::of(&engine);
        let layout = if source.is_ok() {
            CodeLayout::Split
        } else {
            CodeLayout::Asm
        };
        let mut activity = Activity::default();
        activity.sample(m);
        let mut app = App {
            baseline: engine.previous().clone(),
            words: Words::of(&engine, crate::completion::TUI_COMMANDS),
            engine,
            code,
            source,
            layout,
            focus: Pane::Code,
            zoom: false,
            zoom_return: None,
            code_cursor: 0,
            source_cursor: 0,
            lane_regs: default_regs,
            lane_offset: 0,
            regs_scroll: 0,
            mem_space: Space::Global,
            mem_cursor: [first_global, 0, 0],
            bp_cursor: 0,
            console: Vec::new(),
            console_scroll: 0,
            console_dropped: 0,
            console_rows: Default::default(),
            editor: None,
            history,
            message: None,
            status: (status, StatusKind::Ready),
            help: false,
            help_scroll: 0,
            confirm_quit: false,
            confirm_restart: false,
            activity,
            quit: false,
            job: None,
            job_before: None,
            driver,
            hits: HitMap::default(),
        };
        app.follow_pc();
        Ok(app)
    }

    pub(super) fn say(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: printable(&text.into()),
            error: false,
        });
    }

    pub(super) fn complain(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: printable(&text.into()),
            error: true,
        });
    }

    pub(super) fn log(&mut self, text: &str, kind: LineKind) {
        for l in text.lines() {
            self.console.push((printable(l), kind));
        }
        let excess = self.console.len().saturating_sub(CONSOLE_MAX);
        self.console.drain(..excess);
        self.console_dropped += excess;
        self.console_scroll = 0;
    }

    pub(super) fn request_quit(&mut self) {
        if self.is_running() {
            self.confirm_quit = true;
        } else {
            self.quit = true;
        }
    }

    /// Moves the disassembly cursor, and the source cursor, to the selected wave's PC.
    pub fn follow_pc(&mut self) {
        if let Some(pc) = self.selected_pc() {
            if let Some(i) = self.code_index(pc) {
                self.code_cursor = i;
            }
            if let Some(line) = self
                .source
                .as_ref()
                .ok()
                .and_then(|s| s.line_of(self.engine.machine(), pc))
            {
                self.source_cursor = line;
            }
        }
    }

    /// The panes shown (in [`Pane::ALL`] order): every pane but the code views the layout
    /// leaves out.
    pub fn shown_panes(&self) -> Vec<Pane> {
        self.layout.panes()
    }

    /// The completions of the word before the command line's cursor while it is being
    /// typed: where the word starts (in chars, after the `:`), and the candidates. `None`
    /// while the word is empty, or when an argument has none (a number); an unknown
    /// command word gives an empty list.
    pub fn completions(&self) -> Option<(usize, Vec<String>)> {
        let e = self.editor.as_ref()?;
        let before = e.before_cursor();
        let (start, candidates) = self.words.candidates(before);
        let command_word = before[..start].trim().is_empty();
        if before.len() == start || (candidates.is_empty() && !command_word) {
            return None;
        }
        Some((before[..start].chars().count(), candidates))
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

    /// Focuses `pane`, switching to a layout that shows it if the current one does not.
    pub fn focus_pane(&mut self, pane: Pane) {
        if !self.layout.shows(pane) {
            self.layout = CodeLayout::Split;
        }
        self.focus = pane;
    }
}

/// Opens `path` for a test or a benchmark: the demo kernel when `None`.
pub fn demo_engine(path: Option<&Path>) -> Result<Engine, String> {
    let source = match path {
        Some(p) => KernelSource::File(p.to_path_buf()),
        None => KernelSource::Demo,
    };
    Engine::open(source, Default::default()).map_err(|e| e.to_string())
}
