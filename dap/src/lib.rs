//! A Debug Adapter Protocol server for the wave32 debugger: `wavedbg dap` on stdin and
//! stdout, or on a TCP port one client at a time. The adapter holds no debugging logic:
//! each request becomes a typed command on the engine's one command path
//! (`debug::driver`), and each typed result (a stop, a value, point numbers) becomes
//! the protocol's response and events.
//!
//! Modules: [`protocol`] (framing, with bounds), [`types`] (the messages), [`session`]
//! (the dispatcher and the reader thread that lets `pause` interrupt a run), then one
//! file per request family: `launch`, `breakpoints`, `variables`, `inspect`, `memory`,
//! `control`, and `events` (stops to events).

mod breakpoints;
mod control;
mod error;
mod events;
mod inspect;
mod launch;
mod memory;
pub mod protocol;
pub mod session;
pub mod types;
mod variables;

use std::net::TcpListener;

pub use error::DapError;
pub use protocol::WireError;
pub use session::serve;

/// Serves clients on `listener`, one at a time, until accepting fails.
pub fn serve_tcp(listener: &TcpListener) -> Result<(), WireError> {
    for stream in listener.incoming() {
        let stream = stream?;
        let input = stream.try_clone()?;
        let result = serve(input, &stream);
        // Ends the reader thread of a client that is still connected.
        let _ = stream.shutdown(std::net::Shutdown::Both);
        if let Err(e) = result {
            eprintln!("wavedbg dap: client session ended: {e}");
        }
    }
    Ok(())
}

/// Serves one client on this process's stdin and stdout.
pub fn serve_stdio() -> Result<(), WireError> {
    serve(std::io::stdin(), std::io::stdout().lock())
}
