//! Table-driven semantic tests of all 301 spec lsu instructions (spec group 4,
//! /work/shared/spec/isa-group4-lsu.txt).
//!
//! Every instruction runs alone on wave 0 under several EXEC masks (partial, lane 31
//! active, and 0) with edge values, and the result is compared lane by lane with
//! reference functions written in this file from the spec text (never with the
//! emulator's own helpers). Destinations are pre-filled with a sentinel so that a write
//! to an inactive lane shows; inactive lanes also point at a mapped, unused, misaligned
//! address, so an access by an inactive lane shows too.
//!
//! The tables are built by `*_cases()` functions that both the tests and the final
//! coverage test use, so the coverage test knows exactly which mnemonics the tests run.

#![allow(clippy::needless_range_loop)]

use std::collections::BTreeSet;

use crate::fixtures::*;
use wavedbg_emulator::fault::FaultKind;
use wavedbg_emulator::isa::{Counter, RegFile, Unit};
use wavedbg_emulator::machine::Machine;
use wavedbg_emulator::memory::Space;
use wavedbg_emulator::wave::WaveState;

// ---------------------------------------------------------------------------------------
// Layout of the test machine
// ---------------------------------------------------------------------------------------

/// Size of the global buffer `g`.
const G_SIZE: usize = 0x2000;
/// Shared window per workgroup.
const SHARED: usize = 0x1000;
/// Scratch bytes per lane.
const SCRATCH: usize = 0x100;
/// The buffer descriptor of the buf form starts this far into `g` ...
const DESC_OFF: usize = 0x400;
/// ... and is this long: 8k + 1, so that an aligned access of any width >= 2 at
/// `DESC_SIZE - 1` straddles the end (and a 1-byte access there is the last byte).
const DESC_SIZE: u32 = 0x201;
/// The immediate of the main tables: negative, so sign extension matters.
const IMM: i64 = -16;
/// The ubase form's uniform base is this far below `g`: every lane's s1 is then
/// >= 0x8000_0000, and a sign-extended s1 would point far outside the buffer.
const UBASE_BIAS: u64 = 0x8000_0000;

fn header() -> String {
    format!(
        ".shared {SHARED}\n.scratch {SCRATCH}\n.buffer g, {G_SIZE}\n.arg u[0:1], g\n.arg u[4:7], desc g\n"
    )
}

fn snippet(instr: &str) -> String {
    format!("{}{instr}\nend\n", header())
}

// ---------------------------------------------------------------------------------------
// Address forms
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    Global,
    Ubase,
    Buf,
    Shared,
    Scratch,
}

const FORMS: [Form; 5] = [
    Form::Global,
    Form::Ubase,
    Form::Buf,
    Form::Shared,
    Form::Scratch,
];

/// Atomics exist in every form but scratch.
const ATOM_FORMS: [Form; 4] = [Form::Global, Form::Ubase, Form::Buf, Form::Shared];

impl Form {
    fn name(self) -> &'static str {
        match self {
            Form::Global => "global",
            Form::Ubase => "ubase",
            Form::Buf => "buf",
            Form::Shared => "shared",
            Form::Scratch => "scratch",
        }
    }

    /// The address operands: `rs1:vp^2`, `rs2:up^2 rs1:v`, `rs2:d4^4 rs1:v` or `rs1:v`.
    fn addr_text(self) -> &'static str {
        match self {
            Form::Global => "v[2:3]",
            Form::Ubase => "u[0:1], v2",
            Form::Buf => "u[4:7], v2",
            Form::Shared | Form::Scratch => "v2",
        }
    }

    /// Whether the syntax has a trailing `cpol` operand.
    fn has_cpol(self) -> bool {
        matches!(self, Form::Global | Form::Ubase | Form::Buf)
    }

    /// The latency column of loads (`async:vm`, shared `async:ls`).
    fn load_counter(self) -> Counter {
        if self == Form::Shared {
            Counter::Ls
        } else {
            Counter::Vm
        }
    }

    /// The latency column of stores and atomics without return (`async:vst`, shared
    /// `async:ls`).
    fn store_counter(self) -> Counter {
        if self == Form::Shared {
            Counter::Ls
        } else {
            Counter::Vst
        }
    }

    /// The latency column of returning atomics (`async:vm`, shared `async:ls`).
    fn rtn_counter(self) -> Counter {
        self.load_counter()
    }

    fn image_len(self) -> usize {
        match self {
            Form::Global | Form::Ubase | Form::Buf => G_SIZE,
            Form::Shared => SHARED,
            Form::Scratch => SCRATCH * LANES,
        }
    }

    fn space(self) -> Space {
        match self {
            Form::Global | Form::Ubase | Form::Buf => Space::Global,
            Form::Shared => Space::Shared,
            Form::Scratch => Space::Scratch,
        }
    }
}

/// The bytes of the memory a form addresses: buffer `g`, the shared window, or the
/// scratch of all 32 lanes (lane `l` at `l * SCRATCH`).
fn read_image(m: &Machine, form: Form) -> Vec<u8> {
    match form {
        Form::Global | Form::Ubase | Form::Buf => buffer_bytes(m, "g"),
        Form::Shared => m.slots[0].shared.to_vec(),
        Form::Scratch => m.waves[0].scratch.to_vec(),
    }
}

fn write_image(m: &mut Machine, form: Form, img: &[u8]) {
    assert_eq!(img.len(), form.image_len());
    match form {
        Form::Global | Form::Ubase | Form::Buf => write_buffer(m, "g", 0, img),
        Form::Shared => m.slots[0].shared.write(0, img),
        Form::Scratch => m.waves[0].scratch.write(0, img),
    }
    assert_eq!(read_image(m, form), img, "image written");
}

/// Compares memory images; a word listed in `float_words` matches when both are NaNs.
fn assert_image(ctx: &str, actual: &[u8], expected: &[u8], float_words: &[usize]) {
    let mut exp = expected.to_vec();
    for &i in float_words {
        if is_nan32(rd32(&exp, i)) && is_nan32(rd32(actual, i)) {
            exp[i..i + 4].copy_from_slice(&actual[i..i + 4]);
        }
    }
    if let Some(i) = (0..exp.len()).find(|&i| actual[i] != exp[i]) {
        panic!(
            "{ctx}: memory byte {i:#x}: got {:#04x}, expected {:#04x} (word there: got {:#010x}, expected {:#010x})",
            actual[i],
            exp[i],
            rd32(actual, i & !3),
            rd32(&exp, i & !3)
        );
    }
}

/// A permutation of the lanes, so that lane order and address order differ.
fn perm(l: usize) -> usize {
    (l * 7 + 3) % 32
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pattern {
    /// Every lane its own address.
    Distinct,
    /// Every lane the same address (scratch: the same offset of each lane's own scratch).
    Same,
}

/// The logical offset each lane accesses: in `g` (global, ubase), relative to the
/// descriptor base (buf), in the shared window, or in the lane's scratch. In the buf
/// form's `Distinct` pattern lanes 2, 9, 17 and 30 are out of bounds: a straddle of the
/// end (in bounds only for a 1-byte access), far past the end (still inside the
/// allocation), a negative offset and a huge offset.
fn lane_offsets(form: Form, pattern: Pattern) -> [i64; LANES] {
    std::array::from_fn(|l| match (form, pattern) {
        (Form::Scratch, Pattern::Distinct) => 16 + 16 * ((l * 5) % 14) as i64,
        (Form::Scratch, Pattern::Same) => 0x40,
        (Form::Buf, Pattern::Distinct) => match l {
            2 => DESC_SIZE as i64 - 1,
            9 => 0x1000,
            17 => -8,
            30 => 0xFFFF_FFE0,
            _ => 16 * perm(l) as i64,
        },
        (Form::Buf, Pattern::Same) => 0x80,
        (_, Pattern::Distinct) => 0x400 + 16 * perm(l) as i64,
        (_, Pattern::Same) => 0x480,
    })
}

/// The offset inactive lanes point at: mapped and in the window, used by no active lane,
/// and misaligned for every access of 2 bytes or more.
const INACTIVE_OFF: i64 = 1;

/// Sets the address operands so that each active lane, with immediate `imm`, addresses
/// logical offset `offs[l]`; inactive lanes address [`INACTIVE_OFF`]. Returns, per active
/// lane, the byte index in the form's image that an access of `bytes` touches, computed
/// from the spec's address formulas; `None` for a buf access that is out of bounds (or
/// for an offset outside the image, which only the fault tests use).
fn place(
    m: &mut Machine,
    form: Form,
    offs: &[i64; LANES],
    imm: i64,
    exec: u32,
    bytes: usize,
) -> [Option<usize>; LANES] {
    let gbase = m.buffer_base("g").expect("buffer g");
    let w = &mut m.waves[0];
    match form {
        Form::Ubase => {
            let b = gbase - UBASE_BIAS;
            w.u[0] = b as u32;
            w.u[1] = (b >> 32) as u32;
        }
        Form::Buf => {
            let b = gbase + DESC_OFF as u64;
            w.u[4..8].copy_from_slice(&[b as u32, (b >> 32) as u32, DESC_SIZE, 1]);
        }
        _ => {}
    }
    let mut idx = [None; LANES];
    for l in 0..LANES {
        let off = if active(exec, l) {
            offs[l]
        } else {
            INACTIVE_OFF
        };
        match form {
            // A = s1_64 + sext(imm)
            Form::Global => {
                let a = (gbase as i64 + off - imm) as u64;
                w.v[2][l] = a as u32;
                w.v[3][l] = (a >> 32) as u32;
            }
            // A = U64[u2] + zext(s1) + sext(imm)
            Form::Ubase => {
                w.v[2][l] =
                    u32::try_from(UBASE_BIAS as i64 + off - imm).expect("s1 fits in 32 bits");
            }
            // A = DESC.base + s1 + sext(imm); shared / scratch: s1 + sext(imm)
            Form::Buf | Form::Shared | Form::Scratch => w.v[2][l] = (off - imm) as u32,
        }
        if !active(exec, l) {
            continue;
        }
        let inside = |o: i64, len: usize| {
            (o >= 0 && o as u64 + bytes as u64 <= len as u64).then_some(o as usize)
        };
        idx[l] = match form {
            Form::Global | Form::Ubase => inside(off, G_SIZE),
            Form::Shared => inside(off, SHARED),
            Form::Scratch => inside(off, SCRATCH).map(|o| l * SCRATCH + o),
            Form::Buf => {
                // The bounds check of the spec: the whole access inside DESC.size.
                let o = w.v[2][l] as i64 + imm;
                inside(o, DESC_SIZE as usize).map(|o| DESC_OFF + o)
            }
        };
    }
    idx
}

// ---------------------------------------------------------------------------------------
// Reference semantics (from the spec text)
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
struct LoadTy {
    name: &'static str,
    bytes: usize,
    signed: bool,
}

impl LoadTy {
    fn dwords(self) -> usize {
        self.bytes.div_ceil(4)
    }
}

const LOAD_TYPES: [LoadTy; 8] = [
    LoadTy {
        name: "u8",
        bytes: 1,
        signed: false,
    },
    LoadTy {
        name: "i8",
        bytes: 1,
        signed: true,
    },
    LoadTy {
        name: "u16",
        bytes: 2,
        signed: false,
    },
    LoadTy {
        name: "i16",
        bytes: 2,
        signed: true,
    },
    LoadTy {
        name: "b32",
        bytes: 4,
        signed: false,
    },
    LoadTy {
        name: "b64",
        bytes: 8,
        signed: false,
    },
    LoadTy {
        name: "b96",
        bytes: 12,
        signed: false,
    },
    LoadTy {
        name: "b128",
        bytes: 16,
        signed: false,
    },
];

const STORE_WIDTHS: [(&str, usize); 6] = [
    ("b8", 1),
    ("b16", 2),
    ("b32", 4),
    ("b64", 8),
    ("b96", 12),
    ("b128", 16),
];

/// `d = 零扩展 / 符号扩展读取 N 位`, or N bits into `N / 32` registers, low word first.
/// An out-of-bounds or null buffer access (`None`) reads 0.
fn ref_load(img: &[u8], idx: Option<usize>, ty: LoadTy) -> [u32; 4] {
    let Some(i) = idx else { return [0; 4] };
    let mut out = [0u32; 4];
    match ty.bytes {
        1 => {
            let b = img[i] as u32;
            out[0] = if ty.signed && b & 0x80 != 0 {
                b | 0xFFFF_FF00
            } else {
                b
            };
        }
        2 => {
            let h = img[i] as u32 | (img[i + 1] as u32) << 8;
            out[0] = if ty.signed && h & 0x8000 != 0 {
                h | 0xFFFF_0000
            } else {
                h
            };
        }
        n => {
            for k in 0..n / 4 {
                out[k] = rd32(img, i + 4 * k);
            }
        }
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct AtomDef {
    op: &'static str,
    ty: &'static str,
}

const fn a(op: &'static str, ty: &'static str) -> AtomDef {
    AtomDef { op, ty }
}

/// The 26 atomic operations of each form, in spec order.
const ATOMS: [AtomDef; 26] = [
    a("add", "u32"),
    a("sub", "u32"),
    a("and", "b32"),
    a("or", "b32"),
    a("xor", "b32"),
    a("min", "i32"),
    a("max", "i32"),
    a("min", "u32"),
    a("max", "u32"),
    a("xchg", "b32"),
    a("cmpxchg", "b32"),
    a("inc", "u32"),
    a("dec", "u32"),
    a("fadd", "f32"),
    a("fmin", "f32"),
    a("fmax", "f32"),
    a("add", "u64"),
    a("and", "b64"),
    a("or", "b64"),
    a("xor", "b64"),
    a("min", "i64"),
    a("max", "i64"),
    a("min", "u64"),
    a("max", "u64"),
    a("xchg", "b64"),
    a("cmpxchg", "b64"),
];

impl AtomDef {
    fn wide(self) -> bool {
        self.ty.ends_with("64")
    }
    fn float(self) -> bool {
        self.ty == "f32"
    }
    fn cmpxchg(self) -> bool {
        self.op == "cmpxchg"
    }
    fn bytes(self) -> usize {
        if self.wide() {
            8
        } else {
            4
        }
    }
    /// Registers of the data operand: `v`, `v^2` (b64, cmpxchg.b32) or `v^4` (cmpxchg.b64).
    fn regs(self) -> usize {
        (if self.wide() { 2 } else { 1 }) * (if self.cmpxchg() { 2 } else { 1 })
    }
    fn mnemonic(self, form: Form, rtn: bool) -> String {
        format!(
            "atom.{}.{}.{}{}",
            form.name(),
            self.op,
            self.ty,
            if rtn { ".rtn" } else { "" }
        )
    }
}

/// binary32 addition, round to nearest even. Computed in f64, where the sum of two f32 is
/// rounded once more: with 53 >= 2 * 24 + 2 bits the double rounding is exact.
fn ref_fadd(a: u32, b: u32) -> u32 {
    ((f32::from_bits(a) as f64 + f32::from_bits(b) as f64) as f32).to_bits()
}

/// IEEE 754-2019 minimumNumber: a NaN operand yields the other operand; -0 < +0.
fn ref_min_number(a: u32, b: u32) -> u32 {
    let (x, y) = (f32::from_bits(a) as f64, f32::from_bits(b) as f64);
    match (x.is_nan(), y.is_nan()) {
        (true, true) => 0x7FC0_0000,
        (true, false) => b,
        (false, true) => a,
        _ if x == 0.0 && y == 0.0 => (a | b) & 0x8000_0000,
        _ if x < y => a,
        _ => b,
    }
}

/// IEEE 754-2019 maximumNumber: a NaN operand yields the other operand; +0 > -0.
fn ref_max_number(a: u32, b: u32) -> u32 {
    let (x, y) = (f32::from_bits(a) as f64, f32::from_bits(b) as f64);
    match (x.is_nan(), y.is_nan()) {
        (true, true) => 0x7FC0_0000,
        (true, false) => b,
        (false, true) => a,
        _ if x == 0.0 && y == 0.0 => a & b & 0x8000_0000,
        _ if x > y => a,
        _ => b,
    }
}

/// The new memory value of one atomic from the spec's formula column.
fn ref_atom(def: AtomDef, old: u64, data0: u64, data1: u64) -> u64 {
    let mask = if def.wide() { u64::MAX } else { 0xFFFF_FFFF };
    let (old, d, d1) = (old & mask, data0 & mask, data1 & mask);
    let signed = |x: u64| -> i64 {
        if def.wide() {
            x as i64
        } else {
            x as u32 as i32 as i64
        }
    };
    let is_signed = def.ty.starts_with('i');
    let new = match def.op {
        "add" => old.wrapping_add(d),
        "sub" => old.wrapping_sub(d),
        "and" => old & d,
        "or" => old | d,
        "xor" => old ^ d,
        "min" if is_signed => {
            if signed(d) < signed(old) {
                d
            } else {
                old
            }
        }
        "max" if is_signed => {
            if signed(d) > signed(old) {
                d
            } else {
                old
            }
        }
        "min" => {
            if d < old {
                d
            } else {
                old
            }
        }
        "max" => {
            if d > old {
                d
            } else {
                old
            }
        }
        "xchg" => d,
        // if M[A] == data0: M[A] = data1
        "cmpxchg" => {
            if old == d {
                d1
            } else {
                old
            }
        }
        // M[A] = (old >= data) ? 0 : old + 1
        "inc" => {
            if old >= d {
                0
            } else {
                old + 1
            }
        }
        // M[A] = (old == 0 || old > data) ? data : old - 1
        "dec" => {
            if old == 0 || old > d {
                d
            } else {
                old - 1
            }
        }
        "fadd" => ref_fadd(old as u32, d as u32) as u64,
        "fmin" => ref_min_number(old as u32, d as u32) as u64,
        "fmax" => ref_max_number(old as u32, d as u32) as u64,
        other => panic!("no reference for atomic {other}"),
    };
    new & mask
}

fn read_mem(img: &[u8], i: usize, wide: bool) -> u64 {
    if wide {
        rd64(img, i)
    } else {
        rd32(img, i) as u64
    }
}

fn write_mem(img: &mut [u8], i: usize, wide: bool, v: u64) {
    if wide {
        wr64(img, i, v)
    } else {
        wr32(img, i, v as u32)
    }
}

// ---------------------------------------------------------------------------------------
// The case tables (shared by the tests and the coverage test)
// ---------------------------------------------------------------------------------------

const CACHE_OPS: [(&str, Counter); 3] = [
    ("cache.inv.l1", Counter::Vm),
    ("cache.inv.l2", Counter::Vm),
    ("cache.wb.l2", Counter::Vst),
];

fn load_cases() -> Vec<(Form, LoadTy, String)> {
    FORMS
        .iter()
        .flat_map(|&f| {
            LOAD_TYPES
                .iter()
                .map(move |&t| (f, t, format!("ld.{}.{}", f.name(), t.name)))
        })
        .collect()
}

fn store_cases() -> Vec<(Form, &'static str, usize, String)> {
    FORMS
        .iter()
        .flat_map(|&f| {
            STORE_WIDTHS
                .iter()
                .map(move |&(w, b)| (f, w, b, format!("st.{}.{w}", f.name())))
        })
        .collect()
}

fn atom_cases(rtn: bool) -> Vec<(Form, AtomDef, String)> {
    ATOM_FORMS
        .iter()
        .flat_map(|&f| ATOMS.iter().map(move |&d| (f, d, d.mnemonic(f, rtn))))
        .collect()
}

/// Uniform-load modes: (mnemonic infix, has an index register, uses a descriptor).
const ULD_MODES: [(&str, bool, bool); 4] = [
    ("", false, false),
    ("x.", true, false),
    ("buf.", false, true),
    ("bufx.", true, true),
];
const ULD_WIDTHS: [(&str, usize); 5] = [
    ("b32", 1),
    ("b64", 2),
    ("b128", 4),
    ("b256", 8),
    ("b512", 16),
];

fn uld_cases() -> Vec<(bool, bool, usize, String)> {
    ULD_MODES
        .iter()
        .flat_map(|&(infix, x, buf)| {
            ULD_WIDTHS
                .iter()
                .map(move |&(w, n)| (x, buf, n, format!("uld.{infix}{w}")))
        })
        .collect()
}

fn cpol_suffix(form: Form, on: bool) -> &'static str {
    if form.has_cpol() && on {
        ", glc slc nt"
    } else {
        ""
    }
}

// ---------------------------------------------------------------------------------------
// Loads
// ---------------------------------------------------------------------------------------

const EDGE8: [u8; 8] = [0x00, 0x01, 0x7F, 0x80, 0x81, 0xFE, 0xFF, 0x55];
const EDGE16: [u16; 8] = [
    0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF, 0x00FF,
];

/// Puts lane `l`'s edge value at `i`.
fn plant_load(img: &mut [u8], i: usize, ty: LoadTy, l: usize) {
    match ty.bytes {
        1 => img[i] = EDGE8[l % 8],
        2 => img[i..i + 2].copy_from_slice(&EDGE16[l % 8].to_le_bytes()),
        n => {
            let words: Vec<u8> = (0..4)
                .flat_map(|k| E32[(l + 3 * k) % 8].to_le_bytes())
                .collect();
            img[i..i + n].copy_from_slice(&words[..n]);
        }
    }
}

fn run_load(form: Form, ty: LoadTy, mn: &str, exec: u32, pattern: Pattern, imm: i64, cpol: bool) {
    let dw = ty.dwords();
    let instr = format!(
        "{mn} {}, {}, {imm}{}",
        tuple('v', 8, dw),
        form.addr_text(),
        cpol_suffix(form, cpol)
    );
    let ctx = format!("`{instr}` exec {exec:#010x} {pattern:?}");
    let mut m = machine(&snippet(&instr));
    assert_eq!(first_mnemonic(&m), mn, "{ctx}");
    m.waves[0].exec = exec;
    let idx = place(
        &mut m,
        form,
        &lane_offsets(form, pattern),
        imm,
        exec,
        ty.bytes,
    );
    let mut img = background(form.image_len(), 7);
    for l in 0..LANES {
        if let Some(i) = idx[l] {
            plant_load(&mut img, i, ty, l);
        } else if active(exec, l) {
            assert!(form == Form::Buf, "{ctx}: lane {l} misplaced");
        }
    }
    write_image(&mut m, form, &img);
    for r in 8..=12 {
        fill_v(&mut m, r, SENTINEL);
    }
    step_ok(&mut m, &ctx);
    for k in 0..5 {
        let exp: [u32; LANES] = std::array::from_fn(|l| {
            if k < dw && active(exec, l) {
                ref_load(&img, idx[l], ty)[k]
            } else {
                SENTINEL
            }
        });
        assert_lanes(&ctx, &format!("v{}", 8 + k), &get_v(&m, 8 + k), &exp);
    }
    assert_image(&ctx, &read_image(&m, form), &img, &[]);
    if exec != 0 {
        assert_eq!(counters(&m), one_on(form.load_counter()), "{ctx}: counters");
        assert_pending(&m, &ctx, RegFile::Vector, 8, dw, form.load_counter());
    }
}

#[test]
fn loads_all_forms_widths_and_masks() {
    for (form, ty, mn) in load_cases() {
        for (i, &exec) in MASKS.iter().enumerate() {
            run_load(form, ty, &mn, exec, Pattern::Distinct, IMM, i % 2 == 1);
        }
        run_load(form, ty, &mn, 0xA5A5_0F0F, Pattern::Same, IMM, false);
    }
}

#[test]
fn loads_with_extreme_immediates() {
    for (form, ty, mn) in load_cases() {
        // imm24 = -2^23 is sign-extended to 64 bits (and to the offset of the other forms).
        run_load(
            form,
            ty,
            &mn,
            0xA5A5_0F0F,
            Pattern::Distinct,
            -0x80_0000,
            false,
        );
        run_load(form, ty, &mn, 0xFFFF_FFFF, Pattern::Distinct, -1, false);
        if matches!(form, Form::Global | Form::Ubase) {
            run_load(
                form,
                ty,
                &mn,
                0x8000_0001,
                Pattern::Distinct,
                0x7F_FFFC,
                true,
            );
        }
    }
}

/// Sign and zero extension with the exact values 0x80 / 0xFF / 0x8000 / 0xFFFF.
#[test]
fn load_extension_exact_values() {
    let cases: [(&str, &[u8], u32); 12] = [
        ("u8", &[0x80], 0x0000_0080),
        ("i8", &[0x80], 0xFFFF_FF80),
        ("u8", &[0xFF], 0x0000_00FF),
        ("i8", &[0xFF], 0xFFFF_FFFF),
        ("i8", &[0x7F], 0x0000_007F),
        ("u16", &[0x00, 0x80], 0x0000_8000),
        ("i16", &[0x00, 0x80], 0xFFFF_8000),
        ("u16", &[0xFF, 0xFF], 0x0000_FFFF),
        ("i16", &[0xFF, 0xFF], 0xFFFF_FFFF),
        ("i16", &[0xFF, 0x7F], 0x0000_7FFF),
        ("b32", &[0x00, 0x00, 0x00, 0x80], 0x8000_0000),
        ("b32", &[0x00, 0x00, 0xC0, 0x7F], 0x7FC0_0000),
    ];
    for form in FORMS {
        for (ty, bytes, want) in cases {
            let mn = format!("ld.{}.{ty}", form.name());
            let instr = format!("{mn} v8, {}, -16", form.addr_text());
            let mut m = machine(&snippet(&instr));
            let exec = 0x8000_0001;
            let offs = [0x40; LANES];
            let idx = place(&mut m, form, &offs, -16, exec, bytes.len());
            let mut img = vec![0xA5u8; form.image_len()];
            for l in [0, 31] {
                let i = idx[l].expect("in bounds");
                img[i..i + bytes.len()].copy_from_slice(bytes);
            }
            write_image(&mut m, form, &img);
            m.waves[0].exec = exec;
            fill_v(&mut m, 8, SENTINEL);
            step_ok(&mut m, &instr);
            let mut exp = [SENTINEL; LANES];
            exp[0] = want;
            exp[31] = want;
            assert_lanes(&instr, "v8", &get_v(&m, 8), &exp);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Stores
// ---------------------------------------------------------------------------------------

fn store_data(pattern: Pattern, l: usize, k: usize) -> u32 {
    match pattern {
        Pattern::Distinct => E32[(l + 3 * k + 1) % 8],
        // Unique per lane in every byte position, so the surviving lane is identifiable.
        Pattern::Same => {
            0x8000_0000 ^ (k as u32) << 24 ^ (l as u32) << 16 ^ (l as u32) << 8 ^ (l as u32 ^ 0x40)
        }
    }
}

fn run_store(
    form: Form,
    bytes: usize,
    mn: &str,
    exec: u32,
    pattern: Pattern,
    imm: i64,
    cpol: bool,
) {
    let dw = bytes.div_ceil(4);
    let instr = format!(
        "{mn} {}, {}, {imm}{}",
        tuple('v', 8, dw),
        form.addr_text(),
        cpol_suffix(form, cpol)
    );
    let ctx = format!("`{instr}` exec {exec:#010x} {pattern:?}");
    let mut m = machine(&snippet(&instr));
    assert_eq!(first_mnemonic(&m), mn, "{ctx}");
    m.waves[0].exec = exec;
    let idx = place(&mut m, form, &lane_offsets(form, pattern), imm, exec, bytes);
    let img = background(form.image_len(), 3);
    write_image(&mut m, form, &img);
    for r in 8..=12 {
        let vals: [u32; LANES] = std::array::from_fn(|l| {
            if r - 8 < dw {
                store_data(pattern, l, r - 8)
            } else {
                SENTINEL
            }
        });
        set_v(&mut m, r, vals);
    }
    let regs_before: Vec<[u32; LANES]> = (0..16).map(|r| get_v(&m, r)).collect();
    step_ok(&mut m, &ctx);
    // "将数据寄存器低 N 位写入 A", lane by lane in ascending order.
    let mut exp = img.clone();
    for l in 0..LANES {
        if let Some(i) = idx[l] {
            for j in 0..bytes {
                exp[i + j] = (store_data(pattern, l, j / 4) >> (8 * (j % 4))) as u8;
            }
        } else if active(exec, l) {
            assert!(form == Form::Buf, "{ctx}: lane {l} misplaced");
        }
    }
    assert_image(&ctx, &read_image(&m, form), &exp, &[]);
    for (r, before) in regs_before.iter().enumerate() {
        assert_lanes(&ctx, &format!("v{r}"), &get_v(&m, r), before);
    }
    if exec != 0 {
        assert_eq!(
            counters(&m),
            one_on(form.store_counter()),
            "{ctx}: counters"
        );
        assert_no_pending(&m, &ctx, RegFile::Vector, 0..128);
    }
}

#[test]
fn stores_all_forms_widths_and_masks() {
    for (form, _, bytes, mn) in store_cases() {
        for (i, &exec) in MASKS.iter().enumerate() {
            run_store(form, bytes, &mn, exec, Pattern::Distinct, IMM, i % 2 == 0);
        }
    }
}

/// Several lanes storing to one address: the highest active lane's value stays.
#[test]
fn stores_to_one_address_keep_highest_lane() {
    for (form, _, bytes, mn) in store_cases() {
        for &exec in &MASKS {
            run_store(form, bytes, &mn, exec, Pattern::Same, IMM, false);
        }
    }
    // The same, with the expected value written out.
    for (exec, winner) in [
        (0x7FFF_FFFE_u32, 30u32),
        (0xA5A5_0F0F, 31),
        (0x0000_0F0F, 11),
    ] {
        let mut m = machine(&snippet("st.global.b32 v8, v[2:3], -16"));
        m.waves[0].exec = exec;
        place(&mut m, Form::Global, &[0x100; LANES], -16, exec, 4);
        set_v(&mut m, 8, std::array::from_fn(|l| 0x100 + l as u32));
        step_ok(&mut m, "st.global.b32");
        assert_eq!(rd32(&buffer_bytes(&m, "g"), 0x100), 0x100 + winner);
    }
}

#[test]
fn stores_with_extreme_immediates() {
    for (form, _, bytes, mn) in store_cases() {
        run_store(
            form,
            bytes,
            &mn,
            0xA5A5_0F0F,
            Pattern::Distinct,
            -0x80_0000,
            true,
        );
        if matches!(form, Form::Global | Form::Ubase) {
            run_store(
                form,
                bytes,
                &mn,
                0x8000_0001,
                Pattern::Distinct,
                0x7F_FFFC,
                false,
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Atomics
// ---------------------------------------------------------------------------------------

/// Lane-unique values (32 or 64 bits).
fn unique(def: AtomDef, l: usize) -> u64 {
    if def.wide() {
        0x9E37_79B9_7F4A_7C15u64.wrapping_mul(l as u64 + 1)
    } else {
        0x9E37_79B9u32.wrapping_mul(l as u32 + 1) as u64
    }
}

fn edge(def: AtomDef, i: usize) -> u64 {
    if def.wide() {
        E64[i % 8]
    } else if def.float() {
        EF32[i % 8] as u64
    } else {
        E32[i % 8] as u64
    }
}

/// Lane `l`'s (memory value, data0, data1). `Distinct`: rounds 0 and 1 together pair
/// every edge value with every other one. `Same`: the initial memory value (equal for
/// all lanes) and per-lane data making a chain of dependent updates.
fn atom_inputs(def: AtomDef, pattern: Pattern, round: usize, l: usize) -> (u64, u64, u64) {
    match pattern {
        Pattern::Distinct => {
            let p = round * 32 + l;
            let (i, j) = (p % 8, p / 8 % 8);
            let old = edge(def, i);
            if def.cmpxchg() {
                let d0 = if l.is_multiple_of(3) {
                    old
                } else {
                    edge(def, j)
                };
                (old, d0, unique(def, l))
            } else {
                (old, edge(def, j), 0)
            }
        }
        Pattern::Same => match def.op {
            "inc" | "dec" => (1, [3, 5, 2, 7, 0, 0xFFFF_FFFF, 1, 4][l % 8], 0),
            "fadd" => {
                let d: [f32; 8] = [
                    1.0,
                    2f32.powi(-24),
                    -0.0,
                    3.0 * 2f32.powi(-24),
                    0.5,
                    1e30,
                    -1e30,
                    2f32.powi(-24),
                ];
                (1f32.to_bits() as u64, d[l % 8].to_bits() as u64, 0)
            }
            "fmin" | "fmax" => {
                let d = match l % 8 {
                    0 => 0x7FC0_0000,
                    1 => 0x8000_0000,
                    2 => 0x0000_0000,
                    _ => ((l as f32 - 16.0) * 0.25).to_bits(),
                };
                (0x7FC0_0000, d as u64, 0)
            }
            "cmpxchg" => {
                let init = if def.wide() {
                    0x1234_5678_9ABC_DEF0
                } else {
                    0x1234_5678
                };
                // Compare with the previous lane's new value: an unbroken run of active
                // lanes all succeed, a gap makes the following lanes fail.
                let d0 = if l == 0 { init } else { unique(def, l - 1) };
                (init, d0, unique(def, l))
            }
            _ => {
                let d0 = if l.is_multiple_of(4) {
                    edge(def, l / 4)
                } else {
                    unique(def, l)
                };
                (edge(def, 3), d0, 0)
            }
        },
    }
}

fn set_atom_data(m: &mut Machine, def: AtomDef, inputs: &[(u64, u64, u64); LANES]) {
    let w = def.wide();
    for r in 8..=12 {
        fill_v(m, r, SENTINEL);
    }
    for (l, &(_, d0, d1)) in inputs.iter().enumerate() {
        let v = &mut m.waves[0].v;
        v[8][l] = d0 as u32;
        if w {
            v[9][l] = (d0 >> 32) as u32;
        }
        if def.cmpxchg() {
            if w {
                v[10][l] = d1 as u32;
                v[11][l] = (d1 >> 32) as u32;
            } else {
                v[9][l] = d1 as u32;
            }
        }
    }
}

fn run_atom(
    form: Form,
    def: AtomDef,
    mn: &str,
    rtn: bool,
    exec: u32,
    pattern: Pattern,
    round: usize,
) {
    let instr = format!(
        "{mn} {}, {}, {IMM}",
        tuple('v', 8, def.regs()),
        form.addr_text()
    );
    let ctx = format!("`{instr}` exec {exec:#010x} {pattern:?} round {round}");
    let mut m = machine(&snippet(&instr));
    assert_eq!(first_mnemonic(&m), mn, "{ctx}");
    m.waves[0].exec = exec;
    let wide = def.wide();
    let idx = place(
        &mut m,
        form,
        &lane_offsets(form, pattern),
        IMM,
        exec,
        def.bytes(),
    );
    let inputs: [(u64, u64, u64); LANES] =
        std::array::from_fn(|l| atom_inputs(def, pattern, round, l));
    let mut img = background(form.image_len(), 5);
    for l in 0..LANES {
        if let Some(i) = idx[l] {
            write_mem(&mut img, i, wide, inputs[l].0);
        } else if active(exec, l) {
            assert!(form == Form::Buf, "{ctx}: lane {l} misplaced");
        }
    }
    write_image(&mut m, form, &img);
    set_atom_data(&mut m, def, &inputs);
    let regs_before: Vec<[u32; LANES]> = (0..16).map(|r| get_v(&m, r)).collect();
    step_ok(&mut m, &ctx);

    // Reference: active lanes in ascending order; an out-of-bounds buf lane changes
    // nothing and returns 0.
    let mut exp = img.clone();
    let mut old = [0u64; LANES];
    let mut float_words = Vec::new();
    for l in 0..LANES {
        if !active(exec, l) {
            continue;
        }
        if let Some(i) = idx[l] {
            let (_, d0, d1) = inputs[l];
            old[l] = read_mem(&exp, i, wide);
            write_mem(&mut exp, i, wide, ref_atom(def, old[l], d0, d1));
            float_words.push(i);
        }
    }
    let float_words = if def.float() { float_words } else { Vec::new() };
    assert_image(&ctx, &read_image(&m, form), &exp, &float_words);
    for (r, before) in regs_before.iter().enumerate() {
        let word = r as i64 - 8;
        let expected = if rtn && (word == 0 || (word == 1 && wide)) {
            let new: [u32; LANES] = std::array::from_fn(|l| (old[l] >> (32 * word)) as u32);
            merged(exec, &new, before)
        } else {
            *before
        };
        if def.float() {
            assert_lanes_f32(&ctx, &format!("v{r}"), &get_v(&m, r), &expected);
        } else {
            assert_lanes(&ctx, &format!("v{r}"), &get_v(&m, r), &expected);
        }
    }
    if exec != 0 {
        let words = if wide { 2 } else { 1 };
        if rtn {
            assert_eq!(counters(&m), one_on(form.rtn_counter()), "{ctx}: counters");
            assert_pending(&m, &ctx, RegFile::Vector, 8, words, form.rtn_counter());
        } else {
            assert_eq!(
                counters(&m),
                one_on(form.store_counter()),
                "{ctx}: counters"
            );
            assert_no_pending(&m, &ctx, RegFile::Vector, 0..128);
        }
    }
}

fn atomics_table(rtn: bool) {
    for (form, def, mn) in atom_cases(rtn) {
        for &exec in &MASKS {
            for round in 0..2 {
                run_atom(form, def, &mn, rtn, exec, Pattern::Distinct, round);
            }
            run_atom(form, def, &mn, rtn, exec, Pattern::Same, 0);
        }
    }
}

#[test]
fn atomics_without_return_all_forms_ops_and_masks() {
    atomics_table(false);
}

#[test]
fn atomics_with_return_all_forms_ops_and_masks() {
    atomics_table(true);
}

/// Runs one atomic on the global form with lane `l` at its own address holding `mem[l]`
/// and data registers `data[k][l]` (v8..v11). Returns memory after and v8, v9.
fn atom_global(
    mn: &str,
    regs: usize,
    bytes: usize,
    exec: u32,
    mem: &[u64; LANES],
    data: &[[u32; LANES]; 4],
) -> ([u64; LANES], [u32; LANES], [u32; LANES]) {
    let instr = format!("{mn} {}, v[2:3], -8", tuple('v', 8, regs));
    let mut m = machine(&snippet(&instr));
    assert_eq!(first_mnemonic(&m), mn);
    m.waves[0].exec = exec;
    let offs: [i64; LANES] = std::array::from_fn(|l| 0x100 + 16 * l as i64);
    let idx = place(&mut m, Form::Global, &offs, -8, exec, bytes);
    let mut img = vec![0u8; G_SIZE];
    for l in 0..LANES {
        let i = offs[l] as usize;
        write_mem(&mut img, i, bytes == 8, mem[l]);
    }
    write_image(&mut m, Form::Global, &img);
    for k in 0..4 {
        set_v(&mut m, 8 + k, data[k]);
    }
    step_ok(&mut m, &instr);
    let after = buffer_bytes(&m, "g");
    let mem_after = std::array::from_fn(|l| read_mem(&after, offs[l] as usize, bytes == 8));
    assert!(idx
        .iter()
        .enumerate()
        .all(|(l, i)| i.is_some() == active(exec, l)));
    (mem_after, get_v(&m, 8), get_v(&m, 9))
}

/// One lane per case: (old, data, expected new), with written-out expected values.
fn check_atom_cases32(mn: &str, cases: &[(u32, u32, u32)]) {
    assert!(cases.len() <= 31);
    // Lane 31 runs the first case too, so the last lane is exercised.
    let lane_case = |l: usize| if l == 31 { 0 } else { l };
    let exec = ((1u64 << cases.len()) - 1) as u32 | 0x8000_0000;
    let mut mem = [0u64; LANES];
    let mut data = [[SENTINEL; LANES]; 4];
    for l in 0..LANES {
        if let Some(&(old, d, _)) = cases.get(lane_case(l)) {
            mem[l] = old as u64;
            data[0][l] = d;
        }
    }
    for rtn in [false, true] {
        let mnr = format!("{mn}{}", if rtn { ".rtn" } else { "" });
        let (after, v8, _) = atom_global(&mnr, 1, 4, exec, &mem, &data);
        for l in 0..LANES {
            let Some(&(old, d, want)) = cases.get(lane_case(l)) else {
                continue;
            };
            assert_eq!(
                after[l] as u32, want,
                "{mnr} lane {l}: old {old:#x} data {d:#x}: got {:#x}, expected {want:#x}",
                after[l]
            );
            let want_rd = if rtn { old } else { d };
            assert_eq!(v8[l], want_rd, "{mnr} lane {l}: rd");
        }
    }
}

fn check_atom_cases64(mn: &str, cases: &[(u64, u64, u64)]) {
    let exec = ((1u64 << cases.len()) - 1) as u32;
    let mut mem = [0u64; LANES];
    let mut data = [[SENTINEL; LANES]; 4];
    for (l, &(old, d, _)) in cases.iter().enumerate() {
        mem[l] = old;
        data[0][l] = d as u32;
        data[1][l] = (d >> 32) as u32;
    }
    for rtn in [false, true] {
        let mnr = format!("{mn}{}", if rtn { ".rtn" } else { "" });
        let (after, v8, v9) = atom_global(&mnr, 2, 8, exec, &mem, &data);
        for (l, &(old, d, want)) in cases.iter().enumerate() {
            assert_eq!(
                after[l], want,
                "{mnr} lane {l}: old {old:#x} data {d:#x}: got {:#x}, expected {want:#x}",
                after[l]
            );
            let want_rd = if rtn { old } else { d };
            assert_eq!(
                v8[l] as u64 | (v9[l] as u64) << 32,
                want_rd,
                "{mnr} lane {l}: rd"
            );
        }
    }
}

#[test]
fn atomic_inc_dec_wrap_formulas() {
    // inc: old >= data ? 0 : old + 1
    check_atom_cases32(
        "atom.global.inc.u32",
        &[
            (0, 0, 0),
            (0, 1, 1),
            (4, 5, 5),
            (5, 5, 0),
            (6, 5, 0),
            (0xFFFF_FFFF, 0xFFFF_FFFF, 0),
            (0xFFFF_FFFE, 0xFFFF_FFFF, 0xFFFF_FFFF),
            (7, 0, 0),
            (0x7FFF_FFFF, 0x8000_0000, 0x8000_0000),
            (0x8000_0000, 0x7FFF_FFFF, 0),
        ],
    );
    // dec: old == 0 || old > data ? data : old - 1
    check_atom_cases32(
        "atom.global.dec.u32",
        &[
            (0, 9, 9),
            (10, 9, 9),
            (9, 9, 8),
            (1, 9, 0),
            (1, 0, 0),
            (0, 0, 0),
            (0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFE),
            (0xFFFF_FFFF, 5, 5),
            (0x8000_0000, 0x7FFF_FFFF, 0x7FFF_FFFF),
            (0, 0xFFFF_FFFF, 0xFFFF_FFFF),
        ],
    );
}

#[test]
fn atomic_signed_and_unsigned_min_max() {
    const MIN: u32 = 0x8000_0000;
    const MAX: u32 = 0x7FFF_FFFF;
    const M1: u32 = 0xFFFF_FFFF;
    check_atom_cases32(
        "atom.global.min.i32",
        &[
            (MIN, M1, MIN),
            (M1, MIN, MIN),
            (MAX, MIN, MIN),
            (0, M1, M1),
            (M1, 0, M1),
            (5, 5, 5),
        ],
    );
    check_atom_cases32(
        "atom.global.max.i32",
        &[
            (MIN, M1, M1),
            (M1, MIN, M1),
            (MAX, MIN, MAX),
            (0, M1, 0),
            (M1, 0, 0),
            (MIN, MAX, MAX),
        ],
    );
    check_atom_cases32(
        "atom.global.min.u32",
        &[
            (MIN, M1, MIN),
            (M1, MIN, MIN),
            (MAX, MIN, MAX),
            (0, M1, 0),
            (M1, 0, 0),
        ],
    );
    check_atom_cases32(
        "atom.global.max.u32",
        &[
            (MIN, M1, M1),
            (M1, MIN, M1),
            (MAX, MIN, MIN),
            (0, M1, M1),
            (M1, 0, M1),
        ],
    );
    const MIN64: u64 = 0x8000_0000_0000_0000;
    const MAX64: u64 = 0x7FFF_FFFF_FFFF_FFFF;
    const M164: u64 = u64::MAX;
    const LOW: u64 = 0x0000_0000_FFFF_FFFF;
    check_atom_cases64(
        "atom.global.min.i64",
        &[
            (MIN64, M164, MIN64),
            (MAX64, MIN64, MIN64),
            (0, M164, M164),
            (LOW, 0, 0),
            (LOW, M164, M164),
        ],
    );
    check_atom_cases64(
        "atom.global.max.i64",
        &[
            (MIN64, M164, M164),
            (MAX64, MIN64, MAX64),
            (0, M164, 0),
            (LOW, 0, LOW),
            (M164, LOW, LOW),
        ],
    );
    check_atom_cases64(
        "atom.global.min.u64",
        &[
            (MIN64, M164, MIN64),
            (MAX64, MIN64, MAX64),
            (0, M164, 0),
            (LOW, M164, LOW),
        ],
    );
    check_atom_cases64(
        "atom.global.max.u64",
        &[
            (MIN64, M164, M164),
            (MAX64, MIN64, MIN64),
            (0, M164, M164),
            (LOW, 0x1_0000_0000, 0x1_0000_0000),
        ],
    );
    check_atom_cases64(
        "atom.global.add.u64",
        &[
            (LOW, 1, 0x1_0000_0000),
            (M164, 1, 0),
            (MAX64, 1, MIN64),
            (0x8000_0000, 0x8000_0000, 0x1_0000_0000),
        ],
    );
}

#[test]
fn atomic_fadd_rounds_to_nearest_even() {
    let one = 0x3F80_0000;
    check_atom_cases32(
        "atom.global.fadd.f32",
        &[
            // 1 + 2^-24: exactly half an ulp, ties to the even 1.0.
            (one, 0x3380_0000, one),
            // 1 + 3 * 2^-24 = 1 + 1.5 ulp: tie between 1 + 1 ulp (odd) and 1 + 2 ulp (even).
            (one, 0x3440_0000, 0x3F80_0002),
            // 1 + 2^-24 + 2^-30: above half an ulp, rounds up.
            (one, 0x3381_0000, 0x3F80_0001),
            // (1 + 1 ulp) + 2^-24: tie, rounds up to the even 1 + 2 ulp.
            (0x3F80_0001, 0x3380_0000, 0x3F80_0002),
            (0x0000_0000, 0x8000_0000, 0x0000_0000),
            (0x8000_0000, 0x8000_0000, 0x8000_0000),
            (0x7F7F_FFFF, 0x7F7F_FFFF, 0x7F80_0000),
            (0x4040_0000, 0xC040_0000, 0x0000_0000),
            (0xFF80_0000, 0xBF80_0000, 0xFF80_0000),
        ],
    );
}

#[test]
fn atomic_fmin_fmax_minimum_maximum_number() {
    const P0: u32 = 0x0000_0000;
    const N0: u32 = 0x8000_0000;
    const QNAN: u32 = 0x7FC0_0000;
    const SNAN: u32 = 0x7F80_0001;
    const FIVE: u32 = 0x40A0_0000;
    const NEG1: u32 = 0xBF80_0000;
    check_atom_cases32(
        "atom.global.fmin.f32",
        &[
            (P0, N0, N0),
            (N0, P0, N0),
            (QNAN, FIVE, FIVE),
            (FIVE, QNAN, FIVE),
            (SNAN, NEG1, NEG1),
            (NEG1, SNAN, NEG1),
            (FIVE, NEG1, NEG1),
            (0xFF80_0000, FIVE, 0xFF80_0000),
        ],
    );
    check_atom_cases32(
        "atom.global.fmax.f32",
        &[
            (P0, N0, P0),
            (N0, P0, P0),
            (QNAN, FIVE, FIVE),
            (FIVE, QNAN, FIVE),
            (SNAN, NEG1, NEG1),
            (NEG1, SNAN, NEG1),
            (FIVE, NEG1, FIVE),
            (0x7F80_0000, FIVE, 0x7F80_0000),
        ],
    );
}

/// cmpxchg data layout: b32 compares with v[d] and stores v[d+1]; b64 compares with
/// v[d:d+1] and stores v[d+2:d+3]. Returning forms write the old value to v[d] (b64:
/// v[d:d+1]) only.
#[test]
fn atomic_cmpxchg_operand_layout() {
    let exec = 0x8000_000F;
    let mem: [u64; LANES] = std::array::from_fn(|l| 0x1111_0000 + l as u64);
    let mut data = [[0u32; LANES]; 4];
    for l in 0..LANES {
        // Lanes 0, 2 and 31 compare equal.
        data[0][l] = if l % 2 == 0 || l == 31 {
            0x1111_0000 + l as u32
        } else {
            0x2222_0000
        };
        data[1][l] = 0xCAFE_0000 + l as u32;
        data[2][l] = 0xBAD0_0000;
        data[3][l] = 0xBAD1_0000;
    }
    for rtn in [false, true] {
        let mn = format!("atom.global.cmpxchg.b32{}", if rtn { ".rtn" } else { "" });
        let (after, v8, v9) = atom_global(&mn, 2, 4, exec, &mem, &data);
        for l in [0, 1, 2, 3, 31] {
            let swapped = l % 2 == 0 || l == 31;
            let want = if swapped {
                0xCAFE_0000 + l as u64
            } else {
                mem[l]
            };
            assert_eq!(after[l], want, "{mn} lane {l}");
            assert_eq!(
                v8[l],
                if rtn { mem[l] as u32 } else { data[0][l] },
                "{mn} lane {l} v8"
            );
            assert_eq!(
                v9[l], data[1][l],
                "{mn} lane {l}: v9 (new value) is not a destination"
            );
        }
        assert_eq!(after[4], mem[4], "inactive lane 4");
    }

    let mem64: [u64; LANES] = std::array::from_fn(|l| 0x8000_0000_0000_0000 | (l as u64) << 32 | 7);
    let mut data = [[0u32; LANES]; 4];
    for l in 0..LANES {
        let cmp = if l % 2 == 0 || l == 31 {
            mem64[l]
        } else {
            // Differs only in the high word: a 32-bit compare would wrongly succeed.
            mem64[l] ^ 0x1_0000_0000
        };
        data[0][l] = cmp as u32;
        data[1][l] = (cmp >> 32) as u32;
        data[2][l] = 0x5555_0000 + l as u32;
        data[3][l] = 0x6666_0000;
    }
    for rtn in [false, true] {
        let mn = format!("atom.global.cmpxchg.b64{}", if rtn { ".rtn" } else { "" });
        let instr = format!("{mn} v[8:11], v[2:3], -8");
        let mut m = machine(&snippet(&instr));
        m.waves[0].exec = exec;
        let offs: [i64; LANES] = std::array::from_fn(|l| 0x100 + 16 * l as i64);
        place(&mut m, Form::Global, &offs, -8, exec, 8);
        let mut img = vec![0u8; G_SIZE];
        for l in 0..LANES {
            wr64(&mut img, offs[l] as usize, mem64[l]);
        }
        write_image(&mut m, Form::Global, &img);
        for k in 0..4 {
            set_v(&mut m, 8 + k, data[k]);
        }
        step_ok(&mut m, &instr);
        let after = buffer_bytes(&m, "g");
        for l in [0, 1, 2, 3, 31] {
            let swapped = l % 2 == 0 || l == 31;
            let want = if swapped {
                0x6666_0000_5555_0000 + l as u64
            } else {
                mem64[l]
            };
            assert_eq!(rd64(&after, offs[l] as usize), want, "{mn} lane {l}");
            let rd = get_v(&m, 8)[l] as u64 | (get_v(&m, 9)[l] as u64) << 32;
            let want_rd = if rtn {
                mem64[l]
            } else {
                data[0][l] as u64 | (data[1][l] as u64) << 32
            };
            assert_eq!(rd, want_rd, "{mn} lane {l}: v[8:9]");
            assert_eq!(get_v(&m, 10)[l], data[2][l], "{mn} lane {l}: v10");
            assert_eq!(get_v(&m, 11)[l], data[3][l], "{mn} lane {l}: v11");
        }
    }
}

/// 32 lanes of one atomic add to one address: the sum; returning lanes see the running
/// sum before their own addition (ascending lane order).
#[test]
fn atomic_add_from_all_lanes_to_one_address() {
    for form in ATOM_FORMS {
        for rtn in [false, true] {
            for exec in [0xFFFF_FFFFu32, 0xA5A5_0F0F] {
                let mn = a("add", "u32").mnemonic(form, rtn);
                let instr = format!("{mn} v8, {}, -16", form.addr_text());
                let mut m = machine(&snippet(&instr));
                m.waves[0].exec = exec;
                let idx = place(&mut m, form, &[0x80; LANES], -16, exec, 4);
                let i = idx[31].expect("lane 31 in bounds");
                let mut img = vec![0u8; form.image_len()];
                wr32(&mut img, i, 1000);
                write_image(&mut m, form, &img);
                set_v(&mut m, 8, std::array::from_fn(|l| l as u32 + 1));
                step_ok(&mut m, &instr);
                let total: u32 = (0..32u32)
                    .filter(|l| active(exec, *l as usize))
                    .map(|l| l + 1)
                    .sum();
                if exec == u32::MAX {
                    assert_eq!(total, 528);
                }
                assert_eq!(rd32(&read_image(&m, form), i), 1000 + total, "{instr}");
                let v8 = get_v(&m, 8);
                for l in 0..LANES {
                    let want = if !active(exec, l) || !rtn {
                        l as u32 + 1
                    } else {
                        1000 + (0..l as u32)
                            .filter(|j| active(exec, *j as usize))
                            .map(|j| j + 1)
                            .sum::<u32>()
                    };
                    assert_eq!(v8[l], want, "{instr} exec {exec:#x} lane {l}");
                }
            }
        }
    }
}

/// xchg from several lanes to one address leaves the highest active lane's value; the
/// returned values chain (each lane sees the previous active lane's value).
#[test]
fn atomic_xchg_from_several_lanes_keeps_highest() {
    for form in ATOM_FORMS {
        for (exec, highest) in [
            (0x5A5A_F0F0u32, 30usize),
            (0xA5A5_0F0F, 31),
            (0x0000_0100, 8),
        ] {
            let mn = a("xchg", "b32").mnemonic(form, true);
            let instr = format!("{mn} v8, {}, -16", form.addr_text());
            let mut m = machine(&snippet(&instr));
            m.waves[0].exec = exec;
            let idx = place(&mut m, form, &[0x80; LANES], -16, exec, 4);
            let i = idx[highest].expect("in bounds");
            let mut img = vec![0u8; form.image_len()];
            wr32(&mut img, i, 0xFFFF_FFFF);
            write_image(&mut m, form, &img);
            set_v(&mut m, 8, std::array::from_fn(|l| 0x100 + l as u32));
            step_ok(&mut m, &instr);
            assert_eq!(
                rd32(&read_image(&m, form), i),
                0x100 + highest as u32,
                "{instr}"
            );
            let v8 = get_v(&m, 8);
            let mut prev = 0xFFFF_FFFF;
            for l in 0..LANES {
                if active(exec, l) {
                    assert_eq!(v8[l], prev, "{instr} lane {l}");
                    prev = 0x100 + l as u32;
                } else {
                    assert_eq!(v8[l], 0x100 + l as u32, "{instr} inactive lane {l}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Buffer descriptors
// ---------------------------------------------------------------------------------------

/// Every buf instruction: the main tables already mix in-bounds lanes with straddling,
/// far, negative and huge offsets; here each lane hits one boundary exactly.
#[test]
fn buf_bounds_exact_boundaries() {
    // Descriptor: base g + 0x400, size 0x201. Offsets per width (all aligned):
    // last in-bounds element, straddling the end, just past the end.
    for (form, ty, mn) in load_cases() {
        if form != Form::Buf {
            continue;
        }
        let b = ty.bytes as i64;
        let last = (DESC_SIZE as i64 - b) & !(b.min(4) - 1);
        let offs: [i64; LANES] = std::array::from_fn(|l| match l % 4 {
            0 => last,
            1 => DESC_SIZE as i64 - 1,
            2 => 0x400,
            _ => 0,
        });
        let exec = 0xFFFF_FFFF;
        let instr = format!("{mn} {}, u[4:7], v2, -16", tuple('v', 8, ty.dwords()));
        let mut m = machine(&snippet(&instr));
        let idx = place(&mut m, form, &offs, -16, exec, ty.bytes);
        let img = background(G_SIZE, 9);
        write_image(&mut m, form, &img);
        for r in 8..=12 {
            fill_v(&mut m, r, SENTINEL);
        }
        step_ok(&mut m, &instr);
        for l in 0..LANES {
            let want = ref_load(&img, idx[l], ty);
            let in_bounds = match l % 4 {
                0 | 3 => true,
                1 => ty.bytes == 1,
                _ => false,
            };
            assert_eq!(idx[l].is_some(), in_bounds, "{instr} lane {l}: test layout");
            for k in 0..ty.dwords() {
                assert_eq!(get_v(&m, 8 + k)[l], want[k], "{instr} lane {l} word {k}");
            }
            if !in_bounds {
                assert_eq!(want, [0; 4]);
            }
        }
    }
}

/// A straddling access is entirely out of bounds: a load reads 0 in every byte, a store
/// writes no byte, an atomic changes nothing and returns 0.
#[test]
fn buf_partial_overlap_is_entirely_out_of_bounds() {
    let straddle = DESC_SIZE as i64 - 1; // 0x200: 8-aligned, one byte inside
    let exec = 0x8000_0001;
    let at = DESC_OFF + straddle as usize;
    for (mn, regs) in [
        ("ld.buf.b32", 1),
        ("ld.buf.u16", 1),
        ("ld.buf.b64", 2),
        ("ld.buf.b128", 4),
        ("st.buf.b16", 1),
        ("st.buf.b32", 1),
        ("st.buf.b128", 4),
        ("atom.buf.add.u32.rtn", 1),
        ("atom.buf.xchg.b64.rtn", 2),
        ("atom.buf.cmpxchg.b32.rtn", 2),
    ] {
        let instr = format!("{mn} {}, u[4:7], v2, -16", tuple('v', 8, regs));
        let mut m = machine(&snippet(&instr));
        m.waves[0].exec = exec;
        let idx = place(&mut m, Form::Buf, &[straddle; LANES], -16, exec, 2);
        assert!(
            idx[0].is_none() && idx[31].is_none(),
            "layout: straddles the end"
        );
        let mut img = background(G_SIZE, 1);
        img[at..at + 16].copy_from_slice(&[0x77; 16]);
        write_image(&mut m, Form::Buf, &img);
        for r in 8..=12 {
            fill_v(&mut m, r, 0x1234_5678);
        }
        step_ok(&mut m, &instr);
        assert_image(&instr, &buffer_bytes(&m, "g"), &img, &[]);
        let ld_or_rtn = mn.starts_with("ld") || mn.ends_with(".rtn");
        let rd_words = if mn.starts_with("ld") {
            regs
        } else if mn.contains("64") {
            2
        } else {
            1
        };
        for k in 0..5 {
            let v = get_v(&m, 8 + k);
            for l in 0..LANES {
                let want = if ld_or_rtn && active(exec, l) && k < rd_words {
                    0
                } else {
                    0x1234_5678
                };
                assert_eq!(v[l], want, "{instr} lane {l} v{}", 8 + k);
            }
        }
    }
}

/// A null descriptor (valid bit clear, or base 0) reads 0 and drops stores and atomics
/// (returning 0), for every buf instruction.
#[test]
fn buf_null_descriptor_every_instruction() {
    let mut cases: Vec<(String, usize, usize, bool)> = Vec::new(); // mnemonic, regs, rd words, writes rd
    for (form, ty, mn) in load_cases() {
        if form == Form::Buf {
            cases.push((mn, ty.dwords(), ty.dwords(), true));
        }
    }
    for (form, _, bytes, mn) in store_cases() {
        if form == Form::Buf {
            cases.push((mn, bytes.div_ceil(4), 0, false));
        }
    }
    for rtn in [false, true] {
        for (form, def, mn) in atom_cases(rtn) {
            if form == Form::Buf {
                cases.push((mn, def.regs(), if def.wide() { 2 } else { 1 }, rtn));
            }
        }
    }
    for (mn, regs, rd_words, writes) in cases {
        let instr = format!("{mn} {}, u[4:7], v2, -16", tuple('v', 8, regs));
        for (what, desc_base_off, flags) in [
            ("flags 0", Some(0u64), 0u32),
            ("flags 0xfffffffe", Some(0), 0xFFFF_FFFE),
            ("base 0", None, 1),
        ] {
            for exec in [0xA5A5_0F0Fu32, 0xFFFF_FFFF] {
                let ctx = format!("`{instr}` null descriptor ({what}) exec {exec:#x}");
                let mut m = machine(&snippet(&instr));
                m.waves[0].exec = exec;
                let gbase = m.buffer_base("g").expect("g");
                let base = desc_base_off.map_or(0, |o| gbase + o);
                m.waves[0].u[4..8].copy_from_slice(&[
                    base as u32,
                    (base >> 32) as u32,
                    0x1000,
                    flags,
                ]);
                set_v(&mut m, 2, std::array::from_fn(|l| 16 + 16 * l as u32));
                let img = background(G_SIZE, 2);
                write_image(&mut m, Form::Buf, &img);
                for r in 8..=12 {
                    fill_v(&mut m, r, 0x0BAD_F00D);
                }
                step_ok(&mut m, &ctx);
                assert_image(&ctx, &buffer_bytes(&m, "g"), &img, &[]);
                for k in 0..5 {
                    let v = get_v(&m, 8 + k);
                    for l in 0..LANES {
                        let want = if writes && active(exec, l) && k < rd_words {
                            0
                        } else {
                            0x0BAD_F00D
                        };
                        assert_eq!(v[l], want, "{ctx}: lane {l} v{}", 8 + k);
                    }
                }
            }
        }
    }
}

/// The descriptor's base is added: a descriptor in the middle of the buffer.
#[test]
fn buf_descriptor_base_and_offset() {
    let mut m = machine(&snippet("ld.buf.b32 v8, u[4:7], v2, -4"));
    let gbase = m.buffer_base("g").expect("g");
    let base = gbase + 0x1000;
    m.waves[0].u[4..8].copy_from_slice(&[base as u32, (base >> 32) as u32, 0x100, 1]);
    set_v(&mut m, 2, std::array::from_fn(|l| 4 + 4 * l as u32));
    let img: Vec<u8> = (0..G_SIZE / 4)
        .flat_map(|i| (i as u32 * 4).to_le_bytes())
        .collect();
    write_image(&mut m, Form::Buf, &img);
    step_ok(&mut m, "ld.buf.b32");
    let want: [u32; LANES] = std::array::from_fn(|l| 0x1000 + 4 * l as u32);
    assert_lanes("ld.buf.b32", "v8", &get_v(&m, 8), &want);
}

// ---------------------------------------------------------------------------------------
// ubase: zext(s1)
// ---------------------------------------------------------------------------------------

#[test]
fn ubase_zero_extends_s1() {
    // U64 = g + 0x100 - 0xFFFF_FFFC: with s1 = 0xFFFF_FFFC zero-extended the address is
    // g + 0x100 (+ imm); sign-extended it would be g + 0x100 - 2^32 (unmapped).
    for (mn, regs) in [
        ("ld.ubase.b32", 1),
        ("ld.ubase.b128", 4),
        ("ld.ubase.i8", 1),
        ("st.ubase.b32", 1),
        ("st.ubase.b64", 2),
        ("atom.ubase.add.u32.rtn", 1),
        ("atom.ubase.xor.b64", 2),
    ] {
        for imm in [0i64, -16, 16] {
            let instr = format!("{mn} {}, u[0:1], v2, {imm}", tuple('v', 8, regs));
            let mut m = machine(&snippet(&instr));
            let gbase = m.buffer_base("g").expect("g");
            let exec = 0x8000_0000;
            m.waves[0].exec = exec;
            let u = gbase + 0x100 - 0xFFFF_FFFC;
            m.waves[0].u[0] = u as u32;
            m.waves[0].u[1] = (u >> 32) as u32;
            fill_v(&mut m, 2, 0xFFFF_FFFC);
            let img = background(G_SIZE, 4);
            write_image(&mut m, Form::Ubase, &img);
            for k in 0..4 {
                fill_v(&mut m, 8 + k, 0x0101_0101 * (k as u32 + 1));
            }
            step_ok(&mut m, &instr);
            let at = (0x100 + imm) as usize;
            let after = buffer_bytes(&m, "g");
            if mn.starts_with("ld") {
                if mn.ends_with("i8") {
                    let b = img[at] as u32;
                    let want = if b & 0x80 != 0 { b | 0xFFFF_FF00 } else { b };
                    assert_eq!(get_v(&m, 8)[31], want, "{instr}");
                } else {
                    for k in 0..regs {
                        assert_eq!(
                            get_v(&m, 8 + k)[31],
                            rd32(&img, at + 4 * k),
                            "{instr} word {k}"
                        );
                    }
                }
            } else if mn.starts_with("st") {
                for k in 0..regs {
                    assert_eq!(
                        rd32(&after, at + 4 * k),
                        0x0101_0101 * (k as u32 + 1),
                        "{instr}"
                    );
                }
            } else if mn.contains("add") {
                assert_eq!(
                    rd32(&after, at),
                    rd32(&img, at).wrapping_add(0x0101_0101),
                    "{instr}"
                );
                assert_eq!(get_v(&m, 8)[31], rd32(&img, at), "{instr}: old value");
            } else {
                let d = 0x0101_0101u64 | 0x0202_0202u64 << 32;
                assert_eq!(rd64(&after, at), rd64(&img, at) ^ d, "{instr}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------------------

/// Runs `mn` (data/destination `regs` registers) with the given per-lane offsets and
/// requires a fault of the expected kind naming exactly `lanes`, with no register or
/// memory written.
fn run_fault(
    form: Form,
    mn: &str,
    regs: usize,
    exec: u32,
    offs: &[i64; LANES],
    lanes: u32,
    kind_ok: &dyn Fn(&FaultKind) -> bool,
) {
    let instr = format!("{mn} {}, {}, -16", tuple('v', 8, regs), form.addr_text());
    let ctx = format!("`{instr}` exec {exec:#010x}");
    let mut m = machine(&snippet(&instr));
    m.waves[0].exec = exec;
    place(&mut m, form, offs, -16, exec, 4);
    let img = background(form.image_len(), 6);
    write_image(&mut m, form, &img);
    for r in 8..=12 {
        set_v(
            &mut m,
            r,
            std::array::from_fn(|l| 0x5000_0000 + (r * 64 + l) as u32),
        );
    }
    let v_before = m.waves[0].v.clone();
    let u_before = m.waves[0].u;
    let f = step_fault(&mut m, &ctx);
    assert!(kind_ok(&f.kind), "{ctx}: fault kind {:?}", f.kind);
    assert_eq!(
        f.lanes, lanes,
        "{ctx}: faulting lanes {:#010x}, expected {lanes:#010x}",
        f.lanes
    );
    assert_eq!(f.pc, 0, "{ctx}: fault pc");
    assert_eq!(m.waves[0].state, WaveState::Faulted, "{ctx}");
    assert_image(&ctx, &read_image(&m, form), &img, &[]);
    if form != Form::Shared && form != Form::Scratch {
        assert_eq!(m.slots[0].shared.to_vec(), vec![0; SHARED], "{ctx}: shared");
    }
    assert!(m.waves[0].v == v_before, "{ctx}: a vector register changed");
    assert_eq!(m.waves[0].u, u_before, "{ctx}: a uniform register changed");
}

fn with_lanes(base: [i64; LANES], lanes: &[usize], off: impl Fn(i64) -> i64) -> [i64; LANES] {
    let mut o = base;
    for &l in lanes {
        o[l] = off(base[l]);
    }
    o
}

#[test]
fn fault_misaligned_b32() {
    let exec = 0xA5A5_0F0F; // lanes 3 and 31 active, lane 12 inactive
    for form in FORMS {
        let offs = with_lanes(lane_offsets(form, Pattern::Distinct), &[3, 12, 31], |o| {
            o + 2
        });
        let mut mns = vec![
            (format!("ld.{}.b32", form.name()), 1),
            (format!("ld.{}.i16", form.name()), 1),
            (format!("st.{}.b32", form.name()), 1),
        ];
        if form != Form::Scratch {
            mns.push((a("add", "u32").mnemonic(form, false), 1));
            mns.push((a("add", "u32").mnemonic(form, true), 1));
            mns.push((a("cmpxchg", "b32").mnemonic(form, true), 2));
        }
        for (mn, regs) in mns {
            // i16 at +2 is aligned: make it odd instead.
            let offs = if mn.ends_with("i16") {
                with_lanes(lane_offsets(form, Pattern::Distinct), &[3, 12, 31], |o| {
                    o + 1
                })
            } else {
                offs
            };
            let space = form.space();
            run_fault(
                form,
                &mn,
                regs,
                exec,
                &offs,
                1 << 3 | 1 << 31,
                &|k| matches!(k, FaultKind::Misaligned { space: s, .. } if *s == space),
            );
        }
    }
}

#[test]
fn fault_misaligned_b64_atomic() {
    let exec = 0xA5A5_0F0F;
    for form in ATOM_FORMS {
        let offs = with_lanes(lane_offsets(form, Pattern::Distinct), &[1, 12, 31], |o| {
            o + 4
        });
        for rtn in [false, true] {
            for def in [
                a("add", "u64"),
                a("xchg", "b64"),
                a("cmpxchg", "b64"),
                a("min", "i64"),
            ] {
                let space = form.space();
                run_fault(
                    form,
                    &def.mnemonic(form, rtn),
                    def.regs(),
                    exec,
                    &offs,
                    1 << 1 | 1 << 31,
                    &|k| matches!(k, FaultKind::Misaligned { space: s, align: 8 } if *s == space),
                );
            }
        }
    }
}

#[test]
fn fault_shared_out_of_window() {
    let exec = 0xA5A5_0F0F;
    let base = lane_offsets(Form::Shared, Pattern::Distinct);
    let w = SHARED as i64;
    let is_oow = |k: &FaultKind| matches!(k, FaultKind::OutOfWindow { space: Space::Shared, size } if *size == SHARED as u64);
    for (mn, regs, off) in [
        ("ld.shared.b32", 1, w),
        ("ld.shared.u8", 1, w),
        ("ld.shared.b64", 2, w),
        ("ld.shared.b96", 3, w - 8),
        ("ld.shared.b32", 1, -16),
        ("st.shared.b128", 4, w + 16),
        ("st.shared.b8", 1, w + 0x100),
        ("atom.shared.add.u32", 1, w),
        ("atom.shared.add.u64.rtn", 2, w),
        ("atom.shared.cmpxchg.b32.rtn", 2, -4),
    ] {
        let offs = with_lanes(base, &[0, 12, 31], |_| off);
        run_fault(Form::Shared, mn, regs, exec, &offs, 1 | 1 << 31, &is_oow);
    }
}

#[test]
fn fault_scratch_out_of_window() {
    let exec = 0xA5A5_0F0F;
    let base = lane_offsets(Form::Scratch, Pattern::Distinct);
    let w = SCRATCH as i64;
    let is_oow = |k: &FaultKind| matches!(k, FaultKind::OutOfWindow { space: Space::Scratch, size } if *size == SCRATCH as u64);
    for (mn, regs, off) in [
        ("ld.scratch.b32", 1, w),
        ("ld.scratch.i8", 1, w),
        ("ld.scratch.b64", 2, w),
        ("ld.scratch.b96", 3, w - 8),
        ("ld.scratch.b32", 1, -16),
        ("st.scratch.b128", 4, w),
        ("st.scratch.b16", 1, w),
    ] {
        let offs = with_lanes(base, &[0, 12, 31], |_| off);
        run_fault(Form::Scratch, mn, regs, exec, &offs, 1 | 1 << 31, &is_oow);
    }
}

#[test]
fn fault_unallocated_global() {
    let exec = 0xA5A5_0F0F;
    let is_unmapped = |k: &FaultKind| matches!(k, FaultKind::Unmapped);
    let g = G_SIZE as i64;
    for form in [Form::Global, Form::Ubase] {
        let base = lane_offsets(form, Pattern::Distinct);
        for (op, ty_regs, off) in [
            ("ld.{}.b32", 1, g),
            ("ld.{}.b32", 1, -16),
            ("ld.{}.b96", 3, g - 8),
            ("ld.{}.b128", 4, g),
            ("st.{}.b32", 1, g),
            ("st.{}.b8", 1, -1),
            ("atom.{}.add.u32.rtn", 1, g),
            ("atom.{}.or.b64", 2, -8),
        ] {
            let mn = op.replace("{}", form.name());
            let offs = with_lanes(base, &[0, 12, 31], |_| off);
            run_fault(form, &mn, ty_regs, exec, &offs, 1 | 1 << 31, &is_unmapped);
        }
    }
    // A fault of lane 31 alone.
    let offs = with_lanes(lane_offsets(Form::Global, Pattern::Distinct), &[31], |_| g);
    run_fault(
        Form::Global,
        "ld.global.b32",
        1,
        0x8000_0000,
        &offs,
        1 << 31,
        &is_unmapped,
    );
}

/// Inactive lanes are not accessed: unmapped, out-of-window or misaligned addresses in
/// inactive lanes raise no fault.
#[test]
fn inactive_lanes_with_bad_addresses_do_not_fault() {
    let exec = 0x0000_F00F;
    for form in FORMS {
        let mut mns = vec![
            format!("ld.{}.b32", form.name()),
            format!("st.{}.b64", form.name()),
        ];
        if form != Form::Scratch {
            mns.push(a("add", "u32").mnemonic(form, true));
            mns.push(a("cmpxchg", "b64").mnemonic(form, false));
        }
        for mn in mns {
            let regs = if mn.contains("cmpxchg") {
                4
            } else if mn.contains("64") {
                2
            } else {
                1
            };
            let instr = format!("{mn} {}, {}, -16", tuple('v', 8, regs), form.addr_text());
            let mut m = machine(&snippet(&instr));
            m.waves[0].exec = exec;
            place(
                &mut m,
                form,
                &lane_offsets(form, Pattern::Distinct),
                -16,
                exec,
                8,
            );
            for l in 0..LANES {
                if !active(exec, l) {
                    let w = &mut m.waves[0];
                    w.v[2][l] = 0xFFFF_FF02;
                    w.v[3][l] = 0x0000_0003;
                }
            }
            if let Some(e) = step(&mut m) {
                panic!("`{instr}`: inactive lanes faulted: {e:?}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Uniform loads
// ---------------------------------------------------------------------------------------

/// One uld scenario: register values and the expected dwords (None: index-free).
struct UldScenario {
    imm: i64,
    /// u3 (the index register of .x / .bufx).
    index: u32,
    /// The descriptor: (base offset in g, size, flags); base offset None means base 0.
    desc: (Option<u64>, u32, u32),
}

/// `uld.*`: ignores EXEC; A = U64[u1] + (u2) + sext(imm) or DESC.base + (u2) + sext(imm)
/// where every out-of-bounds dword (or all, for a null descriptor) reads 0.
fn run_uld(x: bool, buf: bool, n: usize, mn: &str, sc: &UldScenario) {
    let instr = match (x, buf) {
        (false, false) => format!("{mn} {}, u[0:1], {}", tuple('u', 16, n), sc.imm),
        (true, false) => format!("{mn} {}, u[0:1], u3, {}", tuple('u', 16, n), sc.imm),
        (false, true) => format!("{mn} {}, u[4:7], {}", tuple('u', 16, n), sc.imm),
        (true, true) => format!("{mn} {}, u[4:7], u3, {}", tuple('u', 16, n), sc.imm),
    };
    let img: Vec<u8> = (0..G_SIZE / 4)
        .flat_map(|i| (E32[i % 8] ^ (i as u32) << 8).to_le_bytes())
        .collect();
    let mut results = Vec::new();
    for &exec in &MASKS {
        let ctx = format!("`{instr}` exec {exec:#010x} index {:#x}", sc.index);
        let mut m = machine(&snippet(&instr));
        assert_eq!(first_mnemonic(&m), mn, "{ctx}");
        m.waves[0].exec = exec;
        let gbase = m.buffer_base("g").expect("g");
        write_image(&mut m, Form::Global, &img);
        let w = &mut m.waves[0];
        for r in 8..64 {
            w.u[r] = SENTINEL;
        }
        w.u[3] = sc.index;
        // Plain forms: U64[u1] = g + 0x200 - imm, so that A = g + 0x200 (+ u2).
        let base = (gbase as i64 + 0x200 - sc.imm) as u64;
        w.u[0] = base as u32;
        w.u[1] = (base >> 32) as u32;
        let (doff, dsize, dflags) = sc.desc;
        let dbase = doff.map_or(0, |o| gbase + o);
        w.u[4..8].copy_from_slice(&[dbase as u32, (dbase >> 32) as u32, dsize, dflags]);
        let u_before = w.u;
        let v_before = w.v.clone();
        step_ok(&mut m, &ctx);
        let idx = if x { sc.index as i64 } else { 0 };
        let exp: Vec<u32> = (0..n)
            .map(|k| {
                let off = idx + sc.imm + 4 * k as i64;
                if buf {
                    let valid = dflags & 1 == 1 && dbase != 0;
                    if valid && off >= 0 && off + 4 <= dsize as i64 {
                        rd32(&img, (doff.unwrap_or(0) as i64 + off) as usize)
                    } else {
                        0
                    }
                } else {
                    rd32(&img, (0x200 + idx + 4 * k as i64) as usize)
                }
            })
            .collect();
        let u = m.waves[0].u;
        for r in 0..64 {
            let want = if (16..16 + n).contains(&r) {
                exp[r - 16]
            } else {
                u_before[r]
            };
            assert_eq!(
                u[r], want,
                "{ctx}: u{r}: got {:#010x}, expected {want:#010x}",
                u[r]
            );
        }
        assert!(m.waves[0].v == v_before, "{ctx}: a vector register changed");
        assert_eq!(buffer_bytes(&m, "g"), img, "{ctx}: memory changed");
        assert_eq!(
            counters(&m),
            one_on(Counter::Sm),
            "{ctx}: counters (uld ignores EXEC)"
        );
        assert_pending(&m, &ctx, RegFile::Uniform, 16, n, Counter::Sm);
        assert_no_pending(&m, &ctx, RegFile::Vector, 0..128);
        results.push(u);
    }
    assert!(
        results.windows(2).all(|w| w[0] == w[1]),
        "`{instr}`: result depends on EXEC"
    );
}

#[test]
fn uniform_loads_ignore_exec_and_bounds() {
    for (x, buf, n, mn) in uld_cases() {
        let mut scenarios = vec![
            // Negative immediate, in bounds (descriptor at g + 0x100, 0x400 bytes).
            UldScenario {
                imm: -0x40,
                index: 0x140,
                desc: (Some(0x100), 0x400, 1),
            },
            UldScenario {
                imm: 0x20,
                index: 0x8,
                desc: (Some(0x100), 0x400, 1),
            },
        ];
        if buf {
            scenarios.extend([
                // Straddles the end (size 40): dwords past it read 0, the others load.
                UldScenario {
                    imm: 8,
                    index: 0x10,
                    desc: (Some(0x300), 40, 1),
                },
                // Starts 8 bytes before the descriptor base: those dwords read 0.
                UldScenario {
                    imm: -8 - if x { 0x10 } else { 0 },
                    index: 0x10,
                    desc: (Some(0x300), 40, 1),
                },
                // Entirely past the end.
                UldScenario {
                    imm: 0x40,
                    index: 0x20,
                    desc: (Some(0x300), 40, 1),
                },
                // Null descriptors: valid bit clear, or base 0.
                UldScenario {
                    imm: 0,
                    index: 0,
                    desc: (Some(0x300), 0x400, 0),
                },
                UldScenario {
                    imm: 0,
                    index: 0,
                    desc: (Some(0x300), 0x400, 0xFFFF_FFFE),
                },
                UldScenario {
                    imm: 0,
                    index: 0,
                    desc: (None, 0x400, 1),
                },
            ]);
        }
        for sc in &scenarios {
            run_uld(x, buf, n, &mn, sc);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Cache maintenance
// ---------------------------------------------------------------------------------------

#[test]
fn cache_ops_change_no_data_and_count() {
    for (mn, c) in CACHE_OPS {
        for &exec in &MASKS {
            let ctx = format!("`{mn}` exec {exec:#010x}");
            let mut m = machine(&snippet(mn));
            assert_eq!(first_mnemonic(&m), mn, "{ctx}");
            m.waves[0].exec = exec;
            let img = background(G_SIZE, 8);
            write_image(&mut m, Form::Global, &img);
            m.slots[0].shared.write(0, &background(SHARED, 9));
            for r in 0..128 {
                set_v(&mut m, r, std::array::from_fn(|l| (r * 32 + l) as u32));
            }
            let before = m.waves[0].clone();
            let shared = m.slots[0].shared.to_vec();
            step_ok(&mut m, &ctx);
            assert_eq!(buffer_bytes(&m, "g"), img, "{ctx}: global memory");
            assert_eq!(m.slots[0].shared.to_vec(), shared, "{ctx}: shared memory");
            assert!(m.waves[0].v == before.v, "{ctx}: vector registers");
            assert_eq!(m.waves[0].u, before.u, "{ctx}: uniform registers");
            assert_eq!(m.waves[0].exec, exec, "{ctx}: exec");
            // Flag `ei`: counted even with EXEC = 0.
            assert_eq!(counters(&m), one_on(c), "{ctx}: counters");
            assert_no_pending(&m, &ctx, RegFile::Vector, 0..128);
            assert_no_pending(&m, &ctx, RegFile::Uniform, 0..64);
        }
    }
}

/// Async counters accumulate per class: two vector loads count 2 on vm.
#[test]
fn counters_accumulate() {
    let src = format!(
        "{}ld.global.b32 v8, v[2:3], 0\nld.shared.b32 v9, v4, 0\nst.global.b32 v8, v[2:3], 0\nuld.b32 u16, u[0:1], 0\nld.global.b64 v[10:11], v[2:3], 0\nend\n",
        header()
    );
    let mut m = machine(&src);
    let gbase = m.buffer_base("g").expect("g");
    fill_v(&mut m, 2, gbase as u32);
    fill_v(&mut m, 3, (gbase >> 32) as u32);
    fill_v(&mut m, 4, 0);
    m.waves[0].u[0] = gbase as u32;
    m.waves[0].u[1] = (gbase >> 32) as u32;
    for i in 0..5 {
        assert!(step(&mut m).is_none(), "instruction {i}");
    }
    assert_eq!(counters(&m), [2, 1, 1, 1]);
    assert_pending(&m, "ld.global.b64", RegFile::Vector, 10, 2, Counter::Vm);
    assert!(m.waves[0].pending_write(RegFile::Vector, 8).is_some());
    assert!(m.waves[0].pending_write(RegFile::Vector, 9).is_some());
}

// ---------------------------------------------------------------------------------------
// Choices the spec leaves open, as docs/memory.md fixes them (not spec text)
// ---------------------------------------------------------------------------------------

/// docs/memory.md: offsets are `zext(s1) + sext(imm24)` in 64 bits; buffer alignment is
/// checked only in bounds; vector loads and stores wider than 4 bytes need 4-byte
/// alignment; two NaN operands of fmin / fmax give a quiet NaN.
#[test]
fn memory_model_choices_of_docs() {
    // buf: s1 = 0xFFFF_FFF0, imm = +0x20 is offset 2^32 + 0x10 (out of bounds), not 0x10.
    let mut m = machine(&snippet("ld.buf.b32 v8, u[4:7], v2, 0x20"));
    let gbase = m.buffer_base("g").expect("g");
    m.waves[0].u[4..8].copy_from_slice(&[gbase as u32, (gbase >> 32) as u32, 0x100, 1]);
    fill_v(&mut m, 2, 0xFFFF_FFF0);
    write_image(&mut m, Form::Buf, &background(G_SIZE, 1));
    fill_v(&mut m, 8, SENTINEL);
    step_ok(&mut m, "ld.buf.b32 huge s1");
    assert_eq!(get_v(&m, 8), [0; LANES]);

    // shared / scratch: the same offset is outside the window: a fault of every lane.
    for (mn, space, size) in [
        ("ld.shared.b32", Space::Shared, SHARED),
        ("ld.scratch.b32", Space::Scratch, SCRATCH),
    ] {
        let instr = format!("{mn} v8, v2, 0x20");
        let mut m = machine(&snippet(&instr));
        m.waves[0].exec = 0x8000_0001;
        fill_v(&mut m, 2, 0xFFFF_FFF0);
        let f = step_fault(&mut m, &instr);
        assert_eq!(
            f.kind,
            FaultKind::OutOfWindow {
                space,
                size: size as u64
            },
            "{instr}"
        );
        assert_eq!(f.lanes, 0x8000_0001, "{instr}");
    }

    // buf: a misaligned access out of bounds does not fault (and reads 0 / is dropped).
    for mn in [
        "ld.buf.b32",
        "st.buf.b32",
        "atom.buf.add.u32.rtn",
        "atom.buf.or.b64.rtn",
    ] {
        let regs = if mn.contains("64") { 2 } else { 1 };
        let instr = format!("{mn} {}, u[4:7], v2, -16", tuple('v', 8, regs));
        let mut m = machine(&snippet(&instr));
        let exec = 0xFFFF_FFFF;
        let idx = place(
            &mut m,
            Form::Buf,
            &[DESC_SIZE as i64 + 1; LANES],
            -16,
            exec,
            4,
        );
        assert!(idx.iter().all(Option::is_none));
        let img = background(G_SIZE, 2);
        write_image(&mut m, Form::Buf, &img);
        fill_v(&mut m, 8, 0x1111_1111);
        fill_v(&mut m, 9, 0x2222_2222);
        step_ok(&mut m, &instr);
        assert_image(&instr, &buffer_bytes(&m, "g"), &img, &[]);
        if mn.ends_with(".rtn") || mn.starts_with("ld") {
            assert_eq!(get_v(&m, 8), [0; LANES], "{instr}");
        }
    }

    // b64 / b96 / b128 loads and stores at addresses that are only 4-byte aligned.
    for form in FORMS {
        for (mn, n) in [("ld", 2), ("ld", 3), ("ld", 4), ("st", 2), ("st", 4)] {
            let w = ["", "", "b64", "b96", "b128"][n];
            let instr = format!(
                "{mn}.{}.{w} {}, {}, -16",
                form.name(),
                tuple('v', 8, n),
                form.addr_text()
            );
            let offs =
                lane_offsets(form, Pattern::Distinct).map(|o| if o >= 0 { o + 4 } else { o });
            let mut m = machine(&snippet(&instr));
            place(&mut m, form, &offs, -16, u32::MAX, 4 * n);
            step_ok(&mut m, &instr);
        }
    }

    // fmin / fmax of two NaNs: a quiet NaN.
    for mn in ["atom.global.fmin.f32", "atom.global.fmax.f32"] {
        let mut mem = [0u64; LANES];
        let mut data = [[0u32; LANES]; 4];
        mem[0] = 0x7F80_0001; // signalling
        data[0][0] = 0xFFC0_0000;
        mem[1] = 0x7FC0_0000;
        data[0][1] = 0x7F80_0002;
        let (after, _, _) = atom_global(mn, 1, 4, 0b11, &mem, &data);
        for l in 0..2 {
            let r = after[l] as u32;
            assert!(
                is_nan32(r) && r & 0x0040_0000 != 0,
                "{mn} lane {l}: {r:#x} is not a quiet NaN"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Coverage
// ---------------------------------------------------------------------------------------

#[test]
fn every_spec_lsu_instruction_is_covered() {
    let mut covered = BTreeSet::new();
    covered.extend(CACHE_OPS.iter().map(|(m, _)| m.to_string()));
    covered.extend(load_cases().into_iter().map(|c| c.2));
    covered.extend(store_cases().into_iter().map(|c| c.3));
    covered.extend(atom_cases(false).into_iter().map(|c| c.2));
    covered.extend(atom_cases(true).into_iter().map(|c| c.2));
    covered.extend(uld_cases().into_iter().map(|c| c.3));
    let spec = spec_mnemonics(Unit::Lsu);
    assert_eq!(spec.len(), 301, "spec lsu instructions in the table");
    let missing: Vec<_> = spec.difference(&covered).collect();
    let extra: Vec<_> = covered.difference(&spec).collect();
    assert!(
        missing.is_empty(),
        "spec lsu instructions without a test: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "tested mnemonics that are not spec lsu instructions: {extra:?}"
    );
    assert_eq!(covered.len(), 301);
}
