//! Launches run on several threads (`run_on_threads`): the same end as the one-thread
//! run (memory, statistics, event) whether the workgroups were independent and ran in
//! parallel, or shared global bytes, faulted or ran out of budget and ran on one thread.

use std::path::PathBuf;

use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::bench::Kernel;
use wavedbg_emulator::machine::{run_on_threads, Event, LaunchOptions, Machine, OneThread};
use wavedbg_emulator::program::Program;

fn scripts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts")
}

fn program(path: &PathBuf) -> Program {
    let text = std::fs::read_to_string(path).expect("kernel");
    assemble(&text, &path.display().to_string(), None).expect("assembles")
}

/// Every buffer's bytes at the end.
fn buffers(m: &Machine) -> Vec<Vec<u8>> {
    m.program()
        .buffers
        .iter()
        .map(|b| {
            let mut bytes = vec![0; b.size as usize];
            let base = m.buffer_base(&b.name).expect("base");
            m.global.read(base, &mut bytes).expect("allocated");
            bytes
        })
        .collect()
}

/// Runs `p` with `options` on one thread and on `threads`; asserts the same end and
/// returns why the threaded run ran on one thread, if it did.
fn same_end(p: &Program, options: LaunchOptions, threads: usize) -> Option<OneThread> {
    let mut one = Machine::new(p, options).expect("launch");
    let event = one.run(None);
    let run = run_on_threads(p, options, threads).expect("launch");
    assert_eq!(run.event, event, "{} on {threads} threads", p.name);
    assert_eq!(
        run.machine.stats, one.stats,
        "{} on {threads} threads",
        p.name
    );
    assert_eq!(
        buffers(&run.machine),
        buffers(&one),
        "{} on {threads} threads",
        p.name
    );
    run.one_thread
}

#[test]
fn independent_workgroups_run_in_parallel_with_the_one_thread_result() {
    let p = assemble(&Kernel::int_alu_grid(8, 2, 40), "grid.s", None).expect("assembles");
    for threads in [2, 3, 8, 64] {
        for seed in [0, 7] {
            let options = LaunchOptions {
                seed,
                resident_workgroups: 3,
                ..LaunchOptions::default()
            };
            assert_eq!(same_end(&p, options, threads), None, "{threads} threads");
        }
    }
}

#[test]
fn every_example_kernel_ends_as_on_one_thread_on_any_number_of_threads() {
    let mut kernels: Vec<PathBuf> = std::fs::read_dir(scripts())
        .expect("scripts")
        .chain(std::fs::read_dir(scripts().join("bugs")).expect("bugs"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "s"))
        .collect();
    kernels.sort();
    assert!(kernels.len() >= 10);
    for k in &kernels {
        let p = program(k);
        for threads in [1, 2, 4] {
            same_end(&p, LaunchOptions::default(), threads);
        }
    }
}

#[test]
fn workgroups_sharing_global_bytes_run_on_one_thread_and_say_which() {
    // Every workgroup adds into out[lane] with a global atomic.
    let p = program(&scripts().join("histogram.s"));
    match same_end(&p, LaunchOptions::default(), 2) {
        Some(OneThread::Shared { writer, other, .. }) => assert_ne!(writer, other),
        other => panic!("expected shared bytes, got {other:?}"),
    }
}

#[test]
fn a_fault_or_the_budget_runs_on_one_thread_and_stops_where_it_does() {
    let p = program(&scripts().join("../tests/kernels/store_past_the_end.s"));
    let why = same_end(&p, LaunchOptions::default(), 2);
    assert!(
        matches!(why, Some(OneThread::Stopped) | Some(OneThread::Asked)),
        "{why:?}"
    );
    let p = assemble(&Kernel::int_alu_grid(4, 1, 1000), "grid.s", None).expect("assembles");
    let options = LaunchOptions {
        max_instructions: Some(5000),
        ..LaunchOptions::default()
    };
    let mut one = Machine::new(&p, options).expect("launch");
    assert!(matches!(one.run(None), Some(Event::Fault(_))));
    assert_eq!(same_end(&p, options, 2), Some(OneThread::Stopped));
    // Each part within the budget, the launch beyond it.
    let options = LaunchOptions {
        max_instructions: Some(15_000),
        ..LaunchOptions::default()
    };
    assert_eq!(same_end(&p, options, 4), Some(OneThread::Budget));
}
