//! The debug engine through its API: every control operation (continue, stepi with and
//! without scheduler locking, advance to a location or a barrier, finish, restart,
//! interrupt from another thread), breakpoints (labels, addresses, offsets, per-lane
//! conditions, wave/workgroup/lane filters, ignore counts, temporary, enable/disable/delete,
//! the `brk` instruction), watchpoints (global, shared of one or every workgroup, one
//! lane's scratch, read/write/access, atomics, conditions, many at once), faults, deadlocks
//! and change tracking, asserted on the typed stop event and on the machine state.

mod kernels;
use kernels::{ATOMIC, BRK, COND, DEADLOCK, FAULT, LOOP, WRITERS};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::debug::breakpoint::{Filters, Scope, WatchKind};
use wavedbg_emulator::debug::{
    Blocked, Engine, Reached, RegisterWrite, StopEvent, StopReason, WatchHit,
};
use wavedbg_emulator::exec::AccessKind;
use wavedbg_emulator::fault::FaultKind;
use wavedbg_emulator::machine::LaunchOptions;
use wavedbg_emulator::memory::Space;
use wavedbg_emulator::wave::WaveState;

// ---------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------

/// Instructions one wave of LOOP executes.
const LOOP_WAVE_INSTRUCTIONS: u64 = 26;

/// Two waves of one workgroup write shared memory, meet at a barrier, then each reads the
/// other's slot.
const BARRIER: &str = r#"
.kernel bar
.workgroup 64
.shared 256
    uwaveid u5
    vlaneid v0
    vmov.u v1, u5
    vaddi.u32 v1, v1, 10        ; 10 + wave index
    vshli v2, v0, 2
    ushli u6, u5, 7             ; 128 * wave index
    vadd.u32.u v2, v2, u6
    st.shared.b32 v1, v2, 0
    wait.ls 0
sync:
    barrier
after_barrier:
    uxori u7, u6, 128           ; the other wave's half
    vshli v3, v0, 2
    vadd.u32.u v3, v3, u7
    ld.shared.b32 v4, v3, 0
    wait.ls 0
    end
"#;

/// Endless loop in four waves.
const SPIN: &str = r#"
.kernel spin
.workgroup 64
.grid 2
spin:
    vaddi.u32 v1, v1, 1
    br spin
"#;

/// Two waves; every lane spills 100 * wave + lane to scratch offset 8, then every lane
/// but lane 2 overwrites it with that value + 1000.
const SCRATCH: &str = r#"
.kernel scr
.workgroup 64
.scratch 16
    uwaveid u5
    vlaneid v0
    umuli u7, u5, 100
    vadd.u32.u v4, v0, u7
    vmovi v8, 0
spill:
    st.scratch.b32 v4, v8, 8
after_spill:
    umovi u9, 0xfffffffb
    exec.set u9
    vaddi.u32 v4, v4, 1000
spill2:
    st.scratch.b32 v4, v8, 8
    wait.vst 0
    end
"#;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn engine_with(src: &str, options: LaunchOptions) -> Engine {
    let p = assemble(src, "t.s", None).unwrap_or_else(|e| panic!("{e}"));
    Engine::new(&p, options).expect("launch")
}

fn engine(src: &str) -> Engine {
    engine_with(src, LaunchOptions::default())
}

/// LOOP reduced to one wave.
fn one_wave_loop() -> Engine {
    engine_with(
        LOOP,
        LaunchOptions {
            grid: Some(1),
            workgroup_lanes: Some(32),
            ..Default::default()
        },
    )
}

fn label(e: &Engine, name: &str) -> u64 {
    *e.machine()
        .program()
        .labels
        .get(name)
        .unwrap_or_else(|| panic!("no label {name}"))
}

fn pcs(e: &Engine) -> Vec<u64> {
    e.machine().waves.iter().map(|w| w.pc).collect()
}

fn states(e: &Engine) -> Vec<WaveState> {
    e.machine().waves.iter().map(|w| w.state).collect()
}

fn global_u32(e: &Engine, addr: u64) -> u32 {
    let mut b = [0u8; 4];
    e.machine()
        .read_space(Space::Global, 0, 0, addr, &mut b)
        .expect("mapped");
    u32::from_le_bytes(b)
}

fn lanes(list: impl IntoIterator<Item = u32>) -> u32 {
    list.into_iter().fold(0, |m, l| m | 1 << l)
}

fn bp(e: &mut Engine, location: &str) -> u32 {
    e.add_breakpoint(location, None, Filters::default(), false)
        .expect("breakpoint")
}

fn breakpoint_of(stop: &StopEvent) -> (u32, u32) {
    match stop.reason {
        StopReason::Breakpoint { id, lanes } => (id, lanes),
        ref other => panic!("expected a breakpoint stop, got {other:?} ({stop:?})"),
    }
}

fn watch_hits(stop: &StopEvent) -> &[WatchHit] {
    match &stop.reason {
        StopReason::Watchpoint(h) => h,
        other => panic!("expected a watchpoint stop, got {other:?} ({stop:?})"),
    }
}

fn finish_all(e: &mut Engine) {
    let stop = e.continue_all();
    assert_eq!(stop.reason, StopReason::Finished, "{stop:?}");
}

// ---------------------------------------------------------------------------------------
// Control
// ---------------------------------------------------------------------------------------

#[test]
fn continue_runs_to_the_end() {
    let mut e = engine(LOOP);
    let stop = e.continue_all();
    assert_eq!(stop.reason, StopReason::Finished);
    assert!(stop.is_terminal());
    assert_eq!(stop.wave, None);
    assert_eq!(stop.instructions, 4 * LOOP_WAVE_INSTRUCTIONS);
    assert!(states(&e).iter().all(|s| *s == WaveState::Exited));
    let out = e.machine().buffer_base("out").unwrap();
    for gid in 0..128u64 {
        let lane = gid % 32;
        assert_eq!(
            global_u32(&e, out + 4 * gid),
            (4 * lane + 3) as u32,
            "gid {gid}"
        );
    }
    // Continuing after the end reports the end again.
    assert_eq!(e.continue_all().reason, StopReason::Finished);
    assert_eq!(
        e.last_stop().map(|s| &s.reason),
        Some(&StopReason::Finished)
    );
}

#[test]
fn stepi_with_scheduler_locking_moves_only_the_selected_wave() {
    let mut e = engine(LOOP);
    assert!(e.scheduler_locking, "scheduler locking is on by default");
    e.select_wave(2).unwrap();
    let stop = e.step(3);
    assert_eq!(stop.reason, StopReason::Step);
    assert_eq!(stop.wave, Some(2));
    assert_eq!(stop.wave_id, Some(2));
    assert_eq!(stop.pc, Some(0x0c));
    assert_eq!(stop.instructions, 3);
    assert_eq!(pcs(&e), vec![0, 0, 0x0c, 0]);
    let executed: Vec<u64> = e.machine().waves.iter().map(|w| w.executed).collect();
    assert_eq!(executed, vec![0, 0, 3, 0]);

    // Many more steps, through the loop: the other waves stay frozen.
    let stop = e.step(10);
    assert_eq!(stop.reason, StopReason::Step);
    assert_eq!(e.machine().waves[2].executed, 13);
    assert_eq!(stop.pc, Some(e.machine().waves[2].pc));
    assert_eq!(pcs(&e)[..2], [0, 0]);
    assert_eq!(pcs(&e)[3], 0);
    assert_eq!(e.machine().waves[2].v[1][0], 2, "two iterations done");

    // Stepping the selected wave past its end stops when it has exited.
    let stop = e.step(100);
    assert!(
        matches!(&stop.reason, StopReason::Blocked(why) if why.to_string().contains("exited"))
            || stop.reason == StopReason::Reached(Reached::Exit),
        "{stop:?}"
    );
    assert!(!stop.is_terminal(), "the other waves can still run");
    assert_eq!(e.machine().waves[2].executed, LOOP_WAVE_INSTRUCTIONS);
    assert_eq!(
        states(&e),
        vec![
            WaveState::Ready,
            WaveState::Ready,
            WaveState::Exited,
            WaveState::Ready
        ]
    );
}

#[test]
fn stepi_without_scheduler_locking_advances_every_ready_wave() {
    let mut e = engine(LOOP);
    e.scheduler_locking = false;
    e.select_wave(1).unwrap();
    let stop = e.step(3);
    assert_eq!(stop.reason, StopReason::Step);
    assert_eq!(stop.wave_id, Some(1));
    assert_eq!(pcs(&e), vec![0x0c; 4]);
    assert_eq!(stop.instructions, 12);

    // A wave that is not ready (at a barrier) does not move; the others do.
    let mut e = engine(BARRIER);
    e.select_wave(0).unwrap();
    assert_eq!(
        e.advance_to_barrier().reason,
        StopReason::Reached(Reached::Barrier)
    );
    let after = label(&e, "after_barrier");
    e.scheduler_locking = false;
    let stop = e.step(1);
    assert_eq!(stop.reason, StopReason::Step);
    assert_eq!(pcs(&e), vec![after, 4]);
}

#[test]
fn step_all_is_the_unlocked_step() {
    let mut e = engine(LOOP);
    assert!(e.scheduler_locking);
    let stop = e.step_all(2);
    assert_eq!(stop.reason, StopReason::Step);
    assert_eq!(pcs(&e), vec![0x08; 4]);
}

#[test]
fn stepi_stops_at_a_breakpoint_on_the_way() {
    let mut e = one_wave_loop();
    let id = bp(&mut e, "loop");
    let stop = e.step(20);
    assert_eq!(breakpoint_of(&stop), (id, u32::MAX));
    assert_eq!(stop.pc, Some(label(&e, "loop")));
    assert_eq!(stop.instructions, 6);
}

#[test]
fn advance_to_a_label() {
    let mut e = engine(LOOP);
    e.select_wave(1).unwrap();
    let after = label(&e, "after");
    let stop = e.advance(after);
    assert_eq!(stop.reason, StopReason::Reached(Reached::Address(after)));
    assert_eq!(stop.wave, Some(1));
    assert_eq!(stop.pc, Some(after));
    let w = &e.machine().waves[1];
    assert_eq!(w.pc, after);
    assert_eq!(w.v[1], [3; 32], "the loop ran three times");
    assert_eq!(w.state, WaveState::Ready);
    // Advancing to the PC the wave stands on needs it to come back there: it never does,
    // so the launch runs to its end.
    let stop = e.advance(after);
    assert_eq!(stop.reason, StopReason::Finished);
}

#[test]
fn advance_to_the_barrier_runs_the_selected_wave_alone() {
    let mut e = engine(BARRIER);
    e.select_wave(1).unwrap();
    let after = label(&e, "after_barrier");
    let stop = e.advance_to_barrier();
    assert_eq!(stop.reason, StopReason::Reached(Reached::Barrier));
    assert_eq!(stop.wave_id, Some(1));
    assert_eq!(stop.pc, Some(after));
    assert_eq!(states(&e), vec![WaveState::Ready, WaveState::AtBarrier]);
    assert_eq!(pcs(&e), vec![0, after]);

    // With the other wave frozen the barrier cannot complete: stepping says so.
    let stop = e.step(1);
    assert!(
        matches!(&stop.reason, StopReason::Blocked(why) if why.to_string().contains("barrier")),
        "{stop:?}"
    );
    assert_eq!(pcs(&e), vec![0, after]);
    assert_eq!(e.advance_to_barrier().reason, stop.reason);

    // Continuing lets the other wave arrive, which releases both.
    finish_all(&mut e);
    let w = &e.machine().waves;
    assert_eq!(w[0].v[4], [11; 32], "wave 0 read wave 1's half");
    assert_eq!(w[1].v[4], [10; 32], "wave 1 read wave 0's half");
}

#[test]
fn finish_runs_the_selected_wave_to_its_exit() {
    let mut e = engine(LOOP);
    e.select_wave(3).unwrap();
    let stop = e.finish_wave();
    assert_eq!(stop.reason, StopReason::Reached(Reached::Exit));
    assert_eq!(stop.wave_id, Some(3));
    assert_eq!(e.machine().waves[3].state, WaveState::Exited);
    assert_eq!(e.machine().waves[3].executed, LOOP_WAVE_INSTRUCTIONS);
    assert_eq!(pcs(&e)[..3], [0, 0, 0]);
    let out = e.machine().buffer_base("out").unwrap();
    assert_eq!(global_u32(&e, out + 4 * 96), 3, "wave 3 lane 0 stored");
    assert_eq!(global_u32(&e, out), 0, "wave 0 did not run");
    // Finishing an exited wave reports it again without running anything.
    let stop = e.finish_wave();
    assert_eq!(stop.reason, StopReason::Reached(Reached::Exit));
    assert_eq!(stop.instructions, LOOP_WAVE_INSTRUCTIONS);
    finish_all(&mut e);
}

#[test]
fn finish_stops_at_a_breakpoint_of_the_selected_wave() {
    let mut e = engine(LOOP);
    let id = e
        .add_breakpoint("after", None, Filters::default(), false)
        .unwrap();
    e.select_wave(2).unwrap();
    let stop = e.finish_wave();
    assert_eq!(breakpoint_of(&stop).0, id);
    assert_eq!(stop.wave_id, Some(2));
    assert_eq!(pcs(&e), vec![0, 0, label(&e, "after"), 0]);
}

#[test]
fn restart_rewinds_the_launch_and_keeps_breakpoints_and_watchpoints() {
    let mut e = engine(LOOP);
    let filters = Filters {
        wave: Some(2),
        ..Default::default()
    };
    let id = e.add_breakpoint("loop+8", None, filters, false).unwrap();
    let out = e.machine().buffer_base("out").unwrap();
    let wid = e
        .add_watchpoint(WatchKind::Write, Scope::Global, out, 4, None)
        .unwrap();
    let first = e.continue_all();
    assert_eq!(breakpoint_of(&first).0, id);
    assert_eq!(first.wave_id, Some(2));
    let w = e.continue_all();
    assert_eq!(w.wave_id, Some(2), "the breakpoint again, next iteration");
    // Run until the watchpoint fires (wave 0 writes out[0]), so memory has changed.
    loop {
        let s = e.continue_all();
        if matches!(s.reason, StopReason::Watchpoint(_)) {
            break;
        }
        assert!(!s.is_terminal(), "{s:?}");
    }
    assert_eq!(global_u32(&e, out), 3);

    e.select_wave(3).unwrap();
    e.restart();
    assert_eq!(pcs(&e), vec![0; 4]);
    assert_eq!(states(&e), vec![WaveState::Ready; 4]);
    assert!(e.machine().waves.iter().all(|w| w.executed == 0));
    assert_eq!(e.machine().stats.wave_instructions, 0);
    assert_eq!(global_u32(&e, out), 0, "memory is rewound");
    assert_eq!(e.selected_wave, 0);
    assert_eq!(e.last_stop(), None);
    assert_eq!(e.breakpoints().len(), 1);
    assert_eq!(e.watchpoints().len(), 1);
    assert_eq!(e.watchpoints()[0].id, wid);

    let again = e.continue_all();
    assert_eq!(again, first, "the same stop as before the restart");
}

#[test]
fn interrupt_from_another_thread_stops_an_endless_loop() {
    let mut e = engine_with(
        SPIN,
        LaunchOptions {
            max_instructions: None,
            ..Default::default()
        },
    );
    for round in 0..2 {
        let handle = e.interrupt_handle();
        let done = Arc::new(AtomicBool::new(false));
        let done2 = done.clone();
        let t = std::thread::spawn(move || {
            // One request, after the run has had time to start (a request made before the
            // run starts would stop it at once, with no progress to check).
            std::thread::sleep(Duration::from_millis(50));
            handle.interrupt();
            done2.store(true, Ordering::Relaxed);
        });
        let before = e.machine().stats.wave_instructions;
        let stop = e.continue_all();
        t.join().unwrap();
        assert!(done.load(Ordering::Relaxed));
        assert_eq!(stop.reason, StopReason::Interrupted, "round {round}");
        assert!(!stop.is_terminal());
        assert!(stop.wave.is_some());
        assert_eq!(stop.pc, Some(e.machine().waves[stop.wave.unwrap()].pc));
        assert!(stop.instructions > before, "the run made progress");
        assert!(states(&e).iter().all(|s| *s == WaveState::Ready));
    }
}

#[test]
fn interrupt_stops_a_locked_step_of_an_endless_loop() {
    let mut e = engine_with(
        SPIN,
        LaunchOptions {
            max_instructions: None,
            ..Default::default()
        },
    );
    e.select_wave(3).unwrap();
    let handle = e.interrupt_handle();
    let done = Arc::new(AtomicBool::new(false));
    let done2 = done.clone();
    let t = std::thread::spawn(move || {
        while !done2.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(20));
            handle.interrupt();
        }
    });
    let stop = e.step(u64::MAX);
    done.store(true, Ordering::Relaxed);
    t.join().unwrap();
    assert_eq!(stop.reason, StopReason::Interrupted);
    assert_eq!(stop.wave_id, Some(3));
    assert_eq!(pcs(&e)[..3], [0, 0, 0], "other waves stayed frozen");
}

// ---------------------------------------------------------------------------------------
// Breakpoints
// ---------------------------------------------------------------------------------------

#[test]
fn breakpoints_at_labels_addresses_and_offsets() {
    for (location, expect) in [
        ("loop", 0x24),
        ("loop+8", 0x2c),
        ("loop + 16", 0x34),
        ("0x40", 0x40),
        ("*0x3c", 0x3c),
        ("64", 0x40),
        ("after+0x8", 0x48),
    ] {
        let mut e = one_wave_loop();
        let id = e
            .add_breakpoint(location, None, Filters::default(), false)
            .unwrap();
        assert_eq!(e.breakpoints()[0].addr, expect, "{location}");
        assert_eq!(e.breakpoints()[0].location, location.trim());
        let stop = e.continue_all();
        assert_eq!(breakpoint_of(&stop), (id, u32::MAX), "{location}");
        assert_eq!(stop.pc, Some(expect));
        assert_eq!(
            e.machine().waves[0].pc,
            expect,
            "stopped before executing it"
        );
    }
    let e = one_wave_loop();
    assert_eq!(e.resolve_location("after").unwrap(), 0x40);
}

#[test]
fn bad_breakpoint_locations_are_rejected() {
    let mut e = one_wave_loop();
    let no_label = e
        .add_breakpoint("nowhere", None, Filters::default(), false)
        .unwrap_err()
        .to_string();
    assert!(no_label.contains("no label `nowhere`"), "{no_label}");
    assert!(no_label.contains("loop"), "lists the labels: {no_label}");
    // 0x10 is the second word of the 64-bit vmuli at 0x0c.
    let inside = e
        .add_breakpoint("0x10", None, Filters::default(), false)
        .unwrap_err()
        .to_string();
    assert!(
        inside.contains("not the start of an instruction"),
        "{inside}"
    );
    let past = e
        .add_breakpoint("0x10000", None, Filters::default(), false)
        .unwrap_err()
        .to_string();
    assert!(past.contains("not the start of an instruction"), "{past}");
    let cond = e
        .add_breakpoint("loop", Some("v3 >"), Filters::default(), false)
        .unwrap_err()
        .to_string();
    assert!(cond.contains("bad condition"), "{cond}");
    let lane = e
        .add_breakpoint(
            "loop",
            None,
            Filters {
                lane: Some(32),
                ..Default::default()
            },
            false,
        )
        .unwrap_err()
        .to_string();
    assert!(lane.contains("lane 32 out of range"), "{lane}");
    assert!(e.breakpoints().is_empty());
}

#[test]
fn per_lane_condition_reports_exactly_the_satisfying_lanes() {
    let mut e = one_wave_loop();
    let id = e
        .add_breakpoint("loop", Some("v3 > 100"), Filters::default(), false)
        .unwrap();
    // Iteration k (0-based) arrives with v3 = 4 * lane + k.
    let s1 = e.continue_all();
    assert_eq!(breakpoint_of(&s1), (id, lanes(26..32)));
    assert_eq!(e.machine().waves[0].v[1][0], 0);
    // The lane selection follows the stop to a lane that satisfied the condition.
    assert_eq!(e.selected_lane, 26);
    let s2 = e.continue_all();
    assert_eq!(breakpoint_of(&s2), (id, lanes(25..32)));
    assert_eq!(e.machine().waves[0].v[1][0], 1);
    let s3 = e.continue_all();
    assert_eq!(breakpoint_of(&s3), (id, lanes(25..32)));
    assert_eq!(e.machine().waves[0].v[1][0], 2);
    finish_all(&mut e);
    assert_eq!(e.breakpoints()[0].hits, 3);
}

#[test]
fn per_lane_condition_ignores_inactive_lanes() {
    let mut e = engine(COND);
    // v3 = 4 * lane: lanes 26-31 exceed 100, but 28-31 are inactive.
    let id = e
        .add_breakpoint("here", Some("v3 > 100"), Filters::default(), false)
        .unwrap();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop), (id, lanes([26, 27])));
    assert_eq!(e.machine().waves[0].exec, 0x0fff_ffff);
    finish_all(&mut e);

    // Only inactive lanes satisfy it: no stop.
    let mut e = engine(COND);
    e.add_breakpoint("here", Some("v3 >= 112"), Filters::default(), false)
        .unwrap();
    finish_all(&mut e);
    assert_eq!(e.breakpoints()[0].hits, 0);

    // `lane` and s32() in conditions.
    let mut e = engine(COND);
    let id = e
        .add_breakpoint(
            "here",
            Some("lane == 3 || lane == 30 || s32(v3 - 41) < 0 && lane > 8"),
            Filters::default(),
            false,
        )
        .unwrap();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop), (id, lanes([3, 9, 10])));

    // A condition that does not depend on the lane stops with the active lanes.
    let mut e = engine(COND);
    let id = e
        .add_breakpoint("here", Some("u7 != 0"), Filters::default(), false)
        .unwrap();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop), (id, 0x0fff_ffff));
}

#[test]
fn condition_errors_stop_with_the_message() {
    let mut e = engine(COND);
    let id = e
        .add_breakpoint(
            "here",
            Some("v3 / (lane - lane)"),
            Filters::default(),
            false,
        )
        .unwrap();
    let stop = e.continue_all();
    match &stop.reason {
        StopReason::ConditionError { id: got, message } => {
            assert_eq!(*got, id);
            assert!(message.contains("division by zero"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(stop.pc, Some(label(&e, "here")));
    // Fixing the condition and starting again stops on it (resuming in place steps over the
    // breakpoint at the current PC, as gdb does).
    e.set_condition(id, Some("lane == 1")).unwrap();
    e.restart();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop), (id, 0b10));
    e.set_condition(id, None).unwrap();
    assert!(e.breakpoints()[0].condition.is_none());
    assert!(e.set_condition(99, None).is_err());
    assert!(e.set_condition(id, Some("((")).is_err());
}

#[test]
fn wave_filter_stops_only_that_wave_once_per_iteration() {
    let mut e = engine(LOOP);
    let id = e
        .add_breakpoint(
            "loop",
            None,
            Filters {
                wave: Some(2),
                ..Default::default()
            },
            false,
        )
        .unwrap();
    for k in 0..3 {
        let stop = e.continue_all();
        assert_eq!(breakpoint_of(&stop), (id, u32::MAX));
        assert_eq!(stop.wave_id, Some(2));
        assert_eq!(stop.wave, Some(2));
        assert_eq!(e.selected_wave, 2, "the stop selects its wave");
        assert_eq!(e.machine().waves[2].v[1][0], k, "iteration {k}");
    }
    finish_all(&mut e);
    assert_eq!(e.breakpoints()[0].hits, 3);
}

#[test]
fn workgroup_filter_stops_only_its_waves() {
    let mut e = engine(LOOP);
    let id = e
        .add_breakpoint(
            "after",
            None,
            Filters {
                workgroup: Some(1),
                ..Default::default()
            },
            false,
        )
        .unwrap();
    let mut seen = Vec::new();
    loop {
        let stop = e.continue_all();
        if stop.reason == StopReason::Finished {
            break;
        }
        assert_eq!(breakpoint_of(&stop).0, id);
        seen.push(stop.wave_id.unwrap());
    }
    assert_eq!(seen, vec![2, 3]);
}

#[test]
fn lane_filter_evaluates_the_condition_on_that_lane_only() {
    let mut e = one_wave_loop();
    let id = e
        .add_breakpoint(
            "loop",
            Some("v3 > 100"),
            Filters {
                lane: Some(30),
                ..Default::default()
            },
            false,
        )
        .unwrap();
    e.select_lane(4).unwrap();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop), (id, 1 << 30));
    // A lane filter does not move the lane selection.
    assert_eq!(e.selected_lane, 4);

    let mut e = one_wave_loop();
    e.add_breakpoint(
        "loop",
        Some("v3 > 100"),
        Filters {
            lane: Some(5),
            ..Default::default()
        },
        false,
    )
    .unwrap();
    finish_all(&mut e);

    // An inactive lane never stops.
    let mut e = engine(COND);
    e.add_breakpoint(
        "here",
        None,
        Filters {
            lane: Some(30),
            ..Default::default()
        },
        false,
    )
    .unwrap();
    finish_all(&mut e);
    let mut e = engine(COND);
    let id = e
        .add_breakpoint(
            "here",
            None,
            Filters {
                lane: Some(27),
                ..Default::default()
            },
            false,
        )
        .unwrap();
    assert_eq!(breakpoint_of(&e.continue_all()), (id, 1 << 27));
}

#[test]
fn filters_combine() {
    let mut e = engine(LOOP);
    let id = e
        .add_breakpoint(
            "loop",
            Some("v1 == 1"),
            Filters {
                wave: Some(3),
                workgroup: Some(1),
                lane: Some(7),
            },
            false,
        )
        .unwrap();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop), (id, 1 << 7));
    assert_eq!(stop.wave_id, Some(3));
    assert_eq!(e.machine().waves[3].v[1][7], 1);
    finish_all(&mut e);

    // Contradictory filters never stop.
    let mut e = engine(LOOP);
    e.add_breakpoint(
        "loop",
        None,
        Filters {
            wave: Some(0),
            workgroup: Some(1),
            lane: None,
        },
        false,
    )
    .unwrap();
    finish_all(&mut e);
}

#[test]
fn ignore_counts_skip_hits_and_hit_counts_include_them() {
    let mut e = one_wave_loop();
    let id = bp(&mut e, "loop");
    e.set_ignore(id, 2).unwrap();
    assert_eq!(e.breakpoints()[0].ignore, 2);
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop).0, id);
    assert_eq!(e.machine().waves[0].v[1][0], 2, "third crossing");
    assert_eq!(e.breakpoints()[0].hits, 3);
    assert_eq!(e.breakpoints()[0].ignore, 0);
    finish_all(&mut e);
    assert!(e.set_ignore(42, 1).is_err());
}

#[test]
fn temporary_breakpoint_is_deleted_when_hit() {
    let mut e = one_wave_loop();
    let id = e
        .add_breakpoint("loop", None, Filters::default(), true)
        .unwrap();
    assert!(e.breakpoints()[0].temporary);
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop).0, id);
    assert!(e.breakpoints().is_empty());
    finish_all(&mut e);
    assert!(e.delete(Some(id)).is_err(), "already gone");
}

#[test]
fn temporary_breakpoint_with_a_filter_survives_other_waves() {
    let mut e = engine(LOOP);
    let id = e
        .add_breakpoint(
            "after",
            None,
            Filters {
                wave: Some(1),
                ..Default::default()
            },
            true,
        )
        .unwrap();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop).0, id);
    assert_eq!(stop.wave_id, Some(1));
    assert!(e.breakpoints().is_empty());
    finish_all(&mut e);
}

#[test]
fn disable_enable_and_delete() {
    let mut e = one_wave_loop();
    let a = bp(&mut e, "loop");
    let b = bp(&mut e, "after");
    assert_ne!(a, b);
    e.set_enabled(a, false).unwrap();
    assert!(!e.breakpoints()[0].enabled);
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop).0, b, "the disabled one is skipped");
    finish_all(&mut e);

    e.restart();
    e.set_enabled(a, true).unwrap();
    assert_eq!(breakpoint_of(&e.continue_all()).0, a);
    e.delete(Some(a)).unwrap();
    assert_eq!(breakpoint_of(&e.continue_all()).0, b);
    finish_all(&mut e);

    e.restart();
    let w = e
        .add_watchpoint(
            WatchKind::Write,
            Scope::Global,
            e.machine().buffer_base("out").unwrap(),
            4,
            None,
        )
        .unwrap();
    e.set_enabled(w, false).unwrap();
    assert!(!e.watchpoints()[0].enabled);
    assert_eq!(breakpoint_of(&e.continue_all()).0, b);
    e.set_enabled(w, true).unwrap();
    assert!(matches!(e.continue_all().reason, StopReason::Watchpoint(_)));
    // Delete everything.
    e.restart();
    e.delete(None).unwrap();
    assert!(e.breakpoints().is_empty() && e.watchpoints().is_empty());
    finish_all(&mut e);
    assert!(e.set_enabled(a, true).is_err());
    assert!(e.delete(Some(a)).is_err());
}

#[test]
fn continuing_from_a_breakpoint_does_not_rehit_it_but_the_next_iteration_does() {
    let mut e = one_wave_loop();
    let id = bp(&mut e, "loop");
    let first = e.continue_all();
    assert_eq!(breakpoint_of(&first).0, id);
    assert_eq!(first.instructions, 6);
    let second = e.continue_all();
    assert_eq!(breakpoint_of(&second).0, id);
    assert_eq!(second.instructions, 10, "one full iteration ran");
    assert_eq!(e.machine().waves[0].v[1][0], 1);
    // Stepping off the breakpoint also steps over it.
    let step = e.step(1);
    assert_eq!(step.reason, StopReason::Step);
    assert_eq!(step.pc, Some(label(&e, "loop") + 8));
    let third = e.continue_all();
    assert_eq!(breakpoint_of(&third).0, id);
    assert_eq!(third.instructions, 14);
    finish_all(&mut e);
    assert_eq!(e.breakpoints()[0].hits, 3);
}

#[test]
fn another_wave_standing_on_the_breakpoint_still_hits_it() {
    let mut e = engine(LOOP);
    let id = bp(&mut e, "after");
    let mut waves = Vec::new();
    loop {
        let stop = e.continue_all();
        if stop.reason == StopReason::Finished {
            break;
        }
        assert_eq!(breakpoint_of(&stop).0, id);
        waves.push(stop.wave_id.unwrap());
    }
    assert_eq!(waves, vec![0, 1, 2, 3]);
}

#[test]
fn brk_instruction_stops_and_continuing_goes_on() {
    let mut e = engine(BRK);
    let after = label(&e, "after_brk");
    let stop = e.continue_all();
    assert_eq!(stop.reason, StopReason::BreakInstruction);
    assert!(!stop.is_terminal());
    assert_eq!(stop.wave, Some(0));
    assert_eq!(stop.pc, Some(after), "the PC is past the brk");
    assert_eq!(e.machine().waves[0].pc, after);
    assert_eq!(e.machine().waves[0].v[1], [5; 32]);
    assert_eq!(e.machine().waves[0].state, WaveState::Ready);
    finish_all(&mut e);
    assert_eq!(e.machine().waves[0].v[1], [6; 32]);

    // Stepping onto and over it.
    let mut e = engine(BRK);
    assert_eq!(e.step(1).reason, StopReason::Step);
    let stop = e.step(1);
    assert_eq!(stop.reason, StopReason::BreakInstruction);
    assert_eq!(stop.pc, Some(after));
    assert_eq!(e.step(1).reason, StopReason::Step);
    assert_eq!(e.machine().waves[0].v[1], [6; 32]);
}

// ---------------------------------------------------------------------------------------
// Watchpoints
// ---------------------------------------------------------------------------------------

#[test]
fn global_write_watchpoint_reports_wave_lanes_pc_and_values() {
    let mut e = engine(WRITERS);
    let out = e.machine().buffer_base("out").unwrap();
    // out[37]: gid 37 is wave 1, lane 5, which stores 100 * 1 + 5.
    let id = e
        .add_watchpoint(WatchKind::Write, Scope::Global, out + 4 * 37, 4, None)
        .unwrap();
    let gstore = label(&e, "gstore");
    let stop = e.continue_all();
    let hits = watch_hits(&stop);
    assert_eq!(hits.len(), 1);
    let h = &hits[0];
    assert_eq!(h.id, id);
    assert_eq!(h.kind, WatchKind::Write);
    assert_eq!(h.space, Space::Global);
    assert_eq!((h.addr, h.len), (out + 4 * 37, 4));
    assert_eq!(h.lanes, 1 << 5);
    assert_eq!(h.pc, gstore);
    assert_eq!(h.access, AccessKind::Write);
    assert_eq!(h.old, 0u32.to_le_bytes());
    assert_eq!(h.new, 105u32.to_le_bytes());
    assert_eq!(stop.wave_id, Some(1));
    // Precise: the wave is right after the store, nothing else ran after it.
    assert_eq!(stop.pc, Some(label(&e, "after_gstore")));
    assert_eq!(e.machine().waves[1].pc, label(&e, "after_gstore"));
    assert_eq!(stop.instructions, e.machine().stats.wave_instructions);
    assert_eq!(global_u32(&e, out + 4 * 37), 105);
    assert_eq!(global_u32(&e, out + 4 * 38), 106, "the whole store is done");
    assert_eq!(e.selected_wave, 1);
    finish_all(&mut e);
    assert_eq!(e.watchpoints()[0].hits, 1);
}

#[test]
fn watchpoint_on_a_byte_range_inside_a_word() {
    let mut e = engine(WRITERS);
    let out = e.machine().buffer_base("out").unwrap();
    // Bytes 2-4 of out[36..38] span lanes 4 and 5 of wave 1.
    e.add_watchpoint(WatchKind::Write, Scope::Global, out + 4 * 36 + 2, 3, None)
        .unwrap();
    let stop = e.continue_all();
    let h = &watch_hits(&stop)[0];
    assert_eq!(h.lanes, lanes([4, 5]));
    assert_eq!(h.old, vec![0, 0, 0]);
    // out[36] = 104 = 0x68, out[37] = 105 = 0x69: bytes 2, 3 of 104 and byte 0 of 105.
    assert_eq!(h.new, vec![0, 0, 105]);
}

/// Values stored to shared:0 by each wave (lanes 0, 4, ..., 28; the highest wins).
fn shared0_after(wave: u32) -> u32 {
    100 * wave + 28
}

#[test]
fn shared_watchpoint_of_one_workgroup_written_by_several_waves() {
    let mut e = engine(WRITERS);
    let id = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(Some(1)), 0, 4, None)
        .unwrap();
    let (store, after) = (label(&e, "store"), label(&e, "after_store"));
    let writers = lanes((0..32).step_by(4));

    let s = e.continue_all();
    let h = &watch_hits(&s)[0];
    assert_eq!(s.wave_id, Some(2));
    assert_eq!(e.machine().waves[2].workgroup, 1);
    assert_eq!(
        (h.id, h.space, h.lanes, h.pc),
        (id, Space::Shared, writers, store)
    );
    assert_eq!(h.old, 0u32.to_le_bytes());
    assert_eq!(h.new, shared0_after(2).to_le_bytes());
    assert_eq!(e.machine().waves[2].pc, after);
    // Workgroup 0 wrote its own shared:0 before, without triggering.
    let mut b = [0u8; 4];
    e.machine()
        .read_space(Space::Shared, 0, 0, 0, &mut b)
        .unwrap();
    assert_eq!(u32::from_le_bytes(b), shared0_after(1));

    let s = e.continue_all();
    let h = &watch_hits(&s)[0];
    assert_eq!(s.wave_id, Some(3));
    assert_eq!(h.lanes, writers);
    assert_eq!(h.old, shared0_after(2).to_le_bytes());
    assert_eq!(h.new, shared0_after(3).to_le_bytes());
    assert_eq!(e.machine().waves[3].pc, after);
    finish_all(&mut e);
    assert_eq!(e.watchpoints()[0].hits, 2);
}

#[test]
fn shared_watchpoint_of_every_workgroup() {
    let mut e = engine(WRITERS);
    let id = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(None), 4, 4, None)
        .unwrap();
    let store = label(&e, "store");
    let writers = lanes((1..32).step_by(4));
    let mut seen = Vec::new();
    loop {
        let s = e.continue_all();
        if s.reason == StopReason::Finished {
            break;
        }
        let h = &watch_hits(&s)[0];
        let wave = s.wave_id.unwrap();
        assert_eq!((h.id, h.lanes, h.pc), (id, writers, store));
        // shared:4 holds the value of lane 29 (the highest of 1, 5, ..., 29).
        let before = if wave.is_multiple_of(2) {
            0
        } else {
            100 * (wave - 1) + 29
        };
        assert_eq!(h.old, before.to_le_bytes(), "wave {wave}");
        assert_eq!(h.new, (100 * wave + 29).to_le_bytes(), "wave {wave}");
        seen.push(wave);
    }
    assert_eq!(seen, vec![0, 1, 2, 3]);
}

#[test]
fn scratch_watchpoint_covers_one_lane_of_one_wave() {
    let mut e = engine(SCRATCH);
    let id = e
        .add_watchpoint(
            WatchKind::Write,
            Scope::Scratch { wave: 1, lane: 2 },
            8,
            4,
            None,
        )
        .unwrap();
    let s = e.continue_all();
    let h = &watch_hits(&s)[0];
    assert_eq!(h.id, id);
    assert_eq!(s.wave_id, Some(1));
    assert_eq!(h.space, Space::Scratch);
    assert_eq!(h.lanes, 1 << 2, "only the watched lane is reported");
    assert_eq!(h.pc, label(&e, "spill"));
    assert_eq!(h.old, 0u32.to_le_bytes());
    assert_eq!(h.new, 102u32.to_le_bytes());
    assert_eq!(e.machine().waves[1].pc, label(&e, "after_spill"));
    // Wave 0 wrote the same offset of its lanes' scratch first without triggering.
    assert_eq!(e.machine().waves[0].state, WaveState::Ready);
    let mut b = [0u8; 4];
    e.machine()
        .read_space(Space::Scratch, 0, 2, 8, &mut b)
        .unwrap();
    assert_eq!(u32::from_le_bytes(b), 2);
    // The second store skips lane 2; the other lanes write offset 8 of their own scratch.
    finish_all(&mut e);
    assert_eq!(e.watchpoints()[0].hits, 1);
    e.machine()
        .read_space(Space::Scratch, 1, 2, 8, &mut b)
        .unwrap();
    assert_eq!(u32::from_le_bytes(b), 102);
    e.machine()
        .read_space(Space::Scratch, 1, 3, 8, &mut b)
        .unwrap();
    assert_eq!(u32::from_le_bytes(b), 1103);
}

#[test]
fn scratch_watchpoint_bad_targets() {
    let mut e = engine(SCRATCH);
    let no_wave = e
        .add_watchpoint(
            WatchKind::Write,
            Scope::Scratch { wave: 7, lane: 0 },
            0,
            4,
            None,
        )
        .unwrap_err()
        .to_string();
    assert!(no_wave.contains("no wave 7"), "{no_wave}");
    let outside = e
        .add_watchpoint(
            WatchKind::Write,
            Scope::Scratch { wave: 0, lane: 0 },
            14,
            4,
            None,
        )
        .unwrap_err()
        .to_string();
    assert!(outside.contains("outside the 16-byte window"), "{outside}");
    let shared = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(Some(0)), 0, 4, None)
        .unwrap_err()
        .to_string();
    assert!(shared.contains("outside the 0-byte window"), "{shared}");
    let group = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(Some(3)), 0, 4, None)
        .unwrap_err()
        .to_string();
    assert!(
        group.contains("workgroup 3 is not in the grid (0-0)"),
        "{group}"
    );
    let unmapped = e
        .add_watchpoint(WatchKind::Write, Scope::Global, 0x10, 4, None)
        .unwrap_err()
        .to_string();
    assert!(unmapped.contains("not allocated"), "{unmapped}");
    let empty = e
        .add_watchpoint(WatchKind::Write, Scope::Global, 0x10, 0, None)
        .unwrap_err()
        .to_string();
    assert!(empty.contains("1 byte to 1 MiB"), "{empty}");
    assert!(e.watchpoints().is_empty());
}

#[test]
fn atomics_count_as_read_and_write() {
    for kind in [WatchKind::Read, WatchKind::Write, WatchKind::Access] {
        let mut e = engine(ATOMIC);
        let counter = e.machine().buffer_base("counter").unwrap();
        let id = e
            .add_watchpoint(kind, Scope::Global, counter, 4, None)
            .unwrap();
        let (add, load) = (label(&e, "add"), label(&e, "load"));
        let mut seen = Vec::new();
        loop {
            let s = e.continue_all();
            if s.reason == StopReason::Finished {
                break;
            }
            let h = &watch_hits(&s)[0];
            assert_eq!(h.id, id);
            assert_eq!(h.kind, kind);
            assert_eq!(h.lanes, u32::MAX, "every lane touched it");
            if h.pc == add {
                assert_eq!(h.access, AccessKind::ReadWrite);
                let before = if s.wave_id == Some(0) { 0u32 } else { 32 };
                assert_eq!(h.old, before.to_le_bytes(), "32 lanes each add 1");
                assert_eq!(h.new, (before + 32).to_le_bytes());
                assert_eq!(s.pc, Some(label(&e, "after_add")));
            } else {
                assert_eq!(h.pc, load);
                assert_eq!(h.access, AccessKind::Read);
                assert_eq!(h.old, h.new);
                assert_eq!(s.pc, Some(label(&e, "after_load")));
            }
            seen.push((s.wave_id.unwrap(), h.pc));
        }
        let expected = match kind {
            WatchKind::Write => vec![(0, add), (1, add)],
            WatchKind::Read | WatchKind::Access => {
                vec![(0, add), (0, load), (1, add), (1, load)]
            }
        };
        assert_eq!(seen, expected, "{kind:?}");
        assert_eq!(global_u32(&e, counter), 64);
    }
}

#[test]
fn read_watchpoint_ignores_plain_stores() {
    let mut e = engine(WRITERS);
    let out = e.machine().buffer_base("out").unwrap();
    e.add_watchpoint(WatchKind::Read, Scope::Global, out, 512, None)
        .unwrap();
    e.add_watchpoint(WatchKind::Read, Scope::Shared(None), 0, 16, None)
        .unwrap();
    finish_all(&mut e);
    assert!(e.watchpoints().iter().all(|w| w.hits == 0));
}

#[test]
fn watch_condition_filters_hits() {
    let mut e = engine(ATOMIC);
    let counter = e.machine().buffer_base("counter").unwrap();
    let cond = format!("global:{counter:#x} >= 64");
    let id = e
        .add_watchpoint(WatchKind::Write, Scope::Global, counter, 4, Some(&cond))
        .unwrap();
    let s = e.continue_all();
    let h = &watch_hits(&s)[0];
    assert_eq!(h.id, id);
    assert_eq!(s.wave_id, Some(1), "wave 0's add leaves 32");
    assert_eq!(h.new, 64u32.to_le_bytes());
    finish_all(&mut e);
    assert_eq!(e.watchpoints()[0].hits, 1);

    // A condition on the accessing wave.
    let mut e = engine(WRITERS);
    let id = e
        .add_watchpoint(
            WatchKind::Write,
            Scope::Shared(None),
            0,
            4,
            Some("wave == 3"),
        )
        .unwrap();
    let s = e.continue_all();
    assert_eq!(watch_hits(&s)[0].id, id);
    assert_eq!(s.wave_id, Some(3));
    finish_all(&mut e);

    // A bad condition is rejected.
    let mut e = engine(WRITERS);
    let err = e
        .add_watchpoint(WatchKind::Write, Scope::Global, counter, 4, Some("1 +"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("bad condition"), "{err}");
}

#[test]
fn sixty_four_watchpoints_at_once_and_one_never_hit() {
    let mut e = engine(LOOP);
    let out = e.machine().buffer_base("out").unwrap();
    let ids: Vec<u32> = (0..64)
        .map(|i| {
            e.add_watchpoint(WatchKind::Write, Scope::Global, out + 4 * i, 4, None)
                .unwrap()
        })
        .collect();
    let never = e
        .add_watchpoint(WatchKind::Access, Scope::Global, out + 4 * 200, 4, None)
        .unwrap();
    let store = label(&e, "store");
    for wave in 0..2u32 {
        let s = e.continue_all();
        assert_eq!(s.wave_id, Some(wave));
        let hits = watch_hits(&s);
        assert_eq!(hits.len(), 32, "one store triggers 32 watchpoints");
        for (lane, h) in hits.iter().enumerate() {
            let i = 32 * wave as usize + lane;
            assert_eq!(h.id, ids[i]);
            assert_eq!(h.lanes, 1 << lane);
            assert_eq!(h.pc, store);
            assert_eq!(h.old, 0u32.to_le_bytes());
            assert_eq!(h.new, (4 * lane as u32 + 3).to_le_bytes());
        }
    }
    finish_all(&mut e);
    let w = e.watchpoints();
    assert_eq!(w.len(), 65);
    assert!(w[..64].iter().all(|w| w.hits == 1));
    assert_eq!(w[64].id, never);
    assert_eq!(w[64].hits, 0);
}

#[test]
fn watchpoint_fires_while_stepping() {
    let mut e = engine(WRITERS);
    e.add_watchpoint(WatchKind::Write, Scope::Shared(Some(0)), 0, 4, None)
        .unwrap();
    e.select_wave(1).unwrap();
    let s = e.step(100);
    assert_eq!(s.wave_id, Some(1));
    assert_eq!(watch_hits(&s)[0].new, shared0_after(1).to_le_bytes());
    assert_eq!(pcs(&e)[0], 0, "wave 0 stayed frozen");

    let mut e = engine(WRITERS);
    e.add_watchpoint(WatchKind::Write, Scope::Shared(Some(1)), 0, 4, None)
        .unwrap();
    e.scheduler_locking = false;
    let s = e.step(100);
    assert_eq!(s.wave_id, Some(2));
    assert_eq!(watch_hits(&s)[0].old, 0u32.to_le_bytes());
}

#[test]
fn breakpoint_and_watchpoint_numbers_are_shared() {
    let mut e = engine(WRITERS);
    let a = bp(&mut e, "store");
    let b = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(None), 0, 4, None)
        .unwrap();
    let c = bp(&mut e, "gstore");
    assert_eq!((a, b, c), (1, 2, 3));
    e.delete(Some(b)).unwrap();
    assert!(e.watchpoints().is_empty());
    assert_eq!(bp(&mut e, "store"), 4);
}

// ---------------------------------------------------------------------------------------
// Faults, deadlocks, blocked runs
// ---------------------------------------------------------------------------------------

#[test]
fn fault_stops_with_wave_lanes_and_pc() {
    let mut e = engine(FAULT);
    let bad = label(&e, "bad");
    let stop = e.continue_all();
    assert!(stop.is_terminal());
    let StopReason::Fault(f) = &stop.reason else {
        panic!("{stop:?}")
    };
    assert_eq!(
        f.kind,
        FaultKind::OutOfWindow {
            space: Space::Shared,
            size: 64
        }
    );
    assert_eq!((f.wave, f.workgroup), (0, 0));
    assert_eq!(f.lanes, lanes(16..32));
    assert_eq!(f.pc, bad);
    assert_eq!(f.addr, Some(64));
    assert_eq!(f.len, 4);
    assert_eq!(e.machine().waves[0].state, WaveState::Faulted);
    // A faulting instruction changes nothing.
    let mut b = [0u8; 64];
    e.machine()
        .read_space(Space::Shared, 0, 0, 0, &mut b)
        .unwrap();
    assert_eq!(b, [0; 64]);

    // Stepping into the fault reports the same fault, with the wave and its PC.
    let mut e = engine(FAULT);
    let stop = e.step(10);
    assert!(
        matches!(&stop.reason, StopReason::Fault(f) if f.pc == bad && f.lanes == lanes(16..32))
    );
    assert_eq!(stop.wave, Some(0));
    assert_eq!(stop.wave_id, Some(0));
    assert_eq!(stop.pc, Some(bad));
}

/// `continue` into a fault: the stop event names no wave (`wave`, `wave_id` and `pc` are
/// `None`) because the faulted wave is looked up with `wave_index`, which skips faulted
/// waves; the stop does not select the faulting wave either.
#[test]
fn fault_reached_by_continue_names_the_wave() {
    let mut e = engine(FAULT);
    let bad = label(&e, "bad");
    let stop = e.continue_all();
    assert!(matches!(stop.reason, StopReason::Fault(_)), "{stop:?}");
    assert_eq!(stop.wave, Some(0));
    assert_eq!(stop.wave_id, Some(0));
    assert_eq!(stop.pc, Some(bad));
}

#[test]
fn trap_faults_and_stepping_into_it_reports_it() {
    let mut e = engine(".kernel t\n    nop\ntrap_here:\n    trap 7\n    end\n");
    let at = label(&e, "trap_here");
    assert_eq!(e.step(1).reason, StopReason::Step);
    let stop = e.step(1);
    let StopReason::Fault(f) = &stop.reason else {
        panic!("{stop:?}")
    };
    assert_eq!(f.kind, FaultKind::Trap { code: 7 });
    assert_eq!(f.pc, at);
    assert_eq!(stop.wave, Some(0));
}

#[test]
fn budget_exhaustion_is_a_fault() {
    let mut e = engine_with(
        SPIN,
        LaunchOptions {
            max_instructions: Some(1000),
            ..Default::default()
        },
    );
    let stop = e.continue_all();
    let StopReason::Fault(f) = &stop.reason else {
        panic!("{stop:?}")
    };
    assert_eq!(f.kind, FaultKind::BudgetExhausted { limit: 1000 });
    assert_eq!(stop.instructions, 1000);
}

#[test]
fn deadlocked_barrier_is_reported_as_such() {
    let mut e = engine(DEADLOCK);
    let wait_here = label(&e, "wait_here");
    let stop = e.continue_all();
    assert!(stop.is_terminal());
    let StopReason::Deadlock(d) = &stop.reason else {
        panic!("{stop:?}")
    };
    assert_eq!(d.workgroup, 0);
    assert_eq!(d.waiting, vec![(0, wait_here)]);
    assert_eq!(d.missing, vec![(1, WaveState::Exited)]);
    assert_eq!(stop.wave_id, Some(0));
    assert_eq!(states(&e), vec![WaveState::AtBarrier, WaveState::Exited]);
    // It stays deadlocked.
    assert!(matches!(e.continue_all().reason, StopReason::Deadlock(_)));
}

#[test]
fn deadlock_found_while_stepping_the_exiting_wave() {
    let mut e = engine(DEADLOCK);
    e.select_wave(0).unwrap();
    assert_eq!(
        e.advance_to_barrier().reason,
        StopReason::Reached(Reached::Barrier)
    );
    e.select_wave(1).unwrap();
    let stop = e.finish_wave();
    let StopReason::Deadlock(d) = &stop.reason else {
        panic!("{stop:?}")
    };
    assert_eq!(d.missing, vec![(1, WaveState::Exited)]);
}

/// A watchpoint hit leaves the access log filled; the wave's next instruction faulting
/// before it executes (illegal instruction, budget) must still be reported as the fault,
/// not as a second, stale watchpoint hit.
#[test]
fn fault_right_after_a_watchpoint_hit_is_reported() {
    let src = r#"
.kernel t
.buffer out, 256
.arg u[0:1], out
    vlaneid v0
    vshli v2, v0, 2
    st.ubase.b32 v0, u[0:1], v2, 0
bad:
    .word 0xffffffff
    end
"#;
    let mut e = engine(src);
    let out = e.machine().buffer_base("out").unwrap();
    e.add_watchpoint(WatchKind::Write, Scope::Global, out, 4, None)
        .unwrap();
    let s = e.continue_all();
    assert_eq!(watch_hits(&s).len(), 1);
    let s = e.continue_all();
    match &s.reason {
        StopReason::Fault(f) => {
            assert!(matches!(f.kind, FaultKind::IllegalInstruction { .. }));
            assert_eq!(f.pc, label(&e, "bad"));
        }
        other => panic!("expected the illegal-instruction fault, got {other:?}"),
    }
    assert_eq!(e.watchpoints()[0].hits, 1);
}

/// The same with the instruction budget running out right after the hit.
#[test]
fn budget_fault_right_after_a_watchpoint_hit_is_reported() {
    let src = r#"
.kernel t
.buffer out, 256
.arg u[0:1], out
    vlaneid v0
    vshli v2, v0, 2
    st.ubase.b32 v0, u[0:1], v2, 0
    nop
    end
"#;
    let mut e = engine_with(
        src,
        LaunchOptions {
            max_instructions: Some(3),
            ..Default::default()
        },
    );
    let out = e.machine().buffer_base("out").unwrap();
    e.add_watchpoint(WatchKind::Write, Scope::Global, out, 4, None)
        .unwrap();
    assert_eq!(watch_hits(&e.continue_all()).len(), 1);
    let s = e.continue_all();
    assert!(
        matches!(&s.reason, StopReason::Fault(f) if f.kind == FaultKind::BudgetExhausted { limit: 3 }),
        "{s:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Selection and change tracking
// ---------------------------------------------------------------------------------------

#[test]
fn selecting_waves_and_lanes() {
    let mut e = engine(LOOP);
    e.select_wave(3).unwrap();
    assert_eq!(e.selected_wave, 3);
    let err = e.select_wave(4).unwrap_err().to_string();
    assert!(err.contains("no resident wave 4"), "{err}");
    assert!(err.contains("0, 1, 2, 3"), "{err}");
    e.select_lane(31).unwrap();
    assert_eq!(e.selected_lane, 31);
    let err = e.select_lane(32).unwrap_err().to_string();
    assert!(err.contains("lane 32 out of range"), "{err}");
    assert_eq!(e.selected_lane, 31);
}

#[test]
fn resident_window_and_wave_ids_of_later_workgroups() {
    // One resident workgroup at a time: workgroup 1's waves (ids 2, 3) replace 0 and 1.
    let mut e = engine_with(
        LOOP,
        LaunchOptions {
            resident_workgroups: 1,
            ..Default::default()
        },
    );
    assert_eq!(e.machine().waves.len(), 2);
    let id = e
        .add_breakpoint(
            "after",
            None,
            Filters {
                wave: Some(3),
                ..Default::default()
            },
            false,
        )
        .unwrap();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop).0, id);
    assert_eq!(stop.wave_id, Some(3));
    assert_eq!(stop.wave, Some(1), "index in the resident waves");
    finish_all(&mut e);
}

#[test]
fn previous_is_the_state_at_the_previous_stop() {
    let mut e = one_wave_loop();
    bp(&mut e, "loop");
    e.continue_all();
    assert_eq!(e.previous().waves[0].pc, 0, "the launch state");
    assert_eq!(e.previous().waves[0].v[3], [0; 32]);
    e.continue_all();
    assert_eq!(e.previous().waves[0].pc, label(&e, "loop"));
    let before: Vec<u32> = e.previous().waves[0].v[3].to_vec();
    let now: Vec<u32> = e.machine().waves[0].v[3].to_vec();
    assert!(before.iter().zip(&now).all(|(b, n)| n - b == 1));
    // Inspection does not move the snapshot; the next resumption does.
    e.write_register(0, RegisterWrite::U { reg: 20, value: 9 })
        .unwrap();
    assert_eq!(e.previous().waves[0].u[20], 0);
    e.step(1);
    assert_eq!(e.previous().waves[0].u[20], 9);
}

#[test]
fn register_and_memory_writes_are_seen_by_the_kernel() {
    let mut e = one_wave_loop();
    bp(&mut e, "after");
    e.continue_all();
    // Change v3 of lane 5 and the loop result of every lane via the machine.
    e.write_register(
        0,
        RegisterWrite::VLane {
            reg: 3,
            lane: 5,
            value: 0xdead,
        },
    )
    .unwrap();
    let out = e.machine().buffer_base("out").unwrap();
    finish_all(&mut e);
    assert_eq!(global_u32(&e, out + 4 * 5), 0xdead);
    assert_eq!(global_u32(&e, out + 4 * 6), 27);

    // EXEC narrowed before the store: only lane 0 stores.
    let mut e = one_wave_loop();
    bp(&mut e, "store");
    e.continue_all();
    e.write_register(0, RegisterWrite::Exec(1)).unwrap();
    finish_all(&mut e);
    assert_eq!(global_u32(&e, out), 3);
    assert_eq!(global_u32(&e, out + 4), 0);
}

#[test]
fn the_same_session_twice_gives_the_same_stops() {
    let session = |e: &mut Engine| -> Vec<StopEvent> {
        let out = e.machine().buffer_base("out").unwrap();
        e.add_breakpoint("gstore", Some("v4 % 7 == 3"), Filters::default(), false)
            .unwrap();
        e.add_watchpoint(WatchKind::Write, Scope::Shared(None), 0, 8, None)
            .unwrap();
        e.add_watchpoint(WatchKind::Access, Scope::Global, out + 4 * 60, 16, None)
            .unwrap();
        let mut stops = Vec::new();
        for _ in 0..40 {
            let s = e.continue_all();
            let end = s.is_terminal();
            stops.push(s);
            if end {
                break;
            }
        }
        stops
    };
    let options = LaunchOptions {
        seed: 7,
        ..Default::default()
    };
    let mut a = engine_with(WRITERS, options);
    let mut b = engine_with(WRITERS, options);
    let (sa, sb) = (session(&mut a), session(&mut b));
    assert_eq!(sa, sb);
    assert_eq!(sa.last().unwrap().reason, StopReason::Finished);
    assert!(sa.len() > 4);
}

// ---------------------------------------------------------------------------------------
// Engine bugs: the expected behaviour, ignored until fixed
// ---------------------------------------------------------------------------------------

/// A fault right after a watchpoint hit, when stepping (`stepi` runs the wave through the
/// engine's own loop, which still reads the access log without checking the instruction's
/// event): the stale log is reported as a second hit "written by" `.word 0xffffffff`, and
/// the illegal-instruction fault is lost.
#[test]
fn fault_right_after_a_watchpoint_hit_is_reported_when_stepping() {
    let src = r#"
.kernel t
.buffer out, 256
.arg u[0:1], out
    vlaneid v0
    vshli v2, v0, 2
    st.ubase.b32 v0, u[0:1], v2, 0
bad:
    .word 0xffffffff
    end
"#;
    let mut e = engine(src);
    let out = e.machine().buffer_base("out").unwrap();
    e.add_watchpoint(WatchKind::Write, Scope::Global, out, 4, None)
        .unwrap();
    assert_eq!(watch_hits(&e.step(10)).len(), 1);
    let s = e.step(1);
    assert!(
        matches!(&s.reason, StopReason::Fault(f) if matches!(f.kind, FaultKind::IllegalInstruction { .. })),
        "expected the illegal-instruction fault, got {s:?}"
    );
}

/// `advance barrier` on the last wave of a workgroup to arrive: its arrival releases the
/// barrier at once, the engine misses that it arrived and runs the wave on, alone, to its
/// exit (reporting `Blocked("the wave has exited")`).
#[test]
fn advance_barrier_on_the_last_wave_to_arrive_stops_at_the_barrier() {
    let mut e = engine(BARRIER);
    let after = label(&e, "after_barrier");
    e.select_wave(1).unwrap();
    assert_eq!(
        e.advance_to_barrier().reason,
        StopReason::Reached(Reached::Barrier)
    );
    e.select_wave(0).unwrap();
    let stop = e.advance_to_barrier();
    assert_eq!(stop.reason, StopReason::Reached(Reached::Barrier));
    assert_eq!(stop.wave_id, Some(0));
    assert_eq!(pcs(&e), vec![after, after]);
    assert_eq!(states(&e), vec![WaveState::Ready, WaveState::Ready]);
}

/// With scheduler locking off, `stepi N` steps every ready wave N times without ever
/// looking at the interrupt flag: `stepi 1000000000` on an endless loop cannot be stopped.
#[test]
fn interrupt_stops_an_unlocked_step_of_an_endless_loop() {
    let mut e = engine_with(
        SPIN,
        LaunchOptions {
            max_instructions: None,
            ..Default::default()
        },
    );
    e.scheduler_locking = false;
    let handle = e.interrupt_handle();
    let (tx, rx) = std::sync::mpsc::channel();
    // If the interrupt is ignored this thread spins until the test process exits.
    std::thread::spawn(move || {
        let _ = tx.send(e.step(u64::MAX));
    });
    let deadline = Instant::now() + Duration::from_secs(5);
    let stop = loop {
        handle.interrupt();
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(s) => break s,
            Err(_) if Instant::now() > deadline => {
                panic!("stepping with scheduler-locking off was not interrupted within 5 s")
            }
            Err(_) => {}
        }
    };
    assert_eq!(stop.reason, StopReason::Interrupted);
}

/// gdb steps over a breakpoint at the PC a thread is stopped at whenever it resumes it,
/// however it got there. Here only a *reported* breakpoint is stepped over: after
/// `stepi` lands on a breakpoint address, `continue` reports that breakpoint at once,
/// without executing anything.
#[test]
fn continue_after_stepping_onto_a_breakpoint_makes_progress() {
    let mut e = one_wave_loop();
    let id = bp(&mut e, "loop");
    let s = e.step(6);
    assert_eq!(s.pc, Some(label(&e, "loop")));
    let s = e.continue_all();
    assert!(s.instructions > 6, "continue executed nothing: {s:?}");
    // It stops at the breakpoint on the next iteration.
    assert_eq!(breakpoint_of(&s).0, id);
    assert_eq!(e.machine().waves[0].v[1][0], 1);
}

/// Likewise after a condition error: once reported, resuming must get past it (the user
/// fixes the condition later); here every `continue` reports the same error in place.
#[test]
fn continue_after_a_condition_error_makes_progress() {
    let mut e = engine(COND);
    e.add_breakpoint("here", Some("1 / (lane - lane)"), Filters::default(), false)
        .unwrap();
    let s = e.continue_all();
    assert!(matches!(s.reason, StopReason::ConditionError { .. }));
    let s = e.continue_all();
    assert_eq!(s.reason, StopReason::Finished, "{s:?}");
}

/// A faulted wave is still resident (`info waves` lists it) and is what the user wants to
/// inspect after a fault; `wave N` refuses it with "no resident wave N (resident: N, ...)".
#[test]
fn a_faulted_wave_can_be_selected_for_inspection() {
    let src = r#"
.kernel t
.workgroup 64
.shared 64
    uwaveid u5
    br.unz u5, other
    vlaneid v0
    vshli v2, v0, 2
    st.shared.b32 v0, v2, 0
    end
other:
    nop
    end
"#;
    let mut e = engine(src);
    let s = e.continue_all();
    assert!(matches!(s.reason, StopReason::Fault(_)));
    assert_eq!(e.machine().waves[0].state, WaveState::Faulted);
    e.select_wave(1).unwrap();
    e.select_wave(0)
        .expect("the faulted wave 0 is resident and selectable");
    assert_eq!(e.selected_wave, 0);
}

/// After a fault the other waves may run on, but once nothing can run the launch is over:
/// the stop must be terminal, not `Blocked("no wave can run")` (shown as
/// "Cannot run : no wave can run", with no wave named).
#[test]
fn continuing_after_a_fault_ends_terminally() {
    let src = r#"
.kernel t
.workgroup 64
.shared 64
    uwaveid u5
    br.unz u5, other
    vlaneid v0
    vshli v2, v0, 2
    st.shared.b32 v0, v2, 0
    end
other:
    nop
    end
"#;
    let mut e = engine(src);
    assert!(matches!(e.continue_all().reason, StopReason::Fault(_)));
    let s = e.continue_all();
    assert!(s.is_terminal(), "{s:?}");
}

/// gdb resets hit counts when the program is run again (`run` clears them); `restart`
/// keeps the counts of the previous launch.
#[test]
fn restart_resets_hit_counts() {
    let mut e = one_wave_loop();
    bp(&mut e, "loop");
    let out = e.machine().buffer_base("out").unwrap();
    e.add_watchpoint(WatchKind::Write, Scope::Global, out, 4, None)
        .unwrap();
    while !e.continue_all().is_terminal() {}
    assert_eq!(e.breakpoints()[0].hits, 3);
    assert_eq!(e.watchpoints()[0].hits, 1);
    e.restart();
    assert_eq!(e.breakpoints()[0].hits, 0);
    assert_eq!(e.watchpoints()[0].hits, 0);
}

/// A workgroup (or a wave of one) that is not dispatched yet can be watched: the range is
/// checked against the window it will have; one that has finished cannot.
#[test]
fn watchpoints_on_workgroups_and_waves_still_to_come() {
    let one_resident = LaunchOptions {
        resident_workgroups: 1,
        ..LaunchOptions::default()
    };
    let mut e = engine_with(WRITERS, one_resident);
    assert_eq!(e.machine().waves.len(), 2, "only workgroup 0 is resident");
    let id = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(Some(1)), 0, 4, None)
        .expect("workgroup 1 is still to come");
    // Outside the window workgroup 1 will have, or outside the grid: refused.
    let outside = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(Some(1)), 64, 4, None)
        .unwrap_err()
        .to_string();
    assert!(outside.contains("outside the 64-byte window"), "{outside}");
    let no_group = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(Some(2)), 0, 4, None)
        .unwrap_err()
        .to_string();
    assert_eq!(no_group, "workgroup 2 is not in the grid (0-1)");
    let stop = e.continue_all();
    let hit = &watch_hits(&stop)[0];
    assert_eq!(hit.id, id);
    let wave = &e.machine().waves[stop.wave.expect("a wave")];
    assert_eq!(wave.workgroup, 1, "only workgroup 1's stores trigger it");
    // Workgroup 0 has finished by now: its memory is gone.
    let gone = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(Some(0)), 0, 4, None)
        .unwrap_err()
        .to_string();
    assert_eq!(gone, "workgroup 0 has finished");

    // The scratch of a wave still to come (wave 3 is in workgroup 1).
    let mut e = engine_with(
        ".workgroup 64\n.grid 2\n.scratch 16\n vmovi v1, 7\n vmovi v2, 0\n st.scratch.b32 v1, v2, 4\n wait.ls 0\n end\n",
        one_resident,
    );
    let id = e
        .add_watchpoint(
            WatchKind::Write,
            Scope::Scratch { wave: 3, lane: 9 },
            4,
            4,
            None,
        )
        .expect("wave 3 is still to come");
    let stop = e.continue_all();
    let hit = &watch_hits(&stop)[0];
    assert_eq!((hit.id, hit.lanes), (id, 1 << 9));
    assert_eq!(e.machine().waves[stop.wave.expect("a wave")].id, 3);
}

/// The machine pre-filters breakpoint marks by wave and workgroup (so a breakpoint other
/// waves pass costs no event): filters still select exactly the waves they name, a filter
/// naming a wave or workgroup outside the launch never stops and counts no hits, and an
/// unfiltered breakpoint at the same address still stops every wave.
#[test]
fn wave_and_workgroup_filters_select_exactly_their_waves() {
    let mut e = engine(LOOP);
    let only = |wave: Option<u32>, workgroup: Option<u32>| Filters {
        wave,
        workgroup,
        ..Default::default()
    };
    let never = e
        .add_breakpoint("loop", None, only(Some(1_000), None), false)
        .unwrap();
    let never_wg = e
        .add_breakpoint("loop", None, only(None, Some(7)), false)
        .unwrap();
    let w3 = e
        .add_breakpoint("loop", None, only(Some(3), Some(1)), false)
        .unwrap();
    let s = e.continue_all();
    assert_eq!(breakpoint_of(&s).0, w3);
    assert_eq!(s.wave_id, Some(3));
    // Wave 3 is in workgroup 1: a filter pair that cannot both match never stops.
    e.delete(Some(w3)).unwrap();
    let mismatch = e
        .add_breakpoint("loop", None, only(Some(3), Some(0)), false)
        .unwrap();
    let end = e.continue_all();
    assert_eq!(end.reason, StopReason::Finished, "{end:?}");
    for id in [never, never_wg, mismatch] {
        let b = e.breakpoints().iter().find(|b| b.id == id).unwrap();
        assert_eq!(b.hits, 0, "breakpoint {id}");
    }
    e.restart();
    let any = e
        .add_breakpoint("loop", None, Filters::default(), false)
        .unwrap();
    let mut waves = std::collections::BTreeSet::new();
    for _ in 0..4 {
        let s = e.continue_all();
        assert_eq!(breakpoint_of(&s).0, any);
        waves.insert(s.wave_id.unwrap());
    }
    assert_eq!(
        waves.len(),
        4,
        "every wave stops at an unfiltered breakpoint"
    );
}

/// A wave that runs alone (`stepi`, `advance`, a locked continue) stops when it exits,
/// also when the next workgroup takes its slot in the same instruction: the stop names the
/// exited wave (no index: the slot holds another wave now) and the machine still shows it.
#[test]
fn a_wave_running_alone_stops_at_its_end_when_its_slot_is_refilled() {
    let src = "\
.kernel recycle
.workgroup 32
.grid 3
    umovi u1, 1
done:
    end
";
    let options = LaunchOptions {
        resident_workgroups: 1,
        ..LaunchOptions::default()
    };
    // stepi over `end`: a step of wave 0, which the machine keeps as retired.
    let mut e = engine_with(src, options);
    assert_eq!(e.run_wave(0, 1).reason, StopReason::Step);
    let stop = e.run_wave(0, 1);
    assert_eq!(stop.reason, StopReason::Step);
    let past_end = label(&e, "done") + 4;
    assert_eq!(
        (stop.wave, stop.wave_id, stop.pc),
        (None, Some(0), Some(past_end))
    );
    assert_eq!(e.machine().waves[0].id, 1, "workgroup 1 took the slot");
    let retired = e.machine().retired_wave(0).expect("wave 0 kept");
    assert_eq!((retired.state, retired.u[1]), (WaveState::Exited, 1));
    // A continue of wave 1 alone ends with wave 1, not running wave 2 in the slot.
    let stop = e.run_wave(0, u64::MAX);
    assert_eq!(stop.reason, StopReason::Blocked(Blocked::Exited));
    assert_eq!((stop.wave, stop.wave_id), (None, Some(1)));
    assert_eq!(e.machine().waves[0].id, 2);
    assert_eq!(e.machine().waves[0].pc, 0, "wave 2 did not run");
    // The last wave's end is the launch's; it stays in its slot.
    let stop = e.run_wave(0, u64::MAX);
    assert_eq!(stop.reason, StopReason::Finished);
    assert_eq!(e.machine().waves[0].id, 2);
}
