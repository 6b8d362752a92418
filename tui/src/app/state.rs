//! [`App`], the whole debugger state: each pane's state (in the pane's own file), and the
//! app-wide state kept here (focus, layout, the status line and messages, the help
//! overlay).

use std::path::Path;

use wavedbg_emulator::debug::driver::{Driver, Planned};
use wavedbg_emulator::debug::session::Recorder;
use wavedbg_emulator::debug::view;
use wavedbg_emulator::debug::{Engine, KernelSource};
use wavedbg_emulator::machine::Machine;

use super::activity::Activity;
use super::breakpoints::BreakpointsPane;
use super::code::CodePane;
use super::console::ConsolePane;
pub use super::console::LineKind;
use super::lanes::{kernel_vregs, LanesPane};
use super::locals::LocalsPane;
use super::memory::MemoryPane;
use super::registers::RegistersPane;
use super::search::Search;
use super::source::{printable, SourcePane};
use super::watch::WatchPane;
use crate::completion::Words;
use crate::editor::LineEditor;
use crate::history::History;
use crate::hits::HitMap;
pub use crate::pane::{CodeLayout, Pane};
use crate::worker::{Item, Job};
use crate::{TuiError, TuiOptions};

/// The kind of the status line's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusKind {
    /// Nothing has run yet, or the launch restarted (the status shows the kernel).
    Ready,
    /// A normal stop (step, reached, interrupt).
    Stopped,
    /// A breakpoint, watchpoint, sanitizer finding or `brk` stopped the run.
    Hit,
    /// Every wave exited: the launch is over (restart runs it again).
    Finished,
    /// A fault, deadlock, blocked run or condition error.
    Problem,
}

/// A one-line message under the status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// One line, printable (tabs expanded, controls shown as `?`); cut with `…` if it
    /// does not fit.
    pub text: String,
    /// Whether it reports an error (drawn in the error colour).
    pub error: bool,
}

/// One input of a batch, not yet planned: a line typed, or a command a key built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Entry {
    /// A line of the command language.
    Line(String),
    /// A command built from what the app holds.
    Command(wavedbg_emulator::debug::command::Command),
}

/// A question the driver asked ([`Plan::Confirm`](wavedbg_emulator::debug::driver::Plan::Confirm)),
/// waiting for `y` with the rest of its batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// What is asked, as the driver words it: why, then the question.
    pub text: String,
    /// The command that runs on a yes.
    pub(super) planned: Planned,
    /// What the batch planned before it: runs once it is answered, either way.
    pub(super) before: Vec<Item>,
    /// What the batch holds after it: planned once it is answered.
    pub(super) after: Vec<Entry>,
}

impl Question {
    /// The question on one line, as the line under the status line shows it: what is
    /// asked first (a narrow screen cuts the reason, not the question), then why.
    pub fn line(&self) -> String {
        let text = self.text.trim_end();
        let line = match text.rsplit_once('\n') {
            Some((why, ask)) => format!("{}  {}", ask.trim(), why.trim()),
            None => text.to_string(),
        };
        printable(&line)
    }

    /// What is asked (its last line, with its answer keys) and why (the lines before it),
    /// each on one line.
    pub fn parts(&self) -> (String, String) {
        let text = self.text.trim_end();
        match text.rsplit_once('\n') {
            Some((why, ask)) => (
                printable(ask.trim()),
                printable(&why.split_whitespace().collect::<Vec<_>>().join(" ")),
            ),
            None => (printable(text), String::new()),
        }
    }
}

/// The help overlay's state (its text is [`crate::ui::help_rows`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HelpOverlay {
    /// Whether it shows (over every pane, taking the keys).
    pub open: bool,
    /// The first help line shown (clamped when drawn).
    pub scroll: usize,
    /// The columns `scroll` counts lines at (0: whatever the overlay has): after a resize
    /// the entry that was at the top stays there ([`crate::ui::rescroll`]).
    pub room: usize,
}

/// The whole debugger state: the engine, each pane's state, and what is app-wide (focus,
/// layout, the command line, messages, the job in progress).
pub struct App {
    /// The engine (while a job runs: the state before it, shown until the job ends).
    pub engine: Engine,
    /// The machine to compare with for change highlighting (the state before the last
    /// command that ran the machine).
    pub baseline: Machine,
    /// The disassembly and its cursor.
    pub code: CodePane,
    /// The kernel's source and its cursor.
    pub source: SourcePane,
    /// The lane grid's registers and scroll.
    pub lanes: LanesPane,
    /// The registers pane's scroll through the u registers.
    pub registers: RegistersPane,
    /// The memory view's space and cursors.
    pub memory: MemoryPane,
    /// The breakpoints pane's cursor in the engine's breakpoints and watchpoints.
    pub breakpoints: BreakpointsPane,
    /// The console's lines and scroll.
    pub console: ConsolePane,
    /// The Watch pane's selected display.
    pub watch: WatchPane,
    /// The Locals pane's selected variable.
    pub locals: LocalsPane,
    /// Which code views show (`v`): disassembly, source, or both.
    pub layout: CodeLayout,
    /// The focused pane (one the layout shows).
    pub focus: Pane,
    /// Whether the focused pane is maximised (`z`).
    pub zoom: bool,
    /// The pane to focus again when the console's zoom (`o`) ends, and whether it was
    /// maximised.
    pub(super) zoom_return: Option<(Pane, bool)>,
    /// The `/` search: its prompt and the last pattern.
    pub search: Search,
    /// Set by Ctrl-Z: the event loop suspends the process (restoring the terminal first)
    /// and clears it.
    pub suspend: bool,
    /// Set by Ctrl-L: the event loop clears the terminal and draws the whole screen again.
    pub redraw: bool,
    /// The command line, while open.
    pub editor: Option<LineEditor>,
    /// The command history shared with the REPL, and where Up/Down browse in it.
    pub history: History,
    /// The completion words (the resident waves' ids change as the launch runs).
    pub(super) words: Words,
    /// The message under the status line.
    pub message: Option<Message>,
    /// The status line's text and kind.
    pub status: (String, StatusKind),
    /// Whether the help overlay shows (`?`), and its scroll.
    pub help: HelpOverlay,
    /// Asking whether to quit during a run.
    pub confirm_quit: bool,
    /// A question waiting for `y` (the driver asks before `run`, `load` or Ctrl-R throws
    /// the recorded history away).
    pub question: Option<Question>,
    /// Each resident wave's active lanes over its last instructions.
    pub activity: Activity,
    /// Set when the user quits: the event loop ends after this key.
    pub quit: bool,
    /// The commands running on the worker thread (`None`: the engine is idle here).
    pub job: Option<Job>,
    /// The machine before the running job: the change baseline once it stops.
    pub(super) job_before: Option<Machine>,
    /// The command path: what Enter repeats, and the `--record` script (dropped after
    /// a write failed).
    pub(super) driver: Driver,
    /// What the last frame drew where (for mouse clicks and page sizes).
    pub hits: HitMap,
    /// Why the `--record` script stopped (a write failed): the status line marks it.
    pub recording_lost: Option<String>,
    /// Keys, lines and pastes typed while a run has the engine, waiting for it to stop.
    pub typeahead: super::typeahead::TypeAhead,
}

impl App {
    /// Sets up the state for `engine`: loads the history, opens the `--record` script.
    pub fn new(engine: Engine, options: &TuiOptions) -> Result<App, TuiError> {
        // The user answers questions at once (y or n on the line under the status line).
        let driver = match &options.record {
            Some(p) => Driver::recording(Recorder::create(p, &engine)?),
            None => Driver::new(),
        }
        .asking(true);
        let history = if options.history.as_os_str().is_empty() {
            History::in_memory()
        } else {
            History::load(&options.history)
        };
        let m = engine.machine();
        let code = CodePane::of(m);
        let lanes = LanesPane {
            regs: kernel_vregs(m),
            offset: 0,
        };
        let first_global = m.global.allocations().first().map_or(0, |a| a.base);
        let status = format!(
            "{}: {} resident, {} of {} lanes. Press ? for help.",
            engine.kernel_path().unwrap_or("kernel"),
            view::count(m.waves.len() as u64, "wave"),
            view::count(m.launch().grid as u64, "workgroup"),
            m.launch().workgroup_lanes
        );
        let source = SourcePane::of(&engine, &code);
        let layout = if source.missing().is_none() {
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
            lanes,
            registers: RegistersPane::default(),
            memory: MemoryPane::new(first_global),
            breakpoints: BreakpointsPane::default(),
            console: ConsolePane::default(),
            watch: WatchPane::default(),
            locals: LocalsPane::default(),
            focus: Pane::Code,
            zoom: false,
            zoom_return: None,
            search: Search::default(),
            suspend: false,
            redraw: false,
            editor: None,
            history,
            message: None,
            status: (status, StatusKind::Ready),
            help: HelpOverlay::default(),
            confirm_quit: false,
            question: None,
            activity,
            quit: false,
            job: None,
            job_before: None,
            driver,
            hits: HitMap::default(),
            typeahead: Default::default(),
            recording_lost: None,
        };
        app.follow_pc();
        Ok(app)
    }

    /// Shows `text` under the status line.
    pub(super) fn say(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: printable(&text.into()),
            error: false,
        });
    }

    /// Shows `text` under the status line as an error.
    pub(super) fn complain(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: printable(&text.into()),
            error: true,
        });
    }

    /// Appends `text` to the console (see [`ConsolePane::push`]).
    pub(super) fn log(&mut self, text: &str, kind: LineKind) {
        self.console.push(text, kind);
    }

    /// `q`: quits, or during a run asks first.
    pub(super) fn request_quit(&mut self) {
        if self.is_running() {
            self.confirm_quit = true;
        } else {
            self.quit = true;
        }
    }

    /// Moves the disassembly cursor, and the source cursor, to the selected wave's PC (in
    /// the higher-level file of its line).
    pub fn follow_pc(&mut self) {
        self.show_pc_file();
        if let Some(pc) = self.selected_pc() {
            if let Some(i) = self.code.index_of(pc) {
                self.code.cursor = i;
            }
            if let Some(row) = self.source_row_of(pc) {
                self.source.cursor = row;
            }
        }
    }

    /// The panes shown (in [`Pane::ALL`] order): every pane but the code views the layout
    /// leaves out, the Watch pane while there are no displays and the Locals pane for a
    /// kernel without variables (each unless focused).
    pub fn shown_panes(&self) -> Vec<Pane> {
        let mut panes = self.layout.panes();
        panes.retain(|p| match p {
            Pane::Watch => self.watch_shown(),
            Pane::Locals => self.locals_shown(),
            _ => true,
        });
        panes
    }

    /// Whether the Locals pane shows: when the kernel has variables (`.var`), or while
    /// focused.
    pub fn locals_shown(&self) -> bool {
        !self.engine.machine().program().source_info.vars.is_empty() || self.focus == Pane::Locals
    }

    /// Whether the Watch pane shows: while there are displays, or while focused.
    pub fn watch_shown(&self) -> bool {
        !self.engine.displays().is_empty() || self.focus == Pane::Watch
    }

    /// The completions of the word before the command line's cursor while it is being
    /// typed: where the word starts (in chars, after the `:`), and the candidates
    /// ([`crate::completion::shown`] says when there are none to show).
    pub fn completions(&self) -> Option<(usize, Vec<String>)> {
        let e = self.editor.as_ref()?;
        crate::completion::shown(e.before_cursor(), &self.words)
    }

    /// The selected wave's PC (a byte address); `None` when no wave is resident.
    pub fn selected_pc(&self) -> Option<u64> {
        self.engine
            .machine()
            .waves
            .get(self.engine.selected_wave)
            .map(|w| w.pc)
    }

    /// The rows `pane` showed in the last frame (at least 1): what PgUp/PgDn move.
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
