//! The sanitizer's memory trace on the fast memory paths: lanes on consecutive words
//! (one or two runs) or in one page are traced without an entry per lane, and the
//! detectors must find exactly what they find when every lane is placed and traced
//! alone. A watchpoint on every byte sends each access lane by lane, so random kernels
//! run both ways give the reference and the fast paths' findings.

use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::check::Checks;
use wavedbg_emulator::exec::AccessLog;
use wavedbg_emulator::machine::{Event, LaunchOptions, Machine};
use wavedbg_emulator::memory::Space;
use wavedbg_emulator::program::Program;

#[path = "../support/rng.rs"]
mod rng;
use rng::Rng;

/// Addresses are offsets below this in the shared window and the global buffer, each
/// 16 bytes longer (so an access at any of them fits).
const WINDOW: u64 = 8192;

/// One random memory instruction (with the EXEC mask and the address computation before
/// it) of two waves in each of two workgroups: consecutive, strided, scattered, equal or
/// descending addresses, near 1 KiB and 4 KiB edges, wrapping inside the window (two runs
/// of consecutive words, when the lanes wrap round its end), sub-word to 16-byte sizes,
/// loads, stores and atomics, shared, `ubase` and 64-bit global.
fn instruction(r: &mut Rng, out: &mut String) {
    let exec: u32 = match r.below(4) {
        0 => {
            let (a, b) = (r.below(32) as u32, r.below(32) as u32);
            let (lo, hi) = (a.min(b), a.max(b));
            (u32::MAX >> (31 - hi)) & (u32::MAX << lo)
        }
        1 => (r.next() as u32) | 1 << r.below(32),
        _ => u32::MAX,
    };
    let atomic = r.below(4) == 0;
    let bytes: u64 = if atomic {
        r.pick(&[4, 4, 4, 8])
    } else {
        r.pick(&[1, 2, 4, 4, 4, 4, 8, 12, 16])
    };
    let align = if bytes == 12 { 4 } else { bytes };
    let stride = r.pick(&[1i64, 1, 1, 1, 2, 3, 0, -1, 37]) * bytes as i64;
    let edge = r.pick(&[1024, 4096, 2048, 5120]);
    let base = match r.below(4) {
        0 => edge - align * r.below(40),
        1 => edge + align * r.below(8),
        // Lanes that wrap round the window's end: two runs, for consecutive words.
        2 => WINDOW - align * (1 + r.below(31)),
        _ => r.below(WINDOW / align) * align,
    };
    // Offsets wrap inside the window, aligned; one time in eight inside its first 64
    // bytes (consecutive words: two runs on the same words).
    let window = if r.below(8) == 0 { 64 } else { WINDOW };
    let mask = (window - 1) & !(align - 1);
    out.push_str(&format!("    vmuli.u32 v1, v0, {}\n", stride as i32));
    out.push_str(&format!("    vaddi.u32 v1, v1, {base}\n"));
    if r.below(3) == 0 {
        out.push_str("    vadd.u32.u v1, v1, u3\n");
    }
    out.push_str(&format!("    vandi v1, v1, {mask}\n"));
    out.push_str(&format!("    umovi u20, {exec}\n    exec.set u20\n"));
    let mode = r.below(3);
    let (space, addr) = match mode {
        0 => ("shared", "v1".to_string()),
        1 => ("ubase", "u[0:1], v1".to_string()),
        _ => {
            out.push_str("    vadd.u64.u v[4:5], v1, u[0:1]\n");
            ("global", "v[4:5]".to_string())
        }
    };
    let line = if atomic {
        let (op, rd) = match bytes {
            8 => ("add.u64", "v[8:9]"),
            _ => (r.pick(&["add.u32", "xchg.b32", "max.u32"]), "v7"),
        };
        format!("atom.{space}.{op} {rd}, {addr}, 0")
    } else if r.below(2) == 0 {
        let (ty, rd) = match bytes {
            1 => (r.pick(&["u8", "i8"]), "v2"),
            2 => (r.pick(&["u16", "i16"]), "v2"),
            4 => ("b32", "v2"),
            8 => ("b64", "v[2:3]"),
            12 => ("b96", "v[10:12]"),
            _ => ("b128", "v[10:13]"),
        };
        format!("ld.{space}.{ty} {rd}, {addr}, 0")
    } else {
        // Lane-dependent data (lanes storing to one place may differ) or the same.
        let rd = match bytes {
            1 | 2 | 4 => r.pick(&["v6", "v14"]),
            8 => "v[14:15]",
            12 => "v[14:16]",
            _ => "v[14:17]",
        };
        format!("st.{space}.b{} {rd}, {addr}, 0", 8 * bytes)
    };
    out.push_str(&format!("    {line}\n"));
    out.push_str("    umovi u20, 4294967295\n    exec.set u20\n");
    match r.below(6) {
        0 => out.push_str("    wait.all\n    barrier\n"),
        1 => out.push_str("    wait.all\n"),
        _ => {}
    }
}

fn kernel(r: &mut Rng) -> Program {
    let mut src = format!(
        ".kernel trace_runs\n.workgroup 64\n.grid 2\n.shared {size}\n\
         .buffer buf, {size}\n.arg u[0:1], buf\n\
         uwaveid u2\n    ushli u3, u2, {}\n    vlaneid v0\n    vmovi v7, 1\n    vmovi v8, 3\n    vmovi v9, 0\n\
         vmuli.u32 v6, v0, 16843009\n    vmovi v14, 7\n    vmovi v15, 9\n    vmovi v16, 11\n    vmovi v17, 13\n",
        r.pick(&[2, 7, 9]),
        size = WINDOW + 16,
    );
    for _ in 0..4 + r.below(20) {
        instruction(r, &mut src);
    }
    src.push_str("    wait.all\n    end\n");
    assemble(&src, "trace_runs.s", None).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// The run's findings (as printed for debugging, every field) and the global buffer, with
/// every byte watched (`lane_by_lane`: each access placed and traced lane by lane) or not.
fn run(p: &Program, seed: u64, lane_by_lane: bool) -> (Vec<String>, Vec<u8>) {
    let options = LaunchOptions {
        seed,
        max_instructions: Some(100_000),
        ..Default::default()
    };
    let mut m = Machine::new(p, options).expect("launch");
    m.set_checks(Checks::ALL);
    if lane_by_lane {
        let all = [Space::Global, Space::Shared, Space::Scratch].map(|s| (s, 0, u64::MAX));
        m.set_access_log(Some(AccessLog::new(all.to_vec())));
    }
    let end = loop {
        match m.run(None) {
            Some(Event::Finding { .. } | Event::WatchHit { .. }) => continue,
            e => break e,
        }
    };
    assert_eq!(end, Some(Event::Finished), "{:?}", p.source);
    let findings = m
        .sanitizer()
        .expect("the sanitizer is on")
        .findings()
        .iter()
        .map(|f| format!("{f:?}"))
        .collect();
    let mut bytes = vec![0u8; WINDOW as usize + 16];
    let base = m.global.allocations()[0].base;
    m.global.read(base, &mut bytes).expect("the buffer");
    (findings, bytes)
}

#[test]
fn traced_runs_and_pages_find_what_lane_by_lane_tracing_finds() {
    let mut r = Rng(0x7261_6365_7275_6e73);
    let mut found = 0;
    for round in 0..1000 {
        let p = kernel(&mut r);
        let seed = r.below(4);
        let (fast, memory) = run(&p, seed, false);
        let (reference, reference_memory) = run(&p, seed, true);
        assert_eq!(
            fast,
            reference,
            "round {round}, seed {seed}:\n{}",
            p.source.as_deref().unwrap_or("")
        );
        assert_eq!(memory, reference_memory, "round {round}");
        found += fast.len();
    }
    assert!(
        found > 1000,
        "{found} findings: too few to compare the paths"
    );
}
