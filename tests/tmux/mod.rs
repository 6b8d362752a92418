//! A private tmux server for the real-terminal tests (tests/tui_tmux.rs,
//! tests/repl_tmux.rs): its own socket and folder, keys in with `send-keys`, the screen
//! out with `capture-pane`, polling with a timeout, killed when dropped.

#![allow(dead_code)] // Each test binary uses part of the harness.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long any one expected screen may take (generous: CI machines are shared).
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// A private tmux server (its own socket), killed when dropped.
pub struct Tmux {
    /// The server's socket name.
    pub socket: String,
    /// A folder of the test's own, removed when dropped.
    pub dir: PathBuf,
    /// Whether [`Tmux::screen`] includes the scrollback (the REPL scrolls; the TUI does not).
    pub scrollback: bool,
}

impl Tmux {
    /// Runs a tmux command on this server.
    pub fn cmd(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("-f")
            .arg("/dev/null")
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run tmux {args:?}: {e}"))
    }

    /// Runs a tmux command that must succeed.
    pub fn ok(&self, args: &[&str]) {
        let out = self.cmd(args);
        assert!(
            out.status.success(),
            "tmux {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Sends keys (tmux key names) to the session `main`.
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "main"];
        args.extend(keys);
        self.ok(&args);
    }

    /// Types text literally.
    pub fn type_text(&self, text: &str) {
        self.ok(&["send-keys", "-t", "main", "-l", text]);
    }

    /// The screen (with the scrollback when [`Tmux::scrollback`] is set, trailing blank
    /// lines dropped).
    pub fn screen(&self) -> String {
        let out = if self.scrollback {
            self.cmd(&["capture-pane", "-p", "-S", "-500", "-t", "main"])
        } else {
            self.cmd(&["capture-pane", "-p", "-t", "main"])
        };
        let text = String::from_utf8_lossy(&out.stdout);
        if self.scrollback {
            text.trim_end().to_owned()
        } else {
            text.into_owned()
        }
    }

    /// Polls the screen until `pred` holds on a whole frame.
    pub fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        let mut moving = 0;
        loop {
            let s = self.screen();
            if pred(&s) {
                // A capture can catch the terminal mid-frame (half old, half new): the
                // screen is returned once it holds still between two captures, or, for
                // one that keeps changing (a run's progress), once three later captures
                // in a row match too.
                std::thread::sleep(Duration::from_millis(30));
                let again = self.screen();
                if again == s {
                    return s;
                }
                if pred(&again) {
                    moving += 1;
                    if moving >= 3 {
                        return again;
                    }
                    continue;
                }
            }
            moving = 0;
            if start.elapsed() > TIMEOUT {
                panic!("timed out waiting for {what}; the screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Polls until the screen shows `text`.
    pub fn wait_text(&self, text: &str) -> String {
        self.wait_for(&format!("`{text}`"), |s| s.contains(text))
    }

    /// tmux's view of the pane's modes, e.g. `#{alternate_on}`.
    pub fn format(&self, format: &str) -> String {
        let out = self.cmd(&["display-message", "-p", "-t", "main", format]);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        // Whatever the panes still run is killed first: a client a test left running
        // (lldb 14) can outlive the terminal tmux closes and spin on it for ever.
        let panes = self.cmd(&["list-panes", "-a", "-F", "#{pane_pid}"]);
        let roots: Vec<u32> = String::from_utf8_lossy(&panes.stdout)
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect();
        for pid in descendants(&roots) {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).output();
        }
        let _ = self.cmd(&["kill-server"]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Every process below `roots` (children, their children, ...), from /proc.
fn descendants(roots: &[u32]) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let pid: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid ...`: comm may hold spaces, so split after its `)`.
            let ppid = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut found: Vec<u32> = Vec::new();
    let mut frontier: Vec<u32> = roots.to_vec();
    while let Some(p) = frontier.pop() {
        for &(child, parent) in &parents {
            if parent == p && !found.contains(&child) {
                found.push(child);
                frontier.push(child);
            }
        }
    }
    found
}

/// A tmux server for the test `name` (tests run in parallel, so each has its own socket
/// and folder), with a shell in session `main` of `width`x`height` whose prompt is
/// `prompt`; `None` (the test skips) when tmux is missing outside CI.
pub fn start(
    name: &str,
    prompt: &str,
    (width, height): (u16, u16),
    scrollback: bool,
) -> Option<Tmux> {
    if !tmux_available() {
        if std::env::var_os("CI").is_some() {
            panic!("tmux is required in CI (.ci/run installs it)");
        }
        eprintln!("SKIPPED: tmux is not installed (apt-get install tmux); the terminal test {name} did not run");
        return None;
    }
    let id = format!("{name}-{}", std::process::id());
    let dir = std::env::temp_dir().join(format!("wavedbg-tmux-{id}"));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let t = Tmux {
        socket: format!("wavedbg-test-{id}"),
        dir,
        scrollback,
    };
    let (w, h) = (width.to_string(), height.to_string());
    let shell = format!("env PS1='{prompt}' sh");
    t.ok(&[
        "new-session",
        "-d",
        "-s",
        "main",
        "-x",
        &w,
        "-y",
        &h,
        &shell,
    ]);
    // A prompt set before the shell starts, so seeing it means the shell is ready (typing
    // `PS1=...` instead echoes the prompt's text before the shell reads it).
    let ready = prompt.trim_end();
    t.wait_for("the shell prompt", |s| {
        s.lines().any(|l| l.starts_with(ready))
    });
    Some(t)
}

/// Whether tmux can be run.
pub fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether the process is alive (its /proc entry exists and it is not a zombie).
pub fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        !s.rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

/// The state letter of process `pid` (`T`: stopped), from /proc.
pub fn proc_state(pid: &str) -> char {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit(')')
                .next()
                .and_then(|r| r.trim_start().chars().next())
        })
        .unwrap_or('?')
}

/// Waits until process `pid` is stopped (up to [`TIMEOUT`]).
pub fn wait_stopped(pid: &str) {
    let start = Instant::now();
    while proc_state(pid) != 'T' {
        assert!(
            start.elapsed() < TIMEOUT,
            "not stopped: {}",
            proc_state(pid)
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Sends `signal` to `pid` with the shell's `kill`.
pub fn kill(signal: &str, pid: &str) {
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("kill -{signal} {pid}"))
        .status()
        .unwrap_or_else(|e| panic!("cannot run kill: {e}"));
    assert!(status.success(), "kill -{signal} {pid} failed");
}

impl Tmux {
    /// Resets the pane's terminal to cooked mode with echo, as bash does when a job stops
    /// (`sh` may not), from outside, through `stty -F`.
    pub fn stty_sane(&self) {
        let tty = self.format("#{pane_tty}");
        let status = Command::new("stty")
            .args(["-F", &tty, "sane"])
            .status()
            .unwrap_or_else(|e| panic!("cannot run stty: {e}"));
        assert!(status.success(), "stty -F {tty} sane failed");
    }

    /// Whether the pane's terminal is in canonical mode (`stty -a` says `icanon`).
    pub fn canonical(&self) -> bool {
        let tty = self.format("#{pane_tty}");
        let out = Command::new("stty")
            .args(["-F", &tty, "-a"])
            .output()
            .unwrap_or_else(|e| panic!("cannot run stty: {e}"));
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .any(|w| w == "icanon")
    }
}

/// The pid a launcher wrote to `path` (it `exec`s the program under test, so the pid is
/// that program's), waited for up to [`TIMEOUT`].
pub fn read_pid(path: &std::path::Path) -> String {
    let start = Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let pid = text.trim();
        if !pid.is_empty() && pid.chars().all(|c| c.is_ascii_digit()) {
            return pid.to_owned();
        }
        assert!(start.elapsed() < TIMEOUT, "no pid in {}", path.display());
        std::thread::sleep(Duration::from_millis(25));
    }
}
