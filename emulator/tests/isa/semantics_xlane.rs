//! Table-driven semantic tests of all 37 spec xlane instructions (spec group 5,
//! /work/shared/spec/isa-group5-xlane.txt).
//!
//! Each instruction runs alone on wave 0 under several EXEC masks (partial, lane 31
//! active, 0) with edge values; results are compared lane by lane with reference
//! functions written here from the spec text. Vector destinations are pre-filled with
//! per-lane sentinels so that writes to inactive lanes show; uniform destinations with a
//! sentinel, and every other register is checked unchanged.

#![allow(clippy::needless_range_loop)]

use std::collections::BTreeSet;

use crate::fixtures::*;
use wavedbg_emulator::fault::FaultKind;
use wavedbg_emulator::isa::Unit;
use wavedbg_emulator::machine::Machine;
use wavedbg_emulator::wave::WaveState;

/// More masks for cross-lane work: one lane per quad, and lane 31 alone.
const XMASKS: [u32; 9] = [
    0xA5A5_0F0F,
    0x5A5A_F0F0,
    0x8000_0001,
    0x7FFF_FFFE,
    0xFFFF_FFFF,
    0x0000_0000,
    0x1111_1111,
    0x8888_8888,
    0x8000_0000,
];

/// Distinct source values with edge values in some lanes.
fn src_values() -> [u32; LANES] {
    std::array::from_fn(|l| match l {
        0 => 0,
        1 => 0xFFFF_FFFF,
        2 => 0x8000_0000,
        3 => 0x7FFF_FFFF,
        31 => 0xC0DE_001F,
        _ => 0x1000_0000 + 0x0101 * l as u32,
    })
}

/// The per-lane pre-fill of vector destinations.
fn dest_sentinels() -> [u32; LANES] {
    std::array::from_fn(|l| SENTINEL ^ l as u32)
}

/// Registers the tests use: destination v1 / u1, source v2, selector v3 / u3.
fn xmachine(instr: &str, mn: &str, exec: u32) -> Machine {
    let m0 = machine(&format!("{instr}\nend\n"));
    assert_eq!(first_mnemonic(&m0), mn, "`{instr}`");
    let mut m = m0;
    m.waves[0].exec = exec;
    for r in 0..16 {
        set_v(
            &mut m,
            r,
            std::array::from_fn(|l| 0x0F00_0000 + (r * 32 + l) as u32),
        );
    }
    for r in 0..64 {
        m.waves[0].u[r] = 0x0E00_0000 + r as u32;
    }
    set_v(&mut m, 1, dest_sentinels());
    m.waves[0].u[1] = SENTINEL;
    set_v(&mut m, 2, src_values());
    m
}

/// Runs and checks a vector-destination instruction: v1 = `new` in active lanes (or in
/// `written` lanes, for instructions that ignore EXEC), every other register unchanged.
fn check_vector(m: &mut Machine, ctx: &str, written: u32, new: &[u32; LANES], float: bool) {
    let before = m.waves[0].clone();
    step_ok(m, ctx);
    let exp = merged(written, new, &before.v[1]);
    if float {
        assert_lanes_f32(ctx, "v1", &get_v(m, 1), &exp);
    } else {
        assert_lanes(ctx, "v1", &get_v(m, 1), &exp);
    }
    for r in (0..128).filter(|&r| r != 1) {
        assert_lanes(ctx, &format!("v{r}"), &get_v(m, r), &before.v[r]);
    }
    assert_eq!(m.waves[0].u, before.u, "{ctx}: uniform registers");
    assert_eq!(m.waves[0].exec, before.exec, "{ctx}: exec");
    assert_eq!(counters(m), [0; 4], "{ctx}: fixed latency, no counter");
}

/// Runs and checks a uniform-destination instruction: u1 = `want`, nothing else changes.
fn check_uniform(m: &mut Machine, ctx: &str, want: u32) {
    let before = m.waves[0].clone();
    step_ok(m, ctx);
    let u = m.waves[0].u;
    assert_eq!(
        u[1], want,
        "{ctx}: u1: got {:#010x}, expected {want:#010x}",
        u[1]
    );
    for r in (0..64).filter(|&r| r != 1) {
        assert_eq!(u[r], before.u[r], "{ctx}: u{r} changed");
    }
    assert!(m.waves[0].v == before.v, "{ctx}: a vector register changed");
    assert_eq!(m.waves[0].exec, before.exec, "{ctx}: exec");
    assert_eq!(counters(m), [0; 4], "{ctx}: fixed latency, no counter");
}

// ---------------------------------------------------------------------------------------
// Shuffles
// ---------------------------------------------------------------------------------------

/// The source lane of `shfl.MODE` for `lane` with selector `x` (the full 32-bit delta,
/// index or mask) from the spec's formulas.
fn ref_shfl_src(mode: &str, lane: u32, x: u32) -> usize {
    (match mode {
        // d = s1[s2 & 31]
        "idx" | "bcast" => x & 31,
        // j = lane - s2; d = (s2 <= lane) ? s1[j] : s1[lane] (delta not truncated)
        "up" => {
            if x <= lane {
                lane - x
            } else {
                lane
            }
        }
        // j = lane + s2; d = (j < 32) ? s1[j] : s1[lane] (delta not truncated)
        "down" => {
            let j = lane as u64 + x as u64;
            if j < 32 {
                j as u32
            } else {
                lane
            }
        }
        // d = s1[lane ^ (s2 & 31)]
        "xor" => lane ^ (x & 31),
        // d = s1[(lane + s2) & 31]
        "rot" => lane.wrapping_add(x) & 31,
        other => panic!("no shuffle mode {other}"),
    }) as usize
}

const SHFL_MODES: [&str; 5] = ["idx", "up", "down", "xor", "rot"];
const SHFL_VI: [&str; 5] = ["up", "down", "xor", "rot", "bcast"];
const SHFL_VU: [&str; 5] = ["bcast", "up", "down", "xor", "rot"];

fn shfl_reg_mnemonics() -> Vec<String> {
    SHFL_MODES.iter().map(|m| format!("shfl.{m}")).collect()
}
fn shfl_vi_mnemonics() -> Vec<String> {
    SHFL_VI.iter().map(|m| format!("shfl.{m}.vi")).collect()
}
fn shfl_vu_mnemonics() -> Vec<String> {
    SHFL_VU.iter().map(|m| format!("shfl.{m}.vu")).collect()
}

/// Per-lane selectors for the register forms.
fn vector_selectors() -> Vec<[u32; LANES]> {
    let varied = [
        0,
        1,
        2,
        5,
        31,
        32,
        33,
        63,
        0xFFFF_FFFF,
        0x8000_0000,
        0x7FFF_FFFF,
        0xFFFF_FFE1,
        17,
        30,
    ];
    let mut v: Vec<[u32; LANES]> = [
        0,
        1,
        3,
        31,
        32,
        33,
        64,
        0xFFFF_FFFF,
        0x8000_0000,
        0xFFFF_FFE1,
    ]
    .iter()
    .map(|&x| [x; LANES])
    .collect();
    v.push(std::array::from_fn(|l| varied[l % varied.len()]));
    v.push(std::array::from_fn(|l| l as u32));
    v.push(std::array::from_fn(|l| 31 - l as u32));
    v.push(std::array::from_fn(|l| {
        (l as u32).wrapping_mul(0x9E37_79B9)
    }));
    v
}

const IMMS: [i64; 14] = [-128, -33, -32, -31, -2, -1, 0, 1, 5, 15, 31, 32, 33, 127];
const UNIFORMS: [u32; 12] = [
    0,
    1,
    5,
    31,
    32,
    33,
    63,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
    0xFFFF_FFE1,
    0x0000_0100,
];

#[test]
fn shfl_register_forms() {
    let s1 = src_values();
    for mode in SHFL_MODES {
        let mn = format!("shfl.{mode}");
        let instr = format!("{mn} v1, v2, v3");
        for sel in vector_selectors() {
            for &exec in &XMASKS {
                let ctx = format!("`{instr}` exec {exec:#010x} s2 {:#x}..", sel[0]);
                let mut m = xmachine(&instr, &mn, exec);
                set_v(&mut m, 3, sel);
                let new = std::array::from_fn(|l| s1[ref_shfl_src(mode, l as u32, sel[l])]);
                check_vector(&mut m, &ctx, exec, &new, false);
            }
        }
    }
}

#[test]
fn shfl_immediate_forms() {
    let s1 = src_values();
    for mode in SHFL_VI {
        let mn = format!("shfl.{mode}.vi");
        for imm in IMMS {
            let instr = format!("{mn} v1, v2, {imm}");
            // up / down / xor / bcast: imm[4:0]; rot: (lane + imm) & 31.
            let x = if mode == "rot" {
                imm as u32
            } else {
                (imm & 31) as u32
            };
            for &exec in &XMASKS {
                let ctx = format!("`{instr}` exec {exec:#010x}");
                let mut m = xmachine(&instr, &mn, exec);
                let new = std::array::from_fn(|l| s1[ref_shfl_src(mode, l as u32, x)]);
                check_vector(&mut m, &ctx, exec, &new, false);
            }
        }
    }
}

#[test]
fn shfl_uniform_forms() {
    let s1 = src_values();
    for mode in SHFL_VU {
        let mn = format!("shfl.{mode}.vu");
        let instr = format!("{mn} v1, v2, u3");
        for u in UNIFORMS {
            for &exec in &XMASKS {
                let ctx = format!("`{instr}` u3 {u:#x} exec {exec:#010x}");
                let mut m = xmachine(&instr, &mn, exec);
                m.waves[0].u[3] = u;
                let new = std::array::from_fn(|l| s1[ref_shfl_src(mode, l as u32, u)]);
                check_vector(&mut m, &ctx, exec, &new, false);
            }
        }
    }
}

/// The spec's examples written out: no truncation of up/down deltas, imm[4:0] of the
/// .vi forms, inactive source lanes read.
#[test]
fn shfl_written_out_cases() {
    let s1 = src_values();
    let own = s1;
    let run = |instr: &str, exec: u32, sel: Option<[u32; LANES]>, u3: u32| {
        let mn = instr.split_whitespace().next().expect("mnemonic");
        let mut m = xmachine(instr, mn, exec);
        if let Some(s) = sel {
            set_v(&mut m, 3, s);
        }
        m.waves[0].u[3] = u3;
        step_ok(&mut m, instr);
        get_v(&m, 1)
    };
    // Delta 32 for up (register and uniform): every lane keeps its own value.
    assert_eq!(
        run("shfl.up v1, v2, v3", u32::MAX, Some([32; LANES]), 0),
        own
    );
    assert_eq!(run("shfl.up.vu v1, v2, u3", u32::MAX, None, 32), own);
    // Delta 33 and 0xFFFFFFFF for up and down: own value (not truncated to 1 or 31).
    for d in [33, 0xFFFF_FFFF, 0x8000_0000, 0x1_u32 << 31 | 1] {
        assert_eq!(
            run("shfl.up v1, v2, v3", u32::MAX, Some([d; LANES]), 0),
            own,
            "up {d:#x}"
        );
        assert_eq!(
            run("shfl.down v1, v2, v3", u32::MAX, Some([d; LANES]), 0),
            own,
            "down {d:#x}"
        );
        assert_eq!(
            run("shfl.up.vu v1, v2, u3", u32::MAX, None, d),
            own,
            "up.vu {d:#x}"
        );
        assert_eq!(
            run("shfl.down.vu v1, v2, u3", u32::MAX, None, d),
            own,
            "down.vu {d:#x}"
        );
    }
    // shfl.up.vi -31: imm[4:0] = 1, delta 1.
    let up1: [u32; LANES] = std::array::from_fn(|l| if l == 0 { s1[0] } else { s1[l - 1] });
    assert_eq!(run("shfl.up.vi v1, v2, -31", u32::MAX, None, 0), up1);
    assert_eq!(
        run("shfl.up v1, v2, v3", u32::MAX, Some([1; LANES]), 0),
        up1
    );
    // shfl.down.vi -1: imm[4:0] = 31, only lane 0 has a source (lane 31).
    let down31: [u32; LANES] = std::array::from_fn(|l| if l == 0 { s1[31] } else { s1[l] });
    assert_eq!(run("shfl.down.vi v1, v2, -1", u32::MAX, None, 0), down31);
    // shfl.rot.vi -1: lane l reads lane l - 1 (mod 32).
    let rot_m1: [u32; LANES] = std::array::from_fn(|l| s1[(l + 31) % 32]);
    assert_eq!(run("shfl.rot.vi v1, v2, -1", u32::MAX, None, 0), rot_m1);
    assert_eq!(run("shfl.rot.vi v1, v2, 127", u32::MAX, None, 0), rot_m1);
    assert_eq!(
        run("shfl.rot.vu v1, v2, u3", u32::MAX, None, 0xFFFF_FFFF),
        rot_m1
    );
    // rot and xor mask with 31: 33 acts as 1.
    let rot1: [u32; LANES] = std::array::from_fn(|l| s1[(l + 1) % 32]);
    assert_eq!(
        run("shfl.rot v1, v2, v3", u32::MAX, Some([33; LANES]), 0),
        rot1
    );
    let xor1: [u32; LANES] = std::array::from_fn(|l| s1[l ^ 1]);
    assert_eq!(
        run("shfl.xor v1, v2, v3", u32::MAX, Some([33; LANES]), 0),
        xor1
    );
    assert_eq!(run("shfl.xor.vi v1, v2, -31", u32::MAX, None, 0), xor1);
    assert_eq!(
        run("shfl.xor.vu v1, v2, u3", u32::MAX, None, 0xFFFF_FFE1),
        xor1
    );
    // shfl.idx reads the source lane even when it is inactive: only lane 0 active.
    let got = run("shfl.idx v1, v2, v3", 1, Some([31; LANES]), 0);
    assert_eq!(got[0], s1[31]);
    assert_eq!(got[1..], dest_sentinels()[1..]);
    // Index 0xFFFF_FFFF & 31 = 31.
    assert_eq!(
        run("shfl.idx v1, v2, v3", u32::MAX, Some([u32::MAX; LANES]), 0),
        [s1[31]; LANES]
    );
    // Broadcasts.
    assert_eq!(
        run("shfl.bcast.vi v1, v2, -1", u32::MAX, None, 0),
        [s1[31]; LANES]
    );
    assert_eq!(
        run("shfl.bcast.vi v1, v2, 35", u32::MAX, None, 0),
        [s1[3]; LANES]
    );
    assert_eq!(
        run("shfl.bcast.vu v1, v2, u3", u32::MAX, None, 0xFFFF_FFE2),
        [s1[2]; LANES]
    );
    let got = run("shfl.bcast.vu v1, v2, u3", 0x0000_0006, None, 4);
    assert_eq!(got[1..3], [s1[4]; 2], "bcast reads inactive lane 4");
    assert_eq!(got[0], dest_sentinels()[0]);
}

/// Destination = source: every lane reads the sources before any lane is written.
#[test]
fn shfl_in_place() {
    let s1 = src_values();
    for (instr, mode, x) in [
        ("shfl.xor v2, v2, v3", "xor", 1u32),
        ("shfl.up v2, v2, v3", "up", 1),
        ("shfl.down v2, v2, v3", "down", 1),
        ("shfl.rot v2, v2, v3", "rot", 5),
        ("shfl.idx v2, v2, v3", "idx", 7),
    ] {
        let mn = instr.split_whitespace().next().expect("mnemonic");
        for exec in [u32::MAX, 0xA5A5_0F0F] {
            let mut m = xmachine(instr, mn, exec);
            set_v(&mut m, 3, [x; LANES]);
            step_ok(&mut m, instr);
            let new = std::array::from_fn(|l| s1[ref_shfl_src(mode, l as u32, x)]);
            assert_lanes(instr, "v2", &get_v(&m, 2), &merged(exec, &new, &s1));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Quad swizzle
// ---------------------------------------------------------------------------------------

#[test]
fn quad_swizzle() {
    let s1 = src_values();
    for imm in [
        0x00u32, 0x1B, 0xE4, 0xFF, 0x4E, 0xB1, 0x55, 0xAA, 0x39, 0x93,
    ] {
        let instr = format!("quad.swizzle v1, v2, {imm:#x}");
        for &exec in &XMASKS {
            let ctx = format!("`{instr}` exec {exec:#010x}");
            let mut m = xmachine(&instr, "quad.swizzle", exec);
            // d = s1[(lane & ~3) | the lane's 2-bit selector of imm]
            let new = std::array::from_fn(|l| s1[(l & !3) | (imm >> (2 * (l & 3)) & 3) as usize]);
            check_vector(&mut m, &ctx, exec, &new, false);
        }
    }
    // 0x1B reverses each quad, written out.
    let mut m = xmachine("quad.swizzle v1, v2, 0x1b", "quad.swizzle", u32::MAX);
    step_ok(&mut m, "quad.swizzle 0x1b");
    let rev: [u32; LANES] = std::array::from_fn(|l| s1[(l & !3) + 3 - (l & 3)]);
    assert_eq!(get_v(&m, 1), rev);
    assert_eq!(get_v(&m, 1)[0..4], [s1[3], s1[2], s1[1], s1[0]]);
}

// ---------------------------------------------------------------------------------------
// writelane / readfirst / readlane
// ---------------------------------------------------------------------------------------

#[test]
fn writelane_ignores_exec_and_writes_one_lane() {
    for lane in [0usize, 5, 17, 31] {
        for value in [0x8000_0000u32, 0xFFFF_FFFF, 0, 0x1234_5678] {
            let instr = format!("writelane v1, u3, {lane}");
            for &exec in &XMASKS {
                let ctx = format!("`{instr}` u3 {value:#x} exec {exec:#010x}");
                let mut m = xmachine(&instr, "writelane", exec);
                m.waves[0].u[3] = value;
                // Flag ei: the lane is written whatever EXEC is, and only that lane.
                check_vector(&mut m, &ctx, 1 << lane, &[value; LANES], false);
            }
        }
    }
}

#[test]
fn writelane_lane_32_or_more_traps() {
    for lane in [32u32, 33, 63, 64, 127] {
        for exec in [u32::MAX, 0] {
            let instr = format!("writelane v1, u3, {lane}");
            let mut m = xmachine(&instr, "writelane", exec);
            m.waves[0].u[3] = 0x1234_5678;
            let before = m.waves[0].clone();
            let f = step_fault(&mut m, &instr);
            assert_eq!(f.kind, FaultKind::IllegalLane { lane }, "{instr}");
            assert_eq!(f.pc, 0, "{instr}");
            assert_eq!(m.waves[0].state, WaveState::Faulted, "{instr}");
            assert!(
                m.waves[0].v == before.v,
                "{instr}: a vector register changed"
            );
            assert_eq!(
                m.waves[0].u, before.u,
                "{instr}: a uniform register changed"
            );
        }
    }
}

#[test]
fn readfirst_lowest_active_lane() {
    let s1 = src_values();
    for &exec in XMASKS
        .iter()
        .chain(&[0x0000_0100u32, 0x4000_0000, 0x0001_0000])
    {
        let ctx = format!("`readfirst u1, v2` exec {exec:#010x}");
        let mut m = xmachine("readfirst u1, v2", "readfirst", exec);
        // U[d] = s1[lowest active lane] (EXEC = 0 -> lane 0)
        let lane = (0..LANES).find(|&l| active(exec, l)).unwrap_or(0);
        check_uniform(&mut m, &ctx, s1[lane]);
    }
    let mut m = xmachine("readfirst u1, v2", "readfirst", 0x8000_0000);
    step_ok(&mut m, "readfirst");
    assert_eq!(m.waves[0].u[1], 0xC0DE_001F, "lane 31 alone");
    let mut m = xmachine("readfirst u1, v2", "readfirst", 0);
    step_ok(&mut m, "readfirst");
    assert_eq!(m.waves[0].u[1], 0, "EXEC = 0 reads lane 0");
}

#[test]
fn readlane_ignores_exec_and_masks_with_31() {
    let s1 = src_values();
    for imm in [0u32, 1, 5, 31, 32, 37, 63, 64, 128, 255] {
        let instr = format!("readlane u1, v2, {imm}");
        for &exec in &XMASKS {
            let ctx = format!("`{instr}` exec {exec:#010x}");
            let mut m = xmachine(&instr, "readlane", exec);
            check_uniform(&mut m, &ctx, s1[(imm & 31) as usize]);
        }
    }
    for u in UNIFORMS {
        for &exec in &XMASKS {
            let ctx = format!("`readlane.u u1, v2, u3` u3 {u:#x} exec {exec:#010x}");
            let mut m = xmachine("readlane.u u1, v2, u3", "readlane.u", exec);
            m.waves[0].u[3] = u;
            check_uniform(&mut m, &ctx, s1[(u & 31) as usize]);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Derivatives
// ---------------------------------------------------------------------------------------

const P0: u32 = 0x0000_0000;
const N0: u32 = 0x8000_0000;
const QNAN: u32 = 0x7FC0_0000;
const INF: u32 = 0x7F80_0000;
const NINF: u32 = 0xFF80_0000;

fn fb(x: f32) -> u32 {
    x.to_bits()
}

/// Eight quads of f32 inputs (no denormals: the instructions are float-mode dependent).
fn deriv_inputs() -> [u32; LANES] {
    let q: [[u32; 4]; 8] = [
        [fb(1.0), fb(3.5), fb(10.0), fb(-2.0)],
        [P0, N0, N0, P0],
        [QNAN, fb(1.0), fb(2.0), fb(4.0)],
        [INF, INF, fb(1.0), NINF],
        [N0, N0, fb(5.5), N0],
        [0x7F7F_FFFF, 0xFF7F_FFFF, fb(0.1), fb(0.3)],
        [fb(0.1), fb(0.2), fb(0.3), fb(0.4)],
        [fb(1.0), 0x3F80_0001, fb(16_777_216.0), fb(1.0)],
    ];
    std::array::from_fn(|l| q[l / 4][l % 4])
}

/// binary32 subtraction a - b, round to nearest even (computed in f64; the double
/// rounding is exact for 24-bit operands).
fn ref_fsub(a: u32, b: u32) -> u32 {
    ((f32::from_bits(a) as f64 - f32::from_bits(b) as f64) as f32).to_bits()
}

/// (mnemonic, high lane, low lane) of each derivative, from the spec:
/// fddx.fine: s1[lane|1] - s1[lane&~1]; fddy.fine: s1[lane|2] - s1[lane&~2];
/// fddx.coarse: s1[q+1] - s1[q]; fddy.coarse: s1[q+2] - s1[q], q = lane & ~3.
type LanePair = fn(usize) -> (usize, usize);

const DERIVS: [(&str, LanePair); 4] = [
    ("fddx.fine.f32", |l| (l | 1, l & !1)),
    ("fddy.fine.f32", |l| (l | 2, l & !2)),
    ("fddx.coarse.f32", |l| ((l & !3) + 1, l & !3)),
    ("fddy.coarse.f32", |l| ((l & !3) + 2, l & !3)),
];

#[test]
fn derivatives_fine_and_coarse() {
    let s1 = deriv_inputs();
    for (mn, lanes) in DERIVS {
        let instr = format!("{mn} v1, v2");
        for &exec in &XMASKS {
            let ctx = format!("`{instr}` exec {exec:#010x}");
            let mut m = xmachine(&instr, mn, exec);
            set_v(&mut m, 2, s1);
            let new = std::array::from_fn(|l| {
                let (hi, lo) = lanes(l);
                ref_fsub(s1[hi], s1[lo])
            });
            check_vector(&mut m, &ctx, exec, &new, true);
        }
    }
}

/// Exact bit patterns of quads 0 (plain values), 1 (signed zeros), 2 (a NaN) and 4.
#[test]
fn derivatives_written_out() {
    type Quads = (&'static str, [u32; 4], [u32; 4], [u32; 4]);
    let expect: [Quads; 4] = [
        // (mnemonic, quad 0, quad 1, quad 4); quad 2 is checked for NaNs below.
        (
            "fddx.fine.f32",
            [fb(2.5), fb(2.5), fb(-12.0), fb(-12.0)],
            [N0, N0, P0, P0],
            [P0, P0, fb(-5.5), fb(-5.5)],
        ),
        (
            "fddy.fine.f32",
            [fb(9.0), fb(-5.5), fb(9.0), fb(-5.5)],
            [N0, P0, N0, P0],
            [fb(5.5), P0, fb(5.5), P0],
        ),
        ("fddx.coarse.f32", [fb(2.5); 4], [N0; 4], [P0; 4]),
        ("fddy.coarse.f32", [fb(9.0); 4], [N0; 4], [fb(5.5); 4]),
    ];
    // Quad 2 = [NaN, 1, 2, 4]: which lanes are NaN.
    let nan2: [(&str, [bool; 4], [u32; 4]); 4] = [
        (
            "fddx.fine.f32",
            [true, true, false, false],
            [0, 0, fb(2.0), fb(2.0)],
        ),
        (
            "fddy.fine.f32",
            [true, false, true, false],
            [0, fb(3.0), 0, fb(3.0)],
        ),
        ("fddx.coarse.f32", [true; 4], [0; 4]),
        ("fddy.coarse.f32", [true; 4], [0; 4]),
    ];
    for ((mn, q0, q1, q4), (mn2, nan, q2)) in expect.iter().zip(nan2.iter()) {
        assert_eq!(mn, mn2);
        let instr = format!("{mn} v1, v2");
        let mut m = xmachine(&instr, mn, u32::MAX);
        set_v(&mut m, 2, deriv_inputs());
        step_ok(&mut m, &instr);
        let d = get_v(&m, 1);
        assert_eq!(d[0..4], q0[..], "{mn} quad 0");
        assert_eq!(d[4..8], q1[..], "{mn} quad 1 (signed zeros)");
        assert_eq!(d[16..20], q4[..], "{mn} quad 4");
        for k in 0..4 {
            if nan[k] {
                assert!(
                    is_nan32(d[8 + k]),
                    "{mn} lane {}: {:#x} is not a NaN",
                    8 + k,
                    d[8 + k]
                );
            } else {
                assert_eq!(d[8 + k], q2[k], "{mn} lane {}", 8 + k);
            }
        }
    }
    // Quad 3 = [inf, inf, 1, -inf]: inf - inf is a NaN, -inf - 1 = -inf.
    let mut m = xmachine("fddx.fine.f32 v1, v2", "fddx.fine.f32", u32::MAX);
    set_v(&mut m, 2, deriv_inputs());
    step_ok(&mut m, "fddx.fine.f32");
    let d = get_v(&m, 1);
    assert!(is_nan32(d[12]) && is_nan32(d[13]));
    assert_eq!(d[14..16], [NINF, NINF]);
    // Quad 5: -max - max overflows to -inf.
    assert_eq!(d[20], NINF);
}

/// Inactive lanes of a quad are still read as sources.
#[test]
fn derivatives_read_inactive_lanes() {
    let s1 = deriv_inputs();
    let mut m = xmachine("fddy.coarse.f32 v1, v2", "fddy.coarse.f32", 0x0000_0008);
    set_v(&mut m, 2, s1);
    step_ok(&mut m, "fddy.coarse.f32");
    let d = get_v(&m, 1);
    assert_eq!(d[3], fb(9.0), "lane 3 from lanes 2 and 0, both inactive");
    assert_eq!(d[0..3], dest_sentinels()[0..3]);
}

/// docs/memory.md (not spec text): `fm` instructions run with denormals preserved.
#[test]
fn derivatives_keep_denormals() {
    let s1: [u32; LANES] = std::array::from_fn(|l| match l % 4 {
        0 => 0x0000_0001,
        1 => 0x0000_0004,
        2 => 0x8000_0002,
        _ => 0x0080_0000,
    });
    // x: 4 - 1 = 3 (denormal); 2^-126 - (-2 * 2^-149) = 0x0080_0002.
    // y: -2 - 1 = -3 (denormal); 2^-126 - 4 * 2^-149 = 0x007F_FFFC.
    for (mn, want) in [
        (
            "fddx.fine.f32",
            [0x0000_0003, 0x0000_0003, 0x0080_0002, 0x0080_0002],
        ),
        (
            "fddy.fine.f32",
            [0x8000_0003, 0x007F_FFFC, 0x8000_0003, 0x007F_FFFC],
        ),
    ] {
        let instr = format!("{mn} v1, v2");
        let mut m = xmachine(&instr, mn, u32::MAX);
        set_v(&mut m, 2, s1);
        step_ok(&mut m, &instr);
        for (l, v) in get_v(&m, 1).iter().enumerate() {
            assert_eq!(*v, want[l % 4], "{mn} lane {l}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Scan, ballot, votes, reductions
// ---------------------------------------------------------------------------------------

/// Input sets for the reductions.
fn reduce_inputs() -> Vec<[u32; LANES]> {
    vec![
        src_values(),
        [0; LANES],
        [0x8000_0000; LANES],
        [0xFFFF_FFFF; LANES],
        std::array::from_fn(|l| if l == 31 { 0 } else { 0x8000_0000 >> (l % 31) }),
        std::array::from_fn(|l| if l == 7 { 5 } else { 7 }),
        std::array::from_fn(|l| (l as u32).wrapping_mul(0x9E37_79B9) | 1),
        std::array::from_fn(|l| match l % 4 {
            0 => 0x7FFF_FFFF,
            1 => 0x8000_0000,
            2 => 0xFFFF_FFFF,
            _ => 0,
        }),
    ]
}

#[test]
fn xscan_add_inclusive_over_active_lanes() {
    for s1 in reduce_inputs() {
        for &exec in &XMASKS {
            let ctx = format!("`xscan.add.u32 v1, v2` exec {exec:#010x} s1 {:#x}..", s1[0]);
            let mut m = xmachine("xscan.add.u32 v1, v2", "xscan.add.u32", exec);
            set_v(&mut m, 2, s1);
            // d = sum of s1[j] over active j <= lane (wrapping); inactive lanes unwritten.
            let new = std::array::from_fn(|l| {
                (0..=l)
                    .filter(|&j| active(exec, j))
                    .fold(0u32, |acc, j| acc.wrapping_add(s1[j]))
            });
            check_vector(&mut m, &ctx, exec, &new, false);
        }
    }
    // Written out: all lanes, 0xFFFFFFFF each: lane l holds -(l + 1).
    let mut m = xmachine("xscan.add.u32 v1, v2", "xscan.add.u32", u32::MAX);
    set_v(&mut m, 2, [u32::MAX; LANES]);
    step_ok(&mut m, "xscan");
    let want: [u32; LANES] = std::array::from_fn(|l| 0u32.wrapping_sub(l as u32 + 1));
    assert_eq!(get_v(&m, 1), want);
}

/// The reference of each uniform reduction over the active lanes.
fn ref_reduce(mn: &str, s1: &[u32; LANES], exec: u32) -> u32 {
    let vals: Vec<u32> = (0..LANES)
        .filter(|&l| active(exec, l))
        .map(|l| s1[l])
        .collect();
    let b = |x: bool| x as u32;
    match mn {
        // U[d] = mask of lanes in EXEC where s1 != 0
        "ballot" => (0..LANES)
            .filter(|&l| active(exec, l) && s1[l] != 0)
            .fold(0, |m, l| m | 1 << l),
        "vote.any" => b(vals.iter().any(|&v| v != 0)),
        "vote.all" => b(vals.iter().all(|&v| v != 0)),
        "vote.eq" => b(vals.windows(2).all(|w| w[0] == w[1])),
        "xred.add.u32" => vals.iter().fold(0u32, |a, &v| a.wrapping_add(v)),
        "xred.min.i32" => vals.iter().fold(i32::MAX, |a, &v| a.min(v as i32)) as u32,
        "xred.max.i32" => vals.iter().fold(i32::MIN, |a, &v| a.max(v as i32)) as u32,
        "xred.min.u32" => vals.iter().fold(u32::MAX, |a, &v| a.min(v)),
        "xred.max.u32" => vals.iter().fold(0, |a, &v| a.max(v)),
        "xred.and.b32" => vals.iter().fold(u32::MAX, |a, &v| a & v),
        "xred.or.b32" => vals.iter().fold(0, |a, &v| a | v),
        "xred.xor.b32" => vals.iter().fold(0, |a, &v| a ^ v),
        other => panic!("no reference for {other}"),
    }
}

const REDUCTIONS: [&str; 12] = [
    "ballot",
    "vote.any",
    "vote.all",
    "vote.eq",
    "xred.add.u32",
    "xred.min.i32",
    "xred.max.i32",
    "xred.min.u32",
    "xred.max.u32",
    "xred.and.b32",
    "xred.or.b32",
    "xred.xor.b32",
];

#[test]
fn ballot_votes_and_reductions() {
    for mn in REDUCTIONS {
        let instr = format!("{mn} u1, v2");
        for s1 in reduce_inputs() {
            for &exec in &XMASKS {
                let ctx = format!("`{instr}` exec {exec:#010x} s1 {:#x}..", s1[0]);
                let mut m = xmachine(&instr, mn, exec);
                set_v(&mut m, 2, s1);
                check_uniform(&mut m, &ctx, ref_reduce(mn, &s1, exec));
            }
        }
    }
}

/// EXEC = 0: the spec's empty-set results, written out.
#[test]
fn reductions_with_exec_zero() {
    let empty: [(&str, u32); 12] = [
        ("ballot", 0),
        ("vote.any", 0),
        ("vote.all", 1),
        ("vote.eq", 1),
        ("xred.add.u32", 0),
        ("xred.min.i32", 0x7FFF_FFFF),
        ("xred.max.i32", 0x8000_0000),
        ("xred.min.u32", 0xFFFF_FFFF),
        ("xred.max.u32", 0),
        ("xred.and.b32", 0xFFFF_FFFF),
        ("xred.or.b32", 0),
        ("xred.xor.b32", 0),
    ];
    for (mn, want) in empty {
        for s1 in reduce_inputs() {
            let instr = format!("{mn} u1, v2");
            let mut m = xmachine(&instr, mn, 0);
            set_v(&mut m, 2, s1);
            check_uniform(&mut m, &format!("`{instr}` EXEC = 0"), want);
        }
    }
}

/// Written-out reductions with INT_MIN, -1 and INT_MAX.
#[test]
fn reductions_written_out() {
    let s1: [u32; LANES] = std::array::from_fn(|l| match l {
        0 => 0x8000_0000,
        1 => 0xFFFF_FFFF,
        2 => 0x7FFF_FFFF,
        3 => 0,
        _ => 1,
    });
    let cases: [(&str, u32, u32); 14] = [
        ("xred.min.i32", 0xF, 0x8000_0000),
        ("xred.max.i32", 0xF, 0x7FFF_FFFF),
        ("xred.min.u32", 0xF, 0),
        ("xred.max.u32", 0xF, 0xFFFF_FFFF),
        ("xred.max.i32", 0x3, 0xFFFF_FFFF),
        ("xred.min.u32", 0x7, 0x7FFF_FFFF),
        ("xred.add.u32", 0x7, 0xFFFF_FFFE),
        ("xred.and.b32", 0x6, 0x7FFF_FFFF),
        ("xred.or.b32", 0x9, 0x8000_0000),
        ("xred.xor.b32", 0x7, 0),
        ("ballot", 0x8000_000F, 0x8000_0007),
        ("vote.all", 0x8000_0007, 1),
        ("vote.all", 0x8000_000F, 0),
        ("vote.eq", 0xFFFF_FFF0, 1),
    ];
    for (mn, exec, want) in cases {
        let instr = format!("{mn} u1, v2");
        let mut m = xmachine(&instr, mn, exec);
        set_v(&mut m, 2, s1);
        check_uniform(&mut m, &format!("`{instr}` exec {exec:#x}"), want);
    }
}

// ---------------------------------------------------------------------------------------
// Coverage
// ---------------------------------------------------------------------------------------

#[test]
fn every_spec_xlane_instruction_is_covered() {
    let mut covered: BTreeSet<String> = BTreeSet::new();
    covered.extend(shfl_reg_mnemonics());
    covered.extend(shfl_vi_mnemonics());
    covered.extend(shfl_vu_mnemonics());
    covered.extend(
        [
            "quad.swizzle",
            "writelane",
            "readfirst",
            "readlane",
            "readlane.u",
            "xscan.add.u32",
        ]
        .map(String::from),
    );
    covered.extend(DERIVS.iter().map(|(m, _)| m.to_string()));
    covered.extend(REDUCTIONS.iter().map(|m| m.to_string()));
    let spec = spec_mnemonics(Unit::Xlane);
    assert_eq!(spec.len(), 37, "spec xlane instructions in the table");
    let missing: Vec<_> = spec.difference(&covered).collect();
    let extra: Vec<_> = covered.difference(&spec).collect();
    assert!(
        missing.is_empty(),
        "spec xlane instructions without a test: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "tested mnemonics that are not spec xlane instructions: {extra:?}"
    );
}
