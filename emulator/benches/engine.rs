//! What the debugger costs: the bare machine against the engine with nothing armed, and
//! with 100 breakpoints and 32 watchpoints armed but never hit; and what one `stepi` (a
//! resume and a stop) costs at 2 and at 256 resident waves. The kernels are `wavedbg
//! bench`'s (emulator::bench). Figures in docs/performance.md; run with
//! `cargo bench -p wavedbg-emulator --bench engine`.

use divan::Bencher;
use wavedbg_emulator::bench::{armed_engine, armed_program, program, resident_waves, Kernel};
use wavedbg_emulator::debug::{Engine, StopReason};
use wavedbg_emulator::machine::{Event, LaunchOptions, Machine};

fn main() {
    divan::main();
}

/// The mixed kernel (global loads and stores, shuffles, ALU work, shared atomics) in 8
/// waves, 2,000 iterations: about 176,000 wave-instructions per run.
const WAVES: u32 = 8;
const ITERS: u32 = 2_000;

fn options() -> LaunchOptions {
    LaunchOptions {
        max_instructions: None,
        ..LaunchOptions::default()
    }
}

#[divan::bench]
fn bare_machine(b: Bencher) {
    let p = program(Kernel::Mixed, WAVES, ITERS).expect("kernel");
    b.with_inputs(|| Machine::new(&p, options()).expect("launch"))
        .bench_local_values(|mut m| {
            assert_eq!(m.run(None), Some(Event::Finished));
            m.stats.wave_instructions
        });
}

#[divan::bench]
fn engine_nothing_armed(b: Bencher) {
    let p = program(Kernel::Mixed, WAVES, ITERS).expect("kernel");
    b.with_inputs(|| Engine::new(&p, options()).expect("launch"))
        .bench_local_values(|mut e| {
            assert_eq!(e.continue_all().reason, StopReason::Finished);
            e.machine().stats.wave_instructions
        });
}

#[divan::bench]
fn engine_100_breakpoints_32_watchpoints_not_hit(b: Bencher) {
    let p = armed_program(WAVES, ITERS).expect("kernel");
    b.with_inputs(|| armed_engine(&p).expect("launch"))
        .bench_local_values(|mut e| {
            assert_eq!(e.continue_all().reason, StopReason::Finished);
            e.machine().stats.wave_instructions
        });
}

#[divan::bench(args = [2, 256])]
fn stepi_resume(b: Bencher, waves: u32) {
    let p = program(Kernel::IntAlu, 1, 100_000).expect("kernel");
    let mut e = Engine::new(&p, resident_waves(waves)).expect("launch");
    b.bench_local(|| e.step(1));
}
