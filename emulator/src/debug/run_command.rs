//! Runs parsed commands on the engine and renders their output as text.

use crate::debug::WriteTarget;
use std::fmt::Write;

use super::breakpoint::Scope;
use super::command::{self, Command, CommandError, ExpectOp, Info, WatchWhere};
use super::expr::{self, Expr};
use super::{view, Engine, RegisterWrite, StopEvent};
use crate::memory::Space;

/// The result of an `expect`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectOutcome {
    /// Whether it held.
    pub passed: bool,
    /// The assertion as written.
    pub text: String,
}

/// What a command produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandOutput {
    /// Text to show (ends with a newline unless empty).
    pub text: String,
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
}

fn cmd_err(name: &str, message: impl std::fmt::Display) -> CommandError {
    CommandError {
        message: message.to_string(),
        usage: command::usage(name).map(str::to_string),
    }
}

/// Splits `SPACE:EXPR` (space defaults to global).
fn space_prefix(text: &str) -> (Space, &str) {
    for (p, s) in [
        ("global:", Space::Global),
        ("shared:", Space::Shared),
        ("scratch:", Space::Scratch),
    ] {
        if let Some(rest) = text.trim().strip_prefix(p) {
            return (s, rest);
        }
    }
    (Space::Global, text.trim())
}

impl Engine {
    /// Parses and runs one line of the command language. Empty lines and comments produce
    /// empty output.
    pub fn execute_line(&mut self, line: &str) -> Result<CommandOutput, CommandError> {
        self.execute_parsed(line.trim(), command::parse(line)?)
    }

    /// Runs a typed command, as a front end builds it (a key in the TUI), and records its
    /// text ([`Command`]'s `Display`) in the log as [`Engine::execute_line`] records a line.
    pub fn run_command(&mut self, cmd: &Command) -> Result<CommandOutput, CommandError> {
        self.execute_parsed(&cmd.to_string(), Some(cmd.clone()))
    }

    /// Runs a command that a front end parsed from `line` (once) and logs `line` as the
    /// user typed it, as [`Engine::execute_line`] would.
    pub fn run_command_as(
        &mut self,
        cmd: &Command,
        line: &str,
    ) -> Result<CommandOutput, CommandError> {
        self.execute_parsed(line.trim(), Some(cmd.clone()))
    }

    fn execute_parsed(
        &mut self,
        line: &str,
        cmd: Option<Command>,
    ) -> Result<CommandOutput, CommandError> {
        if let Some(c) = &cmd {
            // The log replays the session: commands that only manage files stay out of it.
            if !matches!(c, Command::Save(_) | Command::Load(_)) {
                self.record_command(line);
            }
        }
        match cmd {
            Some(cmd) => self.execute(&cmd),
            None => Ok(CommandOutput::default()),
        }
    }

    /// The display expressions evaluated now, one block per display.
    pub fn display_text(&self) -> String {
        (0..self.displays.len())
            .map(|i| self.display_one(i))
            .collect()
    }

    /// Display `i` (0-based) evaluated now, numbered from 1.
    fn display_one(&self, i: usize) -> String {
        let d = &self.displays[i];
        let (format, expr) = match d.strip_prefix('/') {
            Some(rest) => {
                let (f, e) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                (f.chars().next(), e.trim())
            }
            None => (None, d.as_str()),
        };
        match self.print(format, expr) {
            Ok(t) => format!("{}: {t}", i + 1),
            Err(e) => format!("{}: {d}: {}\n", i + 1, e.message),
        }
    }

    fn eval(&self, name: &str, text: &str, lane: Option<u8>) -> Result<i64, CommandError> {
        let e = expr::parse(text)
            .map_err(|e| cmd_err(name, format!("bad expression `{text}`: {e}")))?;
        let lane = lane.or(Some(self.selected_lane));
        e.eval(self.machine(), self.selected_wave, lane)
            .map_err(|e| cmd_err(name, format!("cannot evaluate `{text}`: {}", e.message)))
    }

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
            expect: None,
        }
    }

    /// `last-write TARGET`: parses the target (for the selected wave and lane), searches
    /// before now, or before the previous answer when the same target is asked again.
    fn last_write_command(&mut self, text: &str) -> Result<String, CommandError> {
        let name = "last-write";
        let wave = self
            .machine()
            .waves
            .get(self.selected_wave)
            .ok_or_else(|| cmd_err(name, "no wave selected"))?;
        let (id, workgroup) = (wave.id, wave.workgroup);
        let t = text.trim();
        let reg = |s: &str, prefix: char, max: usize| -> Option<u8> {
            let n: usize = s.strip_prefix(prefix)?.parse().ok()?;
            (n < max).then_some(n as u8)
        };
        let target = if let Some(r) = reg(t, 'u', crate::wave::UREGS) {
            WriteTarget::Uniform { wave: id, reg: r }
        } else if let Some(r) = reg(t, 'v', crate::wave::VREGS) {
            WriteTarget::Vector {
                wave: id,
                reg: r,
                lane: None,
            }
        } else if let Some((r, l)) = t
            .strip_suffix(']')
            .and_then(|x| x.split_once('['))
            .and_then(|(r, l)| {
                Some((
                    reg(r, 'v', crate::wave::VREGS)?,
                    l.trim().parse::<u8>().ok()?,
                ))
            })
        {
            if l as usize >= crate::wave::LANES {
                return Err(cmd_err(name, format!("lane {l} is out of range (0-31)")));
            }
            WriteTarget::Vector {
                wave: id,
                reg: r,
                lane: Some(l),
            }
        } else {
            let mut parts = t.split_whitespace();
            let at = parts.next().unwrap_or_default();
            let len = match parts.next() {
                Some(n) => n
                    .parse::<u64>()
                    .ok()
                    .filter(|n| (1..=16).contains(n))
                    .ok_or_else(|| cmd_err(name, format!("bad length `{n}` (1 to 16 bytes)")))?,
                None => 4,
            };
            let (space, addr) = match at.split_once(':') {
                Some(("global", a)) => (Space::Global, a),
                Some(("shared", a)) => (Space::Shared, a),
                Some(("scratch", a)) => (Space::Scratch, a),
                Some((s, _)) => {
                    return Err(cmd_err(
                        name,
                        format!("unknown space `{s}` (global, shared, scratch)"),
                    ))
                }
                None => (Space::Global, at),
            };
            let addr = self.eval(name, addr, None)? as u64;
            WriteTarget::Memory {
                space,
                addr,
                len,
                workgroup,
                wave: id,
                lane: self.selected_lane,
            }
        };
        let now = self.machine().stats.wave_instructions;
        let before = match &self.last_write_walk {
            Some((t, count)) if *t == target && *count < now => *count,
            _ => now,
        };
        let hex = |b: &[u8]| -> String {
            b.chunks(4)
                .map(|c| {
                    let mut w = [0u8; 4];
                    w[..c.len()].copy_from_slice(c);
                    format!("{:#010x}", u32::from_le_bytes(w))
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        match self.last_write(&target, before) {
            Some(found) => {
                self.last_write_walk = Some((target, found.count));
                let lanes = match found.lanes.count_ones() {
                    0 => String::new(),
                    1 => format!(", lane {}", crate::fault::lanes_text(found.lanes)),
                    _ => format!(", lanes {}", crate::fault::lanes_text(found.lanes)),
                };
                Ok(format!(
                    "{t}: written by wave {} (workgroup {}){lanes}, at {} ({}), instruction {} (goto {} for the machine right before it)\n  before: {}\n  after:  {}\n",
                    found.wave,
                    found.workgroup,
                    view::pc_text(self.machine(), found.pc),
                    view::instr_text(self.machine(), found.pc),
                    found.count + 1,
                    found.count,
                    hex(&found.old),
                    hex(&found.new),
                ))
            }
            None => {
                self.last_write_walk = None;
                Ok(format!(
                    "{t}: no write before instruction {before} in the recorded history.\n"
                ))
            }
        }
    }

    /// The command an empty line repeats after `cmd`, as gdb's Enter does: the steps and
    /// continues (forward and reverse) again, and `x` with the same format from where the
    /// previous one ended; `None` for the others.
    pub fn repeat_of(&self, cmd: &Command) -> Option<Command> {
        match cmd {
            Command::Stepi(_)
            | Command::StepiAll(_)
            | Command::StepiAlone(_)
            | Command::ReverseStepi(_)
            | Command::Continue
            | Command::ReverseContinue => Some(cmd.clone()),
            // As gdb: Enter after `list` shows the next lines (or, after `list -`, the
            // ones before).
            Command::List(Some(a)) if a.trim() == "-" => Some(cmd.clone()),
            Command::List(_) => Some(Command::List(None)),
            Command::Examine {
                count,
                format,
                size,
                ..
            } => self.next_examine.as_ref().map(|addr| Command::Examine {
                count: *count,
                format: *format,
                size: *size,
                addr: addr.clone(),
            }),
            _ => None,
        }
    }

    /// Runs a parsed command.
    pub fn execute(&mut self, cmd: &Command) -> Result<CommandOutput, CommandError> {
        Ok(match cmd {
            Command::Break {
                location,
                condition,
                filters,
                temporary,
            } => {
                let name = if *temporary { "tbreak" } else { "break" };
                let id = self
                    .add_breakpoint(location, condition.as_deref(), *filters, *temporary)
                    .map_err(|e| cmd_err(name, e))?;
                let addr = self
                    .breakpoints()
                    .iter()
                    .find(|b| b.id == id)
                    .map_or(0, |b| b.addr);
                // As gdb confirms a thread-specific breakpoint: every filter is named.
                let mut filter_text = String::new();
                if let Some(w) = filters.wave {
                    let _ = write!(filter_text, ", wave {w}");
                }
                if let Some(g) = filters.workgroup {
                    let _ = write!(filter_text, ", workgroup {g}");
                }
                if let Some(l) = filters.lane {
                    let _ = write!(filter_text, ", lane {l}");
                }
                let line = self
                    .machine()
                    .program()
                    .line_at(addr)
                    .zip(self.source())
                    .map(|(l, src)| {
                        let file = std::path::Path::new(src.name)
                            .file_name()
                            .map_or(src.name.into(), |f| f.to_string_lossy());
                        format!(" ({file}:{l})")
                    })
                    .unwrap_or_default();
                CommandOutput::text(format!(
                    "{} {id} at {}{line}{filter_text}{}\n",
                    if *temporary {
                        "Temporary breakpoint"
                    } else {
                        "Breakpoint"
                    },
                    view::pc_text(self.machine(), addr),
                    condition
                        .as_ref()
                        .map(|c| format!(" if {c}"))
                        .unwrap_or_default()
                ))
            }
            Command::Delete(id) => {
                self.delete(*id).map_err(|e| cmd_err("delete", e))?;
                CommandOutput::default()
            }
            Command::Enable(id, on) => {
                self.set_enabled(*id, *on)
                    .map_err(|e| cmd_err(if *on { "enable" } else { "disable" }, e))?;
                CommandOutput::default()
            }
            Command::Ignore(id, n) => {
                self.set_ignore(*id, *n).map_err(|e| cmd_err("ignore", e))?;
                CommandOutput::text(format!(
                    "Will ignore next {} of breakpoint {id}.\n",
                    view::count(*n as u64, "crossing")
                ))
            }
            Command::Condition(id, c) => {
                self.set_condition(*id, c.as_deref())
                    .map_err(|e| cmd_err("condition", e))?;
                CommandOutput::default()
            }
            Command::Watch {
                kind,
                place,
                addr,
                len,
                condition,
            } => {
                let name = kind.command();
                let a = self.eval(name, addr, None)? as u64;
                let wave = self
                    .machine()
                    .waves
                    .get(self.selected_wave)
                    .ok_or_else(|| cmd_err(name, "no wave selected"))?;
                let scope = match place {
                    WatchWhere::Global => Scope::Global,
                    WatchWhere::Shared(None) => Scope::Shared(Some(wave.workgroup)),
                    WatchWhere::Shared(Some(g)) => Scope::Shared(*g),
                    WatchWhere::Scratch(w, l) => Scope::Scratch {
                        wave: w.unwrap_or(wave.id),
                        lane: l.unwrap_or(self.selected_lane),
                    },
                };
                let id = self
                    .add_watchpoint(*kind, scope, a, *len, condition.as_deref())
                    .map_err(|e| cmd_err(name, e))?;
                CommandOutput::text(format!(
                    "{} {id}: {}:{a:#x}{}, {len} byte{}\n",
                    kind.name(),
                    scope.space().name(),
                    scope.instance_text(),
                    if *len == 1 { "" } else { "s" }
                ))
            }
            Command::Continue => {
                let s = self.continue_all();
                self.stopped(s)
            }
            // As gdb: a count of zero executes nothing.
            Command::Stepi(0) => CommandOutput::text("stepi 0: no instruction executed.\n".into()),
            Command::Stepi(n) => {
                let s = self.step(*n);
                self.stopped(s)
            }
            Command::StepiAll(0) => {
                CommandOutput::text("stepi all 0: no instruction executed.\n".into())
            }
            Command::StepiAll(n) => {
                let s = self.step_all(*n);
                self.stopped(s)
            }
            Command::StepiAlone(0) => {
                CommandOutput::text("stepi alone 0: no instruction executed.\n".into())
            }
            Command::StepiAlone(n) => {
                let s = self.run_wave(self.selected_wave, *n);
                self.stopped(s)
            }
            Command::ReverseStepi(0) => {
                CommandOutput::text("reverse-stepi 0: nothing to undo.\n".into())
            }
            Command::ReverseStepi(n) => {
                let s = self.reverse_step(*n);
                self.stopped(s)
            }
            Command::ReverseContinue => {
                let s = self.reverse_continue();
                self.stopped(s)
            }
            Command::LastWrite(text) => CommandOutput::text(self.last_write_command(text)?),
            Command::Goto(n) => {
                let s = self.goto(*n).map_err(|e| cmd_err("goto", e))?;
                self.stopped(s)
            }
            Command::Advance(loc) => {
                let a = self
                    .resolve_location(loc)
                    .map_err(|e| cmd_err("advance", e))?;
                let s = self.advance(a);
                self.stopped(s)
            }
            Command::AdvanceBarrier => {
                let s = self.advance_to_barrier();
                self.stopped(s)
            }
            Command::Finish => {
                let s = self.finish_wave();
                self.stopped(s)
            }
            // Commands run one at a time, so no run is in progress when this one runs; front
            // ends interrupt a run through `Engine::interrupt_handle` (Ctrl-C, Esc).
            Command::Interrupt => CommandOutput::text(
                "Nothing is running (Ctrl-C interrupts a run in progress).\n".into(),
            ),
            Command::Restart => {
                self.restart();
                let n = self.machine().waves.len();
                CommandOutput::text(format!(
                    "Restarted: {} resident, all at {}.\n",
                    view::count(n as u64, "wave"),
                    view::pc_text(self.machine(), 0)
                ))
            }
            Command::Wave(id) => {
                self.select_wave(*id).map_err(|e| cmd_err("wave", e))?;
                let w = &self.machine().waves[self.selected_wave];
                CommandOutput::text(format!(
                    "[Switching to wave {} (workgroup {}), {}]\n  {}: {}\n",
                    w.id,
                    w.workgroup,
                    w.state.name(),
                    view::pc_text(self.machine(), w.pc),
                    view::instr_text(self.machine(), w.pc)
                ))
            }
            Command::Lane(l) => {
                self.select_lane(*l).map_err(|e| cmd_err("lane", e))?;
                let w = &self.machine().waves[self.selected_wave];
                CommandOutput::text(format!(
                    "[Switching to lane {l} of wave {} ({})]\n",
                    w.id,
                    if w.exec >> l & 1 == 1 {
                        "active"
                    } else {
                        "inactive"
                    }
                ))
            }
            Command::Info(what) => CommandOutput::text(match what {
                Info::Waves => view::waves_table(self),
                Info::Lanes => view::lanes_table(self),
                Info::Registers(None) => view::registers(self, self.selected_wave),
                Info::Registers(Some(r)) => self
                    .print(None, r)
                    .map_err(|e| cmd_err("info", e.message))?,
                Info::Breakpoints => view::breakpoint_table(self, false),
                Info::Watchpoints => view::breakpoint_table(self, true),
                Info::Changes => view::changes_text(self),
                Info::History => view::history_text(self),
                Info::Findings => self.findings_text(),
                Info::Buffers => view::buffers_table(self),
                Info::Labels => view::labels_table(self),
                Info::Display => {
                    if self.displays.is_empty() {
                        "There are no displays.\n".to_string()
                    } else {
                        self.displays
                            .iter()
                            .enumerate()
                            .map(|(i, d)| format!("{}: {d}\n", i + 1))
                            .collect()
                    }
                }
            }),
            Command::Print { format, expr } => CommandOutput::text(self.print(*format, expr)?),
            Command::Examine {
                count,
                format,
                size,
                addr,
            } => CommandOutput::text(self.examine(*count, *format, *size, addr)?),
            Command::Set { target, value } => {
                self.set(target, value)?;
                CommandOutput::default()
            }
            Command::SchedulerLocking(on) => {
                self.scheduler_locking = *on;
                CommandOutput::default()
            }
            Command::Check(group, on) => {
                self.set_check(*group, *on);
                CommandOutput::text(format!("Sanitizer: {} on.\n", self.checks().names()))
            }
            Command::Why => CommandOutput::text(match self.last_stop() {
                Some(stop) => view::describe_stop(self, &stop.clone()) + "\n",
                None => "The launch has not run yet.\n".to_string(),
            }),
            Command::HistorySize(mib) => {
                let bytes = usize::try_from(mib.saturating_mul(1 << 20)).unwrap_or(usize::MAX);
                self.set_history_size(bytes);
                CommandOutput::default()
            }
            Command::Disassemble(loc) => {
                let center = match loc {
                    Some(l) => self
                        .resolve_location(l)
                        .map_err(|e| cmd_err("disassemble", e))?,
                    None => self
                        .machine()
                        .waves
                        .get(self.selected_wave)
                        .map_or(0, |w| w.pc),
                };
                CommandOutput::text(view::disassembly(self, center, 6, 10))
            }
            Command::List(arg) => CommandOutput::text(self.list(arg.as_deref())?),
            Command::Context => CommandOutput::text(self.context_text()),
            Command::SetContext(on) => {
                self.context.on = *on;
                CommandOutput::default()
            }
            Command::ContextSections(sections) => {
                self.context.sections = sections.clone();
                CommandOutput::default()
            }
            Command::Expect { lhs, op, rhs } => {
                let a = self.eval("expect", lhs, None)?;
                let b = self.eval("expect", rhs, None)?;
                let passed = op.holds(a, b);
                let text = format!("{lhs} {} {rhs}", op.text());
                let out = if passed {
                    format!("expect ok: {text}\n")
                } else {
                    let why = match op {
                        ExpectOp::Eq => "they differ",
                        _ => "it does not hold",
                    };
                    format!("expect FAILED: {text}: left side {lhs} = {a} ({a:#x}), right side {rhs} = {b} ({b:#x}); {why}\n")
                };
                CommandOutput {
                    text: out,
                    stop: None,
                    expect: Some(ExpectOutcome { passed, text }),
                }
            }
            Command::Display(None) => CommandOutput::text(self.display_text()),
            Command::Display(Some(d)) => {
                // Check it parses now rather than at every stop.
                let expr = d.strip_prefix('/').map_or(d.as_str(), |r| {
                    r.split_once(char::is_whitespace).map_or("", |(_, e)| e)
                });
                expr::parse(expr.trim()).map_err(|e| {
                    cmd_err("display", format!("bad expression `{}`: {e}", expr.trim()))
                })?;
                self.displays.push(d.clone());
                CommandOutput::text(self.display_one(self.displays.len() - 1))
            }
            Command::Undisplay(None) => {
                self.displays.clear();
                CommandOutput::default()
            }
            Command::Undisplay(Some(n)) => {
                if *n == 0 || *n as usize > self.displays.len() {
                    return Err(cmd_err("undisplay", format!("no display number {n}")));
                }
                self.displays.remove(*n as usize - 1);
                CommandOutput::default()
            }
            Command::Save(file) => {
                let s = super::session::Session::capture(self);
                s.save(std::path::Path::new(file))
                    .map_err(|e| cmd_err("save", e.to_string()))?;
                let mut text = format!(
                    "Saved session to {file} ({}, {}, {}).\n",
                    view::count(s.breakpoints.len() as u64, "breakpoint"),
                    view::count(s.watchpoints.len() as u64, "watchpoint"),
                    view::count(s.log.len() as u64, "command")
                );
                if self.log_truncated() {
                    text.push_str(&format!("Warning: the command log holds only the first {} commands of this session; replaying it stops there.\n", super::MAX_LOG));
                }
                CommandOutput::text(text)
            }
            Command::Load(file) => {
                let s = super::session::Session::load(std::path::Path::new(file))
                    .map_err(|e| cmd_err("load", e.to_string()))?;
                if let Some(mine) = self.kernel_path() {
                    if !s.is_for_kernel(std::path::Path::new(file), mine) {
                        return Err(cmd_err("load", format!("{file} is a session of kernel {}, not {mine}; open it with `--session {file}` on that kernel", s.kernel)));
                    }
                }
                s.apply(self, file)
                    .map_err(|e| cmd_err("load", e.to_string()))?;
                CommandOutput::text(format!(
                    "Loaded session {file}: {}, {}, {}; launch restarted.\n",
                    view::count(s.breakpoints.len() as u64, "breakpoint"),
                    view::count(s.watchpoints.len() as u64, "watchpoint"),
                    view::count(s.displays.len() as u64, "display")
                ))
            }
            Command::Help(topic) => CommandOutput::text(command::help(topic.as_deref())?),
        })
    }

    fn print(&self, format: Option<char>, text: &str) -> Result<String, CommandError> {
        let e = expr::parse(text)
            .map_err(|e| cmd_err("print", format!("bad expression `{text}`: {e}")))?;
        let fmt = format.unwrap_or('u');
        if let Expr::VReg(r, None) = e {
            return Ok(view::lane_view(
                self,
                self.selected_wave,
                r as usize,
                format.unwrap_or('x'),
            ));
        }
        let w = self.selected_wave;
        if e.reads_lane_data() {
            let m = self.machine();
            let exec = m.waves.get(w).map_or(0, |w| w.exec);
            let mut s = format!("{text} (by lane; inactive lanes in parentheses):\n");
            for row in 0..4u8 {
                let _ = write!(s, "  [{:>2}]", row * 8);
                for l in row * 8..row * 8 + 8 {
                    let v = e
                        .eval(m, w, Some(l))
                        .map_err(|e| cmd_err("print", e.message))?;
                    let v = view::format_value(v as u64, fmt, 8);
                    if exec >> l & 1 == 1 {
                        let _ = write!(s, "  {v:>11} ");
                    } else {
                        let _ = write!(s, " ({v:>11})");
                    }
                }
                s.truncate(s.trim_end().len());
                s.push('\n');
            }
            return Ok(s);
        }
        let v = e
            .eval(self.machine(), w, Some(self.selected_lane))
            .map_err(|e| cmd_err("print", e.message))?;
        // Registers and memory are 32-bit: show them at that width unless the value is wider.
        let size = if (v as u64) >> 32 == 0 || (v as u64) >> 31 == 0x1_ffff_ffff {
            4
        } else {
            8
        };
        let shown = match (format, &e) {
            (None, Expr::Exec) => format!(
                "{:#010x} ({} active: {})",
                v as u32,
                (v as u32).count_ones(),
                crate::fault::lanes_text(v as u32)
            ),
            (None, Expr::Pc) => view::pc_text(self.machine(), v as u64),
            (None, Expr::Label(name)) => match expr::symbol(self.machine(), name) {
                Some(expr::Symbol::Buffer { size, .. }) => format!(
                    "{:#x} <buffer {name}, {}>",
                    v as u64,
                    view::count(size, "byte")
                ),
                _ => view::pc_text(self.machine(), v as u64),
            },
            (None, _) if v < 0 => v.to_string(),
            _ => view::format_value(v as u64, fmt, size),
        };
        Ok(format!("{text} = {shown}\n"))
    }

    fn examine(
        &mut self,
        count: u64,
        format: char,
        size: usize,
        text: &str,
    ) -> Result<String, CommandError> {
        let (space, rest) = space_prefix(text);
        let addr = self.eval("x", rest, None)? as u64;
        let total = count * size as u64;
        let mut buf = vec![0u8; total as usize];
        self.machine()
            .read_space(
                space,
                self.selected_wave,
                self.selected_lane,
                addr,
                &mut buf,
            )
            .map_err(|e| cmd_err("x", format!("cannot access memory: {e}")))?;
        // Where an `x` repeated with Enter goes on from.
        self.next_examine = Some(format!("{}:{:#x}", space.name(), addr.wrapping_add(total)));
        let per_row = (16 / size).max(1);
        let mut s = String::new();
        for (row, chunk) in buf.chunks(per_row * size).enumerate() {
            let _ = write!(
                s,
                "{}:{:#x}:",
                space.name(),
                addr + (row * per_row * size) as u64
            );
            for unit in chunk.chunks(size) {
                let mut b = [0u8; 8];
                b[..unit.len()].copy_from_slice(unit);
                let _ = write!(
                    s,
                    " {}",
                    view::format_value(u64::from_le_bytes(b), format, size)
                );
            }
            s.push('\n');
        }
        Ok(s)
    }

    fn set(&mut self, target: &str, value: &str) -> Result<(), CommandError> {
        let v = self.eval("set", value, None)?;
        let (w, lane) = (self.selected_wave, self.selected_lane);
        if self.machine().waves.get(w).is_none() {
            return Err(cmd_err("set", "no wave selected"));
        }
        let t = target.trim().trim_start_matches('$');
        if t.contains(':') {
            let (space, rest) = space_prefix(t);
            let addr = self.eval("set", rest, None)? as u64;
            return self
                .write_memory(space, w, lane, addr, &(v as u32).to_le_bytes())
                .map_err(|e| cmd_err("set", format!("cannot access memory: {e}")));
        }
        let target_expr =
            expr::parse(t).map_err(|e| cmd_err("set", format!("bad target `{t}`: {e}")))?;
        let index = match &target_expr {
            Expr::VReg(_, Some(i)) => {
                let l = i
                    .eval(self.machine(), w, Some(lane))
                    .map_err(|e| cmd_err("set", e.message))?;
                if !(0..32).contains(&l) {
                    return Err(cmd_err("set", format!("lane {l} out of range (0-31)")));
                }
                Some(l as usize)
            }
            _ => None,
        };
        let write = match target_expr {
            Expr::VReg(reg, None) => RegisterWrite::V {
                reg,
                lanes: [v as u32; 32],
            },
            Expr::VReg(reg, Some(_)) => RegisterWrite::VLane {
                reg,
                lane: index.unwrap_or(0) as u8,
                value: v as u32,
            },
            Expr::UReg(reg) => RegisterWrite::U {
                reg,
                value: v as u32,
            },
            Expr::Exec => RegisterWrite::Exec(v as u32),
            Expr::Pc => {
                if v % 4 != 0 || v < 0 {
                    return Err(cmd_err("set", "pc must be a multiple of 4"));
                }
                RegisterWrite::Pc(v as u64)
            }
            _ => {
                return Err(cmd_err(
                    "set",
                    format!(
                        "cannot assign to `{t}` (registers vN, vN[L], uN, exec, pc, or SPACE:ADDR)"
                    ),
                ))
            }
        };
        self.write_register(w, write).map_err(|e| cmd_err("set", e))
    }
}
