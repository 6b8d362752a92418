//! gdb's Ctrl-C reaches every long operation of `wavedbg serve`: a `reverse-continue`
//! searching a long history, the steps of `stepi N` (gdb sends the interrupt between two
//! steps, while the kernel is stopped), and a `monitor goto` running forward. Real gdb in
//! batch mode gets SIGINT a second after a marker appears in its output (the way a user's
//! Ctrl-C reaches it); each test asserts gdb reports the interrupt and the session goes on.
//!
//! Each runs with gdb and gdb-multiarch, and lldb takes Ctrl-C typed in a real terminal.
//! Outside CI (`CI` unset) a missing client skips the test with a message; in CI it fails.

use std::time::Duration;

mod clients;
use clients::*;
mod tmux;

/// An endless loop of two waves counting in u1 (two instructions per count).
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

/// Builds a history: `continue` for a second, interrupted (the spin loop records about
/// a hundred million instructions), then keeps the loop counter it stopped at in `$start`.
const RECORD: &str = "\
echo running\\n
continue
set $start = $u1
";

/// `reverse-continue` over the recorded history, to a breakpoint whose condition never
/// holds, on every iteration of the loop (the index cannot skip any of it: the search
/// takes seconds), is interrupted: gdb reports SIGINT and the session answers after.
#[test]
fn ctrl_c_interrupts_a_reverse_continue() {
    for client in ["gdb", "gdb-multiarch"] {
        ctrl_c_interrupts_a_reverse_continue_in(client);
    }
}

fn ctrl_c_interrupts_a_reverse_continue_in(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "spin.s", SPIN);
    let mut server = Server::start(&k);
    let script = format!(
        "{RECORD}\
monitor break spin if u1 == 4294967295
echo searching-back\\n
reverse-continue
monitor info history
printf \"went back at most to where it was: %d\\n\", $u1 <= $start
kill
"
    );
    let out = gdb_interrupted(client, &server, &script, &["running", "searching-back"]);
    check(
        &out,
        &server,
        &[
            "received signal SIGINT, Interrupt.",
            "searching-back",
            "Recorded history: instructions 0 to ",
            "went back at most to where it was: 1\n",
            "[Inferior 1 (process 1) killed]",
        ],
    );
    let after = out.split("searching-back").nth(1).unwrap_or_default();
    assert!(
        after.contains("received signal SIGINT, Interrupt."),
        "the search was not interrupted:\n{out}"
    );
    assert!(
        !out.contains("No more reverse-execution history"),
        "the search ran to the start instead of stopping:\n{out}"
    );
    assert!(server.wait_exit(Duration::from_secs(10)).is_some());
}

/// `stepi 100000`: gdb sends its Ctrl-C between two steps; the next step stops at once
/// with SIGINT, and gdb ends the command there.
#[test]
fn ctrl_c_stops_gdbs_stepi_n_between_steps() {
    for client in ["gdb", "gdb-multiarch"] {
        ctrl_c_stops_gdbs_stepi_n_between_steps_in(client);
    }
}

fn ctrl_c_stops_gdbs_stepi_n_between_steps_in(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "spin.s", SPIN);
    let mut server = Server::start(&k);
    let script = "\
echo stepping\\n
stepi 100000
printf \"stopped early: %d\\n\", $u1 < 45000
kill
";
    let out = gdb_interrupted(client, &server, script, &["stepping"]);
    check(
        &out,
        &server,
        &[
            "received signal SIGINT, Interrupt.",
            "stopped early: 1\n",
            "[Inferior 1 (process 1) killed]",
        ],
    );
    assert!(server.wait_exit(Duration::from_secs(10)).is_some());
}

/// `reverse-stepi 100000` is as many reverse steps; Ctrl-C ends it the same way, before
/// the 100,000 steps (50,000 counts) are done. How many it took before the interrupt
/// depends on the machine's load (the first reverse step after a long recording may take
/// most of the second), so none is allowed.
#[test]
fn ctrl_c_stops_gdbs_reverse_stepi_n() {
    for client in ["gdb", "gdb-multiarch"] {
        ctrl_c_stops_gdbs_reverse_stepi_n_in(client);
    }
}

fn ctrl_c_stops_gdbs_reverse_stepi_n_in(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "spin.s", SPIN);
    let mut server = Server::start(&k);
    let script = format!(
        "{RECORD}\
echo stepping-back\\n
reverse-stepi 100000
printf \"went back a little: %d\\n\", $u1 <= $start && $u1 > $start - 50000
kill
"
    );
    let out = gdb_interrupted(client, &server, &script, &["running", "stepping-back"]);
    check(
        &out,
        &server,
        &[
            "received signal SIGINT, Interrupt.",
            "went back a little: 1\n",
            "[Inferior 1 (process 1) killed]",
        ],
    );
    assert!(server.wait_exit(Duration::from_secs(10)).is_some());
}

/// The same as a user types it: gdb in a real terminal (tmux), Ctrl-C typed during
/// `stepi 100000`, a `continue`, and a `reverse-continue` over what that recorded; each
/// stops with SIGINT and gdb's prompt comes back. gdb's `stepi N` is N steps, one
/// `vCont;s` each: a Ctrl-C that lands between two of them is gdb's own (`Quit`, nothing
/// sent to the server), as with a native program, and is as good a stop.
#[test]
fn ctrl_c_typed_in_gdb_in_a_real_terminal() {
    if !have("gdb") {
        return;
    }
    let Some(t) = tmux::start("gdb-ctrl-c", "gdb-test$ ", (160, 50), true) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "spin.s", SPIN);
    let mut server = Server::start(&k);
    let prompt = |s: &str| s.lines().last().is_some_and(|l| l.trim_end() == "(gdb)");
    let sigints = |s: &str| s.matches("received signal SIGINT").count();
    let quits = |s: &str| {
        s.lines()
            .filter(|l| l.trim_end().ends_with("^CQuit"))
            .count()
    };
    t.type_text(&format!("gdb -nx -q -ex 'target remote {}'", server.addr));
    t.keys(&["Enter"]);
    t.wait_for("gdb's prompt", |s| s.contains("in ?? ()") && prompt(s));
    for command in ["stepi 100000", "continue", "reverse-continue"] {
        if command == "reverse-continue" {
            t.type_text("monitor break spin if u1 == 4294967295");
            t.keys(&["Enter"]);
            t.wait_for("the breakpoint", |s| {
                s.contains("Breakpoint 1 at") && prompt(s)
            });
        }
        let before = t.screen();
        let (sig0, quit0) = (sigints(&before), quits(&before));
        t.type_text(command);
        t.keys(&["Enter"]);
        std::thread::sleep(Duration::from_millis(700));
        let s = t.screen();
        assert!(!prompt(&s), "`{command}` ended before Ctrl-C:\n{s}");
        t.keys(&["C-c"]);
        let stepping = command.starts_with("stepi");
        t.wait_for(&format!("`{command}` to stop on Ctrl-C"), |s| {
            prompt(s) && (sigints(s) > sig0 || stepping && quits(s) > quit0)
        });
    }
    t.type_text("kill");
    t.keys(&["Enter"]);
    t.wait_text("(y or n)");
    t.type_text("y");
    t.keys(&["Enter"]);
    t.wait_text("[Inferior 1 (process 1) killed]");
    assert!(server.wait_exit(Duration::from_secs(10)).is_some());
}

/// lldb in a real terminal (tmux): Ctrl-C typed during `continue` stops it with SIGINT,
/// and Ctrl-C typed during `thread step-inst -c 1000000` (lldb's steps, one `vCont;s`
/// each, would take minutes) ends the step at once, wherever lldb's own interrupt
/// handling catches it (between two steps lldb stops stepping without asking the server);
/// lldb's prompt comes back each time and the session goes on.
#[test]
fn ctrl_c_typed_in_lldb_in_a_real_terminal() {
    if !have("lldb") {
        return;
    }
    let Some(t) = tmux::start("lldb-ctrl-c", "lldb-test$ ", (160, 50), true) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "spin.s", SPIN);
    let mut server = Server::start(&k);
    let prompt = |s: &str| s.lines().last().is_some_and(|l| l.trim_end() == "(lldb)");
    let stops = |s: &str| s.matches("Process 1 stopped").count();
    // Debian's lldb-14 needs its Python module on the path to start cleanly.
    t.type_text(&format!(
        "PYTHONPATH=/usr/lib/llvm-14/lib/python3.11/dist-packages lldb -o 'gdb-remote {}'",
        server.addr
    ));
    t.keys(&["Enter"]);
    t.wait_for("lldb's prompt", |s| stops(s) == 1 && prompt(s));
    t.type_text("continue");
    t.keys(&["Enter"]);
    t.wait_text("Process 1 resuming");
    std::thread::sleep(Duration::from_millis(700));
    // lldb shows its prompt while the process runs: a run is told by its stops.
    let s = t.screen();
    assert_eq!(stops(&s), 1, "`continue` ended before Ctrl-C:\n{s}");
    t.keys(&["C-c"]);
    let s = t.wait_for("`continue` to stop on Ctrl-C", |s| {
        stops(s) == 2 && prompt(s)
    });
    assert!(s.contains("stop reason = signal SIGINT"), "{s}");
    t.type_text("register read u1");
    t.keys(&["Enter"]);
    let s = t.wait_for("u1", |s| s.contains("u1 = 0x") && prompt(s));
    let counter = |s: &str| {
        s.lines()
            .rev()
            .find_map(|l| l.trim().strip_prefix("u1 = 0x"))
            .and_then(|h| u32::from_str_radix(h.trim(), 16).ok())
            .expect("u1's value")
    };
    let before = counter(&s);
    t.type_text("thread step-inst -c 1000000");
    t.keys(&["Enter"]);
    std::thread::sleep(Duration::from_millis(700));
    let s = t.screen();
    assert_eq!(
        stops(&s),
        2,
        "`thread step-inst -c 1000000` ended before Ctrl-C:\n{s}"
    );
    t.keys(&["C-c"]);
    t.wait_for("the step to stop on Ctrl-C", |s| stops(s) == 3 && prompt(s));
    t.type_text("register read u1");
    t.keys(&["Enter"]);
    let s = t.wait_for("u1 again", |s| {
        s.matches("u1 = 0x").count() == 2 && prompt(s)
    });
    let after = counter(&s);
    // The steps ran (two instructions per count) and stopped long before a million.
    assert!(
        after > before && after - before < 250_000,
        "u1 went from {before} to {after}"
    );
    t.type_text("process kill");
    t.keys(&["Enter"]);
    t.wait_for("the kill", |s| s.contains("Process 1 exited") && prompt(s));
    t.type_text("quit");
    t.keys(&["Enter"]);
    assert!(server.wait_exit(Duration::from_secs(10)).is_some());
}
