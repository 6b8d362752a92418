//! libFuzzer target `session`: the body is `wavedbg_fuzz::session`, shared with the stable runner.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wavedbg_fuzz::session(data));
