//! Running typed commands on the engine: [`Engine::run`] logs and dispatches each command
//! to its family's file (points, control, inspect, settings, files), which returns a
//! [`CommandOutput`]: the typed result and its text, rendered by `view.rs`.

mod control;
mod files;
mod inspect;
mod points;
mod settings;

use super::breakpoint::{Breakpoint, Owner, Watchpoint};
use super::command::{Command, CommandError};
use super::{view, Engine, StopEvent};
use crate::memory::Space;

/// The result of an `expect`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectOutcome {
    /// Whether the comparison held.
    pub passed: bool,
    /// The assertion as written (`v3 == 5`).
    pub text: String,
}

/// One row of `info breakpoints`: a breakpoint or a watchpoint as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PointRow {
    /// A breakpoint.
    Break(Breakpoint),
    /// A watchpoint.
    Watch(Watchpoint),
}

impl PointRow {
    /// Its number, shared by breakpoints and watchpoints.
    pub fn id(&self) -> u32 {
        match self {
            PointRow::Break(b) => b.id,
            PointRow::Watch(w) => w.id,
        }
    }

    /// Who made it.
    pub fn owner(&self) -> &Owner {
        match self {
            PointRow::Break(b) => &b.owner,
            PointRow::Watch(w) => &w.owner,
        }
    }
}

/// A command's typed result, beside the text rendered from it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Output {
    /// Nothing beyond the text (settings, help, listings of source and code).
    #[default]
    None,
    /// A breakpoint or watchpoint was set: its number.
    PointSet(u32),
    /// `info breakpoints` / `info watchpoints`: the rows by number (empty: none).
    Points(Vec<PointRow>),
    /// `x`: the bytes read, from `addr` in `space` (the selected wave's workgroup or
    /// lane for `shared` and `scratch`).
    Memory {
        /// The space read.
        space: Space,
        /// The first byte's address.
        addr: u64,
        /// The bytes, `count * size` of them.
        bytes: Vec<u8>,
    },
    /// `print` of a per-lane expression: each lane's value, and EXEC (bit i = lane i).
    Lanes {
        /// The value at each lane, lane 0 first.
        values: Vec<i64>,
        /// The wave's EXEC mask when printed.
        exec: u32,
    },
    /// `print` of one value (at the selected lane).
    Value(i64),
}

/// What a command produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandOutput {
    /// The text for a text front end (ends with a newline unless empty).
    pub text: String,
    /// The typed result.
    pub value: Output,
    /// The stop, for commands that ran the machine.
    pub stop: Option<StopEvent>,
    /// The outcome, for `expect`.
    pub expect: Option<ExpectOutcome>,
}

impl CommandOutput {
    fn text(text: String) -> Self {
        Self {
            text,
            ..Default::default()
        }
    }

    fn with(text: String, value: Output) -> Self {
        Self {
            text,
            value,
            ..Default::default()
        }
    }
}

impl Engine {
    /// Runs a command and logs it as its text ([`Command`]'s `Display`): what a front end
    /// that built the command (a key, a packet) calls.
    pub fn run(&mut self, cmd: &Command) -> Result<CommandOutput, CommandError> {
        self.run_as(cmd, &cmd.to_string())
    }

    /// Runs a command parsed (once) from `text`, and logs `text` as the user wrote it.
    /// The log replays the session, so commands that only manage files stay out of it.
    pub fn run_as(&mut self, cmd: &Command, text: &str) -> Result<CommandOutput, CommandError> {
        if !matches!(cmd, Command::Save(_) | Command::Load(_)) {
            self.record_command(text.trim());
        }
        self.dispatch(cmd)
    }

    fn dispatch(&mut self, cmd: &Command) -> Result<CommandOutput, CommandError> {
        match cmd {
            Command::Break { .. }
            | Command::Delete(_)
            | Command::Enable(..)
            | Command::Ignore(..)
            | Command::Condition(..)
            | Command::Watch { .. } => self.run_points(cmd),
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
            | Command::Interrupt
            | Command::Restart
            | Command::Wave(_)
            | Command::Lane(_) => self.run_control(cmd),
            Command::Info(_)
            | Command::Print { .. }
            | Command::Examine { .. }
            | Command::LastWrite(_)
            | Command::Why
            | Command::Disassemble(_)
            | Command::List(_)
            | Command::Context
            | Command::Expect { .. }
            | Command::Display(_)
            | Command::Undisplay(_)
            | Command::Help(_) => self.run_inspect(cmd),
            Command::Set { .. }
            | Command::SchedulerLocking(_)
            | Command::HistorySize(_)
            | Command::Check(..)
            | Command::SetContext(_)
            | Command::ContextSections(_) => self.run_settings(cmd),
            Command::Save(file) => self.save_command(file),
            Command::Load(file) => self.load_command(file),
        }
    }

    /// The output of a command that ran the machine: the stop's description, the context
    /// (`set context on`) and the displays.
    fn stopped(&mut self, stop: StopEvent) -> CommandOutput {
        let mut text = view::describe_stop(self, &stop);
        text.push('\n');
        if self.context.on {
            text.push_str(&self.context_after_stop());
        }
        text.push_str(&self.display_text());
        CommandOutput {
            text,
            stop: Some(stop),
            ..Default::default()
        }
    }

    /// The command an empty line repeats after `cmd`, as gdb's Enter does: the steps and
    /// continues (forward and reverse) again, `list` the next lines, and `x` with the same
    /// format from where the previous one ended; `None` for the others.
    pub fn repeat_of(&self, cmd: &Command) -> Option<Command> {
        use super::command::ListArg;
        match cmd {
            Command::Stepi(_)
            | Command::StepiAll(_)
            | Command::StepiAlone(_)
            | Command::ReverseStepi(_)
            | Command::Continue
            | Command::ReverseContinue => Some(cmd.clone()),
            // As gdb: Enter after `list` shows the next lines (or, after `list -`, the
            // ones before).
            Command::List(Some(ListArg::Before)) => Some(cmd.clone()),
            Command::List(_) => Some(Command::List(None)),
            Command::Examine {
                count,
                format,
                size,
                ..
            } => self.next_examine.map(|(space, addr)| Command::Examine {
                count: *count,
                format: *format,
                size: *size,
                space,
                addr: super::expr::ParsedExpr::number(addr),
            }),
            _ => None,
        }
    }

    /// Every breakpoint and watchpoint as a row, by number.
    pub fn point_rows(&self) -> Vec<PointRow> {
        let mut rows: Vec<PointRow> = self
            .breakpoints()
            .iter()
            .cloned()
            .map(PointRow::Break)
            .chain(self.watchpoints().iter().cloned().map(PointRow::Watch))
            .collect();
        rows.sort_by_key(PointRow::id);
        rows
    }
}
