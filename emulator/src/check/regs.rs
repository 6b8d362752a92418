//! Which registers an instruction reads and writes, from its table row's operands and its
//! operation (computed once per code word when a sanitizer starts).

use crate::code::CodeWord;
use crate::exec::Op;
use crate::isa::{OperandKind, RegFile, Slot};

/// Consecutive registers of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Range {
    /// Vector or uniform registers.
    pub file: RegFile,
    /// The lowest register's number in its file (vector 0-127, uniform 0-63).
    pub first: u8,
    /// How many registers from `first` (0: an empty range).
    pub count: u8,
}

impl Range {
    const EMPTY: Range = Range {
        file: RegFile::Vector,
        first: 0,
        count: 0,
    };

    /// The registers, those past the end of the file left out.
    pub fn regs(self) -> impl Iterator<Item = u8> {
        let end = (self.first as u32 + self.count as u32).min(self.file.count());
        (self.first as u32..end).map(|r| r as u8)
    }

    /// Whether register `reg` of this range's file is in it.
    pub fn contains(self, reg: u8) -> bool {
        (self.first as u32..self.first as u32 + self.count as u32).contains(&(reg as u32))
    }
}

/// A set of registers: vector registers 0-127 in words 0 and 1, uniform registers 0-63 in
/// word 2 (the layout of the sanitizer's per-register tables); word 3 is always empty, so
/// that a set is 32 aligned bytes, which the SIMD loop's guard tests and the hazard
/// detector's unions load and combine whole (mixed checked: 74 machine instructions, 2.5%
/// of the time, less per wave-iteration than with three words).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C, align(32))]
pub(crate) struct RegBits(pub [u64; 4]);

impl RegBits {
    /// Where one register's bit is: the word's index and the bit's mask in it.
    #[inline]
    pub fn bit(file: RegFile, reg: u8) -> (usize, u64) {
        match file {
            RegFile::Vector => ((reg as usize >> 6) & 1, 1 << (reg & 63)),
            RegFile::Uniform => (2, 1 << (reg & 63)),
        }
    }

    /// Adds register `reg` of `file` (vector numbers taken modulo 128, uniform modulo 64).
    pub fn insert(&mut self, file: RegFile, reg: u8) {
        let (w, b) = Self::bit(file, reg);
        self.0[w] |= b;
    }

    /// The registers of range `r` (those [`Range::regs`] gives), without a loop.
    #[inline]
    pub fn of_range(r: Range) -> RegBits {
        let end = (r.first as u32 + r.count as u32).min(r.file.count());
        let first = (r.first as u32).min(end);
        let n = end - first;
        // The registers over the file's one or two words, `lo` and `hi` (shifts in
        // `u64`s: a `u128` shift costs a branch and three times the instructions).
        let (lo, hi) = if n < 64 {
            let m = (1u64 << n) - 1;
            match first {
                0 => (m, 0),
                1..64 => (m << first, m >> (64 - first)),
                _ => (0, m << (first - 64)),
            }
        } else {
            let mask = if n >= 128 {
                u128::MAX
            } else {
                ((1u128 << n) - 1) << first
            };
            (mask as u64, (mask >> 64) as u64)
        };
        match r.file {
            RegFile::Vector => RegBits([lo, hi, 0, 0]),
            RegFile::Uniform => RegBits([0, 0, lo, 0]),
        }
    }

    /// Whether register `reg` of `file` is in the set.
    #[inline]
    pub fn contains(self, file: RegFile, reg: u8) -> bool {
        let (w, b) = Self::bit(file, reg);
        self.0[w] & b != 0
    }

    /// Whether the two sets share a register.
    #[inline]
    pub fn meets(self, other: RegBits) -> bool {
        (self.0[0] & other.0[0])
            | (self.0[1] & other.0[1])
            | (self.0[2] & other.0[2])
            | (self.0[3] & other.0[3])
            != 0
    }

    /// Whether every register of `self` is in `other`.
    #[inline]
    pub fn within(self, other: RegBits) -> bool {
        (self.0[0] & !other.0[0]) | (self.0[1] & !other.0[1]) | (self.0[2] & !other.0[2]) == 0
    }

    /// The registers not in the set (of every file).
    #[inline]
    pub fn complement(self) -> RegBits {
        RegBits([!self.0[0], !self.0[1], !self.0[2], 0])
    }

    /// The registers in either set.
    pub fn union(self, other: RegBits) -> RegBits {
        RegBits([
            self.0[0] | other.0[0],
            self.0[1] | other.0[1],
            self.0[2] | other.0[2],
            self.0[3] | other.0[3],
        ])
    }

    fn of(ranges: impl Iterator<Item = Range>) -> RegBits {
        let mut bits = RegBits::default();
        for r in ranges {
            r.regs().for_each(|reg| bits.insert(r.file, reg));
        }
        bits
    }
}

/// The registers an instruction reads and writes as sets, for the checks' quick answers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RegSets {
    /// Every register the instruction reads, whatever lanes it reads them in.
    pub reads: RegBits,
    /// Every register the instruction writes.
    pub writes: RegBits,
}

impl RegSets {
    /// Whether `self`'s reads meet `other`'s reads or its writes meet `other`'s writes:
    /// one pass without a branch (`|`, not `||`).
    #[inline(always)]
    pub fn meets(self, other: RegSets) -> bool {
        self.reads.meets(other.reads) | self.writes.meets(other.writes)
    }

    /// The sets of one instruction's register use.
    pub fn of(u: &RegUse) -> RegSets {
        RegSets {
            reads: RegBits::of(u.reads().map(|(r, _)| r)),
            writes: RegBits::of(u.writes()),
        }
    }
}

/// Which lanes an instruction's register writes cover, when not the active ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Special {
    /// The lanes active (EXEC), as for any other instruction.
    None,
    /// `writelane`: this lane only, whatever EXEC.
    WriteLane(u8),
}

/// An instruction's register reads and writes. (Aligned to 16 bytes, so its 32 bytes copy
/// as two aligned halves: at 26 bytes, the checked loop's copy of it into the stack stalled
/// on store forwarding, a third of the loop's own time.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(align(16))]
pub(crate) struct RegUse {
    reads: [Range; 4],
    nreads: u8,
    /// Reads (bit per index) whose lanes are those a cross-lane instruction gathers
    /// ([`crate::exec::xlane::source_lanes`]) rather than the active ones.
    gather: u8,
    writes: [Range; 2],
    nwrites: u8,
    /// The data registers of a store or an atomic without return, which must not change
    /// before its wait.
    pub data: Option<Range>,
    /// Which lanes its writes cover.
    pub special: Special,
}

impl RegUse {
    pub(super) const NONE: RegUse = RegUse {
        reads: [Range::EMPTY; 4],
        nreads: 0,
        gather: 0,
        writes: [Range::EMPTY; 2],
        nwrites: 0,
        data: None,
        special: Special::None,
    };

    /// The registers read, each with whether its lanes are gathered.
    pub fn reads(&self) -> impl Iterator<Item = (Range, bool)> + '_ {
        self.reads[..self.nreads as usize]
            .iter()
            .enumerate()
            .map(|(i, r)| (*r, self.gather >> i & 1 == 1))
    }

    /// The registers written (in the lanes [`RegUse::special`] says).
    pub fn writes(&self) -> impl Iterator<Item = Range> + '_ {
        self.writes[..self.nwrites as usize].iter().copied()
    }

    fn read(&mut self, r: Range) {
        if (self.nreads as usize) < self.reads.len() {
            self.reads[self.nreads as usize] = r;
            self.nreads += 1;
        }
    }

    fn write(&mut self, r: Range) {
        if (self.nwrites as usize) < self.writes.len() {
            self.writes[self.nwrites as usize] = r;
            self.nwrites += 1;
        }
    }

    /// The registers a code word's instruction reads and writes (none for data words).
    pub fn of(word: &CodeWord) -> RegUse {
        let CodeWord::Instr(d) = word else {
            return RegUse::NONE;
        };
        let mut u = RegUse::NONE;
        let def = d.instr.def();
        let reg = |slot: Slot| {
            def.operand(slot).and_then(|o| match o.kind {
                OperandKind::Reg { file, count } => Some(Range {
                    file,
                    first: d.instr.get(slot) as u8,
                    count,
                }),
                _ => None,
            })
        };
        let cross_lane = crate::exec::OpClass::of(d.op) == crate::exec::OpClass::CrossLane;
        for slot in [Slot::Rs1, Slot::Rs2, Slot::Rs3] {
            if let Some(r) = reg(slot) {
                // A cross-lane instruction's first source is read in other lanes.
                if cross_lane && slot == Slot::Rs1 && r.file == RegFile::Vector {
                    u.gather |= 1 << u.nreads;
                }
                u.read(r);
            }
        }
        let rd = reg(Slot::Rd);
        match d.op {
            Op::Store { .. } => {
                if let Some(r) = rd {
                    u.read(r);
                    u.data = Some(r);
                }
            }
            Op::Atomic { rtn, wide, .. } => {
                if let Some(r) = rd {
                    u.read(r);
                    if rtn {
                        u.write(Range {
                            count: if wide { 2 } else { 1 },
                            ..r
                        });
                    } else {
                        u.data = Some(r);
                    }
                }
            }
            Op::Writelane => {
                if let Some(r) = rd {
                    u.write(r);
                }
                u.special = Special::WriteLane(d.instr.get(Slot::Rs1) as u8);
            }
            _ => {
                if let Some(r) = rd {
                    u.write(r);
                }
            }
        }
        u
    }
}

#[cfg(test)]
mod set_tests {
    use super::*;

    #[test]
    fn a_range_as_a_set_holds_the_registers_it_names() {
        for file in [RegFile::Vector, RegFile::Uniform] {
            for first in 0..=255u8 {
                for count in [0u8, 1, 2, 3, 4, 8, 16, 63, 64, 65, 127, 128, 255] {
                    let r = Range { file, first, count };
                    assert_eq!(
                        RegBits::of_range(r),
                        RegBits::of(std::iter::once(r)),
                        "{file:?} {first} {count}"
                    );
                }
            }
        }
    }

    #[test]
    fn register_sets_meet_and_contain() {
        let mut a = RegBits::default();
        a.insert(RegFile::Vector, 3);
        a.insert(RegFile::Vector, 127);
        a.insert(RegFile::Uniform, 63);
        let mut b = RegBits::default();
        b.insert(RegFile::Uniform, 3);
        // v3 and u3 are different registers.
        assert!(!a.meets(b) && !b.within(a));
        b.insert(RegFile::Vector, 127);
        assert!(a.meets(b));
        assert!(b.contains(RegFile::Uniform, 3) && !b.contains(RegFile::Vector, 3));
        assert!(a.contains(RegFile::Vector, 3) && !a.contains(RegFile::Uniform, 3));
        let mut c = RegBits::default();
        c.insert(RegFile::Vector, 127);
        assert!(c.within(a) && !a.within(c));
        assert!(a.within(a.union(b)));
    }
}
