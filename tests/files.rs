//! The files wavedbg reads and writes (docs/files.md): inputs under a size limit, outputs
//! that never destroy what they point at nor the command's own inputs, a failing recorder
//! or history file that warns and lets the session go on, and `--check` diffs that name a
//! difference of line endings.

mod bin;

use std::io::{BufRead, BufReader};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bin::wavedbg_in;

/// A folder with the kernel `k.s` (and `k.wdb`, a script of it, with its golden file).
fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let kernel = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/lanes.s"),
    )
    .expect("kernel");
    std::fs::write(dir.path().join("k.s"), kernel).expect("write k.s");
    std::fs::write(dir.path().join("k.wdb"), "#! kernel k.s\nstepi\n").expect("write k.wdb");
    dir
}

/// `wavedbg ARGS` in `dir`, stopped after 60 s, with its address space bounded (so a run
/// that reads without a limit fails fast rather than taking the machine's memory).
fn bounded(dir: &Path, args: &[&str]) -> (i32, String) {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 4000000; exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_wavedbg"))
        .args(args)
        .current_dir(dir)
        .env("WAVEDBG_HISTORY", dir.join("history"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start wavedbg");
    let start = Instant::now();
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn link(to: &str, at: &Path) {
    std::os::unix::fs::symlink(to, at).expect("symlink");
}

#[test]
fn every_input_is_read_under_its_limit() {
    let dir = workdir();
    let d = dir.path();
    link("/dev/zero", &d.join("z.wko"));
    link("/dev/zero", &d.join("z.ron"));
    link("/dev/zero", &d.join("z.s"));
    let cases: &[(&[&str], &str)] = &[
        (
            &["asm", "/dev/zero", "-o", "out.wko"],
            "/dev/zero: larger than the 64 MiB limit for kernel sources",
        ),
        (
            &["run", "z.s"],
            "z.s: larger than the 64 MiB limit for kernel sources",
        ),
        (
            &["disasm", "z.wko"],
            "z.wko: larger than the 64 MiB limit for kernel objects",
        ),
        (
            &["replay", "/dev/zero"],
            "/dev/zero: larger than the 16 MiB limit for command scripts",
        ),
        (
            &["replay", "z.ron"],
            "z.ron: larger than the 16 MiB limit for sessions",
        ),
        (
            &["repl", "--session", "z.ron"],
            "z.ron: larger than the 16 MiB limit for sessions",
        ),
        (
            &["replay", "k.wdb", "--check", "/dev/zero"],
            "/dev/zero: larger than the 16 MiB limit for golden transcripts",
        ),
    ];
    for (args, want) in cases {
        let (code, err) = bounded(d, args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    // A regular file is refused by its size, before it is read.
    let big = std::fs::File::create(d.join("big.s")).expect("create");
    big.set_len(65 << 20).expect("set_len");
    let (code, err) = bounded(d, &["run", "big.s"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("big.s: larger than the 64 MiB limit for kernel sources"),
        "{err}"
    );
    // And the history file: a device there is not read (nor has its mode set).
    let (code, err) = bounded(d, &["repl", "k.s"]);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_file(d.join("history")).ok();
    link("/dev/zero", &d.join("history"));
    let (code, err) = bounded(d, &["repl", "k.s"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning: command history not saved"), "{err}");
}

fn is_fifo(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_fifo())
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

#[test]
fn outputs_never_replace_what_they_point_at() {
    let dir = workdir();
    let d = dir.path();
    // A FIFO is refused, and stays one.
    mkfifo(&d.join("fifo"));
    let (code, _, err) = wavedbg_in(d, &["asm", "k.s", "-o", "fifo"], "");
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("cannot write fifo: it is a FIFO, not a regular file"),
        "{err}"
    );
    assert!(is_fifo(&d.join("fifo")));
    let (_, out, _) = wavedbg_in(d, &["repl", "k.s"], "save fifo\n");
    assert!(out.contains("it is a FIFO"), "{out}");
    assert!(is_fifo(&d.join("fifo")));
    // A directory too.
    std::fs::create_dir(d.join("sub")).expect("mkdir");
    let (code, _, err) = wavedbg_in(d, &["asm", "k.s", "-o", "sub"], "");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("it is a directory"), "{err}");

    // A character device is written in place, never replaced.
    let (_, out, _) = wavedbg_in(d, &["repl", "k.s"], "save /dev/null\n");
    assert!(out.contains("Saved session to /dev/null"), "{out}");
    for dev in ["/dev/null", "/dev/full"] {
        let (code, _, err) = wavedbg_in(d, &["asm", "k.s", "-o", dev], "");
        let m = std::fs::metadata(dev).expect("device");
        assert!(m.file_type().is_char_device(), "{dev} replaced");
        if dev == "/dev/full" {
            assert_eq!(code, 1, "{err}");
            assert!(err.contains("No space left on device"), "{err}");
        }
    }

    // A symlink is written through: the file it names changes, the link stays.
    std::fs::create_dir(d.join("real")).expect("mkdir");
    link("real/k.wko", &d.join("k.wko"));
    let (code, _, err) = wavedbg_in(d, &["asm", "k.s"], "");
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::symlink_metadata(d.join("k.wko"))
        .expect("link")
        .file_type()
        .is_symlink());
    assert!(
        std::fs::read_to_string(d.join("real/k.wko"))
            .expect("target")
            .len()
            > 10
    );

    // A file replaced keeps its mode, and its owner (as root, a file of another user).
    let out = d.join("kept.wko");
    std::fs::write(&out, "old").expect("write");
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        std::os::unix::fs::chown(&out, Some(4321), Some(4322)).expect("chown");
    }
    let (code, _, err) = wavedbg_in(d, &["asm", "k.s", "-o", "kept.wko"], "");
    assert_eq!(code, 0, "{err}");
    let m = std::fs::metadata(&out).expect("kept");
    assert_eq!(m.mode() & 0o7777, 0o600);
    if root {
        assert_eq!((m.uid(), m.gid()), (4321, 4322));
    }
    let (_, out_text, _) = wavedbg_in(d, &["repl", "k.s"], "save kept.wko\n");
    assert!(out_text.contains("Saved session"), "{out_text}");
    assert_eq!(
        std::fs::metadata(&out).expect("kept").mode() & 0o7777,
        0o600
    );

    // No temporary file is left behind by an error, nor by a success.
    let left: Vec<PathBuf> = std::fs::read_dir(d)
        .expect("dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().contains(".tmp"))
        })
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A PID no process has (the highest ones are unused on any test machine).
fn dead_pid() -> u32 {
    (4_000_000..4_194_304)
        .find(|p| !Path::new("/proc").join(p.to_string()).exists())
        .unwrap_or(4_000_000)
}

#[test]
fn a_killed_runs_temporary_is_removed_and_a_live_ones_kept() {
    let dir = workdir();
    let d = dir.path();
    let stale = d.join(format!(".k.wko.tmp{}", dead_pid()));
    let live = d.join(format!(".k.wko.tmp{}", std::process::id()));
    std::fs::write(&stale, "half").expect("write");
    std::fs::write(&live, "busy").expect("write");
    let (code, _, err) = wavedbg_in(d, &["asm", "k.s"], "");
    assert_eq!(code, 0, "{err}");
    assert!(!stale.exists(), "stale temporary kept");
    assert!(live.exists(), "a live writer's temporary removed");
}

#[test]
fn outputs_never_overwrite_the_commands_inputs() {
    let dir = workdir();
    let d = dir.path();
    let kernel = std::fs::read(d.join("k.s")).expect("k.s");
    let script = std::fs::read(d.join("k.wdb")).expect("k.wdb");
    link("k.s", &d.join("alias.s"));
    let (code, _, err) = wavedbg_in(d, &["repl", "k.s"], "save s.ron\n");
    assert_eq!(code, 0, "{err}");
    let session = std::fs::read(d.join("s.ron")).expect("s.ron");
    let cases: &[(&[&str], &str)] = &[
        (
            &["repl", "--session", "s.ron", "--record", "s.ron"],
            "refusing to write s.ron: it is the session",
        ),
        (
            &["tui", "--session", "./s.ron", "--record", "s.ron"],
            "refusing to write s.ron: it is the session",
        ),
        (
            &["asm", "k.s", "-o", "k.s"],
            "refusing to write k.s: it is the kernel source",
        ),
        (
            &["asm", "k.s", "-o", "alias.s"],
            "refusing to write alias.s: it is the kernel source",
        ),
        (
            &["elf", "k.s", "-o", "k.s"],
            "refusing to write k.s: it is the kernel",
        ),
        (
            &["repl", "k.s", "--record", "k.s"],
            "refusing to write k.s: it is the kernel",
        ),
        (
            &["repl", "k.s", "--record", "./k.s"],
            "refusing to write ./k.s: it is the kernel",
        ),
        (
            &["replay", "k.wdb", "--check", "k.wdb", "--bless"],
            "refusing to write k.wdb: it is the script being replayed",
        ),
        (
            &["replay", "k.wdb", "--check", "k.s", "--bless"],
            "refusing to write k.s: it is the kernel",
        ),
        (
            &[
                "serve",
                "k.s",
                "--symbols",
                "k.s",
                "--listen",
                "127.0.0.1:0",
            ],
            "refusing to write k.s: it is the kernel",
        ),
    ];
    for (args, want) in cases {
        let (code, _, err) = wavedbg_in(d, args, "");
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let (_, out, _) = wavedbg_in(d, &["repl", "k.s"], "save k.s\nsave alias.s\n");
    assert_eq!(out.matches("refusing to write").count(), 2, "{out}");
    assert_eq!(std::fs::read(d.join("k.s")).expect("k.s"), kernel);
    assert_eq!(std::fs::read(d.join("k.wdb")).expect("k.wdb"), script);
    assert_eq!(std::fs::read(d.join("s.ron")).expect("s.ron"), session);
}

/// The higher-level source a kernel's `.file` names is an input too: `save`, `--record`,
/// a replay's blessed golden file and `asm -o` refuse it, however the path is spelled,
/// and it is left as it was.
#[test]
fn outputs_never_overwrite_the_kernels_higher_level_source() {
    let dir = workdir();
    let d = dir.path();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir(d.join("src")).expect("mkdir src");
    for (from, to) in [
        ("scripts/saxpy_src.s", "saxpy_src.s"),
        ("scripts/src/saxpy.cl", "src/saxpy.cl"),
    ] {
        std::fs::copy(root.join(from), d.join(to)).expect("copy");
    }
    let source = std::fs::read(d.join("src/saxpy.cl")).expect("saxpy.cl");
    std::fs::write(d.join("s.wdb"), "#! kernel saxpy_src.s\nstepi\n").expect("write s.wdb");
    let want = "it is a source file of the kernel";
    let cases: &[&[&str]] = &[
        &["repl", "saxpy_src.s", "--record", "src/saxpy.cl"],
        &["repl", "saxpy_src.s", "--record", "./src/saxpy.cl"],
        &[
            "replay",
            "s.wdb",
            "--check",
            "src/../src/saxpy.cl",
            "--bless",
        ],
        &["asm", "saxpy_src.s", "-o", "src/saxpy.cl"],
    ];
    for args in cases {
        let (code, _, err) = wavedbg_in(d, args, "");
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let (code, out, err) = wavedbg_in(
        d,
        &["repl", "saxpy_src.s"],
        "save src/saxpy.cl\nsave ./src/../src/saxpy.cl\nsave s.ron\n",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches(want).count(), 2, "{out}");
    assert!(out.contains("Saved session to s.ron"), "{out}");
    assert_eq!(
        std::fs::read(d.join("src/saxpy.cl")).expect("saxpy.cl"),
        source
    );
}

/// Starts `serve` in `dir` and waits for the symbol file it names.
fn serve(dir: &Path) -> (std::process::Child, PathBuf) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wavedbg"))
        .args(["serve", "k.s", "--listen", "127.0.0.1:0"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start serve");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let line = lines.next().and_then(Result::ok).unwrap_or_default();
    let path = line
        .strip_prefix("wavedbg: symbols in ")
        .and_then(|r| r.split(" (").next())
        .unwrap_or_else(|| panic!("no symbol file: {line}"));
    (child, dir.join(path))
}

#[test]
fn serve_removes_the_symbol_file_it_made_when_ended() {
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let dir = workdir();
        let (mut child, symbols) = serve(dir.path());
        assert!(symbols.exists(), "{}", symbols.display());
        // SAFETY: a signal to the child this test started.
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = child.wait().expect("wait");
        assert!(!status.success());
        assert!(
            !symbols.exists(),
            "{} left after signal {signal}",
            symbols.display()
        );
    }
}

#[test]
fn a_recorder_that_fails_warns_once_and_the_session_goes_on() {
    let dir = workdir();
    let d = dir.path();
    // Writes past 2 KiB fail (EFBIG; the signal ignored), as on a full disk, and the one
    // that crosses the limit is cut short.
    let mut stdin = String::new();
    for i in 0..200 {
        stdin.push_str(&format!("print {i} + 1000000\n"));
    }
    stdin.push_str("print 424242\n");
    let out = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 4; exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_wavedbg"))
        .args(["repl", "k.s", "--record", "rec.wdb"])
        .current_dir(d)
        .env("WAVEDBG_HISTORY", "/dev/null")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().expect("stdin").write_all(stdin.as_bytes())?;
            c.wait_with_output()
        })
        .expect("run repl");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr.matches("warning: recording stopped").count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("` was not recorded"), "{stderr}");
    assert!(
        stdout.contains("424242"),
        "the session did not go on: {stdout}"
    );
    let rec = std::fs::read_to_string(d.join("rec.wdb")).expect("rec.wdb");
    assert!(rec.ends_with('\n'), "half a line recorded: {rec:?}");
    for line in rec.lines().filter(|l| !l.starts_with('#')) {
        assert!(
            line.starts_with("print ") && line.ends_with(" + 1000000"),
            "{line:?}"
        );
    }
    // The history on a device: one warning, the session goes on, the device stays.
    let (code, out, err) = {
        let out = Command::new(env!("CARGO_BIN_EXE_wavedbg"))
            .args(["repl", "k.s"])
            .current_dir(d)
            .env("WAVEDBG_HISTORY", "/dev/full")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin
                    .take()
                    .expect("stdin")
                    .write_all(b"print 1\nprint 2\n")?;
                c.wait_with_output()
            })
            .expect("run repl");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(err.matches("warning: command history").count(), 1, "{err}");
    assert!(out.contains("= 2"), "{out}");
    assert!(std::fs::metadata("/dev/full")
        .expect("full")
        .file_type()
        .is_char_device());
}

#[test]
fn history_keeps_no_line_longer_than_its_limit() {
    let dir = workdir();
    let d = dir.path();
    let long = format!("print {}1", "1+".repeat(3000));
    let (code, _, err) = wavedbg_in(d, &["repl", "k.s"], &format!("{long}\nprint 7\n"));
    assert_eq!(code, 0, "{err}");
    let history = std::env::temp_dir().join(format!("wavedbg-test-history-{}", std::process::id()));
    let text = std::fs::read_to_string(history).unwrap_or_default();
    assert!(!text.contains("1+1+1+"), "a long line was saved");
    assert!(text.contains("print 7"), "{text}");
}

/// A line holding a control character (a pasted BEL, an escape sequence) is run but not
/// kept in the history file, where it would ring or redraw the terminal each time it is
/// shown or recalled; a tab is kept.
#[test]
fn history_keeps_no_line_with_a_control_character() {
    let dir = workdir();
    let d = dir.path();
    let history = d.join("own-history");
    let mut child = Command::new(env!("CARGO_BIN_EXE_wavedbg"))
        .args(["repl", "k.s"])
        .current_dir(d)
        .env("WAVEDBG_HISTORY", &history)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start wavedbg");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(b"print 41\x07\nprint \x1b[2J42\nprint\t43\nprint 44\n")
            .expect("write stdin");
    }
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = std::fs::read_to_string(&history).unwrap_or_default();
    assert!(!text.contains("41") && !text.contains("42"), "{text:?}");
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "{text:?}"
    );
    assert!(
        text.contains("print\t43") && text.contains("print 44"),
        "{text:?}"
    );
}

#[test]
fn check_says_when_only_line_endings_or_the_last_newline_differ() {
    let dir = workdir();
    let d = dir.path();
    let (code, _, err) = wavedbg_in(
        d,
        &["replay", "k.wdb", "--check", "k.golden", "--bless"],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let golden = std::fs::read_to_string(d.join("k.golden")).expect("golden");
    std::fs::write(d.join("crlf.golden"), golden.replace('\n', "\r\n")).expect("write");
    let (code, out, _) = wavedbg_in(d, &["replay", "k.wdb", "--check", "crlf.golden"], "");
    assert_eq!(code, 1);
    assert!(
        out.contains("note: the only difference is line endings"),
        "{out}"
    );
    std::fs::write(d.join("cut.golden"), golden.trim_end()).expect("write");
    let (code, out, _) = wavedbg_in(d, &["replay", "k.wdb", "--check", "cut.golden"], "");
    assert_eq!(code, 1);
    assert!(
        out.contains("note: the only difference is a trailing newline: the golden file lacks"),
        "{out}"
    );
    std::fs::write(d.join("more.golden"), format!("{golden}\n")).expect("write");
    let (_, out, _) = wavedbg_in(d, &["replay", "k.wdb", "--check", "more.golden"], "");
    assert!(
        out.contains("note: the only difference is a trailing newline"),
        "{out}"
    );
}

/// A UTF-8 byte order mark (written by editors on Windows) at the start of a text input is
/// dropped wherever wavedbg reads one: a session, a command script, a kernel's source
/// (whose first line `list` quotes without it) and a golden transcript.
#[test]
fn a_byte_order_mark_is_dropped_from_every_text_input() {
    const BOM: &str = "\u{feff}";
    let dir = workdir();
    let d = dir.path();
    let (code, out, err) = wavedbg_in(d, &["repl", "k.s"], "break odd\nsave s.ron\n");
    assert_eq!(code, 0, "{out}{err}");
    let session = std::fs::read_to_string(d.join("s.ron")).expect("s.ron");
    std::fs::write(d.join("s.ron"), format!("{BOM}{session}")).expect("write s.ron");
    let kernel = std::fs::read_to_string(d.join("k.s")).expect("k.s");
    std::fs::write(d.join("b.s"), format!("{BOM}{kernel}")).expect("write b.s");
    std::fs::write(d.join("b.wdb"), format!("{BOM}#! kernel b.s\nlist 1,1\n")).expect("b.wdb");

    let (code, out, err) = wavedbg_in(d, &["replay", "s.ron"], "");
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = wavedbg_in(d, &["repl", "--session", "s.ron"], "info breakpoints\n");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("odd"), "{out}{err}");
    let (code, out, err) = wavedbg_in(d, &["replay", "b.wdb"], "");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1\t; Lanes"), "{out}");
    assert!(!out.contains(BOM), "{out}");
    // A golden file with one matches the transcript without.
    std::fs::write(d.join("b.golden"), format!("{BOM}{out}")).expect("b.golden");
    let (code, out, err) = wavedbg_in(d, &["replay", "b.wdb", "--check", "b.golden"], "");
    assert_eq!(code, 0, "{out}{err}");
}
