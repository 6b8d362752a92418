//! A Debug Adapter Protocol server for the wave32 debugger: `wavedbg dap` on stdin and
//! stdout, or on a TCP port one client at a time. The adapter holds no debugging logic:
//! each request becomes a typed command on the engine's one command path
//! (`debug::driver`), and each typed result (a stop, a value, point numbers) becomes
//! the protocol's response and events.
//!
//! Modules: [`protocol`] (framing, with bounds), [`types`] (the messages), [`session`]
//! (the dispatcher and the reader thread that lets `pause` interrupt a run), then one
//! file per request family: `launch`, `breakpoints`, `variables`, `inspect`, `memory`,
//! `control`, and `events` (stops to events); `places` names where an instruction is
//! (its higher-level line where the kernel has a line table, else its `.s` line).

mod breakpoints;
mod control;
mod error;
mod events;
mod inspect;
mod launch;
mod memory;
mod paths;
mod places;
pub mod protocol;
pub mod session;
pub mod types;
mod variables;

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use error::DapError;
pub use protocol::WireError;
pub use session::serve;

/// How long a TCP client has to send its first whole message before it is dropped and
/// the next client is served (a connection that sends nothing would otherwise hold the
/// one client slot for as long as it stays open). The GDB server's is the same.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// Serves clients on `listener`, one at a time, until accepting fails; each has
/// [`HANDSHAKE_TIMEOUT`] to send its first message, and gives way at once to a client
/// that connects while it has sent nothing whole yet (a silent connection, a port scan or
/// an editor's abandoned attempt does not make the next client wait).
pub fn serve_tcp(listener: &TcpListener) -> Result<(), WireError> {
    serve_tcp_with(listener, HANDSHAKE_TIMEOUT)
}

/// How often a client in its handshake looks for a client waiting behind it.
const HANDSHAKE_POLL: Duration = Duration::from_millis(50);

/// [`serve_tcp`] with the handshake time-out `handshake`.
pub fn serve_tcp_with(listener: &TcpListener, handshake: Duration) -> Result<(), WireError> {
    let waiting: Arc<Mutex<Option<TcpStream>>> = Arc::default();
    loop {
        // A client that superseded a silent one is served first.
        let queued = waiting.lock().map(|mut w| w.take()).unwrap_or(None);
        let stream = match queued {
            Some(s) => s,
            None => {
                listener.set_nonblocking(false)?;
                listener.accept()?.0
            }
        };
        stream.set_nonblocking(false)?;
        let peer = stream
            .peer_addr()
            .map_or_else(|_| "?".to_string(), |a| a.to_string());
        let greeted = Arc::new(AtomicBool::new(false));
        let ended = Arc::new(Mutex::new(None));
        let input = Handshake {
            stream: stream.try_clone()?,
            listener: listener.try_clone()?,
            deadline: Instant::now() + handshake,
            greeted: greeted.clone(),
            waits: false,
            ended: ended.clone(),
            waiting: waiting.clone(),
        };
        let result = session::serve_greeted(input, &stream, move || {
            greeted.store(true, Ordering::SeqCst)
        });
        // Ends the reader thread of a client that is still connected.
        let _ = stream.shutdown(std::net::Shutdown::Both);
        let why = ended.lock().map(|e| *e).unwrap_or(None);
        match why {
            Some(Dropped::TimedOut) => eprintln!(
                "wavedbg dap: the client from {peer} sent no whole message within {:.1} s; dropped, waiting for another client",
                handshake.as_secs_f64()
            ),
            Some(Dropped::Superseded) => eprintln!(
                "wavedbg dap: the client from {peer} had sent no whole message when another connected; dropped, serving the new one"
            ),
            None => {
                if let Err(e) = result {
                    eprintln!("wavedbg dap: client session ended: {e}");
                }
            }
        }
    }
}

/// Why a client was dropped before its first whole message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dropped {
    /// The handshake time-out passed.
    TimedOut,
    /// Another client connected meanwhile.
    Superseded,
}

/// A TCP client's input that must deliver a whole first message before `deadline`
/// (a deadline, not a per-read time-out, so a byte every few seconds does not hold the
/// slot either), and gives way to a client that connects before it has (kept in
/// `waiting`, served next). Once `greeted` is set, reads wait as long as the client takes.
struct Handshake {
    stream: TcpStream,
    /// The server's listener, polled for a client waiting behind this one.
    listener: TcpListener,
    deadline: Instant,
    greeted: Arc<AtomicBool>,
    /// The socket's read time-out is off (set once the client is greeted).
    waits: bool,
    ended: Arc<Mutex<Option<Dropped>>>,
    waiting: Arc<Mutex<Option<TcpStream>>>,
}

impl Handshake {
    fn drop_client(&self, why: Dropped) -> std::io::Error {
        if let Ok(mut e) = self.ended.lock() {
            *e = Some(why);
        }
        let text = match why {
            Dropped::TimedOut => "no whole first message within the handshake time-out",
            Dropped::Superseded => "another client connected before the first message",
        };
        std::io::Error::new(std::io::ErrorKind::TimedOut, text)
    }

    /// A client that connected behind this one, taken off the listener (kept to serve
    /// next); the listener is left blocking.
    fn next_client(&self) -> std::io::Result<Option<TcpStream>> {
        self.listener.set_nonblocking(true)?;
        let next = match self.listener.accept() {
            Ok((s, _)) => Some(s),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => None,
            Err(e) => {
                self.listener.set_nonblocking(false)?;
                return Err(e);
            }
        };
        self.listener.set_nonblocking(false)?;
        Ok(next)
    }
}

impl Read for Handshake {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.waits {
            return self.stream.read(buf);
        }
        loop {
            if self.greeted.load(Ordering::SeqCst) {
                self.stream.set_read_timeout(None)?;
                self.waits = true;
                return self.stream.read(buf);
            }
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(self.drop_client(Dropped::TimedOut));
            }
            if let Some(next) = self.next_client()? {
                if let Ok(mut w) = self.waiting.lock() {
                    *w = Some(next);
                }
                return Err(self.drop_client(Dropped::Superseded));
            }
            self.stream
                .set_read_timeout(Some(left.min(HANDSHAKE_POLL)))?;
            match self.stream.read(buf) {
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    continue
                }
                other => return other,
            }
        }
    }
}

/// Serves one client on this process's stdin and stdout.
pub fn serve_stdio() -> Result<(), WireError> {
    serve(std::io::stdin(), std::io::stdout().lock())
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::time::{Duration, Instant};

    use super::serve_tcp_with;

    const INITIALIZE: &str = r#"{"seq":1,"type":"request","command":"initialize","arguments":{}}"#;
    const THREADS: &str = r#"{"seq":2,"type":"request","command":"threads"}"#;

    fn send(stream: &mut TcpStream, body: &str) {
        let framed = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        stream.write_all(framed.as_bytes()).expect("sent");
    }

    /// Reads until `want` appears in what the server sent (or the read time-out).
    fn read_until(stream: &mut TcpStream, want: &str) -> String {
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("time-out");
        let mut text = String::new();
        let mut buf = [0; 4096];
        while !text.contains(want) {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => text.push_str(&String::from_utf8_lossy(&buf[..n])),
            }
        }
        text
    }

    /// Whether the server closed `stream` (within the read time-out).
    fn closed(stream: &mut TcpStream) -> bool {
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("time-out");
        let mut buf = [0; 64];
        matches!(stream.read(&mut buf), Ok(0) | Err(_))
    }

    #[test]
    fn a_silent_or_slow_client_is_dropped_and_the_next_served() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let addr = listener.local_addr().expect("its address");
        let handshake = Duration::from_millis(400);
        // The server runs until the test process ends.
        std::thread::spawn(move || serve_tcp_with(&listener, handshake));

        // Silent: dropped after the time-out.
        let mut silent = TcpStream::connect(addr).expect("connected");
        let start = Instant::now();
        assert!(closed(&mut silent));
        assert!(start.elapsed() >= handshake, "{:?}", start.elapsed());

        // A byte now and then is not a message: dropped at the deadline all the same.
        let mut slow = TcpStream::connect(addr).expect("connected");
        let start = Instant::now();
        for b in b"Content-Len" {
            if slow.write_all(&[*b]).is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(60));
        }
        assert!(closed(&mut slow));
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );

        // A silent client gives way at once to one that connects behind it.
        let mut silent = TcpStream::connect(addr).expect("connected");
        std::thread::sleep(handshake / 4);
        let start = Instant::now();
        let mut next = TcpStream::connect(addr).expect("connected");
        send(&mut next, INITIALIZE);
        let hello = read_until(&mut next, "supportsStepBack");
        assert!(hello.contains(r#""success":true"#), "{hello}");
        assert!(start.elapsed() < handshake / 2, "{:?}", start.elapsed());
        assert!(closed(&mut silent));
        drop(next);

        // The next client is served, and once it has spoken it may take its time.
        let mut client = TcpStream::connect(addr).expect("connected");
        send(&mut client, INITIALIZE);
        let hello = read_until(&mut client, "supportsStepBack");
        assert!(hello.contains(r#""success":true"#), "{hello}");
        std::thread::sleep(handshake * 2);
        send(&mut client, THREADS);
        let threads = read_until(&mut client, r#""request_seq":2"#);
        assert!(threads.contains(r#""request_seq":2"#), "{threads}");
    }
}
