//! `wavedbg check`: runs a kernel with every sanitizer detector on and reports each
//! distinct finding once; with `--seeds N`, also runs it under N seeded schedules and
//! compares every buffer (docs/sanitizer.md).

use std::collections::HashMap;
use std::path::PathBuf;

use clap::Args;
use color_eyre::eyre::{Result, WrapErr};
use serde_json::{json, Value};
use wavedbg_emulator::check::{
    Checks, FenceAtomic, Finding, FindingKey, FindingKind, MissingFence, Severity, Site,
};
use wavedbg_emulator::debug::findings::Source;
use wavedbg_emulator::debug::view::{count, ranges_text};
use wavedbg_emulator::debug::SourcePlace;
use wavedbg_emulator::fault::{Fault, FaultKind};
use wavedbg_emulator::machine::{in_order, Deadlock, Event, LaunchOptions, Machine};
use wavedbg_emulator::program::Program;
use wavedbg_emulator::wave::WaveState;

use crate::output::{emit, emit_verbatim};
use wavedbg_emulator::debug::load_kernel;

/// Options of `wavedbg check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Kernel source (.s) or object (.wko).
    kernel: PathBuf,
    /// Grid, workgroup size, seed, quantum, residency and instruction budget
    /// ([`crate::launch::LaunchArgs`]).
    #[command(flatten)]
    launch: crate::launch::LaunchArgs,
    /// Also run the launch under N other seeded schedules (seeds 1..=N, or the N after
    /// --seed) and compare every buffer with the first run.
    #[arg(long, default_value_t = 0, value_name = "N")]
    seeds: u64,
    /// One JSON object per finding (and per differing result), one per line.
    #[arg(long)]
    json: bool,
    /// Threads for the seeded runs (default: one per core). The report is the same for
    /// any number: runs are merged in seed order.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Findings of this kind (`barrier-mismatch`, `same-instruction`, ... as JSON's
    /// `kind` names them) are still reported but do not make the exit status 1: a pattern
    /// the kernel uses on purpose. Repeat it or separate kinds with commas.
    #[arg(long, value_name = "KIND", value_delimiter = ',', value_parser = parse_kind)]
    allow: Vec<FindingKind>,
    /// Print at most N findings (in the order first seen), then how many more there were
    /// and of which severity; 0 prints every one. The default is 100 for the text report;
    /// --json prints every finding unless this is given. The header and the exit status
    /// count them all.
    #[arg(long, value_name = "N")]
    max_findings: Option<usize>,
}

/// How many findings the text report prints when `--max-findings` is not given.
const TEXT_MAX_FINDINGS: usize = 100;

/// A finding kind by its JSON name, for `--allow`.
fn parse_kind(s: &str) -> std::result::Result<FindingKind, String> {
    FindingKind::ALL
        .into_iter()
        .find(|k| k.id() == s)
        .ok_or_else(|| {
            let names: Vec<&str> = FindingKind::ALL.iter().map(|k| k.id()).collect();
            format!("no finding kind `{s}`: one of {}", names.join(", "))
        })
}

/// The machine's cores, for the default number of threads (1 when unknown).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs the launch under the `n` seeds after `options.seed` on up to `threads` threads,
/// handing each run to `each` in seed order ([`in_order`]), so the report never depends
/// on which thread finished first.
fn seeded_runs(
    program: &Program,
    options: LaunchOptions,
    name: &str,
    n: u64,
    threads: usize,
    each: impl FnMut(Run),
) -> Result<()> {
    let seeded = |k: u64| {
        let seed = options.seed.wrapping_add(k);
        run_checked(program, LaunchOptions { seed, ..options }, name)
    };
    in_order(n, threads, seeded, each)
}

/// What stopped waves of a checked run short of `end`. `check` runs every wave as far as
/// it can go: a fault ends its own wave, a deadlock parks its workgroup, and the rest of
/// the launch runs on to its end, so every seed runs the same waves to completion and
/// their buffers compare (docs/sanitizer.md, "Faults and deadlocks").
#[derive(Debug, Clone, PartialEq, Eq)]
enum LaunchEnd {
    /// A wave faulted (the budget's fault ends the whole run).
    Fault(Fault),
    /// A workgroup's barrier can never complete.
    Deadlock(Deadlock),
    /// Nothing could run and no barrier explains it, or every deadlock was named:
    /// `started` of the grid's `grid` workgroups had started (the others wait for slots
    /// that faulted waves or deadlocked workgroups hold).
    Stalled {
        /// Workgroups dispatched.
        started: u32,
        /// Workgroups in the grid.
        grid: u32,
        /// Why the others did not start.
        why: Unstarted,
    },
}

/// Why workgroups of the grid did not start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unstarted {
    /// Every slot holds a workgroup with a faulted wave.
    Faulted,
    /// Every slot holds a deadlocked workgroup.
    Deadlocked,
    /// Every slot holds one or the other.
    FaultedOrDeadlocked,
    /// The instruction budget ran out first (it ends the whole run).
    Budget,
}

/// What makes two runs' ends the same end: a fault the same fault (wave, PC, kind,
/// lanes and address); a deadlock its workgroup's, wherever its waves waited.
#[derive(Debug, PartialEq, Eq)]
enum EndKey<'a> {
    Fault(&'a Fault),
    Deadlock(u32),
    Stalled(u32),
}

impl LaunchEnd {
    fn key(&self) -> EndKey<'_> {
        match self {
            LaunchEnd::Fault(f) => EndKey::Fault(f),
            LaunchEnd::Deadlock(d) => EndKey::Deadlock(d.workgroup),
            LaunchEnd::Stalled { started, .. } => EndKey::Stalled(*started),
        }
    }
}

/// How one checked run ended.
struct Run {
    machine: Machine,
    /// Its faults and deadlocks, in the order they happened.
    ends: Vec<LaunchEnd>,
    seed: u64,
}

fn run_checked(program: &Program, options: LaunchOptions, name: &str) -> Result<Run> {
    let mut m = Machine::new(program, options).wrap_err_with(|| name.to_string())?;
    m.set_checks(Checks::ALL);
    let mut ends: Vec<LaunchEnd> = Vec::new();
    loop {
        let now = m.stats.wave_instructions;
        match m.run(None) {
            // Findings are collected by the sanitizer; the run goes on.
            Some(Event::Finding { .. }) | None => continue,
            Some(Event::Finished) => break,
            Some(Event::Fault(f)) => {
                let budget = matches!(f.kind, FaultKind::BudgetExhausted { .. });
                ends.push(LaunchEnd::Fault(f));
                if budget {
                    let (started, grid) = (m.workgroups_started(), m.launch().grid);
                    if started < grid {
                        ends.push(LaunchEnd::Stalled {
                            started,
                            grid,
                            why: Unstarted::Budget,
                        });
                    }
                    break;
                }
            }
            Some(Event::Deadlock(d)) => {
                let end = LaunchEnd::Deadlock(d);
                if let Some(known) = ends.iter_mut().find(|e| e.key() == end.key()) {
                    // The report is of the end: waves that reached the barrier since it
                    // was decided wait there too.
                    *known = end;
                    // The same deadlock with nothing run since: nothing can run any more,
                    // and workgroups that wait for the deadlocked slots never start.
                    if now == m.stats.wave_instructions {
                        let (started, grid) = (m.workgroups_started(), m.launch().grid);
                        let faulted = ends.iter().any(|e| matches!(e, LaunchEnd::Fault(_)));
                        if started < grid {
                            ends.push(LaunchEnd::Stalled {
                                started,
                                grid,
                                why: if faulted {
                                    Unstarted::FaultedOrDeadlocked
                                } else {
                                    Unstarted::Deadlocked
                                },
                            });
                        }
                        break;
                    }
                } else {
                    ends.push(end);
                }
            }
            Some(
                Event::Stalled
                | Event::Break { .. }
                | Event::BreakpointHit { .. }
                | Event::WatchHit { .. }
                | Event::StopBefore,
            ) => {
                let (started, grid) = (m.workgroups_started(), m.launch().grid);
                // Every workgroup ran and only faulted waves are left: the faults say it.
                let faulted = ends.iter().any(|e| matches!(e, LaunchEnd::Fault(_)));
                if started < grid || !faulted {
                    ends.push(LaunchEnd::Stalled {
                        started,
                        grid,
                        why: Unstarted::Faulted,
                    });
                }
                break;
            }
        }
    }
    Ok(Run {
        machine: m,
        ends,
        seed: options.seed,
    })
}

/// Where a wave that will never reach a barrier stopped: its `end` for an exited wave
/// (whose PC is past it), the faulting instruction for a faulted one.
fn gone_pc(m: &Machine, wave: u32, state: WaveState) -> Option<u64> {
    let pc = m.waves.iter().find(|x| x.id == wave)?.pc;
    Some(if state == WaveState::Exited {
        pc.wrapping_sub(4)
    } else {
        pc
    })
}

/// `FILE:LINE` of a code address, or its address when no line is known; with the
/// higher-level `FILE:LINE` in parentheses where the kernel has a line table.
fn where_text(m: &Machine, file: &str, pc: u64) -> String {
    let at = match m.program().line_at(pc) {
        Some(line) => format!("{file}:{line}"),
        None => format!("{pc:#06x}"),
    };
    match SourcePlace::at(m.program(), pc) {
        Some(h) => format!("{at} ({h})"),
        None => at,
    }
}

/// The higher-level line of a code address in JSON (`source`): `{"file", "line", "col"}`,
/// `null` where the kernel has no line table or the code no line.
fn source_json(m: &Machine, pc: u64) -> Value {
    serde_json::to_value(SourcePlace::at(m.program(), pc)).unwrap_or(Value::Null)
}

/// A launch end as one line: what, where (file:line), which waves, lanes and address.
fn end_text(m: &Machine, file: &str, end: &LaunchEnd) -> String {
    match end {
        LaunchEnd::Fault(f) => format!("fault at {}: {f}", where_text(m, file, f.pc)),
        LaunchEnd::Deadlock(d) => {
            let barrier = d.waiting.first().map_or(0, |w| w.1);
            let waiting: Vec<String> = d.waiting.iter().map(|(w, _)| format!("wave {w}")).collect();
            let missing: Vec<String> = d
                .missing
                .iter()
                .map(|(w, state)| {
                    let pc = gone_pc(m, *w, *state);
                    match pc {
                        Some(pc) => {
                            format!("wave {w} ({} at {})", state.name(), where_text(m, file, pc))
                        }
                        None => format!("wave {w} ({})", state.name()),
                    }
                })
                .collect();
            let missing = if missing.is_empty() {
                "no other wave can run".to_string()
            } else {
                format!("{} will never arrive", missing.join(", "))
            };
            format!(
                "deadlock in workgroup {}: the barrier at {} ({}) can never complete; {} waiting, {missing}; the launch ran every other workgroup it could",
                d.workgroup,
                where_text(m, file, barrier),
                wavedbg_emulator::debug::view::pc_text(m, barrier),
                waiting.join(", "),
            )
        }
        LaunchEnd::Stalled {
            started,
            grid,
            why,
        } if started < grid => format!(
            "{} did not start: {}",
            if grid - started == 1 {
                format!("workgroup {started}")
            } else {
                format!("workgroups {started}-{}", grid - 1)
            },
            match why {
                Unstarted::Faulted => "every slot holds a workgroup with a faulted wave (a faulted wave stays resident, to be inspected)",
                Unstarted::Deadlocked => "every slot holds a deadlocked workgroup (its waves wait at the barrier for ever)",
                Unstarted::FaultedOrDeadlocked => "every slot holds a deadlocked workgroup or one with a faulted wave (both stay resident, to be inspected)",
                Unstarted::Budget => "the instruction budget ran out first (a workgroup spinning while it waits for one of them never lets it start)",
            }
        ),
        LaunchEnd::Stalled { .. } => "no wave can run, and no barrier explains it".to_string(),
    }
}

/// Sets `key` to `value` in a JSON object, leaving it out when it is `null`: a field that
/// does not apply is left out, never written as a placeholder (docs/sanitizer.md).
fn put(o: &mut serde_json::Map<String, Value>, key: &str, value: Value) {
    if !value.is_null() {
        o.insert(key.into(), value);
    }
}

/// A JSON object of the given fields, those that are `null` left out ([`put`]).
fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    let mut o = serde_json::Map::new();
    for (k, v) in fields {
        put(&mut o, k, v);
    }
    Value::Object(o)
}

/// A launch end as a JSON object (`kind` is `launch-error`, `end` says which).
fn end_json(m: &Machine, file: &str, end: &LaunchEnd, seeds: &[u64]) -> Value {
    let line = |pc: u64| m.program().line_at(pc);
    let mut v = json!({
        "kind": "launch-error",
        "severity": "error",
        "seeds": seeds,
        "file": file,
        "message": end_text(m, file, end),
    });
    let Value::Object(o) = &mut v else {
        return v;
    };
    match end {
        LaunchEnd::Fault(f) => {
            o.insert("end".into(), json!("fault"));
            o.insert("fault".into(), json!(f.to_string()));
            o.insert("signal".into(), json!(f.signal().0));
            o.insert("wave".into(), json!(f.wave));
            o.insert("workgroup".into(), json!(f.workgroup));
            // Lanes, address and length only for a fault about them (not the budget's).
            if f.lanes != 0 {
                o.insert("lanes".into(), json!(format!("{:#010x}", f.lanes)));
            }
            o.insert("pc".into(), json!(f.pc));
            put(o, "line", json!(line(f.pc)));
            put(o, "source", source_json(m, f.pc));
            put(o, "addr", json!(f.addr));
            if f.len != 0 {
                o.insert("len".into(), json!(f.len));
            }
            put(o, "instruction", json!(f.instr));
        }
        LaunchEnd::Deadlock(d) => {
            o.insert("end".into(), json!("deadlock"));
            o.insert("workgroup".into(), json!(d.workgroup));
            let waiting: Vec<Value> = d
                .waiting
                .iter()
                .map(|(w, pc)| {
                    object([
                        ("wave", json!(w)),
                        ("pc", json!(pc)),
                        ("line", json!(line(*pc))),
                        ("source", source_json(m, *pc)),
                    ])
                })
                .collect();
            o.insert("waiting".into(), json!(waiting));
            let missing: Vec<Value> = d
                .missing
                .iter()
                .map(|(w, state)| {
                    let pc = gone_pc(m, *w, *state);
                    let source = pc.map_or(Value::Null, |pc| source_json(m, pc));
                    object([
                        ("wave", json!(w)),
                        ("state", json!(state)),
                        ("pc", json!(pc)),
                        ("line", json!(pc.and_then(line))),
                        ("source", source),
                    ])
                })
                .collect();
            o.insert("missing".into(), json!(missing));
        }
        LaunchEnd::Stalled { started, grid, .. } => {
            o.insert("end".into(), json!("stalled"));
            o.insert("workgroups_started".into(), json!(started));
            o.insert("grid".into(), json!(grid));
        }
    }
    v
}

/// Where two runs' buffers first differ: the aligned word holding the first differing
/// byte (the byte alone where no whole word holds it, at a buffer's odd-sized end).
struct Difference {
    buffer: String,
    /// The word's offset in the buffer and global address.
    offset: u64,
    addr: u64,
    /// Its size: 4, or 1 for a lone byte.
    len: u64,
    /// Its value (little-endian) under each seed.
    values: (u32, u32),
    seeds: (u64, u64),
    /// The global address of the first differing byte (what a finding must cover to
    /// explain it).
    first: u64,
}

impl Difference {
    /// What the values are: `the word at out+0x4` or `the byte at out+0x7`.
    fn place(&self) -> String {
        let what = if self.len == 4 { "word" } else { "byte" };
        format!("the {what} at {}+{:#x}", self.buffer, self.offset)
    }

    /// A value as hex, two digits per byte.
    fn value_text(&self, v: u32) -> String {
        format!("{v:#0w$x}", w = 2 + 2 * self.len as usize)
    }
}

fn first_difference(a: &Run, b: &Run) -> Option<Difference> {
    let p = a.machine.program();
    for buf in &p.buffers {
        let base = a.machine.buffer_base(&buf.name)?;
        let mut x = vec![0u8; buf.size as usize];
        let mut y = vec![0u8; buf.size as usize];
        a.machine.global.read(base, &mut x)?;
        b.machine.global.read(base, &mut y)?;
        if let Some(i) = x.iter().zip(&y).position(|(p, q)| p != q) {
            let w = i & !3;
            let (at, len) = if w + 4 <= x.len() { (w, 4) } else { (i, 1) };
            let value = |v: &[u8]| {
                v[at..at + len]
                    .iter()
                    .rev()
                    .fold(0u32, |acc, &b| acc << 8 | b as u32)
            };
            return Some(Difference {
                buffer: buf.name.clone(),
                offset: at as u64,
                addr: base + at as u64,
                len: len as u64,
                values: (value(&x), value(&y)),
                seeds: (a.seed, b.seed),
                first: base + i as u64,
            });
        }
    }
    None
}

/// The finding that best explains a differing global byte: one on that address, else
/// one in the same buffer, else any race.
fn explain(found: &[Finding], d: &Difference, m: &Machine) -> Option<usize> {
    let on = |f: &Finding| {
        f.space == Some(wavedbg_emulator::memory::Space::Global)
            && f.addr
                .is_some_and(|a| a <= d.first && d.first < a + f.len.max(1) as u64)
    };
    let size = m.program().buffer(&d.buffer).map_or(0, |b| b.size);
    let base = d.addr - d.offset;
    let same_buffer = |f: &Finding| {
        f.space == Some(wavedbg_emulator::memory::Space::Global)
            && f.addr.is_some_and(|a| a >= base && a < base + size)
    };
    found
        .iter()
        .position(on)
        .or_else(|| found.iter().position(same_buffer))
        .or_else(|| {
            found
                .iter()
                .position(|f| f.kind == wavedbg_emulator::check::FindingKind::Race)
        })
}

fn site_json(m: &Machine, s: &Site) -> Value {
    let mut v = serde_json::to_value(s).unwrap_or(Value::Null);
    if let Value::Object(o) = &mut v {
        // Lane masks as hex strings, as `run --json` prints them.
        // (left out when the side is not about lanes, as a barrier's with EXEC 0).
        if s.lanes == 0 {
            o.remove("lanes");
        } else {
            o.insert("lanes".into(), json!(format!("{:#010x}", s.lanes)));
        }
        put(o, "line", json!(m.program().line_at(s.pc)));
        put(o, "source", source_json(m, s.pc));
        o.insert(
            "instruction".into(),
            json!(wavedbg_emulator::debug::view::instr_text(m, s.pc)),
        );
    }
    v
}

/// A race's missing fence: which half is missing, the release side's atomic (for the
/// earlier wave) and acquire side's atomic (for the later wave) it names, each with the
/// wave that executed it and left out when none, and the barrier a late access or an
/// unretired acquire fence was carried to.
fn fence_json(m: &Machine, fence: MissingFence) -> Value {
    let (release, acquire) = fence.atomics();
    let atomic = |a: Option<FenceAtomic>| match a {
        Some(FenceAtomic {
            pc,
            wave,
            workgroup,
        }) => object([
            ("wave", json!(wave)),
            ("workgroup", json!(workgroup)),
            ("pc", json!(pc)),
            ("line", json!(m.program().line_at(pc))),
            ("source", source_json(m, pc)),
            (
                "instruction",
                json!(wavedbg_emulator::debug::view::instr_text(m, pc)),
            ),
        ]),
        _ => Value::Null,
    };
    let mut v = object([
        ("missing", json!(fence.name())),
        ("release", atomic(release)),
        ("acquire", atomic(acquire)),
    ]);
    let barrier = match fence {
        MissingFence::NotRetired { barrier, .. } => Some(barrier),
        MissingFence::AcquireNotRetired { barrier, .. } => barrier,
        _ => None,
    };
    if let (Some(barrier), Value::Object(o)) = (barrier, &mut v) {
        let place = object([
            ("pc", json!(barrier)),
            ("line", json!(m.program().line_at(barrier))),
            ("source", source_json(m, barrier)),
            (
                "instruction",
                json!(wavedbg_emulator::debug::view::instr_text(m, barrier)),
            ),
        ]);
        o.insert("barrier".into(), place);
    }
    if let (MissingFence::NotRetired { counter, .. }, Value::Object(o)) = (fence, &mut v) {
        o.insert("counter".into(), json!(counter.name()));
    }
    v
}

fn finding_json(m: &Machine, f: &Finding) -> Value {
    let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
    if let Value::Object(o) = &mut v {
        o.insert("severity".into(), json!(f.kind.severity()));
        o.insert("message".into(), json!(f.headline_in(m)));
        o.insert("at".into(), site_json(m, &f.at));
        if let Some(other) = &f.other {
            o.insert("other".into(), site_json(m, other));
        }
        if let Some(fence) = f.fence {
            o.insert("fence".into(), fence_json(m, fence));
        }
        // Both sides' other waves in one list, each labelled by its side (`at` or
        // `other`, as the sites are named), lane masks as hex strings as in the sites.
        let sides = [("at", &f.also), ("other", &f.also_other)];
        let also: Vec<Value> = sides
            .into_iter()
            .flat_map(|(side, list)| list.iter().map(move |w| (side, w)))
            .map(|(side, w)| {
                json!({"wave": w.wave, "lanes": format!("{:#010x}", w.lanes), "side": side})
            })
            .collect();
        o.remove("also_other");
        if !also.is_empty() {
            o.insert("also".into(), json!(also));
        }
    }
    v
}

/// Runs `wavedbg check`; returns the exit code (1 when anything was found).
pub fn run(args: CheckArgs) -> Result<i32> {
    let (program, text) = load_kernel(&args.kernel, &args.launch.assemble_options())?;
    let name = args.kernel.display().to_string();
    let source = text.as_deref().map(|text| Source { name: &name, text });
    let mut options = args.launch.options();
    if args.launch.max_instructions.is_none() {
        options.max_instructions = LaunchOptions::default().max_instructions;
    }
    let first = run_checked(&program, options, &name)?;
    // Every run's findings, merged: the same finding in two runs is one, counted in both,
    // with the waves of both.
    let mut found: Vec<Finding> = Vec::new();
    let mut index: HashMap<FindingKey, usize> = HashMap::new();
    let mut merge = |run: &Run, found: &mut Vec<Finding>| {
        for f in run.machine.sanitizer().map_or(&[][..], |s| s.findings()) {
            let key = f.key();
            match index.get(&key) {
                // Its waves, lanes and addresses join too, each on its side.
                Some(&i) => {
                    found[i].count += f.count;
                    found[i].absorb(f);
                }
                None => {
                    index.insert(key, found.len());
                    found.push(f.clone());
                }
            }
        }
    };
    merge(&first, &mut found);
    // Every run's faults and deadlocks, merged by what they are, with the seeds of the
    // runs that had them (and that run's machine, to name lines and waves).
    let mut ends: Vec<(LaunchEnd, Vec<u64>)> = Vec::new();
    let add_ends = |run: &Run, ends: &mut Vec<(LaunchEnd, Vec<u64>)>| {
        for e in &run.ends {
            match ends.iter_mut().find(|(x, _)| x.key() == e.key()) {
                Some((_, seeds)) => seeds.push(run.seed),
                None => ends.push((e.clone(), vec![run.seed])),
            }
        }
    };
    add_ends(&first, &mut ends);
    let mut difference = None;
    let threads = args.threads.map_or_else(cores, |t| t.max(1));
    seeded_runs(&program, options, &name, args.seeds, threads, |run| {
        merge(&run, &mut found);
        add_ends(&run, &mut ends);
        if difference.is_none() {
            difference = first_difference(&first, &run);
        }
    })?;
    let runs = 1 + args.seeds;
    // Whether some runs ended in a way others did not: their buffers differ for that.
    let ends_differ = ends.iter().any(|(_, seeds)| seeds.len() as u64 != runs);
    let m = &first.machine;
    let explained = difference.as_ref().and_then(|d| explain(&found, d, m));
    let mut out = String::new();
    // The findings printed (`--max-findings`), and those left out.
    let cap = match (args.max_findings, args.json) {
        (Some(0), _) | (None, true) => found.len(),
        (Some(n), _) => n.min(found.len()),
        (None, false) => TEXT_MAX_FINDINGS.min(found.len()),
    };
    let (shown, rest) = found.split_at(cap);
    let rest_errors = rest
        .iter()
        .filter(|f| f.kind.severity() == Severity::Error)
        .count();
    // Counted as the header counts every finding: by severity, and the allowed apart.
    let rest_allowed = rest.iter().filter(|f| args.allow.contains(&f.kind)).count();
    let more = (!rest.is_empty()).then(|| {
        format!(
            "and {} not shown ({}, {}{}): --max-findings N prints N, 0 every one",
            count(rest.len() as u64, "more finding"),
            count(rest_errors as u64, "error"),
            count((rest.len() - rest_errors) as u64, "warning"),
            if rest_allowed > 0 {
                format!("; {rest_allowed} allowed by --allow")
            } else {
                String::new()
            },
        )
    });
    if args.json {
        for f in shown {
            let mut v = finding_json(m, f);
            if let (true, Value::Object(o)) = (args.allow.contains(&f.kind), &mut v) {
                o.insert("allowed".into(), json!(true));
            }
            out.push_str(&v.to_string());
            out.push('\n');
        }
        if let Some(message) = &more {
            let v = object([
                ("kind", json!("more-findings")),
                ("count", json!(rest.len())),
                ("errors", json!(rest_errors)),
                ("warnings", json!(rest.len() - rest_errors)),
                ("allowed", json!(rest_allowed)),
                ("message", json!(message)),
            ]);
            out.push_str(&v.to_string());
            out.push('\n');
        }
        for (e, seeds) in &ends {
            out.push_str(&end_json(m, &name, e, seeds).to_string());
            out.push('\n');
        }
        if let Some(d) = &difference {
            out.push_str(
                &object([
                    ("kind", json!("order-dependent-result")),
                    ("severity", json!("error")),
                    ("buffer", json!(d.buffer)),
                    ("offset", json!(d.offset)),
                    ("addr", json!(d.addr)),
                    ("len", json!(d.len)),
                    ("seeds", json!([d.seeds.0, d.seeds.1])),
                    ("values", json!([d.values.0, d.values.1])),
                    // Left out when no finding explains it, or the one that does was
                    // not printed (past --max-findings).
                    ("explained_by", json!(explained.filter(|&i| i < cap))),
                    ("launch_ended_differently", json!(ends_differ)),
                    (
                        "message",
                        json!(format!(
                            "{} differs between seeds {} and {}",
                            d.place(),
                            d.seeds.0,
                            d.seeds.1
                        )),
                    ),
                ])
                .to_string(),
            );
            out.push('\n');
        }
    } else {
        let errors_n = found
            .iter()
            .filter(|f| f.kind.severity() == Severity::Error)
            .count();
        let n = |x: usize, noun: &str| count(x as u64, noun);
        let allowed_n = found
            .iter()
            .filter(|f| args.allow.contains(&f.kind))
            .count();
        let allowed = if allowed_n > 0 {
            format!("; {allowed_n} allowed by --allow")
        } else {
            String::new()
        };
        out.push_str(&format!(
            "{name}: {} ({}, {}{allowed}) in {} of {} wave-instructions\n",
            n(found.len(), "finding"),
            n(errors_n, "error"),
            n(found.len() - errors_n, "warning"),
            count(runs, "run"),
            m.stats.wave_instructions,
        ));
        for (i, f) in shown.iter().enumerate() {
            let text = f.describe(m, source);
            if args.allow.contains(&f.kind) {
                // `warning (allowed): ...`: the severity word is the text's first.
                let (severity, rest) = text.split_once(':').unwrap_or(("", text.as_str()));
                out.push_str(&format!("#{} {severity} (allowed):{rest}\n", i + 1));
            } else {
                out.push_str(&format!("#{} {text}\n", i + 1));
                if f.kind.severity() == Severity::Warning {
                    out.push_str(&format!(
                        "  a warning: if the kernel does this on purpose, --allow {} keeps it from failing the check\n",
                        f.kind.id()
                    ));
                }
            }
        }
        if let Some(message) = &more {
            out.push_str(&format!("... {message}\n"));
        }
        // Faults that differ only in their wave (every wave of a grid faulting on one
        // instruction alike) are one line, their waves and workgroups as ranges.
        let mut groups: Vec<EndGroup<'_>> = Vec::new();
        for (e, seeds) in &ends {
            if let LaunchEnd::Fault(f) = e {
                let same = |g: &EndGroup<'_>| {
                    matches!(g.0, LaunchEnd::Fault(x) if same_but_wave(x, f)) && g.1 == seeds
                };
                if let Some(g) = groups.iter_mut().find(|g| same(g)) {
                    g.2.push(f.wave.into());
                    g.3.push(f.workgroup.into());
                    continue;
                }
                groups.push((e, seeds, vec![f.wave.into()], vec![f.workgroup.into()]));
            } else {
                groups.push((e, seeds, Vec::new(), Vec::new()));
            }
        }
        for (e, seeds, waves, workgroups) in groups {
            let under = if runs == 1 {
                String::new()
            } else if seeds.len() as u64 == runs {
                " (every run)".to_string()
            } else {
                format!(
                    " (seed{} {})",
                    if seeds.len() == 1 { "" } else { "s" },
                    ranges_text(seeds)
                )
            };
            let mut text = end_text(m, &name, e);
            if let (LaunchEnd::Fault(f), true) = (e, waves.len() > 1) {
                let one_group = workgroups.iter().all(|&g| Some(&g) == workgroups.first());
                text = text.replacen(
                    &format!("wave {} (workgroup {})", f.wave, f.workgroup),
                    &format!(
                        "{} waves {} (workgroup{} {})",
                        waves.len(),
                        ranges_text(&waves),
                        if one_group { "" } else { "s" },
                        ranges_text(&workgroups)
                    ),
                    1,
                );
            }
            out.push_str(&format!("error{under}: {text}\n"));
        }
        if let Some(d) = &difference {
            out.push_str(&format!(
                "error: the result depends on the schedule: {} (global {:#x}) is {} with seed {} and {} with seed {}\n",
                d.place(),
                d.addr,
                d.value_text(d.values.0),
                d.seeds.0,
                d.value_text(d.values.1),
                d.seeds.1
            ));
            out.push_str(&match explained {
                Some(i) => format!(
                    "  explained by #{}{}: {}\n",
                    i + 1,
                    if i < cap { "" } else { " (not shown: past --max-findings)" },
                    found[i].headline_in(m)
                ),
                // Waves stopped by a fault or deadlock under one seed and not another
                // wrote different things: the schedule is not to blame.
                None if ends_differ => "  explained by the launch ending differently under these seeds (the faults or deadlocks above): waves that stopped did not write what the others did\n".to_string(),
                None if !ends.is_empty() => "  no finding explains it; the launch faulted or deadlocked (above) under every seed, and what its stopped waves left undone can depend on the schedule\n".to_string(),
                None => "  no finding explains it: atomics ran in another order, so a plain read of a word that other waves update with atomics (not a race in this model: docs/sanitizer.md) saw another value, or atomics that do not commute (float adds) gave another result\n".to_string(),
            });
        } else if args.seeds > 0 {
            out.push_str(&format!(
                "every buffer is identical under {}\n",
                count(args.seeds, "seeded schedule")
            ));
        }
    }
    if args.json {
        emit_verbatim(&out)?;
    } else {
        emit(&out)?;
    }
    // Allowed kinds are reported but do not fail the check.
    let failing = found.iter().any(|f| !args.allow.contains(&f.kind));
    let clean = !failing && ends.is_empty() && difference.is_none();
    Ok(if clean { 0 } else { 1 })
}

/// A launch end as `check` prints it, with its seeds, and for faults alike but for the
/// wave, their waves and workgroups.
type EndGroup<'a> = (&'a LaunchEnd, &'a Vec<u64>, Vec<u64>, Vec<u64>);

/// Whether two faults are the same but for the wave (and its workgroup): kind, PC, lanes,
/// address and length.
fn same_but_wave(a: &Fault, b: &Fault) -> bool {
    Fault {
        wave: b.wave,
        workgroup: b.workgroup,
        ..a.clone()
    } == *b
}
