//! Instruction semantics. `execute` runs one decoded instruction on one wave; the
//! per-unit files hold the semantics (`lsu.rs` memory, `xlane.rs` cross-lane, `alu.rs` the
//! base group). Vector results are computed for all 32 lanes and merged under EXEC
//! without per-lane branches ([`merge`]).

mod alu;
mod lsu;
pub mod op;
mod xlane;

use crate::isa::{Counter, Instr, Latency};
use crate::machine::fault::FaultKind;
use crate::machine::wave::{RegRange, Wave, LANES};
use crate::memory::{GlobalMemory, PagedBytes, Space};
use crate::program::LaunchConfig;
pub use op::Op;

/// An instruction decoded once, with its operation resolved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decoded {
    /// The instruction.
    pub instr: Instr,
    /// Its operation.
    pub op: Op,
    /// Length in bytes.
    pub len: u8,
    /// The async counter it counts on, if any.
    pub counter: Option<Counter>,
}

impl Decoded {
    /// Resolves an instruction's operation.
    pub fn new(instr: Instr) -> Option<Self> {
        let def = instr.def();
        Some(Self {
            instr,
            op: op::op_of(def.mnemonic())?,
            len: def.len,
            counter: match def.latency {
                Latency::Async(c) => Some(c),
                Latency::Fixed(_) => None,
            },
        })
    }
}

/// What happens to control flow after an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Fall through.
    Next,
    /// Jump to an address.
    Jump(u64),
    /// The wave ends.
    End,
    /// The wave arrives at a barrier (PC moves past it).
    Barrier,
    /// A `brk` instruction (PC moves past it).
    Break,
}

/// A fault raised by an instruction, before the machine adds wave and PC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecFault {
    /// What.
    pub kind: FaultKind,
    /// Lanes involved.
    pub lanes: u32,
    /// The first faulting address.
    pub addr: Option<u64>,
    /// Access size.
    pub len: u32,
}

impl ExecFault {
    pub(crate) fn plain(kind: FaultKind) -> Self {
        Self {
            kind,
            lanes: 0,
            addr: None,
            len: 0,
        }
    }
}

/// How a lane touched memory (recorded for watchpoints when asked).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// Read.
    Read,
    /// Write.
    Write,
    /// Atomic read-modify-write.
    ReadWrite,
}

/// One lane's memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Access {
    /// Space.
    pub space: Space,
    /// Address: global address, offset in the shared window, or offset in the lane's scratch.
    pub addr: u64,
    /// Bytes.
    pub len: u32,
    /// The lane (for uniform loads, 0).
    pub lane: u8,
    /// Read, write or both.
    pub kind: AccessKind,
}

/// Everything one instruction may touch.
pub struct Ctx<'a> {
    /// The executing wave.
    pub wave: &'a mut Wave,
    /// Its workgroup's shared memory.
    pub shared: &'a mut PagedBytes,
    /// Global memory.
    pub global: &'a mut GlobalMemory,
    /// Launch shape (for ids).
    pub launch: &'a LaunchConfig,
    /// Scratch bytes per lane.
    pub scratch_bytes: u64,
    /// When set, memory accesses are appended here (for watchpoints).
    pub accesses: Option<&'a mut Vec<Access>>,
}

impl Ctx<'_> {
    pub(crate) fn record(
        &mut self,
        space: Space,
        addr: u64,
        len: u32,
        lane: usize,
        kind: AccessKind,
    ) {
        if let Some(log) = self.accesses.as_deref_mut() {
            log.push(Access {
                space,
                addr,
                len,
                lane: lane as u8,
                kind,
            });
        }
    }

    /// Marks registers as written by the async operation this instruction issued.
    pub(crate) fn issue(&mut self, d: &Decoded, pc: u64, regs: Option<RegRange>) {
        if let Some(c) = d.counter {
            self.wave.issue(c, pc, regs);
        }
    }
}

/// Merges `new` into `dst` for the lanes set in `exec` (branch-free).
#[inline]
pub fn merge(dst: &mut [u32; LANES], new: &[u32; LANES], exec: u32) {
    for l in 0..LANES {
        let m = 0u32.wrapping_sub((exec >> l) & 1);
        dst[l] = (new[l] & m) | (dst[l] & !m);
    }
}

/// Executes one instruction at `pc` on `ctx.wave`. Registers and memory change only if it
/// does not fault.
pub fn execute(ctx: &mut Ctx<'_>, d: &Decoded, pc: u64) -> Result<Flow, ExecFault> {
    match d.op {
        Op::CacheInvalidate | Op::CacheWriteBack => {
            ctx.issue(d, pc, None);
            Ok(Flow::Next)
        }
        Op::Load { .. } | Op::Store { .. } | Op::Atomic { .. } | Op::Uld { .. } => {
            lsu::execute(ctx, d, pc)
        }
        Op::Shfl { .. }
        | Op::ShflBcast { .. }
        | Op::QuadSwizzle
        | Op::Writelane
        | Op::Readfirst
        | Op::Readlane { .. }
        | Op::Deriv { .. }
        | Op::XscanAdd
        | Op::Ballot
        | Op::Vote(_)
        | Op::Xred(_) => xlane::execute(ctx, d),
        _ => alu::execute(ctx, d, pc),
    }
}
