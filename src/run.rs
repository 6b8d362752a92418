//! `wavedbg run`: run a kernel to completion and print dumps and a summary.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use color_eyre::eyre::{bail, eyre, Result, WrapErr};
use serde::Serialize;
use wavedbg_emulator::debug::expr::parse_number;
use wavedbg_emulator::debug::view::{count, deadlock_text};
use wavedbg_emulator::machine::{run_on_threads, Event, LaunchOptions, Machine, Stats};
use wavedbg_emulator::memory::hexdump;

use crate::output::{emit, emit_verbatim};
use wavedbg_emulator::debug::load_program_with;

/// Options of `wavedbg run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Kernel source (.s) or object (.wko).
    kernel: PathBuf,
    /// Grid, workgroup size, seed, quantum, residency and instruction budget
    /// ([`crate::launch::LaunchArgs`]).
    #[command(flatten)]
    launch: crate::launch::LaunchArgs,
    /// Print memory after the run: a buffer NAME, or global:ADDR:LEN (repeatable).
    #[arg(long, value_name = "NAME|global:ADDR:LEN")]
    dump: Vec<String>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    /// Run independent workgroups on up to N threads: the result is the one-thread
    /// run's; workgroups that share written bytes of global memory, or a launch that does
    /// not simply finish, run again on one thread (said on stderr).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
}

#[derive(Serialize)]
struct Dump {
    name: String,
    addr: u64,
    words: Vec<u32>,
    #[serde(skip)]
    bytes: Vec<u8>,
}

#[derive(Serialize)]
struct Report {
    kernel: String,
    status: &'static str,
    error: Option<String>,
    fault: Option<FaultJson>,
    stats: Stats,
    elapsed_ms: f64,
    dumps: Vec<Dump>,
}

/// A fault as `--json` prints it: the fault's fields, with the lane mask as a hex string
/// (`"0xffff0000"`), which reads as lanes where a decimal number does not.
#[derive(Serialize)]
struct FaultJson {
    kind: wavedbg_emulator::fault::FaultKind,
    wave: u32,
    workgroup: u32,
    lanes: String,
    pc: u64,
    addr: Option<u64>,
    len: u32,
    instr: Option<String>,
}

impl From<wavedbg_emulator::fault::Fault> for FaultJson {
    fn from(f: wavedbg_emulator::fault::Fault) -> Self {
        FaultJson {
            kind: f.kind,
            wave: f.wave,
            workgroup: f.workgroup,
            lanes: format!("{:#010x}", f.lanes),
            pc: f.pc,
            addr: f.addr,
            len: f.len,
            instr: f.instr,
        }
    }
}

fn dump(m: &Machine, spec: &str) -> Result<Dump> {
    let (name, addr, len) = if let Some(rest) = spec.strip_prefix("global:") {
        let (a, l) = rest
            .split_once(':')
            .ok_or_else(|| eyre!("--dump {spec}: expected global:ADDR:LEN"))?;
        let (a, l) = (
            parse_number(a).map(|v| v as u64),
            parse_number(l).map(|v| v as u64),
        );
        let (Some(a), Some(l)) = (a, l) else {
            bail!("--dump {spec}: ADDR and LEN must be numbers")
        };
        if l > 1 << 24 {
            bail!("--dump {spec}: at most 16 MiB");
        }
        (spec.to_string(), a, l)
    } else {
        let buf = m.program().buffer(spec).ok_or_else(|| {
            let names: Vec<&str> = m
                .program()
                .buffers
                .iter()
                .map(|b| b.name.as_str())
                .collect();
            eyre!(
                "--dump {spec}: no buffer of that name (buffers: {})",
                if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                }
            )
        })?;
        let base = m.buffer_base(spec).unwrap_or(0);
        (spec.to_string(), base, buf.size)
    };
    let mut bytes = vec![0; len as usize];
    m.global.read(addr, &mut bytes).ok_or_else(|| {
        eyre!(
            "--dump {spec}: {addr:#x}..{:#x} is not allocated global memory",
            addr + len
        )
    })?;
    let words = bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    Ok(Dump {
        name,
        addr,
        words,
        bytes,
    })
}

/// Runs the kernel; returns the exit code (0 finished, 1 fault or deadlock).
pub fn run(args: RunArgs) -> Result<i32> {
    let program = load_program_with(&args.kernel, &args.launch.assemble_options())?;
    run_program(&program, args)
}

fn run_program(program: &wavedbg_emulator::program::Program, args: RunArgs) -> Result<i32> {
    let mut options = args.launch.options();
    // A plain run must end: without --max-instructions it gets the machine's budget
    // (0 still means unlimited).
    if args.launch.max_instructions.is_none() {
        options.max_instructions = LaunchOptions::default().max_instructions;
    }
    // (Elapsed time counts the parts' machines made on their threads; the one-thread run's
    // starts after its machine is made, as before.)
    let mut start = Instant::now();
    let (m, event) = if args.threads > 1 {
        let run = run_on_threads(program, options, args.threads as usize)
            .wrap_err_with(|| args.kernel.display().to_string())?;
        if let Some(why) = &run.one_thread {
            eprintln_visible!("{}: ran on one thread: {why}", args.kernel.display());
        }
        (run.machine, run.event)
    } else {
        let mut m =
            Machine::new(program, options).wrap_err_with(|| args.kernel.display().to_string())?;
        start = Instant::now();
        let event = m.run(None);
        (m, event)
    };
    let elapsed = start.elapsed();
    let (status, error, fault) = match event {
        Some(Event::Finished) | None => ("finished", None, None),
        Some(Event::Fault(f)) => ("fault", Some(f.to_string()), Some(f.into())),
        Some(Event::Deadlock(d)) => ("deadlock", Some(deadlock_text(&m, &d)), None),
        // The debugger's events: a plain run arms no breakpoints or watchpoints.
        Some(
            Event::Break { .. }
            | Event::Stalled
            | Event::BreakpointHit { .. }
            | Event::WatchHit { .. }
            | Event::Finding { .. }
            | Event::StopBefore,
        ) => ("stalled", Some("no wave can run".into()), None),
    };
    let dumps = args
        .dump
        .iter()
        .map(|d| dump(&m, d))
        .collect::<Result<Vec<_>>>()?;
    let report = Report {
        kernel: program.name.clone(),
        status,
        error,
        fault,
        stats: m.stats,
        elapsed_ms: elapsed.as_secs_f64() * 1e3,
        dumps,
    };
    if args.json {
        emit_verbatim(&(serde_json::to_string_pretty(&report)? + "\n"))?;
    } else {
        let mut out = String::new();
        for d in &report.dumps {
            out.push_str(&format!(
                "{} ({} at {:#x}):\n",
                d.name,
                count(d.bytes.len() as u64, "byte"),
                d.addr
            ));
            out.push_str(&hexdump(&d.bytes, d.addr));
        }
        let s = &report.stats;
        let secs = elapsed.as_secs_f64().max(1e-9);
        out.push_str(&format!(
            "{}: {}, {}, {} ({} of vector instructions) in {:.3} ms ({:.1} M wave-instr/s)\n",
            report.kernel,
            count(s.waves_launched, "wave"),
            count(s.wave_instructions, "wave-instruction"),
            count(s.lane_ops, "lane-op"),
            s.vector_lane_ops,
            report.elapsed_ms,
            s.wave_instructions as f64 / secs / 1e6
        ));
        if let Some(e) = &report.error {
            out.push_str(&format!("error: {e}\n"));
        }
        emit(&out)?;
    }
    Ok(if status == "finished" { 0 } else { 1 })
}
