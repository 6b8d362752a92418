//! The one typed stop event every front end receives: why the run stopped, where, and
//! the watchpoint hits with their old and new values.

use std::sync::atomic::Ordering;

use super::breakpoint::WatchKind;
use super::Engine;
use crate::exec::AccessKind;
use crate::fault::Fault;
use crate::machine::{Deadlock, Event};
use crate::memory::Space;
use crate::wave::WaveState;

/// One watchpoint trigger: who touched the range, and the values before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchHit {
    /// The watchpoint's number (as `info breakpoints` lists it).
    pub id: u32,
    /// Write, read or access watchpoint.
    pub kind: WatchKind,
    /// The watched space (global, shared or scratch).
    pub space: Space,
    /// Watched address: global address, or offset in the shared window or scratch.
    pub addr: u64,
    /// Watched length in bytes.
    pub len: u64,
    /// Lanes that touched the range.
    pub lanes: u32,
    /// PC of the accessing instruction (the wave's PC is already past it: the stop is
    /// precise, right after the access).
    pub pc: u64,
    /// How they touched it (the strongest: read-write beats write beats read).
    pub access: AccessKind,
    /// The watched bytes before the instruction (the first 4096 of a longer range).
    pub old: Vec<u8>,
    /// The watched bytes after the instruction (as many as `old`).
    pub new: Vec<u8>,
}

/// What a run to a goal reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reached {
    /// The `advance` address.
    Address(u64),
    /// The wave's barrier (`advance barrier`).
    Barrier,
    /// The wave's end (`finish`).
    Exit,
    /// Right before the wave's first instruction (`reverse-finish`).
    Entry,
    /// A point of the recorded history by its instruction count (`goto`).
    Count(u64),
    /// A side of a sanitizer finding (`finding N`): right before its instruction.
    Finding {
        /// The finding's number, as `info findings` lists it.
        number: u64,
        /// Which side.
        side: super::FindingSide,
        /// The side's lanes (bit per lane); at the second side of a read of inactive
        /// lanes, the source lanes whose value the instruction there last wrote.
        lanes: u32,
    },
}

impl std::fmt::Display for Reached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reached::Address(a) => f.write_str(&super::view::addr_text(*a)),
            Reached::Barrier => f.write_str("barrier"),
            Reached::Exit => f.write_str("exit"),
            Reached::Entry => f.write_str("entry"),
            Reached::Count(n) => write!(f, "instruction {n}"),
            Reached::Finding { number, side, .. } => {
                write!(f, "the {} side of finding {number}", side.word())
            }
        }
    }
}

/// Why nothing could run the way the front end asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Blocked {
    /// No wave at this index.
    #[error("no wave with index {0}")]
    NoWave(usize),
    /// The wave waits at a barrier while the others are frozen by scheduler locking.
    #[error(
        "the wave waits at a barrier for the other waves of its workgroup, which are frozen{}",
        AT_BARRIER_HINT
    )]
    AtBarrier,
    /// The wave waits at a barrier, and the command runs it alone whatever scheduler
    /// locking says (`stepi alone`, the TUI's `s` with scheduler-locking off).
    #[error("the wave waits at a barrier for the other waves of its workgroup, and a wave run alone cannot release it (continue, or stepi all)")]
    AtBarrierAlone,
    /// The wave has exited.
    #[error("the wave has exited")]
    Exited,
    /// The wave has faulted.
    #[error("the wave has faulted")]
    Faulted,
    /// Every wave is stopped by the debugger or waiting.
    #[error("no wave can run")]
    NoWaveCanRun,
    /// A reverse command reached the start of the recorded history (the launch, or the
    /// wave's first instruction).
    #[error("no more reverse-execution history")]
    HistoryStart,
}

/// The way out [`Blocked::AtBarrier`] names, in gdb's and the REPL's words; a front end
/// whose client has other words (lldb) puts its own in place of this.
pub const AT_BARRIER_HINT: &str = " (continue, or set scheduler-locking off)";

/// What is left of a launch that cannot go on because its remaining waves faulted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terminated {
    /// Global ids of the faulted waves.
    pub faulted: Vec<u32>,
    /// Resident waves that exited.
    pub exited: usize,
    /// Workgroups still waiting to be dispatched (which now never run).
    pub never_ran: u32,
    /// The launch's instruction budget, when it is spent: no wave can go on, the ready
    /// ones included (each would fault at its next instruction).
    pub budget: Option<u64>,
}

impl std::fmt::Display for Terminated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let ids: Vec<String> = self.faulted.iter().map(u32::to_string).collect();
        let faulted = format!(
            "faulted wave{} {}",
            plural(self.faulted.len()),
            ids.join(", ")
        );
        match self.budget {
            Some(limit) => write!(
                f,
                "the instruction budget of {limit} is spent, so no wave can go on ({faulted})"
            )?,
            None => write!(f, "{faulted} cannot go on")?,
        }
        write!(
            f,
            "; {} resident wave{} exited",
            self.exited,
            plural(self.exited)
        )?;
        if self.never_ran > 0 {
            write!(
                f,
                "; {} workgroup{} never ran",
                self.never_ran,
                plural(self.never_ran as usize)
            )?;
        }
        Ok(())
    }
}

/// Why execution stopped, one reason per stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// A breakpoint; `lanes` satisfied its condition (or were active).
    Breakpoint {
        /// The breakpoint's number.
        id: u32,
        /// Lanes that satisfied the condition and filters (all active lanes without a condition):
        /// a bit per lane, bit `i` = lane `i`. With a condition or a lane filter, never 0;
        /// without, 0 when EXEC is 0 (the wave reached the breakpoint with no lane active).
        lanes: u32,
    },
    /// One or more watchpoints triggered by the instruction just executed.
    Watchpoint(Vec<WatchHit>),
    /// A step finished.
    Step,
    /// `advance`/`until` reached its address, or a wave reached its barrier or exited.
    Reached(Reached),
    /// The program's `brk` instruction.
    BreakInstruction,
    /// A wave faulted.
    Fault(Fault),
    /// A barrier can never complete.
    Deadlock(Deadlock),
    /// A forward resume found nothing it could run because of a deadlock: the launch is
    /// deadlocked (no wave can run; a continue or step after a `Deadlock` stop), or the
    /// wave run alone waits at its workgroup's barrier that can never complete. Nothing
    /// ran; the state stays to be inspected or run backwards (not terminal).
    Deadlocked(Deadlock),
    /// Every wave has exited.
    Finished,
    /// Interrupted (Ctrl-C, `interrupt`).
    Interrupted,
    /// Nothing can run the way asked (e.g. the selected wave waits at a barrier while the
    /// other waves are frozen).
    Blocked(Blocked),
    /// The launch cannot go on: the waves left have faulted.
    Terminated(Terminated),
    /// The sanitizer found something new in the instruction just executed (the wave's
    /// PC is past it, as after a watchpoint).
    Finding(Vec<crate::check::Finding>),
    /// A breakpoint condition could not be evaluated.
    ConditionError {
        /// The breakpoint's number.
        id: u32,
        /// The evaluation error's message, as shown at the stop.
        message: String,
    },
}

/// A stop, with everything a front end needs to show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopEvent {
    /// Why the run stopped; the other fields say where.
    pub reason: StopReason,
    /// The wave concerned (index in [`Machine::waves`](crate::machine::Machine::waves)), if any.
    pub wave: Option<usize>,
    /// The stopped wave's global id (`None` with `wave`).
    pub wave_id: Option<u32>,
    /// Its PC at the stop.
    pub pc: Option<u64>,
    /// Wave-instructions executed since the launch.
    pub instructions: u64,
    /// Watchpoints the stop's instruction also triggered when the run stopped for another
    /// reason (a sanitizer finding made by the same instruction): reported with it.
    pub watch: Vec<WatchHit>,
}

impl StopEvent {
    /// The instruction budget that ran out, when the launch stopped at it (a budget fault):
    /// what ran is not what was meant, so `wavedbg replay` and `wavedbg run` fail.
    pub fn budget_exhausted(&self) -> Option<u64> {
        match &self.reason {
            StopReason::Fault(Fault {
                kind: crate::fault::FaultKind::BudgetExhausted { limit },
                ..
            }) => Some(*limit),
            _ => None,
        }
    }

    /// Whether the launch is over (finished, faulted or deadlocked).
    pub fn is_terminal(&self) -> bool {
        matches!(
            self.reason,
            StopReason::Finished
                | StopReason::Fault(_)
                | StopReason::Deadlock(_)
                | StopReason::Terminated(_)
        )
    }
}

impl Engine {
    pub(super) fn event(&self, reason: StopReason, wave: Option<usize>) -> StopEvent {
        let w = wave.and_then(|i| self.machine.waves.get(i));
        StopEvent {
            reason,
            wave: wave.filter(|_| w.is_some()),
            wave_id: w.map(|w| w.id),
            pc: w.map(|w| w.pc),
            instructions: self.machine.stats.wave_instructions,
            watch: Vec::new(),
        }
    }

    /// A stop of wave `id` after it exited and its slot was refilled: no wave index, the
    /// wave's id and its PC as it exited ([`crate::machine::Machine::retired_wave`]). Not
    /// recorded as the engine's last stop (a front end that stops such a wave again uses
    /// it as is).
    pub fn retired_event(&self, reason: StopReason, id: u32) -> StopEvent {
        StopEvent {
            wave_id: Some(id),
            pc: self.machine.retired_wave(id).map(|w| w.pc),
            ..self.event(reason, None)
        }
    }

    /// Records a stop: selects its wave, snapshots for change tracking.
    pub(super) fn finish(&mut self, mut stop: StopEvent) -> StopEvent {
        // A deadlock the resume ran nothing to reach, and the last stop already reported,
        // was there before it: nothing can run, which is not a new stop (the same
        // `Deadlock` again and again). One the last stop did not report (a fault that
        // left the other waves at their barrier) is reported now, as a deadlock.
        let ran = self
            .resume_start
            .take()
            .is_none_or(|start| start != self.machine.stats.wave_instructions);
        let reported = self.last.as_ref().is_some_and(|l| {
            matches!(
                l.reason,
                StopReason::Deadlock(_) | StopReason::Deadlocked(_)
            )
        });
        if let (StopReason::Deadlock(d), false, true) = (&stop.reason, ran, reported) {
            stop.reason = StopReason::Deadlocked(d.clone());
        }
        // The record holds the run now: a read of inactive lanes can name their writes.
        if let StopReason::Finding(found) = &mut stop.reason {
            found.iter_mut().for_each(|f| self.name_source_writes(f));
        }
        self.progress.publish(&self.machine);
        // `list` starts again from the new PC, whichever front end made the stop.
        self.list_last = None;
        if let Some(w) = stop.wave {
            self.selected_wave = w;
        }
        if let StopReason::ConditionError { .. } = &stop.reason {
            self.resume_over = stop.wave.zip(stop.pc);
        }
        // The selected lane moves to the first lane that hit a breakpoint or touched a
        // watched range, unless it is one of them (or the breakpoint names a lane), or
        // the front end keeps the lane itself.
        let hit_lanes = match &stop.reason {
            StopReason::Breakpoint { id, lanes } if self.filters_lane_of(*id).is_none() => *lanes,
            StopReason::Watchpoint(hits) => hits.iter().fold(0, |a, h| a | h.lanes),
            StopReason::Reached(Reached::Finding { lanes, .. }) => *lanes,
            _ => 0,
        };
        if self.lane_follows_stops && hit_lanes != 0 && hit_lanes >> self.selected_lane & 1 == 0 {
            self.selected_lane = hit_lanes.trailing_zeros() as u8;
        }
        if let StopReason::Breakpoint { id, .. } = &stop.reason {
            self.resume_over = stop.wave.zip(stop.pc);
            if self.breakpoints.iter().any(|b| b.id == *id && b.temporary) {
                self.breakpoints.retain(|b| b.id != *id);
                self.temporary_hits.push(*id);
                self.rearm();
            }
        }
        if self.interrupt.swap(false, Ordering::Relaxed)
            && !matches!(stop.reason, StopReason::Interrupted)
        {
            self.interrupt_taken = true;
        }
        self.last = Some(stop.clone());
        stop
    }

    /// The end of a launch that cannot go on: its remaining waves faulted, or (`budget`)
    /// its instruction budget is spent.
    fn terminated(&self, budget: Option<u64>) -> StopEvent {
        let m = &self.machine;
        let faulted: Vec<u32> = m
            .waves
            .iter()
            .filter(|w| w.state == WaveState::Faulted)
            .map(|w| w.id)
            .collect();
        let why = Terminated {
            faulted,
            exited: m
                .waves
                .iter()
                .filter(|w| w.state == WaveState::Exited)
                .count(),
            never_ran: m.workgroups_pending(),
            budget,
        };
        let w = m.waves.iter().position(|w| w.state == WaveState::Faulted);
        self.event(StopReason::Terminated(why), w)
    }

    /// A forward resumption once the instruction budget is spent and a wave faulted on
    /// it: the launch is over (as `wavedbg run` reports one error), rather than each
    /// resumption faulting one more wave at its next instruction.
    pub(super) fn budget_spent(&self) -> Option<StopEvent> {
        let m = &self.machine;
        let limit = m.options().max_instructions?;
        (m.stats.wave_instructions >= limit
            && m.waves.iter().any(|w| w.state == WaveState::Faulted))
        .then(|| self.terminated(Some(limit)))
    }

    pub(super) fn machine_event(&self, e: Event, wave: Option<usize>) -> StopEvent {
        match e {
            Event::Fault(f) => {
                let w = self.machine.wave_index(f.wave).or(wave);
                self.event(StopReason::Fault(f), w)
            }
            Event::Deadlock(d) => {
                let w = d
                    .waiting
                    .first()
                    .and_then(|(id, _)| self.machine.wave_index(*id));
                self.event(StopReason::Deadlock(d), w)
            }
            Event::Break { wave, .. } => self.event(StopReason::BreakInstruction, Some(wave)),
            Event::Finished => self.event(StopReason::Finished, None),
            Event::Stalled => {
                let any_faulted = self
                    .machine
                    .waves
                    .iter()
                    .any(|w| w.state == WaveState::Faulted);
                if any_faulted {
                    self.terminated(None)
                } else {
                    self.event(StopReason::Blocked(Blocked::NoWaveCanRun), wave)
                }
            }
            // Handled by the run loop before they get here.
            Event::BreakpointHit { wave, .. } | Event::WatchHit { wave, .. } => {
                self.event(StopReason::Step, Some(wave))
            }
            Event::Finding { wave, .. } => {
                let fresh = self
                    .machine
                    .sanitizer()
                    .map(|s| s.fresh().cloned().collect())
                    .unwrap_or_default();
                self.event(StopReason::Finding(fresh), Some(wave))
            }
            // Only history replays set a stop-before point, and they consume it.
            Event::StopBefore => self.event(StopReason::Step, wave),
        }
    }
}
