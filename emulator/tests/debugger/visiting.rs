//! `finding N`: each side of a finding visited with time travel (the wave selected, its
//! lanes named), repeats going on to the other side, the numbering `info findings` shows
//! in the past too, refusals; and where a read of inactive lanes' values were last
//! written, at the stop and in `info findings`.

use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::check::FindingKind;
use wavedbg_emulator::debug::driver::{run_line, Driver};
use wavedbg_emulator::debug::{Engine, FindingSide, Reached, StopEvent, StopReason, VisitError};
use wavedbg_emulator::machine::LaunchOptions;

/// A ragged tail: lanes 0-23 active, `shfl.down.vi` by 8 has lanes 16-23 read lanes 24-31
/// of v1, which the tail's write did not reach: their value is the one written before.
const RAGGED: &str = "\
.kernel ragged
.workgroup 32
    vlaneid v0
    vmovi v1, 7
    vmovi v2, 24
    vcmp.lt.u32 u10, v0, v2
    exec.and.save u11, u10
    vaddi.u32 v1, v0, 100
    shfl.down.vi v3, v1, 8
    exec.set u11
    end
";

/// Two workgroups of two waves: wave 1 of each stores a word its wave 0 loads, with no
/// barrier (round-robin runs the load first).
const RACE: &str = "\
.kernel race
.workgroup 64
.grid 2
.shared 64
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
    end
";

fn engine(src: &str, name: &str) -> Engine {
    let p = assemble(src, name, None).expect("assembles");
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

/// The address of RAGGED's shuffle (`vcmp` and `exec.and.save` take 8 bytes).
const SHUFFLE: u64 = 0x24;

#[test]
fn a_read_of_inactive_lanes_names_where_they_were_written() {
    let mut e = engine(RAGGED, "ragged.s");
    run(&mut e, "set check xlane on");
    let s = stop(&mut e, "continue");
    let StopReason::Finding(found) = &s.reason else {
        panic!("{:?}", s.reason)
    };
    let f = &found[0];
    assert_eq!(f.kind, FindingKind::InactiveLaneRead);
    assert_eq!(f.at.lanes, 0x00ff_0000, "lanes 16-23 read");
    assert_eq!(
        f.other.map(|o| o.lanes),
        Some(0xff00_0000),
        "lanes 24-31 are read"
    );
    // Lanes 24-31 of v1 were last written by `vmovi v1, 7`, instruction 2 (count 1 before).
    let written = f.written.clone().expect("looked up under the debugger");
    assert_eq!(written.len(), 1, "{written:?}");
    assert_eq!(
        (
            written[0].lanes,
            written[0].pc,
            written[0].count,
            written[0].wave
        ),
        (0xff00_0000, 4, 1, 0)
    );
    let text = run(&mut e, "why");
    assert!(
        text.contains("  written wave 0 (workgroup 0) lanes 24-31 at 0x0004: vmovi v1, 7  (ragged:4), instruction 2 (goto 1)"),
        "{text}"
    );
    let info = run(&mut e, "info findings");
    assert!(info.contains("lanes 24-31 at 0x0004"), "{info}");
}

#[test]
fn lanes_no_instruction_wrote_are_named_as_such() {
    // v1 is read in lanes 24-31, which nothing wrote: no write to name, nor to go to.
    let src = RAGGED.replace("    vmovi v1, 7\n", "");
    let mut e = engine(&src, "ragged.s");
    run(&mut e, "set check xlane on");
    let s = stop(&mut e, "continue");
    let StopReason::Finding(found) = &s.reason else {
        panic!("{:?}", s.reason)
    };
    assert_eq!(found[0].written, Some(Vec::new()));
    let text = run(&mut e, "why");
    assert!(
        text.contains("  never   lanes 24-31: not written before this read in this launch"),
        "{text}"
    );
    run(&mut e, "continue");
    assert_eq!(
        e.visit_finding(1, Some(FindingSide::Second)),
        Err(VisitError::SourceNotWritten {
            number: 1,
            reg: 1,
            lanes: 0xff00_0000
        })
    );
}

#[test]
fn finding_n_visits_the_read_then_the_write_of_the_values_read() {
    let mut e = engine(RAGGED, "ragged.s");
    run(&mut e, "set check xlane on");
    run(&mut e, "continue");
    let end = stop(&mut e, "continue");
    assert_eq!(end.reason, StopReason::Finished);
    // First side: right before the shuffle, lanes 16-23 named and the first selected.
    let s = stop(&mut e, "finding 1");
    assert_eq!(
        s.reason,
        StopReason::Reached(Reached::Finding {
            number: 1,
            side: FindingSide::First,
            lanes: 0x00ff_0000
        })
    );
    assert_eq!(
        (s.wave_id, s.pc, s.instructions),
        (Some(0), Some(SHUFFLE), 6)
    );
    assert_eq!(e.selected_lane, 16);
    let text = run(&mut e, "why");
    assert!(
        text.starts_with("Finding 1 (read of an inactive lane), reads side, wave 0 (workgroup 0), lanes 16-23 [count 6]\n  0x0024: shfl.down.vi v3, v1, 8"),
        "{text}"
    );
    // The machine is in the past, where the finding is not made yet: still number 1.
    let info = run(&mut e, "info findings");
    assert!(info.contains("0 findings"), "{info}");
    assert!(
        info.contains("Later in the recorded history: #1 (`finding N` goes to one)."),
        "{info}"
    );
    // Again: the second side, the write of lanes 24-31 of v1.
    let s = stop(&mut e, "finding 1");
    assert_eq!(
        s.reason,
        StopReason::Reached(Reached::Finding {
            number: 1,
            side: FindingSide::Second,
            lanes: 0xff00_0000
        })
    );
    assert_eq!((s.wave_id, s.pc, s.instructions), (Some(0), Some(4), 1));
    assert_eq!(e.selected_lane, 24);
    let text = run(&mut e, "why");
    assert!(
        text.starts_with("Finding 1 (read of an inactive lane), source side: the last write of v1 in the lanes read, wave 0 (workgroup 0), lanes 24-31 [count 1]\n  0x0004: vmovi v1, 7"),
        "{text}"
    );
    // And again: back to the first side; explicit sides go where they say.
    assert_eq!(stop(&mut e, "finding 1").instructions, 6);
    assert_eq!(stop(&mut e, "finding 1 first").instructions, 6);
    assert_eq!(stop(&mut e, "finding 1 second").instructions, 1);
    // Stepping forward from the past replays the recorded future: the finding is made again.
    let s = stop(&mut e, "continue");
    assert!(matches!(s.reason, StopReason::Finding(_)), "{:?}", s.reason);
}

#[test]
fn finding_n_visits_both_accesses_of_a_race() {
    let mut e = engine(RACE, "race.s");
    run(&mut e, "set check races on");
    let found = stop(&mut e, "continue");
    let StopReason::Finding(f) = &found.reason else {
        panic!("{:?}", found.reason)
    };
    let (now, before) = (f[0].at, f[0].other.expect("two sides"));
    // Visited from the stop itself: the store of wave 1, then the load of wave 0.
    let s = stop(&mut e, "finding 1");
    assert_eq!((s.wave_id, s.pc), (Some(now.wave), Some(now.pc)));
    assert_eq!(
        s.instructions,
        found.instructions - 1,
        "right before the store"
    );
    assert!(run(&mut e, "why").starts_with("Finding 1 (data race), now side, wave 1"));
    let s = stop(&mut e, "finding 1");
    assert_eq!((s.wave_id, s.pc), (Some(before.wave), Some(before.pc)));
    assert!(s.instructions < found.instructions - 1);
    assert!(run(&mut e, "why").starts_with("Finding 1 (data race), before side, wave 0"));
    // The machine is really there: the load has not run, the store neither.
    let load = stop(&mut e, "stepi");
    assert_eq!(load.pc, Some(before.pc + 8));
}

/// With the detectors on and no findings, the refusal says how far the launch ran: run
/// it before it started, continue it when partly run, nothing left to run at its end.
#[test]
fn finding_n_with_no_findings_says_how_far_the_launch_ran() {
    // RAGGED's read of inactive lanes is an xlane finding: hazards find nothing in it.
    let mut e = engine(RAGGED, "ragged.s");
    run(&mut e, "set check hazards on");
    let hint = |e: &mut Engine| run_line(e, "finding 1").expect_err("none").to_string();
    assert!(
        hint(&mut e)
            .starts_with("no finding number 1 (no findings yet: run the kernel to look for them)"),
        "{}",
        hint(&mut e)
    );
    run(&mut e, "stepi");
    assert!(
        hint(&mut e).starts_with("no finding number 1 (no findings so far: continue to look for them in the rest of the launch)"),
        "{}",
        hint(&mut e)
    );
    run(&mut e, "continue");
    assert!(
        hint(&mut e).starts_with("no finding number 1 (no findings: the launch ran as far as it goes and the detectors found nothing (`restart` to run it again))"),
        "{}",
        hint(&mut e)
    );
    // A deadlocked launch has run as far as it goes too: `continue` would refuse.
    let mut e = engine(
        ".kernel dl\n.workgroup 64\n    uwaveid u5\n    br.unz u5, quit\n    barrier\n    end\nquit:\n    end\n",
        "dl.s",
    );
    run(&mut e, "set check hazards on");
    run(&mut e, "continue");
    assert!(
        hint(&mut e).contains("the launch ran as far as it goes"),
        "{}",
        hint(&mut e)
    );
}

#[test]
fn finding_n_refuses_what_is_not_there() {
    let mut e = engine(RAGGED, "ragged.s");
    let err = run_line(&mut e, "finding 1").expect_err("no findings");
    assert_eq!(
        err.to_string(),
        "no finding number 1 (no findings: `set check all on` and run to look for them)\nusage: finding N [first|second]"
    );
    run(&mut e, "set check all on");
    // The detectors are on: nothing to turn on, only to run.
    let err = run_line(&mut e, "finding 1").expect_err("none yet");
    assert!(
        err.to_string()
            .starts_with("no finding number 1 (no findings yet: run the kernel to look for them)"),
        "{err}"
    );
    run(&mut e, "continue");
    for line in ["finding 0", "finding 2", "finding 18446744073709551615"] {
        let err = run_line(&mut e, line).expect_err(line);
        assert!(
            err.to_string().contains("(info findings lists 1)"),
            "{line}: {err}"
        );
    }
    let err = run_line(&mut e, "finding 1 third").expect_err("a bad side");
    assert!(
        err.to_string()
            .contains("`third` is not a side (first or second)"),
        "{err}"
    );
    let err = run_line(&mut e, "finding").expect_err("no number");
    assert!(
        err.to_string().contains("usage: finding N [first|second]"),
        "{err}"
    );
    let count = e.machine().stats.wave_instructions;
    assert_eq!(
        count,
        e.last_stop().map_or(0, |s| s.instructions),
        "nothing moved"
    );
}

#[test]
fn a_one_sided_finding_has_no_second_side_and_a_repeat_stays_on_its_side() {
    // v5 is read before anything wrote it: one side.
    let src = "\
.kernel uninit
.workgroup 32
    vmov v1, v5
    end
";
    let mut e = engine(src, "uninit.s");
    run(&mut e, "set check init on");
    run(&mut e, "continue");
    let s = stop(&mut e, "finding 1");
    assert_eq!((s.pc, s.instructions), (Some(0), 0));
    // Again (Enter repeats it): its one side again, not an error that says to type it.
    let s = stop(&mut e, "finding 1");
    assert_eq!((s.pc, s.instructions), (Some(0), 0));
    let err = run_line(&mut e, "finding 1 second").expect_err("one side");
    assert_eq!(
        err.to_string(),
        "finding 1 has one side (`finding 1` goes to it)\nusage: finding N [first|second]"
    );
}

#[test]
fn enter_after_finding_n_goes_on_to_the_other_side() {
    let mut e = engine(RAGGED, "ragged.s");
    let mut d = Driver::new();
    d.run_line(&mut e, "set check xlane on");
    d.run_line(&mut e, "continue");
    d.run_line(&mut e, "finding 1");
    assert_eq!(e.last_stop().map(|s| s.instructions), Some(6));
    d.run_line(&mut e, "");
    assert_eq!(e.last_stop().map(|s| s.instructions), Some(1), "the write");
    d.run_line(&mut e, "");
    assert_eq!(
        e.last_stop().map(|s| s.instructions),
        Some(6),
        "the read again"
    );
    // An explicit side is where it says: Enter does not repeat it.
    d.run_line(&mut e, "finding 1 second");
    assert_eq!(
        d.run_line(&mut e, ""),
        wavedbg_emulator::debug::driver::Outcome::Nothing
    );
}

#[test]
fn source_lanes_written_at_different_points_are_named_newest_first() {
    // Lanes 24-27 of v1 were last written by `vmovi v1, 9` (EXEC lanes 0-27), lanes 28-31
    // by `vmovi v1, 7` (every lane) before it.
    let src = "\
.kernel twice
.workgroup 32
    vlaneid v0
all7:
    vmovi v1, 7
    vmovi v2, 28
    vcmp.lt.u32 u12, v0, v2
    exec.and.save u13, u12
tail9:
    vmovi v1, 9
    exec.set u13
    vmovi v2, 24
    vcmp.lt.u32 u10, v0, v2
    exec.and.save u11, u10
    vaddi.u32 v1, v0, 100
    shfl.down.vi v3, v1, 8
    exec.set u11
    end
";
    let mut e = engine(src, "twice.s");
    let label = |e: &Engine, l: &str| e.machine().program().labels[l];
    run(&mut e, "set check xlane on");
    let s = stop(&mut e, "continue");
    let StopReason::Finding(found) = &s.reason else {
        panic!("{:?}", s.reason)
    };
    let written: Vec<(u32, u64)> = found[0]
        .written
        .iter()
        .flatten()
        .map(|w| (w.lanes, w.pc))
        .collect();
    assert_eq!(
        written,
        [
            (0x0f00_0000, label(&e, "tail9")),
            (0xf000_0000, label(&e, "all7"))
        ]
    );
    // `finding 1 second` goes to the newest of them, naming its lanes.
    let s = stop(&mut e, "finding 1 second");
    assert_eq!(s.pc, Some(label(&e, "tail9")));
    assert_eq!(
        s.reason,
        StopReason::Reached(Reached::Finding {
            number: 1,
            side: FindingSide::Second,
            lanes: 0x0f00_0000
        })
    );
}

#[test]
fn finding_n_visits_the_load_a_hazard_read_came_before() {
    let src = "\
.kernel early
.workgroup 32
.buffer in, 128
.arg u[0:1], in
    vlaneid v0
    vshli v2, v0, 2
load:
    ld.ubase.b32 v3, u[0:1], v2, 0
use:
    vmuli.u32 v4, v3, 3
    wait.vm 0
    end
";
    let mut e = engine(src, "early.s");
    run(&mut e, "set check hazards on");
    let found = stop(&mut e, "continue");
    assert!(
        matches!(found.reason, StopReason::Finding(_)),
        "{:?}",
        found.reason
    );
    let labels = e.machine().program().labels.clone();
    let s = stop(&mut e, "finding 1");
    assert_eq!(s.pc, Some(labels["use"]));
    assert!(run(&mut e, "why").starts_with("Finding 1 (read before wait), at side"));
    let s = stop(&mut e, "finding 1");
    assert_eq!(s.pc, Some(labels["load"]));
    assert!(run(&mut e, "why").starts_with("Finding 1 (read before wait), issued side"));
}

#[test]
fn the_searches_cross_snapshots() {
    // 80,000 loop instructions between the write and the read: the record holds snapshots
    // between them, and the searches replay only the intervals that can hold the answer.
    let src = "\
.kernel long
.workgroup 32
    vlaneid v0
    vmovi v1, 7
    umovi u1, 40000
spin:
    uaddi u1, u1, -1
    br.unz u1, spin
    vmovi v2, 24
    vcmp.lt.u32 u10, v0, v2
    exec.and.save u11, u10
    vaddi.u32 v1, v0, 100
    shfl.down.vi v3, v1, 8
    exec.set u11
    end
";
    let mut e = engine(src, "long.s");
    run(&mut e, "set check xlane on");
    let found = stop(&mut e, "continue");
    assert!(found.instructions > 80_000);
    assert!(e.history().info(found.instructions).snapshots > 1);
    let StopReason::Finding(f) = &found.reason else {
        panic!("{:?}", found.reason)
    };
    let w = f[0].written.clone().expect("looked up");
    assert_eq!((w.len(), w[0].pc, w[0].count), (1, 4, 1));
    run(&mut e, "continue");
    assert_eq!(
        stop(&mut e, "finding 1").instructions,
        found.instructions - 1
    );
    let s = stop(&mut e, "finding 1");
    assert_eq!((s.pc, s.instructions), (Some(4), 1));
    assert_eq!(
        stop(&mut e, "finding 1").instructions,
        found.instructions - 1
    );
}

/// An interrupted `finding N` (Ctrl-C while it searches the record) says it was
/// interrupted, never that the side or a write is not there, and leaves the machine
/// where it was; the same for `last-write` and `goto`.
#[test]
fn interrupted_searches_say_so_and_stay() {
    let mut e = engine(RACE, "race.s");
    run(&mut e, "set check races on");
    let found = stop(&mut e, "continue");
    for line in [
        "finding 1",
        "finding 1 second",
        "last-write shared:0",
        "goto 1",
    ] {
        e.interrupt_handle().interrupt();
        let text = match run_line(&mut e, line) {
            Ok(out) => out.text,
            Err(err) => {
                assert_eq!(err.usage(), None, "{line}: {err}");
                err.to_string()
            }
        };
        assert!(text.contains("Interrupted"), "{line}: {text}");
        for wrong in ["no write", "not written", "no second", "not found"] {
            assert!(!text.contains(wrong), "{line}: {text}");
        }
        assert_eq!(
            e.machine().stats.wave_instructions,
            found.instructions,
            "{line}: stays"
        );
    }
}
