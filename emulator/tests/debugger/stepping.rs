//! Execution control: `continue`, `stepi` with and without scheduler locking, `step all`,
//! `advance` to a location or the barrier, `until`, `finish`, `restart`, and interrupts from
//! another thread.

use super::fixtures::*;
use crate::kernels;

#[test]
fn stepi_with_and_without_scheduler_locking() {
    let mut e = engine(LOOP);
    run(&mut e, "wave 2");
    let (text, s) = stop(&mut e, "stepi 3");
    assert_eq!(
        text,
        "wave 2 (workgroup 1)\n  0x000c: vmuli.u32 v3, v0, 4\n"
    );
    assert_eq!(s.reason, StopReason::Step);
    let pcs: Vec<u64> = e.machine().waves.iter().map(|w| w.pc).collect();
    assert_eq!(pcs, vec![0, 0, 0x0c, 0], "only the selected wave moved");
    let (text, _) = stop(&mut e, "si");
    assert_eq!(text, "wave 2 (workgroup 1)\n  0x0014: umovi u6, 3\n");
    assert_eq!(
        run(&mut e, "info waves"),
        [
            "  Wave  WG  Idx  State        PC                       Active",
            "     0   0    0  ready        0x0000                   32/32",
            "     1   0    1  ready        0x0000                   32/32",
            "*    2   1    0  ready        0x0014                   32/32",
            "     3   1    1  ready        0x0000                   32/32",
            "",
        ]
        .join("\n")
    );
    assert_eq!(run(&mut e, "set scheduler-locking off"), "");
    assert!(!e.scheduler_locking);
    let (text, _) = stop(&mut e, "si 2");
    assert_eq!(
        text,
        "wave 2 (workgroup 1)\n  0x0024 <loop>: vaddi.u32 v1, v1, 1\n"
    );
    let pcs: Vec<u64> = e.machine().waves.iter().map(|w| w.pc).collect();
    assert_eq!(
        pcs,
        vec![0x08, 0x08, 0x24, 0x08],
        "every ready wave moved twice"
    );
    run(&mut e, "set scheduler-locking step");
    assert!(e.scheduler_locking);
    run(&mut e, "set scheduler-locking on");
    assert!(e.scheduler_locking);
    stop(&mut e, "si 3");
    let pcs: Vec<u64> = e.machine().waves.iter().map(|w| w.pc).collect();
    assert_eq!(pcs, vec![0x08, 0x08, 0x3c, 0x08]);
}

#[test]
fn advance_until_u_and_finish() {
    let mut e = engine(LOOP);
    run(&mut e, "wave 1");
    let (text, s) = stop(&mut e, "advance after");
    assert_eq!(
        text,
        "wave 1 (workgroup 0) reached 0x0040 <after>\n  0x0040 <after>: ushli u7, u4, 6\n"
    );
    assert_eq!(s.reason, StopReason::Reached(Reached::Address(0x40)));
    assert_eq!(run(&mut e, "p v1[31]"), "v1[31] = 3\n");
    let (text, _) = stop(&mut e, "until store");
    assert_eq!(
        text,
        "wave 1 (workgroup 0) reached 0x0060 <store>\n  0x0060 <store>: st.ubase.b32 v3, u[0:1], v2, 0\n"
    );
    run(&mut e, "restart");
    run(&mut e, "wave 3");
    let (text, _) = stop(&mut e, "u loop+16");
    assert!(
        text.starts_with("wave 3 (workgroup 1) reached 0x0034"),
        "{text}"
    );
    let (text, s) = stop(&mut e, "finish");
    assert_eq!(s.reason, StopReason::Reached(Reached::Exit));
    assert!(text.starts_with("wave 3 (workgroup 1) "), "{text}");
    assert!(text.contains("exit"), "{text}");
    assert!(run(&mut e, "info waves").contains("*    3   1    1  exited "));
    // finish only ran wave 3.
    assert_eq!(e.machine().waves[0].pc, e.machine().waves[1].pc);
    assert_eq!(run(&mut e, "x/1dw 0x100000184"), "global:0x100000184: 7\n");
}

#[test]
fn advance_barrier_and_a_blocked_step() {
    let mut e = engine(MEET_AT_BARRIER);
    run(&mut e, "wave 1");
    let (text, s) = stop(&mut e, "advance barrier");
    assert_eq!(s.reason, StopReason::Reached(Reached::Barrier));
    assert_eq!(
        text,
        "wave 1 (workgroup 0) reached the barrier at 0x002c <sync> and stopped after it, waiting for the other waves of its workgroup\n  next: 0x0030 <after_barrier>: nop\n"
    );
    assert!(
        run(&mut e, "info waves").contains("*    1   0    1  at barrier   0x0030 <after_barrier>")
    );
    let (text, s) = stop(&mut e, "stepi");
    assert!(matches!(s.reason, StopReason::Blocked(_)));
    assert_eq!(
        text,
        "Cannot run wave 1 (workgroup 0): the wave waits at a barrier for the other waves of its workgroup, which are frozen (continue, or set scheduler-locking off)\n"
    );
    run(&mut e, "set scheduler-locking off");
    stop(&mut e, "si 9");
    let waves = run(&mut e, "info waves");
    assert!(
        waves.contains("     0   0    0  ready        0x0030 <after_barrier>"),
        "{waves}"
    );
    assert!(
        waves.contains("*    1   0    1  ready        0x0030 <after_barrier>"),
        "{waves}"
    );
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
}

#[test]
fn interrupt_with_nothing_running() {
    let mut e = engine(LOOP);
    assert_eq!(
        run(&mut e, "interrupt"),
        "Nothing is running (Ctrl-C interrupts a run in progress).\n"
    );
    assert_eq!(e.machine().stats.wave_instructions, 0);
    // An interrupt requested just before a run stops it at once (a client's Ctrl-C can
    // race its own `continue`), and the stop consumes it: the next run goes on.
    e.interrupt_handle().interrupt();
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Interrupted);
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
}

#[test]
fn restart_and_its_aliases_keep_breakpoints() {
    let mut e = engine(LOOP);
    run(&mut e, "break store wave 1");
    run(&mut e, "watch 0x100000000");
    let (first, _) = stop(&mut e, "c");
    for alias in ["restart", "start"] {
        stop(&mut e, "c");
        run(&mut e, "wave 3");
        assert!(
            run(&mut e, alias).starts_with("Restarted: 4 waves resident, all at 0x0000.\n"),
            "{alias}"
        );
        assert!(run(&mut e, "info waves").contains("*    0   0    0  ready        0x0000"));
        assert_eq!(
            run(&mut e, "x/1xw 0x100000000"),
            "global:0x100000000: 0x00000000\n"
        );
        let info = run(&mut e, "info breakpoints");
        assert!(info.contains("1    breakpoint      keep  y    0x0060           0x0060 <store>\n        wave 1 only\n"));
        assert!(info.contains(
            "2    hw watchpoint   keep  y                     global:0x100000000 (4 bytes)\n"
        ));
        assert_eq!(stop(&mut e, "c").0, first, "{alias}");
    }
    // `run`, as gdb's: restarted, and run to the first stop, the same as before.
    for alias in ["run", "r"] {
        stop(&mut e, "c");
        let (text, _) = stop(&mut e, alias);
        assert_eq!(
            text,
            format!("Restarted: 4 waves resident, all at 0x0000.\n{first}"),
            "{alias}"
        );
    }
}

#[test]
fn advance_barrier_says_the_wave_stopped_after_the_barrier() {
    // The first wave waits after the barrier; the last releases it.
    let mut e = with_source(MEET_AT_BARRIER);
    let (text, s) = stop(&mut e, "advance barrier");
    assert_eq!(s.reason, StopReason::Reached(Reached::Barrier));
    let after = line_of(MEET_AT_BARRIER, "    nop");
    assert_eq!(
        text,
        format!("wave 0 (workgroup 0) reached the barrier at 0x002c <sync> and stopped after it, waiting for the other waves of its workgroup\n  next: 0x0030 <after_barrier>: nop\n{after:>4}\t    nop\n")
    );
    run(&mut e, "wave 1");
    let (text, _) = stop(&mut e, "advance barrier");
    assert!(
        text.starts_with("wave 1 (workgroup 0) reached the barrier at 0x002c <sync> and stopped after it, the last of its workgroup to arrive, it released the barrier\n"),
        "{text}"
    );
    assert!(
        run(&mut e, "info waves").contains("*    1   0    1  ready        0x0030 <after_barrier>")
    );
}

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
    // so it stops where the wave exits (as gdb's `advance` stops when the frame returns).
    let stop = e.advance(after);
    assert_eq!(stop.reason, StopReason::Reached(Reached::Exit));
    assert_eq!(stop.wave_id, Some(1));
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
        .add_breakpoint(&loc("after"), None, Filters::default(), false)
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
    let id = e
        .add_breakpoint(&loc("loop+8"), None, filters, false)
        .unwrap();
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
    // A continue of wave 1 alone ends with wave 1 exiting (as `finish` says it), not
    // running wave 2 in the slot.
    let stop = e.run_wave(0, u64::MAX);
    assert_eq!(stop.reason, StopReason::Reached(Reached::Exit));
    assert_eq!((stop.wave, stop.wave_id), (None, Some(1)));
    assert_eq!(e.machine().waves[0].id, 2);
    assert_eq!(e.machine().waves[0].pc, 0, "wave 2 did not run");
    // The last wave's end is the launch's; it stays in its slot.
    let stop = e.run_wave(0, u64::MAX);
    assert_eq!(stop.reason, StopReason::Finished);
    assert_eq!(e.machine().waves[0].id, 2);
}

#[test]
fn stepi_zero_executes_nothing_and_says_so() {
    let mut e = bounded_engine(COND);
    let pc = e.machine().waves[0].pc;
    let count = e.machine().stats.wave_instructions;
    assert_eq!(
        run_raw(&mut e, "stepi 0"),
        "stepi 0: no instruction executed.\n"
    );
    assert_eq!(e.machine().waves[0].pc, pc);
    assert_eq!(e.machine().stats.wave_instructions, count);
    run_raw(&mut e, "stepi 1");
    assert_ne!(e.machine().waves[0].pc, pc);
}

#[test]
fn stepi_all_steps_every_ready_wave_whatever_the_locking() {
    let mut e = bounded_engine(kernels::LOOP);
    let before: Vec<u64> = e.machine().waves.iter().map(|w| w.pc).collect();
    let out = e.run(&command::Command::StepiAll(1)).expect("steps");
    assert!(e.scheduler_locking, "the setting is untouched");
    let after: Vec<u64> = e.machine().waves.iter().map(|w| w.pc).collect();
    assert!(
        before.iter().zip(&after).all(|(b, a)| a > b),
        "{before:?} -> {after:?}\n{}",
        out.text
    );
    assert_eq!(e.log().last().map(String::as_str), Some("stepi all"));
}

/// gdb's `step` and `next` step instructions (no line table finer than them), log as the
/// user's word and repeat on Enter; `until` without a location leaves a loop that jumps
/// back, and with one is `advance`; `bt`, `frame` and `info frame` show the one frame.
#[test]
fn gdbs_step_next_until_and_frames_at_the_wave_level() {
    assert!(!one_wave_loop().has_line_table());
    for (word, same) in [("step 3", "stepi 3"), ("next 2", "stepi 2"), ("s", "si")] {
        let (mut a, mut b) = (one_wave_loop(), one_wave_loop());
        let (_, sa) = stop(&mut a, word);
        let (_, sb) = stop(&mut b, same);
        assert_eq!((sa.pc, sa.instructions), (sb.pc, sb.instructions), "{word}");
        assert_eq!(a.log(), [word]);
        let cmd = command::parse(word).expect("parses").expect("a command");
        assert_eq!(a.repeat_of(&cmd), Some(cmd.clone()), "Enter repeats {word}");
        assert_eq!(
            cmd.to_string().split_whitespace().next(),
            Some(if word.starts_with('n') {
                "next"
            } else {
                "step"
            })
        );
    }
    // `until` at the loop's backward branch runs the loop out: it stops past the branch.
    let mut e = one_wave_loop();
    stop(&mut e, "advance loop+24");
    let branch = e.machine().waves[0].pc;
    let (text, s) = stop(&mut e, "until");
    assert_eq!(s.reason, StopReason::Step);
    assert_eq!(s.pc, Some(branch + 4), "{text}");
    assert!(text.contains("0x0040 <after>"), "{text}");
    assert!(run(&mut e, "p u6").contains("= 0"), "the loop ran out");
    // `until LOCATION` is `advance LOCATION`, and keeps its word.
    let (text, s) = stop(&mut e, "until store");
    assert_eq!(s.reason, StopReason::Reached(Reached::Address(0x60)));
    assert!(
        text.starts_with("wave 0 (workgroup 0) reached 0x0060 <store>"),
        "{text}"
    );
    assert_eq!(e.log().last().map(String::as_str), Some("until store"));
    // The one frame.
    let mut e = one_wave_loop();
    e.set_source("loop.s", LOOP);
    stop(&mut e, "advance after");
    run(&mut e, "lane 7");
    let line = line_of(LOOP, "after:") + 1;
    assert_eq!(
        run(&mut e, "bt"),
        format!("#0  0x0040 in after () at loop.s:{line}\n    [wave 0 (workgroup 0), lane 7; a wave has no call stack]\n")
    );
    assert_eq!(run(&mut e, "where"), run(&mut e, "backtrace"));
    assert!(run(&mut e, "frame").starts_with(&format!(
        "#0  0x0040 in after () at loop.s:{line}\n{line:>4}\t"
    )));
    assert_eq!(run(&mut e, "up 0"), run(&mut e, "frame"));
    let info = run(&mut e, "info frame");
    assert!(
        info.starts_with(&format!("Stack level 0, frame of wave 0 (workgroup 0), lane 7:\n pc = 0x0040 <after> in after (loop.s:{line}); saved pc = none\n")),
        "{info}"
    );
    assert_eq!(fail(&mut e, "frame 1").message(), "No frame at level 1.");
    // Before any label the kernel stands for the function.
    run(&mut e, "restart");
    assert!(run(&mut e, "bt").starts_with("#0  0x0000 in loop () at loop.s:"));
    // An exited wave has no stack, as gdb says of a process that is gone.
    stop(&mut e, "finish");
    assert_eq!(fail(&mut e, "bt").message(), "No stack: wave 0 has exited.");
}

/// `info lanes` with register columns and formats, the lanes of the last stop marked, and
/// the lanes of an exited wave exited.
#[test]
fn info_lanes_shows_states_stop_marks_and_register_columns() {
    let mut e = one_wave_loop();
    run(&mut e, "break loop if v3 >= 120");
    stop(&mut e, "continue");
    let text = run(&mut e, "info lanes v3 u6 exec");
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows[0], "wave 0: EXEC = 0xffffffff (32 active)");
    assert_eq!(rows[1], "B: the lanes that stopped at breakpoint 1");
    assert_eq!(
        rows[2],
        "  Lane  State     Hit          v3          u6  exec"
    );
    assert_eq!(rows.len(), 3 + 32);
    // The selected lane is the first that stopped.
    let selected = rows
        .iter()
        .find(|r| r.starts_with('*'))
        .expect("a selected lane");
    assert!(selected.contains(" B "), "{selected}");
    let d = run(&mut e, "info lanes /d v3");
    let row = |t: &str, lane: usize| t.lines().nth(3 + lane).unwrap_or_default().to_string();
    assert!(row(&d, 0).ends_with(" 0"), "{d}");
    assert!(row(&d, 31).ends_with(" 124"), "{d}");
    assert!(row(&d, 31).contains(" B "), "{d}");
    assert!(!row(&d, 0).contains(" B "), "{d}");
    // Errors say what a column can be.
    let err = fail(&mut e, "info lanes v200").message();
    assert!(
        err.contains("is not a register (v0-v127, u0-u63, exec)"),
        "{err}"
    );
    let err = fail(&mut e, "info lanes /t v1").message();
    assert!(err.contains("unknown format `/t` (x d u f)"), "{err}");
    // Exited: every lane says so.
    run(&mut e, "delete");
    stop(&mut e, "finish");
    let text = run(&mut e, "info lanes");
    assert_eq!(text.matches("  exited").count(), 32, "{text}");
}

/// `advance` and `until LOCATION` to a place the selected wave does not reach before it
/// exits stop where it exits, as gdb's stop when the frame returns (they ran every other
/// wave to the end of the launch); for a wave that has exited they are refused, as `stepi`
/// is. An exited wave is shown at the `end` it exited at, not past the code.
#[test]
fn advance_past_the_waves_exit_stops_where_it_exits() {
    let mut e = engine(LOOP);
    run(&mut e, "advance after");
    let (text, at) = stop(&mut e, "advance loop");
    assert_eq!(at.reason, StopReason::Reached(Reached::Exit), "{text}");
    assert_eq!(at.wave_id, Some(0), "{text}");
    assert!(text.contains("wave 0 (workgroup 0) exited"), "{text}");
    // The others ran as with `continue`, but not to the end of the launch.
    assert!(e
        .machine()
        .waves
        .iter()
        .any(|w| w.state != WaveState::Exited));
    let count = e.machine().stats.wave_instructions;
    for line in ["advance loop", "until store"] {
        let err = out(&mut e, line);
        assert!(
            err.text.contains("the wave has exited"),
            "{line}: {}",
            err.text
        );
        assert_eq!(e.machine().stats.wave_instructions, count, "{line}");
    }
    // `st.ubase.b32` takes two words: `end` is at store+12 (the PC register is past it).
    let end = label(&e, "store") + 12;
    let waves = run(&mut e, "info waves");
    let row = waves
        .lines()
        .find(|l| l.starts_with('*'))
        .unwrap_or_default();
    assert!(
        row.contains("exited") && row.contains(&format!("{end:#06x} <store+12>")),
        "{waves}"
    );
    let context = run(&mut e, "context");
    assert!(
        context.contains(&format!("pc {end:#06x} <store+12>")),
        "{context}"
    );
    // The code section marks the `end` (the source section has no line table here).
    assert!(
        context.contains(&format!("=>  {end:#06x}  end")),
        "{context}"
    );
    // A wave whose `end` carries a breakpoint stops there first.
    let mut e = engine(LOOP);
    run(&mut e, "advance after");
    run(&mut e, &format!("break *{end:#x}"));
    let (text, at) = stop(&mut e, "until loop");
    assert!(matches!(at.reason, StopReason::Breakpoint { .. }), "{text}");
    assert_eq!(at.pc, Some(end), "{text}");
}

/// Two waves looping over a barrier: a range step over the whole loop runs through every
/// barrier (the other wave releases it).
const BARRIER_LOOP: &str = "\
.kernel bl
.workgroup 64
.grid 1
    umovi u4, 300000
top:
    barrier
after:
    vaddi.u32 v1, v1, 1
    uaddi u4, u4, -1
    br.unz u4, top
done:
    end
";

/// A range step made of many resumptions (one per barrier) is interrupted by a Ctrl-C
/// that comes during any of them: each stop consumes the request, so one that ended at a
/// barrier used to swallow it and the range ran on to its end.
#[test]
fn an_interrupt_stops_a_range_step_over_barriers() {
    let mut e = engine(BARRIER_LOOP);
    let end = label(&e, "done");
    let handle = e.interrupt_handle();
    let interrupter = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(150));
        handle.interrupt();
    });
    let s = e.step_range(0, 0, end, true);
    interrupter.join().expect("join");
    assert_eq!(s.reason, StopReason::Interrupted);
    assert!(e.machine().waves[0].pc < end);
    // The request is consumed: the next range step runs.
    assert_ne!(
        e.step_range(0, 0, end, true).reason,
        StopReason::Interrupted
    );
}

/// Released from a barrier inside the range onto a breakpoint, the wave is stopped only
/// if the breakpoint stops it (its condition), as a single step arriving there would be;
/// one that does not stop it is stepped over.
#[test]
fn a_range_step_released_onto_a_breakpoint_tests_it() {
    let src = BARRIER_LOOP.replace("300000", "3");
    let mut e = engine(&src);
    let (top, after, end) = (label(&e, "top"), label(&e, "after"), label(&e, "done"));
    // A false condition: the range runs to its end (the other wave, run while this one
    // waits, does not stop either).
    e.add_breakpoint(
        &loc("after"),
        Some(cond("u4 == 99")),
        Filters::default(),
        false,
    )
    .expect("break");
    let s = e.step_range(0, top, end, true);
    assert_eq!(s.reason, StopReason::Step, "{s:?}");
    assert_eq!(e.machine().waves[0].pc, end);
    // A breakpoint of this wave whose condition holds stops it there.
    let mut e = engine(&src);
    let id = e
        .add_breakpoint(
            &loc("after"),
            Some(cond("u4 == 3")),
            Filters::default(),
            false,
        )
        .expect("break");
    let s = e.step_range(0, top, end, true);
    assert!(
        matches!(s.reason, StopReason::Breakpoint { id: hit, .. } if hit == id),
        "{s:?}"
    );
    assert_eq!(e.machine().waves[0].pc, after);
}
