//! Parity of our shared-memory and buffer instructions with two AMD references
//! (docs/amd-parity.md):
//!
//! - `ref-gcn-ds-instructions.txt`: GCN LDS/GDS `DS_*` instructions (pseudo-code for the
//!   32-bit non-returning atomics and `DS_WRITE_B32`; the rest is only listed). Where that
//!   text lists an instruction without pseudo-code, the model below follows the fuller
//!   version of the same page (CLRX `doc/GcnInstrsDs.md`), and says so.
//! - `ref-amd-buffer-atomic-max-i32.txt`: `buffer_atomic_max_i32` (prose only).
//!
//! Every parity test runs one instruction in the emulator on a small kernel and compares
//! memory and registers with an independent model of the AMD pseudo-code run on the same
//! inputs. Tests of differences assert our documented behaviour (docs/memory.md).

use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::fault::FaultKind;
use wavedbg_emulator::isa::Isa;
use wavedbg_emulator::machine::{Event, LaunchOptions, Machine};
use wavedbg_emulator::memory::Space;

/// Shared bytes of the test kernels.
const SHARED_BYTES: usize = 1024;
/// Size of the test buffer `b` (its descriptor is preloaded into `u[4:7]`).
const BUF_BYTES: usize = 256;
/// The DS `OFFSET` field of the AMD side, and the `imm` of ours.
const OFFSET: u16 = 16;
const LANES: usize = 32;

/// A one-instruction kernel with shared memory and a buffer `b` described in `u[4:7]`.
fn machine(instr: &str) -> Machine {
    machine_with(instr, SHARED_BYTES)
}

fn machine_with(instr: &str, shared: usize) -> Machine {
    let src = format!(
        ".shared {shared}\n.buffer b, {BUF_BYTES}\n.arg u[4:7], desc b\n    {instr}\n    end\n"
    );
    let p = assemble(&src, "amd_parity.s", None).unwrap_or_else(|e| panic!("{instr}: {e}"));
    Machine::new(&p, LaunchOptions::default()).expect("launch")
}

fn exec_mask(lanes: usize) -> u32 {
    if lanes >= 32 {
        u32::MAX
    } else {
        (1u32 << lanes) - 1
    }
}

/// A recognisable byte pattern, so a stray write anywhere shows up.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 37 + 0x5b) as u8).collect()
}

/// Edge values for 32-bit operands: 0, the wrap points of inc/dec around small limits
/// and at the top of the range, and both sides of the sign boundary.
const EDGES32: [u32; 12] = [
    0,
    1,
    2,
    6,
    7,
    8,
    0x7fff_fffe,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_fffe,
    0xffff_ffff,
];

/// Edge values for 64-bit operands.
const EDGES64: [u64; 11] = [
    0,
    1,
    7,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1_0000_0000,
    i64::MAX as u64,
    i64::MIN as u64,
    u64::MAX - 1,
    u64::MAX,
];

/// Every (memory, data0) pair of the edge values; data1 (for compare-store) is derived
/// from them so that it differs from both.
fn cases32() -> Vec<[u32; 3]> {
    let mut out = Vec::new();
    for &old in &EDGES32 {
        for &d0 in &EDGES32 {
            out.push([old, d0, old.rotate_left(7) ^ d0 ^ 0xa5a5_5a5a]);
        }
    }
    out
}

fn cases64() -> Vec<[u64; 3]> {
    let mut out = Vec::new();
    for &old in &EDGES64 {
        for &d0 in &EDGES64 {
            out.push([old, d0, old.rotate_left(13) ^ d0 ^ 0xa5a5_5a5a_0f0f_f0f0]);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// The AMD side: an LDS byte array and the DS pseudo-code, written from the reference texts.
// ---------------------------------------------------------------------------------------

/// LDS as the DS pseudo-code sees it: `DS` is its base, `*V` a little-endian value in it.
#[derive(Debug, Clone, PartialEq)]
struct Lds(Vec<u8>);

impl Lds {
    fn load(&self, a: u32, n: usize) -> u64 {
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(&self.0[a as usize..a as usize + n]);
        u64::from_le_bytes(b)
    }

    fn store(&mut self, a: u32, n: usize, v: u64) {
        self.0[a as usize..a as usize + n].copy_from_slice(&v.to_le_bytes()[..n]);
    }
}

/// `(ADDR+OFFSET) & ~3` (32-bit forms), `& ~7` (64-bit forms), `& ~1` (16-bit forms),
/// unmasked (8-bit forms).
fn ds_addr(addr: u32, offset: u16, bytes: usize) -> u32 {
    let sum = addr.wrapping_add(offset as u32);
    match bytes {
        1 => sum,
        2 => sum & !1,
        4 => sum & !3,
        _ => sum & !7,
    }
}

/// One 32-bit DS atomic on `(ADDR+OFFSET) & ~3`: `VDST = *V; *V = op(*V, VDATA0, VDATA1)`.
/// Returns VDST (what the `_RTN_` form writes).
fn ds_atomic32(lds: &mut Lds, addr: u32, offset: u16, vdata: [u32; 2], op: Op32) -> u32 {
    let a = ds_addr(addr, offset, 4);
    let v = lds.load(a, 4) as u32;
    lds.store(a, 4, op(v, vdata[0], vdata[1]) as u64);
    v
}

fn ds_atomic64(lds: &mut Lds, addr: u32, offset: u16, vdata: [u64; 2], op: Op64) -> u64 {
    let a = ds_addr(addr, offset, 8);
    let v = lds.load(a, 8);
    lds.store(a, 8, op(v, vdata[0], vdata[1]));
    v
}

/// `*V = f(*V, VDATA0, VDATA1)`.
type Op32 = fn(u32, u32, u32) -> u32;
type Op64 = fn(u64, u64, u64) -> u64;

/// The right-hand sides of the DS pseudo-code. 32-bit forms are quoted from
/// ref-gcn-ds-instructions.txt; `cmpst`, `wrxchg` and the 64-bit forms are listed there
/// without pseudo-code and follow the upstream page.
mod gcn {
    /// DS_ADD_U32: `*V = *V + VDATA0`
    pub fn add_u32(v: u32, vdata0: u32, _: u32) -> u32 {
        v.wrapping_add(vdata0)
    }
    /// DS_SUB_U32: `*V = *V - VDATA0`
    pub fn sub_u32(v: u32, vdata0: u32, _: u32) -> u32 {
        v.wrapping_sub(vdata0)
    }
    /// DS_INC_U32: `*V = (VDATA0 > *V) ? *V+1 : 0`
    pub fn inc_u32(v: u32, vdata0: u32, _: u32) -> u32 {
        if vdata0 > v {
            v.wrapping_add(1)
        } else {
            0
        }
    }
    /// DS_DEC_U32: `*V = (VDATA0 >= *V && *V!=0) ? *V-1 : VDATA0` (the pseudo-code; the
    /// reference's prose, "is zero, then increment", contradicts it and is not followed).
    pub fn dec_u32(v: u32, vdata0: u32, _: u32) -> u32 {
        if vdata0 >= v && v != 0 {
            v - 1
        } else {
            vdata0
        }
    }
    /// DS_MIN_I32: `INT32* V; *V = MIN(*V, (INT32)VDATA0)`
    pub fn min_i32(v: u32, vdata0: u32, _: u32) -> u32 {
        std::cmp::min(v as i32, vdata0 as i32) as u32
    }
    /// DS_MAX_I32: `INT32* V; *V = MAX(*V, (INT32)VDATA0)`
    pub fn max_i32(v: u32, vdata0: u32, _: u32) -> u32 {
        std::cmp::max(v as i32, vdata0 as i32) as u32
    }
    /// DS_MIN_U32: `UINT32* V; *V = MIN(*V, VDATA0)`
    pub fn min_u32(v: u32, vdata0: u32, _: u32) -> u32 {
        std::cmp::min(v, vdata0)
    }
    /// DS_MAX_U32: `UINT32* V; *V = MAX(*V, VDATA0)`
    pub fn max_u32(v: u32, vdata0: u32, _: u32) -> u32 {
        std::cmp::max(v, vdata0)
    }
    /// DS_AND_B32: `*V = *V & VDATA0`
    pub fn and_b32(v: u32, vdata0: u32, _: u32) -> u32 {
        v & vdata0
    }
    /// DS_OR_B32: `*V = *V | VDATA0`
    pub fn or_b32(v: u32, vdata0: u32, _: u32) -> u32 {
        v | vdata0
    }
    /// DS_XOR_B32: `*V = *V ^ VDATA0`
    pub fn xor_b32(v: u32, vdata0: u32, _: u32) -> u32 {
        v ^ vdata0
    }
    /// DS_CMPST_B32 (upstream): `*V = (*V==VDATA0) ? VDATA1 : *V`
    pub fn cmpst_b32(v: u32, vdata0: u32, vdata1: u32) -> u32 {
        if v == vdata0 {
            vdata1
        } else {
            v
        }
    }
    /// DS_WRXCHG_RTN_B32 (upstream): `VDST = *V; *V = VDATA0`
    pub fn wrxchg_b32(_: u32, vdata0: u32, _: u32) -> u32 {
        vdata0
    }

    /// DS_ADD_U64 (upstream): `*V = *V + VDATA0`
    pub fn add_u64(v: u64, vdata0: u64, _: u64) -> u64 {
        v.wrapping_add(vdata0)
    }
    /// DS_AND_B64 (upstream): `*V = *V & VDATA0`
    pub fn and_b64(v: u64, vdata0: u64, _: u64) -> u64 {
        v & vdata0
    }
    /// DS_OR_B64 (upstream): `*V = *V | VDATA0`
    pub fn or_b64(v: u64, vdata0: u64, _: u64) -> u64 {
        v | vdata0
    }
    /// DS_XOR_B64 (upstream): `*V = *V ^ VDATA0`
    pub fn xor_b64(v: u64, vdata0: u64, _: u64) -> u64 {
        v ^ vdata0
    }
    /// DS_MIN_I64 (upstream): `INT64* V; *V = MIN(*V, (INT64)VDATA0)`
    pub fn min_i64(v: u64, vdata0: u64, _: u64) -> u64 {
        std::cmp::min(v as i64, vdata0 as i64) as u64
    }
    /// DS_MAX_I64 (upstream): `INT64* V; *V = MAX(*V, (INT64)VDATA0)`
    pub fn max_i64(v: u64, vdata0: u64, _: u64) -> u64 {
        std::cmp::max(v as i64, vdata0 as i64) as u64
    }
    /// DS_MIN_U64 (upstream): `*V = MIN(*V, VDATA0)`
    pub fn min_u64(v: u64, vdata0: u64, _: u64) -> u64 {
        std::cmp::min(v, vdata0)
    }
    /// DS_MAX_U64 (upstream): `*V = MAX(*V, VDATA0)`
    pub fn max_u64(v: u64, vdata0: u64, _: u64) -> u64 {
        std::cmp::max(v, vdata0)
    }
    /// DS_CMPST_B64 (upstream): `*V = (*V==VDATA0) ? VDATA1 : *V`
    pub fn cmpst_b64(v: u64, vdata0: u64, vdata1: u64) -> u64 {
        if v == vdata0 {
            vdata1
        } else {
            v
        }
    }
    /// DS_WRXCHG_RTN_B64 (upstream): `VDST = *V; *V = VDATA0`
    pub fn wrxchg_b64(_: u64, vdata0: u64, _: u64) -> u64 {
        vdata0
    }

    /// DS_MIN_F32 (upstream): `FLOAT* V; *V = MIN(*V, ASFLOAT(VDATA0))`, for operands
    /// where MIN is unambiguous (no NaN, no -0/+0 pair).
    pub fn min_f32(v: u32, vdata0: u32, _: u32) -> u32 {
        let (a, b) = (f32::from_bits(v), f32::from_bits(vdata0));
        if b < a {
            vdata0
        } else {
            v
        }
    }
    /// DS_MAX_F32 (upstream): `FLOAT* V; *V = MAX(*V, ASFLOAT(VDATA0))`, same domain.
    pub fn max_f32(v: u32, vdata0: u32, _: u32) -> u32 {
        let (a, b) = (f32::from_bits(v), f32::from_bits(vdata0));
        if b > a {
            vdata0
        } else {
            v
        }
    }
    /// DS_CMPST_F32 (upstream): `*V = (*V==ASFLOAT(VDATA0)) ? ASFLOAT(VDATA1) : *V`, a
    /// floating-point comparison.
    pub fn cmpst_f32(v: u32, vdata0: u32, vdata1: u32) -> u32 {
        if f32::from_bits(v) == f32::from_bits(vdata0) {
            vdata1
        } else {
            v
        }
    }
}

// ---------------------------------------------------------------------------------------
// Harnesses
// ---------------------------------------------------------------------------------------

/// Runs `ours` (e.g. `atom.shared.inc.u32`) on every 32-bit edge case, one case per lane
/// (lane `l` addresses `ADDR = 4*l`, `OFFSET`), and compares LDS and `v2`/`v3` with the
/// DS model. Our data registers: `v2` (data0, and the destination of `.rtn`), `v3` (data1).
fn parity_shared32(ours: &str, rtn: bool, op: Op32) {
    parity_shared32_cases(ours, rtn, op, &cases32());
}

fn parity_shared32_cases(ours: &str, rtn: bool, op: Op32, cases: &[[u32; 3]]) {
    for chunk in cases.chunks(LANES) {
        let mut m = machine(&format!("{ours} v2, v0, {OFFSET}"));
        let mut lds = Lds(pattern(SHARED_BYTES));
        let w = &mut m.waves[0];
        w.exec = exec_mask(chunk.len());
        for (lane, c) in chunk.iter().enumerate() {
            let addr = 4 * lane as u32;
            w.v[0][lane] = addr;
            w.v[2][lane] = c[1];
            w.v[3][lane] = c[2];
            lds.store(ds_addr(addr, OFFSET, 4), 4, c[0] as u64);
        }
        let (v2_before, v3_before) = (w.v[2], w.v[3]);
        m.slots[0].shared.write(0, &lds.0);

        // AMD: every active lane, VDST = *V; *V = op(...).
        let mut vdst = v2_before;
        for (lane, c) in chunk.iter().enumerate() {
            vdst[lane] = ds_atomic32(&mut lds, 4 * lane as u32, OFFSET, [c[1], c[2]], op);
        }

        assert_eq!(m.step_wave(0), None, "{ours} must not fault");
        let got = Lds(m.slots[0].shared.to_vec());
        for (lane, c) in chunk.iter().enumerate() {
            let a = ds_addr(4 * lane as u32, OFFSET, 4);
            assert_eq!(
                got.load(a, 4),
                lds.load(a, 4),
                "{ours}: memory for old={:#x} data0={:#x} data1={:#x}",
                c[0],
                c[1],
                c[2]
            );
            let want = if rtn { vdst[lane] } else { v2_before[lane] };
            assert_eq!(
                m.waves[0].v[2][lane], want,
                "{ours}: v2 for old={:#x} data0={:#x}",
                c[0], c[1]
            );
        }
        assert_eq!(got, lds, "{ours}: LDS elsewhere untouched");
        assert_eq!(m.waves[0].v[3], v3_before, "{ours}: data1 is not written");
    }
}

/// As [`parity_shared32`] for 64-bit forms: `ADDR = 8*l`, data0 in `v[2:3]` (and the
/// destination of `.rtn`), data1 in `v[4:5]`.
fn parity_shared64(ours: &str, rtn: bool, op: Op64) {
    for chunk in cases64().chunks(LANES) {
        let mut m = machine(&format!("{ours} v2, v0, {OFFSET}"));
        let mut lds = Lds(pattern(SHARED_BYTES));
        let w = &mut m.waves[0];
        w.exec = exec_mask(chunk.len());
        for (lane, c) in chunk.iter().enumerate() {
            let addr = 8 * lane as u32;
            w.v[0][lane] = addr;
            w.v[2][lane] = c[1] as u32;
            w.v[3][lane] = (c[1] >> 32) as u32;
            w.v[4][lane] = c[2] as u32;
            w.v[5][lane] = (c[2] >> 32) as u32;
            lds.store(ds_addr(addr, OFFSET, 8), 8, c[0]);
        }
        let before: Vec<[u32; LANES]> = (2..6).map(|r| w.v[r]).collect();
        m.slots[0].shared.write(0, &lds.0);

        let mut vdst = [0u64; LANES];
        for (lane, c) in chunk.iter().enumerate() {
            vdst[lane] = ds_atomic64(&mut lds, 8 * lane as u32, OFFSET, [c[1], c[2]], op);
        }

        assert_eq!(m.step_wave(0), None, "{ours} must not fault");
        let got = Lds(m.slots[0].shared.to_vec());
        let v = &m.waves[0].v;
        for (lane, c) in chunk.iter().enumerate() {
            let a = ds_addr(8 * lane as u32, OFFSET, 8);
            assert_eq!(
                got.load(a, 8),
                lds.load(a, 8),
                "{ours}: memory for old={:#x} data0={:#x} data1={:#x}",
                c[0],
                c[1],
                c[2]
            );
            let want = if rtn {
                vdst[lane]
            } else {
                before[0][lane] as u64 | (before[1][lane] as u64) << 32
            };
            let have = v[2][lane] as u64 | (v[3][lane] as u64) << 32;
            assert_eq!(
                have, want,
                "{ours}: v[2:3] for old={:#x} data0={:#x}",
                c[0], c[1]
            );
        }
        assert_eq!(got, lds, "{ours}: LDS elsewhere untouched");
        assert_eq!([v[4], v[5]], before[2..4], "{ours}: data1 is not written");
    }
}

macro_rules! shared32 {
    ($($name:ident: $ours:literal, $rtn:literal, $op:path;)*) => {$(
        #[test]
        fn $name() {
            parity_shared32($ours, $rtn, $op);
        }
    )*};
}

macro_rules! shared64 {
    ($($name:ident: $ours:literal, $rtn:literal, $op:path;)*) => {$(
        #[test]
        fn $name() {
            parity_shared64($ours, $rtn, $op);
        }
    )*};
}

// ---------------------------------------------------------------------------------------
// GCN DS: matching pairs
// ---------------------------------------------------------------------------------------

// 32-bit atomics with pseudo-code in ref-gcn-ds-instructions.txt.
shared32! {
    ds_add_u32_matches_atom_shared_add_u32: "atom.shared.add.u32", false, gcn::add_u32;
    ds_sub_u32_matches_atom_shared_sub_u32: "atom.shared.sub.u32", false, gcn::sub_u32;
    ds_inc_u32_matches_atom_shared_inc_u32: "atom.shared.inc.u32", false, gcn::inc_u32;
    ds_dec_u32_matches_atom_shared_dec_u32: "atom.shared.dec.u32", false, gcn::dec_u32;
    ds_min_i32_matches_atom_shared_min_i32: "atom.shared.min.i32", false, gcn::min_i32;
    ds_max_i32_matches_atom_shared_max_i32: "atom.shared.max.i32", false, gcn::max_i32;
    ds_min_u32_matches_atom_shared_min_u32: "atom.shared.min.u32", false, gcn::min_u32;
    ds_max_u32_matches_atom_shared_max_u32: "atom.shared.max.u32", false, gcn::max_u32;
    ds_and_b32_matches_atom_shared_and_b32: "atom.shared.and.b32", false, gcn::and_b32;
    ds_or_b32_matches_atom_shared_or_b32: "atom.shared.or.b32", false, gcn::or_b32;
    ds_xor_b32_matches_atom_shared_xor_b32: "atom.shared.xor.b32", false, gcn::xor_b32;
}

// Returning forms (listed in the reference's opcode table; `VDST = *V` before the update).
shared32! {
    ds_add_rtn_u32_matches_atom_shared_add_u32_rtn: "atom.shared.add.u32.rtn", true, gcn::add_u32;
    ds_sub_rtn_u32_matches_atom_shared_sub_u32_rtn: "atom.shared.sub.u32.rtn", true, gcn::sub_u32;
    ds_inc_rtn_u32_matches_atom_shared_inc_u32_rtn: "atom.shared.inc.u32.rtn", true, gcn::inc_u32;
    ds_dec_rtn_u32_matches_atom_shared_dec_u32_rtn: "atom.shared.dec.u32.rtn", true, gcn::dec_u32;
    ds_min_rtn_i32_matches_atom_shared_min_i32_rtn: "atom.shared.min.i32.rtn", true, gcn::min_i32;
    ds_max_rtn_i32_matches_atom_shared_max_i32_rtn: "atom.shared.max.i32.rtn", true, gcn::max_i32;
    ds_min_rtn_u32_matches_atom_shared_min_u32_rtn: "atom.shared.min.u32.rtn", true, gcn::min_u32;
    ds_max_rtn_u32_matches_atom_shared_max_u32_rtn: "atom.shared.max.u32.rtn", true, gcn::max_u32;
    ds_and_rtn_b32_matches_atom_shared_and_b32_rtn: "atom.shared.and.b32.rtn", true, gcn::and_b32;
    ds_or_rtn_b32_matches_atom_shared_or_b32_rtn: "atom.shared.or.b32.rtn", true, gcn::or_b32;
    ds_xor_rtn_b32_matches_atom_shared_xor_b32_rtn: "atom.shared.xor.b32.rtn", true, gcn::xor_b32;
}

// Compare-store and exchange: VDATA0 is the compare value and VDATA1 the new value, the
// same order as our data0 (v[d]) / data1 (v[d+1]).
shared32! {
    ds_cmpst_b32_matches_atom_shared_cmpxchg_b32: "atom.shared.cmpxchg.b32", false, gcn::cmpst_b32;
    ds_cmpst_rtn_b32_matches_atom_shared_cmpxchg_b32_rtn: "atom.shared.cmpxchg.b32.rtn", true, gcn::cmpst_b32;
    ds_wrxchg_rtn_b32_matches_atom_shared_xchg_b32_rtn: "atom.shared.xchg.b32.rtn", true, gcn::wrxchg_b32;
}

// 64-bit atomics (listed in the reference; pseudo-code from the upstream page).
shared64! {
    ds_add_u64_matches_atom_shared_add_u64: "atom.shared.add.u64", false, gcn::add_u64;
    ds_and_b64_matches_atom_shared_and_b64: "atom.shared.and.b64", false, gcn::and_b64;
    ds_or_b64_matches_atom_shared_or_b64: "atom.shared.or.b64", false, gcn::or_b64;
    ds_xor_b64_matches_atom_shared_xor_b64: "atom.shared.xor.b64", false, gcn::xor_b64;
    ds_min_i64_matches_atom_shared_min_i64: "atom.shared.min.i64", false, gcn::min_i64;
    ds_max_i64_matches_atom_shared_max_i64: "atom.shared.max.i64", false, gcn::max_i64;
    ds_min_u64_matches_atom_shared_min_u64: "atom.shared.min.u64", false, gcn::min_u64;
    ds_max_u64_matches_atom_shared_max_u64: "atom.shared.max.u64", false, gcn::max_u64;
    ds_cmpst_b64_matches_atom_shared_cmpxchg_b64: "atom.shared.cmpxchg.b64", false, gcn::cmpst_b64;
    ds_add_rtn_u64_matches_atom_shared_add_u64_rtn: "atom.shared.add.u64.rtn", true, gcn::add_u64;
    ds_and_rtn_b64_matches_atom_shared_and_b64_rtn: "atom.shared.and.b64.rtn", true, gcn::and_b64;
    ds_or_rtn_b64_matches_atom_shared_or_b64_rtn: "atom.shared.or.b64.rtn", true, gcn::or_b64;
    ds_xor_rtn_b64_matches_atom_shared_xor_b64_rtn: "atom.shared.xor.b64.rtn", true, gcn::xor_b64;
    ds_min_rtn_i64_matches_atom_shared_min_i64_rtn: "atom.shared.min.i64.rtn", true, gcn::min_i64;
    ds_max_rtn_i64_matches_atom_shared_max_i64_rtn: "atom.shared.max.i64.rtn", true, gcn::max_i64;
    ds_min_rtn_u64_matches_atom_shared_min_u64_rtn: "atom.shared.min.u64.rtn", true, gcn::min_u64;
    ds_max_rtn_u64_matches_atom_shared_max_u64_rtn: "atom.shared.max.u64.rtn", true, gcn::max_u64;
    ds_cmpst_rtn_b64_matches_atom_shared_cmpxchg_b64_rtn: "atom.shared.cmpxchg.b64.rtn", true, gcn::cmpst_b64;
    ds_wrxchg_rtn_b64_matches_atom_shared_xchg_b64_rtn: "atom.shared.xchg.b64.rtn", true, gcn::wrxchg_b64;
}

/// Ordered f32 operands: no NaN and no -0, where every MIN/MAX definition agrees.
fn ordered_f32_cases() -> Vec<[u32; 3]> {
    let vals = [
        f32::NEG_INFINITY,
        f32::MIN,
        -1.5,
        -1e-40, // denormal
        0.0,
        1e-40,
        1.0,
        1.5,
        f32::MAX,
        f32::INFINITY,
    ];
    let mut out = Vec::new();
    for &a in &vals {
        for &b in &vals {
            out.push([a.to_bits(), b.to_bits(), 0]);
        }
    }
    out
}

#[test]
fn ds_min_f32_matches_atom_shared_fmin_f32_on_ordered_operands() {
    parity_shared32_cases(
        "atom.shared.fmin.f32",
        false,
        gcn::min_f32,
        &ordered_f32_cases(),
    );
    parity_shared32_cases(
        "atom.shared.fmin.f32.rtn",
        true,
        gcn::min_f32,
        &ordered_f32_cases(),
    );
}

#[test]
fn ds_max_f32_matches_atom_shared_fmax_f32_on_ordered_operands() {
    parity_shared32_cases(
        "atom.shared.fmax.f32",
        false,
        gcn::max_f32,
        &ordered_f32_cases(),
    );
    parity_shared32_cases(
        "atom.shared.fmax.f32.rtn",
        true,
        gcn::max_f32,
        &ordered_f32_cases(),
    );
}

/// Runs a load and compares `v2` (and `v3`) with `VDST = model(ADDR)`.
fn parity_shared_load(ours: &str, stride: u32, dwords: usize, model: fn(&Lds, u32) -> u64) {
    let mut m = machine(&format!("{ours} v2, v0, {OFFSET}"));
    let lds = Lds(pattern(SHARED_BYTES));
    m.slots[0].shared.write(0, &lds.0);
    for lane in 0..LANES {
        m.waves[0].v[0][lane] = stride * lane as u32;
    }
    assert_eq!(m.step_wave(0), None, "{ours} must not fault");
    for lane in 0..LANES {
        let want = model(&lds, stride * lane as u32);
        for k in 0..dwords {
            assert_eq!(
                m.waves[0].v[2 + k][lane],
                (want >> (32 * k)) as u32,
                "{ours}: lane {lane} dword {k}"
            );
        }
    }
}

#[test]
fn ds_read_b32_matches_ld_shared_b32() {
    // VDST = *(UINT32*)(DS + (ADDR+OFFSET)&~3)
    parity_shared_load("ld.shared.b32", 4, 1, |ds, a| {
        ds.load(ds_addr(a, OFFSET, 4), 4)
    });
}

#[test]
fn ds_read_u8_matches_ld_shared_u8() {
    // VDST = *(UINT8*)(DS + (ADDR+OFFSET))
    parity_shared_load("ld.shared.u8", 3, 1, |ds, a| {
        ds.load(ds_addr(a, OFFSET, 1), 1)
    });
}

#[test]
fn ds_read_i8_matches_ld_shared_i8() {
    // VDST = (INT32)*(INT8*)(DS + (ADDR+OFFSET))
    parity_shared_load("ld.shared.i8", 3, 1, |ds, a| {
        ds.load(ds_addr(a, OFFSET, 1), 1) as u8 as i8 as i32 as u32 as u64
    });
}

#[test]
fn ds_read_u16_matches_ld_shared_u16() {
    // VDST = *(UINT16*)(DS + (ADDR+OFFSET)&~1)
    parity_shared_load("ld.shared.u16", 6, 1, |ds, a| {
        ds.load(ds_addr(a, OFFSET, 2), 2)
    });
}

#[test]
fn ds_read_i16_matches_ld_shared_i16() {
    // VDST = (INT32)*(INT16*)(DS + (ADDR+OFFSET)&~1)
    parity_shared_load("ld.shared.i16", 6, 1, |ds, a| {
        ds.load(ds_addr(a, OFFSET, 2), 2) as u16 as i16 as i32 as u32 as u64
    });
}

#[test]
fn ds_read_b64_matches_ld_shared_b64_when_8_aligned() {
    // VDST = *(UINT64*)(DS + (ADDR+OFFSET)&~7)
    parity_shared_load("ld.shared.b64", 8, 2, |ds, a| {
        ds.load(ds_addr(a, OFFSET, 8), 8)
    });
}

/// Runs a store of `bytes` bytes and compares LDS with `*V = VDATA0 & mask`.
fn parity_shared_store(ours: &str, bytes: usize, stride: u32) {
    let mut m = machine(&format!("{ours} v2, v0, {OFFSET}"));
    let mut lds = Lds(pattern(SHARED_BYTES));
    m.slots[0].shared.write(0, &lds.0);
    let data = |lane: usize| 0x8000_0000_dead_beef_u64 ^ (lane as u64 * 0x0101_0101_0101_0101);
    for lane in 0..LANES {
        let w = &mut m.waves[0];
        w.v[0][lane] = stride * lane as u32;
        w.v[2][lane] = data(lane) as u32;
        w.v[3][lane] = (data(lane) >> 32) as u32;
        // *V = VDATA0 (& 0xff, & 0xffff for the narrow forms): the low `bytes` bytes.
        lds.store(
            ds_addr(stride * lane as u32, OFFSET, bytes),
            bytes,
            data(lane),
        );
    }
    assert_eq!(m.step_wave(0), None, "{ours} must not fault");
    assert_eq!(Lds(m.slots[0].shared.to_vec()), lds, "{ours}: LDS");
}

#[test]
fn ds_write_b32_matches_st_shared_b32() {
    parity_shared_store("st.shared.b32", 4, 4);
}

#[test]
fn ds_write_b8_matches_st_shared_b8() {
    parity_shared_store("st.shared.b8", 1, 3);
}

#[test]
fn ds_write_b16_matches_st_shared_b16() {
    parity_shared_store("st.shared.b16", 2, 6);
}

#[test]
fn ds_write_b64_matches_st_shared_b64_when_8_aligned() {
    parity_shared_store("st.shared.b64", 8, 8);
}

// ---------------------------------------------------------------------------------------
// GCN DS: observable differences (our documented behaviour)
// ---------------------------------------------------------------------------------------

fn fault_of(e: Option<Event>) -> wavedbg_emulator::fault::Fault {
    match e {
        Some(Event::Fault(f)) => f,
        other => panic!("expected a fault, got {other:?}"),
    }
}

/// DS masks a misaligned address (`& ~3`) and goes on; we fault with `Misaligned`, naming
/// the lane, and change nothing (not even the aligned lanes).
#[test]
fn ds_add_u32_masks_misaligned_address_atom_shared_add_u32_faults() {
    let mut m = machine(&format!("atom.shared.add.u32.rtn v2, v0, {OFFSET}"));
    let lds = Lds(pattern(SHARED_BYTES));
    m.slots[0].shared.write(0, &lds.0);
    m.waves[0].exec = 0b11;
    m.waves[0].v[0][0] = 0; // aligned
    m.waves[0].v[0][1] = 6; // (6 + 16) & ~3 = 20 for DS
    m.waves[0].v[2][0] = 1;
    m.waves[0].v[2][1] = 1;
    let before = m.waves[0].v[2];

    // AMD: both lanes add, lane 1 at the masked address 20.
    let mut amd = lds.clone();
    ds_atomic32(&mut amd, 0, OFFSET, [1, 0], gcn::add_u32);
    ds_atomic32(&mut amd, 6, OFFSET, [1, 0], gcn::add_u32);
    assert_ne!(amd, lds, "the DS model does write");

    let f = fault_of(m.step_wave(0));
    assert_eq!(
        f.kind,
        FaultKind::Misaligned {
            space: Space::Shared,
            align: 4
        }
    );
    assert_eq!(f.lanes, 0b10);
    assert_eq!(f.addr, Some(22));
    assert_eq!(Lds(m.slots[0].shared.to_vec()), lds, "nothing written");
    assert_eq!(m.waves[0].v[2], before, "no register written");
}

/// The same rule for the other DS masks: `& ~3` (b32 loads, stores, atomics), `& ~7`
/// (64-bit atomics, upstream page), `& ~1` (16-bit, upstream page). We fault on all.
#[test]
fn ds_masked_addresses_vs_shared_misaligned_faults() {
    for (ours, addr, align) in [
        ("ld.shared.b32 v2, v0, 0", 2, 4),
        ("st.shared.b32 v2, v0, 0", 1, 4),
        ("atom.shared.inc.u32 v2, v0, 0", 3, 4),
        ("atom.shared.cmpxchg.b32.rtn v2, v0, 0", 2, 4),
        ("atom.shared.add.u64 v2, v0, 0", 4, 8),
        ("atom.shared.cmpxchg.b64.rtn v2, v0, 0", 12, 8),
        ("ld.shared.u16 v2, v0, 0", 1, 2),
        ("ld.shared.i16 v2, v0, 0", 3, 2),
        ("st.shared.b16 v2, v0, 0", 5, 2),
        ("ld.shared.b64 v2, v0, 0", 2, 4),
        ("st.shared.b128 v2, v0, 0", 6, 4),
    ] {
        let mut m = machine(ours);
        let lds = pattern(SHARED_BYTES);
        m.slots[0].shared.write(0, &lds);
        m.waves[0].exec = 1;
        m.waves[0].v[0][0] = addr;
        let f = fault_of(m.step_wave(0));
        assert_eq!(
            f.kind,
            FaultKind::Misaligned {
                space: Space::Shared,
                align
            },
            "{ours}"
        );
        assert_eq!(m.slots[0].shared.to_vec(), lds, "{ours}: nothing written");
    }
}

/// DS_WRITE_B64 / DS_READ_B64 mask with `& ~7` (upstream page); our 64-bit loads and
/// stores need only 4-byte alignment, so at 4 mod 8 we access bytes [4, 12) where DS
/// would access [0, 8).
#[test]
fn ds_write_b64_masks_to_8_st_shared_b64_at_4_mod_8_does_not() {
    let mut m = machine("st.shared.b64 v2, v0, 0");
    let lds = Lds(pattern(SHARED_BYTES));
    m.slots[0].shared.write(0, &lds.0);
    m.waves[0].exec = 1;
    m.waves[0].v[0][0] = 4;
    m.waves[0].v[2][0] = 0x1111_1111;
    m.waves[0].v[3][0] = 0x2222_2222;
    assert_eq!(m.step_wave(0), None);

    let mut ours = lds.clone();
    ours.store(4, 8, 0x2222_2222_1111_1111);
    let mut amd = lds.clone();
    amd.store(ds_addr(4, 0, 8), 8, 0x2222_2222_1111_1111);
    let got = Lds(m.slots[0].shared.to_vec());
    assert_eq!(got, ours);
    assert_ne!(got, amd);

    let mut m = machine("ld.shared.b64 v2, v0, 0");
    m.slots[0].shared.write(0, &lds.0);
    m.waves[0].exec = 1;
    m.waves[0].v[0][0] = 4;
    assert_eq!(m.step_wave(0), None);
    let v = m.waves[0].v[2][0] as u64 | (m.waves[0].v[3][0] as u64) << 32;
    assert_eq!(v, lds.load(4, 8));
    assert_ne!(v, lds.load(ds_addr(4, 0, 8), 8));
}

/// DS is bounded by M0 (set to 0xffffffff for no limit) and the reference does not say
/// what happens beyond it; we have no M0: the bound is the workgroup's `.shared` size and
/// any access with a byte outside it faults (`OutOfWindow`).
#[test]
fn ds_m0_limit_vs_shared_window_out_of_range_faults() {
    for (ours, addr) in [
        ("atom.shared.add.u32 v2, v0, 0", SHARED_BYTES as u32),
        ("ld.shared.b32 v2, v0, 0", SHARED_BYTES as u32 - 2),
        ("st.shared.b64 v2, v0, 0", SHARED_BYTES as u32 - 4),
        ("atom.shared.max.i32.rtn v2, v0, 0", 0xffff_fffc),
    ] {
        let mut m = machine(ours);
        m.waves[0].exec = 1;
        m.waves[0].v[0][0] = addr;
        let before = m.waves[0].v[2];
        let f = fault_of(m.step_wave(0));
        assert_eq!(
            f.kind,
            FaultKind::OutOfWindow {
                space: Space::Shared,
                size: SHARED_BYTES as u64
            },
            "{ours}"
        );
        assert_eq!(m.waves[0].v[2], before, "{ours}");
    }
}

/// DS OFFSET is an unsigned 16-bit field; our offset is a signed 24-bit immediate: a
/// negative offset and one above 65535 both work (and no 32-bit wrap-around: a negative
/// sum is outside the window).
#[test]
fn ds_offset_u16_vs_shared_imm_s24() {
    let mut m = machine("atom.shared.add.u32.rtn v2, v0, -16");
    m.slots[0].shared.write(4, &7u32.to_le_bytes());
    m.waves[0].exec = 1;
    m.waves[0].v[0][0] = 20;
    m.waves[0].v[2][0] = 1;
    assert_eq!(m.step_wave(0), None);
    assert_eq!(m.waves[0].v[2][0], 7);
    assert_eq!(m.slots[0].shared.read_le(4, 4), 8);

    let mut m = machine_with("st.shared.b32 v2, v0, 0x10000", 0x10010);
    m.waves[0].exec = 1;
    m.waves[0].v[0][0] = 4;
    m.waves[0].v[2][0] = 0xabcd;
    assert_eq!(m.step_wave(0), None);
    assert_eq!(m.slots[0].shared.read_le(0x10004, 4), 0xabcd);

    let mut m = machine("ld.shared.b32 v2, v0, -8");
    m.waves[0].exec = 1;
    m.waves[0].v[0][0] = 4;
    let f = fault_of(m.step_wave(0));
    assert!(matches!(f.kind, FaultKind::OutOfWindow { .. }), "{f:?}");
}

/// DS_CMPST_F32 compares as floats (upstream page: `*V==ASFLOAT(VDATA0)`), so -0 equals +0
/// and NaN never equals; we have no float compare-store: `atom.shared.cmpxchg.b32`
/// compares bits.
#[test]
fn ds_cmpst_f32_compares_floats_atom_shared_cmpxchg_b32_compares_bits() {
    let new = 5.0f32.to_bits();
    let nan = 0x7fc0_0000u32;
    for (mem, cmp, ours_stores) in [
        ((-0.0f32).to_bits(), 0.0f32.to_bits(), false),
        (0.0f32.to_bits(), (-0.0f32).to_bits(), false),
        (nan, nan, true),
    ] {
        let mut m = machine("atom.shared.cmpxchg.b32.rtn v2, v0, 0");
        m.slots[0].shared.write(0, &mem.to_le_bytes());
        m.waves[0].exec = 1;
        m.waves[0].v[2][0] = cmp;
        m.waves[0].v[3][0] = new;
        assert_eq!(m.step_wave(0), None);
        let got = m.slots[0].shared.read_le(0, 4) as u32;
        assert_eq!(
            got,
            if ours_stores { new } else { mem },
            "{mem:#x} vs {cmp:#x}"
        );
        assert_eq!(m.waves[0].v[2][0], mem, "returns the old bits");
        assert_ne!(
            got,
            gcn::cmpst_f32(mem, cmp, new),
            "DS_CMPST_F32 would differ"
        );
    }
}

/// DS-only operations have no instruction of ours (the table in docs/amd-parity.md):
/// reverse subtract, masked or, two-address forms, SRC2 forms, GDS/GWS, append/consume,
/// ordered count, wrap, conditional exchange, f64 and the 64-bit sub/inc/dec.
#[test]
fn ds_only_operations_have_no_counterpart() {
    let isa = Isa::get();
    let words = [
        "rsub",
        "mskor",
        "read2",
        "write2",
        "xchg2",
        "st64",
        "src2",
        "gds",
        "gws",
        "append",
        "consume",
        "ordered",
        "wrap",
        "condxchg",
        "permute",
        ".f64",
        "sub.u64",
        "inc.u64",
        "dec.u64",
        "cmpxchg.f32",
        "cmpst",
    ];
    for def in isa.defs() {
        let mn = def.mnemonic();
        for w in words {
            assert!(
                !mn.contains(w),
                "{mn} now exists: update docs/amd-parity.md"
            );
        }
    }
    assert!(isa.lookup("atom.shared.xchg.b32").is_some());
    assert!(isa.lookup("atom.shared.rsub.u32").is_none());
}

// ---------------------------------------------------------------------------------------
// DS_SWIZZLE_B32 (listed in the reference; pseudo-code from the upstream page) vs group 5
// ---------------------------------------------------------------------------------------

/// DS_SWIZZLE_B32 (upstream), for a 32-lane wave:
/// ```text
/// if (OFFSET&0x8000) INLANEID = (LANEID&0x3c) + ((OFFSET>>(2*(LANEID&3)))&3)
/// else INLANEID = (LANEID&32) + ((((LANEID&31) & ANDMASK) | ORMASK) ^ XORMASK)
/// VDST[LANEID] = (EXEC & (1ULL<<INLANEID)) ? ADDR[INLANEID] : 0
/// ```
/// with ANDMASK = OFFSET&31, ORMASK = (OFFSET>>5)&31, XORMASK = OFFSET>>10.
fn ds_swizzle_b32(src: &[u32; LANES], exec: u32, offset: u16, vdst: &mut [u32; LANES]) {
    let offset = offset as usize;
    for (lane, out) in vdst.iter_mut().enumerate() {
        if exec >> lane & 1 == 0 {
            continue;
        }
        let inlane = if offset & 0x8000 != 0 {
            (lane & 0x3c) + ((offset >> (2 * (lane & 3))) & 3)
        } else {
            let (and, or, xor) = (offset & 31, (offset >> 5) & 31, offset >> 10);
            (lane & 32) + ((((lane & 31) & and) | or) ^ xor)
        };
        *out = if exec >> inlane & 1 == 1 {
            src[inlane]
        } else {
            0
        };
    }
}

/// Runs `ours` (reading `v1`, writing `v2`) with `exec` and compares with DS_SWIZZLE_B32.
fn swizzle_parity(ours: &str, offset: u16, exec: u32) -> ([u32; LANES], [u32; LANES]) {
    let mut m = machine(ours);
    let w = &mut m.waves[0];
    w.exec = exec;
    for lane in 0..LANES {
        w.v[1][lane] = 0x100 + lane as u32;
        w.v[2][lane] = 0xdead_0000 + lane as u32;
    }
    let mut amd = w.v[2];
    ds_swizzle_b32(&w.v[1], exec, offset, &mut amd);
    assert_eq!(m.step_wave(0), None, "{ours}");
    (m.waves[0].v[2], amd)
}

/// Quad mode (OFFSET bit 15) selects, per lane, one of the four lanes of its quad with a
/// 2-bit field of OFFSET[7:0]: exactly `quad.swizzle` with `imm = OFFSET & 0xff`, when
/// the source lanes are active.
#[test]
fn ds_swizzle_b32_quad_mode_matches_quad_swizzle() {
    for sel in [0x00u16, 0xe4, 0x1b, 0x55, 0xb1, 0x4e, 0xff] {
        let (ours, amd) = swizzle_parity(&format!("quad.swizzle v2, v1, {sel}"), 0x8000 | sel, !0);
        assert_eq!(ours, amd, "selector {sel:#x}");
    }
}

/// Bit-mask mode with ANDMASK = 31, ORMASK = 0 is a lane xor: `shfl.xor.vi` with
/// `imm = XORMASK`.
#[test]
fn ds_swizzle_b32_bitmask_xor_matches_shfl_xor_vi() {
    for x in [1u16, 2, 3, 8, 16, 31] {
        let (ours, amd) = swizzle_parity(&format!("shfl.xor.vi v2, v1, {x}"), x << 10 | 31, !0);
        assert_eq!(ours, amd, "xor {x}");
    }
}

/// DS_SWIZZLE_B32 returns 0 when the source lane is inactive; `quad.swizzle` reads the
/// inactive lane's register anyway (as `shfl.idx` documents for itself).
#[test]
fn ds_swizzle_b32_zeroes_inactive_sources_quad_swizzle_reads_them() {
    let exec = !0b10u32; // lane 1 inactive
    let (ours, amd) = swizzle_parity("quad.swizzle v2, v1, 0x55", 0x8000 | 0x55, exec);
    for lane in [0usize, 2, 3] {
        assert_eq!(ours[lane], 0x101, "lane {lane} reads lane 1");
        assert_eq!(amd[lane], 0, "DS_SWIZZLE_B32 gives 0");
    }
    assert_eq!(ours[1], 0xdead_0001, "the inactive lane is not written");
    assert_eq!(ours[4..], amd[4..]);
}

// ---------------------------------------------------------------------------------------
// buffer_atomic_max_i32
// ---------------------------------------------------------------------------------------

/// ref-amd-buffer-atomic-max-i32.txt, Description: "Select the maximum of two signed
/// 32-bit integer inputs, given two values stored in the data register and a location in
/// a buffer surface. Update the buffer surface with the selected value. Store the original
/// value from buffer surface into a vector register iff the temporal hint enables atomic
/// return." Returns the new VDATA (unchanged without atomic return).
fn buffer_atomic_max_i32(mem: &mut [u8], offset: usize, vdata: u32, atomic_return: bool) -> u32 {
    let cell: &mut [u8; 4] = (&mut mem[offset..offset + 4]).try_into().unwrap();
    let original = i32::from_le_bytes(*cell);
    let selected = if (vdata as i32) > original {
        vdata as i32
    } else {
        original
    };
    *cell = selected.to_le_bytes();
    if atomic_return {
        original as u32
    } else {
        vdata
    }
}

fn parity_buffer_max(ours: &str, atomic_return: bool) {
    for chunk in cases32().chunks(LANES) {
        let mut m = machine(&format!("{ours} v2, u[4:7], v0, {OFFSET}"));
        let base = m.buffer_base("b").unwrap();
        let mut mem = pattern(BUF_BYTES);
        let w = &mut m.waves[0];
        w.exec = exec_mask(chunk.len());
        for (lane, c) in chunk.iter().enumerate() {
            w.v[0][lane] = 4 * lane as u32;
            w.v[2][lane] = c[1];
            let o = 4 * lane + OFFSET as usize;
            mem[o..o + 4].copy_from_slice(&c[0].to_le_bytes());
        }
        let mut vdata = w.v[2];
        m.global.write(base, &mem).unwrap();

        for (lane, c) in chunk.iter().enumerate() {
            let o = 4 * lane + OFFSET as usize;
            vdata[lane] = buffer_atomic_max_i32(&mut mem, o, c[1], atomic_return);
        }

        assert_eq!(m.step_wave(0), None, "{ours} must not fault");
        let mut got = vec![0u8; BUF_BYTES];
        m.global.read(base, &mut got).unwrap();
        for (lane, c) in chunk.iter().enumerate() {
            let o = 4 * lane + OFFSET as usize;
            assert_eq!(
                got[o..o + 4],
                mem[o..o + 4],
                "{ours}: memory for old={:#x} ({}) data={:#x} ({})",
                c[0],
                c[0] as i32,
                c[1],
                c[1] as i32
            );
            assert_eq!(
                m.waves[0].v[2][lane], vdata[lane],
                "{ours}: v2 for old={:#x} data={:#x}",
                c[0], c[1]
            );
        }
        assert_eq!(got, mem, "{ours}: rest of the buffer untouched");
    }
}

#[test]
fn buffer_atomic_max_i32_matches_atom_buf_max_i32() {
    parity_buffer_max("atom.buf.max.i32", false);
}

#[test]
fn buffer_atomic_max_i32_with_return_matches_atom_buf_max_i32_rtn() {
    parity_buffer_max("atom.buf.max.i32.rtn", true);
}

/// The AMD page returns the pre-op value when the temporal hint (TH) asks for it, on the
/// same opcode; we return only through the `.rtn` opcode, and `glc` (our cpol bit 0) does
/// not make `atom.buf.max.i32` return.
#[test]
fn buffer_atomic_max_i32_th_return_vs_atom_buf_max_i32_glc_does_not_return() {
    let mut m = machine("atom.buf.max.i32 v2, u[4:7], v0, 0, glc");
    let base = m.buffer_base("b").unwrap();
    m.global.write(base, &(-5i32).to_le_bytes()).unwrap();
    m.waves[0].exec = 1;
    m.waves[0].v[2][0] = 9;
    assert_eq!(m.step_wave(0), None);
    assert_eq!(m.global.read_le(base, 4), Some(9));
    assert_eq!(m.waves[0].v[2][0], 9, "no return without .rtn");
}

/// The AMD page says nothing about range checking. Ours (docs/memory.md): an access with
/// any byte outside `[0, DESC.size)`, or through a null descriptor, is dropped and `.rtn`
/// writes 0; no fault, even when the address is mapped memory.
#[test]
fn buffer_atomic_max_i32_out_of_range_atom_buf_max_i32_rtn_drops_and_returns_zero() {
    const SIZE: u32 = 64; // descriptor size, smaller than the 256-byte allocation
    let mut m = machine("atom.buf.max.i32.rtn v2, u[4:7], v0, 4");
    let base = m.buffer_base("b").unwrap();
    let mem = pattern(BUF_BYTES);
    m.global.write(base, &mem).unwrap();
    m.waves[0].u[6] = SIZE;
    // Offsets are zext(s1) + 4.
    let offsets = [
        SIZE - 8,    // in bounds: the last dword
        SIZE - 6,    // partly out of bounds (and misaligned: not checked out of bounds)
        SIZE - 4,    // just past the end
        196,         // far past the end, still allocated
        0xffff_fffc, // 0x1_0000_0000: no 32-bit wrap to offset 0
    ];
    m.waves[0].exec = exec_mask(offsets.len());
    for (lane, &o) in offsets.iter().enumerate() {
        m.waves[0].v[0][lane] = o;
        m.waves[0].v[2][lane] = 0x7fff_ffff;
    }
    assert_eq!(m.step_wave(0), None, "out of bounds never faults");
    let mut want = mem.clone();
    let old = buffer_atomic_max_i32(&mut want, (SIZE - 4) as usize, 0x7fff_ffff, true);
    let mut got = vec![0u8; BUF_BYTES];
    m.global.read(base, &mut got).unwrap();
    assert_eq!(got, want, "only the in-bounds lane wrote");
    assert_eq!(m.waves[0].v[2][0], old);
    for (lane, o) in offsets.iter().enumerate().skip(1) {
        assert_eq!(m.waves[0].v[2][lane], 0, "lane {lane} (s1 {o:#x})");
    }

    // A negative offset (imm) is out of bounds too.
    let mut m = machine("atom.buf.max.i32.rtn v2, u[4:7], v0, -4");
    m.global.write(base, &mem).unwrap();
    m.waves[0].exec = 1;
    m.waves[0].v[0][0] = 0;
    m.waves[0].v[2][0] = 0x7fff_ffff;
    assert_eq!(m.step_wave(0), None);
    assert_eq!(m.waves[0].v[2][0], 0);
    m.global.read(base, &mut got).unwrap();
    assert_eq!(got, mem);

    // Null descriptors: flags bit 0 clear, or base 0.
    for (lo, hi, flags) in [(base as u32, (base >> 32) as u32, 0), (0, 0, 1)] {
        let mut m = machine("atom.buf.max.i32.rtn v2, u[4:7], v0, 0");
        m.global.write(base, &mem).unwrap();
        m.waves[0].u[4..8].copy_from_slice(&[lo, hi, BUF_BYTES as u32, flags]);
        m.waves[0].exec = 1;
        m.waves[0].v[0][0] = 0;
        m.waves[0].v[2][0] = 0x7fff_ffff;
        assert_eq!(m.step_wave(0), None);
        assert_eq!(m.waves[0].v[2][0], 0);
        m.global.read(base, &mut got).unwrap();
        assert_eq!(got, mem);
    }
}

/// The AMD page does not cover alignment. Ours: an in-bounds misaligned buffer atomic
/// faults (`Misaligned`, global space).
#[test]
fn buffer_atomic_max_i32_alignment_unspecified_atom_buf_max_i32_misaligned_faults() {
    let mut m = machine("atom.buf.max.i32.rtn v2, u[4:7], v0, 0");
    m.waves[0].exec = 1;
    m.waves[0].v[0][0] = 2;
    let f = fault_of(m.step_wave(0));
    assert_eq!(
        f.kind,
        FaultKind::Misaligned {
            space: Space::Global,
            align: 4
        }
    );
}

/// No buffer load is in the references; ours (spec: 越界 / null 读 0): out-of-range and
/// partly out-of-range reads return 0 without a fault.
#[test]
fn ld_buf_b32_out_of_range_reads_zero() {
    const SIZE: u32 = 64;
    let mut m = machine("ld.buf.b32 v2, u[4:7], v0, 0");
    let base = m.buffer_base("b").unwrap();
    let mem = pattern(BUF_BYTES);
    m.global.write(base, &mem).unwrap();
    m.waves[0].u[6] = SIZE;
    let offsets = [SIZE - 4, SIZE - 2, SIZE, 200];
    m.waves[0].exec = exec_mask(offsets.len());
    for (lane, &o) in offsets.iter().enumerate() {
        m.waves[0].v[0][lane] = o;
        m.waves[0].v[2][lane] = 0xdead_beef;
    }
    assert_eq!(m.step_wave(0), None);
    let last = SIZE as usize - 4;
    let want = u32::from_le_bytes(mem[last..last + 4].try_into().unwrap());
    assert_eq!(m.waves[0].v[2][0], want);
    for lane in 1..offsets.len() {
        assert_eq!(m.waves[0].v[2][lane], 0, "lane {lane}");
    }
}
