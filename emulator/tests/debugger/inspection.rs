//! Selecting waves and lanes, and inspecting and changing state: `print`, `x`,
//! `info registers`, `info changes`, `info buffers`, `info labels`, `set`, `disassemble`,
//! the resident window, the previous stop's state and change tracking.

use super::fixtures::*;

#[test]
fn wave_and_lane_selection() {
    let mut e = engine(COND);
    stop(&mut e, "si 4");
    assert_eq!(
        run(&mut e, "lane 3"),
        "[Switching to lane 3 of wave 0 (active)]\n"
    );
    assert_eq!(e.selected_lane, 3);
    assert_eq!(
        run(&mut e, "lane 30"),
        "[Switching to lane 30 of wave 0 (inactive)]\n"
    );
    let lanes = run(&mut e, "info lanes");
    assert!(
        lanes.starts_with("wave 0: EXEC = 0x0fffffff (28 active)\n"),
        "{lanes}"
    );
    assert!(lanes.contains("    27  active\n"), "{lanes}");
    assert!(lanes.contains("*   30  inactive\n"), "{lanes}");
    assert!(lanes.contains("    29  inactive\n"));
    assert_eq!(lanes.lines().count(), 34);

    let mut e = engine(LOOP);
    assert_eq!(
        run(&mut e, "wave 2"),
        "[Switching to wave 2 (workgroup 1), ready]\n  0x0000: uwgid u4\n"
    );
    assert_eq!(e.selected_wave, 2);
    assert_eq!(
        run(&mut e, "thread 3"),
        "[Switching to wave 3 (workgroup 1), ready]\n  0x0000: uwgid u4\n"
    );
    assert_eq!(run(&mut e, "p wave"), "wave = 3\n");
    fails_with_usage(
        &mut e,
        "wave 7",
        "no resident wave 7 (resident: 0, 1, 2, 3)",
    );
    assert_eq!(e.selected_wave, 3);
}

#[test]
fn print_a_vector_register_across_lanes() {
    let mut e = engine(COND);
    run(&mut e, "break here");
    stop(&mut e, "c");
    let text = run(&mut e, "print v3");
    assert!(
        text.starts_with("v3 (wave 0, EXEC 0x0fffffff):\n"),
        "{text}"
    );
    let c = cells(&text);
    let expect: Vec<String> = (0..32).map(|l| format!("{:#010x}", 4 * l)).collect();
    assert_eq!(values(&c), expect);
    assert_eq!(lane_set(&c, |c| c.inactive), vec![28, 29, 30, 31]);
    // Changed since the previous stop (the launch): every lane but 0, whose 0 stayed 0.
    assert_eq!(lane_set(&c, |c| c.changed), (1..32).collect::<Vec<_>>());
    // One step later only the active lanes changed, by one.
    stop(&mut e, "si");
    let c = cells(&run(&mut e, "p v3"));
    assert_eq!(lane_set(&c, |c| c.changed), (0..28).collect::<Vec<_>>());
    assert_eq!(c[0].value, "0x00000001");
    assert_eq!(c[28].value, "0x00000070");
    // Formats apply to every lane.
    let c = cells(&run(&mut e, "p/d v3"));
    assert_eq!(c[5].value, "21");
    assert_eq!(c[31].value, "124");
    let c = cells(&run(&mut e, "p/u v0"));
    assert_eq!(
        values(&c),
        (0..32).map(|l| l.to_string()).collect::<Vec<_>>()
    );
    assert!(c.iter().all(|c| !c.changed));
    // `info registers vN` is the same view.
    assert_eq!(run(&mut e, "info registers v3"), run(&mut e, "p v3"));
    // A per-lane expression is shown by lane, inactive lanes in parentheses.
    let text = run(&mut e, "print v3 * 2 + lane");
    assert!(text.starts_with("v3 * 2 + lane (by lane; inactive lanes in parentheses):\n"));
    let c = cells(&text);
    assert_eq!(
        values(&c),
        (0..32)
            .map(|l| (2 * (4 * l + u32::from(l < 28)) + l).to_string())
            .collect::<Vec<_>>()
    );
    assert_eq!(lane_set(&c, |c| c.inactive), vec![28, 29, 30, 31]);
}

#[test]
fn print_scalars_in_every_format() {
    let mut e = engine(COND);
    run(&mut e, "break here");
    stop(&mut e, "c");
    for (line, expect) in [
        ("p v3[5]", "v3[5] = 20"),
        ("p/x v3[5]", "v3[5] = 0x00000014"),
        ("p/d v3[5]", "v3[5] = 20"),
        ("p/u v3[5]", "v3[5] = 20"),
        ("p/t v3[5]", "v3[5] = 00000000000000000000000000010100"),
        ("p/o v3[5]", "v3[5] = 0o24"),
        ("p/c 65", "65 = 'A'"),
        ("p/f 0x3fc00000", "0x3fc00000 = 1.5"),
        ("p/f 0xc0490fdb", "0xc0490fdb = -3.1415927"),
        ("p/x -1", "-1 = 0xffffffff"),
        ("p/d 0xffffffff", "0xffffffff = -1"),
        ("p -5", "-5 = -5"),
        ("p s32(v3[0] - 100)", "s32(v3[0] - 100) = -100"),
        ("p u32(-1)", "u32(-1) = 4294967295"),
        ("p u7", "u7 = 268435455"),
        ("p/x u7", "u7 = 0x0fffffff"),
        ("p $u7 & 0xff", "$u7 & 0xff = 255"),
        ("p exec", "exec = 0x0fffffff (28 active: 0-27)"),
        ("p/x exec", "exec = 0x0fffffff"),
        ("p pc", "pc = 0x0018 <here>"),
        ("p/x pc", "pc = 0x00000018"),
        ("p here", "here = 0x0018 <here>"),
        ("p/d here", "here = 24"),
        ("p wave", "wave = 0"),
        ("p (1 + 2) * 3 << 1", "(1 + 2) * 3 << 1 = 18"),
        ("p 7 % 3 == 1 && !0", "7 % 3 == 1 && !0 = 1"),
        ("p ~0 ^ 0xf", "~0 ^ 0xf = -16"),
        ("p 0b101 | 0o10", "0b101 | 0o10 = 13"),
        (
            "p/x 0x1_0000_0000 + 1",
            "0x1_0000_0000 + 1 = 0x0000000100000001",
        ),
    ] {
        assert_eq!(run(&mut e, line), format!("{expect}\n"), "{line}");
    }
    // `lane` in print is the selected lane (issue: `p lane` printed all 32 lanes).
    run(&mut e, "lane 6");
    assert_eq!(
        run(&mut e, "p v3[lane]").lines().count(),
        1,
        "the selected lane"
    );
    assert_eq!(run(&mut e, "p lane"), "lane = 6\n");
    assert_eq!(
        run(&mut e, "expect v3 == 24").lines().next(),
        Some("expect ok: v3 == 24")
    );
}

#[test]
fn print_memory_of_each_space() {
    let mut e = engine(WRITERS);
    run(&mut e, "break after_gstore wave 0");
    stop(&mut e, "c");
    // shared:N reads the selected wave's workgroup.
    assert_eq!(run(&mut e, "p shared:0"), "shared:0 = 128\n");
    assert_eq!(run(&mut e, "p/x shared:12"), "shared:12 = 0x00000083\n");
    run(&mut e, "wave 2");
    assert_eq!(
        run(&mut e, "p shared:0"),
        "shared:0 = 328\n",
        "workgroup 1's window"
    );
    assert_eq!(
        run(&mut e, "p global:0x100000004"),
        "global:0x100000004 = 1\n"
    );
    assert_eq!(
        run(&mut e, "p global:(0x100000000 + 4 * 5)"),
        "global:(0x100000000 + 4 * 5) = 5\n"
    );

    let mut e = engine(SPILL_ONCE);
    run(&mut e, "break after_spill wave 1");
    stop(&mut e, "c");
    let text = run(&mut e, "p scratch:8");
    assert!(text.starts_with("scratch:8 (by lane; inactive lanes in parentheses):\n"));
    let c = cells(&text);
    assert_eq!(
        values(&c),
        (0..32).map(|l| (100 + l).to_string()).collect::<Vec<_>>()
    );
}

#[test]
fn examine_memory_in_each_space() {
    let mut e = engine(WRITERS);
    run(&mut e, "break after_gstore wave 0");
    stop(&mut e, "c");
    assert_eq!(
        run(&mut e, "x/4xw shared:0"),
        "shared:0x0: 0x00000080 0x00000081 0x00000082 0x00000083\n"
    );
    assert_eq!(
        run(&mut e, "x/4dw shared:0"),
        "shared:0x0: 128 129 130 131\n"
    );
    assert_eq!(
        run(&mut e, "x/8xb shared:0"),
        "shared:0x0: 0x80 0x00 0x00 0x00 0x81 0x00 0x00 0x00\n"
    );
    assert_eq!(run(&mut e, "x/2xh shared:4"), "shared:0x4: 0x0081 0x0000\n");
    assert_eq!(
        run(&mut e, "x/2xg shared:0"),
        "shared:0x0: 0x0000008100000080 0x0000008300000082\n"
    );
    assert_eq!(run(&mut e, "x/db shared:0"), "shared:0x0: -128\n");
    assert_eq!(run(&mut e, "x/ub shared:0"), "shared:0x0: 128\n");
    assert_eq!(run(&mut e, "x/tb shared:0"), "shared:0x0: 10000000\n");
    assert_eq!(run(&mut e, "x/ob shared:0"), "shared:0x0: 0o200\n");
    assert_eq!(run(&mut e, "x shared:0"), "shared:0x0: 0x00000080\n");
    assert_eq!(
        run(&mut e, "x/4xw global:0x100000000"),
        "global:0x100000000: 0x00000000 0x00000001 0x00000002 0x00000003\n"
    );
    // Rows of 16 bytes, addressed.
    assert_eq!(
        run(&mut e, "x/6xw global:0x100000000"),
        "global:0x100000000: 0x00000000 0x00000001 0x00000002 0x00000003\nglobal:0x100000010: 0x00000004 0x00000005\n"
    );
    assert_eq!(
        run(&mut e, "x/2xw 0x100000000 + 4 * 2"),
        "global:0x100000008: 0x00000002 0x00000003\n"
    );
    // Memory and values written by the debugger.
    run(&mut e, "set global:0x100000100 = 0x44434241");
    assert_eq!(
        run(&mut e, "x/4cb 0x100000100"),
        "global:0x100000100: 'A' 'B' 'C' 'D'\n"
    );
    run(&mut e, "set global:0x100000104 = 0x3fc00000");
    assert_eq!(run(&mut e, "x/fw 0x100000104"), "global:0x100000104: 1.5\n");

    let mut e = engine(SPILL_ONCE);
    run(&mut e, "break after_spill wave 1");
    stop(&mut e, "c");
    run(&mut e, "lane 9");
    assert_eq!(
        run(&mut e, "x/4xw scratch:0"),
        "scratch:0x0: 0x00000000 0x00000000 0x0000006d 0x00000000\n"
    );
    assert_eq!(run(&mut e, "x/4dw scratch:0"), "scratch:0x0: 0 0 109 0\n");
    fails_with_usage(&mut e, "x/5xw scratch:0", "outside the 16-byte window");
}

#[test]
fn info_registers_shows_counters_and_outstanding_registers() {
    let mut e = engine(ATOMIC);
    run(&mut e, "break after_load");
    stop(&mut e, "c");
    let regs = run(&mut e, "info registers");
    let lines: Vec<&str> = regs.lines().collect();
    assert_eq!(lines[0], "wave 0 (workgroup 0, index 0), ready");
    assert_eq!(lines[1], "  pc   0x0024 <after_load>*");
    assert_eq!(
        lines[2],
        "  exec 0xffffffff  11111111111111111111111111111111"
    );
    assert_eq!(lines[3], "  counters vm=1 vst=0 ls=0 sm=0");
    assert_eq!(lines[4], "  outstanding v5 (vm from 0x001c)");
    assert!(lines[5].starts_with("  u0 =0x00000000  u1 =0x00000001  u2 =0x00000000 "));
    assert_eq!(lines.len(), 5 + 8);
    assert!(regs.contains("u63=0x00000000"));
    // After the wait nothing is outstanding.
    stop(&mut e, "si");
    let regs = run(&mut e, "i r");
    assert!(regs.contains("  counters vm=0 vst=0 ls=0 sm=0\n"), "{regs}");
    assert!(!regs.contains("outstanding"), "{regs}");
    // Counters of a store without wait.
    run(&mut e, "restart");
    run(&mut e, "advance after_add");
    assert!(run(&mut e, "info registers").contains("  counters vm=0 vst=1 ls=0 sm=0\n"));

    // Registers changed by the last step are marked; earlier changes are not.
    let mut e = one_wave_loop();
    stop(&mut e, "si 4");
    let regs = run(&mut e, "info reg");
    assert!(regs.contains("  pc   0x0014*\n"), "{regs}");
    assert!(regs.contains("u5 =0x00000000 "), "{regs}");
    assert!(regs.contains("u6 =0x00000000 "), "{regs}");
    stop(&mut e, "si");
    let regs = run(&mut e, "info registers");
    assert!(regs.contains("u6 =0x00000003*"), "{regs}");
    assert!(regs.contains("u4 =0x00000000 "), "{regs}");
    // A register set by the user before resuming is not a change made by the run.
    run(&mut e, "set u9 = 5");
    stop(&mut e, "si");
    let regs = run(&mut e, "info r");
    assert!(regs.contains("u9 =0x00000005 "), "{regs}");
    assert!(regs.contains("u6 =0x00000003 "), "{regs}");
}

#[test]
fn info_changes_lists_registers_and_memory() {
    let mut e = engine(WRITERS);
    assert_eq!(
        run(&mut e, "info changes"),
        "Nothing changed since the previous stop.\n"
    );
    run(&mut e, "break after_store wave 0");
    run(&mut e, "break after_gstore wave 0");
    stop(&mut e, "c");
    let changes = run(&mut e, "info changes");
    assert!(changes.contains("wave 0: pc\n"), "{changes}");
    assert!(changes.contains("wave 0: v4 lanes 1-31\n"), "{changes}");
    assert!(
        changes.contains("wave 0: v2 lanes 1-3, 5-7, 9-11, 13-15, 17-19, 21-23, 25-27, 29-31\n"),
        "{changes}"
    );
    // lanes 28-31 of wave 0 stored 28-31 to shared:0-15 (only the low bytes changed; runs
    // within 16 bytes of each other are shown as one range).
    assert!(
        changes.contains("shared workgroup 0: 0x0..0xd "),
        "{changes}"
    );
    stop(&mut e, "c");
    let changes = run(&mut e, "info changes");
    assert!(
        changes.contains("global out: 0x100000004..0x1000000fd (249 bytes)"),
        "{changes}"
    );
    assert!(!changes.contains("wave 0: v4"), "{changes}");
    // Stepping: only what the step changed.
    stop(&mut e, "si");
    assert_eq!(run(&mut e, "info changes"), "wave 0: pc\n");
}

#[test]
fn set_registers_lanes_and_memory_then_the_kernel_sees_them() {
    let mut e = engine(READER);
    run(&mut e, "break ready");
    stop(&mut e, "c");
    for line in [
        "set shared:8 = 100",
        "set global:0x100000014 = 10000",
        "set v9 = 5",
        "set v9[7] = 7",
        "set var u20 = 0x1234",
        "set $u21 = u20 + 1",
    ] {
        assert_eq!(run(&mut e, line), "", "{line}");
    }
    // scratch: is the selected lane's.
    run(&mut e, "lane 3");
    assert_eq!(run(&mut e, "set scratch:4 = 1000"), "");
    assert_eq!(run(&mut e, "p/x u21"), "u21 = 0x00001235\n");
    let c = cells(&run(&mut e, "p scratch:4"));
    let mut expect = vec!["0".to_string(); 32];
    expect[3] = "1000".into();
    assert_eq!(values(&c), expect, "only lane 3's scratch was set");
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
    assert_eq!(
        run(&mut e, "x/8dw 0x100000080"),
        "global:0x100000080: 5 5 105 1005\nglobal:0x100000090: 5 10005 5 7\n"
    );

    // EXEC and PC.
    let mut e = one_wave_loop();
    run(&mut e, "break after");
    stop(&mut e, "c");
    run(&mut e, "set u6 = 1");
    run(&mut e, "set pc = loop");
    assert_eq!(run(&mut e, "p pc"), "pc = 0x0024 <loop>\n");
    run(&mut e, "set exec = 0b101");
    assert_eq!(
        run(&mut e, "p exec"),
        "exec = 0x00000005 (2 active: 0, 2)\n"
    );
    run(&mut e, "delete");
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
    // Lanes 0 and 2 ran one more iteration and stored; the others stored nothing.
    assert_eq!(
        run(&mut e, "x/4dw 0x100000000"),
        "global:0x100000000: 4 0 12 0\n"
    );
    assert_eq!(e.machine().waves[0].state, WaveState::Exited);
}

#[test]
fn disassemble_marks_the_pc_and_breakpoints() {
    let mut e = one_wave_loop();
    run(&mut e, "break loop+8");
    run(&mut e, "break store");
    run(&mut e, "disable 2");
    stop(&mut e, "si 2");
    let text = run(&mut e, "disassemble");
    assert_eq!(
        text,
        [
            "    0x0000  uwgid u4",
            "    0x0004  uwaveid u5",
            "=>  0x0008  vlaneid v0",
            "    0x000c  vmuli.u32 v3, v0, 4",
            "    0x0014  umovi u6, 3",
            "    0x001c  vmovi v1, 0",
            "loop:",
            "    0x0024  vaddi.u32 v1, v1, 1",
            "  B 0x002c  vaddi.u32 v3, v3, 1",
            "    0x0034  uaddi u6, u6, -1",
            "    0x003c  br.unz u6, loop",
            "after:",
            "    0x0040  ushli u7, u4, 6",
            "    0x0048  ushli u8, u5, 5",
            "    0x0050  uadd u7, u7, u8",
            "",
        ]
        .join("\n")
    );
    let text = run(&mut e, "disas store");
    assert!(
        text.contains("store:\n    0x0060  st.ubase.b32 v3, u[0:1], v2, 0\n"),
        "disabled: no B\n{text}"
    );
    assert!(!text.contains("=>"), "the PC is outside the window\n{text}");
    run(&mut e, "enable 2");
    run(&mut e, "delete 1");
    stop(&mut e, "c");
    let text = run(&mut e, "disassemble");
    assert!(
        text.contains("=>B 0x0060  st.ubase.b32 v3, u[0:1], v2, 0\n"),
        "{text}"
    );
    assert_eq!(run(&mut e, "disassemble 0x60"), text);
}

/// `p/f` of a tiny (denormal) float prints every decimal digit
/// (`0.000000000000000000000000000000000000000000006` for 1), which also breaks the
/// columns of `p/f v3`; gdb prints `1.40129846e-45`.
#[test]
fn print_float_uses_exponent_form_for_tiny_values() {
    let mut e = engine(COND);
    let text = run(&mut e, "p/f 1");
    assert!(text.contains("e-45"), "{text}");
    assert!(text.len() < 30, "{text}");
}

/// A bare `info` says "unknown `info `" (an empty subcommand) instead of saying that it
/// needs one; gdb lists the subcommands.
/// `info registers v200` shows the usage of `print` (it is evaluated as a print).
#[test]
fn info_registers_errors_show_the_info_usage() {
    let mut e = engine(COND);
    fails_with_usage(&mut e, "info registers v200", "no register `v200`");
}

#[test]
fn bare_info_says_what_it_needs() {
    let mut e = engine(COND);
    let err = fail(&mut e, "info");
    assert!(!err.message().contains("`info `"), "{}", err.message());
    assert!(err.message().contains("needs"), "{}", err.message());
    assert_eq!(err.usage(), Some(usage_of("info").as_str()));
}

#[test]
fn info_buffers_and_info_labels_are_tables() {
    let mut e = engine(NAMES);
    assert_eq!(
        run(&mut e, "info buffers"),
        "\
Name   Address      Bytes  Argument
in     0x100000000     64  u[0:1] (address)
out    0x100020000     32  u[2:5] (descriptor)
spare  0x100040000      1  -
"
    );
    assert_eq!(run(&mut e, "i buffer"), run(&mut e, "info buffers"));
    assert_eq!(
        run(&mut e, "info labels"),
        format!(
            "Name  Address  Line\nout   0x0004     {:>2}\ntail  0x000c     {:>2}\n",
            line_of(NAMES, "vshli"),
            line_of(NAMES, "    end")
        )
    );
    // Labels by address, not by name; a label past the last instruction has no line.
    let mut e = engine(".kernel k\nzz:\n    nop\naa:\n    end\nafter_end:\n");
    assert_eq!(
        run(&mut e, "info labels"),
        "Name       Address  Line\nzz         0x0000      3\naa         0x0004      5\nafter_end  0x0008      -\n"
    );
    assert_eq!(run(&mut e, "info buffers"), "No buffers.\n");
    let mut e = engine(".kernel k\n    end\n");
    assert_eq!(run(&mut e, "info labels"), "No labels.\n");
}

#[test]
fn selecting_waves_and_lanes() {
    let mut e = engine(LOOP);
    e.select_wave(3).unwrap();
    assert_eq!(e.selected_wave, 3);
    let err = e.select_wave(4).unwrap_err().to_string();
    assert!(err.contains("no resident wave 4"), "{err}");
    assert!(err.contains("0, 1, 2, 3"), "{err}");
    e.select_lane(31).unwrap();
    assert_eq!(e.selected_lane, 31);
    let err = e.select_lane(32).unwrap_err().to_string();
    assert!(err.contains("lane 32 out of range"), "{err}");
    assert_eq!(e.selected_lane, 31);
}

#[test]
fn resident_window_and_wave_ids_of_later_workgroups() {
    // One resident workgroup at a time: workgroup 1's waves (ids 2, 3) replace 0 and 1.
    let mut e = engine_with(
        LOOP,
        LaunchOptions {
            resident_workgroups: 1,
            ..Default::default()
        },
    );
    assert_eq!(e.machine().waves.len(), 2);
    let id = e
        .add_breakpoint(
            &loc("after"),
            None,
            Filters {
                wave: Some(3),
                ..Default::default()
            },
            false,
        )
        .unwrap();
    let stop = e.continue_all();
    assert_eq!(breakpoint_of(&stop).0, id);
    assert_eq!(stop.wave_id, Some(3));
    assert_eq!(stop.wave, Some(1), "index in the resident waves");
    finish_all(&mut e);
}

#[test]
fn previous_is_the_state_at_the_previous_stop() {
    let mut e = one_wave_loop();
    bp(&mut e, "loop");
    e.continue_all();
    assert_eq!(e.previous().waves[0].pc, 0, "the launch state");
    assert_eq!(e.previous().waves[0].v[3], [0; 32]);
    e.continue_all();
    assert_eq!(e.previous().waves[0].pc, label(&e, "loop"));
    let before: Vec<u32> = e.previous().waves[0].v[3].to_vec();
    let now: Vec<u32> = e.machine().waves[0].v[3].to_vec();
    assert!(before.iter().zip(&now).all(|(b, n)| n - b == 1));
    // Inspection does not move the snapshot; the next resumption does.
    e.write_register(0, RegisterWrite::U { reg: 20, value: 9 })
        .unwrap();
    assert_eq!(e.previous().waves[0].u[20], 0);
    e.step(1);
    assert_eq!(e.previous().waves[0].u[20], 9);
}

#[test]
fn register_and_memory_writes_are_seen_by_the_kernel() {
    let mut e = one_wave_loop();
    bp(&mut e, "after");
    e.continue_all();
    // Change v3 of lane 5 and the loop result of every lane via the machine.
    e.write_register(
        0,
        RegisterWrite::VLane {
            reg: 3,
            lane: 5,
            value: 0xdead,
        },
    )
    .unwrap();
    let out = e.machine().buffer_base("out").unwrap();
    finish_all(&mut e);
    assert_eq!(global_u32(&e, out + 4 * 5), 0xdead);
    assert_eq!(global_u32(&e, out + 4 * 6), 27);

    // EXEC narrowed before the store: only lane 0 stores.
    let mut e = one_wave_loop();
    bp(&mut e, "store");
    e.continue_all();
    e.write_register(0, RegisterWrite::Exec(1)).unwrap();
    finish_all(&mut e);
    assert_eq!(global_u32(&e, out), 3);
    assert_eq!(global_u32(&e, out + 4), 0);
}

/// Straight code with 8-byte instructions (`vshli` and `umovi` take an immediate word).
const STRAIGHT: &str = "\
.kernel straight
.workgroup 32
start:
    vlaneid v0
    vshli v1, v0, 2
    umovi u2, 0x23
    vadd.u32.u v0, v0, u2
    end
";

/// gdb's `x/Ni` and `display/i`: instructions listed from an address (inside an
/// instruction: from its start), `=>` on the PC, gdb's error past the code, and Enter
/// going on from where the list ended.
#[test]
fn x_slash_i_lists_instructions_and_display_slash_i_follows_the_pc() {
    let mut e = engine(STRAIGHT);
    assert_eq!(
        run(&mut e, "x/3i pc"),
        "=> 0x0000 <start>:\tvlaneid v0\n   0x0004 <start+4>:\tvshli v1, v0, 2\n   0x000c <start+12>:\tumovi u2, 35\n"
    );
    // Enter: the next three, the third past the code.
    let cmd = command::parse("x/3i pc")
        .expect("parses")
        .expect("a command");
    assert_eq!(cmd.to_string(), "x/3i pc");
    let again = e.repeat_of(&cmd).expect("x/i repeats");
    assert_eq!(
        run(&mut e, &again.to_string()),
        "   0x0014 <start+20>:\tvadd.u32.u v0, v0, u2\n   0x0018 <start+24>:\tend\n   0x001c:\tCannot access memory at address 0x1c\n"
    );
    // 0x8 is the immediate word of `vshli`: the list starts at the instruction.
    assert_eq!(
        run(&mut e, "x/1i 0x8"),
        "   0x0004 <start+4>:\tvshli v1, v0, 2\n"
    );
    assert!(command::parse("x/0i pc").is_err());
    assert_eq!(
        run(&mut e, "display/i pc"),
        "1: x/i pc\n=> 0x0000 <start>:\tvlaneid v0\n"
    );
    stop(&mut e, "stepi");
    assert_eq!(
        run(&mut e, "display"),
        "1: x/i pc\n=> 0x0004 <start+4>:\tvshli v1, v0, 2\n"
    );
}
