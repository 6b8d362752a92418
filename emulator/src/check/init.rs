//! Uninitialised reads: registers read in lanes nothing wrote them in (the `.arg`
//! registers count as written), and shared memory or scratch read before anything wrote
//! it in this launch. Global memory is the host's, initialised by definition.

use super::regs::{RegUse, Special};
use super::{ByteRange, Finding, FindingKind, MemAccess, Sanitizer, Site};
use crate::code::Decoded;
use crate::exec::xlane::source_lanes;
use crate::isa::RegFile;
use crate::memory::Space;
use crate::trace::MemTrace;
use crate::wave::Wave;

impl Sanitizer {
    /// Before wave `w` executes `d` at `pc` (which reads registers `u`): the registers it
    /// reads in lanes that nothing wrote.
    // Called once, from `before`, which the machine's loop inlines: a call here instead
    // costs up to a tenth of the checked rate of register-heavy kernels.
    #[inline(always)]
    pub(super) fn uninit_registers(
        &mut self,
        w: usize,
        wave: &Wave,
        d: &Decoded,
        u: &RegUse,
        pc: u64,
    ) {
        let exec = wave.exec;
        let reads = self.sets.get((pc / 4) as usize).map(|x| x.reads);
        let shadow = self.wave_shadow(w, wave);
        if !shadow.known || reads.is_some_and(|r| r.within(shadow.full)) {
            return;
        }
        let mut found = Vec::new();
        for (r, gather) in u.reads() {
            let lanes = match r.file {
                RegFile::Vector if gather => source_lanes(wave, d),
                RegFile::Vector => exec,
                // A uniform register is one value, read whatever EXEC is.
                RegFile::Uniform => 1,
            };
            for reg in r.regs() {
                let written = match r.file {
                    RegFile::Uniform => u32::from(shadow.u >> reg & 1 == 1),
                    RegFile::Vector => shadow.v.get(reg as usize).copied().unwrap_or(0),
                };
                let missing = match r.file {
                    RegFile::Uniform if written == 0 => exec.max(1),
                    RegFile::Uniform => 0,
                    RegFile::Vector => lanes & !written,
                };
                if missing != 0 {
                    found.push((r.file, reg, missing));
                }
            }
        }
        for (file, reg, lanes) in found {
            let mut f = Finding::new(FindingKind::UninitRegister, Site::of(wave, lanes, pc));
            f.reg = Some((file, reg));
            self.push(f);
        }
    }

    /// After wave `w` executed the instruction at `pc` with EXEC `exec`: the registers it
    /// wrote count as written in the lanes it wrote them.
    #[inline]
    pub(super) fn mark_written(&mut self, w: usize, wave: &Wave, pc: u64, exec: u32) {
        let writes = self.sets.get((pc / 4) as usize).map(|x| x.writes);
        if let Some(&u) = self.uses.get((pc / 4) as usize) {
            let shadow = self.wave_shadow(w, wave);
            // Registers written in every lane already: nothing to mark.
            if !writes.is_some_and(|x| x.within(shadow.full)) {
                let lanes = match u.special {
                    Special::WriteLane(l) => 1u32.checked_shl(l as u32).unwrap_or(0),
                    _ => exec,
                };
                for r in u.writes() {
                    for reg in r.regs() {
                        shadow.mark(r.file, reg, lanes);
                    }
                }
            }
        }
    }

    /// The accesses `trace` of wave `w` (in slot `s`) to shared memory or scratch
    /// (`space`, accessed as `access`): the bytes it reads that nothing wrote, then the
    /// bytes it writes marked. `site` is the instruction.
    pub(super) fn uninit_memory(
        &mut self,
        (w, s): (usize, usize),
        wave: &Wave,
        trace: &MemTrace,
        (space, access): (Space, MemAccess),
        site: Site,
    ) {
        let known = match space {
            Space::Shared => self.slots[s].known,
            _ => self.wave_shadow(w, wave).known,
        };
        let bits = match space {
            Space::Shared => &mut self.slots[s].init,
            _ => &mut self.waves[w].scratch,
        };
        let check = known && access != MemAccess::Write;
        let mut gaps = Vec::new();
        let (missing, first) =
            bits.access_trace(trace, check, access != MemAccess::Read, &mut gaps);
        if missing != 0 {
            let mut f = Finding::new(
                FindingKind::UninitMemory,
                Site {
                    lanes: missing,
                    ..site
                },
            );
            f.space = Some(space);
            f.len = trace.len;
            // Every word the missing lanes read, not only the first.
            let mut addrs: Vec<u64> = trace
                .accesses()
                .filter(|e| missing >> (e.lane & 31) & 1 == 1)
                .map(|e| e.addr)
                .collect();
            addrs.sort_unstable();
            addrs.dedup();
            // Words some bytes of which were written (fewer unwritten bytes than bytes
            // read): the unwritten bytes are named.
            gaps.sort_unstable();
            gaps.dedup();
            if (gaps.len() as u64) < bytes_in(&addrs, u64::from(trace.len.max(1))) {
                f.unwritten = ByteRange::runs(&gaps);
            }
            addrs.truncate(super::finding::FINDING_LIST_MAX);
            f.addr = addrs.first().copied().or(first);
            if addrs.len() > 1 {
                f.addrs = addrs;
            }
            self.push(f);
        }
    }
}

/// The bytes `len` bytes from each of `starts` (sorted, no repeats) cover, counted once
/// where they overlap.
fn bytes_in(starts: &[u64], len: u64) -> u64 {
    let mut covered = 0;
    let mut end: Option<u64> = None;
    for &a in starts {
        let from = end.map_or(a, |e| e.max(a));
        let to = a.saturating_add(len);
        covered += to.saturating_sub(from);
        end = Some(end.map_or(to, |e| e.max(to)));
    }
    covered
}
