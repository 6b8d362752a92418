//! Running instructions: one step of the scheduled wave or of a chosen one, the events a
//! step raises (faults, breakpoints, watch hits, `brk`), and runs to an instruction budget.

use super::scheduler::{next_turn, slot_in, SplitMix64};
use super::{BreakAt, CodeWord, Event, Machine, Slot, Stats, StopBefore, Touched};
use crate::check::{FastChecked, FastGuard, Sanitizer};
use crate::code::Decoded;
use crate::exec::fast::{self, FastCode, FastMemory, FastState};
use crate::exec::simd::simd_fn;
use crate::exec::AccessLog;
use crate::exec::{self, Ctx, Flow, OpClass};
use crate::fault::{Fault, FaultKind};
use crate::memory::GlobalMemory;
use crate::wave::{Wave, WaveState};

impl Machine {
    /// Schedules a wave and executes one instruction of it, with the debugger's hooks;
    /// `None`: the run can go on, else the event that stops it.
    pub fn step(&mut self) -> Option<Event> {
        match self.schedule() {
            Ok(w) => self.step_hooked(w),
            Err(e) => Some(e),
        }
    }

    /// One instruction of the scheduled wave `w` with the debugger's hooks: a breakpoint
    /// mark on its PC (one indexed load when breakpoints are set) and watched accesses (a
    /// length check when watchpoints are).
    #[inline]
    fn step_hooked(&mut self, w: usize) -> Option<Event> {
        if !self.break_at.is_empty() {
            let wave = &self.waves[w];
            let pc = wave.pc;
            if self
                .break_at
                .get((pc / 4) as usize)
                .is_some_and(|b| b.stops(wave.id, wave.workgroup))
                && self.skip_break.take_if(|s| *s == (w, pc)).is_none()
            {
                return Some(Event::BreakpointHit { wave: w, pc });
            }
        }
        let pc = self.waves[w].pc;
        let event = self.step_scheduled(w);
        if self.skip_break.is_some_and(|s| s.0 == w) {
            self.skip_break = None;
        }
        if event.is_none() && self.accesses.as_ref().is_some_and(|l| !l.hits.is_empty()) {
            return Some(Event::WatchHit { wave: w, pc });
        }
        event
    }

    /// Executes one instruction of wave `w` as picked by [`Machine::schedule`] (counting
    /// against its quantum). The debugger schedules, checks breakpoints, then calls this.
    pub fn step_scheduled(&mut self, w: usize) -> Option<Event> {
        if self.stop_before.is_some_and(|s| self.stops_before(s, w)) {
            return Some(Event::StopBefore);
        }
        self.left = self.left.saturating_sub(1);
        self.step_wave(w)
    }

    /// Only before a step that executes an instruction: a step that does nothing or raises
    /// a fault without executing (an illegal word, a PC outside the code, the instruction
    /// budget) is part of the point before the next instruction.
    fn stops_before(&self, s: StopBefore, w: usize) -> bool {
        if !self.next_step_executes(w) {
            return false;
        }
        match s {
            StopBefore::Count(n) => self.stats.wave_instructions == n,
            StopBefore::Wave { wave, id, executed } => {
                w == wave
                    && self
                        .waves
                        .get(w)
                        .is_some_and(|x| x.id == id && x.executed == executed)
            }
        }
    }

    /// Whether stepping wave `w` now executes an instruction (counted in the statistics).
    fn next_step_executes(&self, w: usize) -> bool {
        let Some(wave) = self.waves.get(w) else {
            return false;
        };
        let budget_left = self
            .options
            .max_instructions
            .is_none_or(|l| self.stats.wave_instructions < l);
        wave.alive()
            && wave.state != WaveState::AtBarrier
            && budget_left
            && wave.pc.is_multiple_of(4)
            && matches!(
                self.code.get((wave.pc / 4) as usize),
                Some(CodeWord::Instr(_))
            )
    }

    /// Executes one instruction of wave `w` (which must be Ready or Stopped; the caller
    /// decides). Returns an event when the run cannot simply go on.
    pub fn step_wave(&mut self, w: usize) -> Option<Event> {
        // Clear first: an instruction that faults before touching memory must not leave the
        // previous instruction's accesses behind.
        if let Some(log) = &mut self.accesses {
            log.hits.clear();
        }
        if w >= self.waves.len()
            || !self.waves[w].alive()
            || self.waves[w].state == WaveState::AtBarrier
        {
            return None;
        }
        self.touch(w);
        let pc = self.waves[w].pc;
        if let Some(bits) = self.ran.get_mut((pc >> 8) as usize) {
            *bits |= 1 << ((pc >> 2) & 63);
        }
        let d = match pc
            .is_multiple_of(4)
            .then(|| self.code.get((pc / 4) as usize))
            .flatten()
        {
            Some(CodeWord::Instr(d)) => *d,
            Some(CodeWord::Illegal(reason)) => {
                return Some(self.fault(
                    w,
                    FaultKind::IllegalInstruction {
                        reason: reason.clone(),
                    },
                    0,
                    None,
                    0,
                    None,
                ));
            }
            _ => return Some(self.fault(w, FaultKind::BadPc, 0, None, 0, None)),
        };
        if let Some(limit) = self.options.max_instructions {
            if self.stats.wave_instructions >= limit {
                return Some(self.fault(
                    w,
                    FaultKind::BudgetExhausted { limit },
                    0,
                    None,
                    0,
                    Some(d),
                ));
            }
        }
        let s = self.slot_of(w);
        if self.sanitizer.is_none() {
            return self.execute_at::<false>(w, s, pc, d);
        }
        self.step_checked(w, s, pc, d)
    }

    /// [`Machine::step_wave`]'s execution with the sanitizer's checks before and after.
    #[inline(never)]
    fn step_checked(&mut self, w: usize, s: usize, pc: u64, d: Decoded) -> Option<Event> {
        if let Some(san) = self.sanitizer.as_deref_mut() {
            let group = group_of(&self.waves, s, self.launch.waves_per_workgroup());
            san.before(
                w,
                s,
                &self.waves[w],
                || group.iter().all(|x| x.executed == 0),
                &d,
                pc,
            );
        }
        let event = self.execute_at::<true>(w, s, pc, d);
        let Some(san) = self.sanitizer.as_deref_mut() else {
            return event;
        };
        // A fault executed nothing; whatever else happened, the instruction did.
        let ok = !matches!(event, Some(Event::Fault(_)));
        san.after(
            w,
            s,
            &self.waves[w],
            &d,
            pc,
            ok,
            self.stats.wave_instructions,
        );
        match event {
            None if san.has_fresh() => Some(Event::Finding { wave: w, pc }),
            e => e,
        }
    }

    /// Executes the decoded instruction `d` at `pc` of wave `w` (in slot `s`) and moves
    /// the wave on: PC, barrier, end, fault.
    /// `CHECK`: a sanitizer is on (the per-lane trace, the barrier hook).
    #[inline(always)]
    fn execute_at<const CHECK: bool>(
        &mut self,
        w: usize,
        s: usize,
        pc: u64,
        d: Decoded,
    ) -> Option<Event> {
        let exec_mask = self.waves[w].exec;
        let scratch_bytes = self.launch.scratch_bytes as u64;
        let result = {
            let mut ctx = Ctx {
                wave: &mut self.waves[w],
                shared: &mut self.slots[s].shared,
                global: &mut self.global,
                launch: &self.launch,
                scratch_bytes,
                accesses: self.accesses.as_mut(),
                // Only the memory detectors look at each lane's access.
                trace: if CHECK {
                    self.sanitizer
                        .as_deref_mut()
                        .filter(|x| x.checks().races || x.checks().init)
                        .map(|x| &mut *x.trace)
                } else {
                    None
                },
            };
            exec::execute(&mut ctx, &d, pc)
        };
        self.stats.wave_instructions += 1;
        if self.lanes_of.0 != exec_mask {
            self.lanes_of = (exec_mask, exec_mask.count_ones());
        }
        self.stats.lane_ops += self.lanes_of.1 as u64;
        self.stats.vector_lane_ops += (self.lanes_of.1 * d.vector as u32) as u64;
        self.waves[w].executed += 1;
        let next = pc + d.len as u64;
        match result {
            Ok(Flow::Next) => self.waves[w].pc = next,
            Ok(Flow::Jump(t)) => self.waves[w].pc = t,
            Ok(Flow::Barrier) => {
                self.waves[w].pc = next;
                self.waves[w].state = WaveState::AtBarrier;
                if let (true, Some(san)) = (CHECK, self.sanitizer.as_deref_mut()) {
                    let group = group_of(&self.waves, s, self.launch.waves_per_workgroup());
                    if group.iter().all(|x| x.state == WaveState::AtBarrier) {
                        san.release(s, group, &self.waves[w]);
                    }
                }
                self.try_release(s);
                if let Some(dl) = self.deadlock_in(s, false) {
                    return Some(self.deadlock_event(s, dl));
                }
            }
            Ok(Flow::Break) => {
                if self.break_is_fault {
                    return Some(self.fault(w, FaultKind::Break, 0, None, 0, Some(d)));
                }
                self.waves[w].pc = next;
                return Some(Event::Break { wave: w, pc });
            }
            Ok(Flow::End) => {
                self.waves[w].pc = next;
                self.waves[w].state = WaveState::Exited;
                self.ended += 1;
                return self.on_exit(s);
            }
            Err(e) => return Some(self.fault(w, e.kind, e.lanes, e.addr, e.len, Some(d))),
        }
        None
    }

    /// A deadlock of slot `s` as an event, and as a finding when the sanitizer checks
    /// barriers.
    pub(super) fn deadlock_event(&mut self, s: usize, dl: super::Deadlock) -> Event {
        if !self.deadlocks_named.contains(&dl.workgroup) {
            self.deadlocks_named.push(dl.workgroup);
        }
        if let Some(san) = self.sanitizer.as_deref_mut() {
            let group = group_of(&self.waves, s, self.launch.waves_per_workgroup());
            san.deadlock(group, self.stats.wave_instructions);
        }
        Event::Deadlock(dl)
    }

    /// Runs up to `n` instructions of the ready wave `w` while they only go on or branch,
    /// with the per-instruction bookkeeping of [`Machine::step_wave`] reduced to what they
    /// need: wave-local ones ([`exec::is_wave_local`]: registers, PC and counters only,
    /// never ending or parking the wave), cross-lane ones, and memory and cache ones (with
    /// the watchpoints' access log and the sanitizer's trace). Stops
    /// before anything else (control, an undecodable word, the instruction budget, a
    /// breakpoint mark that stops this wave, a fault), which `step_wave` or the hooked
    /// step then runs. Returns the instructions executed, and the event that ended it
    /// early: a finding new to the sanitizer, or a watched access (after the instruction
    /// that made it, as the hooked step reports it).
    fn run_wave_local(&mut self, w: usize, n: u64) -> (u64, Option<Event>) {
        // Two copies of the loop: without a sanitizer it pays nothing for one.
        if self.sanitizer.is_some() {
            self.run_wave_local_as::<true>(w, n)
        } else {
            self.run_wave_local_as::<false>(w, n)
        }
    }

    /// [`Machine::run_wave_local`], with the sanitizer's register checks when `CHECK`
    /// (stopping after an instruction that found something new).
    #[inline(always)]
    fn run_wave_local_as<const CHECK: bool>(&mut self, w: usize, n: u64) -> (u64, Option<Event>) {
        let budget = self
            .options
            .max_instructions
            .map_or(u64::MAX, |l| l.saturating_sub(self.stats.wave_instructions));
        let n = n.min(budget);
        if n == 0
            || self
                .waves
                .get(w)
                .is_none_or(|x| x.state != WaveState::Ready)
        {
            return (0, None);
        }
        self.touch(w);
        if let Some(log) = &mut self.accesses {
            log.hits.clear();
        }
        let s = self.slot_of(w);
        if CHECK {
            let group = group_of(&self.waves, s, self.launch.waves_per_workgroup());
            if let Some(san) = self.sanitizer.as_deref_mut() {
                san.enter_slot(s, &self.waves[w], || group.iter().all(|x| x.executed == 0));
            }
        }
        let (code, fast, launch, break_at, ran) = (
            &self.code,
            &*self.fast,
            &self.launch,
            &self.break_at,
            &mut self.ran,
        );
        let scratch_bytes = launch.scratch_bytes as u64;
        let global = &mut self.global;
        let mut shared = self.slots.get_mut(s).map(|x| &mut x.shared);
        let mut accesses = self.accesses.as_mut();
        let (stats, lanes_of) = (&mut self.stats, &mut self.lanes_of);
        let mut san = self.sanitizer.as_deref_mut();
        let wave = &mut self.waves[w];
        let mut done = 0;
        while done < n {
            // The pre-decoded ALU, branch, shuffle, wait and memory instructions in a loop
            // of their own (memory ones only when their lanes make runs of words: the rest
            // come back here); under the sanitizer while its guard says the hooks would do
            // nothing, or (waits and accesses) with their hooks.
            if fast
                .ops
                .get((wave.pc / 4) as usize)
                .is_some_and(|f| f.is_fast())
            {
                let mut checked = match san.as_deref_mut() {
                    Some(san) if CHECK => {
                        Some(FastChecked::new(san, (w, s), code, stats.wave_instructions))
                    }
                    _ => None,
                };
                let memory = shared.as_deref_mut().map(|shared| FastMemory {
                    global: &mut *global,
                    shared,
                    accesses: accesses.as_deref(),
                    trace: None,
                });
                let at = FastAt {
                    fast,
                    break_at,
                    ran,
                };
                let ran_fast = run_fast(wave, at, memory, n - done, checked.as_mut());
                let k = ran_fast.done;
                if lanes_of.0 != wave.exec {
                    *lanes_of = (wave.exec, wave.exec.count_ones());
                }
                stats.wave_instructions += k;
                stats.lane_ops += k * lanes_of.1 as u64;
                stats.vector_lane_ops += ran_fast.vector * lanes_of.1 as u64;
                done += k;
                if let Some(pc) = ran_fast.found {
                    return (done, Some(Event::Finding { wave: w, pc }));
                }
                if done >= n {
                    break;
                }
            }
            let pc = wave.pc;
            if !break_at.is_empty()
                && break_at
                    .get((pc / 4) as usize)
                    .is_some_and(|b| b.stops(wave.id, wave.workgroup))
            {
                break;
            }
            let Some(CodeWord::Instr(d)) = pc
                .is_multiple_of(4)
                .then(|| code.get((pc / 4) as usize))
                .flatten()
            else {
                break;
            };
            let local = match OpClass::of(d.op) {
                OpClass::WaveLocal => true,
                // Cross-lane instructions read and write registers only; memory and cache
                // ones fill the sanitizer's trace as in its hooked step: its hooks here
                // see them as they would there.
                OpClass::CrossLane | OpClass::Memory | OpClass::Cache => false,
                _ => break,
            };
            if let Some(bits) = ran.get_mut((pc >> 8) as usize) {
                *bits |= 1 << ((pc >> 2) & 63);
            }
            if CHECK {
                if let Some(san) = san.as_deref_mut() {
                    san.before(w, s, wave, || false, d, pc);
                }
            }
            let exec_mask = wave.exec;
            let result = match shared.as_deref_mut() {
                Some(shared) if !local => {
                    let mut ctx = Ctx {
                        wave: &mut *wave,
                        shared,
                        global: &mut *global,
                        launch,
                        scratch_bytes,
                        accesses: accesses.as_deref_mut(),
                        // Only the memory detectors look at each lane's access.
                        trace: if CHECK {
                            san.as_deref_mut()
                                .filter(|x| x.checks().races || x.checks().init)
                                .map(|x| &mut *x.trace)
                        } else {
                            None
                        },
                    };
                    exec::execute(&mut ctx, d, pc)
                }
                _ => exec::execute_on_wave(wave, launch, d, pc),
            };
            match result {
                Ok(Flow::Next) => wave.pc = pc + d.len as u64,
                Ok(Flow::Jump(t)) => wave.pc = t,
                // These operations only go on or branch, and change nothing when they
                // fail (a fault): that is left to `step_wave`, which runs it again.
                _ => break,
            }
            if lanes_of.0 != exec_mask {
                *lanes_of = (exec_mask, exec_mask.count_ones());
            }
            stats.wave_instructions += 1;
            stats.lane_ops += lanes_of.1 as u64;
            stats.vector_lane_ops += (lanes_of.1 * d.vector as u32) as u64;
            wave.executed += 1;
            done += 1;
            // A finding first, as the hooked step reports them (the engine gathers the
            // watched accesses of the instruction either way).
            if CHECK {
                if let Some(san) = san.as_deref_mut() {
                    san.after(w, s, wave, d, pc, true, stats.wave_instructions);
                    if san.has_fresh() {
                        return (done, Some(Event::Finding { wave: w, pc }));
                    }
                }
            }
            if !local && accesses.as_ref().is_some_and(|l| !l.hits.is_empty()) {
                return (done, Some(Event::WatchHit { wave: w, pc }));
            }
        }
        (done, None)
    }

    /// Whether wave `w`'s next instruction is in the fast set and not at a breakpoint mark
    /// that stops it: where [`run_turns`] can start (asked first, so a run of other
    /// instructions does not pay for the call).
    #[inline]
    fn fast_at(&self, w: usize) -> bool {
        let Some(wave) = self.waves.get(w) else {
            return false;
        };
        let i = (wave.pc / 4) as usize;
        wave.pc.is_multiple_of(4)
            && self.fast.ops.get(i).is_some_and(|f| f.is_fast())
            && !self
                .break_at
                .get(i)
                .is_some_and(|b| b.stops(wave.id, wave.workgroup))
    }

    /// [`run_turns`] on the machine's waves, up to `n` instructions (under the sanitizer,
    /// [`run_turns_checked`]); returns how many ran, and the wave and PC of an instruction
    /// that found something new to the sanitizer (the run stopped after it).
    fn run_turns(&mut self, n: u64) -> (u64, Option<(usize, u64)>) {
        if n == 0 {
            return (0, None);
        }
        let waves_per_group = self.waves_per_group();
        let checked = self
            .sanitizer
            .as_deref_mut()
            .map(|san| (san, &self.code[..]));
        let checked_run = checked.is_some();
        let mut t = Turns {
            fast: &self.fast,
            break_at: &self.break_at,
            ran: &mut self.ran,
            global: &mut self.global,
            slots: &mut self.slots,
            accesses: self.accesses.as_ref(),
            wave_slots: &self.wave_slots,
            waves_per_group,
            touched: &mut self.touched,
            stats: &mut self.stats,
            lanes_of: &mut self.lanes_of,
            current: &mut self.current,
            left: &mut self.left,
            rng: &mut self.rng,
            quantum: self.options.quantum,
            checked,
        };
        if checked_run {
            run_turns_checked(&mut self.waves, &mut t, n)
        } else {
            (run_turns(&mut self.waves, &mut t, n), None)
        }
    }

    fn on_exit(&mut self, s: usize) -> Option<Event> {
        if let Some(dl) = self.deadlock_in(s, false) {
            return Some(self.deadlock_event(s, dl));
        }
        let wpg = self.waves_per_group();
        if self.waves[s * wpg..(s + 1) * wpg]
            .iter()
            .all(|w| w.state == WaveState::Exited)
        {
            self.stats.workgroups_finished += 1;
            self.dispatch(s);
        }
        self.finished().then_some(Event::Finished)
    }

    fn fault(
        &mut self,
        w: usize,
        kind: FaultKind,
        lanes: u32,
        addr: Option<u64>,
        len: u32,
        d: Option<Decoded>,
    ) -> Event {
        self.ended += 1;
        let wave = &mut self.waves[w];
        wave.state = WaveState::Faulted;
        Event::Fault(Fault {
            kind,
            wave: wave.id,
            workgroup: wave.workgroup,
            lanes,
            pc: wave.pc,
            addr,
            len,
            instr: d.map(|d| d.instr.text(wave.pc)),
        })
    }

    /// Runs until an event (returned), or until `limit` more wave-instructions (summed over
    /// all waves) have executed (returns `None`); a `None` limit runs until an event.
    pub fn run(&mut self, limit: Option<u64>) -> Option<Event> {
        let stop_at = limit.map(|l| self.stats.wave_instructions.saturating_add(l));
        loop {
            let now = self.stats.wave_instructions;
            if stop_at.is_some_and(|s| now >= s) {
                return None;
            }
            // Run the scheduled wave for the rest of its quantum in a tight loop (the same
            // instructions `step` would run, one schedule per quantum instead of one per
            // instruction), with the debugger's hooks only when they are set.
            // A stop before the quantum's first instruction leaves the scheduler as it was,
            // so a stop is the same state however the run that reaches it is split.
            let mut before = (self.current, self.left, self.rng);
            let mut w = match self.schedule() {
                Ok(w) => w,
                Err(e) => return Some(e),
            };
            // With nothing to observe between instructions but breakpoint marks (and,
            // under the sanitizer, its guard and hooked steps), turns of fast-set
            // instructions run back to back in one loop. Where it stops in a turn, the
            // rest of the turn goes on below; at a turn's end, the loop comes round again
            // to schedule the next.
            let backoff = self.turns_backoff > 0;
            self.turns_backoff = self.turns_backoff.saturating_sub(1);
            if !backoff
                && self.skip_break.is_none()
                && self.stop_before.is_none()
                && self.fast_at(w)
            {
                let budget = stop_at.map_or(u64::MAX, |s| s - now).min(
                    self.options
                        .max_instructions
                        .map_or(u64::MAX, |l| l.saturating_sub(now)),
                );
                let (ran, found) = self.run_turns(budget);
                if let Some((wave, pc)) = found {
                    return Some(Event::Finding { wave, pc });
                }
                // A turn the loop could not finish goes on in the general loop, which takes
                // the guard again.
                if self.sanitizer.is_some() && (ran == 0 || ran < budget && self.left > 0) {
                    self.turns_backoff = TURNS_BACKOFF;
                }
                if ran > 0 {
                    let current = self.waves.get(self.current);
                    if ran == budget
                        || self.left == 0
                        || current.is_none_or(|x| x.state != WaveState::Ready)
                    {
                        continue;
                    }
                    (before, w) = ((self.current, self.left, self.rng), self.current);
                }
            }
            let now = self.stats.wave_instructions;
            let budget = stop_at.map_or(u64::MAX, |s| s - now);
            let n = (self.left as u64).min(budget).max(1);
            let hooked = !self.break_at.is_empty()
                || self.accesses.is_some()
                || self.stop_before.is_some()
                || self.sanitizer.is_some();
            let first = self.stats.wave_instructions;
            let mut k = 0;
            while k < n {
                // Instructions that only go on or branch in the tightest loop (memory ones
                // with the access log and the sanitizer's trace; it stops before a
                // breakpoint mark); the rest one at a time. A wave resuming over a
                // breakpoint takes one hooked step first.
                if self.skip_break.is_none() && self.stop_before.is_none() {
                    let (done, event) = self.run_wave_local(w, n - k);
                    self.left = self.left.saturating_sub(done as u32);
                    k += done;
                    if event.is_some() {
                        return event;
                    }
                    if k >= n {
                        break;
                    }
                }
                let event = if hooked {
                    self.step_hooked(w)
                } else {
                    self.step_scheduled(w)
                };
                k += 1;
                if let Some(e) = event {
                    if matches!(e, Event::BreakpointHit { .. } | Event::StopBefore)
                        && self.stats.wave_instructions == first
                    {
                        (self.current, self.left, self.rng) = before;
                    }
                    return Some(e);
                }
                if self.waves[w].state != WaveState::Ready || self.left == 0 {
                    break;
                }
            }
        }
    }
}

simd_fn! {
    /// Runs up to `n` instructions of `wave` from its PC while they are in the fast set
    /// ([`fast_stretch`]).
    fn run_fast(
        wave: &mut Wave,
        at: FastAt<'_>,
        memory: Option<FastMemory<'_>>,
        n: u64,
        checked: Option<&mut FastChecked<'_>>,
    ) -> Stretch {
        fast_stretch(wave, at, memory, n, checked)
    }
}

/// What a run of the fast loop did.
#[derive(Debug, Default, Clone, Copy)]
struct Stretch {
    /// Instructions run.
    done: u64,
    /// How many of them were vector instructions.
    vector: u64,
    /// Under the sanitizer: the PC of the last one, when it found something new (the loop
    /// stopped after it).
    found: Option<u64>,
}

/// The code as the fast loop runs it: its pre-decoded instructions, the breakpoint marks
/// and the code-run bits it keeps.
struct FastAt<'a> {
    fast: &'a FastCode,
    break_at: &'a [BreakAt],
    ran: &'a mut [u64],
}

/// The schedules the sanitizer's turns loop is left out for after a turn it could not
/// finish ([`Machine::run`]): long enough that kernels whose turns it seldom finishes
/// mostly skip it, short enough that a kernel that settles into a loop of fast
/// instructions soon goes back to it.
const TURNS_BACKOFF: u32 = 16;

/// What [`run_turns`] needs of the machine besides the waves, borrowed apart from them.
struct Turns<'a> {
    fast: &'a FastCode,
    break_at: &'a [BreakAt],
    ran: &'a mut [u64],
    /// Global memory, the slots' shared memory, the watchpoints' log, and each wave's
    /// slot ([`slot_in`]).
    global: &'a mut GlobalMemory,
    slots: &'a mut [Slot],
    accesses: Option<&'a AccessLog>,
    wave_slots: &'a [u32],
    waves_per_group: usize,
    touched: &'a mut Touched,
    stats: &'a mut Stats,
    lanes_of: &'a mut (u32, u32),
    /// The scheduler: current wave, instructions left of its quantum, seeded generator,
    /// and the launch's quantum.
    current: &'a mut usize,
    left: &'a mut u32,
    rng: &'a mut Option<SplitMix64>,
    quantum: u32,
    /// Under the sanitizer: it, and the launch's code (for its hooks).
    checked: Option<(&'a mut Sanitizer, &'a [CodeWord])>,
}

simd_fn! {
    /// Runs up to `n` instructions, turn after turn, while every instruction is in the fast
    /// set: the rest of the current wave's quantum, then the turns the scheduler gives
    /// ([`next_turn`], its own rule), each one entered only when its wave runs at least
    /// one instruction here (a turn whose first instruction is not in the fast set, or
    /// stops at a breakpoint mark, or is an access the fast loop leaves to the general
    /// one, is left to [`Machine::run`]'s loop, which takes the same turn from the same
    /// state: a stop before a quantum's first instruction leaves the scheduler as it
    /// was). Stops too when the current wave's next instruction is not in the fast set.
    /// Memory instructions reach global memory and the shared memory of their wave's
    /// slot, and leave watched bytes to the general loop. For runs with no stop point or
    /// breakpoint to step over: one pass here instead of a schedule and a loop entry per
    /// quantum. Returns the instructions run.
    fn run_turns(waves: &mut [Wave], t: &mut Turns<'_>, n: u64) -> u64 {
        turns::<false>(waves, t, n).0
    }
}

simd_fn! {
    /// [`run_turns`] under the sanitizer (`t.checked`): each turn's instructions run while
    /// its guard allows, waits and accesses with their hooks ([`fast_stretch`]), and the
    /// run stops after an instruction that found something new (its wave and PC
    /// returned). A turn refused at its first instruction is left to [`Machine::run`]'s
    /// loop as any other.
    fn run_turns_checked(
        waves: &mut [Wave],
        t: &mut Turns<'_>,
        n: u64,
    ) -> (u64, Option<(usize, u64)>) {
        turns::<true>(waves, t, n)
    }
}

/// The body of [`run_turns`] (`CHECK` false) and [`run_turns_checked`]: one copy of the
/// loop each, so the bare one pays nothing for the sanitizer.
#[inline(always)]
fn turns<const CHECK: bool>(
    waves: &mut [Wave],
    t: &mut Turns<'_>,
    n: u64,
) -> (u64, Option<(usize, u64)>) {
    let mut done = 0;
    while done < n {
        let resumed = *t.left > 0
            && waves
                .get(*t.current)
                .is_some_and(|w| w.state == WaveState::Ready);
        let before = (*t.current, *t.left, *t.rng);
        if !resumed {
            let Some((w, left)) = next_turn(waves, *t.current, t.rng, t.quantum) else {
                break;
            };
            (*t.current, *t.left) = (w, left);
        }
        let w = *t.current;
        let m = (*t.left as u64).min(n - done);
        let s = slot_in(t.wave_slots, t.waves_per_group, w);
        let mut checked = None;
        if CHECK {
            if let Some((san, code)) = t.checked.as_mut() {
                // The workgroup's waves found only for a slot entered afresh.
                let wpg = t.waves_per_group as u32;
                let group_fresh = || group_of(waves, s, wpg).iter().all(|x| x.executed == 0);
                san.enter_slot(s, &waves[w], group_fresh);
                checked = Some(FastChecked::new(
                    san,
                    (w, s),
                    code,
                    t.stats.wave_instructions,
                ));
            }
        }
        let wave = &mut waves[w];
        let memory = t.slots.get_mut(s).map(|slot| FastMemory {
            global: &mut *t.global,
            shared: &mut slot.shared,
            accesses: t.accesses,
            trace: None,
        });
        let at = FastAt {
            fast: t.fast,
            break_at: t.break_at,
            ran: &mut *t.ran,
        };
        let Stretch {
            done: k,
            vector,
            found,
        } = fast_stretch(wave, at, memory, m, checked.as_mut());
        if k == 0 {
            (*t.current, *t.left, *t.rng) = before;
            break;
        }
        t.touched.mark(w);
        if t.lanes_of.0 != wave.exec {
            *t.lanes_of = (wave.exec, wave.exec.count_ones());
        }
        t.stats.wave_instructions += k;
        t.stats.lane_ops += k * t.lanes_of.1 as u64;
        t.stats.vector_lane_ops += vector * t.lanes_of.1 as u64;
        *t.left -= k as u32;
        done += k;
        if let Some(pc) = found {
            return (done, Some((w, pc)));
        }
        // The turn went on to an instruction outside the fast set (or a mark).
        if *t.left > 0 {
            break;
        }
    }
    (done, None)
}

/// Runs up to `n` instructions of `wave` from its PC while they are in the fast set
/// ([`FastCode`]: ALU, compare, branch, shuffle and wait instructions, which never fault
/// and leave EXEC as it is, and 32-bit memory accesses whose lanes make one or two runs
/// of words in `memory`, each in one page), stopping before a breakpoint mark that stops
/// this wave, with the code-run bits kept (`ran`, when not empty). Under the sanitizer
/// (`checked`), an instruction runs only while its guard allows, and a wait or an access
/// with its hooks ([`FastChecked::step`]; the waits right after an access with it, the
/// guard taken again only after the last); the loop stops after one that found something.
/// Moves the PC and the wave's count on. Inlined into each SIMD-dispatched caller, so it
/// is compiled with their target features.
#[inline(always)]
fn fast_stretch(
    wave: &mut Wave,
    at: FastAt<'_>,
    memory: Option<FastMemory<'_>>,
    n: u64,
    mut checked: Option<&mut FastChecked<'_>>,
) -> Stretch {
    if !wave.pc.is_multiple_of(4) {
        return Stretch::default();
    }
    let FastAt {
        fast,
        break_at,
        ran,
    } = at;
    let (id, group) = (wave.id, wave.workgroup);
    // Under the sanitizer, the wave's guard; without one, none of its instructions runs
    // here.
    let mut guard = FastGuard::default();
    if let Some(c) = checked.as_deref_mut() {
        match c.guard(wave) {
            Some(g) => guard = g,
            None => return Stretch::default(),
        }
    }
    let mut memory = memory;
    let mut pc = wave.pc;
    let mut out = Stretch::default();
    // Instructions counted in `wave.executed` already (by hooked steps).
    let mut counted = 0;
    let mut state = FastState::of(wave, fast.vregs);
    while out.done < n {
        let i = (pc / 4) as usize;
        let Some(f) = fast.ops.get(i).filter(|f| f.is_fast()) else {
            break;
        };
        if !break_at.is_empty() && break_at.get(i).is_some_and(|b| b.stops(id, group)) {
            break;
        }
        // `marks`: an instruction the guard refuses only for its first writes, which it
        // runs and then marks.
        let (hooked, marks) = match checked.as_deref() {
            Some(c) if f.hooked() => {
                if !guard.registers_allow(c.sets(), i) && !c.registers_allow_ordered(i) {
                    break;
                }
                (true, false)
            }
            Some(c) if !guard.allows(c.sets(), i, f) => {
                if !c.marks_only(&guard, i, state.exec) {
                    break;
                }
                (false, true)
            }
            _ => (false, false),
        };
        // Marked before it runs: an access the fast loop leaves to the general one is
        // marked there too.
        if let Some(bits) = ran.get_mut(i >> 6) {
            *bits |= 1 << (i & 63);
        }
        if hooked {
            // EXEC before the hooked step, which leaves it as it was (no fast
            // instruction changes it): the state made again after it takes it from here,
            // so the loop keeps what it made of it (its lane masks) instead of making
            // it again from the wave.
            let exec = state.exec;
            let (Some(c), Some(m)) = (checked.as_deref_mut(), memory.as_mut()) else {
                break;
            };
            wave.pc = pc;
            wave.executed += out.done - counted;
            counted = out.done;
            let access = f.is_access();
            let next = if access {
                // The waits after it run with it (below) when there is room for one and no
                // breakpoint can stop before it.
                let waited = out.done + 1 < n && break_at.is_empty();
                c.step(wave, f, m, (fast.vregs, waited), (pc, out.done))
            } else {
                c.wait(wave, f, (pc, out.done))
            };
            let Some(next) = next else {
                break;
            };
            out.done += 1;
            out.vector += f.vector() as u64;
            counted = out.done;
            // (A wait's hooks report nothing.)
            if access && c.found() {
                out.found = Some(pc);
                return out;
            }
            pc = next;
            // Waits right after it run here too: a wait reads and writes no register, so
            // the guard need not be taken again before one, only after the last.
            while out.done < n {
                let i = (pc / 4) as usize;
                let Some(f) = fast.ops.get(i).filter(|f| f.is_wait()) else {
                    break;
                };
                if !break_at.is_empty() && break_at.get(i).is_some_and(|b| b.stops(id, group)) {
                    break;
                }
                debug_assert!(guard.registers_allow(c.sets(), i));
                if let Some(bits) = ran.get_mut(i >> 6) {
                    *bits |= 1 << (i & 63);
                }
                wave.pc = pc;
                let Some(next) = c.wait(wave, f, (pc, out.done)) else {
                    break;
                };
                out.done += 1;
                out.vector += f.vector() as u64;
                counted = out.done;
                pc = next;
            }
            match c.refresh(&guard) {
                Some(g) => guard = g,
                None => break,
            }
            state = FastState::of(wave, fast.vregs);
            debug_assert_eq!(state.exec, exec);
            state.exec = exec;
            continue;
        }
        let Some(next) = fast::step(f, &mut state, memory.as_mut(), pc) else {
            break;
        };
        if marks {
            let exec = state.exec;
            // (Always there: only a checked loop marks.)
            let Some(c) = checked.as_deref_mut() else {
                break;
            };
            let g = c.marked(wave, pc);
            pc = next;
            out.done += 1;
            out.vector += f.vector() as u64;
            match g {
                Some(g) => guard = g,
                None => break,
            }
            state = FastState::of(wave, fast.vregs);
            state.exec = exec;
            continue;
        }
        pc = next;
        out.done += 1;
        out.vector += f.vector() as u64;
    }
    wave.pc = pc;
    wave.executed += out.done - counted;
    out
}

/// The waves of slot `s` (`wpg` waves per workgroup).
pub(super) fn group_of(waves: &[Wave], s: usize, wpg: u32) -> &[Wave] {
    let wpg = wpg as usize;
    let start = (s * wpg).min(waves.len());
    &waves[start..(start + wpg).min(waves.len())]
}
