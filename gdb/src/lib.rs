//! GDB remote server for wavedbg: exports the debug engine over the GDB remote serial
//! protocol (built on the `gdbstub` crate) so stock gdb, gdb-multiarch and lldb attach to
//! a kernel: waves are threads, each lane of a vector register is an element of a
//! 32-element vector register, memory windows expose global, shared and scratch memory,
//! and `monitor` runs the command language. docs/gdb.md is the user's walkthrough.
//!
//! Files, one concern each:
//! - [`regs`]: register numbering, the `g` packet, the target description XML;
//! - [`memory`]: the address windows and bounded, checked accesses;
//! - [`conn`]: the TCP connection (packet framing, Ctrl-C, buffered writes);
//! - [`target`]: the gdbstub `Target` and its extensions;
//! - [`run`]: running the kernel for a resume packet and the stop reply;
//! - [`monitor`]: `monitor` commands;
//! - [`session`]: one connection's protocol loop; this file: listening.

#![warn(missing_docs)]

pub mod conn;
pub mod memory;
pub mod monitor;
pub mod regs;
pub mod run;
pub mod session;
pub mod target;

use std::net::{SocketAddr, TcpListener};

use wavedbg_emulator::debug::Engine;

pub use target::WaveTarget;

/// How the server is started.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Address to listen on (port 0 picks a free port; the address is printed).
    pub listen: SocketAddr,
}

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Socket I/O failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Serves `engine` over the GDB remote protocol until a client detaches or kills it.
///
/// Prints `wavedbg: GDB server listening on ADDR` on stderr once it accepts connections.
/// One client is served at a time; when a connection closes without a detach or kill (the
/// client crashed or went away), the server keeps the kernel as it is and waits for the
/// next client. When the launch ends (all waves exited, or the client resumed after a
/// fault), it restarts from the beginning for the next `run` or client. Listening on a
/// non-loopback address is the caller's decision (the CLI requires `--allow-remote`);
/// `monitor save` is then refused.
pub fn serve(engine: Engine, options: ServeOptions) -> Result<(), ServeError> {
    serve_on(engine, TcpListener::bind(options.listen)?)
}

/// [`serve`] on a listener the caller bound (to learn the port before serving).
pub fn serve_on(engine: Engine, listener: TcpListener) -> Result<(), ServeError> {
    let addr = listener.local_addr()?;
    eprintln!("wavedbg: GDB server listening on {addr} (gdb: target remote {addr})");
    let mut target = WaveTarget::new(engine);
    target.files_allowed = addr.ip().is_loopback();
    loop {
        let (stream, peer) = listener.accept()?;
        eprintln!("wavedbg: client connected from {peer}");
        match session::run(&mut target, stream) {
            Ok(session::End::Detached) => {
                eprintln!("wavedbg: client detached; server done");
                return Ok(());
            }
            Ok(session::End::Killed) => {
                eprintln!("wavedbg: killed by the client; server done");
                return Ok(());
            }
            Ok(session::End::Closed) => {
                eprintln!("wavedbg: connection closed; waiting for another client");
            }
            Err(e) => {
                eprintln!("wavedbg: connection failed ({e}); waiting for another client");
            }
        }
    }
}
