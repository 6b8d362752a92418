//! The symbol file (`wavedbg elf`, and the one `wavedbg serve` writes) in real clients:
//! Debian's `gdb`, `gdb-multiarch` and `lldb` (installed by .ci/run), on
//! scripts/histogram.s and on a kernel with shared memory, scratch and several workgroups
//! of several waves ([`WINDOWS`]). Labels, lines and typed buffers (`p out[3]`,
//! `p/x in[0]@4`, `watch out[5]`), the window variables `__shared[W].w[k]` and
//! `__scratch[V][L].w[k]` at exactly the window addresses, the window symbols
//! (`info symbol` names `__shared_wg3 + 8`), a launch with one resident workgroup, the
//! launch options of `serve` and `elf` shaping the windows, the cap on window symbols, a
//! kernel whose own names collide with the window names, and gdb's `layout src` in a real
//! terminal (tmux). Outside CI (`CI` unset) a missing client skips its test with a
//! message; in CI it fails.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

mod clients;
use clients::*;

mod tmux;

/// Four workgroups of two waves (global wave V = 2 W + index), with shared memory and
/// scratch. Thread t of workgroup W stores `1000 W + t` to shared word t; lane L of wave V
/// stores `100 V + L` to word 1 of its scratch and to `out[32 V + L]`; then a barrier,
/// and `done`. `tag` is 6 bytes (not whole words).
const WINDOWS: &str = "\
.kernel windows
.workgroup 64
.grid 4
.shared 256
.scratch 8
.buffer out, 1024
.buffer tag, 6
.init tag, u8, 104, 105, 33, 0, 1, 2
.arg u[0:1], out

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
    ushli u11, u9, 7
    vshli v6, v0, 2
    vadd.u32.u v6, v6, u11
    st.ubase.b32 v4, u[0:1], v6, 0
    wait.vst 0
stored:
    barrier
done:
    end
";

/// The words of histogram.s's `in`: `12345 + 2654435761 * i` (mod 2^32).
fn histogram_input(i: u32) -> u32 {
    12345u32.wrapping_add(2654435761u32.wrapping_mul(i))
}

/// The byte histogram of `in[words]`, as histogram.s builds it.
fn byte_counts(words: std::ops::Range<u32>) -> [u32; 256] {
    let mut bins = [0u32; 256];
    for i in words {
        for b in histogram_input(i).to_le_bytes() {
            bins[b as usize] += 1;
        }
    }
    bins
}

/// Runs `wavedbg elf` in `dir` with these arguments.
fn wavedbg_elf(dir: &Path, args: &[&str]) {
    let out = Command::new(bin())
        .current_dir(dir)
        .arg("elf")
        .args(args)
        .output()
        .expect("run wavedbg elf");
    assert!(
        out.status.success(),
        "wavedbg elf {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Asserts that `out` holds every wanted text (for clients run without a server).
fn has_all(out: &str, wanted: &[&str]) {
    for w in wanted {
        assert!(
            out.contains(w),
            "missing `{w}` in the client's output:\n{out}"
        );
    }
}

/// `wavedbg elf` writes a symbol file; gdb loads it and knows labels, lines, the buffers'
/// types and values, and the shared windows' symbols and variable.
fn gdb_uses_the_symbol_file_with(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, source) = histogram_in(&dir);
    // A relative source name: gdb finds it through DW_AT_comp_dir, the directory `elf` ran in.
    wavedbg_elf(dir.path(), &["histogram.s", "-o", "sym.elf"]);
    let label = label_addr(&k, "next_word");
    let line = label_line(&source, "next_word") + 1; // the label's first instruction
    let server = Server::start(&k);
    let script = format!(
        "break next_word
break histogram.s:{}
info line *{label:#x}
info symbol {:#x}
p &out
whatis out
p in[1]
p/x in[0]@4
x/4wx &in
x/2wx &out
info symbol 0x8000000000300008
p &__shared[3].w[2]
ptype __shared
p __scratch
list next_word
continue
p/x $pc
p out[3]
kill
",
        line + 3,
        label + 4
    );
    let out = gdb_ex(client, dir.path(), "sym.elf", Some(&server), &script);
    let [i0, i1, i2, i3] = [0, 1, 2, 3].map(histogram_input);
    check(
        &out,
        &server,
        &[
            &format!("Breakpoint 1 at {label:#x}: file histogram.s, line {line}."),
            "Breakpoint 2 at 0x",
            &format!("file histogram.s, line {}.", line + 3),
            &format!(
                "Line {line} of \"histogram.s\" starts at address {label:#x} <next_word> and ends at"
            ),
            "next_word + 4 in section .text",
            "$1 = (unsigned int (*)[256]) 0x100020000 <out>\n",
            "type = unsigned int [256]\n",
            &format!("$2 = {i1}\n"),
            &format!("$3 = {{{i0:#x}, {i1:#x}, {i2:#x}, {i3:#x}}}\n"),
            &format!("0x100000000 <in>:\t{i0:#010x}\t{i1:#010x}\t{i2:#010x}\t{i3:#010x}\n"),
            "0x100020000 <out>:\t0x00000000\t0x00000000\n",
            "__shared_wg3 + 8 in section .shared\n",
            "$4 = (unsigned int *) 0x8000000000300008 <__shared_wg3+8>\n",
            "type = struct __shared_window {\n    unsigned int w[256];\n} [4]\n",
            "No symbol \"__scratch\" in current context.",
            &format!("{line}\t    ld.ubase.b32 v4, u[0:1], v3, 0"),
            &format!("hit Breakpoint 1, next_word () at histogram.s:{line}"),
            &format!("$5 = {label:#x}\n"),
            // Nothing is merged into `out` before the last barrier.
            "$6 = 0\n",
        ],
    );
    assert_eq!(i0, 0x3039, "in[0] as docs/gdb.md shows it");
}

#[test]
fn gdb_uses_the_symbol_file() {
    gdb_uses_the_symbol_file_with("gdb");
}

#[test]
fn gdb_multiarch_uses_the_symbol_file() {
    gdb_uses_the_symbol_file_with("gdb-multiarch");
}

/// `wavedbg serve` writes KERNEL.elf beside the kernel; lldb loads it, a breakpoint on a
/// label resolves to the label's own address (no prologue skipped), and the buffers and
/// windows are typed variables and symbols.
#[test]
fn lldb_uses_the_symbol_file_serve_writes() {
    if !have("lldb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, source) = histogram_in(&dir);
    let label = label_addr(&k, "next_word");
    let line = label_line(&source, "next_word") + 1;
    let server = Server::start(&k);
    let elf = dir.path().join("histogram.elf");
    assert!(
        elf.is_file(),
        "serve writes histogram.elf: {}",
        server.log()
    );
    check(
        &server.log(),
        &server,
        &[&format!("wavedbg: symbols in {}", elf.display())],
    );
    let script = format!(
        "breakpoint set -n next_word
source list -f histogram.s -l {} -c 2
process continue
target variable in[1]
p/x in[2]
p &out
p out[3]
p &__shared[3].w[2]
image lookup -a 0x8000000000300008
target variable __scratch
process kill
",
        line - 1
    );
    let out = lldb_elf(dir.path(), Some(&elf), &server, &script);
    check(
        &out,
        &server,
        &[
            &format!("Breakpoint 1: where = histogram.elf`next_word at histogram.s:{line}, address = {label:#018x}"),
            &format!("{}  \tnext_word:", line - 1),
            &format!("{line}  \t    ld.ubase.b32 v4, u[0:1], v3, 0"),
            "stop reason = breakpoint 1.1",
            &format!("frame #0: {label:#018x} histogram.elf`next_word at histogram.s:{line}"),
            &format!("(unsigned int) in[1] = {}\n", histogram_input(1)),
            &format!("(unsigned int) $0 = {:#010x}\n", histogram_input(2)),
            "(unsigned int (*)[256]) $1 = 0x0000000100020000\n",
            "(unsigned int) $2 = 0\n",
            "(unsigned int *) $3 = 0x8000000000300008\n",
            "Summary: histogram.elf`__shared_wg3 + 8\n",
            "error: can't find global variable '__scratch'",
        ],
    );
}

/// `wavedbg serve --grid 1`: the symbol file describes that launch (one workgroup), and
/// once the shared histogram is complete `__shared[0].w` holds exactly the counts of the
/// words that workgroup read; workgroup 1 does not exist.
#[test]
fn gdb_reads_the_shared_histogram_of_a_served_launch() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, _) = histogram_in(&dir);
    let server = Server::start_with(&k, &["--grid", "1"]);
    // With one workgroup each of the 256 threads reads words t and t + 256.
    let bins = byte_counts(0..512);
    let script = "break merged
continue
ptype __shared
p __shared[0].w[3]
p/x __shared[0].w[0]@4
p __shared[1].w[0]
info symbol 0x8000000000100000
kill
";
    let out = gdb_ex("gdb", dir.path(), "histogram.elf", Some(&server), script);
    check(
        &out,
        &server,
        &[
            "hit Breakpoint 1, merged () at ",
            "type = struct __shared_window {\n    unsigned int w[256];\n} [1]\n",
            &format!("= {}\n", bins[3]),
            &format!(
                "= {{{:#x}, {:#x}, {:#x}, {:#x}}}\n",
                bins[0], bins[1], bins[2], bins[3]
            ),
            // Past the declared workgroups C indexing still gives the window address,
            // which the server refuses: the launch has no workgroup 1.
            "Cannot access memory at address 0x8000000000100000\n",
            "No symbol matches 0x8000000000100000.",
        ],
    );
    assert_eq!(bins.iter().sum::<u32>(), 2048);
}

/// At `done` in workgroup 3 (every wave of it has stored), the window variables read the
/// exact window addresses, their symbols name them, the buffers are typed (a 6-byte one
/// as bytes), and what cannot be printed says why.
fn gdb_reads_the_windows(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "windows.s", WINDOWS);
    let server = Server::start(&k);
    // Wave 7, the second of workgroup 3 (u4 is the workgroup, u5 the wave in it).
    let script = "break done if $u4 == 3 && $u5 == 1
continue
p __shared[3].w[2]
p &__shared[3].w[2]
p __shared[3].w
x/4xw &__shared[3]
p __shared[3]
p __scratch[7][5].w[1]
p &__scratch[7][5].w[1]
p __scratch[7][5].w
p __scratch[7][5]
info symbol 0x8000000000300008
info symbol 0xc000000000e50004
info symbol 0x8000000000300100
p out[225]
p/x out[224]@4
x/4wx &out[224]
p tag
p/x tag
whatis tag
ptype __scratch
p __shared[$workgroup].w[2]
p &__scratch[$wave][5].w[1]
watch -l __shared[$workgroup].w[5]
kill
";
    let out = gdb_ex(client, dir.path(), "windows.elf", Some(&server), script);
    let words: Vec<String> = (3000..3064).map(|v: u32| v.to_string()).collect();
    check(
        &out,
        &server,
        &[
            "hit Breakpoint 1, done () at ",
            "= 3002\n",
            "= (unsigned int *) 0x8000000000300008 <__shared_wg3+8>\n",
            &format!("= {{{}}}\n", words.join(", ")),
            "0x8000000000300000 <__shared_wg3>:\t0x00000bb8\t0x00000bb9\t0x00000bba\t0x00000bbb\n",
            // gdb fetches a whole struct: 1 MiB is more than it allows.
            "value of type `__shared_window' requires 1048576 bytes, which is more than max-value-size\n",
            "= 705\n",
            "= (unsigned int *) 0xc000000000e50004 <__scratch_wave7_lane5+4>\n",
            "= {0, 705}\n",
            // 64 KiB is allowed, but only the real scratch (8 bytes) reads.
            "Cannot access memory at address 0xc000000000e50008\n",
            "__shared_wg3 + 8 in section .shared\n",
            "__scratch_wave7_lane5 + 4 in section .scratch\n",
            // Past workgroup 3's 256 real bytes: no symbol.
            "No symbol matches 0x8000000000300100.\n",
            "= 701\n",
            "= {0x2bc, 0x2bd, 0x2be, 0x2bf}\n",
            "0x100000380 <out+896>:\t0x000002bc\t0x000002bd\t0x000002be\t0x000002bf\n",
            "= \"hi!\\000\\001\\002\"\n",
            "= {0x68, 0x69, 0x21, 0x0, 0x1, 0x2}\n",
            "type = unsigned char [6]\n",
            "type = struct __scratch_window {\n    unsigned int w[2];\n} [8][32]\n",
            // The current thread's own windows, through its `workgroup` and `wave`
            // registers; `watch -l` takes the address once (a plain `watch` of an
            // expression with a register is a software watchpoint).
            "= 3002\n",
            "= (unsigned int *) 0xc000000000e50004 <__scratch_wave7_lane5+4>\n",
            "Hardware watchpoint 2: -location __shared[$workgroup].w[5]\n",
        ],
    );
}

#[test]
fn gdb_reads_the_window_variables() {
    gdb_reads_the_windows("gdb");
}

#[test]
fn gdb_multiarch_reads_the_window_variables() {
    gdb_reads_the_windows("gdb-multiarch");
}

/// `watch` on window variable elements and a buffer element stops with old and new values.
fn gdb_watches_the_windows(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "windows.s", WINDOWS);
    let server = Server::start(&k);
    let script = "watch __shared[1].w[2]
continue
delete
watch __scratch[5][7].w[1]
watch out[255]
continue
continue
kill
";
    let out = gdb_ex(client, dir.path(), "windows.elf", Some(&server), script);
    check(
        &out,
        &server,
        &[
            "Hardware watchpoint 1: __shared[1].w[2]",
            "hit Hardware watchpoint 1: __shared[1].w[2]\n\nOld value = 0\nNew value = 1002\n",
            "Hardware watchpoint 2: __scratch[5][7].w[1]",
            "Hardware watchpoint 3: out[255]",
            "hit Hardware watchpoint 2: __scratch[5][7].w[1]\n\nOld value = 0\nNew value = 507\n",
            "hit Hardware watchpoint 3: out[255]\n\nOld value = 0\nNew value = 731\n",
        ],
    );
}

#[test]
fn gdb_watches_window_variables() {
    gdb_watches_the_windows("gdb");
}

#[test]
fn gdb_multiarch_watches_window_variables() {
    gdb_watches_the_windows("gdb-multiarch");
}

/// `serve --resident 1`: a workgroup not dispatched yet cannot be read but can be watched
/// through its variable, and once it runs, the windows of the finished ones are gone.
#[test]
fn gdb_window_variables_with_one_resident_workgroup() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "windows.s", WINDOWS);
    let server = Server::start_with(&k, &["--resident", "1"]);
    let script = "p __shared[0].w[2]
p __shared[3].w[2]
watch __shared[3].w[2]
continue
p __shared[3].w[1]
p __shared[0].w[2]
p __scratch[0][0].w[1]
p &__scratch[6][31].w[1]
kill
";
    let out = gdb_ex("gdb", dir.path(), "windows.elf", Some(&server), script);
    check(
        &out,
        &server,
        &[
            "$1 = 0\n",
            "Cannot access memory at address 0x8000000000300008\n",
            "Hardware watchpoint 1: __shared[3].w[2]",
            "hit Hardware watchpoint 1: __shared[3].w[2]\n\nOld value = <unreadable>\nNew value = 3002\n",
            // The store of word 2 was one instruction of wave 6, for lanes 0-31.
            "= 3001\n",
            // Workgroup 0's slot now holds workgroup 3: its shared memory and scratch are gone.
            "Cannot access memory at address 0x8000000000000008\n",
            "Cannot access memory at address 0xc000000000000004\n",
            "= (unsigned int *) 0xc000000000df0004 <__scratch_wave6_lane31+4>\n",
        ],
    );
}

/// lldb reads the window variables and buffers with `target variable` and `p` (its IR
/// interpreter, no code run in the target), names the windows with `image lookup`, and
/// watches a window variable's element; `p` of a whole window struct fails (lldb copies
/// the result: 1 MiB, past the readable window), `target variable` of it works.
#[test]
fn lldb_reads_and_watches_the_window_variables() {
    if !have("lldb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "windows.s", WINDOWS);
    let elf = dir.path().join("windows.elf");
    let server = Server::start(&k);
    let script = "breakpoint set -n done -c '$u4 == 3 && $u5 == 1'
process continue
target variable __shared[3].w[2]
p __shared[3].w[2]
p &__shared[3].w[2]
p __scratch[7][5].w[1]
p &__scratch[7][5].w[1]
target variable __scratch[7][5]
p __shared[3]
image lookup -a 0x8000000000300008
image lookup -a 0xc000000000e50004
memory read -s 4 -c 4 -f x &__shared[3]
p out[225]
p/x out[224]
target variable tag
thread select 8
p __shared[$workgroup].w[2]
p &__scratch[$wave][5].w[1]
process kill
";
    let out = lldb_elf(dir.path(), Some(&elf), &server, script);
    check(
        &out,
        &server,
        &[
            // Both waves of workgroup 3 arrive at `done` together: lldb is told of both
            // (it evaluates the condition for each; lldb 14 keeps the lower thread
            // selected though its condition failed: docs/gdb.md).
            "* thread #7, stop reason = breakpoint 1.1",
            "  thread #8, stop reason = breakpoint 1.1",
            "(unsigned int) __shared[3].w[2] = 3002\n",
            "(unsigned int) $0 = 3002\n",
            "(unsigned int *) $1 = 0x8000000000300008\n",
            "(unsigned int) $2 = 705\n",
            "(unsigned int *) $3 = 0xc000000000e50004\n",
            "(__scratch_window) __scratch[7][5] = {\n  w = ([0] = 0, [1] = 705)\n}\n",
            "error: Couldn't apply expression side effects : Couldn't dematerialize a result variable: couldn't read its memory",
            "Summary: windows.elf`__shared_wg3 + 8\n",
            "Summary: windows.elf`__scratch_wave7_lane5 + 4\n",
            "0x8000000000300000: 0x00000bb8 0x00000bb9 0x00000bba 0x00000bbb\n",
            // The failed `p` took $4.
            "(unsigned int) $6 = 701\n",
            "(unsigned int) $7 = 0x000002bc\n",
            "(unsigned char[6]) tag = \"hi!\\0\\U00000001\\U00000002\"\n",
            // The stopped thread's own windows, through its registers.
            "(unsigned int) $8 = 3002\n",
            "(unsigned int *) $9 = 0xc000000000e50004\n",
        ],
    );

    // Watching an element of a window variable, in a fresh launch.
    let server = Server::start(&k);
    let script = "watchpoint set variable __shared[1].w[2]
process continue
process kill
";
    let out = lldb_elf(dir.path(), Some(&elf), &server, script);
    check(
        &out,
        &server,
        &[
            "Watchpoint created: Watchpoint 1: addr = 0x8000000000100008 size = 4 state = enabled type = w",
            "Watchpoint 1 hit:\nold value: 0\nnew value: 1002\n",
        ],
    );
}

/// `wavedbg elf` takes the launch options: `--grid` shapes the window variables and
/// symbols; a huge grid keeps the file small (window symbols stop at workgroup 1023 and
/// wave 31, the variables' arrays at 4095 workgroups and 2047 waves, and C indexing goes
/// on past them), and both clients load it.
#[test]
fn elf_takes_the_launch_options_and_caps_huge_grids() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    kernel(&dir, "windows.s", WINDOWS);
    wavedbg_elf(dir.path(), &["windows.s", "-o", "own.elf"]);
    wavedbg_elf(dir.path(), &["windows.s", "--grid", "2", "-o", "two.elf"]);
    wavedbg_elf(
        dir.path(),
        &["windows.s", "--grid", "4000000000", "-o", "huge.elf"],
    );
    let script = "ptype __shared
ptype __scratch
info symbol 0x8000000000100000
info symbol 0x8000000000200000
";
    let own = gdb_ex("gdb", dir.path(), "own.elf", None, script);
    has_all(
        &own,
        &[
            "    unsigned int w[64];\n} [4]\n",
            "    unsigned int w[2];\n} [8][32]\n",
            "__shared_wg1 in section .shared\n",
            "__shared_wg2 in section .shared\n",
        ],
    );
    let two = gdb_ex("gdb", dir.path(), "two.elf", None, script);
    has_all(
        &two,
        &[
            "    unsigned int w[64];\n} [2]\n",
            "    unsigned int w[2];\n} [4][32]\n",
            "__shared_wg1 in section .shared\n",
            "No symbol matches 0x8000000000200000.\n",
        ],
    );

    let huge_len = std::fs::metadata(dir.path().join("huge.elf"))
        .expect("huge.elf")
        .len();
    assert!(huge_len < 100_000, "huge.elf is {huge_len} bytes");
    let script = "whatis __shared
whatis __scratch
info symbol 0x800000003ff00004
info symbol 0x8000000040000004
info symbol 0xc000000003ff0004
info symbol 0xc000000004000004
p &__shared[3999999999].w[1]
p &__scratch[7999999999][31].w[1]
";
    let huge = gdb_ex("gdb", dir.path(), "huge.elf", None, script);
    has_all(
        &huge,
        &[
            "type = struct __shared_window [4095]\n",
            "type = struct __scratch_window [2047][32]\n",
            "__shared_wg1023 + 4 in section .shared\n",
            "No symbol matches 0x8000000040000004.\n",
            "__scratch_wave31_lane31 + 4 in section .scratch\n",
            "No symbol matches 0xc000000004000004.\n",
            // 0x8000000000000000 + (3999999999 << 20) + 4
            "= (unsigned int *) 0x800ee6b27ff00004\n",
            // 0xc000000000000000 + (7999999999 << 21) + (31 << 16) + 4
            "= (unsigned int *) 0xc03b9ac9ffff0004\n",
        ],
    );
    assert_eq!(
        0x8000_0000_0000_0000u64 + (3_999_999_999u64 << 20) + 4,
        0x800e_e6b2_7ff0_0004
    );
    assert_eq!(
        0xc000_0000_0000_0000u64 + (7_999_999_999u64 << 21) + (31 << 16) + 4,
        0xc03b_9ac9_ffff_0004
    );

    if have("lldb") {
        let mut cmd = Command::new("lldb");
        cmd.env(
            "PYTHONPATH",
            "/usr/lib/llvm-14/lib/python3.11/dist-packages",
        )
        .current_dir(dir.path())
        .args([
            "-b",
            "-o",
            "target create huge.elf",
            "-o",
            "image lookup -a 0x800000003ff00004",
            "-o",
            "image lookup -a 0xc000000003ff0004",
            "-o",
            "p &__shared[3999999999].w[1]",
        ]);
        let out = run_client(cmd, Duration::from_secs(90), None);
        has_all(
            &out,
            &[
                "Current executable set to",
                "Summary: huge.elf`__shared_wg1023 + 4\n",
                "Summary: huge.elf`__scratch_wave31_lane31 + 4\n",
                "(unsigned int *) $0 = 0x800ee6b27ff00004\n",
            ],
        );
    }
}

/// A kernel whose label is called `__shared` and one of whose buffers is called
/// `__scratch_wave0_lane1`: the kernel's names win, and the window variable and symbol of
/// those names are left out (the rest stay).
#[test]
fn the_kernels_own_names_win_over_window_names() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let text = WINDOWS
        .replace("done:", "__shared:")
        .replace(".buffer tag, 6", ".buffer __scratch_wave0_lane1, 6")
        .replace(".init tag,", ".init __scratch_wave0_lane1,");
    let k = kernel(&dir, "names.s", &text);
    wavedbg_elf(dir.path(), &["names.s", "-o", "names.elf"]);
    let label = label_addr(&k, "__shared");
    let script = "info address __shared
p &__scratch[0][1].w[1]
info symbol 0xc000000000010004
info symbol 0xc000000000020004
p &__scratch_wave0_lane1
info symbol 0x8000000000300008
";
    let out = gdb_ex("gdb", dir.path(), "names.elf", None, script);
    has_all(
        &out,
        &[
            &format!("Symbol \"__shared\" is a function at address {label:#x}.\n"),
            "= (unsigned int *) 0xc000000000010004\n",
            "No symbol matches 0xc000000000010004.\n",
            "__scratch_wave0_lane2 + 4 in section .scratch\n",
            "= (unsigned char (*)[6]) 0x100020000 <__scratch_wave0_lane1>\n",
            "__shared_wg3 + 8 in section .shared\n",
        ],
    );
}

/// gdb's `layout src` in a real terminal shows the kernel's source around the stop, with
/// the breakpoint and current-line marker on the label's first instruction and the
/// function and line in the status bar; then gdb kills the kernel (which ends the server)
/// and quits back to the shell.
#[test]
fn gdb_layout_src_shows_the_source_and_the_current_line() {
    if !have("gdb") {
        return;
    }
    let Some(t) = tmux::start("gdb-layout-src", "gdb-test$ ", (100, 30), false) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, source) = histogram_in(&dir);
    let line = label_line(&source, "next_word") + 1;
    let label = label_addr(&k, "next_word");
    let mut server = Server::start(&k);
    t.type_text(&format!(
        "cd {} && gdb -nx histogram.elf -ex 'target remote {}' -ex 'break next_word' -ex 'continue' -ex 'layout src'",
        dir.path().display(),
        server.addr
    ));
    t.keys(&["Enter"]);
    let screen = t.wait_for("the source window at the breakpoint", |s| {
        s.contains("B+>") && s.contains("In: next_word")
    });
    let rows: Vec<&str> = screen.lines().collect();
    let current = rows
        .iter()
        .find(|r| r.contains("B+>"))
        .expect("a current line");
    assert!(
        current.contains(&format!(" {line} "))
            && current.contains("ld.ubase.b32 v4, u[0:1], v3, 0"),
        "the marker is on line {line}:\n{screen}"
    );
    assert!(
        rows.iter()
            .any(|r| r.contains(&format!(" {} ", line - 1)) && r.contains("next_word:")),
        "the label's line is shown:\n{screen}"
    );
    assert!(
        rows.iter()
            .any(|r| r.contains(&format!(" {} ", line + 1)) && r.contains("wait.vm 0")),
        "the next line is shown:\n{screen}"
    );
    assert!(
        screen.contains("histogram.s"),
        "the window names the file:\n{screen}"
    );
    let status = rows
        .iter()
        .find(|r| r.contains("In: next_word"))
        .expect("status line");
    assert!(
        status.contains(&format!("L{line}")) && status.contains(&format!("PC: {label:#x}")),
        "status line: {status}\n{screen}"
    );

    // Kill the kernel (the server ends), then quit gdb.
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

/// `compare-sections` with the symbol file compares the bytes (the server answers `qCRC`
/// as unsupported, not as a malformed packet, which gdb reported as a memory fault) and
/// finds `.text` different, as it is: the file's `.text` is lldb's x86 stand-in
/// (docs/gdb.md); the session goes on.
#[test]
fn gdb_compare_sections_reads_the_code() {
    if !have("gdb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, _) = histogram_in(&dir);
    wavedbg_elf(dir.path(), &["histogram.s", "-o", "sym.elf"]);
    let server = Server::start(&k);
    let out = gdb_elf(
        "gdb",
        dir.path(),
        "sym.elf",
        &server,
        "compare-sections\np $pc\nkill\n",
    );
    assert!(out.contains("Section .text, range 0x0 -- "), "{out}");
    assert!(out.contains("MIS-MATCHED"), "{out}");
    assert!(!out.contains("memory fault"), "{out}");
    assert!(out.contains("$1 = (void (*)()) 0x0"), "{out}");
}
