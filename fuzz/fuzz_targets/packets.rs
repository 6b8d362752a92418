//! libFuzzer target `packets`: the body is `wavedbg_fuzz::packets`, shared with the stable runner.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wavedbg_fuzz::packets(data));
