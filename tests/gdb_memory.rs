//! Memory that exists, the end of the kernel, and stop replies, through real clients
//! (Debian's `gdb`, `gdb-multiarch` and `lldb`, installed by .ci/run; outside CI a
//! missing client skips its test with a message) and over a raw connection:
//!
//! - only memory that exists reads: `x/xw` just past a buffer's end says `Cannot access
//!   memory`, `x/4xw` ending at its last byte works, a read across the end shows the
//!   bytes before it (gdb) or pads the 512-byte line lldb reads;
//! - a watchpoint on memory that does not exist is refused, and `monitor info
//!   watchpoints` and the server's stderr say why; `monitor last-write` of such memory
//!   says why too;
//! - the end of the kernel is a stop where the final memory reads (`p out[0]@4`), and the
//!   next resumption exits;
//! - for lldb (which asks `QListThreadsInStopReply`), stop replies carry every thread and
//!   its PC, so `thread list` after a step shows every wave's PC without lldb asking for
//!   the thread list or any PC; gdb's stop replies are as before.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

mod clients;
use clients::*;

/// One wave; lanes 4-31 store past the end of the 16-byte `out` (SIGSEGV at 0x100000010).
const FAULT: &str = "\
.kernel fault
.workgroup 32
.grid 1
.buffer out, 16
.arg u[0:1], out
    vlaneid v0
    vshli v1, v0, 2
    umovi u2, 0x23
    vadd.u32.u v0, v0, u2
    st.ubase.b32 v0, u[0:1], v1, 0
    wait.vst 0
    end
";

/// One wave stores 0x23 to each word of the 16-byte `out` (lane L to word L % 4).
const FILL: &str = "\
.kernel fill
.workgroup 32
.grid 1
.buffer out, 16
.arg u[0:1], out
    vlaneid v0
    vandi v0, v0, 3
    vshli v1, v0, 2
    umovi u2, 0x23
    vmov.u v0, u2
    st.ubase.b32 v0, u[0:1], v1, 0
    wait.vst 0
    end
";

/// After the fault at 0x100000010: the buffer reads up to its last byte and no further,
/// and a watchpoint past it is refused with the engine's reason.
fn gdb_reads_only_memory_that_exists(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "fault.s", FAULT);
    let server = Server::start(&k);
    // One command per `-ex`: a failing one leaves the others to run.
    let out = gdb_ex(
        client,
        dir.path(),
        "fault.elf",
        Some(&server),
        "continue
x/xw 0x100000010
x/4xw 0x100000000
x/8xw 0x100000008
x/20xb 0x100000008
p out
monitor last-write 0x100000010
monitor last-write shared:0
watch *(int*)0x100000010
continue
monitor info watchpoints
delete
watch out[3]
monitor info watchpoints
delete
break *0x8
continue
monitor info breakpoints
set var $pc = 0x8
set var $wave = 3
kill",
    );
    check(
        &out,
        &server,
        &[
            "received signal SIGSEGV",
            "0x100000010:\tCannot access memory at address 0x100000010\n",
            "0x100000000 <out>:\t0x00000000\t0x00000000\t0x00000000\t0x00000000\n",
            // Word by word: the words that exist, then the error.
            "0x100000008 <out+8>:\t0x00000000\t0x00000000\tCannot access memory at address 0x100000010\n",
            "$1 = {0, 0, 0, 0}\n",
            // Memory that does not exist was never written: `last-write` says where it is
            // (it said "no write before instruction N in the recorded history").
            "cannot access memory: 0x100000010..0x100000014 is not allocated global memory\n",
            "cannot access memory: shared 0x0..0x4 is outside the 0-byte window\n",
            "Hardware watchpoint 1: *(int*)0x100000010",
            "Could not insert hardware watchpoint 1.",
            "Refused (the client could not insert them):\n  Hardware watchpoint at 0x100000010 (global:0x100000010, 4 bytes): 0x100000010..0x100000014 is not allocated global memory\n",
            "Hardware watchpoint 2: out[3]",
            // A breakpoint inside an instruction: refused, with the reason beside gdb's.
            "Cannot insert breakpoint 3.\nCannot access memory at address 0x8\n",
            "  Breakpoint at 0x0008: 0x8 is not the start of an instruction\n",
            "Could not write register \"rip\"; remote failure reply 'E16'",
            "Could not write register \"wave\"; remote failure reply 'E16'",
            "[Inferior 1 (process 1) killed]",
        ],
    );
    // A read of bytes across the end (one `m` packet) shows the 8 that exist.
    assert!(
        out.contains("0x100000008 <out+8>:\t0x00\t0x00\t0x00\t0x00\t0x00\t0x00\t0x00\t0x00\n")
            && out.contains("Cannot access memory at address 0x100000010\n"),
        "{out}"
    );
    for why in [
        "wavedbg: cannot insert Hardware watchpoint at 0x100000010 (global:0x100000010, 4 bytes): 0x100000010..0x100000014 is not allocated global memory",
        "wavedbg: cannot insert Breakpoint at 0x0008: 0x8 is not the start of an instruction",
        "wavedbg: cannot write register pc: 0x8 is not the start of an instruction",
        "wavedbg: cannot write register wave: the wave's ids are read-only",
    ] {
        assert!(server.log().contains(why), "{why}\n{}", server.log());
    }
}

#[test]
fn gdb_reads_only_memory_that_exists_and_says_why_a_point_or_register_write_is_refused() {
    gdb_reads_only_memory_that_exists("gdb");
}

#[test]
fn gdb_multiarch_reads_only_memory_that_exists_and_says_why_a_point_or_register_write_is_refused() {
    gdb_reads_only_memory_that_exists("gdb-multiarch");
}

/// The end of the kernel is a stop where the final memory reads; the next `continue`
/// exits; `reverse-stepi` from the end goes back into the kernel.
fn gdb_reads_the_final_memory_at_the_end(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "fill.s", FILL);
    let server = Server::start(&k);
    let out = gdb_ex(
        client,
        dir.path(),
        "fill.elf",
        Some(&server),
        "continue
p/x out[0]@4
info threads
reverse-stepi
continue
p/x out
continue
p/x out[0]@4",
    );
    check(
        &out,
        &server,
        &[
            "All waves exited (8 wave-instructions, 256 lane-ops).\nThe kernel has finished: its memory can be read until the next resumption (continue, stepi), which ends the process.\n",
            "Program received signal SIGSTOP, Stopped (signal).",
            "$1 = {0x23, 0x23, 0x23, 0x23}\n",
            "(wave 0, workgroup 0, wave_in_wg 0, exited, exec 0xffffffff)",
            // Back before `end`, then to the end again.
            "fill.s:13\n13\t    end\n",
            "$2 = {0x23, 0x23, 0x23, 0x23}\n",
            "[Inferior 1 (process 1) exited normally]",
        ],
    );
    // After the exit gdb has no process and reads the symbol file, whose buffers hold no
    // bytes (NOBITS, which gdb shows as zeros, as it does a C program's .bss).
    assert!(out.contains("$3 = {0x0, 0x0, 0x0, 0x0}\n"), "{out}");
}

#[test]
fn gdb_reads_the_final_memory_at_the_end_of_the_kernel() {
    gdb_reads_the_final_memory_at_the_end("gdb");
}

#[test]
fn gdb_multiarch_reads_the_final_memory_at_the_end_of_the_kernel() {
    gdb_reads_the_final_memory_at_the_end("gdb-multiarch");
}

/// lldb reads 512-byte lines: a line across a buffer's end is padded (a short one would
/// show 0xdd for the missing bytes), a line past the padding fails, a longer read is short
/// at the padding's end (lldb warns how much it got); a watchpoint past the
/// end is refused; the end of the kernel is a stop where the final memory reads.
#[test]
fn lldb_reads_lines_and_the_final_memory() {
    if !have("lldb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "fill.s", FILL);
    let elf = dir.path().join("fill.elf");
    let server = Server::start(&k);
    let out = lldb_elf(
        dir.path(),
        Some(&elf),
        &server,
        "thread step-inst
thread step-inst
memory read -s 4 -c 4 -f x 0x100000000
memory read -s 4 -c 1 -f x 0x100000200
memory read --force -s 4 -c 300 -f x 0x100000000
watchpoint set expression -w write -s 4 -- 0x100000010
process plugin packet monitor info watchpoints
process continue
target variable out
memory read -s 4 -c 4 -f x 0x100000000
process continue
",
    );
    check(
        &out,
        &server,
        &[
            "stop reason = instruction step into",
            "0x100000000: 0x00000000 0x00000000 0x00000000 0x00000000\n",
            "error: memory read failed for 0x100000200",
            "warning: Not all bytes (512/1200) were able to be read from 0x100000000.",
            "error: Watchpoint creation failed (addr=0x100000010, size=4).",
            "stop reason = signal SIGSTOP",
            "(unsigned int[4]) out = ([0] = 35, [1] = 35, [2] = 35, [3] = 35)",
            "0x100000000: 0x00000023 0x00000023 0x00000023 0x00000023\n",
            "Process 1 exited with status = 0",
        ],
    );
    assert!(
        server
            .log()
            .contains("wavedbg: cannot insert Hardware watchpoint at 0x100000010 (global:0x100000010, 4 bytes): 0x100000010..0x100000014 is not allocated global memory"),
        "{}",
        server.log()
    );
}

/// A connection speaking the protocol (no-ack mode).
struct Raw {
    s: TcpStream,
    pending: Vec<u8>,
}

fn packet(body: &[u8]) -> Vec<u8> {
    let sum = body.iter().fold(0u8, |a, b| a.wrapping_add(*b));
    let mut p = vec![b'$'];
    p.extend_from_slice(body);
    p.extend_from_slice(format!("#{sum:02x}").as_bytes());
    p
}

/// Undoes the protocol's run-length encoding (`X*N` repeats X N - 29 more times).
fn unrle(body: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        if body[i] == b'*' && i + 1 < body.len() {
            let last = *out.last().unwrap_or(&b'0');
            out.extend(std::iter::repeat_n(last, (body[i + 1] - 29) as usize));
            i += 2;
        } else {
            out.push(body[i]);
            i += 1;
        }
    }
    out
}

impl Raw {
    /// Connects and hand-shakes as `first` says (gdb's `qSupported`, or lldb's
    /// `QStartNoAckMode` and `qHostInfo`).
    fn connect(addr: &str, lldb: bool) -> Raw {
        let s = TcpStream::connect(addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        let mut raw = Raw {
            s,
            pending: Vec::new(),
        };
        assert!(raw.ask(b"qSupported:multiprocess+").contains("PacketSize="));
        assert_eq!(raw.ask(b"QStartNoAckMode"), "OK");
        if lldb {
            assert!(raw.ask(b"qHostInfo").contains("triple:"));
        }
        raw
    }

    /// Sends a packet and returns the reply's body.
    fn ask(&mut self, body: &[u8]) -> String {
        self.s.write_all(&packet(body)).expect("send");
        let mut buf = [0u8; 65536];
        loop {
            if let Some(start) = self.pending.iter().position(|&b| b == b'$') {
                if let Some(hash) = self.pending[start..].iter().position(|&b| b == b'#') {
                    let end = start + hash + 3;
                    if self.pending.len() >= end {
                        let body = unrle(&self.pending[start + 1..start + hash]);
                        self.pending.drain(..end);
                        return String::from_utf8_lossy(&body).into_owned();
                    }
                }
            }
            match self.s.read(&mut buf) {
                Ok(0) => panic!("the server closed the connection"),
                Ok(n) => self.pending.extend_from_slice(&buf[..n]),
                Err(e) => panic!("no reply from the server: {e}"),
            }
        }
    }
}

/// The `m` replies: short at a window's end for gdb, padded to the 512-byte line for a
/// client that asked `qHostInfo` (lldb), an error from the end on, and reads larger than
/// one reply packet refused.
#[test]
fn reads_are_short_for_gdb_and_padded_for_lldb() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "fill.s", FILL);
    let server = Server::start(&k);
    let mut gdb = Raw::connect(&server.addr, false);
    assert_eq!(
        gdb.ask(b"m100000000,200"),
        "0".repeat(32),
        "the 16 bytes of out"
    );
    assert_eq!(gdb.ask(b"m10000000c,8"), "00000000");
    assert_eq!(gdb.ask(b"m100000010,4"), "E0e");
    assert_eq!(gdb.ask(b"m0,200").len(), 48 * 2, "the code's 48 bytes");
    assert_eq!(gdb.ask(b"m30,4"), "E0e", "past the code");
    assert_eq!(gdb.ask(b"m8000000000000000,4"), "E0e", "no shared memory");
    assert_eq!(gdb.ask(b"m100000000,4001"), "E16", "more than one reply");
    assert!(gdb.ask(b"m100000000,4000").starts_with("00"));
    drop(gdb);
    // A second connection, as lldb.
    std::thread::sleep(Duration::from_millis(200));
    let mut lldb = Raw::connect(&server.addr, true);
    assert_eq!(
        lldb.ask(b"m100000000,200"),
        "0".repeat(1024),
        "a padded line"
    );
    assert_eq!(lldb.ask(b"m100000010,4"), "E0e");
    assert_eq!(lldb.ask(b"m100000200,200"), "E0e");
}

/// Two workgroups of two waves in an endless loop (stepping).
const SPIN: &str = "\
.kernel spin
.workgroup 64
.grid 2
    umovi u1, 0
spin:
    uaddi u1, u1, 1
    br spin
    end
";

/// The `threads:` and `thread-pcs:` fields of a stop reply, as (thread id, PC) pairs.
fn stop_threads(reply: &str) -> Vec<(u64, u64)> {
    let field = |key: &str| -> Vec<u64> {
        reply
            .split(';')
            .find_map(|f| f.strip_prefix(key))
            .map(|v| {
                v.split(',')
                    .filter_map(|x| u64::from_str_radix(x, 16).ok())
                    .collect()
            })
            .unwrap_or_default()
    };
    let tids = field("threads:");
    let pcs = field("thread-pcs:");
    assert_eq!(tids.len(), pcs.len(), "{reply}");
    tids.into_iter().zip(pcs).collect()
}

/// A client that asks `QListThreadsInStopReply` (lldb) gets every thread and its PC in
/// each stop reply, the one it finds on connecting included; one that does not (gdb)
/// gets the stop replies as before.
#[test]
fn stop_replies_carry_every_thread_and_pc_for_lldb_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "spin.s", SPIN);
    let spin = label_addr(&k, "spin");
    let server = Server::start(&k);
    let mut gdb = Raw::connect(&server.addr, false);
    let stop = gdb.ask(b"?");
    assert!(stop.starts_with("T05thread:p01.01;"), "{stop}");
    assert!(!stop.contains("threads:"), "{stop}");
    assert!(!gdb.ask(b"vCont;s:p1.2").contains("threads:"));
    drop(gdb);
    std::thread::sleep(Duration::from_millis(200));
    let mut lldb = Raw::connect(&server.addr, true);
    assert_eq!(lldb.ask(b"QListThreadsInStopReply"), "OK");
    // Wave 1 was stepped once above.
    let stop = lldb.ask(b"?");
    assert_eq!(
        stop_threads(&stop),
        [(1, 0), (2, spin), (3, 0), (4, 0)],
        "{stop}"
    );
    let stop = lldb.ask(b"vCont;s:3");
    assert!(stop.starts_with("T05thread:p01.03;"), "{stop}");
    assert_eq!(
        stop_threads(&stop),
        [(1, 0), (2, spin), (3, spin), (4, 0)],
        "{stop}"
    );
    // The PC is still expedited (register 0x10, rip).
    assert!(
        stop.contains(&format!("10:{:016x}", spin.swap_bytes())),
        "{stop}"
    );
}

/// lldb after steps of two threads: `thread list` shows every wave's PC, and lldb asked
/// for neither the thread list nor any thread's PC (`p10`, rip) to learn them: the stop
/// replies carried both. (It reads `rsp` and `rbp` of a thread it selects or lists, for
/// its frame.)
///
/// The server is judged by the packets: each `vCont;s:N` moved thread N alone by one
/// instruction, and `thread list` shows the last reply's PCs. How many steps lldb sends
/// for one `thread step-inst` is its own decision: on a loaded machine lldb 14 sometimes
/// sends a second `vCont;s` for the same command (its step plan judges the first did not
/// complete), which the packet log shows.
#[test]
fn lldb_lists_every_waves_pc_after_a_step() {
    if !have("lldb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "spin.s", SPIN);
    let spin = label_addr(&k, "spin");
    let server = Server::start(&k);
    let log = dir.path().join("packets.log");
    let elf = dir.path().join("spin.elf");
    let out = lldb_elf(
        dir.path(),
        Some(&elf),
        &server,
        &format!(
            "thread select 3
log enable -f {} gdb-remote packets
thread step-inst
thread select 2
thread step-inst
thread step-inst
thread list
log disable gdb-remote packets
process kill
",
            log.display()
        ),
    );
    let packets = std::fs::read_to_string(&log).unwrap_or_default();
    let sent: Vec<&str> = packets
        .lines()
        .filter(|l| !l.contains("history"))
        .filter_map(|l| l.split("send packet: $").nth(1))
        .collect();
    assert!(
        sent.iter()
            .all(|p| !p.starts_with("p10#") && !p.starts_with("qfThreadInfo")),
        "{sent:?}"
    );
    // Every step and its stop reply, in order: the stepped thread alone moved, by one
    // instruction of the spin loop (umovi at 0, then uaddi and br alternate).
    let next = |pc: u64| if pc == spin { spin + 8 } else { spin };
    let mut pcs: Vec<(u64, u64)> = vec![(1, 0), (2, 0), (3, 0), (4, 0)];
    let mut steps = Vec::new();
    let lines: Vec<&str> = packets.lines().filter(|l| !l.contains("history")).collect();
    for (i, l) in lines.iter().enumerate() {
        let Some(tid) = l
            .split("send packet: $vCont;s:")
            .nth(1)
            .and_then(|x| u64::from_str_radix(&x[..4], 16).ok())
        else {
            continue;
        };
        let reply = lines[i + 1..]
            .iter()
            .find_map(|r| r.split("read packet: $T05").nth(1))
            .unwrap_or_else(|| panic!("no stop reply to step {tid}: {packets}"));
        for p in pcs.iter_mut().filter(|p| p.0 == tid) {
            p.1 = if p.1 == 0 { spin } else { next(p.1) };
        }
        assert_eq!(stop_threads(reply), pcs, "step of thread {tid}:\n{packets}");
        steps.push(tid);
    }
    assert!(steps.starts_with(&[3]) && steps.contains(&2), "{steps:?}");
    assert!(steps.iter().filter(|t| **t == 2).count() >= 2, "{steps:?}");
    // `thread list` shows the last reply's PCs, thread 2 selected.
    for (tid, pc) in &pcs {
        let mark = if *tid == 2 { '*' } else { ' ' };
        let line = format!("{mark} thread #{tid}: tid = {tid:#06x}, {pc:#018x}");
        assert!(out.contains(&line), "{line}\n{out}");
    }
}
