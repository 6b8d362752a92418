//! Running the kernel for a resume packet, and the stop reply that reports it: the serve
//! loop ([`crate::session`]) runs the [`Plan`] that [`crate::target`] collected from the
//! packet ([`crate::plan`] says how gdb's actions map onto plans), then reports the stop.
//!
//! Every stop names the wave and the reason: a gdb breakpoint as `swbreak`, a gdb
//! watchpoint as `watch`/`rwatch`/`awatch` with its address, a step or an interrupt as
//! SIGTRAP/SIGINT with the thread, a fault as its signal (SIGSEGV, SIGBUS, SIGILL, SIGTRAP,
//! SIGXCPU) and a deadlock as SIGABRT, with the engine's description sent as console output
//! (and kept for `monitor why`). As in the engine, continuing after a fault runs the other
//! waves; when only faulted waves are left the launch is over and is reported as
//! terminated by the last fault's signal. Resuming after a deadlock terminates the launch
//! with SIGABRT; going back from it (`reverse-stepi`, `reverse-continue`) works as from
//! any stop. The end of the launch (every wave exited) is a SIGSTOP in a wave first,
//! so the client can read the final memory (and run backwards from there); the next
//! resumption is an exit with code 0.

use std::sync::atomic::Ordering;

use gdbstub::common::{Signal, Tid};
use gdbstub::stub::MultiThreadStopReason;
use gdbstub::target::ext::base::reverse_exec::ReplayLogPosition;
use wavedbg_emulator::debug::{view, Blocked, Reached, StopEvent, StopReason, AT_BARRIER_HINT};
use wavedbg_emulator::machine::wave::WaveState;

use crate::codes;
use crate::plan::Plan;
use crate::target::WaveTarget;

/// A stop to report.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The stop reply to send: signal and thread, a watchpoint hit, or an exit.
    pub reason: MultiThreadStopReason<u64>,
    /// Text for the client's console (empty: none).
    pub console: String,
    /// The PC that goes into the stop reply (the stopped wave's).
    pub pc: Option<u64>,
}

impl Outcome {
    /// The signal the stop is reported with: SIGTRAP for a breakpoint, a watchpoint or the
    /// start of the history (gdb's `T05` stops), none for the end of the process.
    fn signal(&self) -> Option<Signal> {
        match self.reason {
            MultiThreadStopReason::SignalWithThread { signal, .. }
            | MultiThreadStopReason::Signal(signal) => Some(signal),
            MultiThreadStopReason::Exited(_) | MultiThreadStopReason::Terminated(_) => None,
            _ => Some(Signal::SIGTRAP),
        }
    }
}

/// What lldb is told when a step stops at a barrier: its line and instruction steps run
/// the stepped thread alone (`-m this-thread` while stepping, its default).
const LLDB_AT_BARRIER: &str = "lldb steps one thread alone: `process continue`, or the same \
step again, lets the other waves reach the barrier and finishes the step (`thread step-over \
-m all-threads`, or step-in or step-inst with -m all-threads, does both at once)";

/// What the client's console says at the end of the kernel, after the engine's summary.
const ENDED: &str = "The kernel has finished: its memory can be read until the next \
resumption (continue, stepi), which ends the process.";

impl WaveTarget {
    /// The wave that reports the end of the kernel (its index and thread): the engine's
    /// selected wave, which exited like every other.
    fn end_wave(&self) -> Option<(usize, Tid)> {
        let w = self.engine.selected_wave;
        Some((w, self.tid(w)?))
    }

    /// Whether a plan ends after one instruction (nothing to interrupt).
    pub(crate) fn is_quick(&self, plan: Plan) -> bool {
        match self.insisted(plan) {
            Plan::Step { wave, others } => {
                !others
                    || self.engine.machine().waves.get(wave).map(|w| w.state)
                        != Some(WaveState::AtBarrier)
            }
            Plan::ReverseStep(_) => true,
            _ => false,
        }
    }

    /// Runs a plan to its stop.
    pub(crate) fn execute(&mut self, plan: Plan) -> Outcome {
        let plan = self.insisted(plan);
        let count = self.engine.machine().stats.wave_instructions;
        let outcome = self.execute_plan(plan);
        if let Some(signal) = outcome.signal() {
            self.last_signal = signal;
        }
        // A lone step that left the machine as it was: lldb will send it again.
        self.blocked_step = match plan {
            Plan::Step {
                wave,
                others: false,
            } if self.lldb
                && matches!(
                    outcome.reason,
                    MultiThreadStopReason::SignalWithThread {
                        signal: Signal::SIGSTOP,
                        ..
                    }
                )
                && self.engine.machine().stats.wave_instructions == count
                && !self.ended =>
            {
                Some((wave, count))
            }
            _ => None,
        };
        outcome
    }

    /// The plan to run for `plan`: for lldb, a lone step it sends again after that step
    /// could not move the wave (nothing ran since) is lldb resuming its interrupted step
    /// at a `process continue` (it keeps the step until it completes) or the user
    /// insisting. Refused again, lldb would never run another wave; so a wave at a
    /// barrier is stepped letting the others run to the barrier (as `-m all-threads`),
    /// and a wave that cannot move at all lets every wave run (as `continue`).
    fn insisted(&self, plan: Plan) -> Plan {
        let Plan::Step {
            wave,
            others: false,
        } = plan
        else {
            return plan;
        };
        let count = self.engine.machine().stats.wave_instructions;
        if !self.lldb || self.blocked_step != Some((wave, count)) {
            return plan;
        }
        match self.engine.machine().waves.get(wave).map(|w| w.state) {
            Some(WaveState::AtBarrier) => Plan::Step { wave, others: true },
            _ => Plan::All,
        }
    }

    fn execute_plan(&mut self, plan: Plan) -> Outcome {
        self.ctrl_c.store(false, Ordering::SeqCst);
        // What the client removed and did not insert again before resuming goes now, and
        // the refusals of points it could not insert are over.
        self.settle_points();
        self.refused_points.clear();
        let reverse = matches!(plan, Plan::ReverseStep(_) | Plan::ReverseCont);
        if let Some(signal) = self.terminal.filter(|_| !reverse) {
            return Outcome {
                reason: MultiThreadStopReason::Terminated(signal),
                console: String::new(),
                pc: None,
            };
        }
        if self.ended && !reverse {
            // Resumed after the end was reported: the process ends now.
            return Outcome {
                reason: MultiThreadStopReason::Exited(0),
                console: String::new(),
                pc: None,
            };
        }
        // Going back from the deadlock (as from the end) leaves it: the launch goes on.
        self.ended = false;
        self.terminal = None;
        if let (Some(id), Some(crate::target::GONE)) = (self.ghost, plan.wave()) {
            // The client resumed the last stop's exited wave alone: it stays exited.
            let stop = self
                .engine
                .retired_event(StopReason::Blocked(Blocked::Exited), id);
            return self.outcome(stop);
        }
        self.last_stop_wave = None;
        self.ghost = None;
        self.on_ghost = false;
        if self.lldb {
            self.resumed_at.clear();
            let waves = &self.engine.machine().waves;
            self.resumed_at
                .extend(waves.iter().map(|w| (w.id, w.executed)));
        }
        let stop = match plan {
            Plan::All => self.engine.continue_all(),
            // Until something stops it.
            Plan::Alone(w) => self.engine.run_wave(w, u64::MAX),
            Plan::Step { wave, others: true } => self.engine.step_wave_releasing(wave),
            Plan::Step {
                wave,
                others: false,
            } => self.engine.run_wave(wave, 1),
            Plan::RangeStep {
                wave,
                others,
                start,
                end,
            } => self.engine.step_range(wave, start, end, others),
            Plan::ReverseStep(w) => {
                // The wave gdb names is the one that goes back.
                let _ = self.engine.select_wave_index(w);
                let (stop, note) = self.engine.reverse_step_explained(1);
                // Right after a fault the PC stays (the fault is undone): say so.
                let mut out = self.outcome(stop);
                if let Some(note) = note {
                    out.console.push_str(&note);
                }
                return out;
            }
            Plan::ReverseCont => self.engine.reverse_continue(),
        };
        self.outcome(stop)
    }

    /// The stop reply (and console text) for an engine stop.
    pub(crate) fn outcome(&mut self, stop: StopEvent) -> Outcome {
        self.last_stop_wave = stop.wave;
        // A wave that exited as its slot was refilled stops as itself, until the next
        // resumption.
        self.ghost = stop
            .wave_id
            .filter(|&id| stop.wave.is_none() && self.engine.machine().retired_wave(id).is_some());
        self.on_ghost = self.ghost.is_some();
        let wave = stop.wave.or_else(|| self.listed_waves().next());
        let (tid, pc) = match self.ghost {
            Some(id) => (Tid::new(id as usize + 1), stop.pc),
            None => (
                wave.and_then(|w| self.tid(w)),
                wave.and_then(|w| self.engine.machine().waves.get(w))
                    .map(|w| w.pc),
            ),
        };
        let describe = |t: &Self| format!("{}\n", view::describe_stop(&t.engine, &stop));
        // "[wave N (workgroup G) exited]" when the stopped wave has exited (a wave whose
        // slot another took at once is the last stop's ghost).
        let exit_notice = |t: &Self| {
            t.ghost_wave()
                .or_else(|| wave.and_then(|w| t.engine.machine().waves.get(w)))
                .filter(|w| w.state == WaveState::Exited)
                .map(|w| format!("[wave {} (workgroup {}) exited]\n", w.id, w.workgroup))
                .unwrap_or_default()
        };
        let signal = |signal: Signal| match tid {
            Some(tid) => MultiThreadStopReason::SignalWithThread { tid, signal },
            None => MultiThreadStopReason::Signal(signal),
        };
        let (reason, console) = match &stop.reason {
            StopReason::Breakpoint { id, .. } => match tid {
                Some(tid) if self.breaks.by_engine_id(*id).is_some() => {
                    (MultiThreadStopReason::SwBreak(tid), String::new())
                }
                _ => (signal(Signal::SIGTRAP), describe(self)),
            },
            StopReason::Watchpoint(hits) => {
                let gdb = hits.iter().find_map(|h| self.watches.by_engine_id(h.id));
                match (gdb, tid) {
                    (Some(w), Some(tid)) => (
                        MultiThreadStopReason::Watch {
                            tid,
                            kind: w.at.kind,
                            addr: w.at.addr,
                        },
                        String::new(),
                    ),
                    _ => (signal(Signal::SIGTRAP), describe(self)),
                }
            }
            // A wave run alone (a locked continue) to its end: a stop of its own (a trap
            // after a continue is a stray signal to gdb), with the exit notice.
            StopReason::Reached(Reached::Exit) => (signal(Signal::SIGSTOP), exit_notice(self)),
            // A step that ran the wave's `end`: say so (its PC is past the code, where the
            // clients show no line; a step from there says the wave has exited).
            StopReason::Step | StopReason::Reached(_) => {
                (signal(Signal::SIGTRAP), exit_notice(self))
            }
            StopReason::Interrupted => (signal(Signal::SIGINT), String::new()),
            // At the start of the history gdb says "No more reverse-execution history."
            StopReason::Blocked(Blocked::HistoryStart) => (
                MultiThreadStopReason::ReplayLog {
                    tid,
                    pos: ReplayLogPosition::Begin,
                },
                String::new(),
            ),
            // A wave that cannot move (waiting at a barrier for frozen waves, exited,
            // faulted): not a trap at the same PC, which a client's step takes for a step
            // still to finish and repeats for ever (lldb's `thread step-inst`), but a stop
            // of its own, with the reason on the console.
            // lldb gets its own way out, not gdb's `set scheduler-locking off`.
            StopReason::Blocked(Blocked::AtBarrier) if self.lldb => (
                signal(Signal::SIGSTOP),
                format!(
                    "{}{LLDB_AT_BARRIER}\n",
                    describe(self).replacen(AT_BARRIER_HINT, "", 1)
                ),
            ),
            // A forward resumption that found the launch-wide deadlock again (a reverse
            // resumption that did not move, an interrupted reverse-continue, cleared the
            // end): the deadlock's stop again, which ends the launch at the next one.
            StopReason::Deadlocked(_) if self.engine.machine().launch_deadlock().is_some() => {
                self.terminal = Some(Signal::SIGABRT);
                (signal(Signal::SIGABRT), describe(self))
            }
            // A wave run alone at a barrier its workgroup's deadlock keeps shut, while
            // other workgroups can run.
            StopReason::Blocked(_) | StopReason::Deadlocked(_) => {
                (signal(Signal::SIGSTOP), describe(self))
            }
            // A sanitizer finding: a trap, with both sides on gdb's console (`monitor why`
            // and `monitor info findings` show it again).
            StopReason::BreakInstruction
            | StopReason::Finding(_)
            | StopReason::ConditionError { .. } => (signal(Signal::SIGTRAP), describe(self)),
            StopReason::Fault(f) => {
                let (_, number) = f.signal();
                let sig = codes::signal(number);
                self.last_fault = Some(sig);
                let mut text = describe(self);
                text.push_str(&crate::memory::fault_addr_line(f).unwrap_or_default());
                (signal(sig), text)
            }
            StopReason::Terminated(_) => (
                MultiThreadStopReason::Terminated(self.last_fault.unwrap_or(Signal::SIGKILL)),
                describe(self),
            ),
            StopReason::Deadlock(_) => {
                self.terminal = Some(Signal::SIGABRT);
                (signal(Signal::SIGABRT), describe(self))
            }
            // The end is a stop first, so the client can still read the final memory (gdb
            // reads a process's memory only while it has one: after the exit it shows the
            // symbol file's buffers, which hold no bytes); the next resumption exits.
            StopReason::Finished => match self.end_wave() {
                Some((w, tid)) => {
                    self.ended = true;
                    self.last_stop_wave = Some(w);
                    let pc = self.engine.machine().waves[w].pc;
                    return Outcome {
                        reason: MultiThreadStopReason::SignalWithThread {
                            tid,
                            signal: Signal::SIGSTOP,
                        },
                        console: format!("{}{ENDED}\n", describe(self)),
                        pc: Some(pc),
                    };
                }
                None => (MultiThreadStopReason::Exited(0), describe(self)),
            },
        };
        Outcome {
            reason,
            console,
            pc,
        }
    }
}

#[cfg(test)]
mod tests {
    use gdbstub::target::ext::breakpoints::{HwWatchpoint, SwBreakpoint, WatchKind};

    use super::*;
    use crate::memory::Window;
    use crate::target::monitor::run;
    use crate::target::monitor::tests::target;

    #[test]
    fn why_and_info_name_the_clients_points_by_address() {
        let mut t = target();
        let a = Window::shared_addr(0, 8);
        assert!(t.add_hw_watchpoint(a, 4, WatchKind::Write).is_ok());
        assert!(t.add_sw_breakpoint(4, 1).is_ok());
        let own = run(&mut t, "watch shared:12");
        assert!(own.contains("watchpoint 3"), "{own}");
        // The client resumes past its breakpoint: it removes it and steps over it.
        assert!(t.remove_sw_breakpoint(4, 1).is_ok());
        let _ = t.execute(Plan::All);
        let why = run(&mut t, "why");
        assert!(
            why.starts_with(
                "Hardware watchpoint at 0x8000000000000008 (shared:0x8 of workgroup 0, 4 bytes) [count 3]\n  written by wave 0 lane 2"
            ),
            "{why}"
        );
        // The engine's own watchpoint keeps its number (3).
        assert!(
            why.contains("Hardware watchpoint 3: shared:0xc (4 bytes)"),
            "{why}"
        );
        let info = run(&mut t, "info watchpoints");
        assert!(info.contains("3    hw watchpoint"), "{info}");
        assert!(
            info.contains("Inserted by the client (which numbers them itself):\n  Hardware watchpoint at 0x8000000000000008"),
            "{info}"
        );
        assert!(!info.contains("\n1 ") && !info.contains("\n2 "), "{info}");
        // `delete` deletes the engine's own only; the client's cannot be deleted here.
        let gdb_id = t.watches[0].engine_id;
        assert!(run(&mut t, &format!("delete {gdb_id}")).contains("inserted by the client"));
        assert!(run(&mut t, "delete").is_empty());
        assert_eq!(t.engine().watchpoints().len(), 1);
        assert!(run(&mut t, "info breakpoints").starts_with("Inserted by the client"));
    }

    /// A range step runs the wave while its PC is in the range and stops at the first PC
    /// outside it, or earlier at a breakpoint inside it (the client's, at 0xc); the other
    /// wave stays put; an empty range is one instruction.
    #[test]
    fn a_range_step_stops_where_single_steps_would() {
        let range = |t: &mut crate::target::WaveTarget, start, end| {
            t.execute(Plan::RangeStep {
                wave: 0,
                others: false,
                start,
                end,
            })
        };
        let pcs = |t: &crate::target::WaveTarget| -> Vec<u64> {
            t.engine().machine().waves.iter().map(|w| w.pc).collect()
        };
        let mut t = target();
        let out = range(&mut t, 0, 0x14);
        assert!(matches!(
            out.reason,
            MultiThreadStopReason::SignalWithThread {
                signal: Signal::SIGTRAP,
                ..
            }
        ));
        assert_eq!(pcs(&t), [0x14, 0]);
        let mut t = target();
        assert!(t.add_sw_breakpoint(0xc, 1).is_ok());
        let out = range(&mut t, 0, 0x18);
        assert!(matches!(out.reason, MultiThreadStopReason::SwBreak(_)));
        assert_eq!(pcs(&t), [0xc, 0]);
        let mut t = target();
        let _ = range(&mut t, 0, 0);
        assert_eq!(pcs(&t), [0x4, 0]);
    }

    /// A range over a barrier: with the scheduler unlocked the other wave runs to the
    /// barrier and the range goes on past it; locked, the wave stops at the barrier
    /// (SIGSTOP, the reason in the console), as a single step there would.
    #[test]
    fn a_range_step_over_a_barrier_lets_the_others_release_it_when_unlocked() {
        let src = "\
.kernel b
.workgroup 64
.grid 1
    vlaneid v0
    barrier
    vmovi v1, 1
    end
";
        for (others, pc0) in [(true, 0x10), (false, 0x8)] {
            let mut t = crate::target::WaveTarget::new(crate::testing::engine(src, 8));
            let out = t.execute(Plan::RangeStep {
                wave: 0,
                others,
                start: 0,
                end: 0x10,
            });
            let pcs: Vec<u64> = t.engine().machine().waves.iter().map(|w| w.pc).collect();
            assert_eq!(pcs[0], pc0, "others {others}: {out:?}");
            if !others {
                assert!(
                    matches!(
                        out.reason,
                        MultiThreadStopReason::SignalWithThread {
                            signal: Signal::SIGSTOP,
                            ..
                        }
                    ),
                    "{out:?}"
                );
                assert_eq!(pcs[1], 0, "the other wave stays put");
            }
        }
    }
}
