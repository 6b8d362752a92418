//! The machine's tests, without the debugger: runs, scheduling and determinism, the
//! sanitizer's detectors, and the example and benchmark kernels.
//!
//! - `runs.rs`: random code never panics, running equals stepping, seeds and
//!   interleavings, barriers, deadlocks, budgets, faults, huge grids, async counters;
//! - `sanitizer.rs`: the sanitizer's detectors (races, reads before waits, uninitialised
//!   memory and registers) on the machine;
//! - `trace_runs.rs`: the sanitizer finds the same on the fast memory paths (runs and
//!   one-page accesses traced without an entry per lane) as lane by lane;
//! - `examples.rs`: the example kernels under scripts/ compute what they should;
//! - `bench_kernels.rs`: the benchmark kernels match their native implementations and are
//!   clean under the sanitizer.
//!
//! Each file's helpers differ (budgets, file names), so they stay in their file: this
//! crate has no fixtures module. The heap footprint test is its own binary
//! (`tests/footprint.rs`): it installs a counting global allocator.

mod bench_kernels;
mod examples;
mod memory_model;
mod runs;
mod sanitizer;
mod threads;
mod trace_runs;
