//! Running the kernel for a resume packet, and the stop reply that reports it.
//!
//! gdb's actions map onto the engine like this:
//!
//! - a default continue (`vCont;c`, `c` with `Hc-1`, or lldb's bare `c`): every wave runs
//!   under the deterministic scheduler ([`Engine::continue_all`]);
//! - a step of one wave (`vCont;s:TID`, with or without a default continue): that wave
//!   executes one instruction while the others stay put. A wave waiting at a barrier
//!   first lets the other waves run (one instruction each, in turn) until the barrier
//!   releases it, unless gdb locked the scheduler;
//! - a continue of one wave only (`set scheduler-locking on`, then `continue`): that wave
//!   runs alone until something stops it.
//!
//! Every stop names the wave and the reason: a gdb breakpoint as `swbreak`, a gdb
//! watchpoint as `watch`/`rwatch`/`awatch` with its address, a step or an interrupt as
//! SIGTRAP/SIGINT with the thread, a fault as its signal (SIGSEGV, SIGBUS, SIGILL, SIGTRAP,
//! SIGXCPU) and a deadlock as SIGABRT, with the engine's description sent as console output
//! (and kept for `monitor why`). As in the engine, continuing after a fault runs the other
//! waves; when only faulted waves are left the launch is over and is reported as
//! terminated by the last fault's signal. Resuming after a deadlock terminates the launch
//! with SIGABRT. The end of the launch is an exit with code 0.

use std::sync::atomic::Ordering;

use gdbstub::common::{Signal, Tid};
use gdbstub::stub::MultiThreadStopReason;
use wavedbg_emulator::debug::{view, StopEvent, StopReason};
use wavedbg_emulator::machine::wave::WaveState;

use crate::target::{Actions, WaveTarget};

/// What the serve loop runs for a resume packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// Every wave runs.
    All,
    /// One wave (index) runs alone.
    Alone(usize),
    /// One wave executes one instruction; `others` may run if it must wait for them.
    Step {
        /// Wave index.
        wave: usize,
        /// Whether the scheduler is unlocked.
        others: bool,
    },
}

impl Plan {
    /// The plan for a `vCont`'s actions; `bare` is set for a bare `c` packet.
    pub(crate) fn from_actions(a: &Actions, bare: bool, listed: impl Fn(usize) -> bool) -> Plan {
        if let Some(wave) = a.step {
            return Plan::Step {
                wave,
                others: !a.locked,
            };
        }
        if bare || !a.locked {
            return Plan::All;
        }
        let mut waves = a.continues.iter().copied().filter(|&w| listed(w));
        match (waves.next(), waves.next()) {
            (Some(w), None) => Plan::Alone(w),
            // Several named waves: the engine runs one wave or all of them.
            _ => Plan::All,
        }
    }
}

/// A stop to report.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The stop reply.
    pub reason: MultiThreadStopReason<u64>,
    /// Text for the client's console (empty: none).
    pub console: String,
    /// The wave whose PC goes into the stop reply.
    pub wave: Option<usize>,
}

fn signal_named(name: &str) -> Signal {
    match name {
        "SIGILL" => Signal::SIGILL,
        "SIGBUS" => Signal::SIGBUS,
        "SIGSEGV" => Signal::SIGSEGV,
        "SIGXCPU" => Signal::SIGXCPU,
        "SIGABRT" => Signal::SIGABRT,
        _ => Signal::SIGTRAP,
    }
}

impl WaveTarget {
    /// Whether a plan ends after one instruction (nothing to interrupt).
    pub(crate) fn is_quick(&self, plan: Plan) -> bool {
        match plan {
            Plan::Step { wave, others } => {
                !others
                    || self.engine.machine().waves.get(wave).map(|w| w.state)
                        != Some(WaveState::AtBarrier)
            }
            _ => false,
        }
    }

    /// Runs a plan to its stop.
    pub(crate) fn execute(&mut self, plan: Plan) -> Outcome {
        self.ctrl_c.store(false, Ordering::SeqCst);
        // What the client removed and did not insert again before resuming goes now.
        self.settle_points();
        if let Some(signal) = self.terminal {
            return Outcome {
                reason: MultiThreadStopReason::Terminated(signal),
                console: String::new(),
                wave: None,
            };
        }
        self.last_stop_wave = None;
        let stop = match plan {
            Plan::All => self.engine.continue_all(),
            Plan::Alone(w) => self.locked_steps(w, u64::MAX),
            Plan::Step { wave, others } => self.step_wave(wave, others),
        };
        self.outcome(stop)
    }

    /// Runs wave `w` alone for up to `n` instructions (`u64::MAX`: until a stop).
    fn locked_steps(&mut self, w: usize, n: u64) -> StopEvent {
        self.engine.run_wave(w, n)
    }

    fn step_wave(&mut self, w: usize, others: bool) -> StopEvent {
        if others {
            self.engine.step_wave_releasing(w)
        } else {
            self.engine.run_wave(w, 1)
        }
    }

    /// How a stop names the client's breakpoints and watchpoints: by address, as gdb
    /// shows them (gdb's own numbers never reach the server).
    fn labels(&self, stop: &StopEvent) -> Vec<(u32, String)> {
        let m = self.engine.machine();
        match &stop.reason {
            StopReason::Breakpoint { id, .. } => self
                .breaks
                .iter()
                .filter(|b| b.engine_id == *id)
                .map(|b| {
                    let kind = if b.hw {
                        "Hardware breakpoint"
                    } else {
                        "Breakpoint"
                    };
                    (*id, format!("{kind} at {}", view::pc_text(m, b.addr)))
                })
                .collect(),
            StopReason::Watchpoint(hits) => hits
                .iter()
                .filter_map(|h| {
                    let w = self.watches.iter().find(|w| w.engine_id == h.id)?;
                    Some((h.id, w.label()))
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    fn first_listed(&self) -> Option<usize> {
        (0..self.engine.machine().waves.len()).find(|&w| self.listed(w))
    }

    /// The stop reply (and console text) for an engine stop.
    pub(crate) fn outcome(&mut self, stop: StopEvent) -> Outcome {
        self.last_stop_wave = stop.wave;
        self.stop_labels = self.labels(&stop);
        let wave = stop.wave.or_else(|| self.first_listed());
        let describe = |t: &Self| format!("{}\n", view::describe_stop(&t.engine, &stop));
        let signal = |sig: Signal| match wave.and_then(|w| Tid::new(w + 1)) {
            Some(tid) => MultiThreadStopReason::SignalWithThread { tid, signal: sig },
            None => MultiThreadStopReason::Signal(sig),
        };
        let tid = wave.and_then(|w| Tid::new(w + 1));
        let (reason, console) = match &stop.reason {
            StopReason::Breakpoint { id, .. } => {
                let mine = self.breaks.iter().any(|b| b.engine_id == *id);
                match tid {
                    Some(tid) if mine => (MultiThreadStopReason::SwBreak(tid), String::new()),
                    _ => (signal(Signal::SIGTRAP), describe(self)),
                }
            }
            StopReason::Watchpoint(hits) => {
                let gdb = hits
                    .iter()
                    .find_map(|h| self.watches.iter().find(|w| w.engine_id == h.id));
                match (gdb, tid) {
                    (Some(w), Some(tid)) => (
                        MultiThreadStopReason::Watch {
                            tid,
                            kind: w.kind,
                            addr: w.addr,
                        },
                        String::new(),
                    ),
                    _ => (signal(Signal::SIGTRAP), describe(self)),
                }
            }
            StopReason::Step | StopReason::Reached(_) => (signal(Signal::SIGTRAP), String::new()),
            StopReason::Interrupted => (signal(Signal::SIGINT), String::new()),
            StopReason::BreakInstruction
            | StopReason::Blocked(_)
            | StopReason::ConditionError { .. } => (signal(Signal::SIGTRAP), describe(self)),
            StopReason::Fault(f) => {
                let sig = signal_named(f.signal().0);
                self.last_fault = Some(sig);
                (signal(sig), describe(self))
            }
            StopReason::Terminated(_) => (
                MultiThreadStopReason::Terminated(self.last_fault.unwrap_or(Signal::SIGKILL)),
                describe(self),
            ),
            StopReason::Deadlock(_) => {
                self.terminal = Some(Signal::SIGABRT);
                (signal(Signal::SIGABRT), describe(self))
            }
            StopReason::Finished => (MultiThreadStopReason::Exited(0), describe(self)),
        };
        Outcome {
            reason,
            console,
            wave,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_follow_gdb_actions() {
        let all = |_| true;
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
        // lldb's bare `c` arrives as a locked continue of the last wave: run them all.
        assert_eq!(Plan::from_actions(&locked, true, all), Plan::All);
        assert_eq!(
            Plan::from_actions(&Actions::default(), false, all),
            Plan::All
        );
    }
}
