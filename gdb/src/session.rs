//! One client connection: feeds framed packets to gdbstub's state machine, runs the
//! kernel when a packet resumes it, and reports the stop.
//!
//! gdbstub ends its state machine on any packet it cannot parse. A hostile or malformed
//! packet must not end the session, so the packet is answered with `E01` and a fresh state
//! machine takes over, brought to the same protocol state by replaying (silently) the
//! packets that set it up: `qSupported`, `QStartNoAckMode`, `!` and the last `Hg`/`Hc`.
//! Before gdbstub sees a packet, [`crate::validate`] checks what gdbstub would parse
//! leniently (empty or `x` hex digits, lengths that disagree with the data, threads that do
//! not exist) and the packet is answered with an error; memory reads larger than
//! [`MAX_READ`] are refused the same way. A panic while handling a packet is caught like
//! a parse failure.

use std::io;
use std::net::TcpStream;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use gdbstub::stub::state_machine::GdbStubStateMachine;
use gdbstub::stub::{DisconnectReason, GdbStub, MultiThreadStopReason};
use gdbstub_arch::x86::reg::id::X86_64CoreRegId;

use crate::codes::{E2BIG, EINVAL, EPERM};
use crate::conn::{Incoming, Reader, Wire, MAX_PACKET};
use crate::memory::MAX_READ;
use crate::plan::Plan;
use crate::regs::{self, WaveRegId};
use crate::target::WaveTarget;
use crate::validate::{self, Verdict};

type Machine = GdbStubStateMachine<'static, WaveTarget, Wire>;

/// How a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The client detached (`D`).
    Detached,
    /// The client killed the kernel (`k` outside extended mode).
    Killed,
    /// The connection closed without either.
    Closed,
    /// The client sent no whole packet within the handshake time-out and was dropped.
    TimedOut,
}

/// The packets that put gdbstub into the client's protocol state.
#[derive(Debug, Default)]
struct Replay {
    qsupported: Option<Vec<u8>>,
    no_ack: bool,
    extended: bool,
    hg: Option<Vec<u8>>,
    hc: Option<Vec<u8>>,
}

fn packet(body: &[u8]) -> Vec<u8> {
    let sum = body.iter().fold(0u8, |a, b| a.wrapping_add(*b));
    let mut p = vec![b'$'];
    p.extend_from_slice(body);
    p.extend_from_slice(format!("#{sum:02x}").as_bytes());
    p
}

impl Replay {
    fn note(&mut self, body: &[u8], whole: &[u8]) {
        if body.starts_with(b"qSupported") {
            self.qsupported = Some(whole.to_vec());
        } else if body == b"QStartNoAckMode" {
            self.no_ack = true;
        } else if body == b"!" {
            self.extended = true;
        } else if body.starts_with(b"Hg") {
            self.hg = Some(whole.to_vec());
        } else if body.starts_with(b"Hc") {
            self.hc = Some(whole.to_vec());
        }
    }

    /// The client asked for multiprocess thread ids (`pPID.TID`), which gdbstub then uses.
    fn multiprocess(&self) -> bool {
        self.qsupported
            .as_deref()
            .is_some_and(|q| q.windows(13).any(|w| w == b"multiprocess+"))
    }

    fn packets(&self) -> Vec<Vec<u8>> {
        let mut v = Vec::new();
        v.extend(self.qsupported.clone());
        if self.no_ack {
            v.push(packet(b"QStartNoAckMode"));
        }
        if self.extended {
            v.push(packet(b"!"));
        }
        v.extend(self.hg.clone());
        v.extend(self.hc.clone());
        v
    }
}

fn io_err(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(e.to_string())
}

/// A fresh state machine in the initial protocol state.
fn fresh_machine(target: &mut WaveTarget, wire: &Wire) -> io::Result<Machine> {
    let stub = GdbStub::<WaveTarget, Wire>::builder(wire.clone())
        .packet_buffer_size(MAX_PACKET)
        .build()
        .map_err(io_err)?;
    stub.run_state_machine(target).map_err(io_err)
}

/// A fresh state machine in the client's protocol state.
fn new_machine(target: &mut WaveTarget, wire: &Wire, replay: &Replay) -> io::Result<Machine> {
    let mut sm = fresh_machine(target, wire)?;
    wire.set_mute(true);
    for p in replay.packets() {
        for &b in &p {
            sm = match sm {
                GdbStubStateMachine::Idle(s) => match s.incoming_data(target, b) {
                    Ok(sm) => sm,
                    // Every replayed packet succeeded once; if one fails now, go on without.
                    Err(_) => fresh_machine(target, wire)?,
                },
                other => other,
            };
        }
    }
    wire.set_mute(false);
    Ok(sm)
}

/// `mADDR,LEN` / `xADDR,LEN`: the length asked for.
fn read_len(body: &[u8]) -> Option<u64> {
    if !matches!(body.first(), Some(b'm' | b'x')) {
        return None;
    }
    let text = std::str::from_utf8(body.get(1..)?).ok()?;
    let (_, len) = text.split_once(',')?;
    u64::from_str_radix(len, 16).ok().or(Some(u64::MAX))
}

fn printable(body: &[u8]) -> String {
    let s: String = body
        .iter()
        .take(60)
        .map(|&b| {
            if (0x20..0x7f).contains(&b) {
                (b as char).to_string()
            } else {
                format!("\\x{b:02x}")
            }
        })
        .collect();
    if body.len() > 60 {
        format!("{s}...")
    } else {
        s
    }
}

/// The address of a legacy resume packet that names one: `cADDR`, `sADDR` (gdbstub
/// answers `C` and `S` as unsupported).
fn resume_addr(body: &[u8]) -> Option<Option<u64>> {
    match body.split_first()? {
        (b'c' | b's', addr) if !addr.is_empty() => Some(validate::hex(addr)),
        _ => None,
    }
}

/// Answers a packet with an error without gdbstub (acking it first in ack mode).
fn reject(wire: &Wire, errno: u8) -> io::Result<()> {
    if !wire.no_ack() {
        wire.send_raw(b"+")?;
    }
    wire.send_packet(format!("E{errno:02x}").as_bytes())
}

/// Feeds one whole packet to an idle state machine; `None` when the packet killed the
/// kernel and ends the server.
fn feed(
    sm: Machine,
    target: &mut WaveTarget,
    wire: &Wire,
    replay: &mut Replay,
    p: &[u8],
) -> io::Result<Option<Machine>> {
    let body = &p[1..p.len() - 3];
    if read_len(body).is_some_and(|n| n > MAX_READ) {
        reject(wire, EINVAL)?;
        return Ok(Some(sm));
    }
    let rewritten;
    let (p, body) = match validate::check(body, &|tid| target.listed_tid(tid)) {
        Verdict::Pass => (p, body),
        Verdict::Reject(errno) => {
            reject(wire, errno)?;
            return Ok(Some(sm));
        }
        Verdict::Rewrite(b) => {
            rewritten = packet(&b);
            (&rewritten[..], &rewritten[1..rewritten.len() - 3])
        }
    };
    if body == b"QListThreadsInStopReply" {
        // gdbstub does not know it (lldb asks): stop replies then carry the threads.
        if !wire.no_ack() {
            wire.send_raw(b"+")?;
        }
        wire.send_packet(b"OK")?;
        target.threads_in_stop_reply = true;
        return Ok(Some(sm));
    }
    if body.starts_with(b"qCRC:") {
        // gdbstub takes it for a malformed packet (an error, which gdb's `compare-sections`
        // reports as a memory fault); unsupported, gdb compares by reading the memory.
        if !wire.no_ack() {
            wire.send_raw(b"+")?;
        }
        wire.send_packet(b"")?;
        return Ok(Some(sm));
    }
    if body == b"k" {
        // gdbstub answers `k` with `OK` when it supports extended mode, but lldb expects a
        // process status; gdb sends `vKill` instead.
        if !wire.no_ack() {
            wire.send_raw(b"+")?;
        }
        wire.send_packet(b"X09")?;
        if target.extended {
            target.restart();
            target.no_process = true;
            return Ok(Some(sm));
        }
        return Ok(None);
    }
    if let Some(addr) = resume_addr(body) {
        // `c ADDR`, `s ADDR`: the wave resumes at ADDR, as with gdbserver (gdbstub
        // ignores the address). An address that does not parse is refused, not ignored.
        let Some(addr) = addr else {
            reject(wire, 22)?;
            return Ok(Some(sm));
        };
        if let Err(e) = target.resume_at(addr) {
            if !wire.no_ack() {
                wire.send_raw(b"+")?;
            }
            wire.send_packet(format!("E.{e}").as_bytes())?;
            return Ok(Some(sm));
        }
    }
    target.bare_continue = matches!(body.first(), Some(b'c' | b'C'));
    if body == b"?" {
        if let Some(tid) = target.stop_thread() {
            return question(sm, target, wire, replay, tid).map(Some);
        }
    }
    if body == b"qHostInfo" {
        // Only lldb asks (gdb never does, and lldb always does while it connects, before
        // it reads memory or resumes).
        target.lldb = true;
    }
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut sm = sm;
        for &b in p {
            sm = match sm {
                GdbStubStateMachine::Idle(s) => s.incoming_data(target, b)?,
                other => other,
            };
        }
        Ok::<_, gdbstub::stub::GdbStubError<String, io::Error>>(sm)
    }));
    target.bare_continue = false;
    match result {
        Ok(Ok(sm)) => {
            replay.note(body, p);
            if body == b"QStartNoAckMode" {
                wire.set_no_ack(true);
            }
            Ok(Some(sm))
        }
        Ok(Err(e)) if e.is_connection_error() => Err(io_err(e)),
        failed => {
            let why = match failed {
                Ok(Err(e)) => e.to_string(),
                _ => "panic".to_string(),
            };
            eprintln!("wavedbg: rejected packet `{}`: {why}", printable(body));
            wire.discard();
            reject(wire, EPERM)?;
            new_machine(target, wire, replay).map(Some)
        }
    }
}

/// Answers `?` with the last stop: its thread (`tid`) and signal, where gdbstub would name
/// the first listed thread and SIGTRAP. A client that connects after another detached finds
/// the stop that client left, as from a native gdbserver (gdb's current thread, a fault's
/// SIGSEGV), and lldb also every thread with its PC ([`WaveTarget::stop_reply_threads`]), so
/// it reads no registers of each. gdb takes the thread a stop reply names for the server's
/// current one and reads its registers (`g`) without an `Hg`; so the same thread is made
/// gdbstub's with an `Hg` it is fed silently (and that a fresh state machine replays).
fn question(
    sm: Machine,
    target: &mut WaveTarget,
    wire: &Wire,
    replay: &mut Replay,
    tid: gdbstub::common::Tid,
) -> io::Result<Machine> {
    if !wire.no_ack() {
        wire.send_raw(b"+")?;
    }
    // As gdbstub writes thread ids: hex digits in pairs (`p01.0a`).
    let hex = |n: usize| format!("{n:0w$x}", w = format!("{n:x}").len().div_ceil(2) * 2);
    let thread = match replay.multiprocess() {
        true => format!("p{}.{}", hex(1), hex(tid.get())),
        false => hex(tid.get()),
    };
    let mut reply = format!("T{:02x}thread:{thread};", target.last_signal.0);
    if target.threads_in_stop_reply {
        reply.push_str(&target.stop_reply_threads());
    }
    wire.send_packet(reply.as_bytes())?;
    let hg = packet(format!("Hg{thread}").as_bytes());
    wire.set_mute(true);
    let mut fed = Ok(sm);
    for &b in &hg {
        fed = match fed {
            Ok(GdbStubStateMachine::Idle(s)) => s.incoming_data(target, b),
            other => other,
        };
    }
    wire.set_mute(false);
    match fed {
        Ok(sm) => {
            replay.note(&hg[1..hg.len() - 3], &hg);
            Ok(sm)
        }
        // (A listed thread: cannot fail.)
        Err(_) => new_machine(target, wire, replay),
    }
}

/// Reports a stop, with the wave's PC in the reply (and every thread with its PC for a
/// client that asked, [`WaveTarget::stop_reply_threads`]).
fn report(
    sm: gdbstub::stub::state_machine::GdbStubStateMachineInner<
        'static,
        gdbstub::stub::state_machine::state::Running,
        WaveTarget,
        Wire,
    >,
    target: &mut WaveTarget,
    wire: &Wire,
    reason: MultiThreadStopReason<u64>,
    pc: Option<u64>,
) -> io::Result<Machine> {
    if target.threads_in_stop_reply {
        wire.append_to_next(target.stop_reply_threads().as_bytes());
    }
    let pc = pc.unwrap_or(0).to_le_bytes();
    // What the client reads after every stop, so a step costs no register packet. gdb's
    // `rsp` is unavailable, which a stop reply cannot say: gdb reads it with the others
    // when it first needs it (see `regs::RSP_VALUE`).
    let sp = regs::RSP_VALUE.to_le_bytes();
    let zero = [0u8; 8];
    let mut regs: Vec<(WaveRegId, &[u8])> = vec![
        (WaveRegId::Core(X86_64CoreRegId::Rip), &pc),
        (
            WaveRegId::Core(X86_64CoreRegId::Gpr(regs::RBP as u8)),
            &zero,
        ),
    ];
    if target.lldb {
        regs.push((WaveRegId::Core(X86_64CoreRegId::Gpr(regs::RSP as u8)), &sp));
    }
    let mut it = regs.into_iter();
    sm.report_stop_with_regs(target, reason, &mut it)
        .map_err(io_err)
}

/// Serves one connection until it ends; the client has `handshake` to send its first
/// whole packet (see [`crate::HANDSHAKE_TIMEOUT`]).
pub fn run(target: &mut WaveTarget, stream: TcpStream, handshake: Duration) -> io::Result<End> {
    let deadline = Instant::now() + handshake;
    target.new_client();
    let wire = Wire::new(stream.try_clone()?)?;
    let mut reader = Reader::new(stream);
    reader.handshake_until(deadline);
    let result = drive(target, &wire, &mut reader);
    wire.shutdown();
    result
}

fn drive(target: &mut WaveTarget, wire: &Wire, reader: &mut Reader) -> io::Result<End> {
    let mut replay = Replay::default();
    let mut sm = new_machine(target, wire, &replay)?;
    let interrupt = target.engine.interrupt_handle();
    let ctrl_c = target.ctrl_c.clone();
    loop {
        sm = match sm {
            GdbStubStateMachine::Idle(s) => {
                let item = reader.recv();
                let sm = GdbStubStateMachine::Idle(s);
                match item {
                    // A monitor command may run the kernel (`goto`, `continue`, a search):
                    // Ctrl-C interrupts it as it does a resume.
                    Incoming::Packet(p) if p.starts_with(b"$qRcmd,") => {
                        let fed = reader.watch(&interrupt, &ctrl_c, || {
                            feed(sm, target, wire, &mut replay, &p)
                        })?;
                        match fed {
                            Some(sm) => sm,
                            None => return Ok(End::Killed),
                        }
                    }
                    Incoming::Packet(p) => match feed(sm, target, wire, &mut replay, &p)? {
                        Some(sm) => sm,
                        None => return Ok(End::Killed),
                    },
                    Incoming::Nack => {
                        wire.resend()?;
                        sm
                    }
                    Incoming::BadChecksum => {
                        if wire.no_ack() {
                            wire.send_packet(b"E01")?;
                        } else {
                            wire.send_raw(b"-")?;
                        }
                        sm
                    }
                    Incoming::Oversized => {
                        reject(wire, E2BIG)?;
                        sm
                    }
                    Incoming::Closed => return Ok(End::Closed),
                    Incoming::TimedOut => return Ok(End::TimedOut),
                }
            }
            GdbStubStateMachine::Running(s) => {
                let plan = target.plan.take().unwrap_or(Plan::All);
                // gdb's Ctrl-C between two steps of `stepi N`: this step stops at once.
                if reader.take_ctrl_c() {
                    interrupt.interrupt();
                }
                // A single step is one instruction: no need to watch for Ctrl-C.
                let out = if target.is_quick(plan) {
                    target.execute(plan)
                } else {
                    reader.watch(&interrupt, &ctrl_c, || target.execute(plan))
                };
                if !out.console.is_empty() {
                    wire.console(&out.console)?;
                }
                report(s, target, wire, out.reason, out.pc)?
            }
            // Ctrl-C never reaches gdbstub (the reader interrupts the engine itself).
            GdbStubStateMachine::CtrlCInterrupt(s) => s
                .interrupt_handled(target, None::<MultiThreadStopReason<u64>>)
                .map_err(io_err)?,
            GdbStubStateMachine::Disconnected(s) => match s.get_reason() {
                DisconnectReason::Kill => return Ok(End::Killed),
                DisconnectReason::Disconnect => return Ok(End::Detached),
                DisconnectReason::TargetExited(_) | DisconnectReason::TargetTerminated(_) => {
                    // The launch is over: no threads until the next `run` or client
                    // starts it again.
                    target.restart();
                    target.no_process = true;
                    s.return_to_idle()
                }
            },
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_lengths_are_parsed() {
        assert_eq!(read_len(b"m1000,40"), Some(0x40));
        assert_eq!(read_len(b"m1000,zz"), Some(u64::MAX));
        assert_eq!(read_len(b"M1000,4:00000000"), None);
        assert_eq!(read_len(b"qSupported"), None);
    }
}
