//! Opening a kernel under the debugger: launch options shared by `tui`, `repl`, `serve`
//! and `replay`, and the session a front end may start from.

use std::path::{Path, PathBuf};

use clap::Args;
use color_eyre::eyre::Result;
use wavedbg_emulator::asm::AssembleOptions;
use wavedbg_emulator::debug::{Engine, KernelSource};
use wavedbg_emulator::machine::LaunchOptions;

/// What the interactive debuggers (`tui`, `repl`) are opened on.
#[derive(Debug, Clone, Default, Args)]
pub struct DebugArgs {
    /// Kernel source (.s) or object (.wko); the built-in demo when neither this nor a
    /// session names one.
    pub kernel: Option<PathBuf>,
    /// Start from a saved session (its kernel is used when none is given).
    #[arg(long)]
    pub session: Option<PathBuf>,
    /// Write what you do to this replayable command script.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Grid, workgroup size, seed, quantum, residency and instruction budget
    /// ([`LaunchArgs`]).
    #[command(flatten)]
    pub launch: LaunchArgs,
}

impl DebugArgs {
    /// Opens the engine these arguments name, first refusing a `--record` script that
    /// would overwrite the session being opened (the recorder truncates its file as it
    /// starts, before the user could save the session anywhere else).
    pub fn open(&self) -> Result<Engine> {
        if let (Some(record), Some(session)) = (&self.record, &self.session) {
            let session = wavedbg_emulator::files::Input {
                path: session,
                what: "the session",
            };
            wavedbg_emulator::files::check_output(record, &[session])?;
        }
        open_engine(
            self.kernel.as_deref(),
            self.session.as_deref(),
            &self.launch,
        )
    }
}

/// Launch settings (override the kernel's directives), and how a source kernel is
/// assembled.
#[derive(Debug, Clone, Args)]
pub struct LaunchArgs {
    /// Workgroups in the grid (overrides `.grid`).
    #[arg(long)]
    pub grid: Option<u32>,
    /// Lanes per workgroup, a multiple of 32 (overrides `.workgroup`).
    #[arg(long)]
    pub workgroup: Option<u32>,
    /// Scheduling seed: 0 is plain round-robin; others explore other interleavings.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Instructions a wave runs before the scheduler switches (at least 1; with a seed,
    /// each turn's count is drawn from 1 to twice this).
    #[arg(long, default_value_t = LaunchOptions::default().quantum)]
    pub quantum: u32,
    /// Workgroups resident at once (at most the grid; their waves at most 4096).
    #[arg(long, default_value_t = LaunchOptions::default().resident_workgroups)]
    pub resident: u32,
    /// Fault after this many wave-instructions; 0 is unlimited (default: 100,000,000 for
    /// `run` and `replay`, unlimited under the debugger, where Ctrl-C interrupts a runaway
    /// kernel).
    #[arg(long)]
    pub max_instructions: Option<u64>,
    /// Let a kernel source's `.file` directives read files outside the source's own
    /// directory (by default they read only under it, after resolving symlinks and `..`).
    #[arg(long)]
    pub allow_file_outside_dir: bool,
}

impl Default for LaunchArgs {
    fn default() -> Self {
        let d = LaunchOptions::default();
        Self {
            grid: None,
            workgroup: None,
            seed: 0,
            quantum: d.quantum,
            resident: d.resident_workgroups,
            max_instructions: None,
            allow_file_outside_dir: false,
        }
    }
}

impl LaunchArgs {
    /// The assembler's options for a source kernel (`--allow-file-outside-dir`).
    pub fn assemble_options(&self) -> AssembleOptions {
        AssembleOptions {
            allow_files_outside_dir: self.allow_file_outside_dir,
        }
    }

    /// The machine's launch options (`--max-instructions 0` becomes unlimited, `None`).
    pub fn options(&self) -> LaunchOptions {
        LaunchOptions {
            grid: self.grid,
            workgroup_lanes: self.workgroup,
            seed: self.seed,
            quantum: self.quantum,
            resident_workgroups: self.resident,
            max_instructions: self.max_instructions.filter(|n| *n > 0),
        }
    }
}

/// Opens a kernel (or the session's kernel when none is given, or the built-in demo when
/// neither is) under the debugger, and applies the session if one is given.
pub fn open_engine(
    kernel: Option<&Path>,
    session: Option<&Path>,
    launch: &LaunchArgs,
) -> Result<Engine> {
    let source = match (kernel, session) {
        (kernel, Some(file)) => KernelSource::Session {
            file: file.to_path_buf(),
            kernel: kernel.map(Path::to_path_buf),
        },
        (Some(k), None) => KernelSource::File(k.to_path_buf()),
        (None, None) => KernelSource::Demo,
    };
    Ok(Engine::open_with(
        source,
        launch.options(),
        &launch.assemble_options(),
    )?)
}
