//! The client connection: a reader that frames packets, checks checksums and, while the
//! kernel runs, turns Ctrl-C (0x03) into an engine interrupt; and a buffered writer that
//! gdbstub talks through.
//!
//! Framing here, before gdbstub sees anything, is what keeps hostile input harmless:
//! oversized packets, bad checksums and stray bytes are answered or dropped without
//! reaching the protocol state machine, and a `-` (nack) makes the server send its last
//! packet again (gdbstub itself does not retransmit). Writes are collected and sent with
//! one system call per packet (gdbstub writes byte by byte).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use wavedbg_emulator::debug::InterruptHandle;

/// The largest packet body accepted; larger packets are dropped and answered with an error.
pub const MAX_PACKET: usize = 0x8000;

/// What the reader delivers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incoming {
    /// A whole packet (`$body#cs`) whose checksum matched.
    Packet(Vec<u8>),
    /// A packet whose checksum did not match (answered with `-`).
    BadChecksum,
    /// A packet longer than [`MAX_PACKET`] (answered with an error).
    Oversized,
    /// `-`: resend the last packet.
    Nack,
    /// The client closed the connection (or reading failed).
    Closed,
    /// The handshake deadline ([`Reader::handshake_until`]) passed before the client's
    /// first whole packet.
    TimedOut,
}

/// Frames the byte stream into [`Incoming`] items.
#[derive(Debug, Default)]
pub struct Framer {
    state: FrameState,
    buf: Vec<u8>,
    sum: u8,
    oversized: bool,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum FrameState {
    #[default]
    Idle,
    Body,
    Check1,
    Check2,
}

fn hex_digit(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

impl Framer {
    /// Feeds one byte; returns an item when one is complete. `interrupt` is called for a
    /// 0x03 outside a packet.
    pub fn push(&mut self, b: u8, interrupt: &mut dyn FnMut()) -> Option<Incoming> {
        match self.state {
            FrameState::Idle => match b {
                b'$' => {
                    self.state = FrameState::Body;
                    self.buf.clear();
                    self.buf.push(b);
                    self.sum = 0;
                    self.oversized = false;
                    None
                }
                0x03 => {
                    interrupt();
                    None
                }
                b'-' => Some(Incoming::Nack),
                // Acks and noise between packets.
                _ => None,
            },
            FrameState::Body => {
                if b == b'#' {
                    self.state = FrameState::Check1;
                } else {
                    self.sum = self.sum.wrapping_add(b);
                    if self.buf.len() > MAX_PACKET {
                        self.oversized = true;
                        return None;
                    }
                }
                self.buf.push(b);
                None
            }
            FrameState::Check1 => {
                self.buf.push(b);
                self.state = FrameState::Check2;
                None
            }
            FrameState::Check2 => {
                self.buf.push(b);
                self.state = FrameState::Idle;
                if self.oversized {
                    return Some(Incoming::Oversized);
                }
                let n = self.buf.len();
                let sum = hex_digit(self.buf[n - 2])
                    .zip(hex_digit(self.buf[n - 1]))
                    .map(|(h, l)| h << 4 | l);
                if sum == Some(self.sum) {
                    Some(Incoming::Packet(std::mem::take(&mut self.buf)))
                } else {
                    Some(Incoming::BadChecksum)
                }
            }
        }
    }
}

/// The reading half of the connection. While the kernel is stopped the serve loop reads
/// packets here itself (no thread hop per packet: stepping is a packet round trip). While
/// it runs, [`Reader::watch`] reads on a helper thread, so a Ctrl-C (0x03) or the client
/// going away interrupts the engine; what arrives meanwhile is kept for afterwards.
pub struct Reader {
    stream: TcpStream,
    framer: Framer,
    pending: VecDeque<Incoming>,
    buf: Vec<u8>,
    /// Until the first whole packet: when the client's time is up.
    handshake: Option<Instant>,
    /// When a Ctrl-C arrived while the kernel was stopped (see [`Reader::take_ctrl_c`]).
    ctrl_c_at: Option<Instant>,
}

/// How long a Ctrl-C that arrived while the kernel was stopped waits for the next resume.
/// gdb sends one between the steps of `stepi N` and `reverse-stepi N` (it thinks the
/// target runs), and resumes within milliseconds; one left from a race with a stop that
/// the user has since seen must not stop a command typed later.
const CTRL_C_KEPT: Duration = Duration::from_millis(1000);

/// How long the helper thread waits in one read before checking whether the run ended.
const WATCH_POLL: Duration = Duration::from_millis(5);

impl Reader {
    /// Reads from `stream`.
    pub fn new(stream: TcpStream) -> Reader {
        Reader {
            stream,
            framer: Framer::default(),
            pending: VecDeque::new(),
            buf: vec![0u8; 64 * 1024],
            handshake: None,
            ctrl_c_at: None,
        }
    }

    /// Gives the client until `deadline` for its first whole packet: [`Reader::recv`]
    /// returns [`Incoming::TimedOut`] after it. The deadline is for the whole packet, so a
    /// client that trickles bytes (or stalls mid-packet) does not extend it.
    pub fn handshake_until(&mut self, deadline: Instant) {
        self.handshake = Some(deadline);
    }

    /// Whether a Ctrl-C arrived while the kernel was stopped, shortly before now (and
    /// forgets it): the resume that follows stops at once, as gdb asked.
    pub fn take_ctrl_c(&mut self) -> bool {
        self.ctrl_c_at
            .take()
            .is_some_and(|t| t.elapsed() <= CTRL_C_KEPT)
    }

    /// The next item, waiting for the client. A Ctrl-C while the kernel is stopped is kept
    /// for the next resume ([`Reader::take_ctrl_c`]).
    pub fn recv(&mut self) -> Incoming {
        loop {
            if let Some(item) = self.pending.pop_front() {
                if matches!(item, Incoming::Packet(_)) && self.handshake.take().is_some() {
                    // The handshake is done: from now on the client may take its time.
                    if self.stream.set_read_timeout(None).is_err() {
                        return Incoming::Closed;
                    }
                }
                return item;
            }
            if let Some(deadline) = self.handshake {
                let left = deadline.saturating_duration_since(Instant::now());
                // A zero time-out means none to the socket: the time is up.
                if left.is_zero() || self.stream.set_read_timeout(Some(left)).is_err() {
                    return Incoming::TimedOut;
                }
            }
            let n = match self.stream.read(&mut self.buf) {
                Ok(0) => return Incoming::Closed,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // The read time-out, set only while the handshake deadline runs.
                Err(e)
                    if self.handshake.is_some()
                        && matches!(
                            e.kind(),
                            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                        ) =>
                {
                    continue
                }
                Err(_) => return Incoming::Closed,
            };
            let mut ctrl_c = false;
            for &b in &self.buf[..n] {
                if let Some(item) = self.framer.push(b, &mut || ctrl_c = true) {
                    self.pending.push_back(item);
                }
            }
            if ctrl_c {
                self.ctrl_c_at = Some(Instant::now());
            }
        }
    }

    /// Runs `run` (the kernel) while a helper thread reads the connection: a Ctrl-C, or the
    /// connection closing, calls `interrupt.interrupt()` and sets `ctrl_c`.
    pub fn watch<R>(
        &mut self,
        interrupt: &InterruptHandle,
        ctrl_c: &AtomicBool,
        run: impl FnOnce() -> R,
    ) -> R {
        if self.stream.set_read_timeout(Some(WATCH_POLL)).is_err() {
            return run();
        }
        let done = AtomicBool::new(false);
        let result = std::thread::scope(|scope| {
            let (stream, framer, buf, pending) = (
                &self.stream,
                &mut self.framer,
                &mut self.buf,
                &mut self.pending,
            );
            let done = &done;
            scope.spawn(move || {
                let mut stop = || {
                    ctrl_c.store(true, Ordering::SeqCst);
                    interrupt.interrupt();
                };
                while !done.load(Ordering::SeqCst) {
                    let n = match (&*stream).read(buf) {
                        Ok(0) => {
                            stop();
                            pending.push_back(Incoming::Closed);
                            return;
                        }
                        Ok(n) => n,
                        Err(e)
                            if matches!(
                                e.kind(),
                                io::ErrorKind::WouldBlock
                                    | io::ErrorKind::TimedOut
                                    | io::ErrorKind::Interrupted
                            ) =>
                        {
                            continue
                        }
                        Err(_) => {
                            stop();
                            pending.push_back(Incoming::Closed);
                            return;
                        }
                    };
                    for &b in &buf[..n] {
                        if let Some(item) = framer.push(b, &mut stop) {
                            pending.push_back(item);
                        }
                    }
                }
            });
            // Set `done` even if `run` panics, or the scope would wait for the helper forever.
            struct Done<'a>(&'a AtomicBool);
            impl Drop for Done<'_> {
                fn drop(&mut self) {
                    self.0.store(true, Ordering::SeqCst);
                }
            }
            let _done = Done(done);
            run()
        });
        let _ = self.stream.set_read_timeout(None);
        result
    }
}

struct WireState {
    stream: TcpStream,
    out: Vec<u8>,
    last: Vec<u8>,
    mute: bool,
    no_ack: bool,
    /// Added to the body of the next packet gdbstub flushes ([`Wire::append_to_next`]).
    append: Vec<u8>,
}

/// The writing half of the connection, shared between gdbstub (which owns a clone) and the
/// serve loop. Bytes are buffered until gdbstub flushes at the end of each packet.
#[derive(Clone)]
pub struct Wire(Rc<RefCell<WireState>>);

impl Wire {
    /// Wraps a connected stream (sets TCP_NODELAY: every packet is a round trip).
    pub fn new(stream: TcpStream) -> io::Result<Wire> {
        stream.set_nodelay(true)?;
        Ok(Wire(Rc::new(RefCell::new(WireState {
            stream,
            out: Vec::with_capacity(64 * 1024),
            last: Vec::new(),
            mute: false,
            no_ack: false,
            append: Vec::new(),
        }))))
    }

    /// Discards everything written until unmuted (replaying state into a new stub).
    pub fn set_mute(&self, mute: bool) {
        let mut s = self.0.borrow_mut();
        s.mute = mute;
        s.out.clear();
    }

    /// Drops output not yet flushed (after a failed packet).
    pub fn discard(&self) {
        self.0.borrow_mut().out.clear();
    }

    /// Records that no-ack mode is on (no `+`/`-` either way).
    pub fn set_no_ack(&self, on: bool) {
        self.0.borrow_mut().no_ack = on;
    }

    /// Whether no-ack mode is on.
    pub fn no_ack(&self) -> bool {
        self.0.borrow().no_ack
    }

    /// Sends a raw byte sequence now (acks).
    pub fn send_raw(&self, bytes: &[u8]) -> io::Result<()> {
        let mut s = self.0.borrow_mut();
        if s.mute {
            return Ok(());
        }
        Write::write_all(&mut s.stream, bytes)
    }

    /// Sends one packet with `body` now.
    pub fn send_packet(&self, body: &[u8]) -> io::Result<()> {
        let p = packet(body);
        let mut s = self.0.borrow_mut();
        if s.mute {
            return Ok(());
        }
        Write::write_all(&mut s.stream, &p)?;
        s.last = p;
        Ok(())
    }

    /// Sends console output (`O` packets, which gdb and lldb print) while the target runs
    /// or before a stop reply.
    pub fn console(&self, text: &str) -> io::Result<()> {
        for chunk in text.as_bytes().chunks(MAX_PACKET / 2 - 8) {
            let mut body = Vec::with_capacity(1 + chunk.len() * 2);
            body.push(b'O');
            for b in chunk {
                body.extend_from_slice(format!("{b:02x}").as_bytes());
            }
            self.send_packet(&body)?;
        }
        Ok(())
    }

    /// Adds `text` to the end of the body of the next packet gdbstub writes if that is a
    /// `T` stop reply (before its checksum, which is recomputed): the `threads:` and
    /// `thread-pcs:` fields, which gdbstub cannot write. `text` must hold no `$`, `#`, `}`
    /// or `*`.
    pub fn append_to_next(&self, text: &[u8]) {
        let mut s = self.0.borrow_mut();
        s.append.clear();
        s.append.extend_from_slice(text);
    }

    /// Sends the last packet again (the client nacked it).
    pub fn resend(&self) -> io::Result<()> {
        let mut s = self.0.borrow_mut();
        if s.last.is_empty() || s.no_ack {
            return Ok(());
        }
        let last = s.last.clone();
        Write::write_all(&mut s.stream, &last)
    }

    /// Shuts the socket down for reading and writing (errors ignored: it may be closed already).
    pub fn shutdown(&self) {
        let _ = self.0.borrow().stream.shutdown(std::net::Shutdown::Both);
    }
}

impl gdbstub::conn::Connection for Wire {
    type Error = io::Error;

    fn write(&mut self, byte: u8) -> io::Result<()> {
        let mut s = self.0.borrow_mut();
        if !s.mute {
            s.out.push(byte);
        }
        Ok(())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let mut s = self.0.borrow_mut();
        if !s.mute {
            s.out.extend_from_slice(buf);
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        let mut s = self.0.borrow_mut();
        if s.out.is_empty() {
            return Ok(());
        }
        let mut out = std::mem::take(&mut s.out);
        if !s.append.is_empty() {
            let append = std::mem::take(&mut s.append);
            append_to_packet(&mut out, &append);
        }
        let r = Write::write_all(&mut s.stream, &out);
        // Keep the last packet for a retransmission (after any leading ack).
        if let Some(start) = out.iter().position(|&b| b == b'$') {
            s.last.clear();
            s.last.extend_from_slice(&out[start..]);
        }
        s.out = out;
        s.out.clear();
        r
    }
}

/// `body` framed as a packet: `$body#cs`, with its checksum.
pub fn packet(body: &[u8]) -> Vec<u8> {
    let sum = body.iter().fold(0u8, |a, b| a.wrapping_add(*b));
    let mut p = Vec::with_capacity(body.len() + 4);
    p.push(b'$');
    p.extend_from_slice(body);
    p.extend_from_slice(format!("#{sum:02x}").as_bytes());
    p
}

/// Inserts `text` at the end of the body of the `T` packet at the end of `out` (`$T...#cs`,
/// after any ack), with the checksum recomputed; leaves any other `out` alone.
fn append_to_packet(out: &mut Vec<u8>, text: &[u8]) {
    let n = out.len();
    let Some(start) = out.iter().position(|&b| b == b'$') else {
        return;
    };
    if n < start + 4 || out[start + 1] != b'T' || out[n - 3] != b'#' {
        return;
    }
    out.truncate(n - 3);
    out.extend_from_slice(text);
    let sum = out[start + 1..].iter().fold(0u8, |a, b| a.wrapping_add(*b));
    out.extend_from_slice(format!("#{sum:02x}").as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_appended_to_a_packets_body() {
        let mut out = b"+$T05thread:p01.01;#06".to_vec();
        append_to_packet(&mut out, b"threads:1;");
        assert_eq!(out, b"+$T05thread:p01.01;threads:1;#97".to_vec());
        for other in [&b"+"[..], b"$W00#b7", b"$OK#9a"] {
            let mut out = other.to_vec();
            append_to_packet(&mut out, b"x");
            assert_eq!(out, other.to_vec());
        }
    }

    fn frame(bytes: &[u8]) -> (Vec<Incoming>, usize) {
        let mut f = Framer::default();
        let mut interrupts = 0;
        let mut out = Vec::new();
        for &b in bytes {
            if let Some(i) = f.push(b, &mut || interrupts += 1) {
                out.push(i);
            }
        }
        (out, interrupts)
    }

    #[test]
    fn frames_packets_and_checks_checksums() {
        let (items, ints) = frame(b"+$?#3f\x03$?#00-");
        assert_eq!(
            items,
            vec![
                Incoming::Packet(b"$?#3f".to_vec()),
                Incoming::BadChecksum,
                Incoming::Nack
            ]
        );
        assert_eq!(ints, 1);
    }

    #[test]
    fn ctrl_c_inside_a_packet_is_data() {
        let body = b"X0,1:\x03";
        let sum = body.iter().fold(0u8, |a, b| a.wrapping_add(*b));
        let mut p = b"$".to_vec();
        p.extend_from_slice(body);
        p.extend_from_slice(format!("#{sum:02x}").as_bytes());
        let (items, ints) = frame(&p);
        assert_eq!(items, vec![Incoming::Packet(p)]);
        assert_eq!(ints, 0);
    }

    #[test]
    fn oversized_packets_are_dropped() {
        let mut p = b"$".to_vec();
        p.extend(std::iter::repeat_n(b'a', MAX_PACKET + 10));
        p.extend_from_slice(b"#00$?#3f");
        let (items, _) = frame(&p);
        assert_eq!(
            items,
            vec![Incoming::Oversized, Incoming::Packet(b"$?#3f".to_vec())]
        );
    }
}
