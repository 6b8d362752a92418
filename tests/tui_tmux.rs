//! End-to-end tests of the full-screen debugger in a real terminal: tmux runs `wavedbg` in
//! a detached session at 120x40; the tests type keys with `send-keys` and read the screen
//! with `capture-pane`, polling with timeouts. One steps, sets a breakpoint from the command
//! line, continues to it, opens the help, quits, and checks the shell prompt works after.
//! The others end the TUI from outside with SIGTERM and SIGHUP (once while a long
//! run is in progress) and check, through tmux's view of the pane's modes, that the
//! terminal was restored (main screen, mouse reporting off, cursor shown), that the exit
//! status is 128+signal, and that the shell works after; and closing the terminal ends it.
//! Others maximise a pane and restore it, resizing the terminal while it is maximised
//! (`resize-window`), scroll the console back through its history full screen, and watch
//! the completions appear above the command line while typing. One checks that `:r` asks
//! before throwing the recorded history away, and that `n` and `y` answer it. One presses
//! `f` in the lane grid until it shows f32 values, and puts them in the Watch pane. Others
//! suspend the TUI with Ctrl-Z (and with SIGTSTP from outside during a run) and resume it
//! with `fg`, and resize the splits with keys. SIGINT from outside acts as Ctrl-C; after
//! SIGSTOP and `fg` the terminal is set up again; Ctrl-L redraws the whole screen.
//! One opens the compiled saxpy (scripts/saxpy_src.s), steps it by its `.cl` lines and
//! reads the lines and its variables' values on screen; another steps a kernel compiled
//! from two files and sees the Source pane switch between them. One types keys while a
//! run is in progress and pastes a two-line script into the command line.
//!
//! tmux is installed by .ci/run; outside CI (CI unset) a missing tmux skips the test with a
//! message.

use std::process::Command;
use std::time::{Duration, Instant};

mod tmux;
use tmux::{alive, kill, proc_state, read_pid, wait_stopped, Tmux};

/// A tmux server with a shell at 120x40 for the test `name`.
fn start(name: &str) -> Option<Tmux> {
    tmux::start(name, "tui-test$ ", (120, 40), false)
}

#[test]
fn step_break_continue_help_quit_in_a_real_terminal() {
    let Some(t) = start("keys") else {
        return;
    };
    let dir = t.dir.clone();
    // The debugger on the built-in demo.
    let history = dir.join("history");
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} {}",
        history.display(),
        env!("CARGO_BIN_EXE_wavedbg")
    ));
    t.keys(&["Enter"]);
    let s = t.wait_text(" READY ");
    assert!(s.contains("demo:histogram.s"), "{s}");
    assert!(s.contains("Lanes [hex]: wave 0"), "{s}");

    // Step the selected wave.
    t.keys(&["s"]);
    t.wait_for("a step", |s| {
        s.contains(" STOPPED ") && s.contains("| 1 instr")
    });

    // A breakpoint from the command line, then continue to it.
    t.keys(&[":"]);
    t.type_text("break next_word");
    t.wait_text(":break next_word");
    t.keys(&["Enter"]);
    t.wait_text("Breakpoint 1 at 0x006c <next_word>");
    t.keys(&["c"]);
    let s = t.wait_text("Breakpoint 1, wave 0");
    assert!(s.contains(" HIT "), "{s}");
    assert!(s.contains("=>● 006c"), "the PC is at the breakpoint:\n{s}");

    // The help overlay, then close it.
    t.keys(&["?"]);
    t.wait_text("Keys (any key closes)");
    t.keys(&["Escape"]);
    t.wait_for("the help to close", |s| {
        !s.contains("Keys (any key closes)")
    });

    // Quit: the shell is back and usable.
    t.keys(&["q"]);
    t.wait_for("the shell prompt", |s| {
        !s.contains(" HIT ") && s.lines().any(|l| l.starts_with("tui-test$"))
    });
    t.type_text("echo done-$$");
    t.keys(&["Enter"]);
    let s = t.wait_for("the echo", |s| {
        s.lines().any(|l| {
            l.starts_with("done-") && l[5..].chars().all(|c| c.is_ascii_digit()) && l.len() > 5
        })
    });
    assert!(
        !s.contains("Lanes ["),
        "the alternate screen was left:\n{s}"
    );
    // The command typed in the TUI went into the shared history.
    let h = std::fs::read_to_string(&history).unwrap_or_default();
    assert!(h.lines().any(|l| l == "break next_word"), "history: {h:?}");
}

/// Time travel from the keyboard: `r` steps the selected wave back (the status line shows
/// how far back of the recorded history), `R` goes back to the previous breakpoint hit,
/// and at the start of the history says so.
#[test]
fn reverse_keys_in_a_real_terminal() {
    let Some(t) = start("reverse") else {
        return;
    };
    let history = t.dir.join("history");
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} {}",
        history.display(),
        env!("CARGO_BIN_EXE_wavedbg")
    ));
    t.keys(&["Enter"]);
    t.wait_text(" READY ");
    for n in 1..=3 {
        t.keys(&["s"]);
        t.wait_for("a step", |s| s.contains(&format!("| {n} instr")));
    }
    t.keys(&["r"]);
    let s = t.wait_for("a step back", |s| s.contains("| 2 of 3 instr"));
    assert!(s.contains(" STOPPED "), "{s}");
    // Two breakpoint hits forward, then back to the first with R.
    t.keys(&[":"]);
    t.type_text("break next_word");
    t.keys(&["Enter"]);
    t.wait_text("Breakpoint 1 at 0x006c <next_word>");
    t.keys(&["c"]);
    t.wait_text("Breakpoint 1, wave 0");
    t.keys(&["c"]);
    t.wait_text("Breakpoint 1, wave 1");
    t.keys(&["R"]);
    t.wait_for("the previous hit on the status line", |s| {
        s.lines()
            .any(|l| l.contains(" HIT ") && l.contains("Breakpoint 1, wave 0"))
    });
    t.keys(&["R"]);
    // (Both on one screen: the message and the status line's count at the start.)
    t.wait_for("the start of the history", |s| {
        s.contains("No more reverse-execution history.") && s.contains("| 0 of ")
    });
    t.keys(&["?"]);
    let s = t.wait_text("r R         step back, continue back");
    assert!(
        s.contains("Ctrl-R      restart"),
        "restart has a key of its own:\n{s}"
    );
    // Escape and q in one write: the terminal may deliver them as Alt-q, which closes
    // the help and quits all the same.
    t.keys(&["Escape", "q"]);
    t.wait_for("the shell prompt", |s| {
        s.lines().any(|l| l.starts_with("tui-test$"))
    });
}

/// The pane's terminal modes that the TUI sets and must undo.
const MODES: &str = "alt=#{alternate_on} mouse=#{mouse_any_flag}#{mouse_standard_flag}#{mouse_button_flag}#{mouse_all_flag}#{mouse_sgr_flag} cursor=#{cursor_flag}";

/// Starts the TUI (on `kernel`, or the demo), optionally starts a run that never ends, sends
/// `signal` from outside, and checks the terminal was restored, the exit status is
/// `128 + number` and the shell works.
fn signal_restores_the_terminal(name: &str, signal: &str, number: i32, kernel: Option<&str>) {
    let Some(t) = start(name) else {
        return;
    };
    let pid_file = t.dir.join("pid");
    let kernel_arg = match kernel {
        Some(source) => {
            let path = t.dir.join("spin.s");
            std::fs::write(&path, source).expect("write the kernel");
            format!(" tui {}", path.display())
        }
        None => String::new(),
    };
    // The launcher writes its pid and `exec`s the TUI, so the signal goes to the TUI alone
    // and the interactive shell reports its exit status after.
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} sh -c 'echo $$ > {}; exec {}{kernel_arg}'",
        t.dir.join("history").display(),
        pid_file.display(),
        env!("CARGO_BIN_EXE_wavedbg"),
    ));
    t.keys(&["Enter"]);
    t.wait_text(" READY ");
    let pid = read_pid(&pid_file);
    // tmux keeps one mouse tracking mode (the last one set), so only "any" is sure to be 1.
    assert_eq!(
        t.format("alt=#{alternate_on} mouse=#{mouse_any_flag} cursor=#{cursor_flag}"),
        "alt=1 mouse=1 cursor=0",
        "the TUI did not set the modes this test expects to see undone"
    );
    if kernel.is_some() {
        // Ctrl-C typed in the TUI is a key, not a signal: while idle it only explains
        // itself, and during a run it interrupts the run; either way the TUI stays.
        t.keys(&["C-c"]);
        t.wait_text("Ctrl-C and Esc interrupt a run");
        t.keys(&["c"]);
        t.wait_text(" RUNNING ");
        std::thread::sleep(Duration::from_millis(300));
        t.keys(&["C-c"]);
        t.wait_text("Interrupted");
        assert!(alive(&pid), "Ctrl-C in the TUI ended it");
        // Now a run the signal has to get through.
        t.keys(&["c"]);
        t.wait_text(" RUNNING ");
        std::thread::sleep(Duration::from_millis(300));
    }
    kill(signal, &pid);
    let start = Instant::now();
    while alive(&pid) {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the TUI did not exit within 5 s of SIG{signal}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    t.wait_for("the shell prompt", |s| {
        s.lines().any(|l| l.starts_with("tui-test$")) && !s.contains(" READY ")
    });
    assert_eq!(
        t.format(MODES),
        "alt=0 mouse=00000 cursor=1",
        "SIG{signal} left the terminal in the TUI's modes; the screen:\n{}",
        t.screen()
    );
    t.type_text("echo status=$? ok");
    t.keys(&["Enter"]);
    let want = format!("status={} ok", 128 + number);
    t.wait_for(&format!("`{want}`"), |s| s.lines().any(|l| l == want));
}

const SPIN: &str = ".kernel spin\nspin:\n    br spin    ; forever\n";

#[test]
fn sigterm_during_a_long_run_restores_the_terminal() {
    signal_restores_the_terminal("term", "TERM", 15, Some(SPIN));
}

/// SIGINT from outside (`kill -INT`) is Ctrl-C, as in gdb: idle it explains itself, during a
/// run it interrupts the run, and the session stays. It used to end the TUI, losing the
/// session.
#[test]
fn sigint_from_outside_is_ctrl_c() {
    let Some(t) = start("int") else {
        return;
    };
    let pid = start_spin(&t);
    kill("INT", &pid);
    t.wait_text("Ctrl-C and Esc interrupt a run");
    assert!(alive(&pid), "SIGINT while idle ended the TUI");
    t.keys(&["c"]);
    t.wait_text(" RUNNING ");
    std::thread::sleep(Duration::from_millis(300));
    kill("INT", &pid);
    t.wait_text("Interrupted");
    assert!(alive(&pid), "SIGINT during a run ended the TUI");
    assert_eq!(t.format("alt=#{alternate_on}"), "alt=1");
    quit(&t);
}

/// Starts the TUI on the endless [`SPIN`] kernel through a launcher that writes its pid,
/// waits for it and returns the pid.
fn start_spin(t: &Tmux) -> String {
    let pid_file = t.dir.join("pid");
    let kernel = t.dir.join("spin.s");
    std::fs::write(&kernel, SPIN).expect("write the kernel");
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} sh -c 'echo $$ > {}; exec {} tui {}'",
        t.dir.join("history").display(),
        pid_file.display(),
        env!("CARGO_BIN_EXE_wavedbg"),
        kernel.display(),
    ));
    t.keys(&["Enter"]);
    t.wait_text(" READY ");
    read_pid(&pid_file)
}

/// SIGSTOP (which cannot be caught) during a run, the shell resetting the terminal as bash
/// does, then `fg`: SIGCONT sets the terminal up again (raw mode, the alternate screen,
/// mouse reporting) and redraws it whole, so keys reach the TUI at once. It used to stay
/// in cooked mode: keys were echoed and read only on Enter, and nothing was redrawn.
#[test]
fn sigstop_then_fg_sets_the_terminal_up_again() {
    let Some(t) = start("sigstop") else {
        return;
    };
    let pid = start_spin(&t);
    t.keys(&["c"]);
    t.wait_text(" RUNNING ");
    kill("STOP", &pid);
    wait_stopped(&pid);
    t.stty_sane();
    t.ok(&["resize-window", "-t", "main", "-x", "80", "-y", "24"]);
    t.type_text("fg");
    t.keys(&["Enter"]);
    let s = t.wait_for("the run redrawn after fg", |s| {
        s.contains(" RUNNING ") && s.contains(" 1 Code ") && !s.contains("tui-test$")
    });
    assert!(!s.contains("fg"), "redrawn whole:\n{s}");
    let start = Instant::now();
    while t.canonical() {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "still in canonical mode after fg"
        );
        std::thread::sleep(Duration::from_millis(25));
    }
    assert_eq!(
        t.format("alt=#{alternate_on} mouse=#{mouse_any_flag}"),
        "alt=1 mouse=1"
    );
    // A key without Enter reaches the TUI.
    esc_interrupts_the_run(&t);
    quit(&t);
}

/// Ctrl-L draws the whole screen again, as in vim: what another program wrote over the
/// TUI goes away (a frame otherwise redraws only what changed).
#[test]
fn ctrl_l_redraws_the_whole_screen() {
    let Some(t) = start("ctrl-l") else {
        return;
    };
    start_tui(&t);
    let tty = t.format("#{pane_tty}");
    std::fs::write(&tty, "\x1b[5;5HSCRIBBLED-OVER").expect("write to the pane's terminal");
    t.wait_text("SCRIBBLED-OVER");
    t.keys(&["C-l"]);
    t.wait_for("the screen redrawn", |s| {
        !s.contains("SCRIBBLED-OVER") && s.contains(" READY ")
    });
    quit(&t);
}

#[test]
fn sighup_restores_the_terminal() {
    signal_restores_the_terminal("hup", "HUP", 1, None);
}

/// Closing the terminal (the pane goes away, the TUI gets SIGHUP and its reads fail) while a
/// run is in progress ends the TUI instead of leaving it spinning.
#[test]
fn closing_the_terminal_ends_the_tui() {
    let Some(t) = start("close") else {
        return;
    };
    let pid_file = t.dir.join("pid");
    let kernel = t.dir.join("spin.s");
    std::fs::write(&kernel, SPIN).expect("write the kernel");
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} sh -c 'echo $$ > {}; exec {} tui {}'",
        t.dir.join("history").display(),
        pid_file.display(),
        env!("CARGO_BIN_EXE_wavedbg"),
        kernel.display()
    ));
    t.keys(&["Enter"]);
    t.wait_text(" READY ");
    let pid = read_pid(&pid_file);
    t.keys(&["c"]);
    t.wait_text(" RUNNING ");
    t.ok(&["kill-pane", "-t", "main"]);
    let start = Instant::now();
    while alive(&pid) {
        assert!(
            start.elapsed() < Duration::from_secs(8),
            "the TUI still runs 8 s after its terminal was closed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Starts the TUI on the demo in `t`'s shell and waits for it.
fn start_tui(t: &Tmux) {
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} {}",
        t.dir.join("history").display(),
        env!("CARGO_BIN_EXE_wavedbg")
    ));
    t.keys(&["Enter"]);
    t.wait_text(" READY ");
}

/// Starts the TUI on `kernel` in `t`'s shell and waits for it.
fn start_tui_on(t: &Tmux, kernel: &std::path::Path) {
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} {} tui {}",
        t.dir.join("history").display(),
        env!("CARGO_BIN_EXE_wavedbg"),
        kernel.display()
    ));
    t.keys(&["Enter"]);
    t.wait_text(" READY ");
}

/// Quits the TUI and waits for the shell.
fn quit(t: &Tmux) {
    t.keys(&["q"]);
    t.wait_for("the shell prompt", |s| {
        s.lines().any(|l| l.starts_with("tui-test$"))
    });
}

/// `z` maximises the focused pane and restores it; the maximised pane survives resizes
/// (smaller, to the compact size, and larger), and the lane grid never shows a cut value.
#[test]
fn maximise_restore_and_resize_while_zoomed_in_a_real_terminal() {
    let Some(t) = start("zoom") else {
        return;
    };
    start_tui(&t);
    let s = t.wait_text("Waves (32)");
    assert!(
        s.contains("Source: demo:histogram.s"),
        "the source beside the code:\n{s}"
    );
    // The lane grid, maximised.
    t.keys(&["3", "z"]);
    // A capture can catch the terminal mid-frame: wait for the whole maximised frame.
    let s = t.wait_for("only the lane grid", |s| {
        s.contains("[z restores]") && !s.contains("Waves (32)")
    });
    assert!(s.contains("Lanes [hex]: wave 0"), "{s}");
    // Smaller than the compact layout's limit, then larger: still maximised, redrawn.
    t.ok(&["resize-window", "-t", "main", "-x", "80", "-y", "24"]);
    let s = t.wait_for("the zoomed grid at 80x24", |s| {
        s.contains("[z restores]") && s.lines().count() <= 24 && s.contains("   31  ")
    });
    assert!(!s.contains(" 1 Code "), "no tab bar while maximised:\n{s}");
    t.ok(&["resize-window", "-t", "main", "-x", "200", "-y", "60"]);
    let s = t.wait_for("the zoomed grid at 200x60", |s| {
        s.contains("[z restores]") && s.lines().any(|l| l.chars().count() > 150)
    });
    // Every lane and no partial value.
    for lane in 0..32 {
        assert!(
            s.contains(&format!("{lane:>3}  0000")),
            "lane {lane} is missing:\n{s}"
        );
    }
    // Restore: every pane again.
    t.keys(&["z"]);
    t.wait_for("every pane again", |s| {
        s.contains("Waves (32)") && !s.contains("[z restores]")
    });
    quit(&t);
}

/// The console keeps its whole history: `o` shows it full screen, PgUp goes back (the
/// title says how far), End returns; long lines wrap instead of being cut.
#[test]
fn console_scrollback_and_zoom_in_a_real_terminal() {
    let Some(t) = start("scrollback") else {
        return;
    };
    start_tui(&t);
    t.keys(&[":"]);
    t.type_text("help");
    t.keys(&["Enter"]);
    t.wait_text("(+");
    t.keys(&["o"]);
    // Maximised by `o`, so `o` restores it (back to the pane before).
    let s = t.wait_text("Console [o restores]");
    // The last lines of `help`, wrapped rather than cut.
    assert!(s.contains("↪ "), "long lines wrap:\n{s}");
    assert!(!s.contains("(wavedbg) help"), "the start is above:\n{s}");
    t.keys(&["PageUp", "PageUp", "PageUp", "PageUp", "PageUp"]);
    let s = t.wait_for("the start of the output", |s| s.contains("(wavedbg) help"));
    assert!(s.contains("rows back (End: latest)"), "{s}");
    t.keys(&["End"]);
    t.wait_for("the latest output", |s| {
        !s.contains("rows back") && !s.contains("(wavedbg) help")
    });
    t.keys(&["o"]);
    t.wait_text("Waves (32)");
    quit(&t);
}

/// Typing on the command line shows the candidates above it; Tab completes.
#[test]
fn completion_hint_in_a_real_terminal() {
    let Some(t) = start("complete") else {
        return;
    };
    start_tui(&t);
    t.keys(&[":"]);
    t.type_text("info b");
    let s = t.wait_text("completions (Tab)");
    assert!(s.contains("breakpoints"), "{s}");
    t.type_text("r");
    let s = t.wait_text("1 completion (Tab)");
    assert!(s.contains("breakpoints"), "{s}");
    t.keys(&["Tab"]);
    // Completed, with a space after: the word is new, so the candidates went.
    t.wait_for("the completed line", |s| {
        s.lines().any(|l| l == ":info breakpoints") && !s.contains("completion")
    });
    t.keys(&["Enter"]);
    t.wait_text("No breakpoints or watchpoints.");
    quit(&t);
}

/// The sanitizer in a real terminal: a race stops `c`, the status line says what, the
/// code pane marks both instructions, and the marks survive a resize.
#[test]
fn a_sanitizer_finding_stops_and_is_marked_in_a_real_terminal() {
    let Some(t) = start("finding") else {
        return;
    };
    let kernel = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/race.s");
    start_tui_on(&t, &kernel);
    t.keys(&[":"]);
    t.type_text("set check races on");
    t.keys(&["Enter"]);
    t.wait_text("Sanitizer: races on.");
    t.keys(&["c"]);
    let s = t.wait_text("Sanitizer error: data race on shared:0x0");
    assert!(s.contains(" HIT "), "{s}");
    assert!(s.contains("! 0018  st.shared.b32 v2, v1, 0"), "{s}");
    assert!(s.contains("! 0028  ld.shared.b32 v3, v1, 0"), "{s}");
    // Wider: the side's names fit beside the instructions.
    t.ok(&["resize-window", "-t", "main", "-x", "200", "-y", "60"]);
    t.wait_for("the marks at 200x60", |s| {
        s.contains("v1, 0  ! data race: now") && s.contains("v1, 0  ! data race: before")
    });
    t.keys(&["q"]);
    t.wait_for("the shell prompt", |s| {
        s.lines().any(|l| l.starts_with("tui-test$"))
    });
}

/// `:r` in a real terminal, as gdb's `run`: once something has run it asks on the line
/// under the status line; `n` keeps the state and says "Not confirmed."; `y` to
/// `:restart`'s same question restarts.
#[test]
fn run_on_the_command_line_asks_in_a_real_terminal() {
    let Some(t) = start("run") else {
        return;
    };
    start_tui(&t);
    for n in 1..=3 {
        t.keys(&["s"]);
        t.wait_for("a step", |s| s.contains(&format!("| {n} instr")));
    }
    let question = "Start it from the beginning? (y or n)";
    t.keys(&[":"]);
    t.type_text("r");
    t.wait_text(":r");
    t.keys(&["Enter"]);
    let s = t.wait_text(question);
    assert!(s.contains("| 3 instr"), "{s}");
    t.keys(&["n"]);
    let s = t.wait_text("Not confirmed.");
    assert!(!s.contains(question), "{s}");
    assert!(s.contains(" STOPPED ") && s.contains("| 3 instr"), "{s}");
    // `restart` asks the same way (`run`, as gdb's, would run the launch after the yes).
    t.keys(&[":"]);
    t.type_text("restart");
    t.wait_text(":restart");
    t.keys(&["Enter"]);
    t.wait_text(question);
    t.keys(&["y"]);
    let s = t.wait_text("Restarted: every wave at the start.");
    assert!(s.contains(" READY ") && s.contains("| 0 instr"), "{s}");
    assert!(!s.contains(question), "{s}");
    quit(&t);
}

/// Issue 25 items 6 and 7 in a real terminal: `f` in the lane grid cycles its number
/// format to f32 (three presses: unsigned, signed, f32) and the floats show; `display/f`
/// puts the same values in the Watch pane.
#[test]
fn the_format_key_shows_f32_values_in_a_real_terminal() {
    let Some(t) = start("formats") else {
        return;
    };
    start_tui(&t);
    for line in [
        "break next_word",
        "continue",
        "set v1[0] = 0x3fc00000",
        "set v1[1] = 0xc0490fdb",
        "lanes v1",
    ] {
        t.keys(&[":"]);
        t.type_text(line);
        t.keys(&["Enter"]);
        if line == "continue" {
            t.wait_text("Breakpoint 1, wave 0");
        }
    }
    t.wait_text("Lanes [hex]: wave 0, 32/32 active, lane 0 ");
    t.keys(&["3", "f"]);
    t.wait_text("Lanes [unsigned]");
    t.keys(&["f", "f"]);
    let s = t.wait_for("the lane grid in f32", |s| {
        s.contains("Lanes [f32]") && s.contains("1.5*") && s.contains("-3.1415927*")
    });
    assert!(s.contains("as f32 (f: next format)"), "{s}");
    // The REPL's text in the Watch pane.
    t.keys(&[":"]);
    t.type_text("display/f v1");
    t.keys(&["Enter"]);
    let s = t.wait_text("Watch (1)");
    assert!(s.contains("1: /f v1 (by lane)"), "{s}");
    assert!(
        s.lines()
            .any(|l| l.contains("[ 0]") && l.contains("1.5*") && l.contains("-3.1415927*")),
        "{s}"
    );
    quit(&t);
}

/// Ctrl-Z suspends the TUI as a shell job: the terminal is restored (main screen, mouse
/// off) with the shell's prompt usable, the process is stopped; the terminal is resized
/// while it is stopped, and `fg` brings it back redrawn whole at the new size.
#[test]
fn ctrl_z_suspends_and_fg_resumes_in_a_real_terminal() {
    let Some(t) = start("suspend") else {
        return;
    };
    let pid_file = t.dir.join("pid");
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} sh -c 'echo $$ > {}; exec {}'",
        t.dir.join("history").display(),
        pid_file.display(),
        env!("CARGO_BIN_EXE_wavedbg"),
    ));
    t.keys(&["Enter"]);
    t.wait_text(" READY ");
    let pid = read_pid(&pid_file);
    t.keys(&["s"]);
    t.wait_text("| 1 instr");
    t.keys(&["C-z"]);
    t.wait_for("the shell prompt after Ctrl-Z", |s| {
        !s.contains(" STOPPED ") && s.lines().any(|l| l.starts_with("tui-test$"))
    });
    let start = Instant::now();
    while proc_state(&pid) != 'T' {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "not stopped: {}",
            proc_state(&pid)
        );
        std::thread::sleep(Duration::from_millis(25));
    }
    assert_eq!(
        t.format("alt=#{alternate_on} mouse=#{mouse_any_flag} cursor=#{cursor_flag}"),
        "alt=0 mouse=0 cursor=1",
        "the terminal is restored while suspended"
    );
    // The shell works while the TUI is stopped.
    t.type_text("echo while-$((6*7))");
    t.keys(&["Enter"]);
    t.wait_text("while-42");
    // A smaller terminal while stopped: the compact layout after fg, with the same state.
    t.ok(&["resize-window", "-t", "main", "-x", "80", "-y", "24"]);
    t.type_text("fg");
    t.keys(&["Enter"]);
    let s = t.wait_for("the TUI redrawn at 80x24", |s| {
        s.contains(" STOPPED ") && s.contains(" 1 Code ") && s.contains("| 1 instr")
    });
    assert!(!s.contains("while-42"), "redrawn whole:\n{s}");
    assert_ne!(proc_state(&pid), 'T');
    assert_eq!(t.format("alt=#{alternate_on}"), "alt=1");
    // Still driven by keys.
    t.keys(&["s"]);
    t.wait_text("| 2 instr");
    quit(&t);
}

/// SIGTSTP from outside (`kill -TSTP`) during a run suspends the TUI as Ctrl-Z does: the
/// terminal is restored while it is stopped, and after `fg` it is set up again (raw mode:
/// Esc reaches the TUI and interrupts the run) and redrawn whole. Left to its default
/// action, the process stopped in the alternate screen, and after `fg` the shell had reset
/// the terminal to cooked mode: Esc was echoed as `^[` and the run could not be stopped.
#[test]
fn sigtstp_from_outside_suspends_and_fg_resumes_in_a_real_terminal() {
    let Some(t) = start("tstp") else {
        return;
    };
    let pid = start_spin(&t);
    t.keys(&["c"]);
    t.wait_text(" RUNNING ");
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("kill -TSTP {pid}"))
        .status()
        .unwrap_or_else(|e| panic!("cannot run kill: {e}"));
    assert!(status.success(), "kill -TSTP {pid} failed");
    let start = Instant::now();
    while proc_state(&pid) != 'T' {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "not stopped: {}",
            proc_state(&pid)
        );
        std::thread::sleep(Duration::from_millis(25));
    }
    t.wait_for("the shell prompt after SIGTSTP", |s| {
        s.lines().any(|l| l.starts_with("tui-test$"))
    });
    assert_eq!(
        t.format("alt=#{alternate_on} mouse=#{mouse_any_flag} cursor=#{cursor_flag}"),
        "alt=0 mouse=0 cursor=1",
        "the terminal is restored while suspended"
    );
    t.type_text("fg");
    t.keys(&["Enter"]);
    let s = t.wait_for("the run redrawn after fg", |s| {
        s.contains(" RUNNING ") && s.contains("Waves (1)")
    });
    assert!(!s.contains("tui-test$"), "redrawn whole:\n{s}");
    assert_eq!(t.format("alt=#{alternate_on}"), "alt=1");
    esc_interrupts_the_run(&t);
    assert!(alive(&pid));
    quit(&t);
}

/// `>` and `+` resize the splits of the wide layout in a real terminal; the sizes stay
/// through a resize to the compact layout and back.
#[test]
fn split_keys_resize_panes_in_a_real_terminal() {
    let Some(t) = start("splits") else {
        return;
    };
    start_tui(&t);
    let s = t.wait_text("Waves (32)");
    let lanes_top = |s: &str| s.lines().position(|l| l.contains("┌ Registers"));
    let left_width = |s: &str| {
        s.lines()
            .find(|l| l.contains("Waves (32)"))
            .and_then(|l| l.find('┐').map(|b| l[..b].chars().count()))
    };
    let (regs0, left0) = (lanes_top(&s), left_width(&s));
    t.keys(&["3", "+", "+", ">", ">"]);
    let s = t.wait_for("a taller lane grid and a wider left column", |s| {
        lanes_top(s) > regs0 && left_width(s) > left0
    });
    let (regs1, left1) = (lanes_top(&s), left_width(&s));
    t.ok(&["resize-window", "-t", "main", "-x", "80", "-y", "24"]);
    t.wait_text(" 1 Code ");
    t.ok(&["resize-window", "-t", "main", "-x", "120", "-y", "40"]);
    let s = t.wait_text("Waves (32)");
    assert_eq!((lanes_top(&s), left_width(&s)), (regs1, left1), "{s}");
    quit(&t);
}

/// Issue 27: a kernel compiled from a higher-level language (scripts/saxpy_src.s from
/// scripts/src/saxpy.cl): the Source pane shows the `.cl` file, `next` steps it a line at
/// a time, a breakpoint on a `.cl` line stops there, and the Locals pane shows the
/// variables live there with their values (every lane of a per-lane one).
#[test]
fn source_level_saxpy_in_a_real_terminal() {
    let Some(t) = start("saxpy") else {
        return;
    };
    let kernel = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/saxpy_src.s");
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} {} tui {kernel}",
        t.dir.join("history").display(),
        env!("CARGO_BIN_EXE_wavedbg")
    ));
    t.keys(&["Enter"]);
    let s = t.wait_text(" READY ");
    assert!(s.contains("Source: src/saxpy.cl"), "{s}");
    assert!(
        s.contains("=>    4                    global float *"),
        "{s}"
    );
    // Line by line: line 6, then 7 (the statement's second half).
    t.keys(&[":"]);
    t.type_text("next");
    t.keys(&["Enter"]);
    t.wait_text("=>    6      uint i = group_id()");
    t.keys(&[":"]);
    t.type_text("next");
    t.keys(&["Enter"]);
    t.wait_text("=>    7             + lane_id();");
    // A breakpoint on line 9 from the Source pane (`b` on its line), and on to it.
    t.keys(&["8", "j", "j", "b"]);
    t.wait_text("Breakpoint at src/saxpy.cl:9");
    t.keys(&["c"]);
    let s = t.wait_text("=>●   9          float xi = x[i];");
    assert!(s.contains(" HIT "), "{s}");
    // The variables live there, in the Locals pane.
    assert!(s.contains("a = 2  (f32 in u4)"), "{s}");
    assert!(s.contains("n = 100  (u32 in u5)"), "{s}");
    // One more line: `xi` is loaded; maximised, the Locals pane shows its lanes.
    t.keys(&[":"]);
    t.type_text("next");
    t.keys(&["Enter"]);
    t.wait_text("=>   10          float yi = y[i];");
    t.keys(&["0", "z"]);
    let s = t.wait_text("xi  (f32 in v4)");
    assert!(
        s.contains("  [16]  16   17   18"),
        "lanes 16.. of i and xi:\n{s}"
    );
    t.keys(&["z"]);
    quit(&t);
}

/// Issue 27: a kernel compiled from two files (tui/tests/fixtures/two_files.s, util.h's
/// `mad` inlined into two_files.cl): the Source pane's title names util.h once `next`
/// steps into its code, and two_files.cl again once it steps out.
#[test]
fn the_source_pane_switches_files_in_a_real_terminal() {
    let Some(t) = start("two_files") else {
        return;
    };
    let kernel = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tui/tests/fixtures/two_files.s"
    );
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} {} tui {kernel}",
        t.dir.join("history").display(),
        env!("CARGO_BIN_EXE_wavedbg")
    ));
    t.keys(&["Enter"]);
    let s = t.wait_text(" READY ");
    assert!(s.contains("Source: two_files.cl "), "{s}");
    // One line at a time, each waited for (a command line typed during a run is refused).
    let next = |line: &str| {
        t.keys(&[":"]);
        t.type_text("next");
        t.keys(&["Enter"]);
        t.wait_text(line)
    };
    next("=>    7      uint i");
    next("=>    8      float xi");
    next("=>    9      float r");
    let s = next("=>    4      float p = a * b;");
    assert!(s.contains("Source: util.h "), "{s}");
    next("=>    5      return p + c;");
    let s = next("=>   10      y[i] = r;");
    assert!(s.contains("Source: two_files.cl "), "{s}");
    quit(&t);
}

/// A kernel that counts down 50 million times: a `goto` far into it runs a while.
const LONG: &str = "\
.kernel long
    umovi u1, 50000000
loop:
    uaddi u1, u1, -1
    br.unz u1, loop
    end
";

/// Type-ahead and pastes as a user meets them: `r` typed five times while a `goto` runs
/// steps back five times once it stops (keys typed during a run were dropped); a
/// bracketed paste of two lines into the command line runs both (its line break was
/// dropped, joining them); a tab in it is a space.
#[test]
fn keys_typed_during_a_run_and_a_pasted_script_in_a_real_terminal() {
    let Some(t) = start("typeahead") else {
        return;
    };
    let k = t.dir.join("long.s");
    std::fs::write(&k, LONG).expect("kernel");
    start_tui_on(&t, &k);
    t.keys(&[":"]);
    t.type_text("goto 60000000");
    t.keys(&["Enter"]);
    t.keys(&["r", "r", "r", "r", "r"]);
    t.wait_for("the run and the five steps back", |s| {
        s.contains(" STOPPED ") && s.contains("[count 59999995]")
    });
    t.keys(&[":"]);
    t.ok(&[
        "set-buffer",
        "-b",
        "script",
        "print 40 +\t2\nprint 7 * 6 + 1\n",
    ]);
    t.ok(&["paste-buffer", "-p", "-b", "script", "-t", "main"]);
    t.wait_for("both pasted lines run", |s| {
        s.contains("= 42") && s.contains("= 43")
    });
    quit(&t);
}

/// Raw mode: Esc reaches the TUI as a key without Enter, is not echoed, and interrupts the
/// run.
fn esc_interrupts_the_run(t: &Tmux) {
    t.keys(&["Escape"]);
    let s = t.wait_text("Interrupted");
    assert!(!s.contains("^["), "Esc was echoed, not read:\n{s}");
}

/// A deadlocked launch and the help overlay in a real terminal at 20x8, 80x24 and 200x60:
/// a second `c` says the launch is deadlocked at every size, and the help keeps its top
/// entry across the resizes (and closes).
#[test]
fn deadlock_and_help_across_resizes_in_a_real_terminal() {
    let Some(t) = tmux::start("deadlock", "tui-test$ ", (80, 24), false) else {
        return;
    };
    let kernel = t.dir.join("dl.s");
    std::fs::write(
        &kernel,
        ".kernel dl\n.workgroup 64\n    uwaveid u5\n    br.unz u5, quit\nwait_here:\n    barrier\n    end\nquit:\n    end\n",
    )
    .expect("write the kernel");
    start_tui_on(&t, &kernel);
    t.keys(&["c"]);
    t.wait_text("Deadlock");
    t.keys(&["c"]);
    t.wait_text(" PROBLEM  Cannot run: the launch is deadlocked: deadlo");
    // Wider, every word of it on the status line; at 20x8 the status line still starts
    // with it, cut, and the screen is drawn whole.
    t.ok(&["resize-window", "-t", "main", "-x", "200", "-y", "60"]);
    t.wait_for("the deadlock at 200x60", |s| {
        s.lines().count() <= 60
            && s.lines().any(|l| {
                l.contains(" PROBLEM  Cannot run: the launch is deadlocked: deadlock in workgroup 0: wave 0 (pc 0x000c) waits at the barrier at 0x0008 <wait_here>; wave 1 (exited) will never arrive")
            })
    });
    t.ok(&["resize-window", "-t", "main", "-x", "20", "-y", "8"]);
    let s = t.wait_for("the deadlock at 20x8", |s| {
        s.lines().count() <= 8 && s.lines().any(|l| l.starts_with(" PROBLEM  Cannot run"))
    });
    assert!(s.lines().all(|l| l.chars().count() <= 20), "{s}");
    t.ok(&["resize-window", "-t", "main", "-x", "80", "-y", "24"]);
    t.wait_for("the deadlock at 80x24", |s| {
        s.lines()
            .any(|l| l.starts_with(" PROBLEM  Cannot run: the launch is deadlocked"))
            && s.lines().any(|l| l.chars().count() > 70)
    });
    // The help, scrolled to an entry: it stays at the top at every size (at 200x60 the
    // whole help fits and shows from its start), and the keys close it.
    t.keys(&["?"]);
    t.wait_text(" Keys 1-22 of 40 ");
    t.keys(&["j", "j", "j", "j", "j", "j", "j", "j", "j", "j"]);
    let s = t.wait_text(" Keys 11-32 of 40 ");
    assert!(s.contains("│Views:"), "{s}");
    t.ok(&["resize-window", "-t", "main", "-x", "200", "-y", "60"]);
    t.wait_text(" Keys (any key closes) ");
    t.ok(&["resize-window", "-t", "main", "-x", "20", "-y", "8"]);
    let s = t.wait_for("the help at 20x8", |s| {
        s.lines().count() <= 8 && s.contains("│Views:")
    });
    assert!(s.contains("┌ Keys "), "{s}");
    t.ok(&["resize-window", "-t", "main", "-x", "80", "-y", "24"]);
    t.wait_for("the help at 80x24 again", |s| {
        s.contains(" Keys 11-32 of 40 ") && s.contains("│Views:")
    });
    t.keys(&["Escape"]);
    t.wait_for("the help to close", |s| !s.contains(" Keys "));
    quit(&t);
}
