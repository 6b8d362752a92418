//! `wavedbg bench`: the interpreter's throughput on a fixed set of kernels, each against a
//! native Rust implementation of the same computation timed in the same run, plus what the
//! debugger costs (an armed engine against the bare machine) and what one resume costs
//! as the grid grows. Figures and the commands that reproduce them: docs/performance.md.
//!
//! Timing stays out of the test suite; the suite checks only that every kernel computes
//! what its native version does ([`verify`]) and that every time-travel case reaches the
//! stop it should (in quick mode).

mod kernels;
mod time_travel;

use std::time::{Duration, Instant};

use serde::Serialize;

pub use kernels::Kernel;

use crate::asm::assemble;
use crate::debug::breakpoint::{Filters, Scope, WatchKind};
use crate::debug::{Engine, StopReason};
use crate::machine::{in_order, run_on_threads, Event, LaunchError, LaunchOptions, Machine};
use crate::memory::Space;
use crate::program::Program;

/// The wave counts (waves of 32 lanes, one workgroup) each kernel is measured at.
pub const WAVE_COUNTS: [u32; 2] = [1, 8];

/// One benchmark case's figures. Rates are per second of the fastest run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measurement {
    /// The case's name: a kernel's, `armed-<kernel>`, `checked-<kernel or example>`,
    /// `engine-stepi`, or a time-travel case (`time-travel-bare`, `time-travel-record`,
    /// `last-write`, `last-write-uniform`, `reverse-stepi`, `reverse-continue`,
    /// `reverse-continue-break`, `reverse-continue-watch`, `interrupt-search`).
    pub kernel: String,
    /// Waves resident in the case's launch (all of a kernel's waves are resident).
    pub waves: u32,
    /// Wave-instructions of one timed run, summed over waves (`engine-stepi`: the steps;
    /// checked examples: all repeated launches; time travel: the history's length).
    pub wave_instructions: u64,
    /// Lane operations of one run: the sum over instructions of their active lanes.
    pub lane_ops: u64,
    /// Vector lane operations of one run: the active lanes of vector instructions only
    /// (`Stats::vector_lane_ops`; loop control in uniform registers and branches are left
    /// out). Throughput targets are in these.
    pub vector_lane_ops: u64,
    /// Seconds of the fastest run (time travel: the forward run's, or the one answer's
    /// latency; `interrupt-search`: from the interrupt to the search's return).
    pub seconds: f64,
    /// Wave-instructions per second of the fastest run (a time-travel search: the
    /// forward recording's rate).
    pub wave_instructions_per_s: f64,
    /// Lane operations per second of the fastest run.
    pub lane_ops_per_s: f64,
    /// Vector lane operations per second of the fastest run.
    pub vector_lane_ops_per_s: f64,
    /// Kernel cases: the native Rust implementation's rate, in vector lane operations per
    /// second (the emulated run's vector lane-operation count over the native run's time:
    /// the native code does the vector work, its loop control is the compiler's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub native_vector_lane_ops_per_s: Option<f64>,
    /// Emulated over native throughput (1.0 would be native speed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs_native: Option<f64>,
    /// Armed and checked cases, and `time-travel-record`: throughput over the bare
    /// machine's on the same kernel and waves (below 1.0: the hooks', detectors' or
    /// recording's cost; `time-travel-record`: of CPU time where it is known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs_bare: Option<f64>,
    /// `threads-N`: throughput over the same launch run on one thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs_one_thread: Option<f64>,
    /// `engine-stepi` at many waves: cost of one `stepi` over its cost at 2 waves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs_two_waves: Option<f64>,
    /// Time-travel cases: the history's estimated memory in bytes after the forward run
    /// (snapshots and the index's summaries, `HistoryInfo::bytes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_bytes: Option<u64>,
    /// `time-travel-bare` and `time-travel-record`, where the system says (Linux): the
    /// thread's CPU time for the run `seconds` timed, which other processes' load inflates
    /// less than wall-clock time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<f64>,
}

/// Why a benchmark could not run (a defect of the emulator, never of the machine).
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A benchmark kernel did not assemble.
    #[error("benchmark kernel {kernel}: {message}")]
    Assemble {
        /// The kernel's (or example's) name.
        kernel: &'static str,
        /// The assembler's report.
        message: String,
    },
    /// A benchmark kernel did not launch.
    #[error("benchmark kernel {kernel}: {source}")]
    Launch {
        /// The kernel's (or example's) name.
        kernel: &'static str,
        /// Why the machine or engine refused the launch.
        source: LaunchError,
    },
    /// A run ended in something other than completion.
    #[error("benchmark kernel {kernel} at {waves} waves stopped: {event}")]
    Stopped {
        /// The case's kernel (or time-travel case).
        kernel: &'static str,
        /// Resident waves of the launch (0: no launch ran).
        waves: u32,
        /// How it stopped: the machine's event or the engine's stop reason, as debug text.
        event: String,
    },
    /// The emulator's result differs from the native implementation's.
    #[error("benchmark kernel {kernel} at {waves} waves: word {word} of `out` is {got:#x}, the native computation gives {want:#x}")]
    Mismatch {
        /// The kernel's name.
        kernel: &'static str,
        /// Waves the kernel ran at.
        waves: u32,
        /// Index of the first differing 32-bit word in `out`.
        word: usize,
        /// The word the emulator left in `out` (0 if `out` could not be read).
        got: u32,
        /// The word the native implementation computes.
        want: u32,
    },
}

/// How long to measure: each measurement repeated for 1 s (the fastest repetition
/// counts), or for 60 ms with an eighth of the iterations when `quick`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BenchOptions {
    /// Short runs (the whole suite in a few seconds) for a quick look and for tests.
    pub quick: bool,
    /// Only the sanitizer's cost: the `checked-*` cases.
    pub checked_only: bool,
}

impl BenchOptions {
    fn iterations(self, k: Kernel) -> u32 {
        if self.quick {
            k.iterations() / 8
        } else {
            k.iterations()
        }
    }

    /// Time spent repeating each measurement (the fastest repetition counts).
    fn budget(self) -> Duration {
        Duration::from_millis(if self.quick { 60 } else { 1000 })
    }
}

/// Runs every case, calling `each` as each measurement completes (for live output).
pub fn run(
    options: BenchOptions,
    mut each: impl FnMut(&Measurement),
) -> Result<Vec<Measurement>, BenchError> {
    let mut out = Vec::new();
    let mut push = |m: Measurement, out: &mut Vec<Measurement>| {
        each(&m);
        out.push(m);
    };
    if options.checked_only {
        for m in checked_cases(options)? {
            push(m, &mut out);
        }
        return Ok(out);
    }
    for k in Kernel::ALL {
        for waves in WAVE_COUNTS {
            push(kernel_case(options, k, waves)?, &mut out);
        }
    }
    for waves in WAVE_COUNTS {
        let bare = out
            .iter()
            .find(|m| m.kernel == Kernel::Mixed.name() && m.waves == waves)
            .map(|m| m.vector_lane_ops_per_s);
        let mut m = armed_case(options, waves)?;
        m.vs_bare = bare.map(|b| m.vector_lane_ops_per_s / b);
        push(m, &mut out);
    }
    for m in checked_cases(options)? {
        push(m, &mut out);
    }
    push(threads_case(options, 2)?, &mut out);
    push(seeds_case(options, 2)?, &mut out);
    let small = stepi_case(options, 2)?;
    let mut large = stepi_case(options, 256)?;
    large.vs_two_waves = Some(large.seconds / small.seconds);
    push(small, &mut out);
    push(large, &mut out);
    for m in time_travel::cases(options)? {
        push(m, &mut out);
    }
    Ok(out)
}

/// Runs kernel `k` once at `waves` waves and `iters` iterations and checks its `out`
/// buffer against the native implementation (the test suite's use of the benchmarks).
pub fn verify(k: Kernel, waves: u32, iters: u32) -> Result<(), BenchError> {
    let p = program(k, waves, iters)?;
    let mut m = Machine::new(&p, launch_options()).map_err(|source| BenchError::Launch {
        kernel: k.name(),
        source,
    })?;
    let event = m.run(None);
    if event != Some(Event::Finished) {
        return Err(BenchError::Stopped {
            kernel: k.name(),
            waves,
            event: format!("{event:?}"),
        });
    }
    check(&m, k, waves, &k.native(waves, iters))
}

/// Kernel `k` assembled for `waves` waves and `iters` iterations.
pub fn program(k: Kernel, waves: u32, iters: u32) -> Result<Program, BenchError> {
    assemble(&k.source(waves, iters), "bench.s", None).map_err(|e| BenchError::Assemble {
        kernel: k.name(),
        message: e.to_string(),
    })
}

/// Launch options for `waves` resident waves (a multiple of 32 above 32): workgroups of up
/// to 32 waves, all resident, no instruction budget.
pub fn resident_waves(waves: u32) -> LaunchOptions {
    let per_group = waves.clamp(1, 32);
    LaunchOptions {
        workgroup_lanes: Some(per_group * 32),
        grid: Some((waves / per_group).max(1)),
        resident_workgroups: (waves / per_group).max(1),
        ..launch_options()
    }
}

fn launch_options() -> LaunchOptions {
    LaunchOptions {
        max_instructions: None,
        ..LaunchOptions::default()
    }
}

/// Repeats `once` until the budget is spent; returns the fastest time and the last value.
fn fastest<T>(
    budget: Duration,
    mut once: impl FnMut() -> Result<(Duration, T), BenchError>,
) -> Result<(Duration, T), BenchError> {
    let start = Instant::now();
    let (mut best, mut value) = once()?;
    while start.elapsed() < budget {
        let (t, v) = once()?;
        best = best.min(t);
        value = v;
    }
    Ok((best, value))
}

/// A run's lane operations: all of them, and those of vector instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Lanes {
    all: u64,
    vector: u64,
}

impl Lanes {
    /// The lane operations a machine's statistics counted.
    fn of(stats: &crate::machine::Stats) -> Lanes {
        Lanes {
            all: stats.lane_ops,
            vector: stats.vector_lane_ops,
        }
    }

    /// `n` runs' worth.
    fn times(self, n: u64) -> Lanes {
        Lanes {
            all: self.all * n,
            vector: self.vector * n,
        }
    }
}

fn measurement(kernel: String, waves: u32, instrs: u64, lanes: Lanes, t: Duration) -> Measurement {
    let s = t.as_secs_f64().max(1e-9);
    Measurement {
        kernel,
        waves,
        wave_instructions: instrs,
        lane_ops: lanes.all,
        vector_lane_ops: lanes.vector,
        seconds: s,
        wave_instructions_per_s: instrs as f64 / s,
        lane_ops_per_s: lanes.all as f64 / s,
        vector_lane_ops_per_s: lanes.vector as f64 / s,
        native_vector_lane_ops_per_s: None,
        vs_native: None,
        vs_bare: None,
        vs_one_thread: None,
        vs_two_waves: None,
        snapshot_bytes: None,
        cpu_seconds: None,
    }
}

fn kernel_case(options: BenchOptions, k: Kernel, waves: u32) -> Result<Measurement, BenchError> {
    let iters = options.iterations(k);
    let p = program(k, waves, iters)?;
    let want = k.native(waves, iters);
    let (t, m) = fastest(options.budget(), || {
        let mut m = Machine::new(&p, launch_options()).map_err(|source| BenchError::Launch {
            kernel: k.name(),
            source,
        })?;
        let start = Instant::now();
        let event = m.run(None);
        let t = start.elapsed();
        if event != Some(Event::Finished) {
            return Err(BenchError::Stopped {
                kernel: k.name(),
                waves,
                event: format!("{event:?}"),
            });
        }
        Ok((t, m))
    })?;
    check(&m, k, waves, &want)?;
    let (native, _) = fastest(options.budget() / 4, || {
        let start = Instant::now();
        let r = std::hint::black_box(k.native(waves, iters));
        Ok((start.elapsed(), r.len()))
    })?;
    let mut r = measurement(
        k.name().to_string(),
        waves,
        m.stats.wave_instructions,
        Lanes::of(&m.stats),
        t,
    );
    let native_rate = m.stats.vector_lane_ops as f64 / native.as_secs_f64().max(1e-9);
    r.native_vector_lane_ops_per_s = Some(native_rate);
    r.vs_native = Some(r.vector_lane_ops_per_s / native_rate);
    Ok(r)
}

fn check(m: &Machine, k: Kernel, waves: u32, want: &[u32]) -> Result<(), BenchError> {
    let base = m.buffer_base("out").unwrap_or_default();
    let mut bytes = vec![0u8; want.len() * 4];
    let read = m.read_space(Space::Global, 0, 0, base, &mut bytes);
    let got = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    for (word, (got, &want)) in got.zip(want).enumerate() {
        if got != want || read.is_err() {
            return Err(BenchError::Mismatch {
                kernel: k.name(),
                waves,
                word,
                got,
                want,
            });
        }
    }
    Ok(())
}

/// The example kernels of scripts/ (each launch is short: the timing repeats it).
pub const EXAMPLES: [(&str, &str); 7] = [
    ("histogram", include_str!("../../../scripts/histogram.s")),
    ("transpose", include_str!("../../../scripts/transpose.s")),
    ("scan", include_str!("../../../scripts/scan.s")),
    (
        "reduce_shfl",
        include_str!("../../../scripts/reduce_shfl.s"),
    ),
    ("bitonic", include_str!("../../../scripts/bitonic.s")),
    ("divergent", include_str!("../../../scripts/divergent.s")),
    ("spill", include_str!("../../../scripts/spill.s")),
];

/// Runs `p` to the end once with `options`, bare or with every sanitizer detector on
/// (then going on past findings); returns the time of the run (not of making the
/// machine) and the machine.
fn launch_once(
    p: &Program,
    name: &'static str,
    checked: bool,
    options: LaunchOptions,
) -> Result<(Duration, Machine), BenchError> {
    let mut m = Machine::new(p, options).map_err(|source| BenchError::Launch {
        kernel: name,
        source,
    })?;
    if checked {
        m.set_checks(crate::check::Checks::ALL);
    }
    let start = Instant::now();
    let event = loop {
        match m.run(None) {
            Some(Event::Finding { .. }) => continue,
            e => break e,
        }
    };
    let t = start.elapsed();
    if event != Some(Event::Finished) {
        return Err(BenchError::Stopped {
            kernel: name,
            waves: m.waves.len() as u32,
            event: format!("{event:?}"),
        });
    }
    Ok((t, m))
}

/// Runs `p` to the end `repeat` times, bare or with every sanitizer detector on (then
/// going on past findings); returns the time and the last machine.
fn launch_repeated(
    p: &Program,
    name: &'static str,
    checked: bool,
    repeat: u32,
) -> Result<(Duration, Machine), BenchError> {
    let mut last = None;
    let mut total = Duration::ZERO;
    for _ in 0..repeat {
        let (t, m) = launch_once(p, name, checked, launch_options())?;
        total += t;
        last = Some(m);
    }
    last.map(|m| (total, m)).ok_or(BenchError::Stopped {
        kernel: name,
        waves: 0,
        event: "no launch".into(),
    })
}

/// The sanitizer's cost: every kernel at 8 waves and every example kernel, bare and with
/// every detector on (`checked-<kernel>`, `vs_bare` the ratio of their rates). Bare and
/// checked runs alternate, so both see the same load on a shared machine.
fn checked_cases(options: BenchOptions) -> Result<Vec<Measurement>, BenchError> {
    let mut out = Vec::new();
    let waves = 8;
    for k in Kernel::ALL {
        let p = program(k, waves, options.iterations(k))?;
        let ((bare_t, _), (t, m)) = fastest_pair(
            options.budget() * 2,
            || launch_repeated(&p, k.name(), false, 1),
            || launch_repeated(&p, k.name(), true, 1),
        )?;
        check(&m, k, waves, &k.native(waves, options.iterations(k)))?;
        let mut r = measurement(
            format!("checked-{}", k.name()),
            waves,
            m.stats.wave_instructions,
            Lanes::of(&m.stats),
            t,
        );
        r.vs_bare = Some(bare_t.as_secs_f64() / t.as_secs_f64().max(1e-9));
        out.push(r);
    }
    let repeat = if options.quick { 5 } else { 40 };
    for (name, source) in EXAMPLES {
        let p = assemble(source, name, None).map_err(|e| BenchError::Assemble {
            kernel: name,
            message: e.to_string(),
        })?;
        let ((bare_t, m), (t, _)) = fastest_pair(
            options.budget() * 2,
            || launch_repeated(&p, name, false, repeat),
            || launch_repeated(&p, name, true, repeat),
        )?;
        let n = repeat as u64;
        let mut r = measurement(
            format!("checked-{name}"),
            m.waves.len() as u32,
            m.stats.wave_instructions * n,
            Lanes::of(&m.stats).times(n),
            t,
        );
        r.vs_bare = Some(bare_t.as_secs_f64() / t.as_secs_f64().max(1e-9));
        out.push(r);
    }
    Ok(out)
}

/// `threads-N`: the integer ALU kernel as a grid of 16 independent workgroups of 2 waves,
/// run to its end by [`run_on_threads`] on `threads` threads (the machine made inside, as
/// `wavedbg run --threads` does) against a one-thread run of the same launch (its machine
/// made in the timing too); `vs_one_thread` is the speed-up.
fn threads_case(options: BenchOptions, threads: usize) -> Result<Measurement, BenchError> {
    let name = "int-alu-grid";
    let (groups, per_group) = (16, 2);
    // Long enough (6.4 M wave-instructions, tens of milliseconds) that starting the
    // threads and making the parts' machines do not stand for the case.
    let iters = options.iterations(Kernel::IntAlu);
    let p = assemble(
        &Kernel::int_alu_grid(groups, per_group, iters),
        "bench.s",
        None,
    )
    .map_err(|e| BenchError::Assemble {
        kernel: name,
        message: e.to_string(),
    })?;
    let launch = |source| BenchError::Launch {
        kernel: name,
        source,
    };
    let finished = |event: Option<Event>| {
        if event == Some(Event::Finished) {
            Ok(())
        } else {
            Err(BenchError::Stopped {
                kernel: name,
                waves: groups * per_group,
                event: format!("{event:?}"),
            })
        }
    };
    let ((one_t, _), (t, m)) = fastest_pair(
        options.budget() * 2,
        || {
            let start = Instant::now();
            let mut m = Machine::new(&p, launch_options()).map_err(launch)?;
            finished(m.run(None))?;
            Ok((start.elapsed(), m))
        },
        || {
            let start = Instant::now();
            let run = run_on_threads(&p, launch_options(), threads).map_err(launch)?;
            finished(run.event)?;
            if let Some(why) = run.one_thread {
                return Err(BenchError::Stopped {
                    kernel: name,
                    waves: groups * per_group,
                    event: format!("ran on one thread: {why}"),
                });
            }
            Ok((start.elapsed(), run.machine))
        },
    )?;
    let waves = groups * per_group;
    check(
        &m,
        Kernel::IntAlu,
        waves,
        &Kernel::IntAlu.native(waves, iters),
    )?;
    let mut r = measurement(
        format!("threads-{threads}-{name}"),
        waves,
        m.stats.wave_instructions,
        Lanes::of(&m.stats),
        t,
    );
    r.vs_one_thread = Some(one_t.as_secs_f64() / t.as_secs_f64().max(1e-9));
    Ok(r)
}

/// `seeds-8-checked-int-alu`: what `wavedbg check --seeds 8` runs, the integer ALU kernel
/// at 8 waves with every sanitizer detector on, once and then under 8 seeded schedules,
/// the seeded runs on one thread against `threads` threads ([`in_order`], as `check`
/// runs them; the first run is alone on both sides, so 2 threads give at most 9 / 5 =
/// 1.8x). `vs_one_thread` is the speed-up of the whole; the rates are of the threaded
/// side.
fn seeds_case(options: BenchOptions, threads: usize) -> Result<Measurement, BenchError> {
    let k = Kernel::IntAlu;
    let (waves, seeds) = (8, 8);
    let iters = options.iterations(k) / 4;
    let p = program(k, waves, iters)?;
    let seeded = |seed: u64| {
        let options = LaunchOptions {
            seed,
            ..launch_options()
        };
        launch_once(&p, k.name(), true, options).map(|(_, m)| m)
    };
    // The whole `check`: the first run, then the seeded ones; the instructions of all.
    let whole = |threads: usize| -> Result<(Duration, u64), BenchError> {
        let start = Instant::now();
        let mut instrs = seeded(0)?.stats.wave_instructions;
        in_order(seeds, threads, seeded, |m| {
            instrs += m.stats.wave_instructions
        })?;
        Ok((start.elapsed(), instrs))
    };
    let ((one_t, _), (t, instrs)) =
        fastest_pair(options.budget() * 2, || whole(1), || whole(threads))?;
    let (_, m) = launch_once(&p, k.name(), true, launch_options())?;
    check(&m, k, waves, &k.native(waves, iters))?;
    let runs = seeds + 1;
    let mut r = measurement(
        format!("seeds-{seeds}-checked-{}", k.name()),
        waves,
        instrs,
        Lanes::of(&m.stats).times(runs),
        t,
    );
    r.vs_one_thread = Some(one_t.as_secs_f64() / t.as_secs_f64().max(1e-9));
    Ok(r)
}

/// A measurement's time and value.
type Timed<T> = (Duration, T);

/// [`fastest`] of two measurements taken alternately until the budget is spent.
fn fastest_pair<A, B>(
    budget: Duration,
    mut a: impl FnMut() -> Result<(Duration, A), BenchError>,
    mut b: impl FnMut() -> Result<(Duration, B), BenchError>,
) -> Result<(Timed<A>, Timed<B>), BenchError> {
    let start = Instant::now();
    let (mut best_a, mut value_a) = a()?;
    let (mut best_b, mut value_b) = b()?;
    while start.elapsed() < budget {
        let (t, v) = a()?;
        best_a = best_a.min(t);
        value_a = v;
        let (t, v) = b()?;
        best_b = best_b.min(t);
        value_b = v;
    }
    Ok(((best_a, value_a), (best_b, value_b)))
}

/// The mixed kernel under [`armed_engine`]: breakpoints on every instruction and
/// watchpoints beside every access, none hit.
fn armed_case(options: BenchOptions, waves: u32) -> Result<Measurement, BenchError> {
    let k = Kernel::Mixed;
    let iters = options.iterations(k);
    // A spare buffer to watch, just past the data.
    let source = k
        .source(waves, iters)
        .replacen(".arg", ".buffer spare, 4096\n.arg", 1);
    let p = assemble(&source, "bench.s", None).map_err(|e| BenchError::Assemble {
        kernel: k.name(),
        message: e.to_string(),
    })?;
    let want = k.native(waves, iters);
    let (t, e) = fastest(options.budget(), || {
        let mut e = armed_engine(&p).map_err(|source| BenchError::Launch {
            kernel: k.name(),
            source,
        })?;
        let start = Instant::now();
        let stop = e.continue_all();
        let t = start.elapsed();
        if stop.reason != StopReason::Finished {
            return Err(BenchError::Stopped {
                kernel: k.name(),
                waves,
                event: format!("{:?}", stop.reason),
            });
        }
        Ok((t, e))
    })?;
    check(e.machine(), k, waves, &want)?;
    let stats = e.machine().stats;
    Ok(measurement(
        format!("armed-{}", k.name()),
        waves,
        stats.wave_instructions,
        Lanes::of(&stats),
        t,
    ))
}

/// The mixed kernel with a spare buffer (`spare`, 4 KiB) for [`armed_engine`] to watch.
pub fn armed_program(waves: u32, iters: u32) -> Result<Program, BenchError> {
    let k = Kernel::Mixed;
    let source = k
        .source(waves, iters)
        .replacen(".arg", ".buffer spare, 4096\n.arg", 1);
    assemble(&source, "bench.s", None).map_err(|e| BenchError::Assemble {
        kernel: k.name(),
        message: e.to_string(),
    })
}

/// An engine on `p` ([`armed_program`]) with 100 breakpoints on its instructions whose
/// wave filters match no wave, and 32 watchpoints next to what it touches (16 on `spare`,
/// 16 in every workgroup's shared memory): armed, never hit.
pub fn armed_engine(p: &Program) -> Result<Engine, LaunchError> {
    let mut e = Engine::new(p, launch_options())?;
    let addrs: Vec<u64> = p.lines.iter().map(|(a, _)| *a).collect();
    for i in 0..100 {
        let Some(a) = addrs.get(i % addrs.len().max(1)) else {
            break;
        };
        let f = Filters {
            wave: Some(1_000_000 + i as u32),
            ..Filters::default()
        };
        // Addresses come from the program's own line table: placing them cannot fail.
        let _ = e.add_breakpoint(
            &crate::debug::command::Location::Address(*a),
            None,
            f,
            false,
        );
    }
    if let Some(spare) = e.machine().buffer_base("spare") {
        for i in 0..16u64 {
            let _ = e.add_watchpoint(WatchKind::Access, Scope::Global, spare + 64 * i, 8, None);
            let _ = e.add_watchpoint(
                WatchKind::Write,
                Scope::Shared(None),
                1024 + 64 * i,
                8,
                None,
            );
        }
    }
    Ok(e)
}

/// One `stepi` at a time (each a full resume and stop of the engine) on the integer
/// kernel with `waves` resident waves.
fn stepi_case(options: BenchOptions, waves: u32) -> Result<Measurement, BenchError> {
    let k = Kernel::IntAlu;
    let p = program(k, 1, k.iterations())?;
    let launch = resident_waves(waves);
    let steps: u64 = if options.quick { 200 } else { 2000 };
    let (t, _) = fastest(options.budget(), || {
        let mut e = Engine::new(&p, launch).map_err(|source| BenchError::Launch {
            kernel: k.name(),
            source,
        })?;
        let start = Instant::now();
        for _ in 0..steps {
            let stop = e.step(1);
            if stop.reason != StopReason::Step {
                return Err(BenchError::Stopped {
                    kernel: k.name(),
                    waves,
                    event: format!("{:?}", stop.reason),
                });
            }
        }
        Ok((start.elapsed(), ()))
    })?;
    Ok(measurement(
        "engine-stepi".to_string(),
        waves,
        steps,
        Lanes {
            all: steps * 32,
            vector: steps * 32,
        },
        t,
    ))
}
