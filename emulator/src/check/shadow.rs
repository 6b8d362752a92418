//! Shadow memory: per 4-byte word, the last plain write and the last two reads (or
//! atomics) by different waves, for races; a bit per byte for "written in this launch".
//! Both are sparse, 4 KiB of memory per page, so their size follows what the kernel
//! touches, not the buffers' sizes; pages are shared between clones until written.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use super::{MemAccess, Site};

/// Bytes of memory per shadow page.
const PAGE: u64 = 4096;
/// Words per page.
const WORDS: usize = (PAGE / 4) as usize;

/// A multiplicative hash of a page number: the keys are small integers, so the standard
/// library's DoS-resistant hasher would only cost time.
#[derive(Default, Clone, Copy)]
pub(super) struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type PageMap<P> = HashMap<u64, Arc<P>, BuildHasherDefault<PageHasher>>;

/// One access as the race shadow keeps it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Ref {
    /// Global wave id + 1 (0: no access).
    wave: u32,
    workgroup: u32,
    epoch: u32,
    pc: u32,
    lane: u8,
    /// The bytes of the word it touched.
    mask: u8,
    atomic: bool,
    write: bool,
}

impl Ref {
    pub fn new(wave: u32, workgroup: u32, epoch: u32, pc: u64, access: MemAccess) -> Ref {
        Ref {
            wave: wave.wrapping_add(1),
            workgroup,
            epoch,
            pc: pc.min(u32::MAX as u64) as u32,
            lane: 0,
            mask: 0,
            atomic: access == MemAccess::Atomic,
            write: access == MemAccess::Write,
        }
    }

    pub fn with_lane(self, lane: u8) -> Ref {
        Ref { lane, ..self }
    }

    /// Whether `self` (earlier) and `b` (now) are unordered accesses of different waves to
    /// common bytes: other workgroups are never ordered (this ISA has no synchronisation
    /// between workgroups but atomics), waves of one workgroup by a barrier between them.
    fn concurrent(&self, b: &Ref) -> bool {
        self.wave != 0
            && self.wave != b.wave
            && self.mask & b.mask != 0
            && (self.workgroup != b.workgroup || self.epoch == b.epoch)
    }

    /// The access as a finding names it.
    pub fn site(&self) -> Site {
        Site {
            wave: self.wave.wrapping_sub(1),
            workgroup: self.workgroup,
            lanes: 1u32.checked_shl(self.lane as u32).unwrap_or(0),
            pc: self.pc as u64,
            access: Some(if self.atomic {
                MemAccess::Atomic
            } else if self.write {
                MemAccess::Write
            } else {
                MemAccess::Read
            }),
            epoch: Some(self.epoch),
        }
    }
}

/// An earlier access an access races with.
#[derive(Debug, Clone, Copy)]
pub(super) struct Conflict {
    pub prior: Ref,
}

/// One word's history.
#[derive(Debug, Clone, Copy, Default)]
struct Cell {
    /// The last plain write.
    write: Ref,
    /// The last read or atomic, and the last one by a wave other than `r1`'s: a later
    /// write by any wave races with one of them if it races with any (per byte mask).
    r1: Ref,
    r2: Ref,
}

#[derive(Debug, Clone)]
struct RacePage([Cell; WORDS]);

impl Default for RacePage {
    fn default() -> Self {
        RacePage([Cell::default(); WORDS])
    }
}

/// The race shadow of one address space (a workgroup's shared memory, or global memory).
#[derive(Debug, Clone, Default)]
pub(super) struct RaceShadow {
    pages: PageMap<RacePage>,
}

impl RaceShadow {
    /// Records an access of `len` bytes at `addr` by `me`, calling `conflict` with every
    /// earlier access it races with (at most one per word).
    pub fn access(&mut self, addr: u64, len: u32, me: Ref, conflict: &mut impl FnMut(Conflict)) {
        let end = addr.saturating_add(len.max(1) as u64);
        let mut word = addr / 4;
        while word * 4 < end {
            let lo = (word * 4).max(addr) - word * 4;
            let hi = ((word + 1) * 4).min(end) - word * 4;
            let mask = ((1u16 << hi) - (1u16 << lo)) as u8;
            let me = Ref { mask, ..me };
            let page = Arc::make_mut(self.pages.entry(word / WORDS as u64).or_default());
            let cell = &mut page.0[(word % WORDS as u64) as usize];
            if me.write {
                if cell.write.concurrent(&me) {
                    conflict(Conflict { prior: cell.write });
                } else if cell.r1.concurrent(&me) {
                    conflict(Conflict { prior: cell.r1 });
                } else if cell.r2.concurrent(&me) {
                    conflict(Conflict { prior: cell.r2 });
                }
                cell.write = me;
            } else {
                if cell.write.concurrent(&me) {
                    conflict(Conflict { prior: cell.write });
                }
                if cell.r1.wave != me.wave {
                    cell.r2 = cell.r1;
                }
                cell.r1 = me;
            }
            word += 1;
        }
    }

    pub fn bytes(&self) -> usize {
        self.pages.len() * std::mem::size_of::<RacePage>()
    }
}

/// A bit per byte: written in this launch.
#[derive(Debug, Clone, Default)]
pub(super) struct InitBits {
    pages: PageMap<[u64; (PAGE / 64) as usize]>,
}

impl InitBits {
    /// Whether every byte of `[off, off + len)` was written.
    pub fn all_set(&self, off: u64, len: u32) -> bool {
        (off..off.saturating_add(len as u64)).all(|b| {
            self.pages
                .get(&(b / PAGE))
                .is_some_and(|p| p[((b % PAGE) / 64) as usize] >> (b % 64) & 1 == 1)
        })
    }

    /// Marks `[off, off + len)` written.
    pub fn set(&mut self, off: u64, len: u32) {
        let mut b = off;
        let end = off.saturating_add(len as u64);
        while b < end {
            let page = Arc::make_mut(
                self.pages
                    .entry(b / PAGE)
                    .or_insert_with(|| Arc::new([0; 64])),
            );
            page[((b % PAGE) / 64) as usize] |= 1 << (b % 64);
            b += 1;
        }
    }

    pub fn bytes(&self) -> usize {
        self.pages.len() * (PAGE / 8) as usize
    }
}
