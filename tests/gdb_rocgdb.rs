//! ROCgdb's and cuda-gdb's habits through stock gdb and gdb-multiarch with
//! scripts/wavedbg.gdb (issue 24, items 9 and 10; docs/gdb.md, "ROCgdb and cuda-gdb
//! habits"): the convenience variables `$_lane`, `$_dispatch_pos`, `$_thread_workgroup_pos`
//! and `$_lane_workgroup_pos` after stops, `lane`, `wave`, `thread`, a register write and
//! at the prompt; `info agents`, `info queues` and `info dispatches`; `info lanes` with
//! register columns; and a client that detaches, after which the next one is served at
//! once (gdb retries a refused connection for 15 s).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod clients;
use clients::*;

/// tests/kernels/lanes.s: four workgroups of two waves (64 lanes), 256 bytes of shared
/// memory a workgroup and 16 of scratch a lane; v3 is the global lane id, and at `odd`
/// only the odd lanes are active.
const LANES: &str = include_str!("kernels/lanes.s");

fn helpers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/wavedbg.gdb")
}

/// The four variables, on one line after `label`.
fn show(label: &str) -> String {
    format!(
        "printf \"{label}: %d %s %s %s\\n\", $_lane, $_dispatch_pos, $_thread_workgroup_pos, $_lane_workgroup_pos"
    )
}

/// With `--resident 1` (one workgroup of two waves at a time): the variables at the
/// start, after `lane 3`, at a stop in wave 4 (workgroup 2), after `wave 5`, after `thread
/// N` back to wave 4, after `set var $lane = 7`, in `lane apply`; the three tables, their
/// id filters and `-full`; `info lanes` with register columns (inactive lanes in
/// parentheses); `info dis` still `info display`; after `kill`, no thread and no agent,
/// queue or dispatch.
fn variables_and_tables_with(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "lanes.s", LANES);
    let odd = label_addr(&k, "odd");
    let server = Server::start_with(&k, &["--resident", "1"]);
    let script = format!(
        "source {helpers}
{start}
lane 3
{lane3}
break *{odd:#x} if $workgroup == 2 && $wave_in_wg == 0
continue
{stop}
wave 5
{wave5}
python gdb.execute('thread %d' % next(t.num for t in gdb.selected_inferior().threads() if t.ptid[1] == 5))
{thread}
set var $lane = 7
{write}
lane apply 1-2 -q printf \"apply: %d %s\\n\", $_lane, $_lane_workgroup_pos
{applied}
p $_streq($_lane_workgroup_pos, \"[7,0,0]\")
ptype $_lane
info agents
info agents 2
info agents 1.1
info queues
info dispatches
info dispatches -full 1
info lanes v3 0-3
info lanes -active -r v3 v4 u5 0-3
info dis
kill
printf \"killed: %d [%s] [%s]\\n\", $_lane, $_dispatch_pos, $_lane_workgroup_pos
info agents
info queues
info dispatches
",
        helpers = helpers().display(),
        start = show("start"),
        lane3 = show("lane 3"),
        stop = show("stop"),
        wave5 = show("wave 5"),
        thread = show("thread"),
        write = show("set lane"),
        applied = show("after apply"),
    );
    let out = gdb(client, &server, &script, false, None);
    let port = &server.addr;
    check(
        &out,
        &server,
        &[
            "start: 0 (0,0,0)/0 0 [0,0,0]\n",
            "lane 3: 3 (0,0,0)/0 0 [3,0,0]\n",
            "Thread 5 hit Breakpoint 1, ",
            "stop: 3 (2,0,0)/0 0 [3,0,0]\n",
            "wave 5: 3 (2,0,0)/1 1 [35,0,0]\n",
            "thread: 3 (2,0,0)/0 0 [3,0,0]\n",
            "set lane: 7 (2,0,0)/0 0 [7,0,0]\n",
            "apply: 1 [1,0,0]\napply: 2 [2,0,0]\n",
            "after apply: 7 (2,0,0)/0 0 [7,0,0]\n",
            "$1 = 1\n",
            "type = int\n",
            &format!(
                "  Id State Target Id                Architecture Device Name        Cores Threads Location\n\
                 * 1  A     wavedbg Agent (emulated) wave32       wavedbg wave32 GPU 1     2       {port}\n\
                 No active agents match '2'.\n  Id State"
            ),
            "  Id   Target Id                 Type         Read   Write  Size     Address\n\
             * 1    wavedbg Queue 1:1 (QID 0) Launch       1      1      0        0x0000000000000000\n",
            "  Id   Target Id                       Grid  Workgroup Fence   Kernel Function\n\
             * 1    wavedbg Dispatch 1:1:1 (PKID 0) [256] [64]              lanes\n",
            "  Id   Target Id                       Grid  Workgroup Fence   Address Spaces           Kernel Function\n\
             * 1    wavedbg Dispatch 1:1:1 (PKID 0) [256] [64]              Shared(256), Private(16) lanes\n",
            // Wave 4's lanes hold 128 + lane in v3 and four times that in v4; only the odd
            // lanes are active at `odd`.
            "  Id  State  Target Id                               v3            Frame\n\
             \x20 0   I      wave 4 lane 0, workgroup 2 work-item 0  (0x00000080)  0x0000000000000070\n\
             \x20 1   A      wave 4 lane 1, workgroup 2 work-item 1  0x00000081    0x0000000000000070\n\
             \x20 2   I      wave 4 lane 2, workgroup 2 work-item 2  (0x00000082)  0x0000000000000070\n\
             \x20 3   A      wave 4 lane 3, workgroup 2 work-item 3  0x00000083    0x0000000000000070\n",
            "  Id  State  Target Id                               v3          v4          u5          Frame\n\
             \x20 1   A      wave 4 lane 1, workgroup 2 work-item 1  0x00000081  0x00000204  0x00000000  0x0000000000000070\n\
             \x20 3   A      wave 4 lane 3, workgroup 2 work-item 3  0x00000083  0x0000020c  0x00000000  0x0000000000000070\n",
            "There are no auto-display expressions now.",
            "[Inferior 1 (process 1) killed]",
            "killed: 0 [] []\n",
            "No agents are currently active.\n",
            "No queues are currently active.\n",
            "No dispatches are currently active.\n",
        ],
    );
    assert_eq!(
        out.matches("* 1  A     wavedbg Agent").count(),
        2,
        "`info agents 1.1` lists it:\n{out}"
    );
    assert!(!out.contains("Traceback"), "{out}");
}

#[test]
fn gdb_has_rocgdbs_variables_and_tables() {
    variables_and_tables_with("gdb");
}

#[test]
fn gdb_multiarch_has_rocgdbs_variables_and_tables() {
    variables_and_tables_with("gdb-multiarch");
}

/// Runs a client with `input` on its standard input, as a person types at its prompt
/// (gdb then shows a prompt before each line, where a batch script has none); its output.
fn piped(client: &str, args: &[&str], input: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("output.txt");
    let file = std::fs::File::create(&path).expect("output file");
    let mut child = Command::new(client)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::from(file.try_clone().expect("clone")))
        .stderr(Stdio::from(file))
        .spawn()
        .expect("start client");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write input");
    let end = Instant::now() + Duration::from_secs(90);
    while child.try_wait().ok().flatten().is_none() {
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::read_to_string(&path).unwrap_or_default()
}

/// At the prompt: a thread switch that runs no command (Python's `InferiorThread.switch`)
/// is seen at the next prompt. histogram.s keeps its 32 waves resident: wave 13 is the
/// sixth of workgroup 1.
fn variables_follow_the_prompt_with(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, _) = histogram_in(&dir);
    let server = Server::start(&k);
    let input = format!(
        "target remote {addr}
source {helpers}
lane 9
python next(t for t in gdb.selected_inferior().threads() if t.ptid[1] == 14).switch()
{prompt}
kill
quit
",
        addr = server.addr,
        helpers = helpers().display(),
        prompt = show("prompt"),
    );
    let out = piped(client, &["-nx", "-q"], &input);
    check(
        &out,
        &server,
        &[
            "[Switching to lane 9 (active) of wave 0, workgroup 0 work-item 9]",
            "prompt: 9 (1,0,0)/5 5 [169,0,0]\n",
        ],
    );
}

#[test]
fn gdb_rocgdb_variables_follow_the_prompt() {
    variables_follow_the_prompt_with("gdb");
}

#[test]
fn gdb_multiarch_rocgdb_variables_follow_the_prompt() {
    variables_follow_the_prompt_with("gdb-multiarch");
}

/// The script loads without a connection (sourced before `target remote`): it says what
/// to do, the variables are empty and no table lists anything.
fn loads_unconnected_with(client: &str) {
    if !have(client) {
        return;
    }
    let helpers = helpers().display().to_string();
    let mut cmd = Command::new(client);
    cmd.args(["-nx", "-batch", "-x", &helpers])
        .args(["-ex", &show("unconnected")])
        .args(["-ex", "info agents", "-ex", "info dispatches -full"])
        .args(["-ex", "info display"]);
    let out = run_client(cmd, Duration::from_secs(60), None);
    for wanted in [
        "wavedbg.gdb: not connected yet; after `target remote` run: set scheduler-locking step",
        "unconnected: 0   \n",
        "No agents are currently active.\n",
        "No dispatches are currently active.\n",
        "There are no auto-display expressions now.",
    ] {
        assert!(out.contains(wanted), "missing `{wanted}`:\n{out}");
    }
    assert!(
        !out.contains("Traceback") && !out.contains("Error"),
        "{out}"
    );
}

#[test]
fn gdb_loads_the_script_unconnected() {
    loads_unconnected_with("gdb");
}

#[test]
fn gdb_multiarch_loads_the_script_unconnected() {
    loads_unconnected_with("gdb-multiarch");
}

/// Whether `seen` holds a whole packet: `$`, a body, `#` and two checksum digits.
fn whole_packet(seen: &[u8]) -> bool {
    let Some(start) = seen.iter().position(|&b| b == b'$') else {
        return false;
    };
    seen[start..]
        .iter()
        .position(|&b| b == b'#')
        .is_some_and(|hash| seen.len() >= start + hash + 3)
}

/// Sends `qSupported` and reads its reply (what came until the reply was whole).
fn ask_features(s: &mut TcpStream) -> String {
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    s.write_all(b"+$qSupported#37").expect("write");
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    while !whole_packet(&seen) {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&seen).into_owned()
}

/// Waits for the server to say its client detached.
fn wait_detached(server: &Server) {
    assert!(
        server.wait_log(
            "client detached; waiting for another client",
            Duration::from_secs(10)
        ),
        "{}",
        server.log()
    );
}

/// A client that detaches leaves the server to the next, with the kernel as it was: gdb
/// steps and detaches; a raw connection (as `nc`) gets its `qSupported` answered at once;
/// gdb connects again at once (no 15 s of retrying a refused connection), finds the wave
/// where the step left it, and kills the kernel, which ends the server.
fn reconnect_after_detach_with(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "lanes.s", LANES);
    let mut server = Server::start(&k);
    let first = gdb(client, &server, "stepi\np $pc\ndetach\n", false, None);
    check(
        &first,
        &server,
        &[
            "$1 = (void (*)()) 0x4\n",
            "[Inferior 1 (process 1) detached]",
        ],
    );
    wait_detached(&server);
    let started = Instant::now();
    let mut raw = TcpStream::connect(&server.addr).expect("connect");
    let features = ask_features(&mut raw);
    assert!(features.contains("PacketSize="), "not served: {features}");
    drop(raw);
    assert!(server.wait_log("connection closed; waiting", Duration::from_secs(10)));
    let second = gdb(client, &server, "p $pc\nkill\n", false, None);
    let took = started.elapsed();
    check(
        &second,
        &server,
        &["$1 = (void (*)()) 0x4\n", "[Inferior 1 (process 1) killed]"],
    );
    assert!(
        took < Duration::from_secs(10),
        "served again only after {took:?}:\n{second}"
    );
    assert!(server.wait_exit(Duration::from_secs(10)).is_some());
}

#[test]
fn gdb_reconnects_at_once_after_detach() {
    reconnect_after_detach_with("gdb");
}

#[test]
fn gdb_multiarch_reconnects_at_once_after_detach() {
    reconnect_after_detach_with("gdb-multiarch");
}

/// The next client starts on the thread the server's `?` names, the last stop's (as a
/// native gdbserver's), and the server acts on that wave too: the last client stepped wave
/// 1 (thread 2) last, so `monitor` reads wave 1's PC, as gdb's `$pc` does, and
/// `reverse-stepi` takes wave 1 back (no switch to another thread).
#[test]
fn a_new_client_acts_on_the_thread_the_server_names() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, _) = histogram_in(&dir);
    let server = Server::start(&k);
    let first = gdb(
        "gdb",
        &server,
        "stepi\nthread 2\nstepi\nstepi\nstepi\nthread 1\ndetach\n",
        false,
        None,
    );
    check(&first, &server, &["[Inferior 1 (process 1) detached]"]);
    wait_detached(&server);
    let second = gdb(
        "gdb",
        &server,
        "thread\np $pc\nmonitor print pc\nreverse-stepi\nthread\np $pc\nkill\n",
        false,
        None,
    );
    check(
        &second,
        &server,
        &[
            "(Thread 1.2)]",
            "$1 = (void (*)()) 0xc\n",
            "= 0x000c",
            "$2 = (void (*)()) 0x8\n",
        ],
    );
    assert!(!second.contains("Switching"), "{second}");
}

/// Wave 1 of each workgroup faults while wave 0 waits at the barrier (SIGSEGV).
const FAULT_AFTER_WAIT: &str = include_str!("kernels/fault_after_wait.s");

/// A client that connects after another detached finds the stop that one left, as from a
/// native gdbserver: the thread of the last stop (here a watchpoint hit by wave 4, thread
/// 5; gdbstub's own answer named thread 1, and gdb then showed thread 1's registers as
/// thread 5's), and its signal (a fault's SIGSEGV, where lldb was told SIGTRAP).
#[test]
fn a_new_client_finds_the_last_stop() {
    if !have("gdb") || !have("lldb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, _) = histogram_in(&dir);
    let server = Server::start(&k);
    let first = gdb(
        "gdb",
        &server,
        "watch *(unsigned int *)(0x8000000000000000 + 4*0x51)\ncontinue\ncontinue\n\
         p $pc\ndetach\n",
        false,
        None,
    );
    check(
        &first,
        &server,
        &[
            "Thread 5 hit Hardware watchpoint 1",
            "$1 = (void (*)()) 0x90\n",
        ],
    );
    wait_detached(&server);
    let second = gdb(
        "gdb",
        &server,
        "p $wave\np $pc\ninfo threads 1\nthread 1\np $pc\nkill\n",
        false,
        None,
    );
    check(
        &second,
        &server,
        &[
            "$1 = 4\n",
            "$2 = (void (*)()) 0x90\n",
            "Thread 1.1 (wave 0, workgroup 0, wave_in_wg 0, ready, exec 0xffffffff) 0x00000000000000b0",
            "$3 = (void (*)()) 0xb0\n",
        ],
    );

    let k = kernel(&dir, "fault.s", FAULT_AFTER_WAIT);
    let server = Server::start(&k);
    let first = gdb("gdb", &server, "continue\ndetach\n", false, None);
    check(
        &first,
        &server,
        &["Thread 2 received signal SIGSEGV", "0x0000000000000044 in"],
    );
    wait_detached(&server);
    let out = lldb(&server, "register read pc\nprocess detach\n");
    check(
        &out,
        &server,
        &[
            "* thread #1, stop reason = signal SIGSEGV",
            "rip = 0x0000000000000044",
        ],
    );
    // (The second detach of this server.)
    let end = Instant::now() + Duration::from_secs(10);
    while server.log().matches("client detached").count() < 2 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = gdb("gdb", &server, "p $wave\np $pc\nkill\n", false, None);
    check(&out, &server, &["$1 = 1\n", "$2 = (void (*)()) 0x44\n"]);
}
