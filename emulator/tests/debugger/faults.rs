//! Faults (traps, bad addresses, the instruction budget) and deadlocks: the stop names the
//! wave, lanes and PC, and a run after a fault ends terminally.

use super::fixtures::*;

#[test]
fn faults_and_deadlocks_are_reported() {
    let mut e = engine(FAULT);
    let (text, s) = stop(&mut e, "c");
    assert!(s.is_terminal());
    assert_eq!(
        text,
        "Program received signal SIGSEGV: shared access of 4 bytes outside the 64-byte shared window [wave 0 (workgroup 0), pc 0x000c, address 0x40, lanes 16-31, `st.shared.b32 v0, v2, 0`]\n"
    );
    assert!(run(&mut e, "info waves").contains("    0   0    0  faulted      0x000c <bad>"));

    let mut e = engine(DEADLOCK);
    let (text, s) = stop(&mut e, "c");
    assert!(matches!(s.reason, StopReason::Deadlock(_)));
    // The deadlock names each waiting wave's PC as `info waves` shows it (past the
    // barrier) and the barrier it waits at.
    assert_eq!(
        text,
        "Deadlock: deadlock in workgroup 0: wave 0 (pc 0x000c) waits at the barrier at 0x0008 <wait_here>; wave 1 (exited) will never arrive\n"
    );
    let waves = run(&mut e, "info waves");
    assert!(
        waves.contains("    0   0    0  at barrier   0x000c <wait_here+4>"),
        "{waves}"
    );
    assert!(waves.contains("     1   0    1  exited "), "{waves}");
}

/// After wave 0 faults and wave 1 exits nothing can run; `continue` says
/// "Cannot run : no wave can run" (no wave named, and not an end-of-launch report).
#[test]
fn continuing_after_a_fault_reports_the_end() {
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
    let (text, _) = stop(&mut e, "c");
    assert!(
        text.starts_with("Program received signal SIGSEGV"),
        "{text}"
    );
    let (text, s) = stop(&mut e, "c");
    assert!(!text.contains("Cannot run :"), "{text}");
    assert!(s.is_terminal(), "{s:?}");
    // The faulted wave can still be selected for inspection.
    assert!(run(&mut e, "wave 0").starts_with("[Switching to wave 0 (workgroup 0), faulted]"));
}

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
    // The faulted wave is selected: `advance` ends the launch as `stepi` does, rather
    // than saying the wave faulted.
    let advanced = e.advance_to_any(&[0]);
    assert!(
        !matches!(advanced.reason, StopReason::Blocked(_)) && advanced.is_terminal(),
        "{advanced:?}"
    );
    let stepped = e.step_all(1);
    assert_eq!(
        std::mem::discriminant(&advanced.reason),
        std::mem::discriminant(&stepped.reason)
    );
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
    // It stays deadlocked: a resume runs nothing, and says so rather than reporting the
    // same deadlock as a new stop (the state stays, not a terminal stop).
    let again = e.continue_all();
    assert!(
        matches!(&again.reason, StopReason::Deadlocked(d2) if d2 == d),
        "{again:?}"
    );
    assert!(!again.is_terminal());
    assert_eq!(again.instructions, stop.instructions);
}

/// A continue, stepi or step after a deadlock that nothing else can get past: the
/// commands say the launch is deadlocked (nothing ran), and running backwards still works.
#[test]
fn resuming_a_deadlocked_launch_says_it_cannot_run() {
    let mut e = engine(DEADLOCK);
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with("Deadlock: "), "{text}");
    for line in ["c", "stepi", "stepi all", "next", "finish"] {
        let (text, s) = stop(&mut e, line);
        assert!(
            matches!(s.reason, StopReason::Deadlocked(_)),
            "{line}: {s:?}"
        );
        assert!(
            text.starts_with("Cannot run: the launch is deadlocked: deadlock in workgroup 0: wave 0 (pc 0x000c) waits at the barrier at 0x0008 <wait_here>; wave 1 (exited) will never arrive\n"),
            "{line}: {text}"
        );
        assert!(
            text.contains(
                "\n  nothing can run: reverse-stepi and reverse-continue go back, run starts again"
            ),
            "{line}: {text}"
        );
    }
    let (_, s) = stop(&mut e, "reverse-stepi");
    assert!(!matches!(s.reason, StopReason::Deadlocked(_)), "{s:?}");
    // Forward again, the deadlock is reached by running, so it is a stop of its own.
    let (text, s) = stop(&mut e, "c");
    assert!(matches!(s.reason, StopReason::Deadlock(_)), "{text}");
}

/// A wave stepped alone at the barrier of a deadlocked workgroup while other workgroups
/// can still run: not "the others are frozen (continue ...)" but the deadlock, and that
/// continue runs the other workgroups.
#[test]
fn stepping_a_wave_of_a_deadlocked_workgroup_names_the_deadlock() {
    let src = r#"
.kernel dl
.workgroup 64
.grid 2
    uwgid u4
    uwaveid u5
    uand u5, u5, u4
    br.unz u5, quit
    nop
    nop
    nop
    nop
wait_here:
    barrier
    end
quit:
    end
"#;
    let mut e = engine(src);
    let (text, s) = stop(&mut e, "c");
    let StopReason::Deadlock(d) = &s.reason else {
        panic!("{text}")
    };
    assert_eq!(d.workgroup, 1);
    assert!(
        e.machine().launch_deadlock().is_none(),
        "workgroup 0 can still run"
    );
    let waiting = d.waiting[0].0;
    run(&mut e, &format!("wave {waiting}"));
    let (text, s) = stop(&mut e, "stepi");
    assert!(matches!(s.reason, StopReason::Deadlocked(_)), "{text}");
    assert!(
        text.starts_with(&format!("Cannot run wave {waiting} (workgroup 1): its barrier can never complete: deadlock in workgroup 1: ")),
        "{text}"
    );
    assert!(
        text.contains("\n  continue runs the other workgroups"),
        "{text}"
    );
    // Continue does run the others, to the end the deadlock leaves.
    let before = e.machine().stats.wave_instructions;
    let (text, s) = stop(&mut e, "c");
    assert!(matches!(s.reason, StopReason::Deadlock(_)), "{text}");
    assert!(s.instructions > before, "{text}");
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

/// A fault that leaves the other waves of its workgroup at a barrier: the fault is the
/// stop, the deadlock it leaves is the next one (reported, terminal, so a gdb client ends
/// the launch), and only a resume after that says the launch is deadlocked.
#[test]
fn a_deadlock_a_fault_leaves_behind_is_reported_once() {
    let mut e = engine(
        ".kernel k\n.workgroup 64\n.shared 64\n    uwaveid u5\n    br.unz u5, bad\n    barrier\n    end\nbad:\n    vlaneid v0\n    vshli v2, v0, 4\n    st.shared.b32 v0, v2, 0\n    end\n",
    );
    let fault = e.continue_all();
    assert!(matches!(fault.reason, StopReason::Fault(_)), "{fault:?}");
    let dead = e.continue_all();
    assert!(
        matches!(dead.reason, StopReason::Deadlock(_)),
        "the deadlock left behind is a stop of its own: {dead:?}"
    );
    assert!(dead.is_terminal());
    let again = e.continue_all();
    assert!(
        matches!(again.reason, StopReason::Deadlocked(_)),
        "{again:?}"
    );
    assert_eq!(again.instructions, dead.instructions);
}
