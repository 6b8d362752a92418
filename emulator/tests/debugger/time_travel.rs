//! Time travel: any recorded point is reached again exactly (waves, memory, counters and
//! the scheduler's state), backwards and forwards, after any mix of run-control commands
//! and edits; reverse-stepi lands right before the wave's earlier instruction; the
//! snapshot memory stays under its bound.

use proptest::prelude::*;
use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::debug::breakpoint::Filters;
use wavedbg_emulator::debug::command::{parse_location, Location};
use wavedbg_emulator::debug::driver::run_line;
use wavedbg_emulator::debug::{Blocked, Engine, RegisterWrite, StopReason};
use wavedbg_emulator::machine::{LaunchOptions, Machine};
use wavedbg_emulator::memory::Space;

const KERNELS: [(&str, &str); 5] = [
    ("histogram.s", include_str!("../../../scripts/histogram.s")),
    ("reduce.s", include_str!("../../../scripts/reduce.s")),
    ("bitonic.s", include_str!("../../../scripts/bitonic.s")),
    ("scan.s", include_str!("../../../scripts/scan.s")),
    ("divergent.s", include_str!("../../../scripts/divergent.s")),
];

fn engine(which: usize, seed: u64) -> Engine {
    let (name, src) = KERNELS[which];
    let p = assemble(src, name, None).expect("example kernel");
    Engine::new(
        &p,
        LaunchOptions {
            seed,
            quantum: 5,
            // An edit can send a loop spinning: the budget ends it (a fault that executes
            // nothing, recorded and replayed like the rest).
            max_instructions: Some(300_000),
            ..LaunchOptions::default()
        },
    )
    .expect("launch")
}

/// Everything that decides what the machine does next.
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
        let i = (0..a.waves.len()).find(|&i| a.waves[i] != b.waves[i]);
        return Err(format!("wave index {i:?} differs"));
    }
    if a.slots != b.slots || a.global != b.global {
        return Err("memory differs".into());
    }
    Ok(())
}

#[derive(Debug, Clone)]
enum Action {
    Continue,
    Step(u64),
    StepAll(u64),
    StepAlone(u64),
    Select(usize),
    Break(usize),
    Unbreak,
    EditU(u8, u32),
    EditMemory(u64, u8),
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        2 => Just(Action::Continue),
        3 => (1u64..30).prop_map(Action::Step),
        2 => (1u64..6).prop_map(Action::StepAll),
        1 => (1u64..20).prop_map(Action::StepAlone),
        2 => (0usize..64).prop_map(Action::Select),
        2 => (0usize..1000).prop_map(Action::Break),
        1 => Just(Action::Unbreak),
        1 => (8u8..16, any::<u32>()).prop_map(|(r, v)| Action::EditU(r, v)),
        1 => (0u64..64, any::<u8>()).prop_map(|(a, v)| Action::EditMemory(a, v)),
    ]
}

/// Runs the actions, recording the machine after each (by instruction count; a count
/// recorded twice keeps only the later state, which is where `goto` lands).
fn drive(e: &mut Engine, actions: &[Action]) -> Vec<(u64, Machine)> {
    let mut points: Vec<(u64, Machine)> =
        vec![(e.machine().stats.wave_instructions, e.machine().clone())];
    let lines: Vec<u64> = e
        .machine()
        .program()
        .lines
        .iter()
        .map(|(a, _)| *a)
        .collect();
    for a in actions {
        match a {
            Action::Continue => drop(e.continue_all()),
            Action::Step(n) => drop(e.step(*n)),
            Action::StepAll(n) => drop(e.step_all(*n)),
            Action::StepAlone(n) => drop(e.run_wave(e.selected_wave, *n)),
            Action::Select(w) => drop(e.select_wave_index(w % e.machine().waves.len())),
            Action::Break(i) => {
                let at = lines[i % lines.len()];
                drop(e.add_breakpoint(&Location::Address(at), None, Filters::default(), true));
            }
            Action::Unbreak => drop(e.delete(None)),
            Action::EditU(reg, value) => {
                let w = e.selected_wave;
                drop(e.write_register(
                    w,
                    RegisterWrite::U {
                        reg: *reg,
                        value: *value,
                    },
                ));
            }
            Action::EditMemory(off, v) => {
                let base = e.machine().global.allocations()[0].base;
                drop(e.write_memory(Space::Global, 0, 0, base + off, &[*v]));
            }
        }
        let now = e.machine().stats.wave_instructions;
        points.retain(|(c, _)| *c != now);
        points.push((now, e.machine().clone()));
    }
    points
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// 48 cases of up to 30 actions, then up to 12 gotos each: several hundred points.
    #[test]
    fn goto_reaches_every_recorded_point_exactly(
        which in 0usize..KERNELS.len(),
        seed in prop::sample::select(vec![0u64, 1, 7]),
        actions in prop::collection::vec(action(), 1..30),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..12),
    ) {
        let mut e = engine(which, seed);
        let points = drive(&mut e, &actions);
        for pick in picks {
            let (count, want) = &points[pick.index(points.len())];
            let stop = e.goto(*count).map_err(|err| TestCaseError::fail(err.to_string()))?;
            prop_assert_eq!(stop.instructions, *count);
            if let Err(why) = same(e.machine(), want) {
                return Err(TestCaseError::fail(format!("goto {count}: {why}")));
            }
        }
        // And back to the newest point, where the record ends.
        let (end, want) = points.iter().max_by_key(|(c, _)| *c).expect("points");
        e.goto(*end).map_err(|err| TestCaseError::fail(err.to_string()))?;
        if let Err(why) = same(e.machine(), want) {
            return Err(TestCaseError::fail(format!("goto end {end}: {why}")));
        }
    }

    /// Going back and then running something else replaces the recorded future: the
    /// points before the branch and the new ones are all reached exactly.
    #[test]
    fn a_new_future_replaces_the_old_one(
        which in 0usize..KERNELS.len(),
        seed in prop::sample::select(vec![0u64, 3]),
        first in prop::collection::vec(action(), 1..20),
        branch in any::<prop::sample::Index>(),
        second in prop::collection::vec(action(), 1..20),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..10),
    ) {
        let mut e = engine(which, seed);
        let old = drive(&mut e, &first);
        let (at, _) = old[branch.index(old.len())];
        e.goto(at).map_err(|err| TestCaseError::fail(err.to_string()))?;
        let mut points: Vec<(u64, Machine)> = old.into_iter().filter(|(c, _)| *c < at).collect();
        let new = drive(&mut e, &second);
        points.retain(|(c, _)| new.iter().all(|(n, _)| n != c));
        points.extend(new);
        for pick in picks {
            let (count, want) = &points[pick.index(points.len())];
            e.goto(*count).map_err(|err| TestCaseError::fail(err.to_string()))?;
            if let Err(why) = same(e.machine(), want) {
                return Err(TestCaseError::fail(format!("goto {count} (branched at {at}): {why}")));
            }
        }
    }

    /// After any mix of commands, single steps of one wave (others frozen), then
    /// reverse-stepi k: the whole machine is as it was k steps earlier, right before that
    /// wave's instruction.
    #[test]
    fn reverse_stepi_lands_right_before_the_earlier_instruction(
        which in 0usize..KERNELS.len(),
        actions in prop::collection::vec(action(), 0..20),
        steps in 1usize..12,
        backs in prop::collection::vec(1u64..12, 1..4),
    ) {
        let mut e = engine(which, 0);
        drive(&mut e, &actions);
        let w = e.selected_wave;
        let mut states = vec![e.machine().clone()];
        for _ in 0..steps {
            let executed = e.machine().waves[w].executed;
            let stop = e.run_wave(w, 1);
            // A step that stopped otherwise (a fault of a memory access, a breakpoint)
            // may still have executed the instruction: it is a step to undo too.
            if e.machine().waves[w].executed > executed {
                states.push(e.machine().clone());
            }
            if stop.reason != StopReason::Step {
                break;
            }
        }
        let mut at = states.len() - 1;
        for back in backs {
            let executed = e.machine().waves[w].executed;
            let stop = e.reverse_step(back);
            if executed == 0 {
                prop_assert_eq!(stop.reason, StopReason::Blocked(Blocked::HistoryStart));
                break;
            }
            prop_assert_eq!(e.machine().waves[w].executed, executed - back.min(executed));
            if (back as usize) <= at {
                at -= back as usize;
                if let Err(why) = same(e.machine(), &states[at]) {
                    return Err(TestCaseError::fail(format!("{back} back: {why}")));
                }
            } else {
                break;
            }
        }
    }
}

#[test]
fn reverse_stepi_at_the_start_of_history_says_so() {
    let mut e = engine(0, 0);
    let stop = e.reverse_step(1);
    assert_eq!(stop.reason, StopReason::Blocked(Blocked::HistoryStart));
    e.step(3);
    let stop = e.reverse_step(10);
    assert_eq!(
        stop.reason,
        StopReason::Blocked(Blocked::HistoryStart),
        "only 3 to undo"
    );
    assert_eq!(e.machine().waves[0].executed, 0);
    assert_eq!(e.machine().waves[0].pc, 0);
}

/// Past the record, `goto` runs forward; past the launch's end, it stops at the end.
#[test]
fn goto_past_the_end_of_the_launch_stops_at_the_end() {
    let mut e = engine(1, 0);
    e.step(5);
    let stop = e.goto(1_000_000).expect("goto");
    assert_eq!(stop.reason, StopReason::Finished);
    let end = e.machine().stats.wave_instructions;
    assert!(end < 1_000_000);
    // The whole launch is recorded now: back and forth within it.
    e.goto(5).expect("back");
    e.goto(end).expect("forward");
    assert_eq!(e.machine().stats.wave_instructions, end);
}

/// A small bound: snapshots thin out (every other one dropped, spacing doubled) and stay
/// under it, and every point is still reachable.
#[test]
fn snapshot_memory_stays_under_the_bound() {
    use wavedbg_emulator::bench::{program, resident_waves, Kernel};
    let p = program(Kernel::IntAlu, 1, 1_000_000).expect("kernel");
    let mut e = Engine::new(&p, resident_waves(64)).expect("launch");
    let bound = 512 << 10;
    e.set_history_size(bound);
    let mut points = Vec::new();
    for i in 0..40 {
        e.run_wave(i % 64, 20_000);
        points.push((e.machine().stats.wave_instructions, e.machine().clone()));
        let h = e.history().info(e.machine().stats.wave_instructions);
        assert!(h.bytes <= bound || h.snapshots == 1, "{h:?}");
    }
    let h = e.history().info(0);
    assert!(h.spacing > 50_000 && h.snapshots >= 2, "thinned out: {h:?}");
    for (count, want) in points.iter().rev().step_by(7) {
        e.goto(*count).expect("goto");
        same(e.machine(), want).expect("the same state");
    }
}

/// Many short stops (a gdb client's steps of alternating waves add one record entry
/// each): the record counts against `set history-size` too, and its oldest intervals are
/// dropped to keep within it. The history then starts later: reverse commands stop
/// there, `goto` before it is refused by name, and `restart` still reaches the launch.
#[test]
fn the_record_of_many_stops_stays_under_the_bound() {
    use wavedbg_emulator::bench::{program, resident_waves, Kernel};
    use wavedbg_emulator::debug::EngineError;
    let p = program(Kernel::IntAlu, 1, 1_000_000).expect("kernel");
    let mut e = Engine::new(&p, resident_waves(64)).expect("launch");
    let bound = 1 << 20;
    e.set_history_size(bound);
    let mut points = Vec::new();
    for i in 0..80_000 {
        e.run_wave(i % 64, 1);
        if i % 5_000 == 0 {
            let h = e.history().info(e.machine().stats.wave_instructions);
            assert!(h.bytes <= bound, "{i} stops: {h:?}");
            points.push((e.machine().stats.wave_instructions, e.machine().clone()));
        }
    }
    let now = e.machine().stats.wave_instructions;
    let h = e.history().info(now);
    assert!(h.bytes <= bound, "{h:?}");
    assert!(h.start > 0 && h.entries < 40_000, "oldest dropped: {h:?}");
    let text = wavedbg_emulator::debug::view::history_text(&e);
    assert!(text.contains("older history was dropped"), "{text}");
    // The points still recorded are reached exactly.
    for (count, want) in points.iter().filter(|(c, _)| *c >= h.start) {
        e.goto(*count).expect("goto");
        same(e.machine(), want).expect("the same state");
    }
    assert_eq!(
        e.goto(h.start - 1).map(|s| s.reason),
        Err(EngineError::BeforeHistory {
            count: h.start - 1,
            start: h.start
        })
    );
    e.goto(now).expect("back to the end");
    let stop = e.reverse_continue();
    assert_eq!(stop.reason, StopReason::Blocked(Blocked::HistoryStart));
    assert_eq!(e.machine().stats.wave_instructions, h.start);
    // A wave's instruction before the start: as far back as the record goes.
    e.goto(now).expect("back to the end");
    let stop = e.reverse_step(now);
    assert_eq!(stop.reason, StopReason::Blocked(Blocked::HistoryStart));
    assert_eq!(e.machine().stats.wave_instructions, h.start);
    e.restart();
    assert_eq!(e.machine().stats.wave_instructions, 0);
    same(
        e.machine(),
        &Engine::new(&p, resident_waves(64))
            .expect("launch")
            .machine()
            .clone(),
    )
    .expect("the launch");
}

fn histogram() -> Engine {
    engine(0, 0)
}

/// reverse-continue goes back through the breakpoint hits continue went through, in
/// reverse order, to the same waves and instruction counts; then to the start.
#[test]
fn reverse_continue_retraces_breakpoint_hits() {
    let mut e = histogram();
    e.add_breakpoint(
        &parse_location("next_word").expect("a label"),
        None,
        Filters::default(),
        false,
    )
    .expect("breakpoint");
    let mut hits = Vec::new();
    for _ in 0..6 {
        let s = e.continue_all();
        assert!(matches!(s.reason, StopReason::Breakpoint { .. }), "{s:?}");
        hits.push((s.wave_id, s.pc, s.instructions));
    }
    for want in hits.iter().rev().skip(1) {
        let s = e.reverse_continue();
        assert!(matches!(s.reason, StopReason::Breakpoint { .. }), "{s:?}");
        assert_eq!((s.wave_id, s.pc, s.instructions), *want);
    }
    let s = e.reverse_continue();
    assert_eq!(s.reason, StopReason::Blocked(Blocked::HistoryStart));
    assert_eq!(e.machine().stats.wave_instructions, 0);
    // And forward again: the same hits.
    for want in &hits {
        let s = e.continue_all();
        assert_eq!((s.wave_id, s.pc, s.instructions), *want);
    }
}

/// A watchpoint fires in reverse right before the instruction that made the access,
/// with the values it found and left.
#[test]
fn reverse_continue_stops_at_the_previous_watchpoint_hit() {
    use wavedbg_emulator::debug::breakpoint::{Scope, WatchKind};
    let mut e = histogram();
    e.add_watchpoint(WatchKind::Write, Scope::Shared(None), 0, 4, None)
        .expect("watch");
    let mut hits = Vec::new();
    for _ in 0..5 {
        let s = e.continue_all();
        let StopReason::Watchpoint(h) = &s.reason else {
            panic!("{s:?}");
        };
        hits.push((
            s.wave_id,
            h[0].pc,
            s.instructions,
            h[0].old.clone(),
            h[0].new.clone(),
        ));
    }
    for (wave, pc, after, old, new) in hits.iter().rev() {
        let s = e.reverse_continue();
        let StopReason::Watchpoint(h) = &s.reason else {
            panic!("{s:?}");
        };
        assert_eq!(s.wave_id, *wave);
        assert_eq!(h[0].pc, *pc);
        assert_eq!(s.pc, Some(*pc), "right before the accessing instruction");
        assert_eq!(s.instructions, after - 1);
        assert_eq!((&h[0].old, &h[0].new), (old, new));
    }
}

/// last-write on the histogram's shared bins, walked back three times, against an
/// independent search: the same launch stepped one instruction at a time on a plain
/// machine, noting every change of the word and which lanes' addresses name it.
#[test]
fn last_write_names_the_wave_lane_and_instruction() {
    use wavedbg_emulator::debug::WriteTarget;
    let (name, src) = KERNELS[0];
    let p = assemble(src, name, None).expect("kernel");
    let options = LaunchOptions {
        quantum: 5,
        ..LaunchOptions::default()
    };
    let mut e = Engine::new(&p, options).expect("launch");
    assert_eq!(e.continue_all().reason, StopReason::Finished);
    let end = e.machine().stats.wave_instructions;
    for bin in [0u64, 4, 40, 1020] {
        // Independently: (count before, wave id, lanes naming the word) of each change of
        // workgroup 0's shared word `bin`.
        let mut m = Machine::new(&p, options).expect("launch");
        let mut changes = Vec::new();
        let word = |m: &Machine| {
            let mut b = [0u8; 4];
            let _ = m.read_space(Space::Shared, 0, 0, bin, &mut b);
            b
        };
        while m.stats.wave_instructions < end {
            let Ok(w) = m.schedule() else { break };
            let before = word(&m);
            let count = m.stats.wave_instructions;
            let wave = m.waves[w].clone();
            let _ = m.step_scheduled(w);
            if m.waves[w].workgroup == 0 && word(&m) != before {
                let d = m.instr_at(wave.pc).expect("an instruction");
                let lanes = (0..32u32)
                    .filter(|&l| wave.exec >> l & 1 == 1)
                    .filter(|&l| {
                        (wave.v[d.instr.rs1 as usize][l as usize] as i64 + d.instr.imm) as u64
                            == bin
                    })
                    .fold(0u32, |a, l| a | 1 << l);
                changes.push((count, wave.id, lanes, wave.pc));
            }
        }
        assert!(changes.len() >= 3, "bin {bin}: {} changes", changes.len());
        e.select_wave(0).expect("wave 0");
        let target = WriteTarget::Memory {
            space: Space::Shared,
            addr: bin,
            len: 4,
            workgroup: 0,
            wave: 0,
            lane: 0,
        };
        let mut before = end;
        for want in changes.iter().rev().take(3) {
            let got = e
                .last_write(&target, before)
                .expect("not interrupted")
                .expect("a write");
            assert_eq!((got.count, got.wave, got.lanes, got.pc), *want, "bin {bin}");
            before = got.count;
        }
    }
}

/// The command forms, as a user types them.
#[test]
fn time_travel_commands() {
    let mut e = histogram();
    let run = |e: &mut Engine, line: &str| {
        run_line(e, line)
            .unwrap_or_else(|err| panic!("{line}: {err}"))
            .text
    };
    run(&mut e, "stepi 10");
    assert_eq!(e.machine().waves[0].executed, 10);
    assert!(run(&mut e, "rsi").contains("wave 0"));
    assert_eq!(e.machine().waves[0].executed, 9);
    assert!(run(&mut e, "reverse-stepi 5").contains("wave 0"));
    assert_eq!(e.machine().waves[0].executed, 4);
    assert!(run(&mut e, "goto 7").contains("reached instruction 7"));
    assert!(run(&mut e, "info history").contains("now at 7"));
    run(&mut e, "continue");
    // A register's write is a change of its value: v1 = lane id + 32 * wave index.
    let text = run(&mut e, "last-write v1[3]");
    assert!(
        text.contains("written by wave 0 (workgroup 0), lane 3"),
        "{text}"
    );
    assert!(
        text.contains("before: 0x00000000") && text.contains("after:  0x00000003"),
        "{text}"
    );
    let again = run(&mut e, "last-write v1[3]");
    assert!(
        again.contains("no write before"),
        "a repeat walks further back: {again}"
    );
    // A uniform register: wave 8's u7 goes 0x100 -> 0x400 (ushli u7, u7, 2).
    run(&mut e, "wave 8");
    let u = run(&mut e, "last-write u7");
    assert!(
        u.contains("written by wave 8 (workgroup 1), at 0x0048"),
        "{u}"
    );
    assert!(
        u.contains("before: 0x00000100") && u.contains("after:  0x00000400"),
        "{u}"
    );
    assert!(run(&mut e, "reverse-continue").contains("No more reverse-execution history"));
    // Past the recorded history, `goto` runs forward as `continue` does: to the end here.
    let end = run_line(&mut e, "goto 99999999").expect("goto forward");
    assert_eq!(end.stop.map(|s| s.reason), Some(StopReason::Finished));
}

/// `goto N` past the recorded history runs every wave forward as `continue` does, to
/// exactly count N: the machine a plain run of N instructions leaves, however the way
/// there is split, and from the past too.
#[test]
fn goto_past_the_history_runs_forward_as_continue_does() {
    let plain = |n: u64| {
        let (name, src) = KERNELS[0];
        let p = assemble(src, name, None).expect("example kernel");
        let mut m = Machine::new(
            &p,
            LaunchOptions {
                quantum: 5,
                max_instructions: Some(300_000),
                ..LaunchOptions::default()
            },
        )
        .expect("launch");
        assert!(m.run(Some(n)).is_none());
        m
    };
    let mut e = histogram();
    let stop = e.goto(700).expect("goto");
    assert_eq!(
        stop.reason,
        StopReason::Reached(wavedbg_emulator::debug::Reached::Count(700))
    );
    assert_eq!(stop.instructions, 700);
    same(e.machine(), &plain(700)).unwrap();
    // Further, in two legs, and from a point in the past.
    e.goto(1000).expect("goto");
    e.goto(300).expect("goto back");
    e.goto(1500).expect("goto forward from the past");
    same(e.machine(), &plain(1500)).unwrap();
    // A breakpoint on the way stops it, as it stops `continue`.
    let mut e = histogram();
    e.add_breakpoint(
        &parse_location("next_word").expect("a label"),
        None,
        Filters::default(),
        false,
    )
    .expect("breakpoint");
    let stop = e.goto(1500).expect("goto");
    assert!(
        matches!(stop.reason, StopReason::Breakpoint { .. }),
        "{stop:?}"
    );
}

/// A REPL run interrupted by Ctrl-C is recorded (by `--record`, and in the session's log)
/// as the command that stops where the interrupt did: replayed on a fresh engine, it
/// reaches the same machine and selection.
#[test]
fn an_interrupted_run_is_recorded_as_the_command_that_stops_there() {
    use wavedbg_emulator::debug::command;
    use wavedbg_emulator::debug::session::recordable;
    const SPIN: &str = "
.kernel spin
.workgroup 64
.grid 2
.shared 16
    uwaveid u5
    vlaneid v0
    vmovi v2, 0
again:
    vaddi.u32 v1, v1, 1
    uaddi u6, u6, 1
    atom.shared.add.u32 v1, v2, 0
    wait.ls 0
    br again
";
    let p = assemble(SPIN, "spin.s", None).expect("assembles");
    let fresh = || Engine::new(&p, LaunchOptions::default()).expect("launch");
    for (setup, line) in [
        ("", "continue"),
        ("", "stepi 1000000000"),
        ("", "stepi alone 1000000000"),
        ("", "finish"),
        ("", "advance barrier"),
        ("", "stepi all 1000000000"),
        ("set scheduler-locking off", "stepi 1000000000"),
        ("stepi all 3", "continue"),
    ] {
        let mut a = fresh();
        let mut script: Vec<String> = Vec::new();
        for l in [setup, "wave 2", "stepi 7"]
            .into_iter()
            .filter(|l| !l.is_empty())
        {
            run_line(&mut a, l).expect("setup");
            script.push(l.to_string());
        }
        let cmd = command::parse(line).expect("parses").expect("a command");
        let before = a.machine().stats.wave_instructions;
        let handle = a.interrupt_handle();
        let t = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(30));
            handle.interrupt();
        });
        let result = a.run(&cmd);
        t.join().expect("interrupter");
        let stop = result.as_ref().expect("runs").stop.clone().expect("a stop");
        assert_eq!(stop.reason, StopReason::Interrupted, "{line}");
        let text = recordable(&a, line, Some(&cmd), before, &result).expect("recorded");
        assert!(
            !text.contains(line) || line.starts_with("stepi all"),
            "{line}: {text}"
        );
        // The session's log (what `save` keeps and replaying the session runs) has the
        // same command in place of the interrupted one, else the replay runs it to its end.
        let log: Vec<&str> = a.log().iter().map(String::as_str).collect();
        let want: Vec<&str> = script
            .iter()
            .map(String::as_str)
            .chain(text.lines())
            .collect();
        assert_eq!(log, want, "{line}: the session's log");
        let mut b = fresh();
        for l in script.iter().map(String::as_str).chain(text.lines()) {
            run_line(&mut b, l).unwrap_or_else(|e| panic!("{l}: {e}"));
        }
        same(a.machine(), b.machine()).unwrap_or_else(|e| panic!("{line} as `{text}`: {e}"));
        assert_eq!(a.selected_wave, b.selected_wave, "{line} as `{text}`");
    }
}

/// Hostile time-travel requests answer, never panic: registers and lanes out of range,
/// counts past anything, a zero bound, addresses nobody maps.
#[test]
fn hostile_time_travel_requests_are_answered() {
    use wavedbg_emulator::debug::WriteTarget;
    let mut e = histogram();
    e.step(5);
    for line in [
        "last-write v200",
        "last-write v3[40]",
        "last-write u99",
        "last-write global:0xffffffffffffffff 16",
        "last-write shared:0x7fffffff 17",
        "last-write scratch:-1",
        "goto 18446744073709551615",
        "reverse-stepi 18446744073709551615",
        "set history-size 0",
        "set history-size 18446744073709551615",
        "rsi 0",
    ] {
        let _ = run_line(&mut e, line);
    }
    let weird = WriteTarget::Vector {
        wave: 0,
        reg: 255,
        lane: Some(200),
    };
    assert_eq!(e.last_write(&weird, u64::MAX), Ok(None));
    e.set_history_size(0);
    e.continue_all();
    let end = e.machine().stats.wave_instructions;
    e.goto(end / 2)
        .expect("reachable from the launch snapshot alone");
    assert_eq!(e.machine().stats.wave_instructions, end / 2);
}

/// A wave whose workgroup finished long ago, its slot since refilled by later waves, is
/// reached backwards: `reverse-continue` to its breakpoint and `reverse-stepi` of it.
#[test]
fn reverse_continue_reaches_a_wave_whose_slot_was_refilled() {
    let src = "\
.kernel loops
.workgroup 64
.grid 8
    umovi u1, 2000
again:
    uaddi u1, u1, -1
    br.unz u1, again
    end
";
    let p = assemble(src, "loops.s", None).expect("kernel");
    let options = LaunchOptions {
        resident_workgroups: 1,
        max_instructions: None,
        ..LaunchOptions::default()
    };
    let mut e = Engine::new(&p, options).expect("launch");
    // Snapshots every so often, so the last ones hold later workgroups' waves.
    e.set_history_size(1 << 20);
    let filters = Filters {
        wave: Some(5),
        ..Filters::default()
    };
    e.add_breakpoint(&Location::Address(8), None, filters, false)
        .expect("breakpoint");
    // Continue to the end, past wave 5's hits (it is in workgroup 2 of 8).
    let mut stops = 0;
    loop {
        let s = e.continue_all();
        match s.reason {
            StopReason::Breakpoint { .. } => stops += 1,
            StopReason::Finished => break,
            other => panic!("unexpected stop {other:?}"),
        }
    }
    assert_eq!(stops, 2000);
    let s = e.reverse_continue();
    assert!(
        matches!(s.reason, StopReason::Breakpoint { .. }),
        "{:?}",
        s.reason
    );
    assert_eq!(s.wave_id, Some(5), "stopped in wave 5");
    let w = s.wave.expect("a wave");
    assert_eq!(e.machine().waves[w].id, 5);
    assert_eq!(e.machine().waves[w].executed, 2 * 1999 + 1);
}

/// `reverse-continue` stops at the `brk` stops and faults `continue` stopped at, newest
/// first, each exactly where the forward run stopped for it (the same machine, the same
/// reason), as rr reports traps and signals backwards; then at the start.
#[test]
fn reverse_continue_stops_at_brk_and_faults_as_continue_does() {
    let brk = "\
.kernel brkloop
.workgroup 32
.grid 1
    umovi u10, 3
loop:
    uaddi u10, u10, -1
    brk
    br.unz u10, loop
    end
";
    let oob = "\
.kernel oob
.workgroup 96
.buffer b, 16
.arg u[0:1], b
    vlaneid v0
    vshli v0, v0, 2
    ld.ubase.b32 v1, u[0:1], v0, 0
    wait.vm 0
    end
";
    for (src, want) in [(brk, "BreakInstruction"), (oob, "Fault")] {
        let p = assemble(src, "k.s", None).expect("kernel");
        let mut e = Engine::new(&p, LaunchOptions::default()).expect("launch");
        let mut stops = Vec::new();
        loop {
            let s = e.continue_all();
            if !format!("{:?}", s.reason).starts_with(want) {
                break;
            }
            stops.push((s.clone(), e.machine().clone()));
        }
        assert_eq!(stops.len(), 3, "{want}: three stops forward");
        for (fwd, m) in stops.iter().rev() {
            let s = e.reverse_continue();
            assert_eq!(s.reason, fwd.reason, "{want} at count {}", fwd.instructions);
            assert_eq!(
                (s.wave_id, s.pc, s.instructions),
                (fwd.wave_id, fwd.pc, fwd.instructions)
            );
            same(e.machine(), m).expect("the machine the forward stop left");
        }
        let s = e.reverse_continue();
        assert_eq!(
            s.reason,
            StopReason::Blocked(Blocked::HistoryStart),
            "{want}"
        );
    }
}

/// `last-write exec` names the EXEC instruction that last set the selected wave's mask,
/// with the mask before and after it (as `goto` shows them), walking back on repeats; the
/// expression language's other names that are not memory are refused by name, never read
/// as an address.
#[test]
fn last_write_of_exec_and_refusals_of_names_that_are_not_memory() {
    let mut e = engine(4, 0);
    let run = |e: &mut Engine, line: &str| {
        run_line(e, line)
            .unwrap_or_else(|err| panic!("{line}: {err}"))
            .text
    };
    run(&mut e, "continue");
    run(&mut e, "wave 1");
    let field = |text: &str, key: &str| -> u64 {
        let at = text.find(key).expect(key) + key.len();
        let word: String = text[at..]
            .chars()
            .take_while(|c| !c.is_whitespace())
            .collect();
        let word = word.trim_end_matches([',', ')']);
        match word.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).expect("hex"),
            None => word.parse().expect("number"),
        }
    };
    let mut counts = Vec::new();
    for _ in 0..3 {
        let text = run(&mut e, "last-write exec");
        assert!(text.starts_with("exec: written by wave 1 "), "{text}");
        assert!(text.contains("(exec."), "an EXEC instruction: {text}");
        counts.push((
            field(&text, "goto "),
            field(&text, "before: "),
            field(&text, "after:  "),
        ));
    }
    assert!(
        counts.windows(2).all(|w| w[1].0 < w[0].0),
        "walks back: {counts:?}"
    );
    for (count, before, after) in counts {
        run(&mut e, &format!("goto {count}"));
        run(&mut e, "wave 1");
        assert_eq!(field(&run(&mut e, "print/x exec"), "= "), before);
        run(&mut e, "stepi");
        assert_eq!(field(&run(&mut e, "print/x exec"), "= "), after);
    }
    for name in ["pc", "lane", "wave"] {
        let err = run_line(&mut e, &format!("last-write {name}"))
            .expect_err("refused")
            .to_string();
        assert!(err.contains(&format!("`last-write {name}`")), "{err}");
        assert!(!err.contains("memory"), "{err}");
    }
}

/// Repeating `last-write` past the oldest write keeps saying there is none (it does not
/// start over at the newest), and an interrupted one shows no usage line: nothing in it
/// was mistyped.
#[test]
fn last_write_walks_stop_at_the_oldest_and_interrupts_show_no_usage() {
    let src = "\
.kernel k
.workgroup 32
    vlaneid v0
    vshli v0, v0, 2
    end
";
    let p = assemble(src, "k.s", None).expect("kernel");
    let mut e = Engine::new(&p, LaunchOptions::default()).expect("launch");
    let run = |e: &mut Engine, line: &str| {
        run_line(e, line)
            .unwrap_or_else(|err| panic!("{line}: {err}"))
            .text
    };
    run(&mut e, "stepi 2");
    assert!(run(&mut e, "last-write v0[1]").contains("instruction 2 "));
    assert!(run(&mut e, "last-write v0[1]").contains("instruction 1 "));
    for _ in 0..3 {
        let text = run(&mut e, "last-write v0[1]");
        assert!(text.contains("no write before instruction 0"), "{text}");
    }
    // Another target starts its own walk.
    assert!(run(&mut e, "last-write v0[2]").contains("instruction 2 "));
    e.interrupt_handle().interrupt();
    let err = run_line(&mut e, "last-write v0[3]").expect_err("interrupted");
    assert!(err.to_string().starts_with("Interrupted"), "{err}");
    assert_eq!(err.usage(), None);
    assert!(!err.to_string().contains("usage"), "{err}");
}

/// `set history-size` takes a bound of at least 1 MiB: gdb's 0 and `unlimited` (no
/// bound) are refused by name, not taken as "smallest possible" or "not a number".
#[test]
fn history_size_refuses_no_bound() {
    let mut e = histogram();
    for v in ["0", "unlimited", "0x0"] {
        let err = run_line(&mut e, &format!("set history-size {v}"))
            .expect_err("refused")
            .to_string();
        assert!(
            err.contains("needs a bound") && err.contains("at least 1"),
            "{v}: {err}"
        );
    }
    run_line(&mut e, "set history-size 1").expect("1 MiB");
}

/// gdb's words: `reverse-nexti` (`rni`) is `reverse-stepi`, `info record` is `info
/// history`.
#[test]
fn gdb_reverse_words_are_known() {
    let mut e = histogram();
    run_line(&mut e, "stepi 4").expect("stepi");
    for (line, executed) in [("reverse-nexti", 3), ("rni 2", 1)] {
        run_line(&mut e, line).unwrap_or_else(|err| panic!("{line}: {err}"));
        assert_eq!(e.machine().waves[0].executed, executed, "{line}");
    }
    let record = run_line(&mut e, "info record").expect("info record").text;
    assert_eq!(record, run_line(&mut e, "info history").expect("info").text);
}

/// `reverse-stepi` one instruction at a time, as gdb sends it (a packet per instruction):
/// each replays from a checkpoint the previous one kept near it, and every point is the
/// one a single `reverse-stepi N` reaches, across checkpoints and snapshots; a run forward
/// from there (a new future) ends as the original did.
#[test]
fn reverse_stepi_one_at_a_time_equals_one_reverse_stepi_n() {
    use wavedbg_emulator::bench::{program, resident_waves, Kernel};
    let p = program(Kernel::IntAlu, 1, 3_000).expect("kernel");
    let launch = || {
        let mut e = Engine::new(&p, resident_waves(64)).expect("launch");
        e.continue_all();
        e.select_wave_index(5).expect("wave 5");
        e
    };
    let (mut one, mut reference) = (launch(), launch());
    let end = one.machine().clone();
    let executed = one.machine().waves[5].executed;
    for k in 1..=1200u64 {
        let stop = one.reverse_step(1);
        assert_eq!(stop.reason, StopReason::Step, "step {k}");
        assert_eq!(one.machine().waves[5].executed, executed - k, "step {k}");
        if k % 97 == 0 || k == 1 || k == 1200 {
            reference.goto(end.stats.wave_instructions).expect("end");
            reference.reverse_step(k);
            same(one.machine(), reference.machine()).unwrap_or_else(|e| panic!("step {k}: {e}"));
        }
    }
    assert!(
        end.stats.wave_instructions - one.machine().stats.wave_instructions > 50_000,
        "crossed snapshots"
    );
    one.continue_all();
    same(one.machine(), &end).expect("the same end");
}

/// `reverse-finish`: the selected wave back to right before its first instruction (its
/// one frame began at the kernel's entry), said as gdb says it; at its entry, it stays.
#[test]
fn reverse_finish_goes_back_to_the_wave_s_entry() {
    use wavedbg_emulator::debug::Reached;
    let mut e = histogram();
    run_line(&mut e, "continue").expect("continue");
    run_line(&mut e, "wave 3").expect("wave 3");
    let before = e.machine().stats.wave_instructions;
    let out = run_line(&mut e, "reverse-finish")
        .expect("reverse-finish")
        .text;
    assert!(out.starts_with("Run back to the start of wave 3"), "{out}");
    let w = &e.machine().waves[3];
    assert_eq!((w.executed, w.pc), (0, 0), "{out}");
    assert!(e.machine().stats.wave_instructions < before);
    assert_eq!(
        e.last_stop().map(|s| s.reason.clone()),
        Some(StopReason::Reached(Reached::Entry))
    );
    // Again: already there.
    let at = e.machine().stats.wave_instructions;
    let out = run_line(&mut e, "reverse-finish").expect("again").text;
    assert!(out.starts_with("Run back to the start of wave 3"), "{out}");
    assert_eq!(e.machine().stats.wave_instructions, at);
    assert!(
        run_line(&mut e, "reverse-finish 2").is_err(),
        "takes no argument"
    );
}

/// `reverse-stepi` of a wave at its first instruction (or with fewer instructions than
/// asked) goes on back to the start of the record, as gdb's does, with that wave still
/// selected and shown: the same stop whichever path led there.
#[test]
fn reverse_stepi_past_a_wave_s_start_reaches_the_record_s_start_with_that_wave() {
    let mut e = histogram();
    run_line(&mut e, "stepi 3").expect("stepi");
    run_line(&mut e, "wave 5").expect("wave 5");
    for line in ["reverse-stepi", "stepi 2", "reverse-stepi 9"] {
        let text = run_line(&mut e, line).expect(line).text;
        if line.starts_with("stepi") {
            continue;
        }
        assert!(
            text.starts_with("No more reverse-execution history."),
            "{line}: {text}"
        );
        assert!(text.contains("wave 5 (workgroup 0)"), "{line}: {text}");
        assert_eq!(e.machine().stats.wave_instructions, 0, "{line}");
        assert_eq!(e.selected_wave, 5, "{line}");
    }
}

/// The machine copies a replay keeps near the last point it reached (for the next
/// reverse step) count against `set history-size` with the snapshots, the oldest going
/// first, and `info history` shows them: with many waves and a small bound they would
/// otherwise hold many times the bound.
#[test]
fn replay_checkpoints_count_against_the_bound() {
    use wavedbg_emulator::bench::{program, resident_waves, Kernel};
    let p = program(Kernel::IntAlu, 1, 1_000_000).expect("kernel");
    // 64 waves under 8 MiB: room for checkpoints (about 0.1 MiB each); 256 waves under
    // 2 MiB and 1 MiB: the snapshots leave no room for one (about 0.4 MiB each), where
    // the 16 kept before took 7 MiB whatever the bound.
    for (waves, bound, room) in [
        (64u32, 8usize << 20, true),
        (256, 2 << 20, false),
        (256, 1 << 20, false),
    ] {
        let mut e = Engine::new(&p, resident_waves(waves)).expect("launch");
        e.set_history_size(bound);
        e.goto(400_000).expect("run forward");
        let mut most = 0;
        for _ in 0..30 {
            e.reverse_step(1);
            let h = e.history().info(e.machine().stats.wave_instructions);
            assert!(h.bytes <= bound, "{waves} waves: {h:?}");
            assert!(h.checkpoint_bytes < h.bytes, "{h:?}");
            assert!(h.checkpoints <= 16, "{h:?}");
            most = most.max(h.checkpoints);
        }
        assert_eq!(most > 0, room, "{waves} waves, {bound} bytes");
        let text = wavedbg_emulator::debug::view::history_text(&e);
        assert_eq!(
            text.contains(" near the last replayed point, "),
            e.history().info(0).checkpoints > 0,
            "{text}"
        );
        if room {
            assert!(
                text.contains(" replay checkpoints near the last replayed point, "),
                "{text}"
            );
        }
    }
}

/// A record dropped to keep within the bound can still start at count 0 (edits made
/// before any instruction ran): `info history` says older history was dropped, not that
/// it starts at the launch.
#[test]
fn a_record_dropped_at_count_zero_says_so() {
    let mut e = engine(0, 1);
    e.set_history_size(1 << 20);
    for i in 0..40_000u32 {
        e.write_register(0, RegisterWrite::U { reg: 2, value: i })
            .expect("edit");
    }
    let h = e.history().info(0);
    assert!(h.dropped && h.start == 0, "{h:?}");
    let text = wavedbg_emulator::debug::view::history_text(&e);
    assert!(
        text.starts_with("Recorded history: instructions 0 to 0 (older history was dropped to keep within set history-size), now at 0.\n"),
        "{text}"
    );
}
