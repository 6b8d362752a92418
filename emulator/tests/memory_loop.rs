//! Memory and cross-lane instructions in the machine's fast and wave-local loops, in
//! lock-step with the reference interpreter.
//!
//! `Machine::run` with no hook set runs 32-bit loads, stores and atomics whose lanes make
//! one or two runs of consecutive words in its fast loop (`exec/fast.rs`, the memory
//! codes), and the other loads, stores, atomics and shuffles in its wave-local loop,
//! where the lanes' accesses are placed with one check for the whole wave when one page
//! holds them all (`exec/lsu.rs`, `one_page`). Each case here runs a short random
//! program of such instructions (and waits) that way, from a random state, at a random
//! quantum, and the same program from the same state instruction by instruction through
//! the reference interpreter (`exec::reference`, which shares no semantic code with the
//! machine); the registers, PC, outstanding operations, memory, the lines marked written
//! (time travel's index) and the run's end (finished, or the same fault: kind, lanes,
//! address, length) must be equal. One case in three runs with the sanitizer on: its
//! accesses then run with their hooks, in the fast loop (`check/fast.rs`,
//! `FastChecked::step`) when the checks before them would find nothing, and otherwise in
//! the wave-local loop's `lsu::execute` (the test writes the registers directly, which
//! the sanitizer counts as unwritten, so most of them take that path).
//!
//! The address registers hold the patterns the fast paths must tell apart: lanes all in
//! one page (consecutive, strided, scattered with duplicates, one address), lanes on two
//! pages, the buffer's last word (the buffer ends inside a page), one lane past the end,
//! misaligned, or at an offset of 2^31 or more, and wild values in inactive lanes;
//! consecutive words (one run, `exec/lsu.rs` `RunPlace`) ending at a page's or the
//! memory's end or one word past it, starting at a page's start, wrapping past 2^32,
//! around a window, or descending; two runs (the lanes below some lane on one, the rest
//! on another, apart or on common words); atomics of several operations on consecutive
//! words and on one word. EXEC is full, partial (a prefix, a suffix, a few holes, lanes far
//! apart, random), one lane, or empty. Half the cases watch a few bytes.

#![allow(clippy::needless_range_loop)]

use std::collections::BTreeMap;

use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::check::Checks;
use wavedbg_emulator::code::decode_code;
use wavedbg_emulator::exec::fast::FastCode;
use wavedbg_emulator::exec::{reference, Access, AccessLog, Ctx, Flow};
use wavedbg_emulator::machine::{Event, LaunchOptions, Machine};
use wavedbg_emulator::memory::Space;
use wavedbg_emulator::wave::LANES;

const PAGE: u32 = 4096;
/// Three pages less a word: the buffer's last word ends inside its last page.
const BUF: u32 = 3 * PAGE - 4;
/// Two pages of shared memory.
const SHARED: u32 = 2 * PAGE;

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

/// Instructions the cases are made of: `OFF` is an offset register (v1 or v9), `ADDR` a
/// 64-bit address pair (v[2:3]); data in v4-v7, results in v8 and up.
const TEMPLATES: &[&str] = &[
    "ld.ubase.b32 v8, u[0:1], OFF, IMM",
    "ld.ubase.u8 v8, u[0:1], OFF, IMM",
    "ld.ubase.i16 v8, u[0:1], OFF, IMM",
    "ld.ubase.b64 v[10:11], u[0:1], OFF, IMM",
    "ld.ubase.b128 v[12:15], u[0:1], OFF, IMM",
    "st.ubase.b32 v4, u[0:1], OFF, IMM",
    "st.ubase.b8 v5, u[0:1], OFF, IMM",
    "st.ubase.b16 v6, u[0:1], OFF, IMM",
    "st.ubase.b96 v[4:6], u[0:1], OFF, IMM",
    "atom.ubase.add.u32.rtn v8, u[0:1], OFF, IMM",
    "atom.ubase.max.i64.rtn v[10:11], u[0:1], OFF, IMM",
    "ld.shared.b32 v8, OFF, IMM",
    "ld.shared.i8 v8, OFF, IMM",
    "st.shared.b32 v4, OFF, IMM",
    "st.shared.b16 v5, OFF, IMM",
    "st.shared.b128 v[4:7], OFF, IMM",
    "atom.shared.add.u32 v7, OFF, IMM",
    "atom.shared.add.u32.rtn v8, OFF, IMM",
    "atom.shared.cmpxchg.b32.rtn v[8:9], OFF, IMM",
    "atom.shared.xchg.b64.rtn v[10:11], OFF, IMM",
    "atom.ubase.min.i32.rtn v8, u[0:1], OFF, IMM",
    "atom.ubase.cmpxchg.b32.rtn v[8:9], u[0:1], OFF, IMM",
    "atom.ubase.fadd.f32 v4, u[0:1], OFF, IMM",
    "atom.shared.inc.u32.rtn v8, OFF, IMM",
    "atom.shared.dec.u32 v6, OFF, IMM",
    "atom.shared.sub.u32.rtn v8, OFF, IMM",
    "atom.shared.max.u32.rtn v8, OFF, IMM",
    "atom.shared.xchg.b32.rtn v8, OFF, IMM",
    "atom.shared.fmin.f32.rtn v8, OFF, IMM",
    "ld.global.b32 v8, v[2:3], IMM",
    "ld.global.u16 v8, v[2:3], IMM",
    "st.global.b32 v4, v[2:3], IMM",
    "atom.global.add.u32.rtn v8, v[2:3], IMM",
    "atom.global.xor.b32 v5, v[2:3], IMM",
    "atom.global.cmpxchg.b32.rtn v[8:9], v[2:3], IMM",
    "atom.global.min.u32.rtn v8, v[2:3], IMM",
    "atom.global.fmax.f32 v4, v[2:3], IMM",
    "atom.ubase.and.b32 v5, u[0:1], OFF, IMM",
    "atom.ubase.xchg.b32 v6, u[0:1], OFF, IMM",
    "atom.shared.cmpxchg.b32 v[4:5], OFF, IMM",
    "atom.ubase.cmpxchg.b32 v[6:7], u[0:1], OFF, IMM",
    "wait.vm 0",
    "wait.vst 1",
    "wait.ls 0",
    "shfl.xor.vi v8, v4, 5",
    "shfl.idx v8, v4, v9",
    "vaddi.u32 OFF, OFF, IMM",
];

const IMMS: &[i32] = &[0, 0, 0, 4, -4, 8, 64, 4092, -4096];

/// A random program of `n` instructions, then `end`.
fn program_text(rng: &mut Rng, n: usize) -> String {
    let mut s = format!(
        ".kernel memloop\n.workgroup 32\n.grid 1\n.shared {SHARED}\n.buffer b, {BUF}\n.arg u[0:1], b\n"
    );
    for _ in 0..n {
        let line = rng
            .pick(TEMPLATES)
            .replace("OFF", rng.pick(&["v1", "v9"]))
            .replace("IMM", &rng.pick(IMMS).to_string());
        s.push_str("    ");
        s.push_str(&line);
        s.push('\n');
    }
    s.push_str("    end\n");
    s
}

/// Per-lane offsets in a memory of `size` bytes, in one of the patterns the fast path
/// must tell apart.
fn offsets(rng: &mut Rng, size: u32) -> [u32; LANES] {
    let pages = size.div_ceil(PAGE);
    let page = PAGE * rng.below(pages as u64) as u32;
    let stride = rng.pick(&[0u32, 4, 8, 16]);
    let start = page + 8 * rng.below(((PAGE - 32 * 16) / 8) as u64) as u32;
    let mut offs: [u32; LANES] = std::array::from_fn(|l| start + stride * l as u32);
    match rng.below(17) {
        0 | 1 => {}
        // Scattered in one page, with duplicates.
        2 => {
            let words: Vec<u32> = (0..1 + rng.below(4))
                .map(|_| rng.below(512) as u32)
                .collect();
            offs = std::array::from_fn(|_| page + 8 * rng.pick(&words));
        }
        // Lanes on both sides of a page boundary.
        3 => {
            let b = PAGE * (1 + rng.below((pages - 1) as u64) as u32);
            let back = 4 * (1 + rng.below(40) as u32);
            offs = std::array::from_fn(|l| b - back + stride.max(4) * l as u32);
        }
        // The last words of the memory, the very last one among them.
        4 => offs = std::array::from_fn(|l| size - 4 - 4 * (l as u32 % 3)),
        // One lane past the end, or at 2^31 and above.
        5 => {
            offs[rng.below(32) as usize] =
                rng.pick(&[size, size - 2, size + PAGE, 0x8000_0000, 0xFFFF_FFF0]);
        }
        // One lane misaligned.
        6 => offs[rng.below(32) as usize] += rng.pick(&[1u32, 2, 4]),
        // Every lane on one address.
        7 => offs = [start; LANES],
        // Lane 0 just below a page's end, the others low in the next page.
        8 => {
            let b = PAGE * (1 + rng.below((pages - 1) as u64) as u32);
            offs = std::array::from_fn(|l| if l == 0 { b - 4 } else { b + 4 * l as u32 });
        }
        // Consecutive words ending at a page's end, or the memory's, or one word past it.
        10 => {
            let page_end = PAGE * (1 + rng.below(pages as u64) as u32);
            let end = rng.pick(&[page_end, size]);
            let past = rng.pick(&[0u32, 0, 4]);
            offs = std::array::from_fn(|l| (end + past).wrapping_sub(128 - 4 * l as u32));
        }
        // Consecutive words starting at a page's start (the lanes below may be inactive).
        11 => {
            let from = page.saturating_sub(4 * rng.below(32) as u32);
            offs = std::array::from_fn(|l| from + 4 * l as u32);
        }
        // Consecutive words wrapping past 2^32, or descending.
        12 => {
            offs = if rng.below(2) == 0 {
                std::array::from_fn(|l| 0xFFFF_FFC0u32.wrapping_add(4 * l as u32))
            } else {
                std::array::from_fn(|l| start + 128 - 4 * l as u32)
            };
        }
        // Consecutive words wrapping around a window of 64 to 1024 bytes, the window at a
        // random place (sometimes across a page boundary).
        13 | 14 => {
            let window = rng.pick(&[64u32, 128, 256, 1024]);
            let near_end = size - window - 4 * rng.below(8) as u32;
            let at = rng.pick(&[page, start, near_end]);
            let from = 4 * rng.below(window as u64 / 4) as u32;
            offs = std::array::from_fn(|l| at + (from + 4 * l as u32) % window);
        }
        // Two runs of consecutive words: the lanes below a random one, and the rest
        // further on or back; or the odd lanes' run shifted from the even lanes' (not
        // two runs in lane order). The runs' words apart or meeting (then lane order
        // decides what a store leaves and what an atomic returns).
        15 => {
            let k = 1 + rng.below(31) as usize;
            let shift = 4 * (1 + rng.below(48)) as u32;
            let how = rng.below(3);
            offs = std::array::from_fn(|l| {
                let x = start + 4 * l as u32;
                match how {
                    _ if l < k && how < 2 => x,
                    0 => x + shift,
                    1 => x.wrapping_sub(shift),
                    _ if l % 2 == 0 => x,
                    _ => x + shift,
                }
            });
        }
        // Consecutive words at a random place (often across a boundary).
        _ => {
            let s = 4 * rng.below(((size - 128) / 4) as u64) as u32;
            offs = std::array::from_fn(|l| s + 4 * l as u32);
        }
    }
    offs
}

/// A random state: memory, data registers, offset and address registers, EXEC (with
/// wild values in the inactive lanes of the address registers).
fn randomize(m: &mut Machine, rng: &mut Rng) {
    let base = m.buffer_base("b").expect("buffer b");
    let g: Vec<u8> = (0..BUF).map(|_| rng.next() as u8).collect();
    m.global.write(base, &g).expect("buffer b is mapped");
    let sh: Vec<u8> = (0..SHARED).map(|_| rng.next() as u8).collect();
    m.slots[0].shared.write(0, &sh);
    let exec = match rng.below(9) {
        0 | 1 => u32::MAX,
        2 => rng.next() as u32,
        3 => 1 << rng.below(32),
        4 => u32::MAX >> rng.below(32),
        5 => u32::MAX << rng.below(32),
        // A few inactive lanes inside a run of active ones.
        6 => !(1 << rng.below(32) | 1 << rng.below(32)) & u32::MAX >> rng.below(4),
        // Lanes far apart: the words between them, whole 64-byte lines, are not written.
        7 => 1 << rng.below(4) | 1 << (28 + rng.below(4)),
        _ => 0,
    };
    let w = &mut m.waves[0];
    w.exec = exec;
    for r in 4..16 {
        w.v[r] = std::array::from_fn(|_| rng.next() as u32);
    }
    // Shuffle selectors in v9 double as offsets: both uses are exercised.
    for r in [1, 9] {
        let size = rng.pick(&[BUF, SHARED]);
        w.v[r] = offsets(rng, size);
    }
    let offs = offsets(rng, BUF);
    for l in 0..LANES {
        let a = base.wrapping_add(offs[l] as u64);
        w.v[2][l] = a as u32;
        w.v[3][l] = (a >> 32) as u32;
    }
    if rng.below(2) == 0 {
        for r in [1, 2, 3, 9] {
            for l in 0..LANES {
                if exec >> l & 1 == 0 {
                    w.v[r][l] = rng.pick(&[0xFFFF_FFF0, 0x8000_0001, 3, BUF]);
                }
            }
        }
    }
}

/// How a run ended.
#[derive(Debug, PartialEq, Eq)]
enum End {
    Finished,
    Fault {
        kind: String,
        lanes: u32,
        addr: Option<u64>,
        len: u32,
    },
}

/// The watched accesses of one instruction: its PC and the accesses, in lane order.
type Hits = (u64, Vec<Access>);

/// An instruction's watched accesses as `(pc, accesses)`, in a fixed order.
fn hits_at(pc: u64, hits: &[Access]) -> Hits {
    let mut v = hits.to_vec();
    v.sort_by_key(|a| (a.lane, a.addr, a.len));
    (pc, v)
}

/// Runs the reference interpreter on wave 0 of `m` until `end` or a fault, with the
/// watchpoints of `watch` (their hits, per instruction that has any, go to `hits`).
fn reference_run(m: &mut Machine, watch: Option<&AccessLog>, hits: &mut Vec<Hits>) -> End {
    let launch = *m.launch();
    let mut log = watch.cloned();
    for _ in 0..1000 {
        let pc = m.waves[0].pc;
        let instr = m.instr_at(pc).expect("pc on an instruction").instr;
        let result = {
            let mut ctx = Ctx {
                wave: &mut m.waves[0],
                shared: &mut m.slots[0].shared,
                global: &mut m.global,
                launch: &launch,
                scratch_bytes: launch.scratch_bytes as u64,
                accesses: log.as_mut(),
                trace: None,
            };
            reference::execute(&mut ctx, &instr, pc)
        };
        if let Some(log) = log.as_mut() {
            // A faulting instruction reports its fault, not its watched lanes.
            if result.is_ok() && !log.hits.is_empty() {
                hits.push(hits_at(pc, &log.hits));
            }
            log.hits.clear();
        }
        match result {
            Ok(Flow::Next) => m.waves[0].pc = pc + instr.size_bytes() as u64,
            Ok(Flow::End) => return End::Finished,
            Ok(other) => panic!("unexpected flow {other:?} at {pc:#x}"),
            Err(e) => {
                return End::Fault {
                    kind: format!("{:?}", e.kind),
                    lanes: e.lanes,
                    addr: e.addr,
                    len: e.len,
                }
            }
        }
    }
    panic!("the program did not end");
}

/// One case: the program from `seed`, run by the machine's loop and by the reference.
/// Returns how it ended.
fn run_case(seed: u64) -> End {
    let mut rng = Rng(seed);
    let n = 1 + rng.below(10) as usize;
    let text = program_text(&mut rng, n);
    let program = assemble(&text, "memloop.s", None).expect("the templates assemble");
    // Quantum 1 ends the fast loop's turn after every instruction: the general loop's
    // scheduler then starts the next one.
    let quantum = rng.pick(&[1, 3, LaunchOptions::default().quantum]);
    let options = LaunchOptions {
        max_instructions: None,
        quantum,
        ..LaunchOptions::default()
    };
    let mut fast = Machine::new(&program, options).expect("launch");
    randomize(&mut fast, &mut rng);
    // Half the cases watch a few bytes of the buffer or of shared memory, which may or
    // may not be in the page the lanes touch: the one-page paths must leave accesses to
    // a watched page to the lane-by-lane path, which records them.
    let watch = (rng.below(2) == 0).then(|| {
        let len = rng.pick(&[1u64, 4, 16, 64]);
        let range = if rng.below(2) == 0 {
            let base = fast.buffer_base("b").expect("buffer b");
            let at = base + rng.below(BUF as u64);
            (Space::Global, at, at + len)
        } else {
            let at = rng.below(SHARED as u64);
            (Space::Shared, at, at + len)
        };
        AccessLog::new(vec![range])
    });
    fast.set_access_log(watch.clone());
    // Line marks from here on are the program's writes only.
    fast.global.next_epoch();
    fast.slots[0].shared.next_epoch();
    let mut slow = fast.clone();
    // One case in three runs with every sanitizer detector on: the accesses run with
    // their trace filled (in the fast loop, or in `lsu::execute` by one or two runs or
    // lane by lane).
    let checked = seed.is_multiple_of(3);
    if checked {
        fast.set_checks(Checks::ALL);
    }
    let mut want_hits = Vec::new();
    let want = reference_run(&mut slow, watch.as_ref(), &mut want_hits);
    let mut got_hits = Vec::new();
    let got = loop {
        match fast.run(None) {
            Some(Event::WatchHit { pc, .. }) => {
                let log = fast.access_log().expect("watching");
                got_hits.push(hits_at(pc, &log.hits));
            }
            // A finding is reported first; the instruction's watched accesses stay in
            // the log (as the debug engine reports them, with the finding).
            Some(Event::Finding { pc, .. }) if checked => {
                if let Some(log) = fast.access_log().filter(|l| !l.hits.is_empty()) {
                    got_hits.push(hits_at(pc, &log.hits));
                }
            }
            Some(Event::Finished) => break End::Finished,
            Some(Event::Fault(f)) => {
                break End::Fault {
                    kind: format!("{:?}", f.kind),
                    lanes: f.lanes,
                    addr: f.addr,
                    len: f.len,
                }
            }
            other => panic!("seed {seed:#x}: unexpected event {other:?}\n{text}"),
        }
    };
    let context = format!(
        "seed {seed:#x}, quantum {quantum}, checked {checked}, exec {:#x}, watch {watch:?}\n{text}",
        slow.waves[0].exec
    );
    assert_eq!(got, want, "{context}");
    assert_eq!(got_hits, want_hits, "watched accesses differ: {context}");
    let (a, b) = (&fast.waves[0], &slow.waves[0]);
    assert!(a.v == b.v, "vector registers differ: {context}");
    assert_eq!(a.u, b.u, "{context}");
    assert_eq!(a.exec, b.exec, "{context}");
    assert_eq!(a.outstanding, b.outstanding, "{context}");
    // The faulting instruction's PC: the machine stays on it, so does the reference.
    if want != End::Finished {
        assert_eq!(a.pc, b.pc, "{context}");
    }
    assert!(
        fast.global == slow.global,
        "global memory differs: {context}"
    );
    assert!(
        fast.slots[0].shared == slow.slots[0].shared,
        "shared memory differs: {context}"
    );
    // Time travel's index: the same 64-byte lines marked written as lane-by-lane writes.
    let lines = |m: &Machine| -> Vec<Vec<(usize, u64)>> {
        let mut v: Vec<_> = m
            .global
            .allocations()
            .iter()
            .map(|a| a.data.written_this_epoch().collect())
            .collect();
        v.push(m.slots[0].shared.written_this_epoch().collect());
        v
    };
    assert_eq!(
        lines(&fast),
        lines(&slow),
        "written lines differ: {context}"
    );
    got
}

#[test]
fn memory_in_the_wave_local_loop_matches_the_reference() {
    let mut ends: BTreeMap<String, usize> = BTreeMap::new();
    for case in 0..1500u64 {
        let end = run_case(0x3e3_1009_0000 + case);
        let name = match end {
            End::Finished => "Finished".to_string(),
            End::Fault { kind, .. } => kind.split([' ', '{', '(']).next().unwrap_or("").to_string(),
        };
        *ends.entry(name).or_default() += 1;
    }
    eprintln!("{ends:?}");
    // The cases reach what they aim at: most finish, and every bad lane kind faults.
    assert!(ends.get("Finished").is_some_and(|n| *n >= 300), "{ends:?}");
    for kind in ["Misaligned", "Unmapped", "OutOfWindow"] {
        assert!(ends.contains_key(kind), "no {kind} fault in {ends:?}");
    }
}

/// The 32-bit accesses are in the fast loop's set (so the cases above run them there),
/// the other widths are not.
#[test]
fn the_fast_loop_takes_the_32_bit_accesses() {
    let fast = |line: &str| {
        let text = format!(".kernel k\n.workgroup 32\n.grid 1\n.shared 64\n    {line}\n    end\n");
        let program = assemble(&text, "k.s", None).expect("assembles");
        FastCode::new(&decode_code(&program.code)).ops[0].is_fast()
    };
    for line in [
        "ld.ubase.b32 v8, u[0:1], v1, 0",
        "st.shared.b32 v4, v1, 4",
        "ld.global.b32 v8, v[2:3], -4",
        "atom.shared.add.u32 v7, v1, 0",
        "atom.ubase.cmpxchg.b32.rtn v[8:9], u[0:1], v1, 0",
        "atom.global.fmax.f32 v4, v[2:3], 0",
    ] {
        assert!(fast(line), "{line} is not in the fast set");
    }
    for line in [
        "ld.ubase.u8 v8, u[0:1], v1, 0",
        "ld.ubase.b64 v[10:11], u[0:1], v1, 0",
        "st.shared.b16 v5, v1, 0",
        "atom.shared.xchg.b64.rtn v[10:11], v1, 0",
    ] {
        assert!(!fast(line), "{line} is in the fast set");
    }
}
