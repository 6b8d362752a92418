//! libFuzzer target `assemble`: the body is `wavedbg_fuzz::assemble`, shared with the stable runner.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wavedbg_fuzz::assemble(data));
