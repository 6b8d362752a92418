//! The example kernels of `scripts/`: each is assembled, run to completion under several
//! scheduling seeds and resident-workgroup counts, and its output buffers are compared
//! with a CPU reference computed here from the kernel's own input data (read back from the
//! assembled program and checked against the formula of its `.iota`/`.init` directives).
//! Every run must also leave all of global memory bit-identical to the first run.

use std::collections::BTreeMap;
use std::path::PathBuf;

use wavedbg_emulator::asm::assemble_file;
use wavedbg_emulator::machine::{Event, LaunchOptions, Machine};
use wavedbg_emulator::program::Program;

/// Scheduling seeds: 0 is plain round-robin, the others randomise quantum and wave order.
const SEEDS: [u64; 4] = [0, 1, 42, 0xdead_beef];

/// Resident workgroups: the default (8), one at a time, and a count that does not divide
/// the grid sizes used here.
const RESIDENT: [u32; 3] = [8, 1, 3];

fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../scripts")
        .join(name)
}

fn load(name: &str) -> Program {
    let path = script(name);
    assemble_file(&path).unwrap_or_else(|e| panic!("{} does not assemble:\n{e}", path.display()))
}

/// Every buffer's final contents, by name.
type Memory = BTreeMap<String, Vec<u8>>;

fn dump(m: &Machine) -> Memory {
    m.global
        .allocations()
        .iter()
        .map(|a| (a.name.clone(), a.data.to_vec()))
        .collect()
}

/// The result of running one kernel everywhere.
struct Runs {
    program: Program,
    memory: Memory,
}

impl Runs {
    /// A buffer's final contents as little-endian u32 words.
    fn words(&self, name: &str) -> Vec<u32> {
        words(
            self.memory
                .get(name)
                .unwrap_or_else(|| panic!("no buffer `{name}`")),
        )
    }

    /// A buffer's initial contents (its directives' data, zero-padded) as u32 words.
    fn input(&self, name: &str) -> Vec<u32> {
        words(&self.input_bytes(name))
    }

    fn input_bytes(&self, name: &str) -> Vec<u8> {
        let b = self
            .program
            .buffer(name)
            .unwrap_or_else(|| panic!("no buffer `{name}`"));
        let mut bytes = b.init.clone();
        bytes.resize(b.size as usize, 0);
        bytes
    }
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Assembles `name` and runs it under every seed and resident-workgroup count; each run
/// must finish, and all runs must leave global memory bit-identical.
fn run_everywhere(name: &str) -> Runs {
    let program = load(name);
    let mut first: Option<(String, Memory)> = None;
    for seed in SEEDS {
        for resident in RESIDENT {
            let options = LaunchOptions {
                seed,
                resident_workgroups: resident,
                ..Default::default()
            };
            let label = format!("{name} (seed {seed:#x}, {resident} resident workgroups)");
            let mut m = Machine::new(&program, options)
                .unwrap_or_else(|e| panic!("{label}: cannot launch: {e}"));
            match m.run(None) {
                Some(Event::Finished) => {}
                Some(Event::Fault(f)) => panic!("{label}: fault: {f}"),
                Some(Event::Deadlock(d)) => panic!("{label}: {d:?}"),
                other => panic!("{label}: expected Finished, got {other:?}"),
            }
            let memory = dump(&m);
            match &first {
                None => first = Some((label, memory)),
                Some((first_label, expected)) => {
                    for (buf, bytes) in expected {
                        assert!(
                            memory.get(buf) == Some(bytes),
                            "{label}: buffer `{buf}` differs from the run {first_label}"
                        );
                    }
                    assert_eq!(memory.len(), expected.len(), "{label}: buffer count");
                }
            }
        }
    }
    let (_, memory) = first.expect("at least one run");
    Runs { program, memory }
}

/// `count` words `start + step * i` (mod 2^32): what `.iota NAME, u32, COUNT, START, STEP`
/// produces for integer arguments whose products stay exact in f64.
fn iota(count: usize, start: u64, step: u64) -> Vec<u32> {
    (0..count as u64)
        .map(|i| (start + step * i) as u32)
        .collect()
}

#[test]
fn reduce_xred_atomics() {
    let r = run_everywhere("reduce.s");
    let input = r.input("in");
    assert_eq!(input, iota(256, 1, 1));
    let expected: Vec<u32> = input
        .chunks(64)
        .map(|c| c.iter().fold(0u32, |a, &x| a.wrapping_add(x)))
        .collect();
    assert_eq!(r.words("out"), expected);
}

#[test]
fn reduce_tiled_shared_tree_from_source() {
    let r = run_everywhere("reduce_tiled_src.s");
    let input = r.input("in");
    assert_eq!(input, iota(256, 1, 3));
    let expected: Vec<u32> = input
        .chunks(64)
        .map(|c| c.iter().fold(0u32, |a, &x| a.wrapping_add(x)))
        .collect();
    assert_eq!(r.words("out"), expected);
    // It carries its source-level debug information: a line table and variables.
    let info = &r.program.source_info;
    assert_eq!(info.files.len(), 1);
    assert!(info.has_lines());
    let names: Vec<&str> = info.vars.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["tile", "lid", "i", "stride"]);
}

#[test]
fn reduce_shfl_tree() {
    let r = run_everywhere("reduce_shfl.s");
    let input = r.input("in");
    assert_eq!(input, iota(1024, 5, 3));
    let mut expected = Vec::new();
    for block in input.chunks(256) {
        expected.push(block.iter().fold(0u32, |a, &x| a.wrapping_add(x)));
        expected.push(
            block
                .iter()
                .map(|&x| x.wrapping_mul(0x9e37_79b1))
                .max()
                .unwrap(),
        );
    }
    assert_eq!(r.words("out"), expected);
}

#[test]
fn scan_workgroup_inclusive() {
    let r = run_everywhere("scan.s");
    let input = r.input("in");
    assert_eq!(input, iota(512, 1, 3));
    let mut expected = Vec::new();
    for block in input.chunks(256) {
        let mut sum = 0u32;
        for &x in block {
            sum = sum.wrapping_add(x);
            expected.push(sum);
        }
    }
    assert_eq!(r.words("out"), expected);
}

#[test]
fn histogram_shared_then_global_atomics() {
    let r = run_everywhere("histogram.s");
    assert_eq!(r.input("in"), iota(2048, 12345, 2_654_435_761));
    let mut expected = vec![0u32; 256];
    for b in r.input_bytes("in") {
        expected[b as usize] += 1;
    }
    let out = r.words("out");
    assert_eq!(out.iter().sum::<u32>(), 8192);
    assert_eq!(out, expected);
}

#[test]
fn transpose_through_shared_tiles() {
    let r = run_everywhere("transpose.s");
    let input = r.input("in");
    assert_eq!(input, iota(4096, 1000, 1));
    let mut expected = vec![0u32; 4096];
    for row in 0..64 {
        for col in 0..64 {
            expected[col * 64 + row] = input[row * 64 + col];
        }
    }
    assert_eq!(r.words("out"), expected);
}

#[test]
fn bitonic_sort_per_wave() {
    let r = run_everywhere("bitonic.s");
    let input = r.input("data");
    assert_eq!(input, iota(256, 74565, 2_654_435_761));
    let mut expected = input.clone();
    for chunk in expected.chunks_mut(32) {
        chunk.sort_unstable();
    }
    assert_ne!(expected, input, "the input must not be sorted already");
    assert_eq!(r.words("data"), expected);
}

#[test]
fn bufdesc_bounds() {
    let r = run_everywhere("bufdesc.s");
    let src = r.input("src");
    assert_eq!(src, iota(25, 100, 1));
    let at = |i: i64| -> u32 {
        if (0..src.len() as i64).contains(&i) {
            src[i as usize]
        } else {
            0
        }
    };
    let mut slice = Vec::new();
    // Row 0: ld.buf.b32 at 4l.
    slice.extend((0..32).map(at));
    // Rows 1 and 2: ld.buf.b64 at 4l; only whole accesses inside the 100 bytes read data.
    slice.extend((0..32).map(|l| if 4 * l + 8 <= 100 { at(l) } else { 0 }));
    slice.extend((0..32).map(|l| if 4 * l + 8 <= 100 { at(l + 1) } else { 0 }));
    // Row 3: offset 4l - 8 (negative for lanes 0 and 1).
    slice.extend((0..32).map(|l| at(l - 2)));
    // Row 4: the descriptor narrowed to 40 bytes.
    slice.extend((0..32).map(|l| if l < 10 { at(l) } else { 0 }));
    // Row 5: the null descriptor.
    slice.extend([0u32; 32]);
    let probe: Vec<u32> = [slice.clone(), slice].concat();
    assert_eq!(r.words("probe"), probe);
    // The stores past dst's 64 bytes and through the null descriptor were dropped.
    assert_eq!(r.words("src"), src, "a dropped store changed src");
    let dst: Vec<u32> = (0..16).map(|l| 3 * at(l)).collect();
    assert_eq!(r.words("dst"), dst);
    // Two workgroups each add lane + 1 to cnt[lane / 4] for lanes 0..15.
    let cnt: Vec<u32> = (0..4u32)
        .map(|k| 2 * (4 * k..4 * k + 4).map(|l| l + 1).sum::<u32>())
        .collect();
    assert_eq!(r.words("cnt"), cnt);
}

#[test]
fn spill_fill_scratch() {
    let r = run_everywhere("spill.s");
    let mut expected = Vec::new();
    for gid in 0..128u32 {
        let weighted = (0..8u32).fold(0u32, |acc, j| {
            let k = j.wrapping_sub(gid) & 7;
            acc.wrapping_add((j + 1).wrapping_mul(100 * k + gid))
        });
        expected.extend([
            7 * gid + 3,
            gid.wrapping_mul(0x10001),
            !gid,
            gid,
            gid + 1,
            gid * gid,
            gid ^ 0xa5a5_a5a5,
            (gid + 0x8000) as u16 as i16 as i32 as u32,
            (gid + 0x8000) as u16 as u32,
            (gid + 0x80) as u8 as i8 as i32 as u32,
            (gid + 0x80) as u8 as u32,
            weighted,
        ]);
    }
    assert_eq!(r.words("out"), expected);
}

#[test]
fn divergent_exec_mask() {
    let r = run_everywhere("divergent.s");
    let input = r.input("in");
    assert_eq!(input, iota(128, 1, 1));
    let (mut steps, mut peaks, mut classes) = (Vec::new(), Vec::new(), Vec::new());
    for &n in &input {
        let (mut x, mut s, mut peak) = (n, 0u32, n);
        while x != 1 {
            x = if x & 1 == 1 { 3 * x + 1 } else { x / 2 };
            peak = peak.max(x);
            s += 1;
        }
        let class = if s >= 20 {
            if n & 1 == 1 {
                2
            } else {
                1
            }
        } else {
            3
        };
        steps.push(s);
        peaks.push(peak);
        classes.push(class);
    }
    // The trip counts really differ between lanes of one wave.
    assert!(steps[..32].iter().min() != steps[..32].iter().max());
    assert_eq!(r.words("steps_out"), steps);
    assert_eq!(r.words("peak_out"), peaks);
    assert_eq!(r.words("cls_out"), classes);
}

#[test]
fn uniform_constant_buffer() {
    let r = run_everywhere("uniform.s");
    let consts = r.input("consts");
    assert_eq!(
        consts,
        [
            2.5f32.to_bits(),
            (-1.0f32).to_bits(),
            3,
            0x3ff,
            3,
            7,
            5,
            11,
            7,
            13,
            9,
            17,
            1000,
            2000,
            777,
            10000,
        ]
    );
    let (scale, bias) = (f32::from_bits(consts[0]), f32::from_bits(consts[1]));
    let (shift, mask) = (consts[2], consts[3]);
    let abc = consts[12] + consts[13] + consts[14];
    let clamp = consts[15]; // the high dword of the b64 load is past the end: 0
    let input = r.input("in");
    assert_eq!(input, iota(256, 0, 1));
    let mut outf = Vec::new();
    let mut outi = Vec::new();
    for (gid, &x) in input.iter().enumerate() {
        let wg = gid / 64;
        let (mul, add) = (consts[4 + 2 * wg], consts[5 + 2 * wg]);
        outf.push((x as f32).mul_add(scale, bias).to_bits());
        outi.push(
            ((x << shift) & mask)
                .wrapping_mul(mul)
                .wrapping_add(add)
                .wrapping_add(abc)
                .min(clamp),
        );
    }
    assert!(outi.contains(&clamp) && outi.iter().any(|&v| v < clamp));
    assert_eq!(r.words("outf"), outf);
    assert_eq!(r.words("outi"), outi);
}
