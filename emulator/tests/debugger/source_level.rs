//! Source-level debugging of a kernel compiled from a higher-level language
//! (scripts/saxpy_src.s from scripts/src/saxpy.cl): stops show the higher-level line,
//! `break FILE:LINE` (one breakpoint per stretch of a line), `list`, `info line`,
//! `info source`, and line stepping forward (`step`, `next`, `until`, `advance`) and back
//! (`reverse-step`, `reverse-next`).

use super::fixtures::*;
use wavedbg_emulator::debug::expr::Scalar;
use wavedbg_emulator::debug::Output;

fn saxpy() -> Engine {
    let mut e = Engine::new(&script("saxpy_src.s"), LaunchOptions::default()).expect("launch");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/saxpy_src.s");
    e.set_kernel_path(path);
    e
}

/// The higher-level line of the selected wave's PC.
fn line(e: &Engine) -> Option<u32> {
    let pc = e.machine().waves[e.selected_wave].pc;
    e.line_row_at(pc).map(|r| r.line)
}

fn pc(e: &Engine) -> u64 {
    e.machine().waves[e.selected_wave].pc
}

#[test]
fn stops_show_the_higher_level_line_and_the_instruction() {
    let mut e = saxpy();
    assert!(e.has_line_table());
    let text = run(&mut e, "break saxpy.cl:6");
    assert_eq!(
        text,
        "Breakpoint 1 at 0x0008 (saxpy.cl:6) (2 locations: 0x0008, 0x0024)\n"
    );
    let text = run(&mut e, "continue");
    assert!(
        text.ends_with(
            "  0x0008: uwgsize u8\nsrc/saxpy.cl:6\n   6\t    uint i = group_id() * group_size()\n"
        ),
        "{text}"
    );
    let table = run(&mut e, "info breakpoints");
    assert!(table.contains("0x0008 at src/saxpy.cl:6\n"), "{table}");
    assert!(table.contains("0x0024 at src/saxpy.cl:6\n"), "{table}");
}

#[test]
fn next_and_step_go_by_statements_of_other_lines() {
    let mut e = saxpy();
    run(&mut e, "break saxpy.cl:6");
    run(&mut e, "continue");
    let mut seen = vec![line(&e).unwrap()];
    // Line 6 comes back after line 7 (the compiler split it); the hoisted line 4 code
    // at 0x10 is not a statement and is stepped through; line 11 is two rows, one step.
    for cmd in ["next", "step", "next", "s", "n", "next", "next"] {
        run(&mut e, cmd);
        seen.push(line(&e).unwrap());
    }
    assert_eq!(seen, [6, 7, 6, 8, 9, 10, 11, 13]);
    assert_eq!(pc(&e), 0x64);
    // `step N` steps N lines.
    let mut e = saxpy();
    run(&mut e, "step 3");
    assert_eq!((line(&e), pc(&e)), (Some(6), 0x24));
}

#[test]
fn reverse_steps_return_to_the_start_of_the_line_before() {
    let mut e = saxpy();
    run(&mut e, "advance saxpy.cl:13");
    assert_eq!(pc(&e), 0x64);
    run(&mut e, "reverse-step");
    assert_eq!(
        (line(&e), pc(&e)),
        (Some(11), 0x54),
        "the first of line 11's rows"
    );
    run(&mut e, "reverse-next");
    assert_eq!((line(&e), pc(&e)), (Some(10), 0x48));
    run(&mut e, "reverse-step 2");
    assert_eq!((line(&e), pc(&e)), (Some(8), 0x28));
    // Forward again from there replays the same lines.
    run(&mut e, "next");
    assert_eq!(line(&e), Some(9));
}

#[test]
fn until_and_advance_take_higher_level_lines() {
    let mut e = saxpy();
    run(&mut e, "advance saxpy.cl:9");
    assert_eq!((line(&e), pc(&e)), (Some(9), 0x38));
    run(&mut e, "until");
    assert_eq!(line(&e), Some(10));
    run(&mut e, "until saxpy.cl:13");
    assert_eq!(pc(&e), 0x64);
    // `src/saxpy.cl:N` and `saxpy.cl:N` name the same file; a bare `list N` too.
    let mut e = saxpy();
    run(&mut e, "advance src/saxpy.cl:8");
    assert_eq!(pc(&e), 0x28);
}

#[test]
fn break_on_a_line_without_statements_is_refused() {
    let mut e = saxpy();
    let err = run_line(&mut e, "break saxpy.cl:5").unwrap_err();
    assert!(
        err.message().contains("no code at line 5 of src/saxpy.cl"),
        "{}",
        err.message()
    );
    let err = run_line(&mut e, "break saxpy.cl:99").unwrap_err();
    assert!(
        err.message().contains("no code at line 99"),
        "{}",
        err.message()
    );
    // The .s file's own lines still work by its name.
    let text = run(&mut e, "break saxpy_src.s:60");
    assert!(text.starts_with("Breakpoint 1 at 0x"), "{text}");
    // A word after a higher-level file is a bad line number, not an unknown file.
    for line in [
        "break saxpy.cl:abc",
        "list saxpy.cl:abc",
        "info line saxpy.cl:abc",
    ] {
        assert_eq!(
            run_line(&mut e, line).unwrap_err().message(),
            "`abc` is not a line number of `saxpy.cl` (labels name the kernel's own code)",
            "{line}"
        );
    }
}

#[test]
fn list_shows_the_higher_level_file_and_goes_on() {
    let mut e = saxpy();
    let first = run(&mut e, "list");
    assert!(first.starts_with("      1\t// saxpy"), "{first}");
    assert!(first.contains("=>    4\t"), "the PC's line: {first}");
    assert_eq!(first.lines().count(), 10);
    let next = run(&mut e, "list");
    assert_eq!(next.lines().count(), 3, "the file has 13 lines: {next}");
    assert!(next.starts_with("     11\t"), "{next}");
    let err = run_line(&mut e, "list").unwrap_err();
    assert!(err
        .message()
        .contains("Line number 14 out of range; \"src/saxpy.cl\" has 13 lines."));
    let around = run(&mut e, "list saxpy.cl:11");
    assert!(around.starts_with("      6\t"), "{around}");
    let err = run_line(&mut e, "list 40").unwrap_err();
    assert!(err
        .message()
        .contains("line 40 is out of range; \"src/saxpy.cl\" has 13 lines"));
    let before = run(&mut e, "list saxpy.cl:3");
    assert!(before.starts_with("      1\t"), "{before}");
    let err = run_line(&mut e, "list -").unwrap_err();
    assert!(err
        .message()
        .contains("Already at the start of src/saxpy.cl."));
    // A label lists the higher-level line of its code; the .s by its own name.
    let join = run(&mut e, "list join");
    assert!(join.contains("     13\t}"), "{join}");
    let asm = run(&mut e, "list saxpy_src.s:40");
    assert!(asm.contains("  40\t"), "{asm}");
}

#[test]
fn info_line_and_info_source() {
    let mut e = saxpy();
    assert_eq!(
        run(&mut e, "info line saxpy.cl:6"),
        "Line 6 of \"src/saxpy.cl\" starts at address 0x0008 and ends at 0x0010.\n\
         Line 6 of \"src/saxpy.cl\" starts at address 0x0024 and ends at 0x0028.\n"
    );
    assert_eq!(
        run(&mut e, "info line *0x10"),
        "Line 4 of \"src/saxpy.cl\" starts at address 0x0010 and ends at 0x0014.\n"
    );
    assert_eq!(
        run(&mut e, "info line"),
        "Line 4 of \"src/saxpy.cl\" starts at address 0x0000 and ends at 0x0008.\n"
    );
    assert_eq!(
        run(&mut e, "info line saxpy.cl:5"),
        "Line 5 of \"src/saxpy.cl\" has no code.\n"
    );
    let src = run(&mut e, "info source");
    assert!(
        src.starts_with("Current source file is src/saxpy.cl\nContains 13 lines.\n"),
        "{src}"
    );
    assert!(
        src.contains("line table of 11 rows and 5 variables"),
        "{src}"
    );
}

#[test]
fn a_missing_source_file_is_a_note() {
    let src = "\
        .file 1 \"no-such-file.cl\"
        .loc 1 3
        nop
        .loc 1 4
        nop
        end
";
    let mut e = engine(src);
    run(&mut e, "break no-such-file.cl:4");
    let text = run(&mut e, "continue");
    assert!(
        text.contains("no-such-file.cl:4 (no source text: "),
        "{text}"
    );
    let err = run_line(&mut e, "list").unwrap_err();
    assert!(
        err.message().starts_with("no-such-file.cl: "),
        "{}",
        err.message()
    );
    let mut e = engine(src);
    run(&mut e, "next");
    assert_eq!(pc(&e), 4, "line stepping needs no text");
}

#[test]
fn a_kernel_without_loc_keeps_its_assembly_lines() {
    let mut e = one_wave_loop();
    assert!(!e.has_line_table());
    let before = pc(&e);
    run(&mut e, "next");
    assert_eq!(pc(&e), before + 4, "a line is an instruction");
    run(&mut e, "reverse-step");
    assert_eq!(pc(&e), before);
    let src = run(&mut e, "info source");
    assert!(
        src.contains("No current source file") || src.contains("assembly"),
        "{src}"
    );
}

#[test]
fn info_locals_shows_the_live_variables_in_their_types() {
    let mut e = saxpy();
    assert_eq!(
        run(&mut e, "info locals"),
        "a = 2  (f32 in u4)\nn = 100  (u32 in u5)\n"
    );
    run(&mut e, "tbreak saxpy.cl:11");
    run(&mut e, "continue");
    run(&mut e, "lane 7");
    assert_eq!(
        run(&mut e, "info locals"),
        "a = 2  (f32 in u4)\nn = 100  (u32 in u5)\ni = 7  (u32 in v0, lane 7)\n\
         xi = 7  (f32 in v4, lane 7)\nyi = 1  (f32 in v5, lane 7)\n"
    );
    // `.endvar xi` / `.endvar yi` end them after the store.
    run(&mut e, "next");
    assert!(!run(&mut e, "info locals").contains("xi"));
    // Memory locations and 64-bit types read as declared.
    let src = "\
.buffer b, 16
.init b, u32, 7, 0xffffffff, 0, 0x40000000
.scratch 8
    .var g, global:b+4, i32
    .var d, global:b+8, f64
    .var p, u[2:3], u64
    .var s, scratch:0
    umovi u2, 1
    umovi u3, 1
    end
";
    let mut e = engine(src);
    run(&mut e, "stepi 2");
    assert_eq!(
        run(&mut e, "info locals"),
        "g = -1  (i32 in global:b+4)\nd = 2  (f64 in global:b+8)\n\
         p = 4294967297  (u64 in u[2:3])\ns = 0  (u32 in scratch:0x0, lane 0)\n"
    );
    assert_eq!(run(&mut one_wave_loop(), "info locals"), "No locals.\n");
}

/// A wave that has exited is shown at the `end` it exited at, its variables and `pc`
/// too: its PC register has moved past the `end`, where no variable is live.
#[test]
fn an_exited_wave_shows_its_variables_at_its_end() {
    let src = "\
    .var a, u2
    umovi u2, 5
    end
";
    let mut e = engine(src);
    run(&mut e, "continue");
    assert_eq!(run(&mut e, "info locals"), "a = 5  (u32 in u2)\n");
    assert_eq!(run(&mut e, "print a"), "a = 5\n");
    // `umovi` takes 8 bytes: the `end` is at 0x8, the PC register at 0xc.
    assert_eq!(run(&mut e, "print/x pc"), "pc = 0x00000008\n");
}

#[test]
fn print_shows_a_variable_in_its_type() {
    let mut e = saxpy();
    assert_eq!(run(&mut e, "print a"), "a = 2\n");
    assert_eq!(run(&mut e, "print n"), "n = 100\n");
    assert_eq!(run(&mut e, "p/x a"), "a = 0x40000000\n");
    assert_eq!(run(&mut e, "p/x n"), "n = 0x00000064\n");
    // A uniform variable is the same in every lane.
    assert_eq!(run(&mut e, "print a[3]"), "a[3] = 2\n");
    run(&mut e, "tbreak saxpy.cl:11");
    run(&mut e, "continue");
    let o = out(&mut e, "print xi");
    assert!(
        o.text.starts_with(
            "xi (f32 in v4, wave 0, EXEC 0xffffffff):\n  [ 0]            0             1"
        ),
        "{}",
        o.text
    );
    match o.value {
        Output::Lanes { values, exec } => {
            assert_eq!(exec, u32::MAX);
            assert_eq!(values[7], Scalar::F32(7.0));
        }
        other => panic!("{other:?}"),
    }
    // One lane's value in the variable's type, a float as a float (as clients show it).
    let o = out(&mut e, "print a");
    assert_eq!(o.value, Output::Value(Scalar::F32(2.0)));
    let o = out(&mut e, "print xi[5] * a + 0.25");
    assert_eq!(o.value, Output::Value(Scalar::F64(10.25)));
    assert_eq!(Scalar::F64(10.25).to_string(), "10.25");
    assert_eq!(Scalar::F32(0.1).to_string(), "0.1");
    assert_eq!(
        out(&mut e, "print i[31]").value,
        Output::Value(Scalar::Int(31))
    );
    assert_eq!(run(&mut e, "print xi[7]"), "xi[7] = 7\n");
    assert_eq!(run(&mut e, "p/x xi[2]"), "xi[2] = 0x40000000\n");
    assert_eq!(run(&mut e, "print i[31]"), "i[31] = 31\n");
    run(&mut e, "lane 5");
    // In expressions: C's conversions, a float wherever a float variable takes part.
    assert_eq!(
        run(&mut e, "print xi[5] * a + 0.5"),
        "xi[5] * a + 0.5 = 10.5\n"
    );
    assert_eq!(run(&mut e, "print xi[5] > 4.5"), "xi[5] > 4.5 = 1\n");
    assert_eq!(run(&mut e, "print n / 8"), "n / 8 = 12\n");
    let sum = run(&mut e, "print a * xi + yi");
    assert!(
        sum.starts_with("a * xi + yi (by lane; inactive lanes in parentheses):\n  [ 0]            1             3             5"),
        "{sum}"
    );
    let f = run(&mut e, "print yi + 0.25");
    assert!(f.contains("         1.25          1.25"), "{f}");
    assert!(fail(&mut e, "print xi & 1")
        .message()
        .contains("bit operators need integers"));
}

#[test]
fn print_marks_inactive_lanes_of_a_variable() {
    let mut e = saxpy();
    // The last wave holds i = 96..127; lanes of i >= n = 100 are off at line 11.
    run(&mut e, "break saxpy.cl:11 if wave == 3");
    run(&mut e, "continue");
    let text = run(&mut e, "print i");
    assert!(
        text.starts_with("i (u32 in v0, wave 3, EXEC 0x0000000f):\n  [ 0]           96            97            98            99  (        100) (        101)"),
        "{text}"
    );
}

#[test]
fn a_name_not_live_says_where_it_lives() {
    let mut e = saxpy();
    let err = fail(&mut e, "print xi");
    assert_eq!(
        err.message(),
        "variable `xi` is not live at pc 0x0000 (it is live at 0x0048-0x0064 (src/saxpy.cl:10-11))"
    );
    assert!(fail(&mut e, "print i + 1")
        .message()
        .contains("variable `i` is not live at pc 0x0000"));
    assert!(fail(&mut e, "print i[3]")
        .message()
        .contains("variable `i` is not live"));
    assert!(fail(&mut e, "print nosuch")
        .message()
        .starts_with("no symbol `nosuch` (names are variables, buffers and labels"));
    assert!(fail(&mut e, "print a[32]")
        .message()
        .contains("lane 32 out of range"));
    // `join` is a label, not a variable: it is still the label's address.
    assert_eq!(run(&mut e, "print/x join"), "join = 0x00000064\n");
}

#[test]
fn conditions_on_variables_are_evaluated_per_lane() {
    let mut e = saxpy();
    run(&mut e, "break saxpy.cl:10 if xi > 40.5");
    let (text, stop) = stop(&mut e, "continue");
    // Wave 1 holds i = 32..63: lanes 9-31 have x[i] = i > 40.5.
    assert!(
        text.starts_with("Breakpoint 1, wave 1 (workgroup 0), lanes 9-31"),
        "{text}"
    );
    let _ = stop;
    // Lanes 100..127 are inactive at line 11, so `i >= 100` never holds there.
    let mut e = saxpy();
    run(&mut e, "break saxpy.cl:11 if i >= n");
    let text = run(&mut e, "continue");
    assert!(!text.contains("Breakpoint 1,"), "{text}");
    assert!(
        fail(&mut e, "print xi").message().contains("not live"),
        "the kernel ran to its end"
    );
}

#[test]
fn every_type_and_location_prints_and_a_variable_shadows_a_buffer() {
    let src = "\
.buffer b, 16
.init b, u32, 7, 0xffffffff, 0, 0x40000000
.scratch 8
    .var g, global:b+4, i32
    .var d, global:b+8, f64
    .var p, u[2:3], u64
    .var s, scratch:0
    .var b, u2, i32
    .var w, v[4:5], f64
    umovi u2, 1
    umovi u3, 1
    vmov.u v5, u3
    .endvar b
    end
";
    let mut e = engine(src);
    assert_eq!(run(&mut e, "print g"), "g = -1\n");
    assert_eq!(run(&mut e, "print g + 0.5"), "g + 0.5 = -0.5\n");
    assert_eq!(run(&mut e, "p/x g"), "g = 0xffffffff\n");
    assert_eq!(run(&mut e, "print d"), "d = 2\n");
    assert_eq!(run(&mut e, "print d * 2"), "d * 2 = 4\n");
    run(&mut e, "stepi 2");
    assert_eq!(run(&mut e, "print p"), "p = 4294967297\n");
    assert_eq!(run(&mut e, "print p + 1"), "p + 1 = 4294967298\n");
    // A live variable shadows the buffer of its name; a register name is never a variable.
    assert_eq!(run(&mut e, "print b"), "b = 1\n");
    assert_eq!(run(&mut e, "print b - 2"), "b - 2 = -1\n");
    let s = run(&mut e, "print s");
    assert!(
        s.starts_with("s (u32 in scratch:0x0, wave 0, EXEC 0xffffffff):\n  [ 0]            0"),
        "{s}"
    );
    run(&mut e, "stepi");
    assert_eq!(run(&mut e, "p/x w[0]"), "w[0] = 0x0000000100000000\n");
    assert_eq!(run(&mut e, "print w[0] > 0"), "w[0] > 0 = 1\n");
    assert!(run(&mut e, "print w").starts_with("w (f64 in v[4:5], wave 0, EXEC 0xffffffff):\n"));
    // After `.endvar b` the name is the buffer again.
    assert!(run(&mut e, "print b").contains("<buffer b, 16 bytes>"));
}

#[test]
fn watch_a_memory_variable_watches_its_bytes() {
    let src = "\
.buffer b, 16
.arg u[0:1], b
    .var g, global:b+4, i32
    .var d, global:b+8, f64
    .var r, u4
    umovi u4, 4
    vmov.u v2, u4
    umovi u5, 9
    vmov.u v1, u5
    st.ubase.b32 v1, u[0:1], v2, 0
    end
";
    let mut e = engine(src);
    // b's base is 0x100000000: g is b+4, d is b+8 and eight bytes long.
    assert_eq!(run(&mut e, "print/x b"), "b = 0x0000000100000000\n");
    assert_eq!(
        run(&mut e, "watch g"),
        "Hardware watchpoint 1: global:0x100000004, 4 bytes\n"
    );
    assert_eq!(
        run(&mut e, "watch d"),
        "Hardware watchpoint 2: global:0x100000008, 8 bytes\n"
    );
    assert!(fail(&mut e, "watch r")
        .message()
        .contains("`r` lives in u4, not memory"));
    let (text, s) = stop(&mut e, "continue");
    assert!(matches!(s.reason, StopReason::Watchpoint(_)), "{text}");
    assert!(
        text.starts_with("Hardware watchpoint 1: global:0x100000004 (4 bytes)\n"),
        "{text}"
    );
    assert_eq!(run(&mut e, "print g"), "g = 9\n");
}

#[test]
fn findings_and_last_write_name_the_higher_level_line() {
    // saxpy with its fma reading v9, which nothing wrote: an uninitialised register read
    // on line 11.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/saxpy_src.s");
    let text = std::fs::read_to_string(path)
        .expect("saxpy_src.s")
        .replace("vfma.f32 v6, v3, v4, v5", "vfma.f32 v6, v3, v4, v9");
    let mut e = with_source(&text);
    run(&mut e, "set check init on");
    let stop = run(&mut e, "continue");
    let line = line_of(&text, "vfma.f32 v6, v3, v4, v9");
    assert!(
        stop.contains(&format!(
            "at 0x0054: vfma.f32 v6, v3, v4, v9  (k.s:{line}, src/saxpy.cl:11)\n"
        )),
        "{stop}"
    );
    let findings = run(&mut e, "info findings");
    assert!(findings.contains("(k.s:"), "{findings}");
    assert!(findings.contains(", src/saxpy.cl:11)"), "{findings}");
    run(&mut e, "lane 3");
    let written = run(&mut e, "last-write v6[3]");
    assert!(
        written.starts_with(
            "v6[3]: written by wave 0 (workgroup 0), lane 3, at 0x0054 (vfma.f32 v6, v3, v4, v9) in src/saxpy.cl:11, instruction "
        ),
        "{written}"
    );
    // A kernel without a line table names only the assembly's line.
    let mut e = with_source("v_uninit:\n    vadd.u32 v1, v2, v2\n    end\n");
    run(&mut e, "set check init on");
    let stop = run(&mut e, "continue");
    assert!(stop.contains("  (k.s:2)\n"), "{stop}");
}

/// A loop on one line (line 3) of 150 iterations in each of two waves, between lines 2
/// and 4: stepping back from line 4 meets line 3's start in the last iteration, and from
/// there goes back through every iteration to line 2.
const ONE_LINE_LOOP: &str = "
.kernel spin
.workgroup 64
.grid 1
        .file 1 \"spin.cl\"
        .loc 1 2 0
        umovi u1, 0
        umovi u2, 150
        .loc 1 3 0
spin:   uaddi u1, u1, 1
        uaddi u2, u2, -1
        .loc 1 3 9 is_stmt 0
        br.unz u2, spin
        .loc 1 4 0 is_stmt 1
        umovi u3, 5
        .loc 1 5 0
        end
";

/// `reverse-step` as a loop of `reverse-stepi 1`: back until the wave is at the first
/// statement of a stretch of a line other than the one it came from, `n` times (at the
/// start of its history, stops there). Returns the last stop's reason.
fn reverse_step_stepwise(e: &mut Engine, n: u64) -> StopReason {
    let line_of_pc = |e: &Engine| {
        let pc = e.machine().waves[e.selected_wave].pc;
        e.line_row_at(pc).map_or((0, 0), |r| (r.file, r.line))
    };
    let mut from = line_of_pc(e);
    let mut left = n;
    loop {
        let (_, s) = stop(e, "reverse-stepi");
        if s.reason != StopReason::Step {
            return s.reason;
        }
        let p = e.machine().program();
        let here = pc(e);
        let starts = e.line_row_at(here).is_some_and(|r| {
            (r.file, r.line) != from
                && p.source_info
                    .line_ranges(r.file, r.line, p.code_bytes())
                    .iter()
                    .any(|x| x.stmt == Some(here))
        });
        if starts {
            left -= 1;
            if left == 0 {
                return s.reason;
            }
            from = line_of_pc(e);
        }
    }
}

#[test]
fn reverse_line_steps_over_a_long_one_line_loop_match_stepping_back_instruction_by_instruction() {
    let fresh = || {
        let mut e = engine(ONE_LINE_LOOP);
        run(&mut e, "break spin.cl:5");
        run(&mut e, "continue");
        run(&mut e, "wave 1");
        run(&mut e, "continue");
        assert_eq!((e.selected_wave, line(&e)), (1, Some(5)));
        e
    };
    let place = |e: &Engine| {
        (
            e.selected_wave,
            pc(e),
            e.machine().stats.wave_instructions,
            e.machine().waves[1].executed,
        )
    };
    for (cmd, n) in [
        ("reverse-step", 1),
        ("reverse-next", 2),
        ("reverse-step", 3),
    ] {
        let (mut search, mut stepwise) = (fresh(), fresh());
        let mut seen = Vec::new();
        loop {
            let (_, s) = stop(&mut search, &format!("{cmd} {n}"));
            let old = reverse_step_stepwise(&mut stepwise, n);
            assert_eq!(s.reason, old, "{cmd} {n}");
            assert_eq!(place(&search), place(&stepwise), "{cmd} {n}");
            seen.push(line(&search));
            if s.reason != StopReason::Step {
                break;
            }
        }
        // Line by line 4, 3 (the last iteration), 2 and the start of the history there;
        // two lines at a time 3, then 2 short of a line; three at once 2 exactly.
        let expected: &[Option<u32>] = match n {
            1 => &[Some(4), Some(3), Some(2), Some(2)],
            2 => &[Some(3), Some(2)],
            _ => &[Some(2), Some(2)],
        };
        assert_eq!(seen, expected, "{cmd} {n}");
    }
    // The line 3 it stops at is the loop's last iteration; the one before is line 2.
    let mut e = fresh();
    run(&mut e, "reverse-step 2");
    assert_eq!(e.machine().waves[1].u[2], 1, "u2 before the last iteration");
    // Ctrl-C: asked to stop before the search starts, the machine stays; the request is
    // consumed, and the next line step goes back.
    let mut e = fresh();
    let before = place(&e);
    e.interrupt_handle().interrupt();
    let (_, s) = stop(&mut e, "reverse-step");
    assert_eq!(s.reason, StopReason::Interrupted);
    assert_eq!(place(&e), before, "stays where it was");
    let (_, s) = stop(&mut e, "reverse-step");
    assert_eq!((s.reason, line(&e)), (StopReason::Step, Some(4)));
}

#[test]
fn a_file_the_kernel_does_not_have_is_named_in_the_error() {
    let mut e = saxpy();
    for cmd in [
        "break nosuch.cl:3",
        "tbreak nosuch.cl:3",
        "info line nosuch.cl:3",
        "list nosuch.cl:3",
        "list saxpy.cl:3,nosuch.cl:5",
        "list nosuch.cl:3,saxpy.cl:5",
    ] {
        let m = fail(&mut e, cmd).message();
        assert!(
            m.contains("no source file `nosuch.cl` (this kernel's source is ")
                && m.contains("saxpy_src.s, compiled from src/saxpy.cl)"),
            "{cmd}: {m}"
        );
    }
    // A .cl line and a .s line are two files of the kernel.
    let m = fail(&mut e, "list saxpy.cl:3,saxpy_src.s:5").message();
    assert!(m.contains("different files"), "{m}");
}

/// `next` or `until` over a wave's `end`, and a locked continue to it: the wave exited
/// during the command, which says so as `finish` does, not "Cannot run" as a command
/// started on a wave that had already exited does.
#[test]
fn a_line_step_over_the_end_says_the_wave_exited() {
    let mut e = saxpy();
    run(&mut e, "break saxpy.cl:13");
    let (_, s) = stop(&mut e, "continue");
    assert!(matches!(s.reason, StopReason::Breakpoint { .. }), "{s:?}");
    run(&mut e, "delete");
    let commands = ["next", "until", "step 3", "stepi 10", "finish"];
    // (`stepi` with scheduler-locking off steps every wave: they all end, the launch too.)
    let cases = ["on", "off"]
        .into_iter()
        .flat_map(|l| commands.map(|c| (l, c)));
    for (locking, command) in cases.filter(|&c| c != ("off", "stepi 10")) {
        let mut e = e.clone();
        run(&mut e, &format!("set scheduler-locking {locking}"));
        let (text, s) = stop(&mut e, command);
        assert_eq!(
            s.reason,
            StopReason::Reached(Reached::Exit),
            "{command} ({locking}): {text}"
        );
        assert!(
            text.contains("exited") && !text.contains("Cannot run"),
            "{command}: {text}"
        );
        // Once exited, it cannot run: that is what "Cannot run" is for.
        let (text, s) = stop(&mut e, command);
        assert!(
            matches!(
                s.reason,
                StopReason::Blocked(Blocked::Exited) | StopReason::Reached(Reached::Exit)
            ),
            "{command} again: {text}"
        );
    }
}

/// A kernel of tests/kernels/source/ (its `.cl` files beside it).
fn source_kernel(name: &str) -> Engine {
    let path = format!(
        "{}/../tests/kernels/source/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let program = assemble_file(std::path::Path::new(&path)).unwrap_or_else(|e| panic!("{e}"));
    let mut e = Engine::new(&program, LaunchOptions::default()).expect("launch");
    e.set_kernel_path(&path);
    e
}

/// amb/k.s: `.file 1 "src/a.cl"` and `.file 2 "lib/a.cl"`, line 3 of each one
/// instruction (0x0 and 0x8), line 4 only in src/a.cl (0x10).
#[test]
fn a_directory_part_selects_the_file_and_a_shared_base_name_names_both() {
    let mut e = source_kernel("amb/k.s");
    assert_eq!(
        run(&mut e, "break lib/a.cl:3"),
        "Breakpoint 1 at 0x0008 (lib/a.cl:3)\n"
    );
    assert_eq!(
        run(&mut e, "info line lib/a.cl:3"),
        "Line 3 of \"lib/a.cl\" starts at address 0x0008 and ends at 0x0010.\n"
    );
    assert_eq!(run(&mut e, "list lib/a.cl:3,3"), "  B   3\tlib line 3\n");
    assert_eq!(
        fail(&mut e, "break lib/a.cl:4").message(),
        "no code at line 4 of lib/a.cl"
    );
    // Whole components: `rc/a.cl` is not the end of `src/a.cl`; `./src/a.cl` is.
    let m = fail(&mut e, "break rc/a.cl:3").message();
    assert!(m.contains("no source file `rc/a.cl`"), "{m}");
    assert_eq!(
        run(&mut e, "break ./src/a.cl:4"),
        "Breakpoint 2 at 0x0010 (src/a.cl:4)\n"
    );
    // A base name both files have: one breakpoint with a location in each, as gdb.
    let text = run(&mut e, "break a.cl:3");
    assert_eq!(
        text,
        "Note: breakpoint 1 also set at pc 0x0008.\n\
         Breakpoint 3 at 0x0000 (src/a.cl:3) (2 locations: 0x0000, 0x0008)\n"
    );
    assert_eq!(
        run(&mut e, "info line a.cl:3"),
        "Line 3 of \"src/a.cl\" starts at address 0x0000 and ends at 0x0008.\n\
         Line 3 of \"lib/a.cl\" starts at address 0x0008 and ends at 0x0010.\n"
    );
    // `list` shows one file: the two are named.
    let m = fail(&mut e, "list a.cl:3").message();
    assert!(
        m.contains("`a.cl` is ambiguous: it names src/a.cl and lib/a.cl"),
        "{m}"
    );
    // An absolute path names the file at that place.
    let abs = format!(
        "{}/../tests/kernels/source/amb/lib/a.cl",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut e = source_kernel("amb/k.s");
    let text = run(&mut e, &format!("break {abs}:3"));
    assert_eq!(text, "Breakpoint 1 at 0x0008 (lib/a.cl:3)\n");
}

/// A line whose code is in two stretches is one breakpoint with two locations: the
/// table lists `N.1` and `N.2`, a temporary one goes whole at the first hit, and
/// delete, disable, ignore and conditions apply to the breakpoint.
#[test]
fn a_line_of_several_stretches_is_one_breakpoint_of_several_locations() {
    let mut e = saxpy();
    let text = run(&mut e, "break saxpy.cl:6");
    assert_eq!(
        text,
        "Breakpoint 1 at 0x0008 (saxpy.cl:6) (2 locations: 0x0008, 0x0024)\n"
    );
    let table = run(&mut e, "info breakpoints");
    assert!(
        table.contains("1    breakpoint      keep  y    <MULTIPLE>\n"),
        "{table}"
    );
    assert!(
        table.contains(
            "1.1                        y    0x0008           0x0008 at src/saxpy.cl:6\n"
        ),
        "{table}"
    );
    assert!(table.contains("1.2 "), "{table}");
    assert_eq!(e.breakpoints().len(), 1);
    // Both locations stop under the one number, and count its hits (wave 0's).
    run(&mut e, "delete");
    run(&mut e, "break saxpy.cl:6 wave 0");
    let (_, s) = stop(&mut e, "continue");
    assert_eq!(breakpoint_of(&s).0, 2);
    assert_eq!(pc(&e), 0x8);
    let (_, s) = stop(&mut e, "continue");
    assert_eq!(breakpoint_of(&s).0, 2);
    assert_eq!(pc(&e), 0x24);
    assert_eq!(e.breakpoints()[0].hits, 2);
    // `delete 2` takes both locations.
    run(&mut e, "delete 2");
    assert!(e.breakpoints().is_empty());

    // A temporary breakpoint is deleted whole when one location hits.
    let mut e = saxpy();
    run(&mut e, "tbreak saxpy.cl:6");
    let (text, _) = stop(&mut e, "continue");
    assert!(text.starts_with("Temporary breakpoint 1, "), "{text}");
    assert!(e.breakpoints().is_empty(), "{:?}", e.breakpoints());
    let (_, s) = stop(&mut e, "continue");
    assert_eq!(s.reason, StopReason::Finished, "no hidden location is left");

    // Disable, ignore and a condition apply to every location.
    let mut e = saxpy();
    run(&mut e, "break saxpy.cl:6");
    run(&mut e, "ignore 1 1");
    let (_, s) = stop(&mut e, "continue");
    assert_eq!(breakpoint_of(&s).0, 1);
    assert_eq!(e.breakpoints()[0].hits, 2, "the first hit ignored");
    let mut e = saxpy();
    run(&mut e, "break saxpy.cl:6");
    run(&mut e, "disable 1");
    let (_, s) = stop(&mut e, "continue");
    assert_eq!(s.reason, StopReason::Finished);

    // A second breakpoint at a location another has is noted, as gdb notes it.
    let mut e = saxpy();
    run(&mut e, "break saxpy.cl:6");
    assert_eq!(
        run(&mut e, "break *0x24"),
        "Note: breakpoint 1 also set at pc 0x0024.\nBreakpoint 2 at 0x0024 (saxpy.cl:6)\n"
    );
    assert_eq!(
        run(&mut e, "tbreak *0x24"),
        "Note: breakpoints 1 and 2 also set at pc 0x0024.\n\
         Temporary breakpoint 3 at 0x0024 (saxpy.cl:6)\n"
    );
}

/// A saved session's `break FILE:LINE` loads as the one breakpoint of several locations.
#[test]
fn a_session_keeps_a_breakpoint_of_several_locations_whole() {
    let mut e = saxpy();
    run(&mut e, "break saxpy.cl:6");
    let session = Session::capture(&e);
    let mut again = saxpy();
    session.apply(&mut again, "s.ron").expect("apply");
    assert_eq!(again.breakpoints().len(), 1);
    assert_eq!(again.breakpoints()[0].addrs, vec![0x8, 0x24]);
}

/// `advance FILE:LINE` and `until FILE:LINE` stop at whichever location of the line the
/// wave reaches first, not only its first (mf/k.s: line 10 is at 0x48 and at 0x6c).
#[test]
fn advance_and_until_stop_at_any_location_of_the_line() {
    for cmd in ["advance", "until"] {
        let mut e = source_kernel("mf/k.s");
        run(&mut e, "break main.cl:11");
        stop(&mut e, "continue");
        run(&mut e, "delete");
        let (_, s) = stop(&mut e, &format!("{cmd} main.cl:10"));
        assert_eq!(
            s.reason,
            StopReason::Reached(Reached::Address(0x6c)),
            "{cmd}"
        );
        assert_eq!(line(&e), Some(10));
    }
    // saxpy: line 6 again at 0x24 after line 7's break.
    let mut e = saxpy();
    run(&mut e, "break saxpy.cl:7");
    stop(&mut e, "continue");
    run(&mut e, "delete");
    let (_, s) = stop(&mut e, "advance saxpy.cl:6");
    assert_eq!(s.reason, StopReason::Reached(Reached::Address(0x24)));
}

/// `bt`, `frame` and `info frame` name the higher-level line and the kernel as the
/// function where the PC has line info (as gdb does from the symbol file), with the
/// address only inside a row; the assembly line and label where it has none.
#[test]
fn frames_name_the_source_line_and_the_kernel() {
    let mut e = source_kernel("mf/k.s");
    // Before the first .loc: the assembly's line and the kernel (no label yet).
    let bt = run(&mut e, "bt");
    assert!(bt.starts_with("#0  0x0000 in k () at k.s:7\n"), "{bt}");
    run(&mut e, "advance main.cl:15");
    let bt = run(&mut e, "bt");
    assert!(bt.starts_with("#0  k () at src/main.cl:15\n"), "{bt}");
    let frame = run(&mut e, "frame");
    assert!(
        frame.starts_with("#0  k () at src/main.cl:15\n  15\t    out[i] = acc;\n"),
        "{frame}"
    );
    let info = run(&mut e, "info frame");
    assert!(
        info.contains(" pc = 0x0070 <join+4> in k (src/main.cl:15); saved pc = none\n"),
        "{info}"
    );
    assert!(info.contains(" source language opencl.\n"), "{info}");
    // Inside a row: the address too, as gdb shows it.
    run(&mut e, "stepi");
    let bt = run(&mut e, "bt");
    assert!(
        bt.starts_with("#0  0x0078 in k () at src/main.cl:15\n"),
        "{bt}"
    );
}

/// `last-write VAR` searches the variable's location (its register in the selected
/// lane, or its memory), not memory at the address its value would give.
#[test]
fn last_write_of_a_variable_searches_its_location() {
    let mut e = saxpy();
    run(&mut e, "tbreak saxpy.cl:11");
    run(&mut e, "continue");
    run(&mut e, "lane 7");
    let by_name = run(&mut e, "last-write xi");
    assert!(
        by_name.starts_with("`xi` lives in v4, lane 7:\nv4[7]: written by wave 0"),
        "{by_name}"
    );
    assert!(by_name.contains("after:  0x40e00000"), "{by_name}");
    // The same search as naming the register (in a session of its own: asked again, the
    // same target walks on to the write before).
    let mut again = saxpy();
    run(&mut again, "tbreak saxpy.cl:11");
    run(&mut again, "continue");
    run(&mut again, "lane 7");
    let by_register = run(&mut again, "last-write v4[7]");
    assert_eq!(
        by_name.split_once('\n').map(|x| x.1),
        Some(by_register.as_str())
    );
    let text = run(&mut e, "last-write a");
    assert!(text.starts_with("`a` lives in u4:\nu4: "), "{text}");
}

/// An interrupted `reverse-next` or `reverse-step` says it was interrupted and leaves the
/// machine where it was.
#[test]
fn an_interrupted_reverse_line_step_says_so_and_stays() {
    let mut e = saxpy();
    run(&mut e, "next 3");
    let at = e.machine().stats.wave_instructions;
    for line in ["reverse-next", "reverse-step 2", "reverse-finish"] {
        e.interrupt_handle().interrupt();
        let text = run(&mut e, line);
        assert!(text.starts_with("Interrupted"), "{line}: {text}");
        assert_eq!(e.machine().stats.wave_instructions, at, "{line}: stays");
    }
}

/// space/k.s: `.file 1 "sub dir/x.cl"`; line 3 at 0x4 (after the prologue), 4 at 0xc,
/// 5 at 0x10.
#[test]
fn a_quoted_file_name_with_a_space_is_a_location_everywhere() {
    let mut e = source_kernel("space/k.s");
    assert_eq!(
        run(&mut e, "break 'sub dir/x.cl':4"),
        "Breakpoint 1 at 0x000c (x.cl:4)\n"
    );
    assert_eq!(
        run(&mut e, "tbreak \"sub dir/x.cl\":5 if v0 > 3 wave 0"),
        "Temporary breakpoint 2 at 0x0010 (x.cl:5), wave 0 if v0 > 3\n"
    );
    let listing = run(&mut e, "list 'sub dir/x.cl':2");
    assert!(
        listing.contains("  B   4\t    int b = a + 2;\n"),
        "{listing}"
    );
    let range = run(&mut e, "list 'sub dir/x.cl':3,\"sub dir/x.cl\":4");
    assert_eq!(range.lines().count(), 2, "{range}");
    assert_eq!(
        run(&mut e, "info line \"sub dir/x.cl\":4"),
        "Line 4 of \"sub dir/x.cl\" starts at address 0x000c and ends at 0x0010.\n"
    );
    stop(&mut e, "until 'sub dir/x.cl':3");
    assert_eq!((line(&e), pc(&e)), (Some(3), 0x4));
    stop(&mut e, "advance \"sub dir/x.cl\":4");
    assert_eq!((line(&e), pc(&e)), (Some(4), 0xc));
    // Recordings and sessions write the location back quoted, and it loads again.
    let command = wavedbg_emulator::debug::command::parse("break 'sub dir/x.cl':4")
        .expect("parses")
        .expect("a command");
    assert_eq!(command.to_string(), "break \"sub dir/x.cl\":4");
    let session = Session::capture(&e);
    let saved = session.to_ron().expect("ron");
    assert!(
        saved.contains(r#"location: "\"sub dir/x.cl\":4""#),
        "{saved}"
    );
    let mut again = source_kernel("space/k.s");
    Session::from_ron(&saved, "s.ron")
        .expect("loads")
        .apply(&mut again, "s.ron")
        .expect("applies");
    let addrs: Vec<_> = again
        .breakpoints()
        .iter()
        .map(|b| b.addrs.clone())
        .collect();
    assert_eq!(addrs, [vec![0xc], vec![0x10]]);
    // A quote left open or no line after the file says which.
    fails_with_usage(&mut e, "break 'sub dir/x.cl:4", "no closing ' in");
    fails_with_usage(
        &mut e,
        "break \"sub dir/x.cl\"",
        "needs `:LINE` or `:LABEL`",
    );
    fails_with_usage(&mut e, "break \"\":4", "no file name between the quotes");
}

/// The kernel's name is a location as gdb's `break main`: `break` and `until` stop after
/// its prologue (the `prologue_end` row), `list` and `info line` show its first line.
#[test]
fn the_kernel_name_is_a_location() {
    let mut e = saxpy();
    assert_eq!(
        run(&mut e, "break saxpy"),
        "Breakpoint 1 at 0x0008 (saxpy.cl:6)\n"
    );
    assert_eq!(
        run(&mut e, "info line saxpy"),
        "Line 4 of \"src/saxpy.cl\" starts at address 0x0000 and ends at 0x0008.\n"
    );
    let listing = run(&mut e, "list saxpy");
    assert!(listing.starts_with("      1\t"), "{listing}");
    assert!(listing.contains("=>    4\t"), "{listing}");
    assert_eq!(
        run(&mut e, "tbreak saxpy+4"),
        "Temporary breakpoint 2 at 0x0004 (saxpy.cl:4)\n"
    );
    let disas = run(&mut e, "disassemble saxpy");
    assert!(disas.contains("0x0000"), "{disas}");
    let mut e = saxpy();
    stop(&mut e, "advance saxpy");
    assert_eq!(pc(&e), 0x8);
    // Without a prologue_end row: the entry. A label of the name is the label.
    let e = source_kernel("amb/k.s");
    let name = e.machine().program().name.clone();
    assert_eq!(e.resolve_locations(&loc(&name)).expect("resolves"), vec![0]);
}

/// `*EXPR` locations as gdb's: any expression of the selected wave, evaluated when the
/// command runs; a breakpoint keeps the address it had then. saxpy: line 8 is 0x28-0x38,
/// line 9 starts at 0x38.
#[test]
fn star_expression_locations_in_every_location_command() {
    let mut e = saxpy();
    assert_eq!(
        run(&mut e, "break *(0x30 + 8)"),
        "Breakpoint 1 at 0x0038 (saxpy.cl:9)\n"
    );
    assert_eq!(
        run(&mut e, "break *pc"),
        "Breakpoint 2 at 0x0000 (saxpy.cl:4)\n"
    );
    // The breakpoint is where the PC was, in listings and sessions.
    assert_eq!(e.breakpoints()[1].location.to_string(), "*0x0");
    assert_eq!(
        run(&mut e, "info line *0x30"),
        "Line 8 of \"src/saxpy.cl\" starts at address 0x0028 and ends at 0x0038.\n"
    );
    assert_eq!(
        run(&mut e, "info line *(pc + 0x30)"),
        run(&mut e, "info line *0x30")
    );
    let listing = run(&mut e, "list *(0x10 * 3)");
    assert!(listing.contains("  B   9\t"), "{listing}");
    run(&mut e, "delete");
    stop(&mut e, "until *(0x20 + 4)");
    assert_eq!(pc(&e), 0x24);
    stop(&mut e, "advance *pc + 0x14");
    assert_eq!(pc(&e), 0x38);
    let disas = run(&mut e, "disassemble *pc");
    assert!(disas.contains("0x0038"), "{disas}");
    // `*u4`-style values are read now: v0 is the lane's index times 1 (lane 2 here).
    run(&mut e, "lane 2");
    assert_eq!(
        e.resolve_location(&loc("*(v0 * 4 + 0x2c)")).ok(),
        Some(0x34)
    );
    // A bad expression names its column in the line.
    let err = fail(&mut e, "break *(pc +");
    assert_eq!(
        err.message(),
        "bad location `*(pc +`: expected a value (at column 13)"
    );
    match err {
        CommandError::Parse(p) => assert_eq!(p.column, Some(13)),
        other => panic!("{other:?}"),
    }
    // Columns count characters of the line as typed, not bytes.
    for (line, message, column) in [
        (
            "list   *(pc +",
            "bad location `*(pc +`: expected a value (at column 14)",
            14,
        ),
        (
            "print (ñ + 1) +",
            "bad expression `(ñ + 1) +`: unexpected `ñ + 1) +` (at column 8)",
            8,
        ),
        (
            "break 'dír/k.cl':3 if v3 +",
            "bad condition `v3 +`: expected a value (at column 27)",
            27,
        ),
    ] {
        let err = fail(&mut e, line);
        assert_eq!(err.message(), message, "{line}");
        match err {
            CommandError::Parse(p) => assert_eq!(p.column, Some(column), "{line}"),
            other => panic!("{line}: {other:?}"),
        }
    }
    // A location standing alone (a session's, a DAP client's) counts in it.
    assert_eq!(
        wavedbg_emulator::debug::command::parse_location("  * ñ"),
        Err("bad location `* ñ`: unexpected `ñ` (at column 3)".to_string())
    );
    // An expression error on its own counts characters of the expression.
    assert_eq!(
        wavedbg_emulator::debug::expr::parse("1 + ñ")
            .map_err(|e| e.to_string())
            .err(),
        Some("unexpected `ñ` (at column 5)".to_string())
    );
    let err = fail(&mut e, "list *(0x30 @ 2)");
    match err {
        CommandError::Parse(p) => assert_eq!(p.column, Some(13), "{}", p.message),
        other => panic!("{other:?}"),
    }
    fails_with_usage(&mut e, "until *", "`*` needs an address expression");
    fails_with_usage(
        &mut e,
        "advance *(0 - 4)",
        "cannot evaluate the location `*(0 - 4)`: -4 is negative",
    );
    fails_with_usage(
        &mut e,
        "break *pc extra",
        "unexpected `extra` after the location `*pc`",
    );
    // A bare name is a label as in every location; in an expression, any name.
    fails_with_usage(&mut e, "info line *nosuch", "no label `nosuch`");
    fails_with_usage(&mut e, "info line *(nosuch + 4)", "no symbol `nosuch`");
}

/// An address past the code has no line, as gdb says, and the message says why; a
/// location there is refused naming the code's extent.
#[test]
fn an_address_outside_the_code_says_so() {
    let mut e = saxpy();
    let end = e.machine().program().code_bytes();
    assert_eq!(end, 0x6c);
    assert_eq!(
        run(&mut e, "info line *0x1000"),
        "No line number information available for address 0x1000: it is outside the kernel's code (0x0000-0x006b)\n"
    );
    assert_eq!(
        run(&mut e, "info line *(pc + 0x6c)"),
        "No line number information available for address 0x006c: it is outside the kernel's code (0x0000-0x006b)\n"
    );
    for cmd in [
        "break *0x1000",
        "list *0x1000",
        "advance 0x1000",
        "disassemble 0x1000",
    ] {
        fails_with_usage(
            &mut e,
            cmd,
            "0x1000 is outside the kernel's code (0x0000-0x006b)",
        );
    }
    // Inside the code but not at an instruction's start is still that.
    fails_with_usage(
        &mut e,
        "break *0x2",
        "0x2 is not the start of an instruction",
    );
}

/// `info line *ADDR` inside an instruction (its second word, or not word-aligned) names
/// the instruction it is part of, and that instruction's line, rather than refusing the
/// address as no instruction's start.
#[test]
fn info_line_inside_an_instruction_says_so() {
    use wavedbg_emulator::code::CodeWord;
    let mut e = saxpy();
    let second = e
        .machine()
        .code()
        .iter()
        .position(|w| matches!(w, CodeWord::Inside))
        .expect("saxpy has a 64-bit instruction") as u64
        * 4;
    let start = second - 4;
    let whole = run(&mut e, &format!("info line *{start:#x}"));
    let at = wavedbg_emulator::debug::view::pc_text(e.machine(), start);
    let instr = wavedbg_emulator::debug::view::instr_text(e.machine(), start);
    let want = |a: u64| {
        format!(
            "Address {a:#06x} is inside the instruction at {at} ({instr}), not at its start.\n{whole}"
        )
    };
    let (in_second, unaligned) = (want(second), want(start + 2));
    assert!(whole.starts_with("Line "), "{whole}");
    assert_eq!(run(&mut e, &format!("info line *{second:#x}")), in_second);
    assert_eq!(
        run(&mut e, &format!("info line *{:#x}", start + 2)),
        unaligned
    );
    assert_eq!(
        run(&mut e, &format!("info line *({:#x} + 1)", second)),
        want(second + 1)
    );
    // Other commands still refuse it: a breakpoint needs an instruction's start.
    fails_with_usage(
        &mut e,
        &format!("break *{second:#x}"),
        &format!("{second:#x} is not the start of an instruction"),
    );
}
