//! gdb's and lldb's habits against `wavedbg serve`: a step of a wave that cannot move
//! ends the client's step with a stop that says why (never a trap at the same PC, which
//! lldb's `thread step-inst` repeats for ever), and vector lanes are unsigned like every
//! other integer register.
//!
//! Outside CI (`CI` unset) a missing client skips the test with a message; in CI it fails.

use std::time::{Duration, Instant};

mod clients;
use clients::*;

/// Two waves; wave 0 reaches the barrier while wave 1 is frozen (lldb's step-inst runs
/// the current thread only; gdb with `set scheduler-locking on`).
const BARRIER: &str = "\
.kernel bar
.workgroup 64
.grid 1
    vlaneid v0
    barrier
    end
";

/// Wave 0's lanes store past the end of a 64-byte buffer (SIGSEGV) at `bad`.
const FAULT: &str = "\
.kernel fault
.workgroup 32
.grid 1
.buffer out, 64
.arg u[0:1], out
    vlaneid v0
    vshli v1, v0, 2
bad:
    st.ubase.b32 v0, u[0:1], v1, 0
    wait.vst 0
    end
";

#[test]
fn lldb_step_inst_on_a_wave_that_cannot_move_stops_and_says_why() {
    if !have("lldb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "bar.s", BARRIER);
    let server = Server::start(&k);
    let started = Instant::now();
    let out = lldb(
        &server,
        "thread step-inst -m this-thread\nthread step-inst -m this-thread\n\
         thread step-inst -m this-thread\nregister read pc\nprocess kill\n",
    );
    check(
        &out,
        &server,
        &[
            "the wave waits at a barrier for the other waves of its workgroup, which are frozen",
            "stop reason = signal SIGSTOP",
            "rip = 0x0000000000000008",
        ],
    );
    assert_eq!(
        out.matches("waits at a barrier").count(),
        1,
        "the step was repeated:\n{out}"
    );
    // lldb's way out, not gdb's.
    assert!(out.contains("lldb steps one thread alone"), "{out}");
    assert!(!out.contains("scheduler-locking"), "{out}");
    assert!(started.elapsed() < Duration::from_secs(30));

    let k = kernel(&dir, "fault.s", FAULT);
    let server = Server::start(&k);
    let out = lldb(
        &server,
        "continue\nthread step-inst -m this-thread\nprocess kill\n",
    );
    check(
        &out,
        &server,
        &[
            "stop reason = signal SIGSEGV",
            "the wave has faulted",
            "stop reason = signal SIGSTOP",
        ],
    );
    assert_eq!(
        out.matches("the wave has faulted").count(),
        1,
        "the step was repeated:\n{out}"
    );
}

/// lldb keeps a step that stopped without completing and sends it again at each `process
/// continue`: that second send lets the other waves run to the barrier and finishes the
/// step, so continuing goes on to the end instead of stopping at the barrier for ever. The
/// same for a step of a wave that has exited: the continue runs every wave.
#[test]
fn lldb_continues_after_a_step_that_could_not_move_the_wave() {
    if !have("lldb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "bar.s", BARRIER);
    let server = Server::start(&k);
    let out = lldb(
        &server,
        "thread step-inst\nthread step-inst\nthread step-inst\nprocess continue\n\
         process continue\nprocess continue\n",
    );
    check(
        &out,
        &server,
        &[
            "stop reason = signal SIGSTOP",
            "[wave 0 (workgroup 0) exited]",
            "All waves exited",
            "exited with status = 0",
        ],
    );
    assert_eq!(
        out.matches("waits at a barrier").count(),
        1,
        "the continue stepped in place again:\n{out}"
    );

    // The fourth step finishes at the barrier's release with wave 0's `end`; the fifth
    // cannot move the exited wave.
    let server = Server::start(&k);
    let out = lldb(
        &server,
        "thread step-inst\nthread step-inst\nthread step-inst\nthread step-inst\n\
         thread step-inst\nprocess continue\nprocess continue\n",
    );
    check(
        &out,
        &server,
        &["the wave has exited", "exited with status = 0"],
    );
    assert_eq!(
        out.matches("the wave has exited").count(),
        1,
        "the continue stepped the exited wave again:\n{out}"
    );
}

#[test]
fn gdb_stepi_at_a_barrier_of_frozen_waves_stops_and_says_why() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "bar.s", BARRIER);
    let mut server = Server::start(&k);
    let script = "set scheduler-locking on\nstepi 15\nprint $pc\nkill\n";
    let out = gdb("gdb", &server, script, false, None);
    check(
        &out,
        &server,
        &[
            "received signal SIGSTOP",
            "which are frozen",
            "$1 = (void (*)()) 0x8",
        ],
    );
    assert_eq!(
        out.matches("which are frozen").count(),
        1,
        "stepi went on stepping in place:\n{out}"
    );
    assert!(server.wait_exit(Duration::from_secs(10)).is_some());
}

/// A lane value with the top bit set compares equal to the same number however it is read:
/// `$v1[7]`, `$lv1` with lane 7 selected, and `$u2`.
const UNSIGNED: &str = "\
.kernel big
.workgroup 32
.grid 1
    vlaneid v0
    vmovi v1, 3289317104
    umovi u2, 3289317104
here:
    end
";

#[test]
fn vector_lanes_are_unsigned_in_gdb() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "big.s", UNSIGNED);
    let mut server = Server::start(&k);
    let script = "stepi 3\nptype $v1\np $v1[7] == 3289317104\np $u2 == 3289317104\n\
                  set $lane = 7\np $lv1 == 3289317104\np/d $v1[7]\np/x $v1[7]\nkill\n";
    let out = gdb("gdb", &server, script, false, None);
    check(
        &out,
        &server,
        &[
            "type = uint32_t __attribute__ ((vector_size(32)))",
            "$1 = 1\n",
            "$2 = 1\n",
            "$3 = 1\n",
            "$4 = -1005650192\n",
            "$5 = 0xc40efef0\n",
        ],
    );
    assert!(server.wait_exit(Duration::from_secs(10)).is_some());
}

/// wavedbg.gdb's `info registers` says gdb's own error for a register the target does not
/// have (`Invalid register`), without a Python exception around it.
#[test]
fn gdb_info_registers_of_an_unknown_register_says_so_plainly() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "big.s", UNSIGNED);
    let server = Server::start(&k);
    let helpers = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/wavedbg.gdb");
    let script = format!(
        "source {}\nstepi 3\ninfo registers u2\ninfo registers xmm0\n",
        helpers.display()
    );
    let out = gdb("gdb", &server, &script, false, None);
    check(
        &out,
        &server,
        &["u2             0xc40efef0", "Invalid register `xmm0'"],
    );
    assert!(!out.contains("Python"), "{out}");
}

/// Server and engine commands that take no argument refuse one, naming it; `monitor
/// wave` alone shows the current wave (as gdb's `thread`); `monitor quit` says how the
/// client ends the session, and the session goes on.
#[test]
fn gdb_monitor_refuses_extra_arguments_and_shows_the_current_wave() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "bar.s", BARRIER);
    let mut server = Server::start(&k);
    let script = "monitor threads 5\nmonitor why foo\nmonitor launch x\nmonitor windows y\n\
                  monitor decode 0 1 2\nmonitor info waves extra\nmonitor info breakpoints 3\n\
                  monitor continue 2\nmonitor help why\n\
                  thread 2\nmonitor wave\nmonitor quit\nmonitor exit\nprint $pc\nkill\n";
    let out = gdb("gdb", &server, script, false, None);
    check(
        &out,
        &server,
        &[
            "`threads` takes no argument (unexpected `5`)",
            "`why` takes no argument (unexpected `foo`)",
            "`launch` takes no argument (unexpected `x`)",
            "`windows` takes no argument (unexpected `y`)",
            "`decode` takes at most ADDR and N (unexpected `2`)",
            "`info waves` takes no argument (unexpected `extra`)",
            "`info breakpoints` takes no argument (unexpected `3`)",
            "`continue` takes no argument (unexpected `2`)",
            "why",
            "[Current wave is 1 (workgroup 0, wave_in_wg 1), ready]",
            "the client ends the session, not `monitor`: gdb's `detach`",
            "$1 = (void (*)()) 0x0",
        ],
    );
    assert_eq!(
        out.matches("the client ends the session").count(),
        2,
        "{out}"
    );
    assert!(!out.contains("needs a wave id"), "{out}");
    assert!(!out.contains("usage: help lists every command"), "{out}");
    assert!(server.wait_exit(Duration::from_secs(10)).is_some());
}

/// A faulting instruction changes nothing but the wave's state, and the history counts it
/// as the wave's instruction: gdb's `reverse-stepi` right after the fault goes back to
/// right before it (the same PC, the wave ready to execute it again), the next one to
/// the instruction before, exactly as the engine's (the REPL's) `reverse-stepi` does.
#[test]
fn gdb_reverse_stepi_after_a_fault_matches_the_engine() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "fault.s", FAULT);
    let mut server = Server::start(&k);
    let script = "continue\nreverse-stepi\nprint $pc\nmonitor info waves\nmonitor why\n\
                  reverse-stepi\nprint $pc\nmonitor info waves\nkill\n";
    let out = gdb("gdb", &server, script, false, None);
    check(
        &out,
        &server,
        &[
            "received signal SIGSEGV",
            "The fault at 0x000c <bad> is undone: the faulting instruction changed nothing",
            "$1 = (void (*)()) 0xc",
            "ready        0x000c <bad>",
            "wave 0 (workgroup 0) [count 2]",
            "$2 = (void (*)()) 0x4",
            "ready        0x0004",
        ],
    );
    assert_eq!(
        out.matches("is undone").count(),
        1,
        "only the step that undid it:\n{out}"
    );
    assert!(server.wait_exit(Duration::from_secs(10)).is_some());
    // The engine, through a replayed script (what the REPL runs), says the same.
    let cmds = kernel(
        &dir,
        "r.cmd",
        "continue\nreverse-stepi\ninfo waves\nreverse-stepi\ninfo waves\n",
    );
    let text = replay(&k, &cmds);
    for want in [
        "wave 0 (workgroup 0) [count 2]",
        "The fault at 0x000c <bad> is undone",
        "ready        0x000c <bad>",
        "ready        0x0004",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
}

/// At the end of the kernel: a client that detaches at the final stop and one that
/// attaches then find that stop (`?` names it: every wave exited, its memory readable),
/// and its next resumption is the process's exit (W00), never a stale live thread; after
/// the exit the next client finds the launch started again, at its first instruction.
#[test]
fn gdb_after_the_end_of_the_kernel_and_a_reattach_sees_the_exit() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "bar.s", BARRIER);
    let server = Server::start(&k);
    let out = gdb("gdb", &server, "continue\ndetach\n", false, None);
    check(&out, &server, &["All waves exited", "detached"]);
    let script = "set debug remote 1\ninfo threads\nmonitor why\ncontinue\n";
    let dir2 = tempfile::tempdir().expect("tempdir");
    let file = dir2.path().join("script.gdb");
    std::fs::write(&file, script).expect("write script");
    let mut cmd = std::process::Command::new("gdb");
    cmd.args(["-nx", "-batch", "-ex", "set debug remote 1", "-ex"])
        .arg(format!("target remote {}", server.addr))
        .arg("-x")
        .arg(&file);
    let out = run_client(cmd, Duration::from_secs(60), None);
    check(
        &out,
        &server,
        &[
            // `?` answers the final stop (SIGSTOP in the stop's wave), not a live thread.
            "Packet received: T11thread:p01.01;",
            "wave_in_wg 0, exited",
            "All waves exited",
            "Packet received: W00",
            "[Inferior 1 (process 1) exited normally]",
        ],
    );
    assert!(
        !out.contains("ready, exec"),
        "a live thread after the end:\n{out}"
    );
    // The launch ended: the next client starts it again.
    let out = gdb("gdb", &server, "info threads\nkill\n", false, None);
    check(&out, &server, &["wave_in_wg 0, ready", "killed"]);
}

/// gdb's `stepi` of a wave at a barrier whose other waves have not arrived: with gdb's
/// default scheduler-locking (`replay`: the other threads run while one steps) the step
/// completes, running the others to the barrier; with `step` (scripts/wavedbg.gdb's) or
/// `on` it stops at once with SIGSTOP and the reason. Never a hang.
#[test]
fn gdb_stepi_over_a_barrier_completes_or_says_why() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "bar.s", BARRIER);
    let started = Instant::now();
    let mut server = Server::start(&k);
    let script = "stepi 2\nprint $pc\nstepi\nprint $pc\ninfo threads\nkill\n";
    let out = gdb("gdb", &server, script, false, None);
    check(
        &out,
        &server,
        &[
            "$1 = (void (*)()) 0x8",
            "[wave 0 (workgroup 0) exited]",
            "$2 = (void (*)()) 0xc",
            "wave_in_wg 1, ready, exec 0xffffffff)  0x0000000000000008",
        ],
    );
    assert!(server.wait_exit(Duration::from_secs(10)).is_some());
    let mut server = Server::start(&k);
    let script = "set scheduler-locking step\nstepi 2\nstepi\nprint $pc\nkill\n";
    let out = gdb("gdb", &server, script, false, None);
    check(
        &out,
        &server,
        &[
            "received signal SIGSTOP",
            "which are frozen",
            "$1 = (void (*)()) 0x8",
        ],
    );
    assert!(server.wait_exit(Duration::from_secs(10)).is_some());
    assert!(started.elapsed() < Duration::from_secs(60));
}

/// Wave 1 exits past the barrier wave 0 waits at: a deadlock.
const DEADLOCK: &str = "\
.kernel dead
.workgroup 64
.grid 1
    uwaveid u1
    br.unz u1, skip
    barrier
skip:
    end
";

/// After a deadlock (SIGABRT) gdb can go back, as after a fault or the end: only a
/// forward resumption ends the launch.
#[test]
fn gdb_goes_back_from_a_deadlock() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "dead.s", DEADLOCK);
    let server = Server::start(&k);
    let out = gdb(
        "gdb",
        &server,
        "continue\nreverse-stepi\nprint $pc\ncontinue\nreverse-continue\ncontinue\ncontinue\n",
        false,
        None,
    );
    check(
        &out,
        &server,
        &[
            "received signal SIGABRT",
            "$1 = (void (*)()) 0x8",
            "No more reverse-execution history.",
            "Program terminated with signal SIGABRT",
        ],
    );
    assert_eq!(out.matches("received signal SIGABRT,").count(), 3, "{out}");
}

/// A launch whose instruction budget runs out (SIGXCPU) stops once; the next resumption
/// ends it, in gdb as in the engine (each continue used to fault one more wave).
#[test]
fn the_instruction_budget_stops_once_then_ends_the_launch() {
    if !have("gdb") {
        return;
    }
    const LOOP: &str = "\
.kernel spin
.workgroup 64
.grid 2
    umovi u2, 100000
loop:
    uaddi u2, u2, -1
    br.unz u2, loop
    end
";
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "spin.s", LOOP);
    let server = Server::start_with(&k, &["--max-instructions", "100"]);
    let out = gdb(
        "gdb",
        &server,
        "continue\ncontinue\ncontinue\n",
        false,
        None,
    );
    check(
        &out,
        &server,
        &[
            "received signal SIGXCPU",
            "Program terminated with signal SIGXCPU",
            "The program is not being run.",
        ],
    );
    assert_eq!(out.matches("received signal SIGXCPU,").count(), 1, "{out}");
    let cmds = kernel(
        &dir,
        "r.cmd",
        "#! max-instructions 100\ncontinue\ncontinue\nstepi\ninfo waves\n",
    );
    let text = replay(&k, &cmds);
    assert_eq!(
        text.matches("instruction budget of 100 exhausted").count(),
        1,
        "{text}"
    );
    assert_eq!(
        text.matches("The launch is over: the instruction budget of 100 is spent, so no wave can go on (faulted wave 0)")
            .count(),
        2,
        "{text}"
    );
    assert_eq!(text.matches(" faulted ").count(), 1, "{text}");
}

/// lldb names each thread in a `process continue` after a fault (`vCont;C0b:0001`):
/// naming every thread is a continue of all, so a one-wave kernel ends at once as with
/// two waves and in gdb.
#[test]
fn lldb_continue_after_a_fault_in_one_wave_ends_the_launch() {
    if !have("lldb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "fault.s", FAULT);
    let server = Server::start(&k);
    let out = lldb(&server, "process continue\nprocess continue\n");
    check(
        &out,
        &server,
        &["stop reason = signal SIGSEGV", "exited with status = 11"],
    );
    assert!(!out.contains("Cannot run wave 0"), "{out}");
}

/// The transcript (stdout) of `wavedbg replay --kernel KERNEL SCRIPT`: what the REPL says
/// to the same commands.
fn replay(kernel: &std::path::Path, script: &std::path::Path) -> String {
    let out = std::process::Command::new(bin())
        .args(["replay", "--kernel"])
        .arg(kernel)
        .arg(script)
        .output()
        .expect("replay");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A fault that leaves the other wave of its workgroup at a barrier: gdb sees the fault,
/// then the deadlock it leaves (SIGABRT), then the launch ends, as after any deadlock
/// (the deadlock used to be taken for one already reported: a SIGSTOP at every continue,
/// never the end).
#[test]
fn gdb_sees_the_deadlock_a_fault_leaves_then_the_end() {
    if !have("gdb") {
        return;
    }
    const FAULT_THEN_DEADLOCK: &str = "\
.kernel k
.workgroup 64
.shared 64
    uwaveid u5
    br.unz u5, bad
    barrier
    end
bad:
    vlaneid v0
    vshli v2, v0, 4
    st.shared.b32 v0, v2, 0
    end
";
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "fd.s", FAULT_THEN_DEADLOCK);
    let server = Server::start(&k);
    let out = gdb(
        "gdb",
        &server,
        "continue\ncontinue\ncontinue\n",
        false,
        None,
    );
    check(
        &out,
        &server,
        &[
            "received signal SIGSEGV",
            "received signal SIGABRT",
            "Program terminated with signal SIGABRT",
        ],
    );
}

/// `monitor lane N` would move the server's lane while gdb's cached `$lane` and `$lvN`
/// stay: it is refused, saying how to select a lane in gdb, and both views keep the lane
/// gdb selected (`lane 5` from scripts/wavedbg.gdb). A plain `monitor` command after
/// `thread apply 7 ...` acts on gdb's current thread, not thread 7 (scripts/wavedbg.gdb's
/// hook-monitor tells the server which thread is current; gdb does not).
#[test]
fn gdb_monitor_keeps_the_lane_and_follows_the_current_thread() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, _) = histogram_in(&dir);
    let next_word = label_addr(&k, "next_word");
    let server = Server::start(&k);
    let helpers = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/wavedbg.gdb");
    let script = format!(
        "source {}
break *{next_word:#x}
continue
delete
lane 5
monitor lane 7
printf \"gdb lane %d lv3 %d\\n\", $lane, $lv3
monitor print v3[5]
thread 1
thread apply 7 p $pc
monitor wave
thread apply 7 monitor wave
vlanes v3
kill
",
        helpers.display()
    );
    let out = gdb("gdb", &server, &script, false, None);
    check(
        &out,
        &server,
        &[
            "the client selects the lane (it caches `$lane` and the `lvN` registers): gdb: `lane N` (scripts/wavedbg.gdb) or `set var $lane = N`",
            // Lane 5 of wave 0 holds 4 * 5 in v3, in gdb and in the server.
            "gdb lane 5 lv3 20\n",
            "v3[5] = 20\n",
            "[Current wave is 0 (workgroup 0, wave_in_wg 0), ready]",
            "[Current wave is 6 (workgroup 0, wave_in_wg 6), ready]",
            "v3 (wave 0, EXEC 0xffffffff):",
        ],
    );
    let waves: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("[Current wave is "))
        .collect();
    assert_eq!(waves.len(), 2, "{out}");
    assert!(waves[0].contains("wave is 0 "), "after thread apply: {out}");
    assert!(waves[1].contains("wave is 6 "), "in thread apply: {out}");
    assert!(!out.contains("Switching to lane 7"), "{out}");
}

/// Lanes 16-31 store past the end of a 64-byte shared window.
const SHARED_FAULT: &str = "\
.kernel shf
.workgroup 32
.grid 2
.shared 64
    vlaneid v0
    vshli v1, v0, 2
bad:
    st.shared.b32 v0, v1, 0
    wait.ls 0
    end
";

/// gdb has no `$_siginfo` from this server (gdbstub offers no `qXfer:siginfo:read`), so a
/// fault's stop names the faulting address as gdb reads memory (shared offset 0x40 of
/// workgroup 0 is 0x8000000000000040), and `monitor why` says it again; a global fault's
/// address is its own.
#[test]
fn gdb_fault_stops_name_the_address_as_gdb_reads_it() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, text, line) in [
        ("shf.s", SHARED_FAULT, "Fault address: 0x8000000000000040 (shared:0x40 of workgroup 0; `monitor why` shows it again)\n"),
        ("fault.s", FAULT, "Fault address: 0x100000040 (global:0x100000040; `monitor why` shows it again)\n"),
    ] {
        let k = kernel(&dir, name, text);
        let server = Server::start(&k);
        let out = gdb("gdb", &server, "continue\nmonitor why\nkill\n", false, None);
        check(&out, &server, &["received signal SIGSEGV", line]);
        assert_eq!(out.matches(line).count(), 2, "the stop and `monitor why`:\n{out}");
    }
}
