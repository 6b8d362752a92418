//! Lanes, thread ids and address windows through real clients (issue 16, items 2-4):
//! gdb and gdb-multiarch with scripts/wavedbg.gdb, and lldb, in batch mode, on two kernels
//! (tests/kernels/lanes.s with one workgroup resident at a time, and scripts/histogram.s
//! with all 32 waves resident). Each test serves a copy of its kernel, so the symbol file
//! the server writes lands in a temporary directory.

use std::path::{Path, PathBuf};

mod clients;
use clients::*;

/// tests/kernels/lanes.s: four workgroups of two waves; v3 is the global lane id, odd
/// lanes only at `odd`.
const LANES: &str = include_str!("kernels/lanes.s");

fn helpers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/wavedbg.gdb")
}

/// The word `x/1xw ADDR` printed for an address (after the address and any
/// `<symbol+offset>`).
fn word_at<'a>(out: &'a str, addr: &str) -> Option<&'a str> {
    out.lines()
        .find(|l| l.starts_with(&format!("{addr}:")) || l.starts_with(&format!("{addr} <")))
        .and_then(|l| l.rsplit('\t').next())
}

/// How many lines of `out` contain `text`.
fn lines_with(out: &str, text: &str) -> usize {
    out.lines().filter(|l| l.contains(text)).count()
}

/// With `--resident 1` the workgroups come one at a time into the same slots: thread ids
/// stay the waves' (wave + 1), the thread list holds only resident waves, a condition on
/// the selected lane's value stops the right wave, lanes show as active or inactive, and
/// window addresses mean the same from any thread (shared of workgroup 2 and 3, scratch of
/// wave 5 lane 3, a watchpoint on a workgroup not dispatched yet).
fn gdb_lanes_threads_and_windows(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "lanes.s", LANES);
    let odd = label_addr(&k, "odd");
    let odd_line = label_line(LANES, "odd") + 1;
    let server = Server::start_with(&k, &["--resident", "1"]);
    let script = format!(
        "source {}
info threads
lane 3
break odd if $v3[$lane] == 131
continue
info threads
printf \"ids: wave %d workgroup %d wave_in_wg %d lane %d\\n\", $wave, $workgroup, $wave_in_wg, $lane
printf \"values: %d %d exec %#x\\n\", $v3[$lane], $lv3, $exec
thread find wave 1,
info lanes 0-3
info lanes -active 1-3
lane apply 1-2 p $v3[$lane]
lane apply all -q printf \"v3=%d\\n\", $v3[$lane]
lane
python
try:
    gdb.execute('set var $wave = 9')
except gdb.error as e:
    print('refused:', e)
end
thread find wave 5,
wave 5
printf \"now wave %d\\n\", $wave
x/1xw $_shared(12)
x/1xw 0x8000000000200000 + 128 + 12
x/1xw $_scratch(4)
x/1xw 0xc000000000000000 + (4 << 21) + (3 << 16) + 4
set var *(unsigned int *)(0x8000000000200000 + 8) = 77
monitor x/1xw shared:8
watch *(unsigned int *)0x8000000000300000
continue
info threads
info registers lane wave workgroup wave_in_wg
kill
",
        helpers().display()
    );
    let out = gdb_elf(client, dir.path(), "lanes.elf", &server, &script);
    // (The source is named as the server was given it: here an absolute path.)
    let loc = "odd () at /";
    check(
        &out,
        &server,
        &[
            "* 1    Thread 1.1 (wave 0, workgroup 0, wave_in_wg 0, ready, exec 0xffffffff)",
            "  2    Thread 1.2 (wave 1, workgroup 0, wave_in_wg 1, ready, exec 0xffffffff)",
            "[Switching to lane 3 (active) of wave 0, workgroup 0 work-item 3]",
            &format!("Breakpoint 1 at {odd:#x}: file /"),
            "hit Breakpoint 1, odd () at /",
            &format!("lanes.s:{odd_line}\n{odd_line}\t    vaddi.u32 v3, v3, 1000"),
            "Thread 1.5 (wave 4, workgroup 2, wave_in_wg 0, ready, exec 0xaaaaaaaa)",
            "Thread 1.6 (wave 5, workgroup 2, wave_in_wg 1, ready, exec 0xffffffff)",
            "ids: wave 4 workgroup 2 wave_in_wg 0 lane 3\n",
            "values: 131 131 exec 0xaaaaaaaa\n",
            // Workgroup 0's waves are gone.
            "No threads match 'wave 1,'",
            &format!("  0   I      wave 4 lane 0, workgroup 2 work-item 0  {loc}"),
            &format!("* 3   A      wave 4 lane 3, workgroup 2 work-item 3  {loc}"),
            "\nLane 1 (active) of wave 4, workgroup 2 work-item 1:\n$1 = 129\n",
            "\nLane 2 (inactive) of wave 4, workgroup 2 work-item 2:\n$2 = 130\n",
            "v3=128\nv3=129\n",
            "v3=159\n",
            "[Current lane is 3 (active) of wave 4, workgroup 2 work-item 3]",
            "refused: Could not write register \"wave\"",
            "has extra info 'wave 5, workgroup 2, wave_in_wg 1, ",
            "(Thread 1.6)]",
            "now wave 5\n",
            "shared:0x8: 0x0000004d",
            "Hardware watchpoint 2: *(unsigned int *)0x8000000000300000",
            "Old value = <unreadable>\nNew value = 192\n",
            "Thread 1.7 (wave 6, workgroup 3, wave_in_wg 0, ready, exec 0xffffffff)",
            "Thread 1.8 (wave 7, workgroup 3, wave_in_wg 1, ",
            "lane           0x3                 3",
            "wave           0x6                 6",
            "workgroup      0x3                 3",
            "[Inferior 1 (process 1) killed]",
        ],
    );
    // Word 3 of workgroup 2's shared memory (wave 4 lane 3 wrote 131) and word 35 (wave 5
    // lane 3), read from wave 5's thread through the current-workgroup alias and by
    // address; lane 3's scratch of wave 5 (the alias), then of wave 4 by address.
    for (addr, word) in [
        ("0x800000000020000c", "0x00000083"),
        ("0x800000000020008c", "0x000000a3"),
        ("0xc000000000a30004", "0x000000a3"),
        ("0xc000000000830004", "0x00000083"),
    ] {
        assert_eq!(word_at(&out, addr), Some(word), "{addr}:\n{out}");
    }
    // Only active lanes 1 and 3 with -active; every lane once with apply all.
    assert_eq!(lines_with(&out, "  1   A      wave 4 lane 1,"), 2, "{out}");
    assert_eq!(lines_with(&out, "  2   I      wave 4 lane 2,"), 1, "{out}");
    assert_eq!(lines_with(&out, "v3="), 32, "{out}");
    assert_eq!(lines_with(&out, "has extra info"), 1, "{out}");
    for gone in ["Thread 1.1 (", "Thread 1.3 ("] {
        assert!(
            !out.split("[Switching to lane 3")
                .nth(1)
                .unwrap_or("")
                .contains(gone),
            "{gone} listed after its workgroup finished:\n{out}"
        );
    }
}

#[test]
fn gdb_lanes_threads_and_windows_with_recycled_slots() {
    gdb_lanes_threads_and_windows("gdb");
}

#[test]
fn gdb_multiarch_lanes_threads_and_windows_with_recycled_slots() {
    gdb_lanes_threads_and_windows("gdb-multiarch");
}

/// All 32 waves of scripts/histogram.s resident: `thread find wave 1,` names one thread
/// (not waves 10-19), `wave 30` switches to thread id 31, a lane condition stops in
/// workgroup 1, and a watchpoint on workgroup 3's shared memory set from a wave of
/// workgroup 1 stops in workgroup 3.
fn gdb_many_waves(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (k, source) = histogram_in(&dir);
    let line = label_line(&source, "next_word") + 1;
    let server = Server::start(&k);
    let script = format!(
        "source {}
info threads
thread find wave 1,
thread find wave 1
wave 30
printf \"wave %d in workgroup %d\\n\", $wave, $workgroup
lane 5
break next_word if $v3[$lane] == 1044
continue
printf \"stop: wave %d lane %d v3 %d\\n\", $wave, $lane, $lv3
info lanes -inactive
delete
watch *(unsigned int *)(0x8000000000300000 + 4 * 7)
continue
printf \"watch: workgroup %d\\n\", $workgroup
kill
",
        helpers().display()
    );
    let out = gdb_elf(client, dir.path(), "histogram.elf", &server, &script);
    check(
        &out,
        &server,
        &[
            "Thread 1.32 (wave 31, workgroup 3, wave_in_wg 7, ready, exec 0xffffffff)",
            "has extra info 'wave 1, workgroup 0, wave_in_wg 1, ",
            "(Thread 1.31)]",
            "wave 30 in workgroup 3\n",
            "hit Breakpoint 1, next_word () at /",
            &format!("histogram.s:{line}\n{line}\t    ld.ubase.b32 v4, u[0:1], v3, 0"),
            "stop: wave 8 lane 5 v3 1044\n",
            "No inactive lanes in wave 8 (exec 0xffffffff).",
            "Hardware watchpoint 2: *(unsigned int *)(0x8000000000300000 + 4 * 7)",
            "watch: workgroup 3\n",
        ],
    );
    let finds: Vec<&str> = out.split("has extra info").collect();
    // One match for `wave 1,`; eleven for `wave 1` (1 and 10-19): the comma is the end.
    assert_eq!(finds.len() - 1, 12, "{out}");
    // Thread 2 (wave 1) in both.
    assert_eq!(lines_with(&out, "info 'wave 1, "), 2, "{out}");
}

#[test]
fn gdb_thread_find_and_lanes_on_many_waves() {
    gdb_many_waves("gdb");
}

#[test]
fn gdb_multiarch_thread_find_and_lanes_on_many_waves() {
    gdb_many_waves("gdb-multiarch");
}

/// lldb on the same launch as the gdb test: thread ids are the waves' (+ 1) across
/// recycled slots, `register write lane` selects the lane, a breakpoint condition on
/// `$lv3` (lldb cannot subscript a vector register without running code), the wave's ids
/// as registers, window memory by address, and a watchpoint on a pending workgroup.
#[test]
fn lldb_lanes_threads_and_windows_with_recycled_slots() {
    if !have("lldb") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "lanes.s", LANES);
    let odd_line = label_line(LANES, "odd") + 1;
    let server = Server::start_with(&k, &["--resident", "1"]);
    let elf = dir.path().join("lanes.elf");
    let script = "thread list
register write lane 3
breakpoint set -n odd -c '$lv3 == 131'
process continue
thread list
register read wave workgroup wave_in_wg lane lv3 exec
memory read -s4 -fx -c1 0x800000000020000c
memory read -s4 -fx -c1 0xc000000000a30004
register write lv3 7
register read lv3
watchpoint set expression -w write -s 4 -- 0x8000000000300000
process continue
thread list
process kill
";
    let out = lldb_elf(dir.path(), Some(&elf), &server, script);
    check(
        &out,
        &server,
        &[
            "thread #1: tid = 0x0001,",
            "thread #2: tid = 0x0002,",
            &format!("lanes.elf`odd at lanes.s:{odd_line}, stop reason = breakpoint 1.1"),
            "tid = 0x0005,",
            "tid = 0x0006,",
            "wave = 0x00000004",
            "workgroup = 0x00000002",
            "wave_in_wg = 0x00000000",
            "lane = 0x00000003",
            "lv3 = 0x00000083",
            "exec = 0xaaaaaaaa",
            "0x800000000020000c: 0x00000083",
            "0xc000000000a30004: 0x000000a3",
            "lv3 = 0x00000007",
            "stop reason = watchpoint 1",
            "tid = 0x0007,",
        ],
    );
    let after_stop = out.split("breakpoint 1.1").nth(1).unwrap_or_default();
    assert!(
        !after_stop.contains("tid = 0x0001,"),
        "wave 0 listed after its workgroup finished:\n{out}"
    );
}

/// The thread gdb steps over `end` stays its thread when the next workgroup takes the
/// slot at once (listed as exited until the next resumption; gdb 13 used to abort in its
/// step-over logic), a locked continue ends with its wave, the selected lane stays the
/// client's through breakpoint stops (the engine moves its own to a lane that hit), and
/// `info registers` leaves out the vector registers.
fn gdb_steps_over_end_and_keeps_its_lane(client: &str) {
    if !have(client) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let k = kernel(&dir, "lanes.s", LANES);
    let odd = label_addr(&k, "odd");
    let joined = label_addr(&k, "joined");
    let end = joined + 12; // st.ubase (8 bytes), wait.vst, end
    let server = Server::start_with(&k, &["--resident", "1"]);
    let script = format!(
        "source {}
info registers
info registers v3 lane
lane 2
break *{odd:#x} if $v3[$lane] == 130
continue
printf \"lane-stop: wave %d lane %d\\n\", $wave, $lane
delete
set scheduler-locking step
break *{end:#x}
continue
stepi
printf \"stepped: wave %d pc %#x\\n\", $wave, $pc
continue
stepi
printf \"stepped: wave %d pc %#x\\n\", $wave, $pc
lane 4
printf \"exited-lane: %d %d\\n\", $lane, $lv3
monitor threads
vlanes v3
info threads
delete
wave 6
set scheduler-locking on
continue
printf \"alone: wave %d pc %#x\\n\", $wave, $pc
kill
",
        helpers().display()
    );
    let out = gdb_elf(client, dir.path(), "lanes.elf", &server, &script);
    let past = end + 4;
    check(
        &out,
        &server,
        &[
            "exec           0x",
            "u63            0x",
            "wave_in_wg     0x0",
            "v3             {0x0 <repeats 32 times>}",
            // Lane 2 is inactive at `odd`; the condition still reads lane 2.
            "lane-stop: wave 4 lane 2\n",
            // Each step over `end` says its wave exited.
            &format!("[wave 4 (workgroup 2) exited]\n0x{past:016x} in ?? ()\nstepped: wave 4 pc {past:#x}\n"),
            // (The next workgroup takes the slot at once.)
            "[wave 5 (workgroup 2) exited]\n[New Thread 1.7]\n",
            &format!("stepped: wave 5 pc {past:#x}\n"),
            // The exited wave's registers, and the lane selected from its thread.
            "exited-lane: 4 164\n",
            // The server's thread list agrees with gdb's, in wave order.
            "* 6      5      2          1           exited      0x008c <joined+16>\n  7      6      3          0           ready",
            // The server's views of the selected wave would show the wave in its slot now.
            "wave 5 has exited and its slot holds another wave, so the server has no wave 5 to show",
            "[New Thread 1.7]",
            "(wave 5, workgroup 2, wave_in_wg 1, exited, ",
            "Thread 1.7 (wave 6, workgroup 3, wave_in_wg 0, ready, ",
        ],
    );
    // The default leaves out v0-v127 and lv0-lv127 and the inert x86 registers.
    let before_lane = out.split("[Switching to lane").next().unwrap_or_default();
    for absent in ["\nv0 ", "\nlv0 ", "\nrax "] {
        assert!(!before_lane.contains(absent), "{absent:?} in:\n{out}");
    }
    // Stepping over `end` stops as a step, in the stepped thread (no stray signal).
    let stepping = out.split("(Thread 1.7)]").next().unwrap_or_default();
    for bad in ["internal-error", "received signal SIGTRAP"] {
        assert!(!stepping.contains(bad), "{bad}:\n{out}");
    }
    assert!(!out.contains("internal-error"), "{out}");
    // A locked continue of wave 6 ends with it (wave 7 did not run), saying it exited.
    assert!(
        out.contains(&format!("alone: wave 6 pc {past:#x}\n")),
        "{out}"
    );
    assert!(out.contains("[wave 6 (workgroup 3) exited]"), "{out}");
    assert!(!out.contains("Cannot run"), "{out}");
}

#[test]
fn gdb_steps_over_end_as_the_slot_refills_and_keeps_its_lane() {
    gdb_steps_over_end_and_keeps_its_lane("gdb");
}

#[test]
fn gdb_multiarch_steps_over_end_as_the_slot_refills_and_keeps_its_lane() {
    gdb_steps_over_end_and_keeps_its_lane("gdb-multiarch");
}
