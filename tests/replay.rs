//! Sessions, the REPL and replay end to end through the `wavedbg` binary: every example
//! script and session replays to its golden transcript; a recorded REPL run replays to the
//! identical transcript; failures, diffs, bad session files.

mod bin;
use bin::wavedbg_in;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `wavedbg ARGS` in the repository root, with `stdin` (none: an empty input).
fn wavedbg(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    wavedbg_in(&root(), args, stdin.unwrap_or(""))
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .expect("dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

#[test]
fn every_example_script_replays_to_its_golden_transcript() {
    let mut scripts = files("scripts/replay", "wdb");
    assert!(scripts.len() >= 4);
    // The planted-bug kernels' scripts, which stop on each sanitizer finding.
    let bugs = files("scripts/bugs", "wdb");
    assert!(bugs.len() >= 3);
    scripts.extend(bugs);
    for s in scripts {
        let golden = s.with_extension("golden");
        let (code, out, err) = wavedbg(&["replay", &rel(&s), "--check", &rel(&golden)], None);
        assert_eq!(code, 0, "{}: {out}{err}", s.display());
    }
}

#[test]
fn every_example_session_replays_to_its_golden_transcript() {
    let sessions = files("sessions", "ron");
    assert!(!sessions.is_empty());
    for s in sessions {
        let golden = s.with_extension("golden");
        let (code, out, err) = wavedbg(&["replay", &rel(&s), "--check", &rel(&golden)], None);
        assert_eq!(code, 0, "{}: {out}{err}", s.display());
    }
}

#[test]
fn replay_is_byte_identical_and_ends_with_the_summary() {
    let (c1, a, _) = wavedbg(&["replay", "scripts/replay/reduce_per_wave_sums.wdb"], None);
    let (c2, b, _) = wavedbg(&["replay", "scripts/replay/reduce_per_wave_sums.wdb"], None);
    assert_eq!((c1, c2), (0, 0));
    assert_eq!(a, b);
    assert_eq!(a.lines().last(), Some("6 passed, 0 failed"));
}

#[test]
fn a_failing_expect_says_what_differed_and_fails_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("fail.wdb");
    let kernel = root().join("scripts/reduce.s");
    std::fs::write(&script, format!("#! kernel {}\nbreak combine\ncontinue\nexpect u8 == 7\nexpect wave == 0\nbogus command\n", kernel.display())).expect("write");
    let (code, out, _) = wavedbg(&["replay", script.to_str().expect("utf8")], None);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("expect FAILED: u8 == 7: left side u8 = 528 (0x210), right side 7 = 7 (0x7)"),
        "{out}"
    );
    assert!(out.contains("error: unknown command `bogus`"), "{out}");
    assert!(out.contains("1 command failed"), "{out}");
    assert_eq!(out.lines().last(), Some("1 passed, 1 failed"));
}

#[test]
fn check_shows_a_diff_and_bless_rewrites_the_golden() {
    let dir = tempfile::tempdir().expect("tempdir");
    let golden = dir.path().join("g.golden");
    std::fs::write(&golden, "(wavedbg) something else\n").expect("write");
    let script = "scripts/replay/reduce_per_wave_sums.wdb";
    let g = golden.to_str().expect("utf8");
    let (code, out, _) = wavedbg(&["replay", script, "--check", g], None);
    assert_eq!(code, 1);
    assert!(
        out.contains("transcript differs")
            && out.contains("-(wavedbg) something else")
            && out.contains("+(wavedbg) break combine"),
        "{out}"
    );
    let (code, _, err) = wavedbg(&["replay", script, "--check", g, "--bless"], None);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = wavedbg(&["replay", script, "--check", g], None);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("matches"), "{err}");
}

#[test]
fn a_recorded_repl_run_replays_to_the_identical_transcript() {
    let dir = tempfile::tempdir().expect("tempdir");
    let record = dir.path().join("rec.wdb");
    let commands = "break next_word if v1 > 250\ncontinue\np v1\nstepi 3\ninfo changes\nwatch shared:64 4\ncontinue\nexpect v1[31] == 255\nquit\n";
    let kernel = root().join("scripts/histogram.s");
    let (code, repl_out, err) = wavedbg(
        &[
            "repl",
            kernel.to_str().expect("utf8"),
            "--seed",
            "3",
            "--record",
            record.to_str().expect("utf8"),
        ],
        Some(commands),
    );
    assert_eq!(code, 0, "{err}");
    let recorded = std::fs::read_to_string(&record).expect("recording");
    assert!(
        recorded.contains("#! seed 3") && recorded.contains("break next_word if v1 > 250"),
        "{recorded}"
    );
    let (code, t1, _) = wavedbg(&["replay", record.to_str().expect("utf8")], None);
    assert_eq!(code, 0, "{t1}");
    let (_, t2, _) = wavedbg(&["replay", record.to_str().expect("utf8")], None);
    assert_eq!(t1, t2, "replay is deterministic");
    // The REPL printed exactly the outputs the transcript holds (minus the echoed commands).
    let outputs: String = t1
        .lines()
        .filter(|l| !l.starts_with("(wavedbg) ") && !l.ends_with(" failed"))
        .map(|l| format!("{l}\n"))
        .collect();
    for line in outputs.lines() {
        assert!(
            repl_out.contains(line),
            "REPL output lacks `{line}`:\n{repl_out}"
        );
    }
}

/// A recorded run longer than replay's default budget (100 M wave-instructions) replays:
/// the REPL's launch has no budget, and its recording says so (`#! max-instructions 0`),
/// so the replay runs as far as the session did, not into a budget fault.
#[test]
fn a_recorded_run_past_replays_default_budget_replays_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kernel = dir.path().join("spin.s");
    std::fs::write(&kernel, ".kernel spin\nspin:\n    br spin\n").expect("write the kernel");
    let record = dir.path().join("rec.wdb");
    let (code, _, err) = wavedbg(
        &[
            "repl",
            kernel.to_str().expect("utf8"),
            "--record",
            record.to_str().expect("utf8"),
        ],
        Some("goto 120000000\n"),
    );
    assert_eq!(code, 0, "{err}");
    let recorded = std::fs::read_to_string(&record).expect("recording");
    assert!(recorded.contains("#! max-instructions 0\n"), "{recorded}");
    let (code, t, _) = wavedbg(&["replay", record.to_str().expect("utf8")], None);
    assert_eq!(code, 0, "{t}");
    assert!(t.contains("120000000"), "{t}");
    assert!(!t.contains("budget"), "{t}");
}

/// A script that runs the launch into its instruction budget (an endless loop) did not run
/// what it meant to: replay exits 1 and says why on stderr (it exited 0), with the same
/// transcript; and `--bless` will not keep it.
#[test]
fn a_run_into_the_instruction_budget_exits_1() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("spin.s"),
        ".kernel spin\nspin:\n    br spin\n",
    )
    .expect("write the kernel");
    std::fs::write(
        dir.path().join("spin.wdb"),
        "#! kernel spin.s\n#! max-instructions 1000\ncontinue\n",
    )
    .expect("write the script");
    let (code, t, err) = wavedbg_in(dir.path(), &["replay", "spin.wdb"], "");
    assert_eq!(code, 1, "{t}{err}");
    assert!(t.contains("instruction budget of 1000 exhausted"), "{t}");
    assert!(t.ends_with("0 passed, 0 failed\n"), "{t}");
    let (code, _, err) = wavedbg_in(
        dir.path(),
        &["replay", "spin.wdb", "--check", "spin.golden", "--bless"],
        "",
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("the instruction budget ran out")
            && err.contains("line 3: `continue`: the instruction budget of 1000 ran out"),
        "{err}"
    );
    assert!(!dir.path().join("spin.golden").exists());
}

#[test]
fn sessions_save_atomically_and_load_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("s.ron");
    let f = file.to_str().expect("utf8");
    let kernel = root().join("scripts/histogram.s");
    let k = kernel.to_str().expect("utf8");
    let input = format!(
        "break next_word wave 3\nwatch shared:16 8\ndisplay v1[2]\nlane 5\nsave {f}\nquit\n"
    );
    let (code, out, err) = wavedbg(&["repl", k, "--seed", "9"], Some(&input));
    assert_eq!(code, 0, "{out}{err}");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec!["s.ron".to_string()],
        "no temporary file left behind"
    );
    let text = std::fs::read_to_string(&file).expect("session");
    assert!(
        text.contains("format_version: 1")
            && text.contains("seed: 9")
            && text.contains("next_word"),
        "{text}"
    );
    let (code, out, err) = wavedbg(
        &["repl", "--session", f],
        Some("info breakpoints\ninfo display\nquit\n"),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("wave 3 only")
            && out.contains("shared:0x10 (8 bytes)")
            && out.contains("1: v1[2]"),
        "{out}"
    );
}

#[test]
fn broken_session_files_give_clear_errors_and_change_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = dir.path().join("good.ron");
    let kernel = root().join("scripts/histogram.s");
    let k = kernel.to_str().expect("utf8");
    let (code, _, err) = wavedbg(
        &["repl", k],
        Some(&format!("break next_word\nsave {}\nquit\n", good.display())),
    );
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&good).expect("session");
    let cases = [
        (
            "truncated.ron",
            text[..text.len() / 2].to_string(),
            "truncated.ron:",
        ),
        (
            "garbage.ron",
            "this is not RON at all".to_string(),
            "garbage.ron:1:",
        ),
        (
            "future.ron",
            text.replace("format_version: 1", "format_version: 99"),
            "version 99 is not supported",
        ),
        (
            "typo.ron",
            text.replace("breakpoints:", "brakepoints:"),
            "typo.ron:",
        ),
    ];
    for (name, content, expected) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, content).expect("write");
        let p = path.to_str().expect("utf8");
        // At startup: a clear error, non-zero exit.
        let (code, out, err) = wavedbg(&["repl", k, "--session", p], Some("quit\n"));
        assert_ne!(code, 0, "{name}: {out}");
        assert!(err.contains(expected), "{name}: {err}");
        // From inside: the error is shown and the current breakpoints stay.
        let (code, out, _) = wavedbg(
            &["repl", k],
            Some(&format!("break merged\nload {p}\ninfo breakpoints\nquit\n")),
        );
        assert_eq!(code, 0);
        assert!(
            out.contains("error:") && out.contains(expected),
            "{name}: {out}"
        );
        assert!(
            out.contains("<merged>"),
            "{name}: breakpoints unchanged: {out}"
        );
    }
}

/// A session saved after time travel (reverse-stepi, goto, reverse-continue, last-write)
/// replays to the same transcript as the run that saved it.
#[test]
fn a_session_saved_after_time_travel_replays_to_the_same_transcript() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("tt.ron");
    let f = file.to_str().expect("utf8");
    let script = dir.path().join("tt.wdb");
    let kernel = root().join("scripts/histogram.s");
    let commands = "break next_word\ncontinue\ncontinue\nstepi 3\nreverse-stepi 2\nreverse-continue\ngoto 300\nlast-write shared:0\nlast-write shared:0\nrsi\ninfo history\np v1[3]\n";
    std::fs::write(
        &script,
        format!("#! kernel {}\n{commands}save {f}\n", kernel.display()),
    )
    .expect("script");
    let (code, first, err) = wavedbg(
        &["replay", "--allow-writes", script.to_str().expect("utf8")],
        None,
    );
    assert_eq!(code, 0, "{first}{err}");
    let (code, again, err) = wavedbg(&["replay", f], None);
    assert_eq!(code, 0, "{again}{err}");
    let upto_save = first.split("(wavedbg) save").next().unwrap_or_default();
    assert!(
        upto_save.contains("No more") || upto_save.contains("reached instruction 300"),
        "{upto_save}"
    );
    assert_eq!(
        again
            .trim_end()
            .trim_end_matches("0 passed, 0 failed")
            .trim_end(),
        upto_save.trim_end()
    );
}

/// As gdb's Enter: an empty line repeats a step or a continue, and `x` goes on from where
/// the previous one ended; after other commands it does nothing.
#[test]
fn enter_repeats_steps_and_examine_goes_on() {
    let kernel = root().join("scripts/histogram.s");
    let k = kernel.to_str().expect("utf8");
    let (code, out, err) = wavedbg(
        &["repl", k],
        Some("stepi\n\n\nx/2xw 0x100000000\n\nbreak next_word\n\nreverse-stepi\n\nquit\n"),
    );
    assert_eq!(code, 0, "{out}{err}");
    for want in [
        "[count 1]",
        "[count 2]",
        "[count 3]",
        "global:0x100000000:",
        "global:0x100000008:",
        "Breakpoint 1 at 0x006c <next_word>",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
    assert_eq!(
        out.matches("Breakpoint 1 at").count(),
        1,
        "break is not repeated:\n{out}"
    );
    // reverse-stepi, then Enter: two back from 3, through 2 to 1 again.
    assert_eq!(
        out.matches("wave 0 (workgroup 0) [count 2]").count(),
        2,
        "{out}"
    );
    assert_eq!(
        out.matches("wave 0 (workgroup 0) [count 1]").count(),
        2,
        "{out}"
    );
}

/// A REPL session with mistakes in it (an unknown command, a bad location, a failing
/// expect) and a `save` records a script without them, whose `#! kernel` line is relative
/// to the script's folder: it replays to success from any directory.
#[test]
fn a_recorded_repl_session_leaves_out_failures_and_saves_and_replays_to_success() {
    let dir = tempfile::tempdir().expect("tempdir");
    let scripts = dir.path().join("recorded");
    std::fs::create_dir(&scripts).expect("mkdir");
    let record = scripts.join("session.wdb");
    let session = dir.path().join("saved.ron");
    let commands = format!(
        "bogus\nbreak nosuch\nbreak next_word\ncontinue\nexpect v1[0] == 12345\nsave {}\nprint v1[3]\nx/2xw in\nload {}\ninfo breakpoints\nstepi\n\nlist\nexpect wave == 0\nquit\n",
        session.display(),
        session.display()
    );
    // The kernel is named relative to the REPL's directory (the repository root).
    let (code, out, err) = wavedbg(
        &[
            "repl",
            "scripts/histogram.s",
            "--record",
            record.to_str().expect("utf8"),
        ],
        Some(&commands),
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("error: unknown command `bogus`")
            && out.contains("error: no label `nosuch`")
            && out.contains("expect FAILED")
            && out.contains("Saved session"),
        "the REPL showed every outcome:\n{out}"
    );
    let recorded = std::fs::read_to_string(&record).expect("recording");
    for gone in ["bogus", "nosuch", "12345", "save "] {
        assert!(!recorded.contains(gone), "`{gone}` recorded:\n{recorded}");
    }
    // The repeated step (an empty line) is recorded as the command it repeated.
    assert_eq!(
        recorded.lines().filter(|l| *l == "stepi").count(),
        2,
        "{recorded}"
    );
    let saved = std::fs::canonicalize(&session).expect("session saved");
    assert!(
        recorded.contains(&format!("load {}\n", saved.display())),
        "load with the absolute path:\n{recorded}"
    );
    let kernel = recorded
        .lines()
        .find_map(|l| l.strip_prefix("#! kernel "))
        .expect("a kernel line");
    assert!(
        !Path::new(kernel).is_absolute() && kernel != "scripts/histogram.s",
        "relative to the script's folder: {kernel}"
    );
    assert_eq!(
        std::fs::canonicalize(scripts.join(kernel)).expect("the kernel beside the script"),
        std::fs::canonicalize(root().join("scripts/histogram.s")).expect("the kernel")
    );
    // Replayed from another directory: every command runs, every expect holds.
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let (code, t, err) = wavedbg_in(
        elsewhere.path(),
        &["replay", record.to_str().expect("utf8")],
        "",
    );
    assert_eq!(code, 0, "{t}{err}");
    assert_eq!(t.lines().last(), Some("1 passed, 0 failed"), "{t}");
    assert!(!t.contains("error:"), "{t}");
}

/// The REPL shows the context after every stop (the engine's default is off) until
/// `set context off`; `list` shows the source; counts agree with their nouns.
#[test]
fn the_repl_shows_the_context_after_stops_and_lists_the_source() {
    let (code, out, err) = wavedbg(
        &[
            "repl",
            "scripts/reduce.s",
            "--grid",
            "1",
            "--workgroup",
            "32",
        ],
        Some("stepi\nset context off\nstepi\nlist\ninfo buffers\nquit\n"),
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with("wavedbg: scripts/reduce.s (1 wave resident, 1 workgroup of 32 lanes)."),
        "{out}"
    );
    assert_eq!(out.matches("-- code --").count(), 1, "{out}");
    assert_eq!(out.matches("-- exec --").count(), 1, "{out}");
    assert!(out.contains("=>  0x0004  uwaveid u5"), "{out}");
    assert!(out.contains("=>   14\t    unumwaves u6"), "{out}");
    assert!(
        out.contains("in    0x100000000   1024  u[0:1] (address)"),
        "{out}"
    );
}

/// A replayed script may not write files unless the user allows it: `save` in a script
/// from elsewhere would overwrite whatever the user can write.
#[test]
fn a_replayed_script_writes_no_file_unless_allowed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("victim.txt");
    std::fs::write(&target, "precious").expect("victim");
    let script = dir.path().join("w.wdb");
    let kernel = root().join("scripts/histogram.s");
    std::fs::write(
        &script,
        format!(
            "#! kernel {}\nsave {}\nprint 1\n",
            kernel.display(),
            target.display()
        ),
    )
    .expect("script");
    let s = script.to_str().expect("utf8");
    let (code, out, err) = wavedbg(&["replay", s], None);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("error: `save` writes a file, and a replayed script or session may not write files unless you allow it (wavedbg replay --allow-writes)"),
        "{out}"
    );
    assert!(
        out.contains("(wavedbg) print 1\n1 = 1\n"),
        "the rest runs: {out}"
    );
    assert_eq!(std::fs::read_to_string(&target).expect("read"), "precious");
    let (code, out, err) = wavedbg(&["replay", "--allow-writes", s], None);
    assert_eq!(code, 0, "{out}{err}");
    assert!(std::fs::read_to_string(&target)
        .expect("read")
        .starts_with('('));
}
