//! Writing a kernel's symbol file (`wavedbg elf`, and the one `wavedbg serve` writes): a
//! thin wrapper over `wavedbg_gdb::symbols`.

use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, WrapErr};
use wavedbg_emulator::debug::Engine;
use wavedbg_emulator::machine::LaunchOptions;
use wavedbg_emulator::program::Program;
use wavedbg_gdb::symbols::Launch;

/// The source file a program's line table names: the `.s` it was assembled from (as
/// given), or `kernel` itself when that is the source.
fn source_of(program: &Program, kernel: &Path) -> PathBuf {
    match &program.source {
        Some(s) if kernel.extension().is_some_and(|e| e == "wko") => PathBuf::from(s),
        _ => kernel.to_path_buf(),
    }
}

/// Writes the symbol file of `program` (read from `kernel`) to `out`, for a launch with
/// `options` (the grid decides the shared and scratch windows it names).
pub fn write(program: &Program, kernel: &Path, options: LaunchOptions, out: &Path) -> Result<()> {
    let launch = Launch::new(program, options)?;
    write_source(program, &launch, &source_of(program, kernel), out)
}

/// Writes the symbol file for `wavedbg serve` and returns where: `explicit` if given;
/// else KERNEL.elf beside the kernel, unless a file that is not a wavedbg symbol file is
/// there or the directory is not writable; else a file in the temporary directory. The
/// file describes the engine's own launch (its buffers, grid and waves).
pub fn write_for_serve(engine: &Engine, explicit: Option<&Path>) -> Result<PathBuf> {
    let program = engine.machine().program();
    let launch = Launch::of(engine.machine());
    let kernel = engine.kernel_path().map(PathBuf::from);
    let kernel_file = kernel.as_ref().filter(|k| k.is_file());
    let source = kernel_file
        .map(|k| source_of(program, k))
        .unwrap_or_else(|| PathBuf::from(engine.kernel_path().unwrap_or(&program.name)));
    if let Some(out) = explicit {
        write_source(program, &launch, &source, out)?;
        return Ok(out.to_path_buf());
    }
    if let Some(k) = kernel_file {
        let beside = k.with_extension("elf");
        let free = match std::fs::read(&beside) {
            Ok(bytes) => wavedbg_gdb::symbols::is_symbol_file(&bytes),
            Err(e) => e.kind() == std::io::ErrorKind::NotFound,
        };
        if free && write_source(program, &launch, &source, &beside).is_ok() {
            return Ok(beside);
        }
    }
    let name = Path::new(&program.name)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "kernel".into());
    let out = std::env::temp_dir().join(format!("wavedbg-{}-{name}.elf", std::process::id()));
    write_source(program, &launch, &source, &out)?;
    Ok(out)
}

fn write_source(program: &Program, launch: &Launch, source: &Path, out: &Path) -> Result<()> {
    let bytes = wavedbg_gdb::symbols::elf_for(program, launch, source)?;
    wavedbg_emulator::debug::session::write_atomically(out, &bytes)
        .wrap_err_with(|| format!("cannot write {}", out.display()))
}
