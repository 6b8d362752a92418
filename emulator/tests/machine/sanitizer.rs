//! The kernel sanitizer (`wavedbg_emulator::check`): for every detector a small kernel with
//! the bug, the same kernel fixed (a barrier, a wait, an initialising store, an atomic),
//! and the exact finding the bug must produce (kind, both sides' waves, lanes and PCs,
//! space, address, register, counter). PCs are taken from the kernels' labels.

use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::check::{
    Checks, Finding, FindingKind, MemAccess, MissingFence, Severity, Site, WaveLanes,
};
use wavedbg_emulator::fault::Fault;
use wavedbg_emulator::isa::{Counter, RegFile};
use wavedbg_emulator::machine::{Event, LaunchOptions, Machine};
use wavedbg_emulator::memory::Space;
use wavedbg_emulator::program::Program;
use wavedbg_emulator::wave::WaveState;

const ALL_LANES: u32 = u32::MAX;

/// Only the race detectors.
const RACES: Checks = Checks {
    races: true,
    sync: false,
    init: false,
    hazards: false,
    xlane: false,
};

fn program(src: &str) -> Program {
    assemble(src, "t.s", None).unwrap_or_else(|e| panic!("kernel does not assemble:\n{e}"))
}

fn opts(seed: u64) -> LaunchOptions {
    LaunchOptions {
        seed,
        max_instructions: Some(1_000_000),
        ..Default::default()
    }
}

/// One launch run to its end with some detectors on.
struct Run {
    p: Program,
    m: Machine,
    /// What ended it: Finished, Deadlock or Stalled.
    end: Event,
    /// Every `Event::Finding` raised, as (wave index, pc).
    raised: Vec<(usize, u64)>,
    /// Faults on the way (the run goes on after them).
    faults: Vec<Fault>,
}

impl Run {
    fn findings(&self) -> &[Finding] {
        self.m
            .sanitizer()
            .expect("a detector is on, so the machine has a sanitizer")
            .findings()
    }

    fn label(&self, name: &str) -> u64 {
        *self
            .p
            .labels
            .get(name)
            .unwrap_or_else(|| panic!("no label `{name}`"))
    }

    /// Every finding as the reports print it, for failure messages.
    fn report(&self) -> String {
        let fs = self.findings();
        if fs.is_empty() {
            return "no findings".into();
        }
        fs.iter()
            .map(|f| format!("{}\n{f:?}", f.describe(&self.m, None)))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn assert_clean(&self, what: &str) {
        assert!(
            self.findings().is_empty(),
            "{what}: expected no findings, got:\n{}",
            self.report()
        );
        assert!(
            self.raised.is_empty(),
            "{what}: Finding events {:?}",
            self.raised
        );
    }

    /// The only finding (asserting there is exactly one, raised as one `Event::Finding`
    /// unless it is a deadlock, which ends the run with `Event::Deadlock` instead).
    fn only(&self) -> &Finding {
        let fs = self.findings();
        assert_eq!(
            fs.len(),
            1,
            "expected exactly one finding, got:\n{}",
            self.report()
        );
        let f = fs.first().expect("one finding");
        let events = usize::from(f.kind != FindingKind::BarrierDeadlock);
        assert_eq!(
            self.raised.len(),
            events,
            "Finding events {:?}",
            self.raised
        );
        f
    }

    fn assert_finished(&self) {
        assert_eq!(
            self.end,
            Event::Finished,
            "faults: {:?}\nfindings:\n{}",
            self.faults,
            self.report()
        );
        assert!(self.faults.is_empty(), "faults: {:?}", self.faults);
    }
}

fn run_with(src: &str, checks: Checks, options: LaunchOptions) -> Run {
    let p = program(src);
    let mut m = Machine::new(&p, options).unwrap_or_else(|e| panic!("launch: {e}"));
    m.set_checks(checks);
    assert_eq!(m.checks(), checks);
    let mut raised = Vec::new();
    let mut faults = Vec::new();
    let end = loop {
        match m.run(None) {
            None => continue,
            Some(Event::Finding { wave, pc }) => raised.push((wave, pc)),
            Some(Event::Fault(f)) => faults.push(f),
            Some(e @ (Event::Finished | Event::Deadlock(_) | Event::Stalled)) => break e,
            Some(other) => panic!("unexpected event {other:?}"),
        }
    };
    Run {
        p,
        m,
        end,
        raised,
        faults,
    }
}

/// Every detector, round-robin schedule (seed 0).
fn run(src: &str) -> Run {
    run_with(src, Checks::ALL, opts(0))
}

/// Runs `src` with every detector (seed 0) to its end and checks its one finding: `kind`,
/// at label `at`, its other side at label `other`. Returns the run for the finding's
/// other fields.
fn run_to_one(src: &str, kind: FindingKind, at: &str, other: &str) -> Run {
    let r = run(src);
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, kind);
    assert_eq!(f.at.pc, r.label(at));
    assert_eq!(f.other.map(|o| o.pc), Some(r.label(other)));
    r
}

/// Runs a kernel that must be clean under several schedules.
fn assert_clean_under_seeds(src: &str, checks: Checks, what: &str) {
    for seed in [0, 1, 2, 3, 7, 42, 0xdead_beef] {
        let r = run_with(src, checks, opts(seed));
        r.assert_finished();
        r.assert_clean(&format!("{what} (seed {seed})"));
    }
}

/// A site with everything spelled out.
fn site(
    wave: u32,
    workgroup: u32,
    lanes: u32,
    pc: u64,
    access: Option<MemAccess>,
    epoch: Option<u32>,
) -> Site {
    Site {
        wave,
        workgroup,
        lanes,
        pc,
        access,
        epoch,
    }
}

/// The site of every lane of wave `wave` of workgroup 0 accessing memory (`access`) at
/// `pc` before any barrier.
fn whole_wave(wave: u32, pc: u64, access: MemAccess) -> Site {
    site(wave, 0, ALL_LANES, pc, Some(access), Some(0))
}

/// Checks the fields memory findings do not use.
fn assert_no_reg_counter_waves(f: &Finding) {
    assert_eq!(f.reg, None);
    assert_eq!(f.counter, None);
    assert!(f.waves.is_empty());
}

// ---------------------------------------------------------------------------------------
// Sanitizer off
// ---------------------------------------------------------------------------------------

/// Wave 1 reads lanes 4..7's words of shared memory that wave 0 wrote, without a barrier.
const SHARED_RACE: &str = "
.workgroup 64
.shared 128
    uwaveid u0
    vlaneid v0
    vshli v1, v0, 2
    br.unz u0, reader
store: st.shared.b32 v0, v1, 0
    wait.ls 0
    end
reader:
    umovi u1, 0xf0
    exec.and.save u2, u1
load: ld.shared.b32 v2, v1, 0
    wait.ls 0
    exec.set u2
    end
";

#[test]
fn checks_are_off_by_default() {
    let p = program(SHARED_RACE);
    let mut m = Machine::new(&p, opts(0)).unwrap();
    assert_eq!(m.checks(), Checks::default());
    assert!(!m.checks().any());
    assert!(m.sanitizer().is_none());
    loop {
        match m.run(None) {
            None => continue,
            Some(Event::Finished) => break,
            Some(other) => panic!("no detector is on, yet the run stopped with {other:?}"),
        }
    }
    assert!(m.sanitizer().is_none());

    // Turning every detector off again removes the sanitizer and its findings.
    let mut m = Machine::new(&p, opts(0)).unwrap();
    m.set_checks(RACES);
    assert!(m.sanitizer().is_some());
    let mut found = 0;
    while let Some(e) = m.run(None) {
        match e {
            Event::Finding { .. } => found += 1,
            Event::Finished => break,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(found, 1);
    assert_eq!(m.sanitizer().unwrap().findings().len(), 1);
    m.set_checks(Checks::default());
    assert!(m.sanitizer().is_none());
}

// ---------------------------------------------------------------------------------------
// 1. Races on shared memory
// ---------------------------------------------------------------------------------------

#[test]
fn shared_race_between_waves_without_barrier() {
    let r = run(SHARED_RACE);
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::Race);
    assert_eq!(f.kind.severity(), Severity::Error);
    assert_eq!(
        f.at,
        site(1, 0, 0xf0, r.label("load"), Some(MemAccess::Read), Some(0))
    );
    assert_eq!(
        f.other,
        Some(site(
            0,
            0,
            0xf0,
            r.label("store"),
            Some(MemAccess::Write),
            Some(0)
        ))
    );
    assert_eq!(f.space, Some(Space::Shared));
    assert_eq!(f.addr, Some(16), "lane 4's word is the first conflict");
    assert_eq!(f.len, 4);
    assert_eq!(f.count, 1);
    assert_no_reg_counter_waves(f);
    // The event names the instruction and the wave index that found it.
    assert_eq!(r.raised, vec![(1, r.label("load"))]);
    assert!(f.describe(&r.m, None).contains("data race"));
}

#[test]
fn shared_race_is_found_whichever_wave_runs_first() {
    for seed in [0, 1, 2, 3, 7, 42, 0xdead_beef] {
        let r = run_with(SHARED_RACE, RACES, opts(seed));
        r.assert_finished();
        let f = r.only();
        assert_eq!(f.kind, FindingKind::Race, "seed {seed}");
        let other = f.other.expect("a race has two sides");
        let mut pcs = [f.at.pc, other.pc];
        pcs.sort();
        let mut want = [r.label("store"), r.label("load")];
        want.sort();
        assert_eq!(pcs, want, "seed {seed}");
        assert_eq!(f.at.lanes, 0xf0, "seed {seed}");
        assert_eq!(other.lanes, 0xf0, "seed {seed}");
        assert_ne!(f.at.wave, other.wave, "seed {seed}");
        assert_eq!(f.addr, Some(16), "seed {seed}");
    }
}

#[test]
fn shared_race_fixed_by_wait_and_barrier() {
    let fixed = "
.workgroup 64
.shared 128
    uwaveid u0
    vlaneid v0
    vshli v1, v0, 2
    br.unz u0, skip
store: st.shared.b32 v0, v1, 0
skip:
    wait.ls 0
    barrier
    br.uz u0, done
    umovi u1, 0xf0
    exec.and.save u2, u1
load: ld.shared.b32 v2, v1, 0
    wait.ls 0
    exec.set u2
done:
    end
";
    assert_clean_under_seeds(fixed, Checks::ALL, "store, wait.ls, barrier, load");
}

/// Wave 0 zeroes 32 shared words; after a barrier wave 0 runs `WAVE0` and wave 1 `WAVE1`
/// on them, with no barrier between.
fn shared_after_init(wave0: &str, wave1: &str) -> String {
    format!(
        "
.workgroup 64
.shared 128
    uwaveid u0
    vlaneid v0
    vshli v1, v0, 2
    vmovi v3, 1
    br.unz u0, skip
    vmovi v4, 0
    st.shared.b32 v4, v1, 0
skip:
    wait.ls 0
    barrier
    br.unz u0, second
first: {wave0}
    wait.ls 0
    end
second: {wave1}
    wait.ls 0
    end
"
    )
}

#[test]
fn shared_atomics_against_atomics_are_not_races() {
    let src = shared_after_init(
        "atom.shared.add.u32 v3, v1, 0",
        "atom.shared.add.u32 v3, v1, 0",
    );
    assert_clean_under_seeds(&src, Checks::ALL, "atomics against atomics");
    let src = shared_after_init(
        "atom.shared.add.u32.rtn v3, v1, 0",
        "atom.shared.max.u32.rtn v3, v1, 0",
    );
    assert_clean_under_seeds(&src, Checks::ALL, "returning atomics against atomics");
}

#[test]
fn shared_plain_read_against_atomic_is_not_a_race() {
    let src = shared_after_init("atom.shared.add.u32 v3, v1, 0", "ld.shared.b32 v5, v1, 0");
    assert_clean_under_seeds(&src, Checks::ALL, "plain read against an atomic");
}

#[test]
fn shared_plain_write_against_atomic_is_a_race() {
    // Both directions: the write after the atomic, and the atomic after the write. Only
    // the race detector is on: the memory is not initialised (no barrier to do it in).
    for (wave0, wave1, acc0, acc1) in [
        (
            "atom.shared.add.u32 v3, v1, 0",
            "st.shared.b32 v3, v1, 0",
            MemAccess::Atomic,
            MemAccess::Write,
        ),
        (
            "st.shared.b32 v3, v1, 0",
            "atom.shared.add.u32 v3, v1, 0",
            MemAccess::Write,
            MemAccess::Atomic,
        ),
    ] {
        let bug = format!(
            "
.workgroup 64
.shared 128
    uwaveid u0
    vlaneid v0
    vshli v1, v0, 2
    vmovi v3, 1
    br.unz u0, second
first: {wave0}
    wait.ls 0
    end
second: {wave1}
    wait.ls 0
    end
"
        );
        let r = run_with(&bug, RACES, opts(0));
        r.assert_finished();
        let f = r.only();
        assert_eq!(f.kind, FindingKind::Race, "{wave1} after {wave0}");
        assert_eq!(f.at, whole_wave(1, r.label("second"), acc1));
        assert_eq!(f.other, Some(whole_wave(0, r.label("first"), acc0)));
        assert_eq!(f.space, Some(Space::Shared));
        assert_eq!(f.addr, Some(0));
        assert_eq!(f.len, 4);

        // Fixed: wave 0's access, a barrier, then wave 1's.
        let fixed = format!(
            "
.workgroup 64
.shared 128
    uwaveid u0
    vlaneid v0
    vshli v1, v0, 2
    vmovi v3, 1
    br.unz u0, skip
    vmovi v4, 0
    st.shared.b32 v4, v1, 0
    wait.ls 0
    {wave0}
skip:
    wait.ls 0
    barrier
    br.uz u0, done
    {wave1}
    wait.ls 0
done:
    end
"
        );
        assert_clean_under_seeds(&fixed, Checks::ALL, &format!("{wave0} | barrier | {wave1}"));
    }
}

// ---------------------------------------------------------------------------------------
// 2. Races on global memory
// ---------------------------------------------------------------------------------------

/// Two one-wave workgroups write `OP` to the same 32 words (the same values, even).
fn two_workgroups(op: &str, offset: &str) -> String {
    format!(
        "
.workgroup 32
.grid 2
.buffer out, 256
.arg u[0:1], out
    vlaneid v0
    vshli v1, v0, 2
    {offset}
access: {op}
    wait.vst 0
    end
"
    )
}

#[test]
fn global_race_between_workgroups() {
    let r = run(&two_workgroups("st.ubase.b32 v0, u[0:1], v1, 0", "nop"));
    r.assert_finished();
    let f = r.only();
    let pc = r.label("access");
    assert_eq!(f.kind, FindingKind::Race);
    assert_eq!(
        f.at,
        site(1, 1, ALL_LANES, pc, Some(MemAccess::Write), Some(0))
    );
    assert_eq!(
        f.other,
        Some(site(0, 0, ALL_LANES, pc, Some(MemAccess::Write), Some(0)))
    );
    assert_eq!(f.space, Some(Space::Global));
    assert_eq!(f.addr, r.m.buffer_base("out"));
    assert_eq!(f.len, 4);
    assert_no_reg_counter_waves(f);
    assert!(
        f.headline().contains("between workgroups 0 and 1"),
        "{}",
        f.headline()
    );

    // One workgroup at a time does not order them either.
    let one = LaunchOptions {
        resident_workgroups: 1,
        ..opts(0)
    };
    let r = run_with(
        &two_workgroups("st.ubase.b32 v0, u[0:1], v1, 0", "nop"),
        RACES,
        one,
    );
    r.assert_finished();
    assert_eq!(r.only().kind, FindingKind::Race);
}

/// Wave 0 reads 32 words; wave 1, of the same workgroup and with no barrier between,
/// reads them after it, then writes them: the write races with wave 0's read, though the
/// words' last reader is the writing wave itself (the earlier reader of another wave is
/// the one a write must be checked against, on the path that records a run of lanes in
/// place too).
#[test]
fn a_write_races_with_the_earlier_reader_of_another_wave() {
    let src = "
.workgroup 64
.grid 1
.buffer out, 256
.arg u[0:1], out
    vlaneid v0
    vshli v1, v0, 2
    uwaveid u2
    br.uz u2, read
    umovi u4, 64
spin:
    uaddi u4, u4, -1
    br.unz u4, spin
read: ld.ubase.b32 v2, u[0:1], v1, 0
    wait.vm 0
    br.uz u2, done
write: st.ubase.b32 v0, u[0:1], v1, 0
    wait.vst 0
done:
    end
";
    let r = run(src);
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::Race);
    assert_eq!(f.at, whole_wave(1, r.label("write"), MemAccess::Write));
    assert_eq!(
        f.other,
        Some(whole_wave(0, r.label("read"), MemAccess::Read))
    );
}

/// Wave 0 reads a whole block of 32 words (lane `k` on word `k`, which the race shadow
/// keeps as one record per field); later wave 1, of the same workgroup with no barrier
/// between, writes five of them from lanes 5-9. The finding names those lanes on both
/// sides and the first of their words: the block's record stands for each lane's own.
#[test]
fn a_race_on_a_block_read_by_a_whole_wave_names_the_lanes_that_meet() {
    let src = "
.workgroup 64
.grid 1
.buffer out, 1024
.arg u[0:1], out
    vlaneid v0
    vshli v1, v0, 2
    vaddi.u32 v1, v1, 384
    uwaveid u2
    br.unz u2, late
read: ld.ubase.b32 v2, u[0:1], v1, 0
    wait.vm 0
    end
late:
    umovi u4, 64
spin:
    uaddi u4, u4, -1
    br.unz u4, spin
    umovi u5, 0x3e0
    exec.and.save u6, u5
write: st.ubase.b32 v0, u[0:1], v1, 0
    exec.set u6
    wait.vst 0
    end
";
    let r = run(src);
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::Race);
    let lanes = 0x3e0;
    assert_eq!(
        f.at,
        site(
            1,
            0,
            lanes,
            r.label("write"),
            Some(MemAccess::Write),
            Some(0)
        )
    );
    assert_eq!(
        f.other,
        Some(site(
            0,
            0,
            lanes,
            r.label("read"),
            Some(MemAccess::Read),
            Some(0)
        ))
    );
    assert_eq!(f.addr, r.m.buffer_base("out").map(|b| b + 384 + 5 * 4));
    assert_eq!(f.len, 4);
}

#[test]
fn global_race_fixed_with_atomics_or_disjoint_addresses() {
    let atomics = two_workgroups("atom.ubase.add.u32 v0, u[0:1], v1, 0", "nop");
    assert_clean_under_seeds(&atomics, Checks::ALL, "atomics from two workgroups");
    let disjoint = two_workgroups(
        "st.ubase.b32 v0, u[0:1], v1, 0",
        "uwgid u2\n    ushli u3, u2, 7\n    vadd.u32.u v1, v1, u3",
    );
    assert_clean_under_seeds(&disjoint, Checks::ALL, "disjoint halves per workgroup");
}

#[test]
fn global_race_names_each_sides_barrier_epoch() {
    // Workgroup 0 (one wave) passes two barriers before its store; workgroup 1 stores
    // the same words at once.
    let src = "
.workgroup 32
.grid 2
.buffer out, 128
.arg u[0:1], out
    uwgid u2
    vlaneid v0
    vshli v1, v0, 2
    br.unz u2, go
    barrier
    barrier
go: st.ubase.b32 v0, u[0:1], v1, 0
    wait.vst 0
    end
";
    let r = run(src);
    r.assert_finished();
    let f = r.only();
    let pc = r.label("go");
    assert_eq!(f.kind, FindingKind::Race);
    assert_eq!(
        f.at,
        site(1, 1, ALL_LANES, pc, Some(MemAccess::Write), Some(0))
    );
    assert_eq!(
        f.other,
        Some(site(0, 0, ALL_LANES, pc, Some(MemAccess::Write), Some(2))),
        "the earlier store came after two barriers of workgroup 0"
    );
}

#[test]
fn global_race_with_a_uniform_load() {
    // Workgroup 0 stores words 0..31 of `out`; workgroup 1 reads words 0..1 with one
    // uld.b64.
    let src = |store: &str| {
        format!(
            "
.workgroup 32
.grid 2
.buffer out, 128
.arg u[0:1], out
    uwgid u2
    vlaneid v0
    vshli v1, v0, 2
    br.unz u2, reader
st: {store}
    wait.vst 0
    end
reader:
ld: uld.b64 u[4:5], u[0:1], 0
    wait.sm 0
    end
"
        )
    };
    let r = run(&src("st.ubase.b32 v0, u[0:1], v1, 0"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::Race);
    assert_eq!(
        f.at,
        site(1, 1, 1, r.label("ld"), Some(MemAccess::Read), Some(0)),
        "a uniform load is lane 0's"
    );
    assert_eq!(
        f.other.map(|o| (o.wave, o.workgroup, o.pc, o.access)),
        Some((0, 0, r.label("st"), Some(MemAccess::Write)))
    );
    assert_eq!(f.space, Some(Space::Global));
    assert_eq!(f.addr, r.m.buffer_base("out"));
    assert_eq!(f.len, 8);
    // Atomics instead of the plain store: a plain read against atomics is no race.
    let r = run(&src("atom.ubase.add.u32 v0, u[0:1], v1, 0"));
    r.assert_finished();
    r.assert_clean("uld against atomics");
}

/// Two waves of one workgroup write the same words of global memory, wave 0 before `SYNC`
/// and wave 1 after it.
fn same_workgroup_global(sync: &str) -> String {
    format!(
        "
.workgroup 64
.buffer out, 128
.arg u[0:1], out
    uwaveid u8
    vlaneid v0
    vshli v1, v0, 2
    br.unz u8, skip
first: st.ubase.b32 v0, u[0:1], v1, 0
    wait.vst 0
skip:
    {sync}
    br.uz u8, done
second: st.ubase.b32 v0, u[0:1], v1, 0
    wait.vst 0
done:
    end
"
    )
}

#[test]
fn global_race_in_one_workgroup_and_its_barrier() {
    let r = run(&same_workgroup_global("nop"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::Race);
    assert_eq!(f.at, whole_wave(1, r.label("second"), MemAccess::Write));
    assert_eq!(
        f.other,
        Some(whole_wave(0, r.label("first"), MemAccess::Write))
    );
    assert_eq!(f.space, Some(Space::Global));
    assert_eq!(f.addr, r.m.buffer_base("out"));
    assert!(f.headline().contains("in workgroup 0"), "{}", f.headline());

    assert_clean_under_seeds(
        &same_workgroup_global("barrier"),
        Checks::ALL,
        "global writes of one workgroup separated by a barrier",
    );
}

/// Waves 0 and 1 store one byte each (lane 0) to shared word 0: byte 0 and byte `B1`.
fn byte_stores(b1: u32) -> String {
    format!(
        "
.workgroup 64
.shared 16
    uwaveid u0
    umovi u1, 1
    exec.and.save u2, u1
    vmovi v2, 5
    umuli u3, u0, {b1}
    vmov.u v0, u3
st: st.shared.b8 v2, v0, 0
    wait.ls 0
    exec.set u2
    end
"
    )
}

#[test]
fn races_are_per_byte() {
    let r = run(&byte_stores(0));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::Race);
    let pc = r.label("st");
    assert_eq!(f.at, site(1, 0, 1, pc, Some(MemAccess::Write), Some(0)));
    assert_eq!(
        f.other,
        Some(site(0, 0, 1, pc, Some(MemAccess::Write), Some(0)))
    );
    assert_eq!((f.space, f.addr, f.len), (Some(Space::Shared), Some(0), 1));
    // Different bytes of one word do not race.
    for b in [1, 2, 3] {
        let r = run(&byte_stores(b));
        r.assert_finished();
        r.assert_clean(&format!("bytes 0 and {b}"));
    }
}

// ---------------------------------------------------------------------------------------
// 2b. Accesses not retired before a barrier
// ---------------------------------------------------------------------------------------

/// Two waves of one workgroup: wave 0 runs `WAVE0` before the barrier at `bar`, then
/// `BETWEEN` (both waves), then a second barrier at `bar2`, then wave 1 runs `WAVE1`. Each
/// lane touches its own word of shared memory (v1 = lane * 4) or of `out` (u[2:3]).
fn across_barriers(wave0: &str, between: &str, wave1: &str) -> String {
    format!(
        "
.workgroup 64
.shared 128
.buffer out, 128
.arg u[2:3], out
    uwaveid u0
    vlaneid v0
    vshli v1, v0, 2
    vmovi v3, 1
    br.unz u0, skip
first: {wave0}
skip:
bar: barrier
    {between}
bar2: barrier
    br.uz u0, done
second: {wave1}
done:
    wait.all
    end
"
    )
}

/// The one race of `src` (races detector, seed `seed`): asserts its sides' PCs (labels
/// `at` and `other`), epochs, space, address, and that it names the barrier `bar` and
/// `counter` as not retired before it.
fn assert_not_retired(src: &str, (at, other): (&str, &str), (bar, counter): (&str, Counter)) {
    for seed in [0, 1, 7] {
        let r = run_with(src, RACES, opts(seed));
        r.assert_finished();
        let f = r.only();
        assert_eq!(f.kind, FindingKind::Race, "seed {seed}");
        assert_eq!(f.at.pc, r.label(at), "seed {seed}:\n{}", r.report());
        assert_eq!(f.at.wave, 1);
        assert_eq!(f.at.epoch, Some(2), "the later side is past both barriers");
        let o = f.other.expect("a race has two sides");
        assert_eq!((o.wave, o.pc), (0, r.label(other)), "seed {seed}");
        assert_eq!(
            o.epoch,
            Some(0),
            "the earlier side was issued before the barriers"
        );
        assert_eq!(
            (f.at.lanes, o.lanes),
            (ALL_LANES, ALL_LANES),
            "each lane its word"
        );
        assert_eq!(f.len, 4);
        assert_eq!(
            f.fence,
            Some(MissingFence::NotRetired {
                barrier: r.label(bar),
                counter
            }),
            "seed {seed}"
        );
        // `set check` stops right after the later access.
        assert_eq!(r.raised, vec![(1, r.label(at))], "seed {seed}");
        let text = f.describe(&r.m, None);
        assert!(
            text.contains("not retired before its wave reached the barrier")
                && text.contains(&format!("no wait.{}", counter.name())),
            "{text}"
        );
    }
}

#[test]
fn a_shared_store_not_retired_before_a_barrier_races_with_the_reader_after_it() {
    let load = "ld.shared.b32 v5, v1, 0";
    let bug = across_barriers("st.shared.b32 v3, v1, 0", "", load);
    assert_not_retired(&bug, ("second", "first"), ("bar2", Counter::Ls));
    // Still outstanding at the second barrier: that one is named. A wait after the first
    // barrier makes the second one order it.
    let fixed = across_barriers("st.shared.b32 v3, v1, 0", "wait.ls 0", load);
    assert_clean_under_seeds(&fixed, Checks::ALL, "st.shared; barrier; wait.ls; barrier");
    let fixed = across_barriers("st.shared.b32 v3, v1, 0\n    wait.ls 0", "", load);
    assert_clean_under_seeds(&fixed, Checks::ALL, "st.shared; wait.ls; barrier");
}

#[test]
fn a_global_store_not_retired_before_a_barrier_races_with_the_reader_after_it() {
    let (store, load) = (
        "st.ubase.b32 v3, u[2:3], v1, 0",
        "ld.ubase.b32 v5, u[2:3], v1, 0",
    );
    let bug = across_barriers(store, "", load);
    assert_not_retired(&bug, ("second", "first"), ("bar2", Counter::Vst));
    // The shared counter's wait does not retire a global store.
    let bug = across_barriers(store, "wait.ls 0", load);
    assert_not_retired(&bug, ("second", "first"), ("bar2", Counter::Vst));
    let fixed = across_barriers(&format!("{store}\n    wait.vst 0"), "", load);
    assert_clean_under_seeds(&fixed, Checks::ALL, "store; wait.vst; barrier");
}

#[test]
fn a_load_not_retired_before_a_barrier_races_with_the_writer_after_it() {
    // Wave 0's load may still read after wave 1's store lands.
    let bug = across_barriers(
        "ld.ubase.b32 v5, u[2:3], v1, 0",
        "",
        "st.ubase.b32 v3, u[2:3], v1, 0",
    );
    assert_not_retired(&bug, ("second", "first"), ("bar2", Counter::Vm));
    let fixed = across_barriers(
        "ld.ubase.b32 v5, u[2:3], v1, 0",
        "wait.vm 0",
        "st.ubase.b32 v3, u[2:3], v1, 0",
    );
    assert_clean_under_seeds(
        &fixed,
        Checks::ALL,
        "load; barrier; wait.vm; barrier; store",
    );
}

#[test]
fn atomics_against_an_access_not_retired_before_a_barrier() {
    // A plain read against an atomic is no race when retired before the barriers; a
    // late one is, either way round: the program relies on the barrier to order them.
    let read = "st.shared.b32 v3, v1, 0\n    wait.ls 0\nlate: ld.shared.b32 v5, v1, 0";
    let src = across_barriers(
        &format!("{read}\n    wait.ls 0"),
        "",
        "atom.shared.add.u32 v3, v1, 0",
    );
    assert_clean_under_seeds(&src, RACES, "a retired read against an atomic");
    let src = across_barriers(read, "", "atom.shared.add.u32 v3, v1, 0");
    assert_not_retired(&src, ("second", "late"), ("bar2", Counter::Ls));
    let src = across_barriers(
        "atom.shared.add.u32 v3, v1, 0\n    wait.ls 0",
        "",
        "ld.shared.b32 v5, v1, 0",
    );
    assert_clean_under_seeds(&src, RACES, "a retired atomic against a read");
    let src = across_barriers(
        "atom.shared.add.u32 v3, v1, 0",
        "",
        "ld.shared.b32 v5, v1, 0",
    );
    assert_not_retired(&src, ("second", "first"), ("bar2", Counter::Ls));
    // A plain write against an atomic is.
    let src = across_barriers(
        "st.shared.b32 v3, v1, 0",
        "",
        "atom.shared.add.u32 v3, v1, 0",
    );
    assert_not_retired(&src, ("second", "first"), ("bar2", Counter::Ls));
    // Atomics against atomics never race.
    let src = across_barriers(
        "atom.shared.add.u32 v3, v1, 0",
        "",
        "atom.shared.add.u32 v3, v1, 0",
    );
    assert_clean_under_seeds(&src, RACES, "a late atomic against an atomic");
}

#[test]
fn an_access_retired_after_another_barrier_is_forgotten() {
    // Wave 0's store is outstanding at the first barrier and retired before the second:
    // wave 1's read after the second is ordered, and one between the two is not.
    let src = "
.workgroup 64
.shared 128
    uwaveid u0
    vlaneid v0
    vshli v1, v0, 2
    vmovi v3, 1
    br.unz u0, skip
first: st.shared.b32 v3, v1, 0
skip:
bar: barrier
    br.uz u0, wave0
early: ld.shared.b32 v5, v1, 0
    wait.ls 0
    barrier
late: ld.shared.b32 v6, v1, 0
    wait.ls 0
    end
wave0:
    wait.ls 0
    barrier
    end
";
    assert_not_retired_once(src);
}

#[test]
fn a_loop_that_never_waits_before_its_barrier_races_after_it() {
    // Each barrier of the loop finds the same stores outstanding (the counter full of
    // them): the race after the loop is still the store's.
    let src = |wait: &str| {
        format!(
            "
.workgroup 64
.shared 256
    uwaveid u0
    vlaneid v0
    vshli v1, v0, 2
    ushli u1, u0, 7
    vadd.u32.u v2, v1, u1
    vmovi v3, 7
    umovi u9, 100
loop:
store: st.shared.b32 v3, v2, 0
    {wait}
bar: barrier
    uaddi u9, u9, -1
    br.unz u9, loop
    uxori u4, u0, 1
    ushli u4, u4, 7
    vadd.u32.u v4, v1, u4
read: ld.shared.b32 v5, v4, 0
    wait.all
    end
"
        )
    };
    for seed in [0, 1, 7] {
        let r = run_with(&src(""), RACES, opts(seed));
        r.assert_finished();
        let f = r.only();
        assert_eq!(f.at.pc, r.label("read"), "seed {seed}:\n{}", r.report());
        assert_eq!(f.other.map(|o| o.pc), Some(r.label("store")));
        assert_eq!(
            f.fence,
            Some(MissingFence::NotRetired {
                barrier: r.label("bar"),
                counter: Counter::Ls
            })
        );
        assert_eq!(f.at.lanes, ALL_LANES);
        assert_eq!(f.also.len(), 1, "both waves read the other's words");
    }
    assert_clean_under_seeds(&src("wait.ls 0"), Checks::ALL, "a loop that waits");
}

/// [`an_access_retired_after_another_barrier_is_forgotten`]'s one race: `early` against
/// `first` across `bar`, at epoch 1.
fn assert_not_retired_once(src: &str) {
    for seed in [0, 1, 7] {
        let r = run_with(src, RACES, opts(seed));
        r.assert_finished();
        let f = r.only();
        assert_eq!(f.at.pc, r.label("early"), "seed {seed}:\n{}", r.report());
        assert_eq!(f.at.epoch, Some(1));
        assert_eq!(f.other.map(|o| o.pc), Some(r.label("first")));
        assert_eq!(f.at.lanes, ALL_LANES, "every lane meets its own word");
        assert_eq!(
            f.fence,
            Some(MissingFence::NotRetired {
                barrier: r.label("bar"),
                counter: Counter::Ls
            })
        );
    }
}

// ---------------------------------------------------------------------------------------
// 3. Same-instruction conflicts
// ---------------------------------------------------------------------------------------

/// Lane 3's address is made equal to lane 0's (word 0); the store writes `DATA`.
fn same_instruction(data: &str, mask: &str) -> String {
    format!(
        "
.shared 128
    vlaneid v0
    vshli v1, v0, 2
    vmovi v5, 7
    umovi u1, 8
    exec.and.save u2, u1
    vmovi v1, 0
    exec.set u2
    {mask}
store: st.shared.b32 {data}, v1, 0
    wait.ls 0
    end
"
    )
}

#[test]
fn same_instruction_conflict_in_shared_memory() {
    let r = run(&same_instruction("v0", "nop"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::SameInstruction);
    assert_eq!(f.kind.severity(), Severity::Warning);
    assert_eq!(
        f.at,
        site(0, 0, 0b1001, r.label("store"), Some(MemAccess::Write), None)
    );
    assert_eq!(f.other, None);
    assert_eq!(f.space, Some(Space::Shared));
    assert_eq!(f.addr, Some(0));
    assert_eq!(f.len, 4);
    assert_no_reg_counter_waves(f);
}

#[test]
fn same_instruction_same_values_or_masked_lane_is_clean() {
    // Every lane stores 7: lanes 0 and 3 agree.
    let r = run(&same_instruction("v5", "nop"));
    r.assert_finished();
    r.assert_clean("lanes 0 and 3 store the same value");
    // Lane 3 is not active at the store.
    let r = run(&same_instruction(
        "v0",
        "umovi u3, 0xfffffff7\n    exec.and.save u4, u3",
    ));
    r.assert_finished();
    r.assert_clean("lane 3 masked off");
}

/// Lanes 0 and 1 store 8 bytes at base + 0 and base + 4: bytes 4..7 overlap, lane 0's
/// high word against lane 1's low word.
fn overlapping_b64(high: &str) -> String {
    format!(
        "
.buffer out, 64
.arg u[0:1], out
    vlaneid v0
    vshli v1, v0, 2
    vmov v2, v0
    {high}
    umovi u2, 3
    exec.and.save u3, u2
store: st.ubase.b64 v[2:3], u[0:1], v1, 0
    wait.vst 0
    exec.set u3
    end
"
    )
}

#[test]
fn same_instruction_conflict_on_overlapping_global_bytes() {
    // high word 100 + lane: lane 0 writes 100 to bytes 4..7, lane 1 writes 1.
    let r = run(&overlapping_b64("vaddi.u32 v3, v0, 100"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::SameInstruction);
    assert_eq!(
        f.at,
        site(0, 0, 0b11, r.label("store"), Some(MemAccess::Write), None)
    );
    assert_eq!(f.space, Some(Space::Global));
    assert_eq!(f.addr, r.m.buffer_base("out").map(|b| b + 4));
    assert_eq!(f.len, 8);
    // high word lane + 1: lane 0 writes 1 to bytes 4..7, as lane 1 does.
    let r = run(&overlapping_b64("vaddi.u32 v3, v0, 1"));
    r.assert_finished();
    r.assert_clean("overlapping bytes with equal values");
}

// ---------------------------------------------------------------------------------------
// 4. Reads before the wait
// ---------------------------------------------------------------------------------------

fn load_then(between: &str) -> String {
    format!(
        "
.buffer in, 128
.arg u[0:1], in
    vlaneid v0
    vshli v1, v0, 2
load: ld.ubase.b32 v2, u[0:1], v1, 0
    {between}
use: vadd.u32 v3, v2, v2
    wait.vm 0
    end
"
    )
}

#[test]
fn read_before_wait_vm() {
    let r = run(&load_then("nop"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::ReadBeforeWait);
    assert_eq!(f.kind.severity(), Severity::Error);
    assert_eq!(f.at, site(0, 0, ALL_LANES, r.label("use"), None, None));
    assert_eq!(f.other.map(|o| o.pc), Some(r.label("load")));
    assert_eq!(f.reg, Some((RegFile::Vector, 2)));
    assert_eq!(f.counter, Some(Counter::Vm));
    assert_eq!(f.space, None);
    assert_eq!(f.addr, None);
    assert!(f.headline().contains("v2"), "{}", f.headline());

    let r = run(&load_then("wait.vm 0"));
    r.assert_finished();
    r.assert_clean("wait.vm 0 before the use");
}

/// The hazard detector counts, per register, the outstanding operations that use it, and
/// a wait takes them off. Waits run in the machine's fast loop, but never without the
/// sanitizer's hooks: 255 waited loads of v2 in a loop, then one unwaited, must still be
/// a read before its wait (a wait missed by the hooks would leave the count at 256, which
/// wraps to none in use).
#[test]
fn a_read_before_its_wait_is_found_after_many_waited_loads() {
    let src = "
.buffer in, 128
.arg u[0:1], in
    vlaneid v0
    vshli v1, v0, 2
    umovi u4, 255
again:
    ld.ubase.b32 v2, u[0:1], v1, 0
    wait.vm 0
    vadd.u32 v3, v2, v2
    uaddi u4, u4, -1
    br.unz u4, again
load: ld.ubase.b32 v2, u[0:1], v1, 0
use: vadd.u32 v3, v2, v2
    wait.vm 0
    end
";
    run_to_one(src, FindingKind::ReadBeforeWait, "use", "load");
}

#[test]
fn wait_vm_retires_the_oldest_loads_first() {
    let src = "
.buffer in, 128
.arg u[0:1], in
    vlaneid v0
    vshli v1, v0, 2
first: ld.ubase.b32 v2, u[0:1], v1, 0
second: ld.ubase.b32 v3, u[0:1], v1, 0
    wait.vm 1
    vadd.u32 v4, v2, v0
use: vadd.u32 v5, v3, v0
    wait.vm 0
    end
";
    let r = run_to_one(src, FindingKind::ReadBeforeWait, "use", "second");
    let f = r.only();
    assert_eq!(f.reg, Some((RegFile::Vector, 3)));
    assert_eq!(f.counter, Some(Counter::Vm));
}

fn uniform_load_then(between: &str) -> String {
    format!(
        "
.buffer in, 128
.arg u[0:1], in
load: uld.b64 u[4:5], u[0:1], 0
    {between}
use: uadd u6, u5, u0
    wait.sm 0
    end
"
    )
}

#[test]
fn read_before_wait_sm_of_a_uniform_load() {
    let r = run(&uniform_load_then("nop"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::ReadBeforeWait);
    assert_eq!(f.at.pc, r.label("use"));
    assert_eq!(f.at.wave, 0);
    assert_eq!(f.other.map(|o| o.pc), Some(r.label("load")));
    assert_eq!(f.reg, Some((RegFile::Uniform, 5)));
    assert_eq!(f.counter, Some(Counter::Sm));

    let r = run(&uniform_load_then("wait.sm 0"));
    r.assert_finished();
    r.assert_clean("wait.sm 0 before the use");
}

#[test]
fn read_before_wait_ls_of_a_returning_shared_atomic() {
    let src = |between: &str| {
        format!(
            "
.shared 128
    vlaneid v0
    vshli v1, v0, 2
    st.shared.b32 v0, v1, 0
    wait.ls 0
    vmovi v2, 1
atom: atom.shared.add.u32.rtn v2, v1, 0
    {between}
use: vmov v3, v2
    wait.ls 0
    end
"
        )
    };
    let r = run(&src("nop"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::ReadBeforeWait);
    assert_eq!(f.at.pc, r.label("use"));
    assert_eq!(f.other.map(|o| o.pc), Some(r.label("atom")));
    assert_eq!(f.reg, Some((RegFile::Vector, 2)));
    assert_eq!(f.counter, Some(Counter::Ls));
    let r = run(&src("wait.ls 0"));
    r.assert_finished();
    r.assert_clean("wait.ls 0 before the use");
}

// ---------------------------------------------------------------------------------------
// 5. Writes before the wait
// ---------------------------------------------------------------------------------------

#[test]
fn write_before_wait() {
    let src = |between: &str| {
        format!(
            "
.buffer in, 128
.arg u[0:1], in
    vlaneid v0
    vshli v1, v0, 2
load: ld.ubase.b32 v2, u[0:1], v1, 0
    {between}
over: vmovi v2, 5
    wait.vm 0
    end
"
        )
    };
    let r = run(&src("nop"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::WriteBeforeWait);
    assert_eq!(f.at, site(0, 0, ALL_LANES, r.label("over"), None, None));
    assert_eq!(f.other.map(|o| o.pc), Some(r.label("load")));
    assert_eq!(f.reg, Some((RegFile::Vector, 2)));
    assert_eq!(f.counter, Some(Counter::Vm));

    let r = run(&src("wait.vm 0"));
    r.assert_finished();
    r.assert_clean("wait.vm 0 before the overwrite");
}

/// `x = c ? a[i] : b[i]` as compilers emit it (tests/kernels/ifelse_load.s): a load over
/// the destination of an outstanding load on the same counter, which retires in order,
/// lands after it: no hazard, whatever the lanes, and the one wait at the join retires
/// both.
#[test]
fn a_load_over_an_outstanding_load_on_its_in_order_counter_is_no_hazard() {
    let src = include_str!("../../../tests/kernels/ifelse_load.s");
    assert_clean_under_seeds(src, Checks::ALL, "if/else loads into v4");
    let r = run(src);
    let base = r.m.buffer_base("out").expect("out");
    let mut out = [0u8; 128];
    r.m.global.read(base, &mut out).expect("out is allocated");
    for (i, w) in out.chunks(4).enumerate() {
        let want = if i % 2 == 1 { 100 + i } else { 200 + i } as u32;
        assert_eq!(u32::from_le_bytes(w.try_into().unwrap()), want, "lane {i}");
    }

    // Every lane, twice, and a shared load over a shared load: clean too.
    for (load, wait) in [
        ("ld.ubase.b32 v2, u[0:1], v1, 0", "wait.vm 0"),
        ("ld.shared.b32 v2, v1, 0", "wait.ls 0"),
    ] {
        let src = format!(
            "
.buffer in, 256
.arg u[0:1], in
.shared 128
    vlaneid v0
    vshli v1, v0, 2
    st.shared.b32 v0, v1, 0
    wait.ls 0
    {load}
    {load}
    {wait}
    vmov v3, v2
    end
"
        );
        assert_clean_under_seeds(&src, Checks::ALL, &format!("{load} twice"));
    }

    // A partial wait leaves the newer load outstanding: its destination is still read
    // before its wait.
    let r = run_to_one(
        "
.buffer in, 256
.arg u[0:1], in
    vlaneid v0
    vshli v1, v0, 2
    ld.ubase.b32 v2, u[0:1], v1, 0
newer: ld.ubase.b32 v2, u[0:1], v1, 4
    wait.vm 1
use: vmov v3, v2
    wait.vm 0
    end
",
        FindingKind::ReadBeforeWait,
        "use",
        "newer",
    );
    assert_eq!(r.only().counter, Some(Counter::Vm));
}

/// An ALU write over the destination of outstanding loads is still a hazard (the loads
/// may land after it), named by the newest of them.
#[test]
fn an_alu_write_over_outstanding_loads_is_still_reported() {
    let r = run_to_one(
        "
.buffer in, 256
.arg u[0:1], in
    vlaneid v0
    vshli v1, v0, 2
    ld.ubase.b32 v2, u[0:1], v1, 0
load: ld.ubase.b32 v2, u[0:1], v1, 4
over: vmovi v2, 5
    wait.vm 0
    end
",
        FindingKind::WriteBeforeWait,
        "over",
        "load",
    );
    let f = r.only();
    assert_eq!(f.reg, Some((RegFile::Vector, 2)));
    assert_eq!(f.counter, Some(Counter::Vm));
}

/// A load on another counter than the outstanding load's, or on one that does not retire
/// in order (uniform loads, `sm`), is not ordered after it: still a hazard.
#[test]
fn a_load_on_another_counter_over_an_outstanding_load_is_still_reported() {
    // A shared load (ls) over a global load's (vm) destination.
    let r = run_to_one(
        "
.buffer in, 256
.arg u[0:1], in
.shared 128
    vlaneid v0
    vshli v1, v0, 2
    st.shared.b32 v0, v1, 0
    wait.ls 0
load: ld.ubase.b32 v2, u[0:1], v1, 0
over: ld.shared.b32 v2, v1, 0
    wait.vm 0
    wait.ls 0
    end
",
        FindingKind::WriteBeforeWait,
        "over",
        "load",
    );
    let f = r.only();
    assert_eq!(f.at, site(0, 0, ALL_LANES, r.label("over"), None, None));
    assert_eq!(f.reg, Some((RegFile::Vector, 2)));
    assert_eq!(f.counter, Some(Counter::Vm));

    // A global load over a register both a global and a shared load will write (the
    // second a hazard already): the shared one is the hazard.
    let r = run("
.buffer in, 256
.arg u[0:1], in
.shared 128
    vlaneid v0
    vshli v1, v0, 2
    st.shared.b32 v0, v1, 0
    wait.ls 0
    ld.ubase.b32 v2, u[0:1], v1, 0
shared: ld.shared.b32 v2, v1, 0
over: ld.ubase.b32 v2, u[0:1], v1, 4
    wait.all
    end
");
    r.assert_finished();
    let [first, f] = r.findings() else {
        panic!("expected two findings, got:\n{}", r.report());
    };
    assert_eq!(first.at.pc, r.label("shared"));
    assert_eq!(f.kind, FindingKind::WriteBeforeWait);
    assert_eq!(f.at.pc, r.label("over"));
    assert_eq!(f.other.map(|o| o.pc), Some(r.label("shared")));
    assert_eq!(f.counter, Some(Counter::Ls));

    // A uniform load over an outstanding uniform load's destination.
    let r = run_to_one(
        "
.buffer in, 256
.arg u[0:1], in
load: uld.b32 u4, u[0:1], 0
over: uld.b32 u4, u[0:1], 4
    wait.sm 0
    end
",
        FindingKind::WriteBeforeWait,
        "over",
        "load",
    );
    let f = r.only();
    assert_eq!(f.reg, Some((RegFile::Uniform, 4)));
    assert_eq!(f.counter, Some(Counter::Sm));
}

/// A load over the data register of an outstanding store, on its counter or not, is
/// still `store data overwritten`: the store reads its data when it leaves.
#[test]
fn a_load_over_outstanding_store_data_is_still_reported() {
    for (store, load, counter) in [
        (
            "st.ubase.b32 v2, u[0:1], v1, 0",
            "ld.ubase.b32 v2, u[0:1], v1, 0",
            Counter::Vst,
        ),
        (
            "st.shared.b32 v2, v1, 0",
            "ld.shared.b32 v2, v1, 0",
            Counter::Ls,
        ),
    ] {
        let r = run_to_one(
            &format!(
                "
.buffer in, 256
.arg u[0:1], in
.shared 128
    vlaneid v0
    vshli v1, v0, 2
    vmov v2, v0
store: {store}
over: {load}
    wait.all
    end
"
            ),
            FindingKind::StoreDataOverwritten,
            "over",
            "store",
        );
        let f = r.only();
        assert_eq!(f.reg, Some((RegFile::Vector, 2)), "{store}");
        assert_eq!(f.counter, Some(counter), "{store}");
    }
}

// ---------------------------------------------------------------------------------------
// 6. Store data overwritten before the wait
// ---------------------------------------------------------------------------------------

#[test]
fn store_data_overwritten_before_wait_vst() {
    let src = |store: &str, wait: &str| {
        format!(
            "
.buffer out, 128
.arg u[0:1], out
    vlaneid v0
    vshli v1, v0, 2
    vmov v2, v0
store: {store}
    {wait}
over: vmovi v2, 9
    wait.vst 0
    end
"
        )
    };
    for store in [
        "st.ubase.b32 v2, u[0:1], v1, 0",
        "atom.ubase.add.u32 v2, u[0:1], v1, 0",
    ] {
        let r = run(&src(store, "nop"));
        r.assert_finished();
        let f = r.only();
        assert_eq!(f.kind, FindingKind::StoreDataOverwritten, "{store}");
        assert_eq!(f.at, site(0, 0, ALL_LANES, r.label("over"), None, None));
        assert_eq!(f.other.map(|o| o.pc), Some(r.label("store")));
        assert_eq!(f.reg, Some((RegFile::Vector, 2)));
        assert_eq!(f.counter, Some(Counter::Vst));

        let r = run(&src(store, "wait.vst 0"));
        r.assert_finished();
        r.assert_clean(&format!("{store}, wait.vst 0, overwrite"));
    }
    // The address is used when the store issues: overwriting it is no hazard.
    let r = run("
.buffer out, 128
.arg u[0:1], out
    vlaneid v0
    vshli v1, v0, 2
    st.ubase.b32 v0, u[0:1], v1, 0
    vmovi v1, 0
    wait.vst 0
    end
");
    r.assert_finished();
    r.assert_clean("store address overwritten before wait.vst");
}

#[test]
fn shared_store_data_overwritten_before_wait_ls() {
    let src = |wait: &str| {
        format!(
            "
.shared 256
    vlaneid v0
    vshli v1, v0, 3
    vmovi v4, 3
    vmovi v5, 4
store: st.shared.b64 v[4:5], v1, 0
    {wait}
over: vmovi v5, 9
    wait.ls 0
    end
"
        )
    };
    let r = run(&src("nop"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::StoreDataOverwritten);
    assert_eq!(f.at.pc, r.label("over"));
    assert_eq!(f.other.map(|o| o.pc), Some(r.label("store")));
    assert_eq!(
        f.reg,
        Some((RegFile::Vector, 5)),
        "the store's second data register"
    );
    assert_eq!(f.counter, Some(Counter::Ls));

    let r = run(&src("wait.ls 0"));
    r.assert_finished();
    r.assert_clean("wait.ls 0 before the overwrite");
}

// ---------------------------------------------------------------------------------------
// 7. Uninitialised memory
// ---------------------------------------------------------------------------------------

#[test]
fn uninit_shared_read_of_lanes_nobody_stored() {
    // Lanes 0..15 store their words; then all 32 lanes read theirs.
    let src = "
.shared 128
    vlaneid v0
    vshli v1, v0, 2
    umovi u1, 0xffff
    exec.and.save u2, u1
    st.shared.b32 v0, v1, 0
    exec.set u2
    wait.ls 0
load: ld.shared.b32 v2, v1, 0
    wait.ls 0
    end
";
    let r = run(src);
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::UninitMemory);
    assert_eq!(
        f.at,
        site(
            0,
            0,
            0xffff_0000,
            r.label("load"),
            Some(MemAccess::Read),
            None
        )
    );
    assert_eq!(f.other, None);
    assert_eq!(f.space, Some(Space::Shared));
    assert_eq!(
        f.addr,
        Some(64),
        "lane 16's word is the first one nobody wrote"
    );
    assert_eq!(f.len, 4);
    assert_no_reg_counter_waves(f);
}

/// Wave 1 reads the words wave 0 `STORE`s, after a barrier.
fn uninit_two_waves(store: &str) -> String {
    format!(
        "
.workgroup 64
.shared 128
    uwaveid u0
    vlaneid v0
    vshli v1, v0, 2
    br.unz u0, skip
    {store}
skip:
    wait.ls 0
    barrier
    br.uz u0, done
load: ld.shared.b32 v2, v1, 0
    wait.ls 0
done:
    end
"
    )
}

#[test]
fn uninit_shared_fixed_by_store_wait_barrier() {
    let r = run(&uninit_two_waves("nop"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::UninitMemory);
    assert_eq!(
        f.at,
        site(
            1,
            0,
            ALL_LANES,
            r.label("load"),
            Some(MemAccess::Read),
            None
        )
    );
    assert_eq!(f.space, Some(Space::Shared));
    assert_eq!(f.addr, Some(0));

    assert_clean_under_seeds(
        &uninit_two_waves("st.shared.b32 v0, v1, 0"),
        Checks::ALL,
        "store, wait.ls, barrier, load",
    );
}

#[test]
fn uninit_shared_read_of_a_partly_written_word() {
    // A 2-byte store, then a 4-byte load of the same word: bytes 2..3 are unwritten.
    let src = |store: &str| {
        format!(
            "
.shared 128
    vlaneid v0
    vshli v1, v0, 2
    {store} v0, v1, 0
    wait.ls 0
load: ld.shared.b32 v2, v1, 0
    wait.ls 0
    end
"
        )
    };
    let r = run(&src("st.shared.b16"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::UninitMemory);
    assert_eq!(f.at.pc, r.label("load"));
    assert_eq!(f.at.lanes, ALL_LANES);
    assert_eq!(f.addr, Some(0));
    let r = run(&src("st.shared.b32"));
    r.assert_finished();
    r.assert_clean("whole word stored");
}

#[test]
fn uninit_memory_reports_every_lane_reading_an_unwritten_word() {
    // Every lane reads shared word 0, which nobody wrote.
    let r = run("
.shared 16
    vmovi v1, 0
load: ld.shared.b32 v2, v1, 0
    wait.ls 0
    end
");
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::UninitMemory);
    assert_eq!(f.at.pc, r.label("load"));
    assert_eq!(f.addr, Some(0));
    assert_eq!(
        f.at.lanes, ALL_LANES,
        "all 32 lanes read the unwritten word"
    );
}

#[test]
fn uninit_memory_read_again_elsewhere_is_found() {
    // Lane 0 reads shared word 0 twice, at two instructions; nothing ever writes it.
    let r = run("
.shared 16
    umovi u1, 1
    exec.and.save u2, u1
    vmovi v1, 0
first: ld.shared.b32 v2, v1, 0
    wait.ls 0
second: ld.shared.b32 v3, v1, 0
    wait.ls 0
    exec.set u2
    end
");
    r.assert_finished();
    let pcs: Vec<(FindingKind, u64)> = r.findings().iter().map(|f| (f.kind, f.at.pc)).collect();
    assert_eq!(
        pcs,
        vec![
            (FindingKind::UninitMemory, r.label("first")),
            (FindingKind::UninitMemory, r.label("second"))
        ],
        "{}",
        r.report()
    );
}

#[test]
fn uninit_scratch_read_before_write() {
    let src = |store: &str| {
        format!(
            "
.scratch 16
    vlaneid v0
    vmovi v1, 8
    {store}
load: ld.scratch.b32 v2, v1, 0
    wait.vm 0
    end
"
        )
    };
    let r = run(&src("nop"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::UninitMemory);
    assert_eq!(
        f.at,
        site(
            0,
            0,
            ALL_LANES,
            r.label("load"),
            Some(MemAccess::Read),
            None
        )
    );
    assert_eq!(f.space, Some(Space::Scratch));
    assert_eq!(f.addr, Some(8), "the lane's scratch offset");
    assert_eq!(f.len, 4);

    let r = run(&src("st.scratch.b32 v0, v1, 0\n    wait.vst 0"));
    r.assert_finished();
    r.assert_clean("scratch stored first");
}

#[test]
fn preloaded_arg_registers_are_initialised() {
    let src = |extra: &str| {
        format!(
            "
.buffer out, 128
.buffer d, 64
.arg u[0:1], out
.arg u[4:7], desc d
.arg u8, 1234
    vlaneid v0
    vshli v1, v0, 2
    vadd.u32.u v2, v0, u8
    st.ubase.b32 v2, u[0:1], v1, 0
    st.buf.b32 v2, u[4:7], v1, 0
    wait.vst 0
    {extra}
    end
"
        )
    };
    let r = run(&src("nop"));
    r.assert_finished();
    r.assert_clean(".arg registers read");
    // u9 is no argument.
    let r = run(&src("use: uadd u10, u8, u9"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::UninitRegister);
    assert_eq!(f.at.pc, r.label("use"));
    assert_eq!(f.reg, Some((RegFile::Uniform, 9)));
}

// ---------------------------------------------------------------------------------------
// 8. Uninitialised registers
// ---------------------------------------------------------------------------------------

#[test]
fn uninit_vector_register() {
    let src = |init: &str| {
        format!(
            "
    vlaneid v0
    {init}
use: vadd.u32 v3, v2, v0
    end
"
        )
    };
    let r = run(&src("nop"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::UninitRegister);
    assert_eq!(f.kind.severity(), Severity::Error);
    assert_eq!(f.at, site(0, 0, ALL_LANES, r.label("use"), None, None));
    assert_eq!(f.other, None);
    assert_eq!(f.reg, Some((RegFile::Vector, 2)));
    assert_eq!(f.space, None);
    assert_eq!(f.counter, None);
    assert_eq!(f.first_at, 3, "the launch's third instruction");
    assert_eq!(f.count, 1);

    let r = run(&src("vmovi v2, 1"));
    r.assert_finished();
    r.assert_clean("v2 written first");
}

#[test]
fn uninit_vector_register_only_in_lanes_never_written() {
    // v2 is written under EXEC = lanes 0..15, then read under full EXEC.
    let src = |mask: &str| {
        format!(
            "
    umovi u1, {mask}
    exec.and.save u2, u1
    vmovi v2, 1
    exec.set u2
use: vmov v3, v2
    end
"
        )
    };
    let r = run(&src("0xffff"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::UninitRegister);
    assert_eq!(f.at, site(0, 0, 0xffff_0000, r.label("use"), None, None));
    assert_eq!(f.reg, Some((RegFile::Vector, 2)));
    let r = run(&src("0xffffffff"));
    r.assert_finished();
    r.assert_clean("written in every lane");

    // Read under the same partial EXEC: clean.
    let src = "
    umovi u1, 0xffff
    exec.and.save u2, u1
    vmovi v2, 1
    vmov v3, v2
    exec.set u2
    end
";
    let r = run(src);
    r.assert_finished();
    r.assert_clean("read under the EXEC it was written under");
}

#[test]
fn uninit_readlane_reads_one_lane() {
    // v2 is written in lane 3 only; readlane of lane 3 is clean, of lane 5 is not.
    let src = |lane: u32| {
        format!(
            "
    umovi u1, 8
    exec.and.save u2, u1
    vmovi v2, 1
    exec.set u2
use: readlane u3, v2, {lane}
    end
"
        )
    };
    let r = run(&src(3));
    r.assert_finished();
    r.assert_clean("readlane of the written lane");
    let r = run(&src(5));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::UninitRegister);
    assert_eq!(f.at, site(0, 0, 1 << 5, r.label("use"), None, None));
    assert_eq!(f.reg, Some((RegFile::Vector, 2)));

    // writelane writes its lane whatever EXEC (here none): readlane of it is clean, of
    // another lane is not.
    let src = |lane: u32| {
        format!(
            "
    umovi u1, 7
    umovi u4, 0
    exec.and.save u2, u4
    writelane v2, u1, 9
    exec.set u2
use: readlane u3, v2, {lane}
    end
"
        )
    };
    let r = run(&src(9));
    r.assert_finished();
    r.assert_clean("readlane of the lane writelane wrote");
    let r = run(&src(10));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.at, site(0, 0, 1 << 10, r.label("use"), None, None));
    assert_eq!(f.reg, Some((RegFile::Vector, 2)));
}

#[test]
fn uninit_uniform_register() {
    let src = |init: &str| {
        format!(
            "
    umovi u1, 3
    {init}
use: uadd u3, u1, u2
    end
"
        )
    };
    let r = run(&src("nop"));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::UninitRegister);
    assert_eq!(f.at, site(0, 0, ALL_LANES, r.label("use"), None, None));
    assert_eq!(f.reg, Some((RegFile::Uniform, 2)));
    let r = run(&src("umovi u2, 4"));
    r.assert_finished();
    r.assert_clean("u2 written first");
}

// ---------------------------------------------------------------------------------------
// 9. Divergent barriers
// ---------------------------------------------------------------------------------------

/// A wave that runs a barrier with EXEC 0 and another with half its lanes: one finding,
/// with the first wave's own lanes, the barrier's active lanes (none), and the second
/// wave's lanes listed apart, never merged into the first's.
#[test]
fn barrier_divergence_keeps_each_waves_lanes_and_a_barrier_passed_with_exec_0() {
    let src = "
.workgroup 64
.shared 256
    uwaveid u5
    umovi u6, 0xffff
    br.unz u5, none
    br merge
none:
    umovi u6, 0
merge:
    exec.and.save u7, u6
bar: barrier
rejoin: exec.set u7
    vlaneid v0
    end
";
    let r = run(src);
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::BarrierDivergence);
    // Wave 0 (lanes 16-31 inactive) or wave 1 (EXEC 0) first, by the schedule.
    let (first, second) = if f.at.wave == 0 {
        ((0, 0xffff_0000u32, 0x0000_ffffu32), (1, u32::MAX))
    } else {
        ((1, u32::MAX, 0), (0, 0xffff_0000))
    };
    assert_eq!(
        f.at,
        site(first.0, 0, first.1, r.label("rejoin"), None, None)
    );
    assert_eq!(
        f.other,
        Some(site(first.0, 0, first.2, r.label("bar"), None, None))
    );
    assert_eq!(
        f.also,
        vec![WaveLanes {
            wave: second.0,
            lanes: second.1
        }]
    );
    assert_eq!(f.count, 2);
    let text = f.headline();
    if first.0 == 1 {
        assert!(
            text.contains(
                "wave 1 passed a barrier with no active lanes (EXEC 0): lanes 0-31 skipped it"
            ),
            "{text}"
        );
    }
    let m = Machine::new(&program(src), opts(0)).expect("launch");
    let report = f.describe(&m, None);
    assert!(
        report.contains(&format!("also in: wave {} lanes", second.0)),
        "{report}"
    );
}

/// An uninitialised read names every word its lanes read, not only the first, and a
/// hazard names the lanes of the load it is about.
#[test]
fn an_uninitialised_read_names_every_word_and_a_hazard_the_loads_lanes() {
    let src = "
.shared 256
    umovi u1, 0x3
    exec.and.save u2, u1
    vlaneid v0
    vshli v1, v0, 2
load: ld.shared.b32 v2, v1, 8
use: vmov v3, v2
    wait.ls 0
    exec.set u2
    end
";
    let r = run(src);
    r.assert_finished();
    let uninit = r
        .findings()
        .iter()
        .find(|f| f.kind == FindingKind::UninitMemory)
        .expect("an uninitialised read");
    assert_eq!(uninit.addr, Some(8));
    assert_eq!(uninit.addrs, vec![8, 12]);
    assert_eq!(uninit.at.lanes, 0x3);
    assert!(
        uninit
            .headline()
            .starts_with("2 words of shared (0x8, 0xc; 4 bytes each)"),
        "{}",
        uninit.headline()
    );
    let hazard = r
        .findings()
        .iter()
        .find(|f| f.kind == FindingKind::ReadBeforeWait)
        .expect("a hazard");
    assert_eq!(hazard.at.lanes, 0x3);
    assert_eq!(
        hazard.other,
        Some(site(0, 0, 0x3, r.label("load"), None, None))
    );
}

#[test]
fn barrier_divergence_when_skipped_lanes_rejoin() {
    let src = "
    umovi u1, 0xffff
    exec.and.save u2, u1
bar: barrier
rejoin: exec.set u2
    vlaneid v0
    end
";
    let r = run(src);
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::BarrierDivergence);
    assert_eq!(f.kind.severity(), Severity::Error);
    assert_eq!(f.at, site(0, 0, 0xffff_0000, r.label("rejoin"), None, None));
    // The barrier's side: the lanes that were active there.
    assert_eq!(
        f.other,
        Some(site(0, 0, 0x0000_ffff, r.label("bar"), None, None))
    );
    assert_no_reg_counter_waves(f);
    assert_eq!(f.space, None);
}

#[test]
fn barrier_divergence_absent_without_rejoin_or_with_full_exec() {
    // The masked lanes never come back.
    let r = run("
    umovi u1, 0xffff
    exec.and.save u2, u1
    barrier
    vlaneid v0
    end
");
    r.assert_finished();
    r.assert_clean("masked lanes never rejoin");
    // EXEC restored before the barrier.
    let r = run("
    umovi u1, 0xffff
    exec.and.save u2, u1
    vlaneid v0
    exec.set u2
    barrier
    end
");
    r.assert_finished();
    r.assert_clean("EXEC restored before the barrier");
}

/// Runs `src` with every detector (seed 0) one `Machine::step` at a time, to its end:
/// its findings, which must be those of `Machine::run`'s fast loop.
fn stepped_findings(src: &str) -> Vec<Finding> {
    let mut m = Machine::new(&program(src), opts(0)).expect("launch");
    m.set_checks(Checks::ALL);
    loop {
        match m.step() {
            None | Some(Event::Finding { .. }) => {}
            Some(Event::Finished) => break,
            Some(other) => panic!("unexpected event {other:?}"),
        }
    }
    m.sanitizer().expect("a sanitizer").findings().to_vec()
}

/// Lanes that skipped a barrier and come back only to end the wave (the epilogue that
/// restores EXEC before `end`, maybe through waits, `nop`s and a `br` to the exit) were
/// masked off for good: they rejoin no work, and are not reported.
#[test]
fn barrier_divergence_absent_when_lanes_rejoin_only_to_end() {
    for (epilogue, what) in [
        ("exec.set u2\n    end", "exec.set, end"),
        ("exec.set u2\n    wait.all\n    end", "exec.set, wait.all, end"),
        (
            "exec.set u2\n    wait.vst 0\n    nop\n    br out\n    vlaneid v1\nout:\n    wait.vm 0\n    end",
            "exec.set, waits, nop and br to end",
        ),
    ] {
        let src = format!(
            "
.shared 128
    vlaneid v0
    vshli v1, v0, 2
    umovi u1, 0xffff
    exec.and.save u2, u1
    st.shared.b32 v0, v1, 0
    wait.ls 0
    barrier
    ld.shared.b32 v3, v1, 0
    wait.ls 0
    {epilogue}
"
        );
        let r = run(&src);
        r.assert_finished();
        r.assert_clean(what);
        assert_clean_under_seeds(&src, Checks::ALL, what);
        assert_eq!(stepped_findings(&src), r.findings(), "{what}: step vs run");
    }
}

/// Lanes that skipped a barrier and do work after coming back (an ALU op, a store, a
/// barrier, even after waits) are reported at the instruction that brought them back,
/// naming the barrier they skipped, by `Machine::run` and `Machine::step` alike.
#[test]
fn barrier_divergence_when_rejoined_lanes_work_after_waits() {
    for (work, what) in [
        ("st.shared.b32 v0, v1, 0", "a store"),
        ("wait.all\n    vaddi.u32 v4, v0, 1", "a wait then an ALU op"),
        ("nop\n    br on\non:\n    barrier", "a br then a barrier"),
    ] {
        let src = format!(
            "
.shared 128
    vlaneid v0
    vshli v1, v0, 2
    umovi u1, 0xffff
    exec.and.save u2, u1
bar: barrier
rejoin: exec.set u2
    {work}
    end
"
        );
        let r = run(&src);
        r.assert_finished();
        let f = r.only();
        assert_eq!(f.kind, FindingKind::BarrierDivergence, "{what}");
        assert_eq!(
            f.at,
            site(0, 0, 0xffff_0000, r.label("rejoin"), None, None),
            "{what}"
        );
        assert_eq!(
            f.other,
            Some(site(0, 0, 0x0000_ffff, r.label("bar"), None, None)),
            "{what}"
        );
        assert_eq!(
            f.headline(),
            "lanes 16-31 skipped a barrier the rest of wave 0 waited at, and rejoin it",
            "{what}"
        );
        assert_eq!(stepped_findings(&src), r.findings(), "{what}: step vs run");
    }
}

// ---------------------------------------------------------------------------------------
// 10. Barrier mismatch
// ---------------------------------------------------------------------------------------

fn two_barriers(same: bool) -> String {
    format!(
        "
.workgroup 64
    uwaveid u0
    br.unz u0, other
a: barrier
    end
other:
    nop
    nop
    {}
b: barrier
    end
",
        if same { "br a" } else { "nop" }
    )
}

#[test]
fn barrier_mismatch_between_waves() {
    let r = run(&two_barriers(false));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::BarrierMismatch);
    assert_eq!(f.kind.severity(), Severity::Warning);
    // Wave 1 arrives last (and has executed more): the finding is at its barrier.
    assert_eq!(f.at, site(1, 0, ALL_LANES, r.label("b"), None, Some(0)));
    assert_eq!(
        f.other,
        Some(site(0, 0, ALL_LANES, r.label("a"), None, Some(0)))
    );
    assert_eq!(f.waves.len(), 2);
    assert_eq!((f.waves[0].wave, f.waves[0].pc), (0, r.label("a")));
    assert_eq!((f.waves[1].wave, f.waves[1].pc), (1, r.label("b")));
    assert!(f.waves.iter().all(|w| w.state == WaveState::AtBarrier));
    assert_eq!(f.reg, None);
    assert_eq!(f.space, None);

    // Fixed: wave 1 branches to the same barrier.
    assert_clean_under_seeds(&two_barriers(true), Checks::ALL, "one barrier PC");
}

// ---------------------------------------------------------------------------------------
// 11. Barrier deadlock
// ---------------------------------------------------------------------------------------

/// Waves 0 and 1 wait at a barrier; wave 2 runs `QUIT` instead.
fn deadlock(quit: &str) -> String {
    format!(
        "
.workgroup 96
    uwaveid u0
    ucmpi.eq u1, u0, 2
    br.unz u1, quit
wait: barrier
    end
quit: {quit}
    end
"
    )
}

#[test]
fn barrier_deadlock_when_a_wave_ends() {
    let r = run(&deadlock("nop"));
    let Event::Deadlock(d) = &r.end else {
        panic!("expected a deadlock, got {:?}", r.end);
    };
    assert_eq!(d.workgroup, 0);
    assert_eq!(d.waiting, vec![(0, r.label("wait")), (1, r.label("wait"))]);
    let f = r.only();
    assert_eq!(f.kind, FindingKind::BarrierDeadlock);
    assert_eq!(f.kind.severity(), Severity::Error);
    assert_eq!(f.at, site(0, 0, ALL_LANES, r.label("wait"), None, None));
    // The exited wave's `end`: the instruction after `quit`.
    let end = r.label("quit") + 4;
    assert_eq!(f.other, Some(site(2, 0, ALL_LANES, end, None, None)));
    let waves: Vec<_> = f.waves.iter().map(|w| (w.wave, w.pc, w.state)).collect();
    assert_eq!(
        waves,
        vec![
            (0, r.label("wait"), WaveState::AtBarrier),
            (1, r.label("wait"), WaveState::AtBarrier),
            (2, end, WaveState::Exited),
        ]
    );
    assert_eq!(f.reg, None);
    assert!(
        r.raised.is_empty(),
        "the deadlock is the event, not a Finding"
    );

    // Fixed: both waves reach the barrier.
    assert_clean_under_seeds(
        &deadlock("br wait"),
        Checks::ALL,
        "all three waves at the barrier",
    );
}

#[test]
fn barrier_deadlock_names_a_faulted_waves_instruction() {
    let r = run(&deadlock("trap 1"));
    assert_eq!(r.faults.len(), 1, "wave 2 traps");
    assert_eq!(r.faults[0].pc, r.label("quit"));
    assert!(matches!(r.end, Event::Deadlock(_)), "{:?}", r.end);
    let f = r.only();
    assert_eq!(f.kind, FindingKind::BarrierDeadlock);
    assert_eq!(f.at.pc, r.label("wait"));
    assert_eq!(
        f.waves
            .iter()
            .map(|w| (w.wave, w.pc, w.state))
            .collect::<Vec<_>>(),
        vec![
            (0, r.label("wait"), WaveState::AtBarrier),
            (1, r.label("wait"), WaveState::AtBarrier),
            (2, r.label("quit"), WaveState::Faulted)
        ]
    );
    // The gone wave is the one that trapped, at the trap.
    assert_eq!(f.other.map(|o| (o.wave, o.pc)), Some((2, r.label("quit"))));
}

// ---------------------------------------------------------------------------------------
// Repeated sightings, and the example kernels
// ---------------------------------------------------------------------------------------

#[test]
fn repeated_sightings_are_counted_and_reported_once() {
    // Wave 0 writes; wave 1 reads the same words four times in a loop, no barrier.
    let src = "
.workgroup 64
.shared 128
    uwaveid u0
    vlaneid v0
    vshli v1, v0, 2
    br.unz u0, reader
store: st.shared.b32 v0, v1, 0
    wait.ls 0
    end
reader:
    umovi u3, 4
again:
load: ld.shared.b32 v2, v1, 0
    wait.ls 0
    uaddi u3, u3, -1
    br.unz u3, again
    end
";
    let r = run(src);
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::Race);
    assert_eq!(f.at.pc, r.label("load"));
    assert_eq!(f.other.map(|o| o.pc), Some(r.label("store")));
    assert_eq!(f.count, 4);
    assert_eq!(
        r.raised,
        vec![(1, r.label("load"))],
        "one event, the first time"
    );
    assert!(f.describe(&r.m, None).contains("(4 times)"));
    assert!(f.first_at > 0);
}

#[test]
fn example_kernels_have_no_findings() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "s"))
        .collect();
    names.sort();
    assert!(names.len() >= 8, "the example kernels: {names:?}");
    for path in names {
        let src = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let p = assemble(&src, &name, Some(&dir))
            .unwrap_or_else(|e| panic!("{name} does not assemble:\n{e}"));
        for seed in 0..4 {
            let mut m = Machine::new(&p, opts(seed)).unwrap();
            m.set_checks(Checks::ALL);
            let end = loop {
                match m.run(None) {
                    None => continue,
                    Some(Event::Finding { .. }) => continue,
                    Some(e) => break e,
                }
            };
            let findings = m.sanitizer().unwrap().findings();
            let text: Vec<String> = findings.iter().map(|f| f.describe(&m, None)).collect();
            assert_eq!(end, Event::Finished, "{name} seed {seed}: {text:#?}");
            assert!(
                findings.is_empty(),
                "{name} seed {seed}:\n{}",
                text.join("\n")
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Detector groups
// ---------------------------------------------------------------------------------------

/// One bug per group: a shared race (races), a read before wait.vm (hazards), an
/// uninitialised register (init), and barriers at different PCs (sync).
const ONE_BUG_PER_GROUP: &str = "
.workgroup 64
.shared 128
.buffer in, 128
.arg u[0:1], in
    uwaveid u8
    vlaneid v0
    vshli v1, v0, 2
    br.unz u8, reader
store: st.shared.b32 v0, v1, 0
    wait.ls 0
    ld.ubase.b32 v2, u[0:1], v1, 0
early: vmov v3, v2
    wait.vm 0
uninit: vmov v4, v9
a: barrier
    end
reader:
load: ld.shared.b32 v5, v1, 0
    wait.ls 0
b: barrier
    end
";

#[test]
fn each_group_finds_only_its_kinds() {
    let r = run(ONE_BUG_PER_GROUP);
    r.assert_finished();
    let kinds: Vec<FindingKind> = r.findings().iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        vec![
            FindingKind::ReadBeforeWait,
            FindingKind::Race,
            FindingKind::UninitRegister,
            FindingKind::BarrierMismatch
        ],
        "{}",
        r.report()
    );
    assert_eq!(r.raised.len(), 4, "one event per new finding");
    let groups = [
        (
            Checks {
                races: true,
                ..Default::default()
            },
            FindingKind::Race,
            "load",
        ),
        (
            Checks {
                hazards: true,
                ..Default::default()
            },
            FindingKind::ReadBeforeWait,
            "early",
        ),
        (
            Checks {
                init: true,
                ..Default::default()
            },
            FindingKind::UninitRegister,
            "uninit",
        ),
        (
            Checks {
                sync: true,
                ..Default::default()
            },
            FindingKind::BarrierMismatch,
            "b",
        ),
    ];
    for (checks, kind, label) in groups {
        let r = run_with(ONE_BUG_PER_GROUP, checks, opts(0));
        r.assert_finished();
        let f = r.only();
        assert_eq!(f.kind, kind, "{}", checks.names());
        assert_eq!(f.kind.group().name(), checks.names());
        if kind == FindingKind::BarrierMismatch {
            // Which side is `at` is the subject of an ignored test below.
            let mut pcs = [f.at.pc, f.other.expect("the other barrier").pc];
            pcs.sort();
            assert_eq!(pcs, [r.label("a"), r.label(label)]);
        } else {
            assert_eq!(f.at.pc, r.label(label), "{}", checks.names());
        }
    }
    assert_eq!(Checks::ALL.names(), "races sync init hazards xlane");
    assert_eq!(Checks::default().names(), "none");
}

// ---------------------------------------------------------------------------------------
// Workgroups that reuse a resident slot
// ---------------------------------------------------------------------------------------

#[test]
fn slot_reuse_starts_a_fresh_workgroup_uninitialised() {
    // Workgroup 0 writes shared word l and v2; workgroup 1 (dispatched into the same slot
    // once workgroup 0 is done) reads both without writing them.
    let src = "
.grid 2
.shared 128
    uwgid u0
    vlaneid v0
    vshli v1, v0, 2
    br.unz u0, reader
    st.shared.b32 v0, v1, 0
    wait.ls 0
    vmovi v2, 1
reader:
load: ld.shared.b32 v3, v1, 0
    wait.ls 0
use: vmov v4, v2
    end
";
    let one = LaunchOptions {
        resident_workgroups: 1,
        ..opts(0)
    };
    let r = run_with(src, Checks::ALL, one);
    r.assert_finished();
    let fs = r.findings();
    assert_eq!(fs.len(), 2, "{}", r.report());
    assert_eq!(fs[0].kind, FindingKind::UninitMemory);
    assert_eq!(
        fs[0].at,
        site(
            1,
            1,
            ALL_LANES,
            r.label("load"),
            Some(MemAccess::Read),
            None
        )
    );
    assert_eq!(fs[0].space, Some(Space::Shared));
    assert_eq!(fs[0].addr, Some(0));
    assert_eq!(fs[1].kind, FindingKind::UninitRegister);
    assert_eq!(fs[1].at, site(1, 1, ALL_LANES, r.label("use"), None, None));
    assert_eq!(fs[1].reg, Some((RegFile::Vector, 2)));
}

#[test]
fn checks_turned_on_mid_launch_do_not_report_earlier_writes() {
    let src = "
.shared 16
    vlaneid v2
    vmovi v1, 0
    st.shared.b32 v1, v1, 0
    wait.ls 0
    umovi u5, 3
    nop
    nop
    nop
late: vmov v3, v2
    ld.shared.b32 v4, v1, 0
    uadd u6, u5, u5
    vmov v5, v9
    wait.ls 0
    end
";
    let p = program(src);
    let mut m = Machine::new(&p, opts(0)).unwrap();
    assert_eq!(m.run(Some(5)), None);
    m.set_checks(Checks::ALL);
    loop {
        match m.run(None) {
            None => continue,
            Some(Event::Finished) => break,
            Some(other) => panic!("{other:?}"),
        }
    }
    // What was written before the checks were on is not known: nothing is reported for
    // this wave (even v9, which nobody wrote).
    let fs = m.sanitizer().unwrap().findings();
    assert!(fs.is_empty(), "{fs:?}");
}

/// A hazard finding's kind, register and counter.
type Hazard = (FindingKind, Option<(RegFile, u8)>, Option<Counter>);

#[test]
fn wait_all_retires_every_counter() {
    let src = |wait: &str| {
        format!(
            "
.buffer in, 128
.arg u[0:1], in
.shared 128
    vlaneid v0
    vshli v1, v0, 2
    ld.ubase.b32 v2, u[0:1], v1, 0
    uld.b32 u4, u[0:1], 0
    st.shared.b32 v0, v1, 0
    {wait}
use: vadd.u32.u v3, v2, u4
    vmovi v0, 1
    wait.all
    end
"
        )
    };
    let r = run(&src("nop"));
    r.assert_finished();
    let mut got: Vec<Hazard> = r
        .findings()
        .iter()
        .map(|f| (f.kind, f.reg, f.counter))
        .collect();
    got.sort_by_key(|x| format!("{x:?}"));
    assert_eq!(
        got,
        vec![
            (
                FindingKind::ReadBeforeWait,
                Some((RegFile::Uniform, 4)),
                Some(Counter::Sm)
            ),
            (
                FindingKind::ReadBeforeWait,
                Some((RegFile::Vector, 2)),
                Some(Counter::Vm)
            ),
            (
                FindingKind::StoreDataOverwritten,
                Some((RegFile::Vector, 0)),
                Some(Counter::Ls)
            ),
        ],
        "{}",
        r.report()
    );
    let r = run(&src("wait.all"));
    r.assert_finished();
    r.assert_clean("wait.all before the uses");
}

// ---------------------------------------------------------------------------------------
// Behaviour the module docs promise and the sanitizer does not have
// ---------------------------------------------------------------------------------------

/// v2 is written in lanes `WRITTEN` only; then, under EXEC = `EXEC`, `shfl.bcast.vi v3, v2,
/// SRC` makes every active lane read lane SRC.
fn broadcast(written: u32, exec: u32, src: u32) -> String {
    format!(
        "
    umovi u1, {written}
    exec.and.save u2, u1
    vmovi v2, 1
    exec.set u2
    umovi u1, {exec}
    exec.and.save u2, u1
use: shfl.bcast.vi v3, v2, {src}
    exec.set u2
    end
"
    )
}

#[test]
fn uninit_register_shfl_broadcast_of_a_written_lane_is_clean() {
    // Lane 0 computes a value; every lane reads lane 0's. Nothing unwritten is read.
    let r = run(&broadcast(1, 0xffff_ffff, 0));
    r.assert_finished();
    r.assert_clean("broadcast of lane 0, written");
}

#[test]
fn uninit_register_shfl_from_an_unwritten_lane_is_found() {
    // Lanes 0..15 written and active; they all read lane 20, never written (shfl reads
    // its source lane even when inactive; the xlane detector reports that read too, so
    // only the init detector is on here).
    let init = Checks {
        init: true,
        ..Default::default()
    };
    let r = run_with(&broadcast(0xffff, 0xffff, 20), init, opts(0));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::UninitRegister);
    assert_eq!(f.at.pc, r.label("use"));
    assert_eq!(f.at.lanes, 1 << 20, "the lane read, as for readlane");
    assert_eq!(f.reg, Some((RegFile::Vector, 2)));
}

#[test]
fn race_on_one_byte_survives_a_write_to_another_byte_of_the_word() {
    // Waves 0 and 2 write byte 0 of shared word 0, wave 1 writes byte 1 in between (each
    // wave's store is within its first quantum: they run in wave order), no barrier:
    // waves 0 and 2 race on byte 0.
    let src = "
.workgroup 96
.shared 16
    uwaveid u0
    umovi u1, 1
    exec.and.save u2, u1
    vmovi v2, 5
    ucmpi.eq u3, u0, 1
    vmov.u v0, u3
go: st.shared.b8 v2, v0, 0
    wait.ls 0
    exec.set u2
    end
";
    let r = run(src);
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::Race);
    let pc = r.label("go");
    assert_eq!(f.at, site(2, 0, 1, pc, Some(MemAccess::Write), Some(0)));
    assert_eq!(
        f.other,
        Some(site(0, 0, 1, pc, Some(MemAccess::Write), Some(0)))
    );
    assert_eq!(f.addr, Some(0));
    assert_eq!(f.len, 1);
}

#[test]
fn barrier_mismatch_is_at_the_wave_that_arrived_last() {
    // Wave 0 runs four nops and reaches its barrier first (round-robin, quantum 8);
    // wave 1 arrives last, having executed fewer instructions.
    let src = "
.workgroup 64
    uwaveid u0
    br.unz u0, other
    nop
    nop
    nop
    nop
a: barrier
    end
other:
b: barrier
    end
";
    let r = run(src);
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::BarrierMismatch);
    assert_eq!(r.raised, vec![(1, r.label("b"))]);
    assert_eq!((f.at.wave, f.at.pc), (1, r.label("b")));
    assert_eq!(f.other.map(|o| (o.wave, o.pc)), Some((0, r.label("a"))));
}

#[test]
fn race_with_a_byte_read_survives_reads_of_other_bytes() {
    // Waves 0, 1, 2 read bytes 0, 1, 2 of shared word 0; then wave 3 writes byte 0 with
    // no barrier: it races with wave 0's read (each wave's access is within its first
    // quantum, so they run in wave order).
    let src = "
.workgroup 128
.shared 16
    uwaveid u0
    umovi u1, 1
    exec.and.save u2, u1
    ucmpi.eq u3, u0, 3
    br.unz u3, writer
    vmov.u v0, u0
rd: ld.shared.u8 v2, v0, 0
    wait.ls 0
    end
writer:
    vmovi v0, 0
wr: st.shared.b8 v0, v0, 0
    wait.ls 0
    end
";
    let r = run_with(src, RACES, opts(0));
    r.assert_finished();
    let f = r.only();
    assert_eq!(f.kind, FindingKind::Race);
    assert_eq!(
        f.at,
        site(3, 0, 1, r.label("wr"), Some(MemAccess::Write), Some(0))
    );
    assert_eq!(
        f.other,
        Some(site(0, 0, 1, r.label("rd"), Some(MemAccess::Read), Some(0)))
    );
}

// ---------------------------------------------------------------------------------------
// 12. Cross-lane reads of inactive lanes
// ---------------------------------------------------------------------------------------

const XLANE: Checks = Checks {
    races: false,
    sync: false,
    init: false,
    hazards: false,
    xlane: true,
};

/// A shfl.down tree under a ragged tail (lanes 0-19 active) gathers lanes 20-31, whose v1
/// still holds an earlier value: found at each step with the reading and the source
/// lanes; the same tree with every lane active, or with the distance kept inside the
/// active lanes, is clean.
#[test]
fn a_shuffle_tree_under_a_ragged_tail_reads_inactive_lanes() {
    let ragged = "
    vlaneid v0
    vmovi v1, 7
    umovi u4, 0xfffff
    exec.and.save u5, u4
    vaddi.u32 v1, v0, 1
s16: shfl.down.vi v2, v1, 16
    vadd.u32 v1, v1, v2
s8: shfl.down.vi v2, v1, 8
    vadd.u32 v1, v1, v2
    exec.set u5
    end
";
    let r = run_with(ragged, XLANE, opts(0));
    r.assert_finished();
    let f = r.findings();
    assert_eq!(f.len(), 2, "{}", r.report());
    assert_eq!(f[0].kind, FindingKind::InactiveLaneRead);
    assert_eq!(f[0].kind.severity(), Severity::Error);
    assert_eq!(f[0].at, site(0, 0, 0x0000_fff0, r.label("s16"), None, None));
    assert_eq!(
        f[0].other,
        Some(site(0, 0, 0xfff0_0000, r.label("s16"), None, None))
    );
    assert_eq!(f[0].reg, Some((RegFile::Vector, 1)));
    assert_eq!(f[1].at, site(0, 0, 0x000f_f000, r.label("s8"), None, None));
    assert_eq!(f[1].other.map(|o| o.lanes), Some(0x0ff0_0000));
    assert!(
        f[0].headline()
            .starts_with("lanes 4-15 read v1 of lanes 20-31, inactive here"),
        "{}",
        f[0].headline()
    );
    // Every lane active: nothing to report.
    assert_clean_under_seeds(&ragged.replace("0xfffff", "0xffffffff"), XLANE, "full EXEC");
    // The other detectors do not see it.
    let r = run_with(
        ragged,
        Checks {
            xlane: false,
            ..Checks::ALL
        },
        opts(0),
    );
    assert!(r
        .findings()
        .iter()
        .all(|f| f.kind != FindingKind::InactiveLaneRead));
}

/// The same read under every detector, where the shuffle's registers are written in
/// every lane (so the fast loop's guard lets ALU instructions run without the hooks):
/// the shuffle under a partial EXEC still takes the hooks and is found.
#[test]
fn a_ragged_shuffle_on_written_registers_is_found_under_every_detector() {
    let src = "
    vlaneid v0
    vmovi v1, 7
    vmovi v2, 0
    umovi u4, 0xfffff
    exec.and.save u5, u4
    vaddi.u32 v1, v0, 1
s16: shfl.down.vi v2, v1, 16
    vadd.u32 v1, v1, v2
    exec.set u5
    end
";
    let r = run_with(src, Checks::ALL, opts(0));
    r.assert_finished();
    let f = r.findings();
    assert_eq!(f.len(), 1, "{}", r.report());
    assert_eq!(f[0].kind, FindingKind::InactiveLaneRead);
    assert_eq!(f[0].at, site(0, 0, 0x0000_fff0, r.label("s16"), None, None));
}

/// Every cross-lane form: a broadcast, a quad swizzle, a derivative and a lane read of an
/// inactive lane are found; a lane read of an active lane and readfirst are not.
#[test]
fn every_cross_lane_form_reading_an_inactive_lane_is_found() {
    let src = "
    vlaneid v0
    umovi u4, 0xfffffffe
    exec.and.save u5, u4
bc: shfl.bcast.vi v2, v0, 0
qs: quad.swizzle v3, v0, 0
dx: fddx.fine.f32 v4, v0
rl: readlane u6, v0, 0
ok: readlane u7, v0, 5
rf: readfirst u8, v0
    exec.set u5
    end
";
    let r = run_with(src, XLANE, opts(0));
    r.assert_finished();
    let at: Vec<(u64, u32, u32)> = r
        .findings()
        .iter()
        .map(|f| (f.at.pc, f.at.lanes, f.other.map_or(0, |o| o.lanes)))
        .collect();
    assert_eq!(
        at,
        vec![
            (r.label("bc"), 0xffff_fffe, 1),
            (r.label("qs"), 0x0000_000e, 1),
            (r.label("dx"), 0x0000_0002, 1),
            (r.label("rl"), 0xffff_fffe, 1),
        ],
        "{}",
        r.report()
    );
}

#[test]
fn each_kind_id_is_its_json_name() {
    for k in FindingKind::ALL {
        assert_eq!(
            serde_json::to_value(k).expect("serialises"),
            serde_json::json!(k.id()),
            "{k:?}"
        );
    }
}
