//! Cross-lane instructions (spec group 5): shuffles, quad swizzle, lane reads and writes,
//! derivatives, scan, ballot, votes and reductions.
//!
//! Sources are read from every lane whether active or not (the `xl` rule); results are
//! written only to active lanes, except `writelane` (flag `ei`), and uniform results are
//! per-wave.

use super::op::{Op, RedOp, ShflMode, ShflSrc, VoteKind};
use super::simd::simd_fn;
use super::{merge, Ctx, Decoded, ExecFault, Flow};
use crate::fault::FaultKind;
use crate::wave::{VRegs, Wave, LANES};

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// The source lane of a shuffle for `lane` with selector `x` (the delta, index or mask).
/// Up/down deltas are not truncated: a delta past the wave selects the lane's own value.
#[inline(always)]
pub fn shuffle_source(mode: ShflMode, lane: u32, x: u32) -> u32 {
    match mode {
        ShflMode::Idx => x & 31,
        ShflMode::Up => {
            if x <= lane {
                lane - x
            } else {
                lane
            }
        }
        ShflMode::Down => {
            let j = lane as u64 + x as u64;
            if j < 32 {
                j as u32
            } else {
                lane
            }
        }
        ShflMode::Xor => lane ^ (x & 31),
        ShflMode::Rot => lane.wrapping_add(x) & 31,
    }
}

/// Each lane's shuffle selector (the delta, index or mask) of a `shfl` instruction.
#[inline(always)]
fn shuffle_selectors(w: &Wave, d: &Decoded, mode: ShflMode, src: ShflSrc) -> [u32; LANES] {
    let i = d.instr;
    match src {
        ShflSrc::Vector => w.v[i.rs2 as usize],
        ShflSrc::Uniform => [w.u[i.rs2 as usize]; LANES],
        // .vi: up/down/xor use imm[4:0]; rot adds the signed immediate, then & 31.
        ShflSrc::Imm if mode == ShflMode::Rot => [i.imm as u32; LANES],
        ShflSrc::Imm => [i.imm as u32 & 31; LANES],
    }
}

/// A shuffle whose selector `x` is the same for every lane (the immediate and uniform
/// forms): whole runs of lanes move together, so they are copied as slices, not gathered
/// lane by lane. The same result as [`shuffle_source`] per lane.
#[inline(always)]
pub(super) fn shuffle_uniform(mode: ShflMode, s1: &[u32; LANES], x: u32) -> [u32; LANES] {
    let n = x as usize;
    match mode {
        ShflMode::Idx => [s1[(x & 31) as usize]; LANES],
        // Lanes at or above `x` read `x` lanes down; the others keep their own value.
        ShflMode::Up if n < LANES => {
            let mut out = *s1;
            out[n..].copy_from_slice(&s1[..LANES - n]);
            out
        }
        // Lanes below `32 - x` read `x` lanes up; the others keep their own value.
        ShflMode::Down if n < LANES => {
            let mut out = *s1;
            out[..LANES - n].copy_from_slice(&s1[n..]);
            out
        }
        ShflMode::Up | ShflMode::Down => *s1,
        ShflMode::Rot => {
            let k = (x & 31) as usize;
            let mut out = [0u32; LANES];
            out[..LANES - k].copy_from_slice(&s1[k..]);
            out[LANES - k..].copy_from_slice(&s1[..k]);
            out
        }
        ShflMode::Xor => xor_lanes(s1, x & 31),
    }
}

/// Lane `l` takes lane `l ^ k` (`k < 32`): blocks of 8 lanes move whole (`k >> 3`), and
/// inside every block the lanes move by the same one of eight fixed permutations
/// (`k & 7`), each a constant shuffle that vectorises.
#[inline(always)]
fn xor_lanes(s1: &[u32; LANES], k: u32) -> [u32; LANES] {
    let mut out = [0u32; LANES];
    let hi = (k as usize >> 3) & 3;
    macro_rules! per_low {
        ($($k:literal)*) => {
            match k & 7 {
                $($k => {
                    for (b, block) in out.chunks_exact_mut(8).enumerate() {
                        let src = &s1[8 * (b ^ hi)..][..8];
                        for (j, o) in block.iter_mut().enumerate() {
                            *o = src[j ^ $k];
                        }
                    }
                })*
                _ => {
                    for (b, block) in out.chunks_exact_mut(8).enumerate() {
                        let src = &s1[8 * (b ^ hi)..][..8];
                        for (j, o) in block.iter_mut().enumerate() {
                            *o = src[j ^ 7];
                        }
                    }
                }
            }
        };
    }
    per_low!(0 1 2 3 4 5 6);
    out
}

/// `out[l] = s1[src[l] & 31]` for every lane: one gather loop, no branch.
#[inline(always)]
fn gather(s1: &[u32; LANES], src: &[u32; LANES]) -> [u32; LANES] {
    let mut out = [0u32; LANES];
    for (o, &j) in out.iter_mut().zip(src) {
        *o = s1[(j & 31) as usize];
    }
    out
}

/// A shuffle's selector.
#[derive(Clone, Copy)]
enum Selector {
    /// One for every lane (the immediate and uniform forms).
    Same(u32),
    /// Each lane's own, in this vector register.
    Lanes(usize),
}

/// A shuffle whose selector is each lane's own value in `x`: each lane's source, one
/// loop per mode (the mode folds into [`shuffle_source`]), then one gather.
#[inline(always)]
pub(super) fn shuffle_lanes(mode: ShflMode, s1: &[u32; LANES], x: &[u32; LANES]) -> [u32; LANES] {
    let mut from = [0u32; LANES];
    macro_rules! per_mode {
        ($($m:ident)*) => {
            match mode {
                $(ShflMode::$m => for (l, f) in from.iter_mut().enumerate() {
                    *f = shuffle_source(ShflMode::$m, l as u32, x[l]);
                },)*
            }
        };
    }
    per_mode!(Idx Up Down Xor Rot);
    gather(s1, &from)
}

simd_fn! {
    /// `v[rd] = shfl(v[rs1], sel)` on the active lanes. The source is read in place (no
    /// copy of the register) and, in the SIMD build, moved in 256-bit words.
    fn shuffle(v: &mut VRegs, mode: ShflMode, sel: Selector, rd: usize, rs1: usize, exec: u32) {
        let s1 = &v[rs1];
        let out = match sel {
            Selector::Same(x) => shuffle_uniform(mode, s1, x),
            Selector::Lanes(r) => shuffle_lanes(mode, s1, &v[r]),
        };
        put(&mut v[rd], &out, exec);
    }
}

/// Writes `new` to the lanes of `dst` set in `exec`: a plain copy when all are.
#[inline(always)]
pub(super) fn put(dst: &mut [u32; LANES], new: &[u32; LANES], exec: u32) {
    if exec == u32::MAX {
        *dst = *new;
    } else {
        merge(dst, new, exec);
    }
}

/// The lane of a broadcast (`shfl.bcast`).
#[inline(always)]
fn broadcast_lane(w: &Wave, d: &Decoded, src: ShflSrc) -> usize {
    let x = match src {
        ShflSrc::Uniform => w.u[d.instr.rs2 as usize],
        _ => d.instr.imm as u32,
    };
    (x & 31) as usize
}

/// The source lane of `quad.swizzle` with selector `sel` for `lane`.
#[inline(always)]
fn quad_source(sel: u32, lane: usize) -> usize {
    (lane & !3) | (sel >> ((lane & 3) * 2) & 3) as usize
}

/// The two lanes a derivative subtracts for `lane`: (minuend, subtrahend).
#[inline(always)]
fn deriv_sources(y: bool, coarse: bool, lane: usize) -> (usize, usize) {
    let bit = if y { 2 } else { 1 };
    if coarse {
        let q = lane & !3;
        (q + bit, q)
    } else {
        (lane | bit, lane & !bit)
    }
}

/// The lane `readlane` or `readfirst` reads.
#[inline(always)]
fn read_lane(w: &Wave, d: &Decoded) -> usize {
    match d.op {
        Op::Readlane { uniform } => {
            let x = if uniform {
                w.u[d.instr.rs2 as usize]
            } else {
                d.instr.imm as u32
            };
            (x & 31) as usize
        }
        // readfirst: the lowest active lane; lane 0 when none is.
        _ if w.exec == 0 => 0,
        _ => w.exec.trailing_zeros() as usize,
    }
}

/// For each active lane of a shuffle, swizzle or derivative, the lanes of `rs1` it reads,
/// given to `f(lane, sources)`; `false` (and no call) for any other instruction.
fn each_lane_source(w: &Wave, d: &Decoded, mut f: impl FnMut(usize, u32)) -> bool {
    let exec = w.exec;
    let mut each = |g: &dyn Fn(usize) -> u32| {
        for l in (0..LANES).filter(|l| exec >> l & 1 == 1) {
            f(l, g(l));
        }
    };
    match d.op {
        Op::Shfl { mode, src } => {
            let x = shuffle_selectors(w, d, mode, src);
            each(&|l| 1 << (shuffle_source(mode, l as u32, x[l]) & 31));
        }
        Op::ShflBcast { src } => each(&|_| 1 << broadcast_lane(w, d, src)),
        Op::QuadSwizzle => each(&|l| 1 << quad_source(d.instr.imm as u32, l)),
        Op::Deriv { y, coarse } => each(&|l| {
            let (a, b) = deriv_sources(y, coarse, l);
            1 << a | 1 << b
        }),
        _ => return false,
    }
    true
}

/// The lanes of the first source register (`rs1`) whose values a cross-lane instruction
/// uses, for the sanitizer (docs/sanitizer.md): shuffles, swizzles and derivatives read
/// other lanes, lane reads one lane, the rest their active lanes.
pub fn source_lanes(w: &Wave, d: &Decoded) -> u32 {
    if matches!(d.op, Op::Readlane { .. } | Op::Readfirst) {
        return 1 << read_lane(w, d);
    }
    let mut m = 0u32;
    if each_lane_source(w, d, |_, sources| m |= sources) {
        m
    } else {
        w.exec
    }
}

/// For the sanitizer's cross-lane check (docs/sanitizer.md, xlane): the active lanes of a
/// cross-lane instruction that read a lane inactive in EXEC, and those inactive lanes
/// (`(0, 0)` when none does, and for instructions that read only their own lanes). A lane
/// read into a uniform register (`readlane`) is read by every active lane.
pub fn inactive_reads(w: &Wave, d: &Decoded) -> (u32, u32) {
    let exec = w.exec;
    if let Op::Readlane { .. } = d.op {
        let l = read_lane(w, d);
        return if exec != 0 && exec >> l & 1 == 0 {
            (exec, 1 << l)
        } else {
            (0, 0)
        };
    }
    let (mut readers, mut from) = (0u32, 0u32);
    each_lane_source(w, d, |l, sources| {
        let inactive = sources & !exec;
        if inactive != 0 {
            readers |= 1 << l;
            from |= inactive;
        }
    });
    (readers, from)
}

pub(super) fn execute(ctx: &mut Ctx<'_>, d: &Decoded) -> Result<Flow, ExecFault> {
    let i = d.instr;
    let w = &mut *ctx.wave;
    let exec = w.exec;
    let (rd, rs1, rs2) = (i.rd as usize, i.rs1 as usize, i.rs2 as usize);
    if let Op::Shfl { mode, src } = d.op {
        let sel = match src {
            ShflSrc::Vector => Selector::Lanes(rs2),
            _ => Selector::Same(shuffle_selectors(w, d, mode, src)[0]),
        };
        shuffle(&mut w.v, mode, sel, rd, rs1, exec);
        return Ok(Flow::Next);
    }
    others(ctx, d)
}

/// The cross-lane instructions other than shuffles (kept out of line, so that shuffles,
/// the common case, pay for none of their setup).
#[inline(never)]
fn others(ctx: &mut Ctx<'_>, d: &Decoded) -> Result<Flow, ExecFault> {
    let i = d.instr;
    let w = &mut *ctx.wave;
    let exec = w.exec;
    let (rd, rs1, rs2) = (i.rd as usize, i.rs1 as usize, i.rs2 as usize);
    let s1 = w.v[rs1];
    let active = |l: usize| exec >> l & 1 == 1;
    match d.op {
        Op::ShflBcast { src } => {
            let out = [s1[broadcast_lane(w, d, src)]; LANES];
            merge(&mut w.v[rd], &out, exec);
        }
        Op::QuadSwizzle => {
            let sel = i.imm as u32;
            let out: [u32; LANES] = std::array::from_fn(|l| s1[quad_source(sel, l)]);
            merge(&mut w.v[rd], &out, exec);
        }
        Op::Writelane => {
            // Operand order `rd:v* rs2:u rs1:ln7`: the lane is in the rs1 field.
            let lane = i.rs1 as u32;
            if lane >= LANES as u32 {
                return Err(ExecFault::plain(FaultKind::IllegalLane { lane }));
            }
            w.v[rd][lane as usize] = w.u[rs2];
        }
        Op::Readfirst | Op::Readlane { .. } => w.u[rd] = s1[read_lane(w, d)],
        Op::Deriv { y, coarse } => {
            let out: [u32; LANES] = std::array::from_fn(|l| {
                let (hi, lo) = deriv_sources(y, coarse, l);
                super::alu::canon(f(s1[hi]) - f(s1[lo]))
            });
            merge(&mut w.v[rd], &out, exec);
        }
        Op::XscanAdd => {
            let mut sum = 0u32;
            let mut out = [0u32; LANES];
            for (l, o) in out.iter_mut().enumerate() {
                if active(l) {
                    sum = sum.wrapping_add(s1[l]);
                }
                *o = sum;
            }
            merge(&mut w.v[rd], &out, exec);
        }
        Op::Ballot => {
            let mut m = 0u32;
            for (l, v) in s1.iter().enumerate() {
                m |= ((*v != 0) as u32) << l;
            }
            w.u[rd] = m & exec;
        }
        Op::Vote(kind) => {
            let lanes = (0..LANES).filter(|l| active(*l));
            w.u[rd] = match kind {
                VoteKind::Any => lanes.into_iter().any(|l| s1[l] != 0),
                VoteKind::All => lanes.into_iter().all(|l| s1[l] != 0),
                VoteKind::Eq => {
                    let first = if exec == 0 {
                        0
                    } else {
                        exec.trailing_zeros() as usize
                    };
                    lanes.into_iter().all(|l| s1[l] == s1[first])
                }
            } as u32;
        }
        Op::Xred(op) => {
            let (init, fold): (u32, fn(u32, u32) -> u32) = match op {
                RedOp::Add => (0, u32::wrapping_add),
                RedOp::MinI => (i32::MAX as u32, |a, b| (a as i32).min(b as i32) as u32),
                RedOp::MaxI => (i32::MIN as u32, |a, b| (a as i32).max(b as i32) as u32),
                RedOp::MinU => (u32::MAX, u32::min),
                RedOp::MaxU => (0, u32::max),
                RedOp::And => (u32::MAX, |a, b| a & b),
                RedOp::Or => (0, |a, b| a | b),
                RedOp::Xor => (0, |a, b| a ^ b),
            };
            w.u[rd] = (0..LANES)
                .filter(|l| active(*l))
                .fold(init, |acc, l| fold(acc, s1[l]));
        }
        _ => {
            return Err(ExecFault::plain(FaultKind::IllegalInstruction {
                reason: format!("no cross-lane semantics for {}", i.def().mnemonic()),
            }))
        }
    }
    Ok(Flow::Next)
}
