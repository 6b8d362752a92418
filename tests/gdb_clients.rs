//! `wavedbg serve` driven by real clients in batch mode: Debian's `gdb`, `gdb-multiarch`
//! and `lldb` (installed by .ci/run). Each test starts its own server on a free port
//! (`--listen 127.0.0.1:0`, the address is read from the server's stderr), runs a client
//! script with a timeout, and asserts on the client's output. Outside CI (`CI` unset) a
//! missing client skips its test with a message; in CI it fails.
//!
//! The tests that need no client speak the protocol over a raw TCP connection: random and
//! malformed packets (the server still answers `?`), the exact error replies to lenient
//! packets, idempotent `Z`/`z`, and a second client refused while one is attached.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

mod clients;
use clients::*;

/// The test kernel: two workgroups of two waves. Each wave stores `7 + lane` for each lane
/// to its own 128 bytes of `out` (at `store`), then to its workgroup's shared memory (at
/// `stored`).
const KERNEL: &str = "\
.kernel gdbtest
.workgroup 64
.grid 2
.shared 128
.buffer out, 512
.arg u[0:1], out

    uwgid u4
    uwaveid u5
    ushli u7, u4, 1
    uadd u7, u7, u5
    ushli u7, u7, 7
    vlaneid v0
    vshli v1, v0, 2
    vadd.u32.u v2, v1, u7
    umovi u6, 7
    vmov.u v3, u6
    vadd.u32 v3, v3, v0
store:
    st.ubase.b32 v3, u[0:1], v2, 0
    wait.vst 0
stored:
    st.shared.b32 v3, v1, 0
    wait.ls 0
    end
";

/// An endless loop counting in u1 (for Ctrl-C).
const SPIN: &str = "\
.kernel spin
.workgroup 64
.grid 1
    umovi u1, 0
spin:
    uaddi u1, u1, 1
    br spin
    end
";

/// Lanes 16-31 store past the end of a 64-byte buffer (SIGSEGV).
const FAULT: &str = "\
.kernel fault
.workgroup 32
.grid 1
.buffer out, 64
.arg u[0:1], out
    vlaneid v0
    vshli v1, v0, 2
    st.ubase.b32 v0, u[0:1], v1, 0
    wait.vst 0
    end
";

/// Every lane stores a word 2 bytes past a word boundary: a misaligned access (SIGBUS).
const MISALIGNED: &str = "\
.kernel misaligned
.workgroup 32
.grid 1
.buffer out, 256
.arg u[0:1], out
    vlaneid v0
    vshli v1, v0, 2
    vori v1, v1, 2
    st.ubase.b32 v0, u[0:1], v1, 0
    wait.vst 0
    end
";

/// Each lane of each wave stores `128 * wave index + lane` to offset 4 of its scratch (at
/// `scratched`, after the store).
const SCRATCH: &str = "\
.kernel scratch
.workgroup 64
.grid 1
.scratch 16
    vlaneid v0
    uwaveid u5
    ushli u7, u5, 7
    vadd.u32.u v3, v0, u7
    umovi u6, 4
    vmov.u v1, u6
    st.scratch.b32 v3, v1, 0
    wait.vst 0
scratched:
    end
";

/// Where the kernel's `out` buffer is (the first global allocation).
const OUT: &str = "0x100000000";
/// The shared memory of workgroup 0 (docs/gdb.md: workgroup W at + (W << 20)).
const SHARED: &str = "0x8000000000000000";
/// The shared memory of workgroup 1.
const SHARED1: &str = "0x8000000000100000";

/// Connect, threads, a breakpoint at a label, registers (one lane, a write the kernel then
/// uses), stepping one wave while another stays put, global memory, monitor, kill.
fn gdb_inspects_and_steps(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "gdbtest.s", KERNEL);
    let store = label_addr(&k, "store");
    let stored = label_addr(&k, "stored");
    let mut server = Server::start(&k);
    let script = format!(
        "info threads
break *{store:#x}
continue
p $pc
p $v3[5]
p/t $exec
x/4xw {OUT}
set var $v3[1] = 100
set scheduler-locking step
thread 2
printf \"wave1-before=%#x\\n\", $pc
stepi
printf \"wave1-pc=%#x\\n\", $pc
thread 1
printf \"wave0-pc=%#x\\n\", $pc
delete
stepi
x/4xw {OUT}
advance *{stored:#x}
bt
monitor info waves
monitor disassemble
monitor help
monitor why
kill
"
    );
    let out = gdb(client, &server, &script, false, None);
    check(
        &out,
        &server,
        &[
            "Thread 1.1 (wave 0, workgroup 0, wave_in_wg 0, ready",
            "Thread 1.4 (wave 3, workgroup 1, wave_in_wg 1, ready",
            &format!("hit Breakpoint 1, {store:#018x} in ?? ()"),
            &format!("(void (*)()) {store:#x}"),
            "= 12\n",
            "= 11111111111111111111111111111111\n",
            "0x100000000:\t0x00000000\t0x00000000\t0x00000000\t0x00000000",
            "[Switching to thread 2 (Thread 1.2)]",
            // Wave 1 ran its first quantum before wave 0 reached the breakpoint.
            "wave1-before=0x2c\n",
            "wave1-pc=0x34\n",
            &format!("wave0-pc={store:#x}\n"),
            // The lane written through gdb is what the kernel stored.
            "0x100000000:\t0x00000007\t0x00000064\t0x00000009\t0x0000000a",
            // advance and bt: the x86 unwinder sees the outermost frame.
            &format!("#0  {stored:#018x} in ?? ()\n"),
            "Wave  WG  Idx  State",
            "store:",
            "Server commands (wavedbg serve)",
            "[Inferior 1 (process 1) killed]",
        ],
    );
    assert!(!out.contains("#1 "), "one frame only:\n{out}");
    let status = server.wait_exit(Duration::from_secs(10));
    assert!(
        status.is_some_and(|s| s.success()),
        "the server ends after kill: {status:?}\n{}",
        server.log()
    );
}

/// Watchpoints on a global and a shared address stop with old and new values.
fn gdb_watches_global_and_shared(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "gdbtest.s", KERNEL);
    let server = Server::start(&k);
    let script = format!(
        "watch *(unsigned int *)({OUT}+4)
watch *(unsigned int *)({SHARED}+8)
continue
continue
monitor why
x/4xw {SHARED}
delete
continue
x/4xw {OUT}
continue
"
    );
    let out = gdb(client, &server, &script, false, None);
    check(
        &out,
        &server,
        &[
            "Hardware watchpoint 1: *(unsigned int *)(0x100000000+4)",
            "Hardware watchpoint 2: *(unsigned int *)(0x8000000000000000+8)",
            "Thread 1 hit Hardware watchpoint 1",
            "Old value = 0\nNew value = 8\n",
            "hit Hardware watchpoint 2",
            "Old value = 0\nNew value = 9\n",
            "lane 2 at",
            "0x8000000000000000:\t0x00000007\t0x00000008\t0x00000009\t0x0000000a",
            // The end is a stop where the final memory reads; the next continue exits.
            "The kernel has finished: its memory can be read",
            "received signal SIGSTOP",
            "0x100000000:\t0x00000007\t0x00000008\t0x00000009\t0x0000000a",
            "[Inferior 1 (process 1) exited normally]",
        ],
    );
}

/// Time travel through gdb's own commands: `reverse-stepi` lands right before the
/// wave's previous instruction, `reverse-continue` goes back to the previous breakpoint
/// hit and then to the start ("No more reverse-execution history."), and a watchpoint
/// fires in reverse with the value before and after the write, undone.
fn gdb_runs_backwards(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "gdbtest.s", KERNEL);
    let store = label_addr(&k, "store");
    let server = Server::start(&k);
    let script = format!(
        "break *{store:#x}
continue
continue
delete
stepi
reverse-stepi
printf \"back at %#lx\\n\", $pc
break *{store:#x}
reverse-continue
printf \"previous hit at %#lx\\n\", $pc
reverse-continue
delete
watch *(unsigned int *)({OUT}+4)
continue
stepi
reverse-continue
printf \"before the store at %#lx\\n\", $pc
x/2xw {OUT}
kill
"
    );
    let out = gdb(client, &server, &script, false, None);
    check(
        &out,
        &server,
        &[
            &format!("back at {store:#x}"),
            "hit Breakpoint 2",
            &format!("previous hit at {store:#x}"),
            "No more reverse-execution history.",
            "Old value = 0\nNew value = 8\n",
            "Old value = 8\nNew value = 0\n",
            &format!("before the store at {store:#x}"),
            &format!("{OUT}:\t0x00000000\t0x00000000"),
        ],
    );
}

/// Ctrl-C stops an endless loop and reports SIGINT in a live wave.
fn gdb_interrupts_an_endless_loop(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "spin.s", SPIN);
    let mut server = Server::start(&k);
    let script = "continue\nprintf \"u1 counted: %d\\n\", $u1 > 1000\nkill\n";
    // gdb prints the frame at connection; the next command is `continue`.
    let out = gdb(client, &server, script, false, Some("in ?? ()"));
    check(
        &out,
        &server,
        &[
            "Thread 1 received signal SIGINT, Interrupt.",
            "u1 counted: 1\n",
            "[Inferior 1 (process 1) killed]",
        ],
    );
    assert!(server.wait_exit(Duration::from_secs(10)).is_some());
}

/// A fault stops as its signal with the engine's text; continuing ends the launch.
fn gdb_reports_a_fault(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "fault.s", FAULT);
    let server = Server::start(&k);
    let out = gdb(
        client,
        &server,
        "continue\nmonitor why\ncontinue\n",
        false,
        None,
    );
    check(
        &out,
        &server,
        &[
            "received signal SIGSEGV, Segmentation fault.",
            "global access of 4 bytes to unallocated memory",
            "lanes 16-31",
            "Program terminated with signal SIGSEGV, Segmentation fault.",
        ],
    );
}

/// Two waves of one workgroup: wave 1 stores a word wave 0 loads, with no barrier.
const RACE: &str = include_str!("kernels/race.s");

/// The sanitizer through `monitor`: a finding stops the run as a trap, with both sides
/// on the console, and `monitor info findings` lists it.
fn gdb_stops_at_a_sanitizer_finding(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "race.s", RACE);
    let server = Server::start(&k);
    let out = gdb(
        client,
        &server,
        "monitor set check races on\ncontinue\nprint $pc\nmonitor info findings\ncontinue\ncontinue\n",
        false,
        None,
    );
    check(
        &out,
        &server,
        &[
            "Sanitizer: races on.",
            "received signal SIGTRAP, Trace/breakpoint trap.",
            "Sanitizer error: data race on shared:0x0 (4 bytes) in workgroup 0, no barrier between (epoch 0)",
            "now     wave 1 (workgroup 0, epoch 0) lanes 0-31 write at 0x0018: st.shared.b32 v2, v1, 0",
            "before  wave 0 (workgroup 0, epoch 0) lane 31 read at 0x0028 <reader>: ld.shared.b32 v3, v1, 0",
            "$1 = (void (*)()) 0x20",
            "Sanitizer: races on; 1 finding.",
            "exited normally",
        ],
    );
}

#[test]
fn gdb_stops_at_a_sanitizer_finding_with_both_sides() {
    gdb_stops_at_a_sanitizer_finding("gdb");
}

#[test]
fn gdb_multiarch_stops_at_a_sanitizer_finding_with_both_sides() {
    gdb_stops_at_a_sanitizer_finding("gdb-multiarch");
}

/// extended-remote: `run` restarts the launch, `kill` keeps the server.
fn gdb_extended_remote_restarts(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "gdbtest.s", KERNEL);
    let stored = label_addr(&k, "stored");
    let server = Server::start(&k);
    let script = format!(
        "break *{stored:#x}
continue
kill
run
p $pc
monitor threads
detach
"
    );
    let out = gdb(client, &server, &script, true, None);
    check(
        &out,
        &server,
        &[
            &format!("hit Breakpoint 1, {stored:#018x} in ?? ()"),
            "[Inferior 1 (process 1) killed]",
            &format!("(void (*)()) {stored:#x}"),
            "  tid    wave   workgroup  wave_in_wg  state       pc\n* 1      0      0          0",
        ],
    );
    // A detach leaves the server waiting for the next client (tests/gdb_rocgdb.rs).
    assert!(server.wait_log(
        "client detached; waiting for another client",
        Duration::from_secs(10)
    ));
}

#[test]
fn gdb_inspects_registers_memory_and_steps_one_wave() {
    gdb_inspects_and_steps("gdb");
}

#[test]
fn gdb_multiarch_inspects_registers_memory_and_steps_one_wave() {
    gdb_inspects_and_steps("gdb-multiarch");
}

#[test]
fn gdb_watchpoints_on_global_and_shared_memory() {
    gdb_watches_global_and_shared("gdb");
}

#[test]
fn gdb_multiarch_watchpoints_on_global_and_shared_memory() {
    gdb_watches_global_and_shared("gdb-multiarch");
}

#[test]
fn gdb_reverse_stepi_and_reverse_continue() {
    gdb_runs_backwards("gdb");
}

#[test]
fn gdb_multiarch_reverse_stepi_and_reverse_continue() {
    gdb_runs_backwards("gdb-multiarch");
}

#[test]
fn gdb_ctrl_c_interrupts_an_endless_loop() {
    gdb_interrupts_an_endless_loop("gdb");
}

#[test]
fn gdb_multiarch_ctrl_c_interrupts_an_endless_loop() {
    gdb_interrupts_an_endless_loop("gdb-multiarch");
}

#[test]
fn gdb_fault_is_a_signal_with_its_text() {
    gdb_reports_a_fault("gdb");
}

#[test]
fn gdb_multiarch_fault_is_a_signal_with_its_text() {
    gdb_reports_a_fault("gdb-multiarch");
}

/// A misaligned access stops as SIGBUS, which the protocol numbers 10: the fault's Linux
/// number (7) would reach gdb as SIGEMT.
#[test]
fn gdb_misaligned_access_is_sigbus() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "misaligned.s", MISALIGNED);
    let server = Server::start(&k);
    let out = gdb("gdb", &server, "continue\n", false, None);
    check(
        &out,
        &server,
        &[
            "misaligned global access of 4 bytes",
            "received signal SIGBUS, Bus error.",
        ],
    );
}

#[test]
fn gdb_extended_remote_run_restarts_the_launch() {
    gdb_extended_remote_restarts("gdb");
}

#[test]
fn lldb_inspects_steps_watches_and_kills() {
    if !have("lldb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "gdbtest.s", KERNEL);
    let store = label_addr(&k, "store");
    let mut server = Server::start(&k);
    let script = format!(
        "thread list
breakpoint set -a {store:#x}
process continue
register read -f uint32_t[] v3
register write exec 0x1
register read exec
thread select 2
thread step-inst
register read pc
thread select 1
register read pc
breakpoint delete 1
thread step-inst
memory read -s 4 -c 4 -f x {OUT}
watchpoint set expression -w write -s 4 -- {SHARED}+8
process continue
memory write -s 4 {SHARED1}+0x40 0x12345678
memory read -s 4 -c 1 -f x {SHARED1}+0x40
memory read -s 4 -c 1 -f x {SHARED}+0x40
process plugin packet monitor why
process plugin packet monitor info waves
process kill
"
    );
    let out = lldb(&server, &script);
    check(
        &out,
        &server,
        &[
            "thread #4: tid = 0x0004",
            "stop reason = breakpoint 1.1",
            "v3 = {0x00000007 0x00000008 0x00000009 0x0000000a 0x0000000b 0x0000000c",
            "exec = 0x00000001",
            &format!("rip = {store:#018x}"),
            // Only lane 0 was active when wave 0 stored.
            "0x100000000: 0x00000007 0x00000000 0x00000000 0x00000000",
            "stop reason = watchpoint 1",
            // lldb's memory packets name no thread: the address names the workgroup.
            "0x8000000000100040: 0x12345678",
            "0x8000000000000040: 0x",
            "written by wave 1 lane 2",
            "Wave  WG  Idx  State",
            "exited with status = 9",
        ],
    );
    assert!(
        !out.contains("0x8000000000000040: 0x12345678"),
        "workgroup 0 is not workgroup 1:\n{out}"
    );
    // Wave 1 had run its first quantum (to 0x2c) when wave 0 reached the breakpoint; the
    // step moves it on while wave 0 stays. (lldb 14 in batch mode sometimes sends a second
    // `vCont;s` for one `thread step-inst`, racing its own event output: 0x34 or 0x38.)
    let pcs: Vec<&str> = out
        .lines()
        .filter_map(|l| l.trim().strip_prefix("rip = "))
        .collect();
    assert!(
        matches!(
            pcs.as_slice(),
            ["0x0000000000000034" | "0x0000000000000038", wave0] if *wave0 == format!("{store:#018x}")
        ),
        "thread 2 steps, thread 1 stays: {pcs:?}\n{out}"
    );
    assert!(server.wait_exit(Duration::from_secs(10)).is_some());
}

#[test]
fn lldb_ctrl_c_interrupts_an_endless_loop() {
    if !have("lldb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "spin.s", SPIN);
    let server = Server::start(&k);
    // lldb's Ctrl-C handler calls SBProcess::SendAsyncInterrupt; do the same from a thread
    // while `Continue` blocks.
    let py = "import lldb, threading, time\n\
p = lldb.debugger.GetSelectedTarget().GetProcess()\n\
threading.Thread(target=lambda: (time.sleep(1), p.SendAsyncInterrupt())).start()\n\
p.Continue()\n\
print('state:', lldb.SBDebugger.StateAsCString(p.GetState()))\n";
    std::fs::write(dir.path().join("ctrlc.py"), py).expect("write py");
    let script = format!(
        "script exec(open('{}').read())\nthread list\nregister read u1\nprocess kill\n",
        dir.path().join("ctrlc.py").display()
    );
    let out = lldb(&server, &script);
    check(
        &out,
        &server,
        &["state: stopped", "stop reason = signal SIGINT", "u1 = 0x"],
    );
}

/// Random bytes, bad checksums, malformed and oversized packets, and hostile requests
/// (huge reads, writes to the code, bad registers) never crash the server: afterwards it
/// still answers `?` with a stop reply naming a thread.
#[test]
fn hostile_packets_never_crash_the_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "gdbtest.s", KERNEL);
    let mut server = Server::start(&k);
    let mut s = TcpStream::connect(&server.addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .expect("timeout");
    let packet = |body: &[u8]| {
        let sum = body.iter().fold(0u8, |a, b| a.wrapping_add(*b));
        let mut p = vec![b'$'];
        p.extend_from_slice(body);
        p.extend_from_slice(format!("#{sum:02x}").as_bytes());
        p
    };
    let hostile: Vec<&[u8]> = vec![
        b"m",
        b"mzz,zz",
        b"m0,ffffffffffffffff",
        b"mffffffffffffffff,10",
        b"M0,4:00000000",
        b"M100000000,ffffffff:00",
        b"X100000000,4:\x03\x03\x03\x03",
        b"G00",
        b"g",
        b"p",
        b"pffffffff",
        b"P10=00",
        b"P69=0102",
        b"Hg0",
        b"Hg-1",
        b"Hgp1.ffffffff",
        b"Hc-1",
        b"vCont;s",
        b"vCont;x:1",
        b"vCont;c:zz",
        b"Z0,1,1",
        b"Z2,ffff800000000000,ffffffffff",
        b"Z2,0,4",
        b"z0,40,1",
        b"Z9,0,0",
        b"qXfer:features:read:other.xml:0,ffff",
        b"qXfer:features:read:target.xml:ffffffffffff,10",
        b"qRcmd,zz",
        b"qRcmd,636f6e74696e7565",
        b"qThreadExtraInfo,p1.ffff",
        b"T0",
        b"qSupported:xmlRegisters=i386;multiprocess+",
        b"vKill;zz",
        b"\x00\x01\x02",
        b"}}}}",
    ];
    for body in &hostile {
        s.write_all(&packet(body)).expect("send");
    }
    // Bad checksums, a lone nack, garbage and an oversized packet.
    s.write_all(b"$g#00-+garbage\x00\xff$").expect("send");
    s.write_all(&vec![b'a'; 70_000]).expect("send");
    s.write_all(b"#00").expect("send");
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..300 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let len = (seed % 40) as usize;
        let body: Vec<u8> = (0..len)
            .map(|i| {
                let b = (seed >> (i % 8 * 8)) as u8;
                // Keep out of framing bytes; random text otherwise.
                match b {
                    b'$' | b'#' | b'}' | b'*' | 0x03 => b'q',
                    _ => b,
                }
            })
            .collect();
        // Never kill or detach: those end the server by design.
        if matches!(
            body.first(),
            Some(b'k' | b'D' | b'c' | b'C' | b's' | b'S' | b'v')
        ) {
            continue;
        }
        s.write_all(&packet(&body)).expect("send");
    }
    // Drain whatever came back.
    let mut sink = Vec::new();
    let mut buf = [0u8; 65536];
    let quiet = Instant::now();
    while quiet.elapsed() < Duration::from_secs(30) {
        match s.read(&mut buf) {
            Ok(0) => panic!("the server closed the connection\n{}", server.log()),
            Ok(n) => sink.extend_from_slice(&buf[..n]),
            Err(_) => break,
        }
    }
    s.write_all(&packet(b"?")).expect("send ?");
    let mut reply = Vec::new();
    let end = Instant::now() + Duration::from_secs(10);
    while Instant::now() < end && !String::from_utf8_lossy(&reply).contains("thread:") {
        if let Ok(n) = s.read(&mut buf) {
            reply.extend_from_slice(&buf[..n]);
        }
    }
    let reply = String::from_utf8_lossy(&reply);
    assert!(
        reply.contains("$T05thread:p01.01;"),
        "no stop reply to `?`: {reply:?}\n{}",
        server.log()
    );
    // Monitor expressions nested thousands deep (a 12 KB and a 20 KB qRcmd) are answered
    // with an error as console output, and the server goes on.
    let mut c = Raw {
        s: s.try_clone().expect("clone"),
        pending: Vec::new(),
    };
    c.s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let parens = format!("print {}1{}", "(".repeat(3000), ")".repeat(3000));
    let terms = format!("print 1{}", "+1".repeat(4999));
    for cmd in [&parens, &terms] {
        let out = c.monitor(cmd);
        assert!(
            out.contains("deeper than 256 levels"),
            "an error for a {}-byte expression: {out:?}\n{}",
            cmd.len(),
            server.log()
        );
        assert!(c.ask(b"qfThreadInfo").starts_with('m'), "still serving");
    }
    assert!(c.ask(b"?").starts_with("T05thread:"));
    assert!(
        server.child.try_wait().ok().flatten().is_none(),
        "the server is still running"
    );
    eprintln!("server log:\n{}", server.log());
}

/// A raw protocol client: one packet at a time, in no-ack mode after the handshake.
struct Raw {
    s: TcpStream,
    pending: Vec<u8>,
}

/// `$body#cs`.
fn packet(body: &[u8]) -> Vec<u8> {
    let sum = body.iter().fold(0u8, |a, b| a.wrapping_add(*b));
    let mut p = vec![b'$'];
    p.extend_from_slice(body);
    p.extend_from_slice(format!("#{sum:02x}").as_bytes());
    p
}

/// Undoes run-length encoding (`X*n` repeats X `n - 29` more times).
fn unrle(body: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        if body[i] == b'*' && i + 1 < body.len() {
            let last = out.last().copied().unwrap_or(b'0');
            out.extend(std::iter::repeat_n(
                last,
                (body[i + 1] as usize).saturating_sub(29),
            ));
            i += 2;
        } else {
            out.push(body[i]);
            i += 1;
        }
    }
    out
}

fn unhex(text: &str) -> String {
    let bytes: Vec<u8> = (0..text.len() / 2)
        .filter_map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok())
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

impl Raw {
    fn connect(addr: &str) -> Raw {
        let s = TcpStream::connect(addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        let mut raw = Raw {
            s,
            pending: Vec::new(),
        };
        let features = raw.ask(b"qSupported:multiprocess+");
        assert!(features.contains("PacketSize="), "{features}");
        assert_eq!(raw.ask(b"QStartNoAckMode"), "OK");
        raw
    }

    fn send(&mut self, body: &[u8]) {
        self.s.write_all(&packet(body)).expect("send");
    }

    /// The next packet's body (acks skipped), or `None` when the server closed.
    fn next(&mut self) -> Option<String> {
        let mut buf = [0u8; 65536];
        loop {
            if let Some(start) = self.pending.iter().position(|&b| b == b'$') {
                if let Some(hash) = self.pending[start..].iter().position(|&b| b == b'#') {
                    let end = start + hash + 3;
                    if self.pending.len() >= end {
                        let body = unrle(&self.pending[start + 1..start + hash]);
                        self.pending.drain(..end);
                        return Some(String::from_utf8_lossy(&body).into_owned());
                    }
                }
            }
            match self.s.read(&mut buf) {
                Ok(0) => return None,
                Ok(n) => self.pending.extend_from_slice(&buf[..n]),
                Err(e) => panic!("no reply from the server: {e}"),
            }
        }
    }

    /// Sends a packet and returns the reply's body.
    fn ask(&mut self, body: &[u8]) -> String {
        self.send(body);
        self.next().expect("the server closed the connection")
    }

    /// Sends a resume packet and returns the stop reply (console output skipped).
    fn resume(&mut self, body: &[u8]) -> String {
        self.send(body);
        loop {
            let reply = self.next().expect("the server closed the connection");
            if !reply.starts_with('O') || reply == "OK" {
                return reply;
            }
        }
    }

    /// `monitor CMD`: the console output, up to the final `OK` (or the error reply).
    fn monitor(&mut self, cmd: &str) -> String {
        let hex: String = cmd.bytes().map(|b| format!("{b:02x}")).collect();
        self.send(format!("qRcmd,{hex}").as_bytes());
        let mut out = String::new();
        loop {
            let reply = self.next().expect("the server closed the connection");
            match reply.strip_prefix('O') {
                Some(text) if reply != "OK" => out.push_str(&unhex(text)),
                _ => {
                    if reply != "OK" {
                        out.push_str(&reply);
                    }
                    return out;
                }
            }
        }
    }
}

/// A watchpoint's address alone says which workgroup it watches, whichever thread is
/// current when gdb (re)inserts it: the repro on scripts/histogram.s where a watchpoint
/// deleted and re-created after `thread 9` kept the workgroup of its first insertion.
#[test]
fn gdb_watchpoint_address_names_its_workgroup() {
    if !have("gdb") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // A copy: `serve` writes its symbol file beside the kernel.
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, _) = histogram_in(&dir);
    let helpers = root.join("scripts/wavedbg.gdb");
    let next_word = label_addr(&k, "next_word");
    let server = Server::start(&k);
    let script = format!(
        "source {}
break *{next_word:#x}
continue
delete
watch *(unsigned int *)({SHARED}+8)
continue
python print('first-stop:', gdb.selected_thread().details)
delete
thread 9
python print('current:', gdb.selected_thread().details)
printf \"helper: %#lx\\n\", $_shared(8)
watch *(unsigned int *)({SHARED}+8)
continue
python print('same-address-stop:', gdb.selected_thread().details)
delete
watch *(unsigned int *)({SHARED1}+8)
continue
python print('workgroup-1-stop:', gdb.selected_thread().details)
monitor why
x/2xw {SHARED1}
xshared 2
windows
kill
",
        helpers.display()
    );
    let out = gdb("gdb", &server, &script, false, None);
    check(
        &out,
        &server,
        &[
            "first-stop: wave 4, workgroup 0,",
            "current: wave 8, workgroup 1,",
            // The address of workgroup 0 still means workgroup 0 from a thread of workgroup 1.
            "same-address-stop: wave ",
            "workgroup-1-stop: wave ",
            "helper: 0x8000000000100008\n",
            "Hardware watchpoint at 0x8000000000100008 (shared:0x8 of workgroup 1, 4 bytes)",
            "0x8000000000100000:\t0x",
            "  shared:  0x8000000000100000..0x8000000000100400",
        ],
    );
    let wg = |marker: &str| -> String {
        let line = out
            .lines()
            .find(|l| l.starts_with(marker))
            .unwrap_or_default();
        line.split(", workgroup ")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .unwrap_or("?")
            .to_string()
    };
    assert_eq!(wg("same-address-stop:"), "0", "{out}");
    assert_eq!(wg("workgroup-1-stop:"), "1", "{out}");
}

/// Shared memory of a workgroup that is not resident yet cannot be read, but can be
/// watched: the watchpoint stops in that workgroup once it runs. Scratch windows name their
/// wave and lane; a wave that is not resident has none.
#[test]
fn gdb_watches_a_pending_workgroup_and_reads_any_lanes_scratch() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "gdbtest.s", KERNEL);
    // One workgroup resident at a time: workgroup 1 waits for workgroup 0 to finish.
    let server = Server::start_with(&k, &["--resident", "1"]);
    let script = format!(
        "python
try:
    gdb.execute('x/1xw {SHARED1}')
except gdb.MemoryError as e:
    print('not resident:', e)
end
watch *(unsigned int *)({SHARED1}+8)
continue
python print('stop:', gdb.selected_thread().details)
x/4xw {SHARED1}
kill
"
    );
    let out = gdb("gdb", &server, &script, false, None);
    check(
        &out,
        &server,
        &[
            "not resident: Cannot access memory at address 0x8000000000100000",
            "Hardware watchpoint 1: *(unsigned int *)(0x8000000000100000+8)",
            "stop: wave 2, workgroup 1,",
            "New value = 9\n",
            "0x8000000000100000:\t0x00000007\t0x00000008\t0x00000009\t0x0000000a",
        ],
    );

    let k = kernel(&dir, "scratch.s", SCRATCH);
    let scratched = label_addr(&k, "scratched");
    let server = Server::start(&k);
    {
        // Wave 2 is not in the grid: it has no scratch to read.
        let mut c = Raw::connect(&server.addr);
        assert_eq!(c.ask(b"mc000000000400004,4"), "E0e");
        assert_eq!(
            c.ask(b"mc000000000050004,4"),
            "00000000",
            "lane 5 of wave 0"
        );
    }
    // Scratch of wave V lane L at 0xc000000000000000 + (V << 21) + (L << 16).
    let script = format!(
        "break *{scratched:#x}
continue
continue
x/1xw 0xc000000000000000 + (0 << 21) + (5 << 16) + 4
x/1xw 0xc000000000000000 + (1 << 21) + (31 << 16) + 4
kill
"
    );
    let out = gdb("gdb", &server, &script, false, None);
    check(
        &out,
        &server,
        &[
            "0xc000000000050004:\t0x00000005",
            "0xc0000000003f0004:\t0x0000009f",
        ],
    );
}

/// `Z` and `z` are idempotent: a retransmitted `Z` leaves one breakpoint (or watchpoint),
/// which one `z` removes, so the kernel then runs to its end.
#[test]
fn z_packets_are_idempotent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "gdbtest.s", KERNEL);
    let store = label_addr(&k, "store");
    for (insert, remove) in [
        (format!("Z0,{store:x},1"), format!("z0,{store:x},1")),
        ("Z2,100000004,4".to_string(), "z2,100000004,4".to_string()),
        (
            "Z4,8000000000000008,4".to_string(),
            "z4,8000000000000008,4".to_string(),
        ),
    ] {
        let server = Server::start(&k);
        let mut c = Raw::connect(&server.addr);
        assert_eq!(c.ask(insert.as_bytes()), "OK");
        assert_eq!(c.ask(insert.as_bytes()), "OK", "a retransmitted {insert}");
        let listed = c.monitor("info breakpoints");
        assert_eq!(
            listed.matches(" at 0x").count(),
            1,
            "one entry after {insert} twice:\n{listed}"
        );
        assert_eq!(c.ask(remove.as_bytes()), "OK");
        assert!(
            c.ask(remove.as_bytes()).starts_with('E'),
            "nothing left to remove"
        );
        let stop = c.resume(b"vCont;c:p1.-1");
        assert!(
            stop.starts_with("T11"),
            "no breakpoint or watchpoint is left after {remove}: {stop}"
        );
        let exit = c.resume(b"vCont;c:p1.-1");
        assert!(exit.starts_with("W00"), "the end, then the exit: {exit}");
    }
}

/// A second client is refused at once with a message (a raw connection, then gdb), and the
/// first goes on undisturbed.
#[test]
fn a_second_client_is_refused_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "gdbtest.s", KERNEL);
    let server = Server::start(&k);
    let mut first = Raw::connect(&server.addr);
    assert!(first.ask(b"?").starts_with("T05thread:"));

    let started = Instant::now();
    let mut second = TcpStream::connect(&server.addr).expect("connect");
    second
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    second
        .write_all(&packet(b"qSupported:multiprocess+"))
        .expect("send");
    let mut reply = Vec::new();
    let _ = second.read_to_end(&mut reply);
    let reply = String::from_utf8_lossy(&reply);
    assert!(
        reply.contains("$E.wavedbg: another client (127.0.0.1:")
            && reply.contains("is attached; the server serves one at a time#"),
        "refused with a reason: {reply:?}\n{}",
        server.log()
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "refused at once, not after {:?}",
        started.elapsed()
    );

    if have("gdb") {
        let started = Instant::now();
        let out = gdb("gdb", &server, "info threads\n", false, None);
        check(
            &out,
            &server,
            &[
                "Remote failure reply: E.wavedbg: another client",
                "No threads.",
            ],
        );
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "gdb gave up quickly, not after {:?}",
            started.elapsed()
        );
    }
    if have("lldb") {
        // lldb takes an error reply to its handshake as something to wait out: it is
        // answered until it asks for the stop, which it is refused, and it gives up.
        let started = Instant::now();
        let out = lldb(&server, "thread list\n");
        check(
            &out,
            &server,
            &["error: Process 1 was reported after connecting"],
        );
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "lldb gave up quickly, not after {:?}",
            started.elapsed()
        );
    }
    // The first client is still served.
    assert!(first.ask(b"?").starts_with("T05thread:"));
    assert_eq!(first.ask(b"m100000000,4"), "00000000");
    assert!(server
        .log()
        .contains("wavedbg: refused a client from 127.0.0.1:"));
}

/// The server and gdb agree: `monitor why` and `monitor info watchpoints` name gdb's
/// watchpoint by its address at every stop (gdb removes it while stopped; no engine number
/// that grows per resume), `monitor wave`, register `set` and `set scheduler-locking` are
/// refused with what to do instead, `monitor delete` keeps gdb's watchpoint, and after an
/// extended-remote `kill` there are no threads until `run`.
#[test]
fn gdb_and_the_server_agree_on_watchpoints_threads_and_the_process() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "gdbtest.s", KERNEL);
    let server = Server::start(&k);
    let script = format!(
        "awatch *(unsigned int *)({SHARED}+8)
continue
monitor why
monitor info watchpoints
monitor delete
continue
monitor why
monitor info breakpoints
monitor wave 1
monitor set u8 = 1
monitor set scheduler-locking on
info threads 1
kill
info threads
monitor threads
monitor info waves
run
info threads 1
monitor threads
detach
"
    );
    let out = gdb("gdb", &server, &script, true, None);
    let label = "Hardware access (read/write) watchpoint at 0x8000000000000008 (shared:0x8 of workgroup 0, 4 bytes)";
    check(
        &out,
        &server,
        &[
            "Hardware access (read/write) watchpoint 1: *(unsigned int *)(0x8000000000000000+8)",
            "written by wave 0 lane 2",
            "written by wave 1 lane 2",
            "Inserted by the client (which numbers them itself):\n  Hardware access",
            "wave 1 is thread id 2 (gdb: `wave 1` from scripts/wavedbg.gdb",
            "the client caches registers",
            "the client decides which waves run",
            "[Inferior 1 (process 1) killed]",
            "No threads.",
            "No threads: the kernel is not running",
            "The kernel is not running (killed, or the launch ended)",
            "Thread 1.1 (wave 0, workgroup 0, wave_in_wg 0, ready",
        ],
    );
    // Two stops (and two resumptions), the same name each time.
    assert_eq!(out.matches(label).count(), 4, "{out}");
    assert!(
        !out.contains("watchpoint 2:") && !out.contains("watchpoint 3:"),
        "no engine numbers: {out}"
    );
    assert!(server.wait_log(
        "client detached; waiting for another client",
        Duration::from_secs(10)
    ));
}

/// Packets gdbstub would accept leniently are errors: `Hg` of a thread that does not
/// exist, `M` whose length disagrees with its data, `m` without an address, `vCont` of a
/// thread that does not exist; a bare `qSupported` gets the features reply.
#[test]
fn lenient_packets_are_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "gdbtest.s", KERNEL);
    let server = Server::start(&k);
    let mut c = Raw::connect(&server.addr);
    assert!(
        c.ask(b"qSupported").starts_with("PacketSize="),
        "a bare qSupported"
    );
    assert_eq!(c.ask(b"Hgp1.63"), "E03");
    assert_eq!(c.ask(b"Hg63"), "E03");
    assert_eq!(c.ask(b"Hgp1.4"), "OK");
    assert_eq!(c.ask(b"M100000000,8:01020304"), "E16");
    assert_eq!(c.ask(b"M100000000,2:01020304"), "E16");
    assert_eq!(c.ask(b"m100000000,4"), "00000000", "nothing was written");
    assert_eq!(c.ask(b"m,4"), "E16");
    assert_eq!(c.ask(b"mx,4"), "E16");
    assert_eq!(c.ask(b"X100000000,4:ab"), "E16");
    assert_eq!(c.ask(b"vCont;c:ffff"), "E03");
    assert_eq!(c.ask(b"vCont;s:p1.63"), "E03");
    // Nothing ran: every wave is still at its first instruction.
    assert_eq!(c.ask(b"Hgp1.1"), "OK");
    assert_eq!(c.ask(b"p10"), "0000000000000000");
    assert!(c.ask(b"?").starts_with("T05thread:"));
    drop(server);
}

/// Under scripts/wavedbg.gdb's `scheduler-locking step`, `reverse-stepi` moves the whole
/// machine back (time travel has one history) while gdb resumed only the current thread:
/// another thread's registers, read before, show the machine as it now is after it (the
/// script drops gdb's stale copies), as `monitor threads` does.
#[test]
fn gdb_shows_every_threads_registers_after_a_reverse_step() {
    if !have("gdb") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, _) = histogram_in(&dir);
    let next_word = label_addr(&k, "next_word");
    let server = Server::start(&k);
    let script = format!(
        "source {}
break *{next_word:#x}
continue
continue
continue
delete
wave 1
printf \"wave 1 before: %#lx\\n\", $pc
wave 0
reverse-stepi
reverse-stepi
reverse-stepi
reverse-stepi
wave 1
printf \"wave 1 after: %#lx\\n\", $pc
monitor threads
kill
",
        root.join("scripts/wavedbg.gdb").display()
    );
    let out = gdb("gdb", &server, &script, false, None);
    let pc_of = |what: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(what))
            .and_then(|v| u64::from_str_radix(v.trim().trim_start_matches("0x"), 16).ok())
            .unwrap_or_else(|| panic!("no `{what}` in:\n{out}"))
    };
    let (before, after) = (pc_of("wave 1 before: "), pc_of("wave 1 after: "));
    // The server's own word for wave 1: its row of `monitor threads` (`*` for the
    // current one, tid, wave, workgroup, index, state, pc).
    let server_pc = out
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("tid"))
        .map(|l| {
            l.trim_start_matches(['*', ' '])
                .split_whitespace()
                .collect::<Vec<_>>()
        })
        .find(|w| w.len() >= 6 && w[1] == "1" && w[5].starts_with("0x"))
        .and_then(|w| u64::from_str_radix(w[5].trim_start_matches("0x"), 16).ok())
        .unwrap_or_else(|| panic!("no row of wave 1 in `monitor threads`:\n{out}"));
    assert_ne!(
        before, server_pc,
        "the reverse steps did not move wave 1:\n{out}"
    );
    assert_eq!(
        after, server_pc,
        "gdb kept wave 1's registers from before:\n{out}"
    );
}

/// wavedbg.gdb's `$_shared(OFFSET)` and `$_scratch(OFFSET)` stay in their window: an offset
/// that would name the next workgroup's shared memory or another lane's scratch (or one
/// below the window) is an error, not another window's address.
#[test]
fn gdb_window_functions_refuse_offsets_outside_their_window() {
    if !have("gdb") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, _) = histogram_in(&dir);
    let server = Server::start(&k);
    let script = format!(
        "source {}
python
for e in ('$_shared(8)', '$_shared(0xfffff)', '$_shared(0x100000)', '$_shared(-1)',
          '$_scratch(4)', '$_scratch(0x10000)', '$_scratch(-1)'):
    try:
        print('%s = %#x' % (e, int(gdb.parse_and_eval(e))))
    except gdb.error as err:
        print('%s: %s' % (e, err))
end
kill
",
        root.join("scripts/wavedbg.gdb").display()
    );
    let out = gdb("gdb", &server, &script, false, None);
    for want in [
        "$_shared(8) = 0x8000000000000008",
        "$_shared(0xfffff) = 0x80000000000fffff",
        "$_shared(0x100000): offset 1048576 is outside the shared window (0-0xfffff)",
        "$_shared(-1): offset -1 is outside the shared window (0-0xfffff)",
        "$_scratch(4) = 0xc000000000000004",
        "$_scratch(0x10000): offset 65536 is outside the scratch window (0-0xffff)",
        "$_scratch(-1): offset -1 is outside the scratch window (0-0xffff)",
    ] {
        assert!(out.contains(want), "{want}:\n{out}");
    }
}

/// Legacy `s ADDR` and `c ADDR` (gdbstub knows no `C`/`S`) resume the wave at ADDR (gdbstub ignored the address);
/// an address that is no instruction is refused with the reason.
#[test]
fn legacy_resume_packets_resume_at_their_address() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(
        &dir,
        "k.s",
        ".kernel k\n.workgroup 32\n.grid 1\n    umovi u1, 1\n    umovi u2, 2\n    umovi u3, 3\n    end\n",
    );
    let server = Server::start(&k);
    let mut c = Raw::connect(&server.addr);
    assert!(c.resume(b"s10").starts_with("T05"), "{}", server.log());
    let u = c.monitor("print u2");
    assert_eq!(u.trim(), "u2 = 0", "skipped");
    let u = c.monitor("print u3");
    assert_eq!(u.trim(), "u3 = 3", "executed");
    assert!(
        c.monitor("info waves").contains("0x0018"),
        "{}",
        server.log()
    );
    let refused = c.ask(b"c6");
    assert!(
        refused.starts_with("E.") && refused.contains("0x6 is not the start of an instruction"),
        "{refused}"
    );
    // An address that does not parse (not hex, or over 64 bits) is refused, not ignored.
    for bad in [&b"czz"[..], b"s1ffffffffffffffff0"] {
        assert_eq!(c.ask(bad), "E16", "{}", String::from_utf8_lossy(bad));
    }
    let stop = c.resume(b"s8");
    assert!(stop.starts_with("T05"), "{stop}");
    assert_eq!(c.monitor("print u2").trim(), "u2 = 2");
    // A thread's leftmost action applies: this continues (to the end, a SIGSTOP), where
    // a step would stop at once with SIGTRAP.
    let stop = c.resume(b"vCont;c:1;s:1");
    assert!(stop.starts_with("T11"), "{stop}");
}
