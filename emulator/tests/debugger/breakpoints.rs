//! Breakpoints: at labels, addresses and offsets; per-lane conditions; wave, workgroup
//! and lane filters; ignore and hit counts; temporary breakpoints; enable, disable, delete;
//! the `brk` instruction; `info breakpoints` and the numbering shared with watchpoints.
//! Through the typed API (`Engine::add_breakpoint`, ...) and as command text (`break`, ...).

use super::fixtures::*;

#[test]
fn break_forms_and_info_breakpoints() {
    let mut e = engine(LOOP);
    assert_eq!(run(&mut e, "break loop"), "Breakpoint 1 at 0x0024 <loop>\n");
    assert_eq!(run(&mut e, "b loop+8"), "Breakpoint 2 at 0x002c <loop+8>\n");
    assert_eq!(run(&mut e, "br 0x40"), "Breakpoint 3 at 0x0040 <after>\n");
    assert_eq!(run(&mut e, "b *0x3c"), "Breakpoint 4 at 0x003c <loop+24>\n");
    assert_eq!(
        run(&mut e, "break loop if v3 > 100 wave 2"),
        "Note: breakpoint 1 also set at pc 0x0024.\n\
         Breakpoint 5 at 0x0024 <loop>, wave 2 if v3 > 100\n"
    );
    assert_eq!(
        run(&mut e, "tbreak store workgroup 1 lane 5"),
        "Temporary breakpoint 6 at 0x0060 <store>, workgroup 1, lane 5\n"
    );
    assert_eq!(run(&mut e, "b 0"), "Breakpoint 7 at 0x0000\n");
    assert_eq!(
        run(&mut e, "info breakpoints"),
        "\
Num  Type            Disp  Enb  Address          What
1    breakpoint      keep  y    0x0024           0x0024 <loop>
2    breakpoint      keep  y    0x002c           0x002c <loop+8>
3    breakpoint      keep  y    0x0040           0x0040 <after>
4    breakpoint      keep  y    0x003c           0x003c <loop+24>
5    breakpoint      keep  y    0x0024           0x0024 <loop>
        stop only if v3 > 100
        wave 2 only
6    breakpoint      del   y    0x0060           0x0060 <store>
        workgroup 1 only
        lane 5 only
7    breakpoint      keep  y    0x0000           0x0000
"
    );
    assert_eq!(run(&mut e, "i b"), run(&mut e, "info breakpoints"));
    assert_eq!(run(&mut e, "info break"), run(&mut e, "info breakpoints"));
    assert_eq!(run(&mut e, "info watchpoints"), "No watchpoints.\n");
    run(&mut e, "delete");
    assert_eq!(
        run(&mut e, "info breakpoints"),
        "No breakpoints or watchpoints.\n"
    );
}

#[test]
fn conditional_breakpoint_reports_the_satisfying_lanes() {
    let mut e = one_wave_loop();
    run(&mut e, "break loop if v3 > 100");
    let (text, s) = stop(&mut e, "continue");
    assert_eq!(
        text,
        "Breakpoint 1, wave 0 (workgroup 0), lanes 26-31\n  0x0024 <loop>: vaddi.u32 v1, v1, 1\n"
    );
    assert_eq!(
        s.reason,
        StopReason::Breakpoint {
            id: 1,
            lanes: 0xfc00_0000
        }
    );
    // The lane selection moved to the first satisfying lane.
    let lanes = run(&mut e, "info lanes");
    assert!(lanes.contains("*   26  active    B\n"), "{lanes}");
    assert!(lanes.contains("    25  active\n"), "{lanes}");
    assert_eq!(run(&mut e, "p v3"), run(&mut e, "print v3"));
    assert_eq!(run(&mut e, "p v3[26]"), "v3[26] = 104\n");
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with("Breakpoint 1, wave 0 (workgroup 0), lanes 25-31\n"));
    let (text, _) = stop(&mut e, "cont");
    assert!(text.starts_with("Breakpoint 1, wave 0 (workgroup 0), lanes 25-31\n"));
    assert_eq!(run(&mut e, "p v1[0]"), "v1[0] = 2\n");
    assert!(run(&mut e, "info breakpoints").contains("        breakpoint already hit 3 times\n"));
    let (text, s) = stop(&mut e, "c");
    assert_eq!(s.reason, StopReason::Finished);
    assert_eq!(
        text,
        "All waves exited (26 wave-instructions, 832 lane-ops).\n"
    );

    // One satisfying lane: singular.
    let mut e = engine(COND);
    run(&mut e, "break here if v3 == 108");
    let (text, _) = stop(&mut e, "c");
    assert_eq!(
        text,
        "Breakpoint 1, wave 0 (workgroup 0), lane 27\n  0x0018 <here>: vaddi.u32 v3, v3, 1\n"
    );
    // Inactive lanes never satisfy a condition.
    let mut e = engine(COND);
    run(&mut e, "break here if v3 > 100");
    let (text, _) = stop(&mut e, "c");
    assert!(
        text.starts_with("Breakpoint 1, wave 0 (workgroup 0), lanes 26-27\n"),
        "{text}"
    );
}

#[test]
fn condition_error_is_reported_as_such() {
    let mut e = engine(COND);
    run(&mut e, "break here if v3 / (lane - lane)");
    let (text, s) = stop(&mut e, "c");
    assert!(matches!(s.reason, StopReason::ConditionError { id: 1, .. }));
    assert!(
        text.starts_with("Error in condition of 1: division by zero"),
        "{text}"
    );
    assert!(text.contains("stopped, wave 0 (workgroup 0)\n  0x0018 <here>: vaddi.u32 v3, v3, 1"));
    run(&mut e, "condition 1 lane == 3");
    // Resuming steps over the breakpoint at the current PC (as gdb does): start again.
    run(&mut e, "restart");
    let (text, _) = stop(&mut e, "c");
    assert!(
        text.starts_with("Breakpoint 1, wave 0 (workgroup 0), lane 3\n"),
        "{text}"
    );
}

#[test]
fn breakpoint_filters_in_commands() {
    let mut e = engine(LOOP);
    run(&mut e, "break loop wave 2");
    for k in 0..3 {
        let (text, s) = stop(&mut e, "c");
        assert!(
            text.starts_with("Breakpoint 1, wave 2 (workgroup 1), lanes 0-31\n"),
            "{text}"
        );
        assert_eq!(s.wave_id, Some(2));
        assert_eq!(run(&mut e, "p v1[0]"), format!("v1[0] = {k}\n"));
        // The stop selected wave 2.
        assert!(run(&mut e, "info waves").contains("*    2   1    0  ready        0x0024 <loop>"));
    }
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);

    let mut e = engine(LOOP);
    run(&mut e, "break after workgroup 1 lane 5");
    run(&mut e, "break store if v3 == 7 workgroup 0");
    let mut seen = Vec::new();
    loop {
        let (text, s) = stop(&mut e, "c");
        if s.reason == StopReason::Finished {
            break;
        }
        seen.push(text.lines().next().unwrap().to_string());
    }
    assert_eq!(
        seen,
        vec![
            "Breakpoint 2, wave 0 (workgroup 0), lane 1",
            "Breakpoint 2, wave 1 (workgroup 0), lane 1",
            "Breakpoint 1, wave 2 (workgroup 1), lane 5",
            "Breakpoint 1, wave 3 (workgroup 1), lane 5",
        ]
    );
}

#[test]
fn ignore_counts_and_hit_counts_in_info_breakpoints() {
    let mut e = one_wave_loop();
    run(&mut e, "break loop");
    assert_eq!(
        run(&mut e, "ignore 1 2"),
        "Will ignore next 2 crossings of breakpoint 1.\n"
    );
    assert_eq!(
        run(&mut e, "info breakpoints"),
        "\
Num  Type            Disp  Enb  Address          What
1    breakpoint      keep  y    0x0024           0x0024 <loop>
        will ignore next 2 crossings
"
    );
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with("Breakpoint 1, wave 0 (workgroup 0), lanes 0-31\n"));
    assert_eq!(run(&mut e, "p v1[0]"), "v1[0] = 2\n", "the third crossing");
    assert_eq!(
        run(&mut e, "info breakpoints"),
        "\
Num  Type            Disp  Enb  Address          What
1    breakpoint      keep  y    0x0024           0x0024 <loop>
        breakpoint already hit 3 times
"
    );
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
    run(&mut e, "restart");
    run(&mut e, "ignore 1 1");
    stop(&mut e, "c");
    assert_eq!(run(&mut e, "p v1[0]"), "v1[0] = 1\n");
}

#[test]
fn tbreak_is_deleted_after_its_hit() {
    let mut e = one_wave_loop();
    assert_eq!(
        run(&mut e, "tbreak loop"),
        "Temporary breakpoint 1 at 0x0024 <loop>\n"
    );
    assert!(run(&mut e, "info breakpoints").contains("1    breakpoint      del   y"));
    let (text, _) = stop(&mut e, "c");
    // As gdb says it: the stop of a temporary breakpoint names it so.
    assert!(
        text.starts_with("Temporary breakpoint 1, wave 0 (workgroup 0), lanes 0-31\n"),
        "{text}"
    );
    assert!(run(&mut e, "why").starts_with("Temporary breakpoint 1, "));
    assert_eq!(
        run(&mut e, "info breakpoints"),
        "No breakpoints or watchpoints.\n"
    );
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
    fails_with_usage(&mut e, "delete 1", "no breakpoint or watchpoint number 1");
}

#[test]
fn disable_enable_delete() {
    let mut e = one_wave_loop();
    run(&mut e, "break loop");
    run(&mut e, "break after");
    assert_eq!(run(&mut e, "disable 1"), "");
    assert!(run(&mut e, "info breakpoints").contains("1    breakpoint      keep  n    0x0024"));
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with("Breakpoint 2,"), "{text}");
    run(&mut e, "restart");
    assert_eq!(run(&mut e, "enable 1"), "");
    assert!(run(&mut e, "info breakpoints").contains("1    breakpoint      keep  y    0x0024"));
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with("Breakpoint 1,"), "{text}");
    assert_eq!(run(&mut e, "d 1"), "");
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with("Breakpoint 2,"), "{text}");
    run(&mut e, "watch 0x100000000");
    run(&mut e, "disable 3");
    assert!(run(&mut e, "info watchpoints").contains("3    hw watchpoint   keep  n "));
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
    run(&mut e, "restart");
    run(&mut e, "enable 3");
    run(&mut e, "delete 2");
    let (_, s) = stop(&mut e, "c");
    assert!(matches!(s.reason, StopReason::Watchpoint(_)));
    run(&mut e, "delete");
    assert_eq!(
        run(&mut e, "info breakpoints"),
        "No breakpoints or watchpoints.\n"
    );
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
}

#[test]
fn condition_command_sets_and_removes_conditions() {
    let mut e = one_wave_loop();
    run(&mut e, "break loop");
    assert_eq!(run(&mut e, "condition 1 v1 == 2"), "");
    assert!(run(&mut e, "info breakpoints").contains("        stop only if v1 == 2\n"));
    stop(&mut e, "c");
    assert_eq!(run(&mut e, "p v1[0]"), "v1[0] = 2\n");
    run(&mut e, "restart");
    run(&mut e, "condition 1");
    assert!(!run(&mut e, "info breakpoints").contains("stop only if"));
    stop(&mut e, "c");
    assert_eq!(run(&mut e, "p v1[0]"), "v1[0] = 0\n");
    fails_with_usage(&mut e, "condition 1 v1 ==", "bad condition `v1 ==`");
}

#[test]
fn continue_from_a_breakpoint_hits_it_again_next_iteration() {
    let mut e = one_wave_loop();
    run(&mut e, "break loop");
    for k in 0..3 {
        let (text, s) = stop(&mut e, "continue");
        assert!(text.starts_with("Breakpoint 1, wave 0 (workgroup 0), lanes 0-31\n  0x0024 <loop>"));
        assert_eq!(s.instructions, 6 + 4 * k);
        assert_eq!(run(&mut e, "p v1[0]"), format!("v1[0] = {k}\n"));
    }
    assert_eq!(stop(&mut e, "continue").1.reason, StopReason::Finished);
}

#[test]
fn brk_stops_and_continue_goes_on() {
    let mut e = engine(BRK);
    let (text, s) = stop(&mut e, "c");
    assert_eq!(s.reason, StopReason::BreakInstruction);
    assert_eq!(
        text,
        "Break instruction (brk), wave 0 (workgroup 0)\n  0x000c <after_brk>: vmovi v1, 6\n"
    );
    assert_eq!(run(&mut e, "p v1[0]"), "v1[0] = 5\n");
    let (text, s) = stop(&mut e, "c");
    assert_eq!(s.reason, StopReason::Finished);
    assert_eq!(
        text,
        "All waves exited (4 wave-instructions, 128 lane-ops).\n"
    );
    assert_eq!(run(&mut e, "p v1[0]"), "v1[0] = 6\n");
}

#[test]
fn breakpoint_filters_are_confirmed_and_may_come_before_the_condition() {
    let mut e = engine(LOOP);
    assert_eq!(
        run(&mut e, "break loop wave 3 lane 5"),
        "Breakpoint 1 at 0x0024 <loop>, wave 3, lane 5\n"
    );
    // gdb's order (`break LOC thread N if COND`) and ours give the same breakpoint.
    assert_eq!(
        run(&mut e, "tbreak after workgroup 1 if v1 > 2"),
        "Temporary breakpoint 2 at 0x0040 <after>, workgroup 1 if v1 > 2\n"
    );
    assert_eq!(
        run(&mut e, "break after lane 2 if v1 > 2 wave 1"),
        "Note: breakpoint 2 also set at pc 0x0040.\n\
         Breakpoint 3 at 0x0040 <after>, wave 1, lane 2 if v1 > 2\n"
    );
    fails_with_usage(
        &mut e,
        "break after wave 1 if v1 > 2 wave 2",
        "`wave` is given twice",
    );
    fails_with_usage(&mut e, "break after lane 1 lane 2", "`lane` is given twice");
    fails_with_usage(
        &mut e,
        "tbreak after wave 1 wave 1",
        "`wave` is given twice",
    );
    let mut e = engine(WRITERS);
    assert_eq!(
        run(&mut e, "watch shared:0 workgroup 1 if v4 > 0"),
        "Hardware watchpoint 1: shared:0x0 (workgroup 1), 4 bytes\n"
    );
    // With the source, the file and line too.
    let mut e = loop_with_source();
    assert_eq!(
        run(&mut e, "break loop lane 4"),
        format!(
            "Breakpoint 1 at 0x0024 <loop> (loop.s:{}), lane 4\n",
            line_of(LOOP, "vaddi.u32 v1, v1, 1")
        )
    );
}

#[test]
fn info_breakpoints_lists_breakpoints_and_watchpoints_by_number() {
    let mut e = engine(WRITERS);
    run(&mut e, "watch out 4");
    run(&mut e, "break store");
    run(&mut e, "awatch shared:0");
    run(&mut e, "tbreak gstore");
    run(&mut e, "ignore 2 1");
    let table = run(&mut e, "info breakpoints");
    let numbers: Vec<&str> = table
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(numbers, ["1", "2", "3", "4"], "{table}");
    assert!(
        table.contains("        will ignore next 1 crossing\n"),
        "{table}"
    );
    assert_eq!(
        run(&mut e, "info watchpoints")
            .lines()
            .filter(|l| !l.starts_with(' '))
            .count(),
        3
    );
    // Counts agree with their nouns.
    assert_eq!(
        run(&mut e, "ignore 2 1"),
        "Will ignore next 1 crossing of breakpoint 2.\n"
    );
    assert_eq!(
        run(&mut e, "ignore 2 3"),
        "Will ignore next 3 crossings of breakpoint 2.\n"
    );
    let mut e = one_wave_loop();
    assert_eq!(
        run(&mut e, "restart"),
        "Restarted: 1 wave resident, all at 0x0000.\n"
    );
    let mut e = engine(LOOP);
    assert_eq!(
        run(&mut e, "restart"),
        "Restarted: 4 waves resident, all at 0x0000.\n"
    );
}

#[test]
fn breakpoints_at_labels_addresses_and_offsets() {
    for (location, expect) in [
        ("loop", 0x24),
        ("loop+8", 0x2c),
        ("loop + 16", 0x34),
        ("0x40", 0x40),
        ("*0x3c", 0x3c),
        ("64", 0x40),
        ("after+0x8", 0x48),
    ] {
        let mut e = one_wave_loop();
        let id = e
            .add_breakpoint(&loc(location), None, Filters::default(), false)
            .unwrap();
        assert_eq!(e.breakpoints()[0].addr(), expect, "{location}");
        assert_eq!(e.breakpoints()[0].location, loc(location));
        let stop = e.continue_all();
        assert_eq!(breakpoint_of(&stop), (id, u32::MAX), "{location}");
        assert_eq!(stop.pc, Some(expect));
        assert_eq!(
            e.machine().waves[0].pc,
            expect,
            "stopped before executing it"
        );
    }
    let e = one_wave_loop();
    assert_eq!(e.resolve_location(&loc("after")).unwrap(), 0x40);
}

#[test]
fn bad_breakpoint_locations_are_rejected() {
    let mut e = one_wave_loop();
    let no_label = e
        .add_breakpoint(&loc("nowhere"), None, Filters::default(), false)
        .unwrap_err()
        .to_string();
    assert!(no_label.contains("no label `nowhere`"), "{no_label}");
    assert!(no_label.contains("loop"), "lists the labels: {no_label}");
    // 0x10 is the second word of the 64-bit vmuli at 0x0c.
    let inside = e
        .add_breakpoint(&loc("0x10"), None, Filters::default(), false)
        .unwrap_err()
        .to_string();
    assert!(
        inside.contains("not the start of an instruction"),
        "{inside}"
    );
    let past = e
        .add_breakpoint(&loc("0x10000"), None, Filters::default(), false)
        .unwrap_err()
        .to_string();
    assert!(
        past.contains("0x10000 is outside the kernel's code"),
        "{past}"
    );
    // A condition is parsed before it reaches the engine.
    let cond = ParsedExpr::parse("v3 >").unwrap_err().to_string();
    assert!(cond.contains("expected"), "{cond}");
    let lane = e
        .add_breakpoint(
            &loc("loop"),
            None,
            Filters {
                lane: Some(32),
                ..Default::default()
            },
            false,
        )
        .unwrap_err()
        .to_string();
    assert!(lane.contains("lane 32 out of range"), "{lane}");
    assert!(e.breakpoints().is_empty());
}

#[test]
fn per_lane_condition_reports_exactly_the_satisfying_lanes() {
    let mut e = one_wave_loop();
    let id = e
        .add_breakpoint(
            &loc("loop"),
            Some(cond("v3 > 100")),
            Filters::default(),
            false,
        )
        .unwrap();
    // Iteration k (0-based) arrives with v3 = 4 * lane + k.
    let s1 = e.continue_all();
    assert_eq!(breakpoint_of(&s1), (id, lanes(26..32)));
    assert_eq!(e.machine().waves[0].v[1][0], 0);
    // The lane selection follows the stop to a lane that satisfied the condition.
    assert_eq!(e.selected_lane, 26);
    let s2 = e.continue_all();
    assert_eq!(breakpoint_of(&s2), (id, lanes(25..32)));
    assert_eq!(e.machine().waves[0].v[1][0], 1);
    let s3 = e.continue_all();
    assert_eq!(breakpoint_of(&s3), (id, lanes(25..32)));
    assert_eq!(e.machine().waves[0].v[1][0], 2);
    finish_all(&mut e);
    assert_eq!(e.breakpoints()[0].hits, 3);
}

#[test]
fn per_lane_condition_ignores_inactive_lanes() {
    let mut e = engine(COND);
    // v3 = 4 * lane: lanes 26-31 exceed 100, but 28-31 are inactive.
    let id = e
        .add_breakpoint(
            &loc("here"),
            Some(cond("v3 > 100")),
            Filters::default(),
            false,
        )
        .unwrap();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop), (id, lanes([26, 27])));
    assert_eq!(e.machine().waves[0].exec, 0x0fff_ffff);
    finish_all(&mut e);

    // Only inactive lanes satisfy it: no stop.
    let mut e = engine(COND);
    e.add_breakpoint(
        &loc("here"),
        Some(cond("v3 >= 112")),
        Filters::default(),
        false,
    )
    .unwrap();
    finish_all(&mut e);
    assert_eq!(e.breakpoints()[0].hits, 0);

    // `lane` and s32() in conditions.
    let mut e = engine(COND);
    let id = e
        .add_breakpoint(
            &loc("here"),
            Some(cond(
                "lane == 3 || lane == 30 || s32(v3 - 41) < 0 && lane > 8",
            )),
            Filters::default(),
            false,
        )
        .unwrap();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop), (id, lanes([3, 9, 10])));

    // A condition that does not depend on the lane stops with the active lanes.
    let mut e = engine(COND);
    let id = e
        .add_breakpoint(
            &loc("here"),
            Some(cond("u7 != 0")),
            Filters::default(),
            false,
        )
        .unwrap();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop), (id, 0x0fff_ffff));
}

#[test]
fn condition_errors_stop_with_the_message() {
    let mut e = engine(COND);
    let id = e
        .add_breakpoint(
            &loc("here"),
            Some(cond("v3 / (lane - lane)")),
            Filters::default(),
            false,
        )
        .unwrap();
    let stop = e.continue_all();
    match &stop.reason {
        StopReason::ConditionError { id: got, message } => {
            assert_eq!(*got, id);
            assert!(message.contains("division by zero"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(stop.pc, Some(label(&e, "here")));
    // Fixing the condition and starting again stops on it (resuming in place steps over the
    // breakpoint at the current PC, as gdb does).
    e.set_condition(id, Some(cond("lane == 1"))).unwrap();
    e.restart();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop), (id, 0b10));
    e.set_condition(id, None).unwrap();
    assert!(e.breakpoints()[0].condition.is_none());
    assert!(e.set_condition(99, None).is_err());
    assert!(ParsedExpr::parse("((").is_err());
}

#[test]
fn wave_filter_stops_only_that_wave_once_per_iteration() {
    let mut e = engine(LOOP);
    let id = e
        .add_breakpoint(
            &loc("loop"),
            None,
            Filters {
                wave: Some(2),
                ..Default::default()
            },
            false,
        )
        .unwrap();
    for k in 0..3 {
        let stop = e.continue_all();
        assert_eq!(breakpoint_of(&stop), (id, u32::MAX));
        assert_eq!(stop.wave_id, Some(2));
        assert_eq!(stop.wave, Some(2));
        assert_eq!(e.selected_wave, 2, "the stop selects its wave");
        assert_eq!(e.machine().waves[2].v[1][0], k, "iteration {k}");
    }
    finish_all(&mut e);
    assert_eq!(e.breakpoints()[0].hits, 3);
}

#[test]
fn workgroup_filter_stops_only_its_waves() {
    let mut e = engine(LOOP);
    let id = e
        .add_breakpoint(
            &loc("after"),
            None,
            Filters {
                workgroup: Some(1),
                ..Default::default()
            },
            false,
        )
        .unwrap();
    let mut seen = Vec::new();
    loop {
        let stop = e.continue_all();
        if stop.reason == StopReason::Finished {
            break;
        }
        assert_eq!(breakpoint_of(&stop).0, id);
        seen.push(stop.wave_id.unwrap());
    }
    assert_eq!(seen, vec![2, 3]);
}

#[test]
fn lane_filter_evaluates_the_condition_on_that_lane_only() {
    let mut e = one_wave_loop();
    let id = e
        .add_breakpoint(
            &loc("loop"),
            Some(cond("v3 > 100")),
            Filters {
                lane: Some(30),
                ..Default::default()
            },
            false,
        )
        .unwrap();
    e.select_lane(4).unwrap();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop), (id, 1 << 30));
    // A lane filter does not move the lane selection.
    assert_eq!(e.selected_lane, 4);

    let mut e = one_wave_loop();
    e.add_breakpoint(
        &loc("loop"),
        Some(cond("v3 > 100")),
        Filters {
            lane: Some(5),
            ..Default::default()
        },
        false,
    )
    .unwrap();
    finish_all(&mut e);

    // An inactive lane never stops.
    let mut e = engine(COND);
    e.add_breakpoint(
        &loc("here"),
        None,
        Filters {
            lane: Some(30),
            ..Default::default()
        },
        false,
    )
    .unwrap();
    finish_all(&mut e);
    let mut e = engine(COND);
    let id = e
        .add_breakpoint(
            &loc("here"),
            None,
            Filters {
                lane: Some(27),
                ..Default::default()
            },
            false,
        )
        .unwrap();
    assert_eq!(breakpoint_of(&e.continue_all()), (id, 1 << 27));
}

#[test]
fn filters_combine() {
    let mut e = engine(LOOP);
    let id = e
        .add_breakpoint(
            &loc("loop"),
            Some(cond("v1 == 1")),
            Filters {
                wave: Some(3),
                workgroup: Some(1),
                lane: Some(7),
            },
            false,
        )
        .unwrap();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop), (id, 1 << 7));
    assert_eq!(stop.wave_id, Some(3));
    assert_eq!(e.machine().waves[3].v[1][7], 1);
    finish_all(&mut e);

    // Contradictory filters never stop.
    let mut e = engine(LOOP);
    e.add_breakpoint(
        &loc("loop"),
        None,
        Filters {
            wave: Some(0),
            workgroup: Some(1),
            lane: None,
        },
        false,
    )
    .unwrap();
    finish_all(&mut e);
}

#[test]
fn ignore_counts_skip_hits_and_hit_counts_include_them() {
    let mut e = one_wave_loop();
    let id = bp(&mut e, "loop");
    e.set_ignore(id, 2).unwrap();
    assert_eq!(e.breakpoints()[0].ignore, 2);
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop).0, id);
    assert_eq!(e.machine().waves[0].v[1][0], 2, "third crossing");
    assert_eq!(e.breakpoints()[0].hits, 3);
    assert_eq!(e.breakpoints()[0].ignore, 0);
    finish_all(&mut e);
    assert!(e.set_ignore(42, 1).is_err());
}

#[test]
fn temporary_breakpoint_is_deleted_when_hit() {
    let mut e = one_wave_loop();
    let id = e
        .add_breakpoint(&loc("loop"), None, Filters::default(), true)
        .unwrap();
    assert!(e.breakpoints()[0].temporary);
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop).0, id);
    assert!(e.breakpoints().is_empty());
    finish_all(&mut e);
    assert!(e.delete(Some(id)).is_err(), "already gone");
}

#[test]
fn temporary_breakpoint_with_a_filter_survives_other_waves() {
    let mut e = engine(LOOP);
    let id = e
        .add_breakpoint(
            &loc("after"),
            None,
            Filters {
                wave: Some(1),
                ..Default::default()
            },
            true,
        )
        .unwrap();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop).0, id);
    assert_eq!(stop.wave_id, Some(1));
    assert!(e.breakpoints().is_empty());
    finish_all(&mut e);
}

#[test]
fn disable_enable_and_delete() {
    let mut e = one_wave_loop();
    let a = bp(&mut e, "loop");
    let b = bp(&mut e, "after");
    assert_ne!(a, b);
    e.set_enabled(a, false).unwrap();
    assert!(!e.breakpoints()[0].enabled);
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop).0, b, "the disabled one is skipped");
    finish_all(&mut e);

    e.restart();
    e.set_enabled(a, true).unwrap();
    assert_eq!(breakpoint_of(&e.continue_all()).0, a);
    e.delete(Some(a)).unwrap();
    assert_eq!(breakpoint_of(&e.continue_all()).0, b);
    finish_all(&mut e);

    e.restart();
    let w = e
        .add_watchpoint(
            WatchKind::Write,
            Scope::Global,
            e.machine().buffer_base("out").unwrap(),
            4,
            None,
        )
        .unwrap();
    e.set_enabled(w, false).unwrap();
    assert!(!e.watchpoints()[0].enabled);
    assert_eq!(breakpoint_of(&e.continue_all()).0, b);
    e.set_enabled(w, true).unwrap();
    assert!(matches!(e.continue_all().reason, StopReason::Watchpoint(_)));
    // Delete everything.
    e.restart();
    e.delete(None).unwrap();
    assert!(e.breakpoints().is_empty() && e.watchpoints().is_empty());
    finish_all(&mut e);
    assert!(e.set_enabled(a, true).is_err());
    assert!(e.delete(Some(a)).is_err());
}

#[test]
fn continuing_from_a_breakpoint_does_not_rehit_it_but_the_next_iteration_does() {
    let mut e = one_wave_loop();
    let id = bp(&mut e, "loop");
    let first = e.continue_all();
    assert_eq!(breakpoint_of(&first).0, id);
    assert_eq!(first.instructions, 6);
    let second = e.continue_all();
    assert_eq!(breakpoint_of(&second).0, id);
    assert_eq!(second.instructions, 10, "one full iteration ran");
    assert_eq!(e.machine().waves[0].v[1][0], 1);
    // Stepping off the breakpoint also steps over it.
    let step = e.step(1);
    assert_eq!(step.reason, StopReason::Step);
    assert_eq!(step.pc, Some(label(&e, "loop") + 8));
    let third = e.continue_all();
    assert_eq!(breakpoint_of(&third).0, id);
    assert_eq!(third.instructions, 14);
    finish_all(&mut e);
    assert_eq!(e.breakpoints()[0].hits, 3);
}

#[test]
fn another_wave_standing_on_the_breakpoint_still_hits_it() {
    let mut e = engine(LOOP);
    let id = bp(&mut e, "after");
    let mut waves = Vec::new();
    loop {
        let stop = e.continue_all();
        if stop.reason == StopReason::Finished {
            break;
        }
        assert_eq!(breakpoint_of(&stop).0, id);
        waves.push(stop.wave_id.unwrap());
    }
    assert_eq!(waves, vec![0, 1, 2, 3]);
}

#[test]
fn brk_instruction_stops_and_continuing_goes_on() {
    let mut e = engine(BRK);
    let after = label(&e, "after_brk");
    let stop = e.continue_all();
    assert_eq!(stop.reason, StopReason::BreakInstruction);
    assert!(!stop.is_terminal());
    assert_eq!(stop.wave, Some(0));
    assert_eq!(stop.pc, Some(after), "the PC is past the brk");
    assert_eq!(e.machine().waves[0].pc, after);
    assert_eq!(e.machine().waves[0].v[1], [5; 32]);
    assert_eq!(e.machine().waves[0].state, WaveState::Ready);
    finish_all(&mut e);
    assert_eq!(e.machine().waves[0].v[1], [6; 32]);

    // Stepping onto and over it.
    let mut e = engine(BRK);
    assert_eq!(e.step(1).reason, StopReason::Step);
    let stop = e.step(1);
    assert_eq!(stop.reason, StopReason::BreakInstruction);
    assert_eq!(stop.pc, Some(after));
    assert_eq!(e.step(1).reason, StopReason::Step);
    assert_eq!(e.machine().waves[0].v[1], [6; 32]);
}

#[test]
fn breakpoint_and_watchpoint_numbers_are_shared() {
    let mut e = engine(WRITERS);
    let a = bp(&mut e, "store");
    let b = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(None), 0, 4, None)
        .unwrap();
    let c = bp(&mut e, "gstore");
    assert_eq!((a, b, c), (1, 2, 3));
    e.delete(Some(b)).unwrap();
    assert!(e.watchpoints().is_empty());
    assert_eq!(bp(&mut e, "store"), 4);
}

/// gdb steps over a breakpoint at the PC a thread is stopped at whenever it resumes it,
/// however it got there. Here only a *reported* breakpoint is stepped over: after
/// `stepi` lands on a breakpoint address, `continue` reports that breakpoint at once,
/// without executing anything.
#[test]
fn continue_after_stepping_onto_a_breakpoint_makes_progress() {
    let mut e = one_wave_loop();
    let id = bp(&mut e, "loop");
    let s = e.step(6);
    assert_eq!(s.pc, Some(label(&e, "loop")));
    let s = e.continue_all();
    assert!(s.instructions > 6, "continue executed nothing: {s:?}");
    // It stops at the breakpoint on the next iteration.
    assert_eq!(breakpoint_of(&s).0, id);
    assert_eq!(e.machine().waves[0].v[1][0], 1);
}

/// Likewise after a condition error: once reported, resuming must get past it (the user
/// fixes the condition later); here every `continue` reports the same error in place.
#[test]
fn continue_after_a_condition_error_makes_progress() {
    let mut e = engine(COND);
    e.add_breakpoint(
        &loc("here"),
        Some(cond("1 / (lane - lane)")),
        Filters::default(),
        false,
    )
    .unwrap();
    let s = e.continue_all();
    assert!(matches!(s.reason, StopReason::ConditionError { .. }));
    let s = e.continue_all();
    assert_eq!(s.reason, StopReason::Finished, "{s:?}");
}

/// gdb resets hit counts when the program is run again (`run` clears them); `restart`
/// keeps the counts of the previous launch.
#[test]
fn restart_resets_hit_counts() {
    let mut e = one_wave_loop();
    bp(&mut e, "loop");
    let out = e.machine().buffer_base("out").unwrap();
    e.add_watchpoint(WatchKind::Write, Scope::Global, out, 4, None)
        .unwrap();
    while !e.continue_all().is_terminal() {}
    assert_eq!(e.breakpoints()[0].hits, 3);
    assert_eq!(e.watchpoints()[0].hits, 1);
    e.restart();
    assert_eq!(e.breakpoints()[0].hits, 0);
    assert_eq!(e.watchpoints()[0].hits, 0);
}

/// The machine pre-filters breakpoint marks by wave and workgroup (so a breakpoint other
/// waves pass costs no event): filters still select exactly the waves they name, a filter
/// naming a wave or workgroup outside the launch is refused, and an
/// unfiltered breakpoint at the same address still stops every wave.
#[test]
fn wave_and_workgroup_filters_select_exactly_their_waves() {
    let mut e = engine(LOOP);
    let only = |wave: Option<u32>, workgroup: Option<u32>| Filters {
        wave,
        workgroup,
        ..Default::default()
    };
    // A filter naming a wave or workgroup outside the launch is refused.
    assert!(e
        .add_breakpoint(&loc("loop"), None, only(Some(1_000), None), false)
        .is_err());
    assert!(e
        .add_breakpoint(&loc("loop"), None, only(None, Some(7)), false)
        .is_err());
    let w3 = e
        .add_breakpoint(&loc("loop"), None, only(Some(3), Some(1)), false)
        .unwrap();
    let s = e.continue_all();
    assert_eq!(breakpoint_of(&s).0, w3);
    assert_eq!(s.wave_id, Some(3));
    // Wave 3 is in workgroup 1: a filter pair that cannot both match never stops.
    e.delete(Some(w3)).unwrap();
    let mismatch = e
        .add_breakpoint(&loc("loop"), None, only(Some(3), Some(0)), false)
        .unwrap();
    let end = e.continue_all();
    assert_eq!(end.reason, StopReason::Finished, "{end:?}");
    let b = e.breakpoints().iter().find(|b| b.id == mismatch).unwrap();
    assert_eq!(b.hits, 0, "breakpoint {mismatch}");
    e.restart();
    let any = e
        .add_breakpoint(&loc("loop"), None, Filters::default(), false)
        .unwrap();
    let mut waves = std::collections::BTreeSet::new();
    for _ in 0..4 {
        let s = e.continue_all();
        assert_eq!(breakpoint_of(&s).0, any);
        waves.insert(s.wave_id.unwrap());
    }
    assert_eq!(
        waves.len(),
        4,
        "every wave stops at an unfiltered breakpoint"
    );
}

/// A wave reaches a breakpoint whatever its EXEC: with no lane active it stops all the
/// same, and says so (not an empty lane list); a condition, evaluated in active lanes
/// only, never holds there.
#[test]
fn a_breakpoint_reached_with_no_active_lane_says_so() {
    let src = "\
.kernel z
    umovi u1, 0
    exec.set u1
here:
    vmovi v1, 5
    end
";
    let mut e = engine(src);
    run(&mut e, "break here");
    let (text, s) = stop(&mut e, "c");
    assert!(
        matches!(s.reason, StopReason::Breakpoint { lanes: 0, .. }),
        "{s:?}"
    );
    assert!(
        text.starts_with("Breakpoint 1, wave 0 (workgroup 0), no active lanes (EXEC is 0)"),
        "{text}"
    );
    let mut e = engine(src);
    run(&mut e, "break here if v1 == 0");
    let (_, s) = stop(&mut e, "c");
    assert_eq!(s.reason, StopReason::Finished);
}

/// As in gdb, `delete`, `disable`, `enable` and `undisplay` take lists and ranges, and
/// every one without any; a number that names nothing is reported while the others are
/// still done, and refused (nothing changed) when none names anything.
#[test]
fn point_commands_take_lists_and_ranges() {
    let mut e = one_wave_loop();
    for _ in 0..6 {
        run(&mut e, "break loop");
    }
    let enabled = |e: &mut Engine| -> String {
        run(e, "info breakpoints")
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                (f.get(1) == Some(&"breakpoint")).then(|| format!("{}{}", f[0], f[3]))
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(run(&mut e, "disable 1 3-4"), "");
    assert_eq!(enabled(&mut e), "1n 2y 3n 4n 5y 6y");
    assert_eq!(run(&mut e, "enable breakpoints 3"), "");
    assert_eq!(enabled(&mut e), "1n 2y 3y 4n 5y 6y");
    assert_eq!(run(&mut e, "disable"), "");
    assert_eq!(enabled(&mut e), "1n 2n 3n 4n 5n 6n");
    assert_eq!(run(&mut e, "enable"), "");
    assert_eq!(enabled(&mut e), "1y 2y 3y 4y 5y 6y");
    // Some named, some not: done, and said.
    assert_eq!(
        run(&mut e, "delete 2 9 5-6 20-30"),
        "No breakpoint or watchpoint numbered 9, 20-30.\n"
    );
    assert_eq!(enabled(&mut e), "1y 3y 4y");
    // None named: refused.
    fails_with_usage(&mut e, "delete 9", "no breakpoint or watchpoint number 9");
    fails_with_usage(
        &mut e,
        "disable 7-8",
        "no breakpoint or watchpoint numbered 7-8",
    );
    fails_with_usage(&mut e, "delete 4-3", "inverted range `4-3`");
    fails_with_usage(&mut e, "delete 1 x", "`x` is not a number");
    assert_eq!(enabled(&mut e), "1y 3y 4y");
    assert_eq!(run(&mut e, "delete breakpoints 1 3"), "");
    assert_eq!(enabled(&mut e), "4y");
    assert_eq!(run(&mut e, "delete breakpoints"), "");
    assert_eq!(
        run(&mut e, "info breakpoints"),
        "No breakpoints or watchpoints.\n"
    );

    for x in ["v1", "v2", "v3", "u4"] {
        run(&mut e, &format!("display {x}"));
    }
    assert_eq!(run(&mut e, "undisplay 1 3-3 7"), "No display number 7.\n");
    let shown = run(&mut e, "info display");
    assert!(shown.contains("v2") && shown.contains("u4"), "{shown}");
    assert!(!shown.contains("v1") && !shown.contains("v3"), "{shown}");
    fails_with_usage(&mut e, "undisplay 5", "no display number 5");
    assert_eq!(run(&mut e, "undisplay"), "");
    assert!(!run(&mut e, "info display").contains("u4"));
}

/// A `wave` or `workgroup` filter the launch does not have could never match: refused
/// with the launch's range, as gdb refuses `break L thread N` for an unknown thread (it
/// was set and never hit). A wave of the launch not resident yet is one it has.
#[test]
fn a_filter_outside_the_launch_is_refused_with_its_range() {
    let mut e = engine_with(
        LOOP,
        LaunchOptions {
            grid: Some(4),
            workgroup_lanes: Some(32),
            resident_workgroups: 2,
            ..Default::default()
        },
    );
    let err = fail(&mut e, "break loop wave 99999");
    assert_eq!(err.message(), "wave 99999 is not in the launch (0-3)");
    let err = fail(&mut e, "tbreak loop workgroup 4");
    assert_eq!(err.message(), "workgroup 4 is not in the grid (0-3)");
    assert!(run(&mut e, "info breakpoints").contains("No breakpoints"));

    // Wave 3 is not resident at the start (two of four workgroups are), but will come.
    let text = run(&mut e, "break loop wave 3");
    assert!(text.contains("wave 3"), "{text}");
    let (_, at) = stop(&mut e, "continue");
    assert_eq!(at.wave_id, Some(3), "{at:?}");
}

/// A breakpoint on the first instruction stops the selected wave there when nothing has
/// run yet (as gdb's `run` stops at a breakpoint on the entry point), by `run` and by
/// `continue` alike; resuming from that stop steps over it, as from every stop.
#[test]
fn a_breakpoint_on_the_first_instruction_stops_the_first_wave() {
    for first in ["run", "continue"] {
        let mut e = engine(LOOP);
        run(&mut e, "break 0");
        let (_, s) = stop(&mut e, first);
        assert_eq!(breakpoint_of(&s).0, 1, "{first}");
        assert_eq!((s.wave_id, s.pc), (Some(0), Some(0)), "{first}");
        assert_eq!(e.machine().stats.wave_instructions, 0, "{first}");
        // Resuming goes on to the next wave still at the breakpoint, not the same one.
        let (_, s) = stop(&mut e, "continue");
        assert_eq!((s.wave_id, s.pc), (Some(1), Some(0)), "{first}");
    }
    // A step from there executes the first instruction, as gdb's `stepi` after `starti`.
    for step in ["stepi", "next", "step"] {
        let mut e = engine(LOOP);
        run(&mut e, "break 0");
        let (_, s) = stop(&mut e, step);
        assert_eq!(s.wave_id, Some(0), "{step}");
        assert!(e.machine().stats.wave_instructions > 0, "{step}");
        assert!(
            !matches!(s.reason, StopReason::Breakpoint { .. }),
            "{step}: {s:?}"
        );
    }
    // After a restart the selected wave stops there again.
    let mut e = engine(LOOP);
    run(&mut e, "break 0");
    stop(&mut e, "run");
    let (_, s) = stop(&mut e, "run");
    assert_eq!((s.wave_id, s.pc), (Some(0), Some(0)));
}
