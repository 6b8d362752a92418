//! Threads, stack frames, scopes and variables: one thread per wave (`wave N (workgroup
//! W)`), one frame per wave at its PC, and per frame the registers (PC, EXEC, uniform
//! registers), the vector registers (each 32 lanes, inactive lanes marked) and the
//! buffers. `setVariable` writes a register through the engine's `set`.

use std::io::Write;

use wavedbg_emulator::debug::command::{Command, RegRef, SetTarget};
use wavedbg_emulator::debug::expr::ParsedExpr;
use wavedbg_emulator::debug::view;
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
}

/// A variables reference: a container of one wave's frame, numbered as
/// `thread * 1024 + kind` (kinds 1-3 the scopes, 16 + N the lanes of vN).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reference {
    /// The wave's thread id.
    pub thread: i64,
    /// What is listed.
    pub container: Container,
}

const KINDS: i64 = 1024;
const LANES_BASE: i64 = 16;

impl Reference {
    /// Its number.
    pub fn encode(self) -> i64 {
        let kind = match self.container {
            Container::Registers => 1,
            Container::Vectors => 2,
            Container::Buffers => 3,
            Container::Lanes(r) => LANES_BASE + i64::from(r),
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
            k if (LANES_BASE..LANES_BASE + 256).contains(&k) => {
                Container::Lanes(u8::try_from(k - LANES_BASE).ok()?)
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
        let engine = self.engine()?;
        u32::try_from(thread.saturating_sub(1))
            .ok()
            .and_then(|id| engine.machine().wave_index(id))
            .ok_or_else(|| {
                DapError::Invalid(format!("no thread {thread} (its wave is not resident)"))
            })
    }

    pub(crate) fn threads(&mut self) -> Result<Reply, DapError> {
        let engine = self.engine()?;
        let threads = engine
            .machine()
            .waves
            .iter()
            .map(|w| Thread {
                id: thread_id(w.id),
                name: format!("wave {} (workgroup {})", w.id, w.workgroup),
            })
            .collect();
        Reply::body(ThreadsBody { threads })
    }

    pub(crate) fn stack_trace(&mut self, args: StackTraceArguments) -> Result<Reply, DapError> {
        let w = self.wave_of(args.thread_id)?;
        let source = self.kernel_source();
        let engine = self.engine()?;
        let m = engine.machine();
        let pc = m.waves[w].pc;
        let line = m.program().line_at(pc);
        let name = format!("{} ({:?})", view::pc_text(m, pc), m.waves[w].state);
        let frame = StackFrame {
            id: args.thread_id,
            name,
            source: line.and(source),
            line: line.map_or(0, |l| self.client_line(l)),
            column: self.column_base,
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
        Reply::body(ScopesBody {
            scopes: vec![
                scope("Registers", Container::Registers, Some("registers")),
                scope("Vector registers", Container::Vectors, Some("registers")),
                scope("Buffers", Container::Buffers, None),
            ],
        })
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
        let mut variables = list(engine.machine(), w, r);
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
