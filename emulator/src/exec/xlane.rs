//! Cross-lane instructions (spec group 5): shuffles, quad swizzle, lane reads and writes,
//! derivatives, scan, ballot, votes and reductions.
//!
//! Sources are read from every lane whether active or not (the `xl` rule); results are
//! written only to active lanes, except `writelane` (flag `ei`), and uniform results are
//! per-wave.

use super::op::{Op, RedOp, ShflMode, ShflSrc, VoteKind};
use super::{merge, Ctx, Decoded, ExecFault, Flow};
use crate::fault::FaultKind;
use crate::wave::{Wave, LANES};

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
fn shuffle_uniform(mode: ShflMode, s1: &[u32; LANES], x: u32) -> [u32; LANES] {
    let mut out = *s1;
    let n = x as usize;
    match mode {
        ShflMode::Idx => out = [s1[(x & 31) as usize]; LANES],
        // Lanes at or above `x` read `x` lanes down; the others keep their own value.
        ShflMode::Up if n < LANES => out[n..].copy_from_slice(&s1[..LANES - n]),
        // Lanes below `32 - x` read `x` lanes up; the others keep their own value.
        ShflMode::Down if n < LANES => out[..LANES - n].copy_from_slice(&s1[n..]),
        ShflMode::Up | ShflMode::Down => {}
        ShflMode::Rot => out.rotate_left((x & 31) as usize),
        ShflMode::Xor => {
            let k = (x & 31) as usize;
            out = std::array::from_fn(|l| s1[l ^ k]);
        }
    }
    out
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
    let s1 = w.v[rs1];
    let active = |l: usize| exec >> l & 1 == 1;
    match d.op {
        Op::Shfl { mode, src } if src != ShflSrc::Vector => {
            let x = shuffle_selectors(w, d, mode, src)[0];
            let out = shuffle_uniform(mode, &s1, x);
            merge(&mut w.v[rd], &out, exec);
        }
        Op::Shfl { mode, src } => {
            let x = shuffle_selectors(w, d, mode, src);
            // One loop per mode (the mode folds into `shuffle_source`); sources are < 32.
            macro_rules! per_mode {
                ($($m:ident)*) => {
                    match mode {
                        $(ShflMode::$m => std::array::from_fn(|l| {
                            s1[(shuffle_source(ShflMode::$m, l as u32, x[l]) & 31) as usize]
                        }),)*
                    }
                };
            }
            let out: [u32; LANES] = per_mode!(Idx Up Down Xor Rot);
            merge(&mut w.v[rd], &out, exec);
        }
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
