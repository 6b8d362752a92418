//! libFuzzer target `object`: the body is `wavedbg_fuzz::object`, shared with the stable runner.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wavedbg_fuzz::object(data));
