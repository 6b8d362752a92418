//! Sessions: a debugging session saved as RON (kernel, launch settings and seed,
//! breakpoints, watchpoints, displays, selection, and the log of commands run), written
//! atomically and read back with line and column in every error.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::breakpoint::{Filters, Owner, Scope, WatchKind};
use super::command::{parse_display, parse_location};
use super::expr::ParsedExpr;
use super::{Engine, EngineError};
use crate::files::{self, ReadError, WriteError};
use crate::machine::LaunchOptions;

/// The session format's version; a file with another is refused.
pub const SESSION_VERSION: u32 = 1;

/// A breakpoint as saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BreakpointSpec {
    /// Location as written (`loop`, `0x40`).
    pub location: String,
    /// Condition as written after `if`; `None` for an unconditional breakpoint.
    pub condition: Option<String>,
    /// Its `wave`, `workgroup` and `lane` clauses.
    pub filters: Filters,
    /// `tbreak`: deleted after its first stop.
    pub temporary: bool,
    /// `false` when saved disabled; it is restored disabled.
    pub enabled: bool,
    /// Hits still to ignore (the count left from `ignore N COUNT`).
    pub ignore: u32,
}

/// A watchpoint as saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchpointSpec {
    /// Which accesses trigger it (`watch`, `rwatch`, `awatch`).
    pub kind: WatchKind,
    /// The space and which instance of it: a workgroup's shared memory, a lane's scratch.
    pub scope: Scope,
    /// First watched byte: a global address, or an offset in the shared window or scratch.
    pub addr: u64,
    /// Watched length in bytes (at least 1).
    pub len: u64,
    /// Value condition as written after `if`, if any.
    pub condition: Option<String>,
    /// `false` when saved disabled; it is restored disabled.
    pub enabled: bool,
}

/// A saved debugging session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// [`SESSION_VERSION`].
    pub format_version: u32,
    /// The kernel's path as opened.
    pub kernel: String,
    /// Launch settings, including the scheduling seed.
    pub launch: LaunchOptions,
    /// Breakpoints in number order, re-set in that order when the session is loaded.
    pub breakpoints: Vec<BreakpointSpec>,
    /// Watchpoints in number order, re-set in that order when the session is loaded.
    pub watchpoints: Vec<WatchpointSpec>,
    /// `display` expressions as written, in the order they were added.
    pub displays: Vec<String>,
    /// Selected wave (global id).
    pub selected_wave: u32,
    /// Selected lane, 0-31.
    pub selected_lane: u8,
    /// `set scheduler-locking`: when on (the default), `stepi` advances the selected wave alone.
    pub scheduler_locking: bool,
    /// The sanitizer's detectors (sessions written before they existed have none on).
    #[serde(default)]
    pub checks: crate::check::Checks,
    /// How the front ends' panes show values (absent in older sessions: the defaults).
    #[serde(default)]
    pub panes: super::panes::PaneSettings,
    /// Every command run, in order (replayable with `wavedbg replay`).
    pub log: Vec<String>,
}

/// Why a session could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The file could not be read, or is larger than [`files::SESSION`].
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The file could not be written (or may not be: see [`files::write_file`]).
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The session could not be written as RON.
    #[error("cannot serialise the session: {0}")]
    Serialize(String),
    /// Malformed or truncated RON.
    #[error("{path}:{line}:{col}: not a valid session: {message}")]
    Parse {
        /// The path as given.
        path: String,
        /// Line (1-based).
        line: usize,
        /// Column (1-based).
        col: usize,
        /// What the parser said.
        message: String,
    },
    /// Written by another version.
    #[error("{path}: session format version {found} is not supported (this wavedbg reads version {SESSION_VERSION})")]
    Version {
        /// The path as given.
        path: String,
        /// The `format_version` in the file (not [`SESSION_VERSION`]).
        found: u32,
    },
    /// The session does not fit the kernel (a breakpoint location that no longer exists...).
    #[error("{path}: {message}")]
    Apply {
        /// The path as given.
        path: String,
        /// What could not be applied, e.g. a breakpoint location the kernel no longer has.
        message: String,
    },
}

impl Session {
    /// Captures the engine's session.
    pub fn capture(e: &Engine) -> Session {
        let m = e.machine();
        Session {
            format_version: SESSION_VERSION,
            kernel: e.kernel_path().unwrap_or_default().to_string(),
            launch: *m.options(),
            breakpoints: e
                .breakpoints()
                .iter()
                // A GDB client's points belong to its connection, not to the session.
                .filter(|b| b.owner == Owner::User)
                .map(|b| BreakpointSpec {
                    location: b.location.to_string(),
                    condition: b.condition.as_ref().map(|c| c.text.clone()),
                    filters: b.filters,
                    temporary: b.temporary,
                    enabled: b.enabled,
                    ignore: b.ignore,
                })
                .collect(),
            watchpoints: e
                .watchpoints()
                .iter()
                .filter(|w| w.owner == Owner::User)
                .map(|w| WatchpointSpec {
                    kind: w.kind,
                    scope: w.scope,
                    addr: w.addr,
                    len: w.len,
                    condition: w.condition.as_ref().map(|c| c.text.clone()),
                    enabled: w.enabled,
                })
                .collect(),
            displays: e.displays().iter().map(|d| d.to_string()).collect(),
            selected_wave: m.waves.get(e.selected_wave).map_or(0, |w| w.id),
            selected_lane: e.selected_lane,
            scheduler_locking: e.scheduler_locking,
            checks: e.checks(),
            panes: *e.panes(),
            log: e.log().to_vec(),
        }
    }

    /// RON text; an error rather than an empty text (which would be saved as an empty
    /// file).
    pub fn to_ron(&self) -> Result<String, SessionError> {
        let cfg = ron::ser::PrettyConfig::new().depth_limit(3);
        ron::ser::to_string_pretty(self, cfg).map_err(|e| SessionError::Serialize(e.to_string()))
    }

    /// Parses RON text; `path` names it in errors.
    pub fn from_ron(text: &str, path: &str) -> Result<Session, SessionError> {
        // Check the version first, so a future file gets the version message rather than a
        // complaint about a field it added.
        let spanned = |e: ron::error::SpannedError| SessionError::Parse {
            path: path.to_string(),
            line: e.span.start.line,
            col: e.span.start.col,
            message: crate::clip_quoted(e.code.to_string()),
        };
        let opts = ron::Options::default();
        if let Ok(probe) = opts.from_str::<VersionProbe>(text) {
            if let Some(v) = probe.format_version {
                if v != SESSION_VERSION {
                    return Err(SessionError::Version {
                        path: path.to_string(),
                        found: v,
                    });
                }
            }
        }
        let s: Session = opts.from_str(text).map_err(spanned)?;
        if s.format_version != SESSION_VERSION {
            return Err(SessionError::Version {
                path: path.to_string(),
                found: s.format_version,
            });
        }
        Ok(s)
    }

    /// Writes the session with [`files::write_file`]: atomically (a temporary file beside
    /// the target, then a rename), so an interrupted save never leaves a broken file; never
    /// over the kernel itself. The kernel's path is written relative to the session file's
    /// folder, so the session opens from any directory.
    /// `sources`: the kernel's higher-level source files, never written over either.
    pub fn save(&self, path: &Path, sources: &[PathBuf]) -> Result<(), SessionError> {
        let mut s = self.clone();
        s.kernel = path_for_file(&self.kernel, path);
        let inputs = kernel_inputs(&self.kernel, sources);
        files::write_file(path, s.to_ron()?.as_bytes(), &inputs)?;
        Ok(())
    }

    /// Whether this session (read from `file`) is one of the kernel opened as `kernel`:
    /// the same file, however the two paths are spelled.
    pub fn is_for_kernel(&self, file: &Path, kernel: &str) -> bool {
        match self.kernel_file(file) {
            None => self.kernel.is_empty() || self.kernel == kernel,
            Some(k) => match (std::fs::canonicalize(&k), std::fs::canonicalize(kernel)) {
                (Ok(a), Ok(b)) => a == b,
                _ => k == Path::new(kernel),
            },
        }
    }

    /// The kernel this session (read from `file`) names: resolved beside the session file
    /// ([`resolve_beside`]); `None` for the built-in demo or no kernel.
    pub fn kernel_file(&self, file: &Path) -> Option<PathBuf> {
        (!self.kernel.is_empty() && !self.kernel.starts_with(super::DEMO_PREFIX))
            .then(|| resolve_beside(&self.kernel, file))
    }

    /// Reads a session file.
    pub fn load(path: &Path) -> Result<Session, SessionError> {
        let text = files::read_text(path, files::SESSION)?;
        Session::from_ron(&text, &path.display().to_string())
    }

    /// Applies the session to an engine opened on its kernel: relaunches with its launch
    /// settings and re-creates breakpoints, watchpoints, displays and the selection. On
    /// error the engine is left as it was.
    pub fn apply(&self, e: &mut Engine, path: &str) -> Result<(), SessionError> {
        let err = |message: &dyn std::fmt::Display| SessionError::Apply {
            path: path.to_string(),
            message: message.to_string(),
        };
        let mut next = e.clone();
        next.checks = self.checks;
        next.relaunch(self.launch).map_err(|x| err(&x))?;
        next.delete(None).map_err(|x| err(&x))?;
        for b in &self.breakpoints {
            let at = |m: &dyn std::fmt::Display| err(&format!("breakpoint at {}: {m}", b.location));
            let location = parse_location(&b.location).map_err(|m| at(&m))?;
            let condition = condition(b.condition.as_deref()).map_err(|m| at(&m))?;
            let id = next
                .add_breakpoint(&location, condition, b.filters, b.temporary)
                .map_err(|m| at(&m))?;
            next.set_ignore(id, b.ignore).map_err(|x| err(&x))?;
            if !b.enabled {
                next.set_enabled(id, false).map_err(|x| err(&x))?;
            }
        }
        for w in &self.watchpoints {
            let at = |m: &dyn std::fmt::Display| err(&format!("watchpoint at {:#x}: {m}", w.addr));
            let condition = condition(w.condition.as_deref()).map_err(|m| at(&m))?;
            let id = next
                .add_watchpoint(w.kind, w.scope, w.addr, w.len, condition)
                .map_err(|m| at(&m))?;
            if !w.enabled {
                next.set_enabled(id, false).map_err(|x| err(&x))?;
            }
        }
        next.displays = self
            .displays
            .iter()
            .map(|d| parse_display(d).map_err(|m| err(&format!("display `{d}`: {m}"))))
            .collect::<Result<_, _>>()?;
        // The selection names a wave of the launch and a lane of a wave, or the session is
        // refused whole, as a breakpoint that no longer fits is. A wave of the launch that
        // is not resident at its start (dispatched once a workgroup ends) selects the first
        // resident wave, as after `run`.
        next.check_in_launch(Some(self.selected_wave), None)
            .map_err(|x| err(&format!("selected_wave: {x}")))?;
        if u32::from(self.selected_lane) >= crate::wave::LANES as u32 {
            let x = EngineError::LaneOutOfRange(self.selected_lane.into());
            return Err(err(&format!("selected_lane: {x}")));
        }
        if next.select_wave(self.selected_wave).is_err() {
            next.selected_wave = 0;
        }
        next.select_lane(self.selected_lane as u32)
            .map_err(|x| err(&x))?;
        next.scheduler_locking = self.scheduler_locking;
        next.panes = self.panes;
        next.log = self.log.clone();
        *e = next;
        Ok(())
    }
}

/// A condition stored as text, parsed again.
fn condition(text: Option<&str>) -> Result<Option<super::breakpoint::Condition>, EngineError> {
    text.map(|t| {
        ParsedExpr::parse(t).map_err(|error| EngineError::BadCondition {
            text: t.to_string(),
            error,
        })
    })
    .transpose()
}

/// Reads just the version of whatever RON struct the text holds.
#[derive(Deserialize)]
struct VersionProbe {
    #[serde(default)]
    format_version: Option<u32>,
}

/// A path named inside a script or session file: as written if absolute, else relative to
/// that file's folder when it exists there, else relative to the current directory (files
/// written before paths were stored relative to their file).
pub fn resolve_beside(name: &str, file: &Path) -> PathBuf {
    let p = PathBuf::from(name);
    if p.is_absolute() {
        return p;
    }
    match file.parent().map(|d| d.join(&p)) {
        Some(b) if b.exists() => b,
        _ => p,
    }
}

/// How a file written at `file` should name `target` (a path as the user gave it,
/// relative to the current directory): relative to `file`'s folder, so that
/// [`resolve_beside`] finds it from anywhere. Names that are not files (`demo:...`, empty)
/// and paths that cannot be resolved are kept as they are.
pub fn path_for_file(target: &str, file: &Path) -> String {
    if target.is_empty() || target.starts_with(super::DEMO_PREFIX) {
        return target.to_string();
    }
    let dir = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let (Ok(t), Ok(d)) = (std::fs::canonicalize(target), std::fs::canonicalize(dir)) else {
        return target.to_string();
    };
    let (tc, dc): (Vec<_>, Vec<_>) = (t.components().collect(), d.components().collect());
    let common = tc.iter().zip(&dc).take_while(|(a, b)| a == b).count();
    let mut rel = PathBuf::new();
    for _ in common..dc.len() {
        rel.push("..");
    }
    for c in &tc[common..] {
        rel.push(c);
    }
    rel.to_str()
        .map_or_else(|| target.to_string(), str::to_string)
}

/// A command script: `#!` header lines naming the kernel and launch settings, then one
/// command per line (`#` comments and blank lines are skipped when run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// `#! kernel PATH`.
    pub kernel: Option<String>,
    /// `#! seed N`, `#! grid N`, `#! workgroup N`, `#! quantum N`, `#! resident N`,
    /// `#! max-instructions N`.
    pub launch: LaunchOptions,
    /// Commands with their 1-based line numbers.
    pub commands: Vec<(usize, String)>,
}

impl Script {
    /// Parses a script; header errors name the line.
    pub fn parse(text: &str, path: &str) -> Result<Script, SessionError> {
        let mut s = Script {
            kernel: None,
            launch: LaunchOptions::default(),
            commands: Vec::new(),
        };
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if let Some(h) = t.strip_prefix("#!") {
                let (key, value) = h
                    .trim()
                    .split_once(char::is_whitespace)
                    .unwrap_or((h.trim(), ""));
                let value = value.trim();
                let bad = |what: &str| SessionError::Parse {
                    path: path.to_string(),
                    line: i + 1,
                    col: 1,
                    message: crate::clip_quoted(what.to_string()),
                };
                let num = || {
                    value
                        .parse::<u64>()
                        .map_err(|_| bad(&format!("`#! {key}` needs a number, found `{value}`")))
                };
                match key {
                    "kernel" => s.kernel = Some(value.to_string()),
                    "seed" => s.launch.seed = num()?,
                    "grid" => s.launch.grid = Some(num()? as u32),
                    "workgroup" => s.launch.workgroup_lanes = Some(num()? as u32),
                    "quantum" => s.launch.quantum = num()? as u32,
                    "resident" => s.launch.resident_workgroups = num()? as u32,
                    "max-instructions" => s.launch.max_instructions = Some(num()?).filter(|n| *n > 0),
                    _ => return Err(bad(&format!("unknown header `#! {key}` (kernel, seed, grid, workgroup, quantum, resident, max-instructions)"))),
                }
            } else if !t.is_empty() && !t.starts_with('#') {
                s.commands.push((i + 1, t.to_string()));
            }
        }
        Ok(s)
    }

    /// The script a session's log replays.
    pub fn from_session(session: &Session) -> Script {
        Script {
            kernel: (!session.kernel.is_empty()).then(|| session.kernel.clone()),
            launch: session.launch,
            commands: session
                .log
                .iter()
                .enumerate()
                .map(|(i, c)| (i + 1, c.clone()))
                .collect(),
        }
    }

    /// The header lines for a kernel and launch settings.
    pub fn header(kernel: &str, launch: &LaunchOptions) -> String {
        let mut h = format!("#! kernel {kernel}\n#! seed {}\n", launch.seed);
        let d = LaunchOptions::default();
        if let Some(g) = launch.grid {
            h.push_str(&format!("#! grid {g}\n"));
        }
        if let Some(w) = launch.workgroup_lanes {
            h.push_str(&format!("#! workgroup {w}\n"));
        }
        if launch.quantum != d.quantum {
            h.push_str(&format!("#! quantum {}\n", launch.quantum));
        }
        if launch.resident_workgroups != d.resident_workgroups {
            h.push_str(&format!("#! resident {}\n", launch.resident_workgroups));
        }
        // Unlimited (the REPL's and the TUI's launch) is written too: replay's default
        // budget would stop a long recorded run that the session itself ran whole.
        match launch.max_instructions {
            Some(n) => h.push_str(&format!("#! max-instructions {n}\n")),
            None if d.max_instructions.is_some() => h.push_str("#! max-instructions 0\n"),
            None => {}
        }
        h
    }
}

/// A kernel path (none for the demo or no kernel) and its higher-level `sources` as
/// inputs no output may overwrite.
fn kernel_inputs<'a>(kernel: &'a str, sources: &'a [PathBuf]) -> Vec<files::Input<'a>> {
    let mut inputs: Vec<files::Input<'a>> = files::source_inputs(sources).collect();
    if !kernel.is_empty() && !kernel.starts_with(super::DEMO_PREFIX) {
        inputs.push(files::Input {
            path: Path::new(kernel),
            what: "the kernel",
        });
    }
    inputs
}

/// Writes what a user does into a replayable script, line by line as it happens, so a bug
/// found interactively becomes a regression test (`--record FILE`).
///
/// The script is written in place (it grows as the session goes), through symlinks, to a
/// regular file, a new path or a character device; each line is one write of the whole
/// line, and a write that fails is cut back to the last whole line.
#[derive(Debug)]
pub struct Recorder {
    file: std::fs::File,
    /// Bytes of whole lines written so far: where a failed write is cut back to.
    len: u64,
}

/// Why a `--record` script could not be started.
#[derive(Debug, thiserror::Error)]
pub enum RecorderError {
    /// The path may not be written (a FIFO, a directory, the kernel...).
    #[error(transparent)]
    Refused(#[from] WriteError),
    /// The file could not be created, or its header written.
    #[error("cannot record to {path}: {}", crate::io_reason(source))]
    Io {
        /// The path as given.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
}

impl Recorder {
    /// Creates the script with its header. Refuses what [`files::write_file`] refuses
    /// (and so never truncates the kernel being debugged).
    pub fn create(path: &Path, e: &Engine) -> Result<Recorder, RecorderError> {
        let sources = e.source_paths();
        files::check_output(
            path,
            &kernel_inputs(e.kernel_path().unwrap_or(""), &sources),
        )?;
        let io = |source| RecorderError::Io {
            path: path.display().to_string(),
            source,
        };
        let file = std::fs::File::create(path).map_err(io)?;
        let kernel = path_for_file(e.kernel_path().unwrap_or("KERNEL.s"), path);
        let mut r = Recorder { file, len: 0 };
        r.write_whole(&format!(
            "# recorded by wavedbg\n{}",
            Script::header(&kernel, e.machine().options())
        ))
        .map_err(io)?;
        Ok(r)
    }

    /// Writes `text` (whole lines) in one write; on a failure or a short write, cuts the
    /// file back to the last whole line, so the script never ends in half a command.
    fn write_whole(&mut self, text: &str) -> std::io::Result<()> {
        use std::io::{Seek, SeekFrom, Write};
        let bytes = text.as_bytes();
        let error = match self.file.write(bytes) {
            Ok(n) if n == bytes.len() => {
                self.len += n as u64;
                return self.file.flush();
            }
            Ok(_) => std::io::Error::new(
                std::io::ErrorKind::WriteZero,
                "short write (is the disk full?)",
            ),
            Err(e) => e,
        };
        // Best effort: a device cannot be cut, and has no half line to cut anyway.
        if self.file.set_len(self.len).is_ok() {
            let _ = self.file.seek(SeekFrom::Start(self.len));
        }
        Err(error)
    }

    /// Appends a command that ran, if its replay does what it did: a command that failed,
    /// an `expect` that did not hold and `save` (which writes a file) are left out, so a
    /// recorded script replays to success; `load` is written with the file's absolute path,
    /// so the script replays from any directory; a run interrupted by Ctrl-C is written as
    /// the command that stops where it stopped. `before` is the launch's instruction count
    /// before the command ran.
    pub fn record_outcome(
        &mut self,
        engine: &Engine,
        line: &str,
        cmd: Option<&super::command::Command>,
        before: u64,
        result: &Result<super::CommandOutput, super::command::CommandError>,
    ) -> std::io::Result<()> {
        match recordable(engine, line, cmd, before, result) {
            Some(text) => self.record(&text),
            None => Ok(()),
        }
    }

    /// Appends one command line (a text of several lines, as an interrupted `continue`
    /// gives, is written whole or not at all).
    pub fn record(&mut self, line: &str) -> std::io::Result<()> {
        let line = line.trim();
        if line.is_empty() {
            return Ok(());
        }
        self.write_whole(&format!("{line}\n"))
    }
}

/// The text to record for a command that ran on `engine` (see [`Recorder::record_outcome`]),
/// or `None` to leave it out.
pub fn recordable(
    engine: &Engine,
    line: &str,
    cmd: Option<&super::command::Command>,
    before: u64,
    result: &Result<super::CommandOutput, super::command::CommandError>,
) -> Option<String> {
    use super::command::Command;
    let out = result.as_ref().ok()?;
    if out.expect.as_ref().is_some_and(|e| !e.passed) {
        return None;
    }
    if let Some(stop) = out
        .stop
        .as_ref()
        .filter(|s| s.reason == super::StopReason::Interrupted)
    {
        return Some(stopping_command(engine, cmd, before, stop));
    }
    match cmd {
        Some(Command::Save(_)) => None,
        Some(Command::Load(file)) => {
            let abs = std::fs::canonicalize(file).ok()?;
            Some(format!("load {}", abs.to_str()?))
        }
        _ => Some(line.trim().to_string()),
    }
}

/// The command that stops where an interrupted command stopped (`stop`): replaying the
/// command itself would run it to its end. A wave run alone executed what the count grew
/// by (from `before`, the launch's instruction count before it); stepping all waves, whole
/// rounds; anything else ran (or went back) as `continue` does, which `goto` repeats to
/// the count. Several lines for some (`goto N` then `wave W`).
pub(super) fn stopping_command(
    engine: &Engine,
    cmd: Option<&super::command::Command>,
    before: u64,
    stop: &super::StopEvent,
) -> String {
    use super::command::Command;
    let alone = |n: u64| format!("stepi alone {n}");
    match cmd {
        // Without scheduler locking these ran rounds of every ready wave.
        Some(
            Command::Stepi(_)
            | Command::Step(_)
            | Command::Next(_)
            | Command::Until(None)
            | Command::Finish
            | Command::AdvanceBarrier,
        ) if !engine.scheduler_locking => {
            format!("stepi all {}", engine.last_step_rounds())
        }
        Some(Command::StepiAll(_)) => format!("stepi all {}", engine.last_step_rounds()),
        Some(
            Command::Stepi(_)
            | Command::Step(_)
            | Command::Next(_)
            | Command::Until(None)
            | Command::StepiAlone(_)
            | Command::Finish
            | Command::AdvanceBarrier,
        ) => alone(stop.instructions.saturating_sub(before)),
        // `run` restarted first: the restart, then forward as `continue` ran.
        Some(Command::Run) => match stop.wave_id {
            Some(w) => format!("restart\ngoto {}\nwave {w}", stop.instructions),
            None => format!("restart\ngoto {}", stop.instructions),
        },
        _ => match stop.wave_id {
            Some(w) => format!("goto {}\nwave {w}", stop.instructions),
            None => format!("goto {}", stop.instructions),
        },
    }
}

/// The most entries the shared command history keeps (the oldest go first); every line
/// editor that uses [`history_path`] is built with it, so all trim the file alike.
pub const HISTORY_ENTRIES: usize = 1000;

/// The command-history file shared by the REPL and the TUI's command line (a line
/// repeating the one before is not added; at most [`HISTORY_ENTRIES`]):
/// `$WAVEDBG_HISTORY`, else `$XDG_STATE_HOME/wavedbg/history`, else
/// `~/.local/state/wavedbg/history`, else `.wavedbg_history` in the current directory.
pub fn history_path() -> PathBuf {
    if let Some(p) = std::env::var_os("WAVEDBG_HISTORY") {
        return PathBuf::from(p);
    }
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")));
    match state {
        Some(dir) => dir.join("wavedbg").join("history"),
        None => PathBuf::from(".wavedbg_history"),
    }
}
