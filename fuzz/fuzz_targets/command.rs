//! libFuzzer target `command`: the body is `wavedbg_fuzz::command`, shared with the stable runner.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wavedbg_fuzz::command(data));
