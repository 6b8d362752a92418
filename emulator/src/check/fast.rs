//! What lets the machine's fast loop (`exec::fast`: ALU, compare, branch, shuffle, wait
//! and 32-bit memory instructions) run under the sanitizer without calling its hooks per
//! instruction.
//!
//! The waits and memory accesses among them always take the hooks (a wait retires
//! outstanding operations, an access is traced lane by lane and issues one). The rest
//! touch no memory, issue nothing, leave EXEC as it is and are not barriers, so of every
//! detector only these could act on them: an uninitialised register read, a register
//! write to mark, a register an outstanding operation still uses, and (shuffles) an
//! active lane reading an inactive one. [`FastGuard::allows`] answers, per code word,
//! whether all are nothing for this wave now: then running the instruction without the
//! hooks leaves the sanitizer exactly as the hooks would. Anything else takes the general
//! loop and its hooks.

use super::regs::{RegBits, RegSets};
use super::Sanitizer;
use crate::exec::fast::Fast;
use crate::wave::Wave;

/// A wave's register state as the checks see it, fixed while fast instructions run
/// (they only write registers already written in every lane, so nothing here changes).
pub(crate) struct FastGuard<'a> {
    sets: &'a [RegSets],
    /// Registers written in every lane (all of them when `init` is off).
    full: RegBits,
    /// Whether reads must be within `full` (`init` on and the wave seen from its start).
    check_reads: bool,
    /// Registers an outstanding operation will write (a read or write of one is a hazard).
    dest: RegBits,
    /// Those and the data registers of outstanding stores (a write of one is a hazard).
    used: RegBits,
    /// Whether a cross-lane read may read an inactive lane (the detector is on and EXEC
    /// is neither full nor empty; EXEC does not change while fast instructions run).
    inactive_reads: bool,
}

impl FastGuard<'_> {
    /// Whether the instruction `f` of code word `i` can run without the hooks (never a
    /// wait or a memory access: the hazard detector and the memory model follow the
    /// counters, the memory detectors each lane's access).
    #[inline(always)]
    pub(crate) fn allows(&self, i: usize, f: &Fast) -> bool {
        !(f.hooked() || f.cross_lane() && self.inactive_reads)
            && self.sets.get(i).is_some_and(|s| {
                (!self.check_reads || s.reads.within(self.full))
                    && s.writes.within(self.full)
                    && !s.reads.meets(self.dest)
                    && !s.writes.meets(self.used)
            })
    }
}

impl Sanitizer {
    /// The guard for wave `w` (already entered in its slot), or `None` when its next
    /// instructions need the hooks whatever they are: a wave not seen yet, outstanding
    /// counts to be rebuilt, lanes back from a skipped barrier. Clears the findings of
    /// the last instruction, as the next instruction's hooks would.
    pub(crate) fn fast_guard(&mut self, w: usize, wave: &Wave) -> Option<FastGuard<'_>> {
        let checks = self.checks;
        let shadow = self.waves.get(w).filter(|x| x.id == wave.id)?;
        if checks.sync && wave.exec & shadow.skipped != 0 {
            return None;
        }
        let (mut dest, mut used) = (RegBits::default(), RegBits::default());
        if checks.hazards {
            let busy = shadow.busy.as_deref()?;
            dest = busy.dest_any;
            used = busy.dest_any.union(busy.data_any);
        }
        let (full, check_reads) = if checks.init {
            (shadow.full, shadow.known)
        } else {
            (RegBits([u64::MAX; 3]), false)
        };
        self.fresh.clear();
        Some(FastGuard {
            sets: &self.sets,
            full,
            check_reads,
            dest,
            used,
            inactive_reads: checks.xlane && wave.exec != u32::MAX && wave.exec != 0,
        })
    }
}
