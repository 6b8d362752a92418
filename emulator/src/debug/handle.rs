//! Handles another thread holds while the engine runs: interrupting it and reading its
//! progress.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::machine::Machine;

/// A handle that interrupts a running engine from another thread.
#[derive(Debug, Clone)]
pub struct InterruptHandle(pub(super) Arc<AtomicBool>);

impl InterruptHandle {
    /// Asks the engine to stop as soon as possible (checked every few hundred instructions).
    /// A request made just before a run starts stops that run; each stop consumes it.
    pub fn interrupt(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Withdraws a request the engine has not acted on (the run it was meant for ended by
    /// itself), so it does not stop the next run.
    pub fn cancel(&self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

/// How far a run has got, readable from another thread while the engine runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Wave-instructions executed since the launch.
    pub instructions: u64,
    /// Waves of the launch not exited yet: resident ones still alive, plus those of
    /// workgroups not dispatched yet.
    pub waves_remaining: u64,
}

/// Reads a running engine's [`Progress`] from another thread (the engine publishes it
/// every few hundred instructions and at every stop).
#[derive(Debug, Clone, Default)]
pub struct ProgressHandle(pub(super) Arc<[AtomicU64; 2]>);

impl ProgressHandle {
    /// The last published progress.
    pub fn get(&self) -> Progress {
        Progress {
            instructions: self.0[0].load(Ordering::Relaxed),
            waves_remaining: self.0[1].load(Ordering::Relaxed),
        }
    }

    pub(super) fn publish(&self, m: &Machine) {
        self.0[0].store(m.stats.wave_instructions, Ordering::Relaxed);
        self.0[1].store(m.waves_remaining(), Ordering::Relaxed);
    }
}
