//! Frames and instructions in real clients (Debian's `gdb`, `gdb-multiarch` and `lldb`).
//!
//! Frames: at every instruction of every example kernel (scripts/*.s), with and without
//! the symbol file, gdb sees exactly one frame, the same one at every PC (so `until` and
//! `advance` stop where asked), whose `finish` is "not meaningful in the outermost frame";
//! lldb's `bt` shows one frame. In histogram.s, from `next_word`, `finish`, `until *ADDR`,
//! `until LABEL` and `advance LABEL` behave as in a native outermost frame.
//!
//! Instructions: scripts/wavedbg.gdb's disassembler makes `x/i`, `disassemble`,
//! `display/i $pc` and `layout asm` (in a real terminal, through tmux) show the kernel's own
//! instructions, the same texts as `wavedbg disasm`; a gdb without `gdb.disassembler`
//! still loads the script.
//!
//! Outside CI (`CI` unset) a missing client skips its test with a message; in CI it fails.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

mod clients;
use clients::*;

mod tmux;

/// What gdb says under `bt` without the symbol file: the server's `rsp` is unavailable,
/// so gdb's x86 unwinders stop before reading memory (a readable `rsp` of no memory made
/// `info frame` fail: "Cannot access memory at address 0x4000000000000000").
const NO_RETURN_ADDRESS: &str =
    "Backtrace stopped: not enough registers or memory available to unwind further";

/// The example kernels, scripts/*.s, by name.
fn example_kernels() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let mut kernels: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("scripts/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "s"))
        .collect();
    kernels.sort();
    assert!(kernels.len() >= 10, "the example kernels: {kernels:?}");
    kernels
}

/// A kernel copied into `dir` (the server writes its symbol file beside it).
fn copy_kernel(dir: &tempfile::TempDir, path: &Path) -> PathBuf {
    let text = std::fs::read_to_string(path).expect("read kernel");
    let name = path.file_name().expect("file name").to_string_lossy();
    kernel(dir, &name, &text)
}

/// Every instruction of a kernel as `wavedbg disasm` lists it: (address, text).
fn instructions(kernel: &Path) -> Vec<(u64, String)> {
    let out = Command::new(bin())
        .arg("disasm")
        .arg(kernel)
        .output()
        .expect("run wavedbg disasm");
    assert!(out.status.success(), "wavedbg disasm {}", kernel.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("    "))
        .filter_map(|l| {
            let (text, addr) = l.rsplit_once("; ")?;
            let addr = u64::from_str_radix(addr.trim(), 16).ok()?;
            Some((addr, text.trim().to_string()))
        })
        .collect()
}

/// Runs gdb in `dir` connected to the server, on the symbol file `elf` if given, with
/// every line of `script` as its own `-ex` (an error in one leaves the others to run).
fn gdb_lines(client: &str, dir: &Path, elf: Option<&str>, server: &Server, script: &str) -> String {
    let mut cmd = Command::new(client);
    cmd.current_dir(dir).args(["-nx", "-batch"]);
    cmd.args(elf);
    cmd.arg("-ex").arg(format!("target remote {}", server.addr));
    for line in script.lines().filter(|l| !l.trim().is_empty()) {
        cmd.arg("-ex").arg(line);
    }
    run_client(cmd, Duration::from_secs(90), None)
}

/// scripts/wavedbg.gdb, for `source`.
fn wavedbg_gdb() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts/wavedbg.gdb")
        .display()
        .to_string()
}

/// gdb Python that moves the wave to each address of `addrs.txt` (`set var $pc`) and
/// checks the frames there: one frame at that PC, no older one, one `bt` line besides the
/// frame's at most (`expected_extra`), `finish` refused as in an outermost frame, `info
/// frame` complete without an error (an error would abort a user-defined command), and
/// the same frame id everywhere. It prints a summary line and the PCs that fail.
const FRAMES_CHECK: &str = r##"
import gdb
addrs = [int(a, 16) for a in open("addrs.txt").read().split()]
expected_extra = [l for l in open("extra.txt").read().splitlines() if l]
ids, bad, ret = set(), [], 0
for a in addrs:
    gdb.execute("set var $pc = %d" % a)
    if gdb.selected_inferior().read_memory(a, 1).tobytes() == b"\xc3":
        ret += 1
    frame = gdb.newest_frame()
    ids.add(str(frame))
    lines = [l for l in gdb.execute("bt", to_string=True).splitlines() if l.strip()]
    frames = [l for l in lines if l.startswith("#")]
    extra = [l for l in lines if not l.startswith("#")]
    try:
        gdb.execute("finish", to_string=True)
        finish = "finish ran"
    except gdb.error as e:
        finish = str(e)
    try:
        info = gdb.execute("info frame", to_string=True)
    except gdb.error as e:
        info = "error: %s" % e
    ok = (frame.pc() == a and frame.older() is None and len(frames) == 1
          and frames[0].startswith("#0 ") and extra == expected_extra
          and finish == '"finish" not meaningful in the outermost frame.'
          and info.startswith("Stack level 0, frame at 0x0:\n")
          and "saved rip = <not saved>" in info and "Cannot access" not in info)
    if not ok:
        bad.append("pc %#x: bt %r; finish: %s; info frame: %r" % (a, lines, finish, info))
print("FRAMES pcs=%d ret=%d bad=%d ids=%d" % (len(addrs), ret, len(bad), len(ids)))
for b in bad[:5]:
    print("BAD " + b)
"##;

/// The `FRAMES` summary of [`FRAMES_CHECK`] in `out`: (PCs, PCs whose first code byte is
/// 0xc3, failing PCs, distinct frame ids).
fn frames_summary(out: &str) -> (usize, usize, usize, usize) {
    let line = out
        .lines()
        .find(|l| l.starts_with("FRAMES "))
        .unwrap_or_else(|| panic!("no summary in:\n{out}"));
    let field = |name: &str| -> usize {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {line}"))
    };
    (field("pcs"), field("ret"), field("bad"), field("ids"))
}

/// Runs [`FRAMES_CHECK`] on every instruction of every example kernel in `client`, with and
/// without the symbol file; one gdb session per kernel and mode.
fn one_frame_at_every_pc_with(client: &str) {
    if !have(client) {
        return;
    }
    let started = Instant::now();
    let mut ret_pcs = 0;
    for path in example_kernels() {
        let dir = tempfile::tempdir().expect("tempdir");
        let k = copy_kernel(&dir, &path);
        let addrs: Vec<u64> = instructions(&k).iter().map(|&(a, _)| a).collect();
        let list: String = addrs.iter().map(|a| format!("{a:#x}\n")).collect();
        std::fs::write(dir.path().join("addrs.txt"), list).expect("addrs");
        std::fs::write(dir.path().join("check.py"), FRAMES_CHECK).expect("check");
        let elf = k.with_extension("elf");
        let elf = elf.file_name().expect("elf name").to_string_lossy();
        for symbols in [false, true] {
            let extra = if symbols { "" } else { NO_RETURN_ADDRESS };
            std::fs::write(dir.path().join("extra.txt"), extra).expect("extra");
            let server = Server::start(&k);
            let out = gdb_lines(
                client,
                dir.path(),
                symbols.then_some(&*elf),
                &server,
                "source check.py\nkill",
            );
            let (pcs, ret, bad, ids) = frames_summary(&out);
            let what = format!(
                "{} {}",
                path.display(),
                if symbols {
                    "with its symbol file"
                } else {
                    "without the symbol file"
                }
            );
            assert_eq!(pcs, addrs.len(), "{what}:\n{out}");
            assert_eq!(bad, 0, "{what}:\n{out}");
            assert_eq!(ids, 1, "one frame id at every PC, {what}:\n{out}");
            if symbols {
                ret_pcs += ret;
            }
        }
    }
    // The PCs where gdb's x86 epilogue heuristic used to unwind a caller from the code.
    assert!(ret_pcs > 0, "no kernel has a PC whose first byte is 0xc3");
    eprintln!(
        "{client}: every PC of every example kernel, twice, in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn gdb_sees_one_frame_at_every_pc() {
    one_frame_at_every_pc_with("gdb");
}

#[test]
fn gdb_multiarch_sees_one_frame_at_every_pc() {
    one_frame_at_every_pc_with("gdb-multiarch");
}

/// lldb at every instruction of every example kernel (`register write pc`, then `bt`),
/// with and without the symbol file: one frame, at that PC.
#[test]
fn lldb_sees_one_frame_at_every_pc() {
    if !have("lldb") {
        return;
    }
    let started = Instant::now();
    for path in example_kernels() {
        let dir = tempfile::tempdir().expect("tempdir");
        let k = copy_kernel(&dir, &path);
        let addrs: Vec<u64> = instructions(&k).iter().map(|&(a, _)| a).collect();
        let script: String = addrs
            .iter()
            .map(|a| format!("register write pc {a:#x}\nbt\n"))
            .chain(["process kill\n".to_string()])
            .collect();
        for symbols in [false, true] {
            let server = Server::start(&k);
            let elf = k.with_extension("elf");
            let out = lldb_elf(dir.path(), symbols.then_some(&*elf), &server, &script);
            let what = format!("{} (symbol file: {symbols})", path.display());
            assert!(!out.contains("frame #1"), "{what}:\n{out}");
            // One `bt` per address, each with one frame at that address.
            let bts: Vec<&str> = out.split("(lldb) bt\n").skip(1).collect();
            assert_eq!(bts.len(), addrs.len(), "{what}:\n{out}");
            for (bt, a) in bts.iter().zip(&addrs) {
                let frame = format!("* frame #0: {a:#018x}");
                assert!(bt.contains(&frame), "{what}: no `{frame}` in\n{bt}");
            }
        }
    }
    eprintln!(
        "lldb: every PC of every example kernel, twice, in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// From histogram.s's `next_word`, as in a native program's outermost frame: `finish` is
/// refused, `until *ADDR` stops there (0x90, whose first code byte is x86's `ret`, used to
/// run the kernel to its end), `advance LABEL` and `until LABEL` reach the label, and `bt`
/// shows one frame at each stop.
fn finish_until_advance_with(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, _) = histogram_in(&dir);
    let code = instructions(&k);
    let at = |text: &str, from: u64| {
        code.iter()
            .find(|(a, t)| *a >= from && t == text)
            .map(|&(a, _)| a)
            .unwrap_or_else(|| panic!("no `{text}` in histogram.s"))
    };
    let next_word = label_addr(&k, "next_word");
    let merged = label_addr(&k, "merged");
    let byte1 = at("vshri v5, v4, 8", next_word);
    assert_eq!(
        (next_word, byte1, merged),
        (0x6c, 0x90, 0x120),
        "as issue 24 has them"
    );
    for symbols in [false, true] {
        let (start, to_merged) = if symbols {
            ("next_word".to_string(), "merged".to_string())
        } else {
            (format!("*{next_word:#x}"), format!("*{merged:#x}"))
        };
        let pc = |a: u64, label: &str| {
            if symbols {
                format!("(void (*)()) {a:#x} <{label}>\n")
            } else {
                format!("(void (*)()) {a:#x}\n")
            }
        };
        let script = format!(
            "break {start}\ncontinue\ndelete\nfinish\nuntil *{byte1:#x}\np $pc\nbt\n\
             advance {to_merged}\np $pc\nbt\nkill\n"
        );
        let server = Server::start(&k);
        let elf = symbols.then_some("histogram.elf");
        let out = gdb_lines(client, dir.path(), elf, &server, &script);
        check(
            &out,
            &server,
            &[
                "\"finish\" not meaningful in the outermost frame.",
                &format!("$1 = {}", pc(byte1, "next_word+36")),
                &format!("$2 = {}", pc(merged, "merged")),
            ],
        );
        for unwanted in [
            "#1",
            "Cannot insert breakpoint",
            "exited normally",
            "Run till exit",
        ] {
            assert!(
                !out.contains(unwanted),
                "`{unwanted}` (symbol file: {symbols}):\n{out}"
            );
        }
        assert_eq!(out.matches("#0 ").count(), 2, "{out}");
        if !symbols {
            assert_eq!(out.matches(NO_RETURN_ADDRESS).count(), 2, "{out}");
        }

        // `until LABEL` from the label's loop.
        let script = format!("break {start}\ncontinue\ndelete\nuntil {to_merged}\np $pc\nkill\n");
        let server = Server::start(&k);
        let out = gdb_lines(client, dir.path(), elf, &server, &script);
        check(&out, &server, &[&format!("$1 = {}", pc(merged, "merged"))]);
        assert!(!out.contains("exited normally"), "{out}");
    }
}

#[test]
fn gdb_finish_until_and_advance_behave_as_in_an_outermost_frame() {
    finish_until_advance_with("gdb");
}

#[test]
fn gdb_multiarch_finish_until_and_advance_behave_as_in_an_outermost_frame() {
    finish_until_advance_with("gdb-multiarch");
}

/// After `source scripts/wavedbg.gdb`, `x/i`, `disassemble` and `display/i $pc` show
/// histogram.s's own instructions, with and without the symbol file.
fn gdb_shows_the_kernels_instructions_with(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, _) = histogram_in(&dir);
    let next_word = label_addr(&k, "next_word");
    for symbols in [false, true] {
        // How gdb shows an address before an instruction: `0x74 <next_word+8>:` with the
        // symbol file, `0x74:` without.
        let at = |a: u64, label: &str| {
            if symbols {
                format!("{a:#x} <{label}>:\t")
            } else {
                format!("{a:#x}:\t")
            }
        };
        let (start, range) = if symbols {
            ("next_word".to_string(), "next_word".to_string())
        } else {
            (
                format!("*{next_word:#x}"),
                format!("{next_word:#x},{:#x}", next_word + 0x90),
            )
        };
        let script = format!(
            "source {}\nx/3i $pc\nbreak {start}\ncontinue\ndisplay/i $pc\nstepi\n\
             disassemble {range}\nkill\n",
            wavedbg_gdb()
        );
        let server = Server::start(&k);
        let elf = symbols.then_some("histogram.elf");
        let out = gdb_lines(client, dir.path(), elf, &server, &script);
        let listing = if symbols {
            vec![
                "Dump of assembler code for function next_word:\n".to_string(),
                "   0x000000000000006c <+0>:\tld.ubase.b32 v4, u[0:1], v3, 0\n".to_string(),
                "=> 0x0000000000000074 <+8>:\twait.vm 0\n".to_string(),
                "   0x00000000000000f4 <+136>:\tbr.unz u8, next_word\n".to_string(),
            ]
        } else {
            vec![
                "Dump of assembler code from 0x6c to 0xfc:\n".to_string(),
                "   0x000000000000006c:\tld.ubase.b32 v4, u[0:1], v3, 0\n".to_string(),
                "=> 0x0000000000000074:\twait.vm 0\n".to_string(),
                "   0x00000000000000f4:\tbr.unz u8, next_word\n".to_string(),
            ]
        };
        let mut wanted = vec![
            format!("=> {}uwgid u4\n", at(0, "histogram")),
            format!("   {}uwaveid u5\n", at(4, "histogram+4")),
            format!("   {}uwgsize u6\n", at(8, "histogram+8")),
            format!("1: x/i $pc\n=> {}wait.vm 0\n", at(0x74, "next_word+8")),
        ];
        wanted.extend(listing);
        let wanted: Vec<&str> = wanted.iter().map(String::as_str).collect();
        check(&out, &server, &wanted);
        assert!(
            !out.contains("Traceback") && !out.contains("Python Exception"),
            "{out}"
        );
    }
}

#[test]
fn gdb_shows_the_kernels_instructions() {
    gdb_shows_the_kernels_instructions_with("gdb");
}

#[test]
fn gdb_multiarch_shows_the_kernels_instructions() {
    gdb_shows_the_kernels_instructions_with("gdb-multiarch");
}

/// `x/Ni 0` over the whole code of every example kernel shows exactly `wavedbg disasm`'s
/// instructions, address by address (one gdb session per kernel).
#[test]
fn gdb_shows_every_instruction_as_wavedbg_disasm_does() {
    if !have("gdb") {
        return;
    }
    for path in example_kernels() {
        let dir = tempfile::tempdir().expect("tempdir");
        let k = copy_kernel(&dir, &path);
        let code = instructions(&k);
        let server = Server::start(&k);
        let script = format!("source {}\nx/{}i 0\nkill\n", wavedbg_gdb(), code.len());
        let out = gdb_lines("gdb", dir.path(), None, &server, &script);
        let shown: Vec<(u64, String)> = out
            .lines()
            .filter_map(|l| {
                let l = l.trim_start_matches("=>").trim_start();
                let (addr, text) = l.split_once(":\t")?;
                let addr = u64::from_str_radix(addr.strip_prefix("0x")?, 16).ok()?;
                Some((addr, text.trim().to_string()))
            })
            .collect();
        // `wavedbg disasm` aligns its text in columns; gdb shows it as the server sends it.
        let squeeze = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        let want: Vec<(u64, String)> = code.iter().map(|(a, t)| (*a, squeeze(t))).collect();
        let got: Vec<(u64, String)> = shown.iter().map(|(a, t)| (*a, squeeze(t))).collect();
        assert_eq!(got, want, "{}:\n{out}", path.display());
    }
}

/// A gdb without `gdb.disassembler` (before 13; here the module is hidden) loads
/// scripts/wavedbg.gdb without an error, keeps its own x86 decoding, and `disasm` shows the
/// kernel's instructions.
#[test]
fn an_older_gdb_loads_the_script_and_keeps_disasm() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, _) = histogram_in(&dir);
    let server = Server::start(&k);
    let script = format!(
        "python import sys; sys.modules['gdb.disassembler'] = None\nsource {}\n\
         x/i $pc\ndisasm\nkill\n",
        wavedbg_gdb()
    );
    let out = gdb_lines("gdb", dir.path(), None, &server, &script);
    check(&out, &server, &["=> 0x0:\t", "=>  0x0000  uwgid u4\n"]);
    assert!(!out.contains("=> 0x0:\tuwgid"), "x/i stays gdb's:\n{out}");
    for unwanted in ["Traceback", "Python Exception", "Error"] {
        assert!(!out.contains(unwanted), "`{unwanted}`:\n{out}");
    }
}

/// gdb's `layout asm` in a real terminal shows the kernel's instructions around the
/// breakpoint, with the marker on the label's first one.
#[test]
fn gdb_layout_asm_shows_the_kernels_instructions() {
    if !have("gdb") {
        return;
    }
    let Some(t) = tmux::start("gdb-layout-asm", "gdb-test$ ", (100, 30), false) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, _) = histogram_in(&dir);
    let mut server = Server::start(&k);
    t.type_text(&format!(
        "cd {} && gdb -nx histogram.elf -ex 'target remote {}' -x {} -ex 'break next_word' -ex 'continue' -ex 'layout asm'",
        dir.path().display(),
        server.addr,
        wavedbg_gdb()
    ));
    t.keys(&["Enter"]);
    let screen = t.wait_for("the assembly window at the breakpoint", |s| {
        s.contains("B+>") && s.contains("In: next_word")
    });
    let rows: Vec<&str> = screen.lines().collect();
    let current = rows
        .iter()
        .find(|r| r.contains("B+>"))
        .expect("a current instruction");
    assert!(
        current.contains("0x6c <next_word>") && current.contains("ld.ubase.b32 v4, u[0:1], v3, 0"),
        "the marker is on next_word's first instruction:\n{screen}"
    );
    for text in [
        "<next_word+8>",
        "wait.vm 0",
        "atom.shared.add.u32 v7, v6, 0",
    ] {
        assert!(screen.contains(text), "`{text}` is shown:\n{screen}");
    }
    t.type_text("kill");
    t.keys(&["Enter"]);
    t.wait_text("(y or n)");
    t.keys(&["y", "Enter"]);
    t.wait_text("[Inferior 1 (process 1) killed]");
    assert!(
        server.wait_exit(Duration::from_secs(10)).is_some(),
        "the server ends after kill:\n{}",
        server.log()
    );
    t.type_text("quit");
    t.keys(&["Enter"]);
    t.wait_for("the shell prompt after gdb", |s| {
        !s.contains("(gdb)") && s.lines().any(|l| l.starts_with("gdb-test$"))
    });
}
