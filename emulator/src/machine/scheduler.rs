//! Which wave runs next: deterministic round-robin or seeded SplitMix64 (docs/scheduling.md),
//! barrier release, and the deadlock a barrier that can never complete ends in.

use serde::{Deserialize, Serialize};

use super::{Event, Machine};
use crate::wave::{Wave, WaveState};

/// A workgroup barrier that can never complete because some of its waves cannot arrive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deadlock {
    /// Id of the stuck workgroup (0 to grid - 1).
    pub workgroup: u32,
    /// Waves waiting at the barrier: (global wave id, byte PC of the barrier instruction).
    pub waiting: Vec<(u32, u64)>,
    /// Waves that will never arrive: (global wave id, state). Exited or faulted; may be
    /// empty when nothing else in the machine can run (a global deadlock).
    pub missing: Vec<(u32, WaveState)>,
}

/// SplitMix64: tiny, seedable, and the same on every platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SplitMix64(pub(super) u64);

impl SplitMix64 {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The next turn after wave `current`'s: the wave to run and its quantum (`quantum`
/// instructions, or with a seeded generator a draw from 1..=2*quantum), or `None` when no
/// wave is ready. Round-robin takes the first ready wave after `current` (wrapping round
/// to it); a seeded generator draws any ready wave, then the quantum (no draw when none is
/// ready: the sequence depends only on real picks). The one rule [`Machine::schedule`]
/// and the run loop's turns within the fast loop (`run.rs`) both follow.
#[inline(always)]
pub(super) fn next_turn(
    waves: &[Wave],
    current: usize,
    rng: &mut Option<SplitMix64>,
    quantum: u32,
) -> Option<(usize, u32)> {
    let n = waves.len();
    let start = (current + 1).min(n);
    let ready = |i: &usize| waves[*i].state == WaveState::Ready;
    // Candidates in round-robin order after the current wave: current+1, ..., current.
    let order = || (start..n).chain(0..start).filter(ready);
    let pick = match rng {
        None => order().next()?,
        Some(r) => {
            let count = (0..n).filter(ready).count();
            if count == 0 {
                return None;
            }
            let k = r.below(count as u64) as usize;
            order().nth(k)?
        }
    };
    Some((pick, draw_quantum(quantum, rng)))
}

/// A turn's quantum: `quantum` (at least 1), or with a seeded generator a draw from
/// 1..=2*quantum.
#[inline(always)]
fn draw_quantum(quantum: u32, rng: &mut Option<SplitMix64>) -> u32 {
    let q = quantum.max(1);
    match rng {
        Some(r) => 1 + r.below(2 * q as u64) as u32,
        None => q,
    }
}

impl Machine {
    pub(super) fn quantum(&mut self) -> u32 {
        draw_quantum(self.options.quantum, &mut self.rng)
    }

    pub(super) fn waves_per_group(&self) -> usize {
        self.launch.waves_per_workgroup() as usize
    }

    /// The resident slot (index into the machine's slots, and so its shared memory) that
    /// wave index `wave` (into [`Machine::waves`]) belongs to.
    pub fn slot_of(&self, wave: usize) -> usize {
        slot_in(&self.wave_slots, self.waves_per_group(), wave)
    }

    /// Waves of the launch that have not exited: resident ones still alive, plus those of
    /// workgroups not dispatched yet.
    pub fn waves_remaining(&self) -> u64 {
        ((self.part.1 - self.part.0) as u64 * self.waves_per_group() as u64)
            .saturating_sub(self.ended)
    }

    /// Workgroups of the grid not dispatched into a slot yet (grid minus those dispatched).
    pub fn workgroups_pending(&self) -> u32 {
        self.part.1 - self.next_workgroup
    }

    /// How many workgroups have been dispatched so far (ids below it have started). A
    /// workgroup with a faulted wave keeps its slot, so the inspection sees the wave, and
    /// the workgroups after it that wait for that slot do not start.
    pub fn workgroups_started(&self) -> u32 {
        self.next_workgroup
    }

    /// Whether every workgroup has been dispatched and all waves have exited.
    pub fn finished(&self) -> bool {
        self.next_workgroup >= self.part.1
            && self.waves.iter().all(|w| w.state == WaveState::Exited)
    }

    /// Picks the wave to run next, or reports why none can.
    pub fn schedule(&mut self) -> Result<usize, Event> {
        if self.left > 0
            && self
                .waves
                .get(self.current)
                .is_some_and(|w| w.state == WaveState::Ready)
        {
            return Ok(self.current);
        }
        match next_turn(
            &self.waves,
            self.current,
            &mut self.rng,
            self.options.quantum,
        ) {
            Some((pick, left)) => {
                self.current = pick;
                self.left = left;
                Ok(pick)
            }
            None => Err(self.idle_reason()),
        }
    }

    fn idle_reason(&mut self) -> Event {
        if self.finished() {
            return Event::Finished;
        }
        // Every deadlock is named, whatever made it (a fault raises its own event, not
        // the deadlock it leaves): the first not named yet, else the first again.
        let mut first = None;
        for s in 0..self.slots.len() {
            if let Some(d) = self.deadlock_in(s, true) {
                if !self.deadlocks_named.contains(&d.workgroup) {
                    return self.deadlock_event(s, d);
                }
                first.get_or_insert((s, d));
            }
        }
        match first {
            Some((s, d)) => self.deadlock_event(s, d),
            None => Event::Stalled,
        }
    }

    /// The deadlock that keeps the whole launch from going on: no wave is ready (or held
    /// by the debugger, which a resume releases) and a barrier can never complete (the
    /// first such workgroup's). `None` when something can still run, or when the launch
    /// is over for another reason (finished, or only faulted waves left).
    pub fn launch_deadlock(&self) -> Option<Deadlock> {
        if self
            .waves
            .iter()
            .any(|w| matches!(w.state, WaveState::Ready | WaveState::Stopped))
        {
            return None;
        }
        (0..self.slots.len()).find_map(|s| self.deadlock_in(s, true))
    }

    /// The deadlock of the workgroup wave index `wave` belongs to, when it has one (its
    /// barrier can never complete), whatever the other workgroups can still do.
    pub fn workgroup_deadlock(&self, wave: usize) -> Option<Deadlock> {
        if wave >= self.waves.len() {
            return None;
        }
        self.deadlock_in(self.slot_of(wave), false)
    }

    /// A deadlock in slot `s`: waves wait at a barrier that exited or faulted waves (or,
    /// when `global` is set because nothing else can run, stopped waves) will never reach.
    pub(super) fn deadlock_in(&self, s: usize, global: bool) -> Option<Deadlock> {
        let wpg = self.waves_per_group();
        let group = &self.waves[s * wpg..(s + 1) * wpg];
        // A waiting wave's PC is already past its (32-bit) barrier: report the barrier's.
        let waiting: Vec<(u32, u64)> = group
            .iter()
            .filter(|w| w.state == WaveState::AtBarrier)
            .map(|w| (w.id, w.pc.wrapping_sub(4)))
            .collect();
        if waiting.is_empty() {
            return None;
        }
        let missing: Vec<(u32, WaveState)> = group
            .iter()
            .filter(|w| !w.alive())
            .map(|w| (w.id, w.state))
            .collect();
        let stuck = group
            .iter()
            .all(|w| w.state != WaveState::Ready && w.state != WaveState::Stopped);
        (!missing.is_empty() || (global && stuck)).then(|| Deadlock {
            workgroup: group[0].workgroup,
            waiting,
            missing,
        })
    }

    /// Releases slot `s`'s barrier if every wave has arrived.
    pub(super) fn try_release(&mut self, s: usize) {
        let wpg = self.waves_per_group();
        let group = &mut self.waves[s * wpg..(s + 1) * wpg];
        if group.iter().all(|w| w.state == WaveState::AtBarrier) {
            group.iter_mut().for_each(|w| w.state = WaveState::Ready);
            (s * wpg..(s + 1) * wpg).for_each(|w| self.touch(w));
        }
    }
}

/// [`Machine::slot_of`] from the machine's wave-to-slot table `wave_slots` (empty: wave
/// `i` is in slot `i / wpg`, `wpg` waves per workgroup), for loops that borrow the
/// machine's parts apart.
#[inline]
pub(super) fn slot_in(wave_slots: &[u32], wpg: usize, wave: usize) -> usize {
    match wave_slots.get(wave) {
        Some(&s) => s as usize,
        None => wave / wpg,
    }
}
