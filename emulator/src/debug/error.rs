//! Why an engine operation was refused: one typed error for every front end, which prints
//! it (the REPL, the TUI, replay) or maps it to a protocol error (the GDB server's errno).

use super::expr::ExprError;
use crate::machine::MemoryError;

/// An engine operation that could not be done; nothing was changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// `goto` past the end of the recorded history.
    #[error("instruction count {count} is beyond the recorded history, which ends at {end} (continue or stepi to go further)")]
    BeyondHistory {
        /// The count asked for.
        count: u64,
        /// The last count recorded.
        end: u64,
    },
    /// `goto` before the start of the recorded history (its oldest part was dropped to
    /// keep within `set history-size`).
    #[error("instruction count {count} is before the recorded history, which starts at {start} (older history was dropped to keep within set history-size)")]
    BeforeHistory {
        /// The count asked for.
        count: u64,
        /// The first count recorded.
        start: u64,
    },
    /// A location names no label.
    #[error("no label `{name}`{}", labels_hint(.labels))]
    NoLabel {
        /// The label as written in the location (without `+N`).
        name: String,
        /// The kernel's labels, for the message.
        labels: Vec<String>,
    },
    /// A `*EXPR` location with no value now (`*v3` with no wave left) or a negative one.
    #[error("cannot evaluate the location `*{text}`: {message}")]
    LocationValue {
        /// The expression as written.
        text: String,
        /// Why it has no address.
        message: String,
    },
    /// An address past the end of the kernel's code.
    #[error("{addr:#06x} is outside the kernel's code (0x0000-{:#06x})", .end.saturating_sub(1))]
    OutsideCode {
        /// The address asked for.
        addr: u64,
        /// The first byte past the code.
        end: u64,
    },
    /// An address that is not the start of an instruction.
    #[error("{0:#x} is not the start of an instruction")]
    NotAnInstruction(u64),
    /// A condition that does not parse.
    #[error("bad condition `{text}`: {error}")]
    BadCondition {
        /// The condition as written.
        text: String,
        /// Why it does not parse.
        error: ExprError,
    },
    /// A lane number out of range.
    #[error("lane {0} out of range (0-31)")]
    LaneOutOfRange(u64),
    /// A watchpoint length out of range.
    #[error("watch length must be 1 byte to 1 MiB")]
    WatchLength(u64),
    /// No resident wave with this global id.
    #[error("no resident wave {id} (resident: {})", join(.resident))]
    NoWave {
        /// The global wave id asked for.
        id: u32,
        /// The resident waves' ids.
        resident: Vec<u32>,
    },
    /// A wave of the launch that has exited, so its scratch is gone (a scratch
    /// watchpoint's wave).
    #[error("wave {0} has exited: its scratch memory is gone")]
    NoWaveId(u32),
    /// A global wave id outside the launch (a breakpoint's `wave` filter, a session's
    /// selection).
    #[error("wave {wave} is not in the launch (0-{})", waves.saturating_sub(1))]
    WaveNotInLaunch {
        /// The global wave id asked for (the launch's wave count or more).
        wave: u32,
        /// Waves in the launch (workgroups times waves per workgroup).
        waves: u64,
    },
    /// No wave at this index of the machine's waves.
    #[error("no wave with index {0}")]
    NoWaveIndex(usize),
    /// A workgroup that has run and finished: its memory is gone.
    #[error("workgroup {0} has finished")]
    WorkgroupFinished(u32),
    /// A workgroup outside the grid.
    #[error("workgroup {workgroup} is not in the grid (0-{})", grid.saturating_sub(1))]
    WorkgroupNotInGrid {
        /// The workgroup number asked for (the grid size or more).
        workgroup: u32,
        /// Workgroups in the grid.
        grid: u32,
    },
    /// A watched range that does not exist.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// No breakpoint or watchpoint with this number.
    #[error("no breakpoint or watchpoint number {0}")]
    NoPoint(u32),
    /// A register that does not exist.
    #[error("no register `{0}` (v0-v127, u0-u63)")]
    NoRegister(String),
    /// A program counter that is not a multiple of 4.
    #[error("pc must be a multiple of 4, not {0:#x}")]
    PcMisaligned(u64),
    /// `FILE:...` naming a file other than the kernel's source.
    #[error("no source file `{file}` (this kernel's source is {kernel_source})")]
    NoSourceFile {
        /// The file named.
        file: String,
        /// The kernel's source as it was opened.
        kernel_source: String,
    },
    /// `FILE:WORD` naming a higher-level source file (a `.file` of the line table) with
    /// a word that is no line number: such files have lines, labels are the kernel's own.
    #[error("`{text}` is not a line number of `{file}` (labels name the kernel's own code)")]
    NotALine {
        /// The file named.
        file: String,
        /// What came after the colon.
        text: String,
    },
    /// `FILE:...` for a `list` naming a base name two or more source files share.
    #[error("`{file}` is ambiguous: it names {matches}; give more of the path")]
    AmbiguousSourceFile {
        /// The file named.
        file: String,
        /// The files it names, as `.file` wrote them.
        matches: String,
    },
    /// A source line from which no instruction was assembled.
    #[error("no code at line {line} of {file}")]
    NoCodeOnLine {
        /// The line, 1-based.
        line: u64,
        /// The source file's name.
        file: String,
    },
    /// A backward search (`last-write`, and the searches of `finding N`, `reverse-step`
    /// and `reverse-next`) was interrupted before it found anything: it says so, never
    /// that there is nothing to find; the machine stays where it was.
    #[error("Interrupted: the backward search had got back to instruction {searched_back_to} without an answer yet; the machine is where it was")]
    SearchInterrupted {
        /// The instruction count the search had cleared back to.
        searched_back_to: u64,
    },
    /// No breakpoint with this number (ignore counts are for breakpoints).
    #[error("no breakpoint number {0}")]
    NoBreakpoint(u32),
}

impl EngineError {
    /// Whether the operation was interrupted (Ctrl-C, `interrupt`): nothing in the command
    /// was wrong, so a front end shows no usage line for it.
    pub fn is_interrupt(&self) -> bool {
        matches!(self, EngineError::SearchInterrupted { .. })
    }
}

fn labels_hint(labels: &[String]) -> String {
    if labels.is_empty() {
        String::new()
    } else {
        format!(" (labels: {})", labels.join(", "))
    }
}

fn join(ids: &[u32]) -> String {
    ids.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
