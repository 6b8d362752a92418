//! The debug engine: one API and one typed stop event for every front end (TUI, REPL,
//! replay scripts, the GDB server). It runs the machine under breakpoints (per-lane
//! conditions, filters, ignore counts), exact watchpoints on global, shared and scratch
//! byte ranges, stepping with or without scheduler locking, and interrupts from another
//! thread; the command language ([`command`]) parses into typed commands that run here.

pub mod breakpoint;
mod checks;
pub mod command;
pub mod completion;
pub mod context;
mod control;
pub mod driver;
mod edit;
mod error;
pub mod expr;
pub mod findings;
mod handle;
mod history;
mod lines;
mod locals;
mod open;
pub mod panes;
mod points;
mod run;
pub mod session;
mod source;
pub mod source_view;
mod stop;
pub mod view;
mod visit;
pub mod width;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::machine::{LaunchError, LaunchOptions, Machine};
use crate::program::Program;
use breakpoint::{Breakpoint, Watchpoint};
pub use edit::RegisterWrite;
pub use error::EngineError;
pub use handle::{InterruptHandle, Progress, ProgressHandle};
pub use history::{History, HistoryInfo, LastWrite, WriteTarget, DEFAULT_HISTORY_BYTES};
pub use lines::SourcePlace;
pub use locals::Local;
pub use open::{
    load_kernel, load_program, load_program_with, KernelSource, OpenError, DEMO_PREFIX,
};
pub use run::{CommandOutput, ExpectOutcome, Output, PointRow, WaveRow};
pub use source::NoSource;
pub use stop::{Blocked, Reached, StopEvent, StopReason, Terminated, WatchHit, AT_BARRIER_HINT};
pub use visit::{FindingSide, VisitError};

/// The debugger engine.
#[derive(Debug, Clone)]
pub struct Engine {
    machine: Machine,
    last_stop: Machine,
    breakpoints: Vec<Breakpoint>,
    watchpoints: Vec<Watchpoint>,
    next_id: u32,
    /// Per code word: the indexes of the enabled breakpoints there (empty: none), so the
    /// hot loop pays one indexed load per instruction however many breakpoints exist.
    armed: Vec<Vec<usize>>,
    /// Selected wave (index into the machine's waves).
    pub selected_wave: usize,
    /// Selected lane.
    pub selected_lane: u8,
    /// `set scheduler-locking on`: stepping moves only the selected wave.
    pub scheduler_locking: bool,
    /// Whether a breakpoint or watchpoint stop selects the first lane that hit it (as the
    /// REPL and TUI show a stop); off where the lane is the client's own selection (the
    /// GDB server's `$lane`).
    lane_follows_stops: bool,
    interrupt: Arc<AtomicBool>,
    /// Set when a stop consumed an interrupt request without being the interrupted stop
    /// (its run ended for another reason first): a command made of several resumptions
    /// (a range step over barriers) looks at it between them, so the request is not lost.
    interrupt_taken: bool,
    progress: ProgressHandle,
    /// The wave and PC of the breakpoint we stopped at: resuming steps over it once.
    resume_over: Option<(usize, u64)>,
    /// The launch's instruction count when the current resume began (see
    /// [`Engine::finish`]: a deadlock reached with nothing run is reported as such).
    resume_start: Option<u64>,
    last: Option<StopEvent>,
    /// Expressions shown after every stop (`display`).
    displays: Vec<command::DisplaySpec>,
    /// Every command run through [`Engine::run`] or [`Engine::run_as`], as text, for
    /// sessions and replay (at most [`MAX_LOG`]).
    log: Vec<String>,
    /// Commands run after the log was full.
    log_dropped: u64,
    /// The kernel's path as the front end opened it (recorded in sessions).
    kernel_path: Option<String>,
    /// A register was written since the last resume: the next snapshot is a full copy
    /// (an incremental one only sees what execution changed).
    edited: bool,
    /// The time-travel record of this launch.
    history: History,
    /// The previous `last-write` target and answer (a repeat walks further back).
    last_write_walk: Option<(WriteTarget, u64)>,
    /// Where the last `x` ended (Enter continues from there).
    next_examine: Option<(crate::memory::Space, u64)>,
    /// Where the last `x/i` ended (Enter continues from there).
    next_code: Option<u64>,
    /// The sanitizer's detectors (applied again at every restart).
    checks: crate::check::Checks,
    /// The kernel's source file name and text, when readable (findings quote it).
    source: Option<(String, String)>,
    /// The source lines the last `list` showed (first, last), 1-based: `list` goes on
    /// after them; a stop or another wave forgets them.
    list_last: Option<(u32, u32)>,
    /// `set context` and `set context-sections`.
    context: context::ContextSettings,
    /// The rounds the last `step_all` completed.
    step_rounds: u64,
    /// `set confirm`: whether an interactive front end asks before throwing the recorded
    /// history away.
    confirm: bool,
    /// How the front ends' panes show values (`set format`, `set memory-unit`, `set
    /// split`), kept in the session.
    panes: panes::PaneSettings,
    /// `set width`: the columns output is fitted to, 0 for unlimited (see [`width`]).
    width: usize,
    /// Whether `set width` chose [`Engine::width`], which a terminal's width then leaves
    /// alone ([`Engine::set_terminal_width`]).
    width_chosen: bool,
    /// The numbers of the temporary breakpoints their stop deleted (numbers are never
    /// reused), so that stop says "Temporary breakpoint N" as gdb does.
    temporary_hits: Vec<u32>,
    /// The findings at the end of the recorded history, kept when the machine goes into
    /// the past (whose sanitizer has only the findings made before it), so `finding N`
    /// numbers them as `info findings` at the end did.
    findings_at_end: Vec<crate::check::Finding>,
    /// The higher-level source files of the kernel's line table, as read.
    line_sources: lines::LineSources,
}

/// The most commands the engine's log keeps (sessions save it for replay).
pub const MAX_LOG: usize = 100_000;

/// The narrowest output `set width` (or a terminal) fits to: 40 columns hold a lane
/// table's row of two 64-bit values and the context's headers without cutting a number.
pub const MIN_WIDTH: usize = 40;

impl Engine {
    /// Launches `program` under the debugger.
    pub fn new(program: &Program, options: LaunchOptions) -> Result<Engine, LaunchError> {
        let mut machine = Machine::new(program, options)?;
        machine.break_is_fault = false;
        let armed = vec![Vec::new(); machine.code().len()];
        let history = History::new(&mut machine, DEFAULT_HISTORY_BYTES);
        let mut engine = Engine {
            last_stop: machine.clone(),
            machine,
            breakpoints: Vec::new(),
            watchpoints: Vec::new(),
            next_id: 1,
            armed,
            selected_wave: 0,
            selected_lane: 0,
            scheduler_locking: true,
            lane_follows_stops: true,
            interrupt: Arc::new(AtomicBool::new(false)),
            interrupt_taken: false,
            progress: ProgressHandle::default(),
            resume_over: None,
            resume_start: None,
            last: None,
            displays: Vec::new(),
            log: Vec::new(),
            log_dropped: 0,
            kernel_path: None,
            edited: false,
            history,
            last_write_walk: None,
            next_examine: None,
            next_code: None,
            checks: crate::check::Checks::default(),
            source: None,
            list_last: None,
            context: context::ContextSettings::default(),
            step_rounds: 0,
            confirm: true,
            panes: panes::PaneSettings::default(),
            width: 0,
            width_chosen: false,
            temporary_hits: Vec::new(),
            findings_at_end: Vec::new(),
            line_sources: lines::LineSources::default(),
        };
        engine.load_line_sources(program.source.as_deref());
        Ok(engine)
    }

    /// The machine (read-only: front ends inspect it).
    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// The machine as it was at the previous stop (for change highlighting).
    pub fn previous(&self) -> &Machine {
        &self.last_stop
    }

    /// The last stop, if any.
    pub fn last_stop(&self) -> Option<&StopEvent> {
        self.last.as_ref()
    }

    /// A handle to read a run's progress from another thread.
    pub fn progress_handle(&self) -> ProgressHandle {
        self.progress.clone()
    }

    /// A handle to interrupt a run from another thread.
    pub fn interrupt_handle(&self) -> InterruptHandle {
        InterruptHandle(self.interrupt.clone())
    }

    /// Who made breakpoint or watchpoint `id` (`None`: no such point).
    pub fn point_owner(&self, id: u32) -> Option<&breakpoint::Owner> {
        self.breakpoints
            .iter()
            .find(|b| b.id == id)
            .map(|b| &b.owner)
            .or_else(|| {
                self.watchpoints
                    .iter()
                    .find(|w| w.id == id)
                    .map(|w| &w.owner)
            })
    }

    /// Breakpoints, in creation order.
    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.breakpoints
    }

    /// Watchpoints, in creation order.
    pub fn watchpoints(&self) -> &[Watchpoint] {
        &self.watchpoints
    }

    /// Selects a wave by global id.
    pub fn select_wave(&mut self, id: u32) -> Result<(), EngineError> {
        self.selected_wave = self
            .machine
            .wave_index(id)
            .ok_or_else(|| EngineError::NoWave {
                id,
                resident: self.machine.waves.iter().map(|w| w.id).collect(),
            })?;
        // `list` starts again from the new wave's PC.
        self.list_last = None;
        Ok(())
    }

    /// Whether stops move the selected lane to a lane that hit (on by default); a front
    /// end whose user selects the lane alone (the GDB server's `$lane`) turns it off.
    pub fn set_lane_follows_stops(&mut self, on: bool) {
        self.lane_follows_stops = on;
    }

    /// Selects a lane.
    pub fn select_lane(&mut self, lane: u32) -> Result<(), EngineError> {
        if lane >= 32 {
            return Err(EngineError::LaneOutOfRange(lane as u64));
        }
        self.selected_lane = lane as u8;
        Ok(())
    }

    /// Launches the program again with other launch options (a session's), keeping
    /// breakpoints, watchpoints and displays.
    pub fn relaunch(&mut self, options: LaunchOptions) -> Result<(), LaunchError> {
        let mut machine = Machine::new(&self.machine.program().clone(), options)?;
        machine.break_is_fault = false;
        self.history = History::new(&mut machine, self.history.info(0).limit);
        self.restart();
        Ok(())
    }

    /// Records the kernel's path (for sessions), and reads its source again for `list`
    /// and findings ([`Engine::open`] keeps the text it assembled instead).
    pub fn set_kernel_path(&mut self, path: &str) {
        // Best effort: an object file or an unreadable one simply has no source to quote.
        // The built-in demo's source is compiled in.
        let text = if path == crate::demo::NAME {
            Some(crate::demo::SOURCE.to_string())
        } else {
            (!path.ends_with(".wko"))
                .then(|| {
                    crate::files::reread_text(
                        std::path::Path::new(path),
                        crate::files::KERNEL_SOURCE,
                    )
                })
                .flatten()
        };
        self.set_kernel(path, text);
    }

    /// Records the kernel's path and its source text (`None`: no source to show).
    fn set_kernel(&mut self, path: &str, text: Option<String>) {
        self.kernel_path = Some(path.to_string());
        self.source = text.map(|t| (path.to_string(), t));
        self.load_line_sources(Some(path));
    }

    /// The kernel's path, if the front end gave one.
    pub fn kernel_path(&self) -> Option<&str> {
        self.kernel_path.as_deref()
    }

    /// The higher-level source files the kernel was compiled from (its `.file`s, beside
    /// the kernel's file): like the kernel, never written over by `save`, `--record` or
    /// a replay's golden file.
    pub fn source_paths(&self) -> Vec<std::path::PathBuf> {
        let kernel = self.kernel_path().map(std::path::Path::new);
        self.machine().program().source_info.paths_beside(kernel)
    }

    /// The command lines run so far (the first [`MAX_LOG`]).
    pub fn log(&self) -> &[String] {
        &self.log
    }

    /// Whether more commands ran than the log keeps.
    pub fn log_truncated(&self) -> bool {
        self.log_dropped > 0
    }

    /// Appends to the command log, which is bounded: a session driven by a script for
    /// days must not grow without limit.
    fn record_command(&mut self, line: &str) {
        if self.log.len() < MAX_LOG {
            self.log.push(line.to_string());
        } else {
            self.log_dropped += 1;
        }
    }

    /// The display expressions, in the order `info display` numbers them from 1.
    pub fn displays(&self) -> &[command::DisplaySpec] {
        &self.displays
    }

    /// Restarts the launch from the beginning, keeping breakpoints and watchpoints.
    pub fn restart(&mut self) {
        // The launch state is the history's first snapshot, which is never dropped.
        self.history.restart();
        if let Some(launch) = self.history.launch_copy() {
            self.machine = launch;
        }
        self.machine.break_is_fault = false;
        self.last_stop = self.machine.clone();
        self.resume_over = None;
        self.last = None;
        self.selected_wave = 0;
        self.list_last = None;
        self.breakpoints.iter_mut().for_each(|b| b.hits = 0);
        self.watchpoints.iter_mut().for_each(|w| w.hits = 0);
        self.rearm();
        self.apply_checks();
    }

    /// Whether breakpoint `id` was a temporary one that its stop deleted (`tbreak`).
    pub fn was_temporary(&self, id: u32) -> bool {
        self.temporary_hits.contains(&id)
    }

    /// `set confirm on|off` (on by default, as in gdb): whether a front end whose user
    /// answers questions asks before a command that throws away the recorded history
    /// (`run`, `load`); the driver decides when to ask ([`driver::Driver::plan`]).
    pub fn confirm(&self) -> bool {
        self.confirm
    }

    /// How the front ends' panes show values (`set format`, `set memory-unit`, `set
    /// split`); kept in the session.
    pub fn panes(&self) -> &panes::PaneSettings {
        &self.panes
    }

    /// `set width N`: the columns command output is fitted to (lane tables reflow, help
    /// wraps, long lines wrap at spaces or, in the context, are cut with `…`); 0, the
    /// default, is unlimited and leaves the output as it has always been. A width below
    /// [`MIN_WIDTH`] (asked for, or a terminal that narrow) fits to [`MIN_WIDTH`]: narrower,
    /// a lane table or the context would have to cut its numbers.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Sets the width output is fitted to (0: unlimited), at least [`MIN_WIDTH`].
    fn fit_to(&mut self, columns: usize) {
        self.width = match columns {
            0 => 0,
            n => n.max(MIN_WIDTH),
        };
    }

    /// A front end on a terminal gives its width before each command (so a resize
    /// applies); it is used unless the user chose a width with `set width`, which wins for
    /// the rest of the session (`set width 0`: unlimited).
    pub fn set_terminal_width(&mut self, columns: usize) {
        if !self.width_chosen {
            self.fit_to(columns);
        }
    }

    /// Selects a wave by its index in the machine's waves (front ends that number waves by
    /// index, such as the GDB server's threads).
    pub fn select_wave_index(&mut self, w: usize) -> Result<(), EngineError> {
        if w >= self.machine.waves.len() {
            return Err(EngineError::NoWaveIndex(w));
        }
        if w != self.selected_wave {
            self.list_last = None;
        }
        self.selected_wave = w;
        Ok(())
    }
}
