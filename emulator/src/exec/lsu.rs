//! Loads, stores, atomics and uniform loads (spec group 4).
//!
//! Every active lane's address is checked before anything is written, so a faulting
//! instruction changes nothing. Lanes then access memory in ascending lane order: for
//! stores and atomics to one address the highest lane's effect is last. Rules are in
//! docs/memory.md.

use super::alu::{max_number, min_number};
use super::op::{AddrMode, AtomOp, Op, UldMode};
use super::{merge, AccessKind, Ctx, Decoded, ExecFault, Flow};
use crate::fault::FaultKind;
use crate::isa::RegFile;
use crate::memory::{BufferDescriptor, Space};
use crate::wave::{RegRange, LANES};

/// Where one lane's access goes.
#[derive(Debug, Clone, Copy)]
enum Target {
    Global(u64),
    Shared(u64),
    Scratch(u64),
    /// A buffer access out of bounds or through a null descriptor: reads 0, writes dropped.
    Dropped,
}

/// Required alignment of an access of `bytes` (docs/memory.md): natural up to 4 bytes for
/// loads and stores; atomics are naturally aligned (4 or 8).
fn alignment(bytes: u64, atomic: bool) -> u64 {
    if atomic {
        bytes
    } else {
        bytes.min(4)
    }
}

/// Computes and checks one lane's target.
fn target(
    ctx: &Ctx<'_>,
    d: &Decoded,
    mode: AddrMode,
    lane: usize,
    bytes: u64,
    atomic: bool,
) -> Result<Target, ExecFault> {
    let i = d.instr;
    let w = &*ctx.wave;
    let s1 = w.v[i.rs1 as usize][lane];
    // The decoder already sign-extended imm24.
    let imm = i.imm;
    let align = alignment(bytes, atomic);
    let fault = |kind: FaultKind, addr: u64| ExecFault {
        kind,
        lanes: 1 << lane,
        addr: Some(addr),
        len: bytes as u32,
    };
    let window = |space: Space, size: u64| -> Result<u64, ExecFault> {
        let off = s1 as i64 + imm;
        if off < 0 || off as u64 + bytes > size {
            return Err(fault(FaultKind::OutOfWindow { space, size }, off as u64));
        }
        if !(off as u64).is_multiple_of(align) {
            return Err(fault(
                FaultKind::Misaligned {
                    space,
                    align: align as u32,
                },
                off as u64,
            ));
        }
        Ok(off as u64)
    };
    let global = |addr: u64| -> Result<Target, ExecFault> {
        if !addr.is_multiple_of(align) {
            return Err(fault(
                FaultKind::Misaligned {
                    space: Space::Global,
                    align: align as u32,
                },
                addr,
            ));
        }
        if !ctx.global.is_mapped(addr, bytes) {
            return Err(fault(FaultKind::Unmapped, addr));
        }
        Ok(Target::Global(addr))
    };
    match mode {
        AddrMode::Global => {
            let base = s1 as u64 | (w.v[i.rs1 as usize + 1][lane] as u64) << 32;
            global(base.wrapping_add(imm as u64))
        }
        AddrMode::Ubase => {
            let r = i.rs2 as usize;
            let base = w.u[r] as u64 | (w.u[r + 1] as u64) << 32;
            global(base.wrapping_add(s1 as u64).wrapping_add(imm as u64))
        }
        AddrMode::Buf => {
            let r = i.rs2 as usize;
            let desc = BufferDescriptor::from_dwords([w.u[r], w.u[r + 1], w.u[r + 2], w.u[r + 3]]);
            match desc.check(s1 as i64 + imm, bytes) {
                Some(addr) => global(addr),
                None => Ok(Target::Dropped),
            }
        }
        AddrMode::Shared => window(Space::Shared, ctx.shared.len()).map(Target::Shared),
        AddrMode::Scratch => window(Space::Scratch, ctx.scratch_bytes).map(Target::Scratch),
    }
}

/// Checks every active lane; returns the targets or one fault naming all faulting lanes.
fn targets(
    ctx: &Ctx<'_>,
    d: &Decoded,
    mode: AddrMode,
    bytes: u64,
    atomic: bool,
) -> Result<[Option<Target>; LANES], ExecFault> {
    let exec = ctx.wave.exec;
    let mut out = [None; LANES];
    let mut first: Option<ExecFault> = None;
    for (lane, slot) in out.iter_mut().enumerate() {
        if exec >> lane & 1 == 0 {
            continue;
        }
        match target(ctx, d, mode, lane, bytes, atomic) {
            Ok(t) => *slot = Some(t),
            Err(e) => match &mut first {
                Some(f) => f.lanes |= e.lanes,
                None => first = Some(e),
            },
        }
    }
    match first {
        Some(f) => Err(f),
        None => Ok(out),
    }
}

fn read(ctx: &mut Ctx<'_>, t: Target, lane: usize, buf: &mut [u8], kind: AccessKind) {
    let n = buf.len() as u32;
    let (space, addr) = match t {
        Target::Global(a) => {
            // Checked by `target`; an unmapped read cannot happen here.
            let _ = ctx.global.read(a, buf);
            (Space::Global, a)
        }
        Target::Shared(o) => {
            ctx.shared.read(o, buf);
            (Space::Shared, o)
        }
        Target::Scratch(o) => {
            ctx.wave
                .scratch
                .read(lane as u64 * ctx.scratch_bytes + o, buf);
            (Space::Scratch, o)
        }
        Target::Dropped => {
            buf.fill(0);
            return;
        }
    };
    // For an atomic, what it reads is the old value of what it then writes.
    ctx.record(space, addr, n, lane, kind, buf);
}

fn write(ctx: &mut Ctx<'_>, t: Target, lane: usize, data: &[u8], kind: AccessKind) {
    let n = data.len() as u32;
    let mut old = [0u8; 16];
    let old = &mut old[..data.len()];
    // Atomics were recorded when they read; plain stores record here, with the bytes they
    // overwrite, but only when a watchpoint wants them.
    let log = kind == AccessKind::Write;
    match t {
        Target::Global(a) => {
            if log && ctx.watched(Space::Global, a, n) {
                let _ = ctx.global.read(a, old);
                ctx.record(Space::Global, a, n, lane, kind, old);
            }
            let _ = ctx.global.write(a, data);
        }
        Target::Shared(o) => {
            if log && ctx.watched(Space::Shared, o, n) {
                ctx.shared.read(o, old);
                ctx.record(Space::Shared, o, n, lane, kind, old);
            }
            ctx.shared.write(o, data);
        }
        Target::Scratch(o) => {
            let at = lane as u64 * ctx.scratch_bytes + o;
            if log && ctx.watched(Space::Scratch, o, n) {
                ctx.wave.scratch.read(at, old);
                ctx.record(Space::Scratch, o, n, lane, kind, old);
            }
            ctx.wave.scratch.write(at, data);
        }
        Target::Dropped => {}
    }
}

fn counter_regs(file: RegFile, first: u8, count: u8) -> Option<RegRange> {
    Some(RegRange { file, first, count })
}

pub(super) fn execute(ctx: &mut Ctx<'_>, d: &Decoded, pc: u64) -> Result<Flow, ExecFault> {
    match d.op {
        Op::Load { mode, ty } => {
            let bytes = ty.bytes as u64;
            let t = targets(ctx, d, mode, bytes, false)?;
            let dwords = (ty.bytes as usize).div_ceil(4);
            let mut out = [[0u32; LANES]; 4];
            for (lane, tgt) in t.iter().enumerate() {
                let Some(tgt) = *tgt else { continue };
                let mut buf = [0u8; 16];
                read(ctx, tgt, lane, &mut buf[..bytes as usize], AccessKind::Read);
                let raw = u128::from_le_bytes(buf);
                let v0 = match (ty.bytes, ty.signed) {
                    (1, true) => raw as u8 as i8 as i32 as u32,
                    (2, true) => raw as u16 as i16 as i32 as u32,
                    _ => raw as u32,
                };
                out[0][lane] = v0;
                for (k, o) in out.iter_mut().enumerate().take(dwords).skip(1) {
                    o[lane] = (raw >> (32 * k)) as u32;
                }
            }
            let (rd, exec) = (d.instr.rd as usize, ctx.wave.exec);
            for (k, o) in out.iter().enumerate().take(dwords) {
                merge(&mut ctx.wave.v[rd + k], o, exec);
            }
            ctx.issue(d, pc, counter_regs(RegFile::Vector, rd as u8, dwords as u8));
        }
        Op::Store { mode, bytes } => {
            let t = targets(ctx, d, mode, bytes as u64, false)?;
            let rd = d.instr.rd as usize;
            for (lane, tgt) in t.iter().enumerate() {
                let Some(tgt) = *tgt else { continue };
                let mut buf = [0u8; 16];
                for k in 0..(bytes as usize).div_ceil(4) {
                    buf[4 * k..4 * k + 4].copy_from_slice(&ctx.wave.v[rd + k][lane].to_le_bytes());
                }
                write(ctx, tgt, lane, &buf[..bytes as usize], AccessKind::Write);
            }
            ctx.issue(d, pc, None);
        }
        Op::Atomic {
            mode,
            op,
            wide,
            rtn,
        } => {
            let bytes = if wide { 8 } else { 4 };
            let t = targets(ctx, d, mode, bytes, true)?;
            let rd = d.instr.rd as usize;
            let words = if wide { 2 } else { 1 };
            let mut old_out = [[0u32; LANES]; 2];
            for (lane, tgt) in t.iter().enumerate() {
                let Some(tgt) = *tgt else { continue };
                let reg = |k: usize| ctx.wave.v[rd + k][lane] as u64;
                let data0 = if wide { reg(0) | reg(1) << 32 } else { reg(0) };
                let data1 = if op == AtomOp::CmpXchg {
                    if wide {
                        reg(2) | reg(3) << 32
                    } else {
                        reg(1)
                    }
                } else {
                    0
                };
                let mut buf = [0u8; 8];
                read(
                    ctx,
                    tgt,
                    lane,
                    &mut buf[..bytes as usize],
                    AccessKind::ReadWrite,
                );
                let old = u64::from_le_bytes(buf);
                let new = atomic(op, wide, old, data0, data1);
                write(
                    ctx,
                    tgt,
                    lane,
                    &new.to_le_bytes()[..bytes as usize],
                    AccessKind::ReadWrite,
                );
                old_out[0][lane] = old as u32;
                old_out[1][lane] = (old >> 32) as u32;
            }
            if rtn {
                let exec = ctx.wave.exec;
                for (k, o) in old_out.iter().enumerate().take(words) {
                    merge(&mut ctx.wave.v[rd + k], o, exec);
                }
                ctx.issue(d, pc, counter_regs(RegFile::Vector, rd as u8, words as u8));
            } else {
                ctx.issue(d, pc, None);
            }
        }
        Op::Uld { mode, dwords } => uld(ctx, d, pc, mode, dwords)?,
        _ => {
            return Err(ExecFault::plain(FaultKind::IllegalInstruction {
                reason: format!("no memory semantics for {}", d.instr.def().mnemonic()),
            }))
        }
    }
    Ok(Flow::Next)
}

/// One atomic read-modify-write: the new memory value from the old one and the data.
pub fn atomic(op: AtomOp, wide: bool, old: u64, data: u64, data1: u64) -> u64 {
    let mask = if wide { u64::MAX } else { 0xffff_ffff };
    let (o, v) = (old & mask, data & mask);
    let signed = |x: u64| {
        if wide {
            x as i64
        } else {
            x as u32 as i32 as i64
        }
    };
    let r = match op {
        AtomOp::Add => o.wrapping_add(v),
        AtomOp::Sub => o.wrapping_sub(v),
        AtomOp::And => o & v,
        AtomOp::Or => o | v,
        AtomOp::Xor => o ^ v,
        AtomOp::MinS => {
            if signed(v) < signed(o) {
                v
            } else {
                o
            }
        }
        AtomOp::MaxS => {
            if signed(v) > signed(o) {
                v
            } else {
                o
            }
        }
        AtomOp::MinU => o.min(v),
        AtomOp::MaxU => o.max(v),
        AtomOp::Xchg => v,
        AtomOp::CmpXchg => {
            if o == v {
                data1 & mask
            } else {
                o
            }
        }
        AtomOp::Inc => {
            if o >= v {
                0
            } else {
                o + 1
            }
        }
        AtomOp::Dec => {
            if o == 0 || o > v {
                v
            } else {
                o - 1
            }
        }
        AtomOp::FAdd => {
            super::alu::canon(f32::from_bits(o as u32) + f32::from_bits(v as u32)) as u64
        }
        AtomOp::FMin => min_number(o as u32, v as u32) as u64,
        AtomOp::FMax => max_number(o as u32, v as u32) as u64,
    };
    r & mask
}

/// Uniform loads: ignore EXEC, read `dwords` dwords into `u[rd..]`. Buffer forms check
/// bounds per dword: out-of-bounds dwords (or all, for a null descriptor) read 0.
fn uld(
    ctx: &mut Ctx<'_>,
    d: &Decoded,
    pc: u64,
    mode: UldMode,
    dwords: u8,
) -> Result<(), ExecFault> {
    let i = d.instr;
    let w = &*ctx.wave;
    let r = i.rs1 as usize;
    let index = match mode {
        UldMode::Indexed | UldMode::BufIndexed => w.u[i.rs2 as usize] as u64,
        _ => 0,
    };
    let n = dwords as usize;
    let mut vals = [0u32; 16];
    let fault = |kind: FaultKind, addr: u64| ExecFault {
        kind,
        lanes: 0,
        addr: Some(addr),
        len: 4 * dwords as u32,
    };
    let misaligned = |addr: u64| {
        fault(
            FaultKind::Misaligned {
                space: Space::Global,
                align: 4,
            },
            addr,
        )
    };
    match mode {
        UldMode::Plain | UldMode::Indexed => {
            let base = w.u[r] as u64 | (w.u[r + 1] as u64) << 32;
            let addr = base.wrapping_add(index).wrapping_add(i.imm as u64);
            if !addr.is_multiple_of(4) {
                return Err(misaligned(addr));
            }
            let mut buf = [0u8; 64];
            ctx.global
                .read(addr, &mut buf[..4 * n])
                .ok_or_else(|| fault(FaultKind::Unmapped, addr))?;
            for (k, v) in vals.iter_mut().enumerate().take(n) {
                *v = u32::from_le_bytes([
                    buf[4 * k],
                    buf[4 * k + 1],
                    buf[4 * k + 2],
                    buf[4 * k + 3],
                ]);
            }
            ctx.record(Space::Global, addr, 4 * n as u32, 0, AccessKind::Read, &[]);
        }
        UldMode::Buf | UldMode::BufIndexed => {
            let desc = BufferDescriptor::from_dwords([w.u[r], w.u[r + 1], w.u[r + 2], w.u[r + 3]]);
            let off = index as i64 + i.imm;
            for (k, v) in vals.iter_mut().enumerate().take(n) {
                if let Some(addr) = desc.check(off + 4 * k as i64, 4) {
                    if !addr.is_multiple_of(4) {
                        return Err(misaligned(addr));
                    }
                    let word = ctx
                        .global
                        .read_le(addr, 4)
                        .ok_or_else(|| fault(FaultKind::Unmapped, addr))?;
                    *v = word as u32;
                    ctx.record(Space::Global, addr, 4, 0, AccessKind::Read, &[]);
                }
            }
        }
    }
    let rd = i.rd as usize;
    ctx.wave.u[rd..rd + n].copy_from_slice(&vals[..n]);
    ctx.issue(d, pc, counter_regs(RegFile::Uniform, rd as u8, dwords));
    Ok(())
}
