//! Instruction semantics. `execute` runs one decoded instruction on one wave; the
//! per-unit files hold the semantics (`lsu.rs` memory, `xlane.rs` cross-lane, `alu.rs` the
//! base group). Vector results are computed for all 32 lanes and merged under EXEC
//! without per-lane branches ([`merge`]).

mod alu;
pub mod fast;
mod lsu;
pub(crate) use lsu::space_read;
/// The reference interpreter, compiled only for tests (feature `reference`).
#[cfg(feature = "reference")]
pub mod reference;
pub mod simd;
pub mod xlane;

// The decoded code and the access kinds live below the semantics (`crate::code`,
// `crate::trace`); these are their paths as the semantics' users know them.
pub use crate::code::Decoded;
use crate::fault::FaultKind;
pub use crate::isa::op;
pub use crate::isa::Op;
use crate::memory::{GlobalMemory, PagedBytes, Space};
use crate::program::LaunchConfig;
pub use crate::trace::AccessKind;
use crate::trace::MemTrace;
use crate::wave::{RegRange, Wave, LANES};

/// What happens to control flow after an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on to the next instruction (PC plus the instruction's length).
    Next,
    /// Go on at this byte address (a taken branch).
    Jump(u64),
    /// The wave has executed `end` and exits.
    End,
    /// The wave arrives at a barrier (PC moves past it).
    Barrier,
    /// A `brk` instruction (PC moves past it).
    Break,
}

/// A fault raised by an instruction, before the machine adds wave and PC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecFault {
    /// Which fault it is.
    pub kind: FaultKind,
    /// The faulting lanes, bit i = lane i (0 when the fault is the wave's, not a lane's).
    pub lanes: u32,
    /// The first faulting address, for memory faults.
    pub addr: Option<u64>,
    /// Bytes of the faulting access (0 when not a memory fault).
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

/// One lane's memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Access {
    /// Which memory it touched: global, the workgroup's shared, or the lane's scratch.
    pub space: Space,
    /// Address: global address, offset in the shared window, or offset in the lane's scratch.
    pub addr: u64,
    /// Bytes accessed from `addr`.
    pub len: u32,
    /// The lane (for uniform loads, 0).
    pub lane: u8,
    /// Read, write or both.
    pub kind: AccessKind,
    /// For writes and atomics: the bytes before the access (the first `len`, up to 16).
    pub old: [u8; 16],
}

/// Records the memory accesses that touch watched ranges (the debugger's watchpoints).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessLog {
    /// Watched ranges: space, first byte, one past the last byte. Empty: record nothing.
    filter: Vec<(Space, u64, u64)>,
    /// Accesses of the last instruction that touched a watched range.
    pub hits: Vec<Access>,
    /// Per space: the lowest watched byte and one past the highest (a quick reject).
    bounds: [(u64, u64); 3],
}

impl AccessLog {
    /// A log for watched ranges `(space, first byte, one past the last byte)`, in any
    /// order (an empty list records nothing).
    pub fn new(mut filter: Vec<(Space, u64, u64)>) -> Self {
        filter.sort_by_key(|&(s, lo, _)| (s as u8, lo));
        let mut bounds = [(u64::MAX, 0); 3];
        for &(s, lo, hi) in &filter {
            let b = &mut bounds[s as usize];
            *b = (b.0.min(lo), b.1.max(hi));
        }
        Self {
            filter,
            hits: Vec::new(),
            bounds,
        }
    }

    /// Whether an access touches a watched range.
    #[inline]
    pub fn wants(&self, space: Space, addr: u64, len: u32) -> bool {
        let end = addr.saturating_add(len as u64);
        let (lo, hi) = self.bounds[space as usize];
        if end <= lo || addr >= hi {
            return false;
        }
        // Ranges are sorted by (space, start): those starting before `end` are a prefix.
        let upto = self
            .filter
            .partition_point(|&(s, lo, _)| (s as u8, lo) < (space as u8, end));
        self.filter[..upto]
            .iter()
            .rev()
            .take_while(|&&(s, _, _)| s == space)
            .any(|&(_, _, hi)| hi > addr)
    }
}

/// Everything one instruction may touch.
pub struct Ctx<'a> {
    /// The executing wave: registers, EXEC, counters, scratch.
    pub wave: &'a mut Wave,
    /// Its workgroup's shared memory.
    pub shared: &'a mut PagedBytes,
    /// Every buffer of the launch, by global address.
    pub global: &'a mut GlobalMemory,
    /// Launch shape, for the id instructions (workgroup and wave ids, sizes).
    pub launch: &'a LaunchConfig,
    /// Scratch bytes per lane: a lane's scratch offsets are below this.
    pub scratch_bytes: u64,
    /// When set, accesses to watched ranges are recorded here.
    pub accesses: Option<&'a mut AccessLog>,
    /// When set (a sanitizer is on), every lane's memory access is recorded here.
    pub trace: Option<&'a mut MemTrace>,
}

impl Ctx<'_> {
    /// Whether an access is watched (so the caller should record it, with old bytes).
    #[inline]
    pub(crate) fn watched(&self, space: Space, addr: u64, len: u32) -> bool {
        self.accesses
            .as_deref()
            .is_some_and(|log| log.wants(space, addr, len))
    }

    pub(crate) fn record(
        &mut self,
        space: Space,
        addr: u64,
        len: u32,
        lane: usize,
        kind: AccessKind,
        old: &[u8],
    ) {
        if let Some(log) = self.accesses.as_deref_mut() {
            if log.wants(space, addr, len) {
                let mut o = [0u8; 16];
                let n = old.len().min(16);
                o[..n].copy_from_slice(&old[..n]);
                log.hits.push(Access {
                    space,
                    addr,
                    len,
                    lane: lane as u8,
                    kind,
                    old: o,
                });
            }
        }
    }

    /// Marks registers as written by the async operation this instruction issued.
    pub(crate) fn issue(&mut self, d: &Decoded, pc: u64, regs: Option<RegRange>) {
        if let Some(c) = d.counter {
            self.wave.issue(c, pc, regs);
        }
    }
}

/// Each lane's bit of an EXEC mask.
const LANE_BIT: [u32; LANES] = {
    let mut b = [0; LANES];
    let mut l = 0;
    while l < LANES {
        b[l] = 1 << l;
        l += 1;
    }
    b
};

/// All ones for a lane set in `exec`, zero otherwise. Written as a compare of `exec & bit`
/// so it vectorises with plain SIMD compares (a per-lane variable shift has no SSE2 form).
#[inline(always)]
pub(crate) fn lane_mask(exec: u32, l: usize) -> u32 {
    if exec & LANE_BIT[l] != 0 {
        u32::MAX
    } else {
        0
    }
}

/// Merges `new` into `dst` for the lanes set in `exec` (branch-free).
#[inline]
pub fn merge(dst: &mut [u32; LANES], new: &[u32; LANES], exec: u32) {
    for l in 0..LANES {
        let m = lane_mask(exec, l);
        dst[l] = (new[l] & m) | (dst[l] & !m);
    }
}

/// Where an operation's semantics live, and what it may touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpClass {
    /// Cache maintenance: counted on its counter, nothing else is modelled.
    Cache,
    /// Loads, stores, atomics and uniform loads (`lsu.rs`).
    Memory,
    /// Cross-lane operations (`xlane.rs`).
    CrossLane,
    /// The base group's operations on the wave's registers, PC and counters that always
    /// go on or branch (`alu.rs`): the machine runs these in its tight loop.
    WaveLocal,
    /// The base group's operations that end, stop or park the wave (`alu.rs`).
    Control,
}

impl OpClass {
    /// The class of an operation.
    #[inline]
    pub fn of(op: Op) -> OpClass {
        // Exhaustive, so a new operation has to be placed.
        match op {
            Op::CacheInvalidate | Op::CacheWriteBack => OpClass::Cache,
            Op::Load { .. } | Op::Store { .. } | Op::Atomic { .. } | Op::Uld { .. } => {
                OpClass::Memory
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
            | Op::Xred(_) => OpClass::CrossLane,
            Op::Nop
            | Op::Wait(_)
            | Op::Branch(_)
            | Op::UAlu(..)
            | Op::UCmp(..)
            | Op::UAdd64(_)
            | Op::Exec(_)
            | Op::Id(_)
            | Op::VAlu(..)
            | Op::VLaneId
            | Op::VCvt(_)
            | Op::VCmp(_)
            | Op::VAdd64(_)
            | Op::VMovU64
            | Op::VAdd64U
            | Op::VMad
            | Op::VFma
            | Op::VSel => OpClass::WaveLocal,
            Op::End | Op::Brk | Op::Trap | Op::Barrier => OpClass::Control,
        }
    }
}

/// Whether an operation touches only its wave's registers, PC and counters, and always
/// goes on to the next instruction or a branch target ([`OpClass::WaveLocal`]).
#[inline]
pub fn is_wave_local(op: Op) -> bool {
    OpClass::of(op) == OpClass::WaveLocal
}

/// Executes a wave-local instruction ([`is_wave_local`]) on `wave`: the same semantics as
/// [`execute`], without the memory context.
#[inline]
pub fn execute_on_wave(
    wave: &mut Wave,
    launch: &LaunchConfig,
    d: &Decoded,
    pc: u64,
) -> Result<Flow, ExecFault> {
    alu::execute_on(wave, launch, d, pc)
}

/// Executes one instruction at `pc` on `ctx.wave`. Registers and memory change only if it
/// does not fault.
#[inline(always)]
pub fn execute(ctx: &mut Ctx<'_>, d: &Decoded, pc: u64) -> Result<Flow, ExecFault> {
    match OpClass::of(d.op) {
        OpClass::Cache => {
            ctx.issue(d, pc, None);
            Ok(Flow::Next)
        }
        OpClass::Memory => lsu::execute(ctx, d, pc),
        OpClass::CrossLane => xlane::execute(ctx, d),
        OpClass::WaveLocal | OpClass::Control => alu::execute(ctx, d, pc),
    }
}
