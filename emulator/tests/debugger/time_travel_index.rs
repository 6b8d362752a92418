//! Time travel's index and searches: what a search finds after a workgroup's slot is
//! reused, the values `last-write` reports, interrupted searches.

use super::fixtures::*;
use wavedbg_emulator::debug::WriteTarget;

// ---------------------------------------------------------------------------------------
// The bugs these tests found, each on its own.

/// One wave per workgroup, one workgroup resident: workgroup 1 takes workgroup 0's slot
/// (and wave index 0) when it finishes. Wave 0 runs `short` turns, writes shared and
/// scratch words at `late` and exits; wave 1 runs `long` turns: the record has snapshots
/// after wave 0's end.
const SLOT_REUSED: &str = r#"
.kernel slots
.workgroup 32
.grid 2
.shared 128
.scratch 16
    uwgid u3
    vlaneid v0
first:
    vshli v1, v0, 2
    vmovi v6, 0
    umovi u7, 6000
    br.uz u3, again
    umovi u7, 60000
again:
    vaddi.u32 v4, v4, 1
    uaddi u7, u7, -1
    br.unz u7, again
    br.unz u3, done
late:
    st.shared.b32 v4, v1, 0
    st.scratch.b32 v4, v6, 4
done:
    wait.all
    end
"#;

fn slot_reused() -> Engine {
    let mut e = engine_with(
        SLOT_REUSED,
        LaunchOptions {
            resident_workgroups: 1,
            ..LaunchOptions::default()
        },
    );
    finish_all(&mut e);
    assert!(e.history().info(0).snapshots >= 3);
    e
}

/// The writes of a workgroup that finished between two snapshots are in the index even
/// though a dispatch replaced its shared memory and its waves' scratch: `last-write` and
/// a watchpoint find them. (The interval's summary used to look at the slot's new arrays
/// only, and the search skipped the interval.)
#[test]
fn a_finished_workgroups_writes_are_found_after_its_slot_is_reused() {
    let mut e = slot_reused();
    let end = e.machine().stats.wave_instructions;
    let late = label(&e, "late");
    let shared = WriteTarget::Memory {
        space: Space::Shared,
        addr: 0,
        len: 4,
        workgroup: 0,
        wave: 0,
        lane: 0,
    };
    let found = e
        .last_write(&shared, end)
        .expect("answer")
        .expect("a write");
    assert_eq!((found.wave, found.pc, found.lanes), (0, late, 1));
    assert_eq!(found.new, 6000u32.to_le_bytes());
    let scratch = WriteTarget::Memory {
        space: Space::Scratch,
        addr: 4,
        len: 4,
        workgroup: 0,
        wave: 0,
        lane: 9,
    };
    let found = e
        .last_write(&scratch, end)
        .expect("answer")
        .expect("a write");
    assert_eq!((found.wave, found.pc, found.lanes), (0, late + 8, 1 << 9));
    // A watchpoint on workgroup 0's word, set at the launch: reverse-continue from the end
    // stops right before the store.
    e.goto(0).expect("the launch");
    e.add_watchpoint(WatchKind::Write, Scope::Shared(Some(0)), 0, 4, None)
        .expect("watch");
    e.goto(end).expect("the end");
    let stop = e.reverse_continue();
    assert_eq!(watch_hits(&stop)[0].pc, late, "{stop:?}");
    assert_eq!(stop.instructions, found.count - 1);
}

/// `reverse-continue` to a hit of a wave whose slot a later wave took, and `reverse-stepi`
/// of such a wave: the replay starts from a snapshot before the point, not from a later
/// one where the slot holds the other wave. (It used to pick the newest snapshot whose
/// slot held another wave, never reached the point, and said "No more reverse-execution
/// history".)
#[test]
fn reverse_execution_reaches_a_wave_whose_slot_was_reused() {
    let mut e = slot_reused();
    bp(&mut e, "first");
    let stop = e.reverse_continue();
    assert_eq!(stop.wave_id, Some(1), "{stop:?}");
    let stop = e.reverse_continue();
    assert!(
        matches!(stop.reason, StopReason::Breakpoint { .. }),
        "{stop:?}"
    );
    assert_eq!((stop.wave_id, stop.instructions), (Some(0), 2));
    assert_eq!(e.machine().waves[0].pc, label(&e, "first"));
    // From a point where wave 0 runs, with later snapshots holding wave 1 in its slot.
    e.delete(None).expect("delete");
    e.goto(5000).expect("goto");
    e.select_wave(0).expect("wave 0");
    let executed = e.machine().waves[0].executed;
    let stop = e.reverse_step(100);
    assert_eq!(stop.reason, StopReason::Step);
    assert_eq!(e.machine().waves[0].executed, executed - 100);
}

/// `last-write` of a range longer than the write, or not starting where it does: the
/// bytes before are the range's before the instruction, not the store's old bytes
/// shifted to the range's start.
#[test]
fn last_write_of_a_range_reports_the_range_before_and_after() {
    const RANGE: &str = r#"
.kernel range
.workgroup 32
.buffer b, 64
.init b, u32, 1, 2, 3, 4, 5, 6
.arg u[0:1], b
    vmovi v1, 8
    vmovi v2, 0x99
    umovi u5, 1
    exec.set u5
store:
    st.ubase.b32 v2, u[0:1], v1, 0
same:
    st.ubase.b32 v2, u[0:1], v1, 0
    wait.all
    end
"#;
    let mut e = engine(RANGE);
    finish_all(&mut e);
    let text = run(&mut e, "last-write global:b+4 16");
    assert!(text.contains("(st.ubase.b32 v2, u[0:1], v1, 0)"), "{text}");
    assert!(
        text.contains(
            "before: 0x00000002 0x00000099 0x00000004 0x00000005\n  after:  0x00000002 0x00000099 0x00000004 0x00000005 (value unchanged)"
        ),
        "{text}"
    );
    let text = run(&mut e, "last-write global:b+4 16");
    assert!(
        text.contains(
            "before: 0x00000002 0x00000003 0x00000004 0x00000005\n  after:  0x00000002 0x00000099 0x00000004 0x00000005\n"
        ),
        "{text}"
    );
}
