//! What the debugger costs: the bare machine against the engine with nothing armed, and
//! with 100 breakpoints and 32 watchpoints armed but never hit. Figures in
//! docs/performance.md; run with `cargo bench -p wavedbg-emulator --bench engine`.

use divan::Bencher;
use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::debug::breakpoint::{Filters, Scope, WatchKind};
use wavedbg_emulator::debug::{Engine, StopReason};
use wavedbg_emulator::machine::{Event, LaunchOptions, Machine};
use wavedbg_emulator::program::Program;

fn main() {
    divan::main();
}

/// A kernel long enough (about 200,000 wave-instructions) that launch and stop costs
/// vanish: 8 waves loop over global loads and stores, shared atomics, shuffles and ALU work,
/// with a spare buffer and spare shared memory to watch.
const KERNEL: &str = "
.kernel bench
.workgroup 256
.grid 1
.shared 2048
.buffer data, 65536
.iota data, u32, 16384, 1, 3
.buffer spare, 4096
.arg u[0:1], data
    uwaveid u2
    vlaneid v0
    ushli u3, u2, 7
    vshli v1, v0, 2
    vadd.u32.u v1, v1, u3          ; this lane's byte offset
    vmovi v7, 1
    vandi v8, v1, 1020             ; shared bin offset
    umovi u4, 2000                 ; iterations
loop:
    ld.ubase.b32 v2, u[0:1], v1, 0
    wait.vm 0
    vmuli.u32 v3, v2, 2654435761
    shfl.xor.vi v4, v3, 1
    vadd.u32 v3, v3, v4
    atom.shared.add.u32 v7, v8, 0
    st.ubase.b32 v3, u[0:1], v1, 0
    vaddi.u32 v1, v1, 1024
    vandi v1, v1, 65535
    uaddi u4, u4, -1
    br.unz u4, loop
    end
";

fn program() -> Program {
    match assemble(KERNEL, "bench.s", None) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

fn options() -> LaunchOptions {
    LaunchOptions::default()
}

#[divan::bench]
fn bare_machine(b: Bencher) {
    let p = program();
    b.with_inputs(|| Machine::new(&p, options()).expect("launch"))
        .bench_local_values(|mut m| {
            assert_eq!(m.run(None), Some(Event::Finished));
            m.stats.wave_instructions
        });
}

#[divan::bench]
fn engine_nothing_armed(b: Bencher) {
    let p = program();
    b.with_inputs(|| Engine::new(&p, options()).expect("launch"))
        .bench_local_values(|mut e| {
            assert_eq!(e.continue_all().reason, StopReason::Finished);
            e.machine().stats.wave_instructions
        });
}

/// 100 breakpoints on executed instructions whose wave filter never matches, and 32
/// watchpoints on memory the kernel never touches (16 global, 16 shared).
fn armed(p: &Program) -> Engine {
    let mut e = Engine::new(p, options()).expect("launch");
    let addrs: Vec<u64> = p.lines.iter().map(|(a, _)| *a).collect();
    for i in 0..100 {
        let a = addrs[i % addrs.len()];
        let f = Filters {
            wave: Some(1_000_000 + i as u32),
            ..Filters::default()
        };
        e.add_breakpoint(&format!("{a:#x}"), None, f, false)
            .expect("breakpoint");
    }
    let spare = e.machine().buffer_base("spare").expect("spare");
    for i in 0..16u64 {
        e.add_watchpoint(WatchKind::Access, Scope::Global, spare + 64 * i, 8, None)
            .expect("watch");
        e.add_watchpoint(
            WatchKind::Write,
            Scope::Shared(None),
            1024 + 64 * i,
            8,
            None,
        )
        .expect("watch");
    }
    e
}

#[divan::bench]
fn engine_100_breakpoints_32_watchpoints_not_hit(b: Bencher) {
    let p = program();
    b.with_inputs(|| armed(&p)).bench_local_values(|mut e| {
        assert_eq!(e.continue_all().reason, StopReason::Finished);
        e.machine().stats.wave_instructions
    });
}

#[divan::bench(args = [2, 256])]
fn stepi_resume(b: Bencher, waves: u32) {
    let k = wavedbg_emulator::bench::Kernel::IntAlu;
    let p = assemble(&k.source(1, 100_000), "k.s", None).expect("asm");
    let per = waves.min(32);
    let o = LaunchOptions {
        workgroup_lanes: Some(per * 32),
        grid: Some(waves / per),
        resident_workgroups: waves / per,
        ..options()
    };
    let mut e = Engine::new(&p, o).expect("launch");
    b.bench_local(|| e.step(1));
}
