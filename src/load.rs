//! Reading a kernel from disk: a `.wko` object or assembler source.

use std::path::Path;

use color_eyre::eyre::{Result, WrapErr};
use wavedbg_emulator::asm;
use wavedbg_emulator::program::Program;

/// Assembles a source file; its diagnostics are the error.
pub fn load_source(path: &Path) -> Result<Program> {
    Ok(asm::assemble_file(path)?)
}

/// Loads a kernel: a .wko object, or anything else as assembler source.
pub fn load_program(path: &Path) -> Result<Program> {
    if path.extension().is_some_and(|e| e == "wko") {
        let text = std::fs::read_to_string(path)
            .wrap_err_with(|| format!("cannot read {}", path.display()))?;
        Program::from_object(&text).wrap_err_with(|| path.display().to_string())
    } else {
        load_source(path)
    }
}
