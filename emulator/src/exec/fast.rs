//! ALU, branch, shuffle, wait and 32-bit memory instructions pre-decoded for the
//! machine's fastest loop.
//!
//! The vector and uniform ALU, compare, FMA, select, `nop`, branch, shuffle and `wait.*`
//! instructions run most of a compute kernel's loop, never fault, and touch nothing but
//! registers, the PC and (waits) the queues of outstanding operations, with EXEC
//! unchanged. 32-bit loads, stores and atomics (ubase, shared and global addresses) run
//! here too when their active lanes make one run of consecutive words in one page, or two
//! such runs in lane order (a window that wraps round), none watched: the common case,
//! found with one check for the wave; any other access (a fault among them) is left,
//! unchanged, to the general loop. At launch each becomes a [`Fast`]: one flat operation
//! code (operation and operand form together, so running it is one jump), register
//! numbers, the immediate and a branch's absolute target (an access's counter). [`step`]
//! runs one on a wave's [`FastState`], its register file allocated up to
//! [`FastCode::vregs`], and [`FastMemory`]. The semantics are `alu.rs`'s, `xlane.rs`'s and
//! `lsu.rs`'s own per-operation functions (`alu`, `compare`, the lane loops, the
//! shuffles, the runs' loads, stores and atomics), so this is a faster dispatch of the
//! same code, not a second copy of it; the reference interpreter checks both in
//! lock-step (tests/fast_loop.rs, tests/memory_loop.rs).

use std::collections::VecDeque;

use super::alu::{alu, compare, fma_lanes, lanes, mad_lanes, sel_lanes, vcmp};
use super::lsu::{
    atomic_runs_on, counter_regs, load_runs_into, runs_meet, store_runs_from, trace_runs_into,
    RunPlace, Runs,
};
use super::op::{AddrMode, AluOp, AtomOp, BrCond, CmpOp, Op, ShflMode, ShflSrc, Src};
use super::xlane::{put, shuffle_lanes, shuffle_uniform};
use super::{merge, AccessKind, AccessLog};
use crate::code::CodeWord;
use crate::isa::{Counter, RegFile};
use crate::memory::{GlobalMemory, PagedBytes};
use crate::trace::MemTrace;
use crate::wave::{issue_to, retire, Outstanding, Wave, LANES, UREGS, VREGS};

/// Operation codes: a two-operand ALU operation has one code per form, an offset by
/// form plus the operation's index; compares likewise; the rest follow.
mod kind {
    /// `v[rd] = op(v[a], v[b])`.
    pub const VV: u8 = 0;
    /// `v[rd] = op(v[a], u[b])` (the uniform register on every lane).
    pub const VU: u8 = 24;
    /// `v[rd] = op(v[a], imm)`.
    pub const VI: u8 = 48;
    /// `u[rd] = op(u[a], u[b])`.
    pub const UU: u8 = 72;
    /// `u[rd] = op(u[a], imm)`.
    pub const UI: u8 = 96;
    /// `u[rd] = lanes where cmp(v[a], v[b]), within EXEC`.
    pub const VCMP: u8 = 120;
    /// `u[rd] = cmp(u[a], u[b])`.
    pub const UCMPU: u8 = 140;
    /// `u[rd] = cmp(u[a], imm)`.
    pub const UCMPI: u8 = 160;
    /// `nop`.
    pub const NOP: u8 = 180;
    /// Branches: always, if `u[a]` is zero or not, if EXEC is zero or not.
    pub const BR: u8 = 181;
    pub const BR_UZ: u8 = 182;
    pub const BR_UNZ: u8 = 183;
    pub const BR_EXECZ: u8 = 184;
    pub const BR_EXECNZ: u8 = 185;
    /// `v[rd] = fma(v[a], v[b], v[c])` (f32).
    pub const FMA: u8 = 186;
    /// `v[rd] = v[a] * v[b] + v[c]` (32-bit integers).
    pub const MAD: u8 = 187;
    /// `v[rd] = u[c] lane bit ? v[b] : v[a]`.
    pub const SEL: u8 = 188;
    /// `v[rd] = shfl(v[a], imm)`, one code per mode (the selector resolved at launch).
    pub const SHFL_I: u8 = 189;
    /// `v[rd] = shfl(v[a], u[b])`, one code per mode.
    pub const SHFL_U: u8 = 194;
    /// `v[rd] = shfl(v[a], v[b])` (each lane its own selector), one code per mode.
    pub const SHFL_V: u8 = 199;
    /// `wait.<counter> imm`, one code per counter (index [`Counter::index`]), and
    /// `wait.all`.
    ///
    /// [`Counter::index`]: crate::isa::Counter::index
    pub const WAIT: u8 = 204;
    pub const WAIT_ALL: u8 = 208;
    /// 32-bit loads, stores, atomics and atomics returning the old value, one code per
    /// address mode ([`MODES`](super::MODES): ubase, shared, global), run here when the
    /// active lanes make one or two runs of consecutive words, each in one page
    /// (`lsu::RunPlace::runs`), and left to the general loop otherwise.
    pub const LD: u8 = 209;
    pub const ST: u8 = 212;
    pub const ATOM: u8 = 215;
    pub const ATOM_RTN: u8 = 218;
    /// One past the last memory code.
    pub const MEM_END: u8 = 221;
    /// Not in the fast set: the machine's general loop runs it.
    pub const NONE: u8 = 255;
}

// Every operation fits its form's range of codes.
const _: () = assert!((AluOp::Mov as u8) < kind::VU - kind::VV);
const _: () = assert!((CmpOp::GeF as u8) < kind::UCMPU - kind::VCMP);
const _: () = assert!((ShflMode::Rot as u8) < kind::SHFL_U - kind::SHFL_I);
const _: () = assert!(kind::SHFL_V + (ShflMode::Rot as u8) < kind::WAIT);
const _: () = assert!(kind::WAIT + Counter::ALL.len() as u8 == kind::WAIT_ALL);
// The hooked codes are the waits and then the memory ones, nothing between.
const _: () = assert!(kind::WAIT_ALL + 1 == kind::LD);
const _: () = assert!(kind::LD + 4 * MODES.len() as u8 == kind::MEM_END);
const _: () = assert!(kind::MEM_END < kind::NONE);

/// The address modes of the memory codes, in the order of their offsets.
const MODES: [AddrMode; 3] = [AddrMode::Ubase, AddrMode::Shared, AddrMode::Global];

/// The atomic operations by index (`AtomOp as u8`), which a memory code keeps in `c`.
const ATOM_OPS: [AtomOp; 16] = {
    use AtomOp::*;
    [
        Add, Sub, And, Or, Xor, MinS, MaxS, MinU, MaxU, Xchg, CmpXchg, Inc, Dec, FAdd, FMin, FMax,
    ]
};

// Each operation at its own index.
const _: () = {
    let mut i = 0;
    while i < ATOM_OPS.len() {
        assert!(ATOM_OPS[i] as usize == i);
        i += 1;
    }
};

/// One pre-decoded instruction of the fast set (16 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fast {
    /// The operation code (`kind`); `NONE` for a word the fast loop does not run.
    kind: u8,
    rd: u8,
    a: u8,
    b: u8,
    c: u8,
    /// Encoded length in bytes.
    len: u8,
    /// Whether it counts as a vector instruction (`Decoded::vector`).
    vector: bool,
    /// Whether it reads other lanes (a shuffle).
    cross_lane: bool,
    /// The immediate (ALU), as the semantics read it; a memory code's offset (signed).
    imm: u32,
    /// A branch's target byte address; a memory code's counter ([`Counter::index`]).
    target: u32,
}

impl Fast {
    const NONE: Fast = Fast {
        kind: kind::NONE,
        rd: 0,
        a: 0,
        b: 0,
        c: 0,
        len: 0,
        vector: false,
        cross_lane: false,
        imm: 0,
        target: 0,
    };

    /// Whether the fast loop runs this word.
    #[inline(always)]
    pub fn is_fast(&self) -> bool {
        self.kind != kind::NONE
    }

    /// Whether it counts as a vector instruction.
    #[inline(always)]
    pub fn vector(&self) -> bool {
        self.vector
    }

    /// Whether the sanitizer must see it whatever its registers: a wait, which retires
    /// the wave's outstanding operations (the hazard and memory-model detectors follow
    /// the counters), or a memory access (each lane's access is traced). Its guard never
    /// lets one run without the hooks.
    #[inline(always)]
    pub fn hooked(&self) -> bool {
        (kind::WAIT..kind::MEM_END).contains(&self.kind)
    }

    /// Whether it is a wait (on one counter or all).
    #[inline(always)]
    pub fn is_wait(&self) -> bool {
        (kind::WAIT..=kind::WAIT_ALL).contains(&self.kind)
    }

    /// Whether it is a memory access (a load, store or atomic).
    #[inline(always)]
    pub fn is_access(&self) -> bool {
        (kind::LD..kind::MEM_END).contains(&self.kind)
    }

    /// Whether it reads other lanes than its own (a shuffle): under the cross-lane
    /// detector, with some lanes inactive, it needs the sanitizer's hooks.
    #[inline(always)]
    pub fn cross_lane(&self) -> bool {
        self.cross_lane
    }

    /// The highest vector register it names, if any.
    fn max_vreg(&self) -> Option<u8> {
        let k = self.kind;
        match k {
            _ if k < kind::VU => Some(self.rd.max(self.a).max(self.b)),
            _ if k < kind::UU => Some(self.rd.max(self.a)),
            _ if (kind::VCMP..kind::UCMPU).contains(&k) => Some(self.a.max(self.b)),
            kind::FMA | kind::MAD => Some(self.rd.max(self.a).max(self.b).max(self.c)),
            kind::SEL => Some(self.rd.max(self.a).max(self.b)),
            _ if (kind::SHFL_I..kind::SHFL_V).contains(&k) => Some(self.rd.max(self.a)),
            _ if (kind::SHFL_V..kind::SHFL_V + 5).contains(&k) => {
                Some(self.rd.max(self.a).max(self.b))
            }
            _ if (kind::LD..kind::MEM_END).contains(&k) => {
                // Global addresses are register pairs; compare-exchange's new value is
                // the register after the data.
                let global = self.mode() == AddrMode::Global;
                let cmpxchg = k >= kind::ATOM && self.c == AtomOp::CmpXchg as u8;
                let a = self.a.saturating_add(global as u8);
                Some(a.max(self.rd.saturating_add(cmpxchg as u8)))
            }
            _ => None,
        }
    }

    /// A memory code's address mode.
    #[inline(always)]
    fn mode(&self) -> AddrMode {
        MODES[((self.kind - kind::LD) % MODES.len() as u8) as usize]
    }

    /// The highest uniform register it names, if any.
    fn max_ureg(&self) -> Option<u8> {
        let k = self.kind;
        match k {
            _ if (kind::VU..kind::VI).contains(&k) => Some(self.b),
            _ if (kind::UU..kind::VCMP).contains(&k) => Some(self.rd.max(self.a).max(self.b)),
            _ if (kind::VCMP..kind::UCMPU).contains(&k) => Some(self.rd),
            _ if (kind::UCMPU..kind::NOP).contains(&k) => Some(self.rd.max(self.a).max(self.b)),
            kind::BR_UZ | kind::BR_UNZ => Some(self.a),
            kind::SEL => Some(self.c),
            _ if (kind::SHFL_U..kind::SHFL_V).contains(&k) => Some(self.b),
            // The uniform base, a register pair.
            _ if (kind::LD..kind::MEM_END).contains(&k) && self.mode() == AddrMode::Ubase => {
                Some(self.b.saturating_add(1))
            }
            _ => None,
        }
    }

    /// The pre-decoded form of the instruction `word` at byte address `pc`, or `NONE`.
    fn of(word: &CodeWord, pc: u64) -> Fast {
        let CodeWord::Instr(d) = word else {
            return Fast::NONE;
        };
        let i = d.instr;
        let (rd, rs1, rs2, rs3) = (i.rd, i.rs1, i.rs2, i.rs3);
        let mut f = Fast {
            kind: kind::NONE,
            rd,
            a: rs1,
            b: rs2,
            c: rs3,
            len: d.len,
            vector: d.vector,
            cross_lane: false,
            imm: i.imm as u32,
            target: 0,
        };
        let alu_index = |op: AluOp| op as u8;
        f.kind = match d.op {
            Op::Nop => kind::NOP,
            Op::VAlu(op, src) => {
                // `vmov rd, rs1`: the moved value is the first operand.
                if op == AluOp::Mov && src == Src::Reg {
                    f.b = rs1;
                }
                alu_index(op)
                    + match src {
                        Src::Reg => kind::VV,
                        Src::Uniform => kind::VU,
                        Src::Imm => kind::VI,
                    }
            }
            Op::UAlu(op, src) => {
                if op == AluOp::Mov && src != Src::Imm {
                    f.b = rs1;
                }
                alu_index(op)
                    + match src {
                        Src::Imm => kind::UI,
                        _ => kind::UU,
                    }
            }
            Op::VCmp(op) => kind::VCMP + op as u8,
            Op::UCmp(op, src) => {
                op as u8
                    + match src {
                        Src::Imm => kind::UCMPI,
                        _ => kind::UCMPU,
                    }
            }
            Op::VFma => kind::FMA,
            Op::VMad => kind::MAD,
            Op::VSel => kind::SEL,
            Op::Shfl { mode, src } => {
                f.cross_lane = true;
                mode as u8
                    + match src {
                        ShflSrc::Imm => {
                            // `.vi`: up, down, idx and xor use imm[4:0]; rot adds the
                            // immediate, then & 31 (`xlane::shuffle_uniform` masks it).
                            if mode != ShflMode::Rot {
                                f.imm &= 31;
                            }
                            kind::SHFL_I
                        }
                        ShflSrc::Uniform => kind::SHFL_U,
                        ShflSrc::Vector => kind::SHFL_V,
                    }
            }
            Op::Wait(Some(c)) => kind::WAIT + c.index() as u8,
            Op::Wait(None) => kind::WAIT_ALL,
            Op::Load { mode, ty } if ty.bytes == 4 => {
                mem_kind(kind::LD, mode, i.imm, d.counter, &mut f)
            }
            Op::Store { mode, bytes: 4 } => mem_kind(kind::ST, mode, i.imm, d.counter, &mut f),
            Op::Atomic {
                mode,
                op,
                wide: false,
                rtn,
            } => {
                f.c = op as u8;
                let base = if rtn { kind::ATOM_RTN } else { kind::ATOM };
                mem_kind(base, mode, i.imm, d.counter, &mut f)
            }
            Op::Branch(cond) => {
                let target = pc.wrapping_add((i.imm * 4) as u64);
                // A target outside 32 bits is left to the general loop, which faults there.
                let Ok(t) = u32::try_from(target) else {
                    return Fast::NONE;
                };
                f.target = t;
                match cond {
                    BrCond::Always => kind::BR,
                    BrCond::UZero => kind::BR_UZ,
                    BrCond::UNonZero => kind::BR_UNZ,
                    BrCond::ExecZero => kind::BR_EXECZ,
                    BrCond::ExecNonZero => kind::BR_EXECNZ,
                }
            }
            _ => kind::NONE,
        };
        // Registers beyond the files stay with the general loop (which reports them).
        let vregs_ok = f.max_vreg().is_none_or(|r| (r as usize) < VREGS);
        let uregs_ok = f.max_ureg().is_none_or(|r| (r as usize) < UREGS);
        if !vregs_ok || !uregs_ok {
            return Fast::NONE;
        }
        f
    }
}

/// The code of a 32-bit memory access of group `base` in address mode `mode` issuing on
/// `counter`, with its offset `imm` and counter put in `f`; `NONE` for a mode, offset or
/// counter the fast loop does not take.
fn mem_kind(base: u8, mode: AddrMode, imm: i64, counter: Option<Counter>, f: &mut Fast) -> u8 {
    let (Some(m), Some(c)) = (MODES.iter().position(|&m| m == mode), counter) else {
        return kind::NONE;
    };
    // The offset as the semantics read it (`i64`), kept in 32 bits.
    let Ok(imm) = i32::try_from(imm) else {
        return kind::NONE;
    };
    f.imm = imm as u32;
    f.target = c.index() as u32;
    base + m as u8
}

/// The fast form of every code word, and how many vector registers it needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FastCode {
    /// One entry per 32-bit code word, as the decoded code.
    pub ops: Vec<Fast>,
    /// Vector registers the fast instructions name: the register file is allocated up to
    /// this before they run (an unallocated register reads as zero either way).
    pub vregs: usize,
}

impl FastCode {
    /// Pre-decodes the fast instructions of a decoded code image.
    pub fn new(code: &[CodeWord]) -> FastCode {
        let ops: Vec<Fast> = code
            .iter()
            .enumerate()
            .map(|(i, w)| Fast::of(w, i as u64 * 4))
            .collect();
        let vregs = ops
            .iter()
            .filter_map(|f| f.max_vreg())
            .max()
            .map_or(0, |r| r as usize + 1);
        FastCode { ops, vregs }
    }
}

/// The memory a fast memory instruction reaches: global memory, the wave's workgroup's
/// shared memory, the watchpoints' log (an access to a watched byte is left to the
/// general loop, which records it), and the sanitizer's trace.
pub struct FastMemory<'a> {
    /// Global memory.
    pub global: &'a mut GlobalMemory,
    /// The shared memory of the wave's workgroup.
    pub shared: &'a mut PagedBytes,
    /// The watchpoints' log, when watchpoints are set.
    pub accesses: Option<&'a AccessLog>,
    /// The sanitizer's trace of the access, when its memory detectors are on: filled
    /// with the access's runs as the general loop fills it. A store whose two runs meet
    /// is then left to the general loop (the trace needs each lane's entry and data).
    pub trace: Option<&'a mut MemTrace>,
}

/// A wave's state a fast instruction reads or writes: vector registers (allocated up to
/// [`FastCode::vregs`]), uniform registers, EXEC (read only), the outstanding
/// operations' queues (which a wait retires and a memory access adds to).
pub struct FastState<'a> {
    /// Vector registers, register-major, at least [`FastCode::vregs`] of them.
    pub v: &'a mut [[u32; LANES]],
    /// Uniform registers.
    pub u: &'a mut [u32; UREGS],
    /// EXEC, which no fast instruction changes.
    pub exec: u32,
    /// Issued, unretired operations per counter (`Wave::outstanding`).
    pub outstanding: &'a mut [VecDeque<Outstanding>; 4],
}

impl<'a> FastState<'a> {
    /// The state of `wave`, its vector registers allocated up to `vregs`
    /// ([`FastCode::vregs`]).
    #[inline(always)]
    pub fn of(wave: &'a mut Wave, vregs: usize) -> FastState<'a> {
        FastState {
            v: wave.v.storage_for(vregs),
            u: &mut wave.u,
            exec: wave.exec,
            outstanding: &mut wave.outstanding,
        }
    }
}

/// Runs one fast instruction `f` at `pc` on wave state `s` and memory `m`; returns the
/// next PC, or `None` (having changed nothing) for a memory instruction whose lanes do
/// not make one or two runs in one page each, or touch a watched byte, or when there is
/// no memory (`m` is `None`): the general loop runs it.
#[inline(always)]
pub fn step(
    f: &Fast,
    s: &mut FastState<'_>,
    m: Option<&mut FastMemory<'_>>,
    pc: u64,
) -> Option<u64> {
    // One compare: the codes above the memory ones are `NONE`, which never comes here.
    if f.kind >= kind::LD {
        access(f, s.v, s.u, s.exec, s.outstanding, m?, pc)
    } else {
        Some(compute(f, s, pc))
    }
}

/// [`step`] of a wait at `pc` (a code from `kind::WAIT` to `kind::WAIT_ALL`) on the wave's
/// queues: retires what it waits for; returns the next PC.
#[inline(always)]
pub fn wait(f: &Fast, outstanding: &mut [VecDeque<Outstanding>; 4], pc: u64) -> u64 {
    match f.kind {
        kind::WAIT_ALL => outstanding.iter_mut().for_each(VecDeque::clear),
        // `wait.c 0` empties its queue at once, not one operation at a time.
        k => match &mut outstanding[(k - kind::WAIT) as usize] {
            q if f.imm == 0 => q.clear(),
            q => retire(q, f.imm),
        },
    }
    pc + f.len as u64
}

/// [`step`] of an instruction that is not a memory access.
#[inline(always)]
fn compute(f: &Fast, s: &mut FastState<'_>, pc: u64) -> u64 {
    let (v, u, exec) = (&mut *s.v, &mut *s.u, s.exec);
    let (rd, a, b, c) = (f.rd as usize, f.a as usize, f.b as usize, f.c as usize);
    let next = pc + f.len as u64;
    macro_rules! dispatch {
        (alu: $($o:ident)*; cmp: $($c:ident)*; shfl: $($m:ident)*) => {{
            #[allow(non_upper_case_globals)]
            mod codes {
                use super::{kind, AluOp, CmpOp, ShflMode};
                pub mod vv { use super::*; $(pub const $o: u8 = kind::VV + AluOp::$o as u8;)* }
                pub mod vu { use super::*; $(pub const $o: u8 = kind::VU + AluOp::$o as u8;)* }
                pub mod vi { use super::*; $(pub const $o: u8 = kind::VI + AluOp::$o as u8;)* }
                pub mod uu { use super::*; $(pub const $o: u8 = kind::UU + AluOp::$o as u8;)* }
                pub mod ui { use super::*; $(pub const $o: u8 = kind::UI + AluOp::$o as u8;)* }
                pub mod vc { use super::*; $(pub const $c: u8 = kind::VCMP + CmpOp::$c as u8;)* }
                pub mod ucu { use super::*; $(pub const $c: u8 = kind::UCMPU + CmpOp::$c as u8;)* }
                pub mod uci { use super::*; $(pub const $c: u8 = kind::UCMPI + CmpOp::$c as u8;)* }
                pub mod si { use super::*; $(pub const $m: u8 = kind::SHFL_I + ShflMode::$m as u8;)* }
                pub mod su { use super::*; $(pub const $m: u8 = kind::SHFL_U + ShflMode::$m as u8;)* }
                pub mod sv { use super::*; $(pub const $m: u8 = kind::SHFL_V + ShflMode::$m as u8;)* }
            }
            match f.kind {
                $(codes::vv::$o => {
                    let (x, y) = (v[a], v[b]);
                    lanes(&mut v[rd], &x, &y, exec, |p, q| alu(AluOp::$o, p, q));
                })*
                $(codes::vu::$o => {
                    let (x, y) = (v[a], [u[b]; LANES]);
                    lanes(&mut v[rd], &x, &y, exec, |p, q| alu(AluOp::$o, p, q));
                })*
                $(codes::vi::$o => {
                    let (x, y) = (v[a], [f.imm; LANES]);
                    lanes(&mut v[rd], &x, &y, exec, |p, q| alu(AluOp::$o, p, q));
                })*
                $(codes::uu::$o => u[rd] = alu(AluOp::$o, u[a], u[b]),)*
                $(codes::ui::$o => u[rd] = alu(AluOp::$o, u[a], f.imm),)*
                $(codes::vc::$c => u[rd] = vcmp(CmpOp::$c, &v[a], &v[b]) & exec,)*
                $(codes::si::$m => {
                    let out = shuffle_uniform(ShflMode::$m, &v[a], f.imm);
                    put(&mut v[rd], &out, exec);
                })*
                $(codes::su::$m => {
                    let out = shuffle_uniform(ShflMode::$m, &v[a], u[b]);
                    put(&mut v[rd], &out, exec);
                })*
                $(codes::sv::$m => {
                    let out = shuffle_lanes(ShflMode::$m, &v[a], &v[b]);
                    put(&mut v[rd], &out, exec);
                })*
                $(codes::ucu::$c => u[rd] = compare(CmpOp::$c, u[a], u[b]) as u32,)*
                $(codes::uci::$c => u[rd] = compare(CmpOp::$c, u[a], f.imm) as u32,)*
                kind::BR => return f.target as u64,
                kind::BR_UZ if u[a] == 0 => return f.target as u64,
                kind::BR_UNZ if u[a] != 0 => return f.target as u64,
                kind::BR_EXECZ if exec == 0 => return f.target as u64,
                kind::BR_EXECNZ if exec != 0 => return f.target as u64,
                kind::FMA => {
                    let out = fma_lanes(&v[a], &v[b], &v[c]);
                    merge(&mut v[rd], &out, exec);
                }
                kind::MAD => {
                    let out = mad_lanes(&v[a], &v[b], &v[c]);
                    merge(&mut v[rd], &out, exec);
                }
                kind::SEL => {
                    let out = sel_lanes(&v[a], &v[b], u[c]);
                    merge(&mut v[rd], &out, exec);
                }
                kind::WAIT..=kind::WAIT_ALL => {
                    wait(f, s.outstanding, pc);
                }
                // NOP, a branch not taken (NONE never reaches here).
                _ => {}
            }
        }};
    }
    dispatch!(
        alu: Add Sub Mul MulHi And Or Xor Shl Shr Sra MinI MaxI MinU MaxU FAdd FSub FMul FMin FMax Mov;
        cmp: Eq Ne LtI LeI GtI GeI LtU LeU GtU GeU EqF NeF LtF LeF GtF GeF;
        shfl: Idx Up Down Xor Rot
    );
    next
}

/// [`step`] of a memory access (a code from `kind::LD` to `kind::MEM_END`), on the
/// wave's registers, EXEC and queues. Not inlined: the loop that runs ALU instructions
/// keeps its registers for them.
#[inline(never)]
fn access(
    f: &Fast,
    v: &mut [[u32; LANES]],
    u: &mut [u32; UREGS],
    exec: u32,
    outstanding: &mut [VecDeque<Outstanding>; 4],
    m: &mut FastMemory<'_>,
    pc: u64,
) -> Option<u64> {
    let (rd, a, b, c) = (f.rd as usize, f.a as usize, f.b as usize, f.c as usize);
    // A memory instruction's runs of words, or a return to the general loop.
    macro_rules! runs {
        () => {{
            let place = RunPlace {
                mode: f.mode(),
                rs1: a,
                rs2: b,
                imm: f.imm as i32 as i64,
                v: &*v,
                u: &*u,
                global: &*m.global,
                shared_len: m.shared.len(),
                log: m.accesses,
            };
            let runs = place.runs(exec)?;
            (&mut *m, runs)
        }};
    }
    // Traced after the access, which cannot fail once its runs are found.
    let traced = |m: &mut FastMemory<'_>, runs: &Runs, kind: AccessKind| {
        if let Some(tr) = m.trace.as_deref_mut() {
            trace_runs_into(tr, m.global, runs, kind);
        }
    };
    let (counter, issued) = (f.target as usize, |regs| Outstanding { pc, regs, exec });
    match f.kind {
        kind::LD..kind::ST => {
            let (m, runs) = runs!();
            load_runs_into(m.global, m.shared, &runs, &mut v[rd]);
            traced(m, &runs, AccessKind::Read);
            let regs = counter_regs(RegFile::Vector, f.rd, 1);
            issue_to(&mut outstanding[counter], issued(regs));
        }
        kind::ST..kind::ATOM => {
            let (m, runs) = runs!();
            if m.trace.is_some() && runs_meet(&runs) {
                return None;
            }
            store_runs_from(m.global, m.shared, &runs, &v[rd]);
            traced(m, &runs, AccessKind::Write);
            issue_to(&mut outstanding[counter], issued(None));
        }
        k @ kind::ATOM..kind::MEM_END => {
            let (m, runs) = runs!();
            let op = ATOM_OPS[c & 15];
            let swap = if op == AtomOp::CmpXchg {
                v[rd + 1]
            } else {
                [0; LANES]
            };
            let (old, lanes) = atomic_runs_on(m.global, m.shared, &runs, op, &v[rd], &swap);
            traced(m, &runs, AccessKind::ReadWrite);
            let mut regs = None;
            if k >= kind::ATOM_RTN {
                put(&mut v[rd], &old, lanes);
                regs = counter_regs(RegFile::Vector, f.rd, 1);
            }
            issue_to(&mut outstanding[counter], issued(regs));
        }
        _ => return None,
    }
    Some(pc + f.len as u64)
}
