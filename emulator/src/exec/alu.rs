//! The base group: control flow, waits, uniform and vector ALU, EXEC, ids.

use super::op::{AluOp, BrCond, CmpOp, CvtOp, ExecOp, IdKind, Op, Src};
use super::simd::simd_fn;
use super::{lane_mask, merge, Ctx, Decoded, ExecFault, Flow};
use crate::fault::FaultKind;
use crate::isa::Counter;
use crate::program::LaunchConfig;
use crate::wave::LANES;
use crate::wave::{VRegs, Wave};

/// IEEE 754-2019 minimumNumber on f32 bits: a NaN operand yields the other; -0 < +0.
pub fn min_number(a: u32, b: u32) -> u32 {
    min_max_number(a, b, false)
}

/// IEEE 754-2019 maximumNumber on f32 bits: a NaN operand yields the other; +0 > -0.
pub fn max_number(a: u32, b: u32) -> u32 {
    min_max_number(a, b, true)
}

/// minimumNumber (`max` false) or maximumNumber (`max` true): two NaNs give the first,
/// quieted; equal values are told apart by the sign (-0 < +0).
fn min_max_number(a: u32, b: u32, max: bool) -> u32 {
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    if x.is_nan() {
        return if y.is_nan() { quiet(a) } else { b };
    }
    if y.is_nan() {
        return a;
    }
    let a_first = if x == y {
        // Equal values (only the zeros differ): -0 is the smaller.
        (a & 0x8000_0000 != 0) != max
    } else {
        (x < y) != max
    };
    if a_first {
        a
    } else {
        b
    }
}

/// The NaN every f32 arithmetic result that is NaN becomes (docs/memory.md): NaN payloads
/// are not propagated, since the compiler may reorder commutative operands and the result
/// must be the same on every build and platform.
pub const CANONICAL_NAN: u32 = 0x7fc0_0000;

/// An f32 arithmetic result as bits, NaN canonicalised.
#[inline]
pub fn canon(x: f32) -> u32 {
    if x.is_nan() {
        CANONICAL_NAN
    } else {
        x.to_bits()
    }
}

fn quiet(nan: u32) -> u32 {
    nan | 0x0040_0000
}

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// A two-operand ALU operation on 32-bit values.
#[inline(always)]
pub fn alu(op: AluOp, a: u32, b: u32) -> u32 {
    match op {
        AluOp::Add => a.wrapping_add(b),
        AluOp::Sub => a.wrapping_sub(b),
        AluOp::Mul => a.wrapping_mul(b),
        AluOp::MulHi => ((a as u64 * b as u64) >> 32) as u32,
        AluOp::And => a & b,
        AluOp::Or => a | b,
        AluOp::Xor => a ^ b,
        AluOp::Shl => a << (b & 31),
        AluOp::Shr => a >> (b & 31),
        AluOp::Sra => ((a as i32) >> (b & 31)) as u32,
        AluOp::MinI => (a as i32).min(b as i32) as u32,
        AluOp::MaxI => (a as i32).max(b as i32) as u32,
        AluOp::MinU => a.min(b),
        AluOp::MaxU => a.max(b),
        AluOp::FAdd => canon(f(a) + f(b)),
        AluOp::FSub => canon(f(a) - f(b)),
        AluOp::FMul => canon(f(a) * f(b)),
        AluOp::FMin => min_number(a, b),
        AluOp::FMax => max_number(a, b),
        AluOp::Mov => b,
    }
}

/// A comparison on 32-bit values.
#[inline(always)]
pub fn compare(op: CmpOp, a: u32, b: u32) -> bool {
    let (ia, ib) = (a as i32, b as i32);
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::LtI => ia < ib,
        CmpOp::LeI => ia <= ib,
        CmpOp::GtI => ia > ib,
        CmpOp::GeI => ia >= ib,
        CmpOp::LtU => a < b,
        CmpOp::LeU => a <= b,
        CmpOp::GtU => a > b,
        CmpOp::GeU => a >= b,
        CmpOp::EqF => f(a) == f(b),
        CmpOp::NeF => f(a) != f(b),
        CmpOp::LtF => f(a) < f(b),
        CmpOp::LeF => f(a) <= f(b),
        CmpOp::GtF => f(a) > f(b),
        CmpOp::GeF => f(a) >= f(b),
    }
}

fn convert(op: CvtOp, x: u32) -> u32 {
    match op {
        CvtOp::F32FromI32 => (x as i32 as f32).to_bits(),
        CvtOp::F32FromU32 => (x as f32).to_bits(),
        // Rust's float-to-int casts truncate toward zero, saturate and map NaN to 0.
        CvtOp::I32FromF32 => f(x) as i32 as u32,
        CvtOp::U32FromF32 => f(x) as u32,
    }
}

/// One 32-lane loop per operation, merged into `dst` under EXEC in the same pass: the
/// operation is chosen once, outside the loop, so each arm compiles to straight-line
/// (vectorised) code. Sources are the caller's copies, so `dst` may be one of them.
#[inline(always)]
pub(super) fn lanes(
    dst: &mut [u32; LANES],
    a: &[u32; LANES],
    b: &[u32; LANES],
    exec: u32,
    f: impl Fn(u32, u32) -> u32,
) {
    if exec == u32::MAX {
        // All lanes active (the common case): no blend at all. This also keeps the AVX2
        // build from turning the blend into masked stores, which stall the next
        // instruction's loads of the same register.
        for l in 0..LANES {
            dst[l] = f(a[l], b[l]);
        }
    } else {
        for l in 0..LANES {
            let m = lane_mask(exec, l);
            dst[l] = (f(a[l], b[l]) & m) | (dst[l] & !m);
        }
    }
}

/// The second source of a vector ALU operation: a register, or one value for every lane
/// (a uniform register or the immediate).
#[derive(Clone, Copy)]
enum Second {
    Reg(usize),
    Splat(u32),
}

simd_fn! {
    /// A vector ALU operation on all 32 lanes, `v[rd] = op(v[rs1], b)` on the active lanes.
    /// Each arm passes [`alu`] a constant operation, which inlining folds, so the semantics
    /// are written once and every arm is a plain vector loop. The sources are read here,
    /// in the function that computes on them, so they stay in vector registers.
    fn valu(op: AluOp, v: &mut VRegs, rd: usize, rs1: usize, b: Second, exec: u32) {
        let a = v[rs1];
        let b = match b {
            Second::Reg(r) => v[r],
            Second::Splat(x) => [x; LANES],
        };
        let dst = &mut v[rd];
        macro_rules! per_op {
            ($($o:ident)*) => {
                match op {
                    $(AluOp::$o => lanes(dst, &a, &b, exec, |x, y| alu(AluOp::$o, x, y)),)*
                }
            };
        }
        per_op!(Add Sub Mul MulHi And Or Xor Shl Shr Sra MinI MaxI MinU MaxU FAdd FSub FMul FMin FMax Mov)
    }
}

/// A comparison on all 32 lanes, as a lane mask (one loop per comparison, as [`valu`];
/// with a constant `op` it folds to that comparison's loop).
#[inline(always)]
pub(super) fn vcmp(op: CmpOp, a: &[u32; LANES], b: &[u32; LANES]) -> u32 {
    #[inline(always)]
    fn bits(a: &[u32; LANES], b: &[u32; LANES], f: impl Fn(u32, u32) -> bool) -> u32 {
        (0..LANES).fold(0u32, |m, l| m | (f(a[l], b[l]) as u32) << l)
    }
    macro_rules! per_op {
        ($($v:ident)*) => {
            match op {
                $(CmpOp::$v => bits(a, b, |x, y| compare(CmpOp::$v, x, y)),)*
            }
        };
    }
    per_op!(Eq Ne LtI LeI GtI GeI LtU LeU GtU GeU EqF NeF LtF LeF GtF GeF)
}

/// `fma(a, b, c)` (f32, one rounding, NaN canonical) on every lane.
#[inline(always)]
pub(super) fn fma_lanes(a: &[u32; LANES], b: &[u32; LANES], c: &[u32; LANES]) -> [u32; LANES] {
    // A plain loop: `array::from_fn` here kept the FMA from vectorising (3x the cost).
    let mut out = [0; LANES];
    for l in 0..LANES {
        out[l] = canon(f(a[l]).mul_add(f(b[l]), f(c[l])));
    }
    out
}

/// `a * b + c` (32-bit integers, wrapping) on every lane.
#[inline(always)]
pub(super) fn mad_lanes(a: &[u32; LANES], b: &[u32; LANES], c: &[u32; LANES]) -> [u32; LANES] {
    std::array::from_fn(|l| a[l].wrapping_mul(b[l]).wrapping_add(c[l]))
}

/// `b` in the lanes whose bit of `m` is set, `a` in the others (`vsel`).
#[inline(always)]
pub(super) fn sel_lanes(a: &[u32; LANES], b: &[u32; LANES], m: u32) -> [u32; LANES] {
    std::array::from_fn(|l| {
        let pick = lane_mask(m, l);
        (b[l] & pick) | (a[l] & !pick)
    })
}

simd_fn! {
    /// `d = fma(a, b, c)` (f32, one rounding) on the active lanes of `dst`.
    fn vfma(dst: &mut [u32; LANES], a: [u32; LANES], b: [u32; LANES], c: [u32; LANES], exec: u32) {
        merge(dst, &fma_lanes(&a, &b, &c), exec);
    }
}

pub(super) fn execute(ctx: &mut Ctx<'_>, d: &Decoded, pc: u64) -> Result<Flow, ExecFault> {
    execute_on(ctx.wave, ctx.launch, d, pc)
}

/// The base group on one wave: it touches nothing but the wave's registers, PC and
/// counters (and reads the launch shape for ids).
#[inline]
pub(super) fn execute_on(
    w: &mut Wave,
    launch: &LaunchConfig,
    d: &Decoded,
    pc: u64,
) -> Result<Flow, ExecFault> {
    let i = d.instr;
    let exec = w.exec;
    let (rd, rs1, rs2, rs3) = (
        i.rd as usize,
        i.rs1 as usize,
        i.rs2 as usize,
        i.rs3 as usize,
    );
    let imm = i.imm as u32;
    match d.op {
        Op::End => return Ok(Flow::End),
        Op::Nop => {}
        Op::Brk => return Ok(Flow::Break),
        Op::Trap => return Err(ExecFault::plain(FaultKind::Trap { code: imm })),
        Op::Barrier => return Ok(Flow::Barrier),
        Op::Wait(Some(c)) => w.wait(c, imm),
        Op::Wait(None) => Counter::ALL.iter().for_each(|c| w.wait(*c, 0)),
        Op::Branch(cond) => {
            let taken = match cond {
                BrCond::Always => true,
                BrCond::UZero => w.u[rs1] == 0,
                BrCond::UNonZero => w.u[rs1] != 0,
                BrCond::ExecZero => exec == 0,
                BrCond::ExecNonZero => exec != 0,
            };
            if taken {
                return Ok(Flow::Jump(pc.wrapping_add((i.imm * 4) as u64)));
            }
        }
        Op::UAlu(op, src) => {
            let b = if src == Src::Imm {
                imm
            } else if op == AluOp::Mov {
                w.u[rs1]
            } else {
                w.u[rs2]
            };
            w.u[rd] = alu(op, w.u[rs1], b);
        }
        Op::UCmp(op, src) => {
            let b = if src == Src::Imm { imm } else { w.u[rs2] };
            w.u[rd] = compare(op, w.u[rs1], b) as u32;
        }
        Op::UAdd64(src) => {
            let a = w.u[rs1] as u64 | (w.u[rs1 + 1] as u64) << 32;
            let b = if src == Src::Imm {
                imm as i32 as i64 as u64
            } else {
                w.u[rs2] as u64
            };
            let r = a.wrapping_add(b);
            w.u[rd] = r as u32;
            w.u[rd + 1] = (r >> 32) as u32;
        }
        Op::Exec(op) => match op {
            ExecOp::Get => w.u[rd] = exec,
            ExecOp::Set => w.exec = w.u[rs1],
            ExecOp::AndSave => {
                let m = w.u[rs1];
                w.u[rd] = exec;
                w.exec = exec & m;
            }
            ExecOp::AndNotSave => {
                let m = w.u[rs1];
                w.u[rd] = exec;
                w.exec = exec & !m;
            }
        },
        Op::Id(kind) => {
            let l = launch;
            w.u[rd] = match kind {
                IdKind::Wave => w.index,
                IdKind::Workgroup => w.workgroup,
                IdKind::WorkgroupSize => l.workgroup_lanes,
                IdKind::GridSize => l.grid,
                IdKind::WavesPerWorkgroup => l.waves_per_workgroup(),
            };
        }
        Op::VAlu(op, src) => {
            let b = match src {
                // `vmov rd, rs1`: the moved value is the first operand.
                Src::Reg if op == AluOp::Mov => Second::Reg(rs1),
                Src::Reg => Second::Reg(rs2),
                Src::Uniform => Second::Splat(w.u[rs2]),
                Src::Imm => Second::Splat(imm),
            };
            valu(op, &mut w.v, rd, rs1, b, exec);
        }
        Op::VLaneId => {
            let ids: [u32; LANES] = std::array::from_fn(|l| l as u32);
            merge(&mut w.v[rd], &ids, exec);
        }
        Op::VCvt(op) => {
            let a = w.v[rs1];
            let out = a.map(|x| convert(op, x));
            merge(&mut w.v[rd], &out, exec);
        }
        Op::VCmp(op) => {
            w.u[rd] = vcmp(op, &w.v[rs1], &w.v[rs2]) & exec;
        }
        Op::VAdd64(src) => {
            let (lo, hi) = (w.v[rs1], w.v[rs1 + 1]);
            let b = w.v[rs2];
            let mut out_lo = [0u32; LANES];
            let mut out_hi = [0u32; LANES];
            for l in 0..LANES {
                let add = if src == Src::Imm {
                    imm as i32 as i64 as u64
                } else {
                    b[l] as u64
                };
                let r = (lo[l] as u64 | (hi[l] as u64) << 32).wrapping_add(add);
                out_lo[l] = r as u32;
                out_hi[l] = (r >> 32) as u32;
            }
            merge(&mut w.v[rd], &out_lo, exec);
            merge(&mut w.v[rd + 1], &out_hi, exec);
        }
        Op::VMovU64 => {
            let (lo, hi) = ([w.u[rs2]; LANES], [w.u[rs2 + 1]; LANES]);
            merge(&mut w.v[rd], &lo, exec);
            merge(&mut w.v[rd + 1], &hi, exec);
        }
        Op::VAdd64U => {
            let base = w.u[rs2] as u64 | (w.u[rs2 + 1] as u64) << 32;
            let a = w.v[rs1];
            let r: [u64; LANES] = a.map(|x| base.wrapping_add(x as u64));
            merge(&mut w.v[rd], &r.map(|x| x as u32), exec);
            merge(&mut w.v[rd + 1], &r.map(|x| (x >> 32) as u32), exec);
        }
        Op::VMad => {
            let out = mad_lanes(&w.v[rs1], &w.v[rs2], &w.v[rs3]);
            merge(&mut w.v[rd], &out, exec);
        }
        Op::VFma => {
            let (a, b, c) = (w.v[rs1], w.v[rs2], w.v[rs3]);
            vfma(&mut w.v[rd], a, b, c, exec);
        }
        Op::VSel => {
            let out = sel_lanes(&w.v[rs1], &w.v[rs2], w.u[rs3]);
            merge(&mut w.v[rd], &out, exec);
        }
        _ => unreachable_op(d)?,
    }
    Ok(Flow::Next)
}

/// Dispatch routes every other operation elsewhere; reaching here would be a table bug,
/// reported as an illegal instruction rather than a panic.
fn unreachable_op(d: &Decoded) -> Result<(), ExecFault> {
    Err(ExecFault::plain(FaultKind::IllegalInstruction {
        reason: format!("no semantics for {}", d.instr.def().mnemonic()),
    }))
}
