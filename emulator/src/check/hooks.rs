//! The hooks the machine calls while a detector is on: before and after each
//! instruction (from the checked copies of its step and run loop, never from the
//! unchecked ones), at barrier releases and deadlocks, and at the debugger's writes.
//! They hand each detector its part and merge the instruction's findings.

use super::shadow::{RaceShadow, Ref, Take, EPOCH_MASK};
use super::{sync, Finding, FindingKind, MemAccess, Sanitizer, Site, WaveLanes, FINDING_LIST_MAX};
use crate::code::Decoded;
use crate::isa::{Counter, RegFile};
use crate::memory::Space;
use crate::trace::AccessKind;
use crate::wave::{Wave, WaveState};

impl Sanitizer {
    /// Makes sure slot `s`'s shadow describes `wave`'s workgroup (`group_fresh`: whether
    /// none of its waves has executed anything yet, asked only for a new workgroup).
    #[inline]
    pub(crate) fn enter_slot(&mut self, s: usize, wave: &Wave, group_fresh: impl FnOnce() -> bool) {
        if self
            .slots
            .get(s)
            .is_none_or(|x| x.workgroup != Some(wave.workgroup))
        {
            let fresh = group_fresh();
            self.slot_shadow(s, wave.workgroup, fresh);
        }
    }

    /// Before wave `w` (in slot `s`) executes `d` at `pc`: register hazards and
    /// uninitialised register reads (they depend only on the state before it).
    /// `group_fresh` as for [`Sanitizer::enter_slot`].
    #[inline]
    pub(crate) fn before(
        &mut self,
        w: usize,
        s: usize,
        wave: &Wave,
        group_fresh: impl FnOnce() -> bool,
        d: &Decoded,
        pc: u64,
    ) {
        self.fresh.clear();
        self.pending.clear();
        if self.trace.access.is_some() {
            self.trace.clear();
        }
        self.exec_before = wave.exec;
        self.enter_slot(s, wave, group_fresh);
        // With every lane active (or none), no active lane can read an inactive one.
        if self.checks.xlane && wave.exec != u32::MAX && wave.exec != 0 {
            self.inactive_lane_reads(wave, d, pc);
        }
        let Some(u) = self.uses.get((pc / 4) as usize).copied() else {
            return;
        };
        if self.checks.hazards {
            self.hazards_before(w, wave, d, &u, pc);
        }
        if self.checks.init {
            self.uninit_registers(w, wave, d, &u, pc);
        }
    }

    /// After wave `w` (in slot `s`) executed `d` at `pc` (`ok`: without a fault; `count`:
    /// the launch's instruction count): memory accesses against the shadow state,
    /// register writes, barrier skips; then the instruction's findings are merged.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn after(
        &mut self,
        w: usize,
        s: usize,
        wave: &Wave,
        d: &Decoded,
        pc: u64,
        ok: bool,
        count: u64,
    ) {
        if ok {
            let exec = self.exec_before;
            if self.checks.init {
                self.mark_written(w, wave, pc, exec);
            }
            if self.checks.sync {
                self.barrier_skips(w, wave, d, pc, exec);
            }
        }
        self.after_guarded(w, s, wave, d, pc, (ok, true), count);
    }

    /// [`Sanitizer::after`] for an instruction the fast loop's guard let through
    /// (`check/fast.rs`), less what finds nothing there: its registers are all written in
    /// every lane already (the guard flags any other register written), so `init` has
    /// nothing to mark; it is no barrier and leaves EXEC as it was, which the guard
    /// found holding no lane skipped at a barrier, so `sync` has nothing to see.
    /// `counted`: whether the hazard detector counts what it issued as in use (not when
    /// the wait right after it retires it, [`FastChecked::step`](super::FastChecked)).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn after_guarded(
        &mut self,
        w: usize,
        s: usize,
        wave: &Wave,
        d: &Decoded,
        pc: u64,
        (ok, counted): (bool, bool),
        count: u64,
    ) {
        if ok {
            if self.checks.hazards && counted {
                self.hazards_after(w, wave, d);
            }
            if self.checks.races {
                if self.order.on() {
                    self.order.executed(wave, d, pc);
                }
                if let Some(c) = d.counter.filter(|c| self.kept_on[c.index()]) {
                    self.wave_shadow(w, wave).issues.issue(c);
                }
            }
            if self.trace.access.is_some() {
                self.memory(w, s, wave, (pc, d.counter));
            }
        }
        self.commit(count);
    }

    /// [`Sanitizer::after_guarded`] for a wait `d` the fast loop ran (its trace left as
    /// it was: nothing reads it after a wait), less what finds nothing there: it issues
    /// to no counter (nothing to count as in use or kept) and accesses no memory. Only
    /// the memory model follows it.
    #[inline(always)]
    pub(crate) fn after_guarded_wait(&mut self, wave: &Wave, d: &Decoded, pc: u64, count: u64) {
        if self.checks.races && self.order.on() {
            self.order.executed(wave, d, pc);
        }
        self.commit(count);
    }

    /// Checks the current instruction's memory accesses (issued on `counter`).
    fn memory(&mut self, w: usize, s: usize, wave: &Wave, (pc, counter): (u64, Option<Counter>)) {
        let Some((space, kind)) = self.trace.access else {
            return;
        };
        let tried = match space {
            Space::Shared => self.take_shared(s, wave, pc, kind),
            _ => None,
        };
        if tried == Some(Take::Taken) {
            return;
        }
        // The detectors below take the sanitizer and the trace apart.
        let empty = self.spare.take().unwrap_or_default();
        let trace = std::mem::replace(&mut self.trace, empty);
        let access = MemAccess::of(kind);
        let site = Site {
            access: Some(access),
            ..Site::of(wave, 0, pc)
        };
        let epoch = self.slot_shadow(s, wave.workgroup, false).epoch;
        // Global memory is the host's, initialised; scratch is private to a lane, race-free.
        // A shared access `take_shared` asked about has every byte written: the init bits
        // would find and mark nothing.
        if self.checks.init && space != Space::Global && tried.is_none() {
            self.uninit_memory((w, s), wave, &trace, (space, access), site);
        }
        if self.checks.races && space != Space::Scratch {
            let on_vm = counter == Some(Counter::Vm);
            let me = self.races(
                s,
                wave,
                &trace,
                (space, access, on_vm),
                (site, epoch),
                tried == Some(Take::Refused),
            );
            // Kept until retired: a barrier passed before then does not order it.
            let kept = self.kept.get((pc / 4) as usize).copied().unwrap_or(false);
            if let (Some(c), true) = (counter, kept) {
                let empty = self
                    .wave_shadow(w, wave)
                    .issues
                    .accessed(c, wave, space, me, trace);
                self.spare = Some(empty);
                return;
            }
        }
        // Still empty: nothing but the semantics writes a trace.
        self.spare = Some(std::mem::replace(&mut self.trace, trace));
    }

    /// [`RaceShadow::take_trace`] of wave `wave`'s shared access (`kind`) at `pc` in slot
    /// `s`, before anything else [`Sanitizer::memory`] does, when nothing else there can
    /// act on it: no access of the slot is kept for a late race, nor is this one, and
    /// every byte it touches is written (the uninitialised-memory detector would find and
    /// mark nothing). Most of a shared-atomics loop's accesses: the rest of the hook cost
    /// them as much again. `None` when not asked.
    #[inline(always)]
    fn take_shared(&mut self, s: usize, wave: &Wave, pc: u64, kind: AccessKind) -> Option<Take> {
        let kept = self.kept.get((pc / 4) as usize).copied().unwrap_or(false);
        if !self.checks.races || kept {
            return None;
        }
        let slot = (self.slots.get_mut(s)).filter(|x| x.workgroup == Some(wave.workgroup))?;
        if !slot.late.is_empty() || self.checks.init && !slot.init.written(&self.trace) {
            return None;
        }
        let me = Ref::new(wave.id, slot.epoch, pc, MemAccess::of(kind));
        Some(slot.race.take_trace(&self.trace, me, self.groups))
    }

    /// The waves of slot `s` are all at a barrier and about to be released.
    /// `last`: the wave that arrived last (its barrier completes the set).
    pub(crate) fn release(&mut self, s: usize, group: &[Wave], last: &Wave) {
        let Some(first) = group.first() else {
            return;
        };
        // Counted whichever detectors are on: races compare epochs.
        let epoch = {
            let slot = self.slot_shadow(s, first.workgroup, false);
            slot.epoch += 1;
            // Records keep the epoch modulo 2^16, so one made 65,536 barriers ago would
            // look like one of this interval. Every shared record is of an earlier
            // interval, ordered before whatever comes next: forgetting them all is exact.
            if slot.epoch & EPOCH_MASK == 0 {
                slot.race = RaceShadow::default();
            }
            slot.epoch
        };
        if self.checks.sync {
            self.barrier_mismatch(group, last, epoch);
        }
        if self.checks.races {
            if self.order.on() {
                self.order.barrier(group);
            }
            if self.kept_on.contains(&true) {
                let first = s * self.groups.per_group() as usize;
                self.late_at_barrier(s, first, group);
            }
        }
    }

    /// A barrier of `group` can never complete (`count`: the launch's instruction count).
    pub(crate) fn deadlock(&mut self, group: &[Wave], count: u64) {
        if !self.checks.sync {
            return;
        }
        let (Some(f), Some(first)) = (sync::barrier_deadlock(group), group.first()) else {
            return;
        };
        // A deadlock is reported again each time the machine is asked to run on: it is one
        // sighting per workgroup, not more (another workgroup's is another sighting). Its
        // finding takes in the waves that have reached the barrier since, so that it says
        // how the workgroup ends.
        if self.deadlocked.contains(&first.workgroup) {
            self.deadlock_again(group, f);
            return;
        }
        self.deadlocked.push(first.workgroup);
        self.push(f);
        self.commit(count);
    }

    /// A deadlock of `group` reported again (`f`, its finding as of now): the finding
    /// that holds it lists every wave now waiting, and the waves' places when the
    /// workgroup is the one whose waves it lists.
    #[cold]
    fn deadlock_again(&mut self, group: &[Wave], f: Finding) {
        let Some(first) = group.first() else {
            return;
        };
        let holds = |k: &Finding| {
            k.kind == FindingKind::BarrierDeadlock
                && (k.at.workgroup == first.workgroup
                    || group.iter().any(|w| k.also.iter().any(|a| a.wave == w.id)))
        };
        let Some(known) = self.findings.iter_mut().rev().find(|k| holds(k)) else {
            return;
        };
        if known.at.workgroup == first.workgroup {
            known.waves = f.waves;
        }
        for w in group.iter().filter(|w| w.state == WaveState::AtBarrier) {
            let listed = known.at.wave == w.id || known.also.iter().any(|a| a.wave == w.id);
            if !listed && known.also.len() < FINDING_LIST_MAX {
                known.also.push(WaveLanes {
                    wave: w.id,
                    lanes: w.exec,
                });
            }
        }
    }

    /// Merges the current instruction's findings into the list.
    #[inline]
    fn commit(&mut self, count: u64) {
        if !self.pending.is_empty() {
            self.commit_pending(count);
        }
    }

    #[cold]
    fn commit_pending(&mut self, count: u64) {
        for mut f in std::mem::take(&mut self.pending) {
            let key = f.key();
            match self.index.get(&key) {
                Some(&i) => {
                    let known = &mut self.findings[i];
                    known.count += 1;
                    known.absorb(&f);
                }
                None => {
                    f.first_at = count;
                    self.index.insert(key, self.findings.len());
                    self.fresh.push(self.findings.len());
                    self.findings.push(f);
                }
            }
        }
    }

    /// A debugger write of `len` bytes at `off` (in the shared memory of slot `s`, or in
    /// the scratch of wave `w`): the bytes count as written. `group_fresh` as for
    /// [`Sanitizer::enter_slot`].
    pub(crate) fn note_memory_write(
        &mut self,
        space: Space,
        (s, w): (usize, usize),
        wave: &Wave,
        group_fresh: impl FnOnce() -> bool,
        off: u64,
        len: u64,
    ) {
        match space {
            Space::Shared => {
                self.enter_slot(s, wave, group_fresh);
                self.slots[s].init.set(off, len);
            }
            Space::Scratch => self.wave_shadow(w, wave).scratch.set(off, len),
            Space::Global => {}
        }
    }

    /// A debugger write to a register of wave `w`: the lanes count as written.
    pub(crate) fn note_register_write(
        &mut self,
        w: usize,
        wave: &Wave,
        file: RegFile,
        reg: u8,
        lanes: u32,
    ) {
        self.wave_shadow(w, wave).mark(file, reg, lanes);
    }
}
