//! End-to-end test of the full-screen debugger in a real terminal: tmux runs `wavedbg` in
//! a detached session at 120x40; the test types keys with `send-keys` and reads the screen
//! with `capture-pane`, polling with timeouts. It steps, sets a breakpoint from the command
//! line, continues to it, opens the help, quits, and checks the shell prompt works after.
//!
//! tmux is installed by .ci/run; outside CI (CI unset) a missing tmux skips the test with a
//! message.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A private tmux server (its own socket), killed when dropped.
struct Tmux {
    socket: String,
    dir: PathBuf,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("-f")
            .arg("/dev/null")
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run tmux {args:?}: {e}"))
    }

    fn ok(&self, args: &[&str]) {
        let out = self.cmd(args);
        assert!(
            out.status.success(),
            "tmux {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "main"];
        args.extend(keys);
        self.ok(&args);
    }

    fn type_text(&self, text: &str) {
        self.ok(&["send-keys", "-t", "main", "-l", text]);
    }

    fn screen(&self) -> String {
        let out = self.cmd(&["capture-pane", "-p", "-t", "main"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Polls the screen until `pred` holds (10 s at most).
    fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            if start.elapsed() > Duration::from_secs(10) {
                panic!("timed out waiting for {what}; the screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    fn wait_text(&self, text: &str) -> String {
        self.wait_for(&format!("`{text}`"), |s| s.contains(text))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn step_break_continue_help_quit_in_a_real_terminal() {
    if !tmux_available() {
        if std::env::var_os("CI").is_some() {
            panic!("tmux is required in CI (.ci/run installs it)");
        }
        eprintln!("SKIPPED: tmux is not installed (apt-get install tmux); the TUI end-to-end test did not run");
        return;
    }
    let dir = std::env::temp_dir().join(format!("wavedbg-tmux-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let t = Tmux {
        socket: format!("wavedbg-test-{}", std::process::id()),
        dir: dir.clone(),
    };
    t.ok(&[
        "new-session",
        "-d",
        "-s",
        "main",
        "-x",
        "120",
        "-y",
        "40",
        "sh",
    ]);
    // A shell prompt we can recognise, then the debugger on the built-in demo.
    t.type_text("PS1='tui-test$ '");
    t.keys(&["Enter"]);
    t.wait_text("tui-test$");
    let history = dir.join("history");
    t.type_text(&format!(
        "WAVEDBG_HISTORY={} {}",
        history.display(),
        env!("CARGO_BIN_EXE_wavedbg")
    ));
    t.keys(&["Enter"]);
    let s = t.wait_text(" READY ");
    assert!(s.contains("demo:histogram.s"), "{s}");
    assert!(s.contains("Lanes: wave 0"), "{s}");

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
    assert!(!s.contains("Lanes:"), "the alternate screen was left:\n{s}");
    // The command typed in the TUI went into the shared history.
    let h = std::fs::read_to_string(&history).unwrap_or_default();
    assert!(h.lines().any(|l| l == "break next_word"), "history: {h:?}");
}
