//! What a resume packet asks for, as plain data: the [`Actions`] gdbstub hands the target
//! one by one while it parses a `vCont` (or `c`/`s`), and the [`Plan`] the serve loop runs
//! once the packet is handled ([`crate::run`]).
//!
//! gdb's actions map onto the engine like this:
//!
//! - a default continue (`vCont;c`, `c` with `Hc-1`, or lldb's bare `c`): every wave runs
//!   under the deterministic scheduler;
//! - a step of one wave (`vCont;s:TID`, with or without a default continue, or with the
//!   other threads continued by name as lldb's `-m all-threads` does): that wave
//!   executes one instruction while the others stay put. A wave waiting at a barrier
//!   first lets the other waves run (one instruction each, in turn) until the barrier
//!   releases it, unless the client locked the scheduler (no continue at all);
//! - a continue of one wave only (`set scheduler-locking on`, then `continue`): that wave
//!   runs alone until something stops it;
//! - a range step of one wave (`vCont;r START,END:TID`, gdb's `step` and `next` over a
//!   source line of several instructions): as a step, repeated in the server while the
//!   wave's PC stays in `[START, END)` (`Engine::step_range`), so a line costs one packet.

/// How the client asked the waves to resume, collected from `vCont` actions.
#[derive(Debug, Default, Clone)]
pub struct Actions {
    /// Wave indexes to continue.
    pub continues: Vec<usize>,
    /// The wave index to step.
    pub step: Option<usize>,
    /// The range `[start, end)` of a range step of the `step` wave.
    pub range: Option<(u64, u64)>,
    /// No default continue: only the named waves may run.
    pub locked: bool,
    /// Every wave an action named so far: the protocol applies a thread's leftmost
    /// action, so later ones for it are ignored (`vCont;c:1;s:1` continues thread 1).
    pub named: Vec<usize>,
}

impl Actions {
    /// Records a continue of wave `w`, unless an earlier action named it.
    pub fn continue_wave(&mut self, w: usize) {
        if !self.named.contains(&w) {
            self.named.push(w);
            self.continues.push(w);
        }
    }

    /// Records a step of wave `w`, unless an earlier action named it (or stepped another
    /// wave: the engine steps one wave at a time, the leftmost).
    pub fn step_wave(&mut self, w: usize) {
        self.step_wave_in(w, None);
    }

    /// Records a range step of wave `w` (`vCont;r START,END`): steps while its PC is in
    /// `[start, end)`; as [`Actions::step_wave`] otherwise.
    pub fn range_step_wave(&mut self, w: usize, start: u64, end: u64) {
        self.step_wave_in(w, Some((start, end)));
    }

    fn step_wave_in(&mut self, w: usize, range: Option<(u64, u64)>) {
        if !self.named.contains(&w) {
            self.named.push(w);
            if self.step.is_none() {
                self.step = Some(w);
                self.range = range;
            }
        }
    }
}

/// What the serve loop runs for a resume packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// Every wave runs under the deterministic scheduler until something stops it.
    All,
    /// One wave (index) runs alone.
    Alone(usize),
    /// One wave executes one instruction; `others` may run if it must wait for them.
    Step {
        /// The wave's index in the machine's waves (not its thread id).
        wave: usize,
        /// Whether the scheduler is unlocked.
        others: bool,
    },
    /// A range step: as `Step`, repeated while the wave's PC is in `[start, end)`.
    RangeStep {
        /// The wave's index in the machine's waves.
        wave: usize,
        /// Whether the scheduler is unlocked.
        others: bool,
        /// The range's first address.
        start: u64,
        /// The address past the range.
        end: u64,
    },
    /// `reverse-stepi` of one wave (index): the machine one of its instructions back.
    ReverseStep(usize),
    /// `reverse-continue`: back to the previous breakpoint or watchpoint stop.
    ReverseCont,
}

impl Plan {
    /// The one wave a plan runs, if it names one.
    pub(crate) fn wave(self) -> Option<usize> {
        match self {
            Plan::Alone(w)
            | Plan::Step { wave: w, .. }
            | Plan::RangeStep { wave: w, .. }
            | Plan::ReverseStep(w) => Some(w),
            Plan::All | Plan::ReverseCont => None,
        }
    }

    /// The plan for a `vCont`'s actions; `bare` is set for a bare `c` packet; `listed`
    /// holds the listed threads' wave indexes. A continue that names every listed thread
    /// is a continue of all (lldb names each thread to pass a signal: with one wave,
    /// `vCont;C0b:0001` after a fault is its plain `process continue`).
    pub(crate) fn from_actions(a: &Actions, bare: bool, listed: &[usize]) -> Plan {
        if let Some(wave) = a.step {
            // Other waves continued by name may run too (the engine runs one wave or all).
            let others = !a.locked || !a.continues.is_empty();
            return match a.range {
                Some((start, end)) => Plan::RangeStep {
                    wave,
                    others,
                    start,
                    end,
                },
                None => Plan::Step { wave, others },
            };
        }
        if bare
            || !a.locked
            || (!listed.is_empty() && listed.iter().all(|w| a.continues.contains(w)))
        {
            return Plan::All;
        }
        // (A wave that is gone, the last stop's exited one, is named as itself: it stops
        // again as exited.)
        let mut waves = a
            .continues
            .iter()
            .copied()
            .filter(|&w| listed.contains(&w) || w == crate::target::GONE);
        match (waves.next(), waves.next()) {
            (Some(w), None) => Plan::Alone(w),
            // Several named waves: the engine runs one wave or all of them.
            _ => Plan::All,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_follow_gdb_actions() {
        let all: &[usize] = &[0, 1, 2, 3];
        let step = Actions {
            step: Some(2),
            ..Default::default()
        };
        assert_eq!(
            Plan::from_actions(&step, false, all),
            Plan::Step {
                wave: 2,
                others: true
            }
        );
        let locked = Actions {
            continues: vec![1],
            locked: true,
            ..Default::default()
        };
        assert_eq!(Plan::from_actions(&locked, false, all), Plan::Alone(1));
        // lldb's `-m all-threads` step: `vCont;c:2;c:3;s:1`, every other thread by name.
        let named = Actions {
            continues: vec![1, 2],
            step: Some(0),
            locked: true,
            ..Default::default()
        };
        assert_eq!(
            Plan::from_actions(&named, false, all),
            Plan::Step {
                wave: 0,
                others: true
            }
        );
        // A step alone (`vCont;s:1`, lldb's default while stepping) keeps the others put.
        let alone = Actions {
            step: Some(0),
            locked: true,
            ..Default::default()
        };
        assert_eq!(
            Plan::from_actions(&alone, false, all),
            Plan::Step {
                wave: 0,
                others: false
            }
        );
        // lldb's bare `c` arrives as a locked continue of the last wave: run them all.
        assert_eq!(Plan::from_actions(&locked, true, all), Plan::All);
        assert_eq!(
            Plan::from_actions(&Actions::default(), false, all),
            Plan::All
        );
    }

    /// `vCont;r 6c,90:p1.1` under `scheduler-locking step` (no default continue): wave 0
    /// steps alone through the range; with a default continue the others may run while
    /// it waits at a barrier, as for a step. A later range step of another wave is
    /// ignored, as a second step is.
    #[test]
    fn a_range_step_is_a_step_with_its_range() {
        let all: &[usize] = &[0, 1];
        let mut a = Actions {
            locked: true,
            ..Default::default()
        };
        a.range_step_wave(0, 0x6c, 0x90);
        a.range_step_wave(1, 0x10, 0x20);
        let plan = Plan::from_actions(&a, false, all);
        assert_eq!(
            plan,
            Plan::RangeStep {
                wave: 0,
                others: false,
                start: 0x6c,
                end: 0x90
            }
        );
        assert_eq!(plan.wave(), Some(0));
        a.locked = false;
        assert!(matches!(
            Plan::from_actions(&a, false, all),
            Plan::RangeStep { others: true, .. }
        ));
        // A plain step after a range step of the same wave changes nothing.
        a.step_wave(0);
        assert_eq!(a.range, Some((0x6c, 0x90)));
    }

    #[test]
    fn a_continue_naming_every_thread_runs_all() {
        // lldb's continue after a fault in a one-wave kernel: `vCont;C0b:0001`.
        let mut a = Actions {
            locked: true,
            ..Default::default()
        };
        a.continue_wave(0);
        assert_eq!(Plan::from_actions(&a, false, &[0]), Plan::All);
        // One of two listed waves named: that wave alone (a locked continue naming
        // several waves runs them all).
        assert_eq!(Plan::from_actions(&a, false, &[0, 1]), Plan::Alone(0));
    }

    #[test]
    fn a_threads_leftmost_action_wins() {
        // `vCont;c:1;s:1`: thread 1 continues (no step).
        let mut a = Actions {
            locked: true,
            ..Default::default()
        };
        a.continue_wave(0);
        a.step_wave(0);
        assert_eq!(a.step, None);
        assert_eq!(Plan::from_actions(&a, false, &[0, 1]), Plan::Alone(0));
        // `vCont;s:1;c:1`: it steps.
        let mut a = Actions {
            locked: true,
            ..Default::default()
        };
        a.step_wave(0);
        a.continue_wave(0);
        assert_eq!(
            Plan::from_actions(&a, false, &[0, 1]),
            Plan::Step {
                wave: 0,
                others: false
            }
        );
    }
}
