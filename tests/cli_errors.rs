//! What a user reads when something is wrong, and paths that must work from anywhere:
//! user errors are one plain message and exit code 1 (no report location, no backtrace,
//! no colour in pipes); shipped sessions open from the repository root and from another
//! directory; `replay --check` never calls a failing run good and `--bless` refuses it.

mod bin;
use bin::wavedbg_in;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A user error: exit 1 and exactly `message` on stderr, nothing internal.
fn user_error(dir: &Path, args: &[&str], message: &str) {
    let (code, _, err) = wavedbg_in(dir, args, "");
    assert_eq!(code, 1, "{args:?}: {err}");
    assert_eq!(err.trim_end(), message, "{args:?}");
    for internal in ["Location:", "src/", "Backtrace", "\u{1b}[", "0:0"] {
        assert!(
            !err.contains(internal),
            "{args:?} shows `{internal}`: {err}"
        );
    }
}

#[test]
fn user_errors_are_one_plain_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(d.join("empty.s"), "; nothing\n").expect("write");
    std::fs::write(d.join("bad.wko"), "(format_version: 1)").expect("write");
    std::fs::write(d.join("bad.ron"), "(format_version: 1, kernel: 3)").expect("write");
    for sub in ["run", "asm", "disasm", "repl", "serve"] {
        user_error(
            d,
            &[sub, "nosuch.s"],
            "cannot read nosuch.s: No such file or directory",
        );
    }
    user_error(
        d,
        &["run", "empty.s"],
        "empty.s: error: no instructions: a kernel needs at least one instruction",
    );
    user_error(
        d,
        &["repl", "--session", "nosuch.ron"],
        "cannot read nosuch.ron: No such file or directory",
    );
    user_error(
        d,
        &["replay", "nosuch.wdb"],
        "cannot read nosuch.wdb: No such file or directory",
    );
    user_error(
        d,
        &["serve", "empty.s", "--listen", "0.0.0.0:1"],
        "refusing to listen on 0.0.0.0:1: the GDB protocol gives whoever connects full access to the kernel's memory; pass --allow-remote to do it anyway",
    );
    let (code, _, err) = wavedbg_in(d, &["disasm", "bad.wko"], "");
    assert_eq!(code, 1);
    assert!(
        err.starts_with("bad.wko: not a wavedbg kernel object"),
        "{err}"
    );
    assert!(!err.contains("Location:"), "{err}");
    let (code, _, err) = wavedbg_in(d, &["repl", "--session", "bad.ron"], "");
    assert_eq!(code, 1);
    assert!(err.starts_with("bad.ron:1:"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn assembler_errors_keep_their_snippet_and_nothing_else() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("bad.s"), "  vadd.u32 v1, v2\n").expect("write");
    let (code, _, err) = wavedbg_in(dir.path(), &["run", "bad.s"], "");
    assert_eq!(code, 1);
    assert!(err.starts_with("bad.s:1:3: error:"), "{err}");
    assert!(err.contains("1 |   vadd.u32 v1, v2"), "{err}");
    assert!(
        !err.contains("Location:") && !err.contains('\u{1b}'),
        "{err}"
    );
}

/// Every shipped session opens with `repl --session` from the repository root and from
/// another directory (its kernel is named relative to the session file).
#[test]
fn every_shipped_session_opens_from_anywhere() {
    let sessions: Vec<PathBuf> = std::fs::read_dir(root().join("sessions"))
        .expect("sessions/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .collect();
    assert!(!sessions.is_empty());
    let elsewhere = tempfile::tempdir().expect("tempdir");
    for s in &sessions {
        let relative = s.strip_prefix(root()).expect("inside the repository");
        for (dir, path) in [
            (root(), relative.to_path_buf()),
            (
                root().join("sessions"),
                PathBuf::from(s.file_name().expect("name")),
            ),
            (elsewhere.path().to_path_buf(), s.clone()),
        ] {
            let p = path.to_str().expect("utf8");
            let (code, out, err) =
                wavedbg_in(&dir, &["repl", "--session", p], "info breakpoints\nquit\n");
            assert_eq!(code, 0, "{p} from {}: {err}", dir.display());
            assert!(
                out.contains("breakpoint"),
                "{p} from {}: {out}",
                dir.display()
            );
            let (code, _, err) = wavedbg_in(&dir, &["replay", p], "");
            assert_eq!(code, 0, "replay {p} from {}: {err}", dir.display());
        }
    }
}

/// A session saved from one directory names its kernel relative to itself, so it opens
/// from another; so does a recorded script.
#[test]
fn saved_sessions_and_recordings_name_the_kernel_relative_to_themselves() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).expect("mkdir");
    let session = out_dir.join("s.ron");
    let record = out_dir.join("r.wdb");
    let input = format!("break next_word\nsave {}\nquit\n", session.display());
    let (code, _, err) = wavedbg_in(
        &root(),
        &[
            "repl",
            "scripts/histogram.s",
            "--record",
            record.to_str().expect("utf8"),
        ],
        &input,
    );
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&session).expect("session written");
    let want = pathdiff(&root().join("scripts/histogram.s"), &out_dir);
    assert!(text.contains(&format!("kernel: \"{want}\"")), "{text}");
    let script = std::fs::read_to_string(&record).expect("recording written");
    assert!(script.contains(&format!("#! kernel {want}")), "{script}");
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let (code, out, err) = wavedbg_in(
        elsewhere.path(),
        &["repl", "--session", session.to_str().expect("utf8")],
        "info breakpoints\nquit\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("next_word"), "{out}");
    let (code, _, err) = wavedbg_in(
        elsewhere.path(),
        &["replay", record.to_str().expect("utf8")],
        "",
    );
    assert_eq!(code, 0, "{err}");
}

/// `a` relative to `dir`, both canonical (what the session should hold).
fn pathdiff(a: &Path, dir: &Path) -> String {
    let a = std::fs::canonicalize(a).expect("exists");
    let d = std::fs::canonicalize(dir).expect("exists");
    let (ac, dc): (Vec<_>, Vec<_>) = (a.components().collect(), d.components().collect());
    let common = ac.iter().zip(&dc).take_while(|(x, y)| x == y).count();
    let mut p = PathBuf::new();
    for _ in common..dc.len() {
        p.push("..");
    }
    for c in &ac[common..] {
        p.push(c);
    }
    p.display().to_string()
}

#[test]
fn replay_check_and_bless_never_call_a_failing_run_good() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("f.wdb");
    let golden = dir.path().join("f.golden");
    std::fs::write(
        &script,
        format!(
            "#! kernel {}\nstepi\nbogus\nexpect 1 == 2\n",
            root().join("scripts/reduce.s").display()
        ),
    )
    .expect("write");
    let (s, g) = (
        script.to_str().expect("utf8"),
        golden.to_str().expect("utf8"),
    );
    // Bless refuses, and writes nothing.
    let (code, _, err) = wavedbg_in(dir.path(), &["replay", s, "--check", g, "--bless"], "");
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("not blessing")
            && err.contains("line 3: `bogus`: unknown command `bogus`")
            && err.contains("line 4: expect FAILED: 1 == 2"),
        "{err}"
    );
    assert!(!golden.exists(), "no golden for a failing run");
    // A golden that matches a failing run: the match is reported with why it failed.
    let (_, transcript, _) = wavedbg_in(dir.path(), &["replay", s], "");
    std::fs::write(&golden, &transcript).expect("write");
    let (code, _, err) = wavedbg_in(dir.path(), &["replay", s, "--check", g], "");
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("transcript matches")
            && err.contains("but the run failed (1 command failed and 1 expect failed"),
        "{err}"
    );
}

/// Text from files, scripts and sessions reaches the terminal with its control characters
/// written out (`\u{1b}`): a hostile kernel file name or source line, or a replayed
/// script's command, cannot clear the screen or drive the terminal through stdout or
/// stderr. JSON stays JSON.
#[test]
fn control_characters_from_inputs_never_reach_the_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let name = "k\u{1b}[2J\u{7}.s";
    std::fs::write(d.join(name), "bad \u{1b}[2J\n").expect("write");
    std::fs::write(d.join("ok.s"), ".kernel k\n.workgroup 32\n    end\n").expect("write");
    std::fs::write(d.join("e.cmd"), "print \u{1b}[31mx\nbreak \u{9b}2J\n").expect("write");
    std::fs::write(d.join("e\u{1b}[H.wdb"), "stepi\n").expect("write");
    let runs: [&[&str]; 6] = [
        &["run", name],
        &["check", name],
        &["asm", name],
        &["replay", "e.cmd", "--kernel", "ok.s"],
        &[
            "replay",
            "e\u{1b}[H.wdb",
            "--kernel",
            "ok.s",
            "--check",
            "g\u{1b}[H.txt",
        ],
        &["run", "ok.s", "--dump", "nosuch\u{1b}[2J"],
    ];
    for args in runs {
        let (_, out, err) = wavedbg_in(d, args, "");
        for text in [&out, &err] {
            assert!(
                !text
                    .chars()
                    .any(|c| c.is_control() && c != '\n' && c != '\t'),
                "{args:?} wrote a control character: {text:?}"
            );
        }
        assert!(
            format!("{out}{err}").contains("\\u{1b}"),
            "{args:?}: the escape is not written out: {out}{err}"
        );
    }
    // JSON keeps its own escapes: a finding's source line with an escape still parses.
    std::fs::write(
        d.join("j.s"),
        ".kernel k\n.workgroup 32\n.shared 64\n    vlaneid v0\n    vshli v0, v0, 2\n    ld.shared.b32 v1, v0, 0 ; \u{1b}[2J\n    wait.ls 0\n    end\n",
    )
    .expect("write");
    let (_, out, _) = wavedbg_in(d, &["check", "j.s", "--json"], "");
    assert!(!out.is_empty() && !out.contains('\u{1b}'), "{out}");
    for line in out.lines() {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
    }
}
