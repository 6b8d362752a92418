//! The command language: gdb-familiar commands parsed once into [`Command`] values, which
//! [`crate::debug::Engine::execute`] runs. The same language serves the TUI, the REPL,
//! replay scripts and the GDB server's `monitor`.

use super::breakpoint::{Filters, WatchKind};

/// Every command: name, aliases, usage, one-line description, details.
pub const HELP: &[(&str, &[&str], &str, &str)] = &[
    ("break", &["b", "br"], "break LOCATION [if EXPR] [wave N] [workgroup N] [lane N]", "set a breakpoint at a label, label+OFFSET or address; the condition is evaluated per active lane and stops when any lane satisfies it"),
    ("tbreak", &[], "tbreak LOCATION [if EXPR] [wave N] [workgroup N] [lane N]", "set a temporary breakpoint (deleted when hit)"),
    ("delete", &["d"], "delete [N]", "delete breakpoint or watchpoint N (all without N)"),
    ("disable", &[], "disable N", "disable breakpoint or watchpoint N"),
    ("enable", &[], "enable N", "enable breakpoint or watchpoint N"),
    ("ignore", &[], "ignore N COUNT", "ignore the next COUNT hits of breakpoint N"),
    ("condition", &[], "condition N [EXPR]", "set (or remove) the condition of breakpoint or watchpoint N"),
    ("watch", &[], "watch [SPACE:]ADDR [LEN] [if EXPR] [workgroup N|all] [wave N] [lane N]", "stop after any instruction that writes the range (atomics count); SPACE is global (default), shared (the selected wave's workgroup unless `workgroup` is given) or scratch (the selected lane unless `wave`/`lane` are given)"),
    ("rwatch", &[], "rwatch [SPACE:]ADDR [LEN] [if EXPR] [workgroup N|all] [wave N] [lane N]", "stop after any instruction that reads the range (atomics count)"),
    ("awatch", &[], "awatch [SPACE:]ADDR [LEN] [if EXPR] [workgroup N|all] [wave N] [lane N]", "stop after any instruction that reads or writes the range"),
    ("continue", &["c", "cont"], "continue", "run all waves until a breakpoint, watchpoint, fault, deadlock, interrupt or the end"),
    ("stepi", &["si"], "stepi [all|alone] [N]", "execute N instructions (default 1) of the selected wave, others frozen; with scheduler-locking off, or with `all`, every ready wave advances one instruction per step; `alone` steps the selected wave alone whatever the setting"),
    ("reverse-stepi", &["rsi"], "reverse-stepi [N]", "run the selected wave N instructions (default 1) backwards: the whole machine as it was right before that instruction; at the start of the history, as far back as it goes"),
    ("reverse-continue", &["rc"], "reverse-continue", "run backwards to the previous point where a breakpoint or watchpoint stops (a watchpoint: right before the instruction that made the access, with the values it found and left), or to the start of the history"),
    ("last-write", &[], "last-write [SPACE:]ADDR [LEN] | last-write vN[L] | last-write uN", "name the last write before now of memory, a vector register (one lane or any) or a uniform register of the selected wave: the wave, lanes, PC, instruction count and the values before and after; repeat it to walk further back (the machine stays where it is; `goto` the count to see it)"),
    ("goto", &[], "goto N", "put the whole machine where it was when the launch had executed N instructions (the count every stop shows), back or forward within the recorded history; past its newest point every wave runs forward from there as `continue` runs them, to count N (a breakpoint, watchpoint or the end stops it first)"),
    ("advance", &["until", "u"], "advance LOCATION | advance barrier", "continue until the selected wave reaches LOCATION; `advance barrier` runs the selected wave alone to its next barrier"),
    ("finish", &[], "finish", "run the selected wave alone until it exits"),
    ("interrupt", &[], "interrupt", "stop a run in progress (Ctrl-C does the same)"),
    ("restart", &["run", "r"], "restart", "restart the launch from the beginning, keeping breakpoints and watchpoints"),
    ("wave", &["thread"], "wave N", "select wave N (global wave id)"),
    ("lane", &[], "lane N", "select lane N (0-31)"),
    ("info", &["i"], "info waves|lanes|registers [REG]|breakpoints|watchpoints|changes|display|history|findings|buffers|labels", "show waves, the selected wave's lanes, registers (all, or one v register across lanes), breakpoints and watchpoints (by number), watchpoints, what changed since the previous stop, the time-travel record, the sanitizer's findings, the global buffers (name, address, size, the `.arg` registers holding it) or the labels (name, address, source line)"),
    ("print", &["p"], "print[/x|/d|/u|/f|/t|/c] EXPR", "evaluate an expression: registers v3, v3[5], u2, exec, pc, lane, wave; memory global:ADDR, shared:ADDR, scratch:ADDR (a u32); buffer names (the base address) and labels; numbers; C operators; s32(x) reads x as signed. A bare vector register shows all 32 lanes"),
    ("x", &[], "x/NFS [SPACE:]ADDR", "examine memory: N units, format F (x d u t f c), size S (b h w g); SPACE global (default), shared (the selected wave's workgroup) or scratch (the selected lane); ADDR is an expression, so `x/4xw out+16` reads buffer `out` from byte 16"),
    ("set", &[], "set REG = VALUE | set vN[L] = VALUE | set SPACE:ADDR = VALUE | set scheduler-locking on|off | set history-size MIB | set check races|sync|init|hazards|all on|off | set context on|off | set context-sections SECTION,...|all", "change a register (vN sets every lane), one lane, a u32 in memory, or a setting; `set check` turns sanitizer detectors on or off (a finding stops the run; see docs/sanitizer.md); `set context on` shows the context after every stop (on by default in the REPL) and `set context-sections` chooses its sections, in order, from reason, code, source, regs, lanes, exec"),
    ("why", &[], "why", "explain the last stop again (for a sanitizer finding: both sides, with source lines)"),
    ("disassemble", &["disas"], "disassemble [LOCATION]", "disassemble around LOCATION (default: the selected wave's PC); `=>` marks the PC, `B` breakpoints"),
    ("list", &["l"], "list [LINE | LOCATION | FILE:LINE | -]", "show 10 lines of the kernel's source: around the selected wave's PC, then the next 10 at each `list` (or Enter); around LINE, or the line of a label or address; `-` the 10 before the last shown; `=>` marks the line of the PC, `B` lines with a breakpoint (needs the kernel opened from its .s file)"),
    ("context", &["ctx"], "context", "show the context now, as pwndbg does: the stop reason, the code around the PC, the source lines, the registers changed since the previous stop, the lanes of the registers the instruction at the PC reads and writes, and EXEC on a lane scale (`set context-sections` chooses)"),
    ("expect", &[], "expect EXPR OP VALUE", "assert EXPR OP VALUE (OP: == != < <= > >=); fails loudly with both values (for scripts)"),
    ("display", &[], "display [/F] EXPR", "show EXPR after every stop (a bare vector register shows all lanes); without EXPR, show the displays now"),
    ("undisplay", &[], "undisplay [N]", "remove display N (all without N)"),
    ("save", &[], "save FILE", "save the session (kernel, launch settings, breakpoints, watchpoints, displays, selection, command log) as RON, atomically"),
    ("load", &[], "load FILE", "load a saved session for this kernel: relaunch with its settings and restore its breakpoints, watchpoints, displays and selection"),
    ("help", &["h"], "help [COMMAND]", "list commands, or describe one"),
];

/// Which instance of a space a watch command names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchWhere {
    /// Global memory.
    Global,
    /// Shared memory: of workgroup N, of all (`Some(None)`), or the selected wave's (`None`).
    Shared(Option<Option<u32>>),
    /// Scratch: of the given wave and lane, each defaulting to the selection.
    Scratch(Option<u32>, Option<u8>),
}

/// What `info` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Info {
    /// The wave list.
    Waves,
    /// The selected wave's lanes.
    Lanes,
    /// Registers, or one register.
    Registers(Option<String>),
    /// Breakpoints and watchpoints.
    Breakpoints,
    /// Watchpoints.
    Watchpoints,
    /// Changes since the previous stop.
    Changes,
    /// The display expressions.
    Display,
    /// The time-travel record.
    History,
    /// The sanitizer's findings.
    Findings,
    /// The global buffers.
    Buffers,
    /// The labels.
    Labels,
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
    /// The operator's text.
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

    /// Applies it.
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

/// A parsed command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `break` / `tbreak`.
    Break {
        /// Location text.
        location: String,
        /// Condition text.
        condition: Option<String>,
        /// Filters.
        filters: Filters,
        /// `tbreak`.
        temporary: bool,
    },
    /// `delete [N]`.
    Delete(Option<u32>),
    /// `enable N` / `disable N`.
    Enable(u32, bool),
    /// `ignore N COUNT`.
    Ignore(u32, u32),
    /// `condition N [EXPR]`.
    Condition(u32, Option<String>),
    /// `watch` / `rwatch` / `awatch`.
    Watch {
        /// Kind.
        kind: WatchKind,
        /// Space and instance.
        place: WatchWhere,
        /// Address expression.
        addr: String,
        /// Length in bytes.
        len: u64,
        /// Condition.
        condition: Option<String>,
    },
    /// `continue`.
    Continue,
    /// `stepi [N]`.
    Stepi(u64),
    /// `stepi all [N]`: every ready wave advances N instructions, whatever
    /// scheduler-locking says (the TUI's "step all waves").
    StepiAll(u64),
    /// `stepi alone [N]`: the selected wave alone advances N instructions, whatever
    /// scheduler-locking says (the TUI's "step the selected wave").
    StepiAlone(u64),
    /// `reverse-stepi [N]`.
    ReverseStepi(u64),
    /// `goto N`.
    Goto(u64),
    /// `reverse-continue`.
    ReverseContinue,
    /// `last-write TARGET` (a memory range or a register, as written).
    LastWrite(String),
    /// `advance LOCATION`.
    Advance(String),
    /// `advance barrier`.
    AdvanceBarrier,
    /// `finish`.
    Finish,
    /// `interrupt`.
    Interrupt,
    /// `restart`.
    Restart,
    /// `wave N`.
    Wave(u32),
    /// `lane N`.
    Lane(u32),
    /// `info ...`.
    Info(Info),
    /// `print[/F] EXPR`.
    Print {
        /// Format letter.
        format: Option<char>,
        /// Expression text.
        expr: String,
    },
    /// `x/NFS ADDR`.
    Examine {
        /// Units.
        count: u64,
        /// Format letter.
        format: char,
        /// Unit size in bytes.
        size: usize,
        /// Address expression (with optional space prefix).
        addr: String,
    },
    /// `set TARGET = VALUE`.
    Set {
        /// Target text (register, `vN[L]`, `SPACE:ADDR`).
        target: String,
        /// Value expression.
        value: String,
    },
    /// `set scheduler-locking on|off`.
    SchedulerLocking(bool),
    /// `set history-size N`: the bound on time-travel snapshots, in MiB.
    HistorySize(u64),
    /// `set check GROUP on|off`: a sanitizer detector group.
    Check(crate::check::CheckGroup, bool),
    /// `why`: the last stop, described again.
    Why,
    /// `disassemble [LOCATION]`.
    Disassemble(Option<String>),
    /// `list [LINE | LOCATION | FILE:LINE | -]` (the argument as written).
    List(Option<String>),
    /// `context`: the context now.
    Context,
    /// `set context on|off`.
    SetContext(bool),
    /// `set context-sections SECTION,...`.
    ContextSections(Vec<super::context::Section>),
    /// `expect EXPR OP VALUE`.
    Expect {
        /// Left side.
        lhs: String,
        /// Operator.
        op: ExpectOp,
        /// Right side.
        rhs: String,
    },
    /// `display [EXPR]`.
    Display(Option<String>),
    /// `undisplay [N]`.
    Undisplay(Option<u32>),
    /// `save FILE`.
    Save(String),
    /// `load FILE`.
    Load(String),
    /// `help [COMMAND]`.
    Help(Option<String>),
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
                | Command::StepiAll(_)
                | Command::StepiAlone(_)
                | Command::ReverseStepi(_)
                | Command::ReverseContinue
                | Command::Goto(_)
                | Command::Advance(_)
                | Command::AdvanceBarrier
                | Command::Finish
        )
    }

    /// The instruction count of a step command (`None` for the others).
    pub fn step_count(&self) -> Option<u64> {
        match self {
            Command::Stepi(n) | Command::StepiAll(n) | Command::StepiAlone(n) => Some(*n),
            _ => None,
        }
    }
}

/// The command-language text of a command: what [`parse`] reads back as the same command
/// (front ends build typed commands and record this text).
impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let opt = |o: &Option<String>| o.as_ref().map(|t| format!(" {t}")).unwrap_or_default();
        let cond = |c: &Option<String>| c.as_ref().map(|t| format!(" if {t}")).unwrap_or_default();
        match self {
            Command::Break {
                location,
                condition,
                filters,
                temporary,
            } => {
                let name = if *temporary { "tbreak" } else { "break" };
                write!(f, "{name} {location}{}", cond(condition))?;
                if let Some(w) = filters.wave {
                    write!(f, " wave {w}")?;
                }
                if let Some(g) = filters.workgroup {
                    write!(f, " workgroup {g}")?;
                }
                if let Some(l) = filters.lane {
                    write!(f, " lane {l}")?;
                }
                Ok(())
            }
            Command::Delete(n) => write!(f, "delete{}", opt(&n.map(|n| n.to_string()))),
            Command::Enable(n, true) => write!(f, "enable {n}"),
            Command::Enable(n, false) => write!(f, "disable {n}"),
            Command::Ignore(n, c) => write!(f, "ignore {n} {c}"),
            Command::Condition(n, c) => write!(f, "condition {n}{}", opt(c)),
            Command::Watch {
                kind,
                place,
                addr,
                len,
                condition,
            } => {
                let space = match place {
                    WatchWhere::Global => "global",
                    WatchWhere::Shared(_) => "shared",
                    WatchWhere::Scratch(..) => "scratch",
                };
                write!(
                    f,
                    "{} {space}:{addr} {len}{}",
                    kind.command(),
                    cond(condition)
                )?;
                match place {
                    WatchWhere::Shared(Some(None)) => write!(f, " workgroup all"),
                    WatchWhere::Shared(Some(Some(g))) => write!(f, " workgroup {g}"),
                    WatchWhere::Scratch(w, l) => {
                        if let Some(w) = w {
                            write!(f, " wave {w}")?;
                        }
                        if let Some(l) = l {
                            write!(f, " lane {l}")?;
                        }
                        Ok(())
                    }
                    _ => Ok(()),
                }
            }
            Command::Continue => f.write_str("continue"),
            // The short forms for one step, as a user types them.
            Command::Stepi(1) => f.write_str("stepi"),
            Command::Stepi(n) => write!(f, "stepi {n}"),
            Command::StepiAll(1) => f.write_str("stepi all"),
            Command::StepiAll(n) => write!(f, "stepi all {n}"),
            Command::StepiAlone(1) => f.write_str("stepi alone"),
            Command::StepiAlone(n) => write!(f, "stepi alone {n}"),
            Command::ReverseStepi(1) => f.write_str("reverse-stepi"),
            Command::ReverseStepi(n) => write!(f, "reverse-stepi {n}"),
            Command::Goto(n) => write!(f, "goto {n}"),
            Command::ReverseContinue => f.write_str("reverse-continue"),
            Command::LastWrite(t) => write!(f, "last-write {t}"),
            Command::Advance(l) => write!(f, "advance {l}"),
            Command::AdvanceBarrier => f.write_str("advance barrier"),
            Command::Finish => f.write_str("finish"),
            Command::Interrupt => f.write_str("interrupt"),
            Command::Restart => f.write_str("restart"),
            Command::Wave(n) => write!(f, "wave {n}"),
            Command::Lane(n) => write!(f, "lane {n}"),
            Command::Info(i) => match i {
                Info::Waves => f.write_str("info waves"),
                Info::Lanes => f.write_str("info lanes"),
                Info::Registers(r) => write!(f, "info registers{}", opt(r)),
                Info::Breakpoints => f.write_str("info breakpoints"),
                Info::Watchpoints => f.write_str("info watchpoints"),
                Info::Changes => f.write_str("info changes"),
                Info::Display => f.write_str("info display"),
                Info::History => f.write_str("info history"),
                Info::Findings => f.write_str("info findings"),
                Info::Buffers => f.write_str("info buffers"),
                Info::Labels => f.write_str("info labels"),
            },
            Command::Print { format, expr } => match format {
                Some(c) => write!(f, "print/{c} {expr}"),
                None => write!(f, "print {expr}"),
            },
            Command::Examine {
                count,
                format,
                size,
                addr,
            } => {
                let unit = match size {
                    1 => 'b',
                    2 => 'h',
                    8 => 'g',
                    _ => 'w',
                };
                write!(f, "x/{count}{format}{unit} {addr}")
            }
            Command::Set { target, value } => write!(f, "set {target} = {value}"),
            Command::SchedulerLocking(on) => {
                write!(
                    f,
                    "set scheduler-locking {}",
                    if *on { "on" } else { "off" }
                )
            }
            Command::HistorySize(mib) => write!(f, "set history-size {mib}"),
            Command::Check(g, on) => {
                write!(
                    f,
                    "set check {} {}",
                    g.name(),
                    if *on { "on" } else { "off" }
                )
            }
            Command::Why => f.write_str("why"),
            Command::Disassemble(l) => write!(f, "disassemble{}", opt(l)),
            Command::List(l) => write!(f, "list{}", opt(l)),
            Command::Context => f.write_str("context"),
            Command::SetContext(on) => {
                write!(f, "set context {}", if *on { "on" } else { "off" })
            }
            Command::ContextSections(s) => {
                write!(
                    f,
                    "set context-sections {}",
                    super::context::sections_text(s)
                )
            }
            Command::Expect { lhs, op, rhs } => write!(f, "expect {lhs} {} {rhs}", op.text()),
            Command::Display(d) => write!(f, "display{}", opt(d)),
            Command::Undisplay(n) => write!(f, "undisplay{}", opt(&n.map(|n| n.to_string()))),
            Command::Save(file) => write!(f, "save {file}"),
            Command::Load(file) => write!(f, "load {file}"),
            Command::Help(t) => write!(f, "help{}", opt(t)),
        }
    }
}

/// A command that could not be parsed: what was wrong and the right form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}{}", usage.as_ref().map(|u| format!("\nusage: {u}")).unwrap_or_default())]
pub struct CommandError {
    /// What was wrong.
    pub message: String,
    /// The command's usage, when known.
    pub usage: Option<String>,
}

/// The canonical name of a command or alias.
pub fn canonical(word: &str) -> Option<&'static str> {
    HELP.iter()
        .find(|(n, aliases, _, _)| *n == word || aliases.contains(&word))
        .map(|(n, ..)| *n)
}

/// The usage line of a command.
pub fn usage(name: &str) -> Option<&'static str> {
    HELP.iter()
        .find(|(n, ..)| *n == name)
        .map(|(_, _, u, _)| *u)
}

fn error(name: &str, message: impl Into<String>) -> CommandError {
    CommandError {
        message: message.into(),
        usage: usage(name).map(str::to_string),
    }
}

fn number(name: &str, s: &str) -> Result<u64, CommandError> {
    super::expr::parse_number(s.trim())
        .map(|v| v as u64)
        .ok_or_else(|| error(name, format!("`{}` is not a number", s.trim())))
}

/// A number that must fit in 32 bits (ids, counts): a larger one is an error, never
/// silently truncated.
fn number32(name: &str, s: &str) -> Result<u32, CommandError> {
    let v = number(name, s)?;
    u32::try_from(v).map_err(|_| {
        error(
            name,
            format!("`{}` is out of range (0-{})", s.trim(), u32::MAX),
        )
    })
}

/// Splits trailing `wave N`, `workgroup N|all` and `lane N` filters off `text`.
fn split_filters(
    name: &str,
    mut text: &str,
) -> Result<(String, Filters, Option<Option<u32>>), CommandError> {
    let mut f = Filters::default();
    let mut group: Option<Option<u32>> = None;
    loop {
        let t = text.trim_end();
        let Some((head, last)) = t.rsplit_once(char::is_whitespace) else {
            break;
        };
        let Some((head2, key)) = head
            .trim_end()
            .rsplit_once(char::is_whitespace)
            .or(Some(("", head.trim_end())))
        else {
            break;
        };
        let twice = |what: &str| Err(error(name, format!("`{what}` is given twice")));
        match key {
            "wave" if f.wave.is_some() => return twice("wave"),
            "lane" if f.lane.is_some() => return twice("lane"),
            "workgroup" | "wg" if group.is_some() => return twice("workgroup"),
            "wave" => f.wave = Some(number32(name, last)?),
            "lane" => {
                let l = number(name, last)?;
                if l >= 32 {
                    return Err(error(name, format!("lane {l} out of range (0-31)")));
                }
                f.lane = Some(l as u8);
            }
            "workgroup" | "wg" if last == "all" => group = Some(None),
            "workgroup" | "wg" => {
                let g = number32(name, last)?;
                f.workgroup = Some(g);
                group = Some(Some(g));
            }
            _ => break,
        }
        text = head2;
    }
    Ok((text.trim().to_string(), f, group))
}

/// The filters given before and after a condition, together; one given twice is an error.
fn merge_filters(name: &str, a: Filters, b: Filters) -> Result<Filters, CommandError> {
    let twice = |what: &str| Err(error(name, format!("`{what}` is given twice")));
    if a.wave.is_some() && b.wave.is_some() {
        return twice("wave");
    }
    if a.workgroup.is_some() && b.workgroup.is_some() {
        return twice("workgroup");
    }
    if a.lane.is_some() && b.lane.is_some() {
        return twice("lane");
    }
    Ok(Filters {
        wave: a.wave.or(b.wave),
        workgroup: a.workgroup.or(b.workgroup),
        lane: a.lane.or(b.lane),
    })
}

/// Splits `... if EXPR` into the part before and the condition.
fn split_if(text: &str) -> (String, Option<String>) {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix("if ") {
        return (String::new(), Some(rest.trim().to_string()));
    }
    match t.find(" if ") {
        Some(i) => (
            t[..i].trim().to_string(),
            Some(t[i + 4..].trim().to_string()),
        ),
        None => (t.to_string(), None),
    }
}

/// Parses one command line. Empty lines and `#` comments give `Ok(None)`.
pub fn parse(line: &str) -> Result<Option<Command>, CommandError> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let (head, rest) = line
        .split_once(char::is_whitespace)
        .map_or((line, ""), |(h, r)| (h, r.trim()));
    let (word, slash) = head
        .split_once('/')
        .map_or((head, None), |(w, s)| (w, Some(s)));
    let Some(name) = canonical(word) else {
        let names: Vec<&str> = HELP.iter().map(|(n, ..)| *n).collect();
        let near = crate::asm::nearest_word(word, &names);
        return Err(CommandError {
            message: format!(
                "unknown command `{word}`{}",
                near.map(|n| format!(" (did you mean `{n}`?)"))
                    .unwrap_or_default()
            ),
            usage: Some("help lists every command".into()),
        });
    };
    if slash.is_some() && !matches!(name, "print" | "x" | "display") {
        return Err(error(name, format!("`{name}` takes no /FORMAT")));
    }
    let need = |what: &str| -> Result<(), CommandError> {
        if rest.is_empty() {
            Err(error(name, format!("`{name}` needs {what}")))
        } else {
            Ok(())
        }
    };
    let id = |s: &str| number32(name, s);
    let cmd = match name {
        "break" | "tbreak" => {
            need("a location")?;
            // Filters go after the condition or, as gdb's `thread N`, before `if`.
            let (body, after, _) = split_filters(name, rest)?;
            let (head, condition) = split_if(&body);
            let (location, before, _) = split_filters(name, &head)?;
            let filters = merge_filters(name, before, after)?;
            if location.is_empty() || location.contains(char::is_whitespace) {
                return Err(error(name, format!("bad location `{location}`")));
            }
            Command::Break {
                location,
                condition,
                filters,
                temporary: name == "tbreak",
            }
        }
        "delete" => Command::Delete(if rest.is_empty() {
            None
        } else {
            Some(id(rest)?)
        }),
        "disable" | "enable" => {
            need("a breakpoint number")?;
            Command::Enable(id(rest)?, name == "enable")
        }
        "ignore" => {
            let (a, b) = rest
                .split_once(char::is_whitespace)
                .ok_or_else(|| error(name, "needs a number and a count"))?;
            Command::Ignore(id(a)?, id(b)?)
        }
        "condition" => {
            need("a breakpoint number")?;
            let (n, expr) = rest
                .split_once(char::is_whitespace)
                .map_or((rest, ""), |(a, b)| (a, b.trim()));
            Command::Condition(id(n)?, (!expr.is_empty()).then(|| expr.to_string()))
        }
        "watch" | "rwatch" | "awatch" => {
            need("an address")?;
            let kind = match name {
                "watch" => WatchKind::Write,
                "rwatch" => WatchKind::Read,
                _ => WatchKind::Access,
            };
            let (body, after, group_after) = split_filters(name, rest)?;
            let (head, condition) = split_if(&body);
            let (target, before, group_before) = split_filters(name, &head)?;
            let filters = merge_filters(name, before, after)?;
            let group = match (group_before, group_after) {
                (Some(_), Some(_)) => return Err(error(name, "`workgroup` is given twice")),
                (a, b) => a.or(b),
            };
            let mut parts = target.split_whitespace();
            let addr_text = parts
                .next()
                .ok_or_else(|| error(name, "needs an address"))?;
            let len = match parts.next() {
                Some(l) => number(name, l)?,
                None => 4,
            };
            if parts.next().is_some() {
                return Err(error(name, format!("unexpected text in `{target}`")));
            }
            let (place, addr) = match addr_text.split_once(':') {
                Some(("global", a)) => (WatchWhere::Global, a),
                Some(("shared", a)) => (WatchWhere::Shared(group), a),
                Some(("scratch", a)) => (WatchWhere::Scratch(filters.wave, filters.lane), a),
                Some((s, _)) => {
                    return Err(error(
                        name,
                        format!("unknown space `{s}` (global, shared, scratch)"),
                    ))
                }
                None => (WatchWhere::Global, addr_text),
            };
            Command::Watch {
                kind,
                place,
                addr: addr.to_string(),
                len,
                condition,
            }
        }
        "continue" => Command::Continue,
        "stepi" => {
            let word = |w: &str| {
                rest.strip_prefix(w)
                    .filter(|r| r.is_empty() || r.starts_with(char::is_whitespace))
                    .map(str::trim)
            };
            let (make, count): (fn(u64) -> Command, &str) = if let Some(r) = word("all") {
                (Command::StepiAll, r)
            } else if let Some(r) = word("alone") {
                (Command::StepiAlone, r)
            } else {
                (Command::Stepi, rest)
            };
            make(if count.is_empty() {
                1
            } else {
                number(name, count)?
            })
        }
        "reverse-stepi" => Command::ReverseStepi(if rest.is_empty() {
            1
        } else {
            number(name, rest)?
        }),
        "reverse-continue" => Command::ReverseContinue,
        "last-write" => {
            need("a memory address or a register")?;
            Command::LastWrite(rest.to_string())
        }
        "goto" => {
            need("an instruction count")?;
            Command::Goto(number(name, rest)?)
        }
        "advance" => {
            need("a location")?;
            if rest == "barrier" {
                Command::AdvanceBarrier
            } else {
                Command::Advance(rest.to_string())
            }
        }
        "finish" => Command::Finish,
        "interrupt" => Command::Interrupt,
        "restart" => Command::Restart,
        "why" => Command::Why,
        "wave" => {
            need("a wave id")?;
            Command::Wave(id(rest)?)
        }
        "lane" => {
            need("a lane")?;
            Command::Lane(id(rest)?)
        }
        "info" => {
            need("a topic: waves, lanes, registers, breakpoints, watchpoints, changes, display, history, findings, buffers or labels")?;
            let (what, arg) = rest
                .split_once(char::is_whitespace)
                .map_or((rest, ""), |(a, b)| (a, b.trim()));
            Command::Info(match what {
                "waves" | "threads" | "w" => Info::Waves,
                "lanes" | "l" => Info::Lanes,
                "registers" | "reg" | "r" | "all-registers" => {
                    Info::Registers((!arg.is_empty()).then(|| arg.to_string()))
                }
                "breakpoints" | "break" | "b" => Info::Breakpoints,
                "watchpoints" | "watch" => Info::Watchpoints,
                "changes" => Info::Changes,
                "display" | "displays" => Info::Display,
                "history" => Info::History,
                "findings" | "checks" => Info::Findings,
                "buffers" | "buffer" => Info::Buffers,
                "labels" | "label" | "symbols" => Info::Labels,
                _ => return Err(error(name, format!("unknown `info {what}`"))),
            })
        }
        "print" => {
            need("an expression")?;
            let format = match slash {
                None => None,
                Some(f) if f.len() == 1 && "xdutfco".contains(f) => f.chars().next(),
                Some(f) => {
                    return Err(error(
                        name,
                        format!("unknown format `/{f}` (x d u t f c o)"),
                    ))
                }
            };
            Command::Print {
                format,
                expr: rest.to_string(),
            }
        }
        "x" => {
            need("an address")?;
            let spec = slash.unwrap_or("");
            let digits: String = spec.chars().take_while(char::is_ascii_digit).collect();
            let count = if digits.is_empty() {
                1
            } else {
                number(name, &digits)?
            };
            let (mut format, mut size) = ('x', 4);
            for c in spec[digits.len()..].chars() {
                match c {
                    'x' | 'd' | 'u' | 't' | 'f' | 'c' | 'o' => format = c,
                    'b' => size = 1,
                    'h' => size = 2,
                    'w' => size = 4,
                    'g' => size = 8,
                    _ => return Err(error(name, format!("unknown format or size letter `{c}`"))),
                }
            }
            if count == 0 || count > 4096 {
                return Err(error(name, "count must be 1 to 4096"));
            }
            Command::Examine {
                count,
                format,
                size,
                addr: rest.to_string(),
            }
        }
        "set" => {
            if let Some(v) = rest.strip_prefix("history-size") {
                let v = v.trim();
                if v.is_empty() {
                    return Err(error(name, "set history-size MIB"));
                }
                Command::HistorySize(number(name, v)?)
            } else if let Some(v) = rest.strip_prefix("check ") {
                let usage = "set check races|sync|init|hazards|all on|off";
                let mut words = v.split_whitespace();
                let group = words
                    .next()
                    .and_then(crate::check::CheckGroup::parse)
                    .ok_or_else(|| error(name, usage))?;
                let on = match (words.next(), words.next()) {
                    (Some("on"), None) => true,
                    (Some("off"), None) => false,
                    _ => return Err(error(name, usage)),
                };
                Command::Check(group, on)
            } else if let Some(v) = rest.strip_prefix("context-sections") {
                let v = v.trim();
                if v.is_empty() {
                    return Err(error(name, "set context-sections SECTION,...|all"));
                }
                let sections = super::context::parse_sections(v).map_err(|e| error(name, e))?;
                Command::ContextSections(sections)
            } else if let Some(v) = rest
                .strip_prefix("context")
                .filter(|v| v.is_empty() || v.starts_with(char::is_whitespace))
            {
                match v.trim() {
                    "on" => Command::SetContext(true),
                    "off" => Command::SetContext(false),
                    _ => return Err(error(name, "set context on|off")),
                }
            } else if let Some(v) = rest.strip_prefix("scheduler-locking") {
                match v.trim() {
                    "on" | "step" => Command::SchedulerLocking(true),
                    "off" => Command::SchedulerLocking(false),
                    _ => return Err(error(name, "set scheduler-locking on|off")),
                }
            } else {
                let body = rest.strip_prefix("var ").unwrap_or(rest);
                let (target, value) = body
                    .split_once('=')
                    .ok_or_else(|| error(name, "needs `TARGET = VALUE`"))?;
                if target.trim().is_empty() || value.trim().is_empty() {
                    return Err(error(name, "needs `TARGET = VALUE`"));
                }
                Command::Set {
                    target: target.trim().to_string(),
                    value: value.trim().to_string(),
                }
            }
        }
        "disassemble" => Command::Disassemble((!rest.is_empty()).then(|| rest.to_string())),
        "list" => Command::List((!rest.is_empty()).then(|| rest.to_string())),
        "context" => {
            if !rest.is_empty() {
                return Err(error(
                    name,
                    "`context` takes no argument (set context-sections chooses what it shows)",
                ));
            }
            Command::Context
        }
        "expect" => {
            need("an assertion")?;
            // One expression whose root operator is the comparison: `16 == 1 << 4`
            // compares 16 with 1 << 4, as C would parse it.
            let usage = "needs a comparison: EXPR OP VALUE with OP one of == != < <= > >=";
            const CMP: [&str; 6] = ["==", "!=", "<=", ">=", "<", ">"];
            if CMP.iter().any(|t| rest.starts_with(t) || rest.ends_with(t)) {
                return Err(error(name, "needs both sides of the comparison"));
            }
            let (_, root) = super::expr::parse_with_root(rest)
                .map_err(|e| error(name, format!("bad expression `{rest}`: {e}")))?;
            let Some((i, j)) = root else {
                return Err(error(name, usage));
            };
            let op = match &rest[i..j] {
                "==" => ExpectOp::Eq,
                "!=" => ExpectOp::Ne,
                "<=" => ExpectOp::Le,
                ">=" => ExpectOp::Ge,
                "<" => ExpectOp::Lt,
                ">" => ExpectOp::Gt,
                other => {
                    return Err(error(
                        name,
                        format!("{usage} (the outermost operator is `{other}`; add parentheses)"),
                    ))
                }
            };
            let (lhs, rhs) = (rest[..i].trim(), rest[j..].trim());
            Command::Expect {
                lhs: lhs.to_string(),
                op,
                rhs: rhs.to_string(),
            }
        }
        "display" => {
            let text = match slash {
                Some(f) => format!("/{f} {rest}"),
                None => rest.to_string(),
            };
            Command::Display((!text.trim().is_empty()).then(|| text.trim().to_string()))
        }
        "undisplay" => Command::Undisplay(if rest.is_empty() {
            None
        } else {
            Some(id(rest)?)
        }),
        "save" | "load" => {
            need("a file name")?;
            let file = rest.trim_matches('"').to_string();
            if name == "save" {
                Command::Save(file)
            } else {
                Command::Load(file)
            }
        }
        "help" => Command::Help((!rest.is_empty()).then(|| rest.to_string())),
        _ => return Err(error(name, "not implemented")),
    };
    Ok(Some(cmd))
}

/// The help text: all commands, or one.
pub fn help(topic: Option<&str>) -> Result<String, CommandError> {
    match topic {
        None => {
            let mut s = String::from("Commands (`help COMMAND` for details):\n");
            for (n, aliases, _, about) in HELP {
                let short: String = about.split(';').next().unwrap_or(about).to_string();
                let a = if aliases.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", aliases.join(", "))
                };
                s.push_str(&format!("  {:<22} {short}\n", format!("{n}{a}")));
            }
            Ok(s)
        }
        Some(t) => {
            let name = canonical(t.trim()).ok_or_else(|| CommandError {
                message: format!("no command `{t}`"),
                usage: Some("help lists every command".into()),
            })?;
            let (n, aliases, usage, about) = HELP
                .iter()
                .find(|(n, ..)| *n == name)
                .copied()
                .unwrap_or(HELP[0]);
            let a = if aliases.is_empty() {
                String::new()
            } else {
                format!("\naliases: {}", aliases.join(", "))
            };
            Ok(format!("{usage}\n{n}: {about}{a}\n"))
        }
    }
}

/// docs/commands.md: the guide text plus the reference generated from [`HELP`] (a test
/// keeps the committed file up to date).
pub fn markdown() -> String {
    let mut s = String::from(COMMANDS_GUIDE);
    s.push_str(
        "\n## Reference\n\n| command | aliases | usage | what it does |\n|---|---|---|---|\n",
    );
    for (n, aliases, usage, about) in HELP {
        s.push_str(&format!(
            "| `{n}` | {} | `{}` | {} |\n",
            if aliases.is_empty() {
                "-".to_string()
            } else {
                aliases
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(" ")
            },
            usage.replace('|', "\\|"),
            about.replace('|', "\\|")
        ));
    }
    s
}

const COMMANDS_GUIDE: &str = "# The command language

One command language drives the TUI's command line, the REPL, replay scripts and the GDB
server's `monitor`. It follows gdb where gdb has an equivalent. Commands parse into typed
values once and then run on the debug engine; a malformed command says what is wrong and
prints the command's usage. `help` lists the commands and `help COMMAND` describes one.
This file is generated from the same table as `help` (`emulator/src/debug/command.rs`).

## Waves, lanes and stops

Waves are numbered by their global id (`workgroup * waves_per_workgroup + index`); `wave N`
selects one, `lane N` a lane of it. Commands that read lane values (`print v3`,
conditions, `scratch:` memory) use the selected lane unless an index is given (`v3[5]`).
Every stop selects the wave it concerns. A stop is one of: breakpoint (with the lanes that
satisfied the condition), watchpoint (wave, accessing PC, lanes, old and new values), step
done, a location reached, the `brk` instruction, a fault (reported as the signal gdb would
show: SIGSEGV, SIGBUS, SIGILL, SIGTRAP), a deadlock, all waves exited, or an interrupt.

## Stepping and scheduler locking

`set scheduler-locking on` (the default): `stepi N` executes N instructions of the selected
wave while every other wave stays frozen. `set scheduler-locking off`: each step advances
every ready wave by one instruction, in wave order. `continue` always runs all waves under
the deterministic scheduler (docs/scheduling.md). `advance barrier` runs the selected wave
alone until it arrives at a barrier, `finish` until it exits; if it must wait for frozen
waves the stop says so instead of hanging. `stepi all [N]` advances every ready wave N
times whatever the setting (the TUI's `S`), and `stepi alone [N]` the selected wave alone
(the TUI's `s`). `stepi 0` executes nothing and says so, as gdb
does.

## Breakpoints

`break LOCATION` takes a label, `label+OFFSET`, or an address (`0x40`, `*0x40`). A
condition is evaluated for every active lane (restricted to `lane N` when given) and the
breakpoint stops when any lane satisfies it; the stop lists those lanes. `wave N` and
`workgroup N` restrict it to a wave or workgroup. The filters go after the condition or,
as gdb's `thread N`, before `if` (`break loop wave 3 if v1 > 2`); the confirmation names
them (`Breakpoint 2 at 0x0040 <loop>, wave 3, lane 5`). `ignore N COUNT` skips the next
COUNT hits; `info breakpoints` lists breakpoints and watchpoints together by number, with
hit counts. Continuing from a breakpoint steps over it once.

## Watchpoints

`watch`, `rwatch` and `awatch` stop right after an instruction that writes, reads, or
touches any byte of the range; atomics count as both read and write. They are exact and
unlimited in number. The stop names the wave, the PC of the accessing instruction, every
lane that touched the range, and the old and new values (a write of an unchanged value
still stops: every store is reported). `shared:` watches the selected wave's workgroup
unless `workgroup N` or `workgroup all` is given; `scratch:` watches the selected lane of
the selected wave unless `wave N` and `lane N` are given.

## Expressions

Numbers (decimal, `0x`, `0b`, `0o`), registers `v3` (the selected lane), `v3[5]`, `u2`,
`exec`, `pc`, `lane`, `wave`, buffer names (the buffer's base address: `x/4xw out+16`,
`watch out+64`, `expect global:out == 5`), labels (their code address), memory
`global:ADDR`, `shared:ADDR`, `scratch:ADDR` (a little-endian u32; the address is one
value, so `global:(out + 4)` reads the second word of `out`), and the C operators
`+ - * / % << >> < <= > >= == != & ^ | && || ! ~` with C precedence (every C level its
own: `8 > 1 << 2` is `8 > 4`) and parentheses, nested at most 256 deep. Values are 64-bit
integers; registers and memory read as unsigned 32-bit values, and `s32(x)` reinterprets
the low 32 bits as signed (`s32(v3) < 0`). In `print`, an expression that reads per-lane
data (a vector register without an index, `scratch:`) is shown for every lane; anything
else is evaluated at the selected lane, so `p lane` is the selected lane and
`p v3[lane]` its `v3`. In a breakpoint condition `lane` is each lane tested. `expect`
takes one expression whose outermost operator is a comparison (`expect 16 == 1 << 4`).

A name that is both a buffer and a label is resolved by where it is written: in an
expression (`print`, `x`, `watch`, `expect`, `display`, `set`, conditions) it is the
buffer; as a location (`break`, `tbreak`, `advance`, `disassemble`, `list`) it is the
label, since only code is a location. `info buffers` lists the buffers (name, address,
size, the `.arg` registers holding each) and `info labels` the labels (name, address,
source line).

## Source and context

When the kernel was opened from its `.s` file, every stop ends with the source line of the
instruction the wave executes next (of the faulting instruction after a fault, of the
barrier in a deadlock), as gdb shows it: the line number, a tab and the line
(`  42    ld.shared.b32 v5, v2, 128`). `list` shows 10 source lines around the selected
wave's PC (`=>` marks its line, `B` lines with a breakpoint); `list` again, or Enter,
shows the next 10 and `list -` the 10 before; `list N`, `list LABEL`, `list *ADDR` and
`list FILE:N` show the lines around another place. A kernel opened from a `.wko` object
has no source: `list` says so and stops show no line.

`context` shows, as pwndbg does, the stop reason and the selection, the disassembly
around the PC, the source lines around its line, the selected wave's registers that
changed since the previous stop (old and new values; for vector registers the lanes, and
the selected lane's values), the lanes of every register the instruction at the PC reads
and writes, and EXEC on a lane scale. `set context on` shows it after every stop, without
the reason (the stop's description is right above it); the REPL starts with it on, the
engine, and so replay, with it off, which keeps transcripts short;
`set context-sections exec,regs` chooses the sections and their order from `reason`,
`code`, `source`, `regs`, `lanes` and `exec` (`all` for every one).

## Formats

`print/F` and `x/NFS` take a format letter `x` (hex), `d` (signed), `u` (unsigned), `t`
(binary), `f` (float), `c` (char), `o` (octal); `x` also takes a size `b` (1 byte), `h` (2),
`w` (4, the default) or `g` (8).

## Displays and sessions

`display EXPR` (or `display/F EXPR`) shows an expression after every stop, numbered;
`undisplay N` removes one and `info display` lists them. `save FILE` writes the session
(kernel, launch settings and seed, breakpoints, watchpoints, displays, selection and the log
of commands) and `load FILE` restores one (docs/sessions.md).

`--record FILE` (REPL and TUI) writes the commands as a replay script whose `#! kernel`
line names the kernel relative to the script's folder. The REPL records a command once it
has run, and leaves out what would not replay as it ran: a command that failed, an
`expect` that did not hold, and `save` (it writes a file); `load` is recorded with the
session file's absolute path. A recorded REPL session replays to success.

## When the launch ends

`continue` ends with `All waves exited` when every workgroup has run, with the fault when
a wave faults (continuing then runs the other waves), with a deadlock report when a barrier
can never complete, and with `The launch is over` when only faulted waves are left. The
deadlock report names each waiting wave with the PC `info waves` shows for it (a wave
waiting at a barrier has executed it, so its PC is the next instruction) and the barrier
it waits at. `advance barrier` likewise stops after the barrier instruction and says so:
the wave waits there for its workgroup, or, the last to arrive, has released it.

## Limits

A watchpoint on `shared:` of a workgroup that has not been dispatched yet (when the grid
is larger than `--resident`), or on the scratch of a wave of one, can be set before it
arrives: the range is checked against the window it will have, and the watchpoint stops
when that workgroup touches it. A workgroup that has finished cannot be watched (its
memory is gone); `workgroup all` covers every workgroup as it arrives.

## Scripts

Replay scripts hold one command per line; `#` starts a comment. `expect EXPR OP VALUE`
asserts a relation and, when it fails, prints both sides' values.
";
