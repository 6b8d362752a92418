//! Time travel's index and searches: what a search finds after a workgroup's slot is
//! reused, the values `last-write` reports, interrupted searches and replays.

use super::fixtures::*;
use wavedbg_emulator::debug::{EngineError, WriteTarget};

/// Everything that decides what the machine does next (time_travel.rs's comparison).
fn same(a: &Machine, b: &Machine) -> Result<(), String> {
    if a.stats != b.stats {
        return Err(format!("stats {:?} vs {:?}", a.stats, b.stats));
    }
    if a.scheduler_state() != b.scheduler_state() {
        return Err(format!(
            "scheduler {:?} vs {:?}",
            a.scheduler_state(),
            b.scheduler_state()
        ));
    }
    if a.waves != b.waves {
        let i = (0..a.waves.len()).find(|&i| a.waves.get(i) != b.waves.get(i));
        return Err(format!("wave index {i:?} differs"));
    }
    if a.slots != b.slots || a.global != b.global {
        return Err("memory differs".into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Interrupts.

/// 256 resident waves (32 workgroups of 8): each writes its marker word once at its
/// start (at `once`, which it runs once), then loops; about 2.5 million instructions.
const LONG: &str = r#"
.kernel long
.workgroup 256
.grid 32
.buffer out, 1024
.arg u[0:1], out
    uwgid u3
    uwaveid u2
    vlaneid v0
once:
    umuli u4, u3, 8
    uadd u4, u4, u2
    ushli u4, u4, 2
    vmov.u v2, u4
    vaddi.u32 v3, v0, 1000
    umovi u5, 1
    exec.and.save u6, u5
marker:
    st.ubase.b32 v3, u[0:1], v2, 0
    exec.set u6
    umovi u7, 2400
again:
    vaddi.u32 v4, v4, 1
    vxor v5, v4, v0
    uaddi u7, u7, -1
    br.unz u7, again
    end
"#;

fn long_engine() -> Engine {
    let mut e = engine_with(
        LONG,
        LaunchOptions {
            resident_workgroups: 32,
            ..LaunchOptions::default()
        },
    );
    assert_eq!(e.machine().waves.len(), 256);
    finish_all(&mut e);
    assert!(e.machine().stats.wave_instructions > 2_000_000);
    e
}

/// Sets the interrupt from another thread before `f` starts, so it lands in it.
fn interrupted<T>(e: &mut Engine, f: impl FnOnce(&mut Engine) -> T) -> T {
    let handle = e.interrupt_handle();
    std::thread::spawn(move || handle.interrupt())
        .join()
        .expect("interrupter");
    f(e)
}

/// Where an interrupted command left the machine is a point of the history: `goto` it
/// again (from elsewhere) gives the very same machine, and so does running on from it.
fn consistent(e: &mut Engine, end: &Machine) {
    let here = e.machine().clone();
    let count = here.stats.wave_instructions;
    e.goto(count / 3).expect("goto elsewhere");
    let stop = e.goto(count).expect("goto back");
    assert_eq!(stop.reason, StopReason::Reached(Reached::Count(count)));
    same(e.machine(), &here).unwrap_or_else(|why| panic!("goto {count} again: {why}"));
    // Running on from it replays the same future.
    let stop = e.goto(end.stats.wave_instructions).expect("goto the end");
    assert_ne!(stop.reason, StopReason::Interrupted);
    same(e.machine(), end).unwrap_or_else(|why| panic!("the end again: {why}"));
}

/// An interrupt requested as `reverse-continue`, `last-write`, `goto` and `reverse-stepi
/// N` start stops them: the searches stay where they are (`last-write` says how far it
/// had got), the replays stop at a point of the history, every one consumes the request
/// (the command after it runs), and the progress handle tells where the machine is.
#[test]
fn interrupted_searches_and_replays_stop_at_consistent_points() {
    let mut e = long_engine();
    let end = e.machine().clone();
    let total = end.stats.wave_instructions;
    let progress = e.progress_handle();
    let out = end.buffer_base("out").expect("out");
    e.add_watchpoint(WatchKind::Write, Scope::Global, out, 4, None)
        .expect("watch");
    bp(&mut e, "once");

    // reverse-continue: stays at the end, and the next one searches.
    let stop = interrupted(&mut e, Engine::reverse_continue);
    assert_eq!(stop.reason, StopReason::Interrupted);
    same(e.machine(), &end).expect("stays where it was");
    assert_eq!(progress.get().instructions, total);
    let stop = e.reverse_continue();
    assert!(
        matches!(
            stop.reason,
            StopReason::Breakpoint { .. } | StopReason::Watchpoint(_)
        ),
        "{stop:?}"
    );
    assert!(stop.instructions < 20_000, "a hit at the start: {stop:?}");
    assert_eq!(progress.get().instructions, stop.instructions, "moved");
    e.goto(total).expect("back to the end");

    // last-write: nothing searched, the machine stays; the next one answers.
    let marker = WriteTarget::Memory {
        space: Space::Global,
        addr: out,
        len: 4,
        workgroup: 0,
        wave: 0,
        lane: 0,
    };
    let got = interrupted(&mut e, |e| e.last_write(&marker, total));
    assert_eq!(
        got,
        Err(EngineError::SearchInterrupted {
            searched_back_to: total
        })
    );
    same(e.machine(), &end).expect("stays where it was");
    let found = e
        .last_write(&marker, total)
        .expect("the request was consumed")
        .expect("the marker's write");
    assert_eq!((found.wave, found.lanes), (0, 1));
    assert_eq!(found.new, 1000u32.to_le_bytes());
    assert!(found.count < 20_000);
    let stop = e.goto(total / 2).expect("goto");
    assert_eq!(stop.reason, StopReason::Reached(Reached::Count(total / 2)));

    // goto: stops on the way, at a point of the history.
    e.goto(total).expect("back to the end");
    let stop = interrupted(&mut e, |e| e.goto(total / 2)).expect("goto");
    assert_eq!(stop.reason, StopReason::Interrupted);
    let at = e.machine().stats.wave_instructions;
    assert!(at <= total / 2, "{at}");
    assert_eq!(progress.get().instructions, at, "moved");
    consistent(&mut e, &end);

    // reverse-stepi N, from the end.
    e.select_wave(200).expect("wave 200");
    let w = e.selected_wave;
    let executed = e.machine().waves[w].executed;
    let stop = interrupted(&mut e, |e| e.reverse_step(5000));
    assert_eq!(stop.reason, StopReason::Interrupted);
    let at = e.machine().stats.wave_instructions;
    // The replay from a snapshot before the point stopped on its way there.
    assert!(
        e.machine().waves[w].executed <= executed - 5000,
        "not past it"
    );
    assert_eq!(progress.get().instructions, at, "moved");
    consistent(&mut e, &end);
    let stop = e.reverse_step(5000);
    assert_eq!(stop.reason, StopReason::Step);
    assert_eq!(e.machine().waves[w].executed, executed - 5000);
}

/// An interrupt that arrives while a search or replay runs (from a thread that waits to
/// see the progress handle move, then interrupts): whether it lands or the command ends
/// first, the result is either a right answer or a consistent point, and the progress
/// handle moved. (No timing is asserted: which one happens depends on the threads.)
#[test]
fn an_interrupt_during_a_search_leaves_a_right_answer_or_a_consistent_point() {
    let mut e = long_engine();
    let end = e.machine().clone();
    let total = end.stats.wave_instructions;
    // Few snapshots: replays and searches of long intervals.
    e.set_history_size(0);
    e.goto(total).expect("at the end");
    let out = end.buffer_base("out").expect("out");
    let marker = WriteTarget::Memory {
        space: Space::Global,
        addr: out + 4,
        len: 4,
        workgroup: 0,
        wave: 1,
        lane: 0,
    };
    let want = e
        .last_write(&marker, total)
        .expect("answer")
        .expect("a write");
    // Runs `what` while a thread waits for the progress handle to move, then interrupts.
    let during = |e: &mut Engine, what: &mut dyn FnMut(&mut Engine)| {
        let progress = e.progress_handle();
        let handle = e.interrupt_handle();
        let start = progress.get().instructions;
        let done = Arc::new(AtomicBool::new(false));
        let stop = done.clone();
        let watcher = std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if progress.get().instructions != start {
                    handle.interrupt();
                    return true;
                }
                std::hint::spin_loop();
            }
            false
        });
        what(e);
        done.store(true, Ordering::Relaxed);
        let saw = watcher.join().expect("watcher");
        // A request the command did not see is withdrawn, as a front end does.
        e.interrupt_handle().cancel();
        assert!(
            saw || e.progress_handle().get().instructions != start,
            "the progress handle moved"
        );
    };
    during(&mut e, &mut |e| match e.last_write(&marker, total) {
        Err(EngineError::SearchInterrupted { searched_back_to }) => {
            assert!(searched_back_to <= total);
        }
        got => assert_eq!(got, Ok(Some(want.clone()))),
    });
    same(e.machine(), &end).expect("last-write does not move the machine");
    during(&mut e, &mut |e| {
        let stop = e.goto(total / 2).expect("goto");
        if stop.reason != StopReason::Interrupted {
            assert_eq!(stop.reason, StopReason::Reached(Reached::Count(total / 2)));
            assert_eq!(e.machine().stats.wave_instructions, total / 2);
        }
    });
    consistent(&mut e, &end);
    // From the end: reverse-continue to the last hit at the start, or interrupted.
    let out_word = e
        .add_watchpoint(WatchKind::Write, Scope::Global, out + 4, 4, None)
        .expect("watch");
    during(&mut e, &mut |e| {
        let stop = e.reverse_continue();
        if stop.reason != StopReason::Interrupted {
            assert_eq!(watch_hits(&stop)[0].id, out_word);
            assert_eq!(stop.instructions, want.count);
        }
    });
    consistent(&mut e, &end);
    e.select_wave(77).expect("wave 77");
    let executed = e.machine().waves[e.selected_wave].executed;
    during(&mut e, &mut |e| {
        let stop = e.reverse_step(executed / 2);
        if stop.reason != StopReason::Interrupted {
            assert_eq!(stop.reason, StopReason::Step);
            let now = e.machine().waves[e.selected_wave].executed;
            assert_eq!(now, executed - executed / 2);
        }
    });
    consistent(&mut e, &end);
}

// ---------------------------------------------------------------------------------------
// The bugs these tests found, each on its own.

/// One wave per workgroup, one workgroup resident: workgroup 1 takes workgroup 0's slot
/// (and wave index 0) when it finishes. Wave 0 runs `short` turns, writes shared and
/// scratch words at `late` and exits; wave 1 runs `long` turns: the record has snapshots
/// after wave 0's end.
const SLOT_REUSED: &str = r#"
.kernel slots
.workgroup 32
.grid 2
.shared 128
.scratch 16
    uwgid u3
    vlaneid v0
first:
    vshli v1, v0, 2
    vmovi v6, 0
    umovi u7, 6000
    br.uz u3, again
    umovi u7, 60000
again:
    vaddi.u32 v4, v4, 1
    uaddi u7, u7, -1
    br.unz u7, again
    br.unz u3, done
late:
    st.shared.b32 v4, v1, 0
    st.scratch.b32 v4, v6, 4
done:
    wait.all
    end
"#;

fn slot_reused() -> Engine {
    let mut e = engine_with(
        SLOT_REUSED,
        LaunchOptions {
            resident_workgroups: 1,
            ..LaunchOptions::default()
        },
    );
    finish_all(&mut e);
    assert!(e.history().info(0).snapshots >= 3);
    e
}

/// The writes of a workgroup that finished between two snapshots are in the index even
/// though a dispatch replaced its shared memory and its waves' scratch: `last-write` and
/// a watchpoint find them. (The interval's summary used to look at the slot's new arrays
/// only, and the search skipped the interval.)
#[test]
fn a_finished_workgroups_writes_are_found_after_its_slot_is_reused() {
    let mut e = slot_reused();
    let end = e.machine().stats.wave_instructions;
    let late = label(&e, "late");
    let shared = WriteTarget::Memory {
        space: Space::Shared,
        addr: 0,
        len: 4,
        workgroup: 0,
        wave: 0,
        lane: 0,
    };
    let found = e
        .last_write(&shared, end)
        .expect("answer")
        .expect("a write");
    assert_eq!((found.wave, found.pc, found.lanes), (0, late, 1));
    assert_eq!(found.new, 6000u32.to_le_bytes());
    let scratch = WriteTarget::Memory {
        space: Space::Scratch,
        addr: 4,
        len: 4,
        workgroup: 0,
        wave: 0,
        lane: 9,
    };
    let found = e
        .last_write(&scratch, end)
        .expect("answer")
        .expect("a write");
    assert_eq!((found.wave, found.pc, found.lanes), (0, late + 8, 1 << 9));
    // A watchpoint on workgroup 0's word, set at the launch: reverse-continue from the end
    // stops right before the store.
    e.goto(0).expect("the launch");
    e.add_watchpoint(WatchKind::Write, Scope::Shared(Some(0)), 0, 4, None)
        .expect("watch");
    e.goto(end).expect("the end");
    let stop = e.reverse_continue();
    assert_eq!(watch_hits(&stop)[0].pc, late, "{stop:?}");
    assert_eq!(stop.instructions, found.count - 1);
}

/// `reverse-continue` to a hit of a wave whose slot a later wave took, and `reverse-stepi`
/// of such a wave: the replay starts from a snapshot before the point, not from a later
/// one where the slot holds the other wave. (It used to pick the newest snapshot whose
/// slot held another wave, never reached the point, and said "No more reverse-execution
/// history".)
#[test]
fn reverse_execution_reaches_a_wave_whose_slot_was_reused() {
    let mut e = slot_reused();
    bp(&mut e, "first");
    let stop = e.reverse_continue();
    assert_eq!(stop.wave_id, Some(1), "{stop:?}");
    let stop = e.reverse_continue();
    assert!(
        matches!(stop.reason, StopReason::Breakpoint { .. }),
        "{stop:?}"
    );
    assert_eq!((stop.wave_id, stop.instructions), (Some(0), 2));
    assert_eq!(e.machine().waves[0].pc, label(&e, "first"));
    // From a point where wave 0 runs, with later snapshots holding wave 1 in its slot.
    e.delete(None).expect("delete");
    e.goto(5000).expect("goto");
    e.select_wave(0).expect("wave 0");
    let executed = e.machine().waves[0].executed;
    let stop = e.reverse_step(100);
    assert_eq!(stop.reason, StopReason::Step);
    assert_eq!(e.machine().waves[0].executed, executed - 100);
}

/// `last-write` of a range longer than the write, or not starting where it does: the
/// bytes before are the range's before the instruction, not the store's old bytes
/// shifted to the range's start.
#[test]
fn last_write_of_a_range_reports_the_range_before_and_after() {
    const RANGE: &str = r#"
.kernel range
.workgroup 32
.buffer b, 64
.init b, u32, 1, 2, 3, 4, 5, 6
.arg u[0:1], b
    vmovi v1, 8
    vmovi v2, 0x99
    umovi u5, 1
    exec.set u5
store:
    st.ubase.b32 v2, u[0:1], v1, 0
same:
    st.ubase.b32 v2, u[0:1], v1, 0
    wait.all
    end
"#;
    let mut e = engine(RANGE);
    finish_all(&mut e);
    let text = run(&mut e, "last-write global:b+4 16");
    assert!(text.contains("(st.ubase.b32 v2, u[0:1], v1, 0)"), "{text}");
    assert!(
        text.contains(
            "before: 0x00000002 0x00000099 0x00000004 0x00000005\n  after:  0x00000002 0x00000099 0x00000004 0x00000005 (value unchanged)"
        ),
        "{text}"
    );
    let text = run(&mut e, "last-write global:b+4 16");
    assert!(
        text.contains(
            "before: 0x00000002 0x00000003 0x00000004 0x00000005\n  after:  0x00000002 0x00000099 0x00000004 0x00000005\n"
        ),
        "{text}"
    );
}
