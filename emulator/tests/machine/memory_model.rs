//! The races detector's release/acquire model (docs/memory.md): the classic patterns that
//! order workgroups through a global atomic, fenced (clean under every schedule and every
//! detector) and with one fence missing (a race naming the missing half and the atomic).
//! The kernels are in tests/kernels/memory_model/.

use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::check::{Checks, FenceAtomic, Finding, FindingKind, MemAccess, MissingFence};
use wavedbg_emulator::machine::{Event, LaunchOptions, Machine};
use wavedbg_emulator::memory::Space;
use wavedbg_emulator::program::Program;

const LAST_BLOCK: &str = include_str!("../../../tests/kernels/memory_model/last_block.s");
const TICKET_FIRST: &str =
    include_str!("../../../tests/kernels/memory_model/last_block_ticket_first.s");
const NO_WAIT: &str = include_str!("../../../tests/kernels/memory_model/last_block_no_wait.s");
const NO_INV: &str = include_str!("../../../tests/kernels/memory_model/last_block_no_inv.s");
const MESSAGE: &str = include_str!("../../../tests/kernels/memory_model/message_pass.s");
const MESSAGE_NO_WAIT: &str =
    include_str!("../../../tests/kernels/memory_model/message_pass_no_wait.s");
const MESSAGE_NO_INV: &str =
    include_str!("../../../tests/kernels/memory_model/message_pass_no_inv.s");

/// The schedules every pattern runs under: round-robin and seeded, with long and
/// one-instruction quanta (a consumer then spins on its flag), all workgroups resident or
/// one at a time.
fn schedules() -> Vec<LaunchOptions> {
    let mut all = Vec::new();
    for seed in [0, 1, 2, 3, 7, 42, 0xdead_beef] {
        for quantum in [1, 8] {
            for resident_workgroups in [1, 8] {
                all.push(LaunchOptions {
                    seed,
                    quantum,
                    resident_workgroups,
                    max_instructions: Some(1_000_000),
                    ..LaunchOptions::default()
                });
            }
        }
    }
    all
}

struct Run {
    p: Program,
    m: Machine,
}

impl Run {
    fn findings(&self) -> &[Finding] {
        self.m.sanitizer().expect("detectors are on").findings()
    }

    fn label(&self, name: &str) -> u64 {
        *self
            .p
            .labels
            .get(name)
            .unwrap_or_else(|| panic!("no label `{name}`"))
    }

    fn report(&self) -> String {
        self.findings()
            .iter()
            .map(|f| format!("{}\n{f:?}", f.describe(&self.m, None)))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Runs `src` to its end with `checks` on; a fault, deadlock or stall fails the test.
fn run(src: &str, checks: Checks, options: LaunchOptions) -> Run {
    let p = assemble(src, "t.s", None).unwrap_or_else(|e| panic!("assemble:\n{e}"));
    let mut m = Machine::new(&p, options).unwrap_or_else(|e| panic!("launch: {e}"));
    m.set_checks(checks);
    loop {
        match m.run(None) {
            None | Some(Event::Finding { .. }) => continue,
            Some(Event::Finished) => break,
            Some(e) => panic!("{options:?}: unexpected {e:?}"),
        }
    }
    Run { p, m }
}

fn assert_clean(src: &str, what: &str) {
    for options in schedules() {
        let r = run(src, Checks::ALL, options);
        assert!(
            r.findings().is_empty(),
            "{what} under {options:?}:\n{}",
            r.report()
        );
    }
}

/// The only finding of every schedule is a race between workgroups on `data` whose
/// accesses are at `now_label`/`before_label` (either order) and whose missing half is
/// `want(run)`.
/// An atomic a missing fence names, by PC (which wave executed it depends on the
/// schedule; `fence_pcs` compares PCs only).
fn at(pc: u64) -> FenceAtomic {
    FenceAtomic {
        pc,
        wave: 0,
        workgroup: 0,
    }
}

/// A missing fence as its kind and the PCs of the atomics it names.
fn fence_pcs(f: Option<MissingFence>) -> Option<(&'static str, Option<u64>, Option<u64>)> {
    f.map(|f| {
        let (release, acquire) = f.atomics();
        (f.name(), release.map(|a| a.pc), acquire.map(|a| a.pc))
    })
}

fn assert_race(src: &str, what: &str, labels: (&str, &str), want: impl Fn(&Run) -> MissingFence) {
    for options in schedules() {
        let r = run(src, Checks::ALL, options);
        let fs = r.findings();
        assert_eq!(fs.len(), 1, "{what} under {options:?}:\n{}", r.report());
        let f = &fs[0];
        assert_eq!(f.kind, FindingKind::Race, "{what}");
        assert_eq!(f.space, Some(Space::Global), "{what}");
        let other = f.other.expect("a race has two sides");
        assert_ne!(f.at.workgroup, other.workgroup, "{what}");
        let mut pcs = [f.at.pc, other.pc];
        pcs.sort_unstable();
        let mut expect = [r.label(labels.0), r.label(labels.1)];
        expect.sort_unstable();
        assert_eq!(pcs, expect, "{what} under {options:?}:\n{}", r.report());
        assert_eq!(
            fence_pcs(f.fence),
            fence_pcs(Some(want(&r))),
            "{what} under {options:?}:\n{}",
            r.report()
        );
        let text = f.describe(&r.m, None);
        let missing = match want(&r) {
            MissingFence::Release { .. } => "no release before the atomic at line",
            MissingFence::Acquire { .. } => "no acquire after the atomic at line",
            _ => "no atomic synchronises them",
        };
        assert!(text.contains(missing), "{what}: {text}");
    }
}

#[test]
fn last_block_reduction_fenced_is_clean_and_sums_every_partial() {
    assert_clean(LAST_BLOCK, "last block, fenced");
    for grid in [1, 4, 16, 32] {
        let r = run(
            LAST_BLOCK,
            Checks::ALL,
            LaunchOptions {
                grid: Some(grid),
                seed: 5,
                quantum: 1,
                ..LaunchOptions::default()
            },
        );
        assert!(r.findings().is_empty(), "grid {grid}:\n{}", r.report());
        // out[lane] = sum over workgroups of (lane + workgroup).
        let out =
            r.m.global
                .allocations()
                .iter()
                .find(|a| a.name == "out")
                .map(|a| a.data.to_vec())
                .expect("buffer out");
        for lane in 0..32u32 {
            let at = 4 * lane as usize;
            let got = u32::from_le_bytes([out[at], out[at + 1], out[at + 2], out[at + 3]]);
            let want = grid * lane + grid * (grid - 1) / 2;
            assert_eq!(got, want, "grid {grid} lane {lane}");
        }
    }
}

#[test]
fn loads_right_behind_the_acquire_fence_need_no_wait() {
    // The loads are on the vm counter behind `cache.inv.l1`, which completes in order.
    let fence =
        "    cache.inv.l1\n    wait.vm 0                   ; acquire: retired before the loads\n";
    assert!(LAST_BLOCK.contains(fence));
    let src = LAST_BLOCK.replace(fence, "    cache.inv.l1\n");
    assert_clean(&src, "last block, loads right after the fence");
}

#[test]
fn last_block_ticket_before_publish_names_the_missing_release() {
    assert_race(
        TICKET_FIRST,
        "ticket before publish",
        ("publish", "sum"),
        |r| MissingFence::Release {
            atomic: at(r.label("ticket")),
        },
    );
}

#[test]
fn last_block_without_wait_vst_names_the_missing_release() {
    assert_race(NO_WAIT, "no wait.vst", ("publish", "sum"), |r| {
        MissingFence::Release {
            atomic: at(r.label("ticket")),
        }
    });
}

#[test]
fn last_block_without_cache_inv_names_the_missing_acquire() {
    assert_race(NO_INV, "no cache.inv.l1", ("publish", "sum"), |r| {
        MissingFence::Acquire {
            atomic: at(r.label("ticket")),
        }
    });
}

#[test]
fn message_passing_fenced_is_clean() {
    assert_clean(MESSAGE, "message passing, fenced");
}

#[test]
fn message_passing_without_wait_vst_names_the_missing_release() {
    assert_race(
        MESSAGE_NO_WAIT,
        "flag raised before the data retired",
        ("store", "read"),
        |r| MissingFence::Release {
            atomic: at(r.label("raise")),
        },
    );
}

#[test]
fn message_passing_without_cache_inv_names_the_missing_acquire() {
    assert_race(
        MESSAGE_NO_INV,
        "data read without an acquire",
        ("store", "read"),
        |r| MissingFence::Acquire {
            atomic: at(r.label("poll")),
        },
    );
}

/// Two waves per workgroup: both store their partials, retire them and meet at a barrier;
/// wave 0 alone takes the ticket (one lane), so its atomic releases what the whole
/// workgroup retired before the barrier. `wait` is what the waves do before the barrier.
fn two_wave_blocks(wait: &str) -> String {
    format!(
        "
.workgroup 64
.grid 4
.buffer partial, 1024
.buffer ticket, 4
.buffer out, 4
.arg u[0:1], partial
.arg u[2:3], ticket
.arg u[4:5], out
    uwgid u6
    uwaveid u15
    vlaneid v0
    vshli v1, v0, 2
    ushli u7, u6, 8             ; 256 bytes per workgroup
    ushli u12, u15, 7           ; 128 per wave
    uadd u7, u7, u12
    vadd.u32.u v2, v1, u7
    vmovi v3, 1
store:
    st.ubase.b32 v3, u[0:1], v2, 0
    {wait}
    barrier
    br.unz u15, done
    vmovi v4, 1
    vmovi v5, 0
    umovi u13, 1
    exec.and.save u14, u13      ; lane 0 takes the ticket
ticket:
    atom.ubase.add.u32.rtn v4, u[2:3], v5, 0
    wait.vm 0
    vmovi v6, 3                 ; the last of 4 tickets
    vcmp.eq.b32 u8, v4, v6
    exec.set u14
    br.uz u8, done
    cache.inv.l1
    wait.vm 0
    vmovi v7, 0
    vmov v8, v1
    umovi u9, 8                 ; 4 workgroups x 2 waves
sum:
    ld.ubase.b32 v9, u[0:1], v8, 0
    wait.vm 0
    vadd.u32 v7, v7, v9
    vaddi.u32 v8, v8, 128
    uaddi u9, u9, -1
    br.unz u9, sum
    st.ubase.b32 v7, u[4:5], v5, 0
    wait.vst 0
done:
    end
"
    )
}

#[test]
fn a_barrier_carries_the_other_waves_release_to_the_atomic() {
    assert_clean(
        &two_wave_blocks("wait.vst 0"),
        "two waves per workgroup, fenced",
    );
    // The second wave skips its wait: its stores are still in flight at the barrier, and
    // wave 0's ticket does not release them (it does release wave 0's own).
    for options in schedules() {
        let src = two_wave_blocks("br.unz u15, skip\n    wait.vst 0\nskip:");
        let r = run(&src, Checks::ALL, options);
        let race = r
            .findings()
            .iter()
            .find(|f| f.kind == FindingKind::Race)
            .unwrap_or_else(|| panic!("{options:?}: no race:\n{}", r.report()));
        assert_eq!(
            fence_pcs(race.fence),
            fence_pcs(Some(MissingFence::Release {
                atomic: at(r.label("ticket"))
            })),
            "{options:?}:\n{}",
            r.report()
        );
        assert!(race
            .other
            .iter()
            .chain([&race.at])
            .any(|s| s.wave % 2 == 1 && s.pc == r.label("store")));
        // The ticket is wave 0's of its workgroup, whichever wave's store it missed.
        let (release, _) = race.fence.map_or((None, None), MissingFence::atomics);
        assert_eq!(release.map(|a| a.wave % 2), Some(0), "{}", r.report());
    }
}

#[test]
fn races_without_any_atomic_say_nothing_synchronises() {
    let src = "
.workgroup 32
.grid 2
.buffer out, 128
.arg u[0:1], out
    vlaneid v0
    vshli v1, v0, 2
    st.ubase.b32 v0, u[0:1], v1, 0
    wait.vst 0
    end
";
    let r = run(src, Checks::ALL, LaunchOptions::default());
    let f = &r.findings()[0];
    assert_eq!(f.fence, Some(MissingFence::Synchronisation));
    assert_eq!(f.at.access, Some(MemAccess::Write));
    assert!(
        f.headline().contains("no atomic synchronises them"),
        "{}",
        f.headline()
    );
}

/// CUDA's threadFenceReduction shape: one lane of wave 0 stores the workgroup's partial,
/// retires it and takes the ticket, and tells the other wave through shared memory
/// whether it was last; after a barrier both waves of the last workgroup acquire
/// (`cache.inv.l1`) and read the partials. `ACQUIRE` is what they do before the loads.
fn flag_through_shared(acquire: &str) -> String {
    format!(
        "
.workgroup 64
.grid 4
.shared 4
.buffer partial, 16
.buffer ticket, 4
.buffer out, 256
.arg u[0:1], partial
.arg u[2:3], ticket
.arg u[4:5], out
    uwgid u6
    uwaveid u15
    vmovi v5, 0
    br.unz u15, wait_flag
    umovi u13, 1
    exec.and.save u14, u13      ; lane 0
    ushli u7, u6, 2
    vmov.u v2, u7
    vmovi v3, 1
store:
    st.ubase.b32 v3, u[0:1], v2, 0
    wait.vst 0
    vmovi v4, 1
ticket:
    atom.ubase.add.u32.rtn v4, u[2:3], v5, 0
    wait.vm 0
    st.shared.b32 v4, v5, 0
    wait.ls 0
    exec.set u14
wait_flag:
    barrier
    ld.shared.b32 v6, v5, 0
    wait.ls 0
    vmovi v7, 3
    vcmp.eq.b32 u8, v6, v7
    br.uz u8, done
    {acquire}
    vlaneid v0
    vandi v8, v0, 3
    vshli v8, v8, 2             ; lane reads partial[lane % 4]
sum:
    ld.ubase.b32 v9, u[0:1], v8, 0
    wait.vm 0
    uwaveid u15
    ushli u16, u15, 7
    vshli v10, v0, 2
    vadd.u32.u v10, v10, u16
    st.ubase.b32 v9, u[4:5], v10, 0
    wait.vst 0
done:
    end
"
    )
}

#[test]
fn an_atomic_read_before_a_barrier_is_acquired_by_the_other_waves_fences() {
    assert_clean(
        &flag_through_shared("cache.inv.l1\n    wait.vm 0"),
        "ticket in wave 0, fence in both waves",
    );
    for options in schedules() {
        let r = run(&flag_through_shared("nop"), Checks::ALL, options);
        let race = r
            .findings()
            .iter()
            .find(|f| f.kind == FindingKind::Race)
            .unwrap_or_else(|| panic!("{options:?}: no race:\n{}", r.report()));
        assert_eq!(
            fence_pcs(race.fence),
            fence_pcs(Some(MissingFence::Acquire {
                atomic: at(r.label("ticket"))
            })),
            "{options:?}:\n{}",
            r.report()
        );
    }
}
