//! The REPL with piped input costs the same per command however many come: 20,000
//! distinct commands (each a new history entry) run, all answered, and the history file
//! holds the last of them. Figures: docs/performance.md, "REPL with piped input". Piped
//! input is never asked a question: `run` restarts at once, as in gdb's batch mode. gdb's
//! words (`step`, `next`, `bt`, `where`, `info frame`, `up`, `down`, `until`, `start`,
//! `run`, `help quit`) do what gdb's do at the wave level.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use wavedbg_emulator::debug::session::HISTORY_ENTRIES;

/// Far above what 20,000 commands take (about 0.3 s; 18 s when every line re-read and
/// rewrote the history file), so only a per-command cost that grows fails it.
const BOUND: Duration = Duration::from_secs(12);

#[test]
fn twenty_thousand_piped_commands_run_in_bounded_time_and_reach_the_history() {
    const N: usize = 20_000;
    let dir = tempfile::tempdir().expect("temp dir");
    let history = dir.path().join("history");
    let input: String = (1..=N).map(|i| format!("print {i}\n")).collect();
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_wavedbg"))
        .args(["repl", "scripts/histogram.s"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("WAVEDBG_HISTORY", &history)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start wavedbg");
    let mut stdin = child.stdin.take().expect("stdin");
    // Written from a thread: the REPL's output fills the pipe while input is still coming.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("wait");
    let took = start.elapsed();
    writer.join().expect("writer").expect("write stdin");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: Vec<&str> = stdout.lines().filter(|l| l.contains(" = ")).collect();
    assert_eq!(results.len(), N);
    assert_eq!(results[0], "1 = 1");
    assert_eq!(results[N - 1], format!("{N} = {N}"));
    // The history keeps its bounded number of entries, ending with the last command.
    let saved = std::fs::read_to_string(&history).expect("history file");
    let entries: Vec<&str> = saved.lines().filter(|l| !l.starts_with("#V")).collect();
    assert_eq!(entries.len(), HISTORY_ENTRIES);
    assert_eq!(entries.last().copied(), Some(format!("print {N}").as_str()));
    assert!(took < BOUND, "{N} commands took {took:?}");
}

/// `replay` of 40,000 unknown commands: every one is an error with its line in the
/// transcript, and the run stays linear (each error's suggestion compares the word with
/// the command names of about its length only).
#[test]
fn forty_thousand_unknown_commands_replay_in_bounded_time() {
    const N: usize = 40_000;
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("bogus.wdb");
    let root = env!("CARGO_MANIFEST_DIR");
    let mut text = format!("#! kernel {root}/scripts/histogram.s\n");
    text.push_str(&"bogus\n".repeat(N));
    std::fs::write(&script, text).expect("script");
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_wavedbg"))
        .arg("replay")
        .arg(&script)
        .output()
        .expect("run wavedbg");
    let took = start.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    let errors = stdout
        .lines()
        .filter(|l| l.starts_with("error: unknown command `bogus`"))
        .count();
    assert_eq!(errors, N);
    assert!(
        stdout.contains(&format!("{N} commands failed")),
        "{}",
        &stdout[stdout.len() - 200..]
    );
    assert!(took < BOUND, "{N} lines took {took:?}");
}

/// Piped input is never asked anything (gdb's batch mode): `restart` and `run` after
/// steps restart at once, and the line after it is a command, not an answer. Recorded with `set confirm`,
/// the session replays to the same restarts.
#[test]
fn piped_run_restarts_without_asking_and_the_recording_replays() {
    let dir = tempfile::tempdir().expect("temp dir");
    let record = dir.path().join("rec.wdb");
    let input = "stepi 3\nrestart\ny\ninfo history\nset confirm off\nstepi\nr\nset confirm on\nstepi 2\nrestart\ninfo history\n";
    let stdout = repl_with(
        &[
            "scripts/histogram.s",
            "--record",
            &record.display().to_string(),
        ],
        input,
        None,
    );
    assert!(!stdout.contains("(y or n)"), "asked:\n{stdout}");
    assert!(!stdout.contains("Not confirmed."), "{stdout}");
    assert_eq!(stdout.matches("Restarted: ").count(), 3, "{stdout}");
    // `y` was read as a command, not as an answer.
    assert!(stdout.contains("error: unknown command `y`"), "{stdout}");
    // `r` (gdb's `run`) restarted and ran to the end.
    assert!(stdout.contains("All waves exited"), "{stdout}");
    let at_start =
        "Recorded history: instructions 0 to 0 (the launch to the newest point), now at 0.";
    assert_eq!(stdout.matches(at_start).count(), 2, "{stdout}");
    // What ran is recorded, `set confirm` with it, and replays to success.
    let recorded = std::fs::read_to_string(&record).expect("recording");
    let lines: Vec<&str> = recorded.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        lines,
        [
            "stepi 3",
            "restart",
            "info history",
            "set confirm off",
            "stepi",
            "r",
            "set confirm on",
            "stepi 2",
            "restart",
            "info history"
        ],
        "{recorded}"
    );
    let replay = Command::new(env!("CARGO_BIN_EXE_wavedbg"))
        .arg("replay")
        .arg(&record)
        .output()
        .expect("replay");
    let transcript = String::from_utf8_lossy(&replay.stdout);
    assert_eq!(replay.status.code(), Some(0), "{transcript}");
    assert_eq!(transcript.matches("Restarted: ").count(), 3, "{transcript}");
    assert!(!transcript.contains("error:"), "{transcript}");
}

/// Runs the REPL on `kernel` with `input` piped in (with `COLUMNS` set, as a terminal
/// would have, when `columns` is given); its stdout.
fn repl_on(kernel: &str, input: &str, columns: Option<&str>) -> String {
    repl_with(&[kernel], input, columns)
}

/// Runs `wavedbg repl ARGS` with `input` piped in; its stdout, once it exited with 0.
fn repl_with(args: &[&str], input: &str, columns: Option<&str>) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wavedbg"));
    cmd.arg("repl")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("WAVEDBG_HISTORY", dir.path().join("history"));
    if let Some(c) = columns {
        cmd.env("COLUMNS", c);
    }
    let out = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(input.as_bytes())?;
            child.wait_with_output()
        })
        .expect("run wavedbg");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Piped output is not a terminal: nothing is fitted to a width, whatever `COLUMNS` says.
/// The output is byte for byte what `set width 0` (unlimited) prints: lane tables 8 lanes
/// a row, `help` and `info registers` in their long lines, the context's full headers.
#[test]
fn piped_output_is_never_fitted_to_a_width() {
    let commands =
        "break combine\ncontinue\np v1\np v1 + 1\ninfo registers\nhelp\nhelp set\ncontext\n";
    let plain = repl_on("scripts/reduce.s", commands, Some("80"));
    let unlimited = repl_on(
        "scripts/reduce.s",
        &format!("set width 0\n{commands}"),
        Some("80"),
    );
    assert_eq!(plain, unlimited);
    assert!(plain.contains("\n  [ 8]   0x00000009 *"), "{plain}");
    assert!(!plain.contains("\n  [ 4]"), "{plain}");
    assert!(plain.lines().any(|l| l.chars().count() > 120), "{plain}");
    assert!(
        plain.contains(&format!("-- end {}\n", "-".repeat(71))),
        "{plain}"
    );
    assert!(plain.contains("\n  u0 =0x00000000  u1 =0x00000001  u2 =0x00020000  u3 =0x00000001  u4 =0x00000000  u5 =0x00000000  u6 =0x00000002* u7 =0x00000000\n"), "{plain}");
}

/// gdb's words with their wave-level meaning: `s` and `n` step an instruction (no line
/// table finer than the instructions), `bt`/`where`/`frame` show the one frame, `up` and
/// `down` refuse as gdb does at it, a `tbreak` stops as "Temporary breakpoint", `info
/// lanes` shows the lanes that stopped, `finish` with scheduler-locking off lets the other
/// waves release the barrier, and unknown words suggest gdb's.
#[test]
fn gdbs_words_do_what_gdb_does_at_the_wave_level() {
    let input = "set context off\ns\nn 2\nbt\nwhere\ninfo frame\nframe\nup\ndown\ntbreak next_word\ncontinue\ninfo lanes v1 u2\nfinish\nset scheduler-locking off\nfinish\nstp\nbactrace\nhelp quit\nhelp s\nhelp where\nstart\nuntil\nadvance 0xfc\ninfo threads\nthread 1\nrun\n";
    let out = repl_on("scripts/histogram.s", input, None);
    // `s` and `n 2`: one and two instructions.
    assert!(out.contains("wave 0 (workgroup 0) [count 1]\n"), "{out}");
    assert!(out.contains("wave 0 (workgroup 0) [count 3]\n"), "{out}");
    // One frame, gdb style, for the selected wave and lane.
    let frame = "#0  0x000c in histogram () at histogram.s:33\n    [wave 0 (workgroup 0), lane 0; a wave has no call stack]\n";
    assert_eq!(out.matches(frame).count(), 2, "bt and where:\n{out}");
    assert!(
        out.contains("Stack level 0, frame of wave 0 (workgroup 0), lane 0:\n pc = 0x000c in histogram (histogram.s:33)"),
        "{out}"
    );
    assert!(
        out.contains("Outermost frame: this GPU has no call stack"),
        "{out}"
    );
    assert!(
        out.contains("error: Initial frame selected; you cannot go up."),
        "{out}"
    );
    assert!(
        out.contains("error: Bottom (innermost) frame selected; you cannot go down."),
        "{out}"
    );
    // The temporary breakpoint's stop, and the lanes it stopped in.
    assert!(
        out.contains("Temporary breakpoint 1, wave 0 (workgroup 0), lanes 0-31 [count "),
        "{out}"
    );
    assert!(
        out.contains("B: the lanes that stopped at breakpoint 1\n  Lane  State     Hit          v1          u2\n*    0  active    B    0x00000000  0x00020000\n"),
        "{out}"
    );
    // Frozen at the barrier the hint names `set scheduler-locking off`, which works.
    assert!(
        out.contains("which are frozen (continue, or set scheduler-locking off)"),
        "{out}"
    );
    assert!(out.contains("wave 0 (workgroup 0) exited [count "), "{out}");
    // gdb's words are suggested, and help knows every alias.
    assert!(
        out.contains("unknown command `stp` (did you mean `step`?)"),
        "{out}"
    );
    assert!(
        out.contains("unknown command `bactrace` (did you mean `backtrace`?)"),
        "{out}"
    );
    assert!(out.contains("quit\nquit: end the session"), "{out}");
    assert!(out.contains("step [N]\nstep: "), "{out}");
    assert!(out.contains("backtrace\nbacktrace: "), "{out}");
    assert!(out.contains("aliases: bt, where\n"), "{out}");
    // `start` stops at the first instruction; `until` steps past it; `advance` names the
    // address as every command does.
    assert!(
        out.contains("Restarted: 32 waves resident, all at 0x0000.\nwave 0 (workgroup 0) reached 0x0000 [count 0]\n"),
        "{out}"
    );
    assert!(out.contains("reached 0x00fc <"), "{out}");
    assert!(out.contains("  Wave  WG  Idx  State"), "{out}");
    assert!(out.contains("[Switching to wave 1 (workgroup 0)"), "{out}");
    // `run`: restarted and run to the end.
    assert!(
        out.contains("Restarted: 32 waves resident, all at 0x0000.\nAll waves exited"),
        "{out}"
    );
    assert!(!out.contains("(y or n)"), "{out}");
}

/// After the deadlock nothing else can get past, `continue` and `stepi` run nothing and
/// say the launch is deadlocked, instead of the same `Deadlock:` stop again and again;
/// `reverse-stepi` still goes back.
#[test]
fn continuing_a_deadlocked_launch_says_it_cannot_run() {
    let out = repl_on(
        "tests/kernels/exit_before_barrier.s",
        "c\nc\nc\nstepi\nreverse-stepi\n",
        None,
    );
    let firsts: Vec<&str> = out
        .lines()
        .filter(|l| {
            l.starts_with("Deadlock:") || l.starts_with("Cannot run") || l.starts_with("wave ")
        })
        .collect();
    let deadlock = "deadlock in workgroup 1: wave 2 (pc 0x0058) waits at the barrier at 0x0054; wave 3 (exited) will never arrive";
    assert_eq!(
        firsts,
        vec![
            format!("Deadlock: {deadlock} [count 133]"),
            format!("Deadlock: {deadlock} [count 142]"),
            format!("Cannot run: the launch is deadlocked: {deadlock} [count 142]"),
            format!("Cannot run: the launch is deadlocked: {deadlock} [count 142]"),
            "wave 2 (workgroup 1) [count 131]".to_string(),
        ],
        "{out}"
    );
    assert!(
        out.contains(
            "  nothing can run: reverse-stepi and reverse-continue go back, run starts again\n"
        ),
        "{out}"
    );
}
