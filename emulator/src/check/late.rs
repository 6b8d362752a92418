//! Accesses a barrier did not order: a wave's shared or global access still outstanding
//! (not retired by its `wait.*`) when its workgroup passed a barrier. A barrier orders
//! what each wave retired before it, as a release through an atomic does (docs/memory.md),
//! so such an access races with another wave's access to its bytes after the barrier, one
//! of them a plain write, or one a plain read and the other an atomic: on hardware the
//! store or atomic may land, or the load read, after the other wave's access (AMD's
//! compilers put `s_waitcnt` before `s_barrier` for this).
//!
//! Each wave keeps its shared and global accesses that may still be outstanding, per
//! counter, with their issue numbers (a counter retires its oldest operations first, so
//! an operation is outstanding while fewer than its number have retired). When its
//! workgroup passes a barrier, the ones still outstanding become the slot's late accesses
//! until the next barrier, where they are taken again. The later accesses of the slot's
//! other waves are compared with them only while there are any.
//!
//! Only accesses that can be outstanding at a barrier are kept: those from which some
//! path of the code reaches a `barrier` without passing a `wait` of their counter down
//! to 0 or a `wait.all` ([`kept_accesses`], once per launch). A kernel that waits before
//! its barriers keeps none and pays nothing per access. (A PC the debugger sets is not a
//! path of the code: an access outstanding at a barrier reached that way may be missed.)

use std::collections::VecDeque;
use std::sync::Arc;

use super::shadow::{expand, Ref};
use super::{Finding, FindingKind, MemAccess, MissingFence, Sanitizer, Site};
use crate::code::CodeWord;
use crate::isa::op::{BrCond, Op};
use crate::isa::Counter;
use crate::memory::Space;
use crate::trace::{MemTrace, TraceEntry};
use crate::wave::Wave;

/// One shared or global access as a wave issued it.
#[derive(Debug, Clone)]
pub(super) struct Issued {
    /// Its number among the operations its wave issued on its counter (from 0).
    seq: u64,
    space: Space,
    /// Its race record (wave, barrier epoch, PC, access, release generation).
    me: Ref,
    /// Its trace, as the semantics filled it (kept, not copied).
    trace: Box<MemTrace>,
}

impl Issued {
    /// Whether `other` is the same instruction's access to the same bytes, the same way,
    /// and (`by_gen`: release/acquire may order global memory) in the same release
    /// generation, so that whatever orders one orders the other.
    fn same_as(&self, other: &Issued, by_gen: bool) -> bool {
        let (a, b) = (&self.trace, &other.trace);
        self.space == other.space
            && self.me.same_site(other.me)
            && (!by_gen || self.space != Space::Global || self.me.gen() == other.me.gen())
            && (a.access, a.len, a.run, a.run2) == (b.access, b.len, b.run, b.run2)
            && a.entries == b.entries
    }
}

/// How many of a wave's last distinct late accesses a new one is compared with.
const RECENT: usize = 4;

/// A wave's operations on each counter: how many it issued, and its shared and global
/// accesses among them that may still be outstanding, oldest first.
#[derive(Debug, Clone, Default)]
pub(super) struct WaveIssues {
    issued: [u64; 4],
    accesses: [VecDeque<Issued>; 4],
}

impl WaveIssues {
    /// An operation issued on counter `c`.
    #[inline]
    pub(super) fn issue(&mut self, c: Counter) {
        self.issued[c.index()] += 1;
    }

    /// The operations of counter `c` retired, `wave` having `out` outstanding there.
    #[inline]
    fn retired(&self, c: Counter, wave: &Wave) -> u64 {
        let out = wave.outstanding[c.index()].len() as u64;
        self.issued[c.index()].saturating_sub(out)
    }

    /// Forgets the accesses of counter `c` that `wave` retired; returns the trace of the
    /// last one forgotten, cleared.
    #[inline]
    fn forget_retired(&mut self, c: Counter, wave: &Wave) -> Option<Box<MemTrace>> {
        let retired = self.retired(c, wave);
        let q = &mut self.accesses[c.index()];
        let mut last = None;
        while q.front().is_some_and(|o| o.seq < retired) {
            last = q.pop_front().map(|o| o.trace);
        }
        last.map(|mut t| {
            t.clear();
            t
        })
    }

    /// The last operation issued on `c` (by `wave`) was the access `trace` to `space`,
    /// recorded as `me`: kept until retired. Returns an empty trace for the next
    /// instruction (a retired access's, so a loop allocates none).
    #[inline]
    pub(super) fn accessed(
        &mut self,
        c: Counter,
        wave: &Wave,
        space: Space,
        me: Ref,
        trace: Box<MemTrace>,
    ) -> Box<MemTrace> {
        let empty = self.forget_retired(c, wave);
        self.accesses[c.index()].push_back(Issued {
            seq: self.issued[c.index()].wrapping_sub(1),
            space,
            me,
            trace,
        });
        empty.unwrap_or_default()
    }

    /// Its accesses still outstanding now that `wave` is at a barrier (the retired ones
    /// forgotten), each with its counter.
    fn outstanding(&mut self, wave: &Wave) -> impl Iterator<Item = (Counter, &Issued)> {
        for c in Counter::ALL {
            self.forget_retired(c, wave);
        }
        Counter::ALL
            .into_iter()
            .flat_map(|c| self.accesses[c.index()].iter().map(move |o| (c, o)))
    }

    /// Approximate heap bytes.
    pub(super) fn bytes(&self) -> usize {
        let trace = |t: &MemTrace| {
            std::mem::size_of::<MemTrace>()
                + t.entries.capacity() * std::mem::size_of::<crate::trace::TraceEntry>()
                + t.data.capacity() * 16
        };
        (self.accesses.iter().flatten())
            .map(|o| std::mem::size_of::<Issued>() + trace(&o.trace))
            .sum()
    }
}

/// An access its wave had not retired when its workgroup last passed a barrier.
#[derive(Debug, Clone)]
struct Late {
    /// Its race record.
    me: Ref,
    /// The counter whose wait would have retired it.
    counter: Counter,
    /// The barrier its wave passed with it outstanding.
    barrier: u64,
}

/// One word a late access touched (each lane's access, word by word), sorted for the
/// lookup of later accesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LateWord {
    /// The word: its byte address / 4, and bit 63 for shared memory.
    key: u64,
    /// The accessing wave's global id.
    wave: u32,
    /// Its access, an index in [`Lates::list`].
    late: u32,
    /// How it touched them ([`MemAccess`] as a number, for sorting).
    kind: u8,
    /// Its PC / 4 and, where release/acquire may order it, its release generation (0
    /// otherwise): words of accesses that differ in these are kept apart.
    site: (u32, u32),
    /// The lane, and the bytes it touched.
    lane: u8,
    addr: u64,
    len: u32,
}

/// The key of the word holding byte `addr` of `space`.
fn word_key(space: Space, addr: u64) -> u64 {
    (addr >> 2) | u64::from(space == Space::Shared) << 63
}

/// A workgroup's accesses its waves had not retired when they last passed a barrier, and
/// the words they touched.
#[derive(Debug, Clone, Default)]
pub(super) struct Lates {
    list: Vec<Late>,
    /// Sorted by word; one per word, wave, bytes and way of access (the other accesses
    /// of a wave there race with what it does, or not, alike).
    words: Vec<LateWord>,
    /// The words as pushed at this barrier and at the last, before sorting: a loop that
    /// reaches its barrier with the same accesses outstanding each time sorts them once.
    pushed: Vec<LateWord>,
    last_pushed: Vec<LateWord>,
}

impl Lates {
    /// Whether there are none.
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Forgets them all.
    pub(super) fn clear(&mut self) {
        self.list.clear();
        self.words.clear();
        self.pushed.clear();
        self.last_pushed.clear();
    }

    /// Approximate heap bytes.
    pub(super) fn bytes(&self) -> usize {
        self.list.capacity() * std::mem::size_of::<Late>()
            + (self.words.capacity() + self.pushed.capacity() + self.last_pushed.capacity())
                * std::mem::size_of::<LateWord>()
    }

    /// Adds `access` of `wave`, outstanding at `barrier` on `counter` (`by_gen` as for
    /// [`Issued::same_as`]).
    fn push(
        &mut self,
        wave: u32,
        access: &Issued,
        (counter, barrier): (Counter, u64),
        by_gen: bool,
    ) {
        let gen = if by_gen && access.space == Space::Global {
            access.me.gen()
        } else {
            0
        };
        let site = ((access.me.pc() / 4) as u32, gen);
        let kind = access.me.access() as u8;
        let late = self.list.len() as u32;
        self.list.push(Late {
            me: access.me,
            counter,
            barrier,
        });
        let len = access.trace.len;
        for e in access.trace.accesses() {
            let last = e.addr.saturating_add(u64::from(len.max(1)) - 1);
            for word in (e.addr >> 2)..=(last >> 2) {
                self.pushed.push(LateWord {
                    key: word_key(access.space, word << 2),
                    wave,
                    late,
                    kind,
                    site,
                    lane: e.lane,
                    addr: e.addr,
                    len,
                });
            }
        }
    }

    /// Starts the list of another barrier (the last one's words kept to compare).
    fn restart(&mut self) {
        self.list.clear();
        std::mem::swap(&mut self.pushed, &mut self.last_pushed);
        self.pushed.clear();
    }

    /// Sorts the words pushed since [`Lates::restart`] for lookups, one kept where
    /// several are alike (the last barrier's index is kept when they are the same).
    fn index(&mut self) {
        if self.pushed == self.last_pushed {
            return;
        }
        self.words.clear();
        self.words.extend_from_slice(&self.pushed);
        // Most comparisons end at the word: the rest is compared only then.
        let alike = |w: &LateWord| (w.key, w.wave, w.addr, w.len, w.kind, w.site);
        self.words.sort_unstable_by(|a, b| {
            (a.key.cmp(&b.key))
                .then_with(|| (alike(a), a.late, a.lane).cmp(&(alike(b), b.late, b.lane)))
        });
        self.words.dedup_by(|b, a| alike(a) == alike(b));
    }
}

impl Sanitizer {
    /// The waves of slot `s` (`group`, resident from index `first`) pass a barrier: their
    /// accesses still outstanding become the slot's late accesses, in place of the last
    /// barrier's.
    pub(super) fn late_at_barrier(&mut self, s: usize, first: usize, group: &[Wave]) {
        let Some(slot) = self.slots.get_mut(s) else {
            return;
        };
        slot.late.restart();
        let by_gen = self.order.on();
        for (i, wave) in group.iter().enumerate() {
            let Some(shadow) = self.waves.get_mut(first + i).filter(|x| x.id == wave.id) else {
                continue;
            };
            // A waiting wave's PC is past its (32-bit) barrier.
            let barrier = wave.pc.wrapping_sub(4);
            // A loop that never waits leaves up to 63 accesses of one instruction to the
            // same bytes outstanding: one of them stands for the others.
            let mut recent: VecDeque<&Issued> = VecDeque::with_capacity(RECENT);
            for (counter, access) in shadow.issues.outstanding(wave) {
                if recent.iter().any(|r| r.same_as(access, by_gen)) {
                    continue;
                }
                if recent.len() == RECENT {
                    recent.pop_front();
                }
                recent.push_back(access);
                slot.late.push(wave.id, access, (counter, barrier), by_gen);
            }
        }
        slot.late.index();
    }

    /// The access `trace` of `wave` (in slot `s`), recorded as `me`, against the slot's
    /// late accesses of other waves ([`Sanitizer::late_at_barrier`]). `ordered`: whether
    /// release/acquire through atomics may order global accesses (`Some`), and then
    /// whether the access was issued on the `vm` counter ([`super::order::Order::ordered`]).
    pub(super) fn late_races(
        &mut self,
        s: usize,
        trace: &MemTrace,
        (space, me, site): (Space, Ref, Site),
        ordered: Option<bool>,
    ) {
        let groups = self.groups;
        let Some(late) = self.slots.get(s).map(|x| &x.late) else {
            return;
        };
        let words = &late.words[..];
        let len = u64::from(trace.len.max(1));
        let (buf, n) = expand(trace);
        let entries = &buf[..n];
        // Lanes on consecutive elements are searched as one range of bytes; others (a
        // gather, a stride) lane by lane, so the words between them are not walked.
        let one_run = trace.entries.is_empty() && trace.run2.is_none();
        let groups_of: &mut dyn Iterator<Item = &[TraceEntry]> = if one_run {
            &mut std::iter::once(entries)
        } else {
            &mut entries.chunks(1)
        };
        let mut found = Vec::new();
        for group in groups_of {
            let (Some(first), Some(last)) = (group.first(), group.last()) else {
                continue;
            };
            let lo = word_key(space, first.addr);
            let hi = word_key(space, last.addr.saturating_add(len - 1));
            let start = words.partition_point(|w| w.key < lo);
            for w in words[start..].iter().take_while(|w| w.key <= hi) {
                let l = &late.list[w.late as usize];
                if w.wave == me.wave_id()
                    || !conflict(l.me.access(), me.access())
                    || ordered.is_some_and(|on_vm| self.order.ordered(&l.me, &me, on_vm))
                {
                    continue;
                }
                let w_end = w.addr.saturating_add(u64::from(w.len));
                for e in group {
                    if w.addr < e.addr.saturating_add(len) && e.addr < w_end {
                        found.push((l.clone(), e.lane, e.addr, w.lane));
                    }
                }
            }
        }
        for (l, lane, addr, other_lane) in found {
            let mut f = Finding::new(
                FindingKind::Race,
                Site {
                    lanes: 1 << lane,
                    ..site
                },
            );
            f.other = Some(l.me.with_lane(other_lane).site(groups));
            f.fence = Some(MissingFence::NotRetired {
                barrier: l.barrier,
                counter: l.counter,
            });
            f.space = Some(space);
            f.addr = Some(addr);
            f.len = trace.len;
            self.push(f);
        }
    }
}

/// Whether the late access `a` (outstanding at the barrier) and the later access `b` of
/// another wave to common bytes race: one of them is a plain write, or one is a plain
/// read and the other an atomic. Nothing claims to order a plain read and an atomic in
/// one barrier interval, and that is no race (docs/sanitizer.md); here the program relies
/// on the barrier to order them, and the barrier does not: the read may see the bins
/// before the atomics land, or an atomic land before the read. Atomics against atomics,
/// and reads against reads, do not race.
fn conflict(a: MemAccess, b: MemAccess) -> bool {
    a == MemAccess::Write || b == MemAccess::Write || a != b
}

/// Per code word: whether the access there can still be outstanding when its wave
/// reaches a barrier, on some path of the code (it is kept until retired); and per
/// counter, whether any access of it is (its issues are then counted).
pub(super) fn kept_accesses(code: &[CodeWord]) -> (Arc<[bool]>, [bool; 4]) {
    let n = code.len();
    let barrier = |w: &CodeWord| matches!(w, CodeWord::Instr(d) if d.op == Op::Barrier);
    if !code.iter().any(barrier) {
        return (vec![false; n].into(), [false; 4]);
    }
    let instr = |i: usize| match code.get(i) {
        Some(CodeWord::Instr(d)) => Some(d),
        _ => None,
    };
    // Successors of each word, as a wave runs on from it.
    let next = |i: usize| -> [Option<usize>; 2] {
        let Some(d) = instr(i) else {
            return [None, None];
        };
        let fall = Some(i + d.len as usize / 4).filter(|&j| j < n);
        let target = || {
            (d.instr.branch_target(i as u64 * 4))
                .and_then(|t| usize::try_from(t / 4).ok())
                .filter(|&j| j < n)
        };
        match d.op {
            Op::End | Op::Barrier => [None, None],
            Op::Branch(BrCond::Always) => [target(), None],
            Op::Branch(_) => [fall, target()],
            _ => [fall, None],
        }
    };
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for i in 0..n {
        for j in next(i).into_iter().flatten() {
            preds[j].push(i as u32);
        }
    }
    let mut keep = vec![false; n];
    let mut any = [false; 4];
    for c in Counter::ALL {
        // Words from which a barrier is reachable with an access of `c` still
        // outstanding: backwards from the barriers, stopping at waits that retire it.
        let blocks = |i: usize| {
            instr(i).is_some_and(|d| {
                matches!(d.op, Op::Wait(None)) || d.op == Op::Wait(Some(c)) && d.instr.imm == 0
            })
        };
        let mut reach = vec![false; n];
        let mut todo: Vec<usize> = (0..n)
            .filter(|&i| instr(i).is_some_and(|d| d.op == Op::Barrier))
            .collect();
        todo.iter().for_each(|&i| reach[i] = true);
        while let Some(k) = todo.pop() {
            for &p in &preds[k] {
                let p = p as usize;
                if !reach[p] && !blocks(p) {
                    reach[p] = true;
                    todo.push(p);
                }
            }
        }
        for (i, keep) in keep.iter_mut().enumerate() {
            if instr(i).is_some_and(|d| d.counter == Some(c))
                && next(i).into_iter().flatten().any(|j| reach[j])
            {
                *keep = true;
                any[c.index()] = true;
            }
        }
    }
    (keep.into(), any)
}

#[cfg(test)]
mod tests {
    use super::kept_accesses;
    use crate::asm::assemble;
    use crate::code::decode_code;

    /// The labels of `src` whose accesses [`kept_accesses`] keeps.
    fn kept(src: &str) -> Vec<String> {
        let p = assemble(src, "t.s", None).expect("assembles");
        let (keep, _) = kept_accesses(&decode_code(&p.code));
        p.labels
            .iter()
            .filter(|(_, &pc)| keep[(pc / 4) as usize])
            .map(|(name, _)| name.clone())
            .collect()
    }

    #[test]
    fn an_access_is_kept_when_a_path_reaches_a_barrier_before_its_wait() {
        let src = "
.workgroup 64
.shared 256
    vlaneid v0
    vshli v1, v0, 2
    uwaveid u0
    umovi u1, 4
straight: st.shared.b32 v0, v1, 0
    barrier
waited: st.shared.b32 v0, v1, 0
    wait.ls 0
    barrier
other_counter: st.shared.b32 v0, v1, 0
    wait.vst 0
    barrier
partial_wait: st.shared.b32 v0, v1, 0
    wait.ls 1
    barrier
all: st.shared.b32 v0, v1, 0
    wait.all
    barrier
loop: ld.shared.b32 v2, v1, 0
    uaddi u1, u1, -1
    br.unz u1, loop
    wait.ls 0
    barrier
branch: st.shared.b32 v0, v1, 0
    br.uz u0, skip
    wait.ls 0
skip:
    barrier
loop2: st.shared.b32 v0, v1, 0
    uaddi u1, u1, -1
    br.unz u1, loop2
    br ahead
    end
ahead:
    barrier
waited_back: st.shared.b32 v0, v1, 0
    br.unz u0, skip
    wait.ls 0
global: st.ubase.b32 v0, u[2:3], v1, 0
    end
";
        assert_eq!(
            kept(src),
            [
                "branch",
                "loop2",
                "other_counter",
                "partial_wait",
                "straight",
                "waited_back"
            ],
            "kept: the accesses a barrier follows on some path with no wait of their counter \
             to 0 (`waited_back` through its branch back to `skip`); \
             not kept: `waited`, `all`, `loop` (a wait first), `global` (no barrier follows)"
        );
    }
}
