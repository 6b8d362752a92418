//! The engine's snapshot at each resume (`Engine::previous`, for change highlighting) is
//! refreshed incrementally (`Machine::sync_from`); it must equal a full copy taken at the
//! same moment, whatever mix of stepping, continuing and editing came before.

use proptest::prelude::*;
use wavedbg_emulator::asm::assemble;
use wavedbg_emulator::debug::{Engine, RegisterWrite};
use wavedbg_emulator::machine::{LaunchOptions, Machine};
use wavedbg_emulator::memory::Space;

const KERNELS: [(&str, &str); 4] = [
    ("histogram.s", include_str!("../../../scripts/histogram.s")),
    ("spill.s", include_str!("../../../scripts/spill.s")),
    ("bitonic.s", include_str!("../../../scripts/bitonic.s")),
    ("scan.s", include_str!("../../../scripts/scan.s")),
];

#[derive(Debug, Clone)]
enum Action {
    Step(u64),
    StepAll(u64),
    Advance(usize),
    Continue,
    Select(usize),
    EditV(u8, u8, u32),
    EditU(u8, u32),
    EditMemory(u64, u8),
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        (1u64..40).prop_map(Action::Step),
        (1u64..200).prop_map(Action::StepAll),
        (0usize..1_000).prop_map(Action::Advance),
        Just(Action::Continue),
        (0usize..64).prop_map(Action::Select),
        (0u8..16, 0u8..32, any::<u32>()).prop_map(|(r, l, v)| Action::EditV(r, l, v)),
        (0u8..16, any::<u32>()).prop_map(|(r, v)| Action::EditU(r, v)),
        (0u64..256, any::<u8>()).prop_map(|(a, v)| Action::EditMemory(a, v)),
    ]
}

fn same(a: &Machine, b: &Machine) -> bool {
    a.waves == b.waves && a.slots == b.slots && a.global == b.global && a.stats == b.stats
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn previous_equals_a_full_copy_at_the_resume(
        which in 0usize..KERNELS.len(),
        seed in 0u64..4,
        actions in prop::collection::vec(action(), 1..24),
    ) {
        let (name, src) = KERNELS[which];
        let p = assemble(src, name, None).expect("example kernel");
        let mut e = Engine::new(&p, LaunchOptions { seed, ..LaunchOptions::default() }).expect("launch");
        let global = e.machine().global.allocations()[0].base;
        for a in actions {
            let before = e.machine().clone();
            let resumed = match a {
                Action::Step(n) => { e.step(n); true }
                Action::StepAll(n) => { e.step_all(n); true }
                Action::Advance(i) => {
                    let addr = p.lines[i % p.lines.len()].0;
                    e.advance(addr);
                    true
                }
                Action::Continue => { e.continue_all(); true }
                Action::Select(w) => { let _ = e.select_wave_index(w % e.machine().waves.len()); false }
                Action::EditV(reg, lane, value) => {
                    let w = e.selected_wave;
                    let _ = e.write_register(w, RegisterWrite::VLane { reg, lane, value });
                    false
                }
                Action::EditU(reg, value) => {
                    let w = e.selected_wave;
                    let _ = e.write_register(w, RegisterWrite::U { reg, value });
                    false
                }
                Action::EditMemory(off, v) => {
                    let _ = e.write_memory(Space::Global, 0, 0, global + off, &[v]);
                    let _ = e.write_memory(Space::Shared, 0, 0, off, &[v]);
                    false
                }
            };
            if resumed {
                prop_assert!(same(e.previous(), &before), "after {:?}", a);
            }
        }
    }
}

/// Pages one array hands another (`sync_from`) are shared by both from then on: a write
/// to either side copies the page first, so the other keeps its bytes. Both directions,
/// and after a clone, on a page the writer had already made its own (the case where a
/// write skips the copy-on-write check).
#[test]
fn pages_handed_over_by_sync_from_stay_shared() {
    use wavedbg_emulator::memory::PagedBytes;
    let read = |b: &PagedBytes| {
        let mut x = [0u8; 1];
        b.read(10, &mut x);
        x[0]
    };
    // The source writes again after handing its page over.
    let mut copy = PagedBytes::zeroed(8192);
    let mut live = copy.clone();
    live.write(10, &[5]);
    live.write(10, &[6]);
    copy.sync_from(&live);
    live.write(10, &[7]);
    assert_eq!((read(&copy), read(&live)), (6, 7));
    // The receiver, whose own page was replaced, writes after taking the other's.
    copy.write(10, &[2]);
    copy.sync_from(&live);
    copy.write(10, &[8]);
    assert_eq!((read(&copy), read(&live)), (8, 7));
    // A clone shares every page; writes on either side stay on that side.
    let snapshot = live.clone();
    live.write(10, &[9]);
    assert_eq!((read(&snapshot), read(&live)), (7, 9));
    let mut other = snapshot.clone();
    other.write(10, &[1]);
    assert_eq!((read(&snapshot), read(&other), read(&live)), (7, 1, 9));
}
