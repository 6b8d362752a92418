//! Lock-step tests: the fast semantics against the reference interpreter.
//!
//! The project's guide: "Keep a simple reference interpreter and test the fast one against
//! it in lock-step (tinygrad's emulator comparison is the model)." The fast path is
//! `exec::execute` as the machine runs it (`Machine::step_wave`); the reference is
//! `exec::reference::execute`, a per-lane, per-op restatement of the spec rows and
//! docs/memory.md that shares no semantic code with the fast path: it decodes the
//! mnemonic itself (`reference::decode`) and never sees the fast path's `Op`. It is
//! compiled only for tests (the crate's `reference` feature, which its dev-dependency on
//! itself turns on). This file classifies instructions with the reference's decoding too,
//! so that every table row must be one the reference knows.
//!
//! Design: one program, one initial state, two machines (a clone: same registers, memory,
//! counters). The fast machine steps one wave with `step_wave`; the reference machine is
//! driven by hand here (the instruction at the wave's PC from `instr_at`, of which the
//! reference gets only the bare `Instr`; a `Ctx` from the machine's public fields; the
//! reference's result `Flow` applied to the PC as `step_wave`
//! does: `Next` falls through, `Jump` sets the PC, `End`/`Barrier`/`Break` step past and
//! stop the comparison). After every instruction the complete state must be equal: every
//! wave's vector and uniform registers, EXEC, PC, outstanding async operations and
//! scratch, every slot's shared memory, global memory, the watchpoint access log (every
//! byte watched; the `old` bytes compared for writes and atomics, where docs define them)
//! and the event: a fault must have the same kind, lane mask, address and length, and
//! then the comparison stops (after checking that the fault changed nothing).
//!
//! Random cases (2800 proptest cases in three mixes, plus 400 fixed-seed streams that also
//! check the generator reaches every family and fault): random legal instruction streams
//! (definitions from `Isa::get().defs()`, random in-range operands, branch targets on
//! instruction boundaries, sometimes not) run from a random state of a kernel with
//! `.shared 256`, `.scratch 64`, a 4 KiB buffer `b`, `.arg u[0:1], b` and
//! `.arg u[4:7], desc b`, launched as one wave, or as 5 workgroups of 3 waves with one of
//! the 6 resident waves stepped. Registers are biased so that memory instructions mostly
//! hit valid memory: address operands usually name registers that hold valid addresses
//! or small aligned offsets, destinations usually leave those registers alone, and a few
//! registers (and sometimes the descriptor) hold deliberately bad values.
//!
//! Then fixed adversarial cases for every definition, per operation family: EXEC 0, a
//! partial EXEC, lane 31 alone and all lanes; INT_MIN, NaNs, -0.0, infinities, denormals;
//! buffer accesses partly and fully out of bounds and through null descriptors;
//! misaligned, unmapped, out-of-window and negative addresses; lanes past the wave; and a
//! kernel with no shared memory or scratch and a 13-byte buffer. Each family also checks
//! that the faults it aims at really happened.

#![allow(clippy::needless_range_loop)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use proptest::prelude::*;

use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::exec::reference::{self, Addressing, Semantics};
use wavedbg_emulator::exec::{Access, AccessKind, AccessLog, Ctx, Flow};
use wavedbg_emulator::fault::FaultKind;
use wavedbg_emulator::isa::{
    Counter, ImmKind, Instr, InstrId, Isa, OperandDef, OperandKind, RegFile, Slot, Unit,
};
use wavedbg_emulator::machine::{Event, LaunchOptions, Machine};
use wavedbg_emulator::memory::Space;
use wavedbg_emulator::program::Program;
use wavedbg_emulator::wave::Wave;

// ---------------------------------------------------------------------------------------
// The kernel and its register layout
// ---------------------------------------------------------------------------------------

const LANES: usize = 32;
const BUF_SIZE: u64 = 4096;
const SHARED: usize = 256;
const SCRATCH: usize = 64;

/// Clean global address pairs (every lane a valid, 8-aligned address in `b`).
const ADDR_PAIRS: [u8; 7] = [32, 34, 36, 38, 40, 42, 44];
/// A pair whose lanes are sometimes misaligned or outside `b`.
const NOISY_PAIR: u8 = 46;
/// Small 8-aligned offsets (16, 24 or 32): valid in the shared window, the scratch and `b`.
const SMALL_OFFSETS: std::ops::Range<u8> = 48..56;
/// Large 8-aligned offsets: valid in `b`, outside the windows.
const LARGE_OFFSETS: std::ops::Range<u8> = 56..60;
/// Offsets that are sometimes misaligned, negative-ish or out of range.
const NOISY_OFFSETS: std::ops::Range<u8> = 60..64;
/// Vector registers the generator avoids writing (usually).
const PROTECTED_V: std::ops::Range<u8> = 32..64;
/// Uniform indices of `uld.x` / `uld.bufx`.
const INDEX_REGS: std::ops::Range<u8> = 8..12;
/// Uniform registers the generator avoids writing (usually): address, descriptor, indices.
const PROTECTED_U: u8 = 12;

const HEADER: &str =
    ".shared 256\n.scratch 64\n.buffer b, 4096\n.arg u[0:1], b\n.arg u[4:7], desc b\n";

/// 32-bit integer edge values.
const E32: [u32; 10] = [
    0,
    1,
    2,
    31,
    32,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
    0xFFFF_FFFE,
    0x8000_0001,
];

/// f32 edge values: +0, -0, 1, -1, quiet NaN, negative NaN, signalling NaN, +inf, -inf,
/// largest finite, smallest denormal, 2^24, 2^31, -2^31, 2^32, 0.5, -0.5, -1.5.
const EF32: [u32; 18] = [
    0x0000_0000,
    0x8000_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x7FC0_0000,
    0xFFC0_0000,
    0x7F80_0001,
    0x7F80_0000,
    0xFF80_0000,
    0x7F7F_FFFF,
    0x0000_0001,
    0x4B80_0000,
    0x4F00_0000,
    0xCF00_0000,
    0x4F80_0000,
    0x3F00_0000,
    0xBF00_0000,
    0xBFC0_0000,
];

/// A kernel without shared memory or scratch whose arguments name a 13-byte buffer `c`
/// (so that every window access faults and buffer ends are not word-aligned).
const BARE_HEADER: &str = ".buffer b, 4096\n.buffer c, 13\n.arg u[0:1], c\n.arg u[4:7], desc c\n";

fn assemble_header(header: &str) -> Program {
    match assemble(&format!("{header}end\n"), "lockstep.s", None) {
        Ok(p) => p,
        Err(e) => panic!("header does not assemble: {e}"),
    }
}

/// The kernel without code (assembled once; each case replaces the code).
fn base_program() -> &'static Program {
    static P: OnceLock<Program> = OnceLock::new();
    P.get_or_init(|| assemble_header(HEADER))
}

/// The bare kernel ([`BARE_HEADER`]).
fn bare_program() -> &'static Program {
    static P: OnceLock<Program> = OnceLock::new();
    P.get_or_init(|| assemble_header(BARE_HEADER))
}

fn machine_for(program: &Program, code: Vec<u32>, options: LaunchOptions) -> Machine {
    let mut p = program.clone();
    p.code = code;
    match Machine::new(&p, options) {
        Ok(m) => m,
        Err(e) => panic!("launch: {e}"),
    }
}

fn buf_base(m: &Machine) -> u64 {
    m.buffer_base("b").expect("buffer b")
}

// ---------------------------------------------------------------------------------------
// A tiny deterministic generator for states (proptest draws the seed)
// ---------------------------------------------------------------------------------------

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn u32(&mut self) -> u32 {
        self.next() as u32
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }

    fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }
}

/// One register's worth of data values.
fn data_lanes(rng: &mut Rng) -> [u32; LANES] {
    let kind = rng.below(7);
    let same = rng.pick(&E32);
    std::array::from_fn(|l| match kind {
        0 => rng.pick(&E32),
        1 => rng.pick(&EF32),
        2 => rng.u32(),
        3 => rng.below(40) as u32,
        4 => same,
        5 => (l as u32).wrapping_mul(same | 1),
        _ => {
            if rng.chance(1, 2) {
                rng.pick(&EF32)
            } else {
                rng.pick(&E32)
            }
        }
    })
}

/// A random state for wave `wv` (and its workgroup's shared memory); the code is in place.
fn randomize(m: &mut Machine, wv: usize, seed: u64) {
    let mut rng = Rng(seed);
    let base = buf_base(m);
    let (base_lo, base_hi) = (base as u32, (base >> 32) as u32);

    // Memory: random bytes with f32 and integer edge words sprinkled in.
    let image = |n: usize, rng: &mut Rng| -> Vec<u8> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let w = match rng.below(4) {
                0 => rng.pick(&EF32),
                1 => rng.pick(&E32),
                2 => rng.below(8) as u32,
                _ => rng.u32(),
            };
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.truncate(n);
        out
    };
    let g = image(BUF_SIZE as usize, &mut rng);
    m.global.write(base, &g).expect("buffer b is mapped");
    let s = image(SHARED, &mut rng);
    let slot = m.slot_of(wv);
    m.slots[slot].shared.write(0, &s);
    let sc = image(SCRATCH * LANES, &mut rng);
    m.waves[wv].scratch.write(0, &sc);

    let w = &mut m.waves[wv];
    w.exec = match rng.below(8) {
        0 => 0,
        1 => 0xA5A5_0F0F,
        2 => 0x8000_0000,
        3 => rng.u32(),
        4 => rng.u32() | 0x8000_0001,
        _ => u32::MAX,
    };
    for r in 0..128 {
        w.v[r] = data_lanes(&mut rng);
    }
    for &p in &ADDR_PAIRS {
        let same = rng.chance(1, 4);
        let fixed = 64 + 8 * rng.below((BUF_SIZE - 128) / 8) as u32;
        for l in 0..LANES {
            let off = if same {
                fixed
            } else {
                64 + 8 * rng.below((BUF_SIZE - 128) / 8) as u32
            };
            w.v[p as usize][l] = base_lo.wrapping_add(off);
            w.v[p as usize + 1][l] = base_hi;
        }
    }
    for l in 0..LANES {
        let off = 64 + 8 * rng.below((BUF_SIZE - 128) / 8) as u32;
        let (lo, hi) = match rng.below(8) {
            0 => (base_lo.wrapping_add(off + 1 + rng.below(7) as u32), base_hi),
            1 => (base_lo.wrapping_add(BUF_SIZE as u32 - 4), base_hi),
            2 => (base_lo.wrapping_sub(8), base_hi.wrapping_sub(1)),
            3 => (rng.u32(), rng.u32()),
            _ => (base_lo.wrapping_add(off), base_hi),
        };
        w.v[NOISY_PAIR as usize][l] = lo;
        w.v[NOISY_PAIR as usize + 1][l] = hi;
    }
    for r in SMALL_OFFSETS {
        let same = rng.chance(1, 3);
        let fixed = rng.pick(&[16u32, 24, 32]);
        for l in 0..LANES {
            w.v[r as usize][l] = if same {
                fixed
            } else {
                rng.pick(&[16u32, 24, 32])
            };
        }
    }
    for r in LARGE_OFFSETS {
        for l in 0..LANES {
            w.v[r as usize][l] = 16 + 8 * rng.below(500) as u32;
        }
    }
    for r in NOISY_OFFSETS {
        for l in 0..LANES {
            w.v[r as usize][l] = match rng.below(10) {
                0 => 17,
                1 => 18,
                2 => 250,
                3 => SHARED as u32,
                4 => BUF_SIZE as u32 - 6,
                5 => BUF_SIZE as u32,
                6 => 0xFFFF_FFF0,
                7 => rng.u32(),
                _ => rng.pick(&[16u32, 24, 32]),
            };
        }
    }

    // Uniform registers: u0:1 and u4:7 are the arguments; sometimes spoil the descriptor.
    match rng.below(16) {
        0 => w.u[7] = 0,                       // null: not valid
        1 => w.u[6] = 100,                     // a smaller buffer
        2 => w.u[4] = base_lo.wrapping_add(2), // misaligned base
        3 => {
            w.u[4] = 0; // null: base 0
            w.u[5] = 0;
        }
        4 => w.u[6] = 0x10_0000, // larger than the allocation
        _ => {}
    }
    for r in 2..4 {
        w.u[r] = rng.pick(&E32);
    }
    for r in INDEX_REGS {
        w.u[r as usize] = if rng.chance(3, 4) {
            rng.pick(&[0u32, 4, 8, 64, 1024])
        } else {
            rng.pick(&[2u32, 4092, 4096, 0xFFFF_FFFC, 0x8000_0000])
        };
    }
    for r in PROTECTED_U as usize..64 {
        w.u[r] = match rng.below(5) {
            0 => rng.pick(&E32),
            1 => rng.pick(&EF32),
            2 => rng.below(40) as u32,
            3 => rng.pick(&[0u32, u32::MAX, 0xA5A5_0F0F, 0x8000_0000, 0x0000_FFFF]),
            _ => rng.u32(),
        };
    }

    // Outstanding async operations: a few, or a counter about to saturate.
    for c in Counter::ALL {
        let n = if rng.chance(1, 16) { 62 } else { rng.below(4) };
        for k in 0..n {
            w.issue(c, 0x1000 + 8 * k, None);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Random legal instructions
// ---------------------------------------------------------------------------------------

/// What an instruction does, as the reference decodes it.
fn semantics(mnemonic: &str) -> Semantics {
    match reference::decode(mnemonic) {
        Some(s) => s,
        None => panic!("the reference does not know {mnemonic}"),
    }
}

/// How a vector memory instruction addresses memory.
fn vector_addressing(s: Semantics) -> Option<Addressing> {
    match s {
        Semantics::Load { at, .. } | Semantics::Store { at, .. } | Semantics::Atomic { at, .. } => {
            Some(at)
        }
        _ => None,
    }
}

/// For a uniform load: whether it goes through a descriptor (else a 64-bit pointer).
fn uniform_load_descriptor(s: Semantics) -> Option<bool> {
    match s {
        Semantics::UniformLoad { descriptor, .. } => Some(descriptor),
        _ => None,
    }
}

fn pick_i(raw: u64, xs: &[i64]) -> i64 {
    xs[(raw % xs.len() as u64) as usize]
}

/// A value in `lo..=hi`.
fn in_range(raw: u64, lo: i64, hi: i64) -> i64 {
    lo + (raw % ((hi - lo + 1) as u64)) as i64
}

/// A legal value for one operand of an instruction with operation `op`, biased so that
/// memory operands are usually valid and destinations usually spare the address
/// registers. Branch targets are set later (`rel14` gets 0 here).
fn operand_value(op: Semantics, o: &OperandDef, raw: u64) -> i64 {
    // 31 in 32 register operands are biased (1 in 32 is any register); of the biased
    // address operands, 1 in 32 names a noisy register.
    let biased = !raw.is_multiple_of(32);
    let r = raw >> 5;
    match o.kind {
        OperandKind::Reg { file, count } => {
            let max = file.count() as i64 - count as i64;
            let any = in_range(r, 0, max);
            if !biased {
                return any;
            }
            let mode = vector_addressing(op);
            let uld = uniform_load_descriptor(op);
            match (file, o.slot, mode, uld) {
                (RegFile::Vector, Slot::Rs1, Some(Addressing::Global), _) => {
                    if r.is_multiple_of(32) {
                        NOISY_PAIR as i64
                    } else {
                        pick_i(r, &ADDR_PAIRS.map(|p| p as i64))
                    }
                }
                (RegFile::Vector, Slot::Rs1, Some(Addressing::Shared | Addressing::Scratch), _) => {
                    if r.is_multiple_of(32) {
                        in_range(
                            r >> 5,
                            NOISY_OFFSETS.start as i64,
                            NOISY_OFFSETS.end as i64 - 1,
                        )
                    } else {
                        in_range(r, SMALL_OFFSETS.start as i64, SMALL_OFFSETS.end as i64 - 1)
                    }
                }
                (RegFile::Vector, Slot::Rs1, Some(_), _) => {
                    if r.is_multiple_of(32) {
                        in_range(
                            r >> 5,
                            NOISY_OFFSETS.start as i64,
                            NOISY_OFFSETS.end as i64 - 1,
                        )
                    } else {
                        in_range(r, SMALL_OFFSETS.start as i64, LARGE_OFFSETS.end as i64 - 1)
                    }
                }
                (RegFile::Uniform, Slot::Rs2, Some(Addressing::UniformBase), _) => 0,
                (RegFile::Uniform, Slot::Rs2, Some(Addressing::Buffer), _) => 4,
                // uld, uld.x: the pointer u[0:1]; uld.buf, uld.bufx: the descriptor u[4:7].
                (RegFile::Uniform, Slot::Rs1, _, Some(false)) => 0,
                (RegFile::Uniform, Slot::Rs1, _, Some(true)) => 4,
                (RegFile::Uniform, Slot::Rs2, _, Some(_)) => {
                    in_range(r, INDEX_REGS.start as i64, INDEX_REGS.end as i64 - 1)
                }
                (RegFile::Vector, Slot::Rd, _, _) => {
                    // 0..=32-count or 64..=max.
                    let low = PROTECTED_V.start as i64 - count as i64;
                    let high_n = max - PROTECTED_V.end as i64 + 1;
                    let k = (r % (low + 1 + high_n) as u64) as i64;
                    if k <= low {
                        k
                    } else {
                        PROTECTED_V.end as i64 + (k - low - 1)
                    }
                }
                (RegFile::Uniform, Slot::Rd, _, _) => in_range(r, PROTECTED_U as i64, max),
                _ => any,
            }
        }
        OperandKind::Imm(ImmKind::Rel14) => 0,
        // Memory offsets: 1 in 32 anything, 1 in 32 small (often misaligned), else aligned.
        OperandKind::Imm(ImmKind::S24) => match raw % 32 {
            0 => {
                let (lo, hi) = ImmKind::S24.range();
                in_range(r, lo, hi)
            }
            1 => in_range(r, -20, 20),
            _ => pick_i(r, &[-16, -8, 0, 0, 8, 16]),
        },
        OperandKind::Imm(ImmKind::Ln7) => {
            if !raw.is_multiple_of(8) {
                in_range(r, 0, 31)
            } else {
                in_range(r, 0, 127)
            }
        }
        OperandKind::Imm(ImmKind::B32) => match raw % 4 {
            0 => E32[(r % E32.len() as u64) as usize] as i64,
            1 => EF32[(r % EF32.len() as u64) as usize] as i64,
            2 => in_range(r, 0, 40),
            _ => (r as u32) as i64,
        },
        OperandKind::Imm(k) => {
            let (lo, hi) = k.range();
            match raw % 8 {
                0 => lo,
                1 => hi,
                _ => in_range(r, lo, hi),
            }
        }
        OperandKind::Cpol => in_range(r, 0, 7),
    }
}

/// One generated instruction: a definition and raw randomness for its operands.
type Gen = (usize, [u64; 6]);

/// Encodes the generated instructions followed by `end`; branch targets are instruction
/// starts (the `end` included), picked by the branch's raw randomness.
fn build_code(gens: &[Gen]) -> Vec<u32> {
    let isa = Isa::get();
    let mut instrs = Vec::new();
    let mut targets = Vec::new();
    let mut pc = 0u64;
    for &(id, raw) in gens {
        let def = isa.def(id as InstrId);
        let op = semantics(def.mnemonic());
        let mut i = Instr::new(id as InstrId);
        let mut target_raw = None;
        for (o, r) in def.operands.iter().zip(raw) {
            if o.kind == OperandKind::Imm(ImmKind::Rel14) {
                target_raw = Some(r);
            }
            i.set(o.slot, operand_value(op, o, r));
        }
        instrs.push((pc, i, target_raw));
        targets.push(pc);
        pc += def.len as u64;
    }
    targets.push(pc);
    let end = Instr::new(isa.lookup("end").expect("end"));
    let mut code = Vec::new();
    for (pc, mut i, target_raw) in instrs {
        if let Some(r) = target_raw {
            // 1 in 16: a target near the branch, maybe inside a 64-bit instruction or
            // before the code (a BadPc fault).
            i.imm = if r.is_multiple_of(16) {
                in_range(r >> 4, -3, 3)
            } else {
                let t = targets[(r % targets.len() as u64) as usize];
                (t as i64 - pc as i64) / 4
            };
        }
        code.extend(i.encode_words().expect("legal operands encode"));
    }
    code.extend(end.encode_words().expect("end encodes"));
    code
}

// ---------------------------------------------------------------------------------------
// Lock-step driver
// ---------------------------------------------------------------------------------------

/// Every byte of every space watched: the fast and the reference logs must agree.
fn watch_everything() -> AccessLog {
    AccessLog::new(vec![
        (Space::Global, 0, u64::MAX),
        (Space::Shared, 0, u64::MAX),
        (Space::Scratch, 0, u64::MAX),
    ])
}

/// The log of reads without the `old` bytes: docs only define them for writes and atomics.
fn normalized(hits: &[Access]) -> Vec<Access> {
    hits.iter()
        .map(|a| {
            let mut a = *a;
            if a.kind == AccessKind::Read {
                a.old = [0; 16];
            }
            a
        })
        .collect()
}

fn first_diff(a: &[u8], b: &[u8]) -> String {
    match (0..a.len().min(b.len())).find(|&i| a[i] != b[i]) {
        Some(i) => format!("byte {i:#x}: fast {:#04x}, reference {:#04x}", a[i], b[i]),
        None => format!("lengths {} and {}", a.len(), b.len()),
    }
}

/// Compares the complete state: every wave (the stepped one and the others, which must
/// stay untouched), every workgroup slot's shared memory, and global memory.
fn compare_state(fast: &Machine, slow: &Machine) -> Result<(), String> {
    if fast.waves.len() != slow.waves.len() || fast.slots.len() != slow.slots.len() {
        return Err("different numbers of waves or slots".into());
    }
    for (k, (x, y)) in fast.waves.iter().zip(&slow.waves).enumerate() {
        compare_wave(x, y).map_err(|e| format!("wave {k}: {e}"))?;
    }
    for (k, (a, b)) in fast.slots.iter().zip(&slow.slots).enumerate() {
        if a.shared != b.shared {
            return Err(format!(
                "shared memory of slot {k}: {}",
                first_diff(&a.shared.to_vec(), &b.shared.to_vec())
            ));
        }
    }
    for (a, b) in fast
        .global
        .allocations()
        .iter()
        .zip(slow.global.allocations())
    {
        if a.data != b.data {
            return Err(format!(
                "global buffer {}: {}",
                a.name,
                first_diff(&a.data.to_vec(), &b.data.to_vec())
            ));
        }
    }
    Ok(())
}

/// Compares one wave's architectural state: PC, EXEC, registers, counters, scratch.
fn compare_wave(x: &Wave, y: &Wave) -> Result<(), String> {
    if x.pc != y.pc {
        return Err(format!("pc: fast {:#x}, reference {:#x}", x.pc, y.pc));
    }
    if x.exec != y.exec {
        return Err(format!(
            "exec: fast {:#010x}, reference {:#010x}",
            x.exec, y.exec
        ));
    }
    if x.v != y.v {
        for r in 0..x.v.len() {
            for l in 0..LANES {
                if x.v[r][l] != y.v[r][l] {
                    return Err(format!(
                        "v{r} lane {l}: fast {:#010x}, reference {:#010x}",
                        x.v[r][l], y.v[r][l]
                    ));
                }
            }
        }
    }
    for r in 0..x.u.len() {
        if x.u[r] != y.u[r] {
            return Err(format!(
                "u{r}: fast {:#010x}, reference {:#010x}",
                x.u[r], y.u[r]
            ));
        }
    }
    for c in Counter::ALL {
        let (a, b) = (&x.outstanding[c.index()], &y.outstanding[c.index()]);
        if a != b {
            return Err(format!(
                "outstanding {}: fast {a:?}, reference {b:?}",
                c.name()
            ));
        }
    }
    if x.scratch != y.scratch {
        return Err(format!(
            "scratch: {}",
            first_diff(&x.scratch.to_vec(), &y.scratch.to_vec())
        ));
    }
    Ok(())
}

/// How a lock-step run ended.
#[derive(Debug, Default, Clone)]
struct Outcome {
    /// Instructions both executed.
    steps: usize,
    /// Mnemonics executed without a fault.
    ok: Vec<&'static str>,
    /// The fault that ended it, with the faulting mnemonic (BadPc: none).
    fault: Option<(FaultKind, Option<&'static str>)>,
}

/// Runs wave `wv` of both machines in lock-step for at most `max_steps` instructions.
/// With `watch`, the fast machine watches every byte (lanes go one at a time, each
/// recorded) and its log must equal the reference's; without, it takes the paths a run
/// with no watchpoint takes (one page found once for all lanes) and the state is compared.
fn lockstep(
    mut fast: Machine,
    mut slow: Machine,
    wv: usize,
    max_steps: usize,
    watch: bool,
) -> Result<Outcome, String> {
    let slot = slow.slot_of(wv);
    fast.set_break_is_fault(false);
    if watch {
        fast.set_access_log(Some(watch_everything()));
    }
    let mut out = Outcome::default();
    for _ in 0..max_steps {
        let pc = slow.waves[wv].pc;
        let event = fast.step_wave(wv);
        // The machine's fetch (is there an instruction boundary at pc?); the reference sees
        // only the bare instruction, never the machine's decoded `Op`.
        let Some(instr) = slow.instr_at(pc).map(|d| d.instr) else {
            return match event {
                Some(Event::Fault(f)) if f.kind == FaultKind::BadPc => {
                    out.fault = Some((FaultKind::BadPc, None));
                    Ok(out)
                }
                other => Err(format!(
                    "pc {pc:#x} is off the code, but fast gave {other:?}"
                )),
            };
        };
        let text = instr.text(pc);
        let mnemonic = instr.def().mnemonic();
        let launch = *slow.launch();
        let mut log = watch_everything();
        let result = {
            let mut ctx = Ctx {
                wave: &mut slow.waves[wv],
                shared: &mut slow.slots[slot].shared,
                global: &mut slow.global,
                launch: &launch,
                scratch_bytes: launch.scratch_bytes as u64,
                accesses: Some(&mut log),
                trace: None,
            };
            reference::execute(&mut ctx, &instr, pc)
        };
        out.steps += 1;
        let next = pc + instr.size_bytes() as u64;
        let stop = match &result {
            Ok(Flow::Next) => {
                slow.waves[wv].pc = next;
                false
            }
            Ok(Flow::Jump(t)) => {
                slow.waves[wv].pc = *t;
                false
            }
            Ok(Flow::End | Flow::Barrier | Flow::Break) => {
                slow.waves[wv].pc = next;
                true
            }
            Err(_) => true,
        };
        let events_agree = match (&result, &event) {
            (Ok(Flow::Next | Flow::Jump(_) | Flow::Barrier), None) => true,
            // The last wave to end finishes the launch; the others end quietly.
            (Ok(Flow::End), None | Some(Event::Finished)) => true,
            (Ok(Flow::Break), Some(Event::Break { wave, pc: p })) => *wave == wv && *p == pc,
            (Err(e), Some(Event::Fault(f))) => {
                e.kind == f.kind && e.lanes == f.lanes && e.addr == f.addr && e.len == f.len
            }
            _ => false,
        };
        if !events_agree {
            return Err(format!(
                "`{text}` at pc {pc:#x}: reference {result:?}, fast {event:?}"
            ));
        }
        compare_state(&fast, &slow).map_err(|e| format!("after `{text}` at pc {pc:#x}: {e}"))?;
        match result {
            Ok(_) if !watch => out.ok.push(mnemonic),
            Ok(_) => {
                let fast_hits = fast.access_log().map_or(&[][..], |l| &l.hits[..]);
                let (a, b) = (normalized(fast_hits), normalized(&log.hits));
                if a != b {
                    return Err(format!(
                        "`{text}` at pc {pc:#x}: access log: fast {a:?}, reference {b:?}"
                    ));
                }
                out.ok.push(mnemonic);
            }
            Err(e) => out.fault = Some((e.kind, Some(mnemonic))),
        }
        if stop {
            break;
        }
    }
    Ok(out)
}

/// Builds the program and state of a random case and runs it in lock-step. Odd seeds
/// launch 5 workgroups of 3 waves, 2 resident, and run one of the 6 resident waves (so
/// that ids, per-wave scratch and per-slot shared memory are not all wave 0's).
fn run_case(gens: &[Gen], seed: u64) -> Result<Outcome, String> {
    let (options, wv) = if seed & 1 == 0 {
        (LaunchOptions::default(), 0)
    } else {
        let o = LaunchOptions {
            grid: Some(5),
            workgroup_lanes: Some(96),
            resident_workgroups: 2,
            ..LaunchOptions::default()
        };
        (o, (seed >> 1) as usize % 6)
    };
    let mut m = machine_for(base_program(), build_code(gens), options);
    randomize(&mut m, wv, seed);
    let fast = m.clone();
    lockstep(fast, m, wv, 3 * gens.len() + 8, true).map_err(|e| {
        let isa = Isa::get();
        let names: Vec<&str> = gens
            .iter()
            .map(|(id, _)| isa.def(*id as InstrId).mnemonic())
            .collect();
        format!("{e}\n  program: {names:?}\n  state seed: {seed:#x}, wave {wv}")
    })
}

fn defs_where(keep: impl Fn(Unit, Semantics) -> bool) -> Vec<usize> {
    Isa::get()
        .defs()
        .iter()
        .enumerate()
        .filter(|(_, d)| keep(d.row.unit, semantics(d.mnemonic())))
        .map(|(i, _)| i)
        .collect()
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        max_shrink_iters: 2000,
        ..ProptestConfig::default()
    }
}

fn streams(defs: Vec<usize>, max_len: usize) -> impl Strategy<Value = (Vec<Gen>, u64)> {
    (
        prop::collection::vec((prop::sample::select(defs), any::<[u64; 6]>()), 1..=max_len),
        any::<u64>(),
    )
}

// 1200 + 1000 + 600 = 2800 random cases.
proptest! {
    #![proptest_config(config(1200))]
    #[test]
    fn random_streams_of_any_instruction(case in streams(defs_where(|_, _| true), 24)) {
        let (gens, seed) = case;
        if let Err(e) = run_case(&gens, seed) {
            return Err(TestCaseError::fail(e));
        }
    }
}

proptest! {
    #![proptest_config(config(1000))]
    #[test]
    fn random_memory_streams(case in streams(defs_where(|u, _| u == Unit::Lsu), 16)) {
        let (gens, seed) = case;
        if let Err(e) = run_case(&gens, seed) {
            return Err(TestCaseError::fail(e));
        }
    }
}

proptest! {
    #![proptest_config(config(600))]
    #[test]
    fn random_alu_and_cross_lane_streams(case in streams(defs_where(|u, _| u != Unit::Lsu), 24)) {
        let (gens, seed) = case;
        if let Err(e) = run_case(&gens, seed) {
            return Err(TestCaseError::fail(e));
        }
    }
}

/// The random streams must actually exercise the instructions: most memory instructions
/// succeed, every kind of memory fault shows up, and every operation family runs. Without
/// this, a generator that faulted at the first instruction would pass vacuously.
#[test]
fn random_streams_reach_every_family_and_fault() {
    let all = defs_where(|_, _| true);
    let mut rng = Rng(0x10c5_7e95);
    let mut ok_mnemonics = BTreeSet::new();
    let mut faults: BTreeMap<String, usize> = BTreeMap::new();
    let (mut steps, mut mem_ok, mut mem_total) = (0usize, 0usize, 0usize);
    let isa = Isa::get();
    for _ in 0..400 {
        let n = 1 + rng.below(24) as usize;
        let gens: Vec<Gen> = (0..n)
            .map(|_| {
                let id = rng.pick(&all);
                (id, std::array::from_fn(|_| rng.next()))
            })
            .collect();
        let out = match run_case(&gens, rng.next()) {
            Ok(o) => o,
            Err(e) => panic!("{e}"),
        };
        steps += out.steps;
        for m in &out.ok {
            ok_mnemonics.insert(*m);
            if isa.def(isa.lookup(m).expect("known")).row.unit == Unit::Lsu {
                mem_ok += 1;
                mem_total += 1;
            }
        }
        if let Some((kind, m)) = &out.fault {
            let name = format!("{kind:?}");
            let name = name.split([' ', '{', '(']).next().unwrap_or("").to_string();
            *faults.entry(name).or_default() += 1;
            if m.is_some_and(|m| isa.def(isa.lookup(m).expect("known")).row.unit == Unit::Lsu) {
                mem_total += 1;
            }
        }
    }
    eprintln!("steps {steps}, memory ok {mem_ok} of {mem_total}, faults {faults:?}");
    assert!(steps > 2000, "only {steps} instructions compared");
    assert!(
        mem_ok * 10 >= mem_total * 6,
        "only {mem_ok} of {mem_total} memory instructions ran without a fault"
    );
    for kind in ["Misaligned", "Unmapped", "OutOfWindow", "BadPc"] {
        assert!(faults.contains_key(kind), "no {kind} fault in {faults:?}");
    }
    let families: BTreeSet<String> = ok_mnemonics
        .iter()
        .map(|m| {
            let op = format!("{:?}", semantics(m));
            op.split([' ', '{', '(']).next().unwrap_or("").to_string()
        })
        .collect();
    for f in [
        "Load",
        "Store",
        "Atomic",
        "UniformLoad",
        "Shuffle",
        "QuadSwizzle",
        "WriteLane",
        "ReadFirst",
        "ReadLane",
        "Derivative",
        "ScanAdd",
        "Ballot",
        "Vote",
        "Reduce",
        "Wait",
        "Branch",
        "UniformMove",
        "UniformAlu",
        "UniformCompare",
        "UniformAdd64",
        "Exec",
        "Id",
        "VectorMove",
        "VectorAlu",
        "Convert",
        "VectorCompare",
        "VectorAdd64",
        "MultiplyAdd",
        "FusedMultiplyAdd",
        "Select",
        "CacheInvalidate",
    ] {
        assert!(families.contains(f), "family {f} never ran: {families:?}");
    }
}

// ---------------------------------------------------------------------------------------
// Memory across pages, unwatched: the paths that find one page for all lanes
// ---------------------------------------------------------------------------------------

/// A kernel whose buffer and shared window span three and two 4 KiB pages, so that lanes
/// can fall in one page, straddle a page boundary, or run off the end.
const PAGES_HEADER: &str =
    ".shared 8192\n.scratch 64\n.buffer b, 12288\n.arg u[0:1], b\n.arg u[4:7], desc b\n";
const PAGES_BUF: u32 = 12288;
const PAGES_SHARED: u32 = 8192;
const PAGE: u32 = 4096;

/// The [`PAGES_HEADER`] kernel without code.
fn pages_program() -> &'static Program {
    static P: OnceLock<Program> = OnceLock::new();
    P.get_or_init(|| assemble_header(PAGES_HEADER))
}

/// Per-lane offsets in a memory of `size` bytes, in one of the patterns the fast paths
/// must tell apart: all lanes in one page (consecutive, strided, scattered, or one
/// address for all, as atomics on one word), lanes straddling a page boundary, one lane's
/// own bytes across a boundary, one lane out of bounds or misaligned, the last bytes.
fn page_pattern(rng: &mut Rng, size: u32) -> [u32; LANES] {
    let pages = size / PAGE;
    let page = PAGE * rng.below(pages as u64) as u32;
    let stride = rng.pick(&[0u32, 4, 8, 16]);
    let start = page + 8 * rng.below(((PAGE - 32 * 16) / 8) as u64) as u32;
    let mut offs: [u32; LANES] = std::array::from_fn(|l| start + stride * l as u32);
    match rng.below(9) {
        // One page, consecutive or strided (or all on one word: stride 0).
        0 | 1 => {}
        // One page, scattered, with duplicates.
        2 => {
            let words: Vec<u32> = (0..1 + rng.below(4))
                .map(|_| rng.below(512) as u32)
                .collect();
            offs = std::array::from_fn(|_| page + 8 * rng.pick(&words));
        }
        // Straddling a page boundary (lanes on both sides).
        3 => {
            let b = PAGE * (1 + rng.below((pages - 1) as u64) as u32);
            let back = 8 * (1 + rng.below(20) as u32);
            offs = std::array::from_fn(|l| b - back + stride.max(4) * l as u32);
        }
        // One lane whose own bytes cross a boundary (4-aligned, 4 before it).
        4 => offs[rng.below(32) as usize] = page + PAGE - 4,
        // One lane out of bounds.
        5 => offs[rng.below(32) as usize] = rng.pick(&[size, size - 4, size + 4096, 0xFFFF_FFF0]),
        // One lane misaligned.
        6 => offs[rng.below(32) as usize] += rng.pick(&[1u32, 2, 4]),
        // The last bytes of the memory.
        7 => offs = std::array::from_fn(|l| size - 8 - 8 * (l as u32 % 4)),
        // Every lane on one address.
        _ => offs = [start; LANES],
    }
    offs
}

/// A random state for the [`PAGES_HEADER`] kernel: [`randomize`]'s, then all memory
/// random and the address registers' lanes in [`page_pattern`]s.
fn randomize_pages(m: &mut Machine, wv: usize, seed: u64) {
    randomize(m, wv, seed);
    let mut rng = Rng(seed ^ 0x9a6e_5eed);
    let base = buf_base(m);
    let g: Vec<u8> = (0..PAGES_BUF).map(|_| rng.next() as u8).collect();
    m.global.write(base, &g).expect("buffer b is mapped");
    let sh: Vec<u8> = (0..PAGES_SHARED).map(|_| rng.next() as u8).collect();
    let slot = m.slot_of(wv);
    m.slots[slot].shared.write(0, &sh);
    let w = &mut m.waves[wv];
    for p in ADDR_PAIRS.into_iter().chain([NOISY_PAIR]) {
        let offs = page_pattern(&mut rng, PAGES_BUF);
        for l in 0..LANES {
            let a = base.wrapping_add(offs[l] as u64);
            w.v[p as usize][l] = a as u32;
            w.v[p as usize + 1][l] = (a >> 32) as u32;
        }
    }
    for r in SMALL_OFFSETS.chain(LARGE_OFFSETS).chain(NOISY_OFFSETS) {
        // Shared-window sizes and buffer sizes both.
        let size = rng.pick(&[PAGES_SHARED, PAGES_BUF]);
        w.v[r as usize] = page_pattern(&mut rng, size);
    }
}

/// [`run_case`] on the [`PAGES_HEADER`] kernel; seeds with bit 1 set watch every byte,
/// the others run the unwatched paths.
fn run_pages_case(gens: &[Gen], seed: u64) -> Result<Outcome, String> {
    let (options, wv) = if seed & 1 == 0 {
        (LaunchOptions::default(), 0)
    } else {
        let o = LaunchOptions {
            grid: Some(5),
            workgroup_lanes: Some(96),
            resident_workgroups: 2,
            ..LaunchOptions::default()
        };
        (o, (seed >> 2) as usize % 6)
    };
    let mut m = machine_for(pages_program(), build_code(gens), options);
    randomize_pages(&mut m, wv, seed);
    let fast = m.clone();
    let watch = seed & 2 != 0;
    lockstep(fast, m, wv, 3 * gens.len() + 8, watch).map_err(|e| {
        let isa = Isa::get();
        let names: Vec<&str> = gens
            .iter()
            .map(|(id, _)| isa.def(*id as InstrId).mnemonic())
            .collect();
        format!("{e}\n  program: {names:?}\n  state seed: {seed:#x}, wave {wv}, watch {watch}")
    })
}

proptest! {
    #![proptest_config(config(1000))]
    #[test]
    fn random_memory_streams_across_pages(case in streams(defs_where(|u, _| u == Unit::Lsu), 12)) {
        let (gens, seed) = case;
        if let Err(e) = run_pages_case(&gens, seed) {
            return Err(TestCaseError::fail(e));
        }
    }
}

/// The page patterns reach what they aim at: most loads, stores and atomics run (on the
/// unwatched paths too), and out-of-bounds, misaligned and out-of-window lanes fault.
#[test]
fn page_patterns_reach_every_edge() {
    let lsu = defs_where(|u, _| u == Unit::Lsu);
    let mut rng = Rng(0x9a6e_0001);
    let mut faults: BTreeMap<String, usize> = BTreeMap::new();
    let mut ok: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..400 {
        let n = 1 + rng.below(12) as usize;
        let gens: Vec<Gen> = (0..n)
            .map(|_| (rng.pick(&lsu), std::array::from_fn(|_| rng.next())))
            .collect();
        // Unwatched only: bit 1 clear.
        let seed = rng.next() & !2;
        let out = match run_pages_case(&gens, seed) {
            Ok(o) => o,
            Err(e) => panic!("{e}"),
        };
        for m in &out.ok {
            let family = format!("{:?}", semantics(m));
            let family = family
                .split([' ', '{', '('])
                .next()
                .unwrap_or("")
                .to_string();
            *ok.entry(family).or_default() += 1;
        }
        if let Some((kind, _)) = &out.fault {
            let name = format!("{kind:?}");
            let name = name.split([' ', '{', '(']).next().unwrap_or("").to_string();
            *faults.entry(name).or_default() += 1;
        }
    }
    eprintln!("ran {ok:?}, faults {faults:?}");
    for f in ["Load", "Store", "Atomic"] {
        assert!(ok.get(f).is_some_and(|n| *n >= 50), "{f}: {ok:?}");
    }
    for kind in ["Misaligned", "Unmapped", "OutOfWindow"] {
        assert!(faults.contains_key(kind), "no {kind} fault in {faults:?}");
    }
}

// ---------------------------------------------------------------------------------------
// Fixed adversarial cases, per operation family
// ---------------------------------------------------------------------------------------

/// EXEC masks: none, a partial mask with lane 31, lane 31 alone, all lanes.
const EXECS: [u32; 4] = [0, 0xA5A5_0F0F, 0x8000_0000, u32::MAX];

/// Per-lane values: INT_MIN (= -0.0), NaNs, infinities, denormals, shift amounts, ...
const EDGE: [u32; 16] = [
    0x8000_0000,
    0x7FC0_0000,
    0xFFC0_0000,
    0x7F80_0001,
    0x7F80_0000,
    0xFF80_0000,
    0x0000_0000,
    0x0000_0001,
    0xFFFF_FFFF,
    0x7FFF_FFFF,
    0x3F80_0000,
    0xBF80_0000,
    0x8000_0001,
    31,
    32,
    0x4F80_0000,
];

/// What the addresses of a fixed case look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    /// Distinct valid addresses per lane.
    Valid,
    /// Every lane the same valid address.
    SameAddress,
    /// Lane 5 off by one byte, lane 31 two bytes before the end of the memory (misaligned
    /// and, for wider accesses, also out of bounds), so that the fault's lane mask has two
    /// lanes and lane 31 alone shows which check comes first.
    Misaligned,
    /// Lane 31 (and lane 0) past the end: unmapped global memory, outside the window, a
    /// buffer access out of bounds (partly, and fully).
    OutOfBounds,
    /// A null descriptor (not valid), a negative window offset.
    NullOrNegative,
}

const VARIANTS: [Variant; 5] = [
    Variant::Valid,
    Variant::SameAddress,
    Variant::Misaligned,
    Variant::OutOfBounds,
    Variant::NullOrNegative,
];

/// Fixed operands by role: destinations v0 / u20, data sources v1 v2 v3, global address
/// v[32:33], offsets v48, ubase u[0:1], descriptor u[4:7], uniform index u8, other uniform
/// sources u16 u17; immediates and lanes from the variant.
fn fixed_instr(id: InstrId, variant: Variant, imm_pick: usize) -> Instr {
    let def = Isa::get().def(id);
    let op = semantics(def.mnemonic());
    let (mode, uld) = (vector_addressing(op), uniform_load_descriptor(op));
    let mut i = Instr::new(id);
    for o in &def.operands {
        let v: i64 = match (o.kind, o.slot) {
            (
                OperandKind::Reg {
                    file: RegFile::Vector,
                    count,
                },
                Slot::Rs1,
            ) => match mode {
                Some(Addressing::Global) => 32,
                Some(Addressing::Shared | Addressing::Scratch) => 48,
                Some(_) => 49,
                None if count == 2 => 6,
                None => 1,
            },
            (
                OperandKind::Reg {
                    file: RegFile::Vector,
                    ..
                },
                Slot::Rd,
            ) => 8,
            (
                OperandKind::Reg {
                    file: RegFile::Vector,
                    ..
                },
                Slot::Rs2,
            ) => 2,
            (
                OperandKind::Reg {
                    file: RegFile::Vector,
                    ..
                },
                Slot::Rs3,
            ) => 3,
            (
                OperandKind::Reg {
                    file: RegFile::Vector,
                    ..
                },
                _,
            ) => 4,
            (
                OperandKind::Reg {
                    file: RegFile::Uniform,
                    ..
                },
                slot,
            ) => match (mode, uld, slot) {
                (Some(Addressing::UniformBase), _, Slot::Rs2) => 0,
                (Some(_), _, Slot::Rs2) => 4,
                (_, Some(false), Slot::Rs1) => 0,
                (_, Some(true), Slot::Rs1) => 4,
                (_, Some(_), Slot::Rs2) => 8,
                (_, Some(_), Slot::Rd) => 32,
                (_, _, Slot::Rd) => 20,
                (_, _, Slot::Rs1) => 16,
                (_, _, Slot::Rs3) => 18,
                _ => 17,
            },
            (OperandKind::Imm(ImmKind::S24), _) => match variant {
                Variant::NullOrNegative => -32,
                _ => [0i64, -8, 8][imm_pick % 3],
            },
            (OperandKind::Imm(ImmKind::Ln7), _) => match variant {
                Variant::OutOfBounds => 32,
                Variant::NullOrNegative => 127,
                _ => 31,
            },
            (OperandKind::Imm(ImmKind::Rel14), _) => 2,
            (OperandKind::Imm(ImmKind::B32), _) => {
                [0x8000_0000i64, 0x7FC0_0000, 0x8000_0000, 31, -1][imm_pick % 5]
            }
            (OperandKind::Imm(ImmKind::S8), _) => [-1i64, 31, -128, 127, 1][imm_pick % 5],
            (OperandKind::Imm(ImmKind::U8), _) => [0x1Bi64, 255, 0, 31, 0xE4][imm_pick % 5],
            (OperandKind::Imm(ImmKind::U6), _) => [0i64, 1, 63][imm_pick % 3],
            (OperandKind::Imm(k), _) => k.range().1,
            (OperandKind::Cpol, _) => 0,
        };
        i.set(o.slot, v);
    }
    i
}

/// A fixed adversarial state for `variant` under `exec`.
fn adversarial_state(m: &mut Machine, exec: u32, variant: Variant) {
    let base = buf_base(m);
    let (base_lo, base_hi) = (base as u32, (base >> 32) as u32);
    let mut g = vec![0u8; BUF_SIZE as usize];
    for (k, w) in g.chunks_mut(4).enumerate() {
        w.copy_from_slice(&EDGE[(k * 7) % EDGE.len()].to_le_bytes());
    }
    m.global.write(base, &g).expect("mapped");
    let s: Vec<u8> = g[..SHARED].iter().rev().copied().collect();
    m.slots[0].shared.write(0, &s);
    let sc: Vec<u8> = (0..SCRATCH * LANES)
        .map(|k| g[k % g.len()] ^ 0x5A)
        .collect();
    m.waves[0].scratch.write(0, &sc);

    let w = &mut m.waves[0];
    w.exec = exec;
    for r in 0..32 {
        w.v[r] = std::array::from_fn(|l| EDGE[(l + 3 * r) % EDGE.len()]);
    }
    // Destination / data registers: recognisable, and full of edge values for atomics.
    for r in 8..12 {
        w.v[r] = std::array::from_fn(|l| EDGE[(l * 5 + r) % EDGE.len()]);
    }
    // Global addresses v[32:33] (offsets into `b`), buffer and ubase offsets v49, window
    // offsets v48.
    for l in 0..LANES {
        let (off, window) = match variant {
            Variant::Valid => (64 + 16 * l as u32, 16 + 8 * (l as u32 % 4)),
            Variant::SameAddress => (256, 16),
            Variant::Misaligned if l == 5 => (64 + 16 * l as u32 + 1, 16 + 1),
            // Misaligned for 4 bytes and more, and for wider accesses also past the end of
            // `b` / the scratch: which fault wins shows when lane 31 is alone.
            Variant::Misaligned if l == 31 => (BUF_SIZE as u32 - 2, SCRATCH as u32 - 2),
            Variant::Misaligned => (64 + 16 * l as u32, 16),
            // Straddles the end of `b` (and of the scratch) for wider accesses ...
            Variant::OutOfBounds if l == 31 => (BUF_SIZE as u32 - 4, SCRATCH as u32 - 4),
            // ... and lies past it.
            Variant::OutOfBounds if l == 0 => (BUF_SIZE as u32, SHARED as u32),
            Variant::OutOfBounds => (64 + 16 * l as u32, 16),
            // With imm -32: lane 31 goes below the window (and below the buffer).
            Variant::NullOrNegative if l == 31 => (64, 8),
            Variant::NullOrNegative => (64 + 16 * l as u32, 40),
        };
        w.v[32][l] = base_lo.wrapping_add(off);
        w.v[33][l] = base_hi;
        w.v[49][l] = match variant {
            Variant::NullOrNegative if l == 31 => 8,
            _ => off,
        };
        w.v[48][l] = window;
    }
    // Uniforms: sources u16..u18 edge values; uld index u8.
    w.u[16] = if variant == Variant::NullOrNegative {
        0
    } else {
        0x8000_0000
    };
    w.u[17] = match variant {
        Variant::Valid => 3,
        Variant::SameAddress => 31,
        Variant::Misaligned => 32,
        Variant::OutOfBounds => 0xFFFF_FFFF,
        Variant::NullOrNegative => 0,
    };
    w.u[18] = 0xA5A5_0F0F;
    w.u[8] = match variant {
        Variant::Valid | Variant::SameAddress => 8,
        Variant::Misaligned => 2,
        Variant::OutOfBounds => BUF_SIZE as u32 - 8,
        Variant::NullOrNegative => 0,
    };
    match variant {
        Variant::NullOrNegative => w.u[7] = 0,
        Variant::OutOfBounds => w.u[6] = BUF_SIZE as u32 - 8,
        Variant::Misaligned => {
            // Unaligned ubase and descriptor bases.
            w.u[0] = base_lo.wrapping_add(2);
            w.u[4] = base_lo.wrapping_add(2);
        }
        _ => {}
    }
    // The uld.* plain forms with u[0:1] pointing at unmapped memory in OutOfBounds.
    if variant == Variant::OutOfBounds {
        w.u[0] = base_lo.wrapping_add(BUF_SIZE as u32 - 8);
    }
    // Some outstanding operations for the waits.
    for (k, c) in Counter::ALL.into_iter().enumerate() {
        for j in 0..=k as u64 {
            w.issue(c, 0x400 + 8 * j, None);
        }
    }
}

/// Runs every definition selected by `keep` under every EXEC mask and variant, with the
/// first `picks` choices of each immediate; returns how the runs ended (fault kind names,
/// and "ok").
fn run_family(
    program: &Program,
    picks: usize,
    keep: impl Fn(Semantics) -> bool,
) -> BTreeMap<String, usize> {
    let isa = Isa::get();
    let end = Instr::new(isa.lookup("end").expect("end"));
    let mut outcomes = BTreeMap::new();
    let mut ran = 0;
    for (id, def) in isa.defs().iter().enumerate() {
        if !keep(semantics(def.mnemonic())) {
            continue;
        }
        ran += 1;
        for variant in VARIANTS {
            for imm_pick in 0..picks {
                let i = fixed_instr(id as InstrId, variant, imm_pick);
                let mut code = i.encode_words().expect("fixed operands encode");
                // A branch target two words on: pad so that it lands on `end`.
                code.extend(
                    Instr::new(isa.lookup("nop").expect("nop"))
                        .encode_words()
                        .expect("nop"),
                );
                code.extend(end.encode_words().expect("end"));
                let mut prepared = machine_for(program, code, LaunchOptions::default());
                adversarial_state(&mut prepared, 0, variant);
                // Watched (lanes one at a time, logged) and not (the unwatched fast paths).
                for (exec, watch) in EXECS.into_iter().flat_map(|e| [(e, true), (e, false)]) {
                    let mut m = prepared.clone();
                    m.waves[0].exec = exec;
                    let fast = m.clone();
                    let out = match lockstep(fast, m, 0, 4, watch) {
                        Ok(o) => o,
                        Err(e) => panic!(
                            "{} ({variant:?}, exec {exec:#010x}, watch {watch}): {e}",
                            i.text(0)
                        ),
                    };
                    let key = match &out.fault {
                        Some((k, _)) => {
                            let s = format!("{k:?}");
                            s.split([' ', '{', '(']).next().unwrap_or("").to_string()
                        }
                        None => "ok".to_string(),
                    };
                    *outcomes.entry(key).or_insert(0) += 1;
                }
            }
        }
    }
    assert!(ran > 0, "the family is empty");
    outcomes
}

fn expect_outcomes(outcomes: &BTreeMap<String, usize>, kinds: &[&str]) {
    for k in kinds {
        assert!(
            outcomes.get(*k).is_some_and(|n| *n > 0),
            "no `{k}` outcome among {outcomes:?}"
        );
    }
}

/// The reference's cross-lane operations (spec group 5).
fn is_cross_lane(s: Semantics) -> bool {
    matches!(
        s,
        Semantics::Shuffle(_)
            | Semantics::QuadSwizzle
            | Semantics::WriteLane
            | Semantics::ReadFirst
            | Semantics::ReadLane
            | Semantics::Derivative { .. }
            | Semantics::ScanAdd
            | Semantics::Ballot
            | Semantics::Vote(_)
            | Semantics::Reduce(_)
    )
}

/// The reference's uniform and vector ALU operations, EXEC updates and ids (base group).
fn is_base_alu(s: Semantics) -> bool {
    matches!(
        s,
        Semantics::UniformMove
            | Semantics::UniformAlu(_)
            | Semantics::UniformCompare(_)
            | Semantics::UniformAdd64
            | Semantics::Exec(_)
            | Semantics::Id(_)
            | Semantics::VectorMove
            | Semantics::VectorAlu(_)
            | Semantics::LaneId
            | Semantics::Convert { .. }
            | Semantics::VectorCompare(_)
            | Semantics::VectorAdd64
            | Semantics::VectorMove64
            | Semantics::MultiplyAdd
            | Semantics::FusedMultiplyAdd
            | Semantics::Select
    )
}

/// The reference's control operations and cache maintenance.
fn is_control(s: Semantics) -> bool {
    matches!(
        s,
        Semantics::End
            | Semantics::Nop
            | Semantics::Break
            | Semantics::Trap
            | Semantics::Barrier
            | Semantics::Wait(_)
            | Semantics::Branch(_)
            | Semantics::CacheInvalidate
            | Semantics::CacheWriteBack
    )
}

#[test]
fn family_loads_and_stores() {
    let o = run_family(base_program(), 3, |s| {
        matches!(s, Semantics::Load { .. } | Semantics::Store { .. })
    });
    expect_outcomes(&o, &["ok", "Misaligned", "Unmapped", "OutOfWindow"]);
}

#[test]
fn family_atomics() {
    let o = run_family(base_program(), 3, |s| matches!(s, Semantics::Atomic { .. }));
    expect_outcomes(&o, &["ok", "Misaligned", "Unmapped", "OutOfWindow"]);
}

#[test]
fn family_uniform_loads() {
    let o = run_family(base_program(), 3, |s| {
        matches!(s, Semantics::UniformLoad { .. })
    });
    expect_outcomes(&o, &["ok", "Misaligned", "Unmapped"]);
}

#[test]
fn family_cross_lane() {
    let o = run_family(base_program(), 3, is_cross_lane);
    expect_outcomes(&o, &["ok", "IllegalLane"]);
}

#[test]
fn family_base_alu() {
    let o = run_family(base_program(), 3, is_base_alu);
    expect_outcomes(&o, &["ok"]);
}

#[test]
fn family_control() {
    let o = run_family(base_program(), 3, is_control);
    expect_outcomes(&o, &["ok", "Trap"]);
}

/// Every memory instruction in a kernel without shared memory or scratch (every window
/// access is outside its 0-byte window) and with a 13-byte buffer behind u[0:1] and the
/// descriptor in u[4:7] (ends that are not word-aligned).
#[test]
fn family_memory_without_windows() {
    let o = run_family(bare_program(), 2, |s| {
        vector_addressing(s).is_some() || uniform_load_descriptor(s).is_some()
    });
    expect_outcomes(&o, &["ok", "OutOfWindow", "Unmapped", "Misaligned"]);
}

/// The reference knows every definition of the table, and each belongs to exactly one of
/// the families above.
#[test]
fn the_families_cover_every_definition() {
    for d in Isa::get().defs() {
        let s = semantics(d.mnemonic());
        let families = [
            matches!(s, Semantics::Load { .. } | Semantics::Store { .. }),
            matches!(s, Semantics::Atomic { .. }),
            matches!(s, Semantics::UniformLoad { .. }),
            is_cross_lane(s),
            is_base_alu(s),
            is_control(s),
        ];
        let n = families.iter().filter(|f| **f).count();
        assert_eq!(n, 1, "{} ({s:?}) is in {n} families", d.mnemonic());
    }
}

/// Lock-step on both execution paths: this process uses the SIMD path where the host has
/// the features; a child process re-runs every test of this file on the portable path
/// (`WAVEDBG_SIMD=0`), so both are checked against the reference in one `cargo test`.
#[test]
fn both_simd_and_portable_paths() {
    use wavedbg_emulator::exec::simd;
    if std::env::var_os("WAVEDBG_SIMD").is_some() {
        // The child: make sure the switch took.
        assert!(
            !simd::enabled(),
            "WAVEDBG_SIMD=0 must select the portable path"
        );
        return;
    }
    assert_eq!(simd::enabled(), simd::host_has_simd());
    let exe = std::env::current_exe().expect("test binary");
    let out = std::process::Command::new(exe)
        .env("WAVEDBG_SIMD", "0")
        .args(["lockstep::", "--test-threads", "2"])
        .output()
        .expect("re-run the lock-step tests");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "lock-step on the portable path failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("both_simd_and_portable_paths ... ok"),
        "{text}"
    );
}
