//! Each resident wave's active-lane count over the instructions it executed: a small ring
//! buffer per wave, fed from the machine at every stop (so one sample per instruction
//! while stepping, one per stop across a longer run). Samples are keyed by the wave's
//! instruction count, so time travel backwards drops the samples of the undone future.

use std::collections::{HashMap, VecDeque};

use wavedbg_emulator::machine::Machine;

/// Samples kept per wave (the oldest go first); the registers pane shows the last 48.
pub const SAMPLES: usize = 256;

/// One sample: the wave's instruction count and its active lanes then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// Instructions the wave had executed.
    pub executed: u64,
    /// Active lanes (EXEC's population count).
    pub active: u8,
}

/// The samples of every resident wave, by global wave id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Activity {
    waves: HashMap<u32, VecDeque<Sample>>,
}

impl Activity {
    /// Takes a sample of every resident wave (waves no longer resident are forgotten).
    pub fn sample(&mut self, m: &Machine) {
        self.waves.retain(|id, _| m.wave_index(*id).is_some());
        for w in &m.waves {
            let ring = self.waves.entry(w.id).or_default();
            // Back in time: what came after this point did not happen (yet).
            while ring.back().is_some_and(|s| s.executed > w.executed) {
                ring.pop_back();
            }
            let now = Sample {
                executed: w.executed,
                active: w.exec.count_ones() as u8,
            };
            match ring.back_mut() {
                // Same instruction: the debugger may have changed EXEC.
                Some(last) if last.executed == w.executed => *last = now,
                _ => {
                    ring.push_back(now);
                    if ring.len() > SAMPLES {
                        ring.pop_front();
                    }
                }
            }
        }
    }

    /// The samples of the wave `id`, oldest first.
    pub fn of(&self, id: u32) -> Vec<Sample> {
        self.waves
            .get(&id)
            .map(|r| r.iter().copied().collect())
            .unwrap_or_default()
    }
}
