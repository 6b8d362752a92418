//! What lets the machine's fast loop (`exec::fast`: ALU, compare, branch, shuffle, wait
//! and 32-bit memory instructions) run under the sanitizer, calling its hooks only where
//! they can act.
//!
//! Most of a kernel's instructions touch no memory, issue nothing, leave EXEC as it is
//! and are not barriers, so of every detector only these could act on them: an
//! uninitialised register read, a register write to mark, a register an outstanding
//! operation still uses, and (shuffles) an active lane reading an inactive one.
//! [`FastGuard::allows`] answers, per code word, whether all are nothing for this wave
//! now: then running the instruction without the hooks leaves the sanitizer exactly as
//! the hooks would.
//!
//! Waits and memory accesses always take the hooks (a wait retires outstanding
//! operations, an access is traced and issues one), but not the general loop:
//! [`FastChecked::step`] (an access) or [`FastChecked::wait`] runs one with the same
//! hooks, in the same order (less those that cannot act on it), when its registers pass
//! the same test (the hooks before it would then find nothing) and its lanes make the
//! runs the fast loop takes. Anything else takes the general loop and its hooks.

use super::hazards::lands_after;
use super::regs::{RegBits, RegSets};
use super::{Sanitizer, WaveShadow};
use crate::code::{CodeWord, Decoded};
use crate::exec::fast::{step, wait, Fast, FastMemory, FastState};
use crate::isa::{Counter, Op};
use crate::wave::{pushed_out, Wave};

/// A wave's register state as the checks see it, fixed while fast instructions run
/// without the hooks (they only write registers already written in every lane, so
/// nothing here changes); refreshed after each hooked one ([`FastChecked::refresh`]).
/// (The default flags nothing: the guard of a loop without the sanitizer, never asked.)
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct FastGuard {
    /// The registers whose read (in `reads`) or write (in `writes`) the checks before an
    /// instruction would report or mark: reads of registers an outstanding operation
    /// will write, or (`init` on, the wave seen from its start) not written in every
    /// lane; writes of registers an outstanding operation will write or still reads as
    /// store data, or not written in every lane (which the hooks would mark written).
    /// Exact but for a load over the destination of loads on its own in-order counter,
    /// which the hooks do not report: [`FastChecked::registers_allow_ordered`] asks
    /// again for those.
    flagged: RegSets,
    /// Whether a cross-lane read may read an inactive lane (the detector is on and EXEC
    /// is neither full nor empty; EXEC does not change while fast instructions run).
    inactive_reads: bool,
}

impl FastGuard {
    /// Whether the instruction `f` of code word `i` (register sets `sets`, per word) can
    /// run without the hooks (never a wait or a memory access: the hazard detector and
    /// the memory model follow the counters, the memory detectors each lane's access).
    #[inline(always)]
    pub(crate) fn allows(&self, sets: &[RegSets], i: usize, f: &Fast) -> bool {
        !(f.hooked() || f.cross_lane() && self.inactive_reads) && self.registers_allow(sets, i)
    }

    /// Whether the register checks before word `i` find nothing: the registers it reads
    /// are written in every lane, and neither they nor the ones it writes are in use by
    /// an outstanding operation. What a wait or an access needs before
    /// [`FastChecked::step`] may run it. (The registers in use are those before the
    /// instruction retires anything, a superset of what the hooks test after retiring: a
    /// pass here is a pass there.)
    #[inline(always)]
    pub(crate) fn registers_allow(&self, sets: &[RegSets], i: usize) -> bool {
        sets.get(i).is_some_and(|s| !s.meets(self.flagged))
    }
}

/// The sanitizer as one wave's fast loop runs under it: what the hooks of a wait or an
/// access need, and the wave's [`FastGuard`] when asked ([`FastChecked::guard`]). The
/// loop keeps the guard itself, so one function (built for one set of vector widths)
/// writes and reads it: kept here and read back by the loop, `perf` put up to half of the
/// loop's samples on that load, which waited for the store.
pub(crate) struct FastChecked<'a> {
    san: &'a mut Sanitizer,
    /// The launch's code, decoded (for the hooks).
    code: &'a [CodeWord],
    /// The wave's index and its workgroup's slot.
    w: usize,
    s: usize,
    /// The launch's instruction count when the loop started.
    count: u64,
    /// The part of the guard's flagged registers that is not the hazard detector's
    /// (registers not written in every lane), as of the last [`FastChecked::guard`]:
    /// fixed while the fast loop runs the wave, whose hooked steps mark no register
    /// written ([`Sanitizer::after_guarded`]), so a guard taken again after one only adds
    /// the registers in use to it ([`FastChecked::refresh`]). Kept here, not in the
    /// guard, which the loop keeps in registers.
    base: RegSets,
}

impl<'a> FastChecked<'a> {
    /// The checks for wave `w` in slot `s` (already entered). `code`: the launch's code;
    /// `count`: its instruction count.
    pub(crate) fn new(
        san: &'a mut Sanitizer,
        (w, s): (usize, usize),
        code: &'a [CodeWord],
        count: u64,
    ) -> FastChecked<'a> {
        FastChecked {
            san,
            code,
            w,
            s,
            count,
            base: RegSets::default(),
        }
    }

    /// The guard for the wave now, or `None` when its next instructions need the general
    /// loop's hooks whatever they are ([`Sanitizer::fast_guard`]). Taken when the loop
    /// starts and after each hooked instruction (which may have issued, retired or written
    /// registers).
    #[inline(always)]
    pub(crate) fn guard(&mut self, wave: &Wave) -> Option<FastGuard> {
        let (g, base) = self.san.fast_guard(self.w, wave)?;
        self.base = base;
        Some(g)
    }

    /// What [`FastChecked::guard`] would take after a hooked step that found nothing new,
    /// from the guard `g` taken before it: only the registers in use can have changed (a
    /// wait or an access marks no register written, leaves EXEC as it was and passes no
    /// barrier, and `fresh` is empty since it found nothing), so they are added to the
    /// fixed part again, without the wave's other state. `None` as for the guard.
    #[inline(always)]
    pub(crate) fn refresh(&self, g: &FastGuard) -> Option<FastGuard> {
        let shadow = self.san.waves.get(self.w)?;
        let flagged = self.san.flagged_over(shadow, None, self.base)?;
        Some(FastGuard { flagged, ..*g })
    }

    /// The register sets of each code word, for [`FastGuard`]'s tests.
    #[inline(always)]
    pub(crate) fn sets(&self) -> &[RegSets] {
        &self.san.sets
    }

    /// Runs the access `f` at the wave's PC `pc`, whose registers the guard allows
    /// ([`FastGuard::registers_allow`], or failing that
    /// [`FastChecked::registers_allow_ordered`], asked by the caller: the checks before it
    /// would find nothing), with the hooks the general loop calls before and after it,
    /// on the wave's first `vregs` vector registers and memory `m` (`done`: instructions
    /// the loop ran before it). Returns the next PC, or `None`, having changed nothing,
    /// when the fast loop leaves the access to the general one. Then
    /// [`FastChecked::found`] tells whether it found something new; if not, take
    /// [`FastChecked::refresh`] before the next instruction.
    ///
    /// `waited`: the caller runs the next instruction, if it is a wait, right after this
    /// one unless this one found something. When the next instruction is a wait that
    /// retires every operation of the access's counter, the hazard detector does not
    /// count the access as in use (it would count it and at once retire it: the
    /// registers in use come out the same).
    #[inline(never)]
    pub(crate) fn step(
        &mut self,
        wave: &mut Wave,
        f: &Fast,
        m: &mut FastMemory<'_>,
        (vregs, waited): (usize, bool),
        (pc, done): (u64, u64),
    ) -> Option<u64> {
        let i = (pc / 4) as usize;
        let Some(CodeWord::Instr(d)) = self.code.get(i) else {
            return None;
        };
        let counted = !(waited && empties(self.code.get(i + d.len as usize / 4), d.counter));
        let san = &mut *self.san;
        // `before`, less its register checks (which find nothing) and the cross-lane one
        // (not a cross-lane instruction), and EXEC before it, which only `after` reads
        // (the hooks of the general loop, which take it themselves).
        san.fresh.clear();
        san.pending.clear();
        if san.trace.access.is_some() {
            san.trace.clear();
        }
        // An access that issues to a full counter pushes its oldest operation out, which
        // the hooks take from the counts before it issues; taken here once it has (it may
        // yet be left to the general loop, whose hooks take it then).
        let pushed = if san.checks.hazards {
            d.counter
                .filter(|c| pushed_out(&wave.outstanding[c.index()]).is_some())
        } else {
            None
        };
        let traced = san.checks.races || san.checks.init;
        let mut state = FastState::of(wave, vregs);
        let mut memory = FastMemory {
            global: &mut *m.global,
            shared: &mut *m.shared,
            accesses: m.accesses,
            trace: traced.then_some(&mut *san.trace),
        };
        let next = step(f, &mut state, Some(&mut memory), pc)?;
        if counted {
            san.retire_pushed(self.w, wave, pushed);
        }
        wave.pc = next;
        wave.executed += 1;
        san.after_guarded(
            self.w,
            self.s,
            wave,
            d,
            pc,
            (true, counted),
            self.count + done + 1,
        );
        if !counted && san.has_fresh() {
            // The loop stops here, before the wait: counted after all (the hooks after it
            // do not read the registers in use).
            san.count_late(self.w, wave, d, pushed);
        }
        Some(next)
    }

    /// [`FastChecked::step`] for the wait `f` (never left to the general loop but for a
    /// PC that holds no instruction, or one that issues, which no wait does): the hooks
    /// of a wait, which retire its operations from the registers in use, and the wait
    /// itself on the wave's queues.
    #[inline(never)]
    pub(crate) fn wait(
        &mut self,
        wave: &mut Wave,
        f: &Fast,
        (pc, done): (u64, u64),
    ) -> Option<u64> {
        let Some(CodeWord::Instr(d)) = self.code.get((pc / 4) as usize) else {
            return None;
        };
        if d.counter.is_some() {
            return None;
        }
        let san = &mut *self.san;
        // `before`, as for an access, less the trace's clearing: nothing reads it after a
        // wait (`after_guarded_wait`), and the next instruction that fills it clears it
        // first (`before`, or the access's hooked step).
        san.fresh.clear();
        san.pending.clear();
        if san.checks.hazards {
            san.hazards_wait(self.w, wave, d);
        }
        let next = wait(f, &mut wave.outstanding, pc);
        wave.pc = next;
        wave.executed += 1;
        san.after_guarded_wait(wave, d, pc, self.count + done + 1);
        Some(next)
    }

    /// Whether the access of word `i`, whose registers the guard refused
    /// ([`FastGuard::registers_allow`]), passes the register checks before it all the
    /// same: a load that overwrites only registers that earlier loads on its own counter,
    /// which retires in order, will write, and lands after them ([`lands_after`]). Asked
    /// only when the guard refuses, so the guard stays one set for every instruction.
    #[cold]
    #[inline(never)]
    pub(crate) fn registers_allow_ordered(&self, i: usize) -> bool {
        let Some(CodeWord::Instr(d)) = self.code.get(i) else {
            return false;
        };
        let (Some(ordered), Some(shadow)) = (lands_after(d), self.san.waves.get(self.w)) else {
            return false;
        };
        let flagged = self.san.flagged(shadow, Some(ordered));
        let sets = self.san.sets.get(i);
        flagged.is_some_and(|f| sets.is_some_and(|s| !s.meets(f)))
    }

    /// Whether the instruction of code word `i` (not a wait or an access), which `guard`
    /// refuses, is refused only for what the hooks after it would do on a full EXEC
    /// (`exec`): mark the registers it writes that are not written in every lane yet (a
    /// register's first write). Its reads are allowed, it issues nothing and writes no
    /// register in use, so the hooks before it find nothing. The loop then runs it and
    /// calls [`FastChecked::marked`]. (Leaving each first write to the general loop cost
    /// a short kernel a fifth of its checked time.)
    #[cold]
    #[inline(never)]
    pub(crate) fn marks_only(&self, guard: &FastGuard, i: usize, exec: u32) -> bool {
        let san = &*self.san;
        if exec != u32::MAX || !san.checks.init {
            return false;
        }
        let (Some(sets), Some(shadow)) = (san.sets.get(i), san.waves.get(self.w)) else {
            return false;
        };
        if sets.reads.meets(guard.flagged.reads) {
            return false;
        }
        // The guard's flagged registers less `init`'s part: the hazard detector's.
        san.flagged_over(shadow, None, RegSets::default())
            .is_some_and(|in_use| !sets.writes.meets(in_use.writes))
    }

    /// After the instruction at `pc` that [`FastChecked::marks_only`] let the loop run:
    /// what its hooks do after it (its registers marked written in every lane), then
    /// the guard taken again ([`FastChecked::guard`]).
    #[inline(never)]
    pub(crate) fn marked(&mut self, wave: &Wave, pc: u64) -> Option<FastGuard> {
        self.san.mark_written(self.w, wave, pc, u32::MAX);
        self.guard(wave)
    }

    /// Whether the last [`FastChecked::step`] found something new (the loop stops).
    #[inline(always)]
    pub(crate) fn found(&self) -> bool {
        self.san.has_fresh()
    }
}

/// Whether `next`, the code word after an access issued to `counter`, is a wait that
/// retires every operation on that counter (`wait.<counter> 0` or `wait.all`).
#[inline(always)]
fn empties(next: Option<&CodeWord>, counter: Option<Counter>) -> bool {
    match (next, counter) {
        (Some(CodeWord::Instr(w)), Some(c)) => match w.op {
            Op::Wait(Some(on)) => on == c && w.instr.imm <= 0,
            Op::Wait(None) => true,
            _ => false,
        },
        _ => false,
    }
}

impl Sanitizer {
    /// What the hazard detector does after wave `w` issued the access `d` (which pushed
    /// the oldest operation of its counter out, if `pushed`), for an access
    /// [`FastChecked::step`] did not count.
    #[cold]
    #[inline(never)]
    fn count_late(&mut self, w: usize, wave: &Wave, d: &Decoded, pushed: Option<Counter>) {
        self.retire_pushed(w, wave, pushed);
        if self.checks.hazards {
            self.hazards_after(w, wave, d);
        }
    }

    /// The guard for wave `w` (already entered in its slot), or `None` when its next
    /// instructions need the hooks whatever they are: a wave not seen yet, outstanding
    /// counts to be rebuilt, lanes back from a skipped barrier. Clears the findings of
    /// the last instruction, as the next instruction's hooks would.
    #[inline(always)]
    fn fast_guard(&mut self, w: usize, wave: &Wave) -> Option<(FastGuard, RegSets)> {
        let checks = self.checks;
        // Made here when no detector's hook has made it yet (`xlane` or `races` alone),
        // as the hooks would (`wave_shadow`): without it no instruction would run here.
        self.wave_shadow(w, wave);
        let shadow = self.waves.get(w)?;
        if checks.sync && wave.exec & shadow.skipped != 0 {
            return None;
        }
        let base = self.flagged_base(shadow);
        let flagged = self.flagged_over(shadow, None, base)?;
        self.fresh.clear();
        let guard = FastGuard {
            flagged,
            inactive_reads: checks.xlane && wave.exec != u32::MAX && wave.exec != 0,
        };
        Some((guard, base))
    }

    /// [`FastGuard`]'s flagged registers for the wave of `shadow`, for an instruction
    /// whose writes land after the outstanding operations of counter `ordered`, if any
    /// ([`lands_after`]: those writes are not hazards); `None` when the registers in use
    /// are not known.
    #[inline(always)]
    fn flagged(&self, shadow: &WaveShadow, ordered: Option<Counter>) -> Option<RegSets> {
        self.flagged_over(shadow, ordered, self.flagged_base(shadow))
    }

    /// [`Sanitizer::flagged`] with its `init` part, `base` ([`Sanitizer::flagged_base`]),
    /// made already.
    #[inline(always)]
    fn flagged_over(
        &self,
        shadow: &WaveShadow,
        ordered: Option<Counter>,
        base: RegSets,
    ) -> Option<RegSets> {
        let checks = self.checks;
        let (mut dest, mut used) = (RegBits::default(), RegBits::default());
        if checks.hazards {
            let busy = shadow.busy.as_ref()?;
            dest = busy.all.dest;
            used = busy.overwritten(ordered).union(busy.all.data);
        }
        Some(RegSets {
            reads: dest.union(base.reads),
            writes: used.union(base.writes),
        })
    }

    /// The part of [`Sanitizer::flagged`] that is `init`'s: registers not written in every
    /// lane, for writes (which the hooks would mark) and, when the wave was seen from its
    /// start, for reads. With `init` off, every register counts as written in every lane.
    #[inline(always)]
    fn flagged_base(&self, shadow: &WaveShadow) -> RegSets {
        let mut base = RegSets::default();
        if self.checks.init {
            let partial = shadow.full.complement();
            base.writes = partial;
            if shadow.known {
                base.reads = partial;
            }
        }
        base
    }
}
