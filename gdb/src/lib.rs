//! GDB remote server for wavedbg (built on the debug engine).

use std::net::SocketAddr;

use wavedbg_emulator::debug::Engine;

/// How the server is started.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Address to listen on.
    pub listen: SocketAddr,
}

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Socket I/O failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Serves `engine` over the GDB remote protocol until the client detaches or kills it.
pub fn serve(engine: Engine, options: ServeOptions) -> Result<(), ServeError> {
    let _ = (engine, options);
    Err(ServeError::Io(std::io::Error::other("not implemented yet")))
}
