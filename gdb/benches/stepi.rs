//! stepi round trips per second through real gdb: against `wavedbg serve` (in this
//! process) stepping a kernel's endless loop at 2, 32 and 256 resident waves (each one a
//! gdb thread), and in the same run against `gdbserver`
//! stepping a native C loop compiled with gcc. Results go to docs/performance.md
//! ("GDB stepping").
//!
//! ```sh
//! cargo bench -p wavedbg-gdb --bench stepi            # 2,000 steps per case
//! cargo bench -p wavedbg-gdb --bench stepi -- 5000    # more
//! ```
//!
//! Two ways of stepping are measured, each with gdb's Python timing only the stepping:
//! `stepi` commands one at a time (each prints its stop, as a user stepping sees), and one
//! `stepi N` command (gdb's own loop: one resume and stop reply per instruction, nothing
//! printed). Needs gdb; the gdbserver rows need gdbserver and gcc.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use wavedbg_emulator::bench::resident_waves;
use wavedbg_emulator::debug::Engine;

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

const NATIVE: &str = "int main(void) { volatile unsigned long x = 0; for (;;) x++; return 0; }\n";

/// gdb commands that time `n` single `stepi` commands, then one `stepi n`.
fn timing_script(n: u32) -> String {
    format!(
        "python
import time
n = {n}
t = time.perf_counter()
for i in range(n):
    gdb.execute('stepi', to_string=True)
single = n / (time.perf_counter() - t)
t = time.perf_counter()
gdb.execute('stepi %d' % n, to_string=True)
batch = n / (time.perf_counter() - t)
print('RESULT %.0f %.0f' % (single, batch))
end
kill
"
    )
}

/// Runs gdb with `setup` commands then the timing script; returns (single, batch) stepi/s.
fn measure(target: &str, setup: &[&str], n: u32, dir: &Path) -> Option<(f64, f64)> {
    let script = dir.join("bench.gdb");
    std::fs::write(&script, timing_script(n)).ok()?;
    let mut cmd = Command::new("gdb");
    cmd.args(["-nx", "-batch", "-ex", &format!("target remote {target}")]);
    for s in setup {
        cmd.args(["-ex", s]);
    }
    let out = cmd
        .arg("-x")
        .arg(&script)
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("RESULT "))?;
    let mut it = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok());
    Some((it.next()?, it.next()?))
}

/// The spin kernel with `waves` resident waves (up to 32 per workgroup).
fn wavedbg_case(n: u32, waves: u32, dir: &Path) -> Option<(f64, f64)> {
    let program = wavedbg_emulator::asm::assemble(SPIN, "spin.s", None).ok()?;
    let engine = Engine::new(&program, resident_waves(waves)).ok()?;
    let listener = TcpListener::bind("127.0.0.1:0").ok()?;
    let addr = listener.local_addr().ok()?;
    std::thread::spawn(move || wavedbg_gdb::serve_on(engine, listener));
    measure(&addr.to_string(), &[], n, dir)
}

fn gdbserver_case(n: u32, dir: &Path) -> Option<(f64, f64)> {
    let src = dir.join("spin.c");
    let exe = dir.join("spin");
    std::fs::write(&src, NATIVE).ok()?;
    let built = Command::new("gcc")
        .args(["-O0", "-g", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .ok()?;
    if !built.success() {
        return None;
    }
    let port = TcpListener::bind("127.0.0.1:0")
        .ok()?
        .local_addr()
        .ok()?
        .port();
    let mut server = Command::new("gdbserver")
        .arg(format!("127.0.0.1:{port}"))
        .arg(&exe)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    std::thread::sleep(Duration::from_millis(500));
    let r = measure(
        &format!("127.0.0.1:{port}"),
        &["break main", "continue"],
        n,
        dir,
    );
    let _ = server.kill();
    let _ = server.wait();
    r
}

fn main() {
    let n: u32 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(2000);
    let dir = std::env::temp_dir().join(format!("wavedbg-stepi-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("cannot create {}: {e}", dir.display());
        return;
    }
    let gdb_version = Command::new("gdb")
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_string));
    let Some(gdb_version) = gdb_version else {
        eprintln!("gdb is not installed: nothing to measure");
        return;
    };
    println!("{gdb_version}; {n} steps per case");
    println!("| server | `stepi` commands/s | `stepi {n}`: steps/s |");
    println!("|---|---|---|");
    for waves in [2, 32, 256] {
        match wavedbg_case(n, waves, &dir) {
            Some((s, b)) => {
                println!("| wavedbg serve (kernel loop, {waves} waves) | {s:.0} | {b:.0} |")
            }
            None => println!("| wavedbg serve (kernel loop, {waves} waves) | failed | failed |"),
        }
    }
    match gdbserver_case(n, &dir) {
        Some((s, b)) => println!("| gdbserver (native C loop) | {s:.0} | {b:.0} |"),
        None => {
            println!("| gdbserver (native C loop) | not measured (needs gdbserver and gcc) | |")
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
