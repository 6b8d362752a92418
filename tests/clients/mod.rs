//! What the tests with real clients share (included with `mod clients;`): the `wavedbg`
//! binary, kernels in temporary directories, a running `wavedbg serve`, and gdb, lldb
//! and their output, with a timeout. Outside CI (`CI` unset) a missing client skips its
//! test with a message; in CI it fails.

// Each test file uses some of these.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_wavedbg")
}

/// Writes a kernel into a fresh temporary directory.
pub fn kernel(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).expect("write kernel");
    p
}

/// scripts/histogram.s copied into `dir` (the server writes its symbol file beside the
/// kernel): its path and text.
pub fn histogram_in(dir: &tempfile::TempDir) -> (PathBuf, String) {
    let source =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/histogram.s"))
            .expect("histogram.s");
    (kernel(dir, "histogram.s", &source), source)
}

/// The address of a label, from `wavedbg disasm`.
pub fn label_addr(kernel: &Path, label: &str) -> u64 {
    let out = Command::new(bin())
        .arg("disasm")
        .arg(kernel)
        .output()
        .expect("run disasm");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if l.trim() == format!("{label}:") {
            let next = lines.next().expect("instruction after label");
            let hex = next.rsplit("; ").next().expect("address comment");
            return u64::from_str_radix(hex.trim(), 16).expect("hex address");
        }
    }
    panic!("no label {label} in\n{text}");
}

/// A running `wavedbg serve`; killed when dropped.
pub struct Server {
    pub child: Child,
    pub addr: String,
    log: Arc<Mutex<String>>,
}

impl Server {
    pub fn start(kernel: &Path) -> Server {
        Server::start_with(kernel, &[])
    }

    /// With more `wavedbg serve` options (`--resident 1`).
    pub fn start_with(kernel: &Path, options: &[&str]) -> Server {
        Server::start_listening(kernel, "127.0.0.1:0", options)
    }

    /// Listening on `listen` (`localhost:0`).
    pub fn start_listening(kernel: &Path, listen: &str, options: &[&str]) -> Server {
        let mut child = Command::new(bin())
            .arg("serve")
            .arg(kernel)
            .args(["--listen", listen])
            .args(options)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start wavedbg serve");
        let stderr = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on ").nth(1) {
                    let addr = rest.split_whitespace().next().unwrap_or("").to_string();
                    let _ = tx.send(addr);
                }
                if let Ok(mut l) = sink.lock() {
                    l.push_str(&line);
                    l.push('\n');
                }
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the server prints its address");
        Server { child, addr, log }
    }

    pub fn log(&self) -> String {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Waits for the server's stderr to say `text`; whether it did within `timeout`.
    pub fn wait_log(&self, text: &str, timeout: Duration) -> bool {
        let end = Instant::now() + timeout;
        while !self.log().contains(text) {
            if Instant::now() > end {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }

    /// Waits for the server to exit on its own.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let end = Instant::now() + timeout;
        while Instant::now() < end {
            if let Ok(Some(s)) = self.child.try_wait() {
                return Some(s);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether a client can run; outside CI a missing one skips the test visibly.
pub fn have(client: &str) -> bool {
    let ok = Command::new(client)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{client} is required in CI (.ci/run installs it)");
        }
        // Straight to stderr: the test harness captures `eprintln!` of passing tests.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: {client} is not installed (apt-get install gdb gdb-multiarch lldb)"
        );
    }
    ok
}

/// Runs a client to completion (killing it after `timeout`); `interrupt` sends it SIGINT
/// a second after its output contains that text. Returns its output, stdout and stderr
/// interleaved as written (both go to one file).
pub fn run_client(cmd: Command, timeout: Duration, interrupt: Option<&str>) -> String {
    run_client_interrupted(cmd, timeout, interrupt.as_slice())
}

/// [`run_client`] with a SIGINT a second after each of `markers` appears in the output,
/// in order (each marker is looked for after the previous interrupt).
pub fn run_client_interrupted(mut cmd: Command, timeout: Duration, markers: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("output.txt");
    let file = std::fs::File::create(&path).expect("output file");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::from(file.try_clone().expect("clone")))
        .stderr(Stdio::from(file))
        .spawn()
        .expect("start client");
    let read = || std::fs::read_to_string(&path).unwrap_or_default();
    let start = Instant::now();
    let mut marker_seen: Option<Instant> = None;
    let mut next = 0;
    // Where the output stood at the previous interrupt: the next marker is looked for after.
    let mut from = 0;
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        if let Some(m) = markers.get(next) {
            let out = read();
            if marker_seen.is_none() && out.get(from..).is_some_and(|o| o.contains(m)) {
                marker_seen = Some(Instant::now());
            }
            if marker_seen.is_some_and(|t| t.elapsed() > Duration::from_secs(1)) {
                let _ = Command::new("kill")
                    .args(["-INT", &child.id().to_string()])
                    .status();
                next += 1;
                from = out.len();
                marker_seen = None;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    read()
}

/// Runs a gdb script against the server (`extended` for `target extended-remote`).
pub fn gdb(
    client: &str,
    server: &Server,
    script: &str,
    extended: bool,
    interrupt: Option<&str>,
) -> String {
    gdb_with(client, server, script, extended, interrupt.as_slice())
}

/// [`gdb`] (remote) with a SIGINT a second after each of `markers`, in order.
pub fn gdb_interrupted(client: &str, server: &Server, script: &str, markers: &[&str]) -> String {
    gdb_with(client, server, script, false, markers)
}

fn gdb_with(
    client: &str,
    server: &Server,
    script: &str,
    extended: bool,
    markers: &[&str],
) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("script.gdb");
    std::fs::write(&file, script).expect("write script");
    let mut cmd = Command::new(client);
    let target = if extended {
        "extended-remote"
    } else {
        "remote"
    };
    cmd.args(["-nx", "-batch", "-ex"])
        .arg(format!("target {target} {}", server.addr))
        .arg("-x")
        .arg(&file);
    run_client_interrupted(cmd, Duration::from_secs(90), markers)
}

/// Runs an lldb script against the server.
pub fn lldb(server: &Server, script: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    lldb_elf(dir.path(), None, server, script)
}

/// Asserts that the client's output holds every wanted text (showing the server's log
/// when one is missing).
pub fn check(out: &str, server: &Server, wanted: &[&str]) {
    for w in wanted {
        assert!(
            out.contains(w),
            "missing `{w}` in the client's output:\n{out}\n--- server log:\n{}",
            server.log()
        );
    }
}

/// The line (1-based) of `label:` in a kernel's source.
pub fn label_line(source: &str, label: &str) -> usize {
    source
        .lines()
        .position(|l| l.trim() == format!("{label}:"))
        .map(|i| i + 1)
        .unwrap_or_else(|| panic!("no label {label}"))
}

/// Runs gdb in `dir` with a symbol file (`elf`, relative to `dir` or absolute) on a
/// script, connected to the server (`target remote`).
pub fn gdb_elf(client: &str, dir: &Path, elf: &str, server: &Server, script: &str) -> String {
    let file = dir.join("script.gdb");
    std::fs::write(&file, script).expect("write script");
    let mut cmd = Command::new(client);
    cmd.current_dir(dir)
        .args(["-nx", "-batch", elf, "-ex"])
        .arg(format!("target remote {}", server.addr))
        .arg("-x")
        .arg(&file);
    run_client(cmd, Duration::from_secs(90), None)
}

/// Runs lldb in `dir` on a script, after `target create ELF` (if any) and `gdb-remote`.
pub fn lldb_elf(dir: &Path, elf: Option<&Path>, server: &Server, script: &str) -> String {
    let file = dir.join("script.lldb");
    let create = elf
        .map(|e| format!("target create {}\n", e.display()))
        .unwrap_or_default();
    std::fs::write(
        &file,
        format!("{create}gdb-remote {}\n{script}", server.addr),
    )
    .expect("write script");
    let mut cmd = Command::new("lldb");
    // Debian's lldb-14 needs its Python module on the path to start cleanly.
    cmd.env(
        "PYTHONPATH",
        "/usr/lib/llvm-14/lib/python3.11/dist-packages",
    )
    .current_dir(dir)
    .args(["-b", "-o"])
    .arg(format!(
        "command source -e false -s false {}",
        file.display()
    ));
    run_client(cmd, Duration::from_secs(90), None)
}

/// Runs gdb in `dir` on a symbol file (`elf`, relative to `dir` or absolute) with every
/// line of `script` as its own `-ex`, connected to the server first (`target remote`)
/// when one is given. Unlike a `-x` script, which stops at its first error, an error in
/// one line leaves the others to run, so a test can show what fails too.
pub fn gdb_ex(
    client: &str,
    dir: &Path,
    elf: &str,
    server: Option<&Server>,
    script: &str,
) -> String {
    let mut cmd = Command::new(client);
    cmd.current_dir(dir).args(["-nx", "-batch", elf]);
    if let Some(s) = server {
        cmd.arg("-ex").arg(format!("target remote {}", s.addr));
    }
    for line in script.lines().filter(|l| !l.trim().is_empty()) {
        cmd.arg("-ex").arg(line);
    }
    run_client(cmd, Duration::from_secs(90), None)
}
