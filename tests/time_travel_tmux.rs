//! Interrupting time travel in a real terminal: a `reverse-continue` that has to search a
//! long history (a breakpoint on the loop head whose condition never holds, so the index
//! can rule out no interval) is stopped by Ctrl-C in the REPL and by Esc in the TUI, whose
//! progress line moves while it searches. tmux runs each front end; the test types with
//! `send-keys` and reads the screen with `capture-pane`.
//!
//! tmux is installed by .ci/run; outside CI (CI unset) a missing tmux skips the test with a
//! message.

use std::time::Duration;

mod tmux;
use tmux::Tmux;

/// An endless loop counting in u1, two instructions per count.
const SPIN: &str =
    ".kernel spin\n    umovi u1, 0\nspin:\n    uaddi u1, u1, 1\n    br spin\n    end\n";

/// The history the tests search: this many instructions of the loop.
const HISTORY: &str = "60000000";

/// The REPL prompt alone on the last line.
fn at_prompt(s: &str) -> bool {
    s.lines()
        .last()
        .is_some_and(|l| l.trim_end() == "(wavedbg)")
}

fn write_kernel(t: &Tmux) -> String {
    let kernel = t.dir.join("spin.s");
    std::fs::write(&kernel, SPIN).expect("write the kernel");
    kernel.display().to_string()
}

#[test]
fn ctrl_c_interrupts_reverse_continue_in_the_repl() {
    let Some(t) = tmux::start("tt-repl", "tt-test$ ", (160, 40), true) else {
        return;
    };
    let kernel = write_kernel(&t);
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} {} repl {kernel}",
        t.dir.join("history").display(),
        env!("CARGO_BIN_EXE_wavedbg"),
    ));
    t.keys(&["Enter"]);
    t.wait_for("the REPL prompt", at_prompt);
    t.type_text(&format!("goto {HISTORY}"));
    t.keys(&["Enter"]);
    t.wait_for("the history to be recorded", |s| {
        s.contains(&format!("reached instruction {HISTORY}")) && at_prompt(s)
    });
    t.type_text("break spin if u1 == 4294967295");
    t.keys(&["Enter"]);
    t.wait_for("the breakpoint", |s| {
        s.contains("Breakpoint 1 at") && at_prompt(s)
    });
    t.type_text("reverse-continue");
    t.keys(&["Enter"]);
    t.wait_for("the search to start", |s| {
        s.lines()
            .last()
            .is_some_and(|l| l.ends_with("reverse-continue"))
    });
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        t.screen()
            .lines()
            .last()
            .is_some_and(|l| l.ends_with("reverse-continue")),
        "the search ended by itself before the interrupt:\n{}",
        t.screen()
    );
    t.keys(&["C-c"]);
    let s = t.wait_for("the search to stop", |s| {
        s.contains("Interrupted") && at_prompt(s)
    });
    let stop = s
        .lines()
        .find(|l| l.starts_with("Interrupted"))
        .unwrap_or_default();
    assert!(stop.contains("[count "), "no count in the stop: {stop}");
    assert!(
        !s.contains("No more reverse-execution history"),
        "the search ran to the start:\n{s}"
    );
    // The session goes on where the search stopped, with the whole record kept.
    t.type_text("info history");
    t.keys(&["Enter"]);
    t.wait_for("`info history`", |s| {
        s.contains(&format!("Recorded history: instructions 0 to {HISTORY}")) && at_prompt(s)
    });
    t.keys(&["C-d"]);
    t.wait_for("the shell", |s| {
        s.lines().last().is_some_and(|l| l.starts_with("tt-test$"))
    });
}

/// The instruction count in the TUI's progress line (`running ...: N instructions`).
fn progress(s: &str) -> Option<String> {
    let line = s.lines().find(|l| l.contains(" RUNNING "))?;
    let after = line.split("`: ").nth(1)?;
    Some(after.split(" instructions").next()?.to_string())
}

#[test]
fn esc_interrupts_reverse_continue_in_the_tui_and_progress_moves() {
    let Some(t) = tmux::start("tt-tui", "tt-test$ ", (120, 40), false) else {
        return;
    };
    let kernel = write_kernel(&t);
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} {} tui {kernel}",
        t.dir.join("history").display(),
        env!("CARGO_BIN_EXE_wavedbg"),
    ));
    t.keys(&["Enter"]);
    t.wait_text(" READY ");
    t.keys(&[":"]);
    t.type_text(&format!("goto {HISTORY}"));
    t.keys(&["Enter"]);
    t.wait_for("the history to be recorded", |s| {
        s.contains(&format!("reached instruction {HISTORY}")) && !s.contains(" RUNNING ")
    });
    t.keys(&[":"]);
    t.type_text("break spin if u1 == 4294967295");
    t.keys(&["Enter"]);
    t.wait_text("Breakpoint 1 at");
    t.keys(&["R"]);
    let first = t.wait_for("the search's progress", |s| {
        s.contains("reverse-continue") && progress(s).is_some()
    });
    // The count the search has reached moves while it searches.
    let before = progress(&first);
    let moved = t.wait_for("the progress to move", |s| {
        progress(s).is_some_and(|p| Some(&p) != before.as_ref()) || !s.contains(" RUNNING ")
    });
    assert!(
        moved.contains(" RUNNING "),
        "the search ended before its progress moved:\n{moved}"
    );
    t.keys(&["Escape"]);
    let s = t.wait_for("the search to stop", |s| {
        s.contains("Interrupted") && !s.contains(" RUNNING ")
    });
    assert!(
        !s.contains("No more reverse-execution history"),
        "the search ran to the start:\n{s}"
    );
    t.keys(&["q"]);
    t.wait_for("the shell", |s| {
        s.lines().any(|l| l.starts_with("tt-test$"))
    });
}
