//! Run control: continue, stepping with or without scheduler locking, advance, finish, and
//! the loops that run one wave alone or all waves until something stops them.

use std::sync::atomic::Ordering;

use super::stop::{Blocked, Reached};
use super::{Engine, StopEvent, StopReason};
use crate::machine::{BreakAt, Event};
use crate::wave::WaveState;

/// When a run of one wave alone ends on its own (besides breakpoints, watchpoints,
/// faults...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Goal {
    /// No goal of its own: only a breakpoint, watchpoint, fault or interrupt ends the run.
    None,
    /// After this many instructions.
    Steps(u64),
    /// When the wave arrives at a barrier.
    Barrier,
    /// When the wave exits.
    Exit,
    /// When the wave's PC is past this address (gdb's `until` without an argument).
    Past(u64),
    /// When the wave's PC is outside `[start, end)` (a GDB client's range step).
    OutOf {
        /// The range's first address.
        start: u64,
        /// The address past the range.
        end: u64,
    },
    /// When the wave arrives at the first instruction of a statement of a source line
    /// other than `file:line` (a line step), past `past` when given (`until`).
    Line {
        /// The file number of the line the step started on.
        file: u32,
        /// The line the step started on.
        line: u32,
        /// `until`: only a PC past this one ends the step.
        past: Option<u64>,
    },
}

/// Instructions between interrupt checks.
const POLL: u64 = 256;

impl Engine {
    /// Whether wave `w`'s next instruction is a `barrier`.
    fn at_barrier_instr(&self, w: usize) -> bool {
        self.machine
            .waves
            .get(w)
            .and_then(|x| self.machine.instr_at(x.pc))
            .is_some_and(|d| d.op == crate::exec::Op::Barrier)
    }

    /// Continues all waves until something stops them.
    pub fn continue_all(&mut self) -> StopEvent {
        self.run_all(None)
    }

    /// Steps `n` instructions: with scheduler locking, of the selected wave only (others
    /// frozen); without, every ready wave advances one instruction per step, in order.
    pub fn step(&mut self, n: u64) -> StopEvent {
        if self.scheduler_locking {
            self.run_alone(
                self.selected_wave,
                Goal::Steps(n.max(1)),
                Blocked::AtBarrier,
            )
        } else {
            self.step_all(n.max(1))
        }
    }

    /// Runs wave `w` (an index into the machine's waves) alone, the others frozen, for `n`
    /// instructions or, with `n == u64::MAX`, until something stops it. Selects the wave.
    /// A wave waiting at a barrier cannot run: the stop says the others are frozen (a GDB
    /// client's scheduler locking froze them).
    pub fn run_wave(&mut self, w: usize, n: u64) -> StopEvent {
        self.run_wave_as(w, n, Blocked::AtBarrier)
    }

    /// `stepi alone N`: the selected wave alone for `n` instructions whatever scheduler
    /// locking says; waiting at a barrier, the stop names what can release it.
    pub fn step_alone(&mut self, n: u64) -> StopEvent {
        self.run_wave_as(self.selected_wave, n, Blocked::AtBarrierAlone)
    }

    /// [`Engine::run_wave`], with `at_barrier` the reason a wave waiting at a barrier
    /// gives.
    fn run_wave_as(&mut self, w: usize, n: u64, at_barrier: Blocked) -> StopEvent {
        if w >= self.machine.waves.len() {
            return self.finish(self.event(StopReason::Blocked(Blocked::NoWave(w)), None));
        }
        self.selected_wave = w;
        let goal = if n == u64::MAX {
            Goal::None
        } else {
            Goal::Steps(n.max(1))
        };
        self.run_alone(w, goal, at_barrier)
    }

    /// Steps wave `w` by one instruction; if it waits at a barrier, the other waves run
    /// (one instruction each per round, interruptibly) until the barrier releases it.
    pub fn step_wave_releasing(&mut self, w: usize) -> StopEvent {
        self.interrupt_taken = false;
        if let Some(stop) = self.release(w) {
            return stop;
        }
        self.run_wave(w, 1)
    }

    /// While wave `w` waits at a barrier: the other waves run, one instruction each per
    /// round, until it is released. Returns the stop that ended that first, if any (an
    /// interrupt consumed by one of the rounds' stops included).
    fn release(&mut self, w: usize) -> Option<StopEvent> {
        while self.waits_at_barrier(w) {
            let s = self.step_all(1);
            if s.reason != StopReason::Step {
                return Some(s);
            }
            if let Some(stop) = self.interrupted_between(w) {
                return Some(stop);
            }
        }
        None
    }

    /// Whether wave `w` waits at a barrier.
    fn waits_at_barrier(&self, w: usize) -> bool {
        self.machine
            .waves
            .get(w)
            .is_some_and(|x| x.state == WaveState::AtBarrier)
    }

    /// Between the resumptions of one command: the interrupted stop, when one of them
    /// consumed an interrupt request while stopping for another reason (each stop
    /// consumes the request; a Ctrl-C that came then would be lost).
    fn interrupted_between(&mut self, w: usize) -> Option<StopEvent> {
        std::mem::take(&mut self.interrupt_taken)
            .then(|| self.finish(self.event(StopReason::Interrupted, Some(w))))
    }

    /// A GDB client's range step (`vCont;r START,END`): wave `w` executes instructions
    /// while its PC stays in `[start, end)`, and stops with [`StopReason::Step`] at the
    /// first PC outside it (an empty range: after one instruction), or earlier at
    /// anything that stops a step: a breakpoint or watchpoint, a fault, a finding, its
    /// exit, an interrupt. The stops are those of single steps repeated while the PC is in
    /// the range (a breakpoint in the range stops the wave before its instruction, as a
    /// step that arrived there would be reported), in one resumption. `others` is
    /// [`Engine::step_wave_releasing`]'s: while the wave waits at a barrier the other
    /// waves run until it is released; without it the wave runs alone and waiting at a
    /// barrier stops it.
    pub fn step_range(&mut self, w: usize, start: u64, end: u64, others: bool) -> StopEvent {
        let goal = Goal::OutOf { start, end };
        let mut first = true;
        self.interrupt_taken = false;
        loop {
            if others {
                if let Some(stop) = self.release(w) {
                    return stop;
                }
            }
            if w >= self.machine.waves.len() {
                return self.finish(self.event(StopReason::Blocked(Blocked::NoWave(w)), None));
            }
            // Released at a breakpoint inside the range: it is tested as a single step
            // arriving there would test it (its wave filter, condition and hit count), and
            // stepped over when it does not stop the wave (`run_alone` would otherwise step
            // over it unasked: a resumption steps over a breakpoint at the wave's PC).
            let pc = self.machine.waves[w].pc;
            if !first
                && self
                    .armed
                    .get((pc / 4) as usize)
                    .is_some_and(|a| !a.is_empty())
            {
                if let Some(stop) = self.check_breakpoints(w, pc) {
                    return self.finish(stop);
                }
                self.resume_over = Some((w, pc));
            }
            first = false;
            self.selected_wave = w;
            let stop = self.run_alone(w, goal, Blocked::AtBarrier);
            // Arrived at a barrier inside the range: the others release it, and the range
            // goes on.
            if others
                && stop.reason == StopReason::Blocked(Blocked::AtBarrier)
                && self.waits_at_barrier(w)
            {
                if let Some(stop) = self.interrupted_between(w) {
                    return stop;
                }
                continue;
            }
            return stop;
        }
    }

    /// Steps every ready wave by one instruction, `n` times.
    pub fn step_all(&mut self, n: u64) -> StopEvent {
        self.begin();
        if let Some(e) = self.budget_spent() {
            return self.finish(e);
        }
        self.step_rounds = 0;
        for _ in 0..n {
            let ready: Vec<usize> = (0..self.machine.waves.len())
                .filter(|&i| self.machine.waves[i].state == WaveState::Ready)
                .collect();
            if ready.is_empty() {
                let e = match self.machine.schedule() {
                    Err(e) => self.machine_event(e, Some(self.selected_wave)),
                    Ok(_) => self.event(StopReason::Step, Some(self.selected_wave)),
                };
                return self.finish(e);
            }
            // One record entry per round: which waves step is decided by the machine's
            // state at its start, so a replay can step the same ones.
            let start = self.machine.stats.wave_instructions;
            let mut stepped = 0;
            for w in ready {
                let (stop, did) = self.run_one(w);
                stepped += did as u64;
                if let Some(stop) = stop {
                    self.record_round(stepped, start);
                    return self.finish(stop);
                }
            }
            self.record_round(stepped, start);
            self.step_rounds += 1;
            if self.interrupt.swap(false, Ordering::Relaxed) {
                return self.finish(self.event(StopReason::Interrupted, Some(self.selected_wave)));
            }
        }
        self.finish(self.event(StopReason::Step, Some(self.selected_wave)))
    }

    /// The rounds the last [`Engine::step_all`] completed: `stepi all` with this count
    /// does what it did (a recorder writes an interrupted step so).
    pub fn last_step_rounds(&self) -> u64 {
        self.step_rounds
    }

    /// Continues (all waves run) until the selected wave reaches `addr`.
    pub fn advance(&mut self, addr: u64) -> StopEvent {
        self.advance_to_any(&[addr])
    }

    /// Continues (all waves run) until the selected wave reaches any of `addrs` (every
    /// location of `advance FILE:LINE` and `until FILE:LINE`: whichever comes first), or
    /// exits.
    pub fn advance_to_any(&mut self, addrs: &[u64]) -> StopEvent {
        let w = self.selected_wave;
        // A wave that has exited or faulted cannot reach anything: refused as `stepi`
        // refuses it (it ran every other wave to the end).
        let blocked = match self.machine.waves.get(w).map(|x| x.state) {
            None => Some(Blocked::NoWave(w)),
            Some(WaveState::Exited) => Some(Blocked::Exited),
            Some(WaveState::Faulted) => Some(Blocked::Faulted),
            Some(_) => None,
        };
        if let Some(b) = blocked {
            self.begin();
            // A spent budget ends the launch whichever wave is selected, as for `stepi`.
            if let Some(e) = self.budget_spent() {
                return self.finish(e);
            }
            let wave = (b != Blocked::NoWave(w)).then_some(w);
            return self.finish(self.event(StopReason::Blocked(b), wave));
        }
        self.run_all(Some((w, addrs)))
    }

    /// Runs the selected wave until it arrives at a barrier: alone with scheduler locking,
    /// else with every ready wave, a round at a time (so a barrier it waits at releases).
    pub fn advance_to_barrier(&mut self) -> StopEvent {
        self.run_selected(Goal::Barrier)
    }

    /// Runs the selected wave until it exits: alone with scheduler locking, else with
    /// every ready wave, a round at a time (as gdb lets other threads run during `finish`
    /// with scheduler-locking off).
    pub fn finish_wave(&mut self) -> StopEvent {
        self.run_selected(Goal::Exit)
    }

    /// gdb's `until` without an argument: steps the selected wave (alone with scheduler
    /// locking, else with every ready wave) until its PC is past the current one, which
    /// leaves a loop that jumps back.
    pub fn until_past(&mut self) -> StopEvent {
        let pc = self
            .machine
            .waves
            .get(self.selected_wave)
            .map_or(0, |w| w.pc);
        self.run_selected(Goal::Past(pc))
    }

    /// Runs the selected wave until a line step that started on `from` (file, line)
    /// ends (see [`Engine::step_lines`]), past `past` when given.
    pub(super) fn run_to_line(&mut self, from: (u32, u32), past: Option<u64>) -> StopEvent {
        self.run_selected(Goal::Line {
            file: from.0,
            line: from.1,
            past,
        })
    }

    /// Runs the selected wave to `goal`: alone with scheduler locking, else a round of
    /// every ready wave at a time.
    fn run_selected(&mut self, goal: Goal) -> StopEvent {
        let w = self.selected_wave;
        if self.scheduler_locking {
            self.run_alone(w, goal, Blocked::AtBarrier)
        } else {
            self.run_rounds(w, goal)
        }
    }

    /// Rounds of every ready wave, one instruction each in wave order (as `stepi` with
    /// scheduler-locking off), until wave `w` reaches `goal`, or something stops them.
    fn run_rounds(&mut self, w: usize, goal: Goal) -> StopEvent {
        let Some(id) = self.machine.waves.get(w).map(|x| x.id) else {
            return self.finish(self.event(StopReason::Blocked(Blocked::NoWave(w)), None));
        };
        self.begin();
        if let Some(e) = self.budget_spent() {
            return self.finish(e);
        }
        self.step_rounds = 0;
        let mut idle = false;
        let executed = self.machine.waves.get(w).map_or(0, |x| x.executed);
        loop {
            // A wave that exited during the command ends it as `finish` does; one that had
            // exited before it cannot run.
            let exited = |moved: bool| match goal {
                Goal::Exit => StopReason::Reached(Reached::Exit),
                _ if moved => StopReason::Reached(Reached::Exit),
                _ => StopReason::Blocked(Blocked::Exited),
            };
            match self.machine.waves.get(w) {
                Some(x) if x.id == id => match x.state {
                    WaveState::Exited => {
                        let reason = exited(x.executed > executed);
                        return self.finish(self.event(reason, Some(w)));
                    }
                    WaveState::Faulted => {
                        let e = self.event(StopReason::Blocked(Blocked::Faulted), Some(w));
                        return self.finish(e);
                    }
                    _ => {}
                },
                // Its slot holds another wave: it exited during the command.
                _ => return self.finish(self.retired_event(exited(true), id)),
            }
            let ready: Vec<usize> = (0..self.machine.waves.len())
                .filter(|&i| self.machine.waves[i].state == WaveState::Ready)
                .collect();
            if ready.is_empty() {
                match self.machine.schedule() {
                    Err(e) => {
                        let e = self.machine_event(e, Some(w));
                        return self.finish(e);
                    }
                    // Scheduling released or dispatched nothing twice over: nothing runs.
                    Ok(_) if idle => {
                        let e = self.event(StopReason::Blocked(Blocked::NoWaveCanRun), Some(w));
                        return self.finish(e);
                    }
                    Ok(_) => {
                        idle = true;
                        continue;
                    }
                }
            }
            idle = false;
            let start = self.machine.stats.wave_instructions;
            let mut stepped = 0;
            for v in ready {
                let was_barrier = v == w && self.at_barrier_instr(w);
                let (stop, did) = self.run_one(v);
                stepped += did as u64;
                if let Some(stop) = stop {
                    self.record_round(stepped, start);
                    return self.finish(stop);
                }
                if v != w || !did {
                    continue;
                }
                let x = &self.machine.waves[w];
                let reached = match goal {
                    Goal::Barrier => (was_barrier || x.state == WaveState::AtBarrier)
                        .then_some(StopReason::Reached(Reached::Barrier)),
                    Goal::Exit => (x.id != id || x.state == WaveState::Exited)
                        .then_some(StopReason::Reached(Reached::Exit)),
                    Goal::Past(pc) => (x.id == id && x.pc > pc).then_some(StopReason::Step),
                    Goal::OutOf { start, end } => {
                        (x.id == id && !(start..end).contains(&x.pc)).then_some(StopReason::Step)
                    }
                    Goal::Line { file, line, past } => (x.id == id
                        && past.is_none_or(|p| x.pc > p)
                        && self.is_new_line(x.pc, (file, line)))
                    .then_some(StopReason::Step),
                    Goal::Steps(_) | Goal::None => None,
                };
                if let Some(reason) = reached {
                    self.record_round(stepped, start);
                    let e = if self.machine.waves[w].id == id {
                        self.event(reason, Some(w))
                    } else {
                        self.retired_event(reason, id)
                    };
                    return self.finish(e);
                }
            }
            self.record_round(stepped, start);
            self.step_rounds += 1;
            if self.interrupt.swap(false, Ordering::Relaxed) {
                return self.finish(self.event(StopReason::Interrupted, Some(w)));
            }
        }
    }

    /// Saves the state at the start of a resumption, for change highlighting at its stop.
    pub(super) fn begin(&mut self) {
        self.resume_start = Some(self.machine.stats.wave_instructions);
        // O(what ran since the previous resume), not O(machine): see `Machine::sync_from`.
        if std::mem::take(&mut self.edited) {
            self.last_stop.clone_from(&self.machine);
        } else {
            self.last_stop.sync_from(&self.machine);
        }
        self.machine.clear_touched();
        // As gdb does, resuming steps over a breakpoint at the selected wave's PC (we may
        // have arrived there by stepping, or stopped there on a condition error).
        if self.resume_over.is_none() {
            if let Some(w) = self.machine.waves.get(self.selected_wave) {
                if self
                    .armed
                    .get((w.pc / 4) as usize)
                    .is_some_and(|a| !a.is_empty())
                {
                    self.resume_over = Some((self.selected_wave, w.pc));
                }
            }
        }
        // An interrupt requested just before the run starts (gdb's Ctrl-C racing its own
        // `continue`) still stops it; each stop consumes the request (see `finish`).
    }

    /// Runs wave `w` alone (the others frozen), checking breakpoints and watchpoints at
    /// every instruction. `at_barrier` is why it cannot run while it waits at a barrier,
    /// whose hint names what works: scheduler locking froze the others, or the command
    /// runs the wave alone whatever the setting.
    fn run_alone(&mut self, w: usize, goal: Goal, at_barrier: Blocked) -> StopEvent {
        self.begin();
        if let Some(e) = self.budget_spent() {
            return self.finish(e);
        }
        let id = self.machine.waves.get(w).map(|x| x.id);
        let mut done = 0u64;
        loop {
            // The wave exited and the next workgroup took its slot: it stops there (the
            // slot's new wave is another wave).
            if let Some(id) = id.filter(|&id| self.machine.waves.get(w).map(|x| x.id) != Some(id)) {
                let reason = match goal {
                    Goal::Steps(_) => StopReason::Step,
                    Goal::Exit => StopReason::Reached(Reached::Exit),
                    _ if done > 0 => StopReason::Reached(Reached::Exit),
                    _ => StopReason::Blocked(Blocked::Exited),
                };
                return self.finish(self.retired_event(reason, id));
            }
            match goal {
                Goal::Steps(n) if done >= n => {
                    return self.finish(self.event(StopReason::Step, Some(w)));
                }
                _ => {}
            }
            if done.is_multiple_of(POLL) {
                self.progress.publish(&self.machine);
            }
            if done.is_multiple_of(POLL) && self.interrupt.swap(false, Ordering::Relaxed) {
                return self.finish(self.event(StopReason::Interrupted, Some(w)));
            }
            let Some(wave) = self.machine.waves.get(w) else {
                return self.finish(self.event(StopReason::Blocked(Blocked::NoWave(w)), None));
            };
            let blocked = match wave.state {
                WaveState::Ready | WaveState::Stopped => None,
                // Its barrier can never complete: no other wave can release it.
                WaveState::AtBarrier => Some(match self.machine.workgroup_deadlock(w) {
                    Some(d) => StopReason::Deadlocked(d),
                    None => StopReason::Blocked(at_barrier),
                }),
                // Exited during the command: it ends as `finish` does.
                WaveState::Exited if goal == Goal::Exit || done > 0 => {
                    Some(StopReason::Reached(Reached::Exit))
                }
                WaveState::Exited => Some(StopReason::Blocked(Blocked::Exited)),
                WaveState::Faulted => Some(StopReason::Blocked(Blocked::Faulted)),
            };
            if let Some(reason) = blocked {
                return self.finish(self.event(reason, Some(w)));
            }
            let was_barrier = goal == Goal::Barrier && self.at_barrier_instr(w);
            let start = self.machine.stats.wave_instructions;
            let (stop, did) = self.run_one(w);
            if did {
                self.record_step(w, start);
            }
            if let Some(stop) = stop {
                return self.finish(stop);
            }
            done += 1;
            let wave = &self.machine.waves[w];
            match goal {
                // The last wave to arrive releases the barrier at once: it counts as arrived.
                Goal::Barrier if wave.state == WaveState::AtBarrier || was_barrier => {
                    return self.finish(self.event(StopReason::Reached(Reached::Barrier), Some(w)));
                }
                Goal::Exit if wave.state == WaveState::Exited => {
                    return self.finish(self.event(StopReason::Reached(Reached::Exit), Some(w)));
                }
                Goal::Past(pc) if wave.pc > pc => {
                    return self.finish(self.event(StopReason::Step, Some(w)));
                }
                Goal::OutOf { start, end } if !(start..end).contains(&wave.pc) => {
                    return self.finish(self.event(StopReason::Step, Some(w)));
                }
                Goal::Line { file, line, past }
                    if past.is_none_or(|p| wave.pc > p)
                        && self.is_new_line(wave.pc, (file, line)) =>
                {
                    return self.finish(self.event(StopReason::Step, Some(w)));
                }
                _ => {}
            }
        }
    }

    /// Runs all waves, as `continue` does, until the launch has executed `n` instructions
    /// (`goto` past the recorded history), unless something stops them first.
    pub(super) fn run_to_count(&mut self, n: u64) -> StopEvent {
        self.run_all_until(None, Some(n))
    }

    /// Runs all waves through the machine's own loop, which reports breakpoint addresses
    /// and watched accesses as events: with nothing armed the engine adds nothing per
    /// instruction, and armed but not hit it adds one indexed load.
    fn run_all(&mut self, target: Option<(usize, &[u64])>) -> StopEvent {
        self.run_all_until(target, None)
    }

    /// [`Engine::run_all`], stopping also when the launch's instruction count reaches
    /// `until` (the machine's run is the same however it is split, so this is the state a
    /// `continue` interrupted there left).
    fn run_all_until(&mut self, target: Option<(usize, &[u64])>, until: Option<u64>) -> StopEvent {
        self.begin();
        if let Some(e) = self.budget_spent() {
            return self.finish(e);
        }
        // Before the first stop of a launch no wave has arrived anywhere: a breakpoint on
        // the first instruction stops `run` and `continue` there, as gdb's `run` stops at
        // a breakpoint on the entry point. (A step still executes the instruction it
        // starts at, as gdb's `stepi` after `starti` does.)
        if self.last.is_none() && target.is_none() {
            self.resume_over = None;
        }
        if let Some((w, addrs)) = target {
            // Temporary internal breakpoints; resume over one if the wave is already there.
            if self.machine.break_at.is_empty() {
                self.machine.break_at = vec![BreakAt::No; self.machine.code().len()];
            }
            for &a in addrs {
                if let Some(b) = self.machine.break_at.get_mut((a / 4) as usize) {
                    *b = BreakAt::Any;
                }
            }
            // And at every `end`: the wave stops where it exits, as gdb's `advance` and
            // `until LOCATION` stop when the current frame returns, rather than the
            // others running on to the end of the launch.
            let ends: Vec<usize> = (0..self.machine.break_at.len())
                .filter(|&i| {
                    self.machine
                        .instr_at(i as u64 * 4)
                        .is_some_and(|d| d.op == crate::exec::Op::End)
                })
                .collect();
            for i in ends {
                self.machine.break_at[i] = BreakAt::Any;
            }
            let pc = self.machine.waves.get(w).map(|x| x.pc);
            if let Some(pc) = pc.filter(|pc| addrs.contains(pc)) {
                if self.resume_over.is_none() {
                    self.resume_over = Some((w, pc));
                }
            }
        }
        self.machine.skip_break = self.resume_over.take();
        let mut published = 0;
        let stop = loop {
            if self.interrupt.swap(false, Ordering::Relaxed) {
                let w = self.live_wave();
                break self.event(StopReason::Interrupted, Some(w));
            }
            // Breakpoint events come back here at every hit: publish at most every POLL
            // instructions, not at every event.
            let now = self.machine.stats.wave_instructions;
            if let Some(u) = until.filter(|u| now >= *u) {
                let w = self.live_wave();
                break self.event(StopReason::Reached(Reached::Count(u)), Some(w));
            }
            if now >= published + POLL {
                self.progress.publish(&self.machine);
                published = now;
            }
            let start = self.machine.stats.wave_instructions;
            let chunk = until.map_or(POLL, |u| POLL.min(u - now));
            let event = self.machine.run(Some(chunk));
            self.record_run(start);
            self.record_fault(&event);
            match event {
                None => continue,
                Some(Event::BreakpointHit { wave, pc }) => {
                    if target.is_some_and(|(w, addrs)| w == wave && addrs.contains(&pc)) {
                        break self.event(StopReason::Reached(Reached::Address(pc)), Some(wave));
                    }
                    if target.is_some_and(|(w, _)| w == wave)
                        && self
                            .machine
                            .instr_at(pc)
                            .is_some_and(|d| d.op == crate::exec::Op::End)
                    {
                        // The wave exits before reaching the target: its `end` runs
                        // (after a breakpoint there, which stops first) and it stops.
                        let id = self.machine.waves[wave].id;
                        let start = self.machine.stats.wave_instructions;
                        let (stop, did) = self.run_one(wave);
                        if did {
                            self.record_step(wave, start);
                        }
                        break match stop {
                            Some(stop) => stop,
                            None if self.machine.waves.get(wave).map(|x| x.id) == Some(id) => {
                                self.event(StopReason::Reached(Reached::Exit), Some(wave))
                            }
                            None => self.retired_event(StopReason::Reached(Reached::Exit), id),
                        };
                    }
                    let hit = if self
                        .armed
                        .get((pc / 4) as usize)
                        .is_some_and(|a| !a.is_empty())
                    {
                        self.check_breakpoints(wave, pc)
                    } else {
                        None
                    };
                    match hit {
                        Some(stop) => break stop,
                        None => self.machine.skip_break = Some((wave, pc)),
                    }
                }
                Some(Event::WatchHit { wave, pc }) => {
                    if let Some(stop) = self.check_watchpoints(wave, pc) {
                        break stop;
                    }
                }
                Some(Event::Finding { wave, pc }) => break self.finding_stop(wave, pc),
                Some(e) => break self.machine_event(e, None),
            }
        };
        if target.is_some() {
            self.rearm();
        }
        self.finish(stop)
    }

    /// The stop for a sanitizer finding made by wave `w`'s instruction at `pc`, with the
    /// watchpoints the same instruction triggered (both are reported, neither is lost).
    fn finding_stop(&mut self, w: usize, pc: u64) -> StopEvent {
        let mut stop = self.machine_event(Event::Finding { wave: w, pc }, Some(w));
        if let Some(StopEvent {
            reason: StopReason::Watchpoint(hits),
            ..
        }) = self.check_watchpoints(w, pc)
        {
            stop.watch = hits;
        }
        stop
    }

    /// A wave worth reporting on an interrupt: the selected one if alive, else any ready one.
    fn live_wave(&self) -> usize {
        let alive = |i: usize| self.machine.waves.get(i).is_some_and(|w| w.alive());
        if alive(self.selected_wave) {
            return self.selected_wave;
        }
        (0..self.machine.waves.len())
            .find(|&i| alive(i))
            .unwrap_or(self.selected_wave)
    }

    /// Executes one instruction of wave `w`, checking breakpoints before and watchpoints
    /// after it. Returns a stop, if any, and whether the wave was stepped (a breakpoint
    /// stops before it is).
    fn run_one(&mut self, w: usize) -> (Option<StopEvent>, bool) {
        let pc = self.machine.waves[w].pc;
        let skip = self
            .resume_over
            .take_if(|&mut (rw, rpc)| rw == w && rpc == pc)
            .is_some();
        if !skip
            && self
                .armed
                .get((pc / 4) as usize)
                .is_some_and(|a| !a.is_empty())
        {
            if let Some(stop) = self.check_breakpoints(w, pc) {
                return (Some(stop), false);
            }
        }
        let event = self.machine.step_scheduled(w);
        if let Some(Event::Finding { .. }) = event {
            return (Some(self.finding_stop(w, pc)), true);
        }
        // A memory instruction that touched a watched range did not fault, exit or
        // deadlock, so its event (if any) cannot be lost by reporting the watchpoint (a
        // sanitizer finding, the one event it can share an instruction with, is above).
        if self
            .machine
            .accesses
            .as_ref()
            .is_some_and(|l| !l.hits.is_empty())
        {
            if let Some(stop) = self.check_watchpoints(w, pc) {
                return (Some(stop), true);
            }
        }
        (event.map(|e| self.machine_event(e, Some(w))), true)
    }
}
