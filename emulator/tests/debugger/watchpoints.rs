//! Watchpoints: global, shared of one or every workgroup, one lane's scratch; read, write
//! and access; atomics; conditions; many at once; hits while stepping; faults right after a
//! hit; workgroups and waves still to come.

use super::fixtures::*;

#[test]
fn watch_shared_memory_of_one_workgroup_written_by_several_waves() {
    let mut e = engine(WRITERS);
    assert_eq!(
        run(&mut e, "watch shared:0 4 workgroup 1"),
        "Hardware watchpoint 1: shared:0x0 (workgroup 1), 4 bytes\n"
    );
    let (text, s) = stop(&mut e, "c");
    assert_eq!(
        text,
        "\
Hardware watchpoint 1: shared:0x0 (4 bytes)
  written by wave 2 lanes 0, 4, 8, 12, 16, 20, 24, 28 at 0x0034 <store>: st.shared.b32 v4, v2, 0
  Old value = 0x00000000
  New value = 0x000000e4
  next: 0x003c <after_store>: wait.ls 0
"
    );
    assert_eq!(s.wave_id, Some(2));
    assert_eq!(s.pc, Some(0x3c));
    // The stop is precise: wave 2 is right after the store, wave 3 has not stored yet.
    let waves = run(&mut e, "info waves");
    assert!(
        waves.contains("*    2   1    0  ready        0x003c <after_store>"),
        "{waves}"
    );
    assert!(
        waves.contains("     3   1    1  ready        0x0030 "),
        "{waves}"
    );
    assert_eq!(run(&mut e, "x/1dw shared:0"), "shared:0x0: 228\n");
    let (text, s) = stop(&mut e, "c");
    assert!(
        text.contains("  written by wave 3 lanes 0, 4, 8, 12, 16, 20, 24, 28 at 0x0034 <store>")
    );
    assert!(text.contains("  Old value = 0x000000e4\n  New value = 0x00000148\n"));
    assert_eq!(s.wave_id, Some(3));
    assert!(run(&mut e, "info watchpoints").contains("        watchpoint already hit 2 times\n"));
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
}

#[test]
fn watch_shared_memory_of_the_selected_and_of_every_workgroup() {
    // Without `workgroup`, shared: means the selected wave's workgroup.
    let mut e = engine(WRITERS);
    run(&mut e, "wave 3");
    assert_eq!(
        run(&mut e, "watch shared:4"),
        "Hardware watchpoint 1: shared:0x4 (workgroup 1), 4 bytes\n"
    );
    let (_, s) = stop(&mut e, "c");
    assert_eq!(s.wave_id, Some(2));

    let mut e = engine(WRITERS);
    assert_eq!(
        run(&mut e, "watch shared:4 4 workgroup all"),
        "Hardware watchpoint 1: shared:0x4 (every workgroup), 4 bytes\n"
    );
    assert!(run(&mut e, "info watchpoints").contains(
        "1    hw watchpoint   keep  y                     shared:0x4 (4 bytes) (every workgroup)\n"
    ));
    let mut seen = Vec::new();
    loop {
        let (text, s) = stop(&mut e, "c");
        if s.reason == StopReason::Finished {
            break;
        }
        let w = s.wave_id.unwrap();
        assert!(text.contains(&format!(
            "  written by wave {w} lanes 1, 5, 9, 13, 17, 21, 25, 29 at 0x0034 <store>"
        )));
        assert!(text.contains(&format!("  New value = {:#010x}\n", 100 * w + 29)));
        seen.push(w);
    }
    assert_eq!(seen, vec![0, 1, 2, 3]);
}

#[test]
fn watch_global_memory_with_a_condition() {
    let mut e = engine(ATOMIC);
    assert_eq!(
        run(
            &mut e,
            "watch global:0x100000000 4 if global:0x100000000 >= 64"
        ),
        "Hardware watchpoint 1: global:0x100000000, 4 bytes\n"
    );
    assert!(
        run(&mut e, "info watchpoints").contains("        stop only if global:0x100000000 >= 64\n")
    );
    let (text, s) = stop(&mut e, "c");
    assert_eq!(s.wave_id, Some(1));
    assert_eq!(
        text,
        "\
Hardware watchpoint 1: global:0x100000000 (4 bytes)
  read and written (atomic) by wave 1 lanes 0-31 at 0x0010 <add>: atom.ubase.add.u32 v1, u[0:1], v2, 0
  Old value = 0x00000020
  New value = 0x00000040
  next: 0x0018 <after_add>: wait.vst 0
"
    );
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
}

#[test]
fn rwatch_and_awatch_count_atomics_as_reads_and_writes() {
    let mut e = engine(ATOMIC);
    assert_eq!(
        run(&mut e, "rwatch 0x100000000"),
        "Hardware read watchpoint 1: global:0x100000000, 4 bytes\n"
    );
    let (text, _) = stop(&mut e, "c");
    assert!(text.starts_with(
        "Hardware read watchpoint 1: global:0x100000000 (4 bytes)\n  read and written (atomic) by wave 0 lanes 0-31 at 0x0010 <add>"
    ), "{text}");
    let (text, _) = stop(&mut e, "c");
    assert_eq!(
        text,
        "\
Hardware read watchpoint 1: global:0x100000000 (4 bytes)
  read by wave 0 lanes 0-31 at 0x001c <load>: ld.ubase.b32 v5, u[0:1], v2, 0
  Value = 0x00000020
  next: 0x0024 <after_load>: wait.vm 0
"
    );

    let mut e = engine(ATOMIC);
    assert_eq!(
        run(&mut e, "awatch global:0x100000000 1"),
        "Hardware access (read/write) watchpoint 1: global:0x100000000, 1 byte\n"
    );
    let mut kinds = Vec::new();
    loop {
        let (text, s) = stop(&mut e, "c");
        if s.reason == StopReason::Finished {
            break;
        }
        assert!(text.starts_with(
            "Hardware access (read/write) watchpoint 1: global:0x100000000 (1 byte)\n"
        ));
        kinds.push(
            text.lines()
                .nth(1)
                .unwrap()
                .split(" by ")
                .next()
                .unwrap()
                .trim()
                .to_string(),
        );
    }
    assert_eq!(
        kinds,
        vec![
            "read and written (atomic)",
            "read",
            "read and written (atomic)",
            "read"
        ]
    );
    assert!(run(&mut e, "info watchpoints").contains("1    acc watchpoint  keep  y                     global:0x100000000 (1 byte)\n        watchpoint already hit 4 times\n"));
}

#[test]
fn watch_one_lanes_scratch() {
    let mut e = engine(SPILL_ONCE);
    run(&mut e, "wave 1");
    run(&mut e, "lane 2");
    assert_eq!(
        run(&mut e, "watch scratch:8"),
        "Hardware watchpoint 1: scratch:0x8 (wave 1 lane 2), 4 bytes\n"
    );
    assert_eq!(
        run(&mut e, "watch scratch:8 4 wave 0 lane 31"),
        "Hardware watchpoint 2: scratch:0x8 (wave 0 lane 31), 4 bytes\n"
    );
    run(&mut e, "disable 2");
    let (text, s) = stop(&mut e, "c");
    assert_eq!(s.wave_id, Some(1));
    assert_eq!(
        text,
        "\
Hardware watchpoint 1: scratch:0x8 (4 bytes)
  written by wave 1 lane 2 at 0x001c <spill>: st.scratch.b32 v4, v8, 8
  Old value = 0x00000000
  New value = 0x00000066
  next: 0x0024 <after_spill>: wait.vst 0
"
    );
    // Every lane wrote its own offset 8; the selected lane (2) sees its value.
    assert_eq!(run(&mut e, "x/1dw scratch:8"), "scratch:0x8: 102\n");
    run(&mut e, "lane 7");
    assert_eq!(run(&mut e, "x/1dw scratch:8"), "scratch:0x8: 107\n");
    run(&mut e, "wave 0");
    assert_eq!(run(&mut e, "x/1dw scratch:8"), "scratch:0x8: 7\n");
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
}

#[test]
fn many_watchpoints_and_one_never_hit() {
    let mut e = engine(LOOP);
    for i in 0..64u64 {
        let text = run(&mut e, &format!("watch global:{:#x}", BUF + 4 * i));
        assert_eq!(
            text,
            format!(
                "Hardware watchpoint {}: global:{:#x}, 4 bytes\n",
                i + 1,
                BUF + 4 * i
            )
        );
    }
    run(&mut e, "awatch global:0x100000300 16");
    let (text, s) = stop(&mut e, "c");
    assert_eq!(s.wave_id, Some(0));
    assert_eq!(text.matches("Hardware watchpoint ").count(), 32);
    assert!(text.contains(
        "Hardware watchpoint 32: global:0x10000007c (4 bytes)\n  written by wave 0 lane 31 at 0x0060 <store>: st.ubase.b32 v3, u[0:1], v2, 0\n  Old value = 0x00000000\n  New value = 0x0000007f\n"
    ));
    let (text, s) = stop(&mut e, "c");
    assert_eq!(s.wave_id, Some(1));
    assert!(text.contains(
        "Hardware watchpoint 33: global:0x100000080 (4 bytes)\n  written by wave 1 lane 0 "
    ));
    assert_eq!(stop(&mut e, "c").1.reason, StopReason::Finished);
    let info = run(&mut e, "info watchpoints");
    assert_eq!(info.matches("watchpoint already hit 1 time\n").count(), 64);
    assert!(info.ends_with(
        "65   acc watchpoint  keep  y                     global:0x100000300 (16 bytes)\n"
    ));
}

#[test]
fn global_write_watchpoint_reports_wave_lanes_pc_and_values() {
    let mut e = engine(WRITERS);
    let out = e.machine().buffer_base("out").unwrap();
    // out[37]: gid 37 is wave 1, lane 5, which stores 100 * 1 + 5.
    let id = e
        .add_watchpoint(WatchKind::Write, Scope::Global, out + 4 * 37, 4, None)
        .unwrap();
    let gstore = label(&e, "gstore");
    let stop = e.continue_all();
    let hits = watch_hits(&stop);
    assert_eq!(hits.len(), 1);
    let h = &hits[0];
    assert_eq!(h.id, id);
    assert_eq!(h.kind, WatchKind::Write);
    assert_eq!(h.space, Space::Global);
    assert_eq!((h.addr, h.len), (out + 4 * 37, 4));
    assert_eq!(h.lanes, 1 << 5);
    assert_eq!(h.pc, gstore);
    assert_eq!(h.access, AccessKind::Write);
    assert_eq!(h.old, 0u32.to_le_bytes());
    assert_eq!(h.new, 105u32.to_le_bytes());
    assert_eq!(stop.wave_id, Some(1));
    // Precise: the wave is right after the store, nothing else ran after it.
    assert_eq!(stop.pc, Some(label(&e, "after_gstore")));
    assert_eq!(e.machine().waves[1].pc, label(&e, "after_gstore"));
    assert_eq!(stop.instructions, e.machine().stats.wave_instructions);
    assert_eq!(global_u32(&e, out + 4 * 37), 105);
    assert_eq!(global_u32(&e, out + 4 * 38), 106, "the whole store is done");
    assert_eq!(e.selected_wave, 1);
    finish_all(&mut e);
    assert_eq!(e.watchpoints()[0].hits, 1);
}

#[test]
fn watchpoint_on_a_byte_range_inside_a_word() {
    let mut e = engine(WRITERS);
    let out = e.machine().buffer_base("out").unwrap();
    // Bytes 2-4 of out[36..38] span lanes 4 and 5 of wave 1.
    e.add_watchpoint(WatchKind::Write, Scope::Global, out + 4 * 36 + 2, 3, None)
        .unwrap();
    let stop = e.continue_all();
    let h = &watch_hits(&stop)[0];
    assert_eq!(h.lanes, lanes([4, 5]));
    assert_eq!(h.old, vec![0, 0, 0]);
    // out[36] = 104 = 0x68, out[37] = 105 = 0x69: bytes 2, 3 of 104 and byte 0 of 105.
    assert_eq!(h.new, vec![0, 0, 105]);
}

/// Values stored to shared:0 by each wave (lanes 0, 4, ..., 28; the highest wins).
fn shared0_after(wave: u32) -> u32 {
    100 * wave + 28
}

#[test]
fn shared_watchpoint_of_one_workgroup_written_by_several_waves() {
    let mut e = engine(WRITERS);
    let id = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(Some(1)), 0, 4, None)
        .unwrap();
    let (store, after) = (label(&e, "store"), label(&e, "after_store"));
    let writers = lanes((0..32).step_by(4));

    let s = e.continue_all();
    let h = &watch_hits(&s)[0];
    assert_eq!(s.wave_id, Some(2));
    assert_eq!(e.machine().waves[2].workgroup, 1);
    assert_eq!(
        (h.id, h.space, h.lanes, h.pc),
        (id, Space::Shared, writers, store)
    );
    assert_eq!(h.old, 0u32.to_le_bytes());
    assert_eq!(h.new, shared0_after(2).to_le_bytes());
    assert_eq!(e.machine().waves[2].pc, after);
    // Workgroup 0 wrote its own shared:0 before, without triggering.
    let mut b = [0u8; 4];
    e.machine()
        .read_space(Space::Shared, 0, 0, 0, &mut b)
        .unwrap();
    assert_eq!(u32::from_le_bytes(b), shared0_after(1));

    let s = e.continue_all();
    let h = &watch_hits(&s)[0];
    assert_eq!(s.wave_id, Some(3));
    assert_eq!(h.lanes, writers);
    assert_eq!(h.old, shared0_after(2).to_le_bytes());
    assert_eq!(h.new, shared0_after(3).to_le_bytes());
    assert_eq!(e.machine().waves[3].pc, after);
    finish_all(&mut e);
    assert_eq!(e.watchpoints()[0].hits, 2);
}

#[test]
fn shared_watchpoint_of_every_workgroup() {
    let mut e = engine(WRITERS);
    let id = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(None), 4, 4, None)
        .unwrap();
    let store = label(&e, "store");
    let writers = lanes((1..32).step_by(4));
    let mut seen = Vec::new();
    loop {
        let s = e.continue_all();
        if s.reason == StopReason::Finished {
            break;
        }
        let h = &watch_hits(&s)[0];
        let wave = s.wave_id.unwrap();
        assert_eq!((h.id, h.lanes, h.pc), (id, writers, store));
        // shared:4 holds the value of lane 29 (the highest of 1, 5, ..., 29).
        let before = if wave.is_multiple_of(2) {
            0
        } else {
            100 * (wave - 1) + 29
        };
        assert_eq!(h.old, before.to_le_bytes(), "wave {wave}");
        assert_eq!(h.new, (100 * wave + 29).to_le_bytes(), "wave {wave}");
        seen.push(wave);
    }
    assert_eq!(seen, vec![0, 1, 2, 3]);
}

#[test]
fn scratch_watchpoint_covers_one_lane_of_one_wave() {
    let mut e = engine(SCRATCH);
    let id = e
        .add_watchpoint(
            WatchKind::Write,
            Scope::Scratch { wave: 1, lane: 2 },
            8,
            4,
            None,
        )
        .unwrap();
    let s = e.continue_all();
    let h = &watch_hits(&s)[0];
    assert_eq!(h.id, id);
    assert_eq!(s.wave_id, Some(1));
    assert_eq!(h.space, Space::Scratch);
    assert_eq!(h.lanes, 1 << 2, "only the watched lane is reported");
    assert_eq!(h.pc, label(&e, "spill"));
    assert_eq!(h.old, 0u32.to_le_bytes());
    assert_eq!(h.new, 102u32.to_le_bytes());
    assert_eq!(e.machine().waves[1].pc, label(&e, "after_spill"));
    // Wave 0 wrote the same offset of its lanes' scratch first without triggering.
    assert_eq!(e.machine().waves[0].state, WaveState::Ready);
    let mut b = [0u8; 4];
    e.machine()
        .read_space(Space::Scratch, 0, 2, 8, &mut b)
        .unwrap();
    assert_eq!(u32::from_le_bytes(b), 2);
    // The second store skips lane 2; the other lanes write offset 8 of their own scratch.
    finish_all(&mut e);
    assert_eq!(e.watchpoints()[0].hits, 1);
    e.machine()
        .read_space(Space::Scratch, 1, 2, 8, &mut b)
        .unwrap();
    assert_eq!(u32::from_le_bytes(b), 102);
    e.machine()
        .read_space(Space::Scratch, 1, 3, 8, &mut b)
        .unwrap();
    assert_eq!(u32::from_le_bytes(b), 1103);
}

#[test]
fn scratch_watchpoint_bad_targets() {
    let mut e = engine(SCRATCH);
    let no_wave = e
        .add_watchpoint(
            WatchKind::Write,
            Scope::Scratch { wave: 7, lane: 0 },
            0,
            4,
            None,
        )
        .unwrap_err()
        .to_string();
    assert!(
        no_wave.contains("wave 7 is not in the launch (0-1)"),
        "{no_wave}"
    );
    let outside = e
        .add_watchpoint(
            WatchKind::Write,
            Scope::Scratch { wave: 0, lane: 0 },
            14,
            4,
            None,
        )
        .unwrap_err()
        .to_string();
    assert!(outside.contains("outside the 16-byte window"), "{outside}");
    let shared = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(Some(0)), 0, 4, None)
        .unwrap_err()
        .to_string();
    assert!(shared.contains("outside the 0-byte window"), "{shared}");
    let group = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(Some(3)), 0, 4, None)
        .unwrap_err()
        .to_string();
    assert!(
        group.contains("workgroup 3 is not in the grid (0-0)"),
        "{group}"
    );
    let unmapped = e
        .add_watchpoint(WatchKind::Write, Scope::Global, 0x10, 4, None)
        .unwrap_err()
        .to_string();
    assert!(unmapped.contains("not allocated"), "{unmapped}");
    let empty = e
        .add_watchpoint(WatchKind::Write, Scope::Global, 0x10, 0, None)
        .unwrap_err()
        .to_string();
    assert!(empty.contains("1 byte to 1 MiB"), "{empty}");
    assert!(e.watchpoints().is_empty());
}

#[test]
fn atomics_count_as_read_and_write() {
    for kind in [WatchKind::Read, WatchKind::Write, WatchKind::Access] {
        let mut e = engine(ATOMIC);
        let counter = e.machine().buffer_base("counter").unwrap();
        let id = e
            .add_watchpoint(kind, Scope::Global, counter, 4, None)
            .unwrap();
        let (add, load) = (label(&e, "add"), label(&e, "load"));
        let mut seen = Vec::new();
        loop {
            let s = e.continue_all();
            if s.reason == StopReason::Finished {
                break;
            }
            let h = &watch_hits(&s)[0];
            assert_eq!(h.id, id);
            assert_eq!(h.kind, kind);
            assert_eq!(h.lanes, u32::MAX, "every lane touched it");
            if h.pc == add {
                assert_eq!(h.access, AccessKind::ReadWrite);
                let before = if s.wave_id == Some(0) { 0u32 } else { 32 };
                assert_eq!(h.old, before.to_le_bytes(), "32 lanes each add 1");
                assert_eq!(h.new, (before + 32).to_le_bytes());
                assert_eq!(s.pc, Some(label(&e, "after_add")));
            } else {
                assert_eq!(h.pc, load);
                assert_eq!(h.access, AccessKind::Read);
                assert_eq!(h.old, h.new);
                assert_eq!(s.pc, Some(label(&e, "after_load")));
            }
            seen.push((s.wave_id.unwrap(), h.pc));
        }
        let expected = match kind {
            WatchKind::Write => vec![(0, add), (1, add)],
            WatchKind::Read | WatchKind::Access => {
                vec![(0, add), (0, load), (1, add), (1, load)]
            }
        };
        assert_eq!(seen, expected, "{kind:?}");
        assert_eq!(global_u32(&e, counter), 64);
    }
}

#[test]
fn read_watchpoint_ignores_plain_stores() {
    let mut e = engine(WRITERS);
    let out = e.machine().buffer_base("out").unwrap();
    e.add_watchpoint(WatchKind::Read, Scope::Global, out, 512, None)
        .unwrap();
    e.add_watchpoint(WatchKind::Read, Scope::Shared(None), 0, 16, None)
        .unwrap();
    finish_all(&mut e);
    assert!(e.watchpoints().iter().all(|w| w.hits == 0));
}

#[test]
fn watch_condition_filters_hits() {
    let mut e = engine(ATOMIC);
    let counter = e.machine().buffer_base("counter").unwrap();
    let at_64 = format!("global:{counter:#x} >= 64");
    let id = e
        .add_watchpoint(
            WatchKind::Write,
            Scope::Global,
            counter,
            4,
            Some(cond(&at_64)),
        )
        .unwrap();
    let s = e.continue_all();
    let h = &watch_hits(&s)[0];
    assert_eq!(h.id, id);
    assert_eq!(s.wave_id, Some(1), "wave 0's add leaves 32");
    assert_eq!(h.new, 64u32.to_le_bytes());
    finish_all(&mut e);
    assert_eq!(e.watchpoints()[0].hits, 1);

    // A condition on the accessing wave.
    let mut e = engine(WRITERS);
    let id = e
        .add_watchpoint(
            WatchKind::Write,
            Scope::Shared(None),
            0,
            4,
            Some(cond("wave == 3")),
        )
        .unwrap();
    let s = e.continue_all();
    assert_eq!(watch_hits(&s)[0].id, id);
    assert_eq!(s.wave_id, Some(3));
    finish_all(&mut e);

    // A bad condition is rejected.
    let mut e = engine(WRITERS);
    let _ = &mut e;
    let err = ParsedExpr::parse("1 +").unwrap_err().to_string();
    assert!(err.contains("expected"), "{err}");
}

#[test]
fn sixty_four_watchpoints_at_once_and_one_never_hit() {
    let mut e = engine(LOOP);
    let out = e.machine().buffer_base("out").unwrap();
    let ids: Vec<u32> = (0..64)
        .map(|i| {
            e.add_watchpoint(WatchKind::Write, Scope::Global, out + 4 * i, 4, None)
                .unwrap()
        })
        .collect();
    let never = e
        .add_watchpoint(WatchKind::Access, Scope::Global, out + 4 * 200, 4, None)
        .unwrap();
    let store = label(&e, "store");
    for wave in 0..2u32 {
        let s = e.continue_all();
        assert_eq!(s.wave_id, Some(wave));
        let hits = watch_hits(&s);
        assert_eq!(hits.len(), 32, "one store triggers 32 watchpoints");
        for (lane, h) in hits.iter().enumerate() {
            let i = 32 * wave as usize + lane;
            assert_eq!(h.id, ids[i]);
            assert_eq!(h.lanes, 1 << lane);
            assert_eq!(h.pc, store);
            assert_eq!(h.old, 0u32.to_le_bytes());
            assert_eq!(h.new, (4 * lane as u32 + 3).to_le_bytes());
        }
    }
    finish_all(&mut e);
    let w = e.watchpoints();
    assert_eq!(w.len(), 65);
    assert!(w[..64].iter().all(|w| w.hits == 1));
    assert_eq!(w[64].id, never);
    assert_eq!(w[64].hits, 0);
}

#[test]
fn watchpoint_fires_while_stepping() {
    let mut e = engine(WRITERS);
    e.add_watchpoint(WatchKind::Write, Scope::Shared(Some(0)), 0, 4, None)
        .unwrap();
    e.select_wave(1).unwrap();
    let s = e.step(100);
    assert_eq!(s.wave_id, Some(1));
    assert_eq!(watch_hits(&s)[0].new, shared0_after(1).to_le_bytes());
    assert_eq!(pcs(&e)[0], 0, "wave 0 stayed frozen");

    let mut e = engine(WRITERS);
    e.add_watchpoint(WatchKind::Write, Scope::Shared(Some(1)), 0, 4, None)
        .unwrap();
    e.scheduler_locking = false;
    let s = e.step(100);
    assert_eq!(s.wave_id, Some(2));
    assert_eq!(watch_hits(&s)[0].old, 0u32.to_le_bytes());
}

/// A watchpoint hit leaves the access log filled; the wave's next instruction faulting
/// before it executes (illegal instruction, budget) must still be reported as the fault,
/// not as a second, stale watchpoint hit.
#[test]
fn fault_right_after_a_watchpoint_hit_is_reported() {
    let src = r#"
.kernel t
.buffer out, 256
.arg u[0:1], out
    vlaneid v0
    vshli v2, v0, 2
    st.ubase.b32 v0, u[0:1], v2, 0
bad:
    .word 0xffffffff
    end
"#;
    let mut e = engine(src);
    let out = e.machine().buffer_base("out").unwrap();
    e.add_watchpoint(WatchKind::Write, Scope::Global, out, 4, None)
        .unwrap();
    let s = e.continue_all();
    assert_eq!(watch_hits(&s).len(), 1);
    let s = e.continue_all();
    match &s.reason {
        StopReason::Fault(f) => {
            assert!(matches!(f.kind, FaultKind::IllegalInstruction { .. }));
            assert_eq!(f.pc, label(&e, "bad"));
        }
        other => panic!("expected the illegal-instruction fault, got {other:?}"),
    }
    assert_eq!(e.watchpoints()[0].hits, 1);
}

/// The same with the instruction budget running out right after the hit.
#[test]
fn budget_fault_right_after_a_watchpoint_hit_is_reported() {
    let src = r#"
.kernel t
.buffer out, 256
.arg u[0:1], out
    vlaneid v0
    vshli v2, v0, 2
    st.ubase.b32 v0, u[0:1], v2, 0
    nop
    end
"#;
    let mut e = engine_with(
        src,
        LaunchOptions {
            max_instructions: Some(3),
            ..Default::default()
        },
    );
    let out = e.machine().buffer_base("out").unwrap();
    e.add_watchpoint(WatchKind::Write, Scope::Global, out, 4, None)
        .unwrap();
    assert_eq!(watch_hits(&e.continue_all()).len(), 1);
    let s = e.continue_all();
    assert!(
        matches!(&s.reason, StopReason::Fault(f) if f.kind == FaultKind::BudgetExhausted { limit: 3 }),
        "{s:?}"
    );
}

/// A fault right after a watchpoint hit, when stepping (`stepi` runs the wave through the
/// engine's own loop, which still reads the access log without checking the instruction's
/// event): the stale log is reported as a second hit "written by" `.word 0xffffffff`, and
/// the illegal-instruction fault is lost.
#[test]
fn fault_right_after_a_watchpoint_hit_is_reported_when_stepping() {
    let src = r#"
.kernel t
.buffer out, 256
.arg u[0:1], out
    vlaneid v0
    vshli v2, v0, 2
    st.ubase.b32 v0, u[0:1], v2, 0
bad:
    .word 0xffffffff
    end
"#;
    let mut e = engine(src);
    let out = e.machine().buffer_base("out").unwrap();
    e.add_watchpoint(WatchKind::Write, Scope::Global, out, 4, None)
        .unwrap();
    assert_eq!(watch_hits(&e.step(10)).len(), 1);
    let s = e.step(1);
    assert!(
        matches!(&s.reason, StopReason::Fault(f) if matches!(f.kind, FaultKind::IllegalInstruction { .. })),
        "expected the illegal-instruction fault, got {s:?}"
    );
}

/// A workgroup (or a wave of one) that is not dispatched yet can be watched: the range is
/// checked against the window it will have; one that has finished cannot.
#[test]
fn watchpoints_on_workgroups_and_waves_still_to_come() {
    let one_resident = LaunchOptions {
        resident_workgroups: 1,
        ..LaunchOptions::default()
    };
    let mut e = engine_with(WRITERS, one_resident);
    assert_eq!(e.machine().waves.len(), 2, "only workgroup 0 is resident");
    let id = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(Some(1)), 0, 4, None)
        .expect("workgroup 1 is still to come");
    // Outside the window workgroup 1 will have, or outside the grid: refused.
    let outside = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(Some(1)), 64, 4, None)
        .unwrap_err()
        .to_string();
    assert!(outside.contains("outside the 64-byte window"), "{outside}");
    let no_group = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(Some(2)), 0, 4, None)
        .unwrap_err()
        .to_string();
    assert_eq!(no_group, "workgroup 2 is not in the grid (0-1)");
    let stop = e.continue_all();
    let hit = &watch_hits(&stop)[0];
    assert_eq!(hit.id, id);
    let wave = &e.machine().waves[stop.wave.expect("a wave")];
    assert_eq!(wave.workgroup, 1, "only workgroup 1's stores trigger it");
    // Workgroup 0 has finished by now: its memory is gone.
    let gone = e
        .add_watchpoint(WatchKind::Write, Scope::Shared(Some(0)), 0, 4, None)
        .unwrap_err()
        .to_string();
    assert_eq!(gone, "workgroup 0 has finished");

    // The scratch of a wave still to come (wave 3 is in workgroup 1).
    let mut e = engine_with(
        ".workgroup 64\n.grid 2\n.scratch 16\n vmovi v1, 7\n vmovi v2, 0\n st.scratch.b32 v1, v2, 4\n wait.ls 0\n end\n",
        one_resident,
    );
    let id = e
        .add_watchpoint(
            WatchKind::Write,
            Scope::Scratch { wave: 3, lane: 9 },
            4,
            4,
            None,
        )
        .expect("wave 3 is still to come");
    let stop = e.continue_all();
    let hit = &watch_hits(&stop)[0];
    assert_eq!((hit.id, hit.lanes), (id, 1 << 9));
    assert_eq!(e.machine().waves[stop.wave.expect("a wave")].id, 3);
}
