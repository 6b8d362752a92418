//! Hazards: a register read or overwritten while an asynchronous operation issued before
//! still uses it (a load that has yet to write it, a store that has yet to read its data),
//! with no wait between.

use super::regs::{Range, RegBits, RegUse};
use super::{Finding, FindingKind, Sanitizer, Site};
use crate::code::Decoded;
use crate::isa::{Counter, Op, RegFile};
use crate::wave::{pushed_out, Outstanding, Wave, COUNTER_MAX};

/// How many of a wave's outstanding operations use each register (vector registers
/// first, then uniform ones): as destination, and as store data. Kept up to date at
/// every issue and retirement, so a hazard check costs a load per register however many
/// operations are in flight.
#[derive(Debug, Clone)]
pub(super) struct Busy {
    dest: [u8; 192],
    data: [u8; 192],
    /// The registers whose counts are not zero, for a quick answer.
    pub(super) dest_any: RegBits,
    pub(super) data_any: RegBits,
}

/// A register's index in [`Busy`].
fn busy_index(file: RegFile, reg: u8) -> usize {
    match file {
        RegFile::Vector => reg as usize & 127,
        RegFile::Uniform => 128 + (reg as usize & 63),
    }
}

impl Sanitizer {
    /// Before wave `w` executes `d` at `pc` (which uses registers `u`): retires what `d`
    /// retires, then reports the registers it touches that are still in use.
    // Called once, from `before`, which the machine's loop inlines: a call here instead
    // costs up to a tenth of the checked rate of register-heavy kernels.
    #[inline(always)]
    pub(super) fn hazards_before(
        &mut self,
        w: usize,
        wave: &Wave,
        d: &Decoded,
        u: &RegUse,
        pc: u64,
    ) {
        self.hazards_retire(w, wave, d);
        let sets = self
            .sets
            .get((pc / 4) as usize)
            .copied()
            .unwrap_or_default();
        let in_use = self
            .waves
            .get(w)
            .and_then(|x| x.busy.as_deref())
            .is_some_and(|b| {
                sets.reads.meets(b.dest_any) || sets.writes.meets(b.dest_any.union(b.data_any))
            });
        if in_use {
            self.report_hazards(w, wave, u, pc);
        }
    }

    /// The first half of [`Sanitizer::hazards_before`]: the wave's register-use counts
    /// brought up to date before `d` executes (counted afresh when unknown, less what `d`
    /// retires).
    #[inline(always)]
    pub(super) fn hazards_retire(&mut self, w: usize, wave: &Wave, d: &Decoded) {
        let known = self
            .waves
            .get(w)
            .is_some_and(|x| x.id == wave.id && x.busy.is_some());
        if !known || retires(wave, d) {
            self.retire(w, wave, d);
        }
    }

    /// What [`Sanitizer::hazards_retire`] takes before an access issues, taken after the
    /// fast loop issued it: `pushed`, the operation its issue pushed out of a full counter
    /// (if any), no longer counted as using its registers.
    #[inline]
    pub(super) fn retire_pushed(&mut self, w: usize, pushed: Option<Outstanding>) {
        let (uses, waves) = (&self.uses, &mut self.waves);
        if let (Some(o), Some(busy)) =
            (pushed, waves.get_mut(w).and_then(|x| x.busy.as_deref_mut()))
        {
            Self::count_busy(uses, busy, &o, -1);
        }
    }

    /// After wave `w` issued `d` without a fault: counts the registers of the operation
    /// it put in flight.
    #[inline]
    pub(super) fn hazards_after(&mut self, w: usize, wave: &Wave, d: &Decoded) {
        if let Some(c) = d.counter {
            self.wave_shadow(w, wave);
            let (uses, shadow) = (&self.uses, &mut self.waves[w]);
            if let (Some(busy), Some(o)) = (
                shadow.busy.as_deref_mut(),
                wave.outstanding[c.index()].back(),
            ) {
                Self::count_busy(uses, busy, o, 1);
            }
        }
    }

    /// Registers `u` reads or writes while an outstanding operation still uses them.
    fn report_hazards(&mut self, w: usize, wave: &Wave, u: &RegUse, pc: u64) {
        // The registers in use, from the counts; the details only for those.
        let mut hits: Vec<(FindingKind, RegFile, u8)> = Vec::new();
        if let Some(busy) = self.waves.get(w).and_then(|x| x.busy.as_deref()) {
            let used =
                |counts: &[u8; 192], file: RegFile, reg: u8| counts[busy_index(file, reg)] > 0;
            for (r, _) in u.reads() {
                for reg in r.regs().filter(|&reg| used(&busy.dest, r.file, reg)) {
                    hits.push((FindingKind::ReadBeforeWait, r.file, reg));
                }
            }
            for r in u.writes() {
                for reg in r.regs() {
                    if used(&busy.dest, r.file, reg) {
                        hits.push((FindingKind::WriteBeforeWait, r.file, reg));
                    }
                    if used(&busy.data, r.file, reg) {
                        hits.push((FindingKind::StoreDataOverwritten, r.file, reg));
                    }
                }
            }
        }
        let site = |lanes: u32| Site::of(wave, lanes, pc);
        for (kind, file, reg) in hits {
            // The issuing operation: the newest that writes the register, or for store
            // data, every outstanding store whose data it is.
            let issued: Vec<(Counter, u64, u32)> = match kind {
                FindingKind::StoreDataOverwritten => Counter::ALL
                    .into_iter()
                    .flat_map(|c| {
                        wave.outstanding[c.index()]
                            .iter()
                            .map(move |o| (c, o.pc, o.exec))
                    })
                    .filter(|(_, opc, _)| {
                        self.uses
                            .get((opc / 4) as usize)
                            .and_then(|x| x.data)
                            .is_some_and(|d| d.file == file && d.contains(reg))
                    })
                    .collect(),
                _ => wave
                    .pending_write(file, reg)
                    .map(|(c, o)| (c, o.pc, o.exec))
                    .into_iter()
                    .collect(),
            };
            for (c, opc, lanes) in issued {
                let mut f = Finding::new(kind, site(wave.exec));
                f.other = Some(Site {
                    pc: opc,
                    ..site(lanes)
                });
                f.reg = Some((file, reg));
                f.counter = Some(c);
                self.push(f);
            }
        }
    }

    /// Adds (`delta` 1) or removes (`delta` -1) an outstanding operation's registers.
    fn count_busy(uses: &[RegUse], busy: &mut Busy, o: &Outstanding, delta: i8) {
        let add = |counts: &mut [u8; 192], any: &mut RegBits, r: Range| {
            for reg in r.regs() {
                let c = &mut counts[busy_index(r.file, reg)];
                *c = c.wrapping_add_signed(delta);
                if *c == 0 {
                    any.remove(r.file, reg);
                } else {
                    any.insert(r.file, reg);
                }
            }
        };
        if let Some(r) = o.regs {
            let r = Range {
                file: r.file,
                first: r.first,
                count: r.count,
            };
            add(&mut busy.dest, &mut busy.dest_any, r);
        }
        if let Some(d) = uses.get((o.pc / 4) as usize).and_then(|x| x.data) {
            add(&mut busy.data, &mut busy.data_any, d);
        }
    }

    /// Brings the wave's register-use counts up to date before `d` executes: counted
    /// afresh when unknown, and the operations `d` retires removed (a wait, or the oldest
    /// one an issue to a full counter pushes out; both happen whatever else `d` does).
    fn retire(&mut self, w: usize, wave: &Wave, d: &Decoded) {
        self.wave_shadow(w, wave);
        let (uses, shadow) = (&self.uses, &mut self.waves[w]);
        let busy = shadow.busy.get_or_insert_with(|| {
            let mut b = Box::new(Busy {
                dest: [0; 192],
                data: [0; 192],
                dest_any: RegBits::default(),
                data_any: RegBits::default(),
            });
            for q in &wave.outstanding {
                for o in q {
                    Self::count_busy(uses, &mut b, o, 1);
                }
            }
            b
        });
        let mut retire = |c: Counter, keep: usize| {
            let q = &wave.outstanding[c.index()];
            let excess = q.len().saturating_sub(keep);
            if excess > 0 {
                for o in q.range(..excess) {
                    Self::count_busy(uses, busy, o, -1);
                }
            }
        };
        match d.op {
            Op::Wait(Some(c)) => retire(c, d.instr.imm.max(0) as usize),
            Op::Wait(None) => Counter::ALL.into_iter().for_each(|c| retire(c, 0)),
            _ => {}
        }
        if let Some(c) = d.counter {
            retire(c, COUNTER_MAX - 1);
        }
    }
}

/// Whether `d` retires any of `wave`'s outstanding operations when it executes: a wait
/// for fewer than its counter holds (any, for `wait.all`), or an issue to a full counter
/// (which pushes out the oldest), as [`Sanitizer::retire`] takes them.
#[inline(always)]
fn retires(wave: &Wave, d: &Decoded) -> bool {
    let len = |c: Counter| wave.outstanding[c.index()].len();
    let waits = match d.op {
        Op::Wait(Some(c)) => len(c) > d.instr.imm.max(0) as usize,
        Op::Wait(None) => Counter::ALL.into_iter().any(|c| len(c) > 0),
        _ => false,
    };
    waits
        || d.counter
            .is_some_and(|c| pushed_out(&wave.outstanding[c.index()]).is_some())
}
