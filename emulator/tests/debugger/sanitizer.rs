//! The sanitizer under the debugger: a finding stops a run right after its instruction
//! with both sides named; it is reported once; time travel and restarts take the
//! sanitizer's state back and forth with the machine; sessions replay `set check`.

use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::check::{CheckGroup, Finding, FindingKind};
use wavedbg_emulator::debug::driver::run_line;
use wavedbg_emulator::debug::{Engine, StopEvent, StopReason};
use wavedbg_emulator::machine::LaunchOptions;

/// Two workgroups of two waves: wave 1 of each stores a word its wave 0 then loads, with
/// no barrier (round-robin runs the load first), then every wave adds to a counter.
const RACE: &str = "\
.kernel race
.workgroup 64
.grid 2
.shared 64
.buffer out, 64
.arg u[2:3], out
    uwaveid u0
    vmovi v1, 0
    vmovi v2, 7
    br.uz u0, reader
    st.shared.b32 v2, v1, 0
    wait.ls 0
    br done
reader:
    ld.shared.b32 v3, v1, 0
    wait.ls 0
done:
    vmovi v4, 1
    atom.ubase.add.u32 v4, u[2:3], v1, 0
    wait.vst 0
    end
";

fn engine() -> Engine {
    let p = assemble(RACE, "race.s", None).expect("assembles");
    Engine::new(&p, LaunchOptions::default()).expect("launches")
}

fn run(e: &mut Engine, line: &str) -> String {
    run_line(e, line)
        .unwrap_or_else(|err| panic!("`{line}`: {err}"))
        .text
}

fn stop(e: &mut Engine, line: &str) -> StopEvent {
    run(e, line);
    e.last_stop().cloned().expect("a stop")
}

/// The findings `s` stops at (it must be a finding's stop).
fn findings(s: &StopEvent) -> &[Finding] {
    match &s.reason {
        StopReason::Finding(found) => found,
        other => panic!("{other:?}"),
    }
}

fn label(e: &Engine, name: &str) -> u64 {
    e.machine().program().labels[name]
}

#[test]
fn a_finding_stops_right_after_its_instruction_with_both_sides() {
    let mut e = engine();
    assert!(run(&mut e, "set check races on").contains("Sanitizer: races on."));
    let s = stop(&mut e, "continue");
    let found = findings(&s);
    assert_eq!(found.len(), 1);
    let f = &found[0];
    assert_eq!(f.kind, FindingKind::Race);
    let store = label(&e, "reader") - 16;
    assert_eq!(f.at.pc, store, "the store of wave 1");
    assert_eq!((f.at.wave, f.at.lanes), (1, u32::MAX));
    let other = f.other.expect("the earlier load");
    assert_eq!((other.wave, other.pc), (0, label(&e, "reader")));
    // The wave is past the store (like after a watchpoint), and selected.
    assert_eq!(s.wave_id, Some(1));
    assert_eq!(s.pc, Some(store + 8));
    let text = run(&mut e, "why");
    assert!(text.starts_with("Sanitizer error: data race on shared:0x0 (4 bytes) in workgroup 0, no barrier between (epoch 0) [count "), "{text}");
    assert!(
        text.contains("  now     wave 1 (workgroup 0, epoch 0) lanes 0-31 write at"),
        "{text}"
    );
    assert!(
        text.contains("  before  wave 0 (workgroup 0, epoch 0) lane 31 read at"),
        "{text}"
    );
    // The same race in workgroup 1 is the same finding: counted, not stopped at.
    let s = stop(&mut e, "continue");
    assert_eq!(s.reason, StopReason::Finished);
    let info = run(&mut e, "info findings");
    assert!(
        info.starts_with("Sanitizer: races on; 1 finding.\n#1 [count "),
        "{info}"
    );
    assert!(info.contains("(2 times)"), "{info}");
    assert_eq!(e.findings().len(), 1);
    assert_eq!(e.findings()[0].count, 2);
}

#[test]
fn with_the_detectors_off_nothing_stops_and_nothing_is_kept() {
    let mut e = engine();
    assert_eq!(stop(&mut e, "continue").reason, StopReason::Finished);
    assert!(e.findings().is_empty());
    assert!(
        run(&mut e, "info findings").starts_with("Sanitizer: off (set check all on); 0 findings.")
    );
    // On, then off again before the race.
    run(&mut e, "restart");
    run(&mut e, "set check all on");
    run(&mut e, "set check all off");
    assert_eq!(stop(&mut e, "continue").reason, StopReason::Finished);
    assert!(e.machine().sanitizer().is_none());
}

#[test]
fn time_travel_takes_the_findings_back_and_replays_them() {
    let mut e = engine();
    run(&mut e, "set check races on");
    let first = stop(&mut e, "continue");
    let at = first.instructions;
    // Back one instruction of the selected wave: before the store, the finding unseen.
    run(&mut e, "reverse-stepi");
    assert_eq!(e.machine().stats.wave_instructions, at - 1);
    assert!(e.findings().is_empty(), "{:?}", e.findings());
    // Forward again: the same stop at the same count.
    let again = stop(&mut e, "continue");
    assert_eq!(again.instructions, at);
    assert_eq!(again.reason, first.reason);
    // To the launch and back to the end: the findings of the whole run.
    run(&mut e, "goto 0");
    assert!(e.findings().is_empty());
    run(&mut e, &format!("goto {at}"));
    assert_eq!(e.findings().len(), 1);
    // reverse-continue does not stop at findings: it goes back to the start.
    let s = stop(&mut e, "reverse-continue");
    assert_eq!(s.instructions, 0);
}

#[test]
fn detectors_turned_on_mid_launch_are_replayed_at_their_point() {
    let mut e = engine();
    run(&mut e, "stepi 2");
    run(&mut e, "set check races on");
    let s = stop(&mut e, "continue");
    assert!(matches!(s.reason, StopReason::Finding(_)));
    let n = s.instructions;
    // Replaying from the launch turns the detectors on where they were turned on.
    run(&mut e, "goto 1");
    assert!(e.machine().sanitizer().is_none());
    run(&mut e, &format!("goto {n}"));
    assert_eq!(e.findings().len(), 1);
    // A restart keeps them on and finds the race again.
    run(&mut e, "restart");
    assert!(e.checks().get(CheckGroup::Races));
    assert_eq!(stop(&mut e, "continue").instructions, n);
}

#[test]
fn a_saved_session_replays_its_detectors() {
    let mut e = engine();
    run(&mut e, "set check races on");
    let n = stop(&mut e, "continue").instructions;
    let file = std::env::temp_dir().join(format!("wavedbg-sanitizer-{}.ron", std::process::id()));
    run(&mut e, &format!("save {}", file.display()));
    // Loading a session relaunches with its settings, the detectors among them.
    let mut fresh = engine();
    run(&mut fresh, &format!("load {}", file.display()));
    assert!(fresh.checks().get(CheckGroup::Races));
    assert!(!fresh.checks().get(CheckGroup::Init));
    let again = stop(&mut fresh, "continue");
    assert!(matches!(again.reason, StopReason::Finding(_)));
    assert_eq!(again.instructions, n);
    let _ = std::fs::remove_file(&file);
}

#[test]
fn memory_and_registers_the_debugger_writes_count_as_written() {
    // Wave 0 reads shared word 0 and v9 without writing them.
    let src = ".kernel k\n.workgroup 32\n.shared 16\n    vmovi v1, 0\n    ld.shared.b32 v2, v1, 0\n    wait.ls 0\n    vadd.u32 v3, v9, v2\n    end\n";
    let p = assemble(src, "k.s", None).expect("assembles");
    let mut e = Engine::new(&p, LaunchOptions::default()).expect("launches");
    run(&mut e, "set check init on");
    let s = stop(&mut e, "continue");
    let f = findings(&s);
    assert_eq!(f[0].kind, FindingKind::UninitMemory);
    let s = stop(&mut e, "continue");
    let f = findings(&s);
    assert_eq!(f[0].kind, FindingKind::UninitRegister);
    assert_eq!(f[0].reg.map(|r| r.1), Some(9));
    // Written by the debugger first, neither is a finding.
    run(&mut e, "restart");
    run(&mut e, "set shared:0 = 5");
    run(&mut e, "set v9 = 1");
    assert_eq!(stop(&mut e, "continue").reason, StopReason::Finished);
}

/// Workgroup 0 reads a word; in workgroup 1, wave 0 reads it, a barrier, then wave 1
/// reads and writes it. The write races with workgroup 0's read however many reads of
/// workgroup 1 came between (a found false negative).
const EVICT: &str = "\
.kernel evict
.workgroup 64
.grid 2
.buffer buf, 4
.arg u[0:1], buf
    uwgid u4
    uwaveid u5
    vmovi v0, 0
    br.unz u4, wg1
    ld.ubase.b32 v1, u[0:1], v0, 0
    wait.vm 0
    end
wg1:
    br.unz u5, skip
    ld.ubase.b32 v1, u[0:1], v0, 0
    wait.vm 0
skip:
    barrier
    br.uz u5, done
    ld.ubase.b32 v1, u[0:1], v0, 0
    wait.vm 0
    vmovi v1, 7
write:
    st.ubase.b32 v1, u[0:1], v0, 0
    wait.vst 0
done:
    end
";

#[test]
fn a_read_of_another_workgroup_is_not_forgotten_behind_later_reads() {
    let p = assemble(EVICT, "evict.s", None).expect("assembles");
    let mut e = Engine::new(&p, LaunchOptions::default()).expect("launches");
    run(&mut e, "set check races on");
    let s = stop(&mut e, "continue");
    let f = findings(&s);
    assert_eq!(f[0].kind, FindingKind::Race);
    assert_eq!(f[0].at.pc, label(&e, "write"));
    let other = f[0].other.expect("the other side");
    assert_eq!(other.workgroup, 0, "{:?}", f[0]);
}

/// Stores shared memory and registers, then reads them back.
const MIDINIT: &str = "\
.kernel midinit
.workgroup 32
.shared 128
    vlaneid v0
    vshli v1, v0, 2
    st.shared.b32 v0, v1, 0
    wait.ls 0
    nop
    ld.shared.b32 v2, v1, 0
    wait.ls 0
    vadd.u32 v3, v2, v0
    end
";

#[test]
fn detectors_turned_on_late_or_again_report_nothing_false() {
    for first in ["races", "hazards", "init"] {
        let p = assemble(MIDINIT, "midinit.s", None).expect("assembles");
        let mut e = Engine::new(&p, LaunchOptions::default()).expect("launches");
        run(&mut e, &format!("set check {first} on"));
        run(&mut e, "stepi 4");
        if first == "init" {
            run(&mut e, "set check init off");
        }
        run(&mut e, "set check init on");
        let s = stop(&mut e, "continue");
        assert_eq!(
            s.reason,
            StopReason::Finished,
            "{first}: {:?}",
            e.findings()
        );
        assert!(e.findings().is_empty(), "{first}: {:?}", e.findings());
    }
    // Barrier skips seen while sync was off are not reported when it comes back.
    let div = ".kernel div2\n.workgroup 32\n    vlaneid v0\n    umovi u1, 0xffff\n    exec.and.save u2, u1\n    barrier\n    exec.set u2\n    vmovi v1, 1\n    vmovi v2, 2\n    end\n";
    let p = assemble(div, "div2.s", None).expect("assembles");
    let mut e = Engine::new(&p, LaunchOptions::default()).expect("launches");
    run(&mut e, "set check races on");
    run(&mut e, "set check sync on");
    run(&mut e, "stepi 4");
    run(&mut e, "set check sync off");
    run(&mut e, "stepi");
    run(&mut e, "set check sync on");
    assert_eq!(stop(&mut e, "continue").reason, StopReason::Finished);
    assert!(e.findings().is_empty(), "{:?}", e.findings());
}

#[test]
fn going_back_before_set_check_shows_the_detectors_as_they_were() {
    let mut e = engine();
    run(&mut e, "stepi 3");
    run(&mut e, "set check all on");
    assert!(matches!(
        stop(&mut e, "continue").reason,
        StopReason::Finding(_)
    ));
    run(&mut e, "goto 1");
    assert!(!e.checks().any(), "the machine there has no sanitizer");
    assert!(run(&mut e, "info findings").starts_with("Sanitizer: off"));
    // Forward again within the record: the detectors come back where they were set.
    run(&mut e, "goto 4");
    assert!(e.checks().get(CheckGroup::Races));
}

#[test]
fn a_finding_and_a_watchpoint_on_one_instruction_are_both_reported() {
    let src = include_str!("../../../scripts/bugs/reduce_nobarrier.s");
    let p = assemble(src, "reduce_nobarrier.s", None).expect("assembles");
    for resume in ["continue", "stepi 20"] {
        let mut e = Engine::new(&p, LaunchOptions::default()).expect("launches");
        run(&mut e, "set check init on");
        run(&mut e, "rwatch shared:0x80");
        let s = stop(&mut e, resume);
        assert!(
            matches!(s.reason, StopReason::Finding(_)),
            "{resume}: {:?}",
            s.reason
        );
        assert_eq!(s.watch.len(), 1, "{resume}: the watchpoint is reported too");
        let text = run(&mut e, "why");
        assert!(
            text.contains("Hardware read watchpoint 1: shared:0x80"),
            "{text}"
        );
        assert!(run(&mut e, "info watchpoints").contains("already hit 1 time"));
    }
}

#[test]
fn barriers_do_not_grow_the_sanitizer() {
    let src = ".kernel bar\n.workgroup 32\nloop:\n    barrier\n    br loop\n";
    let p = assemble(src, "bar.s", None).expect("assembles");
    let options = LaunchOptions {
        max_instructions: None,
        ..LaunchOptions::default()
    };
    let mut m = wavedbg_emulator::machine::Machine::new(&p, options).expect("launches");
    m.set_checks(wavedbg_emulator::check::Checks::ALL);
    m.run(Some(1_000));
    let early = m.sanitizer().expect("on").bytes();
    m.run(Some(400_000));
    let late = m.sanitizer().expect("on").bytes();
    assert_eq!(early, late, "200,000 barriers later");
}

/// Two waves looping over a load and a store, each followed by its wait (the fast loop
/// runs such a wait in the same hooked step as the access before it).
const LOAD_WAIT_LOOP: &str = "\
.kernel load_wait_loop
.workgroup 64
.buffer b, 512
.arg u[0:1], b
    uwaveid u2
    vlaneid v0
    vshli v1, v0, 2
    ushli u3, u2, 8
    vadd.u32.u v1, v1, u3
    umovi u4, 5
loop:
    ld.ubase.b32 v2, u[0:1], v1, 0
after_load:
    wait.vm 0
    vaddi.u32 v2, v2, 1
    st.ubase.b32 v2, u[0:1], v1, 0
after_store:
    wait.vst 0
    uaddi u4, u4, -1
    br.unz u4, loop
    end
";

#[test]
fn a_breakpoint_on_a_wait_right_after_an_access_stops_under_every_detector() {
    let p = assemble(LOAD_WAIT_LOOP, "loop.s", None).expect("assembles");
    for at in ["after_load", "after_store"] {
        let mut e = Engine::new(&p, LaunchOptions::default()).expect("launches");
        run(&mut e, "set check all on");
        run(&mut e, &format!("break {at}"));
        let mut hits = 0;
        loop {
            let s = stop(&mut e, "continue");
            if s.reason == StopReason::Finished {
                break;
            }
            assert!(
                matches!(s.reason, StopReason::Breakpoint { id: _, .. }),
                "{s:?}"
            );
            assert_eq!(s.pc, Some(label(&e, at)), "{s:?}");
            hits += 1;
        }
        // Five iterations in each of two waves.
        assert_eq!(hits, 10, "breakpoint at {at}");
        assert!(e
            .machine()
            .sanitizer()
            .is_some_and(|s| s.findings().is_empty()));
    }
}

/// After a loop (long enough for the machine's fast loop to take over), a load that reads
/// unwritten shared memory, then its wait (which the fast loop runs with it, not counting
/// the load as in use since the wait retires it at once).
const LOAD_THEN_WAIT: &str = "\
.kernel load_then_wait
.workgroup 32
.shared 128
    vlaneid v0
    vshli v1, v0, 2
    vmovi v2, 0
    umovi u0, 100
spin:
    vaddi.u32 v2, v2, 1
    uaddi u0, u0, -1
    br.unz u0, spin
    ld.shared.b32 v2, v1, 0
waits:
    wait.ls 0
past:
    vmovi v2, 0
    end
";

#[test]
fn a_load_whose_finding_stops_before_its_wait_is_still_in_use() {
    let p = assemble(LOAD_THEN_WAIT, "load.s", None).expect("assembles");
    let mut e = Engine::new(&p, LaunchOptions::default()).expect("launches");
    run(&mut e, "set check all on");
    let s = stop(&mut e, "continue");
    let found = findings(&s);
    assert_eq!(found[0].kind, FindingKind::UninitMemory);
    assert_eq!(s.pc, Some(label(&e, "waits")));
    // Past the wait, the load is still outstanding: overwriting its destination is a
    // hazard.
    let past = label(&e, "past");
    run(&mut e, &format!("set var $pc = {past}"));
    let s = stop(&mut e, "continue");
    let found = findings(&s);
    assert_eq!(found[0].kind, FindingKind::WriteBeforeWait, "{found:?}");
    assert_eq!(found[0].at.pc, past);
}
