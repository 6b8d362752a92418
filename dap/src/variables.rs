//! Threads, stack frames, scopes and variables: one thread per wave (`wave N (workgroup
//! W)`), one frame per wave at its PC (at its higher-level line where the kernel has a
//! line table), and per frame the source variables live there (`.var`), the registers
//! (PC, EXEC, uniform registers), the vector registers (each 32 lanes, inactive lanes
//! marked) and the buffers. `setVariable` writes a register through the engine's `set`.

use std::io::Write;

use wavedbg_emulator::debug::command::{Command, RegRef, SetTarget};
use wavedbg_emulator::debug::expr::ParsedExpr;
use wavedbg_emulator::debug::view;
use wavedbg_emulator::debug::Engine;
use wavedbg_emulator::machine::wave::Wave;
use wavedbg_emulator::machine::Machine;

use crate::error::DapError;
use crate::events::thread_id;
use crate::session::{Reply, Session};
use crate::types::{
    Scope, ScopesArguments, ScopesBody, SetVariableArguments, SetVariableBody, StackFrame,
    StackTraceArguments, StackTraceBody, Thread, ThreadsBody, Variable, VariablePresentationHint,
    VariablesArguments, VariablesBody,
};

/// What a variables reference lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// PC, EXEC and the uniform registers.
    Registers,
    /// The vector registers.
    Vectors,
    /// The global buffers.
    Buffers,
    /// The 32 lanes of one vector register.
    Lanes(u8),
    /// The source variables live at the wave's PC (`.var`; docs/source-level.md).
    Locals,
    /// The 32 lanes of the Nth of [`Container::Locals`] (one held per lane).
    LocalLanes(u8),
}

/// A variables reference: a container of one wave's frame, numbered as
/// `thread * 1024 + kind` (kinds 1-4 the scopes, 16 + N the lanes of vN, 512 + N the
/// lanes of the Nth local).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reference {
    /// The wave's thread id.
    pub thread: i64,
    /// What is listed.
    pub container: Container,
}

const KINDS: i64 = 1024;
const LANES_BASE: i64 = 16;
const LOCAL_LANES_BASE: i64 = 512;

impl Reference {
    /// Its number.
    pub fn encode(self) -> i64 {
        let kind = match self.container {
            Container::Registers => 1,
            Container::Vectors => 2,
            Container::Buffers => 3,
            Container::Lanes(r) => LANES_BASE + i64::from(r),
            Container::Locals => 4,
            Container::LocalLanes(n) => LOCAL_LANES_BASE + i64::from(n),
        };
        self.thread.saturating_mul(KINDS).saturating_add(kind)
    }

    /// The reference a number names (`None`: none).
    pub fn decode(n: i64) -> Option<Reference> {
        if n <= 0 {
            return None;
        }
        let (thread, kind) = (n / KINDS, n % KINDS);
        let container = match kind {
            1 => Container::Registers,
            2 => Container::Vectors,
            3 => Container::Buffers,
            4 => Container::Locals,
            k if (LANES_BASE..LANES_BASE + 256).contains(&k) => {
                Container::Lanes(u8::try_from(k - LANES_BASE).ok()?)
            }
            k if (LOCAL_LANES_BASE..LOCAL_LANES_BASE + 256).contains(&k) => {
                Container::LocalLanes(u8::try_from(k - LOCAL_LANES_BASE).ok()?)
            }
            _ => return None,
        };
        (thread > 0).then_some(Reference { thread, container })
    }
}

fn hex(v: u32) -> String {
    format!("{v:#010x} ({v})")
}

fn lane_value(wave: &Wave, reg: usize, lane: usize) -> String {
    let v = wave.v.iter().nth(reg).map_or(0, |r| r[lane]);
    if wave.exec >> lane & 1 == 1 {
        hex(v)
    } else {
        format!("{} (inactive)", hex(v))
    }
}

impl<W: Write> Session<W> {
    /// The wave index a thread id names.
    pub(crate) fn wave_of(&mut self, thread: i64) -> Result<usize, DapError> {
        if self.ended {
            return Err(DapError::Invalid(format!(
                "no thread {thread}: the launch is over (restart it to run again)"
            )));
        }
        let engine = self.engine()?;
        u32::try_from(thread.saturating_sub(1))
            .ok()
            .and_then(|id| engine.machine().wave_index(id))
            .ok_or_else(|| {
                DapError::Invalid(format!("no thread {thread} (its wave is not resident)"))
            })
    }

    pub(crate) fn threads(&mut self) -> Result<Reply, DapError> {
        let ended = self.ended;
        let engine = self.engine()?;
        // Once the launch is over its waves are gone (their `thread` `exited` was sent).
        let threads = engine
            .machine()
            .waves
            .iter()
            .filter(|_| !ended)
            .map(|w| Thread {
                id: thread_id(w.id),
                name: format!("wave {} (workgroup {})", w.id, w.workgroup),
            })
            .collect();
        Reply::body(ThreadsBody { threads })
    }

    pub(crate) fn stack_trace(&mut self, args: StackTraceArguments) -> Result<Reply, DapError> {
        let w = self.wave_of(args.thread_id)?;
        let engine = self.engine()?;
        let m = engine.machine();
        let pc = m.waves[w].pc;
        let name = format!("{} ({:?})", view::pc_text(m, pc), m.waves[w].state);
        let place = self.place(pc);
        let frame = StackFrame {
            id: args.thread_id,
            name,
            line: place.as_ref().map_or(0, |p| self.client_line(p.line)),
            column: self.client_column(place.as_ref().map_or(0, |p| p.column)),
            source: place.and_then(|p| p.source),
            instruction_pointer_reference: format!("{pc:#x}"),
        };
        let frames = if args.start_frame.unwrap_or(0) > 0 {
            Vec::new()
        } else {
            vec![frame]
        };
        Reply::body(StackTraceBody {
            stack_frames: frames,
            total_frames: 1,
        })
    }

    pub(crate) fn scopes(&mut self, args: ScopesArguments) -> Result<Reply, DapError> {
        self.wave_of(args.frame_id)?;
        let scope = |name: &str, container, hint: Option<&str>| Scope {
            name: name.to_string(),
            presentation_hint: hint.map(str::to_string),
            variables_reference: Reference {
                thread: args.frame_id,
                container,
            }
            .encode(),
            expensive: false,
        };
        // A kernel with source variables (`.var`) shows them first, as a compiled
        // program's locals are.
        let has_vars = !self
            .engine()?
            .machine()
            .program()
            .source_info
            .vars
            .is_empty();
        let mut scopes = Vec::new();
        if has_vars {
            scopes.push(scope("Locals", Container::Locals, Some("locals")));
        }
        scopes.extend([
            scope("Registers", Container::Registers, Some("registers")),
            scope("Vector registers", Container::Vectors, Some("registers")),
            scope("Buffers", Container::Buffers, None),
        ]);
        Reply::body(ScopesBody { scopes })
    }

    pub(crate) fn variables(&mut self, args: VariablesArguments) -> Result<Reply, DapError> {
        let r = Reference::decode(args.variables_reference).ok_or_else(|| {
            DapError::Invalid(format!(
                "no variables reference {}",
                args.variables_reference
            ))
        })?;
        let w = self.wave_of(r.thread)?;
        let engine = self.engine()?;
        let mut variables = match r.container {
            Container::Locals | Container::LocalLanes(_) => locals(engine, w, r),
            _ => list(engine.machine(), w, r),
        };
        let start = usize::try_from(args.start.unwrap_or(0)).unwrap_or(0);
        let count = usize::try_from(args.count.unwrap_or(0)).unwrap_or(0);
        variables = variables.into_iter().skip(start).collect();
        if count > 0 {
            variables.truncate(count);
        }
        Reply::body(VariablesBody { variables })
    }

    pub(crate) fn set_variable(&mut self, args: SetVariableArguments) -> Result<Reply, DapError> {
        let r = Reference::decode(args.variables_reference).ok_or_else(|| {
            DapError::Invalid(format!(
                "no variables reference {}",
                args.variables_reference
            ))
        })?;
        let w = self.wave_of(r.thread)?;
        let name = args.name.trim();
        // The variable as `variables` names it (a lane may come as `3` or `[3]`).
        let mut shown_name = name.to_string();
        let reg = match (r.container, name) {
            (Container::Registers, "pc") => RegRef::Pc,
            (Container::Registers, "exec") => RegRef::Exec,
            (Container::Registers, u) => RegRef::Uniform(
                u.strip_prefix('u')
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(|| DapError::Invalid(format!("no register `{u}`")))?,
            ),
            (Container::Lanes(reg), lane) => {
                let lane: u64 = lane
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .parse()
                    .map_err(|_| DapError::Invalid(format!("no lane `{lane}`")))?;
                shown_name = format!("[{lane}]");
                RegRef::VectorLane(reg, ParsedExpr::number(lane))
            }
            (Container::Vectors, _) => {
                return Err(DapError::Invalid(
                    "set a vector register one lane at a time (expand it)".into(),
                ))
            }
            (Container::Buffers, _) => {
                return Err(DapError::Invalid(
                    "a buffer's address is fixed: write its memory instead".into(),
                ))
            }
            (Container::Locals | Container::LocalLanes(_), _) => {
                return Err(DapError::Invalid(
                    "a source variable is written through where it lives (the register or memory its type names): set that instead".into(),
                ))
            }
        };
        let value = ParsedExpr::parse(&args.value)
            .map_err(|e| DapError::Invalid(format!("`{}`: {e}", args.value)))?;
        self.select_thread(r.thread)?;
        self.command(Command::Set {
            target: SetTarget::Register(reg),
            value,
        })?;
        let engine = self.engine()?;
        let shown = list(engine.machine(), w, r)
            .into_iter()
            .find(|v| v.name == shown_name)
            .map(|v| v.value)
            .unwrap_or_default();
        Reply::body(SetVariableBody { value: shown })
    }
}

/// The variables of container `r` of wave `w`.
fn list(m: &Machine, w: usize, r: Reference) -> Vec<Variable> {
    let Some(wave) = m.waves.get(w) else {
        return Vec::new();
    };
    let plain = |name: String, value: String, eval: String| Variable {
        name,
        value,
        kind: Some("u32".into()),
        evaluate_name: Some(eval),
        ..Variable::default()
    };
    match r.container {
        Container::Registers => {
            let mut vars = vec![
                Variable {
                    kind: Some("code address".into()),
                    ..plain("pc".into(), view::pc_text(m, wave.pc), "pc".into())
                },
                plain(
                    "exec".into(),
                    format!("{:#010x} ({} active)", wave.exec, wave.exec.count_ones()),
                    "exec".into(),
                ),
            ];
            vars.extend(
                wave.u
                    .iter()
                    .enumerate()
                    .map(|(i, v)| plain(format!("u{i}"), hex(*v), format!("u{i}"))),
            );
            vars
        }
        Container::Vectors => (0..wave.v.len())
            .map(|reg| {
                let first: Vec<String> = (0..4).map(|l| lane_value(wave, reg, l)).collect();
                Variable {
                    name: format!("v{reg}"),
                    value: format!("[{}, ...]", first.join(", ")),
                    kind: Some("u32 x 32 lanes".into()),
                    evaluate_name: Some(format!("v{reg}")),
                    variables_reference: Reference {
                        thread: r.thread,
                        container: Container::Lanes(reg as u8),
                    }
                    .encode(),
                    indexed_variables: Some(32),
                    ..Variable::default()
                }
            })
            .collect(),
        Container::Lanes(reg) => (0..32usize)
            .map(|lane| {
                let active = wave.exec >> lane & 1 == 1;
                Variable {
                    presentation_hint: (!active).then(|| VariablePresentationHint {
                        kind: Some("data".into()),
                        attributes: vec!["inactive".into()],
                    }),
                    ..plain(
                        format!("[{lane}]"),
                        lane_value(wave, reg as usize, lane),
                        format!("v{reg}[{lane}]"),
                    )
                }
            })
            .collect(),
        Container::Locals | Container::LocalLanes(_) => Vec::new(),
        Container::Buffers => m
            .program()
            .buffers
            .iter()
            .zip(&m.buffer_bases)
            .map(|(b, base)| Variable {
                name: b.name.clone(),
                value: format!("{base:#x} ({} bytes)", b.size),
                kind: Some("global buffer".into()),
                evaluate_name: Some(b.name.clone()),
                memory_reference: Some(format!("global:{base:#x}")),
                ..Variable::default()
            })
            .collect(),
    }
}

/// The source variables of wave `w` (container [`Container::Locals`]), or the lanes of
/// one of them ([`Container::LocalLanes`]): as the REPL's `info locals` and the TUI's
/// Locals pane read them, a per-lane one expanding into its 32 lanes (inactive lanes
/// marked).
fn locals(engine: &Engine, w: usize, r: Reference) -> Vec<Variable> {
    let m = engine.machine();
    let Some(wave) = m.waves.get(w) else {
        return Vec::new();
    };
    let text = |v: &Result<String, String>| match v {
        Ok(t) => t.clone(),
        Err(e) => format!("<unreadable: {e}>"),
    };
    let live = engine.locals_of(m, w);
    match r.container {
        Container::LocalLanes(n) => {
            let Some(local) = live.get(usize::from(n)) else {
                return Vec::new();
            };
            local
                .values
                .iter()
                .enumerate()
                .map(|(lane, v)| {
                    let active = wave.exec >> lane & 1 == 1;
                    let value = text(v);
                    Variable {
                        name: format!("[{lane}]"),
                        value: if active {
                            value
                        } else {
                            format!("{value} (inactive)")
                        },
                        kind: Some(local.ty.into()),
                        presentation_hint: (!active).then(|| VariablePresentationHint {
                            kind: Some("data".into()),
                            attributes: vec!["inactive".into()],
                        }),
                        ..Variable::default()
                    }
                })
                .collect()
        }
        _ => live
            .iter()
            .enumerate()
            .map(|(n, local)| {
                let per_lane = local.values.len() > 1;
                let value = if per_lane {
                    let first: Vec<String> = local.values.iter().take(4).map(text).collect();
                    format!("[{}, ...]", first.join(", "))
                } else {
                    local.values.first().map(text).unwrap_or_default()
                };
                Variable {
                    name: local.name.clone(),
                    value,
                    kind: Some(if per_lane {
                        format!("{} x 32 lanes in {}", local.ty, local.location)
                    } else {
                        format!("{} in {}", local.ty, local.location)
                    }),
                    evaluate_name: Some(local.name.clone()),
                    variables_reference: u8::try_from(n).ok().filter(|_| per_lane).map_or(0, |n| {
                        Reference {
                            thread: r.thread,
                            container: Container::LocalLanes(n),
                        }
                        .encode()
                    }),
                    indexed_variables: per_lane.then_some(32),
                    ..Variable::default()
                }
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_round_trip() {
        for container in [
            Container::Registers,
            Container::Vectors,
            Container::Buffers,
            Container::Lanes(0),
            Container::Lanes(127),
            Container::Locals,
            Container::LocalLanes(0),
            Container::LocalLanes(255),
        ] {
            let r = Reference {
                thread: 7,
                container,
            };
            assert_eq!(Reference::decode(r.encode()), Some(r));
        }
        for bad in [0, -1, 5, 1024, 1024 + 999] {
            assert_eq!(Reference::decode(bad), None, "{bad}");
        }
    }
}
