//! GDB remote server for wavedbg: exports the debug engine over the GDB remote serial
//! protocol (built on the `gdbstub` crate) so stock gdb, gdb-multiarch and lldb attach to
//! a kernel: waves are threads, each lane of a vector register is an element of a
//! 32-element vector register, memory windows expose global, shared and scratch memory,
//! and `monitor` runs the command language. docs/gdb.md is the user's walkthrough.
//!
//! # Module map
//!
//! One concern per file. Dependencies point down this list, never up (a module uses only
//! modules listed below it), so there are no import circles:
//!
//! - this file: listening, one client at a time ([`serve`]); uses [`session`], [`target`];
//! - [`session`]: one connection's protocol loop: feeds packets to gdbstub, runs the plan
//!   of a resume packet, reports the stop; uses [`run`], [`target`], [`validate`],
//!   [`conn`], [`plan`], [`regs`], [`memory`], [`codes`];
//! - [`run`]: running the kernel for a [`plan::Plan`] and the stop reply for the engine's
//!   stop; uses [`target`], [`plan`], [`points`], [`codes`];
//! - [`target`]: the gdbstub `Target` ([`WaveTarget`]) in `target/mod.rs`, one file per
//!   extension beside it (base, single_register, memory, breakpoints, watchpoints, resume,
//!   monitor, extended_mode, thread_extra_info, target_description, host_info: the module
//!   docs list what each holds). The extensions use `target/mod.rs` and the modules below,
//!   never each other except `base` → `memory`;
//! - [`plan`]: plain data: the `vCont` actions and the [`plan::Plan`] they make;
//! - [`points`]: plain data: the client's breakpoints and watchpoints and their names;
//!   uses [`memory`];
//! - [`memory`]: the address windows and bounded, checked accesses; uses [`codes`];
//! - [`regs`]: register numbering, the `g` packet, the target description XML;
//! - [`validate`]: strict checks of raw packets that gdbstub would parse leniently; uses
//!   [`codes`];
//! - [`conn`]: the TCP connection (packet framing, Ctrl-C, buffered writes);
//! - [`codes`]: errno and signal numbers of replies (engine errors mapped in one place).
//!
//! Beside the server, [`symbols`] writes a kernel's symbol file (an ELF with DWARF) for
//! the clients to load; no other module uses it.

#![warn(missing_docs)]

pub mod codes;
pub mod conn;
pub mod memory;
pub mod plan;
pub mod points;
pub mod regs;
pub mod run;
pub mod session;
pub mod symbols;
pub mod target;
pub mod validate;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

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

/// Serves `engine` over the GDB remote protocol until a client kills it.
///
/// Prints `wavedbg: GDB server listening on ADDR` on stderr once it accepts connections.
/// One client is served at a time: another that connects meanwhile is refused at once (its
/// first packet is answered `E.` with the reason, which gdb prints, and the connection is
/// closed; the server's stderr says so too). A client that sends no whole packet within
/// [`HANDSHAKE_TIMEOUT`] of connecting is dropped, so the next one can attach. When a
/// client detaches, or its connection closes without a kill (the client crashed or went
/// away), the server keeps the kernel as it is and waits for the next client. When the
/// launch ends (all waves exited, or the client resumed after a fault), it restarts from
/// the beginning for the next `run` or client. Listening on a non-loopback address is the
/// caller's decision (the CLI requires `--allow-remote`); `monitor save` is then refused.
pub fn serve(engine: Engine, options: ServeOptions) -> Result<(), ServeError> {
    serve_on(engine, TcpListener::bind(options.listen)?)
}

/// [`serve`] on a listener the caller bound (to learn the port before serving).
pub fn serve_on(engine: Engine, listener: TcpListener) -> Result<(), ServeError> {
    serve_on_with(engine, listener, HANDSHAKE_TIMEOUT)
}

/// How long a new client has to send its first whole packet before it is dropped and the
/// server waits for the next (a connection that sends nothing would otherwise hold the
/// one client slot for as long as it stays open). docs/gdb.md says so.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// [`serve_on`] with the handshake time-out `handshake` instead of [`HANDSHAKE_TIMEOUT`].
pub fn serve_on_with(
    engine: Engine,
    listener: TcpListener,
    handshake: Duration,
) -> Result<(), ServeError> {
    let addr = listener.local_addr()?;
    eprintln!("wavedbg: GDB server listening on {addr} (gdb: target remote {addr})");
    let mut target = WaveTarget::new(engine);
    target.files_allowed = addr.ip().is_loopback();
    loop {
        listener.set_nonblocking(false)?;
        let (stream, peer) = listener.accept()?;
        stream.set_nonblocking(false)?;
        eprintln!("wavedbg: client connected from {peer}");
        let done = AtomicBool::new(false);
        let ended = std::thread::scope(|scope| {
            scope.spawn(|| refuse_others(&listener, &done, peer));
            // Stop the refuser even if the session panics, or the scope would never end.
            let _done = SetOnDrop(&done);
            session::run(&mut target, stream, handshake)
        });
        match ended {
            // As `gdbserver --multi`: a client that detaches leaves the kernel as it is for
            // the next one, which is answered at once (a server that ended would leave gdb
            // retrying a refused connection for its `tcp connect-timeout`, 15 s).
            Ok(session::End::Detached) => {
                eprintln!("wavedbg: client detached; waiting for another client");
            }
            Ok(session::End::Killed) => {
                eprintln!("wavedbg: killed by the client; server done");
                return Ok(());
            }
            Ok(session::End::TimedOut) => {
                eprintln!(
                    "wavedbg: the client from {peer} sent no packet within {:.1} s; dropped, waiting for another client",
                    handshake.as_secs_f64()
                );
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

/// How often the listener is polled for other clients while one is served.
const REFUSE_POLL: Duration = Duration::from_millis(50);
/// How long a refused client gets to send its first packet (and then to close).
const REFUSE_WAIT: Duration = Duration::from_secs(5);

struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// While a client is served, refuses every other that connects (until `done`). Without
/// this a second client would wait in the listen backlog, hang, and get a broken session.
fn refuse_others(listener: &TcpListener, done: &AtomicBool, attached: SocketAddr) {
    if listener.set_nonblocking(true).is_err() {
        return;
    }
    while !done.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, peer)) => {
                eprintln!(
                    "wavedbg: refused a client from {peer}: the client from {attached} is attached (one at a time)"
                );
                // A thread each, so a silent client cannot delay the next refusal.
                std::thread::spawn(move || refuse(stream, attached));
            }
            Err(_) => std::thread::sleep(REFUSE_POLL),
        }
    }
}

/// The bodies of a refused client's packets, framed by [`conn::Framer`] (checksums checked;
/// acks, noise and bad packets skipped).
struct Packets {
    stream: TcpStream,
    framer: conn::Framer,
    ready: std::collections::VecDeque<Vec<u8>>,
    /// Bytes read so far: a refused client gets to send 64 KiB, no more.
    read: usize,
}

impl Packets {
    /// The next packet's body; `None` when the client closes, its time is up (the stream's
    /// read time-out) or it has sent too much.
    fn next(&mut self) -> Option<Vec<u8>> {
        let mut buf = [0u8; 4096];
        while self.ready.is_empty() {
            let n = match self.stream.read(&mut buf) {
                Ok(0) | Err(_) => return None,
                Ok(n) => n,
            };
            self.read += n;
            if self.read > 1 << 16 {
                return None;
            }
            for &b in &buf[..n] {
                if let Some(conn::Incoming::Packet(p)) = self.framer.push(b, &mut || {}) {
                    // `$body#cs`
                    self.ready.push_back(p[1..p.len() - 3].to_vec());
                }
            }
        }
        self.ready.pop_front()
    }
}

/// Answers a refused client's first packet with an error that says why, and closes.
fn refuse(stream: TcpStream, attached: SocketAddr) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(REFUSE_WAIT));
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut packets = Packets {
        stream,
        framer: conn::Framer::default(),
        ready: Default::default(),
        read: 0,
    };
    // Wait for the first whole packet: gdb reads the reply to its `qSupported`.
    let Some(first) = packets.next() else {
        return;
    };
    let error = format!(
        "E.wavedbg: another client ({attached}) is attached; the server serves one at a time"
    );
    if first == b"QStartNoAckMode" {
        refuse_lldb(writer, first, packets, &error);
        return;
    }
    let mut reply = b"+".to_vec();
    reply.extend(conn::packet(error.as_bytes()));
    let _ = writer.write_all(&reply);
    // Close our side, then wait for the client's: closing with its next packet unread
    // would reset the connection, and the client could lose the reply.
    let _ = writer.shutdown(std::net::Shutdown::Write);
    while packets.next().is_some() {}
}

/// Refuses lldb, which opens with `QStartNoAckMode` and would take an error reply to its
/// handshake as something to work around and wait for ever: its handshake is answered
/// until it asks for threads and the stop reason, which get the refusal (`error`), so lldb
/// ends its `gdb-remote` at once with an error ("state was not stopped"); lldb prints no
/// text a server sends while it connects, so the server's log says why.
fn refuse_lldb(mut writer: TcpStream, first: Vec<u8>, mut packets: Packets, error: &str) {
    let mut acks = true;
    let deadline = std::time::Instant::now() + REFUSE_WAIT;
    let mut next = Some(first);
    while let Some(packet) = next.take() {
        let reply = match packet.as_slice() {
            b"QStartNoAckMode" | b"QEnableErrorStrings" => "OK",
            p if p.starts_with(b"qSupported") => "PacketSize=4000",
            b"?" | b"qfThreadInfo" | b"qC" | b"qProcessInfo" => error,
            b"k" => return,
            _ => "",
        };
        let mut out = if acks { b"+".to_vec() } else { Vec::new() };
        out.extend(conn::packet(reply.as_bytes()));
        if writer.write_all(&out).is_err() || std::time::Instant::now() >= deadline {
            return;
        }
        if packet == b"QStartNoAckMode" {
            acks = false;
        }
        next = packets.next();
    }
}

/// What the crate's unit tests share.
#[cfg(test)]
pub(crate) mod testing {
    use wavedbg_emulator::debug::Engine;
    use wavedbg_emulator::machine::LaunchOptions;

    /// An engine on a kernel's source, with up to `resident` workgroups resident at once.
    pub(crate) fn engine(src: &str, resident: u32) -> Engine {
        let p = wavedbg_emulator::asm::assemble(src, "t.s", None).expect("assembles");
        let options = LaunchOptions {
            resident_workgroups: resident,
            ..LaunchOptions::default()
        };
        Engine::new(&p, options).expect("launches")
    }
}
