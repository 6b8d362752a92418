//! Hazards: a register read or overwritten while an asynchronous operation issued before
//! still uses it (a load that has yet to write it, a store that has yet to read its data),
//! with no wait between.

use super::regs::{Range, RegBits, RegUse};
use super::{Finding, FindingKind, Sanitizer, Site};
use crate::code::{CodeWord, Decoded};
use crate::isa::{Counter, Op, RegFile};
use crate::wave::{pushed_out, Outstanding, RegRange, Wave, COUNTER_MAX};
use std::collections::VecDeque;

/// Registers used by outstanding operations: as destination (a load has yet to write
/// them), and as store data (a store has yet to read them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Used {
    pub(super) dest: RegBits,
    pub(super) data: RegBits,
}

impl Used {
    /// The registers of an outstanding operation (`uses`: the register uses of each code
    /// word, for its store data): what [`IssueBits`] gives, made directly (the tests'
    /// reference).
    #[cfg(test)]
    fn of(uses: &[RegUse], o: &Outstanding) -> Used {
        let dest = o.regs.map_or(RegBits::default(), dest_bits);
        let data = uses
            .get((o.pc / 4) as usize)
            .and_then(|x| x.data)
            .map_or(RegBits::default(), RegBits::of_range);
        Used { dest, data }
    }

    #[inline]
    fn union(self, other: Used) -> Used {
        Used {
            dest: self.dest.union(other.dest),
            data: self.data.union(other.data),
        }
    }
}

/// The registers an operation issued by one code word uses, made once per launch, so an
/// issue does not make them from its ranges: its store data (which depend only on the
/// word: the data registers of its register uses), and the destination of a one-register
/// vector write to its `rd` (what a 32-bit load or returning atomic writes), used when the
/// operation's destination is that range (any other is made from its range).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct IssueBits {
    dest_range: Option<RegRange>,
    dest: RegBits,
    data: RegBits,
}

impl IssueBits {
    /// The bits of code word `word`, whose register uses are `u`.
    pub(super) fn of((word, u): (&CodeWord, &RegUse)) -> IssueBits {
        let rd = match word {
            CodeWord::Instr(d) => Some(d.instr.rd),
            _ => None,
        };
        IssueBits::of_use(u, rd)
    }

    /// The bits of a code word whose register uses are `u` and whose `rd` is `rd`, if any.
    fn of_use(u: &RegUse, rd: Option<u8>) -> IssueBits {
        let dest_range = rd.map(|first| RegRange {
            file: RegFile::Vector,
            first,
            count: 1,
        });
        IssueBits {
            dest_range,
            dest: dest_range.map_or(RegBits::default(), dest_bits),
            data: u.data.map_or(RegBits::default(), RegBits::of_range),
        }
    }

    /// The registers operation `o` uses (`bits`: those of each code word): its
    /// destination and the store data of the word that issued it.
    #[inline(always)]
    fn used_in(bits: &[IssueBits], o: &Outstanding) -> Used {
        match bits.get((o.pc / 4) as usize) {
            Some(b) => b.used(o),
            None => Used {
                dest: o.regs.map_or(RegBits::default(), dest_bits),
                data: RegBits::default(),
            },
        }
    }

    /// The registers operation `o`, issued by this word, uses.
    #[inline(always)]
    fn used(&self, o: &Outstanding) -> Used {
        let dest = match o.regs {
            None => RegBits::default(),
            Some(r) if Some(r) == self.dest_range => self.dest,
            Some(r) => dest_bits(r),
        };
        Used {
            dest,
            data: self.data,
        }
    }
}

/// The registers of an operation's destination range.
#[inline]
fn dest_bits(r: RegRange) -> RegBits {
    RegBits::of_range(Range {
        file: r.file,
        first: r.first,
        count: r.count,
    })
}

/// The registers one counter's queue of outstanding operations uses, kept as a sliding
/// window's union is (two stacks): an issue adds to the union of the newer operations; a
/// retirement takes the top off the stack of the older ones' unions, made from the queue
/// when empty. Each operation goes onto the stack once, so a counter kept full (every
/// issue pushing out the oldest) costs about what an issue does, not a pass over its 63
/// operations.
#[derive(Debug, Clone, Default)]
struct QueueUse {
    /// One entry per operation of the oldest `older.len()`, pushed newest first, each the
    /// union of its operation and every newer one of them: the last entry (the oldest
    /// operation's) is the union of them all, and popping it leaves that of the rest.
    older: Vec<Used>,
    /// The union of the operations after those.
    newer: Used,
    /// Every operation counted uses exactly `newer` (and `older` is empty): retiring some
    /// of them, or pushing the oldest out, leaves the union as it is. A loop issuing one
    /// instruction to a counter it never waits on (atomics) keeps it full of operations
    /// that all use the same registers.
    same: bool,
}

impl QueueUse {
    /// The union of every operation counted.
    #[inline]
    fn union(&self) -> Used {
        self.older
            .last()
            .map_or(self.newer, |o| o.union(self.newer))
    }

    /// The oldest `n` (at least 1) operations of `q` retired (`q` holds the operations
    /// counted, oldest first, these included). Returns whether any are left.
    fn retire(&mut self, uses: &[IssueBits], q: &VecDeque<Outstanding>, n: usize) -> bool {
        if n >= q.len() {
            self.older.clear();
            self.newer = Used::default();
            self.same = false;
            return false;
        }
        if self.same {
            return true;
        }
        for i in 0..n {
            if self.older.is_empty() {
                self.restack(uses, q, i..q.len());
            }
            self.older.pop();
        }
        true
    }

    /// The operations `ops` of `q` (every one counted) made the older ones.
    #[cold]
    fn restack(
        &mut self,
        uses: &[IssueBits],
        q: &VecDeque<Outstanding>,
        ops: std::ops::Range<usize>,
    ) {
        self.older.reserve(ops.len());
        let mut all = Used::default();
        for o in q.range(ops).rev() {
            all = all.union(IssueBits::used_in(uses, o));
            self.older.push(all);
        }
        self.newer = Used::default();
        self.same = false;
    }
}

/// The registers a wave's outstanding operations use, per counter and in all, kept up to
/// date at every issue and retirement, so a hazard check is a test of a few words however
/// many operations are in flight.
#[derive(Debug, Clone, Default)]
pub(super) struct Busy {
    queues: [QueueUse; 4],
    /// The counters whose queues hold operations (bit `c`).
    held: u8,
    /// The union of all.
    pub(super) all: Used,
}

impl Busy {
    /// Counted afresh from `wave`'s queues.
    fn of(uses: &[IssueBits], wave: &Wave) -> Busy {
        let mut busy = Busy::default();
        for c in Counter::ALL {
            for o in &wave.outstanding[c.index()] {
                busy.issue(uses, c, o);
            }
        }
        busy
    }

    /// The heap bytes it holds (the stacks of unions).
    pub(super) fn bytes(&self) -> usize {
        let stacked: usize = self.queues.iter().map(|q| q.older.capacity()).sum();
        stacked * size_of::<Used>()
    }

    /// Counts operation `o`, just issued to counter `c`.
    #[inline]
    fn issue(&mut self, uses: &[IssueBits], c: Counter, o: &Outstanding) {
        self.issue_used(c, IssueBits::used_in(uses, o));
    }

    /// Counts an operation just issued to counter `c` that uses `u`.
    #[inline(always)]
    fn issue_used(&mut self, c: Counter, u: Used) {
        let held = self.holds(c);
        let q = &mut self.queues[c.index()];
        if !held {
            // Nothing counted (so `older` is empty): this operation's alone.
            q.newer = u;
            q.same = true;
        } else if !q.same || q.newer != u {
            q.newer = q.newer.union(u);
            q.same = false;
        }
        self.all = self.all.union(u);
        self.held |= 1 << c.index();
    }

    /// Counter `c`'s queue `q` (still holding them) about to retire its oldest
    /// operations, all but the newest `keep`. [`Busy::all`] is left to
    /// [`Busy::gather`].
    #[inline]
    fn retire(&mut self, uses: &[IssueBits], c: Counter, q: &VecDeque<Outstanding>, keep: usize) {
        let excess = q.len().saturating_sub(keep);
        if excess > 0 && !self.queues[c.index()].retire(uses, q, excess) {
            self.held &= !(1 << c.index());
        }
    }

    /// Whether operations on counter `c` are counted.
    #[inline(always)]
    fn holds(&self, c: Counter) -> bool {
        self.held & 1 << c.index() != 0
    }

    /// Counter `c`'s queue retired every operation ([`Busy::retire`] keeping none).
    /// [`Busy::all`] is left to [`Busy::gather`].
    #[inline(always)]
    fn empty(&mut self, c: Counter) {
        let q = &mut self.queues[c.index()];
        q.older.clear();
        q.newer = Used::default();
        q.same = false;
        self.held &= !(1 << c.index());
    }

    /// An issue to counter `c` pushed its oldest operation out of queue `q`, which now
    /// holds the issued one last, not counted yet ([`Busy::issue`] counts it).
    #[inline]
    fn pushed_out(&mut self, uses: &[IssueBits], c: Counter, q: &VecDeque<Outstanding>) {
        let u = &mut self.queues[c.index()];
        // The rest (at least one: a full queue holds more than the issued one) use the
        // same registers: nothing changes.
        if u.same && q.len() >= 2 {
            return;
        }
        if u.older.pop().is_none() {
            u.restack(uses, q, 0..q.len().saturating_sub(1));
        }
        self.gather();
    }

    /// The registers an instruction that writes them must not: those an outstanding
    /// operation will write, but for those of counter `ordered` (the instruction's own,
    /// when it issues to a counter that retires in order: its write lands after theirs,
    /// [`lands_after`]).
    pub(super) fn overwritten(&self, ordered: Option<Counter>) -> RegBits {
        let Some(c) = ordered else {
            return self.all.dest;
        };
        let mut dest = RegBits::default();
        let mut held = self.held & !(1 << c.index());
        while held != 0 {
            dest = dest.union(self.queues[held.trailing_zeros() as usize].union().dest);
            held &= held - 1;
        }
        dest
    }

    /// The union of all made again from the counters' (after a retirement).
    #[inline(always)]
    fn gather(&mut self) {
        let mut all = Used::default();
        let mut held = self.held;
        while held != 0 {
            all = all.union(self.queues[held.trailing_zeros() as usize].union());
            held &= held - 1;
        }
        self.all = all;
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
            .and_then(|x| x.busy.as_ref())
            .is_some_and(|b| {
                sets.reads.meets(b.all.dest) || sets.writes.meets(b.all.dest.union(b.all.data))
            });
        // (A superset: `report_hazards` leaves out the loads `d` lands after.)
        if in_use {
            self.report_hazards(w, wave, u, pc, lands_after(d));
        }
    }

    /// The first half of [`Sanitizer::hazards_before`]: the wave's registers in use
    /// brought up to date before `d` executes (found afresh when unknown, less those of
    /// what `d` retires).
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

    /// [`Sanitizer::hazards_retire`] for the wait `d`: when the wave's registers in use
    /// are known, only its counter's oldest operations retired from them, as
    /// [`Sanitizer::retire`] would (a wait issues nothing).
    #[inline(always)]
    pub(super) fn hazards_wait(&mut self, w: usize, wave: &Wave, d: &Decoded) {
        if let (Op::Wait(Some(c)), None, Some(shadow)) = (d.op, d.counter, self.waves.get_mut(w)) {
            if let (true, Some(busy)) = (shadow.id == wave.id, shadow.busy.as_mut()) {
                let keep = d.instr.imm.max(0) as usize;
                let q = &wave.outstanding[c.index()];
                // (Nothing counted on the counter: nothing to retire from the registers in
                // use, whatever its queue holds: an access the wait retires at once is
                // not counted, `FastChecked::step`.)
                if q.len() > keep && busy.holds(c) {
                    if keep == 0 {
                        busy.empty(c);
                    } else {
                        busy.retire(&self.issue_bits, c, q, keep);
                    }
                    busy.gather();
                }
                return;
            }
        }
        self.hazards_retire(w, wave, d);
    }

    /// What [`Sanitizer::hazards_retire`] takes before an access issues, taken after the
    /// fast loop issued it: `pushed`, the operation its issue pushed out of a full counter
    /// (if any), no longer counted as using its registers: those in use found again
    /// from `wave`'s queues.
    #[inline(always)]
    pub(super) fn retire_pushed(&mut self, w: usize, wave: &Wave, pushed: Option<Counter>) {
        let (uses, waves) = (&self.issue_bits, &mut self.waves);
        if let (Some(c), Some(busy)) = (pushed, waves.get_mut(w).and_then(|x| x.busy.as_mut())) {
            busy.pushed_out(uses, c, &wave.outstanding[c.index()]);
        }
    }

    /// After wave `w` issued `d` without a fault: adds the registers of the operation it
    /// put in flight.
    #[inline(always)]
    pub(super) fn hazards_after(&mut self, w: usize, wave: &Wave, d: &Decoded) {
        if let Some(c) = d.counter {
            self.wave_shadow(w, wave);
            let (bits, shadow) = (&self.issue_bits, &mut self.waves[w]);
            if let (Some(busy), Some(o)) =
                (shadow.busy.as_mut(), wave.outstanding[c.index()].back())
            {
                busy.issue_used(c, IssueBits::used_in(bits, o));
            }
        }
    }

    /// Registers `u` reads or writes while an outstanding operation still uses them
    /// (`ordered`: the counter whose loads the instruction's writes land after, if any).
    fn report_hazards(
        &mut self,
        w: usize,
        wave: &Wave,
        u: &RegUse,
        pc: u64,
        ordered: Option<Counter>,
    ) {
        // The registers in use, from the sets; the details only for those.
        let mut hits: Vec<(FindingKind, RegFile, u8)> = Vec::new();
        if let Some(busy) = self.waves.get(w).and_then(|x| x.busy.as_ref()) {
            let used = |set: RegBits, file: RegFile, reg: u8| set.contains(file, reg);
            let overwritten = busy.overwritten(ordered);
            let busy = busy.all;
            for (r, _) in u.reads() {
                for reg in r.regs().filter(|&reg| used(busy.dest, r.file, reg)) {
                    hits.push((FindingKind::ReadBeforeWait, r.file, reg));
                }
            }
            for r in u.writes() {
                for reg in r.regs() {
                    if used(overwritten, r.file, reg) {
                        hits.push((FindingKind::WriteBeforeWait, r.file, reg));
                    }
                    if used(busy.data, r.file, reg) {
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
                FindingKind::WriteBeforeWait => wave
                    .pending_write_but(file, reg, ordered)
                    .map(|(c, o)| (c, o.pc, o.exec))
                    .into_iter()
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

    /// Brings the wave's registers in use up to date before `d` executes: those of the
    /// operations left once `d` retires its (a wait, or the oldest one an issue to a full
    /// counter pushes out; both happen whatever else `d` does).
    fn retire(&mut self, w: usize, wave: &Wave, d: &Decoded) {
        self.wave_shadow(w, wave);
        let (uses, shadow) = (&self.issue_bits, &mut self.waves[w]);
        let busy = shadow.busy.get_or_insert_with(|| Busy::of(uses, wave));
        let mut retire =
            |c: Counter, keep: usize| busy.retire(uses, c, &wave.outstanding[c.index()], keep);
        match d.op {
            Op::Wait(Some(c)) => retire(c, d.instr.imm.max(0) as usize),
            Op::Wait(None) => Counter::ALL.into_iter().for_each(|c| retire(c, 0)),
            _ => {}
        }
        if let Some(c) = d.counter {
            retire(c, COUNTER_MAX - 1);
        }
        busy.gather();
    }
}

/// The counter whose outstanding operations `d`'s register writes land after, if any:
/// its own, when it issues to one that retires in order (a load's destination, written
/// by its operation: overwriting an earlier load's on the same counter, whatever the
/// lanes, leaves the later value, as the program asked).
#[inline]
pub(super) fn lands_after(d: &Decoded) -> Option<Counter> {
    d.counter.filter(|c| c.retires_in_order())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::RegFile;
    use crate::wave::{issue_to, retire};
    use proptest::prelude::*;

    /// What [`Busy`] must equal: the registers of every operation in the queues.
    fn naive(uses: &[RegUse], queues: &[VecDeque<Outstanding>; 4]) -> Used {
        let mut all = Used::default();
        for o in queues.iter().flatten() {
            all = all.union(Used::of(uses, o));
        }
        all
    }

    #[derive(Debug, Clone)]
    enum Step {
        /// An issue to a counter: its code word (store data from [`uses`]), destination
        /// (or its own word's one-register vector destination, which [`IssueBits`] keeps).
        Issue(usize, u64, Option<(bool, u8, u8)>, bool),
        /// A wait leaving a counter at most this many operations.
        Wait(usize, usize),
        /// `wait.all`.
        WaitAll,
        /// The last issue again (a loop's one access, filling its counter with
        /// operations that use the same registers).
        Again,
    }

    fn step() -> impl Strategy<Value = Step> {
        // Mostly counter 0, so it fills (pushing out) and is waited on partly.
        let counter = || prop_oneof![3 => Just(0usize), 1 => 0..4usize];
        let dest = (any::<bool>(), 0..140u8, 0..5u8);
        prop_oneof![
            40 => (counter(), 0..8u64, proptest::option::of(dest), any::<bool>())
                .prop_map(|(c, pc, d, own)| Step::Issue(c, pc, d, own)),
            4 => (counter(), prop_oneof![Just(0usize), 0..8usize, 0..70usize])
                .prop_map(|(c, n)| Step::Wait(c, n)),
            1 => Just(Step::WaitAll),
            40 => Just(Step::Again),
        ]
    }

    proptest! {
        /// The registers in use, kept as the machine issues (through the general loop,
        /// whose hooks retire before the issue, or the fast loop, whose hook takes a
        /// pushed-out operation after), waits and pushes operations out of full counters,
        /// are always those of the operations left in the queues.
        #[test]
        fn registers_in_use_follow_the_queues(
            steps in proptest::collection::vec(step(), 1..600),
            fast in proptest::collection::vec(any::<bool>(), 600),
        ) {
            // Code words 0-3 store data (v4-v5, u8, v127, none); 4-7 none.
            let data = |file, first, count| Some(Range { file, first, count });
            let mut uses = vec![RegUse::NONE; 8];
            uses[0].data = data(RegFile::Vector, 4, 2);
            uses[1].data = data(RegFile::Uniform, 8, 1);
            uses[2].data = data(RegFile::Vector, 127, 4);
            // Words 0-5 with an `rd` (v0, v3, ... v15), 6 and 7 without (not instructions).
            let bits: Vec<IssueBits> = (0..8u8)
                .map(|k| IssueBits::of_use(&uses[k as usize], (k < 6).then_some(k * 3)))
                .collect();
            let mut queues: [VecDeque<Outstanding>; 4] = Default::default();
            let mut busy = Busy::default();
            let mut last = None;
            for (s, fast) in steps.into_iter().zip(fast) {
                let s = match s {
                    Step::Again => match last.clone() {
                        Some(issue) => issue,
                        None => continue,
                    },
                    Step::Issue(..) => {
                        last = Some(s.clone());
                        s
                    }
                    s => s,
                };
                match s {
                    Step::Issue(c, pc, d, own) => {
                        // Word `pc`'s own destination is v(pc * 3).
                        let d = if own { Some((true, pc as u8 * 3, 1)) } else { d };
                        let regs = d.map(|(v, first, count)| RegRange {
                            file: if v { RegFile::Vector } else { RegFile::Uniform },
                            first,
                            count,
                        });
                        let o = Outstanding { pc: pc * 4, regs, exec: 1 };
                        let q = &mut queues[c];
                        let full = pushed_out(q).is_some();
                        if fast {
                            issue_to(q, o);
                            if full {
                                busy.pushed_out(&bits, Counter::ALL[c], q);
                            }
                        } else {
                            busy.retire(&bits, Counter::ALL[c], q, COUNTER_MAX - 1);
                            busy.gather();
                            issue_to(q, o);
                        }
                        busy.issue(&bits, Counter::ALL[c], &o);
                    }
                    Step::Wait(c, n) => {
                        busy.retire(&bits, Counter::ALL[c], &queues[c], n);
                        busy.gather();
                        retire(&mut queues[c], n as u32);
                    }
                    Step::WaitAll => {
                        for (c, q) in queues.iter_mut().enumerate() {
                            busy.retire(&bits, Counter::ALL[c], q, 0);
                            retire(q, 0);
                        }
                        busy.gather();
                    }
                    Step::Again => {}
                }
                let want = naive(&uses, &queues);
                prop_assert_eq!(busy.all.dest, want.dest);
                prop_assert_eq!(busy.all.data, want.data);
            }
        }
    }
}
