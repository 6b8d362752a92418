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
