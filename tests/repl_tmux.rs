//! End-to-end test of `wavedbg repl` in a real terminal: tmux runs the REPL in a detached
//! session on a kernel that loops forever; the test types with `send-keys` and reads the
//! screen with `capture-pane`, polling with timeouts. Piped stdin cannot catch these bugs:
//! only on a terminal does rustyline switch raw mode and signal handlers around each line.
//!
//! It checks that Ctrl-C typed during `continue` and an outside `kill -INT` both interrupt
//! the run (the stop is printed, the prompt comes back, the session still answers), that
//! Ctrl-C and `kill -INT` at the prompt only cancel the line, that a line arriving with its
//! newline in one write is run at once, and that Ctrl-D ends the REPL with a working shell
//! after. Others check that typed-ahead and pasted lines each run, and that a byte that is
//! not UTF-8 costs one line, not the session. Another checks that `run` asks before throwing the recorded history away, as gdb
//! asks, and that `n`, Ctrl-C, Ctrl-D, `y` and `set confirm off` do what gdb's do.
//!
//! tmux is installed by .ci/run; outside CI (CI unset) a missing tmux skips the test with a
//! message.

use std::time::Duration;

mod tmux;
use tmux::{alive, kill, read_pid, wait_stopped, Tmux};

const PROMPT: &str = "(wavedbg)";

/// The last line of the screen is an empty REPL prompt (capture-pane trims its space).
fn at_prompt(s: &str) -> bool {
    s.lines().last().is_some_and(|l| l.trim_end() == PROMPT)
}

fn count(s: &str, needle: &str) -> usize {
    s.matches(needle).count()
}

/// Types `continue`, lets the endless loop run, interrupts it with `interrupt` and checks
/// the stop is reported, the prompt is back and the session still answers `p pc`.
fn interrupt_a_run(t: &Tmux, interrupt: impl Fn(), how: &str) {
    let before = count(&t.screen(), "Interrupted");
    t.type_text("continue");
    t.keys(&["Enter"]);
    t.wait_for("`continue` to start", |s| {
        s.lines().last().is_some_and(|l| l.ends_with("continue"))
    });
    std::thread::sleep(Duration::from_millis(300));
    let s = t.screen();
    assert!(
        s.lines().last().is_some_and(|l| l.ends_with("continue")),
        "the endless loop ended by itself:\n{s}"
    );
    interrupt();
    t.wait_for(&format!("the run to stop on {how}"), |s| {
        count(s, "Interrupted") > before && at_prompt(s)
    });
    let answers = count(&t.screen(), "pc = 0x");
    t.type_text("p pc");
    t.keys(&["Enter"]);
    t.wait_for(&format!("`p pc` to answer after {how}"), |s| {
        count(s, "pc = 0x") > answers && at_prompt(s)
    });
}

#[test]
fn ctrl_c_and_sigint_interrupt_a_run_in_a_real_terminal() {
    let Some(t) = tmux::start("repl", "repl-test$ ", (200, 40), true) else {
        return;
    };
    let dir = t.dir.clone();
    let kernel = dir.join("spin.s");
    std::fs::write(&kernel, ".kernel spin\nspin:\n    br spin    ; forever\n")
        .expect("write the kernel");
    // The launcher writes its pid and `exec`s the REPL: that pid is the REPL's, and the
    // interactive shell stays the parent, to be checked after.
    let pid = start_repl_with_pid(&t, &kernel);

    // Ctrl-C typed in the terminal during a run.
    interrupt_a_run(&t, || t.keys(&["C-c"]), "Ctrl-C");

    // Ctrl-C at the prompt cancels the line and keeps the REPL (twice, to be sure).
    for _ in 0..2 {
        let notes = count(&t.screen(), "Quit with Ctrl-D");
        t.type_text("info wav");
        t.keys(&["C-c"]);
        t.wait_for("Ctrl-C at the prompt", |s| {
            count(s, "Quit with Ctrl-D") > notes && at_prompt(s)
        });
    }
    assert!(alive(&pid), "Ctrl-C at the prompt ended the REPL");

    // SIGINT from outside during a run.
    interrupt_a_run(&t, || kill("INT", &pid), "kill -INT");

    // SIGINT from outside at the prompt does what Ctrl-C does there: the line is cancelled,
    // the REPL stays, and a later command is not cut short by a stale request.
    let notes = count(&t.screen(), "Quit with Ctrl-D");
    t.type_text("info wav");
    // rustyline notices a signal only when it interrupts its read: let it finish drawing
    // the line and wait for input first.
    t.wait_for("the typed line", |s| {
        s.lines().last().is_some_and(|l| l.ends_with("info wav"))
    });
    std::thread::sleep(Duration::from_millis(100));
    kill("INT", &pid);
    t.wait_for("kill -INT at the prompt", |s| {
        count(s, "Quit with Ctrl-D") > notes && at_prompt(s)
    });
    assert!(alive(&pid), "kill -INT at the prompt ended the REPL");
    t.type_text("stepi 3");
    t.keys(&["Enter"]);
    let s = t.wait_for("`stepi 3` to finish", |s| {
        at_prompt(s)
            && s.lines()
                .rev()
                .nth(1)
                .is_some_and(|l| !l.ends_with("stepi 3"))
    });
    let tail: Vec<&str> = s.lines().rev().take(4).collect();
    assert!(
        !tail.iter().any(|l| l.contains("Interrupted")),
        "a SIGINT at the prompt interrupted the next command:\n{s}"
    );

    // The session is intact: the waves are listed. The line and its Enter go in one write,
    // as a paste does: the editor must not wait for another key to see the newline.
    t.keys(&["info waves", "Enter"]);
    t.wait_for("`info waves`", |s| {
        s.lines()
            .any(|l| l.contains("0x0000 <spin>") && l.contains("32/32"))
            && at_prompt(s)
    });

    // Ctrl-D quits; the shell is back and usable.
    t.keys(&["C-d"]);
    t.wait_for("the shell prompt", |s| {
        s.lines()
            .last()
            .is_some_and(|l| l.starts_with("repl-test$"))
    });
    t.type_text("echo status=$? done-$$");
    t.keys(&["Enter"]);
    t.wait_for("the echo", |s| {
        s.lines().any(|l| {
            l.starts_with("status=0 done-")
                && l.len() > 14
                && l[14..].chars().all(|c| c.is_ascii_digit())
        })
    });
    assert!(!alive(&pid), "the REPL is still running after Ctrl-D");
}

/// Tab completes by context in a real terminal: the first Tab the common prefix, the
/// second lists the candidates (only `info` topics after `info`, buffers and spaces after
/// `x`, detector groups after `set check`, buffers after an operator in `print`).
#[test]
fn tab_completes_by_context_and_a_second_tab_lists() {
    let Some(t) = tmux::start("repl-tab", "tab-test$ ", (160, 40), true) else {
        return;
    };
    let kernel = t.dir.join("k.s");
    std::fs::write(
        &kernel,
        ".kernel k\n.buffer out, 64\n.buffer other, 64\n.arg u[0:1], out\nloop:\n    vlaneid v0\n    end\n",
    )
    .expect("write the kernel");
    start_repl(&t, &kernel);
    // `info b`: two topics; Tab Tab lists them (and no register or label).
    t.type_text("info b");
    t.keys(&["Tab"]);
    t.keys(&["Tab"]);
    let s = t.wait_for("the listed topics", |s| {
        s.lines()
            .any(|l| l.contains("breakpoints") && l.contains("buffers"))
    });
    assert!(!s.contains("barrier"), "{s}");
    // One more letter and Tab completes it; Enter runs it.
    t.type_text("u");
    t.keys(&["Tab"]);
    t.wait_for("`info buffers` completed", |s| {
        s.lines()
            .last()
            .is_some_and(|l| l.ends_with("info buffers"))
    });
    t.keys(&["Enter"]);
    t.wait_for("the buffer table", |s| {
        s.contains("Name   Address      Bytes  Argument") && at_prompt(s)
    });
    // After `x/4xw `: the spaces and buffer names.
    t.type_text("x/4xw o");
    t.keys(&["Tab"]);
    t.keys(&["Tab"]);
    t.wait_for("the buffers listed", |s| {
        s.lines().any(|l| l.contains("other") && l.contains("out"))
    });
    t.type_text("u");
    t.keys(&["Tab"]);
    t.wait_for("`x/4xw out` completed", |s| {
        s.lines().last().is_some_and(|l| l.ends_with("x/4xw out"))
    });
    t.keys(&["Enter"]);
    t.wait_for("the memory", |s| {
        s.contains("global:0x100000000:") && at_prompt(s)
    });
    // After `set check `: the groups.
    t.type_text("set check ");
    t.keys(&["Tab"]);
    t.keys(&["Tab"]);
    t.wait_for("the detector groups", |s| {
        s.lines().any(|l| {
            ["races", "sync", "init", "hazards", "xlane", "all"]
                .iter()
                .all(|g| l.contains(g))
        })
    });
    t.keys(&["C-u"]);
    // Inside an expression the word starts after the operator, and only what an
    // expression names is offered: the buffers, not `on` or `off`.
    t.type_text("p v1+o");
    t.keys(&["Tab"]);
    t.keys(&["Tab"]);
    let s = t.wait_for("the buffers after the operator", |s| {
        s.lines()
            .rev()
            .nth(1)
            .is_some_and(|l| l.split_whitespace().collect::<Vec<_>>() == ["out", "other"])
    });
    assert!(
        !s.lines().rev().nth(1).is_some_and(|l| l.contains("off")),
        "{s}"
    );
    t.type_text("u");
    t.keys(&["Tab"]);
    t.wait_for("`p v1+out` completed", |s| {
        s.lines().last().is_some_and(|l| l.ends_with("p v1+out"))
    });
    t.keys(&["C-u"]);
    t.keys(&["C-d"]);
    t.wait_for("the shell prompt", |s| {
        s.lines().last().is_some_and(|l| l.starts_with("tab-test$"))
    });
}

/// Starts the REPL on `kernel` in `t`'s shell, with a history file of the test's own,
/// and waits for its first prompt.
fn start_repl(t: &Tmux, kernel: &std::path::Path) {
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} {} repl {}",
        t.dir.join("history").display(),
        env!("CARGO_BIN_EXE_wavedbg"),
        kernel.display()
    ));
    t.keys(&["Enter"]);
    t.wait_for("the REPL prompt", |s| {
        s.contains("Ctrl-D quits") && at_prompt(s)
    });
}

/// Control characters in a kernel's file name, and in a command echoed back by its error,
/// are shown written out (`\u{1b}`), not sent to the terminal: an escape sequence there
/// cleared the screen (the banner naming the file) and a pasted BEL rang the bell.
#[test]
fn control_characters_in_a_file_name_and_a_command_do_not_reach_the_terminal() {
    let Some(t) = tmux::start("ctl", "repl-test$ ", (100, 30), true) else {
        return;
    };
    let kernel = t.dir.join("k\u{1b}[2J\u{1b}[H.s");
    std::fs::write(&kernel, ".kernel k\n    end\n").expect("write the kernel");
    t.type_text("echo before-the-repl");
    t.keys(&["Enter"]);
    t.wait_text("before-the-repl\nrepl-test$");
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} {} repl \"$(printf '{}/k\\033[2J\\033[H.s')\"",
        t.dir.join("history").display(),
        env!("CARGO_BIN_EXE_wavedbg"),
        t.dir.display()
    ));
    t.keys(&["Enter"]);
    let s = t.wait_for("the REPL prompt", |s| {
        s.contains("Ctrl-D quits") && at_prompt(s)
    });
    assert!(
        s.contains("before-the-repl"),
        "the screen was cleared:\n{s}"
    );
    assert!(s.contains("k\\u{1b}[2J\\u{1b}[H.s"), "{s}");
    t.ok(&["set-buffer", "-b", "ctl", "frob\u{1b}[2J\u{7}x"]);
    t.ok(&["paste-buffer", "-b", "ctl", "-t", "main"]);
    t.keys(&["Enter"]);
    let s = t.wait_for("the error", |s| {
        s.contains("error: unknown command") && at_prompt(s)
    });
    assert!(
        s.contains("before-the-repl"),
        "the screen was cleared:\n{s}"
    );
}

/// Types `line` (a command, or an answer) and Enter at the prompt, then waits for the
/// next prompt and for `done`.
fn enter(t: &Tmux, line: &str, what: &str, done: impl Fn(&str) -> bool) -> String {
    let prompts = count(&t.screen(), PROMPT);
    t.type_text(line);
    t.keys(&["Enter"]);
    t.wait_for(what, |s| {
        count(s, PROMPT) > prompts && at_prompt(s) && done(s)
    })
}

/// Types `line` at the prompt and waits for the restart question it asks.
fn asks(t: &Tmux, line: &str) -> String {
    let questions = count(&t.screen(), QUESTION);
    t.type_text(line);
    t.keys(&["Enter"]);
    t.wait_for(&format!("`{line}` to ask"), |s| {
        count(s, QUESTION) > questions && s.lines().last().is_some_and(|l| l.trim_end() == QUESTION)
    })
}

/// The restart question's last line (capture-pane trims its space).
const QUESTION: &str = "Start it from the beginning? (y or n)";

/// As gdb before `run`: once the launch has run, `run` asks whether to throw the history
/// away; `n`, Ctrl-C and Ctrl-D answer no ("Not confirmed.", nothing changes), `y`
/// restarts, and after `set confirm off` nothing asks.
#[test]
fn run_asks_before_throwing_the_history_away_in_a_real_terminal() {
    let Some(t) = tmux::start("repl-run", "run-test$ ", (160, 40), true) else {
        return;
    };
    let kernel = t.dir.join("spin.s");
    std::fs::write(&kernel, ".kernel spin\nspin:\n    br spin    ; forever\n")
        .expect("write the kernel");
    start_repl(&t, &kernel);
    // At the launch there is nothing to lose: no question. (`restart`: this kernel never
    // ends, and `run` runs it.)
    let s = enter(&t, "restart", "a restart at the launch", |s| {
        count(s, "Restarted: ") == 1
    });
    assert_eq!(count(&s, QUESTION), 0, "{s}");
    enter(&t, "set context off", "the setting", |_| true);
    enter(&t, "stepi 3", "three steps", |s| s.contains("[count 3]"));

    // `n`: not confirmed, the machine stays at count 3.
    let s = asks(&t, "run");
    assert!(
        s.contains("The launch restarts and its recorded history goes.\nStart it from the beginning? (y or n)"),
        "{s}"
    );
    enter(&t, "n", "`n` to answer no", |s| {
        count(s, "Not confirmed.") == 1
    });
    enter(&t, "info history", "the history kept", |s| {
        s.contains("instructions 0 to 3 (the launch to the newest point), now at 3.")
    });

    // Ctrl-C and Ctrl-D at the question answer no too, and the REPL goes on.
    for (key, n) in [("C-c", 2), ("C-d", 3)] {
        asks(&t, "r");
        let prompts = count(&t.screen(), PROMPT);
        t.keys(&[key]);
        t.wait_for(&format!("{key} to answer no"), |s| {
            count(s, "Not confirmed.") == n && count(s, PROMPT) > prompts && at_prompt(s)
        });
    }
    enter(&t, "stepi", "a step from count 3", |s| {
        s.contains("[count 4]")
    });

    // `y`: back at the start, the history gone.
    asks(&t, "restart");
    enter(&t, "y", "the restart", |s| count(s, "Restarted: ") == 2);
    enter(&t, "info history", "the history after the restart", |s| {
        s.contains("instructions 0 to 0 (the launch to the newest point), now at 0.")
    });

    // `set confirm off`: `restart` restarts at once.
    enter(&t, "stepi 2", "two steps", |s| s.contains("[count 2]"));
    let questions = count(&t.screen(), QUESTION);
    enter(&t, "set confirm off", "the setting", |_| true);
    let s = enter(&t, "restart", "a restart without a question", |s| {
        count(s, "Restarted: ") == 3
    });
    assert_eq!(count(&s, QUESTION), questions, "{s}");
    assert_eq!(count(&s, "Not confirmed."), 3, "{s}");
    // The answers are not commands: the history file holds none of them.
    t.keys(&["C-d"]);
    t.wait_for("the shell prompt", |s| {
        s.lines().last().is_some_and(|l| l.starts_with("run-test$"))
    });
    let history = std::fs::read_to_string(t.dir.join("history")).unwrap_or_default();
    assert!(
        !history.lines().any(|l| l == "y" || l == "n"),
        "answers in the history: {history:?}"
    );
    assert!(
        history.lines().any(|l| l == "set confirm off"),
        "{history:?}"
    );
}

/// The screen and scrollback with wrapped lines joined (`capture-pane -J`): a line longer
/// than the terminal is one the terminal wrapped.
fn joined(t: &Tmux) -> String {
    let out = t.cmd(&["capture-pane", "-p", "-J", "-S", "-500", "-t", "main"]);
    String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
}

/// Runs `line` (the scrollback cleared first, so prompts are counted on this command's
/// screen) and checks no line of what it printed is wider than `width`; returns that.
fn fits(t: &Tmux, line: &str, width: usize, done: impl Fn(&str) -> bool) -> String {
    t.ok(&["clear-history", "-t", "main"]);
    enter(t, line, &format!("`{line}`"), done);
    let all = joined(t);
    // What the command printed: from its echo on (the screen above may hold the shell's).
    let echo = format!("{PROMPT} {line}");
    let s = all
        .rfind(&echo)
        .map_or(all.as_str(), |i| &all[i..])
        .to_owned();
    for l in s.lines() {
        assert!(
            l.chars().count() <= width,
            "`{line}` printed a line of {} columns at {width}:\n{l}\n{s}",
            l.chars().count()
        );
    }
    s
}

/// The REPL fits its output to the terminal: at 80x24 `p v1` shows 4 lanes a row, the
/// context after a stop, `info registers` and `help` wrap or cut nothing past column 80;
/// after a resize to 120x40 the next commands fit 120 (7 lanes a row); `set width 0`
/// turns it off.
#[test]
fn the_repl_fits_its_output_to_the_terminal_width() {
    let Some(t) = tmux::start("width", "width-test$ ", (80, 24), true) else {
        return;
    };
    let kernel = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/reduce.s");
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} {} repl {kernel}",
        t.dir.join("history").display(),
        env!("CARGO_BIN_EXE_wavedbg"),
    ));
    t.keys(&["Enter"]);
    t.wait_for("the REPL prompt", |s| {
        s.contains("Ctrl-D quits") && at_prompt(s)
    });
    fits(&t, "break combine", 80, |_| true);
    let s = fits(&t, "continue", 80, |s| s.contains("-- end --"));
    assert!(s.contains("Breakpoint 1, wave 0"), "{s}");
    let s = fits(&t, "p v1", 80, |s| s.contains("[28]"));
    assert!(s.contains("  [ 4]   0x00000005 *"), "4 lanes a row:\n{s}");
    let s = fits(&t, "info registers", 80, |s| s.contains("u63="));
    assert!(
        s.lines()
            .any(|l| l.starts_with("  u0 =") && l.matches('=').count() == 4),
        "{s}"
    );
    let s = fits(&t, "help", 80, |s| s.contains("help (h)"));
    assert!(
        s.contains(&format!("\n{}source line FILE:LINE", " ".repeat(25))),
        "{s}"
    );
    fits(&t, "help set", 80, |s| s.contains("set width"));

    t.ok(&["resize-window", "-t", "main", "-x", "120", "-y", "40"]);
    let s = fits(&t, "p v1", 120, |s| s.contains("[28]"));
    assert!(s.contains("  [ 7]   0x00000008 *"), "7 lanes a row:\n{s}");
    fits(&t, "context", 120, |s| s.contains("-- end --"));
    fits(&t, "stepi", 120, |s| s.contains("-- end --"));
    fits(&t, "info registers", 120, |s| s.contains("u63="));
    fits(&t, "help", 120, |s| s.contains("help (h)"));

    // `set width 0`: unlimited, 8 lanes a row whatever the terminal.
    enter(&t, "set width 0", "the setting", |_| true);
    t.ok(&["clear-history", "-t", "main"]);
    enter(&t, "p v1", "`p v1` unfitted", |s| s.contains("[24]"));
    let s = joined(&t);
    assert!(s.lines().any(|l| l.chars().count() > 120), "{s}");
}

/// As in gdb, every line that arrives runs, however it arrives: typed ahead (three
/// command lines in one write, while the first still runs), pasted without bracketed
/// paste (the line editor reads ahead of the line it returns), and pasted with it (the
/// lines come as one edit, and each runs in turn). A byte that is not UTF-8 is one bad
/// line: the error, then the next command runs in the same session.
#[test]
fn typed_ahead_and_pasted_lines_each_run_and_a_bad_byte_is_one_bad_line() {
    let Some(t) = tmux::start("repl-paste", "paste-test$ ", (160, 40), true) else {
        return;
    };
    let kernel = t.dir.join("k.s");
    std::fs::write(&kernel, ".kernel k\n    vlaneid v0\n    end\n").expect("write the kernel");
    start_repl(&t, &kernel);
    let answered = |s: &str, n: &str| s.lines().any(|l| l == format!("{n} = {n}"));
    // Typed ahead: one write.
    t.keys(&["print 1", "Enter", "print 2", "Enter", "print 3", "Enter"]);
    t.wait_for("three typed-ahead answers", |s| {
        ["1", "2", "3"].iter().all(|n| answered(s, n)) && at_prompt(s)
    });
    // Pasted, without and with bracketed paste.
    let paste = t.dir.join("paste.txt");
    std::fs::write(&paste, "print 11\nprint 12\nprint 13\n").expect("write the paste");
    t.ok(&["load-buffer", &paste.display().to_string()]);
    t.ok(&["paste-buffer", "-t", "main"]);
    t.wait_for("three pasted answers", |s| {
        ["11", "12", "13"].iter().all(|n| answered(s, n)) && at_prompt(s)
    });
    std::fs::write(&paste, "print 21\r\nprint 22\n\nprint 23").expect("write the paste");
    t.ok(&["load-buffer", &paste.display().to_string()]);
    t.ok(&["paste-buffer", "-p", "-t", "main"]);
    t.keys(&["Enter"]);
    let s = t.wait_for("three answers to a bracketed paste", |s| {
        ["21", "22", "23"].iter().all(|n| answered(s, n)) && at_prompt(s)
    });
    assert!(!s.contains("bad expression"), "{s}");
    // A byte that is not UTF-8, then a command.
    t.type_text("print 5");
    t.ok(&["send-keys", "-t", "main", "-H", "ff"]);
    t.keys(&["Enter"]);
    t.wait_for("the bad line's error", |s| {
        s.contains("error: input line is not valid UTF-8; ignored") && at_prompt(s)
    });
    t.keys(&["print 6", "Enter"]);
    t.wait_for("the session going on", |s| answered(s, "6") && at_prompt(s));
    t.keys(&["C-d"]);
    t.wait_for("the shell prompt", |s| {
        s.lines()
            .last()
            .is_some_and(|l| l.starts_with("paste-test$"))
    });
}

/// SIGSTOP (which cannot be caught) at the prompt, the shell resetting the terminal as bash
/// does, then `fg`: the REPL sets raw mode up again and draws its prompt and the line typed
/// so far, and Tab completes. It used to stay in cooked mode with no prompt: the terminal
/// echoed keys, Tab did nothing, and the line was read only on Enter.
#[test]
fn sigstop_then_fg_redraws_the_prompt_in_raw_mode() {
    let Some(t) = tmux::start("repl-stop", "repl-test$ ", (100, 30), true) else {
        return;
    };
    let kernel = t.dir.join("spin.s");
    std::fs::write(&kernel, ".kernel spin\nspin:\n    br spin    ; forever\n")
        .expect("write the kernel");
    let pid = start_repl_with_pid(&t, &kernel);
    t.type_text("info wav");
    t.wait_for("the typed line", |s| {
        s.lines().last().is_some_and(|l| l.ends_with("info wav"))
    });
    kill("STOP", &pid);
    wait_stopped(&pid);
    t.wait_for("the shell's prompt", |s| {
        s.lines()
            .last()
            .is_some_and(|l| l.starts_with("repl-test$"))
    });
    t.stty_sane();
    t.type_text("fg");
    t.keys(&["Enter"]);
    t.wait_for("the prompt and the line drawn again", |s| {
        s.lines()
            .last()
            .is_some_and(|l| l.trim_end() == "(wavedbg) info wav")
    });
    assert!(!t.canonical(), "the terminal is still in canonical mode");
    t.keys(&["Tab"]);
    t.wait_for("Tab to complete", |s| {
        s.lines()
            .last()
            .is_some_and(|l| l.trim_end() == "(wavedbg) info waves")
    });
    t.keys(&["Enter"]);
    t.wait_for("`info waves` to answer", |s| {
        s.contains("0x0000 <spin>") && at_prompt(s)
    });
    assert!(alive(&pid));
    t.keys(&["C-d"]);
}

/// [`start_repl`] through a launcher that writes the REPL's pid into the test's folder
/// (the interactive shell stays the parent); returns the pid.
fn start_repl_with_pid(t: &Tmux, kernel: &std::path::Path) -> String {
    let pid_file = t.dir.join("pid");
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} sh -c 'echo $$ > {}; exec {} repl {}'",
        t.dir.join("history").display(),
        pid_file.display(),
        env!("CARGO_BIN_EXE_wavedbg"),
        kernel.display()
    ));
    t.keys(&["Enter"]);
    t.wait_for("the REPL prompt", |s| {
        s.contains("Ctrl-D quits") && at_prompt(s)
    });
    read_pid(&pid_file)
}

/// Ctrl-C at the prompt cancels the line and takes the dim history hint after it away,
/// as Enter does: the scrollback keeps what was typed, not the hint. (Once on one row,
/// once with the line and hint wrapped over two.)
#[test]
fn ctrl_c_at_the_prompt_clears_the_history_hint() {
    let Some(t) = tmux::start("repl-hint", "hint-test$ ", (40, 20), true) else {
        return;
    };
    let kernel = t.dir.join("k.s");
    std::fs::write(&kernel, ".kernel k\n    nop\n    end\n").expect("write the kernel");
    start_repl(&t, &kernel);
    let long = "print $pc + 1 + 2 + 3 + 4 + 5 + 6";
    for line in ["info waves", long] {
        enter(&t, line, "the command's output", |_| true);
    }
    for (typed, hint) in [
        ("info w", "aves"),
        ("print $pc + 1", " + 2 + 3 + 4 + 5 + 6"),
    ] {
        let prompts = count(&t.screen(), PROMPT);
        t.type_text(typed);
        // (capture-pane drops the space a wrapped row ends with: compared without spaces)
        let want: String = format!("{typed}{hint}").split_whitespace().collect();
        t.wait_for("the hint", |s| joined_tail(s).ends_with(&want));
        t.keys(&["C-c"]);
        let s = t.wait_for("the next prompt", |s| {
            count(s, PROMPT) > prompts && at_prompt(s)
        });
        let cancelled = s
            .lines()
            .rev()
            .find(|l| l.contains("Quit with Ctrl-D"))
            .expect("the Ctrl-C answer");
        let before: Vec<&str> = s.lines().collect();
        let at = before.iter().rposition(|l| *l == cancelled).expect("found");
        let shown: String = before[..at].join("").split_whitespace().collect();
        let want: String = format!("{PROMPT} {typed}").split_whitespace().collect();
        assert!(
            shown.ends_with(&want),
            "the hint `{hint}` stayed after `{typed}`:\n{s}"
        );
    }
    // A hint shown while typing a line that was then entered is gone with it: Ctrl-C at
    // the next, empty prompt erases nothing above it.
    t.type_text("info w");
    t.wait_for("the hint", |s| joined_tail(s).ends_with("infowaves"));
    enter(&t, "", "the command's output", |_| true);
    let before = t.screen();
    let prompts = count(&before, PROMPT);
    t.keys(&["C-c"]);
    let s = t.wait_for("the next prompt", |s| {
        count(s, PROMPT) > prompts && at_prompt(s)
    });
    let kept = before.trim_end();
    assert!(
        s.contains(kept),
        "Ctrl-C erased output above:\n{before}\n---\n{s}"
    );
}

/// The screen's last rows joined without spaces (a line that wrapped reads as one).
fn joined_tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(3)..]
        .join("")
        .split_whitespace()
        .collect()
}
