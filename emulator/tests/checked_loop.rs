//! Waits and 32-bit memory accesses in the machine's fast loop under the sanitizer, against
//! stepping one instruction at a time.
//!
//! Under `Checks::ALL` (and, in a second test, each detector alone and random sets of
//! them), `Machine::run` runs waits and the 32-bit loads, stores and
//! atomics whose active lanes make one or two runs of consecutive words inside its fast
//! loop, calling the sanitizer's hooks there (`check/fast.rs`, `FastChecked::step`);
//! `Machine::step` runs every instruction through the general loop's hooks. The two must
//! be indistinguishable: the same events in the same order, the same findings (kinds,
//! sites, counts, the instruction count of the first sighting), the same waves,
//! statistics and memory. So must a third run, cut into slices of 1, 5 or 17
//! instructions (`Machine::run(Some(n))`), whose budget ends anywhere in a turn: the
//! same events, findings, waves, statistics, memory and scheduler state.
//!
//! Random instruction words (`tests/machine/runs.rs`, `running_equals_stepping_*`)
//! almost never make runs of consecutive words, nor registers the sanitizer sees as
//! written in every lane, so they barely reach that path. Each case here is a random
//! kernel written as assembly: 2 to 4 waves per workgroup, one or two workgroups sharing
//! a global buffer, every register it uses set up by its own instructions (registers a
//! test writes directly are uninitialised to the sanitizer, which keeps everything out
//! of the fast loop). Its address registers hold consecutive words per lane (per wave,
//! shared between waves, or per workgroup), runs wrapped around a window (two runs),
//! descending, scattered and one-word patterns (which the general loop takes); its body
//! mixes ubase, shared and global loads, stores and atomics (returning or not) with
//! waits, ALU work on the data and result registers, barriers, sections under a partial
//! EXEC, short loops, and in one case in four a flood of 256 stores on one data register
//! (with no wait, overflowing the store counter, or a wait per iteration), after which
//! the sanitizer's per-register use counts, bytes that would wrap to 0 if the fast loop
//! missed a push-out or a retirement, must still see the register in use. The bugs the
//! kernels carry on purpose (missing waits, unsynchronised writes by several waves, reads
//! of shared memory nothing wrote) make the detectors fire, on accesses the fast loop
//! takes and on ones it does not. Half the cases watch a few bytes as well, so watch hits
//! interleave with findings.

#[path = "support/rng.rs"]
mod rng;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use rng::Rng;
use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::check::{Checks, FindingKind};
use wavedbg_emulator::exec::AccessLog;
use wavedbg_emulator::machine::{Event, LaunchOptions, Machine};
use wavedbg_emulator::memory::Space;

/// Bytes of the global buffer `b`.
const BUFFER: u64 = 16384;
/// Bytes of shared memory per workgroup.
const SHARED: u64 = 4096;
/// The immediate that moves a shared load into the upper half of shared memory, which
/// nothing ever writes (stores and atomics stay below it): such a load reads
/// uninitialised memory.
const UNWRITTEN: u32 = 2048;

/// Registers the generated kernels use (all set up by the kernel's own instructions):
/// shared offsets, ubase offsets and 64-bit global addresses (built from the ubase
/// offsets and `u[0:1]`).
const SHARED_OFFS: &[&str] = &["v1", "v21"];
const UBASE_OFFS: &[&str] = &["v10", "v11"];
const GLOBAL_ADDRS: &[&str] = &["v[2:3]", "v[12:13]"];
/// Store data and ALU registers, and the registers loads and returning atomics write.
const DATA: &[&str] = &["v4", "v5", "v6", "v7"];
const RESULTS: &[&str] = &["v8", "v16", "v17", "v18", "v19"];
/// Register pairs for compare-and-swap: data pairs, and pairs whose first register
/// takes the returned value.
const DATA_PAIRS: &[&str] = &["v[4:5]", "v[6:7]"];
const RESULT_PAIRS: &[&str] = &["v[8:9]", "v[16:17]", "v[18:19]"];
/// 32-bit atomic operations (`cmpxchg` is handled apart: it takes a register pair).
const ATOM_OPS: &[&str] = &["add.u32", "max.u32", "xchg.b32", "min.u32", "or.b32"];
/// Offsets of stores and atomics (the offset registers stay below 1916 in shared memory,
/// so everything written is below [`UNWRITTEN`]).
const IMMS: &[u32] = &[0, 0, 0, 4, 64, 128];

/// A random kernel, as assembly text.
struct Gen<'a> {
    rng: &'a mut Rng,
    text: String,
    /// Labels made so far (loop labels are numbered).
    labels: usize,
}

impl Gen<'_> {
    /// Appends one instruction line.
    fn line(&mut self, s: &str) {
        self.text.push_str("    ");
        self.text.push_str(s);
        self.text.push('\n');
    }

    /// Sets vector register `r` to a per-lane word offset in bytes, in one of the
    /// patterns the fast loop must tell apart, plus a per-wave part (or not: then the
    /// waves share the words) and a constant part. The lane part stays below 1024 bytes,
    /// the wave part below 512 and the constant below 1024 (so below `max_base`).
    fn offset(&mut self, r: &str, max_base: u32) {
        match self.rng.below(12) {
            // Consecutive words: one run.
            0..=5 => self.line(&format!("vshli {r}, v0, 2")),
            // Consecutive words rotated around a 32-word window: two runs.
            6 | 7 => {
                let k = 1 + self.rng.below(31);
                self.line(&format!("vaddi.u32 {r}, v0, {k}"));
                self.line(&format!("vandi {r}, {r}, 31"));
                self.line(&format!("vshli {r}, {r}, 2"));
            }
            // Scattered: an odd stride between lanes (the general loop).
            8 => {
                let stride = self.rng.pick(&[3, 5, 7, 13]);
                self.line(&format!("vmuli.u32 {r}, v0, {stride}"));
                self.line(&format!("vandi {r}, {r}, 255"));
                self.line(&format!("vshli {r}, {r}, 2"));
            }
            // Descending words.
            9 => {
                self.line(&format!("vxori {r}, v0, 31"));
                self.line(&format!("vshli {r}, {r}, 2"));
            }
            // Every lane on one word (stores: a same-instruction conflict).
            10 => self.line(&format!("vandi {r}, v0, 0")),
            // Pairs of lanes on one word.
            _ => {
                self.line(&format!("vshri {r}, v0, 1"));
                self.line(&format!("vshli {r}, {r}, 2"));
            }
        }
        // Per wave (`u6` = 128 * wave), or shared by the waves (then they race).
        if self.rng.below(3) != 0 {
            self.line(&format!("vadd.u32.u {r}, {r}, u6"));
        }
        let base = self.rng.pick(&[0, 0, 256, 512, 1024]).min(max_base);
        if base > 0 {
            self.line(&format!("vaddi.u32 {r}, {r}, {base}"));
        }
    }

    /// The kernel's header and the set-up of every register it uses.
    fn prologue(&mut self) {
        let lanes = self.rng.pick(&[64, 96, 128]);
        let grid = self.rng.pick(&[1, 2]);
        let _ = write!(
            self.text,
            ".kernel checked\n.workgroup {lanes}\n.grid {grid}\n.shared {SHARED}\n\
             .buffer b, {BUFFER}\n.arg u[0:1], b\n"
        );
        self.line("vlaneid v0");
        self.line("uwaveid u2");
        self.line("uwgid u3");
        self.line("ushli u6, u2, 7");
        // The workgroups' part of global offsets: none (the two workgroups share the
        // words, and race), or apart.
        let wg_shift = self.rng.pick(&[0, 0, 11, 13]);
        if wg_shift == 0 {
            self.line("umovi u7, 0");
        } else {
            self.line(&format!("ushli u7, u3, {wg_shift}"));
        }
        for r in SHARED_OFFS {
            self.offset(r, 512);
        }
        for r in UBASE_OFFS {
            self.offset(r, 1024);
            self.line(&format!("vadd.u32.u {r}, {r}, u7"));
        }
        for (pair, off) in GLOBAL_ADDRS.iter().zip(UBASE_OFFS) {
            // Sometimes a global address of its own, else the ubase offset's word.
            if self.rng.below(3) == 0 {
                self.offset("v22", 1024);
                self.line("vadd.u32.u v22, v22, u7");
                self.line(&format!("vadd.u64.u {pair}, v22, u[0:1]"));
            } else {
                self.line(&format!("vadd.u64.u {pair}, {off}, u[0:1]"));
            }
        }
        // The flood's address: consecutive words, per wave and per workgroup.
        self.line("vshli v23, v0, 2");
        self.line("vadd.u32.u v23, v23, u6");
        self.line("ushli u8, u3, 9");
        self.line("vadd.u32.u v23, v23, u8");
        // Data: different in each lane and wave.
        self.line("vmuli.u32 v4, v0, 3");
        self.line("vadd.u32.u v4, v4, u2");
        self.line("vaddi.u32 v5, v0, 100");
        self.line("vxori v6, v0, 85");
        self.line("vshli v7, v0, 8");
        self.line("vadd.u32.u v7, v7, u3");
        for (i, r) in RESULTS.iter().chain(&["v9", "v24"]).enumerate() {
            self.line(&format!("vaddi.u32 {r}, v0, {}", 7 * i + 1));
        }
        self.line("vmovi v20, 0");
    }

    /// One 32-bit load, store or atomic, in the ubase, shared or global form.
    fn access(&mut self) {
        let space = self.rng.below(20);
        let imm = self.rng.pick(IMMS);
        // (the address operands, the shared form)
        let (addr, shared) = match space {
            0..=7 => {
                let off = self.rng.pick(UBASE_OFFS);
                (format!("u[0:1], {off}, {imm}"), false)
            }
            8..=14 => (format!("{}, {imm}", self.rng.pick(SHARED_OFFS)), true),
            _ => (format!("{}, {imm}", self.rng.pick(GLOBAL_ADDRS)), false),
        };
        let mode = match space {
            0..=7 => "ubase",
            8..=14 => "shared",
            _ => "global",
        };
        match self.rng.below(20) {
            // A load; from shared memory sometimes from words nothing wrote.
            0..=6 => {
                let rd = self.rng.pick(RESULTS);
                let addr = if shared && self.rng.below(4) == 0 {
                    let off = self.rng.pick(SHARED_OFFS);
                    format!("{off}, {}", UNWRITTEN + imm)
                } else {
                    addr
                };
                self.line(&format!("ld.{mode}.b32 {rd}, {addr}"));
            }
            // A store, its data sometimes a result register (a read before its wait).
            7..=12 => {
                let data = if self.rng.below(5) == 0 {
                    self.rng.pick(RESULTS)
                } else {
                    self.rng.pick(DATA)
                };
                self.line(&format!("st.{mode}.b32 {data}, {addr}"));
            }
            // An atomic without a return.
            13..=15 => {
                let op = self.rng.pick(ATOM_OPS);
                let data = self.rng.pick(DATA);
                self.line(&format!("atom.{mode}.{op} {data}, {addr}"));
            }
            // A returning atomic.
            16..=18 => {
                let op = self.rng.pick(ATOM_OPS);
                let rd = self.rng.pick(RESULTS);
                self.line(&format!("atom.{mode}.{op}.rtn {rd}, {addr}"));
            }
            // Compare-and-swap, returning or not.
            _ => {
                if self.rng.below(2) == 0 {
                    let pair = self.rng.pick(RESULT_PAIRS);
                    self.line(&format!("atom.{mode}.cmpxchg.b32.rtn {pair}, {addr}"));
                } else {
                    let pair = self.rng.pick(DATA_PAIRS);
                    self.line(&format!("atom.{mode}.cmpxchg.b32 {pair}, {addr}"));
                }
            }
        }
    }

    /// A wait (for a counter to drain, or to drop to a few).
    fn wait(&mut self) {
        let w = self.rng.pick(&[
            "wait.vm 0",
            "wait.vst 0",
            "wait.ls 0",
            "wait.all",
            "wait.all",
            "wait.vm 1",
            "wait.vst 2",
            "wait.ls 1",
        ]);
        self.line(w);
    }

    /// ALU work on the data registers, reading or writing result registers now and then
    /// (a hazard when a load to them is outstanding), or a shuffle.
    fn alu(&mut self) {
        let d = self.rng.pick(DATA);
        let s = self.rng.pick(DATA);
        let r = self.rng.pick(RESULTS);
        let line = match self.rng.below(8) {
            0 => format!("vadd.u32 {d}, {d}, {r}"),
            1 => format!("vaddi.u32 {d}, {s}, {}", self.rng.below(1000)),
            2 => format!("vxor {d}, {s}, v0"),
            3 => format!("vmuli.u32 {d}, {s}, {}", 1 + 2 * self.rng.below(20)),
            4 => format!("vmovi {r}, {}", self.rng.below(50)),
            5 => format!("vmax.u32 {d}, {s}, {r}"),
            6 => format!("shfl.xor.vi {d}, {s}, {}", 1 + self.rng.below(31)),
            _ => format!("vadd.u32.u {d}, {s}, u2"),
        };
        self.line(&line);
    }

    /// One instruction of a loop's or a partial-EXEC section's body: mostly accesses.
    fn inner(&mut self) {
        match self.rng.below(10) {
            0..=5 => self.access(),
            6 | 7 => self.alu(),
            _ => self.wait(),
        }
    }

    /// A short loop (2 to 5 iterations) around a few accesses, waits and ALU
    /// instructions: the fast loop runs stretches of it.
    fn short_loop(&mut self) {
        self.labels += 1;
        let l = format!("loop{}", self.labels);
        let n = 2 + self.rng.below(4);
        self.line(&format!("umovi u4, {n}"));
        let _ = writeln!(self.text, "{l}:");
        for _ in 0..2 + self.rng.below(5) {
            self.inner();
        }
        self.line("uaddi u4, u4, -1");
        self.line(&format!("br.unz u4, {l}"));
    }

    /// A section under a partial EXEC: the lanes below a random one.
    fn partial_exec(&mut self) {
        let k = 1 + self.rng.below(31);
        self.line(&format!("vmovi v20, {k}"));
        self.line("vcmp.lt.u32 u10, v0, v20");
        self.line("exec.and.save u11, u10");
        for _ in 0..1 + self.rng.below(5) {
            self.inner();
        }
        self.line("exec.set u11");
    }

    /// 256 stores or atomics with data `v24` (which nothing else uses) on consecutive
    /// words, in a loop of 4 or 8 per iteration, then `v24` overwritten (store data
    /// overwritten before its wait) or waited for first. Either with no wait in the
    /// loop: the store counter fills at 63 and each issue after that pushes the oldest
    /// operation out, which the sanitizer must stop counting as a user of its registers;
    /// or with a wait at the top of each iteration, which retires the last iteration's
    /// stores (the sanitizer must stop counting those). 256 issues: a use count of `v24`
    /// that missed the push-outs or the retirements would wrap to 0 (the counts are
    /// bytes) and hide the hazard at the end.
    fn flood(&mut self) {
        self.labels += 1;
        let l = format!("flood{}", self.labels);
        let per = self.rng.pick(&[4u32, 8]);
        let waited = self.rng.below(2) == 0;
        self.line(&format!("umovi u5, {}", 256 / per));
        let _ = writeln!(self.text, "{l}:");
        if waited {
            let wait = self.rng.pick(&["wait.vst 0", "wait.all"]);
            self.line(wait);
        }
        for k in 0..per {
            let imm = 4 * k % 64;
            let line = match self.rng.below(3) {
                0 => format!("st.ubase.b32 v24, u[0:1], v23, {imm}"),
                1 => format!("atom.ubase.add.u32 v24, u[0:1], v23, {imm}"),
                _ => format!("st.global.b32 v24, v[2:3], {imm}"),
            };
            self.line(&line);
        }
        self.line("uaddi u5, u5, -1");
        self.line(&format!("br.unz u5, {l}"));
        if self.rng.below(4) == 0 {
            self.line("wait.vst 0");
        }
        self.line("vaddi.u32 v24, v24, 1");
    }

    /// The body: `n` items of the kinds above, then `end`.
    fn body(&mut self, n: usize, flood: bool) {
        let flood_at = flood.then(|| self.rng.below(n as u64) as usize);
        for i in 0..n {
            if flood_at == Some(i) {
                self.flood();
                continue;
            }
            match self.rng.below(100) {
                0..=49 => self.access(),
                50..=64 => self.wait(),
                65..=81 => self.alu(),
                // Barriers only in straight-line code every wave runs.
                82..=86 => self.line("barrier"),
                87..=92 => self.short_loop(),
                _ => self.partial_exec(),
            }
        }
        self.line("end");
    }
}

/// The kernel of case `rng`: its text.
fn kernel(rng: &mut Rng) -> String {
    let mut g = Gen {
        rng,
        text: String::new(),
        labels: 0,
    };
    g.prologue();
    let n = 10 + g.rng.below(31) as usize;
    let flood = g.rng.below(4) == 0;
    g.body(n, flood);
    g.text
}

/// What one case found: how it ended and the kinds of the findings made.
struct Outcome {
    /// The terminal event's name (`Finished`, `Deadlock`, `Stalled`).
    end: String,
    /// The kinds of the findings made, one per finding.
    kinds: Vec<FindingKind>,
}

/// The events of `m` until a terminal one (Finished, Deadlock, Stalled), each produced
/// by `next` (a run, or steps until one raises an event).
fn events(m: &mut Machine, next: impl Fn(&mut Machine) -> Option<Event>) -> Vec<Event> {
    let terminal = |e: &Event| matches!(e, Event::Finished | Event::Deadlock(_) | Event::Stalled);
    let mut out = Vec::new();
    for _ in 0..100_000 {
        let Some(e) = next(m) else { break };
        let stop = terminal(&e);
        out.push(e);
        if stop {
            break;
        }
    }
    out
}

/// One case: the kernel of `seed`, run by `Machine::run` and by `Machine::step` under
/// the detectors `checks`; asserts they are indistinguishable.
fn run_case(seed: u64, checks: Checks) -> Outcome {
    let mut rng = Rng(seed);
    let text = kernel(&mut rng);
    let program = assemble(&text, "checked.s", None).unwrap_or_else(|e| {
        panic!("seed {seed:#x}: the generated kernel does not assemble: {e}\n{text}")
    });
    let quantum = rng.pick(&[1, 3, 8]);
    let options = LaunchOptions {
        quantum,
        seed: if rng.below(2) == 0 { seed } else { 0 },
        max_instructions: Some(20_000),
        ..Default::default()
    };
    let (mut a, mut b, mut c) = (
        Machine::new(&program, options).expect("launch"),
        Machine::new(&program, options).expect("launch"),
        Machine::new(&program, options).expect("launch"),
    );
    // Half the cases watch a few bytes of the buffer or of shared memory, where the
    // kernels' accesses fall.
    let watch = (rng.below(2) == 0).then(|| {
        let len = rng.pick(&[1u64, 4, 16]);
        if rng.below(2) == 0 {
            let at = a.buffer_base("b").expect("buffer b") + rng.below(4096);
            (Space::Global, at, at + len)
        } else {
            let at = rng.below(2048);
            (Space::Shared, at, at + len)
        }
    });
    for m in [&mut a, &mut b, &mut c] {
        m.set_checks(checks);
        if let Some(range) = watch {
            m.set_access_log(Some(AccessLog::new(vec![range])));
        }
    }
    // The third machine runs in slices of a few instructions: a run's budget can end
    // anywhere in a turn, or between two turns its loop runs back to back.
    let slice = rng.pick(&[1u64, 5, 17]);
    let context = format!(
        "seed {seed:#x}, {checks:?}, quantum {quantum}, scheduling seed {}, watch {watch:?}, slice \
         {slice}\n{text}",
        options.seed
    );
    let ran = events(&mut a, |m| m.run(None));
    let stepped = events(&mut b, |m| (0..1_000_000).find_map(|_| m.step()));
    let sliced = events(&mut c, |m| (0..1_000_000).find_map(|_| m.run(Some(slice))));
    assert_eq!(ran, stepped, "events differ: {context}");
    assert_eq!(ran, sliced, "events differ in slices: {context}");
    assert!(
        a.waves == c.waves,
        "wave state differs in slices: {context}"
    );
    assert_eq!(a.stats, c.stats, "{context}");
    assert!(
        a.global == c.global,
        "global memory differs in slices: {context}"
    );
    assert!(
        a.slots == c.slots,
        "shared memory differs in slices: {context}"
    );
    assert_eq!(
        a.scheduler_state(),
        c.scheduler_state(),
        "scheduler differs in slices: {context}"
    );
    assert!(a.waves == b.waves, "wave state differs: {context}");
    assert_eq!(a.stats, b.stats, "{context}");
    assert!(a.global == b.global, "global memory differs: {context}");
    assert!(a.slots == b.slots, "shared memory differs: {context}");
    let findings = |m: &Machine| format!("{:#?}", m.sanitizer().map(|s| s.findings()));
    assert_eq!(findings(&a), findings(&b), "findings differ: {context}");
    assert_eq!(
        findings(&a),
        findings(&c),
        "findings differ in slices: {context}"
    );
    let end = match ran.last() {
        Some(Event::Finished) => "Finished".to_string(),
        Some(Event::Deadlock(_)) => "Deadlock".to_string(),
        Some(Event::Stalled) => "Stalled".to_string(),
        other => format!("no end ({other:?})"),
    };
    let kinds = a
        .sanitizer()
        .expect("checks on")
        .findings()
        .iter()
        .map(|f| f.kind)
        .collect();
    Outcome { end, kinds }
}

/// 500 random kernels, each run and stepped under every detector: indistinguishable,
/// and the detectors the kernels' bugs are for fire in a good share of them.
#[test]
fn checked_runs_equal_stepping() {
    const CASES: u64 = 500;
    let mut ends: BTreeMap<String, u64> = BTreeMap::new();
    // Cases with at least one finding of each kind.
    let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
    for case in 0..CASES {
        let out = run_case(0xc4ec_0000 + case, Checks::ALL);
        *ends.entry(out.end).or_default() += 1;
        let mut seen: Vec<String> = out.kinds.iter().map(|k| format!("{k:?}")).collect();
        seen.sort();
        seen.dedup();
        for k in seen {
            *kinds.entry(k).or_default() += 1;
        }
    }
    eprintln!("ends: {ends:?}");
    eprintln!("cases with findings of each kind: {kinds:?}");
    // The cases reach what they aim at: most finish, and the detectors the bugs in the
    // kernels are for fire in a good share of them.
    assert!(
        ends.get("Finished").is_some_and(|&n| n >= CASES * 3 / 4),
        "{ends:?}"
    );
    for kind in [
        "Race",
        "UninitMemory",
        "ReadBeforeWait",
        "WriteBeforeWait",
        "StoreDataOverwritten",
    ] {
        assert!(
            kinds.get(kind).is_some_and(|&n| n >= CASES / 20),
            "too few cases with a {kind} finding: {kinds:?}"
        );
    }
}

/// The same under each detector alone and under random sets of them: the fast loop runs
/// under any set (it once ran nothing under `races` or `xlane` alone, whose hooks never
/// made the wave's shadow the guard needs), and must be as exact under each.
#[test]
fn checked_runs_equal_stepping_under_any_set_of_detectors() {
    let alone = [
        Checks {
            races: true,
            ..Checks::default()
        },
        Checks {
            sync: true,
            ..Checks::default()
        },
        Checks {
            init: true,
            ..Checks::default()
        },
        Checks {
            hazards: true,
            ..Checks::default()
        },
        Checks {
            xlane: true,
            ..Checks::default()
        },
    ];
    for case in 0..150u64 {
        let checks = match alone.get(case as usize % 10) {
            Some(&c) => c,
            None => {
                let mut rng = Rng(0x5e75_0000 + case);
                let bits = 1 + rng.below(30);
                Checks {
                    races: bits & 1 != 0,
                    sync: bits & 2 != 0,
                    init: bits & 4 != 0,
                    hazards: bits & 8 != 0,
                    xlane: bits & 16 != 0,
                }
            }
        };
        run_case(0x5e75_0000 + case, checks);
    }
}
