//! The benchmark kernels compute what their native implementations do (no timing here:
//! figures belong to `wavedbg bench` and docs/performance.md).

use wavedbg_emulator::bench::{verify, Kernel, WAVE_COUNTS};

#[test]
fn every_benchmark_kernel_matches_its_native_implementation() {
    for k in Kernel::ALL {
        for waves in WAVE_COUNTS {
            for iters in [1, 7, 300] {
                if let Err(e) = verify(k, waves, iters) {
                    panic!("{e}");
                }
            }
        }
    }
}

/// The kernels are correct for hardware too: every sanitizer detector runs clean on them
/// (the checked-* cases of `wavedbg bench` measure the sanitizer, not its findings).
#[test]
fn every_benchmark_and_example_kernel_is_clean_under_the_sanitizer() {
    use wavedbg_emulator::check::Checks;
    use wavedbg_emulator::machine::{Event, LaunchOptions, Machine};
    let mut programs: Vec<(String, wavedbg_emulator::program::Program)> = Vec::new();
    for k in Kernel::ALL {
        for waves in WAVE_COUNTS {
            let p = wavedbg_emulator::bench::program(k, waves, 40).expect("assembles");
            programs.push((format!("{} at {waves} waves", k.name()), p));
        }
    }
    for (name, src) in wavedbg_emulator::bench::EXAMPLES {
        let p = wavedbg_emulator::asm::assemble(src, name, None).expect("assembles");
        programs.push((name.to_string(), p));
    }
    for (name, p) in programs {
        let mut m = Machine::new(&p, LaunchOptions::default()).expect("launches");
        m.set_checks(Checks::ALL);
        let end = m.run(None);
        let found = m
            .sanitizer()
            .map(|s| s.findings().to_vec())
            .unwrap_or_default();
        assert!(found.is_empty(), "{name}: {:#?}", found);
        assert_eq!(end, Some(Event::Finished), "{name}");
    }
}
