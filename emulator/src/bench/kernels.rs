//! The benchmark kernels, each with a native Rust implementation of the same computation.
//!
//! Every kernel runs `iters` loop iterations in each of `waves` waves of one workgroup and
//! leaves its result in the buffer `out`; the native version computes the same words, so
//! the benchmark also checks the emulator's answer.

use std::hint::black_box;

use crate::wave::LANES;

/// What a benchmark kernel computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Integer ALU: add, xor, mul, shifts, sub and min in a dependent chain.
    IntAlu,
    /// f32 FMA and multiply in a dependent chain.
    FmaMul,
    /// Shuffles (xor, down, rot, idx, up) mixed with ALU.
    Shuffle,
    /// Global memory streaming: load, add, store over 64 KiB per wave.
    Stream,
    /// Shared-memory atomic adds.
    SharedAtomics,
    /// A mixed loop: global load, multiply, shuffle, add, shared atomic, global store.
    Mixed,
}

impl Kernel {
    /// Every kernel, in report order.
    pub const ALL: [Kernel; 6] = [
        Kernel::IntAlu,
        Kernel::FmaMul,
        Kernel::Shuffle,
        Kernel::Stream,
        Kernel::SharedAtomics,
        Kernel::Mixed,
    ];

    /// The name printed in reports and JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Kernel::IntAlu => "int-alu",
            Kernel::FmaMul => "f32-fma-mul",
            Kernel::Shuffle => "shuffle",
            Kernel::Stream => "global-load-store",
            Kernel::SharedAtomics => "shared-atomics",
            Kernel::Mixed => "mixed",
        }
    }

    /// Loop iterations per wave for a run of about 1-2 million wave-instructions.
    pub const fn iterations(self) -> u32 {
        match self {
            Kernel::IntAlu | Kernel::FmaMul => 20_000,
            Kernel::Shuffle => 16_000,
            Kernel::Stream | Kernel::Mixed => 16_000,
            Kernel::SharedAtomics => 24_000,
        }
    }

    /// The kernel's assembly source for `waves` waves and `iters` iterations.
    pub fn source(self, waves: u32, iters: u32) -> String {
        let lanes = waves * LANES as u32;
        let head = format!(
            ".kernel {name}\n.workgroup {lanes}\n.grid 1\n.buffer out, {out}\n.arg u[0:1], out\n",
            name = self.name().replace('-', "_"),
            out = self.out_words(waves) * 4,
        );
        let body = match self {
            Kernel::IntAlu => format!("{INT_ALU}{STORE_RESULT}"),
            Kernel::FmaMul => format!("{FMA_MUL}{STORE_RESULT}"),
            Kernel::Shuffle => format!("{SHUFFLE}{STORE_RESULT}"),
            Kernel::Stream => STREAM.to_string(),
            Kernel::SharedAtomics => SHARED_ATOMICS.to_string(),
            Kernel::Mixed => MIXED.to_string(),
        };
        head + &body.replace("ITERS", &iters.to_string())
    }

    /// [`Kernel::IntAlu`] as a grid of `groups` independent workgroups of `per_group`
    /// waves (a power of two), each wave computing what wave `wg * per_group + wave` of
    /// the one-workgroup kernel computes (the same `out` buffer, [`Kernel::native`] at
    /// `groups * per_group` waves).
    pub fn int_alu_grid(groups: u32, per_group: u32, iters: u32) -> String {
        let waves = groups * per_group;
        let head = format!(
            ".kernel int_alu_grid\n.workgroup {lanes}\n.grid {groups}\n.buffer out, {out}\n.arg u[0:1], out\n",
            lanes = per_group * LANES as u32,
            out = Kernel::IntAlu.out_words(waves) * 4,
        );
        let global_wave = format!(
            "uwaveid u2\n    uwgid u5\n    ushli u5, u5, {}\n    uadd u2, u2, u5",
            per_group.trailing_zeros()
        );
        let body = format!("{INT_ALU}{STORE_RESULT}").replacen("uwaveid u2", &global_wave, 1);
        head + &body.replace("ITERS", &iters.to_string())
    }

    /// 32-bit words in the `out` buffer at `waves` waves: one per lane (32 per wave), 16 Ki
    /// per wave for `Stream`, a fixed 16 Ki for `Mixed`.
    pub fn out_words(self, waves: u32) -> usize {
        match self {
            Kernel::Stream => waves as usize * STREAM_WORDS,
            Kernel::Mixed => MIXED_WORDS,
            _ => waves as usize * LANES,
        }
    }

    /// The same computation in Rust: the `out` buffer the kernel leaves.
    pub fn native(self, waves: u32, iters: u32) -> Vec<u32> {
        match self {
            Kernel::IntAlu => native_int_alu(waves, iters),
            Kernel::FmaMul => native_fma_mul(waves, iters),
            Kernel::Shuffle => native_shuffle(waves, iters),
            Kernel::Stream => native_stream(waves, iters),
            Kernel::SharedAtomics => native_shared_atomics(waves, iters),
            Kernel::Mixed => native_mixed(waves, iters),
        }
    }
}

type Lanes = [u32; LANES];

fn lane_ids() -> Lanes {
    std::array::from_fn(|l| l as u32)
}

/// Stores each wave's `v` at word `wave * 32 + lane`.
const STORE_RESULT: &str = "
    ushli u3, u2, 7
    vshli v9, v0, 2
    vadd.u32.u v9, v9, u3
    st.ubase.b32 v2, u[0:1], v9, 0
    end
";

const INT_ALU: &str = "
    uwaveid u2
    vlaneid v0
    vadd.u32.u v1, v0, u2
    vmovi v2, 0x9e3779b9
    umovi u4, ITERS
loop:
    vadd.u32 v1, v1, v2
    vxor v3, v1, v0
    vmul.u32 v4, v3, v2
    vshl v5, v4, v0
    vshr v6, v4, v3
    vsub.u32 v1, v5, v6
    vmin.u32 v7, v1, v4
    vadd.u32 v2, v2, v7
    uaddi u4, u4, -1
    br.unz u4, loop
";

fn native_int_alu(waves: u32, iters: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(waves as usize * LANES);
    for w in 0..waves {
        let v0 = lane_ids();
        let mut v1 = v0.map(|l| l.wrapping_add(w));
        let mut v2 = [0x9e37_79b9u32; LANES];
        for _ in 0..iters {
            for l in 0..LANES {
                v1[l] = v1[l].wrapping_add(v2[l]);
                let v3 = v1[l] ^ v0[l];
                let v4 = v3.wrapping_mul(v2[l]);
                let v5 = v4 << (v0[l] & 31);
                let v6 = v4 >> (v3 & 31);
                v1[l] = v5.wrapping_sub(v6);
                let v7 = v1[l].min(v4);
                v2[l] = v2[l].wrapping_add(v7);
            }
            v1 = black_box(v1);
        }
        out.extend_from_slice(&v2);
    }
    out
}

const FMA_MUL: &str = "
    uwaveid u2
    vlaneid v0
    vadd.u32.u v1, v0, u2
    vcvt.f32.u32 v1, v1
    vmovi v10, 0x3f000000
    vmovi v11, 0x3e800000
    vmovi v12, 0x3f800000
    umovi u4, ITERS
loop:
    vfma.f32 v2, v1, v10, v12
    vmul.f32 v3, v2, v11
    vfma.f32 v1, v3, v10, v2
    vmul.f32 v4, v1, v10
    vfma.f32 v2, v4, v11, v3
    vmul.f32 v5, v2, v11
    vfma.f32 v1, v5, v10, v1
    vmul.f32 v1, v1, v12
    uaddi u4, u4, -1
    br.unz u4, loop
    vmov v2, v1
";

fn native_fma_mul(waves: u32, iters: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(waves as usize * LANES);
    for w in 0..waves {
        let mut v1: [f32; LANES] = std::array::from_fn(|l| (l as u32 + w) as f32);
        for _ in 0..iters {
            for x in v1.iter_mut() {
                let v2 = x.mul_add(0.5, 1.0);
                let v3 = v2 * 0.25;
                let y = v3.mul_add(0.5, v2);
                let v4 = y * 0.5;
                let v2 = v4.mul_add(0.25, v3);
                let v5 = v2 * 0.25;
                *x = v5.mul_add(0.5, y) * 1.0;
            }
            v1 = black_box(v1);
        }
        out.extend(v1.iter().map(|x| x.to_bits()));
    }
    out
}

const SHUFFLE: &str = "
    uwaveid u2
    vlaneid v0
    vmuli.u32 v1, v0, 3
    vadd.u32.u v1, v1, u2
    vxori v8, v0, 5
    umovi u4, ITERS
loop:
    shfl.xor.vi v2, v1, 1
    vadd.u32 v1, v1, v2
    shfl.down.vi v3, v1, 3
    shfl.rot.vi v4, v3, 7
    vxor v1, v1, v4
    shfl.idx v5, v1, v8
    shfl.up.vi v6, v5, 2
    vadd.u32 v1, v6, v5
    uaddi u4, u4, -1
    br.unz u4, loop
    vmov v2, v1
";

fn native_shuffle(waves: u32, iters: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(waves as usize * LANES);
    for w in 0..waves {
        let mut v1: Lanes = std::array::from_fn(|l| (l as u32 * 3).wrapping_add(w));
        for _ in 0..iters {
            let v2: Lanes = std::array::from_fn(|l| v1[l ^ 1]);
            let s: Lanes = std::array::from_fn(|l| v1[l].wrapping_add(v2[l]));
            let v3: Lanes = std::array::from_fn(|l| if l + 3 < LANES { s[l + 3] } else { s[l] });
            let v4: Lanes = std::array::from_fn(|l| v3[(l + 7) & 31]);
            let x: Lanes = std::array::from_fn(|l| s[l] ^ v4[l]);
            let v5: Lanes = std::array::from_fn(|l| x[l ^ 5]);
            let v6: Lanes = std::array::from_fn(|l| if l >= 2 { v5[l - 2] } else { v5[l] });
            v1 = black_box(std::array::from_fn(|l| v6[l].wrapping_add(v5[l])));
        }
        out.extend_from_slice(&v1);
    }
    out
}

/// 32-bit words each wave of the stream kernel reads and writes: 64 KiB.
const STREAM_WORDS: usize = 16 * 1024;

const STREAM: &str = "
    uwaveid u2
    vlaneid v0
    ushli u3, u2, 16
    uadd.u64 u[6:7], u[0:1], u3
    vshli v1, v0, 2
    umovi u4, ITERS
loop:
    ld.ubase.b32 v2, u[6:7], v1, 0
    wait.vm 0
    vadd.u32 v2, v2, v1
    st.ubase.b32 v2, u[6:7], v1, 0
    wait.vst 0                  ; the next load overwrites v2: the store must have read it
    vaddi.u32 v1, v1, 128
    vandi v1, v1, 65535
    uaddi u4, u4, -1
    br.unz u4, loop
    end
";

fn native_stream(waves: u32, iters: u32) -> Vec<u32> {
    let mut out = vec![0u32; waves as usize * STREAM_WORDS];
    for region in out.chunks_exact_mut(STREAM_WORDS) {
        let mut off: Lanes = std::array::from_fn(|l| 4 * l as u32);
        for _ in 0..iters {
            for o in off.iter_mut() {
                let word = &mut region[(*o / 4) as usize];
                *word = word.wrapping_add(*o);
                *o = (*o + 128) & 65535;
            }
            black_box(&mut *region);
        }
    }
    out
}

const SHARED_ATOMICS: &str = "
.shared 4096
    uwaveid u2
    vlaneid v0
    ; clear the 1024 words (shared memory starts undefined): lane l of wave w clears
    ; words l + 32w, l + 32w + 32 * waves, ...
    unumwaves u5
    ushli u6, u5, 7
    ushli u3, u2, 7
    vshli v9, v0, 2
    vadd.u32.u v9, v9, u3
    vmovi v10, 0
    umovi u7, 4096
clear:
    st.shared.b32 v10, v9, 0
    vadd.u32.u v9, v9, u6
    usub u7, u7, u6
    br.unz u7, clear
    wait.ls 0
    barrier
    vadd.u32.u v8, v0, u2
    vshli v8, v8, 2
    vandi v8, v8, 1020
    vaddi.u32 v7, v0, 1
    umovi u4, ITERS
loop:
    atom.shared.add.u32 v7, v8, 0
    atom.shared.add.u32 v7, v8, 1024
    atom.shared.add.u32 v7, v8, 2048
    atom.shared.add.u32 v7, v8, 3072
    vaddi.u32 v8, v8, 12
    vandi v8, v8, 1020
    uaddi u4, u4, -1
    br.unz u4, loop
    wait.ls 0
    barrier
    ushli u3, u2, 7
    vshli v9, v0, 2
    vadd.u32.u v9, v9, u3
    ld.shared.b32 v2, v9, 0
    wait.ls 0
    st.ubase.b32 v2, u[0:1], v9, 0
    end
";

fn native_shared_atomics(waves: u32, iters: u32) -> Vec<u32> {
    let mut shared = vec![0u32; 1024];
    for w in 0..waves {
        let mut addr: Lanes = std::array::from_fn(|l| ((l as u32 + w) * 4) & 1020);
        for _ in 0..iters {
            for (l, a) in addr.iter_mut().enumerate() {
                for k in 0..4 {
                    let word = &mut shared[(*a / 4) as usize + 256 * k];
                    *word = word.wrapping_add(l as u32 + 1);
                }
                *a = (*a + 12) & 1020;
            }
            black_box(&mut shared);
        }
    }
    shared.truncate(waves as usize * LANES);
    shared
}

/// 32-bit words of the mixed kernel's `out` buffer (64 KiB, whatever the wave count),
/// which it loads, updates and stores in place.
const MIXED_WORDS: usize = 16 * 1024;

const MIXED: &str = "
.shared 2048
    uwaveid u2
    vlaneid v0
    ushli u3, u2, 7
    vshli v1, v0, 2
    vadd.u32.u v1, v1, u3
    vmovi v7, 1
    vandi v8, v1, 1020
    vmovi v9, 0
    st.shared.b32 v9, v8, 0     ; each wave clears the counters it adds to
    wait.ls 0
    umovi u4, ITERS
loop:
    ld.ubase.b32 v2, u[0:1], v1, 0
    wait.vm 0
    vmuli.u32 v3, v2, 2654435761
    shfl.xor.vi v4, v3, 1
    vadd.u32 v3, v3, v4
    atom.shared.add.u32 v7, v8, 0
    st.ubase.b32 v3, u[0:1], v1, 0
    wait.vst 0                  ; the next iteration overwrites v3
    vaddi.u32 v1, v1, 1024
    vandi v1, v1, 65535
    uaddi u4, u4, -1
    br.unz u4, loop
    wait.all
    end
";

fn native_mixed(waves: u32, iters: u32) -> Vec<u32> {
    let mut data = vec![0u32; MIXED_WORDS];
    for w in 0..waves {
        let mut off: Lanes = std::array::from_fn(|l| 4 * l as u32 + 128 * w);
        for _ in 0..iters {
            let v3: Lanes =
                std::array::from_fn(|l| data[(off[l] / 4) as usize].wrapping_mul(2_654_435_761));
            for l in 0..LANES {
                data[(off[l] / 4) as usize] = v3[l].wrapping_add(v3[l ^ 1]);
                off[l] = (off[l] + 1024) & 65535;
            }
            black_box(&mut data);
        }
    }
    data
}
