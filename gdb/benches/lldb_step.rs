//! lldb's `thread step-inst` per second through real lldb against `wavedbg serve` (in this
//! process) stepping a kernel's endless loop at 2, 32 and 256 resident waves (each one an
//! lldb thread). Results go to docs/performance.md ("GDB stepping", lldb).
//!
//! ```sh
//! cargo bench -p wavedbg-gdb --bench lldb_step            # 1,000 steps per case
//! cargo bench -p wavedbg-gdb --bench lldb_step -- 3000    # more
//! ```
//!
//! lldb's Python runs `thread step-inst` N times in one session
//! (`SBCommandInterpreter::HandleCommand`, which prints each stop into a result object as
//! a user stepping sees) and times them: wall-clock steps per second, and lldb's own CPU
//! time per step. The server's CPU time per step is this process's (the server thread's:
//! the main thread waits for lldb). On a shared machine the wall-clock figure follows the
//! load; the CPU times say where a step's work is. Needs lldb (Debian's lldb-14 and its
//! Python module).

use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};

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

/// Debian's lldb-14 needs its Python module on the path.
const LLDB_PYTHON: &str = "/usr/lib/llvm-14/lib/python3.11/dist-packages";

/// The Python that steps `n` times and prints `RESULT wall-steps/s lldb-us/step`.
fn timing_script(n: u32) -> String {
    format!(
        "import lldb, time
ci = lldb.debugger.GetCommandInterpreter()
res = lldb.SBCommandReturnObject()
n = {n}
t = time.perf_counter()
c = time.process_time()
for i in range(n):
    ci.HandleCommand('thread step-inst', res)
wall = time.perf_counter() - t
cpu = time.process_time() - c
print('RESULT %.0f %.0f' % (n / wall, cpu / n * 1e6))
"
    )
}

/// This process's CPU time in seconds (user + system, all threads), from /proc.
fn own_cpu() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// The spin kernel with `waves` resident waves: (wall steps/s, lldb µs/step, server
/// µs/step).
fn case(n: u32, waves: u32, dir: &Path) -> Option<(f64, f64, f64)> {
    let program = wavedbg_emulator::asm::assemble(SPIN, "spin.s", None).ok()?;
    let engine = Engine::new(&program, resident_waves(waves)).ok()?;
    let listener = TcpListener::bind("127.0.0.1:0").ok()?;
    let addr = listener.local_addr().ok()?;
    std::thread::spawn(move || wavedbg_gdb::serve_on(engine, listener));
    let script = dir.join("step.py");
    std::fs::write(&script, timing_script(n)).ok()?;
    let commands = dir.join("bench.lldb");
    std::fs::write(
        &commands,
        format!(
            "gdb-remote {addr}\ncommand script import {}\nprocess kill\n",
            script.display()
        ),
    )
    .ok()?;
    let before = own_cpu()?;
    let out = Command::new("lldb")
        .env("PYTHONPATH", LLDB_PYTHON)
        .args(["-b", "-o"])
        .arg(format!(
            "command source -e false -s false {}",
            commands.display()
        ))
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let server = (own_cpu()? - before) / f64::from(n) * 1e6;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("RESULT "))?;
    let mut it = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok());
    Some((it.next()?, it.next()?, server))
}

fn main() {
    let n: u32 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1000);
    let version = Command::new("lldb")
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_string));
    let Some(version) = version else {
        eprintln!("lldb is not installed: nothing to measure");
        return;
    };
    let dir = std::env::temp_dir().join(format!("wavedbg-lldb-step-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("cannot create {}: {e}", dir.display());
        return;
    }
    println!("{version}; {n} steps per case");
    println!("| resident waves | `thread step-inst`/s | lldb CPU µs/step | server CPU µs/step |");
    println!("|---|---|---|---|");
    for waves in [2, 32, 256] {
        match case(n, waves, &dir) {
            Some((wall, lldb, server)) => {
                println!("| {waves} | {wall:.0} | {lldb:.0} | {server:.0} |")
            }
            None => println!("| {waves} | failed | | |"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
