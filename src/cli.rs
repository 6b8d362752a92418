//! Subcommands: thin wrappers over the emulator crate.

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};
use color_eyre::eyre::{eyre, Result, WrapErr};
use wavedbg_emulator::asm::{self, AsmErrors};
use wavedbg_emulator::disasm;
use wavedbg_emulator::isa::Isa;
use wavedbg_emulator::program::Program;

/// wavedbg: a debugger for wave32 SIMT GPU kernels.
///
/// Without a subcommand, runs the built-in demo kernel and shows its result.
#[derive(Debug, Parser)]
#[command(name = "wavedbg", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List every instruction: mnemonic, unit, format, opcode, function fields, latency,
    /// flags and operands.
    Isa {
        /// One JSON object per instruction (a JSON array).
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// The instruction-set reference (docs/isa.md) as Markdown.
        #[arg(long)]
        markdown: bool,
    },
    /// Assemble a kernel source (.s) into a kernel object (.wko, see docs/assembler.md).
    Asm {
        /// Kernel source file.
        input: PathBuf,
        /// Output file (default: the input with extension .wko).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Disassemble a kernel object (.wko), or a source file (.s), which is assembled first.
    /// The output is assembler input again.
    Disasm {
        /// A .wko kernel object or a .s source file.
        file: PathBuf,
    },
    /// Run a kernel to completion; print the requested memory dumps and a summary, or the
    /// fault with its context (exit code 1 on a fault or deadlock).
    Run(crate::run::RunArgs),
}

/// Runs the command line; returns the process exit code.
pub fn run(cli: Cli) -> Result<i32> {
    match cli.command {
        None => crate::run::demo(),
        Some(Command::Isa { json, markdown }) => {
            let isa = Isa::get();
            if json {
                emit(&(serde_json::to_string_pretty(&isa.entries())? + "\n"))?;
            } else if markdown {
                emit(&isa.markdown())?;
            } else {
                emit(&isa.listing())?;
            }
            Ok(0)
        }
        Some(Command::Asm { input, output }) => {
            let program = load_source(&input)?;
            let out = output.unwrap_or_else(|| input.with_extension("wko"));
            write_atomically(&out, program.to_object().as_bytes())?;
            eprintln!(
                "{}: kernel `{}`, {} bytes of code -> {}",
                input.display(),
                program.name,
                program.code_bytes(),
                out.display()
            );
            Ok(0)
        }
        Some(Command::Run(args)) => crate::run::run(args),
        Some(Command::Disasm { file }) => {
            let program = load_program(&file)?;
            emit(&disasm::disassemble(&program))?;
            Ok(0)
        }
    }
}

/// Assembles a source file, turning diagnostics into a report.
fn load_source(path: &Path) -> Result<Program> {
    asm::assemble_file(path).map_err(|e: AsmErrors| eyre!("{e}"))
}

/// Loads a kernel: a .wko object, or anything else as assembler source.
pub fn load_program(path: &Path) -> Result<Program> {
    if path.extension().is_some_and(|e| e == "wko") {
        let text = std::fs::read_to_string(path)
            .wrap_err_with(|| format!("cannot read {}", path.display()))?;
        Program::from_object(&text).map_err(|e| eyre!("{}: {e}", path.display()))
    } else {
        load_source(path)
    }
}

/// Writes a file by writing a temporary file beside it and renaming it over the target,
/// so a crash never leaves a half-written file.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| eyre!("{} is not a file name", path.display()))?;
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes).wrap_err_with(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).wrap_err_with(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

/// Writes to stdout; a closed pipe (`wavedbg isa | head`) ends output quietly.
pub fn emit(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
