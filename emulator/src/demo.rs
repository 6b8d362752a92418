//! The built-in demo kernel, embedded so `wavedbg` with no arguments has something real to
//! debug from any directory: the histogram example (shared-memory atomics, barriers,
//! global atomics, 4 workgroups of 8 waves).

use crate::asm::assemble;
use crate::program::Program;

/// The demo's source (scripts/histogram.s).
pub const SOURCE: &str = include_str!("../../scripts/histogram.s");

/// The name the demo is shown under.
pub const NAME: &str = "demo:histogram.s";

/// The demo, assembled.
pub fn program() -> Program {
    // The embedded source is tested to assemble; an error here is a build defect.
    match assemble(SOURCE, NAME, None) {
        Ok(p) => p,
        Err(e) => panic!("the built-in demo does not assemble: {e}"),
    }
}
