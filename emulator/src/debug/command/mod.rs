//! The command language: gdb-familiar commands parsed once into typed [`Command`] values
//! ([`parse`]), which the engine runs ([`crate::debug::Engine::run`]) and which print back
//! as the text that parses to them (`Display`, in `display.rs`: the log, recordings,
//! sessions). Every argument is typed here: locations, expressions, memory and register
//! references; a front end builds them from what it holds (an address, a register
//! number) and never formats text for the engine to parse. The same language serves the
//! TUI, the REPL, replay scripts and the GDB server's `monitor`, all through
//! [`crate::debug::driver`].

mod display;
mod error;
mod help;
mod parse;

pub use error::{CommandError, ParseError};
pub use help::{canonical, help, help_topic, markdown, usage, HelpEntry, HELP, QUIT};
pub use parse::{
    info_topic, parse, parse_display, parse_location, parse_mem_ref, unexpected_argument,
    InfoTopic, INFO_TOPICS,
};

use super::breakpoint::{Filters, WatchKind};
use super::expr::ParsedExpr;
use crate::memory::Space;

/// Where code is: what `break`, `tbreak`, `advance`, `disassemble` and `list` take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A code address (`*0x40`, or a bare number in every command but `list`).
    Address(u64),
    /// A label plus a byte offset (`loop`, `loop+8`); `file` is the kernel's own source
    /// file when written `FILE:LABEL`, checked against it when the location is resolved.
    Label {
        /// The source file named before the label, if any.
        file: Option<String>,
        /// The label's name.
        name: String,
        /// Bytes after the label (a multiple of 4 to name an instruction).
        offset: u64,
    },
    /// A line of the kernel's source (`FILE:LINE`; `list LINE`): the first instruction
    /// assembled from it.
    Line {
        /// The source file named, if any (it must be the kernel's own).
        file: Option<String>,
        /// The line, 1-based as editors number them (0 and lines past the end are refused
        /// when resolved, with the file's length).
        line: u64,
    },
    /// `*EXPR` that is not a plain address or label (`*pc`, `*(0x30 + 8)`): gdb's address
    /// expression, evaluated for the selected wave and lane when the location is
    /// resolved. A breakpoint keeps the address it had then.
    Expr(ParsedExpr),
}

/// What `list` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListArg {
    /// `list -`: the lines before the last ones shown.
    Before,
    /// `list LINE`, `list LABEL`, `list *ADDR`, `list FILE:LINE`: the lines around it.
    Around(Location),
    /// `list FIRST,LAST`, `list FIRST,` (10 lines from FIRST), `list ,LAST` (10 lines
    /// ending at LAST), as gdb's: each side a location, at least one given.
    Range(Option<Location>, Option<Location>),
}

/// Which instance of a space a watch command names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchWhere {
    /// Global memory.
    Global,
    /// Shared memory: of workgroup N (`Some(Some(N))`), of every workgroup
    /// (`Some(None)`, `workgroup all`), or of the selected wave's workgroup (`None`).
    Shared(Option<Option<u32>>),
    /// Scratch of the given wave (global id) and lane, each defaulting to the selection.
    Scratch(Option<u32>, Option<u8>),
}

impl WatchWhere {
    /// The address space it watches.
    pub fn space(self) -> Space {
        match self {
            WatchWhere::Global => Space::Global,
            WatchWhere::Shared(_) => Space::Shared,
            WatchWhere::Scratch(..) => Space::Scratch,
        }
    }
}

/// A range of memory named by an expression: `[SPACE:]ADDR` with a length. The address is
/// evaluated when the command runs (for the selected wave's workgroup in `shared`, its
/// selected lane in `scratch`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemRef {
    /// The address space; `global` when the text names none.
    pub space: Space,
    /// The first byte's address, an expression (`out + 16`).
    pub addr: ParsedExpr,
    /// Bytes in the range (at least 1).
    pub len: u64,
}

/// A register of the selected wave, as `set` assigns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegRef {
    /// `vN`: every lane of vector register N (0-127).
    Vector(u8),
    /// `vN[LANE]`: one lane, an expression evaluated when the command runs (0-31).
    VectorLane(u8, ParsedExpr),
    /// `uN`: uniform register N (0-63).
    Uniform(u8),
    /// `exec`: the EXEC mask, a bit per lane.
    Exec,
    /// `pc`: the program counter, a byte address that must be a multiple of 4.
    Pc,
}

/// What `set TARGET = VALUE` writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetTarget {
    /// A register of the selected wave.
    Register(RegRef),
    /// A little-endian u32 in memory (`len` is 4).
    Memory(MemRef),
}

/// What `last-write` looks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LastWriteTarget {
    /// A memory range of 1 to 16 bytes.
    Memory(MemRef),
    /// Vector register `reg` of the selected wave: one lane, or any lane.
    Vector {
        /// The register (0-127).
        reg: u8,
        /// The lane (0-31), or `None` for a write to any lane.
        lane: Option<u8>,
    },
    /// Uniform register N (0-63) of the selected wave.
    Uniform(u8),
    /// The selected wave's EXEC mask.
    Exec,
}

/// A display expression: shown after every stop, with an optional format letter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisplaySpec {
    /// `x d u t f c o`, as `print/F` takes it.
    pub format: Option<char>,
    /// The expression.
    pub expr: ParsedExpr,
}

/// The numbers a command names its points or displays by, as gdb takes them
/// (`delete 1 4-6`): numbers and inclusive ranges, in the order written. None names
/// every one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Numbers(pub Vec<(u32, u32)>);

impl Numbers {
    /// One number.
    pub fn one(n: u32) -> Numbers {
        Numbers(vec![(n, n)])
    }

    /// Every point (or display): no number listed.
    pub fn all() -> Numbers {
        Numbers(Vec::new())
    }

    /// Whether no number is listed (the command means every one).
    pub fn is_all(&self) -> bool {
        self.0.is_empty()
    }

    /// Of the numbers `existing` (ascending), those listed (every one when none is),
    /// in the order listed; and the numbers and ranges listed that name none of them.
    pub fn pick(&self, existing: &[u32]) -> (Vec<u32>, Numbers) {
        if self.is_all() {
            return (existing.to_vec(), Numbers::all());
        }
        let (mut named, mut missing) = (Vec::new(), Vec::new());
        for &(a, b) in &self.0 {
            let before = named.len();
            named.extend(existing.iter().filter(|id| (a..=b).contains(*id)));
            if named.len() == before {
                missing.push((a, b));
            }
        }
        (named, Numbers(missing))
    }

    /// "no WHAT number 7", "no WHAT numbered 7, 9-12": what names nothing.
    pub fn none_named(&self, what: &str) -> String {
        match self.0.as_slice() {
            [(a, b)] if a == b => format!("no {what} number {a}"),
            _ => {
                let words: Vec<String> = self
                    .to_string()
                    .split_whitespace()
                    .map(String::from)
                    .collect();
                format!("no {what} numbered {}", words.join(", "))
            }
        }
    }
}

/// What `info` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Info {
    /// Every resident wave: id, workgroup, state, PC.
    Waves,
    /// The selected wave's 32 lanes: each lane's state, whether the last stop concerned
    /// it, and the listed registers' values.
    Lanes(LaneColumns),
    /// The selected wave's only frame, as gdb's `info frame` describes one.
    Frame,
    /// Every register of the selected wave, or one expression's value (`info registers v3`
    /// shows v3 across lanes).
    Registers(Option<ParsedExpr>),
    /// Breakpoints and watchpoints together, by number.
    Breakpoints,
    /// Watchpoints alone.
    Watchpoints,
    /// What changed since the previous stop.
    Changes,
    /// The display expressions, numbered.
    Display,
    /// The time-travel record: its span and memory use.
    History,
    /// The sanitizer's findings.
    Findings,
    /// The global buffers: name, address, size, the `.arg` registers holding each.
    Buffers,
    /// The labels: name, address, source line.
    Labels,
    /// `info line [LOCATION]`: the code of a source line, or the line of an address
    /// (without a location, the selected wave's).
    Line(Option<Location>),
    /// `info source`: the current source file and the kernel's debug information.
    Source,
    /// `info locals`: the source variables live at the selected wave's PC.
    Locals,
}

/// A register `info lanes` shows a column of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneReg {
    /// `vN`: each lane's own value.
    Vector(u8),
    /// `uN`: one value for the wave, shown in every lane's row.
    Uniform(u8),
    /// `exec`: the lane's EXEC bit (1 active, 0 inactive).
    Exec,
}

/// What `info lanes [/F] [REG...]` shows besides each lane's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaneColumns {
    /// The format letter of the values (`x d u f`; `None`: hex).
    pub format: Option<char>,
    /// The registers, one column each, in the order written.
    pub regs: Vec<LaneReg>,
}

/// Comparison operators of `expect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpectOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl ExpectOp {
    /// The operator as written (`==`).
    pub fn text(self) -> &'static str {
        match self {
            ExpectOp::Eq => "==",
            ExpectOp::Ne => "!=",
            ExpectOp::Lt => "<",
            ExpectOp::Le => "<=",
            ExpectOp::Gt => ">",
            ExpectOp::Ge => ">=",
        }
    }

    /// Whether `a OP b` holds, comparing signed 64-bit values.
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            ExpectOp::Eq => a == b,
            ExpectOp::Ne => a != b,
            ExpectOp::Lt => a < b,
            ExpectOp::Le => a <= b,
            ExpectOp::Gt => a > b,
            ExpectOp::Ge => a >= b,
        }
    }
}

/// A parsed command: every argument typed and checked as far as it can be without the
/// machine (labels, addresses and expression values are resolved when it runs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `break` / `tbreak`.
    Break {
        /// Where it stops.
        location: Location,
        /// Evaluated per active lane; the breakpoint stops if any lane satisfies it.
        condition: Option<ParsedExpr>,
        /// Restrictions to a wave, a workgroup or a lane.
        filters: Filters,
        /// `tbreak`: deleted at its first stop.
        temporary: bool,
    },
    /// `delete [N|N-M ...]`: the points listed, or every one.
    Delete(Numbers),
    /// `enable [N|N-M ...]` (`true`) / `disable ...` (`false`): the points listed, or
    /// every one.
    Enable(Numbers, bool),
    /// `ignore N COUNT`: skip the next COUNT hits of breakpoint N.
    Ignore(u32, u32),
    /// `condition N [EXPR]`: set or (without EXPR) remove point N's condition.
    Condition(u32, Option<ParsedExpr>),
    /// `watch` / `rwatch` / `awatch`.
    Watch {
        /// What access triggers it.
        kind: WatchKind,
        /// The space and which instance of it (workgroup, wave, lane).
        place: WatchWhere,
        /// The first byte's address, evaluated when the command runs.
        addr: ParsedExpr,
        /// Bytes watched (1 byte to 1 MiB; checked when it runs).
        len: u64,
        /// Evaluated after the access; the watchpoint stops only where it holds.
        condition: Option<ParsedExpr>,
    },
    /// `continue`.
    Continue,
    /// `stepi [N]`: N instructions of the selected wave (or, with scheduler-locking off,
    /// N rounds of every ready wave).
    Stepi(u64),
    /// `stepi all [N]`: every ready wave advances N instructions, whatever
    /// scheduler-locking says (the TUI's "step all waves").
    StepiAll(u64),
    /// `stepi alone [N]`: the selected wave alone advances N instructions, whatever
    /// scheduler-locking says (the TUI's "step the selected wave").
    StepiAlone(u64),
    /// `reverse-stepi [N]`: the selected wave N instructions back.
    ReverseStepi(u64),
    /// `reverse-step [N]`: the selected wave N source lines back (a line table's, else
    /// instructions).
    ReverseStep(u64),
    /// `reverse-next [N]`: as `reverse-step` (a wave has no calls), kept apart so a
    /// recording keeps the user's word.
    ReverseNext(u64),
    /// `goto N`: the machine when the launch had executed N instructions.
    Goto(u64),
    /// `reverse-continue`.
    ReverseContinue,
    /// `finding N [first|second]`: a side of finding N, by time travel (no side: the
    /// first, or the second when repeated there).
    Finding {
        /// The finding's number, as `info findings` lists it.
        number: u64,
        /// The side asked for.
        side: Option<crate::debug::FindingSide>,
    },
    /// `last-write TARGET`.
    LastWrite(LastWriteTarget),
    /// `step [N]` (gdb's source step): N source lines of the selected wave where the
    /// kernel has a line table, else N instructions as `stepi N` (see
    /// [`crate::debug::Engine::has_line_table`]); kept apart so a recording keeps the
    /// user's word.
    Step(u64),
    /// `next [N]`: as `step` (a wave has no calls to step over), kept apart so a recording
    /// keeps the user's word.
    Next(u64),
    /// `until [LOCATION]`: without a location, the selected wave until its PC passes the
    /// current one (out of a backward loop); with one, as `advance LOCATION`.
    Until(Option<Location>),
    /// `advance LOCATION`.
    Advance(Location),
    /// `advance barrier`: the selected wave alone to its next barrier.
    AdvanceBarrier,
    /// `finish`: the selected wave alone until it exits.
    Finish,
    /// `reverse-finish`: the selected wave back to right before its first instruction.
    ReverseFinish,
    /// `interrupt`.
    Interrupt,
    /// `restart`: the launch again from the beginning, nothing run.
    Restart,
    /// `run`: as gdb's, the launch (re)started and run until something stops it.
    Run,
    /// `start`: the launch (re)started, stopped at its first instruction.
    Start,
    /// `backtrace` / `bt` / `where`: the one frame there is.
    Backtrace,
    /// `frame [N]`: frame N (only 0 exists) described.
    Frame(Option<u32>),
    /// `up [N]`: refused as gdb refuses it at the outermost frame.
    Up(u32),
    /// `down [N]`: refused as gdb refuses it at the innermost frame.
    Down(u32),
    /// `wave N`: select the wave with global id N; `wave` alone shows the selected one.
    Wave(Option<u32>),
    /// `lane N`: select lane N (checked to be 0-31 when it runs).
    Lane(u32),
    /// `info ...`.
    Info(Info),
    /// `print[/F] EXPR`.
    Print {
        /// The format letter (`x d u t f c o`); `None` shows the natural form.
        format: Option<char>,
        /// The expression.
        expr: ParsedExpr,
    },
    /// `x/NFS [SPACE:]ADDR`.
    Examine {
        /// Units to show (1-4096).
        count: u64,
        /// The format letter (`x d u t f c o`).
        format: char,
        /// Bytes per unit: 1, 2, 4 or 8.
        size: usize,
        /// The space and the first unit's address.
        space: Space,
        /// The first unit's address, an expression.
        addr: ParsedExpr,
    },
    /// `x/Ni ADDR`: N instructions (1-4096) from the one at ADDR (which may be inside
    /// it), as gdb's `x/i` lists them.
    ExamineCode {
        /// Instructions to show.
        count: u64,
        /// The first one's address, an expression.
        addr: ParsedExpr,
    },
    /// `set TARGET = VALUE`.
    Set {
        /// What is written.
        target: SetTarget,
        /// The value, an expression (its low 32 bits are written).
        value: ParsedExpr,
    },
    /// `set scheduler-locking on|off`.
    SchedulerLocking(bool),
    /// `set history-size N`: the bound on time-travel snapshots, in MiB.
    HistorySize(u64),
    /// `set check GROUP on|off`: a sanitizer detector group.
    Check(crate::check::CheckGroup, bool),
    /// `why`: the last stop, described again.
    Why,
    /// `disassemble [LOCATION]` (default: the selected wave's PC).
    Disassemble(Option<Location>),
    /// `list [ARG]`; `None` goes on after the last lines shown (or around the PC).
    List(Option<ListArg>),
    /// `context`: the context now.
    Context,
    /// `set context on|off`.
    SetContext(bool),
    /// `set context-sections SECTION,...`.
    ContextSections(Vec<super::context::Section>),
    /// `set confirm on|off`: whether an interactive front end asks before a command that
    /// throws away the recorded history (see [`crate::debug::driver`]).
    SetConfirm(bool),
    /// `set format lanes|registers|memory hex|unsigned|signed|f32`: a pane's number
    /// format.
    SetFormat(super::panes::FormatTarget, super::panes::NumberFormat),
    /// `set memory-unit bytes|words`: the Memory pane's unit.
    SetMemoryUnit(super::panes::MemoryUnit),
    /// `set split left|source|console|lanes PERCENT|default`: a split's share of the
    /// TUI's screen (`None`: the default).
    SetSplit(super::panes::SplitTarget, Option<u16>),
    /// `set width N` (`unlimited` is 0): the columns command output is fitted to, as
    /// gdb's `set width`; 0 leaves it unfitted.
    SetWidth(u32),
    /// `expect EXPR OP VALUE`.
    Expect {
        /// The left side.
        lhs: ParsedExpr,
        /// The comparison, the expression's outermost operator.
        op: ExpectOp,
        /// The right side.
        rhs: ParsedExpr,
    },
    /// `display [/F EXPR]`; `None` shows the displays now.
    Display(Option<DisplaySpec>),
    /// `undisplay [N|N-M ...]`: the displays listed (1-based), or every one.
    Undisplay(Numbers),
    /// `save FILE`, the path as written.
    Save(String),
    /// `load FILE`, the path as written.
    Load(String),
    /// `help [COMMAND]`: the canonical name of the command asked about.
    Help(Option<&'static str>),
}

impl Command {
    /// Whether it runs the machine (continue, the steps, advance, finish): front ends use
    /// this to route it (the TUI's worker, the GDB server's refusal of run control in
    /// `monitor`), so a new run-control command is handled everywhere at once.
    pub fn runs_machine(&self) -> bool {
        matches!(
            self,
            Command::Continue
                | Command::Stepi(_)
                | Command::Step(_)
                | Command::Next(_)
                | Command::Until(_)
                | Command::Run
                | Command::StepiAll(_)
                | Command::StepiAlone(_)
                | Command::ReverseStepi(_)
                | Command::ReverseStep(_)
                | Command::ReverseNext(_)
                | Command::ReverseContinue
                | Command::Goto(_)
                | Command::Finding { .. }
                | Command::Advance(_)
                | Command::AdvanceBarrier
                | Command::Finish
                | Command::ReverseFinish
        )
    }

    /// The instruction count of a step command (`None` for the others).
    pub fn step_count(&self) -> Option<u64> {
        match self {
            Command::Stepi(n)
            | Command::Step(n)
            | Command::Next(n)
            | Command::StepiAll(n)
            | Command::StepiAlone(n) => Some(*n),
            _ => None,
        }
    }

    /// Whether it writes a file (`save`): refused where the commands come from a file the
    /// user did not type (a replayed script or session log) unless the user allows it.
    pub fn writes_files(&self) -> bool {
        matches!(self, Command::Save(_))
    }

    /// Whether it starts the kernel again (every wave at the start).
    pub fn relaunches(&self) -> bool {
        matches!(
            self,
            Command::Restart | Command::Run | Command::Start | Command::Load(_)
        )
    }

    /// The canonical name of the command (`break` for `tbreak`'s usage is `tbreak`): the
    /// help entry whose usage its errors show.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Break {
                temporary: true, ..
            } => "tbreak",
            Command::Break { .. } => "break",
            Command::Delete(_) => "delete",
            Command::Enable(_, true) => "enable",
            Command::Enable(_, false) => "disable",
            Command::Ignore(..) => "ignore",
            Command::Condition(..) => "condition",
            Command::Watch { kind, .. } => kind.command(),
            Command::Continue => "continue",
            Command::Stepi(_) | Command::StepiAll(_) | Command::StepiAlone(_) => "stepi",
            Command::ReverseStepi(_) => "reverse-stepi",
            Command::ReverseStep(_) => "reverse-step",
            Command::ReverseNext(_) => "reverse-next",
            Command::Goto(_) => "goto",
            Command::Finding { .. } => "finding",
            Command::ReverseContinue => "reverse-continue",
            Command::LastWrite(_) => "last-write",
            Command::Step(_) => "step",
            Command::Next(_) => "next",
            Command::Until(_) => "until",
            Command::Advance(_) | Command::AdvanceBarrier => "advance",
            Command::Finish => "finish",
            Command::ReverseFinish => "reverse-finish",
            Command::Interrupt => "interrupt",
            Command::Restart => "restart",
            Command::Run => "run",
            Command::Start => "start",
            Command::Backtrace => "backtrace",
            Command::Frame(_) => "frame",
            Command::Up(_) => "up",
            Command::Down(_) => "down",
            Command::Wave(_) => "wave",
            Command::Lane(_) => "lane",
            Command::Info(_) => "info",
            Command::Print { .. } => "print",
            Command::Examine { .. } | Command::ExamineCode { .. } => "x",
            Command::Set { .. }
            | Command::SchedulerLocking(_)
            | Command::HistorySize(_)
            | Command::Check(..)
            | Command::SetContext(_)
            | Command::ContextSections(_)
            | Command::SetConfirm(_)
            | Command::SetFormat(..)
            | Command::SetMemoryUnit(_)
            | Command::SetSplit(..) => "set",
            Command::SetWidth(_) => "set",
            Command::Why => "why",
            Command::Disassemble(_) => "disassemble",
            Command::List(_) => "list",
            Command::Context => "context",
            Command::Expect { .. } => "expect",
            Command::Display(_) => "display",
            Command::Undisplay(_) => "undisplay",
            Command::Save(_) => "save",
            Command::Load(_) => "load",
            Command::Help(_) => "help",
        }
    }
}
