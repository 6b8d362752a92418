//! Source-level debugging of scripts/saxpy_src.s (compiled from scripts/src/saxpy.cl)
//! through the symbol file `wavedbg serve` writes, in real clients: gdb and
//! gdb-multiarch list saxpy.cl, break at its lines and step by them; lldb too, and reads
//! the kernel's variables (`frame variable`), each the value the REPL prints for it, and
//! in a kernel with shared, scratch and register-pair variables ([`MEMORY`]) each wave's
//! own values. Outside CI (`CI` unset) a missing client skips its test with a message; in CI it
//! fails. gdb's `layout src` is checked in a real terminal (tmux).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod clients;
use clients::*;

mod tmux;

/// scripts/saxpy_src.s and scripts/src/saxpy.cl copied into `dir`, as the `.s` names it,
/// with `extra` after the `.var` of `n`: the kernel's path.
fn saxpy_in(dir: &tempfile::TempDir, extra: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).expect("read the example");
    std::fs::create_dir_all(dir.path().join("src")).expect("src directory");
    std::fs::write(dir.path().join("src/saxpy.cl"), read("src/saxpy.cl")).expect("write");
    let text = read("saxpy_src.s").replacen(
        "        .var n, u5\n",
        &format!("        .var n, u5\n{extra}"),
        1,
    );
    kernel(dir, "saxpy_src.s", &text)
}

/// The address of the first statement of a line of saxpy.cl, from the REPL's
/// `info line saxpy.cl:N`.
fn line_addr(kernel: &Path, line: u32) -> u64 {
    let out = repl(kernel, &format!("info line saxpy.cl:{line}\n"));
    let at = out
        .split("starts at address ")
        .nth(1)
        .unwrap_or_else(|| panic!("no address for line {line}:\n{out}"));
    let hex = at.trim_start_matches("0x");
    let end = hex
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(hex.len());
    u64::from_str_radix(&hex[..end], 16).expect("hex address")
}

/// Runs the REPL on a kernel with these commands (piped) and returns its output.
fn repl(kernel: &Path, commands: &str) -> String {
    use std::io::Write;
    let mut child = Command::new(bin())
        .arg("repl")
        .arg(kernel)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the REPL");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(commands.as_bytes())
        .expect("write commands");
    let out = child.wait_with_output().expect("REPL output");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// gdb lists saxpy.cl, puts `break saxpy.cl:9` at the line's first statement, and
/// `next`, `step` and `until` go by saxpy.cl lines (through the hoisted non-statement
/// code of line 4). `info locals` reads the variables live there, each the value the
/// REPL's `print` gives at the same stop: a register variable's 32 lanes (`xi[5]`), its
/// selected lane's value (`xi_lane`, following `set $lane`), uniform and global ones.
fn gdb_debugs_saxpy_by_line(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = saxpy_in(&dir, "        .var g, global:y+8, f32\n");
    let [l6, l9, l10, l11, l13] = [6, 9, 10, 11, 13].map(|l| line_addr(&k, l));
    // The REPL at the same stop (wave 0 at line 10), lane 7.
    let repl_out = repl(
        &k,
        "break saxpy.cl:10\nrun\nlane 7\nprint a\nprint n\nprint xi[5]\nprint xi[7]\n\
         print i[7]\n",
    );
    for want in [
        "a = 2\n",
        "n = 100\n",
        "xi[5] = 5\n",
        "xi[7] = 7\n",
        "i[7] = 7\n",
    ] {
        assert!(
            repl_out.contains(want),
            "REPL: missing `{want}` in\n{repl_out}"
        );
    }
    let server = Server::start(&k);
    let script = "list saxpy.cl:9,10
break saxpy.cl:9
info line saxpy.cl:6
continue
p $pc
next
p $pc
info locals
p g
p xi[5]
set $lane = 7
p xi_lane
p i_lane
step
p $pc
until
p $pc
info source
kill
";
    let out = gdb_ex(client, dir.path(), "saxpy_src.elf", Some(&server), script);
    // `serve` names the kernel by the path it was given (absolute here), and saxpy.cl
    // relative to it.
    let cl = dir.path().join("src/saxpy.cl").display().to_string();
    let lanes = (0..32)
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    check(
        &out,
        &server,
        &[
            "9\t        float xi = x[i];\n10\t        float yi = y[i];\n",
            &format!("Breakpoint 1 at {l9:#x}: file {cl}, line 9."),
            &format!("Line 6 of \"{cl}\" starts at address {l6:#x} <saxpy+{l6}>"),
            &format!("hit Breakpoint 1, saxpy () at {cl}:9\n9\t        float xi = x[i];"),
            &format!("$1 = (void (*)()) {l9:#x} <saxpy+{l9}>"),
            "10\t        float yi = y[i];",
            &format!("$2 = (void (*)()) {l10:#x} <saxpy+{l10}>"),
            "\na = 2\nn = 100\ng = 1\n",
            &format!("\ni = {{{lanes}}}\ni_lane = 0\nxi = {{{lanes}}}\nxi_lane = 0\n"),
            "$3 = 1\n$4 = 5\n$5 = 7\n$6 = 7\n",
            "11\t        y[i] = a * xi + yi;",
            &format!("$7 = (void (*)()) {l11:#x} <saxpy+{l11}>"),
            // `join` is a label in the one function: `until` stays in its frame.
            &format!("13\t}}\n$8 = (void (*)()) {l13:#x} <join>"),
            &format!("Current source file is {cl}\n"),
        ],
    );
}

#[test]
fn gdb_debugs_saxpy_by_line_in_saxpy_cl() {
    gdb_debugs_saxpy_by_line("gdb");
}

#[test]
fn gdb_multiarch_debugs_saxpy_by_line_in_saxpy_cl() {
    gdb_debugs_saxpy_by_line("gdb-multiarch");
}

/// lldb with its default settings (fast stepping: it plans a line step from the symbol
/// file's x86 stand-in code): `breakpoint set -f saxpy.cl -l 9`, `source list`,
/// `thread step-in` and `thread step-over` by saxpy.cl lines, and `frame variable` gives
/// the values the
/// REPL's `print` gives: a 32-lane array for a vector register variable, `NAME_lane`
/// the selected lane's value (following `register write lane`).
#[test]
fn lldb_debugs_saxpy_by_line_and_variable() {
    if !have("lldb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = saxpy_in(&dir, "");
    let [l9, l10, l11] = [9, 10, 11].map(|l| line_addr(&k, l));
    // The REPL at the same stop: wave 0 (the first to reach line 11), lane 7.
    let repl_out = repl(
        &k,
        "break saxpy.cl:11\nrun\nlane 7\nprint a\nprint n\nprint xi[5]\nprint xi[7]\n\
         print yi[7]\nprint i[7]\n",
    );
    for want in [
        "a = 2\n",
        "n = 100\n",
        "xi[5] = 5\n",
        "xi[7] = 7\n",
        "yi[7] = 1\n",
        "i[7] = 7\n",
    ] {
        assert!(
            repl_out.contains(want),
            "REPL: missing `{want}` in\n{repl_out}"
        );
    }
    let server = Server::start(&k);
    let elf = dir.path().join("saxpy_src.elf");
    let script = "breakpoint set -f saxpy.cl -l 9
source list -f saxpy.cl -l 9 -c 2
process continue
thread step-in
register read pc
thread step-over
register read pc
frame variable a n xi[5]
register write lane 7
frame variable xi_lane yi_lane i_lane
frame variable i
process kill
";
    let out = lldb_elf(dir.path(), Some(&elf), &server, script);
    check(
        &out,
        &server,
        &[
            &format!(
                "Breakpoint 1: where = saxpy_src.elf`saxpy + {l9} at saxpy.cl:9:20, address = {l9:#018x}"
            ),
            "9   \t        float xi = x[i];\n   10  \t        float yi = y[i];",
            &format!("frame #0: {l9:#018x} saxpy_src.elf`saxpy at saxpy.cl:9:20"),
            "stop reason = step in",
            &format!("rip = {l10:#018x}  saxpy_src.elf`saxpy + {l10} at saxpy.cl:10:20"),
            "stop reason = step over",
            &format!("rip = {l11:#018x}  saxpy_src.elf`saxpy + {l11} at saxpy.cl:11:16"),
            "(float) a = 2\n",
            "(unsigned int) n = 100\n",
            "(float) xi[5] = 5\n",
            "(float) xi_lane = 7\n",
            "(float) yi_lane = 1\n",
            "(unsigned int) i_lane = 7\n",
            "(unsigned int[32]) i = {\n  [0] = 0\n  [1] = 1\n",
            "  [31] = 31\n}",
        ],
    );
}

/// Two workgroups of two waves; thread t of workgroup W stores `1000 W + t` to shared
/// word t, lane L of wave V stores `100 V + L` to byte 4 of its scratch; `w` is a pair
/// (low 7, high the lane), `p` a uniform pair (5, 1). The variables are declared at
/// `stored` (line 2 of m.cl).
const MEMORY: &str = "\
.kernel mem
.workgroup 64
.grid 2
.shared 256
.scratch 8
.buffer out, 1024
.arg u[0:1], out
    .file 1 \"m.cl\"
    .loc 1 1 1
    uwgid u4
    uwaveid u5
    vlaneid v0
    ushli u7, u5, 5
    vadd.u32.u v1, v0, u7
    vshli v2, v1, 2
    umovi u6, 1000
    umul u8, u4, u6
    vadd.u32.u v3, v1, u8
    st.shared.b32 v3, v2, 0
    wait.ls 0
    ushli u9, u4, 1
    uadd u9, u9, u5
    umovi u6, 100
    umul u10, u9, u6
    vadd.u32.u v4, v0, u10
    vmovi v5, 4
    st.scratch.b32 v4, v5, 0
    wait.vst 0
    vmovi v6, 7
    vmov v7, v0
    umovi u12, 5
    umovi u13, 1
    .var s, shared:8
    .var t, scratch:4
    .var w, v[6:7], u64
    .var p, u[12:13], u64
    .loc 1 2 1
stored:
    barrier
    .loc 1 3 1
done:
    end
";

/// lldb reads shared and scratch variables in each wave's own windows (workgroup 1's
/// shared memory in wave 3, wave 3's scratch), a vector register pair as its halves and
/// its selected lane's 64-bit value, and a uniform pair.
#[test]
fn lldb_reads_memory_and_pair_variables_in_each_wave() {
    if !have("lldb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "m.s", MEMORY);
    std::fs::write(dir.path().join("m.cl"), "a\nb\nc\n").expect("write m.cl");
    let server = Server::start(&k);
    let elf = dir.path().join("m.elf");
    let script = "breakpoint set -f m.cl -l 3
process continue
frame variable s t[3] t_lane p w.lo[3] w.hi[3] w_lane
register write lane 3
frame variable t_lane w_lane
thread select 4
register read wave workgroup
frame variable s t[3] t_lane
frame variable t
process kill
";
    let out = lldb_elf(dir.path(), Some(&elf), &server, script);
    check(
        &out,
        &server,
        &[
            "(unsigned int) s = 2\n(unsigned int) t[3] = 3\n(unsigned int) t_lane = 0\n",
            &format!("(unsigned long) p = {}\n", 5 + (1u64 << 32)),
            "(unsigned int) w.lo[3] = 7\n(unsigned int) w.hi[3] = 3\n(unsigned long) w_lane = 7\n",
            &format!(
                "(unsigned int) t_lane = 3\n(unsigned long) w_lane = {}\n",
                7 + (3u64 << 32)
            ),
            "    wave = 0x00000003\nworkgroup = 0x00000001\n",
            "(unsigned int) s = 1002\n(unsigned int) t[3] = 303\n(unsigned int) t_lane = 303\n",
            "(unsigned int[32]) t = {\n  [0] = 300\n  [1] = 301\n",
            "  [31] = 331\n}",
        ],
    );
}

/// scripts/reduce_tiled_src.s and scripts/src/reduce_tiled.cl copied into `dir`: the
/// kernel's path.
fn reduce_tiled_in(dir: &tempfile::TempDir) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).expect("read the example");
    std::fs::create_dir_all(dir.path().join("src")).expect("src directory");
    std::fs::write(
        dir.path().join("src/reduce_tiled.cl"),
        read("src/reduce_tiled.cl"),
    )
    .expect("write");
    kernel(dir, "reduce_tiled_src.s", &read("reduce_tiled_src.s"))
}

/// lldb in scripts/reduce_tiled_src.s, eight waves that reach each line together: a
/// breakpoint on a line stops every wave there at once (lldb 14 stepped the waves it was
/// not told about over it: one stop instead of eight); its line steps run the thread
/// alone, so a step that must wait at a barrier stops with the reason and lldb's way out;
/// with `-m all-threads` the other waves run too, and `thread step-over` goes round the
/// loop by lines (through its branches and barriers): `stride` is the REPL's value at the
/// first pass, half of it at the second.
#[test]
fn lldb_steps_reduce_tiled_by_line_through_barriers() {
    if !have("lldb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = reduce_tiled_in(&dir);
    let repl_out = repl(&k, "break reduce_tiled.cl:12\nrun\nprint stride\n");
    assert!(repl_out.contains("stride = 32\n"), "REPL:\n{repl_out}");
    let server = Server::start(&k);
    let elf = dir.path().join("reduce_tiled_src.elf");
    let script = "breakpoint set -f reduce_tiled.cl -l 9
process continue
thread step-over
thread step-over
thread step-over
thread step-over -m all-threads
frame variable stride
thread step-over -m all-threads
thread step-over -m all-threads
thread step-over -m all-threads
thread step-over -m all-threads
frame variable stride
process kill
";
    let out = lldb_elf(dir.path(), Some(&elf), &server, script);
    let at_break = (1..=8)
        .map(|t| format!("thread #{t}, stop reason = breakpoint 1.1\n"))
        .collect::<Vec<_>>();
    let mut wanted: Vec<&str> = at_break.iter().map(String::as_str).collect();
    wanted.extend([
        "reduce_tiled at reduce_tiled.cl:10:5\n",
        "reduce_tiled at reduce_tiled.cl:11:24\n",
        "the wave waits at a barrier for the other waves of its workgroup, which are frozen",
        "lldb steps one thread alone: `process continue`, or the same step again",
        "stop reason = signal SIGSTOP",
        "reduce_tiled at reduce_tiled.cl:12:13\n",
        "(unsigned int) stride = 32\n",
        "reduce_tiled at reduce_tiled.cl:13:24\n",
        "reduce_tiled at reduce_tiled.cl:14:9\n",
        "reduce_tiled at reduce_tiled.cl:11:59\n",
        "(unsigned int) stride = 16\n",
    ]);
    check(&out, &server, &wanted);
    // In that order.
    let mut from = 0;
    for w in &wanted[8..] {
        let at = out[from..]
            .find(w)
            .unwrap_or_else(|| panic!("`{w}` out of order in:\n{out}"));
        from += at + w.len();
    }
}

/// gdb and gdb-multiarch read register, pair, shared and scratch variables in each
/// wave's own window (docs/gdb.md): `info locals`, `p VAR`, `p VAR[3]`, `p VAR_lane`
/// following `set $lane`, in wave 0 and in wave 3 (thread 4, workgroup 1), with the values
/// lldb reads above; `set var` writes a register variable, and a read past the shared
/// memory is refused.
fn gdb_reads_memory_and_pair_variables_in_each_wave(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "m.s", MEMORY);
    std::fs::write(dir.path().join("m.cl"), "a\nb\nc\n").expect("write m.cl");
    let server = Server::start(&k);
    let script = "break m.cl:3
continue
info locals
p t[3]
p w.lo[3]
p w.hi[3]
set $lane = 3
p t_lane
p w_lane
thread 4
p $wave
p $workgroup
info locals
p t[3]
set var t[5] = 99
p t[5]
p t_lane
set var p = 77
p $u12
set var w_lane = 0x500000004
p $v6[3]
p $v7[3]
p s@300
kill
";
    let out = gdb_ex(client, dir.path(), "m.elf", Some(&server), script);
    let halves = |hi: &str| format!("w = {{lo = {{7 <repeats 32 times>}}, hi = {{{hi}}}}}\n");
    let lanes: Vec<String> = (0..32).map(|l| l.to_string()).collect();
    let wave0 = halves(&lanes.join(", "));
    // A scratch variable's 32 lanes, whole (lane L of wave V stored 100 V + L).
    let scratch = |v: u32| {
        let lanes: Vec<String> = (0..32).map(|l| (100 * v + l).to_string()).collect();
        format!("\nt = {{{}}}\n", lanes.join(", "))
    };
    check(
        &out,
        &server,
        &[
            "\ns = 2\n",
            &scratch(0),
            "\nt_lane = 0\n",
            &wave0,
            "w_lane = 7\n",
            &format!("p = {}\n", 5 + (1u64 << 32)),
            "$1 = 3\n$2 = 7\n$3 = 3\n",
            &format!("$4 = 3\n$5 = {}\n", 7 + (3u64 << 32)),
            "$6 = 3\n$7 = 1\n",
            "\ns = 1002\n",
            &scratch(3),
            "\nt_lane = 303\n",
            &format!("w_lane = {}\n", 7 + (3u64 << 32)),
            // `set var t[5]` wrote lane 5's scratch; lane 3 is still selected.
            "$8 = 303\n$9 = 99\n$10 = 303\n$11 = 77\n$12 = 4\n$13 = 5\n",
            "Cannot access memory at address",
        ],
    );
}

#[test]
fn gdb_reads_memory_and_pair_variables() {
    gdb_reads_memory_and_pair_variables_in_each_wave("gdb");
}

#[test]
fn gdb_multiarch_reads_memory_and_pair_variables() {
    gdb_reads_memory_and_pair_variables_in_each_wave("gdb-multiarch");
}

/// gdb and gdb-multiarch read scripts/reduce_tiled_src.s's vector, uniform and shared
/// variables in wave 0 and in wave 2 (thread 3, workgroup 1), each the value the REPL's
/// `print` gives for that wave at the same stop.
fn gdb_reads_reduce_tiled_variables_in_two_waves(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = reduce_tiled_in(&dir);
    let repl_out = repl(
        &k,
        "break reduce_tiled.cl:12\nrun\nprint tile\nprint i[5]\nprint stride\nwave 2\n\
         print tile\nprint i[5]\nprint lid[5]\n",
    );
    for want in [
        "tile = 1\ni[5] = 5\nstride = 32\n",
        "tile = 193\ni[5] = 69\nlid[5] = 5\n",
    ] {
        assert!(
            repl_out.contains(want),
            "REPL: missing `{want}` in\n{repl_out}"
        );
    }
    let server = Server::start(&k);
    let script = "break reduce_tiled.cl:12
continue
info locals
p i[5]
p stride
thread 3
info locals
p i[5]
set $lane = 5
p i_lane
p lid_lane
kill
";
    let out = gdb_ex(
        client,
        dir.path(),
        "reduce_tiled_src.elf",
        Some(&server),
        script,
    );
    let seq = |from: u32| {
        (from..from + 32)
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    check(
        &out,
        &server,
        &[
            &format!(
                "tile = 1\nlid = {{{}}}\nlid_lane = 0\ni = {{{}}}\ni_lane = 0\nstride = 32\n",
                seq(0),
                seq(0)
            ),
            "$1 = 5\n$2 = 32\n",
            &format!(
                "tile = 193\nlid = {{{}}}\nlid_lane = 0\ni = {{{}}}\ni_lane = 64\n",
                seq(0),
                seq(64)
            ),
            "$3 = 69\n$4 = 69\n$5 = 5\n",
        ],
    );
}

#[test]
fn gdb_reads_reduce_tiled_variables() {
    gdb_reads_reduce_tiled_variables_in_two_waves("gdb");
}

#[test]
fn gdb_multiarch_reads_reduce_tiled_variables() {
    gdb_reads_reduce_tiled_variables_in_two_waves("gdb-multiarch");
}

/// A kernel of a higher-level language is one function to gdb, its labels places in it
/// (`tree`, `skip`): `watch tile` lasts through the reduction tree instead of being
/// deleted at the first label, displays stay shown at every line where their variables
/// live, `until` at the loop's back edge leaves the loop as the REPL's does, and stops
/// name the kernel, not a label.
#[test]
fn gdb_keeps_watches_displays_and_until_in_the_kernels_one_function() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = reduce_tiled_in(&dir);
    let server = Server::start(&k);
    let script = "set scheduler-locking off
break reduce_tiled.cl:13
continue
delete
display stride
watch tile
continue
continue
delete
next
until
kill
";
    let out = gdb_ex(
        "gdb",
        dir.path(),
        "reduce_tiled_src.elf",
        Some(&server),
        script,
    );
    check(
        &out,
        &server,
        &[
            "atchpoint 2: tile",
            "Old value = 1\nNew value = 98\nreduce_tiled () at",
            "Old value = 98\nNew value = 292\nreduce_tiled () at",
            // Shown at line 14 (the label `skip`) and 11 (the loop's step).
            "14\t        barrier();\n1: stride = 32\n",
            "14\t        barrier();\n1: stride = 16\n",
            "11\t    for (uint stride = group_size() / 2; stride > 0; stride /= 2) {\n1: stride = 16\n",
            // `until` at the back edge: out of the loop.
            "\n16\t    if (lid == 0)\n1: stride = ",
        ],
    );
    for absent in [
        "Watchpoint 2 deleted",
        "tree ()",
        "skip ()",
        "cannot be evaluated",
    ] {
        assert!(!out.contains(absent), "`{absent}` in:\n{out}");
    }
}

/// gdb's `layout src` in a real terminal (tmux) shows saxpy.cl with the marker on the
/// breakpoint's line. (Line 13: gdb 13.1's first `layout src` after a stop shows "No
/// Source Available" at the first lines of a function, for a `.s` as much as for
/// saxpy.cl, until `update`.)
#[test]
fn gdb_layout_src_shows_saxpy_cl() {
    if !have("gdb") {
        return;
    }
    let Some(t) = tmux::start("gdb-layout-src-cl", "gdb-test$ ", (100, 30), false) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let k = saxpy_in(&dir, "");
    let l13 = line_addr(&k, 13);
    let mut server = Server::start(&k);
    t.type_text(&format!(
        "cd {} && gdb -nx saxpy_src.elf -ex 'target remote {}' -ex 'break saxpy.cl:13' -ex 'continue' -ex 'layout src'",
        dir.path().display(),
        server.addr
    ));
    t.keys(&["Enter"]);
    let screen = t.wait_for("the source window at the breakpoint", |s| {
        s.contains("B+>") && s.contains("In: join")
    });
    let rows: Vec<&str> = screen.lines().collect();
    let current = rows
        .iter()
        .find(|r| r.contains("B+>"))
        .expect("a current line");
    assert!(
        current.contains(" 13 ") && current.contains('}'),
        "the marker is on line 13:\n{screen}"
    );
    assert!(
        rows.iter()
            .any(|r| r.contains(" 11 ") && r.contains("y[i] = a * xi + yi;")),
        "line 11 is shown:\n{screen}"
    );
    assert!(
        screen.contains("saxpy.cl"),
        "the window names the file:\n{screen}"
    );
    let status = rows
        .iter()
        .find(|r| r.contains("In: join"))
        .expect("status line");
    assert!(
        status.contains("L13") && status.contains(&format!("PC: {l13:#x}")),
        "status line: {status}\n{screen}"
    );
    t.type_text("kill");
    t.keys(&["Enter"]);
    t.wait_text("(y or n)");
    t.keys(&["y", "Enter"]);
    t.wait_text("[Inferior 1 (process 1) killed]");
    assert!(
        server
            .wait_exit(std::time::Duration::from_secs(10))
            .is_some(),
        "the server ends after kill:\n{}",
        server.log()
    );
    t.type_text("quit");
    t.keys(&["Enter"]);
    t.wait_for("the shell prompt after gdb", |s| {
        !s.contains("(gdb)") && s.lines().any(|l| l.starts_with("gdb-test$"))
    });
}

/// gdb's `next` and `step` over saxpy.cl's lines of several instructions: with range
/// stepping (gdb's default, `vCont;r START,END:TID`) each line is one resumption, and the
/// stops are those of gdb stepping the line one instruction at a time (`set range-stepping
/// off`), with and without scripts/wavedbg.gdb (`scheduler-locking step`: the wave steps
/// alone; else the other waves may run while it waits at a barrier).
#[test]
fn gdb_steps_lines_with_range_steps() {
    if !have("gdb") {
        return;
    }
    let helpers = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/wavedbg.gdb");
    let mut stops: Vec<Vec<String>> = Vec::new();
    for script in [false, true] {
        for range in [true, false] {
            let dir = tempfile::tempdir().expect("tempdir");
            let k = saxpy_in(&dir, "");
            let server = Server::start(&k);
            let source = if script {
                format!("source {}\n", helpers.display())
            } else {
                String::new()
            };
            let lines = format!(
                "{source}set range-stepping {}
break saxpy.cl:6
continue
set debug remote 1
next
printf \"STOP %#x %d\\n\", $pc, $wave
next
printf \"STOP %#x %d\\n\", $pc, $wave
step
printf \"STOP %#x %d\\n\", $pc, $wave
next
printf \"STOP %#x %d\\n\", $pc, $wave
set debug remote 0
kill
",
                if range { "on" } else { "off" }
            );
            let out = gdb_ex("gdb", dir.path(), "saxpy_src.elf", Some(&server), &lines);
            let what = format!("range-stepping {range}, wavedbg.gdb {script}");
            let found: Vec<String> = out
                .lines()
                .filter(|l| l.starts_with("STOP "))
                .map(str::to_string)
                .collect();
            assert_eq!(found.len(), 4, "{what}:\n{out}");
            let ranges = out.matches("Sending packet: $vCont;r").count();
            let steps = out.matches("Sending packet: $vCont;s").count();
            if range {
                // One range step a line (a step off the breakpoint first, as ever).
                assert!(ranges >= 4, "{what}: {ranges} range steps:\n{out}");
                assert!(steps <= 1, "{what}: {steps} single steps:\n{out}");
                if script {
                    assert!(
                        !out.contains(";c:p1.-1"),
                        "{what}: the wave steps alone:\n{out}"
                    );
                }
            } else {
                assert_eq!(ranges, 0, "{what}:\n{out}");
                assert!(steps > 4, "{what}: {steps} single steps:\n{out}");
            }
            stops.push(found);
        }
    }
    assert_eq!(
        stops[0], stops[1],
        "the same stops with range steps as without"
    );
    assert_eq!(
        stops[2], stops[3],
        "the same stops with range steps as without"
    );
}
