//! Time-travel cases of `wavedbg bench`: a 256-wave launch recorded for 100 million
//! wave-instructions (1 million with `--quick`, or `WAVEDBG_BENCH_TT_INSTRUCTIONS`), then
//! each backward search once from its end, and the recording engine's forward speed
//! against the bare machine's on the same launch. Every case checks the stop it reaches
//! (the suite's test runs them for that, without timing); figures are in
//! docs/performance.md, "Time travel".

use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{measurement, resident_waves, BenchError, BenchOptions, Kernel, Lanes, Measurement};
use crate::asm::assemble;
use crate::debug::breakpoint::{Condition, Filters, Scope, WatchKind};
use crate::debug::command::Location;
use crate::debug::{Blocked, Engine, EngineError, LastWrite, StopEvent, StopReason, WriteTarget};
use crate::machine::{LaunchOptions, Machine};
use crate::memory::Space;
use crate::program::Program;

/// Overrides the history's length in wave-instructions, at least 100,000 (a smaller or
/// unreadable value is ignored). The 1 G figures of docs/performance.md were measured with
/// `WAVEDBG_BENCH_TT_INSTRUCTIONS=1000000000`.
pub const INSTRUCTIONS_VAR: &str = "WAVEDBG_BENCH_TT_INSTRUCTIONS";

/// Waves of the launch: 8 workgroups of 32, all resident.
pub const WAVES: u32 = 256;

/// The wave (global id) whose prologue the breakpoint, watchpoint and `last-write` cases
/// look for: one in the middle of the launch.
pub const WAVE: u32 = 100;

/// The uniform register the prologue writes once (the wave's global id).
pub const ONCE_REG: u8 = 5;

/// How long the interrupt case lets its search run before interrupting it.
const INTERRUPT_AFTER: Duration = Duration::from_millis(50);

/// The prologue put before the mixed kernel's: each wave computes its global id into
/// `u5` (written once, at `once_id`) and stores id + 1 to its word of the `once` buffer
/// (one word, lane 0 only, at `once_store`). Every buffer has its own 64 KiB-aligned
/// region, so `once` shares no page with `out`.
const PROLOGUE: &str = "
    uwgid u6
    unumwaves u7
    umul u6, u6, u7
    uwaveid u7
once_id:
    uadd u5, u6, u7             ; the wave's global id: u5 is written only here
    ushli u6, u5, 2
    vmovi v2, 0
    vadd.u32.u v2, v2, u6       ; the wave's word of `once`
    vmovi v3, 1
    vadd.u32.u v3, v3, u5       ; id + 1
    umovi u7, 1
    exec.and.save u8, u7        ; lane 0 alone
once_store:
    st.ubase.b32 v3, u[12:13], v2, 0
    wait.vst 0
    exec.set u8
";

/// The time-travel kernel: [`PROLOGUE`], then the mixed kernel's loop (global load,
/// multiply, shuffle, shared atomic, global store) for `iters` iterations, at 32 waves
/// per workgroup. Its loop head is labelled `loop`.
pub fn program(iters: u32) -> Result<Program, BenchError> {
    let k = Kernel::Mixed;
    let source = k
        .source(32, iters)
        .replacen(".arg", ".buffer once, 1024\n.arg u[12:13], once\n.arg", 1)
        .replacen(
            "    uwaveid u2\n",
            &format!("{PROLOGUE}    uwaveid u2\n"),
            1,
        );
    assemble(&source, "time-travel.s", None).map_err(|e| BenchError::Assemble {
        kernel: "time-travel",
        message: e.to_string(),
    })
}

/// The history's length: [`INSTRUCTIONS_VAR`] if set, else 100 M (1 M when quick).
fn instructions(options: BenchOptions) -> u64 {
    std::env::var(INSTRUCTIONS_VAR)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .filter(|&n: &u64| n >= 100_000)
        .unwrap_or(if options.quick {
            1_000_000
        } else {
            100_000_000
        })
}

/// Every time-travel case, after a history of [`instructions`].
pub(super) fn cases(options: BenchOptions) -> Result<Vec<Measurement>, BenchError> {
    cases_at(instructions(options), Some(INTERRUPT_AFTER))
}

/// A case's stop was not the one expected.
fn wrong(case: &'static str, what: impl std::fmt::Debug) -> BenchError {
    BenchError::Stopped {
        kernel: case,
        waves: WAVES,
        event: format!("{what:?}"),
    }
}

/// The code address of label `name` of `p`.
fn label(p: &Program, name: &'static str) -> Result<u64, BenchError> {
    p.labels
        .get(name)
        .copied()
        .ok_or_else(|| wrong("time-travel", format!("no label {name}")))
}

/// The launch: 256 resident waves, ended by an instruction budget of `total` (a fault of
/// the wave that reaches it).
fn launch(total: u64) -> LaunchOptions {
    LaunchOptions {
        max_instructions: Some(total),
        ..resident_waves(WAVES)
    }
}

/// The cases after a history of `total` wave-instructions. The interrupt case interrupts
/// its search after `interrupt_after` from another thread, or (`None`, for the tests)
/// before it starts.
pub(super) fn cases_at(
    total: u64,
    interrupt_after: Option<Duration>,
) -> Result<Vec<Measurement>, BenchError> {
    let p = program(u32::MAX / 2)?;
    let launch = launch(total);
    let at = |e: &Engine| e.machine().stats.wave_instructions;

    // Forward: the bare machine, the engine (which records the history searched below),
    // and the bare machine again; the bare figure is the mean of its two runs, so a
    // change of the machine's load during the three counts about equally on both sides.
    let bare_run = || -> Result<(Timing, Lanes), BenchError> {
        let mut bare = Machine::new(&p, launch).map_err(|source| BenchError::Launch {
            kernel: "time-travel",
            source,
        })?;
        let clock = Clock::start();
        let event = bare.run(None);
        let t = clock.stop();
        if bare.stats.wave_instructions != total {
            return Err(wrong("time-travel-bare", event));
        }
        Ok((t, Lanes::of(&bare.stats)))
    };
    let (before, lanes) = bare_run()?;
    let mut e = Engine::new(&p, launch).map_err(|source| BenchError::Launch {
        kernel: "time-travel",
        source,
    })?;
    let clock = Clock::start();
    let stop = e.continue_all();
    let forward = clock.stop();
    if at(&e) != total {
        return Err(wrong("time-travel-record", stop.reason));
    }
    let bare_t = before.mean(bare_run()?.0);
    if Lanes::of(&e.machine().stats) != lanes {
        return Err(wrong(
            "time-travel-record",
            "not the bare machine's lane-ops",
        ));
    }
    let bytes = e.history().info(total).bytes as u64;

    let mut out = Vec::new();
    let bare = bare_t.measurement("time-travel-bare", total, lanes);
    let mut r = forward.measurement("time-travel-record", total, lanes);
    // CPU time where it is known: other processes' load inflates it less than wall time.
    r.vs_bare = Some(match (r.cpu_seconds, bare.cpu_seconds) {
        (Some(mine), Some(theirs)) => theirs / mine.max(1e-9),
        _ => r.wave_instructions_per_s / bare.wave_instructions_per_s,
    });
    r.snapshot_bytes = Some(bytes);
    out.push(bare);
    out.push(r);
    // A search's latency; its rates are the forward recording's (the history's length
    // over the time it took to record).
    let mut case = |name: &str, t: Duration| {
        let mut m = measurement(name.to_string(), WAVES, total, lanes, t);
        let s = forward.wall.as_secs_f64().max(1e-9);
        m.wave_instructions_per_s = total as f64 / s;
        m.lane_ops_per_s = lanes.all as f64 / s;
        m.vector_lane_ops_per_s = lanes.vector as f64 / s;
        m.snapshot_bytes = Some(bytes);
        out.push(m);
    };
    let timed = |e: &mut Engine, f: &dyn Fn(&mut Engine) -> StopEvent| {
        let start = Instant::now();
        let stop = f(e);
        (start.elapsed(), stop)
    };
    // Back to the end of the history (untimed) after a search that moved the machine.
    let back_to_end = |e: &mut Engine, case: &'static str| -> Result<(), BenchError> {
        let stop = e.goto(total).map_err(|err| wrong(case, err))?;
        if at(e) != total {
            return Err(wrong(case, stop.reason));
        }
        Ok(())
    };

    let once = e.machine().buffer_base("once").unwrap_or_default() + 4 * u64::from(WAVE);
    let (once_id, once_store) = (label(&p, "once_id")?, label(&p, "once_store")?);

    // last-write of the word WAVE's prologue stores (the machine stays at the end).
    let target = WriteTarget::Memory {
        space: Space::Global,
        addr: once,
        len: 4,
        workgroup: 0,
        wave: 0,
        lane: 0,
    };
    let start = Instant::now();
    let found = e.last_write(&target, total);
    let t = start.elapsed();
    expect_write(&found, once_store, (WAVE + 1).to_le_bytes(), 1)
        .map_err(|()| wrong("last-write", &found))?;
    case("last-write", t);

    // last-write of the uniform register WAVE's prologue sets once.
    let target = WriteTarget::Uniform {
        wave: WAVE,
        reg: ONCE_REG,
    };
    let start = Instant::now();
    let found = e.last_write(&target, total);
    let t = start.elapsed();
    expect_write(&found, once_id, WAVE.to_le_bytes(), 0)
        .map_err(|()| wrong("last-write-uniform", &found))?;
    case("last-write-uniform", t);

    // reverse-stepi of the selected wave (the one the budget stopped).
    let w = e.selected_wave;
    let executed = e.machine().waves[w].executed;
    let (t, stop) = timed(&mut e, &|e| e.reverse_step(1));
    if stop.reason != StopReason::Step || e.machine().waves[w].executed + 1 != executed {
        return Err(wrong("reverse-stepi", stop.reason));
    }
    case("reverse-stepi", t);
    back_to_end(&mut e, "reverse-stepi")?;

    // reverse-continue with nothing armed: to the start.
    let (t, stop) = timed(&mut e, &|e| e.reverse_continue());
    if stop.reason != StopReason::Blocked(Blocked::HistoryStart) || at(&e) != 0 {
        return Err(wrong("reverse-continue", stop.reason));
    }
    case("reverse-continue", t);
    back_to_end(&mut e, "reverse-continue")?;

    // reverse-continue to a breakpoint WAVE hits once, in its prologue.
    let filters = Filters {
        wave: Some(WAVE),
        ..Filters::default()
    };
    let id = e
        .add_breakpoint(&Location::Address(once_id), None, filters, false)
        .map_err(|err| wrong("reverse-continue-break", err))?;
    let (t, stop) = timed(&mut e, &|e| e.reverse_continue());
    let hit = matches!(stop.reason, StopReason::Breakpoint { id: b, .. } if b == id);
    if !hit || stop.wave_id != Some(WAVE) || stop.pc != Some(once_id) {
        return Err(wrong("reverse-continue-break", stop));
    }
    case("reverse-continue-break", t);
    delete(&mut e, id, "reverse-continue-break")?;
    back_to_end(&mut e, "reverse-continue-break")?;

    // reverse-continue to a watchpoint on the word WAVE's prologue stores.
    let id = e
        .add_watchpoint(WatchKind::Write, Scope::Global, once, 4, None)
        .map_err(|err| wrong("reverse-continue-watch", err))?;
    let (t, stop) = timed(&mut e, &|e| e.reverse_continue());
    let hit = match &stop.reason {
        StopReason::Watchpoint(hits) => hits.iter().any(|h| {
            h.id == id && h.old == [0; 4] && h.new == (WAVE + 1).to_le_bytes() && h.lanes == 1
        }),
        _ => false,
    };
    if !hit || stop.wave_id != Some(WAVE) || stop.pc != Some(once_store) {
        return Err(wrong("reverse-continue-watch", stop));
    }
    case("reverse-continue-watch", t);
    delete(&mut e, id, "reverse-continue-watch")?;
    back_to_end(&mut e, "reverse-continue-watch")?;

    // Interrupting a search the index cannot shorten: a breakpoint on the loop head, run
    // by every interval, whose condition is never true (u4 counts down from 2^31).
    let condition = Condition::parse("u4 == 0").map_err(|err| wrong("interrupt-search", err))?;
    let head = label(&p, "loop")?;
    let id = e
        .add_breakpoint(
            &Location::Address(head),
            Some(condition),
            Filters::default(),
            false,
        )
        .map_err(|err| wrong("interrupt-search", err))?;
    // A search that ends before the interrupt (a short history on a fast machine) is run
    // again with a quarter of the delay, down to interrupting before it starts.
    let mut after = interrupt_after;
    let t = loop {
        let (t, stop) = interrupted_search(&mut e, after);
        match (stop.reason, after) {
            (StopReason::Interrupted, _) => break t,
            (StopReason::Blocked(Blocked::HistoryStart), Some(d)) => {
                back_to_end(&mut e, "interrupt-search")?;
                after = Some(d / 4).filter(|d| *d >= Duration::from_millis(1));
            }
            (reason, _) => return Err(wrong("interrupt-search", reason)),
        }
    };
    case("interrupt-search", t);
    delete(&mut e, id, "interrupt-search")?;
    Ok(out)
}

/// Runs `reverse-continue` while another thread interrupts it after `after` (`None`:
/// interrupts before it starts); returns the time from the interrupt to the search's
/// return, and its stop.
fn interrupted_search(e: &mut Engine, after: Option<Duration>) -> (Duration, StopEvent) {
    let handle = e.interrupt_handle();
    let Some(after) = after else {
        let start = Instant::now();
        handle.interrupt();
        let stop = e.reverse_continue();
        return (start.elapsed(), stop);
    };
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        let h = handle.clone();
        s.spawn(move || {
            std::thread::sleep(after);
            let at = Instant::now();
            h.interrupt();
            let _ = tx.send(at);
        });
        let stop = e.reverse_continue();
        let end = Instant::now();
        let at = rx.recv().unwrap_or(end);
        // A search that ended before the interrupt leaves it pending: withdrawn.
        handle.cancel();
        (end.saturating_duration_since(at), stop)
    })
}

/// How long a forward run took: wall-clock time, and (on Linux) the thread's CPU time.
#[derive(Debug, Clone, Copy)]
struct Timing {
    wall: Duration,
    cpu: Option<Duration>,
}

impl Timing {
    /// The mean of two timings of the same work.
    fn mean(self, other: Timing) -> Timing {
        Timing {
            wall: (self.wall + other.wall) / 2,
            cpu: self.cpu.zip(other.cpu).map(|(a, b)| (a + b) / 2),
        }
    }

    /// A case that took this long for `total` wave-instructions and `lanes`.
    fn measurement(self, name: &str, total: u64, lanes: Lanes) -> Measurement {
        let mut m = measurement(name.to_string(), WAVES, total, lanes, self.wall);
        m.cpu_seconds = self.cpu.map(|c| c.as_secs_f64());
        m
    }
}

/// A started [`Timing`].
struct Clock {
    wall: Instant,
    cpu: Option<Duration>,
}

impl Clock {
    fn start() -> Clock {
        let cpu = thread_cpu();
        Clock {
            wall: Instant::now(),
            cpu,
        }
    }

    fn stop(self) -> Timing {
        let wall = self.wall.elapsed();
        Timing {
            wall,
            cpu: self.cpu.zip(thread_cpu()).map(|(a, b)| b.saturating_sub(a)),
        }
    }
}

/// The calling thread's CPU time so far, where the system says (Linux:
/// `/proc/thread-self/schedstat`, in nanoseconds, `None` elsewhere). It is updated at the
/// scheduler's ticks (a few milliseconds), so only the forward runs, of seconds, use it.
fn thread_cpu() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    (ns > 0).then(|| Duration::from_nanos(ns))
}

fn delete(e: &mut Engine, id: u32, case: &'static str) -> Result<(), BenchError> {
    e.delete(Some(id)).map_err(|err| wrong(case, err))
}

/// Whether `found` is WAVE's write at `pc` leaving `new`, by lanes `lanes` (0 for a
/// uniform register).
fn expect_write(
    found: &Result<Option<LastWrite>, EngineError>,
    pc: u64,
    new: [u8; 4],
    lanes: u32,
) -> Result<(), ()> {
    match found {
        Ok(Some(w)) if w.wave == WAVE && w.pc == pc && w.new == new && w.lanes == lanes => Ok(()),
        _ => Err(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::Event;

    /// Every time-travel case reaches the stop it should (each checks its own: the
    /// breakpoint's hit by wave 100 at `once_id`, the watchpoint's at `once_store` with
    /// its old and new value, both `last-write`s, `reverse-stepi`, the start, the
    /// interrupt), after the quick mode's history. No timing is checked.
    #[test]
    fn time_travel_cases_reach_their_stops() {
        let cases = cases_at(1_000_000, None).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = cases.iter().map(|m| m.kernel.as_str()).collect();
        assert_eq!(
            names,
            [
                "time-travel-bare",
                "time-travel-record",
                "last-write",
                "last-write-uniform",
                "reverse-stepi",
                "reverse-continue",
                "reverse-continue-break",
                "reverse-continue-watch",
                "interrupt-search",
            ]
        );
        assert!(cases.iter().skip(1).all(|m| m.snapshot_bytes.is_some()));
    }

    /// The prologue's writes: each wave's word of `once` holds its id + 1, and `u5` its
    /// id.
    #[test]
    fn the_prologue_writes_each_wave_s_word_once() {
        let p = program(3).unwrap_or_else(|e| panic!("{e}"));
        let mut m = Machine::new(&p, resident_waves(WAVES)).expect("launches");
        assert_eq!(m.run(None), Some(Event::Finished));
        let base = m.buffer_base("once").expect("once");
        let mut bytes = vec![0u8; 4 * WAVES as usize];
        m.read_space(Space::Global, 0, 0, base, &mut bytes)
            .expect("reads");
        for (i, w) in bytes.chunks_exact(4).enumerate() {
            assert_eq!(w, (i as u32 + 1).to_le_bytes(), "word {i}");
        }
        assert!(m.waves.iter().all(|w| w.u[ONCE_REG as usize] == w.id));
    }
}
