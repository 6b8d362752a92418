//! Machine-level rules: no panics or hangs on random programs, determinism, snapshots,
//! barriers and deadlocks, bounded dispatch of huge grids, faults with context.

use proptest::prelude::*;
use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::check::Checks;
use wavedbg_emulator::exec::AccessLog;
use wavedbg_emulator::fault::FaultKind;
use wavedbg_emulator::isa::{Instr, Isa, OperandKind};
use wavedbg_emulator::machine::{Event, LaunchOptions, Machine};
use wavedbg_emulator::memory::Space;
use wavedbg_emulator::program::Program;
use wavedbg_emulator::wave::WaveState;

fn program(src: &str) -> Program {
    assemble(src, "test.s", None).unwrap_or_else(|e| panic!("{e}"))
}

fn opts(seed: u64) -> LaunchOptions {
    LaunchOptions {
        seed,
        max_instructions: Some(20_000),
        ..Default::default()
    }
}

/// A kernel with shared memory, a buffer and a descriptor, so random code has targets.
fn random_program(code: Vec<u32>) -> Program {
    let mut p = program(".workgroup 64\n.grid 2\n.shared 256\n.scratch 16\n.buffer b, 4096\n.arg u[0:1], b\n.arg u[4:7], desc b\nend\n");
    p.code = code;
    p
}

fn run_to_event(p: &Program, seed: u64) -> Event {
    let mut m = Machine::new(p, opts(seed)).expect("launch");
    // Every run ends: the budget turns an endless loop into a fault.
    m.run(None).expect("an event")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_words_never_panic(code in prop::collection::vec(any::<u32>(), 1..64), seed in any::<u64>()) {
        let e = run_to_event(&random_program(code), seed);
        prop_assert!(!matches!(e, Event::Stalled));
    }

    /// The machine counts ended waves instead of scanning them: the count must agree with
    /// a scan at every step, through faults, exits and dispatch of later workgroups.
    #[test]
    fn waves_remaining_matches_a_scan(code in prop::collection::vec(any::<u32>(), 1..32), seed in any::<u64>()) {
        let mut p = random_program(code);
        p.code.push(0x40); // fall into `end` eventually
        let mut m = Machine::new(&p, LaunchOptions { resident_workgroups: 1, grid: Some(3), ..opts(seed) }).expect("launch");
        for _ in 0..2_000 {
            let alive = m.waves.iter().filter(|w| w.alive()).count() as u64;
            let scan = alive + m.workgroups_pending() as u64 * 2;
            prop_assert_eq!(m.waves_remaining(), scan);
            // Faults end one wave; the others (and later workgroups) go on.
            if m.step().is_some_and(|e| matches!(e, Event::Finished | Event::Deadlock(_) | Event::Stalled)) {
                break;
            }
        }
    }

    #[test]
    fn random_legal_instructions_never_panic(
        picks in prop::collection::vec((any::<u16>(), any::<[u32; 5]>()), 1..48),
        seed in any::<u64>(),
    ) {
        let _ = run_to_event(&random_program(legal_code(&picks, false)), seed);
    }

    /// `Machine::run` (whole quanta, wave-local instructions in a tight loop, ALU and
    /// branches in the pre-decoded fast loop) and `Machine::step` (one instruction at a
    /// time) are the same machine: the same events in the same order and the same final
    /// state, on random legal programs (mostly ALU, so the tight loop runs long
    /// stretches, with memory and control mixed in).
    #[test]
    fn running_equals_stepping(
        picks in prop::collection::vec((any::<u16>(), any::<[u32; 5]>()), 1..48),
        seed in 0u64..3,
        quantum in 1u32..20,
    ) {
        run_equals_step(&picks, seed, quantum, Checks::default(), false)?;
    }

    /// The same with every byte watched: memory instructions run in the tight loop with
    /// the access log, and a watched access ends the run after its instruction, as a
    /// hooked step reports it.
    #[test]
    fn running_equals_stepping_with_watchpoints(
        picks in prop::collection::vec((any::<u16>(), any::<[u32; 5]>()), 1..48),
        seed in 0u64..3,
        quantum in 1u32..20,
    ) {
        run_equals_step(&picks, seed, quantum, Checks::default(), true)?;
    }

    /// The same under every detector: the fast loop skips the sanitizer's hooks only
    /// where they would do nothing, so the findings (and the events they raise) are the
    /// ones instruction-by-instruction hooks give.
    #[test]
    fn running_equals_stepping_under_the_sanitizer(
        picks in prop::collection::vec((any::<u16>(), any::<[u32; 5]>()), 1..48),
        seed in 0u64..3,
        quantum in 1u32..20,
    ) {
        run_equals_step(&picks, seed, quantum, Checks::ALL, false)?;
    }

    /// The same under every detector with every byte watched: memory instructions run in
    /// the tight loop with both the access log and the sanitizer's trace, and a finding
    /// and a watched access of one instruction end the run as the hooked step ends it.
    #[test]
    fn running_equals_stepping_under_the_sanitizer_with_watchpoints(
        picks in prop::collection::vec((any::<u16>(), any::<[u32; 5]>()), 1..48),
        seed in 0u64..3,
        quantum in 1u32..20,
    ) {
        run_equals_step(&picks, seed, quantum, Checks::ALL, true)?;
    }
}

/// One case of [`running_equals_stepping`]: `checks` on in both machines, and with
/// `watch` every byte of every memory watched.
fn run_equals_step(
    picks: &[(u16, [u32; 5])],
    seed: u64,
    quantum: u32,
    checks: Checks,
    watch: bool,
) -> Result<(), TestCaseError> {
    let p = random_program(legal_code(picks, true));
    let options = LaunchOptions {
        quantum,
        max_instructions: Some(3_000),
        ..opts(seed)
    };
    let (mut a, mut b) = (
        Machine::new(&p, options).expect("launch"),
        Machine::new(&p, options).expect("launch"),
    );
    for m in [&mut a, &mut b] {
        m.set_checks(checks);
        if watch {
            let all = [Space::Global, Space::Shared, Space::Scratch].map(|s| (s, 0, u64::MAX));
            m.set_access_log(Some(AccessLog::new(all.to_vec())));
        }
    }
    let terminal = |e: &Event| matches!(e, Event::Finished | Event::Deadlock(_) | Event::Stalled);
    let mut ran = Vec::new();
    for _ in 0..200 {
        let Some(e) = a.run(None) else { break };
        let stop = terminal(&e);
        ran.push(e);
        if stop {
            break;
        }
    }
    let mut stepped = Vec::new();
    for _ in 0..200 {
        let Some(e) = (0..10_000).find_map(|_| b.step()) else {
            break;
        };
        let stop = terminal(&e);
        stepped.push(e);
        if stop {
            break;
        }
    }
    prop_assert_eq!(&ran, &stepped);
    prop_assert!(a.waves == b.waves, "wave state differs");
    prop_assert_eq!(a.stats, b.stats);
    prop_assert!(a.global == b.global && a.slots == b.slots, "memory differs");
    let findings = |m: &Machine| format!("{:?}", m.sanitizer().map(|s| s.findings()));
    prop_assert_eq!(findings(&a), findings(&b));
    Ok(())
}

/// Code of random legal instructions (the picks choose the definition and operand values);
/// with `local`, four in five are wave-local (registers only), so the machine's tight loop
/// runs long stretches between the others.
fn legal_code(picks: &[(u16, [u32; 5])], local: bool) -> Vec<u32> {
    let isa = Isa::get();
    let defs: Vec<_> = isa
        .defs()
        .iter()
        .filter(|d| !local || wavedbg_emulator::exec::is_wave_local(d.op()))
        .collect();
    let mut code = Vec::new();
    for &(which, vals) in picks {
        let def = if which % 5 == 0 {
            &isa.defs()[which as usize / 5 % isa.defs().len()]
        } else {
            defs[which as usize % defs.len()]
        };
        let id = isa.lookup(def.mnemonic()).expect("listed");
        let mut instr = Instr::new(id);
        for (op, v) in def.operands.iter().zip(vals) {
            let value = match op.kind {
                OperandKind::Reg { file, count } => (v % (file.count() - count as u32 + 1)) as i64,
                OperandKind::Imm(k) => {
                    let (lo, hi) = k.range();
                    lo + (v as i64).rem_euclid(hi - lo + 1)
                }
                OperandKind::Cpol => (v % 8) as i64,
            };
            instr.set(op.slot, value);
        }
        code.extend(instr.encode_words().expect("in range"));
    }
    code
}

const REDUCE: &str = include_str!("../../../scripts/reduce.s");

fn final_state(p: &Program, seed: u64) -> (Vec<u8>, u64) {
    let mut m = Machine::new(
        p,
        LaunchOptions {
            seed,
            ..Default::default()
        },
    )
    .expect("launch");
    assert_eq!(m.run(None), Some(Event::Finished));
    let out = m.global.by_name("out").expect("out").data.to_vec();
    (out, m.stats.wave_instructions)
}

#[test]
fn same_seed_same_result_and_interleaving() {
    let p = program(REDUCE);
    for seed in [0, 1, 7, 0xdead_beef] {
        assert_eq!(final_state(&p, seed), final_state(&p, seed));
    }
    // A race-free kernel gives the same memory under every interleaving.
    assert_eq!(final_state(&p, 0).0, final_state(&p, 99).0);
}

#[test]
fn seeds_change_the_interleaving() {
    // Each wave appends its id through an atomic counter: the order records the schedule.
    let src = ".workgroup 256\n.buffer log, 64\n.arg u[0:1], log\n\
        uwaveid u2\n vmov.u v1, u2\n vmovi v0, 0\n umovi u3, 1\n exec.and.save u4, u3\n\
        atom.ubase.add.u32.rtn v[5:5], u[0:1], v0, 0\n wait.vm 0\n vshli v5, v5, 2\n vaddi.u32 v5, v5, 4\n\
        st.ubase.b32 v1, u[0:1], v5, 0\n end\n";
    let p = program(src);
    let order = |seed| {
        let mut m = Machine::new(
            &p,
            LaunchOptions {
                seed,
                quantum: 1,
                ..Default::default()
            },
        )
        .expect("launch");
        assert_eq!(m.run(None), Some(Event::Finished));
        m.global.by_name("log").expect("log").data.to_vec()
    };
    let orders: std::collections::BTreeSet<Vec<u8>> = (1..20).map(order).collect();
    assert!(
        orders.len() > 1,
        "different seeds should explore different interleavings"
    );
    assert_eq!(order(5), order(5));
}

#[test]
fn snapshot_then_run_on_reproduces_the_result() {
    let p = program(REDUCE);
    let mut m = Machine::new(
        &p,
        LaunchOptions {
            seed: 3,
            ..Default::default()
        },
    )
    .expect("launch");
    assert_eq!(m.run(Some(37)), None);
    let mut snap = m.clone();
    assert_eq!(m.run(None), Some(Event::Finished));
    assert_eq!(snap.run(None), Some(Event::Finished));
    assert_eq!(m.global, snap.global);
    assert_eq!(m.stats, snap.stats);
    // Writing after the snapshot does not change the snapshot (copy-on-write pages).
    let mut base = Machine::new(&p, LaunchOptions::default()).expect("launch");
    let before = base.clone();
    let addr = base.buffer_base("out").expect("out");
    base.global.write(addr, &[1, 2, 3, 4]).expect("mapped");
    assert_ne!(base.global, before.global);
    assert_eq!(before.global.read_le(addr, 4), Some(0));
}

#[test]
fn barrier_orders_shared_memory_between_waves() {
    // Wave 1 writes shared memory before the barrier; wave 0 reads it after.
    let src = ".workgroup 64\n.shared 128\n.buffer out, 128\n.arg u[0:1], out\n\
        uwaveid u2\n vlaneid v0\n vshli v0, v0, 2\n br.uz u2, wait\n\
        vaddi.u32 v1, v0, 1000\n st.shared.b32 v1, v0, 0\n wait.ls 0\n\
        wait: barrier\n br.unz u2, done\n ld.shared.b32 v2, v0, 0\n wait.ls 0\n\
        st.ubase.b32 v2, u[0:1], v0, 0\n done: end\n";
    let p = program(src);
    for seed in [0, 1, 2, 3] {
        let mut m = Machine::new(
            &p,
            LaunchOptions {
                seed,
                ..Default::default()
            },
        )
        .expect("launch");
        assert_eq!(m.run(None), Some(Event::Finished));
        let out = m.global.by_name("out").expect("out").data.to_vec();
        for lane in 0..32u32 {
            let v = u32::from_le_bytes(
                out[4 * lane as usize..4 * lane as usize + 4]
                    .try_into()
                    .expect("4 bytes"),
            );
            assert_eq!(v, lane * 4 + 1000);
        }
    }
}

#[test]
fn each_resident_workgroup_has_its_own_shared_memory() {
    // Eight workgroups of two waves resident at once (the slots' shared memory in use
    // together), the second wave of each storing its workgroup's number to shared memory
    // as one run of words, the first reading it back after the barrier: every workgroup
    // must read its own number, under every schedule, in the tight loop and step by step.
    let src = ".workgroup 64\n.grid 16\n.shared 128\n.buffer out, 2048\n.arg u[0:1], out\n\
        uwaveid u2\n uwgid u3\n vlaneid v0\n vshli v0, v0, 2\n br.uz u2, wait\n\
        vmov.u v1, u3\n vaddi.u32 v1, v1, 1000\n st.shared.b32 v1, v0, 0\n wait.ls 0\n\
        wait: barrier\n br.unz u2, done\n ld.shared.b32 v2, v0, 0\n wait.ls 0\n\
        ushli u4, u3, 7\n vadd.u32.u v0, v0, u4\n st.ubase.b32 v2, u[0:1], v0, 0\n done: end\n";
    let p = program(src);
    for seed in [0, 1, 2, 3] {
        for quantum in [1, 3, 8] {
            let options = LaunchOptions {
                seed,
                quantum,
                ..Default::default()
            };
            let mut run = Machine::new(&p, options).expect("launch");
            assert_eq!(run.run(None), Some(Event::Finished));
            let mut stepped = Machine::new(&p, options).expect("launch");
            while stepped.step().is_none() {}
            for m in [&run, &stepped] {
                let out = m.global.by_name("out").expect("out").data.to_vec();
                for (k, word) in out.chunks_exact(4).enumerate() {
                    let v = u32::from_le_bytes(word.try_into().expect("4 bytes"));
                    let wg = (k / 32) as u32;
                    assert_eq!(v, 1000 + wg, "seed {seed}, quantum {quantum}, word {k}");
                }
            }
        }
    }
}

#[test]
fn a_barrier_an_exited_wave_never_reaches_is_a_deadlock() {
    let p = program(".workgroup 96\n uwaveid u0\n br.unz u0, skip\n barrier\nskip:\n end\n");
    let mut m = Machine::new(&p, LaunchOptions::default()).expect("launch");
    match m.run(None) {
        Some(Event::Deadlock(d)) => {
            assert_eq!(d.workgroup, 0);
            assert_eq!(d.waiting, vec![(0, 8)]);
            assert!(d
                .missing
                .iter()
                .any(|(w, s)| *w == 1 && *s == WaveState::Exited));
            let text = wavedbg_emulator::debug::view::deadlock_text(&m, &d);
            assert!(text.contains("wave 0") && text.contains("wave 1"), "{text}");
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

/// A wave that faults while the rest of its workgroup waits leaves a deadlock as surely as
/// one that exits; the fault's event is not the deadlock's, so each workgroup's deadlock
/// is named once no wave can run, not only the first slot's again and again.
#[test]
fn a_fault_after_the_others_wait_is_a_deadlock_in_every_workgroup() {
    let p = program(
        ".workgroup 64\n.grid 3\n uwaveid u0\n br.uz u0, wait\n nop\n nop\n nop\n brk\nwait:\n barrier\n end\n",
    );
    let mut m = Machine::new(&p, LaunchOptions::default()).expect("launch");
    let (mut faults, mut deadlocks) = (Vec::new(), Vec::new());
    for _ in 0..20 {
        match m.run(None) {
            Some(Event::Fault(f)) => faults.push(f.workgroup),
            Some(Event::Deadlock(d)) if deadlocks.contains(&d.workgroup) => break,
            Some(Event::Deadlock(d)) => {
                assert_eq!(d.missing, vec![(2 * d.workgroup + 1, WaveState::Faulted)]);
                deadlocks.push(d.workgroup);
            }
            other => panic!("expected faults and deadlocks, got {other:?}"),
        }
    }
    assert_eq!(faults, vec![0, 1, 2]);
    assert_eq!(deadlocks, vec![0, 1, 2]);
}

#[test]
fn endless_loop_exhausts_the_budget() {
    let p = program("loop: br loop\n");
    let mut m = Machine::new(
        &p,
        LaunchOptions {
            max_instructions: Some(5000),
            ..Default::default()
        },
    )
    .expect("launch");
    match m.run(None) {
        Some(Event::Fault(f)) => {
            assert_eq!(f.kind, FaultKind::BudgetExhausted { limit: 5000 });
            assert_eq!(f.pc, 0);
        }
        other => panic!("expected a budget fault, got {other:?}"),
    }
}

#[test]
fn huge_grids_run_in_bounded_memory() {
    let p = program(
        ".workgroup 64\n.grid 65536\n.buffer n, 4\n.arg u[0:1], n\n vmovi v0, 0\n vmovi v1, 1\n\
        umovi u2, 1\n exec.and.save u3, u2\n atom.ubase.add.u32 v1, u[0:1], v0, 0\n end\n",
    );
    let mut m = Machine::new(
        &p,
        LaunchOptions {
            resident_workgroups: 4,
            max_instructions: None,
            ..Default::default()
        },
    )
    .expect("launch");
    let mut most = 0;
    loop {
        most = most.max(m.waves.len());
        match m.run(Some(10_000)) {
            None => continue,
            Some(e) => {
                assert_eq!(e, Event::Finished);
                break;
            }
        }
    }
    assert_eq!(most, 8, "4 resident workgroups of 2 waves");
    assert_eq!(m.stats.workgroups_finished, 65536);
    assert_eq!(
        m.global.by_name("n").expect("n").data.read_le(0, 4),
        2 * 65536
    );
}

#[test]
fn faults_name_wave_lanes_pc_and_address() {
    let p = program(".workgroup 64\n.grid 2\n.shared 64\n nop\n vlaneid v0\n vshli v0, v0, 2\n ld.shared.b32 v1, v0, 0\n end\n");
    let mut m = Machine::new(&p, LaunchOptions::default()).expect("launch");
    match m.run(None) {
        Some(Event::Fault(f)) => {
            assert!(matches!(f.kind, FaultKind::OutOfWindow { .. }));
            assert_eq!(
                f.lanes, 0xffff_0000,
                "lanes 16-31 are past the 64-byte window"
            );
            assert_eq!(f.pc, 16, "vshli is a 64-bit instruction");
            assert_eq!(f.addr, Some(64));
            let text = f.to_string();
            assert!(
                text.contains("lanes 16-31")
                    && text.contains("pc 0x0010")
                    && text.contains("ld.shared.b32"),
                "{text}"
            );
        }
        other => panic!("expected a fault, got {other:?}"),
    }
}

#[test]
fn illegal_words_and_bad_pcs_fault() {
    let mut p = random_program(vec![0xffff_ffff]);
    match run_to_event(&p, 0) {
        Event::Fault(f) => assert!(
            matches!(f.kind, FaultKind::IllegalInstruction { .. }),
            "{f}"
        ),
        other => panic!("{other:?}"),
    }
    // Falling off the end of the code.
    p.code = program("nop\n").code;
    match run_to_event(&p, 0) {
        Event::Fault(f) => assert_eq!(f.kind, FaultKind::BadPc),
        other => panic!("{other:?}"),
    }
    // writelane to lane 40 traps.
    let p = program("writelane v1, u0, 40\n end\n");
    match run_to_event(&p, 0) {
        Event::Fault(f) => assert_eq!(f.kind, FaultKind::IllegalLane { lane: 40 }),
        other => panic!("{other:?}"),
    }
}

#[test]
fn brk_faults_in_plain_runs_and_stops_under_the_debugger() {
    let p = program("nop\n brk\n end\n");
    let mut m = Machine::new(&p, LaunchOptions::default()).expect("launch");
    assert!(matches!(m.run(None), Some(Event::Fault(f)) if f.kind == FaultKind::Break));
    let mut m = Machine::new(&p, LaunchOptions::default()).expect("launch");
    m.set_break_is_fault(false);
    assert_eq!(m.run(None), Some(Event::Break { wave: 0, pc: 4 }));
    assert_eq!(m.waves[0].pc, 8);
    assert_eq!(m.run(None), Some(Event::Finished));
}

#[test]
fn async_counters_track_outstanding_registers_until_a_wait() {
    let p = program(
        ".buffer b, 64\n.arg u[0:1], b\n vmovi v0, 0\n ld.ubase.b64 v[2:3], u[0:1], v0, 0\n\
        ld.ubase.b32 v4, u[0:1], v0, 8\n wait.vm 1\n wait.vm 0\n end\n",
    );
    use wavedbg_emulator::isa::{Counter, RegFile};
    let mut m = Machine::new(&p, LaunchOptions::default()).expect("launch");
    for _ in 0..3 {
        assert_eq!(m.step_wave(0), None);
    }
    let w = &m.waves[0];
    assert_eq!(w.counter(Counter::Vm), 2);
    assert!(w.pending_write(RegFile::Vector, 3).is_some());
    assert!(w.pending_write(RegFile::Vector, 4).is_some());
    assert!(w.pending_write(RegFile::Vector, 5).is_none());
    m.step_wave(0);
    let w = &m.waves[0];
    assert_eq!(w.counter(Counter::Vm), 1);
    assert!(
        w.pending_write(RegFile::Vector, 2).is_none(),
        "the oldest load retired first"
    );
    assert!(w.pending_write(RegFile::Vector, 4).is_some());
    m.step_wave(0);
    assert_eq!(m.waves[0].counter(Counter::Vm), 0);
}

/// Vector lane-ops count the active lanes of vector instructions only: uniform ALU,
/// EXEC changes, and `end` add to `lane_ops` (every instruction's active lanes) but not
/// to `vector_lane_ops`, under a partial EXEC too.
#[test]
fn vector_lane_ops_count_only_vector_instructions() {
    let p = program(
        ".workgroup 32\n.grid 1\n\
         uwgid u4\n\
         ushli u6, u4, 1\n\
         vlaneid v0\n\
         vandi v9, v0, 1\n\
         vmovi v8, 0\n\
         vcmp.ne.b32 u12, v9, v8\n\
         exec.and.save u13, u12\n\
         vaddi.u32 v3, v3, 1000\n\
         exec.set u13\n\
         end\n",
    );
    let mut m = Machine::new(&p, opts(0)).expect("launch");
    assert_eq!(m.run(None), Some(Event::Finished));
    // Four vector instructions on 32 lanes and one on the 16 odd lanes.
    assert_eq!(m.stats.vector_lane_ops, 4 * 32 + 16);
    // Every instruction: seven on 32 lanes up to `exec.and.save`, `vaddi` and `exec.set`
    // on the 16 odd lanes, and `end` on the 32 that `exec.set` restored.
    assert_eq!(m.stats.wave_instructions, 10);
    assert_eq!(m.stats.lane_ops, 7 * 32 + 16 + 16 + 32);
}

/// A loop of global and shared loads, stores, atomics and shuffles (the bench's mixed
/// kernel, 4 waves) with watchpoints on words its loop touches: `run` (memory in the
/// tight loop with the access log) raises the same watch hits, in the same order and
/// at the same state, as stepping one instruction at a time.
#[test]
fn watched_memory_loops_run_as_they_step() {
    use wavedbg_emulator::bench::Kernel;
    let p = program(&Kernel::Mixed.source(4, 40));
    let options = LaunchOptions {
        max_instructions: None,
        ..opts(0)
    };
    let (mut a, mut b) = (
        Machine::new(&p, options).expect("launch"),
        Machine::new(&p, options).expect("launch"),
    );
    for m in [&mut a, &mut b] {
        let out = m.buffer_base("out").expect("buffer out");
        let log = AccessLog::new(vec![
            (Space::Global, out + 4 * 1024 + 8, out + 4 * 1024 + 12),
            (Space::Shared, 64, 68),
        ]);
        m.set_access_log(Some(log));
    }
    let mut ran = Vec::new();
    while let Some(e) = a.run(None) {
        let end = e == Event::Finished;
        ran.push((e, a.stats.wave_instructions));
        if end {
            break;
        }
    }
    let mut stepped = Vec::new();
    while let Some(e) = (0..1_000_000).find_map(|_| b.step()) {
        let end = e == Event::Finished;
        stepped.push((e, b.stats.wave_instructions));
        if end {
            break;
        }
    }
    let hits = ran
        .iter()
        .filter(|(e, _)| matches!(e, Event::WatchHit { .. }))
        .count();
    assert!(hits >= 40, "{hits} watch hits");
    assert_eq!(ran, stepped);
    assert!(a.waves == b.waves && a.global == b.global && a.slots == b.slots);
}
