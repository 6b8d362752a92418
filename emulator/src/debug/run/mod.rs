//! Running typed commands on the engine: [`Engine::run`] logs and dispatches each command
//! to its family's file (points, control, inspect, settings, files), which returns a
//! [`CommandOutput`]: the typed result and its text, rendered by `view.rs`.

mod control;
mod files;
mod inspect;
mod points;
mod settings;

use super::breakpoint::{Breakpoint, Owner, Watchpoint};
use super::command::{self, Command, CommandError};
use super::expr::Scalar;
use super::{view, Engine, StopEvent, StopReason, VisitError};
use crate::memory::Space;
use crate::wave::LANES;

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

/// One row of `info waves`: a resident wave as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaveRow {
    /// The global wave id (`workgroup * waves_per_workgroup + index`).
    pub id: u32,
    /// Its workgroup.
    pub workgroup: u32,
    /// Its index in the workgroup, from 0.
    pub index: u32,
    /// Ready, waiting at a barrier, exited, faulted.
    pub state: crate::wave::WaveState,
    /// The byte address of the next instruction; for an exited wave, of the `end` it
    /// exited at ([`super::view::shown_pc`]).
    pub pc: u64,
    /// The EXEC mask, bit i = lane i.
    pub exec: u32,
    /// Whether it is the selected wave.
    pub selected: bool,
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
    /// `print` of a per-lane expression or variable: each lane's value in its type, and
    /// EXEC (bit i = lane i).
    Lanes {
        /// The value at each lane, lane 0 first.
        values: Vec<Scalar>,
        /// The wave's EXEC mask when printed.
        exec: u32,
    },
    /// `print` of one value (at the selected lane), in its type.
    Value(Scalar),
    /// `info waves`: every resident wave, in index order.
    Waves(Vec<WaveRow>),
    /// `info lanes`: the selected wave's EXEC and the selected lane.
    LaneMask {
        /// The wave's global id.
        wave: u32,
        /// Its EXEC mask, bit i = lane i.
        exec: u32,
        /// The selected lane (0-31).
        selected: u8,
    },
    /// `backtrace`, `frame`, `info frame`: the selected wave's one frame.
    Frame {
        /// The wave's global id.
        wave: u32,
        /// The byte address of its next instruction.
        pc: u64,
    },
    /// `info registers`, or `print vN`: one wave's registers as they are now.
    Registers {
        /// The wave's global id.
        wave: u32,
        /// The byte address of its next instruction.
        pc: u64,
        /// Its EXEC mask, bit i = lane i.
        exec: u32,
        /// `u0`..`u63`.
        uniforms: Vec<u32>,
        /// For `print vN`: the register and its 32 lanes, lane 0 first.
        vector: Option<(u8, Vec<u32>)>,
    },
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
    /// The log replays the session, so commands that only manage files stay out of it,
    /// and an interrupted command is logged as the command that stops where it stopped
    /// (as `--record` writes it: replayed as typed, it would run to its end).
    /// Its output is fitted to [`Engine::width`] (`set width`; unlimited by default).
    pub fn run_as(&mut self, cmd: &Command, text: &str) -> Result<CommandOutput, CommandError> {
        let logged = self.log.len();
        if !matches!(cmd, Command::Save(_) | Command::Load(_)) {
            self.record_command(text.trim());
        }
        let before = self.machine.stats.wave_instructions;
        let mut out = self.dispatch(cmd)?;
        if let Some(stop) = out
            .stop
            .as_ref()
            .filter(|s| s.reason == StopReason::Interrupted && self.log.len() > logged)
        {
            let stopping = super::session::stopping_command(self, Some(cmd), before, stop);
            self.log.truncate(logged);
            stopping.lines().for_each(|l| self.record_command(l));
        }
        // Tables and help fit already (their renderers take the width); any other long
        // line wraps at a space, so no number is split.
        if self.width > 0 {
            out.text = super::width::wrap_lines(&out.text, self.width);
        }
        Ok(out)
    }

    /// Each command to the method of its family's file (points, control, inspect,
    /// settings, files).
    fn dispatch(&mut self, cmd: &Command) -> Result<CommandOutput, CommandError> {
        let name = cmd.name();
        match cmd {
            Command::Break {
                location,
                condition,
                filters,
                temporary,
            } => self.break_command(location, condition, *filters, *temporary),
            Command::Delete(ids) => self.delete_command(ids),
            Command::Enable(ids, on) => self.enable_command(ids, *on),
            Command::Ignore(id, n) => self.ignore_command(*id, *n),
            Command::Condition(id, c) => self.condition_command(*id, c),
            Command::Watch {
                kind,
                place,
                addr,
                len,
                condition,
            } => self.watch_command(*kind, *place, addr, *len, condition),
            Command::Continue => self.resumed(Engine::continue_all),
            Command::Stepi(n) => self.steps("stepi", *n, |e| e.step(*n)),
            Command::StepiAll(n) => self.steps("stepi all", *n, |e| e.step_all(*n)),
            Command::StepiAlone(n) => self.steps("stepi alone", *n, |e| e.step_alone(*n)),
            Command::Step(n) | Command::Next(n) => self.steps(name, *n, |e| e.step_lines(*n)),
            Command::Until(None) => self.resumed(Engine::until_next_line),
            Command::ReverseStepi(n) => self.reverse_stepi_command(*n),
            Command::ReverseStep(n) | Command::ReverseNext(n) => {
                self.steps(name, *n, |e| e.reverse_step_lines(*n))
            }
            Command::ReverseContinue => self.resumed(Engine::reverse_continue),
            Command::Goto(n) => {
                let stop = self.goto(*n).map_err(|e| CommandError::engine(name, e))?;
                Ok(self.stopped(stop))
            }
            Command::Finding { number, side } => {
                let stop = self.visit_finding(*number, *side).map_err(|e| match e {
                    VisitError::Engine(e) => CommandError::engine(name, e),
                    e => CommandError::refused(name, e.to_string()),
                })?;
                Ok(self.stopped(stop))
            }
            Command::Advance(location) | Command::Until(Some(location)) => {
                let addrs = self
                    .resolve_locations(location)
                    .map_err(|e| CommandError::engine(name, e))?;
                self.resumed(|e| e.advance_to_any(&addrs))
            }
            Command::AdvanceBarrier => self.resumed(Engine::advance_to_barrier),
            Command::Finish => self.resumed(Engine::finish_wave),
            Command::ReverseFinish => self.resumed(Engine::reverse_finish),
            Command::Interrupt => Ok(Self::interrupt_command()),
            Command::Restart => Ok(self.restart_command()),
            Command::Run => Ok(self.run_command()),
            Command::Start => Ok(self.start_command()),
            Command::Backtrace => self.backtrace_command(),
            Command::Frame(n) => self.frame_command(n.unwrap_or(0)),
            // As gdb's: zero levels up or down shows the frame where it is.
            Command::Up(0) | Command::Down(0) => self.frame_command(0),
            Command::Up(_) => Err(CommandError::refused(
                "up",
                "Initial frame selected; you cannot go up.",
            )),
            Command::Down(_) => Err(CommandError::refused(
                "down",
                "Bottom (innermost) frame selected; you cannot go down.",
            )),
            Command::Wave(Some(id)) => self.wave_command(*id),
            Command::Wave(None) => self.current_wave_command(),
            Command::Lane(l) => self.lane_command(*l),
            Command::Info(what) => self.info(what),
            Command::Print { format, expr } => self.print(name, *format, expr),
            Command::Examine {
                count,
                format,
                size,
                space,
                addr,
            } => self.examine(*count, *format, *size, *space, addr),
            Command::ExamineCode { count, addr } => self.examine_code(*count, addr),
            Command::LastWrite(target) => self.last_write_command(target),
            Command::Why => Ok(self.why_command()),
            Command::Disassemble(location) => self.disassemble_command(location.as_ref()),
            Command::List(arg) => Ok(CommandOutput::text(self.list(arg.as_ref())?)),
            Command::Context => Ok(CommandOutput::text(self.context_text())),
            Command::Expect { lhs, op, rhs } => self.expect_command(lhs, *op, rhs),
            Command::Display(d) => Ok(self.display_command(d.as_ref())),
            Command::Undisplay(n) => self.undisplay_command(n),
            Command::Help(topic) => Ok(CommandOutput::text(command::help(*topic, self.width)?)),
            Command::Set { target, value } => {
                self.set(target, value)?;
                Ok(CommandOutput::default())
            }
            Command::SchedulerLocking(on) => {
                self.scheduler_locking = *on;
                Ok(CommandOutput::default())
            }
            Command::Check(group, on) => Ok(self.check_command(*group, *on)),
            Command::HistorySize(mib) => {
                let bytes = usize::try_from(mib.saturating_mul(1 << 20)).unwrap_or(usize::MAX);
                self.set_history_size(bytes);
                Ok(CommandOutput::default())
            }
            Command::SetContext(on) => {
                self.context.on = *on;
                Ok(CommandOutput::default())
            }
            Command::ContextSections(sections) => {
                self.context.sections = sections.clone();
                Ok(CommandOutput::default())
            }
            Command::SetConfirm(on) => {
                self.confirm = *on;
                Ok(CommandOutput::default())
            }
            Command::SetFormat(target, format) => {
                self.panes.set_format(*target, *format);
                Ok(CommandOutput::default())
            }
            Command::SetMemoryUnit(unit) => {
                self.panes.memory_unit = *unit;
                Ok(CommandOutput::default())
            }
            Command::SetSplit(target, share) => {
                self.panes.splits.set(*target, *share);
                Ok(CommandOutput::default())
            }
            Command::SetWidth(n) => {
                self.fit_to(*n as usize);
                self.width_chosen = true;
                Ok(CommandOutput::default())
            }
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
            | Command::Step(_)
            | Command::Next(_)
            | Command::StepiAll(_)
            | Command::StepiAlone(_)
            | Command::ReverseStepi(_)
            | Command::ReverseStep(_)
            | Command::ReverseNext(_)
            | Command::Continue
            | Command::ReverseContinue => Some(cmd.clone()),
            // `finding N` again goes on to the other side.
            Command::Finding { side: None, .. } => Some(cmd.clone()),
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
            Command::ExamineCode { count, .. } => self.next_code.map(|addr| Command::ExamineCode {
                count: *count,
                addr: super::expr::ParsedExpr::number(addr),
            }),
            _ => None,
        }
    }

    /// Every resident wave as a row, in index order.
    pub fn wave_rows(&self) -> Vec<WaveRow> {
        self.machine()
            .waves
            .iter()
            .enumerate()
            .map(|(i, w)| WaveRow {
                id: w.id,
                workgroup: w.workgroup,
                index: w.index,
                state: w.state,
                pc: super::view::shown_pc(self.machine(), w),
                exec: w.exec,
                selected: i == self.selected_wave,
            })
            .collect()
    }

    /// The selected wave's registers as a typed output (`vector`: also register N's lanes).
    fn registers_output(&self, vector: Option<u8>) -> Output {
        match self.machine().waves.get(self.selected_wave) {
            Some(w) => Output::Registers {
                wave: w.id,
                pc: w.pc,
                exec: w.exec,
                uniforms: w.u.to_vec(),
                vector: vector.map(|r| (r, w.v[r as usize][..LANES].to_vec())),
            },
            None => Output::None,
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
