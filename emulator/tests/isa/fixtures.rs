//! Shared harness of the semantic tests: assemble a one-instruction snippet, build a
//! machine, poke registers and memory, run exactly one instruction and read state back.
//!
//! Nothing here computes an expected value: every reference function lives in the test
//! files and is written from the spec text, independently of `wavedbg_emulator::exec`.

#![allow(dead_code, clippy::needless_range_loop)]

use std::collections::BTreeSet;

use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::fault::Fault;
use wavedbg_emulator::isa::{Counter, Isa, Origin, RegFile, Unit};
use wavedbg_emulator::machine::{Event, LaunchOptions, Machine};

/// Lanes per wave.
pub const LANES: usize = 32;

/// Pre-filled into every destination so that an unwritten lane is recognisable.
pub const SENTINEL: u32 = 0xDEAD_BEEF;

/// The EXEC masks every table runs under: two partial masks (one with lane 31 active),
/// lanes 0 and 31 only, all but lanes 0 and 31, all lanes, and none.
pub const MASKS: [u32; 6] = [
    0xA5A5_0F0F,
    0x5A5A_F0F0,
    0x8000_0001,
    0x7FFF_FFFE,
    0xFFFF_FFFF,
    0x0000_0000,
];

/// 32-bit edge values: 0, 1, 2, INT_MAX, INT_MIN, -1, -2, INT_MIN + 1.
pub const E32: [u32; 8] = [
    0,
    1,
    2,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
    0xFFFF_FFFE,
    0x8000_0001,
];

/// f32 edge values: +0, -0, 1.0, -1.0, a quiet NaN, +inf, -inf, the largest finite.
pub const EF32: [u32; 8] = [
    0x0000_0000,
    0x8000_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x7FC0_0000,
    0x7F80_0000,
    0xFF80_0000,
    0x7F7F_FFFF,
];

/// 64-bit edge values.
pub const E64: [u64; 8] = [
    0,
    1,
    u64::MAX,
    0x8000_0000_0000_0000,
    0x7FFF_FFFF_FFFF_FFFF,
    0x0000_0000_FFFF_FFFF,
    0x0000_0001_0000_0000,
    0x0000_0000_8000_0000,
];

/// Assembles `src` (panicking with the diagnostics if it does not assemble) and launches
/// it with default options: one workgroup of one wave.
pub fn machine(src: &str) -> Machine {
    let program = match assemble(src, "t.s", None) {
        Ok(p) => p,
        Err(e) => panic!("snippet does not assemble:\n{src}\n{e}"),
    };
    match Machine::new(&program, LaunchOptions::default()) {
        Ok(m) => m,
        Err(e) => panic!("snippet does not launch:\n{src}\n{e}"),
    }
}

/// The mnemonic of the instruction at PC 0 (the one under test).
pub fn first_mnemonic(m: &Machine) -> &'static str {
    m.instr_at(0)
        .expect("an instruction at pc 0")
        .instr
        .def()
        .mnemonic()
}

/// Runs exactly one instruction of wave 0.
pub fn step(m: &mut Machine) -> Option<Event> {
    m.step_wave(0)
}

/// Runs one instruction and requires that it raised no event.
pub fn step_ok(m: &mut Machine, ctx: &str) {
    if let Some(e) = step(m) {
        panic!("{ctx}: unexpected event {e:?}");
    }
    assert_eq!(
        m.waves[0].pc,
        m.instr_at(0).map_or(0, |d| d.len as u64),
        "{ctx}: pc"
    );
}

/// Runs one instruction and requires a fault; returns it.
pub fn step_fault(m: &mut Machine, ctx: &str) -> Fault {
    match step(m) {
        Some(Event::Fault(f)) => f,
        other => panic!("{ctx}: expected a fault, got {other:?}"),
    }
}

/// The spec mnemonics of one unit, from the instruction table.
pub fn spec_mnemonics(unit: Unit) -> BTreeSet<String> {
    Isa::get()
        .defs()
        .iter()
        .filter(|d| d.row.origin == Origin::Spec && d.row.unit == unit)
        .map(|d| d.mnemonic().to_string())
        .collect()
}

/// Whether `lane` is set in `mask`.
pub fn active(mask: u32, lane: usize) -> bool {
    mask >> lane & 1 == 1
}

/// Sets vector register `r` of wave 0 in every lane.
pub fn set_v(m: &mut Machine, r: usize, vals: [u32; LANES]) {
    m.waves[0].v[r] = vals;
}

/// Fills vector register `r` of wave 0 with one value.
pub fn fill_v(m: &mut Machine, r: usize, val: u32) {
    m.waves[0].v[r] = [val; LANES];
}

/// Vector register `r` of wave 0.
pub fn get_v(m: &Machine, r: usize) -> [u32; LANES] {
    m.waves[0].v[r]
}

/// `new` in the lanes of `exec`, `old` elsewhere (the expected result of a masked write).
pub fn merged(exec: u32, new: &[u32; LANES], old: &[u32; LANES]) -> [u32; LANES] {
    std::array::from_fn(|l| if active(exec, l) { new[l] } else { old[l] })
}

/// Compares a register lane by lane, naming the first differing lane.
pub fn assert_lanes(ctx: &str, what: &str, actual: &[u32; LANES], expected: &[u32; LANES]) {
    for l in 0..LANES {
        assert_eq!(
            actual[l], expected[l],
            "{ctx}: {what} lane {l}: got {:#010x}, expected {:#010x}",
            actual[l], expected[l]
        );
    }
}

/// Compares f32 lanes: bit-exact, except that any NaN matches an expected NaN (the spec
/// does not define NaN payloads).
pub fn assert_lanes_f32(ctx: &str, what: &str, actual: &[u32; LANES], expected: &[u32; LANES]) {
    for l in 0..LANES {
        if is_nan32(expected[l]) {
            assert!(
                is_nan32(actual[l]),
                "{ctx}: {what} lane {l}: got {:#010x}, expected a NaN",
                actual[l]
            );
        } else {
            assert_eq!(
                actual[l], expected[l],
                "{ctx}: {what} lane {l}: got {:#010x}, expected {:#010x}",
                actual[l], expected[l]
            );
        }
    }
}

/// Whether f32 bits are a NaN.
pub fn is_nan32(x: u32) -> bool {
    x & 0x7F80_0000 == 0x7F80_0000 && x & 0x007F_FFFF != 0
}

/// The four async counters of wave 0 (vm, vst, ls, sm).
pub fn counters(m: &Machine) -> [u32; 4] {
    let w = &m.waves[0];
    [
        w.counter(Counter::Vm),
        w.counter(Counter::Vst),
        w.counter(Counter::Ls),
        w.counter(Counter::Sm),
    ]
}

/// The expected counters after one instruction counting on `c`.
pub fn one_on(c: Counter) -> [u32; 4] {
    let mut out = [0; 4];
    out[c.index()] = 1;
    out
}

/// Requires that registers `first..first + n` of `file` are recorded as pending on
/// counter `c`, and that `first + n` is not.
pub fn assert_pending(m: &Machine, ctx: &str, file: RegFile, first: usize, n: usize, c: Counter) {
    let w = &m.waves[0];
    for r in first..first + n {
        match w.pending_write(file, r as u8) {
            Some((got, _)) => {
                assert_eq!(got, c, "{ctx}: register {r} pending on the wrong counter")
            }
            None => panic!("{ctx}: register {r} is not recorded as an outstanding write"),
        }
    }
    assert!(
        w.pending_write(file, (first + n) as u8).is_none(),
        "{ctx}: register {} recorded as outstanding but is not a destination",
        first + n
    );
}

/// Requires that no register of `file` in `range` is recorded as pending.
pub fn assert_no_pending(m: &Machine, ctx: &str, file: RegFile, range: std::ops::Range<usize>) {
    for r in range {
        assert!(
            m.waves[0].pending_write(file, r as u8).is_none(),
            "{ctx}: register {r} recorded as an outstanding write"
        );
    }
}

/// The contents of global buffer `name`.
pub fn buffer_bytes(m: &Machine, name: &str) -> Vec<u8> {
    m.global
        .by_name(name)
        .expect("declared buffer")
        .data
        .to_vec()
}

/// Writes `bytes` at offset `off` of global buffer `name`.
pub fn write_buffer(m: &mut Machine, name: &str, off: u64, bytes: &[u8]) {
    let base = m.buffer_base(name).expect("declared buffer");
    m.global
        .write(base + off, bytes)
        .expect("write inside the buffer");
}

/// Reads a little-endian u32 from a byte image.
pub fn rd32(img: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(img[at..at + 4].try_into().expect("4 bytes"))
}

/// Reads a little-endian u64 from a byte image.
pub fn rd64(img: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(img[at..at + 8].try_into().expect("8 bytes"))
}

/// Writes a little-endian u32 into a byte image.
pub fn wr32(img: &mut [u8], at: usize, v: u32) {
    img[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Writes a little-endian u64 into a byte image.
pub fn wr64(img: &mut [u8], at: usize, v: u64) {
    img[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// A deterministic, mostly non-zero background pattern of `n` bytes.
pub fn background(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| {
            (i as u32)
                .wrapping_mul(37)
                .wrapping_add(seed as u32 * 101 + 11) as u8
                | 0x01
        })
        .collect()
}

/// The operand text of `n` registers of a file starting at `first`: `v8` or `v[8:11]`.
pub fn tuple(prefix: char, first: usize, n: usize) -> String {
    if n == 1 {
        format!("{prefix}{first}")
    } else {
        format!("{prefix}[{first}:{}]", first + n - 1)
    }
}
