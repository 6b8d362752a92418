//! The index of the record: for each snapshot interval, a summary of what happened in it
//! (the code words waves were stepped at, the memory lines written per space), so that a
//! backward search replays only the intervals where what it looks for can be
//! (docs/time-travel.md, "The index").

use crate::machine::Machine;
use crate::memory::{Space, LINE};

/// What happened between a snapshot and the next one. Every part is a superset of what
/// happened: a summary may let a search replay an interval for nothing, never skip a hit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Summary {
    /// A bit per code word a wave was stepped at (an instruction executed there, or a
    /// fault was raised before executing it); `None`: not known, any.
    ran: Option<Vec<u64>>,
    /// Memory written, per space (global, shared, scratch), as `(page key, lines)` sorted
    /// by key ([`Machine::written_since`]).
    written: [Vec<(u64, u64)>; 3],
    /// Whether a wave faulted in it (more waves are faulted at its end than at its
    /// start: a faulted wave keeps its slot, so the count never falls).
    faulted: bool,
}

/// How many waves of `m` are faulted.
fn faulted_waves(m: &Machine) -> usize {
    (m.waves.iter())
        .filter(|w| w.state == crate::wave::WaveState::Faulted)
        .count()
}

impl Summary {
    /// What `m` did since `prev` (the snapshot the interval starts at): the code it
    /// stepped at (taken from it) and the memory it wrote.
    pub(super) fn take(m: &mut Machine, prev: &Machine) -> Summary {
        let summary = Self::peek(m, prev);
        // The next interval's record starts from nothing.
        m.ran.fill(0);
        summary
    }

    /// What `m`, the live machine at the end of the record, did since `prev` (the newest
    /// snapshot), leaving it as it is.
    pub(super) fn peek(m: &Machine, prev: &Machine) -> Summary {
        let code_words = m.code().len();
        Summary {
            // A machine that was not keeping the code run says nothing about it.
            ran: (m.ran.len() == code_words.div_ceil(64)).then(|| m.ran.clone()),
            written: m.written_since(prev),
            faulted: faulted_waves(m) != faulted_waves(prev),
        }
    }

    /// Adds `other` (the next interval: the two become one when a snapshot is dropped).
    pub(super) fn merge(&mut self, other: &Summary) {
        self.faulted |= other.faulted;
        self.ran = match (self.ran.take(), &other.ran) {
            (Some(mut a), Some(b)) if a.len() == b.len() => {
                a.iter_mut().zip(b).for_each(|(x, y)| *x |= y);
                Some(a)
            }
            _ => None,
        };
        for (mine, theirs) in self.written.iter_mut().zip(&other.written) {
            let mut all: Vec<(u64, u64)> = mine.iter().chain(theirs).copied().collect();
            all.sort_unstable_by_key(|&(k, _)| k);
            all.dedup_by(|b, a| {
                let same = a.0 == b.0;
                if same {
                    a.1 |= b.1;
                }
                same
            });
            *mine = all;
        }
    }

    /// The memory it takes, in bytes (counted with the snapshots against the bound).
    pub(super) fn bytes(&self) -> usize {
        let ran = self.ran.as_ref().map_or(0, |r| r.len() * 8);
        ran + self.written.iter().map(|w| w.len() * 16).sum::<usize>()
            + std::mem::size_of::<Summary>()
    }

    /// Whether something `probe` looks for can have happened in the interval.
    pub(super) fn may_hold(&self, probe: &Probe) -> bool {
        let ran = match &self.ran {
            None => probe.code.iter().any(|&b| b != 0),
            Some(ran) => ran.iter().zip(&probe.code).any(|(a, b)| a & b != 0),
        };
        ran || (probe.faults && self.faulted)
            || probe.writes.iter().any(|&(space, lo, hi)| {
                let written = &self.written[space as usize];
                let page = |a: u64| a & !4095;
                // The pages the range covers, each with the lines of it that fall there.
                let start = written.partition_point(|&(k, _)| k < page(lo));
                written[start..]
                    .iter()
                    .take_while(|&&(k, _)| k < hi)
                    .any(|&(k, lines)| lines & range_lines(k, lo, hi) != 0)
            })
    }
}

/// The lines of the page at `page` that `[lo, hi)` covers, a bit each.
fn range_lines(page: u64, lo: u64, hi: u64) -> u64 {
    let (a, b) = (lo.max(page), hi.min(page + 4096));
    if a >= b {
        return 0;
    }
    let (first, last) = ((a - page) / LINE, (b - 1 - page) / LINE);
    (u64::MAX >> (63 - (last - first))) << first
}

/// What a backward search looks for, in the index's terms: the code words where a hit
/// can happen (breakpoints, the writers of a register, the readers of a watched space),
/// and the memory whose writes can be hits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Probe {
    /// A bit per code word (empty: none).
    pub code: Vec<u64>,
    /// Ranges `(space, first byte, one past the last)`, keyed as [`Summary`] keys memory:
    /// global addresses, shared window offsets, offsets in a wave's scratch.
    pub writes: Vec<(Space, u64, u64)>,
    /// Whether a wave faulting is a hit (`reverse-continue` stops at faults, as `continue`).
    pub faults: bool,
}

impl Probe {
    /// A probe over `words` code words that looks for nothing yet.
    pub fn new(words: usize) -> Probe {
        Probe {
            code: vec![0; words.div_ceil(64)],
            writes: Vec::new(),
            faults: false,
        }
    }

    /// Looks at code word `i` too.
    pub fn code_word(&mut self, i: usize) {
        if let Some(b) = self.code.get_mut(i / 64) {
            *b |= 1 << (i % 64);
        }
    }

    /// Whether it looks for nothing at all (a search for it can only find nothing).
    pub fn is_empty(&self) -> bool {
        self.code.iter().all(|&b| b == 0) && self.writes.is_empty() && !self.faults
    }

    /// Looks at writes to `[addr, addr + len)` of `space` too: for scratch, `addr` is an
    /// offset in a lane's scratch of `scratch_bytes`, in any lane.
    pub fn memory(&mut self, space: Space, addr: u64, len: u64, scratch_bytes: u64) {
        let end = addr.saturating_add(len.max(1));
        match space {
            Space::Scratch => {
                for lane in 0..crate::wave::LANES as u64 {
                    let base = lane * scratch_bytes;
                    self.writes
                        .push((space, base.saturating_add(addr), base.saturating_add(end)));
                }
            }
            _ => self.writes.push((space, addr, end)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(written: [Vec<(u64, u64)>; 3]) -> Summary {
        Summary {
            ran: Some(vec![0b100]),
            written,
            faulted: false,
        }
    }

    #[test]
    fn lines_of_a_range() {
        assert_eq!(range_lines(0, 0, 1), 1);
        assert_eq!(range_lines(0, 63, 65), 0b11);
        assert_eq!(range_lines(4096, 0, 4096), 0);
        assert_eq!(range_lines(4096, 4096 + 4032, 9000), 1 << 63);
        assert_eq!(range_lines(0, 0, 1 << 20), u64::MAX);
    }

    #[test]
    fn a_probe_meets_the_lines_written_and_the_code_run() {
        let s = summary([vec![(0x1_0000_1000, 1 << 2)], vec![], vec![(4096, 1)]]);
        let mut p = Probe::new(64);
        assert!(!s.may_hold(&p));
        p.memory(Space::Global, 0x1_0000_1000 + 64, 4, 0);
        assert!(!s.may_hold(&p), "line 1 was not written");
        p.memory(Space::Global, 0x1_0000_1000 + 150, 4, 0);
        assert!(s.may_hold(&p), "line 2 was");
        let mut p = Probe::new(64);
        p.memory(Space::Shared, 4096, 4, 0);
        assert!(!s.may_hold(&p), "shared was not written");
        // Lane 1's scratch starts at 4096 in a wave's scratch of 4096 bytes per lane.
        p.memory(Space::Scratch, 0, 4, 4096);
        assert!(s.may_hold(&p));
        let mut p = Probe::new(64);
        p.code_word(1);
        assert!(!s.may_hold(&p));
        p.code_word(2);
        assert!(s.may_hold(&p));
        let mut p = Probe::new(64);
        p.faults = true;
        assert!(!s.may_hold(&p), "no wave faulted");
    }

    #[test]
    fn merged_summaries_hold_both() {
        let mut a = summary([vec![(0, 1), (8192, 2)], vec![], vec![]]);
        let b = Summary {
            ran: Some(vec![0b1]),
            written: [vec![(0, 4), (4096, 1)], vec![(0, 1)], vec![]],
            faulted: true,
        };
        a.merge(&b);
        assert_eq!(a.ran, Some(vec![0b101]));
        assert_eq!(a.written[0], vec![(0, 5), (4096, 1), (8192, 2)]);
        assert_eq!(a.written[1], vec![(0, 1)]);
        let mut faults = Probe::new(64);
        faults.faults = true;
        assert!(!faults.is_empty());
        assert!(a.may_hold(&faults), "a fault in either: a fault in both");
        let unknown = Summary {
            ran: None,
            written: Default::default(),
            faulted: false,
        };
        a.merge(&unknown);
        let mut p = Probe::new(64);
        p.code_word(40);
        assert!(a.may_hold(&p), "code unknown: any");
    }
}
