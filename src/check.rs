//! `wavedbg check`: runs a kernel with every sanitizer detector on and reports each
//! distinct finding once; with `--seeds N`, also runs it under N seeded schedules and
//! compares every buffer (docs/sanitizer.md).

use std::collections::HashMap;
use std::path::PathBuf;

use clap::Args;
use color_eyre::eyre::{Result, WrapErr};
use serde_json::{json, Value};
use wavedbg_emulator::check::{Checks, Finding, FindingKey, Severity, Site};
use wavedbg_emulator::debug::findings::Source;
use wavedbg_emulator::debug::view::count;
use wavedbg_emulator::machine::{Event, LaunchOptions, Machine};
use wavedbg_emulator::program::Program;

use crate::output::emit;
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
}

/// How one checked run ended.
struct Run {
    machine: Machine,
    /// A fault, deadlock or stall, as text.
    error: Option<String>,
    seed: u64,
}

fn run_checked(program: &Program, options: LaunchOptions, name: &str) -> Result<Run> {
    let mut m = Machine::new(program, options).wrap_err_with(|| name.to_string())?;
    m.set_checks(Checks::ALL);
    let error = loop {
        match m.run(None) {
            // Findings are collected by the sanitizer; the run goes on.
            Some(Event::Finding { .. }) | None => continue,
            Some(Event::Finished) => break None,
            Some(Event::Fault(f)) => break Some(format!("fault: {f}")),
            Some(Event::Deadlock(d)) => {
                break Some(wavedbg_emulator::debug::view::deadlock_text(&m, &d))
            }
            Some(
                Event::Stalled
                | Event::Break { .. }
                | Event::BreakpointHit { .. }
                | Event::WatchHit { .. }
                | Event::StopBefore,
            ) => break Some("no wave can run".to_string()),
        }
    };
    Ok(Run {
        machine: m,
        error,
        seed: options.seed,
    })
}

/// Where two runs' buffers first differ.
struct Difference {
    buffer: String,
    offset: u64,
    addr: u64,
    values: (u8, u8),
    seeds: (u64, u64),
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
            return Some(Difference {
                buffer: buf.name.clone(),
                offset: i as u64,
                addr: base + i as u64,
                values: (x[i], y[i]),
                seeds: (a.seed, b.seed),
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
                .is_some_and(|a| a <= d.addr && d.addr < a + f.len.max(1) as u64)
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
        o.insert("lanes".into(), json!(format!("{:#010x}", s.lanes)));
        o.insert("line".into(), json!(m.program().line_at(s.pc)));
        o.insert(
            "instruction".into(),
            json!(wavedbg_emulator::debug::view::instr_text(m, s.pc)),
        );
    }
    v
}

fn finding_json(m: &Machine, f: &Finding) -> Value {
    let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
    if let Value::Object(o) = &mut v {
        o.insert("severity".into(), json!(f.kind.severity()));
        o.insert("message".into(), json!(f.headline()));
        o.insert("at".into(), site_json(m, &f.at));
        if let Some(other) = &f.other {
            o.insert("other".into(), site_json(m, other));
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
    // Every run's findings, merged: the same finding in two runs is one, counted in both.
    let mut found: Vec<Finding> = Vec::new();
    let mut index: HashMap<FindingKey, usize> = HashMap::new();
    let mut merge = |run: &Run, found: &mut Vec<Finding>| {
        for f in run.machine.sanitizer().map_or(&[][..], |s| s.findings()) {
            let key = f.key();
            match index.get(&key) {
                Some(&i) => found[i].count += f.count,
                None => {
                    index.insert(key, found.len());
                    found.push(f.clone());
                }
            }
        }
    };
    merge(&first, &mut found);
    let mut errors: Vec<(u64, String)> = first
        .error
        .iter()
        .map(|e| (first.seed, e.clone()))
        .collect();
    let mut difference = None;
    for k in 1..=args.seeds {
        let seed = options.seed.wrapping_add(k);
        let run = run_checked(&program, LaunchOptions { seed, ..options }, &name)?;
        merge(&run, &mut found);
        if let Some(e) = &run.error {
            if !errors.iter().any(|(_, x)| x == e) {
                errors.push((seed, e.clone()));
            }
        }
        if difference.is_none() {
            difference = first_difference(&first, &run);
        }
    }
    let m = &first.machine;
    let explained = difference.as_ref().and_then(|d| explain(&found, d, m));
    let mut out = String::new();
    if args.json {
        for f in &found {
            out.push_str(&finding_json(m, f).to_string());
            out.push('\n');
        }
        for (seed, e) in &errors {
            out.push_str(
                &json!({"kind": "launch-error", "severity": "error", "seed": seed, "message": e})
                    .to_string(),
            );
            out.push('\n');
        }
        if let Some(d) = &difference {
            out.push_str(
                &json!({
                    "kind": "order-dependent-result",
                    "severity": "error",
                    "buffer": d.buffer,
                    "offset": d.offset,
                    "addr": d.addr,
                    "seeds": [d.seeds.0, d.seeds.1],
                    "values": [d.values.0, d.values.1],
                    "explained_by": explained,
                    "message": format!("{}+{:#x} differs between seeds {} and {}", d.buffer, d.offset, d.seeds.0, d.seeds.1),
                })
                .to_string(),
            );
            out.push('\n');
        }
    } else {
        let errors_n = found
            .iter()
            .filter(|f| f.kind.severity() == Severity::Error)
            .count();
        let runs = 1 + args.seeds;
        let n = |x: usize, noun: &str| count(x as u64, noun);
        out.push_str(&format!(
            "{name}: {} ({}, {}) in {} of {} wave-instructions\n",
            n(found.len(), "finding"),
            n(errors_n, "error"),
            n(found.len() - errors_n, "warning"),
            count(runs, "run"),
            m.stats.wave_instructions,
        ));
        for (i, f) in found.iter().enumerate() {
            out.push_str(&format!("#{} {}\n", i + 1, f.describe(m, source)));
        }
        for (seed, e) in &errors {
            out.push_str(&format!("error (seed {seed}): {e}\n"));
        }
        if let Some(d) = &difference {
            out.push_str(&format!(
                "error: the result depends on the schedule: {}+{:#x} (global {:#x}) is {:#04x} with seed {} and {:#04x} with seed {}\n",
                d.buffer, d.offset, d.addr, d.values.0, d.seeds.0, d.values.1, d.seeds.1
            ));
            out.push_str(&match explained {
                Some(i) => format!("  explained by #{}: {}\n", i + 1, found[i].headline()),
                None => "  no finding explains it (atomics applied in another order, e.g. float adds, give other results too)\n".to_string(),
            });
        } else if args.seeds > 0 {
            out.push_str(&format!(
                "every buffer is identical under {}\n",
                count(args.seeds, "seeded schedule")
            ));
        }
    }
    emit(&out)?;
    let clean = found.is_empty() && errors.is_empty() && difference.is_none();
    Ok(if clean { 0 } else { 1 })
}
