//! Commands that look without running: `info`, `print`, `x`, `last-write`, `why`,
//! `disassemble`, `expect`, `display`, `undisplay` (`list` is in `source.rs`, `context`
//! in `context.rs`).

use super::{CommandOutput, ExpectOutcome, Output};
use crate::debug::command::{
    CommandError, DisplaySpec, ExpectOp, Info, LastWriteTarget, Location, Numbers,
};
use crate::debug::expr::{self, Expr, ParsedExpr, Scalar, Value};
use crate::debug::{locals, view, Engine, WriteTarget};
use crate::memory::Space;
use crate::program::VarDef;

/// An expression's value as `print` shows it: a double as a float (or, with an integer
/// format, truncated to an integer as C converts it), an integer in the format.
fn value_text(v: Value, format: Option<char>) -> String {
    match (v, format) {
        (Value::Float(f), None | Some('f')) => view::format_value(f.to_bits(), 'f', 8),
        (v, f) => view::format_value(v.as_int() as u64, f.unwrap_or('u'), 8),
    }
}

impl Engine {
    /// The selected wave's one frame, gdb style: `#0  0x006c in next_word () at
    /// histogram.s:55` (the label the PC is in stands for the function); `None` for a
    /// wave that has exited or faulted (gdb's "No stack.").
    fn frame_line(&self) -> Result<(String, Output), CommandError> {
        let m = self.machine();
        let Some(w) = m.waves.get(self.selected_wave) else {
            return Err(CommandError::refused(
                "backtrace",
                "No stack (no wave selected).",
            ));
        };
        if !w.alive() {
            return Err(CommandError::refused(
                "backtrace",
                format!("No stack: wave {} has {}.", w.id, w.state.name()),
            ));
        }
        let (func, place) = self.frame_function(w.pc);
        let at = place.map(|p| format!(" at {p}")).unwrap_or_default();
        // As gdb: the address only where the PC is not at the start of its line's row.
        let line = match self.line_row_at(w.pc) {
            Some(r) if r.addr == w.pc => format!("#0  {func} (){at}"),
            _ => format!("#0  {} in {func} (){at}", view::addr_text(w.pc)),
        };
        Ok((
            line,
            Output::Frame {
                wave: w.id,
                pc: w.pc,
            },
        ))
    }

    /// The function and `FILE:LINE` a frame at `pc` names, as gdb names them from the
    /// symbol file: where the line table has a line for `pc`, the kernel (the higher-level
    /// function) and that line; elsewhere the label the PC is in (the kernel before any)
    /// and the assembly's line.
    fn frame_function(&self, pc: u64) -> (&str, Option<String>) {
        let m = self.machine();
        if let Some(place) = crate::debug::lines::SourcePlace::at(m.program(), pc) {
            return (m.program().name.as_str(), Some(place.to_string()));
        }
        // The label the PC is in stands for the function; before any, the kernel itself.
        let func = view::label_at(m, pc).map_or(m.program().name.as_str(), |(n, _)| n);
        (func, self.source_place(pc))
    }

    /// The source language `info frame` names: the higher-level file's by its extension
    /// where the line table has a line for `pc`, else the assembly.
    fn frame_language(&self, pc: u64) -> &'static str {
        let Some(place) = crate::debug::lines::SourcePlace::at(self.machine().program(), pc) else {
            return "wave32 assembly";
        };
        let ext = std::path::Path::new(&place.file)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        match ext.as_str() {
            "cl" => "opencl",
            "c" | "h" => "c",
            "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hip" | "cu" => "c++",
            _ => "unknown",
        }
    }

    /// `FILE:LINE` of the instruction at `pc`, when the engine has the kernel's source.
    fn source_place(&self, pc: u64) -> Option<String> {
        let line = self.machine().program().line_at(pc)?;
        let (name, _) = self.source.as_ref()?;
        let file = std::path::Path::new(name)
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or(name);
        Some(format!("{file}:{line}"))
    }

    /// Which wave (and lane) the frame is for: `wave 3 (workgroup 1), lane 5`.
    fn frame_owner(&self) -> String {
        self.machine()
            .waves
            .get(self.selected_wave)
            .map(|w| {
                format!(
                    "wave {} (workgroup {}), lane {}",
                    w.id, w.workgroup, self.selected_lane
                )
            })
            .unwrap_or_default()
    }

    /// `backtrace`: the one frame there is, and whose it is.
    pub(super) fn backtrace_command(&self) -> Result<CommandOutput, CommandError> {
        let (line, value) = self.frame_line()?;
        Ok(CommandOutput::with(
            format!(
                "{line}
    [{}; a wave has no call stack]
",
                self.frame_owner()
            ),
            value,
        ))
    }

    /// `frame [N]`: frame 0 as gdb's `frame` prints it, its line and the source line.
    pub(super) fn frame_command(&self, n: u32) -> Result<CommandOutput, CommandError> {
        if n != 0 {
            return Err(CommandError::refused(
                "frame",
                format!("No frame at level {n}."),
            ));
        }
        let (line, value) = self.frame_line()?;
        let pc = self
            .machine()
            .waves
            .get(self.selected_wave)
            .map_or(0, |w| w.pc);
        let mut text = format!(
            "{line}
"
        );
        // The line's text: the frame line named the higher-level FILE:LINE already.
        let src = match self.high_level_line_at(pc) {
            Some(hl) => hl.split_once('\n').map(|(_, t)| t.to_string()),
            None => self.source_line_at(pc),
        };
        if let Some(src) = src {
            text.push_str(&src);
            text.push('\n');
        }
        Ok(CommandOutput::with(text, value))
    }

    /// `info frame`, in gdb's words for a frame without a caller.
    fn info_frame(&self) -> Result<CommandOutput, CommandError> {
        let (_, value) = self.frame_line()?;
        let m = self.machine();
        let Output::Frame { pc, .. } = value else {
            return Ok(CommandOutput::default());
        };
        let (func, place) = self.frame_function(pc);
        let place = place.map(|p| format!(" ({p})")).unwrap_or_default();
        let text = format!(
            "Stack level 0, frame of {}:\n pc = {} in {func}{place}; saved pc = none\n Outermost frame: this GPU has no call stack, so no caller and no saved registers.\n source language {}.\n",
            self.frame_owner(),
            view::pc_text(m, pc),
            self.frame_language(pc),
        );
        Ok(CommandOutput::with(text, value))
    }

    pub(super) fn why_command(&self) -> CommandOutput {
        CommandOutput::text(match self.last_stop() {
            Some(stop) => view::describe_stop(self, stop) + "\n",
            None => "The launch has not run yet.\n".to_string(),
        })
    }

    pub(super) fn disassemble_command(
        &self,
        location: Option<&Location>,
    ) -> Result<CommandOutput, CommandError> {
        let center = match location {
            Some(l) => self
                .resolve_location(l)
                .map_err(|e| CommandError::engine("disassemble", e))?,
            None => self
                .machine()
                .waves
                .get(self.selected_wave)
                .map_or(0, |w| w.pc),
        };
        Ok(CommandOutput::text(view::disassembly(self, center, 6, 10)))
    }

    pub(super) fn expect_command(
        &self,
        lhs: &ParsedExpr,
        op: ExpectOp,
        rhs: &ParsedExpr,
    ) -> Result<CommandOutput, CommandError> {
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
        Ok(CommandOutput {
            text: out,
            expect: Some(ExpectOutcome { passed, text }),
            ..Default::default()
        })
    }

    /// `display`: the displays now, or a new one, shown once at once.
    pub(super) fn display_command(&mut self, d: Option<&DisplaySpec>) -> CommandOutput {
        match d {
            None => CommandOutput::text(self.display_text()),
            Some(d) => {
                self.displays.push(d.clone());
                CommandOutput::text(self.display_one(self.displays.len() - 1))
            }
        }
    }

    pub(super) fn undisplay_command(
        &mut self,
        ids: &Numbers,
    ) -> Result<CommandOutput, CommandError> {
        let numbers: Vec<u32> = (1..=self.displays.len() as u32).collect();
        let (named, missing) = ids.pick(&numbers);
        // Numbered as listed before any goes.
        let mut i = 0;
        self.displays.retain(|_| {
            i += 1;
            !named.contains(&i)
        });
        super::points::partly(
            "undisplay",
            named.is_empty() && !ids.is_all(),
            &missing,
            "display",
        )
    }

    /// The value of `e` for the selected wave, at `lane` (default: the selected lane).
    pub(super) fn eval(
        &self,
        name: &'static str,
        e: &ParsedExpr,
        lane: Option<u8>,
    ) -> Result<i64, CommandError> {
        let lane = lane.or(Some(self.selected_lane));
        e.expr
            .eval(self.machine(), self.selected_wave, lane)
            .map_err(|error| CommandError::Eval {
                command: name,
                text: e.text.clone(),
                error,
            })
    }

    pub(super) fn info(&self, what: &Info) -> Result<CommandOutput, CommandError> {
        Ok(CommandOutput::text(match what {
            Info::Waves => {
                let rows = self.wave_rows();
                let text = view::waves_table(self.machine(), &rows);
                return Ok(CommandOutput::with(text, Output::Waves(rows)));
            }
            Info::Lanes(columns) => {
                let Some(w) = self.machine().waves.get(self.selected_wave) else {
                    return Ok(CommandOutput::text("no wave selected\n".into()));
                };
                let (wave, exec, selected) = (w.id, w.exec, self.selected_lane);
                return Ok(CommandOutput::with(
                    view::lanes_table(self, self.selected_wave, columns),
                    Output::LaneMask {
                        wave,
                        exec,
                        selected,
                    },
                ));
            }
            Info::Frame => return self.info_frame(),
            Info::Registers(None) => {
                return Ok(CommandOutput::with(
                    view::registers(self, self.selected_wave, self.width),
                    self.registers_output(None),
                ))
            }
            Info::Registers(Some(r)) => return self.print("info", None, r),
            Info::Breakpoints | Info::Watchpoints => {
                let watch_only = matches!(what, Info::Watchpoints);
                let rows = self.point_rows();
                let text = view::points_table(self.machine(), &rows, watch_only);
                return Ok(CommandOutput::with(text, Output::Points(rows)));
            }
            Info::Changes => view::changes_text(self),
            Info::History => view::history_text(self),
            Info::Findings => self.findings_text(),
            Info::Buffers => view::buffers_table(self),
            Info::Labels => view::labels_table(self),
            Info::Line(location) => self.info_line(location.as_ref())?,
            Info::Source => self.info_source_text(),
            Info::Locals => self.info_locals_text(),
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
        }))
    }

    /// The display expressions evaluated now, one block per display.
    pub fn display_text(&self) -> String {
        (0..self.displays.len())
            .map(|i| self.display_one(i))
            .collect()
    }

    /// Display `i` (0-based) evaluated now, numbered from 1.
    fn display_one(&self, i: usize) -> String {
        let d: &DisplaySpec = &self.displays[i];
        if d.format == Some('i') {
            // gdb's `display/i $pc`: the instruction at the address.
            return match self.eval("display", &d.expr, None) {
                Ok(addr) => {
                    let (text, _) = view::instructions_from(self, addr as u64, 1);
                    format!("{}: x/i {}\n{text}", i + 1, d.expr)
                }
                Err(e) => format!("{}: {d}: {}\n", i + 1, e.message()),
            };
        }
        match self.print("display", d.format, &d.expr) {
            Ok(out) => format!("{}: {}", i + 1, out.text),
            Err(e) => format!("{}: {d}: {}\n", i + 1, e.message()),
        }
    }

    pub(super) fn print(
        &self,
        name: &'static str,
        format: Option<char>,
        parsed: &ParsedExpr,
    ) -> Result<CommandOutput, CommandError> {
        let (e, text) = (&parsed.expr, &parsed.text);
        let refused = |e: expr::ExprError| CommandError::refused(name, e.message);
        let fmt = format.unwrap_or('u');
        if let Expr::VReg(r, None) = e {
            return Ok(CommandOutput::with(
                view::lane_view(
                    self,
                    self.selected_wave,
                    *r as usize,
                    format.unwrap_or('x'),
                    self.width,
                ),
                self.registers_output(Some(*r)),
            ));
        }
        let w = self.selected_wave;
        let m = self.machine();
        match e {
            Expr::Label(name) => {
                if let Some(v) = locals::live_var(m, w, name) {
                    return self.print_var(name, text, v, None, format);
                }
            }
            Expr::Index(name, i) => {
                if let Some(v) = locals::live_var(m, w, name) {
                    let l = i.eval(m, w, Some(self.selected_lane)).map_err(refused)?;
                    if !(0..32).contains(&l) {
                        return Err(CommandError::refused(
                            "print",
                            format!("lane {l} out of range (0-31)"),
                        ));
                    }
                    return self.print_var(name, text, v, Some(l as u8), format);
                }
            }
            _ => {}
        }
        if e.reads_lane_data_at(m, w) {
            let exec = m.waves.get(w).map_or(0, |w| w.exec);
            let values = (0..32u8)
                .map(|l| e.eval_value(m, w, Some(l)))
                .collect::<Result<Vec<Value>, _>>()
                .map_err(refused)?;
            let ints: Vec<i64> = values.iter().map(|v| v.as_int()).collect();
            let typed = values.iter().map(|v| Scalar::from(*v)).collect();
            let s = if values.iter().all(|v| matches!(v, Value::Int(_))) {
                view::lane_values(text, &ints, exec, fmt, self.width)
            } else {
                let texts: Vec<String> = values.iter().map(|v| value_text(*v, format)).collect();
                let head = format!("{text} (by lane; inactive lanes in parentheses):");
                view::lane_texts(&head, &texts, exec, self.width)
            };
            return Ok(CommandOutput::with(
                s,
                Output::Lanes {
                    values: typed,
                    exec,
                },
            ));
        }
        let v = e
            .eval_value(m, w, Some(self.selected_lane))
            .map_err(refused)?;
        let shown = match v {
            Value::Int(i) => view::scalar_text(m, e, i, format),
            Value::Float(_) => value_text(v, format),
        };
        Ok(CommandOutput::with(
            format!("{text} = {shown}\n"),
            Output::Value(v.into()),
        ))
    }

    /// `print NAME` of a live source variable in its type: every lane of a per-lane one
    /// (as `print v3`, inactive lanes in parentheses) unless `lane` picks one, else its
    /// value. The output carries the value in the variable's type.
    fn print_var(
        &self,
        name: &str,
        text: &str,
        v: &VarDef,
        lane: Option<u8>,
        format: Option<char>,
    ) -> Result<CommandOutput, CommandError> {
        let (m, w) = (self.machine(), self.selected_wave);
        let bits = |l: u8| {
            locals::var_bits(m, v, w, l)
                .map_err(|e| CommandError::refused("print", format!("`{name}`: {e}")))
        };
        let Some(wave) = m.waves.get(w) else {
            return Err(CommandError::refused("print", "no wave selected"));
        };
        if locals::per_lane(&v.location) && lane.is_none() {
            let raw = (0..32u8).map(bits).collect::<Result<Vec<u64>, _>>()?;
            let texts: Vec<String> = raw
                .iter()
                .map(|b| locals::formatted(*b, v.ty, format))
                .collect();
            let head = format!(
                "{name} ({} in {}, wave {}, EXEC {:#010x}):",
                v.ty.name(),
                v.location,
                wave.id,
                wave.exec
            );
            let values = raw.iter().map(|b| locals::typed_scalar(*b, v.ty)).collect();
            return Ok(CommandOutput::with(
                view::lane_texts(&head, &texts, wave.exec, self.width),
                Output::Lanes {
                    values,
                    exec: wave.exec,
                },
            ));
        }
        let b = bits(lane.unwrap_or(self.selected_lane))?;
        Ok(CommandOutput::with(
            format!("{text} = {}\n", locals::formatted(b, v.ty, format)),
            Output::Value(locals::typed_scalar(b, v.ty)),
        ))
    }

    /// `x/Ni ADDR`.
    pub(super) fn examine_code(
        &mut self,
        count: u64,
        addr: &ParsedExpr,
    ) -> Result<CommandOutput, CommandError> {
        let addr = self.eval("x", addr, None)? as u64;
        let (text, next) = view::instructions_from(self, addr, count);
        self.next_code = Some(next);
        Ok(CommandOutput::text(text))
    }

    pub(super) fn examine(
        &mut self,
        count: u64,
        format: char,
        size: usize,
        space: Space,
        addr: &ParsedExpr,
    ) -> Result<CommandOutput, CommandError> {
        let addr = self.eval("x", addr, None)? as u64;
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
            .map_err(|e| CommandError::Memory {
                command: "x",
                message: e.to_string(),
            })?;
        // Where an `x` repeated with Enter goes on from.
        self.next_examine = Some((space, addr.wrapping_add(total)));
        let text = view::memory_rows(space, addr, &buf, format, size);
        Ok(CommandOutput::with(
            text,
            Output::Memory {
                space,
                addr,
                bytes: buf,
            },
        ))
    }

    /// A `last-write` target that names a source variable live at the selected wave's PC
    /// (`last-write i`): the variable's location as a target, with a line saying where it
    /// lives; `None` for any other target. A variable's value is no address to search.
    fn variable_as_target(
        &self,
        t: &LastWriteTarget,
    ) -> Result<Option<(String, LastWriteTarget)>, CommandError> {
        use crate::program::VarLocation;
        let LastWriteTarget::Memory(m) = t else {
            return Ok(None);
        };
        let Expr::Label(name) = &m.addr.expr else {
            return Ok(None);
        };
        let Some(v) = locals::live_var(self.machine(), self.selected_wave, name) else {
            return Ok(None);
        };
        let lane = self.selected_lane;
        let memory = |space: Space, addr: u64| {
            ParsedExpr::parse(&format!("{addr:#x}"))
                .map(|addr| {
                    LastWriteTarget::Memory(crate::debug::command::MemRef {
                        space,
                        addr,
                        len: v.ty.bytes(),
                    })
                })
                .map_err(|e| CommandError::refused("last-write", e.to_string()))
        };
        let target = match &v.location {
            VarLocation::Vector(r) => LastWriteTarget::Vector {
                reg: *r,
                lane: Some(lane),
            },
            VarLocation::Uniform(r) => LastWriteTarget::Uniform(*r),
            VarLocation::VectorPair(r) | VarLocation::UniformPair(r) => {
                let p = if matches!(v.location, VarLocation::VectorPair(_)) {
                    'v'
                } else {
                    'u'
                };
                return Err(CommandError::refused(
                    "last-write",
                    format!(
                        "`{name}` lives in {}: ask `last-write {p}{r}` or `last-write {p}{}`",
                        v.location,
                        u16::from(*r) + 1
                    ),
                ));
            }
            VarLocation::Global { buffer, offset } => {
                let base = self.machine().buffer_base(buffer).ok_or_else(|| {
                    CommandError::refused("last-write", format!("no buffer `{buffer}`"))
                })?;
                memory(Space::Global, base.wrapping_add(*offset))?
            }
            VarLocation::Shared(a) => memory(Space::Shared, *a)?,
            VarLocation::Scratch(a) => memory(Space::Scratch, *a)?,
        };
        let lane_text = if locals::per_lane(&v.location) {
            format!(", lane {lane}")
        } else {
            String::new()
        };
        Ok(Some((
            format!("`{name}` lives in {}{lane_text}:\n", v.location),
            target,
        )))
    }

    /// `last-write TARGET` for the selected wave and lane: searches before now, or before
    /// the previous answer when the same target is asked again.
    pub(super) fn last_write_command(
        &mut self,
        t: &LastWriteTarget,
    ) -> Result<CommandOutput, CommandError> {
        let name = "last-write";
        let wave = self
            .machine()
            .waves
            .get(self.selected_wave)
            .ok_or_else(|| CommandError::refused(name, "no wave selected"))?;
        let (id, workgroup) = (wave.id, wave.workgroup);
        if let Some((location, t)) = self.variable_as_target(t)? {
            let mut out = self.last_write_command(&t)?;
            out.text.insert_str(0, &location);
            return Ok(out);
        }
        let target = match t {
            LastWriteTarget::Uniform(reg) => WriteTarget::Uniform {
                wave: id,
                reg: *reg,
            },
            LastWriteTarget::Vector { reg, lane } => WriteTarget::Vector {
                wave: id,
                reg: *reg,
                lane: *lane,
            },
            LastWriteTarget::Exec => WriteTarget::Exec { wave: id },
            LastWriteTarget::Memory(m) => {
                let addr = self.eval(name, &m.addr, None)? as u64;
                // A range outside memory was never written: say where it is, as `x` does,
                // rather than that the history holds no write to it. (At most 16 bytes.)
                self.machine()
                    .read_space(
                        m.space,
                        self.selected_wave,
                        self.selected_lane,
                        addr,
                        &mut vec![0; m.len as usize],
                    )
                    .map_err(|e| CommandError::Memory {
                        command: name,
                        message: e.to_string(),
                    })?;
                WriteTarget::Memory {
                    space: m.space,
                    addr,
                    len: m.len,
                    workgroup,
                    wave: id,
                    lane: self.selected_lane,
                }
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
        let found = self
            .last_write(&target, before)
            .map_err(|e| CommandError::engine(name, e))?;
        match found {
            Some(found) => {
                self.last_write_walk = Some((target, found.count));
                let lanes = match found.lanes.count_ones() {
                    0 => String::new(),
                    1 => format!(", lane {}", crate::fault::lanes_text(found.lanes)),
                    _ => format!(", lanes {}", crate::fault::lanes_text(found.lanes)),
                };
                let unchanged = if found.old == found.new {
                    " (value unchanged)"
                } else {
                    ""
                };
                // The higher-level line, where the kernel has a line table.
                let high = crate::debug::SourcePlace::at(self.machine().program(), found.pc)
                    .map(|h| format!(" in {h}"))
                    .unwrap_or_default();
                Ok(CommandOutput::text(format!(
                    "{t}: written by wave {} (workgroup {}){lanes}, at {} ({}){high}, instruction {} (goto {} for the machine right before it)\n  before: {}\n  after:  {}{unchanged}\n",
                    found.wave,
                    found.workgroup,
                    view::pc_text(self.machine(), found.pc),
                    view::instr_text(self.machine(), found.pc),
                    found.count + 1,
                    found.count,
                    hex(&found.old),
                    hex(&found.new),
                )))
            }
            None => {
                // The walk stays at its end: asked again, there is still none before it
                // (rather than starting over at the newest write).
                self.last_write_walk = Some((target, before));
                Ok(CommandOutput::text(format!(
                    "{t}: no write before instruction {before} in the recorded history.\n"
                )))
            }
        }
    }
}
