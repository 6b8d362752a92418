//! [`Command`] to text: what [`super::parse`] reads back as the same command. The log,
//! recordings and sessions store this text; front ends build typed commands and record
//! it.

use std::fmt::{self, Display, Formatter};

use super::{
    Command, DisplaySpec, Info, LaneColumns, LaneReg, LastWriteTarget, ListArg, Location, MemRef,
    Numbers, RegRef, SetTarget, WatchWhere,
};

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

/// Each number or range after a space (`" 1 4-6"`); nothing for every one.
impl Display for Numbers {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for &(a, b) in &self.0 {
            if a == b {
                write!(f, " {a}")?;
            } else {
                write!(f, " {a}-{b}")?;
            }
        }
        Ok(())
    }
}

/// A location's file name as the parser reads it back: as it is when it holds no space,
/// comma or quote (an unquoted name splits at its last colon), else quoted, as gdb takes
/// it, with the quote it does not hold. A name holding both quotes can only have been
/// read unquoted (`a'b".cl:3`), and is written so.
fn file_text(file: &str) -> String {
    let bare = !file.is_empty()
        && file.trim() == file
        && !file.starts_with(['\'', '"', '*'])
        && !file.contains(|c: char| c.is_whitespace() || c == ',');
    let quotes = (file.contains('\''), file.contains('"'));
    match quotes {
        (false, false) if bare => file.to_string(),
        (true, true) => file.to_string(),
        (_, false) => format!("\"{file}\""),
        (false, true) => format!("'{file}'"),
    }
}

impl Display for Location {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let file = |file: &Option<String>| file.as_ref().map(|f| format!("{}:", file_text(f)));
        match self {
            Location::Address(a) => write!(f, "*{a:#x}"),
            Location::Expr(e) => write!(f, "*{e}"),
            Location::Label {
                file: p,
                name,
                offset,
            } => {
                f.write_str(&file(p).unwrap_or_default())?;
                match offset {
                    0 => f.write_str(name),
                    n => write!(f, "{name}+{n}"),
                }
            }
            // With no file, `:LINE`: a bare number is an address to every command but
            // `list`.
            Location::Line { file: p, line } => {
                write!(f, "{}{line}", file(p).unwrap_or_else(|| ":".into()))
            }
        }
    }
}

/// Always with its space: the address is an expression that may itself start with one
/// (`global:(out)` reads memory), which only the space in front keeps apart.
impl Display for MemRef {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.space.name(), self.addr)
    }
}

/// A path as `save` and `load` read it back: quoted where its ends would be lost.
fn path_text(file: &str) -> String {
    if file.trim() != file || file.starts_with('"') || file.ends_with('"') {
        format!("\"{file}\"")
    } else {
        file.to_string()
    }
}

impl Display for RegRef {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            RegRef::Vector(r) => write!(f, "v{r}"),
            RegRef::VectorLane(r, lane) => write!(f, "v{r}[{lane}]"),
            RegRef::Uniform(r) => write!(f, "u{r}"),
            RegRef::Exec => f.write_str("exec"),
            RegRef::Pc => f.write_str("pc"),
        }
    }
}

impl Display for SetTarget {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            SetTarget::Register(r) => r.fmt(f),
            SetTarget::Memory(m) => m.fmt(f),
        }
    }
}

impl Display for LastWriteTarget {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            LastWriteTarget::Memory(m) if m.len == 4 => m.fmt(f),
            LastWriteTarget::Memory(m) => write!(f, "{m} {}", m.len),
            LastWriteTarget::Vector { reg, lane: None } => write!(f, "v{reg}"),
            LastWriteTarget::Vector { reg, lane: Some(l) } => write!(f, "v{reg}[{l}]"),
            LastWriteTarget::Uniform(r) => write!(f, "u{r}"),
            LastWriteTarget::Exec => f.write_str("exec"),
        }
    }
}

impl Display for DisplaySpec {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.format {
            Some(c) => write!(f, "/{c} {}", self.expr),
            None => self.expr.fmt(f),
        }
    }
}

impl Display for LaneReg {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            LaneReg::Vector(r) => write!(f, "v{r}"),
            LaneReg::Uniform(r) => write!(f, "u{r}"),
            LaneReg::Exec => f.write_str("exec"),
        }
    }
}

/// ` /F REG...` after `lanes` (nothing when there are none).
impl Display for LaneColumns {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(c) = self.format {
            write!(f, " /{c}")?;
        }
        for r in &self.regs {
            write!(f, " {r}")?;
        }
        Ok(())
    }
}

impl Display for Info {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Info::Waves => "waves",
            Info::Lanes(columns) => return write!(f, "lanes{columns}"),
            Info::Frame => "frame",
            Info::Registers(None) => "registers",
            Info::Registers(Some(r)) => return write!(f, "registers {r}"),
            Info::Breakpoints => "breakpoints",
            Info::Watchpoints => "watchpoints",
            Info::Changes => "changes",
            Info::Display => "display",
            Info::History => "history",
            Info::Findings => "findings",
            Info::Buffers => "buffers",
            Info::Labels => "labels",
            Info::Line(None) => "line",
            Info::Line(Some(l)) => return write!(f, "line {l}"),
            Info::Source => "source",
            Info::Locals => "locals",
        })
    }
}

/// The command-language text of a command: what [`super::parse`] reads back as the same
/// command.
impl Display for Command {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let name = self.name();
        match self {
            Command::Break {
                location,
                condition,
                filters,
                ..
            } => {
                write!(f, "{name} {location}")?;
                if let Some(c) = condition {
                    write!(f, " if {c}")?;
                }
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
            Command::Delete(n) | Command::Enable(n, _) | Command::Undisplay(n) => {
                write!(f, "{name}{n}")
            }
            Command::Ignore(n, c) => write!(f, "ignore {n} {c}"),
            Command::Condition(n, None) => write!(f, "condition {n}"),
            Command::Condition(n, Some(c)) => write!(f, "condition {n} {c}"),
            Command::Watch {
                place,
                addr,
                len,
                condition,
                ..
            } => {
                write!(f, "{name} {}:{addr} {len}", place.space().name())?;
                if let Some(c) = condition {
                    write!(f, " if {c}")?;
                }
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
            // The short forms for one step, as a user types them.
            Command::Stepi(1) => f.write_str("stepi"),
            Command::Stepi(n) => write!(f, "stepi {n}"),
            Command::StepiAll(1) => f.write_str("stepi all"),
            Command::StepiAll(n) => write!(f, "stepi all {n}"),
            Command::StepiAlone(1) => f.write_str("stepi alone"),
            Command::StepiAlone(n) => write!(f, "stepi alone {n}"),
            Command::ReverseStepi(1) => f.write_str("reverse-stepi"),
            Command::ReverseStepi(n) => write!(f, "reverse-stepi {n}"),
            Command::ReverseStep(1) | Command::ReverseNext(1) => f.write_str(name),
            Command::ReverseStep(n) | Command::ReverseNext(n) => write!(f, "{name} {n}"),
            Command::Goto(n) => write!(f, "goto {n}"),
            Command::Finding { number, side } => {
                write!(f, "finding {number}")?;
                match side {
                    Some(side) => write!(f, " {}", side.word()),
                    None => Ok(()),
                }
            }
            Command::LastWrite(t) => write!(f, "last-write {t}"),
            Command::Step(1) | Command::Next(1) => f.write_str(name),
            Command::Step(n) | Command::Next(n) => write!(f, "{name} {n}"),
            Command::Advance(l) => write!(f, "advance {l}"),
            Command::Until(Some(l)) => write!(f, "until {l}"),
            Command::Frame(None) => f.write_str(name),
            Command::Frame(Some(n)) => write!(f, "frame {n}"),
            Command::Up(1) | Command::Down(1) => f.write_str(name),
            Command::Up(n) | Command::Down(n) => write!(f, "{name} {n}"),
            Command::AdvanceBarrier => f.write_str("advance barrier"),
            Command::Continue
            | Command::ReverseContinue
            | Command::Finish
            | Command::ReverseFinish
            | Command::Interrupt
            | Command::Restart
            | Command::Run
            | Command::Start
            | Command::Backtrace
            | Command::Until(None)
            | Command::Why
            | Command::Context => f.write_str(name),
            Command::Wave(Some(n)) => write!(f, "wave {n}"),
            Command::Wave(None) => write!(f, "wave"),
            Command::Lane(n) => write!(f, "lane {n}"),
            Command::Info(i) => write!(f, "info {i}"),
            Command::Print {
                format: Some(c),
                expr,
            } => write!(f, "print/{c} {expr}"),
            Command::Print { format: None, expr } => write!(f, "print {expr}"),
            Command::Examine {
                count,
                format,
                size,
                space,
                addr,
            } => {
                let unit = match size {
                    1 => 'b',
                    2 => 'h',
                    8 => 'g',
                    _ => 'w',
                };
                write!(f, "x/{count}{format}{unit} {}:{addr}", space.name())
            }
            Command::ExamineCode { count, addr } => write!(f, "x/{count}i {addr}"),
            Command::Set { target, value } => write!(f, "set {target} = {value}"),
            Command::SchedulerLocking(on) => write!(f, "set scheduler-locking {}", on_off(*on)),
            Command::HistorySize(mib) => write!(f, "set history-size {mib}"),
            Command::Check(g, on) => write!(f, "set check {} {}", g.name(), on_off(*on)),
            Command::Disassemble(None) => f.write_str(name),
            Command::Disassemble(Some(l)) => write!(f, "disassemble {l}"),
            Command::List(None) => f.write_str(name),
            Command::List(Some(ListArg::Before)) => f.write_str("list -"),
            // A bare number is a line to `list`.
            Command::List(Some(ListArg::Around(Location::Line { file: None, line }))) => {
                write!(f, "list {line}")
            }
            Command::List(Some(ListArg::Around(l))) => write!(f, "list {l}"),
            Command::List(Some(ListArg::Range(first, last))) => {
                // A bare number is a line, as above.
                let side = |l: &Option<Location>| match l {
                    None => String::new(),
                    Some(Location::Line { file: None, line }) => line.to_string(),
                    Some(l) => l.to_string(),
                };
                write!(f, "list {},{}", side(first), side(last))
            }
            Command::SetContext(on) => write!(f, "set context {}", on_off(*on)),
            Command::ContextSections(s) => write!(
                f,
                "set context-sections {}",
                crate::debug::context::sections_text(s)
            ),
            Command::SetConfirm(on) => write!(f, "set confirm {}", on_off(*on)),
            Command::SetFormat(target, format) => {
                write!(f, "set format {} {}", target.word(), format.word())
            }
            Command::SetMemoryUnit(unit) => write!(f, "set memory-unit {}", unit.word()),
            Command::SetSplit(target, Some(p)) => write!(f, "set split {} {p}", target.word()),
            Command::SetSplit(target, None) => write!(f, "set split {} default", target.word()),
            Command::SetWidth(n) => write!(f, "set width {n}"),
            Command::Expect { lhs, op, rhs } => write!(f, "expect {lhs} {} {rhs}", op.text()),
            Command::Display(None) => f.write_str(name),
            Command::Display(Some(d)) => match d.format {
                Some(c) => write!(f, "display/{c} {}", d.expr),
                None => write!(f, "display {}", d.expr),
            },
            Command::Save(file) => write!(f, "save {}", path_text(file)),
            Command::Load(file) => write!(f, "load {}", path_text(file)),
            Command::Help(None) => f.write_str(name),
            Command::Help(Some(t)) => write!(f, "help {t}"),
        }
    }
}
