//! The reference interpreter: a deliberately simple, obviously correct second
//! implementation of every instruction, used only to test the fast one.
//!
//! Why it exists: the fast semantics (`alu.rs`, `lsu.rs`, `xlane.rs`) are written for speed
//! (register-major, branch-free EXEC merging, shared helpers). Bugs there are easy to make
//! and hard to see. This file restates the same rules the slow, plain way, from the spec
//! rows (`isa/spec_rows.rs`, docs/isa.md) and docs/memory.md: one lane at a time,
//! `for lane in 0..32 { if inactive { continue } ... }`, one `match` arm per operation,
//! no code shared with the fast path. `tests/lockstep.rs` runs random legal programs on
//! both and compares the whole machine state after every instruction (the model is
//! tinygrad's comparison of its emulator against a simple one).
//!
//! It has the same signature and contract as [`super::execute`]: it returns the same
//! [`Flow`] and, on a fault, the same [`ExecFault`] (kind, lane mask, address, length)
//! and changes nothing. Rules the docs leave open are settled as the fast path settles
//! them, and are marked "(choice)" below:
//!
//! - fault precedence within one lane: shared/scratch check the window before the
//!   alignment; global addresses check the alignment before the mapping; a buffer access
//!   out of bounds is dropped before anything else is checked;
//! - a fault reports the kind and address of the lowest faulting lane, and the mask of all
//!   faulting lanes (which may have faulted for different reasons);
//! - an address outside a window below 0 is reported as the two's-complement offset;
//! - a uniform-load fault has lane mask 0 and the length of the whole load;
//! - minimumNumber / maximumNumber of two NaNs return the first operand, quieted;
//! - all sources are read before any destination is written (`exec.and.save u1, u1`
//!   narrows EXEC by the old `u1`).
//!
//! Like the fast path it issues async operations with `Ctx::issue` (the registers a load
//! or `.rtn` atomic writes, even under EXEC 0) and reports each lane's memory access to
//! the watchpoint log with `Ctx::record` (stores and atomics with the bytes they
//! overwrite); a wide float atomic, which no instruction encodes, is an illegal
//! instruction here.
//!
//! Speed does not matter here; clarity does.

// The plain `for lane in 0..32` loops are the point of this file.
#![allow(clippy::needless_range_loop)]

use super::op::{
    AddrMode, AluOp, AtomOp, BrCond, CmpOp, CvtOp, ExecOp, IdKind, LoadType, Op, RedOp, ShflMode,
    ShflSrc, Src, UldMode, VoteKind,
};
use super::{AccessKind, Ctx, Decoded, ExecFault, Flow};
use crate::isa::{Counter, RegFile};
use crate::fault::FaultKind;
use crate::wave::{RegRange, Wave};
use crate::memory::{BufferDescriptor, Space};

/// Lanes of a wave.
const N: usize = 32;

/// An arithmetic result's bits: every NaN becomes 0x7fc00000 (payloads are not carried).
fn nan_free(x: f32) -> u32 {
    if x.is_nan() {
        0x7fc0_0000
    } else {
        x.to_bits()
    }
}

/// The quiet bit of an f32 NaN.
const QUIET: u32 = 0x0040_0000;

fn is_active(exec: u32, lane: usize) -> bool {
    (exec >> lane) & 1 == 1
}

fn fl(bits: u32) -> f32 {
    f32::from_bits(bits)
}

fn pair(lo: u32, hi: u32) -> u64 {
    ((hi as u64) << 32) | lo as u64
}

fn illegal(d: &Decoded, why: &str) -> ExecFault {
    ExecFault {
        kind: FaultKind::IllegalInstruction {
            reason: format!("{why} for {}", d.instr.def().mnemonic()),
        },
        lanes: 0,
        addr: None,
        len: 0,
    }
}

/// Executes one instruction at `pc` on `ctx.wave`, the simple way.
pub fn execute(ctx: &mut Ctx<'_>, d: &Decoded, pc: u64) -> Result<Flow, ExecFault> {
    match d.op {
        // Cache maintenance changes no data: it only counts (flag `ei`: even with EXEC 0).
        Op::CacheInvalidate | Op::CacheWriteBack => {
            ctx.issue(d, pc, None);
            Ok(Flow::Next)
        }
        Op::Load { mode, ty } => load(ctx, d, pc, mode, ty),
        Op::Store { mode, bytes } => store(ctx, d, pc, mode, bytes),
        Op::Atomic {
            mode,
            op,
            wide,
            rtn,
        } => atomic(ctx, d, pc, mode, op, wide, rtn),
        Op::Uld { mode, dwords } => uniform_load(ctx, d, pc, mode, dwords),
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
        | Op::Xred(_) => cross_lane(ctx, d),
        _ => base(ctx, d, pc),
    }
}

// ---------------------------------------------------------------------------------------
// Memory (spec group 4, docs/memory.md)
// ---------------------------------------------------------------------------------------

/// Where one active lane's access goes, after its checks passed.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// A global address.
    Global(u64),
    /// An offset in the workgroup's shared window.
    Shared(u64),
    /// An offset in the lane's own scratch.
    Scratch(u64),
    /// A buffer access out of bounds or through a null descriptor: reads 0, writes nothing.
    Nowhere,
}

/// Whether every byte of `[addr, addr + size)` lies in one allocated buffer.
fn mapped(ctx: &Ctx<'_>, addr: u64, size: u64) -> bool {
    ctx.global.allocations().iter().any(|a| {
        addr >= a.base
            && (addr - a.base)
                .checked_add(size)
                .is_some_and(|end| end <= a.data.len())
    })
}

/// A global address: misaligned before unmapped (choice).
fn global_place(
    ctx: &Ctx<'_>,
    addr: u64,
    size: u64,
    align: u64,
) -> Result<Place, (FaultKind, u64)> {
    if !addr.is_multiple_of(align) {
        return Err((
            FaultKind::Misaligned {
                space: Space::Global,
                align: align as u32,
            },
            addr,
        ));
    }
    if !mapped(ctx, addr, size) {
        return Err((FaultKind::Unmapped, addr));
    }
    Ok(Place::Global(addr))
}

/// The place of one lane's access of `size` bytes that must be aligned to `align`.
fn lane_place(
    ctx: &Ctx<'_>,
    d: &Decoded,
    mode: AddrMode,
    lane: usize,
    size: u64,
    align: u64,
) -> Result<Place, (FaultKind, u64)> {
    let i = d.instr;
    let w = &*ctx.wave;
    let (rs1, rs2) = (i.rs1 as usize, i.rs2 as usize);
    let s1 = w.v[rs1][lane];
    // The decoder sign-extends imm24 already: `imm` is sext(imm).
    let imm: i64 = i.imm;
    match mode {
        // A = s1_64 + sext(imm), wrapping.
        AddrMode::Global => {
            let a = pair(s1, w.v[rs1 + 1][lane]);
            global_place(ctx, a.wrapping_add(imm as u64), size, align)
        }
        // A = U64[u2] + zext(s1) + sext(imm), wrapping.
        AddrMode::Ubase => {
            let base = pair(w.u[rs2], w.u[rs2 + 1]);
            let a = base.wrapping_add(s1 as u64).wrapping_add(imm as u64);
            global_place(ctx, a, size, align)
        }
        // A = DESC.base + zext(s1) + sext(imm); the whole access must lie in [0, size) of a
        // non-null descriptor, or it is dropped (no fault, no alignment check).
        AddrMode::Buf => {
            let desc =
                BufferDescriptor::from_dwords([w.u[rs2], w.u[rs2 + 1], w.u[rs2 + 2], w.u[rs2 + 3]]);
            let null = desc.flags & 1 == 0 || desc.base == 0;
            let offset: i64 = s1 as i64 + imm;
            let inside = offset >= 0 && offset + size as i64 <= desc.size as i64;
            if null || !inside {
                return Ok(Place::Nowhere);
            }
            global_place(ctx, desc.base.wrapping_add(offset as u64), size, align)
        }
        AddrMode::Shared | AddrMode::Scratch => {
            let (space, window) = if mode == AddrMode::Shared {
                (Space::Shared, ctx.shared.len())
            } else {
                (Space::Scratch, ctx.scratch_bytes)
            };
            // A = zext(s1) + sext(imm); any byte outside [0, window) faults, then
            // alignment (choice: window first).
            let offset: i64 = s1 as i64 + imm;
            if offset < 0 || offset + size as i64 > window as i64 {
                return Err((
                    FaultKind::OutOfWindow {
                        space,
                        size: window,
                    },
                    offset as u64,
                ));
            }
            if !(offset as u64).is_multiple_of(align) {
                return Err((
                    FaultKind::Misaligned {
                        space,
                        align: align as u32,
                    },
                    offset as u64,
                ));
            }
            Ok(if space == Space::Shared {
                Place::Shared(offset as u64)
            } else {
                Place::Scratch(offset as u64)
            })
        }
    }
}

/// Checks every active lane before anything is touched. The fault (if any) is that of the
/// lowest faulting lane, with every faulting lane in its mask.
fn check_lanes(
    ctx: &Ctx<'_>,
    d: &Decoded,
    mode: AddrMode,
    size: u64,
    align: u64,
) -> Result<[Option<Place>; N], ExecFault> {
    let exec = ctx.wave.exec;
    let mut places = [None; N];
    let mut fault: Option<ExecFault> = None;
    for lane in 0..N {
        if !is_active(exec, lane) {
            continue;
        }
        match lane_place(ctx, d, mode, lane, size, align) {
            Ok(p) => places[lane] = Some(p),
            Err((kind, addr)) => match fault.as_mut() {
                Some(f) => f.lanes |= 1 << lane,
                None => {
                    fault = Some(ExecFault {
                        kind,
                        lanes: 1 << lane,
                        addr: Some(addr),
                        len: size as u32,
                    })
                }
            },
        }
    }
    match fault {
        Some(f) => Err(f),
        None => Ok(places),
    }
}

/// Reads `out.len()` bytes for `lane` (zeros for a dropped access), recording nothing.
fn peek(ctx: &Ctx<'_>, p: Place, lane: usize, out: &mut [u8]) {
    match p {
        Place::Global(a) => {
            if ctx.global.read(a, out).is_none() {
                // Checked before: cannot happen.
                out.fill(0);
            }
        }
        Place::Shared(o) => ctx.shared.read(o, out),
        Place::Scratch(o) => ctx
            .wave
            .scratch
            .read(lane as u64 * ctx.scratch_bytes + o, out),
        Place::Nowhere => out.fill(0),
    }
}

/// Records one lane's access for the watchpoints (a dropped access touches nothing).
/// `old` is the memory's content before the access.
fn record(ctx: &mut Ctx<'_>, p: Place, lane: usize, len: u32, kind: AccessKind, old: &[u8]) {
    match p {
        Place::Global(a) => ctx.record(Space::Global, a, len, lane, kind, old),
        Place::Shared(o) => ctx.record(Space::Shared, o, len, lane, kind, old),
        Place::Scratch(o) => ctx.record(Space::Scratch, o, len, lane, kind, old),
        Place::Nowhere => {}
    }
}

/// Reads `out.len()` bytes for `lane` and records the access.
fn read_place(ctx: &mut Ctx<'_>, p: Place, lane: usize, out: &mut [u8], kind: AccessKind) {
    peek(ctx, p, lane, out);
    record(ctx, p, lane, out.len() as u32, kind, out);
}

/// Writes bytes for `lane` (nothing for a dropped access). Records nothing: the caller
/// records stores, and an atomic was recorded once when it read.
fn write_place(ctx: &mut Ctx<'_>, p: Place, lane: usize, data: &[u8]) {
    match p {
        Place::Global(a) => {
            let _ = ctx.global.write(a, data);
        }
        Place::Shared(o) => ctx.shared.write(o, data),
        Place::Scratch(o) => {
            let at = lane as u64 * ctx.scratch_bytes + o;
            ctx.wave.scratch.write(at, data);
        }
        Place::Nowhere => {}
    }
}

/// Alignment docs/memory.md asks of a load or store of `bytes`: natural up to 4.
fn ld_st_align(bytes: u64) -> u64 {
    match bytes {
        1 => 1,
        2 => 2,
        _ => 4,
    }
}

fn load(
    ctx: &mut Ctx<'_>,
    d: &Decoded,
    pc: u64,
    mode: AddrMode,
    ty: LoadType,
) -> Result<Flow, ExecFault> {
    let size = ty.bytes as u64;
    let places = check_lanes(ctx, d, mode, size, ld_st_align(size))?;
    let rd = d.instr.rd as usize;
    let dwords = (ty.bytes as usize).div_ceil(4);
    for lane in 0..N {
        let Some(p) = places[lane] else { continue };
        let mut bytes = [0u8; 16];
        read_place(ctx, p, lane, &mut bytes[..size as usize], AccessKind::Read);
        for k in 0..dwords {
            let b = &bytes[4 * k..4 * k + 4];
            ctx.wave.v[rd + k][lane] = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        // Narrow loads: zero-extended above (the unread bytes are 0), or sign-extended.
        if ty.signed {
            ctx.wave.v[rd][lane] = match ty.bytes {
                1 => bytes[0] as i8 as i32 as u32,
                _ => i16::from_le_bytes([bytes[0], bytes[1]]) as i32 as u32,
            };
        }
    }
    ctx.issue(
        d,
        pc,
        Some(RegRange {
            file: RegFile::Vector,
            first: rd as u8,
            count: dwords as u8,
        }),
    );
    Ok(Flow::Next)
}

fn store(
    ctx: &mut Ctx<'_>,
    d: &Decoded,
    pc: u64,
    mode: AddrMode,
    bytes: u8,
) -> Result<Flow, ExecFault> {
    let size = bytes as u64;
    let places = check_lanes(ctx, d, mode, size, ld_st_align(size))?;
    let rd = d.instr.rd as usize;
    // Ascending lane order: the highest lane's store to an address remains.
    for lane in 0..N {
        let Some(p) = places[lane] else { continue };
        let mut data = Vec::new();
        for k in 0..(bytes as usize).div_ceil(4) {
            data.extend_from_slice(&ctx.wave.v[rd + k][lane].to_le_bytes());
        }
        data.truncate(bytes as usize);
        // Recorded with the bytes it overwrites.
        let mut before = vec![0u8; data.len()];
        peek(ctx, p, lane, &mut before);
        record(ctx, p, lane, bytes as u32, AccessKind::Write, &before);
        write_place(ctx, p, lane, &data);
    }
    ctx.issue(d, pc, None);
    Ok(Flow::Next)
}

/// IEEE 754-2019 minimumNumber: a NaN operand yields the other; -0 < +0; two NaNs give
/// the first, quieted (choice).
fn minimum_number(a: u32, b: u32) -> u32 {
    let (x, y) = (fl(a), fl(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => a | QUIET,
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            // Equal values: only +0 and -0 differ, and -0 is the smaller.
            let pick_a = x < y || (x == y && a >> 31 == 1);
            if pick_a {
                a
            } else {
                b
            }
        }
    }
}

/// IEEE 754-2019 maximumNumber: a NaN operand yields the other; +0 > -0; two NaNs give
/// the first, quieted (choice).
fn maximum_number(a: u32, b: u32) -> u32 {
    let (x, y) = (fl(a), fl(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => a | QUIET,
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            let pick_a = x > y || (x == y && a >> 31 == 0);
            if pick_a {
                a
            } else {
                b
            }
        }
    }
}

/// The new memory value of a 32-bit atomic (spec rows, docs/memory.md).
fn atomic32(op: AtomOp, old: u32, data: u32, data1: u32) -> u32 {
    match op {
        AtomOp::Add => old.wrapping_add(data),
        AtomOp::Sub => old.wrapping_sub(data),
        AtomOp::And => old & data,
        AtomOp::Or => old | data,
        AtomOp::Xor => old ^ data,
        AtomOp::MinS => (old as i32).min(data as i32) as u32,
        AtomOp::MaxS => (old as i32).max(data as i32) as u32,
        AtomOp::MinU => old.min(data),
        AtomOp::MaxU => old.max(data),
        AtomOp::Xchg => data,
        AtomOp::CmpXchg => {
            if old == data {
                data1
            } else {
                old
            }
        }
        AtomOp::Inc => {
            if old >= data {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > data {
                data
            } else {
                old - 1
            }
        }
        AtomOp::FAdd => nan_free(fl(old) + fl(data)),
        AtomOp::FMin => minimum_number(old, data),
        AtomOp::FMax => maximum_number(old, data),
    }
}

/// The new memory value of a 64-bit atomic; `None` for the float operations, which have
/// no 64-bit form.
fn atomic64(op: AtomOp, old: u64, data: u64, data1: u64) -> Option<u64> {
    Some(match op {
        AtomOp::Add => old.wrapping_add(data),
        AtomOp::Sub => old.wrapping_sub(data),
        AtomOp::And => old & data,
        AtomOp::Or => old | data,
        AtomOp::Xor => old ^ data,
        AtomOp::MinS => (old as i64).min(data as i64) as u64,
        AtomOp::MaxS => (old as i64).max(data as i64) as u64,
        AtomOp::MinU => old.min(data),
        AtomOp::MaxU => old.max(data),
        AtomOp::Xchg => data,
        AtomOp::CmpXchg => {
            if old == data {
                data1
            } else {
                old
            }
        }
        AtomOp::Inc => {
            if old >= data {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > data {
                data
            } else {
                old - 1
            }
        }
        AtomOp::FAdd | AtomOp::FMin | AtomOp::FMax => return None,
    })
}

fn atomic(
    ctx: &mut Ctx<'_>,
    d: &Decoded,
    pc: u64,
    mode: AddrMode,
    op: AtomOp,
    wide: bool,
    rtn: bool,
) -> Result<Flow, ExecFault> {
    if wide && matches!(op, AtomOp::FAdd | AtomOp::FMin | AtomOp::FMax) {
        // No such instruction exists in the table.
        return Err(illegal(d, "no 64-bit float atomic"));
    }
    // Atomics are naturally aligned: 4 or 8 bytes.
    let size: u64 = if wide { 8 } else { 4 };
    let places = check_lanes(ctx, d, mode, size, size)?;
    let rd = d.instr.rd as usize;
    // Ascending lane order: each lane sees the value the lanes below it left.
    for lane in 0..N {
        let Some(p) = places[lane] else { continue };
        // data0 in v[d] (v[d:d+1]); cmpxchg's data1 in v[d+1] (v[d+2:d+3]). Registers a
        // form does not use are not read.
        let regs = if op == AtomOp::CmpXchg { 2 } else { 1 } * if wide { 2 } else { 1 };
        let mut v = [0u32; 4];
        for (k, x) in v.iter_mut().enumerate().take(regs) {
            *x = ctx.wave.v[rd + k][lane];
        }
        let mut buf = [0u8; 8];
        read_place(
            ctx,
            p,
            lane,
            &mut buf[..size as usize],
            AccessKind::ReadWrite,
        );
        let old = u64::from_le_bytes(buf);
        let new = if wide {
            let data = pair(v[0], v[1]);
            let data1 = pair(v[2], v[3]);
            atomic64(op, old, data, data1).unwrap_or(old)
        } else {
            atomic32(op, old as u32, v[0], v[1]) as u64
        };
        write_place(ctx, p, lane, &new.to_le_bytes()[..size as usize]);
        // `.rtn`: the old value (0 for a dropped buffer access) to v[d] (v[d:d+1]).
        if rtn {
            ctx.wave.v[rd][lane] = old as u32;
            if wide {
                ctx.wave.v[rd + 1][lane] = (old >> 32) as u32;
            }
        }
    }
    let regs = rtn.then_some(RegRange {
        file: RegFile::Vector,
        first: rd as u8,
        count: if wide { 2 } else { 1 },
    });
    ctx.issue(d, pc, regs);
    Ok(Flow::Next)
}

/// `uld.*`: ignores EXEC, loads `dwords` dwords into `u[d..]`.
fn uniform_load(
    ctx: &mut Ctx<'_>,
    d: &Decoded,
    pc: u64,
    mode: UldMode,
    dwords: u8,
) -> Result<Flow, ExecFault> {
    let i = d.instr;
    let (rd, rs1, rs2) = (i.rd as usize, i.rs1 as usize, i.rs2 as usize);
    let n = dwords as usize;
    let len = 4 * dwords as u32;
    let fault = |kind: FaultKind, addr: u64| ExecFault {
        kind,
        lanes: 0,
        addr: Some(addr),
        len,
    };
    let misaligned = FaultKind::Misaligned {
        space: Space::Global,
        align: 4,
    };
    let u = ctx.wave.u;
    let index: u64 = match mode {
        UldMode::Indexed | UldMode::BufIndexed => u[rs2] as u64,
        UldMode::Plain | UldMode::Buf => 0,
    };
    let mut vals = vec![0u32; n];
    match mode {
        // A = U64[u1] (+ u2) + sext(imm): one access, 4-byte aligned, all mapped.
        UldMode::Plain | UldMode::Indexed => {
            let addr = pair(u[rs1], u[rs1 + 1])
                .wrapping_add(index)
                .wrapping_add(i.imm as u64);
            if !addr.is_multiple_of(4) {
                return Err(fault(misaligned, addr));
            }
            if !mapped(ctx, addr, 4 * n as u64) {
                return Err(fault(FaultKind::Unmapped, addr));
            }
            let mut bytes = vec![0u8; 4 * n];
            let _ = ctx.global.read(addr, &mut bytes);
            for (k, val) in vals.iter_mut().enumerate() {
                let b = &bytes[4 * k..4 * k + 4];
                *val = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            // (Lane 0 stands for the wave.)
            ctx.record(Space::Global, addr, len, 0, AccessKind::Read, &bytes);
        }
        // A = DESC.base (+ u2) + sext(imm); each dword is checked on its own: out of
        // bounds (or null) reads 0.
        UldMode::Buf | UldMode::BufIndexed => {
            let desc = BufferDescriptor::from_dwords([u[rs1], u[rs1 + 1], u[rs1 + 2], u[rs1 + 3]]);
            let null = desc.flags & 1 == 0 || desc.base == 0;
            for (k, val) in vals.iter_mut().enumerate() {
                let offset: i64 = index as i64 + i.imm + 4 * k as i64;
                if null || offset < 0 || offset + 4 > desc.size as i64 {
                    *val = 0;
                    continue;
                }
                let addr = desc.base.wrapping_add(offset as u64);
                if !addr.is_multiple_of(4) {
                    return Err(fault(misaligned, addr));
                }
                if !mapped(ctx, addr, 4) {
                    return Err(fault(FaultKind::Unmapped, addr));
                }
                let mut b = [0u8; 4];
                let _ = ctx.global.read(addr, &mut b);
                *val = u32::from_le_bytes(b);
                ctx.record(Space::Global, addr, 4, 0, AccessKind::Read, &b);
            }
        }
    }
    for (k, val) in vals.iter().enumerate() {
        ctx.wave.u[rd + k] = *val;
    }
    ctx.issue(
        d,
        pc,
        Some(RegRange {
            file: RegFile::Uniform,
            first: rd as u8,
            count: dwords,
        }),
    );
    Ok(Flow::Next)
}

// ---------------------------------------------------------------------------------------
// Cross-lane (spec group 5): sources are read from every lane, active or not; vector
// results go to active lanes only (writelane: flag `ei`).
// ---------------------------------------------------------------------------------------

/// The lane a shuffle reads for `lane`, given its selector `x` (delta, index or mask).
fn shuffle_lane(mode: ShflMode, lane: usize, x: u64) -> usize {
    match mode {
        // d = s1[x & 31]
        ShflMode::Idx => (x % 32) as usize,
        // d = (x <= lane) ? s1[lane - x] : s1[lane]; the delta is not truncated.
        ShflMode::Up => {
            if x <= lane as u64 {
                lane - x as usize
            } else {
                lane
            }
        }
        // j = lane + x; d = (j < 32) ? s1[j] : s1[lane]
        ShflMode::Down => {
            if lane as u64 + x < 32 {
                lane + x as usize
            } else {
                lane
            }
        }
        // d = s1[lane ^ (x & 31)]
        ShflMode::Xor => lane ^ (x % 32) as usize,
        // d = s1[(lane + x) & 31]
        ShflMode::Rot => ((lane as u64 + x) % 32) as usize,
    }
}

fn cross_lane(ctx: &mut Ctx<'_>, d: &Decoded) -> Result<Flow, ExecFault> {
    let i = d.instr;
    let (rd, rs1, rs2) = (i.rd as usize, i.rs1 as usize, i.rs2 as usize);
    let w = &mut *ctx.wave;
    let exec = w.exec;
    // Sources first: rd may be rs1.
    let s1: [u32; N] = w.v[rs1];
    let s2: [u32; N] = w.v[rs2];
    // The uniform source (`.vu`, `writelane`, `readlane.u`), read only by the forms that
    // have one: elsewhere rs2 may name a vector register.
    let u2 = |w: &Wave| w.u[rs2];
    match d.op {
        Op::Shfl { mode, src } => {
            for lane in 0..N {
                if !is_active(exec, lane) {
                    continue;
                }
                let x: u64 = match (src, mode) {
                    (ShflSrc::Vector, _) => s2[lane] as u64,
                    (ShflSrc::Uniform, _) => u2(w) as u64,
                    // .vi rot: (lane + imm) & 31 with the signed immediate.
                    (ShflSrc::Imm, ShflMode::Rot) => (i.imm.rem_euclid(32)) as u64,
                    // .vi up/down/xor: imm[4:0].
                    (ShflSrc::Imm, _) => (i.imm & 31) as u64,
                };
                w.v[rd][lane] = s1[shuffle_lane(mode, lane, x)];
            }
        }
        Op::ShflBcast { src } => {
            let x = match src {
                ShflSrc::Uniform => u2(w) as i64,
                _ => i.imm,
            };
            let from = (x & 31) as usize;
            for lane in 0..N {
                if is_active(exec, lane) {
                    w.v[rd][lane] = s1[from];
                }
            }
        }
        Op::QuadSwizzle => {
            let sel = i.imm as u32;
            for lane in 0..N {
                if !is_active(exec, lane) {
                    continue;
                }
                let quad = lane - lane % 4;
                let pick = (sel >> (2 * (lane % 4))) & 3;
                w.v[rd][lane] = s1[quad + pick as usize];
            }
        }
        Op::Writelane => {
            // `rd:v* rs2:u rs1:ln7`: the lane number is in the rs1 field; EXEC ignored.
            let lane = i.rs1 as u32;
            if lane >= 32 {
                return Err(ExecFault {
                    kind: FaultKind::IllegalLane { lane },
                    lanes: 0,
                    addr: None,
                    len: 0,
                });
            }
            w.v[rd][lane as usize] = u2(w);
        }
        Op::Readfirst => {
            let mut first = 0;
            for lane in (0..N).rev() {
                if is_active(exec, lane) {
                    first = lane;
                }
            }
            w.u[rd] = s1[first];
        }
        Op::Readlane { uniform } => {
            let x = if uniform { u2(w) as i64 } else { i.imm };
            w.u[rd] = s1[(x & 31) as usize];
        }
        Op::Deriv { y, coarse } => {
            for lane in 0..N {
                if !is_active(exec, lane) {
                    continue;
                }
                let quad = lane - lane % 4;
                let (plus, minus) = match (y, coarse) {
                    (false, false) => (lane | 1, lane & !1),
                    (true, false) => (lane | 2, lane & !2),
                    (false, true) => (quad + 1, quad),
                    (true, true) => (quad + 2, quad),
                };
                w.v[rd][lane] = nan_free(fl(s1[plus]) - fl(s1[minus]));
            }
        }
        Op::XscanAdd => {
            for lane in 0..N {
                if !is_active(exec, lane) {
                    continue;
                }
                let mut sum = 0u32;
                for j in 0..=lane {
                    if is_active(exec, j) {
                        sum = sum.wrapping_add(s1[j]);
                    }
                }
                w.v[rd][lane] = sum;
            }
        }
        Op::Ballot => {
            let mut mask = 0u32;
            for lane in 0..N {
                if is_active(exec, lane) && s1[lane] != 0 {
                    mask |= 1 << lane;
                }
            }
            w.u[rd] = mask;
        }
        Op::Vote(kind) => {
            let mut any = false;
            let mut all = true;
            let mut equal = true;
            let mut first: Option<u32> = None;
            for lane in 0..N {
                if !is_active(exec, lane) {
                    continue;
                }
                any |= s1[lane] != 0;
                all &= s1[lane] != 0;
                match first {
                    None => first = Some(s1[lane]),
                    Some(f) => equal &= s1[lane] == f,
                }
            }
            w.u[rd] = match kind {
                VoteKind::Any => any,
                VoteKind::All => all,
                VoteKind::Eq => equal,
            } as u32;
        }
        Op::Xred(op) => {
            // Empty set: the operation's identity.
            let mut acc: u32 = match op {
                RedOp::Add | RedOp::MaxU | RedOp::Or | RedOp::Xor => 0,
                RedOp::MinI => i32::MAX as u32,
                RedOp::MaxI => i32::MIN as u32,
                RedOp::MinU | RedOp::And => u32::MAX,
            };
            for lane in 0..N {
                if !is_active(exec, lane) {
                    continue;
                }
                let x = s1[lane];
                acc = match op {
                    RedOp::Add => acc.wrapping_add(x),
                    RedOp::MinI => (acc as i32).min(x as i32) as u32,
                    RedOp::MaxI => (acc as i32).max(x as i32) as u32,
                    RedOp::MinU => acc.min(x),
                    RedOp::MaxU => acc.max(x),
                    RedOp::And => acc & x,
                    RedOp::Or => acc | x,
                    RedOp::Xor => acc ^ x,
                };
            }
            w.u[rd] = acc;
        }
        _ => return Err(illegal(d, "no cross-lane semantics")),
    }
    Ok(Flow::Next)
}

// ---------------------------------------------------------------------------------------
// The base group (docs/isa.md): control, waits, uniform and vector ALU, EXEC, ids.
// ---------------------------------------------------------------------------------------

/// One two-operand ALU operation, as the base rows define it.
fn alu(op: AluOp, a: u32, b: u32) -> u32 {
    match op {
        AluOp::Add => a.wrapping_add(b),
        AluOp::Sub => a.wrapping_sub(b),
        AluOp::Mul => a.wrapping_mul(b),
        AluOp::MulHi => ((a as u64 * b as u64) >> 32) as u32,
        AluOp::And => a & b,
        AluOp::Or => a | b,
        AluOp::Xor => a ^ b,
        AluOp::Shl => a.wrapping_shl(b % 32),
        AluOp::Shr => a.wrapping_shr(b % 32),
        AluOp::Sra => (a as i32).wrapping_shr(b % 32) as u32,
        AluOp::MinI => {
            if (a as i32) < (b as i32) {
                a
            } else {
                b
            }
        }
        AluOp::MaxI => {
            if (a as i32) > (b as i32) {
                a
            } else {
                b
            }
        }
        AluOp::MinU => {
            if a < b {
                a
            } else {
                b
            }
        }
        AluOp::MaxU => {
            if a > b {
                a
            } else {
                b
            }
        }
        AluOp::FAdd => nan_free(fl(a) + fl(b)),
        AluOp::FSub => nan_free(fl(a) - fl(b)),
        AluOp::FMul => nan_free(fl(a) * fl(b)),
        AluOp::FMin => minimum_number(a, b),
        AluOp::FMax => maximum_number(a, b),
        AluOp::Mov => b,
    }
}

/// One comparison (f32 comparisons are false on NaN, except `ne`).
fn compare(op: CmpOp, a: u32, b: u32) -> bool {
    let (sa, sb) = (a as i32, b as i32);
    let (fa, fb) = (fl(a), fl(b));
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::LtI => sa < sb,
        CmpOp::LeI => sa <= sb,
        CmpOp::GtI => sa > sb,
        CmpOp::GeI => sa >= sb,
        CmpOp::LtU => a < b,
        CmpOp::LeU => a <= b,
        CmpOp::GtU => a > b,
        CmpOp::GeU => a >= b,
        CmpOp::EqF => fa == fb,
        // True when either is NaN.
        CmpOp::NeF => fa != fb,
        CmpOp::LtF => fa < fb,
        CmpOp::LeF => fa <= fb,
        CmpOp::GtF => fa > fb,
        CmpOp::GeF => fa >= fb,
    }
}

/// f32 to integer: truncate toward zero, saturate, NaN -> 0 (written out, not `as`).
fn f32_to_i32(x: f32) -> u32 {
    if x.is_nan() {
        0
    } else if x >= 2147483648.0 {
        i32::MAX as u32
    } else if x <= -2147483648.0 {
        i32::MIN as u32
    } else {
        x.trunc() as i64 as i32 as u32
    }
}

fn f32_to_u32(x: f32) -> u32 {
    if x.is_nan() || x <= -1.0 {
        0
    } else if x >= 4294967296.0 {
        u32::MAX
    } else {
        // -1 < x < 2^32: truncation lands in 0..=u32::MAX (and -0.x truncates to 0).
        x.trunc() as i64 as u32
    }
}

fn convert(op: CvtOp, x: u32) -> u32 {
    match op {
        // Round to nearest even (Rust's int-to-float conversion).
        CvtOp::F32FromI32 => (x as i32 as f32).to_bits(),
        CvtOp::F32FromU32 => (x as f32).to_bits(),
        CvtOp::I32FromF32 => f32_to_i32(fl(x)),
        CvtOp::U32FromF32 => f32_to_u32(fl(x)),
    }
}

fn base(ctx: &mut Ctx<'_>, d: &Decoded, pc: u64) -> Result<Flow, ExecFault> {
    let i = d.instr;
    let (rd, rs1, rs2, rs3) = (
        i.rd as usize,
        i.rs1 as usize,
        i.rs2 as usize,
        i.rs3 as usize,
    );
    // b32 immediates: the bit pattern; 64-bit adds sign-extend it.
    let imm = i.imm as u32;
    let imm_sext = imm as i32 as i64 as u64;
    let launch = ctx.launch;
    let w = &mut *ctx.wave;
    let exec = w.exec;
    match d.op {
        Op::End => return Ok(Flow::End),
        Op::Nop => {}
        Op::Brk => return Ok(Flow::Break),
        Op::Trap => {
            return Err(ExecFault {
                kind: FaultKind::Trap { code: imm },
                lanes: 0,
                addr: None,
                len: 0,
            })
        }
        Op::Barrier => return Ok(Flow::Barrier),
        Op::Wait(which) => {
            // Retire the oldest outstanding operations down to the count.
            let (counters, n): (Vec<Counter>, usize) = match which {
                Some(c) => (vec![c], imm as usize),
                None => (Counter::ALL.to_vec(), 0),
            };
            for c in counters {
                let q = &mut w.outstanding[c.index()];
                while q.len() > n {
                    q.pop_front();
                }
            }
        }
        Op::Branch(cond) => {
            let taken = match cond {
                BrCond::Always => true,
                BrCond::UZero => w.u[rs1] == 0,
                BrCond::UNonZero => w.u[rs1] != 0,
                BrCond::ExecZero => exec == 0,
                BrCond::ExecNonZero => exec != 0,
            };
            if taken {
                // rel14: a signed count of 4-byte words from the branch.
                return Ok(Flow::Jump(pc.wrapping_add_signed(i.imm * 4)));
            }
        }
        Op::UAlu(op, src) => {
            w.u[rd] = match (op, src) {
                (AluOp::Mov, Src::Imm) => imm,
                (AluOp::Mov, _) => w.u[rs1],
                (_, Src::Imm) => alu(op, w.u[rs1], imm),
                (_, _) => alu(op, w.u[rs1], w.u[rs2]),
            };
        }
        Op::UCmp(op, src) => {
            let b = if src == Src::Imm { imm } else { w.u[rs2] };
            w.u[rd] = compare(op, w.u[rs1], b) as u32;
        }
        Op::UAdd64(src) => {
            let add = if src == Src::Imm {
                imm_sext
            } else {
                w.u[rs2] as u64
            };
            let r = pair(w.u[rs1], w.u[rs1 + 1]).wrapping_add(add);
            w.u[rd] = r as u32;
            w.u[rd + 1] = (r >> 32) as u32;
        }
        Op::Exec(op) => {
            let s = w.u[rs1];
            match op {
                ExecOp::Get => w.u[rd] = exec,
                ExecOp::Set => w.exec = s,
                ExecOp::AndSave => {
                    w.u[rd] = exec;
                    w.exec = exec & s;
                }
                ExecOp::AndNotSave => {
                    w.u[rd] = exec;
                    w.exec = exec & !s;
                }
            }
        }
        Op::Id(kind) => {
            w.u[rd] = match kind {
                IdKind::Wave => w.index,
                IdKind::Workgroup => w.workgroup,
                IdKind::WorkgroupSize => launch.workgroup_lanes,
                IdKind::GridSize => launch.grid,
                IdKind::WavesPerWorkgroup => launch.workgroup_lanes.div_ceil(32),
            };
        }
        Op::VAlu(op, src) => {
            for lane in 0..N {
                if !is_active(exec, lane) {
                    continue;
                }
                let a = w.v[rs1][lane];
                let b = match src {
                    Src::Reg if op == AluOp::Mov => a,
                    Src::Reg => w.v[rs2][lane],
                    Src::Uniform => w.u[rs2],
                    Src::Imm => imm,
                };
                w.v[rd][lane] = alu(op, a, b);
            }
        }
        Op::VLaneId => {
            for lane in 0..N {
                if is_active(exec, lane) {
                    w.v[rd][lane] = lane as u32;
                }
            }
        }
        Op::VCvt(op) => {
            for lane in 0..N {
                if is_active(exec, lane) {
                    w.v[rd][lane] = convert(op, w.v[rs1][lane]);
                }
            }
        }
        Op::VCmp(op) => {
            let mut mask = 0u32;
            for lane in 0..N {
                if is_active(exec, lane) && compare(op, w.v[rs1][lane], w.v[rs2][lane]) {
                    mask |= 1 << lane;
                }
            }
            w.u[rd] = mask;
        }
        Op::VAdd64(src) => {
            for lane in 0..N {
                if !is_active(exec, lane) {
                    continue;
                }
                let a = pair(w.v[rs1][lane], w.v[rs1 + 1][lane]);
                let add = if src == Src::Imm {
                    imm_sext
                } else {
                    w.v[rs2][lane] as u64
                };
                let r = a.wrapping_add(add);
                w.v[rd][lane] = r as u32;
                w.v[rd + 1][lane] = (r >> 32) as u32;
            }
        }
        Op::VMovU64 => {
            let (lo, hi) = (w.u[rs2], w.u[rs2 + 1]);
            for lane in 0..N {
                if is_active(exec, lane) {
                    w.v[rd][lane] = lo;
                    w.v[rd + 1][lane] = hi;
                }
            }
        }
        Op::VAdd64U => {
            let base = pair(w.u[rs2], w.u[rs2 + 1]);
            for lane in 0..N {
                if !is_active(exec, lane) {
                    continue;
                }
                let r = base.wrapping_add(w.v[rs1][lane] as u64);
                w.v[rd][lane] = r as u32;
                w.v[rd + 1][lane] = (r >> 32) as u32;
            }
        }
        Op::VMad => {
            for lane in 0..N {
                if is_active(exec, lane) {
                    let (a, b, c) = (w.v[rs1][lane], w.v[rs2][lane], w.v[rs3][lane]);
                    w.v[rd][lane] = a.wrapping_mul(b).wrapping_add(c);
                }
            }
        }
        Op::VFma => {
            for lane in 0..N {
                if is_active(exec, lane) {
                    let (a, b, c) = (w.v[rs1][lane], w.v[rs2][lane], w.v[rs3][lane]);
                    // One rounding.
                    w.v[rd][lane] = nan_free(fl(a).mul_add(fl(b), fl(c)));
                }
            }
        }
        Op::VSel => {
            let mask = w.u[rs3];
            for lane in 0..N {
                if is_active(exec, lane) {
                    w.v[rd][lane] = if is_active(mask, lane) {
                        w.v[rs2][lane]
                    } else {
                        w.v[rs1][lane]
                    };
                }
            }
        }
        _ => return Err(illegal(d, "no semantics")),
    }
    Ok(Flow::Next)
}
