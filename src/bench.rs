//! `wavedbg bench`: prints the emulator's benchmark figures (emulator::bench) as a table or
//! as JSON, one object per case.

use clap::Args;
use color_eyre::eyre::Result;
use wavedbg_emulator::bench::{self, BenchOptions, Measurement};

use crate::output::{emit, emit_verbatim};

/// Options of `wavedbg bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// One JSON object per case, one per line.
    #[arg(long)]
    json: bool,
    /// Short runs: the whole suite in a few seconds (figures are noisier).
    #[arg(long)]
    quick: bool,
    /// Only the sanitizer's cost: the `checked-*` cases.
    #[arg(long)]
    checked: bool,
}

/// Runs the suite, printing each case as it completes.
pub fn run(args: BenchArgs) -> Result<i32> {
    let options = BenchOptions {
        quick: args.quick,
        checked_only: args.checked,
    };
    if !args.json {
        emit(&format!(
            "{:<26} {:>5} {:>14} {:>12} {:>12} {:>12} {:>9}  {}\n",
            "case",
            "waves",
            "wave-instr/s",
            "lane-ops/s",
            "vector l-o/s",
            "native",
            "vs native",
            "notes"
        ))?;
    }
    let mut failed = None;
    let result = bench::run(options, |m| {
        let line = if args.json {
            serde_json::to_string(m)
                .map(|s| s + "\n")
                .map_err(Into::into)
        } else {
            Ok(row(m))
        };
        let written = line.and_then(|l| {
            if args.json {
                emit_verbatim(&l)
            } else {
                emit(&l)
            }
        });
        if let Err(e) = written {
            failed.get_or_insert(e);
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    result?;
    Ok(0)
}

fn row(m: &Measurement) -> String {
    let mut notes = Vec::new();
    if let Some(r) = m.vs_bare {
        notes.push(format!("{r:.2}x bare"));
    }
    if let Some(r) = m.vs_one_thread {
        notes.push(format!("{r:.2}x one thread"));
    }
    if let Some(r) = m.vs_two_waves {
        notes.push(format!("{r:.2}x the cost at 2 waves"));
    }
    if let Some(b) = m.snapshot_bytes {
        let cpu = m
            .cpu_seconds
            .map(|c| format!(" ({:.1} ms CPU)", c * 1e3))
            .unwrap_or_default();
        notes.push(format!(
            "{:.1} ms{cpu} after {} instructions (recorded at {}/s), snapshots and index {:.0} MiB",
            m.seconds * 1e3,
            m.wave_instructions,
            si(m.wave_instructions_per_s),
            b as f64 / (1 << 20) as f64
        ));
    }
    if let (None, Some(c)) = (m.snapshot_bytes, m.cpu_seconds) {
        notes.push(format!("{:.1} ms ({:.1} ms CPU)", m.seconds * 1e3, c * 1e3));
    }
    if m.kernel == "engine-stepi" {
        notes.push(format!(
            "{:.1} us per stepi",
            m.seconds * 1e6 / m.wave_instructions as f64
        ));
    }
    format!(
        "{:<26} {:>5} {:>14} {:>12} {:>12} {:>12} {:>9}  {}\n",
        m.kernel,
        m.waves,
        si(m.wave_instructions_per_s),
        si(m.lane_ops_per_s),
        si(m.vector_lane_ops_per_s),
        m.native_vector_lane_ops_per_s.map(si).unwrap_or_default(),
        m.vs_native.map(|r| format!("{r:.3}")).unwrap_or_default(),
        notes.join(", ")
    )
}

/// 1234567 -> "1.23 M".
fn si(x: f64) -> String {
    let (v, unit) = match x {
        x if x >= 1e9 => (x / 1e9, "G"),
        x if x >= 1e6 => (x / 1e6, "M"),
        x if x >= 1e3 => (x / 1e3, "k"),
        x => (x, ""),
    };
    format!("{v:.2} {unit}")
}
