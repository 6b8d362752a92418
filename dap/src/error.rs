//! Why a request failed: every failure becomes an error response with this text, never a
//! panic and never silence.

use wavedbg_emulator::debug::command::CommandError;
use wavedbg_emulator::debug::{EngineError, OpenError};

/// A request's failure.
#[derive(Debug, thiserror::Error)]
pub enum DapError {
    /// The request needs a launched kernel.
    #[error("no kernel is launched yet: send `launch` first")]
    NotLaunched,
    /// The request must come before or after another one.
    #[error("`{command}` is out of order: {why}")]
    OutOfOrder {
        /// The request.
        command: String,
        /// What must come first.
        why: &'static str,
    },
    /// The request is not one this adapter knows.
    #[error("unknown request `{0}`")]
    Unknown(String),
    /// The request's arguments do not have the protocol's shape.
    #[error("bad arguments for `{command}`: {reason}")]
    Arguments {
        /// The request.
        command: String,
        /// What is wrong.
        reason: String,
    },
    /// A value in the arguments is not one the adapter can use.
    #[error("{0}")]
    Invalid(String),
    /// The engine refused the command it was mapped to: its message, without the
    /// command language's `usage:` line (the client did not type a command).
    #[error("{}", .0.message())]
    Command(#[from] CommandError),
    /// A line typed in the debug console failed: what the REPL prints for it (with the
    /// command's usage).
    #[error("{0}")]
    Console(CommandError),
    /// The engine refused an operation.
    #[error("{0}")]
    Engine(#[from] EngineError),
    /// The kernel could not be opened.
    #[error("{0}")]
    Open(#[from] OpenError),
    /// A forward run request while the launch is deadlocked: nothing can run (the
    /// engine's description of the deadlock, on one line).
    #[error("{0}")]
    Deadlocked(String),
}

impl DapError {
    /// The number the error response's message carries (stable per kind, for clients
    /// that tell them apart).
    pub fn id(&self) -> i64 {
        match self {
            DapError::NotLaunched => 1,
            DapError::OutOfOrder { .. } => 2,
            DapError::Unknown(_) => 3,
            DapError::Arguments { .. } => 4,
            DapError::Invalid(_) => 5,
            DapError::Command(_) => 6,
            DapError::Engine(_) => 7,
            DapError::Open(_) => 8,
            DapError::Console(_) => 9,
            DapError::Deadlocked(_) => 10,
        }
    }
}
