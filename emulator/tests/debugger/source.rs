//! Source lines: `list` around the PC and on, why a kernel has no source, and the
//! source line of the next instruction after every stop.

use super::fixtures::*;

#[test]
fn list_shows_ten_lines_around_the_pc_then_goes_on() {
    let mut e = loop_with_source();
    let total = LOOP.lines().count();
    let lines = |text: &str| -> Vec<usize> {
        text.lines()
            .map(|l| {
                l[3..]
                    .split('\t')
                    .next()
                    .unwrap()
                    .trim()
                    .parse::<usize>()
                    .unwrap()
            })
            .collect()
    };
    let around = |n: usize| ((n.max(6) - 5)..=(n.max(6) + 4)).collect::<Vec<_>>();
    // The PC is at the first instruction: `=>` marks its line, 10 lines around it.
    let first = run(&mut e, "list");
    let pc_line = line_of(LOOP, "uwgid u4");
    assert_eq!(lines(&first), around(pc_line), "{first}");
    assert!(
        first.contains(&format!("=> {pc_line:>4}\t    uwgid u4\n")),
        "{first}"
    );
    // Again: the next 10 (Enter repeats `list` as gdb does).
    let next = run(&mut e, "list");
    assert_eq!(lines(&next), around(pc_line + 10));
    let cmd = command::parse("list 5").unwrap().unwrap();
    assert_eq!(
        e.repeat_of(&cmd),
        Some(command::Command::List(None)),
        "Enter after list"
    );
    // `-`: the 10 before the first shown, down to line 1.
    assert_eq!(lines(&run(&mut e, "list -")), around(pc_line));
    assert_eq!(
        lines(&run(&mut e, "list -")),
        (1..pc_line - 5).collect::<Vec<_>>()
    );
    assert!(fail(&mut e, "list -")
        .message()
        .contains("Already at the start of loop.s"));
    // A line: centred on it; a label or address: on its instruction's line; FILE:LINE.
    let loop_line = line_of(LOOP, "vaddi.u32 v1, v1, 1");
    assert_eq!(lines(&run(&mut e, "list 15")), around(15));
    assert_eq!(lines(&run(&mut e, "list loop")), around(loop_line));
    assert_eq!(lines(&run(&mut e, "list *0x24")), around(loop_line));
    assert_eq!(lines(&run(&mut e, "list loop.s:15")), around(15));
    assert_eq!(lines(&run(&mut e, "list loop.s:loop")), around(loop_line));
    // Breakpoint lines are marked `B`.
    run(&mut e, "break loop");
    assert!(
        run(&mut e, "list loop").contains(&format!("  B{loop_line:>4}\t    vaddi.u32 v1, v1, 1"))
    );
    // The end of the file: the last lines, then an error.
    let tail = run(&mut e, &format!("list {total}"));
    assert_eq!(*lines(&tail).last().unwrap(), total);
    let err = fail(&mut e, "list");
    assert_eq!(
        err.message(),
        format!(
            "Line number {} out of range; loop.s has {total} lines.",
            total + 1
        )
    );
    // A stop forgets where list was: it starts again around the new PC, also for a stop
    // made through the engine's API (as the GDB server makes them), and so does `wave`.
    stop(&mut e, "continue");
    let again = run(&mut e, "list");
    assert!(again.contains(&format!("=>B{loop_line:>4}\t")), "{again}");
    run(&mut e, "list");
    let _ = e.continue_all();
    let again = run(&mut e, "list");
    assert!(again.contains(&format!("=>B{loop_line:>4}\t")), "{again}");
    run(&mut e, "list");
    run(&mut e, "wave 0");
    let again = run(&mut e, "list");
    assert!(again.contains(&format!("=>B{loop_line:>4}\t")), "{again}");
    // Bad arguments.
    for (line, what) in [
        ("list 0", "line 0 is out of range; loop.s has"),
        ("list 100000", "line 100000 is out of range"),
        (
            "list 99999999999999999999",
            "line `99999999999999999999` is too large: at most 18446744073709551615",
        ),
        ("list nosuch", "no label `nosuch`"),
        (
            "list other.s:3",
            "no source file `other.s` (this kernel's source is loop.s)",
        ),
        ("list 0x2", "0x2 is not the start of an instruction"),
    ] {
        fails_with_usage(&mut e, line, what);
    }
}

#[test]
fn list_without_source_says_why() {
    let mut e = one_wave_loop();
    fails_with_usage(
        &mut e,
        "list",
        "no source for this kernel (it was not opened from a .s file)",
    );
    e.set_kernel_path("kernels/loop.wko");
    fails_with_usage(
        &mut e,
        "list",
        "no source for this kernel (opened from a .wko object)",
    );
    e.set_kernel_path("/nonexistent/loop.s");
    fails_with_usage(&mut e, "list", "cannot read /nonexistent/loop.s");
    // Stops show no source line then.
    let (text, _) = stop(&mut e, "stepi");
    assert_eq!(text.lines().count(), 2, "{text}");
    // The built-in demo has its source compiled in.
    let mut demo =
        Engine::new(&wavedbg_emulator::demo::program(), LaunchOptions::default()).expect("launch");
    demo.set_kernel_path(wavedbg_emulator::demo::NAME);
    assert!(run(&mut demo, "list").contains("=>"));
}

#[test]
fn stops_end_with_the_source_line_of_the_next_instruction() {
    let mut e = loop_with_source();
    let line = |needle: &str| {
        let n = line_of(LOOP, needle);
        format!("{n:>4}\t{}", LOOP.lines().nth(n - 1).unwrap().trim_end())
    };
    let (text, _) = stop(&mut e, "stepi");
    assert_eq!(
        text,
        format!(
            "wave 0 (workgroup 0)\n  0x0004: uwaveid u5\n{}\n",
            line("uwaveid u5")
        )
    );
    run(&mut e, "break loop");
    let (text, _) = stop(&mut e, "c");
    assert!(
        text.ends_with(&format!(
            "vaddi.u32 v1, v1, 1\n{}\n",
            line("vaddi.u32 v1, v1, 1")
        )),
        "{text}"
    );
    // A watchpoint: after the next instruction's text.
    run(&mut e, "delete");
    run(&mut e, "watch out 4");
    let (text, _) = stop(&mut e, "c");
    assert!(
        text.ends_with(&format!("wait.vst 0\n{}\n", line("wait.vst 0"))),
        "{text}"
    );
    // The end of the launch has no line.
    run(&mut e, "delete");
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with("All waves exited"), "{text}");
    assert_eq!(text.lines().count(), 1);
    // A fault: the faulting instruction's line; a deadlock: the barrier's.
    let mut e = with_source(FAULT);
    let (text, _) = stop(&mut e, "c");
    assert!(
        text.ends_with(&format!(
            "{:>4}\t    st.shared.b32 v0, v2, 0\n",
            line_of(FAULT, "st.shared")
        )),
        "{text}"
    );
    let mut e = with_source(DEADLOCK);
    let (text, _) = stop(&mut e, "c");
    assert!(
        text.ends_with(&format!(
            "{:>4}\t    barrier\n",
            line_of(DEADLOCK, "barrier")
        )),
        "{text}"
    );
    // `why` tells it again, the line included.
    assert_eq!(run(&mut e, "why").lines().last(), text.lines().last());
}

#[test]
fn list_first_last_shows_the_lines_between_as_gdb() {
    let mut e = loop_with_source();
    let numbers = |text: &str| -> Vec<u32> {
        text.lines()
            .filter_map(|l| l.get(3..)?.split('\t').next()?.trim().parse().ok())
            .collect()
    };
    assert_eq!(
        numbers(&run(&mut e, "list 3,7")),
        (3..=7).collect::<Vec<_>>()
    );
    assert_eq!(numbers(&run(&mut e, "list 4,4")), vec![4]);
    // FIRST, : ten from FIRST; ,LAST : ten ending at LAST (from line 1 at most).
    assert_eq!(
        numbers(&run(&mut e, "list 12,")),
        (12..=21).collect::<Vec<_>>()
    );
    assert_eq!(
        numbers(&run(&mut e, "list ,15")),
        (6..=15).collect::<Vec<_>>()
    );
    assert_eq!(
        numbers(&run(&mut e, "list ,4")),
        (1..=4).collect::<Vec<_>>()
    );
    // Locations on either side; a bare LAST is a line of FIRST's file.
    let loop_line = line_of(LOOP, "vaddi.u32 v1, v1, 1");
    assert_eq!(
        numbers(&run(&mut e, "list loop,")).first(),
        Some(&(loop_line as u32))
    );
    assert_eq!(
        numbers(&run(&mut e, "list loop.s:2,3")),
        vec![2, 3],
        "FILE:FIRST,LAST"
    );
    // Then `list` goes on after the range.
    run(&mut e, "list 3,7");
    assert_eq!(numbers(&run(&mut e, "list")), (8..=17).collect::<Vec<_>>());
    // Refusals: backwards, empty, out of range.
    assert!(fail(&mut e, "list 7,3")
        .message()
        .contains("Second line number 3 is before the first, 7."));
    assert!(fail(&mut e, "list ,")
        .message()
        .contains("needs a first or a last line"));
    assert!(fail(&mut e, "list 0,3").message().contains("out of range"));
    // As gdb: a LAST past the end lists to the end.
    let total = LOOP.lines().count() as u32;
    assert_eq!(
        numbers(&run(&mut e, &format!("list {},100000", total - 1))),
        vec![total - 1, total]
    );
}

#[test]
fn list_first_last_in_a_higher_level_file() {
    let mut e = Engine::new(&script("saxpy_src.s"), LaunchOptions::default()).expect("launch");
    e.set_kernel_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/saxpy_src.s"
    ));
    let text = run(&mut e, "list saxpy.cl:9,11");
    assert!(
        text.starts_with("      9\t        float xi = x[i];\n"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 3, "{text}");
    assert_eq!(
        run(&mut e, "list 12,").lines().count(),
        2,
        "clipped to the 13 lines"
    );
    assert_eq!(run(&mut e, "list 12,99").lines().count(), 2, "to the end");
    // The .s by its own name, both sides.
    let s = run(&mut e, "list saxpy_src.s:3,4");
    assert!(s.starts_with("      3\t;"), "{s}");
    assert!(fail(&mut e, "list saxpy.cl:2,saxpy_src.s:10")
        .message()
        .contains("different files"));
}
